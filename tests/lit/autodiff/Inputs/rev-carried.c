/* Harness of tests/lit/autodiff/rev-carried.mim: each reverse-mode
 * gradient (into a zeroed shadow) against a hand-written reverse
 * (check_grad: relative error < 1e-9) and a central finite difference
 * along a direction (< 1e-6), and its value against the plain function. */
#include "grad-check.h"

double rbr(double *, double *, long), vbr(double *, long);
double rtri(double *, double *, long), vtri(double *, long);
double rnest(double *, double *, long), vnest(double *, long);
double rbrk(double *, double *, long), vbrk(double *, long);

static double br_c(const double *a, long n, double *g) {
    double y = a[n], gy = 0, *ts = malloc((size_t)(n + 1) * sizeof *ts), t = 0.5;
    for (long s = 1; s < n; ++s) ts[s] = t, t = a[s] > 0 ? t * y + a[s] * a[s] : t - 3 * a[s];
    double tb = 2 * t;
    for (long s = n - 1; s >= 1; --s) {
        if (a[s] > 0) g[s] += tb * 2 * a[s], gy += tb * ts[s], tb *= y;
        else g[s] -= 3 * tb;
    }
    g[n] += gy;
    free(ts);
    return t * t;
}
static double tri_c(const double *a, long n, double *g) {
    double t = 0, *pre = malloc((size_t)(n + 1) * sizeof *pre), *u = malloc((size_t)(n + 1) * sizeof *u);
    pre[0] = 0;
    for (long r = 0; r < n; ++r) pre[r + 1] = pre[r] + a[r];
    for (long r = 0; r < n; ++r) u[r] = a[r] * pre[r], t += u[r] * u[r] + a[r];
    double later = 0; /* Σ_{r' > r} 2·u_r'·a_r' */
    for (long r = n - 1; r >= 0; --r) {
        g[r] += 2 * u[r] * pre[r] + 1 + later;
        later += 2 * u[r] * a[r];
    }
    free(pre), free(u);
    return t;
}
static double nest_c(const double *a, long n, double *g) {
    double *ts = malloc((size_t)(n + 1) * sizeof *ts), t = 0;
    for (long i = 0; i < n; ++i) {
        double c = 0.001 * t + 2, u = a[i] * c;
        ts[i] = t, t += u * u;
    }
    double tb = 1;
    for (long i = n - 1; i >= 0; --i) {
        double c = 0.001 * ts[i] + 2;
        g[i] += tb * 2 * a[i] * c * c;
        tb *= 1 + 2 * a[i] * a[i] * c * 0.001;
    }
    free(ts);
    return t;
}

static double brk_c(const double *a, long n, double *g) {
    double t = 0;
    for (long s = 0; s < n; ++s) {
        if (a[s] > 0.35) {
            for (long r = 0; r <= s; ++r) g[r] += r < s ? 2 * a[r] : 1;
            return t + a[s];
        }
        t += a[s] * a[s];
    }
    for (long r = 0; r < n; ++r) g[r] += 2 * a[r];
    return t;
}

static void run(const char *name, Rev *rv, Val *vf, Ref *ref, long n) { check_array_case(name, rv, vf, ref, n, n + 1); }

int main(void) {
    long ns[] = {0, 1, 2, 3, 300};
    for (size_t j = 0; j < 5; ++j) run("br", rbr, vbr, br_c, ns[j]);
    run("br", rbr, vbr, br_c, 3000000);
    for (size_t j = 0; j < 5; ++j) run("tri", rtri, vtri, tri_c, ns[j]);
    for (size_t j = 0; j < 5; ++j) run("nest", rnest, vnest, nest_c, ns[j]);
    run("nest", rnest, vnest, nest_c, 3000);
    for (size_t j = 0; j < 5; ++j) run("brk", rbrk, vbrk, brk_c, ns[j]);
    return 0;
}
