/* Helpers shared by the core normalizers (see core_util.h). */
#include "core_util.h"


MimDef *core_callee_arg(const MimDef *callee, size_t k) { return mim_app_nth_arg(callee, k); }

bool core_lit(const MimDef *d, uint64_t *v) { return d && mim_def_lit(d, v); }

bool core_is_lit_val(const MimDef *d, uint64_t v) {
    uint64_t x;
    return core_lit(d, &x) && x == v;
}

bool core_is_bot(const MimDef *d) { return d && mim_def_node(d) == MIM_BOT; }

unsigned core_width(uint64_t s) {
    if (s == 0) return 64;
    unsigned w = 0;
    for (uint64_t m = s - 1; m; m >>= 1) ++w;
    return w;
}

unsigned core_fold_width(uint64_t s) {
    unsigned w = core_width(s);
    return w == 1 || w == 8 || w == 16 || w == 32 ? w : 64;
}

bool core_size_is_pow2(uint64_t s) { return (s & (s - 1)) == 0 && s != 1; }

bool core_idx_lit_size(MimWorld *w, MimDef *type, uint64_t *s) {
    type = mim_resolve(w, type);
    if (!type || mim_def_node(type) != MIM_APP || mim_app_callee(type) != mim_idx(w)) return false;
    return core_lit(mim_app_arg(type), s);
}

uint64_t core_mod(uint64_t v, uint64_t s) { return s ? v % s : v; }

MimDef *core_op(MimWorld *w, MimDef *pair, uint64_t i) { return mim_proj(w, pair, 2, i); }

MimDef *core_pair(MimWorld *w, MimDef *a, MimDef *b) { return mim_pair(w, a, b); }

bool core_commute(MimDef **a, MimDef **b) {
    if (mim_commute_swap(*a, *b)) {
        MimDef *t = *a;
        *a = *b;
        *b = t;
        return true;
    }
    return false;
}

MimDef *core_raw_pair(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg, MimDef *a, MimDef *b) {
    if (core_op(w, arg, 0) != a || core_op(w, arg, 1) != b) arg = core_pair(w, a, b);
    return mim_raw_app(w, type, callee, arg);
}

MimDef *core_call(MimWorld *w, uint64_t id, MimDef *const *args, size_t n) {
    MimDef *d = mim_world_annex(w, id);
    for (size_t i = 0; d && i < n; ++i) d = mim_app(w, d, args[i]);
    return d;
}
