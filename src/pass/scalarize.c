/* Scalarize (opt.md §4.4): flattens the tuple-typed parameters of
 * continuations at their call sites. A call f a of an expandable f (or a
 * branch (f₀,…,fₖ)#i a of expandable ones) becomes f' (flattened a), where
 * f' takes the flattened components (Σ types and arrays of literal arity up
 * to the scalarize threshold, recursively) and rebuilds f's parameter from
 * them. Other occurrences of f keep referring to f. */
#include "pass/std.h"

#include "mim/vec.h"

#include <stdlib.h>

typedef struct Scalarize {
    StdPass std;
    MimPtrMap scalar;    /* f -> f' (f itself if nothing to flatten) */
    MimPtrMap is_scalar; /* the f' created */
} Scalarize;

typedef MIM_VEC(MimDef *) Vec;

/* Should a component of type T be opened up? Then *n is its arity. */
static bool splittable(MimWorld *w, MimDef *T, uint64_t *n) {
    T = mim_res(w, T);
    if (!T || T->is_mut) return false;
    if (T->node == MIM_SIGMA) return (*n = T->num_ops) > 1;
    return T->node == MIM_ARR && mim_is_lit(T->ops[0], n) && *n > 1 &&
           *n <= mim_world_scalarize_threshold(w) && !(mim_res(w, T->ops[1])->dep & MIM_DEP_VAR);
}

static MimDef *elem_type(MimWorld *w, MimDef *T, uint64_t i) {
    T = mim_res(w, T);
    return T->node == MIM_SIGMA ? T->ops[i] : mim_res(w, T->ops[1]);
}

static void flatten_type(MimWorld *w, MimDef *T, Vec *out) {
    uint64_t n;
    if (!splittable(w, T, &n)) {
        mim_vec_push(out, T);
        return;
    }
    for (uint64_t i = 0; i < n; ++i) flatten_type(w, elem_type(w, T, i), out);
}

static void flatten_val(MimWorld *w, MimDef *v, MimDef *T, Vec *out) {
    uint64_t n;
    if (!splittable(w, T, &n)) {
        mim_vec_push(out, v);
        return;
    }
    for (uint64_t i = 0; i < n; ++i) flatten_val(w, mim_proj(w, v, n, i), elem_type(w, T, i), out);
}

/* A value of type T from the flat parameters vars[*k…]. */
static MimDef *unflatten(MimWorld *w, MimDef *T, MimDef *const *vars, size_t *k) {
    uint64_t n;
    if (!splittable(w, T, &n)) return vars[(*k)++];
    MimDef **elems = mim_xmalloc(n * sizeof *elems);
    for (uint64_t i = 0; i < n; ++i) elems[i] = unflatten(w, elem_type(w, T, i), vars, k);
    MimDef *res = mim_tuple_typed(w, T, elems, n);
    free(elems);
    return res;
}

static bool expandable(Scalarize *s, MimWorld *w, MimDef *f) {
    if (!mim_is_workable_lam(f) || mim_ptrmap_has(&s->is_scalar, f)) return false;
    MimDef *pi = mim_lam_imm_pi(w, f);
    return pi && mim_pi_is_cn(pi) && mim_dom_arity(w, f) > 1;
}

/* f' for an expandable f (memoized; f itself if nothing is flattened). */
static MimDef *scalar_version(Scalarize *s, MimWorld *w, MimDef *f) {
    void **memo = mim_ptrmap_find(&s->scalar, f);
    if (memo) return *memo;
    MimDef *dom = mim_res(w, mim_lam_imm_pi(w, f)->ops[0]);
    Vec flat = {0};
    flatten_type(w, dom, &flat);
    MimDef *res = f;
    if (flat.len != mim_dom_arity(w, f)) {
        MimDef *lam = mim_mut_lam(w, mim_cn(w, mim_sigma(w, flat.data, flat.len)));
        if (!lam) goto done;
        mim_def_set_name(lam, f->name);
        Vec vars = {0};
        for (size_t i = 0; i < flat.len; ++i) mim_vec_push(&vars, mim_var_proj(w, lam, flat.len, i));
        size_t k = 0;
        MimDef *arg = unflatten(w, dom, vars.data, &k);
        mim_vec_free(&vars);
        MimDef *filter, *body;
        if (!arg || !mim_lam_instantiate(w, f, arg, &filter, &body) || !mim_lam_set(w, lam, filter, body))
            goto done;
        mim_ptrmap_put(&s->is_scalar, lam, NULL);
        mim_eta_exp_derive(s->std.link, lam, f);
        res = lam;
    }
done:
    mim_vec_free(&flat);
    mim_ptrmap_put(&s->scalar, f, res);
    return res;
}

static MimDef *flat_arg(MimWorld *w, MimDef *f, MimDef *arg) {
    MimDef *dom = mim_res(w, mim_lam_imm_pi(w, f)->ops[0]);
    Vec vals = {0};
    flatten_val(w, arg, dom, &vals);
    MimDef *res = mim_tuple(w, vals.data, vals.len);
    mim_vec_free(&vals);
    return res;
}

static MimDef *scalarize_rewrite(MimPass *p, MimDef *d) {
    Scalarize *s = (Scalarize *)p;
    MimWorld *w = mim_pass_world(p);
    if (d->node != MIM_APP) return d;
    MimDef *callee = mim_res(w, d->ops[0]);
    if (expandable(s, w, callee)) {
        MimDef *f2 = scalar_version(s, w, callee);
        return f2 == callee ? d : mim_app(w, f2, flat_arg(w, callee, d->ops[1]));
    }
    /* A branch (f₀, …, fₖ)#i a. */
    if (callee->node != MIM_EXTRACT) return d;
    MimDef *targets = mim_res(w, callee->ops[0]);
    if (targets->node != MIM_TUPLE || targets->num_ops == 0) return d;
    MIM_SCRATCH(fs, targets->num_ops);
    bool all = true, any = false;
    for (uint32_t j = 0; all && j < targets->num_ops; ++j) {
        MimDef *f = mim_res(w, targets->ops[j]);
        all = expandable(s, w, f);
        if (all) any |= (fs[j] = scalar_version(s, w, f)) != f;
    }
    MimDef *res = d;
    if (all && any) {
        MimDef *f0 = mim_res(w, targets->ops[0]);
        MimDef *branch = mim_extract(w, mim_tuple(w, fs, targets->num_ops), callee->ops[1]);
        res = mim_app(w, branch, flat_arg(w, f0, d->ops[1]));
    }
    MIM_SCRATCH_FREE(fs);
    return res;
}

/* Could a call of f be flattened? expandable and scalar_version without
 * building anything: a mutable function type (which mim_lam_imm_pi would
 * immutabilize) counts as yes. */
static bool may_flatten(Scalarize *s, MimWorld *w, MimDef *f) {
    if (!mim_is_workable_lam(f) || mim_ptrmap_has(&s->is_scalar, f)) return false;
    MimDef *pi = mim_res(w, f->type);
    if (!pi || pi->is_mut) return pi != NULL;
    if (pi->node != MIM_PI || !mim_pi_is_cn(pi) || mim_dom_arity(w, f) <= 1) return false;
    void **memo = mim_ptrmap_find(&s->scalar, f);
    if (memo) return *memo != f;
    Vec flat = {0};
    flatten_type(w, pi->ops[0], &flat);
    bool differs = flat.len != mim_dom_arity(w, f);
    mim_vec_free(&flat);
    return differs;
}

/* Idle (mim_pass_idle) when no used lambda could be flattened (a call or a
 * branch to it would be rewritten); never without records (no uses walk in
 * this manager). */
static void scalarize_prepare(MimPass *p) {
    Scalarize *s = (Scalarize *)p;
    MimWorld *w = mim_pass_world(p);
    if (!mim_pass_num_records(p)) return;
    for (uint32_t i = 0, n = mim_pass_num_records(p); i < n; ++i) {
        MimDef *f = mim_pass_record(p, i);
        if (f->node == MIM_LAM && f->is_mut && mim_pass_uses(p, f, NULL) && may_flatten(s, w, f)) return;
    }
    mim_pass_idle(p);
}

static void scalarize_fini(MimPass *p) {
    Scalarize *s = (Scalarize *)p;
    mim_ptrmap_free(&s->scalar);
    mim_ptrmap_free(&s->is_scalar);
}

const MimPassClass mim_scalarize_pass = {.name = "scalarize", .size = sizeof(Scalarize),
                                         .on_lams = true, .prepare = scalarize_prepare,
                                         .rewrite = scalarize_rewrite,
                                         .fini = scalarize_fini};
