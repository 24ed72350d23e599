/* Driver of add-mem-ptr-loop.mim: each function at lengths 0, 1, 3, 300
 * against the same computation in C; prints "ok" or "FAIL" per case. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

double vbump(double *a, int64_t n);
double vwalk(double *a, int64_t n);
double vtwice(double *a, int64_t n);
double vexitload(double *a, int64_t n);

static void fill(double *a) {
    for (int i = 0; i < 300; ++i) a[i] = 0.01 * i + 0.5;
}

static void report(const char *name, int64_t n, double got, double want) {
    int ok = fabs(got - want) <= 1e-12 * (1 + fabs(want));
    printf("%s n=%lld %s got=%.17g want=%.17g\n", name, (long long)n, ok ? "ok" : "FAIL", got, want);
}

int main(void) {
    static double a[300];
    const int64_t ns[] = {0, 1, 3, 300};
    for (int k = 0; k < 4; ++k) {
        int64_t n = ns[k];
        double sq = 0, s2 = 0, s1 = 0;
        fill(a);
        for (int64_t i = 0; i < n; ++i) sq += sin(a[i]) * sin(a[i]);
        for (int64_t i = 0; i < n; ++i) s2 += 2 * a[i];
        for (int64_t i = 0; i < n; ++i) s1 += a[i] + 1;
        report("bump", n, vbump(a, n), sq);
        report("walk", n, vwalk(a, n), sq);
        report("exitload", n, vexitload(a, n), s1);
        double got = vtwice(a, n);
        int same = 1; /* the elements were doubled in place, the rest kept */
        for (int64_t i = 0; i < 300; ++i) {
            double orig = 0.01 * i + 0.5;
            same &= a[i] == (i < n ? 2 * orig : orig);
        }
        report("twice", n, same ? got : NAN, s2);
    }
    return 0;
}
