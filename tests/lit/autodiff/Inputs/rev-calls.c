/* Harness of tests/lit/autodiff/rev-calls.mim: reverse-mode gradients of
 * functions that store and call a nested function with loops from several
 * places, into zeroed shadows, against hand-written reverses (rel. error
 * < 1e-9) and central finite differences (< 1e-6). */
#include <string.h>

#include "grad-check.h"

double rmlp(double *, double *, double *, double *, double *, double *, double *, double *, long, long, long);
double vmlp(double *, double *, double *, double *, long, long, long);
double rck(double *, double *, long), vck(double *, long);
double rtwoax(double *, double *, double, long), vtwoax(double *, double, long);
double rmany(double *, double *, long), vmany(double *, long);

/* mlp: L = Σ_k e_k², e = W2 H − y, H = tanh (W1 x); reverse: ē = 2e,
 * W̄2 = ē Hᵀ, H̄ = W2ᵀ ē, Z̄ = H̄ (1 − H²), W̄1 = Z̄ xᵀ; the gradient w.r.t.
 * (W1, W2) as one array */
static double ref_mlp(const double *w1, const double *w2, const double *x, const double *y, long d, long hd, long o,
                      double *g) {
    double *H = calloc((size_t)hd + 1, sizeof *H), *Hb = calloc((size_t)hd + 1, sizeof *Hb), L = 0;
    for (long j = 0; j < hd; ++j) {
        double z = 0;
        for (long i = 0; i < d; ++i) z += w1[j * d + i] * x[i];
        H[j] = tanh(z);
    }
    for (long k = o - 1; k >= 0; --k) {
        double e = -y[k];
        for (long j = 0; j < hd; ++j) e += w2[k * hd + j] * H[j];
        L += e * e;
        for (long j = 0; j < hd; ++j) g[hd * d + k * hd + j] += 2 * e * H[j], Hb[j] += 2 * e * w2[k * hd + j];
    }
    for (long j = hd - 1; j >= 0; --j)
        for (long i = 0; i < d; ++i) g[j * d + i] += Hb[j] * (1 - H[j] * H[j]) * x[i];
    free(H), free(Hb);
    return L;
}
static void mlp(long d, long hd, long o) {
    long n1 = hd * d, N = n1 + o * hd;
    double *w = vec(N, 0.5, 0.1), *x = vec(d, 1.0, 0.9), *y = vec(o, 0.5, 1.7), *v = vec(N, 1.0, 2.0), h = 1e-6;
    double *g = calloc((size_t)N + 1, sizeof *g), *want = calloc((size_t)N + 1, sizeof *want);
    double *gx = calloc((size_t)d + 1, sizeof *gx), *gy = calloc((size_t)o + 1, sizeof *gy);
    double *p = moved(w, v, h, N), *q = moved(w, v, -h, N);
    double r = rmlp(w, g, w + n1, g + n1, x, gx, y, gy, d, hd, o), f = ref_mlp(w, w + n1, x, y, d, hd, o, want);
    double fd = (vmlp(p, p + n1, x, y, d, hd, o) - vmlp(q, q + n1, x, y, d, hd, o)) / (2 * h);
    if (rel(r, f) > 1e-9 || rel(vmlp(w, w + n1, x, y, d, hd, o), f) > 1e-9) printf("FAIL mlp %ld: value %.17g vs %.17g\n", N, r, f);
    else check_grad("mlp", N, g, want, v, fd);
    free(w), free(x), free(y), free(v), free(g), free(want), free(gx), free(gy), free(p), free(q);
}

/* ck: S = Σ a_j², u = S; a_0 ← u; v = u² + Σ_{j ≥ 1} a_j² (n ≥ 1); reverse:
 * ū = 2u from the second sum's a_0 term, ā_j += 2a_j (j ≥ 1, second sum),
 * ā_j += 2a_j ū (first sum) */
static double ref_ck(const double *a, long n, double *g) {
    if (!n) return 0;
    double S = 0, rest = 0;
    for (long j = 0; j < n; ++j) S += a[j] * a[j];
    for (long j = 1; j < n; ++j) rest += a[j] * a[j], g[j] += 2 * a[j];
    for (long j = 0; j < n; ++j) g[j] += 2 * a[j] * 2 * S;
    return S * S + rest;
}
/* on a copy: ck overwrites a_0 */
ON_COPY(ck, ck)

/* twoax with c = 3/(n + 10) (v stays small enough for a central
 * difference at n = 10^5): S = Σ a_i, u = cS, v = (1 + u) u;
 * ∂a_i = c (1 + 2u) */
static double cof(long n) { return 3.0 / (double)(n + 10); }
static double ref_twoax(const double *a, long n, double *g) {
    double S = 0;
    for (long i = 0; i < n; ++i) S += a[i];
    double u = cof(n) * S;
    for (long i = 0; i < n; ++i) g[i] += cof(n) * (1 + 2 * u);
    return (1 + u) * u;
}
static double r_twoax(double *a, double *g, long n) { return rtwoax(a, g, cof(n), n); }
static double v_twoax(double *a, long n) { return vtwoax(a, cof(n), n); }

/* many: f = a_0² Σ_{k<10} 0.81^k + 10 R, R = Σ_{j ≥ 1} a_j² (n ≥ 1; the
 * a_0 term only when n ≥ 1); reverse per call k: ā_0 += 2 (0.9^k a_0)
 * 0.9^k, ā_j += 2 a_j */
static double ref_many(const double *a, long n, double *g) {
    double f = 0, s = 1;
    for (int k = 0; k < 10; ++k, s *= 0.9) {
        for (long j = 0; j < n; ++j) {
            double x = j ? a[j] : s * a[0];
            f += x * x, g[j] += 2 * x * (j ? 1 : s);
        }
    }
    return f;
}
ON_COPY(many, many)

int main(void) {
    long lens[] = {0, 1, 3, 300, 100000};
    for (int i = 0; i < 5; ++i) {
        check_array_case("ck", r_ck, v_ck, ref_ck, lens[i], lens[i]);
        check_array_case("twoax", r_twoax, v_twoax, ref_twoax, lens[i], lens[i]);
        check_array_case("many", r_many, v_many, ref_many, lens[i], lens[i]);
    }
    mlp(3, 4, 2), mlp(1, 1, 1), mlp(0, 2, 2), mlp(10, 8, 3), mlp(40, 30, 5);
    return 0;
}
