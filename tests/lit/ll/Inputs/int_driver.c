/* Driver of tests/lit/ll/int-arith.mim: calls every extern Mim integer
 * operation on edge values and compares with C's arithmetic (unsigned
 * wrap-around, two's complement shifts and division). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int checks, failures;

static void check(const char *name, uint64_t a, uint64_t b, uint64_t got, uint64_t want) {
    ++checks;
    if (got != want) {
        ++failures;
        printf("FAIL %s(%" PRIu64 ", %" PRIu64 "): got %" PRIu64 ", want %" PRIu64 "\n", name, a, b, got, want);
    }
}

#define DECL(W)                                                                                            \
    uint##W##_t add_##W(uint##W##_t, uint##W##_t), sub_##W(uint##W##_t, uint##W##_t),                      \
        mul_##W(uint##W##_t, uint##W##_t), shl_##W(uint##W##_t, uint##W##_t),                              \
        add_nsw_##W(uint##W##_t, uint##W##_t), add_nuw_##W(uint##W##_t, uint##W##_t),                      \
        mul_nusw_##W(uint##W##_t, uint##W##_t), shra_##W(uint##W##_t, uint##W##_t),                        \
        shrl_##W(uint##W##_t, uint##W##_t), and_##W(uint##W##_t, uint##W##_t),                             \
        or_##W(uint##W##_t, uint##W##_t), xor_##W(uint##W##_t, uint##W##_t),                               \
        nand_##W(uint##W##_t, uint##W##_t), nor_##W(uint##W##_t, uint##W##_t),                             \
        nxor_##W(uint##W##_t, uint##W##_t), iff_##W(uint##W##_t, uint##W##_t),                             \
        niff_##W(uint##W##_t, uint##W##_t), neg_##W(uint##W##_t), smin_##W(uint##W##_t, uint##W##_t),      \
        smax_##W(uint##W##_t, uint##W##_t), umin_##W(uint##W##_t, uint##W##_t),                            \
        umax_##W(uint##W##_t, uint##W##_t), sdiv_##W(uint##W##_t, uint##W##_t),                            \
        udiv_##W(uint##W##_t, uint##W##_t), srem_##W(uint##W##_t, uint##W##_t),                            \
        urem_##W(uint##W##_t, uint##W##_t), abs_##W(uint##W##_t);                                          \
    uint8_t cmp_e_##W(uint##W##_t, uint##W##_t), cmp_ne_##W(uint##W##_t, uint##W##_t),                     \
        cmp_sl_##W(uint##W##_t, uint##W##_t), cmp_sle_##W(uint##W##_t, uint##W##_t),                       \
        cmp_sg_##W(uint##W##_t, uint##W##_t), cmp_sge_##W(uint##W##_t, uint##W##_t),                       \
        cmp_ul_##W(uint##W##_t, uint##W##_t), cmp_ule_##W(uint##W##_t, uint##W##_t),                       \
        cmp_ug_##W(uint##W##_t, uint##W##_t), cmp_uge_##W(uint##W##_t, uint##W##_t);
DECL(8)
DECL(16)
DECL(32)
DECL(64)

#define C2(W, name, expr) check(#name "_" #W, a, b, (uint##W##_t)name##_##W(a, b), (uint##W##_t)(expr))
#define TEST(W)                                                                                            \
    static void test_##W(uint##W##_t a, uint##W##_t b) {                                                   \
        typedef uint##W##_t U;                                                                             \
        typedef int##W##_t S;                                                                              \
        C2(W, add, a + b);                                                                                 \
        C2(W, sub, a - b);                                                                                 \
        C2(W, mul, (uint64_t)a * b);                                                                       \
        C2(W, and, a & b);                                                                                 \
        C2(W, or, a | b);                                                                                  \
        C2(W, xor, a ^ b);                                                                                 \
        C2(W, nand, ~(a & b));                                                                             \
        C2(W, nor, ~(a | b));                                                                              \
        C2(W, nxor, ~(a ^ b));                                                                             \
        C2(W, iff, (U)~a | b);                                                                             \
        C2(W, niff, a & (U)~b);                                                                            \
        C2(W, smin, (S)a < (S)b ? a : b);                                                                  \
        C2(W, smax, (S)a > (S)b ? a : b);                                                                  \
        C2(W, umin, a < b ? a : b);                                                                        \
        C2(W, umax, a > b ? a : b);                                                                        \
        C2(W, cmp_e, a == b);                                                                              \
        C2(W, cmp_ne, a != b);                                                                             \
        C2(W, cmp_sl, (S)a < (S)b);                                                                        \
        C2(W, cmp_sle, (S)a <= (S)b);                                                                      \
        C2(W, cmp_sg, (S)a > (S)b);                                                                        \
        C2(W, cmp_sge, (S)a >= (S)b);                                                                      \
        C2(W, cmp_ul, a < b);                                                                              \
        C2(W, cmp_ule, a <= b);                                                                            \
        C2(W, cmp_ug, a > b);                                                                              \
        C2(W, cmp_uge, a >= b);                                                                            \
        check("neg_" #W, a, 0, neg_##W(a), (U)~a);                                                         \
        check("abs_" #W, a, 0, abs_##W(a), (U)((S)a < 0 ? (U)0 - a : a));                                  \
        U s = (U)(b % W);                                                                                  \
        check("shl_" #W, a, s, shl_##W(a, s), (U)((uint64_t)a << s));                                      \
        check("shrl_" #W, a, s, shrl_##W(a, s), (U)(a >> s));                                              \
        check("shra_" #W, a, s, shra_##W(a, s), (U)((S)a < 0 ? (U)~(U)((U)~a >> s) : a >> s));     \
        if (b != 0) {                                                                                      \
            check("udiv_" #W, a, b, udiv_##W(a, b), (U)(a / b));                                           \
            check("urem_" #W, a, b, urem_##W(a, b), (U)(a % b));                                           \
            if (!((S)b == -1 && a == (U)1 << (W - 1))) {                                                   \
                check("sdiv_" #W, a, b, sdiv_##W(a, b), (U)(S)((S)a / (S)b));                              \
                check("srem_" #W, a, b, srem_##W(a, b), (U)(S)((S)a % (S)b));                              \
            }                                                                                              \
        }                                                                                                  \
        /* no signed/unsigned overflow: the flags are facts */                                            \
        U ha = a >> 2, hb = b >> 2;                                                                        \
        check("add_nuw_" #W, ha, hb, add_nuw_##W(ha, hb), (U)(ha + hb));                                   \
        S sa = (S)a >> 2, sb = (S)b >> 2;                                                                  \
        check("add_nsw_" #W, (U)sa, (U)sb, add_nsw_##W((U)sa, (U)sb), (U)(sa + sb));                       \
        U qa = a & 0xf, qb = b & 0x7;                                                                      \
        check("mul_nusw_" #W, qa, qb, mul_nusw_##W(qa, qb), (U)(qa * qb));                                 \
    }
TEST(8)
TEST(16)
TEST(32)
TEST(64)

int8_t convs_8_16(int8_t);
int64_t convs_8_64(int8_t);
int8_t convs_64_8(int64_t);
uint64_t convu_8_64(uint8_t);
uint16_t convu_32_16(uint32_t);
int32_t convs_16_32(int16_t);
uint32_t convu_16_32(uint16_t);
uint64_t nat_ops(uint64_t, uint64_t);
uint8_t nat_ncmp(uint64_t, uint64_t);
uint64_t bits_f64(double);
uint16_t idx_of(uint64_t);

int main(void) {
    static const uint64_t vals[] = {0, 1, 2, 3, 7, 100, 127, 128, 200, 255, 256, 1000, 32767, 32768, 65535,
                                    0x7fffffffull, 0x80000000ull, 0xffffffffull, 0x123456789abcdefull,
                                    0x7fffffffffffffffull, 0x8000000000000000ull, 0xffffffffffffffffull,
                                    0xfffffffffffffff9ull};
    size_t n = sizeof vals / sizeof *vals;
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) {
            test_8((uint8_t)vals[i], (uint8_t)vals[j]);
            test_16((uint16_t)vals[i], (uint16_t)vals[j]);
            test_32((uint32_t)vals[i], (uint32_t)vals[j]);
            test_64(vals[i], vals[j]);
        }
    for (size_t i = 0; i < n; ++i) {
        uint64_t v = vals[i];
        check("convs_8_64", v, 0, (uint64_t)convs_8_64((int8_t)v), (uint64_t)(int64_t)(int8_t)v);
        check("convs_64_8", v, 0, (uint8_t)convs_64_8((int64_t)v), (uint8_t)v);
        check("convu_8_64", v, 0, convu_8_64((uint8_t)v), (uint8_t)v);
        check("convu_32_16", v, 0, convu_32_16((uint32_t)v), (uint16_t)v);
        check("convs_16_32", v, 0, (uint32_t)convs_16_32((int16_t)v), (uint32_t)(int32_t)(int16_t)v);
        check("convu_16_32", v, 0, convu_16_32((uint16_t)v), (uint16_t)v);
        check("idx_of", v, 0, idx_of(v), (uint16_t)(v + 1));
        for (size_t j = 0; j < n; ++j) {
            uint64_t w = vals[j], m = v * 3;
            check("nat_ops", v, w, nat_ops(v, w), m >= w ? m - w : 0);
            check("nat_ncmp", v, w, nat_ncmp(v, w), v <= w);
        }
    }
    double d = -2.5;
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    check("bits_f64", 0, 0, bits_f64(d), bits);
    printf("int: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
