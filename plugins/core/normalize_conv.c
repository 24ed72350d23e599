/* Normalizers of integer resizing and reinterpretation: %core.conv and
 * %core.bitcast (plugins/core.md §5.12, §5.13). */
#include "core_util.h"

enum { CONV_S, CONV_U };

/* Is ld < ls with 0 meaning 2^64? (The reference compares the encodings, so
 * every conv.s to Idx 0 became conv.u; docs/core-plugin.md.) */
static bool narrower(uint64_t ld, uint64_t ls) { return ld != 0 && (ls == 0 || ld < ls); }

/* conv.s of the literal v from Idx ls to a size ld that is not narrower:
 * the signed view at the source (standard widths sign-extend; other widths
 * are computed on 64 bits and never negative, core.md §4.1), then the value
 * at the destination (w bits, or 64 for other widths) modulo ld, as the
 * back end computes it. The reference folds only standard width pairs. */
static uint64_t sign_convert(uint64_t v, uint64_t ls, uint64_t ld) {
    unsigned ws = core_width(ls), wd = core_width(ld);
    if (core_fold_width(ls) == ws && ws < 64 && ((v >> (ws - 1)) & 1)) v |= ~((UINT64_C(1) << ws) - 1);
    if (core_fold_width(ld) == wd && wd < 64) v &= (UINT64_C(1) << wd) - 1;
    return core_mod(v, ld);
}

MimDef *normalize_conv(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    unsigned sub = mim_callee_sub(callee);
    MimDef *src = mim_resolve(w, mim_def_type(arg));
    if (src == type) return arg;
    if (core_is_bot(arg)) return mim_bot(w, type);
    uint64_t ls, ld, v;
    bool known = core_idx_lit_size(w, src, &ls) && core_idx_lit_size(w, type, &ld);
    if (sub == CONV_S && known && narrower(ld, ls)) {
        MimDef *args[3] = {core_callee_arg(callee, 0), core_callee_arg(callee, 1), arg};
        return core_call(w, MIM_core_conv_u, args, 3);
    }
    if (known && core_lit(arg, &v)) {
        if (sub == CONV_U) return mim_lit(w, type, core_mod(v, ld));
        return mim_lit(w, type, sign_convert(v, ls, ld));
    }
    return mim_raw_app(w, type, callee, arg);
}

static bool is_nat_or_idx(MimWorld *w, MimDef *T) {
    T = mim_resolve(w, T);
    return T == mim_nat(w) || (mim_def_node(T) == MIM_APP && mim_app_callee(T) == mim_idx(w));
}

/* Width of a float type of a known format (F16, F32, F64), else 0. */
static unsigned float_bits(MimWorld *w, MimDef *T) {
    uint64_t p, e;
    T = mim_resolve(w, T);
    if (!mim_match(T, CORE_MATH_F)) return 0;
    MimDef *pe = mim_app_arg(T);
    if (!core_lit(core_op(w, pe, 0), &p) || !core_lit(core_op(w, pe, 1), &e)) return 0;
    return p == 10 && e == 5 ? 16 : p == 23 && e == 8 ? 32 : p == 52 && e == 11 ? 64 : 0;
}

MimDef *normalize_bitcast(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    if (core_is_bot(arg)) return mim_bot(w, type);
    if (mim_resolve(w, mim_def_type(arg)) == type) return arg;
    if (mim_match(arg, MIM_core_bitcast)) {
        MimDef *y = mim_app_arg(arg), *S = mim_def_type(y);
        if (mim_resolve(w, S) == type) return y;
        MimDef *args[3] = {S, type, y};
        return core_call(w, MIM_core_bitcast, args, 3);
    }
    uint64_t v, s;
    if (core_lit(arg, &v) && is_nat_or_idx(w, type)) {
        /* a value that does not fit the Idx stays unevaluated (the reference errors) */
        bool fits = !core_idx_lit_size(w, type, &s) ? (type == mim_nat(w) || v == 0) : (s == 0 || v < s);
        if (fits) return mim_lit(w, type, v);
    }
    /* An integer literal reinterpreted as a float of the same width is the
     * float literal with that bit pattern (the reference leaves it raw;
     * docs/decisions.md), so float operations on it fold. */
    unsigned fb = float_bits(w, type);
    if (fb && core_lit(arg, &v) && core_idx_lit_size(w, mim_def_type(arg), &s) && core_width(s) == fb)
        return mim_lit(w, type, v);
    return mim_raw_app(w, type, callee, arg);
}
