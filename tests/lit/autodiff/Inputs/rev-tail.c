/* Harness of tests/lit/autodiff/rev-tail.mim: the gradients of sq
 * (f = a_0⁴ + Σ_{0<i<n} a_i², which overwrites a_0 with a_0²: each call on a
 * fresh copy) and cube (f = Σ a_i³) against the analytic ones and a central
 * finite difference (check_array_case). */
#include "grad-check.h"

double rsq(double *, double *, long), rcube(double *, double *, long);
double vsumsq(double *, long), vfill(double *, double *, long);

static double r_sq(double *a, double *g, long n) {
    double *c = fresh(a, n), r = rsq(c, g, n);
    free(c);
    return r;
}
static double v_sq(double *a, long n) {
    double *c = fresh(a, n);
    if (n > 0) c[0] *= c[0];
    double r = vsumsq(c, n);
    free(c);
    return r;
}
static double ref_sq(const double *a, long n, double *g) {
    double f = 0;
    for (long i = 0; i < n; ++i) {
        double x = a[i];
        if (i == 0) f += x * x * x * x, g[i] += 4 * x * x * x;
        else f += x * x, g[i] += 2 * x;
    }
    return f;
}

static double v_cube(double *a, long n) {
    double *b = malloc((size_t)(n + 1) * sizeof *b), r = vfill(a, b, n);
    free(b);
    return r;
}
static double ref_cube(const double *a, long n, double *g) {
    double f = 0;
    for (long i = 0; i < n; ++i) f += a[i] * a[i] * a[i], g[i] += 3 * a[i] * a[i];
    return f;
}

int main(void) {
    long ns[] = {0, 1, 3, 300};
    for (int i = 0; i < 4; ++i) {
        check_array_case("sq", r_sq, v_sq, ref_sq, ns[i], ns[i]);
        check_array_case("cube", rcube, v_cube, ref_cube, ns[i], ns[i]);
    }
    return 0;
}
