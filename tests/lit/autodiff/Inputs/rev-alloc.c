/* Harness of tests/lit/autodiff/rev-alloc.mim: reverse-mode gradients of
 * functions that allocate in loops or free their argument, into zeroed
 * shadows, against hand-written reverses (rel. error < 1e-9) and central
 * finite differences (< 1e-6). A function that frees its argument gets a
 * malloc'd copy per call. */
#include <string.h>

#include "grad-check.h"

double rscratch(double *, double *, long, long), vscratch(double *, long, long), rwalk(double *, double *, long, long);
double reach(double *, double *, long), veach(double *, long);
double rkeep(double *, double *, long), vkeep(double *, long);
double rpairs(double *, double *, long), vpairs(double *, long);
double rconsume(double *, double *, long), vconsume(double *, long);
double rfirst(double *, double *), vfirst(double *);
double rmslots(double *, double *, long), vmslots(double *, long);
double rmixed(double *, double *, long), vmixed(double *, long);

enum { M = 5 }; /* scratch's and walk's row length: arrays of n rows hold n·M elements */

/* scratch (walk): Σ_i sin S_i, S_i = Σ_j t_j², t_j = a[i·M + j]²; reverse:
 * S̄ = cos S, t̄_j = 2 S̄ t_j, ā = 2 t̄ a */
static double ref_scratch(const double *a, long n, double *g) {
    double f = 0;
    for (long i = n - 1; i >= 0; --i) {
        double S = 0;
        for (long j = 0; j < M; ++j) S += a[i * M + j] * a[i * M + j] * a[i * M + j] * a[i * M + j];
        f += sin(S);
        double Sb = cos(S);
        for (long j = M - 1; j >= 0; --j) {
            double x = a[i * M + j], tb = 2 * Sb * x * x;
            g[i * M + j] += 2 * tb * x;
        }
    }
    return f;
}
static double r_scratch(double *a, double *g, long n) { return rscratch(a, g, n, M); }
static double r_walk(double *a, double *g, long n) { return rwalk(a, g, n, M); }
static double v_scratch(double *a, long n) { return vscratch(a, n, M); }

/* each: Σ u·v, u = sin x, v = x²; ū = v, v̄ = u, x̄ = ū cos x + 2x v̄ */
static double ref_each(const double *a, long n, double *g) {
    double f = 0;
    for (long i = n - 1; i >= 0; --i) {
        double x = a[i], u = sin(x), v = x * x;
        f += u * v, g[i] += v * cos(x) + 2 * x * u;
    }
    return f;
}

/* keep: Σ y·x, y = x²; ȳ = x, x̄ = y + 2x ȳ */
static double ref_keep(const double *a, long n, double *g) {
    double f = 0;
    for (long i = n - 1; i >= 0; --i) {
        double x = a[i], y = x * x;
        f += y * x, g[i] += y + 2 * x * x;
    }
    return f;
}

/* pairs: Σ s², s = x² + cos x; s̄ = 2s, x̄ = s̄ (2x − sin x) */
static double ref_pairs(const double *a, long n, double *g) {
    double f = 0;
    for (long i = n - 1; i >= 0; --i) {
        double x = a[i], s = x * x + cos(x);
        f += s * s, g[i] += 2 * s * (2 * x - sin(x));
    }
    return f;
}

/* mslots: Σ y², y = 2x; ȳ = 2y, x̄ = 2ȳ */
static double ref_mslots(const double *a, long n, double *g) {
    double f = 0;
    for (long i = n - 1; i >= 0; --i) {
        double y = 2 * a[i];
        f += y * y, g[i] += 2 * (2 * y);
    }
    return f;
}

/* mixed: Σ_j a_j² a_{r(j)}, r(j) = n − 1 − j; reverse: ā_j += 2 a_j a_{r(j)},
 * ā_{r(j)} += a_j² */
static double ref_mixed(const double *a, long n, double *g) {
    double f = 0;
    for (long j = n - 1; j >= 0; --j) {
        long r = n - 1 - j;
        f += a[j] * a[j] * a[r], g[j] += 2 * a[j] * a[r], g[r] += a[j] * a[j];
    }
    return f;
}

/* consume: c Σ x_i², c = a_0; x̄_i = 2c x_i, c̄ = Σ x_i² */
static double ref_consume(const double *a, long n, double *g) {
    double sq = 0, c = n ? a[0] : 0;
    for (long i = n - 1; i >= 0; --i) sq += a[i] * a[i], g[i] += 2 * c * a[i];
    if (n) g[0] += sq;
    return c * sq;
}
/* on a malloc'd copy (fresh): consume frees it */
static double r_consume(double *a, double *g, long n) { return rconsume(fresh(a, n), g, n); }
static double v_consume(double *a, long n) { return vconsume(fresh(a, n), n); }

/* first: x² y, a freed */
static void first(void) {
    double a[2] = {0.7, -1.3}, g[2] = {0, 0}, va[2] = {0.4, 0.9}, h = 1e-6;
    double want[2] = {2 * a[0] * a[1], a[0] * a[0]}, p[2], q[2];
    double r = rfirst(fresh(a, 2), g);
    for (int i = 0; i < 2; ++i) p[i] = a[i] + h * va[i], q[i] = a[i] - h * va[i];
    if (rel(r, vfirst(fresh(a, 2))) > 1e-12 || rel(r, a[0] * a[0] * a[1]) > 1e-12) printf("FAIL first value %.17g\n", r);
    check_grad("first", 2, g, want, va, (vfirst(fresh(p, 2)) - vfirst(fresh(q, 2))) / (2 * h));
}

int main(void) {
    long lens[] = {0, 1, 3, 300, 100000};
    for (int i = 0; i < 5; ++i) {
        long n = lens[i];
        check_array_case("scratch", r_scratch, v_scratch, ref_scratch, n, n * M);
        check_array_case("walk", r_walk, v_scratch, ref_scratch, n, n * M);
        check_array_case("each", reach, veach, ref_each, n, n);
        check_array_case("keep", rkeep, vkeep, ref_keep, n, n);
        check_array_case("pairs", rpairs, vpairs, ref_pairs, n, n);
        check_array_case("consume", r_consume, v_consume, ref_consume, n, n);
        check_array_case("mslots", rmslots, vmslots, ref_mslots, n, n);
        check_array_case("mixed", rmixed, vmixed, ref_mixed, n, n);
    }
    first();
    return 0;
}
