/* Function types and functions (semantics.md §4.4, §4.5): immutable and
 * mutable Pi, Cn/Fn shorthands, mutable and immutable Lam, and the checks
 * run when a mutable Pi or Lam is completed. */
#include "ir/build.h"

static MimDef *pi_sort(MimWorld *w, MimDef *dom, MimDef *codom) {
    MimDef *ops[2] = {dom, codom};
    return mim_sort_of_types(w, ops, 2);
}

MimDef *mim_pi(MimWorld *w, MimDef *dom, MimDef *codom, bool implicit) {
    dom = mim_res(w, dom);
    codom = mim_res(w, codom);
    if (!dom || !codom) return NULL;
    MimDef *type = pi_sort(w, dom, codom);
    MimDef *ops[2] = {dom, codom};
    return mim_unify(w, MIM_PI, type, implicit ? MIM_PI_IMPLICIT : 0, ops, 2);
}

MimDef *mim_cn(MimWorld *w, MimDef *dom) { return mim_pi(w, dom, w->builtin.bot_star, false); }

MimDef *mim_fn(MimWorld *w, MimDef *dom, MimDef *ret) {
    dom = mim_res(w, dom);
    if (!dom) return NULL;
    MimDef *ops[2] = {dom, mim_cn(w, ret)};
    return mim_cn(w, mim_sigma(w, ops, 2));
}

MimDef *mim_mut_pi(MimWorld *w, MimDef *type, bool implicit) {
    return mim_alloc_mut(w, MIM_PI, mim_res(w, type), implicit ? MIM_PI_IMPLICIT : 0, 2);
}

/* The sort computed from the operands replaces the declared one, which must
 * be α-equivalent to it (solving holes). */
MimDef *mim_complete_pi(MimWorld *w, MimDef *pi) {
    MimDef *sort = pi_sort(w, pi->ops[0], pi->ops[1]);
    if (!sort) return NULL;
    if (!mim_alpha(w, sort, pi->type, true)) {
        mim_err(w, "declared sort '%s' of function type does not match inferred one '%s'",
                mim_str(w, pi->type), mim_str(w, sort));
        return NULL;
    }
    return sort;
}

MimDef *mim_mut_lam(MimWorld *w, MimDef *pi) {
    pi = mim_res(w, pi);
    if (!pi) return NULL;
    if (pi->node != MIM_PI) {
        mim_err(w, "type '%s' of function is not a function type", mim_str(w, pi));
        return NULL;
    }
    return mim_alloc_mut(w, MIM_LAM, pi, 0, 2);
}

MimDef *mim_lam(MimWorld *w, MimDef *pi, MimDef *filter, MimDef *body) {
    pi = mim_res(w, pi);
    MimDef *ops[2] = {mim_res(w, filter), mim_res(w, body)};
    if (!pi || !ops[0] || !ops[1]) return NULL;
    if (pi->node != MIM_PI) {
        mim_err(w, "type '%s' of function is not a function type", mim_str(w, pi));
        return NULL;
    }
    return mim_unify(w, MIM_LAM, pi, 0, ops, 2);
}

MimDef *mim_lam_set(MimWorld *w, MimDef *lam, MimDef *filter, MimDef *body) {
    if (!lam || !filter || !body) return NULL;
    if (!mim_mut_set(w, lam, 0, filter)) return NULL;
    return mim_mut_set(w, lam, 1, body);
}

/* The filter must be a Bool and the body fit the codomain (§4.5). */
MimDef *mim_complete_lam(MimWorld *w, MimDef *lam) {
    MimDef *filter = mim_res(w, lam->ops[0]), *body = mim_res(w, lam->ops[1]);
    MimDef *ftype = mim_type_of(w, filter);
    if (!ftype) return NULL;
    if (!mim_alpha(w, ftype, w->builtin.bool_, true)) {
        mim_err(w, "filter '%s' of lambda is of type '%s' but must be of type 'Bool'",
                mim_str(w, filter), mim_str(w, ftype));
        return NULL;
    }
    MimDef *pi = mim_res(w, lam->type);
    MimDef *codom = mim_is(pi, MIM_PI) ? mim_res(w, pi->ops[1]) : NULL;
    if (!codom) return NULL;
    if (!mim_assignable(w, codom, body)) {
        mim_err(w, "body of function is not assignable to declared codomain");
        mim_note(w, "body: '%s'", mim_str(w, body));
        mim_note(w, "type: '%s'", mim_str(w, mim_type_of(w, body)));
        mim_note(w, "codomain: '%s'", mim_str(w, codom));
        return NULL;
    }
    return lam->type;
}
