/* Extraction and insertion (semantics.md §4.10, §4.11), including the typing
 * rules Ex-S_L (literal index into a sigma), Ex-A (arrays) and Ex-S_i
 * (unknown index into a sigma: the element type is computed one level up). */
#include "ir/build.h"

/* An index pack is expanded element-wise; larger ones are left to the
 * index type check (they would only exhaust memory). */
#define MAX_INDEX_PACK (UINT64_C(1) << 20)

static bool is_mut_sigma(const MimDef *d) { return mim_is(d, MIM_SIGMA) && d->is_mut; }

static bool all_lits(MimDef *const *ops, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (!mim_is_lit(ops[i], NULL)) return false;
    return true;
}

/* Index given as a tuple of literals or a pack (§4.10 step 1): a tuple of
 * extractions. NULL if this rule does not apply (*applies false). */
static MimDef *extract_multi(MimWorld *w, MimDef *d, MimDef *index, bool *applies) {
    uint64_t k;
    *applies = false;
    if (index->node == MIM_TUPLE && all_lits(index->ops, index->num_ops)) {
        size_t n = index->num_ops;
        *applies = true;
        MIM_SCRATCH(elems, n);
        MimDef *res = NULL;
        for (size_t i = 0; i < n; ++i) {
            uint64_t v = 0;
            mim_is_lit(index->ops[i], &v);
            if (!(elems[i] = mim_proj(w, d, n, v))) goto out;
        }
        res = mim_tuple(w, elems, n);
    out:
        MIM_SCRATCH_FREE(elems);
        return res;
    }
    if (index->node == MIM_PACK && mim_literal_arity(w, index, &k) && k <= MAX_INDEX_PACK) {
        *applies = true;
        MimDef *e = mim_extract(w, d, index->ops[0]);
        if (!e) return NULL;
        size_t n = (size_t)k;
        MimDef **elems = mim_xmalloc((n ? n : 1) * sizeof *elems);
        for (size_t i = 0; i < n; ++i) elems[i] = e;
        MimDef *res = mim_tuple(w, elems, n);
        free(elems);
        return res;
    }
    return NULL;
}

static void report_arity(MimWorld *w, MimDef *index, MimDef *arity) {
    mim_err(w, "index '%s' does not fit within arity '%s'", mim_str(w, index), mim_str(w, arity));
}

/* The arity of D must match the size s of the index type (inference mode). */
static bool check_arity(MimWorld *w, MimDef *D, MimDef *index, MimDef *s) {
    MimDef *arity = mim_arity(w, D);
    if (!arity) return false;
    if (!s || !mim_alpha(w, arity, s, true)) {
        report_arity(w, index, arity);
        return false;
    }
    return true;
}

/* Ex-S_i: an unknown index into a sigma D gets the type tuple(D's elements)#i.
 * That is only well-founded if the element types live in one universe
 * (their tuple has an array type); otherwise the rule would recurse forever
 * (the reference loops; we report it). */
static MimDef *sigma_elem_type(MimWorld *w, MimDef *d, MimDef *D, MimDef *index) {
    if (D->num_ops == 0) { /* e.g. ‹0; x›#i with i : Idx 0 (whose size 0 means 2^64) */
        mim_err(w, "cannot extract with index '%s' from '%s' of type '%s': it has no elements",
                mim_str(w, index), mim_str(w, d), mim_str(w, D));
        return NULL;
    }
    MimDef *types = mim_tuple(w, D->ops, D->num_ops);
    if (!types) return NULL;
    MimDef *TT = mim_type_of(w, types);
    if (mim_is(TT, MIM_SIGMA)) {
        mim_err(w, "cannot extract with unknown index '%s' from '%s': the element types of '%s' "
                   "live in different universes",
                mim_str(w, index), mim_str(w, d), mim_str(w, D));
        return NULL;
    }
    return mim_extract(w, types, index);
}

MimDef *mim_extract(MimWorld *w, MimDef *d, MimDef *index) {
    d = mim_res(w, d);
    index = mim_res(w, index);
    if (!d || !index) return NULL;

    bool applies;
    MimDef *multi = extract_multi(w, d, index, &applies);
    if (applies) return multi;

    MimDef *s = mim_idx_size(w, mim_type_of(w, index));
    MimDef *D = mim_type_of(w, d);
    if (!D) return NULL;
    uint64_t sv, k;
    if (s && mim_is_lit(s, &sv) && sv == 1 && !(is_mut_sigma(D) && D->num_ops == 1)) return d; /* N-Ex₁ */
    if (d->node == MIM_PACK && !d->is_mut) return mim_res(w, d->ops[0]); /* N-Pack_β */
    if (!check_arity(w, D, index, s)) return NULL;
    if (d->node == MIM_INSERT && mim_res(w, d->ops[1]) == index) return mim_res(w, d->ops[2]);

    MimDef *ops[2] = {d, index};
    if (mim_is_lit(index, &k)) {
        if (d->node == MIM_TUPLE) {
            if (k < d->num_ops) return mim_res(w, d->ops[k]); /* N-Tup_β */
            report_arity(w, index, mim_arity(w, D));
            return NULL;
        }
        if (d->node == MIM_INSERT && mim_is_lit(mim_res(w, d->ops[1]), NULL))
            return mim_extract(w, d->ops[0], index);
        if (D->node == MIM_SIGMA) { /* Ex-S_L */
            if (k >= D->num_ops) {
                report_arity(w, index, mim_arity(w, D));
                return NULL;
            }
            MimDef *t = mim_res(w, D->ops[k]);
            if (D->is_mut && mim_is(mim_mut_ext(D)->var, MIM_VAR)) t = mim_subst(w, t, D, d);
            return mim_unify(w, MIM_EXTRACT, t, 0, ops, 2);
        }
    }
    MimDef *elem_type;
    if (D->node == MIM_ARR) {
        elem_type = mim_seq_body_at(w, D, index); /* Ex-A */
    } else if (D->node == MIM_SIGMA) {
        elem_type = sigma_elem_type(w, d, D, index); /* Ex-S_i */
    } else {
        mim_err(w, "cannot extract from '%s' of type '%s' with index '%s'", mim_str(w, d),
                mim_str(w, D), mim_str(w, index));
        return NULL;
    }
    return mim_unify(w, MIM_EXTRACT, elem_type, 0, ops, 2);
}

MimDef *mim_extract_lit(MimWorld *w, MimDef *tuple, uint64_t arity, uint64_t index) {
    return mim_extract(w, tuple, mim_lit_idx(w, arity, index));
}

/* Type of element k (index i, a literal) of D. */
static MimDef *elem_type_at(MimWorld *w, MimDef *D, MimDef *i, uint64_t k) {
    uint64_t a;
    if (mim_literal_arity(w, D, &a)) return mim_proj(w, D, a, k);
    if (mim_is(D, MIM_ARR)) return mim_seq_body_at(w, D, i);
    return mim_proj(w, D, 1, k);
}

static MimDef *replace_op(MimWorld *w, MimDef *type, MimDef *const *ops, size_t n, size_t k,
                          MimDef *v) {
    MimDef **es = mim_xmalloc((n ? n : 1) * sizeof *es);
    for (size_t i = 0; i < n; ++i) es[i] = ops[i];
    es[k] = v;
    MimDef *res = mim_tuple_typed(w, type, es, n);
    free(es);
    return res;
}

MimDef *mim_insert(MimWorld *w, MimDef *d, MimDef *index, MimDef *v) {
    d = mim_res(w, d);
    index = mim_res(w, index);
    v = mim_res(w, v);
    if (!d || !index || !v) return NULL;
    MimDef *D = mim_type_of(w, d);
    if (!D) return NULL;
    MimDef *s = mim_idx_size(w, mim_type_of(w, index));
    if (!check_arity(w, D, index, s)) return NULL;

    uint64_t k, sv, a;
    bool lit_index = mim_is_lit(index, &k);
    if (lit_index) {
        MimDef *elem_type = elem_type_at(w, D, index, k);
        if (!elem_type) return NULL;
        if (!mim_assignable(w, elem_type, v)) {
            mim_err(w, "value to be inserted not assignable to element");
            mim_note(w, "vvv value type vvv\n'%s'\n'%s'", mim_str(w, mim_type_of(w, v)),
                     mim_str(w, elem_type));
            mim_note(w, "^^^ element type ^^^");
            return NULL;
        }
    }
    if (mim_is_lit(s, &sv) && sv == 1) return v;
    if (lit_index && d->node == MIM_TUPLE && k < d->num_ops)
        return replace_op(w, mim_res(w, d->type), d->ops, d->num_ops, (size_t)k, v);
    if (lit_index && d->node == MIM_PACK && !d->is_mut && mim_literal_arity(w, d, &a) &&
        a < w->scalarize_threshold && k < a) {
        size_t n = (size_t)a;
        MimDef **body = mim_xmalloc((n ? n : 1) * sizeof *body);
        for (size_t i = 0; i < n; ++i) body[i] = d->ops[0];
        MimDef *res = replace_op(w, D, body, n, (size_t)k, v);
        free(body);
        return res;
    }
    if (d->node == MIM_INSERT && mim_res(w, d->ops[1]) == index) d = mim_res(w, d->ops[0]);
    MimDef *ops[3] = {d, index, v};
    return mim_unify(w, MIM_INSERT, D, 0, ops, 3);
}
