/* Normalizers of integer comparison, minimum/maximum and absolute value:
 * %core.icmp, %core.extrema, %core.abs (plugins/core.md §5.9–§5.11). */
#include "core_util.h"
#include "fold.h"

enum { ICMP_F = 0, ICMP_E = 1, ICMP_NE = 30, ICMP_T = 31 };

/* Literal size of the operands' type Idx s. */
static bool operand_size(MimWorld *w, MimDef *a, uint64_t *s) {
    return core_idx_lit_size(w, mim_def_type(a), s);
}

MimDef *normalize_icmp(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    unsigned sub = mim_callee_sub(callee);
    MimDef *a = core_op(w, arg, 0), *b = core_op(w, arg, 1);
    if (!a || !b) return NULL;
    if (core_is_bot(a) || core_is_bot(b)) return mim_bot(w, type);
    uint64_t s, la, lb;
    if (core_lit(a, &la) && core_lit(b, &lb) && operand_size(w, a, &s))
        return mim_lit_bool(w, (sub & core_icmp_relation(s, la, lb)) != 0);
    if (sub == ICMP_E || sub == ICMP_NE) core_commute(&a, &b);
    if (sub == ICMP_F) return mim_lit_bool(w, false);
    if (sub == ICMP_T) return mim_lit_bool(w, true);
    if (a == b) {
        if (sub & ICMP_E) return mim_lit_bool(w, true);
        if (sub == ICMP_NE) return mim_lit_bool(w, false);
    }
    return core_raw_pair(w, type, callee, arg, a, b);
}

MimDef *normalize_extrema(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    MimDef *a = core_op(w, arg, 0), *b = core_op(w, arg, 1);
    if (!a || !b) return NULL;
    if (core_is_bot(a) || core_is_bot(b)) return mim_bot(w, type);
    uint64_t s, la, lb;
    if (core_lit(a, &la) && core_lit(b, &lb) && core_idx_lit_size(w, type, &s))
        return mim_lit(w, type, core_fold_extrema(mim_callee_sub(callee), s, la, lb));
    return mim_raw_app(w, type, callee, arg);
}

MimDef *normalize_abs(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    MimDef *mem = core_op(w, arg, 0), *a = core_op(w, arg, 1);
    MimDef *T = mim_proj(w, type, 2, 1); /* Idx s */
    if (!mem || !a || !T) return NULL;
    uint64_t s, la;
    MimDef *r = NULL;
    if (core_is_bot(a)) r = mim_bot(w, T);
    else if (core_lit(a, &la) && core_idx_lit_size(w, T, &s)) r = mim_lit(w, T, core_fold_abs(s, la));
    return r ? core_pair(w, mem, r) : mim_raw_app(w, type, callee, arg);
}
