/* %mem.copy_prop_pass (br, ee, bb) (mem.md §5.4): copy propagation and dead
 * parameter elimination. Every parameter (element of the domain, dom_comps) of a
 * workable lambda gets a lattice value Dead < Prop < Keep:
 *   Dead: the parameter is never used — it is dropped;
 *   Prop: every call passes the same argument — it is replaced by it;
 *   Keep: otherwise (and always for %mem.M parameters).
 * A lambda with a Dead or Prop parameter gets a specialized copy f' with the
 * Keep parameters only, and its calls `f args` become `f' (kept args)`.
 *
 * Rounds instead of speculation (include/mim/pass.h): `prepare` computes the
 * lattice from the whole program (use lists) as an optimistic fixed point
 * (solve): an argument that passes a parameter of a candidate on counts as
 * that parameter's value, as it will in the candidate's specialized copy, so
 * a value that a recursion (also a mutual one) passes on unchanged is
 * propagated like the reference's speculation does. Only lambdas used
 * exclusively in callee position are considered (a lambda that escapes
 * keeps its signature). A call is only redirected if, as rebuilt in this
 * traversal, its Prop arguments are still the remembered ones; otherwise it
 * keeps calling f, which stays correct. Differences from the reference
 * (docs/mem-passes.md): every %mem.M parameter is Keep (not only parameter
 * 0), and a lambda with a return continuation only takes closed arguments
 * (no variables, no mutables) as Prop, so that a function never starts to
 * depend on its caller's scope. Specialized copies are never processed again
 * (as in the reference); they are kept from β-reduction and registered as
 * derived for η-expansion. */
#include "mem_passes.h"
#include "mem_util.h"

#include <stdlib.h>
#include <string.h>

/* CP_BOT: no value known yet (only while the plans are solved). */
typedef enum Lattice { CP_DEAD, CP_BOT, CP_PROP, CP_KEEP } Lattice;

typedef struct Plan {
    MimDef *L;
    bool has_ret;  /* L has a return continuation */
    uint64_t n;    /* components of the domain */
    bool split;    /* the domain is a Σ or array of parameters (else n = 1 and the var is the parameter) */
    Lattice *lat;
    MimDef **val;  /* the argument of each Prop parameter (as of prepare) */
} Plan;

typedef struct CopyProp {
    MimPass base;
    MimPass *beta_red, *eta_exp;
    bool bb_only;
    const MemUses *uses; /* of the current round (mem_uses_of) */
    MimPtrMap plan;      /* lambda -> Plan* (this round) */
    MemVec plans;
    MimPtrMap version;   /* lambda -> specialized copy (this round) */
    MimPtrMap generated; /* specialized copies: never processed again */
} CopyProp;

static MimDef *res(MimWorld *w, MimDef *d) { return d ? mim_resolve(w, d) : NULL; }

/* A plan and its two arrays are one block (plan_new): a round makes one
 * per candidate lambda and keeps few. */
static void free_plan(Plan *p) { free(p); }

static Plan *plan_new(uint64_t n) {
    size_t m = n ? (size_t)n : 1;
    Plan *p = mim_xcalloc(1, sizeof *p + m * sizeof *p->val + m * sizeof *p->lat);
    p->val = (MimDef **)(p + 1);
    p->lat = (Lattice *)(p->val + m);
    return p;
}

static void free_plans(CopyProp *c) {
    for (size_t i = 0; i < c->plans.len; ++i) free_plan(c->plans.data[i]);
    c->plans.len = 0;
    mim_ptrmap_clear(&c->plan);
    mim_ptrmap_clear(&c->version);
}

/* The parameters of a domain: the elements of an immutable Σ, or of an
 * array whose literal arity is at most the scalarize threshold (scalarize
 * turns homogeneous parameter lists into such arrays, «3; I32»); else the
 * domain is one parameter. */
static uint64_t dom_comps(MimWorld *w, MimDef *dom, bool *split) {
    dom = res(w, dom);
    uint64_t n = 1;
    *split = false;
    if (mim_def_node(dom) == MIM_SIGMA) {
        n = mem_num_comps(w, dom);
        *split = true;
    } else if (mim_def_node(dom) == MIM_ARR && !mim_def_is_mut(dom) && mem_lit(w, mim_def_op(dom, 0), &n) &&
               n >= 2 && n <= mim_world_scalarize_threshold(w)) {
        *split = true;
    } else {
        n = 1;
    }
    return n;
}

/* The type of parameter i of n of a domain (dom_comps). */
static MimDef *comp_type(MimWorld *w, MimDef *dom, uint64_t n, uint64_t i) {
    MimDef *d = res(w, dom);
    return n > 1 && mim_def_node(d) == MIM_ARR ? res(w, mim_def_op(d, 1)) : mem_comp_type(w, dom, n, i);
}

/* The i-th argument of a call with the plan's domain shape. */
static MimDef *arg_comp(MimWorld *w, const Plan *p, MimDef *arg, uint64_t i) {
    return p->split ? mim_proj(w, arg, p->n, i) : arg;
}

/* Marks the parameters of L that are used in the program. */
static void mark_used(CopyProp *c, MimDef *L, const Plan *p, bool *used) {
    MimWorld *w = mim_pass_world(&c->base);
    MimDef *var = mim_var(w, L);
    const MemUses *u = c->uses;
    for (uint32_t i = var ? mem_uses_first(u, var) : 0; i; i = u->uses.data[i - 1].next) {
        MemUse use = u->uses.data[i - 1];
        uint64_t idx;
        if (p->split && mim_def_node(use.user) == MIM_EXTRACT && use.op == 0 &&
            mem_lit(w, mim_def_op(use.user, 1), &idx) && idx < p->n) {
            used[idx] = true;
            continue;
        }
        for (uint64_t j = 0; j < p->n; ++j) used[j] = true; /* the whole variable */
        return;
    }
}

/* May `a` replace a parameter of L? */
static bool propagatable(MimWorld *w, MimDef *L, MimDef *a, bool has_ret) {
    if (!a) return false;
    if (has_ret) return mim_def_is_const(a);
    return !mim_mentions_var(w, a, L) && !(mim_def_dep(a) & MIM_DEP_PROXY);
}

/* A candidate's plan with every used, non-memory parameter still CP_BOT, or
 * NULL if L is not a candidate: a simple lambda, not a specialized copy, used
 * only as a callee and called at least once. */
static Plan *candidate(CopyProp *c, MimDef *L) {
    MimWorld *w = mim_pass_world(&c->base);
    if (!mem_is_simple_lam(w, L) || mim_ptrmap_has(&c->generated, L)) return NULL;
    bool has_ret = mem_has_ret(w, L);
    if (c->bb_only && has_ret) return NULL;
    const MemUses *u = c->uses;
    size_t calls = 0;
    for (uint32_t i = mem_uses_first(u, L); i; i = u->uses.data[i - 1].next, ++calls)
        if (mim_def_node(u->uses.data[i - 1].user) != MIM_APP || u->uses.data[i - 1].op != 0) return NULL;
    if (!calls) return NULL;
    MimDef *dom = mim_pi_dom(mem_lam_pi(w, L));
    bool split;
    uint64_t n = dom_comps(w, dom, &split);
    Plan *p = plan_new(n);
    p->L = L;
    p->has_ret = has_ret;
    p->n = n;
    p->split = split;
    bool small[16], *used = n <= 16 ? small : mim_xmalloc(n * sizeof *used);
    memset(used, 0, (n ? n : 1) * sizeof *used);
    mark_used(c, L, p, used);
    for (uint64_t i = 0; i < p->n; ++i)
        p->lat[i] = mem_is_M(w, comp_type(w, dom, p->n, i)) ? CP_KEEP : used[i] ? CP_BOT : CP_DEAD;
    if (used != small) free(used);
    return p;
}

/* Is `a` parameter *j of a candidate, whose plan is *q? */
static bool candidate_param(CopyProp *c, MimDef *a, Plan **q, uint64_t *j) {
    MimWorld *w = mim_pass_world(&c->base);
    bool proj = mim_def_node(a) == MIM_EXTRACT;
    MimDef *var = proj ? res(w, mim_def_op(a, 0)) : a;
    if (!var || mim_def_node(var) != MIM_VAR) return false;
    *q = mim_ptrmap_get(&c->plan, res(w, mim_def_op(var, 0)));
    if (!*q || (*q)->split != proj) return false;
    *j = 0;
    return !proj || (mem_lit(w, mim_def_op(a, 1), j) && *j < (*q)->n);
}

/* What the argument `a` gives a parameter: a parameter of a candidate passed
 * on gives that parameter's value, since the candidate's specialized copy
 * has the value in its place (NULL while that value is unknown: CP_BOT);
 * anything else gives itself. */
static MimDef *arg_value(CopyProp *c, MimDef *a) {
    Plan *q;
    uint64_t j;
    if (!candidate_param(c, a, &q, &j) || q->lat[j] == CP_KEEP) return a;
    return q->lat[j] == CP_PROP ? q->val[j] : NULL;
}

/* Recompute parameter i of p from all calls of p->L; true if it changed. */
static bool update_param(CopyProp *c, Plan *p, uint64_t i) {
    MimWorld *w = mim_pass_world(&c->base);
    const MemUses *u = c->uses;
    MimDef *same = NULL;
    bool keep = false;
    for (uint32_t j = mem_uses_first(u, p->L); !keep && j; j = u->uses.data[j - 1].next) {
        MimDef *a = res(w, arg_comp(w, p, mim_app_arg(u->uses.data[j - 1].user), i));
        MimDef *v = a ? arg_value(c, a) : NULL;
        keep = !a || (v && same && v != same);
        if (v) same = v;
    }
    Lattice lat = keep ? CP_KEEP : !same ? CP_BOT : propagatable(w, p->L, same, p->has_ret) ? CP_PROP : CP_KEEP;
    MimDef *val = lat == CP_PROP ? same : NULL;
    if (lat == p->lat[i] && val == p->val[i]) return false;
    p->lat[i] = lat;
    p->val[i] = val;
    return true;
}

/* The optimistic fixed point of the Prop lattice over all candidates, as the
 * reference's speculation reaches it: a parameter starts without a value
 * (CP_BOT) and takes the value all calls give it; a call that passes a
 * parameter of a candidate on (a recursive call passing its own parameter
 * unchanged, or mutually recursive functions passing one along) gives that
 * parameter's value. A parameter only ever gets Keep for good, and a value
 * only changes when a parameter it was passed from gets Keep, so the sweeps
 * end; the bound is a safeguard that falls back to Keep everywhere. */
static void solve(CopyProp *c) {
    size_t params = 0;
    for (size_t k = 0; k < c->plans.len; ++k) params += ((Plan *)c->plans.data[k])->n;
    bool changed = true;
    for (size_t sweep = 0; changed && sweep < 3 * params + 2; ++sweep) {
        changed = false;
        for (size_t k = 0; k < c->plans.len; ++k) {
            Plan *p = c->plans.data[k];
            for (uint64_t i = 0; i < p->n; ++i)
                if (p->lat[i] == CP_BOT || p->lat[i] == CP_PROP) changed |= update_param(c, p, i);
        }
    }
    for (size_t k = 0; k < c->plans.len; ++k) {
        Plan *p = c->plans.data[k];
        for (uint64_t i = 0; i < p->n; ++i)
            if (p->lat[i] == CP_BOT || (changed && p->lat[i] == CP_PROP)) p->lat[i] = CP_KEEP;
    }
}

/* Does the plan drop a parameter (Dead or Prop)? */
static bool drops_some(const Plan *p) {
    for (uint64_t i = 0; i < p->n; ++i)
        if (p->lat[i] == CP_DEAD || p->lat[i] == CP_PROP) return true;
    return false;
}

static void copy_prop_prepare(MimPass *pass) {
    CopyProp *c = (CopyProp *)pass;
    free_plans(c);
    c->uses = mem_uses_of(pass);
    for (size_t i = 0; i < c->uses->lams.len; ++i) {
        MimDef *L = c->uses->lams.data[i];
        Plan *p = candidate(c, L);
        if (!p) continue;
        mim_ptrmap_put(&c->plan, L, p);
        mim_vec_push(&c->plans, p);
    }
    solve(c);
    /* Only plans that drop a parameter stay. */
    size_t kept = 0;
    for (size_t k = 0; k < c->plans.len; ++k) {
        Plan *p = c->plans.data[k];
        if (drops_some(p)) {
            c->plans.data[kept++] = p;
        } else {
            mim_ptrmap_remove(&c->plan, p->L);
            free_plan(p);
        }
    }
    c->plans.len = kept;
    /* Only calls of a lambda with a plan are rewritten. */
    if (!kept) mim_pass_idle(pass);
}

/* f' for the plan (created once per round). */
static MimDef *specialize(CopyProp *c, MimDef *L, const Plan *p) {
    MimDef *done = mim_ptrmap_get(&c->version, L);
    if (done) return done;
    MimWorld *w = mim_pass_world(&c->base);
    MimDef *pi = mem_lam_pi(w, L), *dom = mim_pi_dom(pi);
    uint64_t k = 0;
    MimDef **types = mim_xcalloc(p->n ? p->n : 1, sizeof *types);
    for (uint64_t i = 0; i < p->n; ++i)
        if (p->lat[i] == CP_KEEP) types[k++] = comp_type(w, dom, p->n, i);
    MimDef *new_dom = k == 1 ? types[0] : mim_sigma(w, types, k);
    MimDef *lam = mim_mut_lam(w, mim_pi(w, new_dom, mim_pi_codom(pi), false));
    MimDef **params = mim_xcalloc(p->n ? p->n : 1, sizeof *params);
    for (uint64_t i = 0, j = 0; lam && i < p->n; ++i) {
        MimDef *T = comp_type(w, dom, p->n, i);
        params[i] = p->lat[i] == CP_DEAD   ? mim_bot(w, T)
                    : p->lat[i] == CP_PROP ? p->val[i]
                    : k == 1               ? mim_var(w, lam)
                                           : mim_var_proj(w, lam, k, j);
        if (p->lat[i] == CP_KEEP) ++j;
    }
    MimDef *out[2] = {NULL, NULL};
    MimDef *arg = p->split ? mim_tuple_typed(w, dom, params, p->n) : params[0];
    bool ok = lam && mim_reduce(w, L, arg, out) && mim_lam_set(w, lam, out[0], out[1]);
    free(types);
    free(params);
    if (!ok) return NULL;
    if (mim_def_name(L)) mim_def_set_name(lam, mim_def_name(L));
    mim_ptrmap_put(&c->version, L, lam);
    mim_ptrmap_put(&c->generated, lam, (void *)1);
    if (c->beta_red) mim_beta_red_keep(c->beta_red, lam);
    if (c->eta_exp) mim_eta_exp_derive(c->eta_exp, lam, L);
    return lam;
}

static MimDef *copy_prop_rewrite(MimPass *pass, MimDef *d) {
    CopyProp *c = (CopyProp *)pass;
    if (mim_def_node(d) != MIM_APP || !c->plan.len) return d;
    MimWorld *w = mim_pass_world(pass);
    MimDef *L = res(w, mim_app_callee(d));
    Plan *p = mim_ptrmap_get(&c->plan, L);
    if (!p) return d;
    MimDef *arg = mim_app_arg(d);
    /* The remembered arguments must still be what this call passes. */
    for (uint64_t i = 0; i < p->n; ++i)
        if (p->lat[i] == CP_PROP && res(w, arg_comp(w, p, arg, i)) != mim_pass_rewrite(pass, p->val[i]))
            return d;
    MimDef *lam = specialize(c, L, p);
    if (!lam) return NULL;
    MimDef **kept = mim_xcalloc(p->n ? p->n : 1, sizeof *kept);
    uint64_t k = 0;
    for (uint64_t i = 0; i < p->n; ++i)
        if (p->lat[i] == CP_KEEP) kept[k++] = arg_comp(w, p, arg, i);
    MimDef *call = mim_app(w, lam, k == 1 ? kept[0] : mim_tuple(w, kept, k));
    free(kept);
    mim_pass_changed(pass);
    return call;
}

static void copy_prop_fini(MimPass *pass) {
    CopyProp *c = (CopyProp *)pass;
    free_plans(c);
    mim_vec_free(&c->plans);
    mim_ptrmap_free(&c->plan);
    mim_ptrmap_free(&c->version);
    mim_ptrmap_free(&c->generated);
}

static const MimPassClass copy_prop_class = {
    .name = "copy_prop", .size = sizeof(CopyProp), .on_lams = true, .prepare = copy_prop_prepare,
    .rewrite = copy_prop_rewrite, .fini = copy_prop_fini};

/* %mem.copy_prop_pass (br, ee, bb) */
bool mem_handle_copy_prop(MimPipeline *pb, MimDef *app) {
    MimWorld *w = mim_pipeline_world(pb);
    MimDef *arg = mim_app_arg(app);
    uint64_t bb;
    if (!mem_lit(w, mim_proj(w, arg, 3, 2), &bb)) {
        mim_pipeline_error(pb, app, "%mem.copy_prop_pass expects a literal Bool as its third argument");
        return false;
    }
    bool fresh;
    CopyProp *c = (CopyProp *)mim_pipeline_add_pass(pb, app, &copy_prop_class, &fresh);
    if (!c) return false;
    if (fresh) {
        c->beta_red = mim_pipeline_pass_of(pb, mim_proj(w, arg, 3, 0));
        c->eta_exp = mim_pipeline_pass_of(pb, mim_proj(w, arg, 3, 1));
        c->bb_only = bb != 0;
    }
    return true;
}
