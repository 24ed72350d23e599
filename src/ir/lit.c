/* Literals, Nat and Idx types (semantics.md §4.1, §4.2) and bottom/top with
 * their element-wise expansion (§4.12). */
#include "ir/build.h"

MimDef *mim_nat(MimWorld *w) { return w->builtin.nat; }
MimDef *mim_idx(MimWorld *w) { return w->builtin.idx; }
MimDef *mim_type_bool(MimWorld *w) { return w->builtin.bool_; }

bool mim_is_lit(MimDef *d, uint64_t *value) {
    if (!d) return false;
    if (d->node == MIM_INFER) return mim_def_lit(d, value);
    if (d->node != MIM_LIT) return false;
    if (value) *value = d->flags;
    return true;
}

MimDef *mim_idx_size(MimWorld *w, MimDef *T) {
    T = mim_res(w, T);
    if (!mim_is(T, MIM_APP) || mim_res(w, T->ops[0]) != w->builtin.idx) return NULL;
    return mim_res(w, T->ops[1]);
}

/* `Idx s` is the application of the Idx builtin. A size of type Nat cannot
 * fail the check, so it is applied directly (the common, hot case). */
MimDef *mim_type_idx(MimWorld *w, MimDef *size) {
    size = mim_res(w, size);
    if (!size) return NULL;
    if (!(size->dep & MIM_DEP_INFER) && size->type == w->builtin.nat)
        return mim_app_normalize(w, w->builtin.star, w->builtin.idx, size);
    return mim_app(w, w->builtin.idx, size);
}

/* Not while the builtins are made (nat_max is the last one): they keep the
 * gids of the reference's creation order (semantics.md §4.2). */
static bool small_idx_cached(const MimWorld *w, uint64_t size) {
    return size < MIM_SMALL_IDX && w->builtin.nat_max;
}

MimDef *mim_type_idx_n(MimWorld *w, uint64_t size) {
    if (!small_idx_cached(w, size)) return mim_type_idx(w, mim_lit_nat(w, size));
    if (!w->small_idx[size]) w->small_idx[size] = mim_type_idx(w, mim_lit_nat(w, size));
    return w->small_idx[size];
}

MimDef *mim_type_int(MimWorld *w, unsigned width) {
    return mim_type_idx_n(w, width >= 64 ? 0 : UINT64_C(1) << width);
}

MimDef *mim_lit(MimWorld *w, MimDef *type, uint64_t value) {
    type = mim_res(w, type);
    if (!type) return NULL;
    MimDef *size = mim_idx_size(w, type);
    if (size) {
        uint64_t s;
        if (mim_is_lit(size, &s)) {
            if (s != 0 && value >= s) {
                /* size and value in this order (reference quirk, §4.1) */
                mim_err(w, "index '%s' does not fit within arity '%llu'", mim_str(w, size),
                        (unsigned long long)value);
                return NULL;
            }
        } else if (value != 0) {
            mim_err(w, "cannot create literal '%llu' of 'Idx %s' as size is unknown",
                    (unsigned long long)value, mim_str(w, size));
            return NULL;
        }
    }
    return mim_unify(w, MIM_LIT, type, value, NULL, 0);
}

MimDef *mim_lit_nat(MimWorld *w, uint64_t value) {
    return mim_unify(w, MIM_LIT, w->builtin.nat, value, NULL, 0);
}

MimDef *mim_lit_idx(MimWorld *w, uint64_t size, uint64_t value) {
    if (!small_idx_cached(w, size) || value >= size) return mim_lit(w, mim_type_idx_n(w, size), value);
    MimDef **slot = &w->small_idx_lit[size * (size - 1) / 2 + value];
    if (!*slot) *slot = mim_lit(w, mim_type_idx_n(w, size), value);
    return *slot;
}

void mim_world_fill_small_idx(MimWorld *w) {
    for (uint64_t size = 0; size < MIM_SMALL_IDX; ++size)
        for (uint64_t value = 0; value < size; ++value) mim_lit_idx(w, size, value);
    mim_type_idx_n(w, 0);
}

MimDef *mim_lit_idx_mod(MimWorld *w, uint64_t size, uint64_t value) {
    return mim_lit_idx(w, size, size ? value % size : value);
}

MimDef *mim_lit_int(MimWorld *w, unsigned width, uint64_t value) {
    return mim_lit(w, mim_type_int(w, width), value);
}

MimDef *mim_lit_bool(MimWorld *w, bool value) { return value ? w->builtin.tt : w->builtin.ff; }

/* ⊥/⊤ of an array is a pack, of a sigma a tuple, element-wise (§4.12). */
static MimDef *bound(MimWorld *w, MimNode node, MimDef *type) {
    type = mim_res(w, type);
    if (!type) return NULL;
    if (type->node == MIM_ARR) {
        MimDef *shape = type->ops[0];
        return mim_pack(w, shape, bound(w, node, type->ops[1]));
    }
    if (type->node == MIM_SIGMA) {
        size_t n = type->num_ops;
        MIM_SCRATCH(elems, n);
        MimDef *res = NULL;
        for (size_t i = 0; i < n; ++i)
            if (!(elems[i] = bound(w, node, type->ops[i]))) goto out;
        res = mim_tuple_typed(w, type, elems, n);
    out:
        MIM_SCRATCH_FREE(elems);
        return res;
    }
    return mim_unify(w, node, type, 0, NULL, 0);
}

MimDef *mim_bot(MimWorld *w, MimDef *type) { return bound(w, MIM_BOT, type); }
MimDef *mim_top(MimWorld *w, MimDef *type) { return bound(w, MIM_TOP, type); }
