/* Driver of tests/lit/ll/icmp-all.mim: each %core.icmp sub-tag n is the OR
 * of the relations whose bits are set in n (core.md §5.9): X (16) the sign
 * bits are 0/1, Y (8) 1/0, G (4) same sign and x > y, L (2) same sign and
 * x < y, E (1) x = y. */
#include <inttypes.h>
#include <stdio.h>

uint8_t icmp8_0(uint8_t, uint8_t), icmp8_1(uint8_t, uint8_t), icmp8_2(uint8_t, uint8_t), icmp8_3(uint8_t, uint8_t), icmp8_4(uint8_t, uint8_t), icmp8_5(uint8_t, uint8_t), icmp8_6(uint8_t, uint8_t), icmp8_7(uint8_t, uint8_t), icmp8_8(uint8_t, uint8_t), icmp8_9(uint8_t, uint8_t), icmp8_10(uint8_t, uint8_t), icmp8_11(uint8_t, uint8_t), icmp8_12(uint8_t, uint8_t), icmp8_13(uint8_t, uint8_t), icmp8_14(uint8_t, uint8_t), icmp8_15(uint8_t, uint8_t), icmp8_16(uint8_t, uint8_t), icmp8_17(uint8_t, uint8_t), icmp8_18(uint8_t, uint8_t), icmp8_19(uint8_t, uint8_t), icmp8_20(uint8_t, uint8_t), icmp8_21(uint8_t, uint8_t), icmp8_22(uint8_t, uint8_t), icmp8_23(uint8_t, uint8_t), icmp8_24(uint8_t, uint8_t), icmp8_25(uint8_t, uint8_t), icmp8_26(uint8_t, uint8_t), icmp8_27(uint8_t, uint8_t), icmp8_28(uint8_t, uint8_t), icmp8_29(uint8_t, uint8_t), icmp8_30(uint8_t, uint8_t), icmp8_31(uint8_t, uint8_t);
uint8_t icmp64_0(uint64_t, uint64_t), icmp64_1(uint64_t, uint64_t), icmp64_2(uint64_t, uint64_t), icmp64_3(uint64_t, uint64_t), icmp64_4(uint64_t, uint64_t), icmp64_5(uint64_t, uint64_t), icmp64_6(uint64_t, uint64_t), icmp64_7(uint64_t, uint64_t), icmp64_8(uint64_t, uint64_t), icmp64_9(uint64_t, uint64_t), icmp64_10(uint64_t, uint64_t), icmp64_11(uint64_t, uint64_t), icmp64_12(uint64_t, uint64_t), icmp64_13(uint64_t, uint64_t), icmp64_14(uint64_t, uint64_t), icmp64_15(uint64_t, uint64_t), icmp64_16(uint64_t, uint64_t), icmp64_17(uint64_t, uint64_t), icmp64_18(uint64_t, uint64_t), icmp64_19(uint64_t, uint64_t), icmp64_20(uint64_t, uint64_t), icmp64_21(uint64_t, uint64_t), icmp64_22(uint64_t, uint64_t), icmp64_23(uint64_t, uint64_t), icmp64_24(uint64_t, uint64_t), icmp64_25(uint64_t, uint64_t), icmp64_26(uint64_t, uint64_t), icmp64_27(uint64_t, uint64_t), icmp64_28(uint64_t, uint64_t), icmp64_29(uint64_t, uint64_t), icmp64_30(uint64_t, uint64_t), icmp64_31(uint64_t, uint64_t);
static uint8_t (*const f8[32])(uint8_t, uint8_t) = {icmp8_0, icmp8_1, icmp8_2, icmp8_3, icmp8_4, icmp8_5, icmp8_6, icmp8_7, icmp8_8, icmp8_9, icmp8_10, icmp8_11, icmp8_12, icmp8_13, icmp8_14, icmp8_15, icmp8_16, icmp8_17, icmp8_18, icmp8_19, icmp8_20, icmp8_21, icmp8_22, icmp8_23, icmp8_24, icmp8_25, icmp8_26, icmp8_27, icmp8_28, icmp8_29, icmp8_30, icmp8_31};
static uint8_t (*const f64[32])(uint64_t, uint64_t) = {icmp64_0, icmp64_1, icmp64_2, icmp64_3, icmp64_4, icmp64_5, icmp64_6, icmp64_7, icmp64_8, icmp64_9, icmp64_10, icmp64_11, icmp64_12, icmp64_13, icmp64_14, icmp64_15, icmp64_16, icmp64_17, icmp64_18, icmp64_19, icmp64_20, icmp64_21, icmp64_22, icmp64_23, icmp64_24, icmp64_25, icmp64_26, icmp64_27, icmp64_28, icmp64_29, icmp64_30, icmp64_31};

static int checks, failures;

static unsigned relations(uint64_t x, uint64_t y, unsigned w) {
    unsigned sx = (unsigned)(x >> (w - 1)) & 1, sy = (unsigned)(y >> (w - 1)) & 1;
    return (sx == 0 && sy == 1 ? 16u : 0u) | (sx == 1 && sy == 0 ? 8u : 0u) | (sx == sy && x > y ? 4u : 0u) |
           (sx == sy && x < y ? 2u : 0u) | (x == y ? 1u : 0u);
}

static void check(unsigned w, unsigned n, uint64_t a, uint64_t b, unsigned got) {
    unsigned want = (relations(a, b, w) & n) != 0;
    ++checks;
    if (got != want) {
        ++failures;
        printf("FAIL icmp%u_%u(%" PRIu64 ", %" PRIu64 "): got %u, want %u\n", w, n, a, b, got, want);
    }
}

int main(void) {
    static const uint64_t v8[] = {0, 1, 2, 100, 127, 128, 129, 200, 254, 255};
    static const uint64_t v64[] = {0, 1, 5, INT64_MAX - 1, INT64_MAX, (uint64_t)INT64_MIN, (uint64_t)INT64_MIN + 1,
                                   UINT64_MAX - 1, UINT64_MAX};
    for (unsigned n = 0; n < 32; ++n) {
        for (size_t i = 0; i < sizeof v8 / sizeof *v8; ++i)
            for (size_t j = 0; j < sizeof v8 / sizeof *v8; ++j)
                check(8, n, v8[i], v8[j], f8[n]((uint8_t)v8[i], (uint8_t)v8[j]));
        for (size_t i = 0; i < sizeof v64 / sizeof *v64; ++i)
            for (size_t j = 0; j < sizeof v64 / sizeof *v64; ++j) check(64, n, v64[i], v64[j], f64[n](v64[i], v64[j]));
    }
    printf("icmp: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
