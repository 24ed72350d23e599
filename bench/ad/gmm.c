/* bench/ad: the ADBench GMM objective (issue 23) and its hand-written
 * gradient in C, the data generator shared by all three contenders, and
 * the driver that times (a) the hand-written C gradient, (b) the gradients
 * from Mim (gmm.mim: the objective differentiated in reverse mode by
 * %autodiff.vjp, one backward sweep; or by %autodiff.jvp, one directional
 * derivative per parameter), and writes inputs/gradients for the PyTorch
 * script (gmm.py) to check and time against.
 *
 *   f = Σ_i lse_k(α_k + Σ_j q_kj − ½‖Q_k(x_i − μ_k)‖²) − n·lse(α)
 *       + ½γ² Σ_k(Σ_j exp(q_kj)² + Σ l_k²) − m Σ_k Σ_j q_kj,  γ = 1, m = 0,
 * Q_k = diag(exp(q_k)) + the strictly lower-triangular matrix filled row by
 * row from l_k (element (r, c), c < r, at r(r−1)/2 + c).
 *
 * Usage: gmm D K N [mim] [rev] [grad] [dump]   (mim: also time and check
 * the Mim objective; rev: and the reverse-mode Mim gradient; grad: and the
 * forward-mode one; dump: write gmm-in.bin and gmm-grad-c.bin for gmm.py
 * into the current directory). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { long d, k, n; double *alpha, *mu, *q, *l, *x; } Gmm;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* deterministic pseudo-random numbers in [-1, 1) */
static double rnd(unsigned long long *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 4503599627370496.0 - 1.0;
}

static Gmm make(long d, long k, long n) {
    Gmm g = {d, k, n, NULL, NULL, NULL, NULL, NULL};
    long nl = d * (d - 1) / 2;
    unsigned long long s = 42;
    g.alpha = malloc((size_t)k * sizeof(double));
    g.mu = malloc((size_t)(k * d) * sizeof(double));
    g.q = malloc((size_t)(k * d) * sizeof(double));
    g.l = malloc((size_t)(k * nl + 1) * sizeof(double));
    g.x = malloc((size_t)(n * d) * sizeof(double));
    for (long i = 0; i < k; ++i) g.alpha[i] = rnd(&s);
    for (long i = 0; i < k * d; ++i) g.mu[i] = rnd(&s), g.q[i] = 0.1 * rnd(&s);
    for (long i = 0; i < k * nl; ++i) g.l[i] = 0.1 * rnd(&s);
    for (long i = 0; i < n * d; ++i) g.x[i] = rnd(&s);
    return g;
}

static double lse(const double *v, long m) {
    double mx = v[0], s = 0;
    for (long i = 1; i < m; ++i) mx = v[i] > mx ? v[i] : mx;
    for (long i = 0; i < m; ++i) s += exp(v[i] - mx);
    return mx + log(s);
}

/* the objective and, if grad is not NULL, its gradient (α, μ, q, l in
 * this order, each laid out like the inputs). ADBench's formulation: per
 * call exp(q_c) and Σ_j q_cj once per component ("preprocess_qs"), per
 * (point, component) the centered vector x_i − μ_c once. */
static double gmm_c(const Gmm *g, double *grad) {
    long d = g->d, k = g->k, n = g->n, nl = d * (d - 1) / 2;
    double *beta = malloc((size_t)k * sizeof(double)), *v = malloc((size_t)(k * d) * sizeof(double));
    double *y = malloc((size_t)(k * d) * sizeof(double)), *qd = malloc((size_t)(k * d) * sizeof(double));
    double *sumq = malloc((size_t)k * sizeof(double));
    double *ga = grad, *gmu = grad ? grad + k : NULL, *gq = grad ? grad + k + k * d : NULL;
    double *gl = grad ? grad + k + 2 * k * d : NULL;
    if (grad) memset(grad, 0, (size_t)(k + 2 * k * d + k * nl) * sizeof(double));
    for (long c = 0; c < k; ++c) {
        double t = 0;
        for (long j = 0; j < d; ++j) qd[c * d + j] = exp(g->q[c * d + j]), t += g->q[c * d + j];
        sumq[c] = t;
    }
    double f = 0;
    for (long i = 0; i < n; ++i) {
        const double *xi = g->x + i * d;
        for (long c = 0; c < k; ++c) {
            const double *mu = g->mu + c * d, *qc = qd + c * d, *l = g->l + c * nl;
            double *vc = v + c * d, *yc = y + c * d, sq = 0;
            for (long j = 0; j < d; ++j) vc[j] = xi[j] - mu[j];
            for (long r = 0; r < d; ++r) {
                double t = qc[r] * vc[r];
                for (long s = 0; s < r; ++s) t += l[r * (r - 1) / 2 + s] * vc[s];
                yc[r] = t, sq += t * t;
            }
            beta[c] = g->alpha[c] + sumq[c] - 0.5 * sq;
        }
        double li = lse(beta, k);
        f += li;
        if (!grad) continue;
        for (long c = 0; c < k; ++c) {
            double wk = exp(beta[c] - li);
            const double *qc = qd + c * d, *l = g->l + c * nl;
            double *vc = v + c * d, *yc = y + c * d;
            ga[c] += wk;
            for (long r = 0; r < d; ++r) {
                double wy = wk * yc[r];
                gq[c * d + r] += wk - wy * qc[r] * vc[r];
                gmu[c * d + r] += wy * qc[r];
                for (long s = 0; s < r; ++s) {
                    gl[c * nl + r * (r - 1) / 2 + s] -= wy * vc[s];
                    gmu[c * d + s] += wy * l[r * (r - 1) / 2 + s];
                }
            }
        }
    }
    f -= (double)n * lse(g->alpha, k);
    double reg = 0;
    for (long i = 0; i < k * d; ++i) reg += qd[i] * qd[i];
    for (long i = 0; i < k * nl; ++i) reg += g->l[i] * g->l[i];
    f += 0.5 * reg;
    if (grad) {
        double la = lse(g->alpha, k);
        for (long c = 0; c < k; ++c) ga[c] -= (double)n * exp(g->alpha[c] - la);
        for (long i = 0; i < k * d; ++i) gq[i] += qd[i] * qd[i];
        for (long i = 0; i < k * nl; ++i) gl[i] += g->l[i];
    }
    free(beta), free(v), free(y), free(qd), free(sumq);
    return f;
}

/* the C gradient alone (callgrind: --toggle-collect=gmm_c_grad; gmm_c
 * also counts the objective-only calls) */
__attribute__((noinline)) static double gmm_c_grad(const Gmm *g, double *grad) { return gmm_c(g, grad); }

/* gmm.mim: the objective, and its directional derivative (forward mode)
 * for shadows of α, μ, q, l (x is data: a zero shadow) */
double gmm_obj(double *, double *, double *, double *, double *, long, long, long);
double gmm_jvp(double *, double *, double *, double *, double *, double *, double *, double *, double *,
               double *, long, long, long);
/* gmm.mim, reverse mode: the objective; the gradient is added into the
 * shadows of α, μ, q, l (x is inactive: the shadow passed for it is unused) */
double gmm_vjp(double *, double *, double *, double *, double *, double *, double *, double *, double *,
               double *, long, long, long);

static double rel(double a, double b) { return fabs(a - b) / fmax(1.0, fabs(b)); }

static void write(const char *path, const double *v, long m) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(v, sizeof(double), (size_t)m, f) != (size_t)m) { perror(path); exit(1); }
    fclose(f);
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: gmm D K N [mim]\n"); return 2; }
    long d = atol(argv[1]), k = atol(argv[2]), n = atol(argv[3]), nl = d * (d - 1) / 2;
    int with_mim = 0, with_grad = 0, dump = 0, with_rev = 0;
    for (int a = 4; a < argc; ++a)
        with_mim |= strcmp(argv[a], "mim") == 0, with_grad |= strcmp(argv[a], "grad") == 0, dump |= strcmp(argv[a], "dump") == 0,
            with_rev |= strcmp(argv[a], "rev") == 0;
    Gmm g = make(d, k, n);
    long np = k + 2 * k * d + k * nl;
    double *grad = malloc((size_t)np * sizeof(double));
    /* (a) hand-written C gradient: best of 5 */
    double best = 1e30, f = 0;
    for (int r = 0; r < 5; ++r) {
        double t0 = now();
        f = gmm_c_grad(&g, grad);
        double t = now() - t0;
        best = t < best ? t : best;
    }
    double bo = 1e30;
    for (int r = 0; r < 5; ++r) {
        double t0 = now();
        gmm_c(&g, NULL);
        double t = now() - t0;
        bo = t < bo ? t : bo;
    }
    printf("C      f=%.12g  objective %.6f s  gradient %.6f s\n", f, bo, best);
    if (dump) { /* inputs and the C gradient for gmm.py */
        write("gmm-in.bin", (double[]){(double)d, (double)k, (double)n}, 3);
        FILE *in = fopen("gmm-in.bin", "ab");
        if (!in) { perror("gmm-in.bin"); return 1; }
        fwrite(g.alpha, sizeof(double), (size_t)k, in), fwrite(g.mu, sizeof(double), (size_t)(k * d), in);
        fwrite(g.q, sizeof(double), (size_t)(k * d), in), fwrite(g.l, sizeof(double), (size_t)(k * nl), in);
        fwrite(g.x, sizeof(double), (size_t)(n * d), in);
        fclose(in);
        write("gmm-grad-c.bin", grad, np);
    }
    if (with_mim) {
        double fm = 0, bm = 1e30;
        for (int r = 0; r < 5; ++r) {
            double t0 = now();
            fm = gmm_obj(g.alpha, g.mu, g.q, g.l, g.x, d, k, n);
            double t = now() - t0;
            bm = t < bm ? t : bm;
        }
        printf("Mim    f=%.12g  objective %.6f s  (objective agrees with C: %s)\n", fm, bm, rel(fm, f) < 1e-9 ? "yes" : "NO");
    }
    if (with_mim && with_grad) {
        /* (b) Mim forward mode: one jvp per parameter, unit shadows */
        double *sh = calloc((size_t)np, sizeof(double)), *zx = calloc((size_t)(n * d), sizeof(double));
        double *gm = malloc((size_t)np * sizeof(double));
        double t0 = now();
        for (long p = 0; p < np; ++p) {
            sh[p] = 1;
            gm[p] = gmm_jvp(g.alpha, sh, g.mu, sh + k, g.q, sh + k + k * d, g.l, sh + k + 2 * k * d, g.x, zx, d, k, n);
            sh[p] = 0;
        }
        double t = now() - t0, worst = 0;
        for (long p = 0; p < np; ++p) worst = fmax(worst, rel(gm[p], grad[p]));
        printf("Mim    gradient %.6f s (forward mode, %ld directional derivatives); gradient agrees with C: %s (max rel. difference %.2e)\n",
               t, np, worst < 1e-9 ? "yes" : "NO", worst);
        free(sh), free(zx), free(gm);
    }
    if (with_mim && with_rev) {
        /* (b') Mim reverse mode: one gmm_vjp call, the gradient added into zeroed shadows; best of 5 */
        double *gm = malloc((size_t)np * sizeof(double)), *zx = malloc((size_t)(n * d) * sizeof(double));
        double bt = 1e30, fr = 0;
        for (int r = 0; r < 5; ++r) {
            memset(gm, 0, (size_t)np * sizeof(double)), memset(zx, 0, (size_t)(n * d) * sizeof(double));
            double t0 = now();
            fr = gmm_vjp(g.alpha, gm, g.mu, gm + k, g.q, gm + k + k * d, g.l, gm + k + 2 * k * d, g.x, zx, d, k, n);
            double t = now() - t0;
            bt = t < bt ? t : bt;
        }
        double worst = 0;
        for (long p = 0; p < np; ++p) worst = fmax(worst, rel(gm[p], grad[p]));
        printf("Mim    gradient %.6f s (reverse mode, %%autodiff.vjp; f agrees: %s); gradient agrees with C: %s (max rel. difference %.2e)\n",
               bt, rel(fr, f) < 1e-9 ? "yes" : "NO", worst < 1e-9 ? "yes" : "NO", worst);
        free(gm), free(zx);
    }
    free(grad), free(g.alpha), free(g.mu), free(g.q), free(g.l), free(g.x);
    return 0;
}
