/* Normalizers of Nat arithmetic and comparison and of the Nat → Idx
 * conversion: %core.nat, %core.ncmp, %core.idx (plugins/core.md §5.1–§5.3). */
#include "core_util.h"

enum { NAT_ADD, NAT_SUB, NAT_MUL };

static uint64_t fold_nat(unsigned sub, uint64_t a, uint64_t b) {
    switch (sub) {
    case NAT_ADD: return a + b;
    case NAT_SUB: return a >= b ? a - b : 0; /* truncated subtraction */
    default: return a * b;
    }
}

MimDef *normalize_nat(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    unsigned sub = mim_callee_sub(callee);
    MimDef *a = core_op(w, arg, 0), *b = core_op(w, arg, 1);
    if (!a || !b) return NULL;
    if (sub != NAT_SUB) core_commute(&a, &b);
    uint64_t la, lb;
    bool is_la = core_lit(a, &la), is_lb = core_lit(b, &lb);
    if (is_la && is_lb) return mim_lit_nat(w, fold_nat(sub, la, lb));
    if (is_la && la == 0) return sub == NAT_ADD ? b : a;
    if (is_la && la == 1 && sub == NAT_MUL) return b;
    if (is_lb && lb == 0 && sub == NAT_SUB) return a;
    return core_raw_pair(w, type, callee, arg, a, b);
}

/* Relation bits of ncmp sub-tags: E = 1, L = 2, G = 4. */
enum { NCMP_F = 0, NCMP_E = 1, NCMP_NE = 6, NCMP_T = 7 };

MimDef *normalize_ncmp(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    unsigned sub = mim_callee_sub(callee);
    if (sub == NCMP_T) return mim_lit_bool(w, true);
    if (sub == NCMP_F) return mim_lit_bool(w, false);
    MimDef *a = core_op(w, arg, 0), *b = core_op(w, arg, 1);
    if (!a || !b) return NULL;
    if (sub == NCMP_E || sub == NCMP_NE) core_commute(&a, &b);
    uint64_t la, lb;
    if (core_lit(a, &la) && core_lit(b, &lb)) {
        unsigned rel = la > lb ? 4 : la < lb ? 2 : 1;
        return mim_lit_bool(w, (sub & rel) != 0);
    }
    return core_raw_pair(w, type, callee, arg, a, b);
}

/* %core.idx s m l. With s = 0 (2^64) every l fits: the reference tests
 * l < 0 there and yields ⊥ for a nonzero mode (a quirk, core.md §5.3). */
MimDef *normalize_idx(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    uint64_t s, m, l;
    bool ls = core_lit(core_callee_arg(callee, 0), &s), ll = core_lit(arg, &l);
    if (ls && ll) {
        if (s == 0 || l < s) return mim_lit(w, type, l);
        if (core_lit(core_callee_arg(callee, 1), &m)) return m ? mim_bot(w, type) : mim_lit(w, type, l % s);
    }
    return mim_raw_app(w, type, callee, arg);
}
