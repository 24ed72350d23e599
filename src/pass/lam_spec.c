/* lam_spec (opt.md §4.6): specializes directly called functions on their
 * function-typed arguments, removing higher-order parameters before code
 * generation. A call f (a₀, …, aₙ) of a workable, non-recursive f (recursive
 * ones too with --aggr-lam-spec) becomes f' (the non-function arguments
 * [, the return continuation if f returns and is closed]) where f' has f's
 * body with the function parameters replaced by this call's arguments.
 * Function arguments that depend on variables (not lambdas) are kept as
 * parameters: f' would otherwise refer to a variable of the caller. */
#include "pass/pm.h"
#include "pass/std.h"

#include "mim/vec.h"

#include <stdlib.h>

typedef struct LamSpec {
    StdPass std;
    MimPtrMap memo;      /* call -> rewritten call */
    MimPairMap spec;     /* (f, tuple of the function arguments) -> specialized f */
    MimPtrMap recursive; /* recursive lambdas at the start of the traversal */
} LamSpec;

typedef MIM_VEC(MimDef *) Vec;

static bool is_fn_type(MimWorld *w, MimDef *T) {
    T = mim_res(w, T);
    return T && T->node == MIM_PI;
}

/* Could a call of f be specialized? specialize's checks of f alone, without
 * building anything: a function-typed parameter that is not the return
 * continuation of a closed f (a mutable function type counts as yes). */
static bool may_specialize(MimWorld *w, MimDef *f) {
    MimDef *pi = mim_res(w, f->type);
    if (!pi || pi->is_mut) return pi != NULL;
    if (pi->node != MIM_PI || !mim_pi_is_cn(pi)) return false;
    MimDef *dom = mim_res(w, pi->ops[0]);
    uint64_t n = mim_dom_arity(w, f);
    if (n > 1 && dom->node != MIM_SIGMA) return false;
    for (uint64_t i = 0; i < n; ++i)
        if (is_fn_type(w, n == 1 ? dom : dom->ops[i]) &&
            !(i + 1 == n && mim_has_ret(w, f) && mim_is_closed(w, f)))
            return true;
    return false;
}

/* Idle (mim_pass_idle) without a called workable lambda that
 * may_specialize. The recursion analysis of the traversal start is needed
 * unless the traversal is skipped: alone in its manager and idle. (With
 * other passes the traversal still asks it which calls to try, and trying
 * builds projections: the same ones as always.) */
static void lam_spec_prepare(MimPass *p) {
    LamSpec *s = (LamSpec *)p;
    MimWorld *w = mim_pass_world(p);
    bool work = !mim_pass_num_records(p); /* no uses walk: no telling */
    for (uint32_t i = 0, n = mim_pass_num_records(p); !work && i < n; ++i) {
        MimDef *f = mim_pass_record(p, i);
        unsigned callee;
        work = mim_is_workable_lam(f) && mim_pass_uses(p, f, &callee) && callee && may_specialize(w, f);
    }
    if (!work) mim_pass_idle(p);
    if ((work || mim_pm_num_passes(p->pm) > 1) && !mim_world_aggr_lam_spec(w))
        mim_find_recursive(w, &s->recursive);
}

/* Specializations are shared by all calls with the same function arguments,
 * so the recursive call inside a specialized recursive function (with
 * --aggr-lam-spec) calls the specialization itself instead of creating a new
 * one forever. */
static MimDef *specialize(LamSpec *s, MimWorld *w, MimDef *f, MimDef *arg) {
    uint64_t n = mim_dom_arity(w, f);
    MimDef *pi = mim_lam_imm_pi(w, f), *dom = pi ? mim_res(w, pi->ops[0]) : NULL;
    if (!pi || !mim_pi_is_cn(pi) || (n > 1 && dom->node != MIM_SIGMA)) return NULL;
    bool skip = mim_ret_var(w, f) && mim_is_closed(w, f);
    Vec kept_types = {0}, kept_args = {0};
    MimDef **elem = mim_xmalloc(n * sizeof *elem);
    for (uint64_t i = 0; i < n; ++i) {
        MimDef *T = n == 1 ? dom : mim_res(w, dom->ops[i]);
        MimDef *a = mim_res(w, mim_proj(w, arg, n, i));
        /* a function value computed from variables (e.g. the code of a
         * closure parameter after closure conversion) is kept: f' would
         * refer to a variable of the caller (docs/decisions.md) */
        bool var_value = a && !a->is_mut && (a->dep & MIM_DEP_VAR);
        bool keep = !is_fn_type(w, T) || (skip && i + 1 == n) || var_value;
        if (keep) {
            mim_vec_push(&kept_types, T);
            mim_vec_push(&kept_args, mim_proj(w, arg, n, i));
        }
        elem[i] = keep ? NULL : mim_proj(w, arg, n, i);
    }
    MimDef *res = NULL;
    if (kept_types.len == n) goto done;
    /* Dependent domains (later types mentioning earlier parameters) are not
     * specialized: the kept types are taken as they are. */
    for (size_t i = 0; i < kept_types.len; ++i)
        if (mim_res(w, kept_types.data[i])->dep & MIM_DEP_VAR) goto done;
    size_t k = kept_types.len;
    Vec dropped = {0};
    for (uint64_t i = 0; i < n; ++i)
        if (elem[i]) mim_vec_push(&dropped, elem[i]);
    MimDef *key = mim_tuple(w, dropped.data, dropped.len);
    mim_vec_free(&dropped);
    void **known = key ? mim_pairmap_find(&s->spec, f, key) : NULL;
    if (known) {
        res = mim_app(w, *known, k == 1 ? kept_args.data[0] : mim_tuple(w, kept_args.data, k));
        goto done;
    }
    MimDef *spec = mim_mut_lam(w, mim_cn(w, k == 1 ? kept_types.data[0]
                                                   : mim_sigma(w, kept_types.data, k)));
    if (!spec || !key) goto done;
    mim_pairmap_put(&s->spec, f, key, spec);
    mim_def_set_name(spec, f->name);
    for (uint64_t i = 0, j = 0; i < n; ++i)
        if (!elem[i]) elem[i] = k == 1 ? mim_var(w, spec) : mim_var_proj(w, spec, k, j++);
    MimDef *filter, *body;
    if (!mim_lam_instantiate(w, f, n == 1 ? elem[0] : mim_tuple_typed(w, dom, elem, n), &filter, &body) ||
        !mim_lam_set(w, spec, filter, body))
        goto done;
    res = mim_app(w, spec, k == 1 ? kept_args.data[0] : mim_tuple(w, kept_args.data, k));
done:
    free(elem);
    mim_vec_free(&kept_types);
    mim_vec_free(&kept_args);
    return res;
}

static MimDef *lam_spec_rewrite(MimPass *p, MimDef *d) {
    LamSpec *s = (LamSpec *)p;
    MimWorld *w = mim_pass_world(p);
    if (d->node != MIM_APP) return d;
    MimDef *f = mim_res(w, d->ops[0]);
    if (!mim_is_workable_lam(f)) return d;
    void **memo = mim_ptrmap_find(&s->memo, d);
    if (memo) return *memo;
    MimDef *res = NULL;
    /* Lambdas created during this traversal are not in the analysis. */
    void **known = mim_ptrmap_find(&s->recursive, f);
    bool recursive = known ? *known != NULL : mim_is_recursive(w, f);
    if (mim_world_aggr_lam_spec(w) || !recursive) res = specialize(s, w, f, d->ops[1]);
    if (!res) res = d;
    mim_ptrmap_put(&s->memo, d, res);
    mim_ptrmap_put(&s->memo, res, res);
    return res;
}

static void lam_spec_fini(MimPass *p) {
    mim_ptrmap_free(&((LamSpec *)p)->memo);
    mim_ptrmap_free(&((LamSpec *)p)->recursive);
    mim_pairmap_free(&((LamSpec *)p)->spec);
}

const MimPassClass mim_lam_spec_pass = {.name = "lam_spec", .size = sizeof(LamSpec),
                                        .on_lams = true, .prepare = lam_spec_prepare, .rewrite = lam_spec_rewrite,
                                        .fini = lam_spec_fini};
