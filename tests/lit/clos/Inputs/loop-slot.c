/* Harness of loop-slot.mim: each Mim function against the same computation
 * in C, for several sizes; prints "<name> ok" when all its cases agree. */
#include <stdio.h>

long sum_apply(long n, long a, long b);
long sum_direct(long n, long a, long b, long c);
long tree(long d, long c);
long stored(long n, long a, long b);
long chained(long n, long a, long b);
long mixed(long n, long a, long b);

static int failed;

static void check(const char *name, long got, long want, int *ok) {
    if (got == want) return;
    printf("%s: got %ld, want %ld\n", name, got, want);
    *ok = 0, failed++;
}

static long inner(long i, long a, long b, long c) {
    long s = 0;
    for (long j = 0; j < i; j++) s += a * j + b * i + c;
    return s;
}

/* tree' d f with f x = x + off: g_j x = f x + d·j + c */
static long tree_ref(long d, long c, long off) {
    if (d <= 0) return 1 + off;
    long acc = 0;
    for (long j = 0; j < 2; j++) acc += tree_ref(d - 1, c, off + d * j + c);
    return acc;
}

int main(void) {
    static const long ns[] = {0, 1, 2, 3, 10, 1000};
    const long a = 7, b = -3, c = 5;
    int ok = 1;
    for (int t = 0; t < 6; t++) {
        long n = ns[t], want = 0;
        for (long i = 0; i < n; i++) want += a * i + b * i;
        check("sum_apply", sum_apply(n, a, b), want, &ok);
    }
    printf("sum_apply %s\n", ok ? "ok" : "FAILED");
    ok = 1;
    for (int t = 0; t < 6; t++) {
        long n = ns[t], want = 0;
        for (long i = 0; i < n; i++) want += inner(i, a, b, c) + inner(n - i, a, b, c);
        check("sum_direct", sum_direct(n, a, b, c), want, &ok);
    }
    printf("sum_direct %s\n", ok ? "ok" : "FAILED");
    ok = 1;
    for (long d = 0; d < 12; d++) check("tree", tree(d, c), tree_ref(d, c, c), &ok);
    printf("tree %s\n", ok ? "ok" : "FAILED");
    ok = 1;
    for (int t = 0; t < 6; t++) {
        long n = ns[t], want = 0;
        for (long i = 0; i < n; i++) want += a * i + b * i;
        check("stored", stored(n, a, b), want, &ok);
    }
    printf("stored %s\n", ok ? "ok" : "FAILED");
    ok = 1;
    for (int t = 0; t < 6; t++) {
        long n = ns[t], want = 0;
        for (long i = 0; i < n; i++) want += a * i + b * (i == 0 ? n : i - 1);
        check("chained", chained(n, a, b), want, &ok);
    }
    printf("chained %s\n", ok ? "ok" : "FAILED");
    ok = 1;
    for (int t = 0; t < 6; t++) {
        long n = ns[t], want = 0;
        for (long i = 0; i < n; i++) want += a * i + b * i + a * i + b * (i == 0 ? n : i - 1);
        check("mixed", mixed(n, a, b), want, &ok);
    }
    printf("mixed %s\n", ok ? "ok" : "FAILED");
    printf("checks %d failed\n", failed);
    return failed != 0;
}
