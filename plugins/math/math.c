/* The math plugin: normalizers of %math (spec plugins/math.md §4) and the
 * plugin record. Folding is exact IEEE arithmetic in the operand format via
 * softfloat.c; only the three "known" formats F16, F32, F64 are folded
 * (math.md §4.2). Differences from the reference: docs/math-plugin.md. */
#include "mim/plugin/math.h"

#include "libm.h"
#include "softfloat.h"

#include <math.h>
#include <string.h>

/* ---- access to calls and literals ---------------------------------------- */

enum { MODE_NNAN = 1, MODE_NSZ = 4, MODE_REASSOC = 64, MODE_FAST = 127 };

static bool is_bot(MimWorld *w, MimDef *d) { return mim_def_node(mim_resolve(w, d)) == MIM_BOT; }

static bool is_lit(const MimDef *d) {
    uint64_t v;
    return mim_def_lit(d, &v);
}

/* Sub-tag of the axiom heading a call chain. */

/* For `%math.op {pe} m`: callee = (axiom pe) m. */
static MimDef *call_mode(const MimDef *callee) { return mim_app_arg(callee); }
static MimDef *call_pe(const MimDef *callee) { return mim_app_arg(mim_app_callee(callee)); }

/* The literal mode of a call, if it is one. */
static bool lit_mode(const MimDef *callee, uint64_t *mode) { return mim_def_lit(call_mode(callee), mode); }

/* A format tuple (p, e) of two Nat literals; no node is created. */
static bool format_of(MimWorld *w, MimDef *pe, SfFormat *f) {
    uint64_t p, e;
    pe = mim_resolve(w, pe);
    if (mim_def_node(pe) != MIM_TUPLE || mim_def_num_ops(pe) != 2) return false;
    if (!mim_def_lit(mim_def_op(pe, 0), &p) || !mim_def_lit(mim_def_op(pe, 1), &e)) return false;
    if (p > 64 || e > 64) return false;
    f->p = (unsigned)p;
    f->e = (unsigned)e;
    return true;
}

/* Only F16, F32 and F64 are folded (math.md §4.2); see docs/math-plugin.md. */
static bool format_known(SfFormat f) {
    return (f.p == 10 && f.e == 5) || (f.p == 23 && f.e == 8) || (f.p == 52 && f.e == 11);
}

static bool known_format_of(MimWorld *w, MimDef *pe, SfFormat *f) {
    return format_of(w, pe, f) && format_known(*f);
}

/* Literal bits of a float literal, truncated to the format's width (a wider
 * pattern stored by the front end reads as its low bits, math.md §2). */
static bool lit_bits(SfFormat f, const MimDef *d, uint64_t *bits) {
    if (!mim_def_lit(d, bits)) return false;
    *bits = sf_mask(f, *bits);
    return true;
}

static uint64_t one_bits(SfFormat f) { return sf_from_double(f, 1.0); }


/* The two operands of a pair argument. */
static void operands(MimWorld *w, MimDef *arg, MimDef **a, MimDef **b) {
    *a = mim_proj(w, arg, 2, 0);
    *b = mim_proj(w, arg, 2, 1);
}

/* %math.<id> {pe} mode arg through ordinary (normalizing) application. */
static MimDef *call(MimWorld *w, uint64_t id, MimDef *pe, uint64_t mode, MimDef *arg) {
    MimDef *ax = mim_annex(w, id);
    MimDef *with_pe = mim_app(w, ax, pe); /* left to right (gids), not C's open order */
    return mim_app(w, mim_app(w, with_pe, mim_lit_nat(w, mode)), arg);
}

/* ---- %math.arith ---------------------------------------------------------- */

static const uint64_t arith_ids[] = {MIM_math_arith_add, MIM_math_arith_sub, MIM_math_arith_mul,
                                     MIM_math_arith_div, MIM_math_arith_rem};

/* A fully applied call of `id` whose mode is a literal with reassoc: its
 * operands and mode. */
static bool reassoc_call(MimWorld *w, MimDef *d, uint64_t id, MimDef **x, MimDef **y, uint64_t *mode) {
    MimDef *app = mim_match(d, id);
    if (!app || !lit_mode(mim_app_callee(app), mode) || !(*mode & MODE_REASSOC)) return false;
    operands(w, mim_app_arg(app), x, y);
    return true;
}

/* Reassociation of `a op b` (core.md §4.4 rules with math.md §4.3 modes);
 * NULL if no rule applies. A rule applies only if every inner call whose
 * literal it uses carries reassoc in a literal mode. */
static MimDef *reassociate(MimWorld *w, uint64_t id, MimDef *pe, uint64_t mode, MimDef *a, MimDef *b) {
    MimDef *x = NULL, *y = NULL, *z = NULL, *v = NULL;
    uint64_t ma = 0, mb = 0;
    bool xy = reassoc_call(w, a, id, &x, &y, &ma);
    bool zw = reassoc_call(w, b, id, &z, &v, &mb);
    bool la = is_lit(a), lx = xy && is_lit(x), lz = zw && is_lit(z);
    mode &= MODE_FAST;
    if (la && lz) { /* a op (z op w) → (a op z) op w */
        uint64_t m = mode & mb;
        return call(w, id, pe, m, mim_pair(w, call(w, id, pe, m, mim_pair(w, a, z)), v));
    }
    if (lx && lz) { /* (x op y) op (z op w) → (x op z) op (y op w) */
        uint64_t m = mode & ma & mb;
        MimDef *xz = call(w, id, pe, m, mim_pair(w, x, z)); /* left to right: gids */
        MimDef *yv = call(w, id, pe, m, mim_pair(w, y, v));
        return call(w, id, pe, m, mim_pair(w, xz, yv));
    }
    if (lz) { /* a op (z op w) → z op (a op w) */
        uint64_t m = mode & mb;
        return call(w, id, pe, m, mim_pair(w, z, call(w, id, pe, m, mim_pair(w, a, v))));
    }
    if (lx) { /* (x op y) op b → x op (y op b) */
        uint64_t m = mode & ma;
        return call(w, id, pe, m, mim_pair(w, x, call(w, id, pe, m, mim_pair(w, y, b))));
    }
    return NULL;
}

/* Rules of §4.3 step 2 (mode fast, known format); NULL if none applies. */
static MimDef *arith_fast(MimWorld *w, unsigned sub, SfFormat f, MimDef *type, MimDef *callee, MimDef *a,
                          MimDef *b) {
    uint64_t va, vb;
    bool la = lit_bits(f, a, &va), lb = lit_bits(f, b, &vb);
    if (la && va == 0) { /* +0.0 exactly */
        if (sub == SF_ADD) return b;
        if (sub == SF_MUL || sub == SF_DIV || sub == SF_REM) return a;
    }
    if (la && va == one_bits(f) && sub == SF_MUL) return b;
    if (lb && vb == 0 && sub == SF_SUB) return a;
    if (a == b) {
        if (sub == SF_ADD)
            return call(w, MIM_math_arith_mul, call_pe(callee), MODE_FAST,
                        mim_pair(w, mim_lit(w, type, sf_from_double(f, 2.0)), a));
        if (sub == SF_SUB) return mim_lit(w, type, 0);
        if (sub == SF_DIV) return mim_lit(w, type, one_bits(f));
    }
    return NULL;
}

MimDef *normalize_arith(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    unsigned sub = mim_callee_sub(callee);
    MimDef *a, *b;
    operands(w, arg, &a, &b);
    if (!a || !b) return NULL;
    if (sub > SF_REM) return mim_raw_app(w, type, callee, arg);
    if (is_bot(w, a) || is_bot(w, b)) return mim_bot(w, type);
    SfFormat f;
    bool known = known_format_of(w, call_pe(callee), &f);
    uint64_t va, vb;
    if (known && lit_bits(f, a, &va) && lit_bits(f, b, &vb) && (sub != SF_REM || math_libm()))
        return mim_lit(w, type, sf_arith(f, (SfOp)sub, va, vb));
    bool commutative = sub == SF_ADD || sub == SF_MUL;
    bool swapped = commutative && mim_commute_swap(a, b);
    if (swapped) {
        MimDef *t = a;
        a = b;
        b = t;
    }
    uint64_t mode;
    bool mode_lit = lit_mode(callee, &mode);
    if (mode_lit && mode == MODE_FAST && known) {
        MimDef *r = arith_fast(w, sub, f, type, callee, a, b);
        if (r) return r;
    }
    if (mode_lit && (mode & MODE_REASSOC) && commutative) {
        MimDef *r = reassociate(w, arith_ids[sub], call_pe(callee), mode, a, b);
        if (r) return r;
    }
    return mim_raw_app(w, type, callee, swapped ? mim_pair(w, a, b) : arg);
}

/* ---- %math.extrema -------------------------------------------------------- */

enum { EX_FMIN, EX_FMAX, EX_IMIN, EX_IMAX };

static uint64_t fold_extrema(SfFormat f, unsigned sub, uint64_t a, uint64_t b) {
    uint64_t neg0 = (uint64_t)1 << (f.p + f.e);
    bool is_min = sub == EX_FMIN || sub == EX_IMIN;
    if (a == neg0 && b == 0) return is_min ? a : b;
    if (a == 0 && b == neg0) return is_min ? b : a;
    if (sub == EX_IMIN || sub == EX_IMAX) {
        if (sf_is_nan(f, a)) return a;
        if (sf_is_nan(f, b)) return b;
    }
    return is_min ? sf_fmin(f, a, b) : sf_fmax(f, a, b);
}

MimDef *normalize_extrema(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    unsigned sub = mim_callee_sub(callee);
    MimDef *a, *b;
    operands(w, arg, &a, &b);
    if (!a || !b) return NULL;
    if (sub > EX_IMAX) return mim_raw_app(w, type, callee, arg);
    if (is_bot(w, a) || is_bot(w, b)) return mim_bot(w, type);
    SfFormat f;
    uint64_t va, vb, mode;
    if (known_format_of(w, call_pe(callee), &f) && lit_bits(f, a, &va) && lit_bits(f, b, &vb) && math_libm())
        return mim_lit(w, type, fold_extrema(f, sub, va, vb));
    /* ieee754min/max equal fmin/fmax only when no operand is NaN (nnan) and
     * the sign of a zero does not matter (nsz): the reference rewrites with
     * either flag, which changes NaN results under nsz alone and the sign of
     * a zero under nnan alone (docs/math-plugin.md). */
    uint64_t both = MODE_NNAN | MODE_NSZ;
    if ((sub == EX_IMIN || sub == EX_IMAX) && lit_mode(callee, &mode) && (mode & both) == both) {
        if (mim_commute_swap(a, b)) {
            MimDef *t = a;
            a = b;
            b = t;
        }
        uint64_t id = sub == EX_IMIN ? MIM_math_extrema_fmin : MIM_math_extrema_fmax;
        MimDef *ax = mim_annex(w, id);
        MimDef *head = mim_app(w, mim_app(w, ax, call_pe(callee)), call_mode(callee));
        return mim_app(w, head, mim_pair(w, a, b));
    }
    return mim_raw_app(w, type, callee, arg);
}

/* ---- unary functions ------------------------------------------------------ */

/* The function of each sub-tag of a unary axiom (libm.h); MATH_NONE for an
 * unused sub-tag, MATH_EXP10 for 10^x, computed with pow like the reference. */
enum { MATH_NONE = MATH_NUM_UNARY, MATH_EXP10 };
typedef unsigned char UnaryFn;

static const UnaryFn tri_fns[16] = {
    MATH_sin,   MATH_cos,   MATH_tan,   MATH_NONE, MATH_sinh, MATH_cosh, MATH_tanh,  MATH_NONE,
    MATH_asin,  MATH_acos,  MATH_atan,  MATH_NONE, MATH_asinh, MATH_acosh, MATH_atanh, MATH_NONE,
};
static const UnaryFn rt_fns[2] = {MATH_sqrt, MATH_cbrt};
static const UnaryFn exp_fns[8] = {MATH_exp, MATH_exp2, MATH_EXP10, MATH_NONE,
                                   MATH_log, MATH_log2, MATH_log10, MATH_NONE};
static const UnaryFn er_fns[2] = {MATH_erf, MATH_erfc};
static const UnaryFn gamma_fns[2] = {MATH_tgamma, MATH_lgamma};
static const UnaryFn abs_fns[1] = {MATH_fabs};
static const UnaryFn round_fns[4] = {MATH_floor, MATH_ceil, MATH_round, MATH_trunc};

/* F64 uses the double function, F32 the float one (as the reference's
 * per-width evaluation); F16 the double function rounded once to binary16. */
static uint64_t fold_unary(const MathLibm *lm, SfFormat f, UnaryFn fn, uint64_t bits) {
    if (f.p == 23 && f.e == 8) {
        uint32_t u = (uint32_t)bits;
        float x;
        memcpy(&x, &u, sizeof x);
        float r = fn == MATH_EXP10 ? lm->pow_f(10.0f, x) : lm->f[fn](x);
        memcpy(&u, &r, sizeof u);
        return u;
    }
    double x = sf_to_double(f, bits);
    return sf_from_double(f, fn == MATH_EXP10 ? lm->pow_d(10.0, x) : lm->d[fn](x));
}

static MimDef *normalize_unary(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg, const UnaryFn *fns,
                               unsigned num) {
    if (is_bot(w, arg)) return mim_bot(w, type);
    unsigned sub = mim_callee_sub(callee);
    SfFormat f;
    uint64_t v;
    const MathLibm *lm;
    if (sub < num && fns[sub] != MATH_NONE && known_format_of(w, call_pe(callee), &f) && lit_bits(f, arg, &v) &&
        (lm = math_libm()))
        return mim_lit(w, type, fold_unary(lm, f, fns[sub], v));
    return mim_raw_app(w, type, callee, arg);
}

#define UNARY_NORMALIZER(name, table)                                                           \
    MimDef *normalize_##name(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {          \
        return normalize_unary(w, type, callee, arg, table, sizeof table / sizeof *table);      \
    }
UNARY_NORMALIZER(tri, tri_fns)
UNARY_NORMALIZER(rt, rt_fns)
UNARY_NORMALIZER(exp, exp_fns)
UNARY_NORMALIZER(er, er_fns)
UNARY_NORMALIZER(gamma, gamma_fns)
UNARY_NORMALIZER(abs, abs_fns)
UNARY_NORMALIZER(round, round_fns)

/* ---- %math.pow ------------------------------------------------------------ */

/* Folded with the real pow in the operand format (the reference's fold of
 * the raw bit patterns is a bug, math.md §4.6; docs/math-plugin.md). */
MimDef *normalize_pow(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    MimDef *a, *b;
    operands(w, arg, &a, &b);
    if (!a || !b) return NULL;
    if (is_bot(w, a) || is_bot(w, b)) return mim_bot(w, type);
    SfFormat f;
    uint64_t va, vb;
    const MathLibm *lm;
    if (known_format_of(w, call_pe(callee), &f) && lit_bits(f, a, &va) && lit_bits(f, b, &vb) && (lm = math_libm())) {
        if (f.p == 23 && f.e == 8) {
            uint32_t ua = (uint32_t)va, ub = (uint32_t)vb;
            float x, y;
            memcpy(&x, &ua, sizeof x);
            memcpy(&y, &ub, sizeof y);
            float r = lm->pow_f(x, y);
            memcpy(&ua, &r, sizeof ua);
            return mim_lit(w, type, ua);
        }
        return mim_lit(w, type, sf_from_double(f, lm->pow_d(sf_to_double(f, va), sf_to_double(f, vb))));
    }
    return mim_raw_app(w, type, callee, arg);
}

/* ---- %math.cmp ------------------------------------------------------------ */

enum { CMP_F = 0, CMP_E = 1, CMP_NE = 6, CMP_T = 15 };

MimDef *normalize_cmp(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    unsigned sub = mim_callee_sub(callee);
    MimDef *a, *b;
    operands(w, arg, &a, &b);
    if (!a || !b) return NULL;
    if (is_bot(w, a) || is_bot(w, b)) return mim_bot(w, type);
    SfFormat f;
    uint64_t va, vb;
    if (known_format_of(w, call_pe(callee), &f) && lit_bits(f, a, &va) && lit_bits(f, b, &vb))
        return mim_lit_bool(w, (sf_relation(f, va, vb) & sub) != 0);
    bool swapped = (sub == CMP_E || sub == CMP_NE) && mim_commute_swap(a, b);
    if (sub == CMP_F) return mim_lit_bool(w, false);
    if (sub == CMP_T) return mim_lit_bool(w, true);
    return mim_raw_app(w, type, callee, swapped ? mim_pair(w, b, a) : arg);
}

/* ---- %math.conv ----------------------------------------------------------- */

/* Not folded, like the reference (math.md §4.10; docs/math-plugin.md). */
MimDef *normalize_conv(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    if (mim_def_type(arg) == type) return arg;
    if (is_bot(w, arg)) return mim_bot(w, type);
    return mim_raw_app(w, type, callee, arg);
}

/* ---- the plugin ----------------------------------------------------------- */

static const MimNormalizerReg normalizers[] = {MIM_math_NORMALIZERS};

MIM_PLUGIN_DEFINE("math", MIM_PLUGIN_TABLE(normalizers), MIM_PLUGIN_NO_TABLE, MIM_PLUGIN_NO_TABLE);
