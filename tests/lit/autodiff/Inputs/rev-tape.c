/* Harness of tests/lit/autodiff/rev-tape.mim: the tape runtime's block kept
 * between gradient calls. Every gradient is compared bit for bit with the
 * first one computed for the same input (single-threaded, before any reuse
 * of a larger block), the first ones with the analytic gradients. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

double rstride(double *, double *, long);
double rtw(double *, double *, double *, double *, long);
double rhorner(double *, double *, long);
void mim_rt_tape_release(void);

enum { NSIZES = 7 };
/* stride's m (the tape: one record of 2 words per iteration) and tw's n */
static const long ms[NSIZES] = {0, 1, 3, 300, 100000, 1000000, 1000};
static const long ns[NSIZES] = {0, 1, 3, 30, 200, 400, 7};

typedef struct {
    double *a, *b;            /* inputs, of length 2·m + 1 */
    double *gs, *gt;          /* reference gradients: stride's, tw's (a then b) */
    double fs, ft;
} Ref;
static Ref refs[NSIZES];

static double *vec(long n, double s) {
    double *v = malloc((size_t)(n + 1) * sizeof *v);
    for (long i = 0; i <= n; ++i) v[i] = s + 0.001 * (double)(i % 997);
    return v;
}

/* one call of each gradient for size k into fresh zeroed shadows; 0 if it
 * differs from the reference (or, with set, makes it the reference) */
static int run(int k, int set) {
    Ref *r = &refs[k];
    long m = ms[k], n = ns[k];
    double *gs = calloc((size_t)(2 * m + 1), sizeof *gs), *gt = calloc((size_t)(2 * n + 2), sizeof *gt);
    double fs = rstride(r->a, gs, m), ft = rtw(r->a, gt, r->b, gt + n + 1, n);
    int ok = 1;
    if (set) {
        r->gs = gs, r->gt = gt, r->fs = fs, r->ft = ft;
        return 1;
    }
    ok = fs == r->fs && ft == r->ft && memcmp(gs, r->gs, (size_t)(2 * m + 1) * sizeof *gs) == 0 &&
         memcmp(gt, r->gt, (size_t)(2 * n + 2) * sizeof *gt) == 0;
    free(gs), free(gt);
    return ok;
}

/* the first gradients against the analytic ones: stride ∂a_{2i} = 2a_{2i}
 * (exact); tw (with t_r = Σ_{s<r} a_s b_s, T_k = Σ_{k<r<n} 2 t_r):
 * ∂a_k = b_k (a_0 + T_k) (+ t_n for k = 0), ∂b_k = a_k (a_0 + T_k) */
static int analytic(int k) {
    Ref *r = &refs[k];
    long m = ms[k], n = ns[k];
    for (long i = 0; i < 2 * m + 1; ++i)
        if (r->gs[i] != (i % 2 == 0 && i < 2 * m ? 2 * r->a[i] : 0)) return 0;
    double *tt = malloc((size_t)(n + 1) * sizeof *tt), t = 0, tail = 0;
    for (long i = 0; i < n; ++i) tt[i] = t, t += r->a[i] * r->b[i];
    int ok = 1;
    for (long i = n - 1; i >= 0; --i) {
        double wa = r->b[i] * (r->a[0] + tail) + (i == 0 ? t : 0), wb = r->a[i] * (r->a[0] + tail);
        double ea = r->gt[i] - wa, eb = r->gt[n + 1 + i] - wb;
        if (ea * ea > 1e-20 * (1 + wa * wa) || eb * eb > 1e-20 * (1 + wb * wb)) ok = 0;
        tail += 2 * tt[i];
    }
    free(tt);
    return ok;
}

static long minflt(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

static void *worker(void *arg) {
    long id = (long)arg, bad = 0;
    /* the two threads walk the sizes in opposite orders, growing and shrinking */
    for (int rep = 0; rep < 40; ++rep)
        for (int j = 0; j < NSIZES; ++j) {
            int k = id ? NSIZES - 1 - j : j;
            if (ms[k] >= 1000000 && rep % 8) continue; /* the 16 MB tape now and then */
            bad += !run(k, 0);
        }
    return (void *)bad;
}

int main(void) {
    for (int k = 0; k < NSIZES; ++k) {
        long len = 2 * ms[k] + 2 > 2 * ns[k] + 2 ? 2 * ms[k] + 2 : 2 * ns[k] + 2;
        refs[k].a = vec(len, 1.0), refs[k].b = vec(len, 0.5);
    }
    /* references with growing sizes (each a fresh or smaller kept block) */
    int ok = 1;
    mim_rt_tape_release();
    for (int k = 0; k < NSIZES; ++k) ok &= run(k, 1) && analytic(k);
    /* growing then shrinking, every size again twice */
    for (int rep = 0; rep < 2; ++rep)
        for (int k = NSIZES - 1; k >= 0; --k) ok &= run(k, 0);
    for (int k = 0; k < NSIZES; ++k) ok &= run(k, 0);
    printf("%s\n", ok ? "sizes ok" : "FAIL sizes");
    /* a 64 MB tape: after a release its pages are faulted in once; the
     * next call reuses the kept block */
    mim_rt_tape_release();
    long nh = 8000000;
    double one = 1, dx = 0;
    long f0 = minflt();
    ok = rhorner(&one, &dx, nh) == (double)nh && dx == (double)nh * (double)(nh - 1) / 2;
    long f1 = minflt();
    dx = 0;
    ok &= rhorner(&one, &dx, nh) == (double)nh && dx == (double)nh * (double)(nh - 1) / 2;
    long f2 = minflt();
    if (ok && 4 * (f2 - f1) < f1 - f0) printf("faults ok\n");
    else printf("FAIL faults: %ld then %ld page faults (%s)\n", f1 - f0, f2 - f1, ok ? "gradients ok" : "gradients wrong");
    pthread_t th[2];
    for (long i = 0; i < 2; ++i) pthread_create(&th[i], NULL, worker, (void *)i);
    long bad = 0;
    for (int i = 0; i < 2; ++i) {
        void *r;
        pthread_join(th[i], &r);
        bad += (long)r;
    }
    printf("%s\n", bad ? "FAIL threads" : "threads ok");
    /* release, then a gradient again (a new block), then release again */
    mim_rt_tape_release();
    ok = run(3, 0);
    mim_rt_tape_release();
    mim_rt_tape_release();
    printf("%s\n", ok ? "release ok" : "FAIL release");
    for (int k = 0; k < NSIZES; ++k) free(refs[k].a), free(refs[k].b), free(refs[k].gs), free(refs[k].gt);
    return 0;
}
