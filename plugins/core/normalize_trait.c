/* Normalizer of %core.trait.size / %core.trait.align: size and alignment of
 * a type under the x86-64 ABI (plugins/core.md §5.14). */
#include "core_util.h"

enum { TRAIT_SIZE, TRAIT_ALIGN };

static MimDef *trait(MimWorld *w, unsigned sub, MimDef *T) { return core_call(w, MIM_core_trait | sub, &T, 1); }

static uint64_t round_up(uint64_t x, uint64_t a) { return a ? (x + a - 1) / a * a : x; }

/* Bytes of an integer of width w: max(1, bit_ceil(w) / 8). */
static uint64_t int_bytes(unsigned w) {
    uint64_t c = 1;
    while (c < w) c <<= 1;
    return c / 8 ? c / 8 : 1;
}

/* Size/align of a structure whose members are the operands of T (C
 * layout); false if some member's size or alignment is not a literal. */
static bool layout(MimWorld *w, MimDef *T, uint64_t *size, uint64_t *align) {
    uint64_t offset = 0, max_align = 1;
    for (size_t i = 0, n = mim_def_num_ops(T); i < n; ++i) {
        MimDef *op = mim_def_op(T, i);
        uint64_t a, s;
        if (!core_lit(trait(w, TRAIT_ALIGN, op), &a) || !core_lit(trait(w, TRAIT_SIZE, op), &s)) return false;
        if (a > max_align) max_align = a;
        offset = round_up(offset, a) + s;
    }
    offset = round_up(offset, max_align);
    *size = offset ? offset : 1;
    *align = max_align;
    return true;
}

static MimDef *sigma_trait(MimWorld *w, unsigned sub, MimDef *T) {
    uint64_t size, align;
    if (!layout(w, T, &size, &align)) return NULL;
    return mim_lit_nat(w, sub == TRAIT_SIZE ? size : align);
}

/* A union is measured as [Idx k, «size/align; Idx 2^(align·8)»]. */
static MimDef *join_trait(MimWorld *w, unsigned sub, MimDef *T) {
    size_t k = mim_def_num_ops(T);
    uint64_t size = 0, align = 1;
    for (size_t i = 0; i < k; ++i) {
        uint64_t a, s;
        if (!core_lit(trait(w, TRAIT_ALIGN, mim_def_op(T, i)), &a) ||
            !core_lit(trait(w, TRAIT_SIZE, mim_def_op(T, i)), &s) || a == 0 || a > 8)
            return NULL;
        if (a > align) align = a;
        if (s > size) size = s;
    }
    MimDef *count = mim_lit_nat(w, size / align); /* left to right: gids */
    MimDef *payload = mim_arr(w, count, mim_type_int(w, (unsigned)(align * 8)));
    MimDef *ops[2] = {mim_type_idx_n(w, k), payload};
    MimDef *sigma = ops[1] ? mim_sigma(w, ops, 2) : NULL;
    return sigma ? trait(w, sub, sigma) : NULL;
}

MimDef *normalize_trait(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    unsigned sub = mim_callee_sub(callee);
    MimDef *T = mim_resolve(w, arg), *r = NULL;
    uint64_t s, p, e;
    /* Nat is an i64 at run time: 8 bytes (the reference leaves it raw, so a
     * slot of Nats cannot be compiled; docs/decisions.md) */
    if (mim_match(T, CORE_MEM_PTR) || mim_def_node(T) == MIM_PI || mim_def_node(T) == MIM_NAT) return mim_lit_nat(w, 8);
    if (core_idx_lit_size(w, T, &s)) return mim_lit_nat(w, int_bytes(core_width(s)));
    if (mim_match(T, CORE_MATH_F)) {
        MimDef *pe = mim_app_arg(T);
        if (core_lit(core_op(w, pe, 0), &p) && core_lit(core_op(w, pe, 1), &e)) {
            if (p == 10 && e == 5) return mim_lit_nat(w, 2);
            if (p == 23 && e == 8) return mim_lit_nat(w, 4);
            if (p == 52 && e == 11) return mim_lit_nat(w, 8);
        }
    } else if (!mim_def_is_mut(T) && (mim_def_node(T) == MIM_SIGMA || mim_def_node(T) == MIM_MEET)) {
        r = sigma_trait(w, sub, T);
    } else if (!mim_def_is_mut(T) && mim_def_node(T) == MIM_ARR) {
        MimDef *n = mim_def_op(T, 0), *elem = mim_def_op(T, 1);
        if (sub == TRAIT_ALIGN) return trait(w, TRAIT_ALIGN, elem);
        MimDef *es = trait(w, TRAIT_SIZE, elem);
        if (core_lit(es, NULL)) {
            MimDef *args[1] = {core_pair(w, n, es)};
            r = args[0] ? core_call(w, MIM_core_nat_mul, args, 1) : NULL;
        }
    } else if (!mim_def_is_mut(T) && mim_def_node(T) == MIM_JOIN) {
        r = join_trait(w, sub, T);
    }
    return r ? r : mim_raw_app(w, type, callee, arg);
}
