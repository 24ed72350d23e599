/* Derivatives of the %math axioms (and of %core.wrap.sub, which the
 * specification's interface lacks) for autodiff_eval (docs/autodiff.md,
 * "Floats"): for a fully applied call `%math.op pe m x` the tangent of x
 * that an output tangent s contributes, built as %math calls in the same
 * format pe and fast-math mode m. Constants are literals of the format
 * (small integers) or %math calls of them that the math normalizers fold
 * (ln 2 = log 2, π = acos -1), so no double has to be rounded here. */
#include "autodiff.h"
#include "mim/plugin/math.h"

#include <string.h>

typedef struct Fm {
    MimWorld *w;
    MimDef *pe; /* the format (p, e) */
    MimDef *m;  /* the fast-math mode */
    MimDef *T;  /* %math.F pe */
} Fm;

static MimDef *op(Fm *f, uint64_t id, MimDef *x) {
    MimDef *c = mim_app(f->w, mim_world_annex(f->w, id), f->pe);
    c = mim_app(f->w, c, f->m);
    return mim_app(f->w, c, x);
}

static MimDef *op2(Fm *f, uint64_t id, MimDef *a, MimDef *b) { return op(f, id, mim_pair(f->w, a, b)); }
static MimDef *mul(Fm *f, MimDef *a, MimDef *b) { return op2(f, MIM_math_arith_mul, a, b); }
static MimDef *dvd(Fm *f, MimDef *a, MimDef *b) { return op2(f, MIM_math_arith_div, a, b); }
static MimDef *add(Fm *f, MimDef *a, MimDef *b) { return op2(f, MIM_math_arith_add, a, b); }
static MimDef *sub(Fm *f, MimDef *a, MimDef *b) { return op2(f, MIM_math_arith_sub, a, b); }

/* The small integer n in format pe (0 as −0.0: −0 − s is exactly −s, and
 * −0 + s is s): a literal if pe is a literal format, else
 * `%math.conv.f2f` of the F64 literal. */
static MimDef *num(Fm *f, int n) {
    MimWorld *w = f->w;
    MimDef *pe = mim_resolve(w, f->pe);
    uint64_t p, e;
    if (mim_def_node(pe) == MIM_TUPLE && mim_def_num_ops(pe) == 2 && mim_def_lit(mim_def_op(pe, 0), &p) &&
        mim_def_lit(mim_def_op(pe, 1), &e) && p >= 4 && p < 64 && e >= 3 && p + e < 64) {
        uint64_t mag = (uint64_t)(n < 0 ? -n : n), bits = 0;
        if (mag) {
            unsigned k = 0;
            while ((mag >> (k + 1)) != 0) ++k; /* mag = 2^k · 1.frac, |n| ≤ 10 here */
            uint64_t frac = (mag - ((uint64_t)1 << k)) << (p - k);
            bits = ((k + (((uint64_t)1 << (e - 1)) - 1)) << p) | frac;
        }
        if (n <= 0) bits |= (uint64_t)1 << (p + e);
        return mim_lit(w, f->T, bits);
    }
    double d = n ? (double)n : -0.0;
    uint64_t dbits;
    memcpy(&dbits, &d, sizeof dbits);
    MimDef *f64 = mim_world_annex(w, MIM_math_F64);
    MimDef *lit = mim_lit(w, f64, dbits);
    MimDef *conv = mim_app(w, mim_world_annex(w, MIM_math_conv_f2f), mim_app_arg(f64));
    conv = mim_app(w, conv, f->pe);
    return mim_app(w, conv, lit);
}

static MimDef *neg(Fm *f, MimDef *a) { return sub(f, num(f, 0), a); }
static MimDef *sq(Fm *f, MimDef *a) { return mul(f, a, a); }

/* (no, yes)#cond */
static MimDef *choose(Fm *f, MimDef *cond, MimDef *yes, MimDef *no) {
    return mim_extract(f->w, mim_pair(f->w, no, yes), cond);
}

static MimDef *less(Fm *f, MimDef *a, MimDef *b) {
    MimDef *c = mim_app(f->w, mim_world_annex(f->w, MIM_math_cmp_l), f->pe);
    c = mim_app(f->w, c, f->m);
    return mim_app(f->w, c, mim_pair(f->w, a, b));
}

static MimDef *sqrt_of(Fm *f, MimDef *a) { return op(f, MIM_math_rt_sq, a); }

AdMathKind autodiff_math_kind(MimDef *app) {
    MimDef *ax = mim_app_axiom(app);
    uint64_t id = ax ? mim_axiom_id(ax) : 0;
    /* a partial application (an operation passed as a value) has no rule */
    if (!ax || !mim_match_annex(app, mim_annex_base(id))) return AD_MATH_NONE;
    if (id == MIM_core_wrap_sub || id == MIM_core_wrap_shl) return AD_MATH_TANGENT;
    switch (mim_annex_base(id)) {
    /* integer operations without a derivative (comparisons, bit operations,
     * division): piecewise constant, a zero pullback */
    case MIM_core_icmp:
    case MIM_core_bit1:
    case MIM_core_bit2:
    case MIM_core_shr:
    case MIM_core_div: return AD_MATH_ZERO;
    case MIM_core_conv: return AD_MATH_TANGENT;
    default: break;
    }
    if (mim_annex_plugin(id) != MIM_math_ID) return AD_MATH_NONE;
    switch (mim_annex_base(id)) {
    case MIM_math_arith:
    case MIM_math_extrema:
    case MIM_math_pow:
    case MIM_math_rt:
    case MIM_math_abs: return AD_MATH_TANGENT;
    case MIM_math_tri: return (mim_annex_sub(id) & 3) == 3 ? AD_MATH_NOT : AD_MATH_TANGENT;
    case MIM_math_exp: return (mim_annex_sub(id) & 3) == 3 ? AD_MATH_NOT : AD_MATH_TANGENT;
    case MIM_math_er: return AD_MATH_TANGENT;
    case MIM_math_round:
    case MIM_math_cmp: return AD_MATH_ZERO;
    case MIM_math_conv: return id == MIM_math_conv_f2f ? AD_MATH_TANGENT : AD_MATH_ZERO;
    default: return AD_MATH_NOT;
    }
}

/* 1/d, 1 − a, a + 1 and c·a for an integer c: the constant is built in a
 * statement of its own (gids must not depend on C's evaluation order). */
static MimDef *recip(Fm *f, MimDef *d) {
    MimDef *one = num(f, 1);
    return dvd(f, one, d);
}
static MimDef *one_minus(Fm *f, MimDef *a) {
    MimDef *one = num(f, 1);
    return sub(f, one, a);
}
static MimDef *plus_one(Fm *f, MimDef *a) {
    MimDef *one = num(f, 1);
    return add(f, a, one);
}
static MimDef *times(Fm *f, int c, MimDef *a) {
    MimDef *k = num(f, c);
    return mul(f, k, a);
}
static MimDef *ln(Fm *f, int n) { return op(f, MIM_math_exp_log, num(f, n)); }

/* d/dx of the unary op id at x with result r (a factor of s). */
static MimDef *unary_factor(Fm *f, uint64_t id, MimDef *x, MimDef *r) {
    MimDef *t;
    switch (id) {
    case MIM_math_rt_sq: return recip(f, times(f, 2, r));
    case MIM_math_rt_cb: return recip(f, times(f, 3, sq(f, r)));
    case MIM_math_exp_exp: return r;
    case MIM_math_exp_exp2: return mul(f, r, ln(f, 2));
    case MIM_math_exp_exp10: return mul(f, r, ln(f, 10));
    case MIM_math_exp_log: return recip(f, x);
    case MIM_math_exp_log2: return recip(f, mul(f, x, ln(f, 2)));
    case MIM_math_exp_log10: return recip(f, mul(f, x, ln(f, 10)));
    case MIM_math_tri_sin: return op(f, MIM_math_tri_cos, x);
    case MIM_math_tri_cos: return neg(f, op(f, MIM_math_tri_sin, x));
    case MIM_math_tri_tan: return plus_one(f, sq(f, r));
    case MIM_math_tri_sinh: return op(f, MIM_math_tri_cosh, x);
    case MIM_math_tri_cosh: return op(f, MIM_math_tri_sinh, x);
    case MIM_math_tri_tanh: return one_minus(f, sq(f, r));
    case MIM_math_tri_asin: return recip(f, sqrt_of(f, one_minus(f, sq(f, x))));
    case MIM_math_tri_acos: return neg(f, recip(f, sqrt_of(f, one_minus(f, sq(f, x)))));
    case MIM_math_tri_atan: return recip(f, plus_one(f, sq(f, x)));
    case MIM_math_tri_asinh: return recip(f, sqrt_of(f, plus_one(f, sq(f, x))));
    case MIM_math_tri_acosh:
        t = sq(f, x);
        return recip(f, sqrt_of(f, sub(f, t, num(f, 1))));
    case MIM_math_tri_atanh: return recip(f, one_minus(f, sq(f, x)));
    case MIM_math_er_f:
    case MIM_math_er_fc: {
        /* ±2/√π · e^(−x²), π = acos −1 */
        MimDef *pi = op(f, MIM_math_tri_acos, num(f, -1));
        MimDef *two = num(f, id == MIM_math_er_f ? 2 : -2);
        MimDef *c = dvd(f, two, sqrt_of(f, pi));
        return mul(f, c, op(f, MIM_math_exp_exp, neg(f, sq(f, x))));
    }
    case MIM_math_abs: {
        /* sign x (0 at 0, a subgradient) */
        MimDef *zero = num(f, 0), *one = num(f, 1), *minus_one = num(f, -1);
        MimDef *pos = choose(f, less(f, zero, x), one, zero);
        return choose(f, less(f, x, zero), minus_one, pos);
    }
    default: return NULL;
    }
}

/* %core.wrap.sub s m (a, b): (t, 0 − t), wrapping (mode 0) */
static MimDef *wrap_sub_tangent(MimWorld *w, MimDef *app, MimDef *t) {
    MimDef *T = mim_def_type(app);
    MimDef *zero = mim_lit(w, T, 0);
    MimDef *c = mim_app(w, mim_world_annex(w, MIM_core_wrap_sub), mim_app_nth_arg(app, 0));
    c = mim_app(w, c, mim_lit_nat(w, 0));
    MimDef *neg = mim_app(w, c, mim_pair(w, zero, t));
    return mim_pair(w, t, neg);
}

/* %core.wrap.shl s m (a, b) = a·2^b: (t << b, 0) */
static MimDef *wrap_shl_tangent(MimWorld *w, MimDef *app, MimDef *x, MimDef *t) {
    MimDef *T = mim_def_type(app);
    MimDef *c = mim_app(w, mim_world_annex(w, MIM_core_wrap_shl), mim_app_nth_arg(app, 0));
    c = mim_app(w, c, mim_lit_nat(w, 0));
    MimDef *b = mim_proj(w, x, 2, 1);
    MimDef *da = mim_app(w, c, mim_pair(w, t, b));
    MimDef *zero = mim_lit(w, T, 0);
    return mim_pair(w, da, zero);
}

/* %core.conv.{s,u} ss ds a: the tangent converted back, conv ds ss t */
static MimDef *conv_tangent(MimWorld *w, MimDef *app, uint64_t id, MimDef *t) {
    MimDef *c = mim_app(w, mim_world_annex(w, id), mim_app_nth_arg(app, 1));
    c = mim_app(w, c, mim_app_nth_arg(app, 0));
    return mim_app(w, c, t);
}

MimDef *autodiff_math_tangent(MimWorld *w, MimDef *app, MimDef *x, MimDef *r, MimDef *s) {
    MimDef *ax = mim_app_axiom(app);
    uint64_t id = mim_axiom_id(ax);
    if (id == MIM_core_wrap_sub) return wrap_sub_tangent(w, app, s);
    if (id == MIM_core_wrap_shl) return wrap_shl_tangent(w, app, x, s);
    if (mim_annex_base(id) == MIM_core_conv) return conv_tangent(w, app, id, s);
    MimDef *callee = mim_app_callee(app);
    Fm f = {.w = w, .m = mim_app_arg(callee), .T = mim_def_type(app)};
    if (id == MIM_math_conv_f2f) {
        /* back to the source format spe: %math.conv.f2f dpe spe s */
        MimDef *spe = mim_app_nth_arg(app, 0), *dpe = mim_app_nth_arg(app, 1);
        MimDef *c = mim_app(w, mim_world_annex(w, MIM_math_conv_f2f), dpe);
        c = mim_app(w, c, spe);
        return mim_app(w, c, s);
    }
    f.pe = mim_app_arg(mim_app_callee(callee));
    uint64_t base = mim_annex_base(id);
    if (base == MIM_math_arith || base == MIM_math_extrema || base == MIM_math_pow) {
        MimDef *a = mim_proj(w, x, 2, 0), *b = mim_proj(w, x, 2, 1), *da = NULL, *db = NULL;
        MimDef *zero = num(&f, 0);
        switch (id) {
        case MIM_math_arith_add: da = s, db = s; break;
        case MIM_math_arith_sub: da = s, db = neg(&f, s); break;
        case MIM_math_arith_mul: da = mul(&f, s, b), db = mul(&f, s, a); break;
        case MIM_math_arith_div:
            da = dvd(&f, s, b);
            db = neg(&f, mul(&f, da, dvd(&f, a, b)));
            break;
        case MIM_math_arith_rem: {
            /* a − b·trunc(a/b) */
            MimDef *q = op(&f, MIM_math_round_t, dvd(&f, a, b));
            da = s, db = neg(&f, mul(&f, s, q));
            break;
        }
        case MIM_math_pow: {
            /* ∂a = s·b·a^(b−1); ∂b = s·r·log a, zero where r is zero */
            MimDef *pm1 = op2(&f, MIM_math_pow, a, sub(&f, b, num(&f, 1)));
            da = mul(&f, s, mul(&f, b, pm1));
            MimDef *lb = mul(&f, s, mul(&f, r, op(&f, MIM_math_exp_log, a)));
            MimDef *eq = mim_app(w, mim_world_annex(w, MIM_math_cmp_e), f.pe);
            eq = mim_app(w, eq, f.m);
            MimDef *is_zero = mim_app(w, eq, mim_pair(w, r, zero));
            db = choose(&f, is_zero, zero, lb);
            break;
        }
        default: {
            /* min/max: the tangent goes to the chosen operand (to a on ties) */
            bool max = id == MIM_math_extrema_fmax || id == MIM_math_extrema_ieee754max;
            MimDef *c = max ? less(&f, a, b) : less(&f, b, a); /* b is chosen */
            da = choose(&f, c, zero, s);
            db = choose(&f, c, s, zero);
        }
        }
        return mim_pair(w, da, db);
    }
    MimDef *factor = unary_factor(&f, id, x, r);
    return factor ? mul(&f, s, factor) : NULL;
}
