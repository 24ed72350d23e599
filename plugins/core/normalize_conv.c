/* Normalizers of integer resizing and reinterpretation: %core.conv and
 * %core.bitcast (plugins/core.md §5.12, §5.13). */
#include "core_util.h"

enum { CONV_S, CONV_U };

/* Is ld < ls with 0 meaning 2^64? (The reference compares the encodings, so
 * every conv.s to Idx 0 became conv.u; docs/core-plugin.md.) */
static bool narrower(uint64_t ld, uint64_t ls) { return ld != 0 && (ls == 0 || ld < ls); }

/* Sign extension for the width pairs the reference folds (§5.12 step 4). */
static bool sign_extend(uint64_t v, unsigned ws, unsigned wd, uint64_t *r) {
    bool standard = (ws == 1 || ws == 8 || ws == 16 || ws == 32) && (wd == 8 || wd == 16 || wd == 32 || wd == 64);
    if (!standard || wd <= ws) return false;
    uint64_t dmask = wd == 64 ? UINT64_MAX : (UINT64_C(1) << wd) - 1;
    if ((v >> (ws - 1)) & 1) v |= ~((UINT64_C(1) << ws) - 1); /* width 1 too: tt is -1 */
    *r = v & dmask;
    return true;
}

MimDef *normalize_conv(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    unsigned sub = mim_callee_sub(callee);
    MimDef *src = mim_resolve(w, mim_def_type(arg));
    if (src == type) return arg;
    if (core_is_bot(arg)) return mim_bot(w, type);
    uint64_t ls, ld, v, r;
    bool known = core_idx_lit_size(w, src, &ls) && core_idx_lit_size(w, type, &ld);
    if (sub == CONV_S && known && narrower(ld, ls)) {
        MimDef *args[3] = {core_callee_arg(callee, 0), core_callee_arg(callee, 1), arg};
        return core_call(w, MIM_core_conv_u, args, 3);
    }
    if (known && core_lit(arg, &v)) {
        if (sub == CONV_U) return mim_lit(w, type, core_mod(v, ld));
        /* reduced modulo a size that is no power of two, as the back end does */
        if (sign_extend(v, core_width(ls), core_width(ld), &r)) return mim_lit(w, type, core_mod(r, ld));
    }
    return mim_raw_app(w, type, callee, arg);
}

static bool is_nat_or_idx(MimWorld *w, MimDef *T) {
    T = mim_resolve(w, T);
    return T == mim_nat(w) || (mim_def_node(T) == MIM_APP && mim_app_callee(T) == mim_idx(w));
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
    return mim_raw_app(w, type, callee, arg);
}
