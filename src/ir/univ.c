/* Universes and levels (semantics.md §3): Univ, Type l, UMax, UInc, the
 * on-demand type of `Type l`, and the sorts of Pi and Sigma. */
#include "ir/build.h"

#include <stdlib.h>

MimDef *mim_univ(MimWorld *w) { return w->builtin.univ; }
MimDef *mim_star(MimWorld *w) { return w->builtin.star; }
MimDef *mim_box(MimWorld *w) { return w->builtin.box; }

MimDef *mim_lit_univ(MimWorld *w, uint64_t level) {
    return mim_unify(w, MIM_LIT, w->builtin.univ, level, NULL, 0);
}

static bool is_level(MimWorld *w, MimDef *l) { return mim_type_of(w, l) == w->builtin.univ; }

MimDef *mim_type(MimWorld *w, MimDef *level) {
    level = mim_res(w, level);
    if (!level) return NULL;
    if (!is_level(w, level)) {
        mim_err(w, "argument `%s` to `Type` must be of type `Univ` but is of type `%s`",
                mim_str(w, level), mim_str(w, mim_type_of(w, level)));
        return NULL;
    }
    return mim_unify(w, MIM_TYPE, NULL, 0, &level, 1);
}

MimDef *mim_type_lvl(MimWorld *w, uint64_t l) { return mim_type(w, mim_lit_univ(w, l)); }

/* uinc of a literal is the literal l+1 whatever the offset (reference quirk). */
MimDef *mim_uinc(MimWorld *w, MimDef *level, uint64_t offset) {
    level = mim_res(w, level);
    if (!level) return NULL;
    if (!is_level(w, level)) {
        mim_err(w, "operand '%s' of a universe increment must be of type `Univ` but is of type `%s`",
                mim_str(w, level), mim_str(w, mim_type_of(w, level)));
        return NULL;
    }
    uint64_t l;
    if (mim_is_lit(level, &l)) return mim_lit_univ(w, l + 1);
    return mim_unify(w, MIM_UINC, w->builtin.univ, offset, &level, 1);
}

MimDef *mim_type_of(MimWorld *w, MimDef *d) {
    d = mim_res(w, d);
    if (!d) return NULL;
    if (d->node == MIM_TYPE && !d->is_mut) return mim_type(w, mim_uinc(w, d->ops[0], 1));
    return mim_res(w, d->type);
}

MimDef *mim_type_of_checked(MimWorld *w, MimDef *d) {
    MimDef *t = mim_type_of(w, d);
    if (!t && d && mim_is(mim_res(w, d), MIM_UNIV))
        mim_err(w, "the universe '%s' has no type and cannot be used here", mim_str(w, d));
    return t;
}

static int cmp_gid(const void *a, const void *b) {
    uint32_t x = (*(MimDef *const *)a)->gid, y = (*(MimDef *const *)b)->gid;
    return (x > y) - (x < y);
}

/* The maximum of levels[0..n) (already checked to be of type Univ): the
 * literal maximum if all are literals, else a UMax over the gid-sorted,
 * duplicate-free levels. Sorts levels in place. */
static MimDef *max_of_levels(MimWorld *w, MimDef **levels, size_t n) {
    uint64_t max = 0;
    bool all_lit = true;
    for (size_t i = 0; i < n; ++i) {
        uint64_t l;
        if (mim_is_lit(levels[i], &l)) {
            if (l > max) max = l;
        } else {
            all_lit = false;
        }
    }
    if (all_lit) return mim_lit_univ(w, max);
    qsort(levels, n, sizeof *levels, cmp_gid);
    size_t m = 0;
    for (size_t i = 0; i < n; ++i)
        if (m == 0 || levels[m - 1] != levels[i]) levels[m++] = levels[i];
    return mim_unify(w, MIM_UMAX, w->builtin.univ, 0, levels, m);
}

static size_t count_flat(MimWorld *w, MimDef *const *ops, size_t n) {
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
        MimDef *op = mim_res(w, ops[i]);
        k += mim_is(op, MIM_UMAX) ? op->num_ops : 1;
    }
    return k;
}

/* Nested UMax operands are flattened (semantics.md §3). */
static size_t flatten(MimWorld *w, MimDef *const *ops, size_t n, MimDef **out) {
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
        MimDef *op = mim_res(w, ops[i]);
        if (mim_is(op, MIM_UMAX))
            for (uint32_t j = 0; j < op->num_ops; ++j) out[k++] = op->ops[j];
        else
            out[k++] = op;
    }
    return k;
}

MimDef *mim_umax(MimWorld *w, MimDef *const *levels, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (!levels[i]) return NULL;
    size_t k = count_flat(w, levels, n);
    MIM_SCRATCH(ls, k);
    k = flatten(w, levels, n, ls);
    MimDef *res = NULL;
    for (size_t i = 0; i < k; ++i) {
        if (!is_level(w, ls[i])) {
            mim_err(w, "operand '%s' of a universe max must be of type `Univ` but is of type `%s`",
                    mim_str(w, ls[i]), mim_str(w, mim_type_of(w, ls[i])));
            goto out;
        }
    }
    res = max_of_levels(w, ls, k);
out:
    MIM_SCRATCH_FREE(ls);
    return res;
}

/* Each type's sort must be `Type l`; the result is `Type (max l)`. */
MimDef *mim_sort_of_types(MimWorld *w, MimDef *const *types, size_t n) {
    MIM_SCRATCH(sorts, n);
    MimDef *res = NULL;
    bool same = true;
    for (size_t i = 0; i < n; ++i) {
        sorts[i] = mim_type_of(w, types[i]);
        if (!sorts[i]) {
            if (types[i]) mim_err(w, "operand '%s' must be a Type of some level", mim_str(w, types[i]));
            goto out;
        }
        same &= sorts[i] == sorts[0];
    }
    /* One sort `Type l` with a literal l (mostly `*`): it is the result. */
    if (n && same && sorts[0]->node == MIM_TYPE && !sorts[0]->is_mut && sorts[0]->ops[0]->node == MIM_LIT) {
        res = sorts[0];
        goto out;
    }
    size_t k = count_flat(w, sorts, n);
    MIM_SCRATCH(ls, k);
    k = flatten(w, sorts, n, ls);
    for (size_t i = 0; i < k; ++i) {
        if (!mim_is(ls[i], MIM_TYPE)) {
            mim_err(w, "operand '%s' must be a Type of some level", mim_str(w, ls[i]));
            MIM_SCRATCH_FREE(ls);
            goto out;
        }
        ls[i] = mim_res(w, ls[i]->ops[0]);
    }
    res = mim_type(w, max_of_levels(w, ls, k));
    MIM_SCRATCH_FREE(ls);
out:
    MIM_SCRATCH_FREE(sorts);
    return res;
}
