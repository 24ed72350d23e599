/* Harness of tests/lit/autodiff/rev-shared.mim: each reverse-mode gradient
 * (into a zeroed shadow) against a hand-written reverse (check_grad:
 * relative error < 1e-9) and a central finite difference along a direction
 * (< 1e-6), and its value against the plain function. */
#include "grad-check.h"

double rsh(double *, double *, long), vsh(double *, long);
double rnest(double *, double *, long), vnest(double *, long);
double rone(double *, double *, long), vone(double *, long);
double rpp(double *, double *, double *, double *, long), vpp(double *, double *, long);

/* sh's h(c), adding hbar·∂h/∂a into g when g is not NULL */
static double sh_h(const double *a, long n, long c, double *g, double hbar) {
    double sq = 0, sum = 0;
    for (long r = 0; r < n; ++r) {
        double e = exp(a[c + r]), t = e * a[r];
        for (long s = 0; s < r; ++s) t += a[s] * a[c + s];
        sq += t * t, sum += a[c + r];
        if (!g) continue;
        double tb = -t * hbar; /* ∂(−½t²)/∂t */
        g[c + r] += hbar + tb * e * a[r];
        g[r] += tb * e;
        for (long s = 0; s < r; ++s) g[s] += tb * a[c + s], g[c + s] += tb * a[s];
    }
    return sum - 0.5 * sq;
}
static double sh_c(const double *a, long n, double *g) {
    double f = 0;
    for (long c = 0; c < 3; ++c) {
        double v = sh_h(a, n, c, NULL, 0);
        if (g) sh_h(a, n, c, g, 2 * v);
        f += v * v;
    }
    return f + sh_h(a, n, 3, g, 1);
}

/* nest's g(j) and h(c) */
static double nest_g(const double *a, long n, long j, double *g, double gbar) {
    double t = 0;
    for (long s = 0; s < n; ++s) t += a[s] * a[s + j];
    for (long s = 0; g && s < n; ++s) g[s] += 2 * t * gbar * a[s + j], g[s + j] += 2 * t * gbar * a[s];
    return t * t;
}
static double nest_h(const double *a, long n, long c, double *g, double hbar) {
    double acc = 0, gv[2];
    for (long r = 0; r < 2; ++r) gv[r] = nest_g(a, n, c + r, NULL, 0), acc += gv[r] * a[r];
    double v = nest_g(a, n, c, NULL, 0);
    if (g) { /* h = acc·v */
        nest_g(a, n, c, g, hbar * acc);
        for (long r = 0; r < 2; ++r) g[r] += hbar * v * gv[r], nest_g(a, n, c + r, g, hbar * v * a[r]);
    }
    return acc * v;
}
static double nest_c(const double *a, long n, double *g) {
    double f = 0;
    for (long c = 0; c < 2; ++c) f += nest_h(a, n, c, g, 1);
    double v = nest_h(a, n, 2, NULL, 0);
    if (g) nest_h(a, n, 2, g, -2 * v);
    return f - v * v;
}

static double one_c(const double *a, long n, double *g) {
    double t = 0, q = 0;
    for (long s = 1; s < n; ++s) t += a[s] * a[s - 1];
    for (long s = 1; g && s < n; ++s) g[s] += 2 * t * a[s - 1], g[s - 1] += 2 * t * a[s];
    for (long s = 0, m = n; s < m; ++s, --m) {
        q += a[s] * a[s];
        if (g) g[s] += 2 * a[s];
    }
    return t * t + q;
}

/* pp: the gradient w.r.t. a and b (one array of 2n: a's, then b's) */
static double pp_c(const double *a, const double *b, long n, double *g) {
    double f = 0, d = 0;
    for (long r = 0; r < n; ++r) {
        double t = 0;
        for (long s = 0; s < r; ++s) t += a[s] * b[s];
        f += t * t;
        for (long s = 0; s < r; ++s) g[s] += 2 * t * b[s], g[n + s] += 2 * t * a[s];
    }
    for (long s = 0; s < n; ++s) d += b[s] * b[s], g[n + s] += 2 * b[s];
    return f + d;
}
static void run_pp(long n) {
    double *ab = vec_base(2 * n, 0.3, 0.2, 0.1), *v = vec(2 * n, 1.0, 0.7), h = 1e-6;
    double *g = calloc((size_t)(2 * n + 1), sizeof *g), *want = calloc((size_t)(2 * n + 1), sizeof *want);
    double *a = malloc((size_t)(n + 1) * sizeof *a), *b = malloc((size_t)(n + 1) * sizeof *b);
    for (long i = 0; i < n; ++i) a[i] = ab[i], b[i] = ab[n + i];
    double r = rpp(a, g, b, g + n, n), f = pp_c(a, b, n, want);
    double *p = moved(ab, v, h, 2 * n), *m = moved(ab, v, -h, 2 * n);
    double fd = (vpp(p, p + n, n) - vpp(m, m + n, n)) / (2 * h);
    if (rel(r, f) > 1e-9 || rel(vpp(a, b, n), f) > 1e-9) printf("FAIL pp %ld: value %.17g, C %.17g\n", n, r, f);
    else check_grad("pp", 2 * n, g, want, v, fd);
    free(ab), free(v), free(g), free(want), free(a), free(b), free(p), free(m);
}

/* len: the array's length for n (printed by check_grad) */
static void run(const char *name, Rev *rv, Val *vf, Ref *ref, long n, long len) { check_array_case(name, rv, vf, ref, n, len); }

int main(void) {
    long ns[] = {0, 1, 3, 40};
    for (size_t j = 0; j < 4; ++j) run("sh", rsh, vsh, sh_c, ns[j], ns[j] + 3);
    run("sh", rsh, vsh, sh_c, 300, 303);
    for (size_t j = 0; j < 4; ++j) run("nest", rnest, vnest, nest_c, ns[j], ns[j] + 3);
    long ms[] = {0, 1, 2, 3, 5, 40, 301};
    for (size_t j = 0; j < 7; ++j) run("one", rone, vone, one_c, ms[j], ms[j]);
    for (size_t j = 0; j < 4; ++j) run_pp(ns[j]);
    return 0;
}
