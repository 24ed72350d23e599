/* Tests of the math plugin's soft-float module (plugins/math/softfloat.c):
 * binary32 against the machine's float arithmetic, binary64 rounding against
 * ldexp and integer casts, and binary16/bfloat16 against an independent
 * reference that searches the sorted table of all values of the format for
 * the nearest one using only exact double arithmetic; plus known answers. */
#include "../../plugins/math/softfloat.c"
#include "../../plugins/math/libm.c"

#include "unit.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- deterministic random numbers (xorshift64*) ------------------------- */
typedef struct Rng {
    uint64_t s;
} Rng;

static uint64_t rng_next(Rng *r) {
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1Dull;
}

static uint32_t f32_bits(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float f32_of(uint32_t u) {
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* Random float bits, biased towards nearby exponents so that sums round. */
static uint32_t random_f32(Rng *r) {
    uint64_t v = rng_next(r);
    if ((v & 7) == 0) return (uint32_t)(v >> 32); /* any pattern: NaN, inf, subnormal */
    uint32_t exp = 100 + (uint32_t)((v >> 8) % 56);
    if ((v & 0x70) == 0) exp = (uint32_t)((v >> 8) % 4); /* subnormal region */
    return (uint32_t)((v >> 63) << 31) | (exp << 23) | (uint32_t)((v >> 20) & 0x7fffff);
}

static bool same_f32(uint64_t got, float want) {
    if (isnan(want)) return sf_is_nan(SF_F32, got);
    return got == f32_bits(want);
}

/* The C library's fminf/fmaxf, called through pointers: clang otherwise
 * inlines them with its own handling of signaling NaNs (returning the other
 * operand), while the plugin folds with the library's (a quiet NaN). */
static float (*volatile lib_fminf)(float, float) = fminf;
static float (*volatile lib_fmaxf)(float, float) = fmaxf;

static void test_f32_arith_vs_native(void) {
    Rng r = {0x1234567887654321ull};
    int bad = 0;
    for (int i = 0; i < 200000; i++) {
        uint32_t a = random_f32(&r), b = random_f32(&r);
        float x = f32_of(a), y = f32_of(b);
        bad += !same_f32(sf_arith(SF_F32, SF_ADD, a, b), x + y);
        bad += !same_f32(sf_arith(SF_F32, SF_SUB, a, b), x - y);
        bad += !same_f32(sf_arith(SF_F32, SF_MUL, a, b), x * y);
        bad += !same_f32(sf_arith(SF_F32, SF_DIV, a, b), x / y);
        bad += !same_f32(sf_arith(SF_F32, SF_REM, a, b), fmodf(x, y));
        bad += !same_f32(sf_sqrt(SF_F32, a), sqrtf(x));
        bad += !same_f32(sf_fmin(SF_F32, a, b), lib_fminf(x, y));
        bad += !same_f32(sf_fmax(SF_F32, a, b), lib_fmaxf(x, y));
        unsigned rel = sf_relation(SF_F32, a, b);
        bad += (rel == SF_REL_U) != (isunordered(x, y) != 0);
        bad += (rel == SF_REL_G) != (x > y);
        bad += (rel == SF_REL_L) != (x < y);
        bad += (rel == SF_REL_E) != (x == y);
    }
    CHECK(bad == 0);
}

static void test_f32_conversions_vs_native(void) {
    Rng r = {42};
    int bad = 0;
    for (int i = 0; i < 100000; i++) {
        uint64_t v = rng_next(&r);
        double d;
        memcpy(&d, &v, sizeof d);
        if (i & 1) d = ldexp((double)(int64_t)v, -(int)(v % 200)); /* in float range */
        bad += !same_f32(sf_from_double(SF_F32, d), (float)d);
        double raw;
        memcpy(&raw, &v, sizeof raw);
        bad += !same_f32(sf_convert(SF_F32, SF_F64, v), (float)raw);
        uint64_t n = v >> (v % 64);
        bad += !same_f32(sf_from_u64(SF_F32, n), (float)n);
        bad += !same_f32(sf_from_i64(SF_F32, (int64_t)n), (float)(int64_t)n);
        bad += !same_f32(sf_from_i64(SF_F32, -(int64_t)(n >> 1)), (float)-(int64_t)(n >> 1));
        /* f32 → f64 is exact */
        uint32_t a = random_f32(&r);
        uint64_t wide = sf_convert(SF_F64, SF_F32, a);
        double want = (double)f32_of(a);
        bad += isnan(want) ? !sf_is_nan(SF_F64, wide) : wide != sf_from_double(SF_F64, want);
        /* truncation to integers */
        float x = f32_of(a);
        uint64_t out = 0;
        bool ok = sf_to_int(SF_F32, a, true, 32, &out);
        bool fits = !isnan(x) && x > -2147483649.0f && x < 2147483648.0f;
        bad += ok != fits;
        if (ok && fits) bad += (uint32_t)out != (uint32_t)(int32_t)x;
        ok = sf_to_int(SF_F32, a, false, 64, &out);
        fits = !isnan(x) && x > -1.0f && x < 18446744073709551616.0f;
        bad += ok != fits;
        if (ok && fits) bad += out != (uint64_t)x;
    }
    CHECK(bad == 0);
}

static void test_f64_rounding_vs_ldexp(void) {
    Rng r = {7};
    int bad = 0;
    for (int i = 0; i < 100000; i++) {
        uint64_t v = rng_next(&r);
        uint64_t m = v >> 11; /* < 2^53: exact as a double */
        int k = (int)(rng_next(&r) % 2300) - 1200; /* overflow, normal and subnormal */
        double want = ldexp((double)m, k);
        bad += sf_round_pack(SF_F64, (v & 1) != 0, m, k) != sf_from_double(SF_F64, (v & 1) ? -want : want);
        uint64_t bits;
        double w = (v & 1) ? -want : want;
        memcpy(&bits, &w, sizeof bits);
        bad += sf_round_pack(SF_F64, (v & 1) != 0, m, k) != bits;
        bad += sf_from_u64(SF_F64, v) != sf_from_double(SF_F64, (double)v);
        bad += sf_from_i64(SF_F64, (int64_t)v) != sf_from_double(SF_F64, (double)(int64_t)v);
    }
    CHECK(bad == 0);
}

/* ---- independent reference for small formats ---------------------------- */
/* All finite non-negative values of a format, increasing, decoded from the
 * definition (not with sf_to_double). Index i is also the bit pattern. */
typedef struct Table {
    SfFormat f;
    size_t n;    /* number of finite non-negative values */
    double *val; /* val[i] = value of bit pattern i */
    double over; /* max + half an ulp: values at or beyond it round to inf */
} Table;

static Table table_new(SfFormat f) {
    Table t = {f, ((size_t)1 << (f.p + f.e)) - ((size_t)1 << f.p), NULL, 0};
    t.val = malloc(t.n * sizeof *t.val);
    int bias = (1 << (f.e - 1)) - 1;
    for (size_t i = 0; i < t.n; i++) {
        size_t ex = i >> f.p, mant = i & (((size_t)1 << f.p) - 1);
        double sig = ex ? (double)(mant + ((size_t)1 << f.p)) : (double)mant;
        t.val[i] = ldexp(sig, (ex ? (int)ex : 1) - bias - (int)f.p);
    }
    t.over = t.val[t.n - 1] + (t.val[t.n - 1] - t.val[t.n - 2]) / 2;
    return t;
}

static uint64_t table_inf(const Table *t) { return (uint64_t)t->n; }

/* Pattern of the non-negative value nearest to X / Y (X ≥ 0 and Y > 0
 * finite, every product val·Y exact in double), ties to even: X is compared
 * with the midpoint of the two neighbours, scaled by Y. */
static uint64_t table_nearest_quot(const Table *t, double X, double Y) {
    if (X >= t->over * Y) return table_inf(t);
    size_t lo = 0, hi = t->n - 1; /* largest i with val[i]·Y ≤ X */
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (t->val[mid] * Y <= X) lo = mid;
        else hi = mid - 1;
    }
    if (lo + 1 == t->n) return lo;
    double mid = (t->val[lo] + t->val[lo + 1]) / 2 * Y; /* exact: 2p + 3 bits */
    if (X < mid || (X == mid && (lo & 1) == 0)) return lo;
    return lo + 1;
}

/* Same for √X: the value c nearest to √X by comparing c² with X; the
 * midpoints m of neighbours decide, and m² is exact for p ≤ 24. */
static uint64_t table_nearest_sqrt(const Table *t, double X) {
    size_t lo = 0, hi = t->n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (t->val[mid] * t->val[mid] <= X) lo = mid;
        else hi = mid - 1;
    }
    if (lo + 1 == t->n) return lo;
    double m = (t->val[lo] + t->val[lo + 1]) / 2;
    if (m * m > X || (m * m == X && (lo & 1) == 0)) return lo;
    return lo + 1;
}

static double table_value(const Table *t, uint64_t bits, bool *neg) {
    uint64_t sign = (uint64_t)1 << (t->f.p + t->f.e);
    *neg = (bits & sign) != 0;
    bits &= sign - 1;
    if (bits < t->n) return t->val[bits];
    return bits == t->n ? INFINITY : NAN;
}

/* Exact x + y in double?  (TwoSum error term is zero.) */
static bool sum_exact(double x, double y) {
    double s = x + y, bb = s - x;
    return (x - (s - bb)) + (y - bb) == 0;
}

/* Reference result of op on two patterns, or false if not determinable. */
static bool reference(const Table *t, SfOp op, uint64_t a, uint64_t b, uint64_t *out) {
    bool na, nb;
    double x = table_value(t, a, &na), y = table_value(t, b, &nb);
    double sx = na ? -x : x, sy = nb ? -y : y;
    uint64_t sign = (uint64_t)1 << (t->f.p + t->f.e);
    double X, Y = 1;
    bool neg;
    if (isnan(x) || isnan(y) || isinf(x) || isinf(y) || x == 0 || y == 0) return false;
    switch (op) {
    case SF_ADD:
    case SF_SUB: {
        double v = op == SF_ADD ? sx + sy : sx - sy;
        if (!sum_exact(sx, op == SF_ADD ? sy : -sy)) return false;
        if (v == 0) {
            *out = 0; /* exact cancellation gives +0 when rounding to nearest */
            return true;
        }
        neg = v < 0;
        X = fabs(v);
        break;
    }
    case SF_MUL:
        neg = na != nb;
        X = x * y; /* exact: at most 2·25 significant bits */
        break;
    case SF_DIV:
        neg = na != nb;
        X = x;
        Y = y;
        break;
    default: return false;
    }
    *out = table_nearest_quot(t, X, Y) | (neg ? sign : 0);
    return true;
}

static void check_against_reference(SfFormat f, uint64_t seed, int rounds) {
    Table t = table_new(f);
    Rng r = {seed};
    unsigned w = sf_width(f);
    int bad = 0, compared = 0;
    for (int i = 0; i < rounds; i++) {
        uint64_t a = rng_next(&r) >> (64 - w), b = rng_next(&r) >> (64 - w);
        if (i & 1) b = (a & ~(uint64_t)0x7ff) | (b & 0x7ff); /* close exponents */
        for (SfOp op = SF_ADD; op <= SF_DIV; op++) {
            uint64_t want;
            if (!reference(&t, op, a, b, &want)) continue;
            compared++;
            if (sf_arith(f, op, a, b) != want) {
                if (bad++ < 5)
                    fprintf(stderr, "(%u,%u) op %d: %#llx %#llx -> %#llx, want %#llx\n", f.p, f.e,
                            (int)op, (unsigned long long)a, (unsigned long long)b,
                            (unsigned long long)sf_arith(f, op, a, b), (unsigned long long)want);
            }
        }
    }
    /* positive values (all of them for 16-bit formats): square root and the
     * round trip through double */
    uint64_t step = t.n > ((size_t)1 << 18) ? 61 : 1;
    for (uint64_t a = 1; a < t.n; a += step) {
        bad += sf_sqrt(f, a) != table_nearest_sqrt(&t, t.val[a]);
        bad += sf_from_double(f, t.val[a]) != a || sf_to_double(f, a) != t.val[a];
    }
    CHECK(compared > rounds);
    CHECK(bad == 0);
    free(t.val);
}

static void test_f16_vs_reference(void) { check_against_reference(SF_F16, 99, 300000); }
static void test_bf16_vs_reference(void) { check_against_reference(SF_BF16, 98, 200000); }
static void test_other_formats_vs_reference(void) {
    check_against_reference((SfFormat){10, 8}, 97, 50000); /* nvtf32 */
    check_against_reference((SfFormat){16, 7}, 96, 50000); /* amdfp24 */
    check_against_reference((SfFormat){15, 8}, 95, 50000); /* pxr24 */
}

/* f16 rounding of arbitrary doubles against the table (all rounding paths). */
static void test_f16_from_double(void) {
    Table t = table_new(SF_F16);
    Rng r = {5};
    int bad = 0;
    for (int i = 0; i < 200000; i++) {
        uint64_t v = rng_next(&r);
        double x = ldexp((double)(v >> 11), -(int)(v % 90) - 20); /* 2^-110 .. 2^33 */
        if (v & 1) { /* exactly between two neighbours, or a neighbour */
            size_t k = (size_t)(v >> 40) % (t.n - 1);
            x = (v & 2) ? (t.val[k] + t.val[k + 1]) / 2 : t.val[k];
        }
        bad += sf_from_double(SF_F16, x) != table_nearest_quot(&t, x, 1);
        bad += sf_from_double(SF_F16, -x) != (table_nearest_quot(&t, x, 1) | 0x8000);
    }
    CHECK(bad == 0);
    free(t.val);
}

/* ---- known answers ------------------------------------------------------ */
static void test_f16_known_answers(void) {
    SfFormat h = SF_F16;
    CHECK(sf_arith(h, SF_ADD, 0x3C00, 0x1000) == 0x3C00); /* 1 + 2^-11: tie → even (1) */
    CHECK(sf_arith(h, SF_ADD, 0x3C00, 0x1600) == 0x3C02); /* 1 + 3·2^-11: tie → 1 + 2^-9 */
    CHECK(sf_arith(h, SF_ADD, 0x3C01, 0x1000) == 0x3C02); /* odd + half ulp → up */
    CHECK(sf_arith(h, SF_MUL, 0x0001, 0x3800) == 0x0000); /* 2^-25: tie → 0 */
    CHECK(sf_arith(h, SF_MUL, 0x0003, 0x3800) == 0x0002); /* 1.5·2^-24 → 2·2^-24 */
    CHECK(sf_arith(h, SF_MUL, 0x8001, 0x3800) == 0x8000); /* underflow keeps the sign */
    CHECK(sf_arith(h, SF_SUB, 0x0400, 0x0001) == 0x03FF); /* min normal − min subnormal */
    CHECK(sf_arith(h, SF_ADD, 0x7BFF, 0x7BFF) == 0x7C00); /* overflow → inf */
    CHECK(sf_arith(h, SF_ADD, 0x7BFF, 0x4C00) == 0x7C00); /* 65504 + 16: tie → inf (even) */
    CHECK(sf_arith(h, SF_ADD, 0x7BFF, 0x4800) == 0x7BFF); /* 65504 + 8 → 65504 */
    CHECK(sf_arith(h, SF_MUL, 0xFBFF, 0x4000) == 0xFC00); /* → −inf */
    CHECK(sf_is_nan(h, sf_arith(h, SF_ADD, 0x7E00, 0x3C00)));
    CHECK(sf_arith(h, SF_ADD, 0x7C01, 0x3C00) == 0x7E01); /* signalling NaN is quieted */
    CHECK(sf_is_nan(h, sf_arith(h, SF_SUB, 0x7C00, 0x7C00))); /* inf − inf */
    CHECK(sf_is_nan(h, sf_arith(h, SF_DIV, 0x0000, 0x0000)));
    CHECK(sf_arith(h, SF_DIV, 0x3C00, 0x0000) == 0x7C00);
    CHECK(sf_arith(h, SF_DIV, 0xBC00, 0x0000) == 0xFC00);
    CHECK(sf_arith(h, SF_DIV, 0x3C00, 0x4200) == 0x3555); /* 1/3 */
    CHECK(sf_arith(h, SF_ADD, 0x8000, 0x8000) == 0x8000); /* −0 + −0 = −0 */
    CHECK(sf_arith(h, SF_ADD, 0x8000, 0x0000) == 0x0000); /* −0 + +0 = +0 */
    CHECK(sf_arith(h, SF_SUB, 0x3C00, 0x3C00) == 0x0000); /* 1 − 1 = +0 */
    CHECK(sf_arith(h, SF_MUL, 0xBC00, 0x0000) == 0x8000); /* −1 · 0 = −0 */
    CHECK(sf_arith(h, SF_REM, 0x4580, 0x4000) == 0x3E00); /* fmod(5.5, 2) = 1.5 */
    CHECK(sf_arith(h, SF_REM, 0xC580, 0x4000) == 0xBE00); /* fmod(−5.5, 2) = −1.5 */
    CHECK(sf_sqrt(h, 0x4000) == 0x3DA8);                  /* √2 */
    CHECK(sf_is_nan(h, sf_sqrt(h, 0xBC00)));
    CHECK(sf_sqrt(h, 0x8000) == 0x8000); /* √−0 = −0 */
    CHECK(sf_relation(h, 0x8000, 0x0000) == SF_REL_E);
    CHECK(sf_relation(h, 0x7E00, 0x7E00) == SF_REL_U);
    CHECK(sf_relation(h, 0xFC00, 0x0001) == SF_REL_L);
    CHECK(sf_fmin(h, 0x7E00, 0x3C00) == 0x3C00);
    CHECK(sf_fmax(h, 0x3C00, 0x7E00) == 0x3C00);
}

static void test_conversions_known_answers(void) {
    SfFormat h = SF_F16;
    CHECK(sf_from_double(h, 1.0 / 3.0) == 0x3555);
    CHECK(sf_convert(h, SF_F32, 0x3EAAAAAB) == 0x3555);
    CHECK(sf_convert(SF_F32, h, 0x3555) == 0x3EAAA000);
    CHECK(sf_convert(h, SF_F64, 0x7FF8000000000001ull) == 0x7E00); /* NaN stays NaN */
    CHECK(sf_convert(h, SF_F64, 0x7FF0000000000001ull) == 0x7E00); /* sNaN: quiet bit set */
    CHECK(sf_convert(h, SF_F64, 0x3E60000000000000ull) == 0x0000); /* 2^-25 → 0 (tie, even) */
    CHECK(sf_convert(h, SF_F64, 0x3E60000000000001ull) == 0x0001); /* just above → 2^-24 */
    CHECK(sf_from_u64(SF_F32, UINT64_MAX) == 0x5F800000);         /* 2^64 */
    CHECK(sf_from_u64(h, 70000) == 0x7C00);
    CHECK(sf_from_u64(h, 65519) == 0x7BFF);
    CHECK(sf_from_u64(h, 65520) == 0x7C00);
    CHECK(sf_from_u64(h, 2049) == 0x6800); /* tie → 2048 */
    CHECK(sf_from_u64(h, 2051) == 0x6802); /* tie → 2052 */
    CHECK(sf_from_i64(h, -2) == 0xC000);
    CHECK(sf_from_i64(h, 0) == 0x0000);
    CHECK(sf_from_i64(SF_F64, INT64_MIN) == 0xC3E0000000000000ull);
    CHECK(sf_from_u64(SF_BF16, 257) == 0x4380); /* 257 → 256 (tie, even) */
    uint64_t out = 0;
    CHECK(sf_to_int(h, 0xBE00, true, 8, &out) && out == 0xFF); /* −1.5 → −1 */
    CHECK(!sf_to_int(h, 0x5CB0, true, 8, &out));               /* 300 */
    CHECK(sf_to_int(h, 0x5CB0, false, 16, &out) && out == 300);
    CHECK(!sf_to_int(h, 0x7E00, true, 32, &out));  /* NaN */
    CHECK(!sf_to_int(h, 0x7C00, false, 64, &out)); /* inf */
    CHECK(sf_to_int(h, 0xB800, false, 8, &out) && out == 0); /* −0.5 → 0 */
    CHECK(!sf_to_int(h, 0xBC00, false, 8, &out));            /* −1 */
    CHECK(sf_to_int(SF_F64, 0xC3E0000000000000ull, true, 64, &out) && out == (uint64_t)1 << 63);
    CHECK(!sf_to_int(SF_F64, 0x43E0000000000000ull, true, 64, &out)); /* 2^63 */
    CHECK(sf_to_int(SF_F64, 0x43E0000000000000ull, false, 64, &out) && out == (uint64_t)1 << 63);
    CHECK(sf_mask(h, 0x3FF0000000000000ull) == 0); /* a double pattern in a 16-bit literal */
}

static void test_format_predicates(void) {
    CHECK(sf_arith_ok(SF_F16) && sf_arith_ok(SF_F32) && sf_arith_ok(SF_F64) && sf_arith_ok(SF_BF16));
    CHECK(!sf_arith_ok((SfFormat){40, 11}) && !sf_arith_ok((SfFormat){23, 9}));
    CHECK(sf_format_ok((SfFormat){40, 11}) && !sf_format_ok((SfFormat){60, 3}));
    CHECK(!sf_format_ok((SfFormat){0, 8}) && !sf_format_ok((SfFormat){10, 1}));
}

int main(void) {
    RUN(test_format_predicates);
    RUN(test_f16_known_answers);
    RUN(test_conversions_known_answers);
    RUN(test_f32_arith_vs_native);
    RUN(test_f32_conversions_vs_native);
    RUN(test_f64_rounding_vs_ldexp);
    RUN(test_f16_from_double);
    RUN(test_f16_vs_reference);
    RUN(test_bf16_vs_reference);
    RUN(test_other_formats_vs_reference);
    return unit_summary();
}
