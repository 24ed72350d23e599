/* Harness of tests/lit/autodiff/rev-loops.mim: reverse-mode gradients of
 * counted loops (and of a loop that keeps its records) into zeroed shadow
 * arrays, against the analytic ones (written here) and central finite
 * differences along a direction v (Σ g_i v_i). */
#include "grad-check.h"

double rshift(double *, double *, long), vshift(double *, long);
double rtri(double *, double *, double *, double *, long), vtri(double *, double *, long);
double rtri2(double *, double *, double *, double *, long), vtri2(double *, double *, long);
double rstride(double *, double *, long), vstride(double *, long);
double rtw(double *, double *, double *, double *, long), vtw(double *, double *, long);
double rtwc(double *, double *, double *, long), rtwc2(double *, double *, double *, long);
double rtl(double *, double *, double *, double *, long), vtl(double *, double *, long);

static void run(long n) {
    const double h = 1e-6;
    double *a = vec(n, 1.0, 0.1), *b = vec(n, 0.5, 0.7), *va = vec(n, 1.0, 2.0), *vb = vec(n, 0.3, 1.1);
    double *ap = moved(a, va, h, n), *am = moved(a, va, -h, n), *bp = moved(b, vb, h, n), *bm = moved(b, vb, -h, n);
    double *g = calloc((size_t)(2 * n + 1), sizeof *g), *want = calloc((size_t)(2 * n + 1), sizeof *want);
    double *v = malloc((size_t)(2 * n + 1) * sizeof *v);
    for (long i = 0; i < n; ++i) v[i] = va[i], v[n + i] = vb[i];
    /* shift: ∂a_k = a_{k+2} (k + 2 < n) + a_{k−2} (k ≥ 2) */
    double r = rshift(a, g, n);
    for (long k = 0; k < n; ++k) want[k] = (k + 2 < n ? a[k + 2] : 0) + (k >= 2 ? a[k - 2] : 0);
    if (rel(r, vshift(a, n)) > 1e-12) printf("FAIL shift value\n");
    check_grad("shift", n, g, want, va, (vshift(ap, n) - vshift(am, n)) / (2 * h));
    /* tri: with T_k = Σ_{r>k} 2 t_r, ∂a_k = b_k T_k, ∂b_k = a_k T_k */
    for (long i = 0; i < 2 * n; ++i) g[i] = 0;
    r = rtri(a, g, b, g + n, n);
    double t = 0, *tr = malloc((size_t)(n + 1) * sizeof *tr);
    for (long k = 0; k < n; ++k) tr[k] = t, t += a[k] * b[k];
    double tail = 0;
    for (long k = n - 1; k >= 0; --k) want[k] = b[k] * tail, want[n + k] = a[k] * tail, tail += 2 * tr[k];
    free(tr);
    if (rel(r, vtri(a, b, n)) > 1e-12) printf("FAIL tri value\n");
    check_grad("tri", 2 * n, g, want, v, (vtri(ap, bp, n) - vtri(am, bm, n)) / (2 * h));
    /* tri2: with A_k = Σ_{r>k} a_r, ∂a_k = t_k + b_k A_k, ∂b_k = a_k A_k */
    for (long i = 0; i < 2 * n; ++i) g[i] = 0;
    r = rtri2(a, g, b, g + n, n);
    t = 0, tail = 0;
    for (long k = 0; k < n; ++k) want[k] = t, t += a[k] * b[k];
    for (long k = n - 1; k >= 0; --k) want[k] += b[k] * tail, want[n + k] = a[k] * tail, tail += a[k];
    if (rel(r, vtri2(a, b, n)) > 1e-12) printf("FAIL tri2 value\n");
    check_grad("tri2", 2 * n, g, want, v, (vtri2(ap, bp, n) - vtri2(am, bm, n)) / (2 * h));
    /* stride over m = n/2 elements: ∂a_{2i} = 2a_{2i} */
    long m = n / 2;
    for (long i = 0; i < n; ++i) g[i] = 0, want[i] = 0;
    r = rstride(a, g, m);
    for (long i = 0; i < m; ++i) want[2 * i] = 2 * a[2 * i];
    if (rel(r, vstride(a, m)) > 1e-12) printf("FAIL stride value\n");
    check_grad("stride", n, g, want, va, (vstride(ap, m) - vstride(am, m)) / (2 * h));
    /* tw: with t_r = Σ_{s<r} a_s b_s and T_k = Σ_{k<r<n} 2 t_r,
     * ∂a_k = b_k (a_0 + T_k) (+ t_n for k = 0), ∂b_k = a_k (a_0 + T_k) */
    for (long i = 0; i < 2 * n; ++i) g[i] = 0;
    r = rtw(a, g, b, g + n, n);
    double *tt = malloc((size_t)(n + 1) * sizeof *tt);
    t = 0;
    for (long k = 0; k < n; ++k) tt[k] = t, t += a[k] * b[k];
    tail = 0;
    for (long k = n - 1; k >= 0; --k) want[k] = b[k] * (a[0] + tail), want[n + k] = a[k] * (a[0] + tail), tail += 2 * tt[k];
    if (n > 0) want[0] += t;
    free(tt);
    if (rel(r, vtw(a, b, n)) > 1e-12) printf("FAIL tw value\n");
    check_grad("tw", 2 * n, g, want, v, (vtw(ap, bp, n) - vtw(am, bm, n)) / (2 * h));
    /* tw with b inactive (⊥ shadow): a's gradient only, into a zeroed g */
    for (long i = 0; i < 2 * n; ++i) g[i] = 0;
    r = rtwc(a, g, b, n);
    if (rel(r, vtw(a, b, n)) > 1e-12) printf("FAIL twc value\n");
    check_grad("twc", n, g, want, va, (vtw(ap, b, n) - vtw(am, b, n)) / (2 * h));
    for (long i = 0; i < 2 * n; ++i) g[i] = 0;
    r = rtwc2(a, g, b, n);
    if (rel(r, vtw(a, b, n)) > 1e-12) printf("FAIL twc2 value\n");
    check_grad("twc2", n, g, want, va, (vtw(ap, b, n) - vtw(am, b, n)) / (2 * h));
    /* tl: ∂a_k = 2 a_k b_k² (+ b_0 for k = 0), ∂b_k = 2 a_k² b_k (+ a_0) */
    for (long i = 0; i < 2 * n; ++i) g[i] = 0;
    r = rtl(a, g, b, g + n, n);
    for (long k = 0; k < n; ++k) want[k] = 2 * a[k] * b[k] * b[k], want[n + k] = 2 * a[k] * a[k] * b[k];
    if (n > 0) want[0] += b[0], want[n] += a[0];
    if (rel(r, vtl(a, b, n)) > 1e-12) printf("FAIL tl value\n");
    check_grad("tl", 2 * n, g, want, v, (vtl(ap, bp, n) - vtl(am, bm, n)) / (2 * h));
    free(a), free(b), free(va), free(vb), free(ap), free(am), free(bp), free(bm), free(g), free(want), free(v);
}

int main(void) {
    long sizes[] = {0, 1, 3, 30, 300};
    for (int i = 0; i < 5; ++i) run(sizes[i]);
    return 0;
}
