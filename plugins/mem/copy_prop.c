/* %mem.copy_prop_pass (br, ee, bb) (mem.md §5.4): copy propagation and dead
 * parameter elimination. Every parameter (top-level domain component) of a
 * workable lambda gets a lattice value Dead < Prop < Keep:
 *   Dead: the parameter is never used — it is dropped;
 *   Prop: every call passes the same argument — it is replaced by it;
 *   Keep: otherwise (and always for %mem.M parameters).
 * A lambda with a Dead or Prop parameter gets a specialized copy f' with the
 * Keep parameters only, and its calls `f args` become `f' (kept args)`.
 *
 * Rounds instead of speculation (include/mim/pass.h): `prepare` computes the
 * lattice from the whole program (use lists); only lambdas used exclusively
 * in callee position are considered (a lambda that escapes keeps its
 * signature). A call is only redirected if, as rebuilt in this traversal,
 * its Prop arguments are still the remembered ones; otherwise it keeps
 * calling f, which stays correct. Differences from the reference
 * (docs/mem-passes.md): every %mem.M parameter is Keep (not only parameter
 * 0), and a lambda with a return continuation only takes closed arguments
 * (no variables, no mutables) as Prop, so that a function never starts to
 * depend on its caller's scope. Specialized copies are never processed again
 * (as in the reference); they are kept from β-reduction and registered as
 * derived for η-expansion. */
#include "mem_passes.h"
#include "mem_util.h"

#include <stdlib.h>

typedef enum Lattice { CP_DEAD, CP_PROP, CP_KEEP } Lattice;

typedef struct Plan {
    uint64_t n;    /* components of the domain */
    bool sigma;    /* the domain is a Σ (else n = 1 and the var is the parameter) */
    Lattice *lat;
    MimDef **val;  /* the argument of each Prop parameter (as of prepare) */
} Plan;

typedef struct CopyProp {
    MimPass base;
    MimPass *beta_red, *eta_exp;
    bool bb_only;
    MemUses uses;
    MimPtrMap plan;      /* lambda -> Plan* (this round) */
    MemVec plans;
    MimPtrMap version;   /* lambda -> specialized copy (this round) */
    MimPtrMap generated; /* specialized copies: never processed again */
} CopyProp;

static MimDef *res(MimWorld *w, MimDef *d) { return d ? mim_resolve(w, d) : NULL; }

static void free_plans(CopyProp *c) {
    for (size_t i = 0; i < c->plans.len; ++i) {
        Plan *p = c->plans.data[i];
        free(p->lat);
        free(p->val);
        free(p);
    }
    c->plans.len = 0;
    mim_ptrmap_clear(&c->plan);
    mim_ptrmap_clear(&c->version);
}

/* The i-th argument of a call with the plan's domain shape. */
static MimDef *arg_comp(MimWorld *w, const Plan *p, MimDef *arg, uint64_t i) {
    return p->sigma ? mim_proj(w, arg, p->n, i) : arg;
}

/* Marks the parameters of L that are used in the program. */
static void mark_used(CopyProp *c, MimDef *L, const Plan *p, bool *used) {
    MimWorld *w = mim_pass_world(&c->base);
    MimDef *var = mim_var(w, L);
    MemUses *u = &c->uses;
    for (uint32_t i = var ? mem_uses_first(u, var) : 0; i; i = u->uses.data[i - 1].next) {
        MemUse use = u->uses.data[i - 1];
        uint64_t idx;
        if (p->sigma && mim_def_node(use.user) == MIM_EXTRACT && use.op == 0 &&
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

/* The plan for L, or NULL if all its parameters are Keep (or L is not a
 * candidate). */
static Plan *make_plan(CopyProp *c, MimDef *L) {
    MimWorld *w = mim_pass_world(&c->base);
    if (!mem_is_simple_lam(w, L) || mim_ptrmap_has(&c->generated, L)) return NULL;
    bool has_ret = mem_has_ret(w, L);
    if (c->bb_only && has_ret) return NULL;
    MemUses *u = &c->uses;
    size_t calls = 0;
    for (uint32_t i = mem_uses_first(u, L); i; i = u->uses.data[i - 1].next, ++calls)
        if (mim_def_node(u->uses.data[i - 1].user) != MIM_APP || u->uses.data[i - 1].op != 0) return NULL;
    if (!calls) return NULL;
    MimDef *dom = mim_pi_dom(mem_lam_pi(w, L));
    Plan *p = mim_xcalloc(1, sizeof *p);
    p->n = mem_num_comps(w, dom);
    p->sigma = mim_def_node(res(w, dom)) == MIM_SIGMA;
    p->lat = mim_xcalloc(p->n ? p->n : 1, sizeof *p->lat);
    p->val = mim_xcalloc(p->n ? p->n : 1, sizeof *p->val);
    bool *used = mim_xcalloc(p->n ? p->n : 1, sizeof *used);
    mark_used(c, L, p, used);
    bool any = false;
    for (uint64_t i = 0; i < p->n; ++i) {
        p->lat[i] = CP_KEEP;
        if (mem_is_M(w, mem_comp_type(w, dom, p->n, i))) continue;
        if (!used[i]) {
            p->lat[i] = CP_DEAD;
            any = true;
            continue;
        }
        MimDef *same = NULL;
        bool ok = true;
        for (uint32_t j = mem_uses_first(u, L); ok && j; j = u->uses.data[j - 1].next) {
            MimDef *a = res(w, arg_comp(w, p, mim_app_arg(u->uses.data[j - 1].user), i));
            ok = a && (!same || a == same);
            same = a;
        }
        if (ok && propagatable(w, L, same, has_ret)) {
            p->lat[i] = CP_PROP;
            p->val[i] = same;
            any = true;
        }
    }
    free(used);
    if (any) return p;
    free(p->lat);
    free(p->val);
    free(p);
    return NULL;
}

static void copy_prop_prepare(MimPass *pass) {
    CopyProp *c = (CopyProp *)pass;
    free_plans(c);
    mem_uses_build(&c->uses, mim_pass_world(pass));
    for (size_t i = 0; i < c->uses.nodes.len; ++i) {
        MimDef *L = c->uses.nodes.data[i];
        if (mim_def_node(L) != MIM_LAM || !mim_def_is_mut(L)) continue;
        Plan *p = make_plan(c, L);
        if (!p) continue;
        mim_ptrmap_put(&c->plan, L, p);
        mim_vec_push(&c->plans, p);
    }
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
        if (p->lat[i] == CP_KEEP) types[k++] = mem_comp_type(w, dom, p->n, i);
    MimDef *new_dom = k == 1 ? types[0] : mim_sigma(w, types, k);
    MimDef *lam = mim_mut_lam(w, mim_pi(w, new_dom, mim_pi_codom(pi), false));
    MimDef **params = mim_xcalloc(p->n ? p->n : 1, sizeof *params);
    for (uint64_t i = 0, j = 0; lam && i < p->n; ++i) {
        MimDef *T = mem_comp_type(w, dom, p->n, i);
        params[i] = p->lat[i] == CP_DEAD   ? mim_bot(w, T)
                    : p->lat[i] == CP_PROP ? p->val[i]
                    : k == 1               ? mim_var(w, lam)
                                           : mim_var_proj(w, lam, k, j);
        if (p->lat[i] == CP_KEEP) ++j;
    }
    MimDef *out[2] = {NULL, NULL};
    MimDef *arg = p->sigma ? mim_tuple_typed(w, dom, params, p->n) : params[0];
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
    mem_uses_free(&c->uses);
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
