/* Harness of tests/lit/autodiff/rev-swap.mim: reverse-mode gradients of
 * functions whose blocks swap pointer parameters between buffers, into
 * zeroed shadows, against hand-written reverses (rel. error < 1e-9) and
 * central finite differences (< 1e-6). */
#include <string.h>

#include "grad-check.h"

double rwalk(double *, double *, double *, double *, long), vwalk(double *, double *, long);
double rsmooth(double *, double *, long, long), vsmooth(double *, long, long);
double rcombo(double *, double *, long, long), vcombo(double *, long, long);

/* walk over (a, b) as one array of 2n: a = ab[0..n), b = ab[n..2n) */
static double r_walk(double *ab, double *g, long n) { return rwalk(ab, g, ab + n, g + n, n); }
static double v_walk(double *ab, long n) { return vwalk(ab, ab + n, n); }
static double ref_walk(const double *ab, long n, double *g) {
    double f = 0;
    for (long i = n - 1; i >= 0; --i) {
        long k = i % 2 ? n + i : i;
        f += ab[k] * ab[k], g[k] += 2 * ab[k];
    }
    return f;
}

/* smooth: states s_0 = a, s_{t+1}[j] = s_t[j]/2 + (sin s_t[l] + sin s_t[r])/4
 * (l = max(j − 1, 0), r = min(j + 1, n − 1)), f = Σ s_T[j]²; reverse from
 * s̄_T = 2 s_T, step by step with the states kept */
static double ref_smooth(const double *a, long n, long T, double *g) {
    double *s = calloc((size_t)((T + 1) * n + 1), sizeof *s), f = 0;
    memcpy(s, a, (size_t)n * sizeof *s);
    for (long t = 0; t < T; ++t)
        for (long j = 0; j < n; ++j) {
            const double *c = s + t * n;
            long l = j < 1 ? 0 : j - 1, r = n - 1 < j + 1 ? n - 1 : j + 1;
            s[(t + 1) * n + j] = 0.5 * c[j] + 0.25 * (sin(c[l]) + sin(c[r]));
        }
    double *bar = calloc((size_t)n + 1, sizeof *bar), *prev = calloc((size_t)n + 1, sizeof *prev);
    for (long j = 0; j < n; ++j) f += s[T * n + j] * s[T * n + j], bar[j] = 2 * s[T * n + j];
    for (long t = T - 1; t >= 0; --t) {
        const double *c = s + t * n;
        memset(prev, 0, (size_t)n * sizeof *prev);
        for (long j = n - 1; j >= 0; --j) {
            long l = j < 1 ? 0 : j - 1, r = n - 1 < j + 1 ? n - 1 : j + 1;
            prev[j] += 0.5 * bar[j], prev[l] += 0.25 * cos(c[l]) * bar[j], prev[r] += 0.25 * cos(c[r]) * bar[j];
        }
        memcpy(bar, prev, (size_t)n * sizeof *bar);
    }
    for (long j = 0; j < n; ++j) g[j] += bar[j];
    free(s), free(bar), free(prev);
    return f;
}
/* smooth overwrites a: each call on a copy; T per case */
#define SMOOTH(T)                                                                                                       \
    static double r_smooth##T(double *a, double *g, long n) {                                                           \
        double *c = calloc((size_t)n + 1, sizeof *c);                                                                   \
        memcpy(c, a, (size_t)n * sizeof *c);                                                                            \
        double r = rsmooth(c, g, n, T);                                                                                 \
        free(c);                                                                                                        \
        return r;                                                                                                       \
    }                                                                                                                   \
    static double v_smooth##T(double *a, long n) {                                                                      \
        double *c = calloc((size_t)n + 1, sizeof *c);                                                                   \
        memcpy(c, a, (size_t)n * sizeof *c);                                                                            \
        double r = vsmooth(c, n, T);                                                                                    \
        free(c);                                                                                                        \
        return r;                                                                                                       \
    }                                                                                                                   \
    static double ref_smooth##T(const double *a, long n, double *g) { return ref_smooth(a, n, T, g); }
SMOOTH(0)
SMOOTH(1)
SMOOTH(2)
SMOOTH(5)

/* combo, T = 3: f = Σ_t Σ_j (sin c · 0.9c + sin² c), c = 0.9^t a_j; reverse
 * per step: c̄ = 0.9 (cos c · c + sin c) + 2 sin c cos c, ā_j += 0.9^t c̄ */
static double ref_combo(const double *a, long n, double *g) {
    double f = 0;
    for (long j = n - 1; j >= 0; --j)
        for (long t = 2; t >= 0; --t) {
            double s = t == 2 ? 0.81 : t == 1 ? 0.9 : 1, x = s * a[j];
            f += sin(x) * 0.9 * x + sin(x) * sin(x);
            g[j] += s * (0.9 * (cos(x) * x + sin(x)) + 2 * sin(x) * cos(x));
        }
    return f;
}
static double r_combo(double *a, double *g, long n) {
    double *c = calloc((size_t)n + 1, sizeof *c);
    memcpy(c, a, (size_t)n * sizeof *c);
    double r = rcombo(c, g, n, 3);
    free(c);
    return r;
}
static double v_combo(double *a, long n) {
    double *c = calloc((size_t)n + 1, sizeof *c);
    memcpy(c, a, (size_t)n * sizeof *c);
    double r = vcombo(c, n, 3);
    free(c);
    return r;
}

int main(void) {
    long lens[] = {0, 1, 3, 300, 100000};
    for (int i = 0; i < 5; ++i) {
        long n = lens[i];
        check_array_case("walk", r_walk, v_walk, ref_walk, n, 2 * n);
        check_array_case("smooth0", r_smooth0, v_smooth0, ref_smooth0, n, n);
        check_array_case("smooth1", r_smooth1, v_smooth1, ref_smooth1, n, n);
        check_array_case("smooth2", r_smooth2, v_smooth2, ref_smooth2, n, n);
        check_array_case("smooth5", r_smooth5, v_smooth5, ref_smooth5, n, n);
        check_array_case("combo", r_combo, v_combo, ref_combo, n, n);
    }
    return 0;
}
