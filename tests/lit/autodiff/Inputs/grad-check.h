/* Shared by the C harnesses of the autodiff memory tests (rev-mem,
 * rev-loops, rev-store, fwd-mem): test arrays and the comparison of a
 * computed gradient with the analytic one and a central finite difference.
 * Arrays hold at least one element, so length 0 is a valid pointer. */
#ifndef GRAD_CHECK_H
#define GRAD_CHECK_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* a copy of a (n elements) with one more element, zero: for functions that
 * write or free their argument */
static inline double *fresh(const double *a, long n) {
    double *c = calloc((size_t)(n + 1), sizeof *c);
    memcpy(c, a, (size_t)n * sizeof *c);
    return c;
}

/* r_NAME and v_NAME: the gradient rf and the value vf on a fresh copy of a */
#define ON_COPY(name, f)                                                                                                \
    static double r_##name(double *a, double *g, long n) {                                                              \
        double *c = fresh(a, n), r = r##f(c, g, n);                                                                     \
        free(c);                                                                                                        \
        return r;                                                                                                       \
    }                                                                                                                   \
    static double v_##name(double *a, long n) {                                                                         \
        double *c = fresh(a, n), r = v##f(c, n);                                                                        \
        free(c);                                                                                                        \
        return r;                                                                                                       \
    }

/* a + h·da into a fresh array */
static inline double *moved(const double *a, const double *da, double h, long n) {
    double *v = malloc((size_t)(n + 1) * sizeof *v);
    for (long i = 0; i < n; ++i) v[i] = a[i] + h * da[i];
    return v;
}

/* The gradient rv(a, g, n) of vf over an array a of len elements, against
 * the hand-written reverse ref (value and gradient, relative error < 1e-9)
 * and a central finite difference along a fixed direction (check_grad). */
typedef double Rev(double *, double *, long);
typedef double Val(double *, long);
typedef double Ref(const double *, long, double *);

static inline void check_array_case(const char *name, Rev *rv, Val *vf, Ref *ref, long n, long len) {
    double *a = vec_base(len, 0.3, 0.2, 0.1), *v = vec(len, 1.0, 0.7);
    double *g = calloc((size_t)(len + 1), sizeof *g), *want = calloc((size_t)(len + 1), sizeof *want);
    double r = rv(a, g, n), f = ref(a, n, want), h = 1e-6;
    double *ap = moved(a, v, h, len), *am = moved(a, v, -h, len);
    double fd = (vf(ap, n) - vf(am, n)) / (2 * h);
    if (rel(r, f) > 1e-9 || rel(vf(a, n), f) > 1e-9) printf("FAIL %s %ld: value %.17g, plain %.17g, C %.17g\n", name, n, r, vf(a, n), f);
    else check_grad(name, len, g, want, v, fd);
    free(a), free(v), free(g), free(want), free(ap), free(am);
}

#endif
