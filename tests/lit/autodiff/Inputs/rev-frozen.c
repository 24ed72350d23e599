/* Harness of tests/lit/autodiff/rev-frozen.mim: each reverse-mode
 * gradient (into a zeroed shadow) against a hand-written reverse
 * (check_grad: relative error < 1e-9) and a central finite difference
 * along a direction (< 1e-6), and its value against the plain function. */
#include "grad-check.h"

double rptri(double *, double *, long), vptri(double *, long);
double rwtri(double *, double *, long), vwtri(double *, long);
double ratri(double *, double *, long), vatri(double *, long);
double rgsum(double *, double *, long), vgsum(double *, long);

/* f = Σ_{r<n} ((e_r·P_r)² + e_r), e_r = exp(a_r), P_r = Σ_{s<r} a_s:
 * ∂f/∂a_r = 2 e_r² P_r² + e_r + Σ_{r' > r} 2 e_r'² P_r' */
static double tri_c(const double *a, long n, double *g) {
    double t = 0, p = 0, *ps = malloc((size_t)(n + 1) * sizeof *ps);
    for (long r = 0; r < n; ++r) {
        double e = exp(a[r]), v = e * p;
        ps[r] = p, t += v * v + e, p += a[r];
    }
    double later = 0;
    for (long r = n - 1; r >= 0; --r) {
        double e = exp(a[r]);
        g[r] += 2 * e * e * ps[r] * ps[r] + e + later;
        later += 2 * e * e * ps[r];
    }
    free(ps);
    return t;
}
/* f = T², T the sum above */
static double sq_c(const double *a, long n, double *g) {
    double *gt = calloc((size_t)(n + 1), sizeof *gt), t = tri_c(a, n, gt);
    for (long r = 0; r < n; ++r) g[r] += 2 * t * gt[r];
    free(gt);
    return t * t;
}

/* f = Σ_{r<n} (S_r·e_r + S_1), S_m = Σ_{s<m} e_s·a_s, e = exp(a):
 * ∂f/∂a_j = S_j·e_j + e_j(1 + a_j)·(Σ_{r>j} e_r + [j = 0]·n) */
static double gsum_c(const double *a, long n, double *g) {
    double t = 0, s = 0, *ss = malloc((size_t)(n + 1) * sizeof *ss);
    double s1 = n > 0 ? exp(a[0]) * a[0] : 0;
    for (long r = 0; r < n; ++r) ss[r] = s, t += s * exp(a[r]) + s1, s += exp(a[r]) * a[r];
    double later = 0; /* Σ_{r>j} e_r */
    for (long j = n - 1; j >= 0; --j) {
        double e = exp(a[j]);
        g[j] += ss[j] * e + e * (1 + a[j]) * (later + (j == 0 ? (double)n : 0));
        later += e;
    }
    free(ss);
    return t;
}

static void run(const char *name, Rev *rv, Val *vf, Ref *ref, long n) { check_array_case(name, rv, vf, ref, n, n + 1); }

int main(void) {
    long ns[] = {0, 1, 2, 3, 300, 3000};
    for (size_t j = 0; j < 6; ++j) run("ptri", rptri, vptri, tri_c, ns[j]);
    for (size_t j = 0; j < 6; ++j) run("wtri", rwtri, vwtri, tri_c, ns[j]);
    for (size_t j = 0; j < 6; ++j) run("atri", ratri, vatri, sq_c, ns[j]);
    for (size_t j = 0; j < 6; ++j) run("gsum", rgsum, vgsum, gsum_c, ns[j]);
    return 0;
}
