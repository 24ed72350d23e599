/* Normalizers of shifts, wrapping arithmetic and division: %core.shr,
 * %core.wrap, %core.div (plugins/core.md §5.6–§5.8). Folding ignores the
 * wrap mode (§5.7) and produces the w-bit result for every width (the
 * reference's 1/8/16-bit "index does not fit" errors are not reproduced). */
#include "core_util.h"
#include "fold.h"
#include "reassoc.h"

enum { WRAP_ADD, WRAP_SUB, WRAP_MUL, WRAP_SHL };
enum { DIV_SDIV, DIV_UDIV, DIV_SREM, DIV_UREM };

/* A literal shift amount that gives ⊥: at least the folding width (the
 * reference compares with the size, which for Idx 0 = 2^64 turned every
 * nonzero shift into ⊥; docs/core-plugin.md). */
static bool shift_out_of_range(MimDef *s, uint64_t b) {
    uint64_t ls;
    return core_lit(s, &ls) && b >= core_fold_width(ls);
}

MimDef *normalize_shr(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    unsigned sub = mim_callee_sub(callee);
    MimDef *s = core_callee_arg(callee, 0);
    MimDef *a = core_op(w, arg, 0), *b = core_op(w, arg, 1);
    if (!a || !b) return NULL;
    if (core_is_bot(a) || core_is_bot(b)) return mim_bot(w, type);
    uint64_t ls, la, lb, r;
    bool is_la = core_lit(a, &la), is_lb = core_lit(b, &lb);
    if (is_la && is_lb && core_lit(s, &ls))
        return core_fold_shr(sub, ls, la, lb, &r) ? mim_lit(w, type, r) : mim_bot(w, type);
    if (is_la && la == 0) return a;
    if (is_lb) {
        if (shift_out_of_range(s, lb)) return mim_bot(w, type);
        if (lb == 0) return a;
    }
    return mim_raw_app(w, type, callee, arg);
}

static MimDef *wrap_call(MimWorld *w, uint64_t id, MimDef *s, MimDef *m, MimDef *a, MimDef *b) {
    MimDef *args[3] = {s, m, core_pair(w, a, b)};
    return args[2] ? core_call(w, id, args, 3) : NULL;
}

MimDef *normalize_wrap(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    unsigned sub = mim_callee_sub(callee);
    MimDef *s = core_callee_arg(callee, 0), *m = core_callee_arg(callee, 1);
    MimDef *a = core_op(w, arg, 0), *b = core_op(w, arg, 1), *r;
    if (!a || !b) return NULL;
    if (core_is_bot(a) || core_is_bot(b)) return mim_bot(w, type);
    uint64_t ls = 0, la, lb, v;
    bool is_ls = core_lit(s, &ls);
    if (is_ls && core_lit(a, &la) && core_lit(b, &lb))
        return core_fold_wrap(sub, ls, la, lb, &v) ? mim_lit(w, type, v) : mim_bot(w, type);
    if (sub == WRAP_ADD || sub == WRAP_MUL) core_commute(&a, &b);

    if (core_lit(a, &la)) {
        if (la == 0 && sub != WRAP_SUB) return sub == WRAP_ADD ? b : a;
        if (la == 1 && sub == WRAP_MUL) return b;
    }
    if (core_lit(b, &lb)) {
        if (lb == 0 && (sub == WRAP_SUB || sub == WRAP_SHL)) return a;
        /* a − b = a + (−b) only when the reduction is modulo 2^w */
        if (lb != 0 && sub == WRAP_SUB && core_is_lit_val(m, 0) && is_ls && core_size_is_pow2(ls)) {
            MimDef *c = mim_lit(w, type, core_mod(~lb + 1, ls));
            return c ? wrap_call(w, MIM_core_wrap_add, s, m, a, c) : NULL;
        }
        if (sub == WRAP_SHL && shift_out_of_range(s, lb)) return mim_bot(w, type);
    }
    if (a == b) {
        if (sub == WRAP_SUB) return mim_lit(w, type, 0);
        if (sub == WRAP_ADD && is_ls) { /* 2 mod s: the reference errors for Idx 2 */
            MimDef *two = mim_lit(w, type, core_mod(2, ls));
            return two ? wrap_call(w, MIM_core_wrap_mul, s, m, two, a) : NULL;
        }
    }
    if ((sub == WRAP_ADD || sub == WRAP_MUL) && core_reassoc(w, MIM_core_wrap | sub, s, a, b, &r)) return r;
    return core_raw_pair(w, type, callee, arg, a, b);
}

/* (mem, r) with the incoming memory token. */
static MimDef *with_mem(MimWorld *w, MimDef *mem, MimDef *r) { return r ? core_pair(w, mem, r) : NULL; }

MimDef *normalize_div(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    unsigned sub = mim_callee_sub(callee);
    bool rem = sub == DIV_SREM || sub == DIV_UREM;
    MimDef *s = core_callee_arg(callee, 0);
    MimDef *mem = core_op(w, arg, 0), *ab = core_op(w, arg, 1);
    MimDef *a = core_op(w, ab, 0), *b = core_op(w, ab, 1);
    MimDef *T = mim_proj(w, type, 2, 1); /* Idx s */
    if (!mem || !a || !b || !T) return NULL;
    if (core_is_bot(a) || core_is_bot(b)) return with_mem(w, mem, mim_bot(w, T));
    uint64_t ls = 0, la, lb, v;
    bool is_ls = core_lit(s, &ls), is_la = core_lit(a, &la), is_lb = core_lit(b, &lb);
    if (is_ls && is_la && is_lb)
        return with_mem(w, mem, core_fold_div(sub, ls, la, lb, &v) ? mim_lit(w, T, v) : mim_bot(w, T));
    if (is_la && la == 0) return with_mem(w, mem, a);
    if (is_lb) {
        if (lb == 0) return with_mem(w, mem, mim_bot(w, T));
        if (lb == 1) return with_mem(w, mem, rem ? mim_lit(w, T, 0) : a);
    }
    if (a == b) {
        if (rem) return with_mem(w, mem, mim_lit(w, T, 0));
        if (is_ls) return with_mem(w, mem, mim_lit(w, T, core_mod(1, ls))); /* Idx 1: 0 */
    }
    return mim_raw_app(w, type, callee, arg);
}
