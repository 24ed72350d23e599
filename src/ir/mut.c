/* Mutable nodes (semantics.md §5): setting operands with the completion
 * checks, variables of binders (§2), and immutabilization (§5.4). */
#include "ir/build.h"
#include "ir/check.h"

/* The check of a completed mutable (§4.4–4.8): its new type or NULL. */
static MimDef *complete(MimWorld *w, MimDef *mut) {
    for (uint32_t i = 0; i < mut->num_ops; ++i) {
        if (!mut->ops[i]) { /* operands are set left to right */
            mim_err(w, "operand %u of '%s' is set after the last one", i, mim_str(w, mut));
            return NULL;
        }
    }
    switch ((MimNode)mut->node) {
    case MIM_PI: return mim_complete_pi(w, mut);
    case MIM_LAM: return mim_complete_lam(w, mut);
    case MIM_SIGMA: return mim_complete_sigma(w, mut);
    case MIM_ARR: return mim_complete_arr(w, mut);
    default: return mut->type;
    }
}

MimDef *mim_mut_set(MimWorld *w, MimDef *mut, size_t i, MimDef *op) {
    op = mim_res(w, op);
    if (!mut || !op || w->frozen) return NULL;
    if (!mut->is_mut || i >= mut->num_ops) {
        mim_err(w, "cannot set operand %zu of '%s'", i, mim_str(w, mut));
        return NULL;
    }
    mut->ops[i] = op;
    w->mutations++;
    mim_fv_invalidate(w, mut);
    if (i + 1 == mut->num_ops) {
        MimDef *type = complete(w, mut);
        if (!type) return NULL;
        mut->type = mim_res(w, type);
    }
    return mut;
}

void mim_mut_unset(MimWorld *w, MimDef *mut) {
    if (!mut || !mut->is_mut) return;
    for (uint32_t i = 0; i < mut->num_ops; ++i) mut->ops[i] = NULL;
    w->mutations++;
    mim_fv_invalidate(w, mut);
}

void mim_mut_set_type(MimWorld *w, MimDef *mut, MimDef *type) {
    type = mim_res(w, type);
    if (!mut || !mut->is_mut || !type) return;
    mut->type = type;
    w->mutations++;
    mim_fv_invalidate(w, mut);
}

/* ---- variables ------------------------------------------------------------ */

/* Shape of a mutable pack: stored in its type «shape; T» (§2). */
static MimDef *pack_shape(MimWorld *w, MimDef *pack) {
    MimDef *T = mim_res(w, pack->type);
    if (mim_is(T, MIM_ARR)) return mim_res(w, T->ops[0]);
    return T == w->builtin.unit_type ? w->builtin.nat_0 : w->builtin.nat_1;
}

/* Type of the variable a binder introduces (§2), NULL if it has none. */
static MimDef *var_type(MimWorld *w, MimDef *mut) {
    switch ((MimNode)mut->node) {
    case MIM_PI: return mim_res(w, mut->ops[0]);
    case MIM_LAM: {
        MimDef *pi = mim_res(w, mut->type);
        return mim_is(pi, MIM_PI) ? mim_res(w, pi->ops[0]) : NULL;
    }
    case MIM_SIGMA: return mut;
    case MIM_ARR: return mim_type_idx(w, mut->ops[0]);
    case MIM_PACK: return mim_type_idx(w, pack_shape(w, mut));
    default: return NULL;
    }
}

MimDef *mim_var(MimWorld *w, MimDef *mut) {
    mut = mim_res(w, mut);
    if (!mut || !mut->is_mut) return NULL;
    if (mim_mut_ext(mut)->var) return mim_mut_ext(mut)->var;
    MimDef *T = var_type(w, mut);
    if (!T) return NULL;
    uint64_t s;
    if (mim_is_lit(mim_idx_size(w, T), &s) && s == 1) return w->builtin.lit_0_1; /* not recorded */
    if (w->frozen) return NULL; /* never created: absent while printing */
    MimDef *var = mim_unify(w, MIM_VAR, T, 0, &mut, 1);
    if (var) {
        mim_mut_ext(mut)->var = var;
        mut->var_made = 1;
    }
    return var;
}

/* ---- immutabilization (§5.4) ----------------------------------------------- */

/* Does one of mut's operands lead back to mut itself through other mutables
 * (a recursive type such as `rec Tree = [Nat, «2; Tree»]`)? Such a type
 * is kept mutable: an immutable copy would refer to the original and unroll
 * the recursion by one level at every rewrite (decision, docs/decisions.md). */
static bool refers_to_self(MimWorld *w, MimDef *mut) {
    MimPtrMap seen;
    MimPtrMapSlot few[MIM_MAP_INLINE]; /* mostly a handful of nodes */
    mim_ptrmap_lend(&seen, few);
    MimDefVec todo = {0};
    for (uint32_t i = 0; i < mut->num_ops; ++i)
        if (mut->ops[i]) mim_vec_push(&todo, mut->ops[i]);
    bool found = false;
    while (todo.len && !found) {
        MimDef *d = mim_res(w, mim_vec_pop(&todo));
        if (!d || !(d->dep & MIM_DEP_MUT)) continue;
        if (d == mut) found = true;
        else if (mim_ptrmap_add(&seen, d, NULL, NULL))
            for (uint32_t i = 0; i < d->num_ops; ++i)
                if (d->ops[i]) mim_vec_push(&todo, d->ops[i]);
    }
    mim_vec_free(&todo);
    mim_ptrmap_free(&seen);
    return found;
}

static bool var_used_in(MimWorld *w, MimDef *mut, MimDef *const *ops, size_t n) {
    MimDef *var = mim_mut_has_var(mut);
    if (!var) return false;
    for (size_t i = 0; i < n; ++i)
        if (mim_has_free_var(w, ops[i], var)) return true;
    return false;
}

/* A used index variable with a small literal shape n expands the binder to
 * the sigma/tuple of its n instances (N-SigArr, N-TupPack). */
static MimDef *scalarize(MimWorld *w, MimDef *mut, MimDef *shape) {
    uint64_t n;
    if (!mim_is_lit(shape, &n) || n >= w->scalarize_threshold) return mut;
    MimDef **elems = mim_xmalloc((n ? n : 1) * sizeof *elems);
    MimDef *res = NULL;
    MimPtrMap kept = {0}; /* the part of the body that no element changes */
    for (uint64_t i = 0; i < n; ++i)
        if (!(elems[i] = mim_seq_body_at_kept(w, mut, mim_lit_idx(w, n, i), &kept))) goto out;
    res = mut->node == MIM_ARR ? mim_sigma(w, elems, (size_t)n) : mim_tuple(w, elems, (size_t)n);
out:
    mim_ptrmap_free(&kept);
    free(elems);
    return res;
}

MimDef *mim_immutabilize(MimWorld *w, MimDef *mut) {
    mut = mim_res(w, mut);
    if (!mut || !mut->is_mut || !mim_def_is_set(mut)) return mut;
    switch ((MimNode)mut->node) {
    case MIM_PI: /* the implicit bit is dropped (reference quirk) */
        if (var_used_in(w, mut, &mut->ops[1], 1) || refers_to_self(w, mut)) return mut;
        return mim_pi(w, mut->ops[0], mut->ops[1], false);
    case MIM_SIGMA:
        if (var_used_in(w, mut, mut->ops, mut->num_ops) || refers_to_self(w, mut)) return mut;
        return mim_sigma(w, mut->ops, mut->num_ops);
    case MIM_ARR:
        if (!var_used_in(w, mut, &mut->ops[1], 1)) return mim_arr(w, mut->ops[0], mut->ops[1]);
        return scalarize(w, mut, mim_res(w, mut->ops[0]));
    case MIM_PACK: {
        MimDef *shape = pack_shape(w, mut);
        if (!var_used_in(w, mut, mut->ops, 1)) return mim_pack(w, shape, mut->ops[0]);
        return scalarize(w, mut, shape);
    }
    default: return mut;
    }
}
