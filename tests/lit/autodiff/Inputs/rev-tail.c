/* Harness of tests/lit/autodiff/rev-tail.mim: the gradients of sq
 * (f = a_0⁴ + Σ_{0<i<n} a_i², which overwrites a_0 with a_0²) and cube
 * (f = Σ a_i³) against the analytic ones and a central finite difference
 * (each evaluation on a fresh copy of the input, since sq writes it). */
#include "grad-check.h"
#include <string.h>

double rsq(double *, double *, long), rcube(double *, double *, long);
double vsumsq(double *, long), vfill(double *, double *, long);

static double fsq(const double *a, long n) {
    double *c = moved(a, a, 0, n);
    if (n > 0) c[0] *= c[0];
    double r = vsumsq(c, n);
    free(c);
    return r;
}
static double fcube(const double *a, long n) {
    double *c = moved(a, a, 0, n), *b = malloc((size_t)(n + 1) * sizeof *b);
    double r = vfill(c, b, n);
    free(c), free(b);
    return r;
}

static void check(const char *name, int which, long n) {
    double *a = vec_base(n, 0.3, 0.2, 0.6), *v = vec(n, 1.0, 0.7), *c = moved(a, a, 0, n);
    double *g = calloc((size_t)(n + 1), sizeof *g), *want = calloc((size_t)(n + 1), sizeof *want), h = 1e-6;
    double f = 0, r = which ? rcube(c, g, n) : rsq(c, g, n);
    for (long i = 0; i < n; ++i) {
        double x = a[i];
        if (which) f += x * x * x, want[i] = 3 * x * x;
        else if (i == 0) f += x * x * x * x, want[i] = 4 * x * x * x;
        else f += x * x, want[i] = 2 * x;
    }
    double *ap = moved(a, v, h, n), *am = moved(a, v, -h, n);
    double fd = which ? (fcube(ap, n) - fcube(am, n)) / (2 * h) : (fsq(ap, n) - fsq(am, n)) / (2 * h);
    if (rel(r, f) > 1e-9) printf("FAIL %s %ld: value %.17g, expected %.17g\n", name, n, r, f);
    else check_grad(name, n, g, want, v, fd);
    free(a), free(v), free(c), free(g), free(want), free(ap), free(am);
}

int main(void) {
    long ns[] = {0, 1, 3, 300};
    for (int i = 0; i < 4; ++i) check("sq", 0, ns[i]), check("cube", 1, ns[i]);
    return 0;
}
