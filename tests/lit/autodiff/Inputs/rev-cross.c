/* Harness of tests/lit/autodiff/rev-cross.mim: reverse-mode gradients of
 * functions that use a loaded value in another block than the loading one
 * while they write memory, into zeroed shadows, against hand-written
 * reverses (rel. error < 1e-9) and central finite differences (< 1e-6).
 * The functions overwrite their argument: each call gets a fresh copy
 * (with one more element, which hdr reads at its loop's exit). */
#include <string.h>

#include "grad-check.h"

double rhdr(double *, double *, long), vhdr(double *, long);
double rrelu(double *, double *, long), vrelu(double *, long);
double rhdr2(double *, double *, long), rrelu2(double *, double *, long);
double rhdrp(double *, double *, long), vhdrp(double *, long);
double router(double *, double *, double *, double *, double *, double *, long, long);
double vouter(double *, double *, double *, long, long);
double rfirst(double *, double *), vfirst(double *);

ON_COPY(hdr, hdr)
ON_COPY(relu, relu)
/* hdr2 and relu2 compute hdr's and relu's values (compared with those) */
static double r_hdr2(double *a, double *g, long n) {
    double *c = fresh(a, n), r = rhdr2(c, g, n);
    free(c);
    return r;
}
static double r_relu2(double *a, double *g, long n) {
    double *c = fresh(a, n), r = rrelu2(c, g, n);
    free(c);
    return r;
}

/* hdr: v = a_i; a_i ← v²; w = a_i; f += w·v; reverse: w̄ = v, v̄ = w, then
 * the store: v̄ += 2v·w̄ */
static double ref_hdr(const double *a, long n, double *g) {
    double f = 0;
    for (long i = 0; i < n; ++i) f += a[i] * a[i] * a[i];
    for (long i = n - 1; i >= 0; --i) {
        double v = a[i], w = v * v, wb = v, vb = w;
        g[i] += vb + 2 * v * wb;
    }
    return f;
}

/* hdrp over n pairs (u, w) = (a_2i, a_2i+1): f = Σ (u·w·u + u²·w) = Σ 2u²w;
 * reverse: z̄ = (w, u), then the store: ū += 2u z̄0 + w z̄1, w̄ += u z̄1, and
 * ū += z1 = u·w, w̄ += z0 = u² (as the body computes them) */
static double ref_hdrp(const double *a, long len, double *g) {
    double f = 0;
    for (long i = len / 2 - 1; i >= 0; --i) {
        double u = a[2 * i], w = a[2 * i + 1], z0 = u * u, z1 = u * w;
        f += z1 * u + z0 * w;
        g[2 * i] += z1 + 2 * u * w + w * u;
        g[2 * i + 1] += z0 + u * u;
    }
    return f;
}
/* (one pair more, in the array and in its shadow: the header loads pair n
 * at the exit) */
static double r_hdrp(double *a, double *g, long n) {
    double *c = fresh(a, 2 * n), *h = calloc((size_t)(2 * n + 2), sizeof *h), r;
    c = realloc(c, (size_t)(2 * n + 2) * sizeof *c), c[2 * n] = c[2 * n + 1] = 0;
    r = rhdrp(c, h, n);
    for (long k = 0; k < 2 * n; ++k) g[k] += h[k];
    free(c), free(h);
    return r;
}
static double v_hdrp(double *a, long n) {
    double *c = fresh(a, 2 * n), r;
    c = realloc(c, (size_t)(2 * n + 2) * sizeof *c), c[2 * n] = c[2 * n + 1] = 0;
    r = vhdrp(c, n);
    free(c);
    return r;
}
static double ref_hdrp_n(const double *a, long n, double *g) { return ref_hdrp(a, 2 * n, g); }

/* relu: t = v² or sin v, f = Σ t²; t̄ = 2t, v̄ = t̄·(2v or cos v) */
static double ref_relu(const double *a, long n, double *g) {
    double f = 0;
    for (long i = 0; i < n; ++i) {
        double v = a[i], t = v > 0 ? v * v : sin(v);
        f += t * t;
    }
    for (long i = n - 1; i >= 0; --i) {
        double v = a[i], t = v > 0 ? v * v : sin(v), tb = 2 * t;
        g[i] += tb * (v > 0 ? 2 * v : cos(v));
    }
    return f;
}

/* outer: o = a bᵀ, f = Σ o²; ō = 2o, ā_i = Σ_j ō_ij b_j, b̄_j = Σ_i ō_ij a_i */
static double ref_outer(const double *a, const double *b, long n, long m, double *ga, double *gb) {
    double f = 0;
    for (long i = n - 1; i >= 0; --i)
        for (long j = m - 1; j >= 0; --j) {
            double o = a[i] * b[j], ob = 2 * o;
            f += o * o, ga[i] += ob * b[j], gb[j] += ob * a[i];
        }
    return f;
}
static double val_outer(const double *ab, long n, long m) {
    double *c = fresh(ab, n + m), *o = calloc((size_t)(n * m + 1), sizeof *o);
    double r = vouter(c, c + n, o, n, m);
    free(c), free(o);
    return r;
}
static void outer(long n, long m) {
    long N = n + m;
    double *ab = vec_base(N, 0.7, 0.3, 0.1), *v = vec(N, 1.0, 0.9), *g = calloc((size_t)N + 1, sizeof *g);
    double *want = calloc((size_t)N + 1, sizeof *want), *o = calloc((size_t)(n * m + 1), sizeof *o);
    double *dout = calloc((size_t)(n * m + 1), sizeof *dout), *c = fresh(ab, N), h = 1e-6;
    double r = router(c, g, c + n, g + n, o, dout, n, m), f = ref_outer(ab, ab + n, n, m, want, want + n);
    double *p = moved(ab, v, h, N), *q = moved(ab, v, -h, N);
    double fd = (val_outer(p, n, m) - val_outer(q, n, m)) / (2 * h);
    if (rel(r, f) > 1e-9 || rel(val_outer(ab, n, m), f) > 1e-9) printf("FAIL outer %ld: value %.17g vs %.17g\n", n, r, f);
    else check_grad("outer", N, g, want, v, fd);
    free(ab), free(v), free(g), free(want), free(o), free(dout), free(c), free(p), free(q);
}

/* first: x = a_0; a_0 ← 0.5; x² (x > 0) or x·a_1 */
static void first(double x) {
    double a[2] = {x, -1.3}, g[2] = {0, 0}, want[2], va[2] = {0.4, 0.9}, c[2], p[2], q[2], h = 1e-6;
    memcpy(c, a, sizeof c);
    double r = rfirst(c, g);
    want[0] = x > 0 ? 2 * x : a[1], want[1] = x > 0 ? 0 : x;
    for (int i = 0; i < 2; ++i) p[i] = a[i] + h * va[i], q[i] = a[i] - h * va[i];
    memcpy(c, a, sizeof c);
    if (rel(r, vfirst(c)) > 1e-12 || rel(r, x > 0 ? x * x : x * a[1]) > 1e-12) printf("FAIL first value %.17g\n", r);
    double fp = vfirst(p), fq = vfirst(q);
    check_grad("first", 2, g, want, va, (fp - fq) / (2 * h));
}

int main(void) {
    long lens[] = {0, 1, 3, 300, 100000};
    for (int i = 0; i < 5; ++i) {
        check_array_case("hdr", r_hdr, v_hdr, ref_hdr, lens[i], lens[i]);
        check_array_case("relu", r_relu, v_relu, ref_relu, lens[i], lens[i]);
        check_array_case("hdr2", r_hdr2, v_hdr, ref_hdr, lens[i], lens[i]);
        check_array_case("relu2", r_relu2, v_relu, ref_relu, lens[i], lens[i]);
        check_array_case("hdrp", r_hdrp, v_hdrp, ref_hdrp_n, lens[i], 2 * lens[i]);
    }
    long ns[] = {0, 1, 3, 3, 40, 300}, ms[] = {2, 1, 0, 4, 7, 300};
    for (int i = 0; i < 6; ++i) outer(ns[i], ms[i]);
    first(0.7), first(-0.4);
    return 0;
}
