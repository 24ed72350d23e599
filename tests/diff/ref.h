/* Reference semantics of the %core and %math operations for the
 * differential tests (tests/diff/gen.py), written from the plugin
 * specifications (spec plugins/core.md §4.1, §5; math.md §4), independent of
 * the compiler's folding code. A value is its bit pattern (Idx s: a number
 * below s; F32/F64: the IEEE pattern) and a flag `p` = "not determined":
 * poison (a nuw/nsw overflow, an out-of-range float-to-int conversion) or a
 * value the specifications leave open (the sign of a zero from min/max, the
 * payload of a NaN made visible by a bit cast). Outputs with p set are not
 * compared; an operation that would be undefined behaviour (a branch or an
 * address from such a value) sets the run's `ub` flag and nothing is
 * compared.
 *
 * Integers (core.md §4.1): w = bit width of s (64 for s = 0, i.e. 2^64). For
 * w in {1, 8, 16, 32, 64} ("standard") an operation computes in w bits (two's
 * complement; signed view by sign extension, so a 1-bit tt is -1) and the
 * result is reduced modulo s (a no-op unless s is no power of two, e.g.
 * Idx 200). Any other width computes on 64-bit values (which are below s, so
 * never negative: signed operations are the unsigned ones) and reduces the
 * result modulo s. Bitwise operations compute on the 64-bit patterns and
 * reduce modulo s (§5.4, §5.5). */
#ifndef MIM_DIFF_REF_H
#define MIM_DIFF_REF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct V {
    uint64_t v;
    int p;
} V;

typedef struct R {
    int ub;
} R;

static inline unsigned r_width(uint64_t s) {
    if (s == 0) return 64;
    unsigned w = 0;
    for (uint64_t m = s - 1; m; m >>= 1) ++w;
    return w;
}
static inline int r_std(uint64_t s) {
    unsigned w = r_width(s);
    return w == 1 || w == 8 || w == 16 || w == 32 || w == 64;
}
static inline uint64_t r_mask(unsigned w) { return w >= 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1; }
static inline uint64_t r_mod(uint64_t v, uint64_t s) { return s ? v % s : v; }
/* The result of a w-bit (standard) or 64-bit computation as an Idx s. */
static inline uint64_t r_fin(uint64_t r, uint64_t s) {
    if (r_std(s)) r &= r_mask(r_width(s));
    return r_mod(r, s);
}
/* Signed view as a 64-bit pattern. */
static inline uint64_t r_sv(uint64_t v, uint64_t s) {
    unsigned w = r_width(s);
    if (!r_std(s) || w >= 64) return v;
    return (v >> (w - 1)) & 1 ? v | ~r_mask(w) : v;
}
static inline int r_neg(uint64_t v, uint64_t s) { return r_std(s) && (r_sv(v, s) >> 63); }

static inline V mk(uint64_t v, int p) {
    V r = {v, p};
    return r;
}
static inline V lit(uint64_t v) { return mk(v, 0); }

/* Does a w-bit operation overflow for LLVM's nuw/nsw flags? Checked both at
 * the width of the LLVM type (width(s)) and at 64 bits (the non-standard
 * widths compute in i64): conservative, an output is only skipped. */
static inline int r_ovf_w(int sub, unsigned w, uint64_t a, uint64_t b, int nsw, int nuw) {
    uint64_t m = r_mask(w);
    a &= m;
    b &= m;
    if (w == 0) return 0;
    /* exact results in 128 bits */
    unsigned __int128 ua = a, ub = b, ur;
    __int128 sa = (__int128)(int64_t)(w == 64 ? a : ((a >> (w - 1)) & 1 ? a | ~m : a));
    __int128 sb = (__int128)(int64_t)(w == 64 ? b : ((b >> (w - 1)) & 1 ? b | ~m : b));
    __int128 sr, smin = -((__int128)1 << (w - 1)), smax = ((__int128)1 << (w - 1)) - 1;
    unsigned __int128 umax = m;
    switch (sub) {
    case 0: ur = ua + ub; sr = sa + sb; break;
    case 1: ur = ua - ub; sr = sa - sb; if (nuw && ua < ub) return 1; break;
    case 2: ur = ua * ub; sr = sa * sb; break;
    default: /* shl by b < w */
        if (b >= w) return 1;
        ur = ua << b;
        sr = sa * ((__int128)1 << b);
        break;
    }
    if (nuw && sub != 1 && ur > umax) return 1;
    if (nsw && (sr < smin || sr > smax)) return 1;
    return 0;
}

/* %core.wrap.{add,sub,mul,shl} m (a, b) in Idx s. */
static inline V r_wrap(int sub, uint64_t s, unsigned mode, V a, V b) {
    uint64_t x;
    int p = a.p | b.p;
    switch (sub) {
    case 0: x = a.v + b.v; break;
    case 1: x = a.v - b.v; break;
    case 2: x = a.v * b.v; break;
    default:
        if (b.v >= (r_std(s) ? r_width(s) : 64)) return mk(0, 1);
        x = a.v << b.v;
        break;
    }
    if (mode) {
        int nsw = mode & 1, nuw = (mode >> 1) & 1;
        unsigned w = r_width(s);
        if (r_std(s)) p |= r_ovf_w(sub, w, a.v, b.v, nsw, nuw);
        else p |= r_ovf_w(sub, w, a.v, b.v, nsw, nuw) | r_ovf_w(sub, 64, a.v, b.v, nsw, nuw);
    }
    return mk(r_fin(x, s), p);
}

/* %core.shr.{a,l} (a, b): b below the width (guarded by the generator). */
static inline V r_shr(int arith, uint64_t s, V a, V b) {
    unsigned w = r_std(s) ? r_width(s) : 64;
    if (b.v >= w) return mk(0, 1);
    if (arith && r_neg(a.v, s)) return mk(r_fin(~(~r_sv(a.v, s) >> b.v), s), a.p | b.p);
    return mk(r_fin(a.v >> b.v, s), a.p | b.p);
}

static inline V r_bit1(int sub, uint64_t s, V a) {
    switch (sub) {
    case 0: return lit(0);
    case 1: return mk(r_mod(~a.v, s), a.p);
    case 2: return a;
    default: return lit(s - 1);
    }
}

/* Truth table: bit 2·A + B of sub is the result for bits A (a) and B (b). */
static inline V r_bit2(int sub, uint64_t s, V a, V b) {
    uint64_t r = 0;
    if (sub == 15) return lit(s - 1); /* t: the largest value, as bit1.t */
    if ((sub >> 0) & 1) r |= ~a.v & ~b.v;
    if ((sub >> 1) & 1) r |= ~a.v & b.v;
    if ((sub >> 2) & 1) r |= a.v & ~b.v;
    if ((sub >> 3) & 1) r |= a.v & b.v;
    return mk(r_mod(r, s), a.p | b.p);
}

/* Relation bits X(16) Y(8) G(4) L(2) E(1) (core.md §5.9). */
static inline unsigned r_rel(uint64_t s, uint64_t a, uint64_t b) {
    int sa = r_neg(a, s), sb = r_neg(b, s);
    if (!sa && sb) return 16;
    if (sa && !sb) return 8;
    return a > b ? 4 : a < b ? 2 : 1;
}
static inline V r_icmp(unsigned sub, uint64_t s, V a, V b) { return mk((sub & r_rel(s, a.v, b.v)) != 0, a.p | b.p); }

static inline V r_extrema(int sub, uint64_t s, V a, V b) {
    int max = sub & 1, sgn = sub & 2;
    int less = sgn ? (int64_t)r_sv(a.v, s) < (int64_t)r_sv(b.v, s) : a.v < b.v;
    return mk(less != max ? a.v : b.v, a.p | b.p);
}

/* %core.div: b != 0 and no signed overflow (the generator guards both). */
static inline V r_div(R *r, int sub, uint64_t s, V a, V b) {
    if (b.p) r->ub = 1;
    if (b.v == 0) {
        r->ub = 1;
        return mk(0, 1);
    }
    int sgn = (sub == 0 || sub == 2) && r_std(s), rem = sub >= 2;
    if (!sgn) return mk(r_fin(rem ? a.v % b.v : a.v / b.v, s), a.p | b.p);
    int64_t x = (int64_t)r_sv(a.v, s), y = (int64_t)r_sv(b.v, s);
    unsigned w = r_width(s);
    int64_t mn = w == 64 ? INT64_MIN : -(INT64_C(1) << (w - 1));
    if (x == mn && y == -1) {
        r->ub = 1;
        return mk(0, 1);
    }
    return mk(r_fin((uint64_t)(rem ? x % y : x / y), s), a.p | b.p);
}

static inline V r_abs(uint64_t s, V a) {
    if (!r_neg(a.v, s)) return a;
    return mk(r_fin(0 - r_sv(a.v, s), s), a.p); /* |MIN| = MIN (llvm.abs without poison) */
}

/* %core.conv.u ds a, %core.conv.s ds a (a : Idx ss). conv.s to a narrower
 * size is conv.u (§5.12 step 3); otherwise the signed view of a is computed
 * at the destination (w bits, or 64 for other widths) and reduced mod ds. */
static inline V r_convu(uint64_t ds, V a) { return mk(r_mod(a.v, ds), a.p); }
static inline V r_convs(uint64_t ss, uint64_t ds, V a) {
    if (ds == ss) return a;
    if (ds != 0 && (ss == 0 || ds < ss)) return r_convu(ds, a);
    return mk(r_fin(r_sv(a.v, ss), ds), a.p);
}

/* Selection (x0, …, x(n-1))#i: the index must be determined. */
static inline V r_sel(R *r, V i, const V *xs) {
    if (i.p) r->ub = 1;
    return xs[i.v];
}

/* %core.idx s m n (core.md §5.3): n mod s with mode 0, ⊥ for n ≥ s else. */
static inline V r_idx(uint64_t s, unsigned mode, V n) {
    if (mode && s && n.v >= s) return mk(0, 1);
    return mk(r_mod(n.v, s), n.p);
}

/* Nat operations (Nat is 64 bits at run time). */
static inline V r_nat(int sub, V a, V b) {
    uint64_t x = sub == 0 ? a.v + b.v : sub == 1 ? (a.v >= b.v ? a.v - b.v : 0) : a.v * b.v;
    return mk(x, a.p | b.p);
}
static inline V r_ncmp(unsigned sub, V a, V b) {
    unsigned rel = a.v > b.v ? 4 : a.v < b.v ? 2 : 1;
    return mk((sub & rel) != 0, a.p | b.p);
}

/* Floats: F64 values hold the double's pattern, F32 the float's in the low
 * 32 bits. */
static inline double gd(V a) {
    double d;
    memcpy(&d, &a.v, 8);
    return d;
}
static inline float gf(V a) {
    uint32_t u = (uint32_t)a.v;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline V pd(double d, int p) {
    V r = {0, p};
    memcpy(&r.v, &d, 8);
    return r;
}
static inline V pf(float f, int p) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return mk(u, p);
}

/* A float from input bits. A signaling NaN is left open: LLVM does not
 * keep IEEE's signaling semantics (it folds fptrunc(fpext x) to x, so an
 * sNaN reaches pow(x, 0), which is 1 for a quiet NaN and NaN for an sNaN). */
static inline V r_fin64(uint64_t bits) {
    int snan = ((bits >> 52) & 0x7FF) == 0x7FF && (bits & UINT64_C(0xFFFFFFFFFFFFF)) && !((bits >> 51) & 1);
    return mk(bits, snan);
}
static inline V r_fin32(uint64_t bits) {
    bits &= 0xFFFFFFFFu;
    int snan = ((bits >> 23) & 0xFF) == 0xFF && (bits & 0x7FFFFF) && !((bits >> 22) & 1);
    return mk(bits, snan);
}

/* %math.arith: 0 add, 1 sub, 2 mul, 3 div, 4 rem. */
static inline V r_arith64(int sub, V a, V b) {
    double x = gd(a), y = gd(b), r;
    switch (sub) {
    case 0: r = x + y; break;
    case 1: r = x - y; break;
    case 2: r = x * y; break;
    case 3: r = x / y; break;
    default: r = fmod(x, y); break;
    }
    return pd(r, a.p | b.p);
}
static inline V r_arith32(int sub, V a, V b) {
    float x = gf(a), y = gf(b), r;
    switch (sub) {
    case 0: r = x + y; break;
    case 1: r = x - y; break;
    case 2: r = x * y; break;
    case 3: r = x / y; break;
    default: r = fmodf(x, y); break;
    }
    return pf(r, a.p | b.p);
}

/* %math.extrema: 0 fmin, 1 fmax (NaN ignored), 2 ieee754min, 3 ieee754max
 * (NaN wins). The sign of a zero from two zeros is left open. */
static inline V r_fext64(int sub, V a, V b) {
    double x = gd(a), y = gd(b), r;
    int p = a.p | b.p;
    if (x == 0 && y == 0) p |= signbit(x) != signbit(y);
    if (sub >= 2 && (isnan(x) || isnan(y))) r = NAN;
    else r = (sub & 1) ? fmax(x, y) : fmin(x, y);
    return pd(r, p);
}
static inline V r_fext32(int sub, V a, V b) {
    float x = gf(a), y = gf(b), r;
    int p = a.p | b.p;
    if (x == 0 && y == 0) p |= signbit(x) != signbit(y);
    if (sub >= 2 && (isnan(x) || isnan(y))) r = NAN;
    else r = (sub & 1) ? fmaxf(x, y) : fminf(x, y);
    return pf(r, p);
}

/* With the nsz flag (mode 4) the sign of a zero result is left open. */
static inline V r_nsz64(unsigned mode, V r) { return mk(r.v, r.p | ((mode & 4) && gd(r) == 0)); }
static inline V r_nsz32(unsigned mode, V r) { return mk(r.v, r.p | ((mode & 4) && gf(r) == 0)); }

static inline V r_pow64(V a, V b) { return pd(pow(gd(a), gd(b)), a.p | b.p); }
static inline V r_pow32(V a, V b) { return pf(powf(gf(a), gf(b)), a.p | b.p); }

/* Unary functions, numbered by the generator's table (gen.py UNARY). */
static inline V r_un64(int k, V a) {
    double x = gd(a), r;
    switch (k) {
    case 0: r = sin(x); break;
    case 1: r = cos(x); break;
    case 2: r = tan(x); break;
    case 3: r = sinh(x); break;
    case 4: r = cosh(x); break;
    case 5: r = tanh(x); break;
    case 6: r = asin(x); break;
    case 7: r = acos(x); break;
    case 8: r = atan(x); break;
    case 9: r = asinh(x); break;
    case 10: r = acosh(x); break;
    case 11: r = atanh(x); break;
    case 12: r = sqrt(x); break;
    case 13: r = cbrt(x); break;
    case 14: r = exp(x); break;
    case 15: r = exp2(x); break;
    case 16: r = pow(10, x); break;
    case 17: r = log(x); break;
    case 18: r = log2(x); break;
    case 19: r = log10(x); break;
    case 20: r = erf(x); break;
    case 21: r = erfc(x); break;
    case 22: r = tgamma(x); break;
    case 23: r = lgamma(x); break;
    case 24: r = fabs(x); break;
    case 25: r = floor(x); break;
    case 26: r = ceil(x); break;
    case 27: r = round(x); break;
    default: r = trunc(x); break;
    }
    return pd(r, a.p);
}
static inline V r_un32(int k, V a) {
    float x = gf(a), r;
    switch (k) {
    case 0: r = sinf(x); break;
    case 1: r = cosf(x); break;
    case 2: r = tanf(x); break;
    case 3: r = sinhf(x); break;
    case 4: r = coshf(x); break;
    case 5: r = tanhf(x); break;
    case 6: r = asinf(x); break;
    case 7: r = acosf(x); break;
    case 8: r = atanf(x); break;
    case 9: r = asinhf(x); break;
    case 10: r = acoshf(x); break;
    case 11: r = atanhf(x); break;
    case 12: r = sqrtf(x); break;
    case 13: r = cbrtf(x); break;
    case 14: r = expf(x); break;
    case 15: r = exp2f(x); break;
    case 16: r = powf(10, x); break;
    case 17: r = logf(x); break;
    case 18: r = log2f(x); break;
    case 19: r = log10f(x); break;
    case 20: r = erff(x); break;
    case 21: r = erfcf(x); break;
    case 22: r = tgammaf(x); break;
    case 23: r = lgammaf(x); break;
    case 24: r = fabsf(x); break;
    case 25: r = floorf(x); break;
    case 26: r = ceilf(x); break;
    case 27: r = roundf(x); break;
    default: r = truncf(x); break;
    }
    return pf(r, a.p);
}

/* The Mim-defined helpers of math.md §2: 0 minus (0 − x), 1 sgn (−1, 0, 1
 * by x ≥ 0 and x > 0), 2 rrt (1/√x), 3 slf (1/(1 + e^(0 − x))). */
static inline V r_mhelp64(int k, V a) {
    double x = gd(a), r;
    switch (k) {
    case 0: r = 0.0 - x; break;
    case 1: r = x >= 0 ? (x > 0 ? 1.0 : 0.0) : -1.0; break;
    case 2: r = 1.0 / sqrt(x); break;
    default: r = 1.0 / (1.0 + exp(0.0 - x)); break;
    }
    return pd(r, a.p);
}
static inline V r_mhelp32(int k, V a) {
    float x = gf(a), r;
    switch (k) {
    case 0: r = 0.0f - x; break;
    case 1: r = x >= 0 ? (x > 0 ? 1.0f : 0.0f) : -1.0f; break;
    case 2: r = 1.0f / sqrtf(x); break;
    default: r = 1.0f / (1.0f + expf(0.0f - x)); break;
    }
    return pf(r, a.p);
}

/* %math.cmp: U(8) G(4) L(2) E(1). */
static inline V r_fcmp(unsigned sub, double x, double y, int p) {
    unsigned rel = isnan(x) || isnan(y) ? 8 : x > y ? 4 : x < y ? 2 : 1;
    return mk((sub & rel) != 0, p);
}
static inline V r_fcmp64(unsigned sub, V a, V b) { return r_fcmp(sub, gd(a), gd(b), a.p | b.p); }
static inline V r_fcmp32(unsigned sub, V a, V b) { return r_fcmp(sub, gf(a), gf(b), a.p | b.p); }

/* Conversions. s2f reads the signed view of the Idx. */
static inline V r_i2f(int sgn, uint64_t ss, int bits, V a) {
    if (bits == 64) return pd(sgn ? (double)(int64_t)r_sv(a.v, ss) : (double)a.v, a.p);
    return pf(sgn ? (float)(int64_t)r_sv(a.v, ss) : (float)a.v, a.p);
}
/* f2s/f2u to a power-of-two size (w bits): poison outside the range. An
 * out-of-range conversion to i1 ends the comparison of the run: LLVM 14's
 * x86 code at -O0 leaves the converted integer (e.g. 2) in the i1 register,
 * and it leaks through a `select` that does not choose it (tests/diff/README.md). */
static inline V r_f2i(R *r, int sgn, uint64_t ds, double x, int p) {
    unsigned w = r_width(ds);
    double t = trunc(x);
    int out;
    if (isnan(x)) out = 1;
    else if (sgn) out = !(t >= -ldexp(1, (int)w - 1) && t < ldexp(1, (int)w - 1));
    else out = !(t >= 0 && t < ldexp(1, (int)w));
    if (out) {
        if (w == 1) r->ub = 1;
        return mk(0, 1);
    }
    return sgn ? mk((uint64_t)(int64_t)t & r_mask(w), p) : mk((uint64_t)t, p);
}
static inline V r_f2f(int to_bits, V a) { return to_bits == 64 ? pd((double)gf(a), a.p) : pf((float)gd(a), a.p); }
/* A bit cast of a float shows a NaN's payload, which is left open. */
static inline V r_f2bits(int bits, V a) { return mk(a.v, a.p | (bits == 64 ? isnan(gd(a)) : isnan(gf(a)))); }

#endif
