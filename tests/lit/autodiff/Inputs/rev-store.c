/* Harness of tests/lit/autodiff/rev-store.mim: gradients of functions that
 * write memory (buffers they malloc, argument arrays in place), computed
 * in reverse mode (%autodiff.vjp) into zeroed shadow arrays, against the
 * analytic ones (written here) and central finite differences along a
 * direction v (Σ g_i v_i). Functions that overwrite their argument get a
 * fresh copy per call. */
#include <string.h>

#include "grad-check.h"

double rsqbuf(double *, double *, long), vsqbuf(double *, long);
double rsqpass(double *, double *, long), vsqpass(double *, long);
double rsmloss(double *, double *, double *, double *, long), vsmloss(double *, double *, long);
double rmlp(double *, double *, double *, double *, double *, double *, double *, double *, long, long, long);
double vmlp(double *, double *, double *, double *, long, long, long);
double rcell(double *, double *), vcell(double *);
double rtwice(double *, double *), vtwice(double *);
double rprefix(double *, double *, long), vprefix(double *, long), rprefix2(double *, double *, long);
double rstk(double *, double *), vstk(double *);
double rfillc(double *, double *, double, long), vfillc(double *, double, long);
double rpairs(double *, double *, double, long), vpairs(double *, double, long);
double rpair(double *, double *), vpair(double *);
double rmatvec(double *, double *, double *, double *, long, long), vmatvec(double *, double *, long, long);
double rcond(double *, double *, long), vcond(double *, long);
double rbins(double *, double *, long), vbins(double *, long);
double rscale0(double *, double *, long), vscale0(double *, long);
double rbump(double *, double *, long);

static void value(const char *name, double got, double want) {
    if (rel(got, want) > 1e-12) printf("FAIL %s value %.17g vs %.17g\n", name, got, want);
}

static double *zeros(long n) { return calloc((size_t)(n ? n : 1), sizeof(double)); }
static double *copy(const double *a, long n) {
    double *c = malloc((size_t)(n ? n : 1) * sizeof *c);
    memcpy(c, a, (size_t)n * sizeof *c);
    return c;
}

static const double h = 1e-6;

/* Σ a_i² through a malloc'd buffer: ∂a = 2a (rf/vf: sqbuf or sqpass) */
static void sqbuf_by(const char *name, double (*rf)(double *, double *, long), double (*vf)(double *, long), long n) {
    double *a = vec(n, 1.0, 0.1), *va = vec(n, 1.0, 2.0), *g = zeros(n), *want = zeros(n);
    double *ap = moved(a, va, h, n), *am = moved(a, va, -h, n);
    value(name, rf(a, g, n), vf(a, n));
    for (long i = 0; i < n; ++i) want[i] = 2 * a[i];
    check_grad(name, n, g, want, va, (vf(ap, n) - vf(am, n)) / (2 * h));
    free(a), free(va), free(g), free(want), free(ap), free(am);
}
static void sqbuf(long n) { sqbuf_by("sqbuf", rsqbuf, vsqbuf, n); }

/* s = softmax a, L = Σ (s_i − y_i)²: with u_i = 2(s_i − y_i),
 * ∂a_j = s_j (u_j − Σ u_i s_i), ∂y_j = −u_j */
static void smloss(long n) {
    double *a = vec(n, 1.0, 0.1), *y = vec_base(n, 0.2, 0.5, 0.3), *va = vec(n, 1.0, 2.0), *vy = vec(n, 0.5, 0.3);
    double *g = zeros(2 * n), *want = zeros(2 * n), *v = zeros(2 * n), *s = zeros(n);
    double *ap = moved(a, va, h, n), *am = moved(a, va, -h, n), *yp = moved(y, vy, h, n), *ym = moved(y, vy, -h, n);
    value("smloss", rsmloss(a, g, y, g + n, n), vsmloss(a, y, n));
    double z = 0, us = 0;
    for (long i = 0; i < n; ++i) z += exp(a[i]);
    for (long i = 0; i < n; ++i) s[i] = exp(a[i]) / z, us += 2 * (s[i] - y[i]) * s[i];
    for (long j = 0; j < n; ++j) {
        double u = 2 * (s[j] - y[j]);
        want[j] = s[j] * (u - us), want[n + j] = -u, v[j] = va[j], v[n + j] = vy[j];
    }
    check_grad("smloss", 2 * n, g, want, v, (vsmloss(ap, yp, n) - vsmloss(am, ym, n)) / (2 * h));
    free(a), free(y), free(va), free(vy), free(g), free(want), free(v), free(s), free(ap), free(am), free(yp), free(ym);
}

/* the MLP loss w.r.t. W1 (h×d) and W2 (o×h) */
static void mlp(long d, long hd, long o) {
    long n1 = hd * d, n2 = o * hd;
    double *w1 = vec(n1, 0.5, 0.1), *w2 = vec(n2, 0.7, 0.4), *x = vec(d, 1.0, 0.9), *y = vec(o, 0.5, 1.7);
    double *v1 = vec(n1, 1.0, 2.0), *v2 = vec(n2, 1.0, 0.6);
    double *g = zeros(n1 + n2), *want = zeros(n1 + n2), *v = zeros(n1 + n2), *gx = zeros(d), *gy = zeros(o);
    double *w1p = moved(w1, v1, h, n1), *w1m = moved(w1, v1, -h, n1), *w2p = moved(w2, v2, h, n2), *w2m = moved(w2, v2, -h, n2);
    value("mlp", rmlp(w1, g, w2, g + n1, x, gx, y, gy, d, hd, o), vmlp(w1, w2, x, y, d, hd, o));
    double *H = zeros(hd), *e = zeros(o), *dH = zeros(hd);
    for (long j = 0; j < hd; ++j) {
        double acc = 0;
        for (long i = 0; i < d; ++i) acc += w1[j * d + i] * x[i];
        H[j] = tanh(acc);
    }
    for (long k = 0; k < o; ++k) {
        double z = 0;
        for (long j = 0; j < hd; ++j) z += w2[k * hd + j] * H[j];
        e[k] = z - y[k];
    }
    for (long k = 0; k < o; ++k)
        for (long j = 0; j < hd; ++j) want[n1 + k * hd + j] = 2 * e[k] * H[j], dH[j] += 2 * e[k] * w2[k * hd + j];
    for (long j = 0; j < hd; ++j)
        for (long i = 0; i < d; ++i) want[j * d + i] = dH[j] * (1 - H[j] * H[j]) * x[i];
    for (long i = 0; i < n1; ++i) v[i] = v1[i];
    for (long i = 0; i < n2; ++i) v[n1 + i] = v2[i];
    check_grad("mlp", n1 + n2, g, want, v, (vmlp(w1p, w2p, x, y, d, hd, o) - vmlp(w1m, w2m, x, y, d, hd, o)) / (2 * h));
    free(w1), free(w2), free(x), free(y), free(v1), free(v2), free(g), free(want), free(v), free(gx), free(gy);
    free(w1p), free(w1m), free(w2p), free(w2m), free(H), free(e), free(dH);
}

/* a function of a two-element array a that may overwrite it (each call
 * gets a fresh copy of a): its gradient rf against want and a central
 * finite difference, its value against the plain function vf */
static void two_by(const char *name, double (*rf)(double *, double *), double (*vf)(double *), const double want[2]) {
    double a[2] = {0.7, -1.3}, va[2] = {0.4, 0.9}, g[2] = {0, 0};
    double c[2], p[2], m[2];
    memcpy(c, a, sizeof c);
    double r = rf(c, g);
    memcpy(c, a, sizeof c);
    value(name, r, vf(c));
    for (int i = 0; i < 2; ++i) p[i] = a[i] + h * va[i], m[i] = a[i] - h * va[i];
    double fp = vf(p), fm = vf(m);
    check_grad(name, 2, g, want, va, (fp - fm) / (2 * h));
}

/* at a = (0.7, −1.3): v = a0; a0 ← sin v · a1; w = a0; a0 ← w·v;
 * r = a0 + v = sin v · a1 · v + v */
static void cell(void) {
    double v = 0.7, a1 = -1.3;
    double want[2] = {cos(v) * a1 * v + sin(v) * a1 + 1, sin(v) * v};
    two_by("cell", rcell, vcell, want);
}

/* at a = (0.7, −1.3): u = a0²; a0 ← u; r = a0² = a0⁴ (a nested function
 * called twice) */
static void twice(void) {
    double a0 = 0.7;
    double want[2] = {4 * a0 * a0 * a0, 0};
    two_by("twice", rtwice, vtwice, want);
}

/* prefix products P_i = Π_{k ≤ i} a_k in place, r = Σ P_i:
 * ∂a_j = Σ_{i ≥ j} P_i / a_j */
static void prefix_by(const char *name, double (*rf)(double *, double *, long), long n) {
    double *a = vec_base(n, 0.4, 0.3, 1.0), *va = vec(n, 1.0, 2.0), *g = zeros(n), *want = zeros(n);
    double *c = copy(a, n);
    double r = rf(c, g, n);
    free(c), c = copy(a, n);
    value(name, r, vprefix(c, n));
    free(c);
    double *P = zeros(n), tail = 0;
    for (long i = 0; i < n; ++i) P[i] = (i ? P[i - 1] : 1) * a[i];
    for (long j = n - 1; j >= 0; --j) tail += P[j], want[j] = tail / a[j];
    double *ap = moved(a, va, h, n), *am = moved(a, va, -h, n);
    double fp = vprefix(ap, n), fm = vprefix(am, n);
    check_grad(name, n, g, want, va, (fp - fm) / (2 * h));
    free(a), free(va), free(g), free(want), free(P), free(ap), free(am);
}

/* b = (x0·x1, x1²), c = (sin x0, x0) on the stack: r = Σ b_i² + Σ c_i² */
static void stk(void) {
    double a[2] = {0.7, -1.3}, va[2] = {0.4, 0.9}, g[2] = {0, 0}, want[2], p[2], m[2];
    value("stk", rstk(a, g), vstk(a));
    double x0 = a[0], x1 = a[1];
    want[0] = 2 * x0 * x1 * x1 + 2 * sin(x0) * cos(x0) + 2 * x0, want[1] = 2 * x0 * x0 * x1 + 4 * x1 * x1 * x1;
    for (int i = 0; i < 2; ++i) p[i] = a[i] + h * va[i], m[i] = a[i] - h * va[i];
    check_grad("stk", 2, g, want, va, (vstk(p) - vstk(m)) / (2 * h));
}

/* out_i = c², r = Σ out_i a_i: ∂c = 2c Σ a_i, ∂a_i = c² */
static void fillc(long n) {
    double *a = vec(n, 1.0, 0.1), *va = vec(n, 1.0, 2.0), *g = zeros(n + 1), *want = zeros(n + 1), *v = zeros(n + 1);
    double c = 0.3, sa = 0, vc = 0.7;
    double *ap = moved(a, va, h, n), *am = moved(a, va, -h, n);
    g[n] = rfillc(a, g, c, n);
    for (long i = 0; i < n; ++i) want[i] = c * c, sa += a[i], v[i] = va[i];
    want[n] = 2 * c * sa, v[n] = vc;
    check_grad("fillc", n + 1, g, want, v, (vfillc(ap, c + h * vc, n) - vfillc(am, c - h * vc, n)) / (2 * h));
    free(a), free(va), free(g), free(want), free(v), free(ap), free(am);
}

/* p_i = (a_i², c·a_i) as pairs, r = Σ p_i#0 + 2·p_i#1: ∂a_i = 2a_i + 2c, ∂c = 2 Σ a_i */
static void pairs(long n) {
    double *a = vec(n, 1.0, 0.1), *va = vec(n, 1.0, 2.0), *g = zeros(n + 1), *want = zeros(n + 1), *v = zeros(n + 1);
    double c = -0.6, sa = 0, vc = 0.7;
    double *ap = moved(a, va, h, n), *am = moved(a, va, -h, n);
    g[n] = rpairs(a, g, c, n);
    for (long i = 0; i < n; ++i) want[i] = 2 * a[i] + 2 * c, sa += a[i], v[i] = va[i];
    want[n] = 2 * sa, v[n] = vc;
    check_grad("pairs", n + 1, g, want, v, (vpairs(ap, c + h * vc, n) - vpairs(am, c - h * vc, n)) / (2 * h));
    free(a), free(va), free(g), free(want), free(v), free(ap), free(am);
}

/* y = (x0·x1, sin x0) stored and loaded as a whole, r = y0² + y1² */
static void pair(void) {
    double a[2] = {0.7, -1.3}, va[2] = {0.4, 0.9}, g[2] = {0, 0}, want[2], p[2], m[2];
    value("pair", rpair(a, g), vpair(a));
    double x0 = a[0], x1 = a[1];
    want[0] = 2 * x0 * x1 * x1 + 2 * sin(x0) * cos(x0), want[1] = 2 * x0 * x0 * x1;
    for (int i = 0; i < 2; ++i) p[i] = a[i] + h * va[i], m[i] = a[i] - h * va[i];
    check_grad("pair", 2, g, want, va, (vpair(p) - vpair(m)) / (2 * h));
}

/* y = W x, r = Σ y_r³: ∂W[r,c] = 3 y_r² x_c, ∂x_c = Σ_r 3 y_r² W[r,c] */
static void matvec(long m, long n) {
    long N = m * n + n;
    double *wx = vec(N, 0.5, 0.3), *v = vec(N, 1.0, 2.0), *g = zeros(N), *want = zeros(N);
    double *p = moved(wx, v, h, N), *q = moved(wx, v, -h, N);
    value("matvec", rmatvec(wx, g, wx + m * n, g + m * n, m, n), vmatvec(wx, wx + m * n, m, n));
    for (long r = 0; r < m; ++r) {
        double y = 0;
        for (long c = 0; c < n; ++c) y += wx[r * n + c] * wx[m * n + c];
        for (long c = 0; c < n; ++c) want[r * n + c] = 3 * y * y * wx[m * n + c], want[m * n + c] += 3 * y * y * wx[r * n + c];
    }
    check_grad("matvec", N, g, want, v, (vmatvec(p, p + m * n, m, n) - vmatvec(q, q + m * n, m, n)) / (2 * h));
    free(wx), free(v), free(g), free(want), free(p), free(q);
}

/* a_i ← a_i² or sin a_i in place, r = Σ a_i²: ∂a_i = 2 b_i · (2a_i or cos a_i) */
static void cond(long n) {
    double *a = vec(n, 1.0, 0.2), *va = vec(n, 1.0, 2.0), *g = zeros(n), *want = zeros(n);
    double *c = copy(a, n);
    double r = rcond(c, g, n);
    free(c), c = copy(a, n);
    value("cond", r, vcond(c, n));
    free(c);
    for (long i = 0; i < n; ++i) want[i] = a[i] > 0 ? 2 * a[i] * a[i] * 2 * a[i] : 2 * sin(a[i]) * cos(a[i]);
    double *ap = moved(a, va, h, n), *am = moved(a, va, -h, n);
    double fp = vcond(ap, n), fm = vcond(am, n);
    check_grad("cond", n, g, want, va, (fp - fm) / (2 * h));
    free(a), free(va), free(g), free(want), free(ap), free(am);
}

/* B_k = Σ_{i mod 3 = k} a_i², r = Σ B_k²: ∂a_i = 4 B_{i mod 3} a_i */
static void bins(long n) {
    double *a = vec(n, 1.0, 0.2), *va = vec(n, 1.0, 2.0), *g = zeros(n), *want = zeros(n), B[3] = {0, 0, 0};
    double *ap = moved(a, va, h, n), *am = moved(a, va, -h, n);
    value("bins", rbins(a, g, n), vbins(a, n));
    for (long i = 0; i < n; ++i) B[i % 3] += a[i] * a[i];
    for (long i = 0; i < n; ++i) want[i] = 4 * B[i % 3] * a[i];
    check_grad("bins", n, g, want, va, (vbins(ap, n) - vbins(am, n)) / (2 * h));
    free(a), free(va), free(g), free(want), free(ap), free(am);
}

/* r = a_0² Σ a_i²: ∂a_0 = 2a_0 S + 2a_0³, ∂a_i = 2a_0² a_i (i > 0) */
static void scale0(long n) {
    double *a = vec(n, 1.0, 0.4), *va = vec(n, 1.0, 2.0), *g = zeros(n), *want = zeros(n), S = 0;
    double *ap = moved(a, va, h, n), *am = moved(a, va, -h, n);
    value("scale0", rscale0(a, g, n), vscale0(a, n));
    for (long i = 0; i < n; ++i) S += a[i] * a[i];
    for (long i = 1; i < n; ++i) want[i] = 2 * a[0] * a[0] * a[i];
    want[0] = 2 * a[0] * S + 2 * a[0] * a[0] * a[0];
    check_grad("scale0", n, g, want, va, (vscale0(ap, n) - vscale0(am, n)) / (2 * h));
    free(a), free(va), free(g), free(want), free(ap), free(am);
}

/* t_i = sin a_i through pointers passed between blocks, r = Σ t_i²: ∂a_i =
 * 2 sin a_i cos a_i. The values and finite differences use the result
 * rbump computes in its forward sweep: the direct call vbump is
 * miscompiled by the -O2 memory passes (a loop passing pointers to its
 * next iteration loses its loads and stores; also before reverse-mode
 * stores existed), so it is not compared. */
static double rbump_value(double *a, long n) {
    double *g = zeros(n);
    double r = rbump(a, g, n);
    free(g);
    return r;
}
static void bump(long n) {
    double *a = vec(n, 1.0, 0.4), *va = vec(n, 1.0, 2.0), *g = zeros(n), *want = zeros(n), s = 0;
    double *ap = moved(a, va, h, n), *am = moved(a, va, -h, n);
    double r = rbump(a, g, n);
    for (long i = 0; i < n; ++i) want[i] = 2 * sin(a[i]) * cos(a[i]), s += sin(a[i]) * sin(a[i]);
    value("bump", r, s);
    check_grad("bump", n, g, want, va, (rbump_value(ap, n) - rbump_value(am, n)) / (2 * h));
    free(a), free(va), free(g), free(want), free(ap), free(am);
}

int main(void) {
    long lens[] = {0, 1, 3, 300};
    for (int i = 0; i < 4; ++i) sqbuf(lens[i]), prefix_by("prefix", rprefix, lens[i]), prefix_by("prefix2", rprefix2, lens[i]);
    sqbuf(200000);
    for (int i = 1; i < 4; ++i) smloss(lens[i]);
    mlp(3, 4, 2), mlp(1, 1, 1), mlp(10, 8, 3);
    cell();
    twice();
    stk();
    for (int i = 0; i < 4; ++i) fillc(lens[i]);
    fillc(200000);
    for (int i = 0; i < 4; ++i) pairs(lens[i]);
    pair();
    for (int i = 0; i < 4; ++i) sqbuf_by("sqpass", rsqpass, vsqpass, lens[i]);
    matvec(3, 4), matvec(1, 1), matvec(5, 2), matvec(0, 3), matvec(20, 15);
    for (int i = 0; i < 4; ++i) cond(lens[i]), bins(lens[i]);
    for (int i = 1; i < 4; ++i) scale0(lens[i]);
    for (int i = 0; i < 4; ++i) bump(lens[i]);
    return 0;
}
