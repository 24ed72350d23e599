/* Sigmas and tuples (semantics.md §4.6, §4.7, §4.9), arrays and packs
 * (§4.8) with their shape rules, projection and arity (§2), and the
 * completion checks of mutable Sigma and Arr. */
#include "ir/build.h"
#include "ir/check.h"

/* ---- helpers ------------------------------------------------------------- */

/* Resolve ops[0..n) into out; false if any is NULL. */
static bool resolve_all(MimWorld *w, MimDef *const *ops, size_t n, MimDef **out) {
    for (size_t i = 0; i < n; ++i)
        if (!(out[i] = mim_res(w, ops[i]))) return false;
    return true;
}

/* The axiom heading the immutable application chain d (`ax a b …`), or
 * NULL if d is not such a chain. */
static MimDef *head_axiom(MimWorld *w, MimDef *d) {
    while (d && mim_is(d, MIM_APP) && !d->is_mut) d = mim_res(w, d->ops[0]);
    return d && mim_is(d, MIM_AXIOM) ? d : NULL;
}

/* Strict α-equivalence (§8) compares applications operand by operand, the
 * callee first, and two axioms with different ids never agree: calls of
 * different axioms (e.g. a `%regex.disj` tree beside a `%regex.conj` word,
 * paired by the thousand in a big disjunction) are told apart without the
 * full α-comparison, which compares their types first. */
static bool distinct_heads(MimWorld *w, MimDef *a, MimDef *b) {
    MimDef *ha = head_axiom(w, a), *hb = head_axiom(w, b);
    return ha && hb && ha->flags != hb->flags;
}

/* is_uniform of §8: all elements strictly α-equivalent to the first. Two
 * distinct nodes free of variables, mutables and holes are hash-consed
 * normal forms, hence never α-equivalent: no need to ask; nor for the
 * usual elements with variables, (0, v#1) or (v#0, v#1) (mim_quick_differ). */
static bool is_uniform(MimWorld *w, MimDef *const *es, size_t n) {
    const unsigned open = MIM_DEP_VAR | MIM_DEP_MUT | MIM_DEP_INFER;
    for (size_t i = 1; i < n; ++i) {
        if (es[i] == es[0]) continue;
        if (!((es[0]->dep | es[i]->dep) & open) || mim_quick_differ(es[0], es[i])) return false;
        if (distinct_heads(w, es[0], es[i])) return false;
        if (!mim_alpha(w, es[0], es[i], false)) return false;
    }
    return true;
}

static bool is_mut_sigma(const MimDef *d) { return mim_is(d, MIM_SIGMA) && d->is_mut; }

/* ---- sigma ----------------------------------------------------------------- */

MimDef *mim_unit_type(MimWorld *w) { return w->builtin.unit_type; }
MimDef *mim_unit(MimWorld *w) { return w->builtin.unit; }

MimDef *mim_sigma(MimWorld *w, MimDef *const *ops, size_t n) {
    MIM_SCRATCH(es, n);
    MimDef *res = NULL;
    if (!resolve_all(w, ops, n, es)) goto out;
    if (n == 0) res = w->builtin.unit_type;
    else if (n == 1) res = es[0];                                         /* N-Sig₁ */
    else if (is_uniform(w, es, n)) res = mim_arr(w, mim_lit_nat(w, n), es[0]); /* N-ArrSig */
    else res = mim_unify(w, MIM_SIGMA, mim_sort_of_types(w, es, n), 0, es, n);
out:
    MIM_SCRATCH_FREE(es);
    return res;
}

MimDef *mim_mut_sigma(MimWorld *w, MimDef *type, size_t n) {
    return mim_alloc_mut(w, MIM_SIGMA, mim_res(w, type), 0, n);
}

/* A differing sort replaces the declared one only if α-equivalent; otherwise
 * the reference merely logs a warning and keeps the declared sort. */
MimDef *mim_complete_sigma(MimWorld *w, MimDef *sigma) {
    MimDef *sort = mim_sort_of_types(w, sigma->ops, sigma->num_ops);
    if (!sort) return NULL;
    if (sort != sigma->type && mim_alpha(w, sort, sigma->type, true)) return sort;
    return sigma->type;
}

/* ---- tuple ------------------------------------------------------------------ */

/* N-Tup_η: (t#0, t#1, …, t#(n-1)) of type T = type(t) is t. */
static MimDef *eta(MimWorld *w, MimDef *T, MimDef *const *es, size_t n) {
    if (n == 0 || es[0]->node != MIM_EXTRACT) return NULL;
    MimDef *t = mim_res(w, es[0]->ops[0]);
    if (mim_res(w, t->type) != T) return NULL;
    for (size_t i = 0; i < n; ++i) {
        uint64_t k;
        if (es[i]->node != MIM_EXTRACT || mim_res(w, es[i]->ops[0]) != t) return NULL;
        if (!mim_is_lit(mim_res(w, es[i]->ops[1]), &k) || k != i) return NULL;
    }
    return t;
}

MimDef *mim_tuple_typed(MimWorld *w, MimDef *type, MimDef *const *ops, size_t n) {
    MIM_SCRATCH(es, n);
    MimDef *res = NULL;
    type = mim_res(w, type);
    if (!type || !resolve_all(w, ops, n, es)) goto out;
    if (!is_mut_sigma(type)) {
        if (n == 0) {
            res = w->builtin.unit;
            goto out;
        }
        if (n == 1) {
            res = es[0]; /* N-Tup₁ */
            goto out;
        }
        if (is_uniform(w, es, n)) {
            res = mim_pack(w, mim_lit_nat(w, n), es[0]); /* N-PackTup */
            goto out;
        }
    }
    res = eta(w, type, es, n);
    if (!res) res = mim_unify(w, MIM_TUPLE, type, 0, es, n);
out:
    MIM_SCRATCH_FREE(es);
    return res;
}

MimDef *mim_tuple(MimWorld *w, MimDef *const *ops, size_t n) {
    if (n == 1) return mim_res(w, ops[0]);
    MIM_SCRATCH(types, n);
    MimDef *res = NULL;
    for (size_t i = 0; i < n; ++i)
        if (!(types[i] = mim_type_of_checked(w, ops[i]))) goto out;
    MimDef *sigma = mim_sigma(w, types, n);
    res = mim_tuple_typed(w, sigma, ops, n);
    if (res && mim_type_of(w, res) != sigma && !mim_assignable(w, sigma, res)) {
        mim_err(w, "cannot assign tuple '%s' of type '%s' to incompatible tuple type '%s'",
                mim_str(w, res), mim_str(w, mim_type_of(w, res)), mim_str(w, sigma));
        res = NULL;
    }
out:
    MIM_SCRATCH_FREE(types);
    return res;
}

/* ---- arrays and packs ---------------------------------------------------------- */

/* Nat, «s; Nat», or an immutable sigma of Nats (§4.8 step 1). */
static bool is_shape_type(MimWorld *w, MimDef *T) {
    MimDef *nat = w->builtin.nat;
    if (T == nat) return true;
    if (mim_is(T, MIM_ARR)) return mim_res(w, T->ops[1]) == nat;
    if (mim_is(T, MIM_SIGMA) && !T->is_mut) {
        for (uint32_t i = 0; i < T->num_ops; ++i)
            if (mim_res(w, T->ops[i]) != nat) return false;
        return true;
    }
    return false;
}

static MimDef *seq(MimWorld *w, bool is_arr, MimDef *shape, MimDef *body);

/* «(a, b, …)#i; T» → («a; T», «b; T», …)#i (arrays only, step 3). */
static MimDef *seq_of_extract(MimWorld *w, MimDef *tup, MimDef *index, MimDef *body) {
    size_t n = tup->num_ops;
    MIM_SCRATCH(elems, n);
    MimDef *res = NULL;
    for (size_t i = 0; i < n; ++i)
        if (!(elems[i] = seq(w, true, tup->ops[i], body))) goto out;
    res = mim_extract(w, mim_tuple(w, elems, n), index);
out:
    MIM_SCRATCH_FREE(elems);
    return res;
}

static MimDef *seq(MimWorld *w, bool is_arr, MimDef *shape, MimDef *body) {
    shape = mim_res(w, shape);
    body = mim_res(w, body);
    if (!shape || !body) return NULL;
    MimDef *shape_type = mim_type_of(w, shape);
    if (!shape_type) return NULL;
    if (!is_shape_type(w, shape_type)) {
        mim_err(w, "expected shape but got '%s' of type '%s'", mim_str(w, shape),
                mim_str(w, shape_type));
        return NULL;
    }
    uint64_t s;
    if (mim_is_lit(shape, &s)) {
        if (s == 0) return is_arr ? w->builtin.unit_type : w->builtin.unit; /* N-Arr₀ */
        if (s == 1) return body;                                            /* N-Arr₁ */
    }
    if (is_arr && shape->node == MIM_EXTRACT) {
        MimDef *tup = mim_res(w, shape->ops[0]);
        if (mim_is(tup, MIM_TUPLE)) return seq_of_extract(w, tup, shape->ops[1], body);
    }
    if (shape->node == MIM_TUPLE && shape->num_ops >= 2) { /* «(a, b…); T» → «a; «(b…); T»» */
        MimDef *rest = mim_tuple(w, shape->ops + 1, shape->num_ops - 1);
        return seq(w, is_arr, shape->ops[0], seq(w, is_arr, rest, body));
    }
    uint64_t k;
    if (shape->node == MIM_PACK && !shape->is_mut && mim_literal_arity(w, shape, &k) && k >= 1) {
        MimDef *x = shape->ops[0]; /* «‹k; x›; T» → «x; «‹k-1; x›; T»» */
        MimDef *rest = mim_pack(w, mim_lit_nat(w, k - 1), x);
        return seq(w, is_arr, x, seq(w, is_arr, rest, body));
    }
    MimDef *body_type = mim_type_of_checked(w, body);
    if (is_arr) {
        MimDef *ops[2] = {shape, body};
        return mim_unify(w, MIM_ARR, body_type, 0, ops, 2);
    }
    return mim_unify(w, MIM_PACK, seq(w, true, shape, body_type), 0, &body, 1);
}

MimDef *mim_arr(MimWorld *w, MimDef *shape, MimDef *body) { return seq(w, true, shape, body); }
MimDef *mim_pack(MimWorld *w, MimDef *shape, MimDef *body) { return seq(w, false, shape, body); }

MimDef *mim_mut_arr(MimWorld *w, MimDef *type) {
    return mim_alloc_mut(w, MIM_ARR, mim_res(w, type), 0, 2);
}

MimDef *mim_mut_pack(MimWorld *w, MimDef *type) {
    return mim_alloc_mut(w, MIM_PACK, mim_res(w, type), 0, 1);
}

/* The type of a mutable Arr is its body's type (α-equivalent to the
 * declared one). */
MimDef *mim_complete_arr(MimWorld *w, MimDef *arr) {
    MimDef *t = mim_type_of(w, arr->ops[1]);
    if (!t) return NULL;
    if (!mim_alpha(w, t, arr->type, true)) {
        mim_err(w, "declared sort '%s' of array does not match inferred one '%s'",
                mim_str(w, arr->type), mim_str(w, t));
        return NULL;
    }
    return t;
}

MimDef *mim_seq_body_at(MimWorld *w, MimDef *seq_, MimDef *i) {
    return mim_seq_body_at_kept(w, seq_, i, NULL);
}

MimDef *mim_seq_body_at_kept(MimWorld *w, MimDef *seq_, MimDef *i, MimPtrMap *kept) {
    MimDef *body = seq_->node == MIM_ARR ? seq_->ops[1] : seq_->ops[0];
    if (!seq_->is_mut || !mim_is(mim_mut_ext(seq_)->var, MIM_VAR)) return mim_res(w, body);
    return mim_subst_kept(w, body, seq_, i, kept);
}

/* ---- projection and arity ---------------------------------------------------- */

MimDef *mim_proj(MimWorld *w, MimDef *v, uint64_t arity, uint64_t index) {
    v = mim_res(w, v);
    if (!v) return NULL;
    if (arity == 1 && (v->node == MIM_TYPE || (!is_mut_sigma(v) && !is_mut_sigma(mim_type_of(w, v)))))
        return v;
    switch ((MimNode)v->node) {
    case MIM_TUPLE:
    case MIM_SIGMA:
        if (index >= v->num_ops) {
            mim_err(w, "index '%llu' does not fit within arity '%u'", (unsigned long long)index,
                    v->num_ops);
            return NULL;
        }
        return mim_res(w, v->ops[index]);
    case MIM_ARR:
    case MIM_PACK:
        if (!v->is_mut) return mim_res(w, v->node == MIM_ARR ? v->ops[1] : v->ops[0]);
        return mim_seq_body_at(w, v, mim_lit_idx(w, arity, index));
    default: return mim_extract_lit(w, v, arity, index);
    }
}

/* Value → type → kind → Type ends within a few steps; the bound only guards
 * against cyclic types made with mim_mut_set_type. */
MimDef *mim_arity(MimWorld *w, MimDef *d) {
    d = mim_res(w, d);
    for (unsigned steps = 0; d && steps < 64; ++steps, d = mim_type_of(w, d)) {
        switch ((MimNode)d->node) {
        case MIM_SIGMA: return mim_lit_nat(w, d->num_ops);
        case MIM_ARR: return mim_res(w, d->ops[0]);
        case MIM_TYPE:
        case MIM_UNIV: return w->builtin.nat_1;
        default: break;
        }
    }
    return NULL;
}

bool mim_literal_arity(MimWorld *w, MimDef *d, uint64_t *n) {
    return mim_is_lit(mim_arity(w, d), n);
}
