/* A minimal unit-test harness for the C API tests.
 *   static void test_x(void) { CHECK(1 + 1 == 2); }
 *   int main(void) { RUN(test_x); return unit_summary(); }
 * Each RUN counts as one test; it fails if any CHECK in it fails. The
 * summary line "unit-summary: P passed, F failed" is read by tests/run. */
#ifndef MIM_TESTS_UNIT_H
#define MIM_TESTS_UNIT_H

#include <stdio.h>

static int unit_passed, unit_failed, unit_current_failed;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);    \
            unit_current_failed = 1;                                                    \
        }                                                                               \
    } while (0)

#define RUN(fn)                                                                         \
    do {                                                                                \
        unit_current_failed = 0;                                                        \
        fn();                                                                           \
        if (unit_current_failed) {                                                      \
            unit_failed++;                                                              \
            fprintf(stderr, "FAIL: %s\n", #fn);                                         \
        } else {                                                                        \
            unit_passed++;                                                              \
        }                                                                               \
    } while (0)

static inline int unit_summary(void) {
    printf("unit-summary: %d passed, %d failed\n", unit_passed, unit_failed);
    return unit_failed != 0;
}

#endif
