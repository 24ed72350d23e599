/* Shared by the C harnesses of the autodiff memory tests (rev-mem,
 * rev-loops, rev-store, fwd-mem): test arrays and the comparison of a
 * computed gradient with the analytic one and a central finite difference.
 * Arrays hold at least one element, so length 0 is a valid pointer. */
#ifndef GRAD_CHECK_H
#define GRAD_CHECK_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static inline double rel(double got, double want) { return fabs(got - want) / fmax(1.0, fabs(want)); }

/* every g[i] against want[i] (< 1e-9), Σ g_i v_i against fd (< 1e-6) */
static inline void check_grad(const char *name, long n, const double *g, const double *want, const double *v,
                              double fd) {
    double worst = 0, dir = 0;
    for (long i = 0; i < n; ++i) worst = fmax(worst, rel(g[i], want[i])), dir += g[i] * v[i];
    if (worst < 1e-9 && rel(dir, fd) < 1e-6) printf("ok %s %ld\n", name, n);
    else printf("FAIL %s %ld: max rel. error %.3g, directional %.17g vs finite difference %.17g\n", name, n, worst, dir, fd);
}

/* base + scale·sin(1.3 i + shift), i < n */
static inline double *vec_base(long n, double scale, double shift, double base) {
    double *v = malloc((size_t)(n + 1) * sizeof *v);
    for (long i = 0; i < n; ++i) v[i] = base + scale * sin(1.3 * (double)i + shift);
    return v;
}
static inline double *vec(long n, double scale, double shift) { return vec_base(n, scale, shift, 0); }

/* a + h·da into a fresh array */
static inline double *moved(const double *a, const double *da, double h, long n) {
    double *v = malloc((size_t)(n + 1) * sizeof *v);
    for (long i = 0; i < n; ++i) v[i] = a[i] + h * da[i];
    return v;
}
#endif
