/* Driver of tests/lit/ll/dep-pack.mim: every function building a pack whose
 * body depends on the index, compared with the same computation in C. */
#include <stdint.h>
#include <stdio.h>

int32_t nest(int32_t, int32_t, int32_t), perm(int32_t, int32_t), shift(int32_t, int32_t);
int64_t pairs(int32_t, int64_t, int32_t);

static int checks, failures;

static void check(const char *name, int i, int j, int64_t got, int64_t want) {
    ++checks;
    if (got != want) {
        ++failures;
        printf("FAIL %s(%d, %d): got %lld, want %lld\n", name, i, j, (long long)got, (long long)want);
    }
}

int main(void) {
    for (int i = 0; i < 100; ++i)
        for (int j = 0; j < 50; ++j) check("nest", i, j, nest(-5, i, j), i * j - 5);
    for (int i = 0; i < 100; ++i) check("pairs", i, 0, pairs(3, -10, i), (int64_t)(i + 3) + 100 + i);
    for (int i = 0; i < 100; ++i) check("perm", i, 0, perm(3, i), 3 * (99 - i));
    for (int n = 0; n < 6; ++n)
        for (int j = 0; j < 100; ++j) check("shift", n, j, shift(n, j), j + n * (n - 1) / 2);
    printf("dep-pack: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
