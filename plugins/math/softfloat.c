/* Exact binary floating-point arithmetic for %math.F (p, e) formats: one
 * integer rounding routine (sf_round_pack) plus exact decoding into double.
 * See softfloat.h for why the double intermediate is exact or innocuous. */
#include "softfloat.h"

#include "libm.h"

#include <assert.h>
#include <math.h>
#include <string.h>

static uint64_t bits_of(double x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static double double_of(uint64_t u) {
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* 2^e for -1074 <= e <= 1023, exactly (libm's ldexp is not linked, libm.h). */
static double pow2(int e) {
    assert(e >= -1074 && e <= 1023);
    return e >= -1022 ? double_of((uint64_t)(e + 1023) << 52) : double_of((uint64_t)1 << (e + 1074));
}

/* x · 2^e where the result is representable (so the product is exact). */
static double scale2(double x, int e) { return x * pow2(e); }

/* C trunc: every double of magnitude 2^52 or more (and ±inf) is integral. */
static double trunc_exact(double x) {
    if (!(fabs(x) < 0x1p52)) return x;
    double t = (double)(int64_t)x;
    return t == 0 ? x * 0.0 : t; /* keeps the sign of a zero */
}

static unsigned bit_length(uint64_t m) {
    unsigned n = 0;
    while (m) {
        n++;
        m >>= 1;
    }
    return n;
}

static uint64_t low_bits(unsigned n) { return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1; }

bool sf_format_ok(SfFormat f) { return f.p >= 1 && f.p <= 52 && f.e >= 2 && f.e <= 11; }

bool sf_arith_ok(SfFormat f) { return sf_is_f64(f) || (f.p >= 1 && f.p <= 24 && f.e >= 2 && f.e <= 8); }

uint64_t sf_mask(SfFormat f, uint64_t bits) { return bits & low_bits(sf_width(f)); }

static int sf_bias(SfFormat f) { return (1 << (f.e - 1)) - 1; }
static uint64_t sf_exp_field(SfFormat f, uint64_t bits) { return (bits >> f.p) & low_bits(f.e); }
static uint64_t sf_frac(SfFormat f, uint64_t bits) { return bits & low_bits(f.p); }
static uint64_t sf_sign_bit(SfFormat f) { return (uint64_t)1 << (f.p + f.e); }
static uint64_t sf_inf(SfFormat f, bool negative) {
    return (negative ? sf_sign_bit(f) : 0) | (low_bits(f.e) << f.p);
}

bool sf_is_nan(SfFormat f, uint64_t bits) {
    bits = sf_mask(f, bits);
    return sf_exp_field(f, bits) == low_bits(f.e) && sf_frac(f, bits) != 0;
}

double sf_to_double(SfFormat f, uint64_t bits) {
    bits = sf_mask(f, bits);
    if (sf_is_f64(f)) return double_of(bits);
    bool negative = (bits & sf_sign_bit(f)) != 0;
    uint64_t ef = sf_exp_field(f, bits), frac = sf_frac(f, bits);
    double x;
    if (ef == low_bits(f.e)) {
        if (frac == 0) {
            x = HUGE_VAL;
        } else { /* keep the payload left-aligned, as hardware conversions do */
            return double_of((negative ? (uint64_t)1 << 63 : 0) | ((uint64_t)0x7ff << 52) |
                             (frac << (52 - f.p)));
        }
    } else if (ef == 0) {
        x = scale2((double)frac, 1 - sf_bias(f) - (int)f.p); /* subnormal or zero */
    } else {
        x = scale2((double)(frac | ((uint64_t)1 << f.p)), (int)ef - sf_bias(f) - (int)f.p);
    }
    return negative ? -x : x;
}

/* m >> shift rounded to nearest, ties to even (shift ≥ 1). */
static uint64_t shift_round_even(uint64_t m, unsigned shift) {
    if (shift > 64) return 0; /* m < 2^64 ≤ half of 2^shift */
    if (shift == 64) return m > ((uint64_t)1 << 63); /* more than half of 2^64 */
    uint64_t q = m >> shift, rest = m & low_bits(shift), half = (uint64_t)1 << (shift - 1);
    if (rest > half || (rest == half && (q & 1))) q++;
    return q;
}

uint64_t sf_round_pack(SfFormat f, bool negative, uint64_t m, int k) {
    uint64_t sign = negative ? sf_sign_bit(f) : 0;
    if (m == 0) return sign;
    int bias = sf_bias(f), emin = 1 - bias, emax = bias;
    int top = k + (int)bit_length(m) - 1; /* floor(log2 |x|) */
    if (top > emax) return sf_inf(f, negative);
    int q = (top >= emin ? top : emin) - (int)f.p; /* exponent of the last mantissa bit */
    uint64_t r;
    if (q <= k) {
        r = m << (k - q); /* exact: bit_length(r) ≤ p + 1 */
    } else {
        r = shift_round_even(m, (unsigned)(q - k));
    }
    if (r >> (f.p + 1)) { /* rounding carried into a new binade: r = 2^(p+1) */
        r >>= 1;
        q++;
    }
    if (r >> f.p) { /* normal */
        int ex = q + (int)f.p;
        if (ex > emax) return sf_inf(f, negative);
        return sign | ((uint64_t)(ex + bias) << f.p) | (r & low_bits(f.p));
    }
    return sign | r; /* subnormal (q = emin - p) or zero */
}

uint64_t sf_from_double(SfFormat f, double x) {
    if (sf_is_f64(f)) return bits_of(x);
    uint64_t u = bits_of(x);
    bool negative = (u >> 63) != 0;
    uint64_t ef = (u >> 52) & 0x7ff, frac = u & low_bits(52);
    if (ef == 0x7ff) {
        if (frac == 0) return sf_inf(f, negative);
        /* quiet NaN: leading payload bits, quiet bit (top mantissa bit) set */
        uint64_t payload = (frac >> (52 - f.p)) | ((uint64_t)1 << (f.p - 1));
        return sf_inf(f, negative) | payload;
    }
    if (ef == 0) return sf_round_pack(f, negative, frac, -1074);
    return sf_round_pack(f, negative, frac | ((uint64_t)1 << 52), (int)ef - 1075);
}

uint64_t sf_from_u64(SfFormat f, uint64_t v) { return sf_round_pack(f, false, v, 0); }

uint64_t sf_from_i64(SfFormat f, int64_t v) {
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    return sf_round_pack(f, v < 0, mag, 0);
}

bool sf_to_int(SfFormat f, uint64_t bits, bool is_signed, unsigned width, uint64_t *out) {
    if (width < 1 || width > 64 || !sf_format_ok(f)) return false;
    double x = sf_to_double(f, bits);
    if (isnan(x)) return false;
    double t = trunc_exact(x);
    /* Bounds are powers of two, hence exact doubles. */
    if (is_signed) {
        double lim = pow2((int)width - 1);
        if (!(t >= -lim && t < lim)) return false;
        uint64_t mag = (uint64_t)fabs(t); /* ≤ 2^63 */
        *out = (t < 0 ? (uint64_t)0 - mag : mag) & low_bits(width); /* two's complement */
    } else {
        if (!(t > -1.0 && t < pow2((int)width))) return false;
        *out = (uint64_t)(t < 0 ? 0 : t);
    }
    return true;
}

uint64_t sf_arith(SfFormat f, SfOp op, uint64_t a, uint64_t b) {
    double x = sf_to_double(f, a), y = sf_to_double(f, b), r = 0;
    switch (op) {
    case SF_ADD: r = x + y; break;
    case SF_SUB: r = x - y; break;
    case SF_MUL: r = x * y; break;
    case SF_DIV: r = x / y; break;
    case SF_REM: r = math_libm()->fmod_d(x, y); break;
    }
    return sf_from_double(f, r);
}

uint64_t sf_sqrt(SfFormat f, uint64_t a) {
    return sf_from_double(f, math_libm()->d[MATH_sqrt](sf_to_double(f, a)));
}

uint64_t sf_convert(SfFormat to, SfFormat from, uint64_t bits) {
    return sf_from_double(to, sf_to_double(from, bits));
}

unsigned sf_relation(SfFormat f, uint64_t a, uint64_t b) {
    double x = sf_to_double(f, a), y = sf_to_double(f, b);
    if (isunordered(x, y)) return SF_REL_U;
    if (x > y) return SF_REL_G;
    if (x < y) return SF_REL_L;
    return SF_REL_E;
}

uint64_t sf_fmin(SfFormat f, uint64_t a, uint64_t b) {
    return sf_from_double(f, math_libm()->fmin_d(sf_to_double(f, a), sf_to_double(f, b)));
}

uint64_t sf_fmax(SfFormat f, uint64_t a, uint64_t b) {
    return sf_from_double(f, math_libm()->fmax_d(sf_to_double(f, a), sf_to_double(f, b)));
}
