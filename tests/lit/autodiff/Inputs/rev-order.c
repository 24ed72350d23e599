/* Harness of tests/lit/autodiff/rev-order.mim: each reverse-mode gradient
 * (into a zeroed shadow) against a hand-written one (check_grad: relative
 * error < 1e-9) and a central finite difference along a direction
 * (< 1e-6), and its value against the plain function. Arrays hold n + 1
 * values. */
#include "grad-check.h"

double rup(double *, double *, long), vup(double *, long);
double rdn(double *, double *, long), vdn(double *, long);
double rab(double *, double *, long), vab(double *, long);

static double up_c(const double *a, long n, double *g) {
    double y = a[0] + 1, q = a[0] * a[0], sa = 0;
    for (long s = 0; s < n; ++s) sa += a[s];
    double t = sa * y, tb = 2 * t + q;
    for (long s = 0; s < n; ++s) g[s] += tb * y;
    g[0] += tb * sa + t * 2 * a[0];
    return t * t + q * t;
}
static double dn_c(const double *a, long n, double *g) {
    double t = 0;
    for (long s = 0; s < n; ++s) t = 2 * t + a[s];
    for (long s = 0; s < n; ++s) g[s] += 2 * t * ldexp(1.0, (int)(n - 1 - s));
    return t * t;
}
static double ab_c(const double *a, long n, double *g) {
    double t = (double)n * a[n];
    for (long s = 0; s < n; ++s) t += (double)(n - 1 - s) * a[s];
    for (long s = 0; s < n; ++s) g[s] += 2 * t * (double)(n - 1 - s);
    g[n] += 2 * t * (double)n;
    return t * t;
}

static void run(const char *name, Rev *rv, Val *vf, Ref *ref, long n) { check_array_case(name, rv, vf, ref, n, n + 1); }

int main(void) {
    long ns[] = {0, 1, 3, 300};
    for (size_t j = 0; j < 4; ++j) run("up", rup, vup, up_c, ns[j]);
    for (size_t j = 0; j < 4; ++j) run("dn", rdn, vdn, dn_c, ns[j]);
    for (size_t j = 0; j < 4; ++j) run("ab", rab, vab, ab_c, ns[j]);
    return 0;
}
