/* Harness of tests/lit/autodiff/rev-mem.mim: gradients of functions over
 * malloc'd F64 arrays, computed in reverse mode (%autodiff.vjp) into
 * zeroed shadow arrays, against the analytic ones (written here) and
 * central finite differences along a direction v (Σ g_i v_i). */
#include "grad-check.h"

double rdot(double *, double *, double *, double *, long);
double rsumsq(double *, double *, long);
double rlse(double *, double *, long);
double rsinsum(double *, double *, double *, double *, long);
double rfib(double, long);
double rrelu(double *, double *, long), vrelu(double *, long);
double vdot(double *, double *, long), vsumsq(double *, long), vlse(double *, long);
double vsinsum(double *, double *, long), vfib(double, long);

static void arrays(long n) {
    const double h = 1e-6;
    double *a = vec(n, 1.0, 0.1), *b = vec(n, 0.5, 0.7), *va = vec(n, 1.0, 2.0), *vb = vec(n, 0.3, 1.1);
    double *ap = moved(a, va, h, n), *am = moved(a, va, -h, n), *bp = moved(b, vb, h, n), *bm = moved(b, vb, -h, n);
    double *g = calloc((size_t)(2 * n), sizeof *g), *want = malloc((size_t)(2 * n) * sizeof *want);
    double *v = malloc((size_t)(2 * n) * sizeof *v);
    for (long i = 0; i < n; ++i) v[i] = va[i], v[n + i] = vb[i];
    if (n <= 1000) {
        /* dot: ∂a = b, ∂b = a */
        double r = rdot(a, g, b, g + n, n);
        for (long i = 0; i < n; ++i) want[i] = b[i], want[n + i] = a[i];
        if (rel(r, vdot(a, b, n)) > 1e-12) printf("FAIL dot value\n");
        check_grad("dot", 2 * n, g, want, v, (vdot(ap, bp, n) - vdot(am, bm, n)) / (2 * h));
        /* log-sum-exp: ∂a = softmax a */
        for (long i = 0; i < n; ++i) g[i] = 0;
        rlse(a, g, n);
        double s = 0;
        for (long i = 0; i < n; ++i) s += exp(a[i]);
        for (long i = 0; i < n; ++i) want[i] = exp(a[i]) / s;
        check_grad("lse", n, g, want, va, (vlse(ap, n) - vlse(am, n)) / (2 * h));
        /* Σ sin(a_i b_i) through a nested function */
        for (long i = 0; i < 2 * n; ++i) g[i] = 0;
        rsinsum(a, g, b, g + n, n);
        for (long i = 0; i < n; ++i) want[i] = cos(a[i] * b[i]) * b[i], want[n + i] = cos(a[i] * b[i]) * a[i];
        check_grad("sinsum", 2 * n, g, want, v, (vsinsum(ap, bp, n) - vsinsum(am, bm, n)) / (2 * h));
        /* Σ max(a_i, 0)·a_i: ∂a = 2a where a > 0 */
        for (long i = 0; i < n; ++i) g[i] = 0;
        rrelu(a, g, n);
        for (long i = 0; i < n; ++i) want[i] = a[i] > 0 ? 2 * a[i] : 0;
        check_grad("relu", n, g, want, va, (vrelu(ap, n) - vrelu(am, n)) / (2 * h));
    }
    /* Σ a_i²: ∂a = 2a */
    for (long i = 0; i < n; ++i) g[i] = 0;
    rsumsq(a, g, n);
    for (long i = 0; i < n; ++i) want[i] = 2 * a[i];
    check_grad("sumsq", n, g, want, va, (vsumsq(ap, n) - vsumsq(am, n)) / (2 * h));
    free(a), free(b), free(va), free(vb), free(ap), free(am), free(bp), free(bm), free(g), free(want), free(v);
}

/* (a, b) ← (b, a + b·x) n times from (0, 1): b and its derivative */
static void fib(long n, double x) {
    double a = 0, b = 1, da = 0, db = 0;
    for (long i = 0; i < n; ++i) {
        double na = b, nb = a + b * x, nda = db, ndb = da + db * x + b;
        a = na, b = nb, da = nda, db = ndb;
    }
    double h = 1e-4 / (double)n, one = 1;
    double got = rfib(x, n), fd = (vfib(x + h, n) - vfib(x - h, n)) / (2 * h);
    if (rel(vfib(x, n), b) > 1e-9) printf("FAIL fib value\n");
    char name[32];
    snprintf(name, sizeof name, "fib(n=%ld)", n);
    check_grad(name, 1, &got, &db, &one, fd);
}

int main(void) {
    for (long n = 3; n <= 300; n *= 10) arrays(n);
    arrays(1000000);
    fib(40, 0.3);
    fib(1000, 0.1);
    fib(100000, 0.001);
    return 0;
}
