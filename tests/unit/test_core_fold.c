/* Randomized constant-folding tests of the core plugin (plugins/core.md
 * §4–§5) through the C API with the real plugin library: for every folded
 * operation and the sizes Idx 2, I8, I16, I32, I64 (widths 1…64) and the odd
 * sizes Idx 5, Idx 1000 (the 64-bit path, result reduced modulo s), a few
 * thousand operand pairs (fixed seed) are folded by the normalizers and
 * compared with C's own arithmetic in a type of that width. */
#include "core_env.h"
#include "unit.h"

#include <stdint.h>

static CoreEnv env;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void) { /* xorshift64* */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545f4914f6cdd1dull;
}

typedef struct Size {
    uint64_t s; /* Idx s (0 = 2^64) */
    unsigned w; /* C reference width: 1, 8, 16, 32, 64, or 0 = 64-bit path modulo s */
} Size;

static const Size sizes[] = {{2, 1}, {256, 8}, {65536, 16}, {UINT64_C(1) << 32, 32}, {0, 64}, {5, 0}, {1000, 0}};
#define NUM_SIZES (sizeof sizes / sizeof *sizes)
#define CASES 400

/* An operand of Idx s: random, or an edge value (0, 1, max, signed min/max). */
static uint64_t operand(const Size *z) {
    uint64_t v = next(), w = z->w ? z->w : 64;
    uint64_t mask = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
    switch (v % 8) {
    case 0: v = 0; break;
    case 1: v = 1; break;
    case 2: v = mask; break;
    case 3: v = UINT64_C(1) << (w - 1); break;
    case 4: v = (UINT64_C(1) << (w - 1)) - 1; break;
    default: v = next() >> (next() % 64); break;
    }
    v &= mask;
    return z->s ? v % z->s : v;
}

static MimDef *lit(const Size *z, uint64_t v) { return mim_lit_idx(env.w, z->s, v); }
static MimDef *nat(uint64_t v) { return mim_lit_nat(env.w, v); }

/* Signed view of a w-bit pattern (w = 1: 1 is −1), as C computes it. */
static int64_t sview(uint64_t v, unsigned w) {
    switch (w) {
    case 1: return v ? -1 : 0;
    case 8: return (int8_t)(uint8_t)v;
    case 16: return (int16_t)(uint16_t)v;
    case 32: return (int32_t)(uint32_t)v;
    case 64: return (int64_t)v;
    default: return (int64_t)v; /* odd sizes: bit 63 is never set */
    }
}

/* Truncate to the width through the C type, or reduce modulo s. */
static uint64_t trunc_to(const Size *z, uint64_t v) {
    switch (z->w) {
    case 1: return v & 1;
    case 8: return (uint8_t)v;
    case 16: return (uint16_t)v;
    case 32: return (uint32_t)v;
    case 64: return v;
    default: return v % z->s;
    }
}

/* Folded result: literal value in *v, or ⊥ (returns 1), or -1 if neither. */
static int result(MimDef *d, uint64_t *v) {
    if (!d) return -1;
    if (mim_def_node(d) == MIM_BOT) return 1;
    return mim_def_lit(d, v) ? 0 : -1;
}

static MimDef *binop(uint64_t id, bool mode, const Size *z, uint64_t a, uint64_t b) {
    MimDef *args[3] = {nat(z->s), nat(0), core_env_pair(env.w, lit(z, a), lit(z, b))};
    if (!mode) args[1] = args[2];
    return core_env_call(env.w, id, args, mode ? 3 : 2);
}

static void test_wrap(void) {
    for (size_t i = 0; i < NUM_SIZES; ++i) {
        const Size *z = &sizes[i];
        unsigned w = z->w ? z->w : 64;
        for (int k = 0; k < CASES; ++k) {
            uint64_t a = operand(z), b = operand(z), v = 0, sh = z->s ? (next() % (2 * w)) % z->s : next() % 128;
            CHECK(result(binop(T_WRAP | 0, true, z, a, b), &v) == 0 && v == trunc_to(z, a + b));
            CHECK(result(binop(T_WRAP | 1, true, z, a, b), &v) == 0 && v == trunc_to(z, a - b));
            CHECK(result(binop(T_WRAP | 2, true, z, a, b), &v) == 0 && v == trunc_to(z, a * b));
            int r = result(binop(T_WRAP | 3, true, z, a, sh), &v);
            if (sh >= w) CHECK(r == 1);
            else CHECK(r == 0 && v == trunc_to(z, a << sh));
        }
    }
}

static void test_shr(void) {
    for (size_t i = 0; i < NUM_SIZES; ++i) {
        const Size *z = &sizes[i];
        unsigned w = z->w ? z->w : 64;
        for (int k = 0; k < CASES; ++k) {
            uint64_t a = operand(z), sh = z->s ? (next() % (2 * w)) % z->s : next() % 128, v = 0;
            int ra = result(binop(T_SHR | 0, false, z, a, sh), &v);
            if (sh >= w) {
                CHECK(ra == 1);
            } else {
                /* arithmetic shift in C on the signed type */
                int64_t sa = sview(a, w);
                int64_t q = sa < 0 ? ~(~sa >> sh) : sa >> sh;
                CHECK(ra == 0 && v == trunc_to(z, (uint64_t)q));
            }
            int rl = result(binop(T_SHR | 1, false, z, a, sh), &v);
            if (sh >= w) CHECK(rl == 1);
            else CHECK(rl == 0 && v == trunc_to(z, a >> sh));
        }
    }
}

/* A memory token: the variable of some `lam (m: %mem.M): %mem.M`. */
static MimDef *mem_token(void) {
    MimDef *M = mim_world_annex(env.w, T_MEM_M);
    return mim_var(env.w, mim_mut_lam(env.w, mim_pi(env.w, M, M, false)));
}

static MimDef *div_call(unsigned sub, const Size *z, uint64_t a, uint64_t b, MimDef *mem) {
    MimDef *ab = core_env_pair(env.w, lit(z, a), lit(z, b));
    MimDef *args[2] = {nat(z->s), core_env_pair(env.w, mem, ab)};
    return core_env_call(env.w, T_DIV | sub, args, 2);
}

static void test_div(void) {
    MimDef *mem = mem_token();
    for (size_t i = 0; i < NUM_SIZES; ++i) {
        const Size *z = &sizes[i];
        unsigned w = z->w ? z->w : 64;
        for (int k = 0; k < CASES; ++k) {
            uint64_t a = operand(z), b = operand(z), v = 0;
            for (unsigned sub = 0; sub < 4; ++sub) {
                MimDef *d = div_call(sub, z, a, b, mem);
                CHECK(d && mim_def_node(d) == MIM_TUPLE && mim_def_op(d, 0) == mem);
                if (!d || mim_def_node(d) != MIM_TUPLE) continue;
                int r = result(mim_def_op(d, 1), &v);
                if (b == 0) {
                    CHECK(r == 1);
                    continue;
                }
                bool is_signed = sub == 0 || sub == 2;
                int64_t sa = sview(a, w), sb = sview(b, w);
                if (is_signed && sb == -1 && sa == (w == 64 ? INT64_MIN : -(INT64_C(1) << (w - 1)))) {
                    CHECK(r == 0 && v == (sub == 0 ? a : 0)); /* MIN / -1 wraps to MIN */
                    continue;
                }
                uint64_t e = sub == 1 ? a / b : sub == 3 ? a % b
                           : is_signed ? (uint64_t)(sub == 0 ? sa / sb : sa % sb) : sub == 0 ? a / b : a % b;
                CHECK(r == 0 && v == trunc_to(z, e));
            }
        }
    }
}

/* Relation bits of core.md §5.9, from C's signed and unsigned comparisons. */
static unsigned relation(const Size *z, uint64_t a, uint64_t b) {
    unsigned w = z->w ? z->w : 64;
    int64_t sa = sview(a, w), sb = sview(b, w);
    if (sa >= 0 && sb < 0) return 16;
    if (sa < 0 && sb >= 0) return 8;
    return a > b ? 4 : a < b ? 2 : 1;
}

static void test_icmp(void) {
    for (size_t i = 0; i < NUM_SIZES; ++i) {
        const Size *z = &sizes[i];
        unsigned w = z->w ? z->w : 64;
        for (int k = 0; k < CASES / 4; ++k) {
            uint64_t a = operand(z), b = k % 5 == 0 ? a : operand(z), v = 2;
            unsigned rel = relation(z, a, b);
            for (unsigned sub = 0; sub < 32; ++sub)
                CHECK(result(binop(T_ICMP | sub, false, z, a, b), &v) == 0 && v == ((sub & rel) != 0));
            /* the aliases agree with C's own comparisons */
            int64_t sa = sview(a, w), sb = sview(b, w);
            CHECK(result(binop(T_ICMP | 10, false, z, a, b), &v) == 0 && v == (sa < sb));  /* sl */
            CHECK(result(binop(T_ICMP | 11, false, z, a, b), &v) == 0 && v == (sa <= sb)); /* sle */
            CHECK(result(binop(T_ICMP | 12, false, z, a, b), &v) == 0 && v == (a > b));    /* ug */
            CHECK(result(binop(T_ICMP | 13, false, z, a, b), &v) == 0 && v == (a >= b));   /* uge */
            CHECK(result(binop(T_ICMP | 18, false, z, a, b), &v) == 0 && v == (a < b));    /* ul */
            CHECK(result(binop(T_ICMP | 19, false, z, a, b), &v) == 0 && v == (a <= b));   /* ule */
            CHECK(result(binop(T_ICMP | 20, false, z, a, b), &v) == 0 && v == (sa > sb));  /* sg */
            CHECK(result(binop(T_ICMP | 21, false, z, a, b), &v) == 0 && v == (sa >= sb)); /* sge */
            CHECK(result(binop(T_ICMP | 30, false, z, a, b), &v) == 0 && v == (a != b));   /* ne */
        }
    }
}

static void test_extrema_abs(void) {
    MimDef *mem = mem_token();
    for (size_t i = 0; i < NUM_SIZES; ++i) {
        const Size *z = &sizes[i];
        unsigned w = z->w ? z->w : 64;
        for (int k = 0; k < CASES; ++k) {
            uint64_t a = operand(z), b = operand(z), v = 0;
            /* width 1 is signed like LLVM i1: tt is -1 (docs/decisions.md) */
            int64_t sa = sview(a, w), sb = sview(b, w);
            CHECK(result(binop(T_EXTREMA | 0, false, z, a, b), &v) == 0 && v == (a < b ? a : b));
            CHECK(result(binop(T_EXTREMA | 1, false, z, a, b), &v) == 0 && v == (a > b ? a : b));
            CHECK(result(binop(T_EXTREMA | 2, false, z, a, b), &v) == 0 && v == (sa < sb ? a : b));
            CHECK(result(binop(T_EXTREMA | 3, false, z, a, b), &v) == 0 && v == (sa > sb ? a : b));
            MimDef *args[2] = {nat(z->s), core_env_pair(env.w, mem, lit(z, a))};
            MimDef *d = core_env_call(env.w, T_ABS, args, 2);
            CHECK(d && mim_def_node(d) == MIM_TUPLE && result(mim_def_op(d, 1), &v) == 0 &&
                  v == trunc_to(z, sa < 0 ? (uint64_t)0 - (uint64_t)sa : (uint64_t)sa));
        }
    }
}

/* Bitwise operations on power-of-two sizes (odd sizes: modulo s). */
static void test_bit(void) {
    for (size_t i = 0; i < NUM_SIZES; ++i) {
        const Size *z = &sizes[i];
        for (int k = 0; k < CASES / 4; ++k) {
            uint64_t a = operand(z), b = operand(z), v = 0;
            for (unsigned sub = 0; sub < 16; ++sub) {
                uint64_t e = 0;
                if (sub & 1) e |= ~a & ~b;
                if (sub & 2) e |= ~a & b;
                if (sub & 4) e |= a & ~b;
                if (sub & 8) e |= a & b;
                if (sub == 15) e = z->s - 1; /* t is s − 1 by definition (odd sizes too) */
                CHECK(result(binop(T_BIT2 | sub, true, z, a, b), &v) == 0 && v == trunc_to(z, e));
            }
            MimDef *args[3] = {nat(z->s), nat(0), lit(z, a)};
            CHECK(result(core_env_call(env.w, T_BIT1 | 1, args, 3), &v) == 0 && v == trunc_to(z, ~a));
            CHECK(result(core_env_call(env.w, T_BIT1 | 2, args, 3), &v) == 0 && v == a);
            CHECK(result(core_env_call(env.w, T_BIT1 | 0, args, 3), &v) == 0 && v == 0);
            CHECK(result(core_env_call(env.w, T_BIT1 | 3, args, 3), &v) == 0 && v == z->s - 1);
        }
    }
}

/* C conversion between two standard widths. */
static uint64_t ref_conv(bool is_signed, unsigned from, unsigned to, uint64_t a) {
    uint64_t x = is_signed ? (uint64_t)sview(a, from) : a;
    Size dz = {to == 64 ? 0 : UINT64_C(1) << to, to};
    return trunc_to(&dz, x);
}

static void test_conv(void) {
    for (size_t i = 0; i < 5; ++i) {
        for (size_t j = 0; j < 5; ++j) {
            const Size *from = &sizes[i], *to = &sizes[j];
            for (int k = 0; k < CASES / 8; ++k) {
                uint64_t a = operand(from), v = 0;
                for (unsigned sub = 0; sub < 2; ++sub) {
                    MimDef *args[3] = {nat(from->s), nat(to->s), lit(from, a)};
                    int r = result(core_env_call(env.w, T_CONV | sub, args, 3), &v);
                    CHECK(r == 0 && v == ref_conv(sub == 0, from->w, to->w, a));
                }
            }
        }
    }
}

static void test_nat(void) {
    for (int k = 0; k < CASES * 4; ++k) {
        uint64_t a = next() >> (next() % 64), b = k % 7 == 0 ? a : next() >> (next() % 64), v = 0;
        MimDef *ab = core_env_pair(env.w, nat(a), nat(b));
        CHECK(result(core_env_call(env.w, T_NAT | 0, &ab, 1), &v) == 0 && v == a + b);
        CHECK(result(core_env_call(env.w, T_NAT | 1, &ab, 1), &v) == 0 && v == (a >= b ? a - b : 0));
        CHECK(result(core_env_call(env.w, T_NAT | 2, &ab, 1), &v) == 0 && v == a * b);
        unsigned rel = a > b ? 4 : a < b ? 2 : 1;
        for (unsigned sub = 0; sub < 8; ++sub)
            CHECK(result(core_env_call(env.w, T_NCMP | sub, &ab, 1), &v) == 0 && v == ((sub & rel) != 0));
    }
}

static void test_idx(void) {
    for (size_t i = 0; i < NUM_SIZES; ++i) {
        const Size *z = &sizes[i];
        for (int k = 0; k < CASES / 4; ++k) {
            uint64_t l = k % 2 ? next() : next() % (z->s ? 2 * z->s : 1000), v = 0;
            bool fits = z->s == 0 || l < z->s;
            MimDef *args[3] = {nat(z->s), nat(0), nat(l)};
            CHECK(result(core_env_call(env.w, T_IDX, args, 3), &v) == 0 && v == (z->s ? l % z->s : l));
            args[1] = nat(1);
            int r = result(core_env_call(env.w, T_IDX, args, 3), &v);
            CHECK(fits ? r == 0 && v == l : r == 1);
        }
    }
}

int main(void) {
    if (!core_env_open(&env, NULL)) {
        fprintf(stderr, "cannot open a World with the core plugin\n");
        mim_diag_print(&env.diag, stderr, false);
        core_env_close(&env);
        return 1;
    }
    RUN(test_wrap);
    RUN(test_shr);
    RUN(test_div);
    RUN(test_icmp);
    RUN(test_extrema_abs);
    RUN(test_bit);
    RUN(test_conv);
    RUN(test_nat);
    RUN(test_idx);
    CHECK(!mim_world_has_error(env.w));
    core_env_close(&env);
    return unit_summary();
}
