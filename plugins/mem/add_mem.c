/* %mem.add_mem_phase (mem.md §5.6): every continuation gets a %mem.M as first
 * parameter and memory is threaded through the program.
 *
 * How: a whole-World rewrite into the same World, starting at the externals.
 * Each continuation with a body gets a new lambda of the extended type
 * (types: a Cn whose domain does not start with %mem.M gets one prepended,
 * recursively for function types inside domains); its body is rebuilt with
 * the old parameters replaced by the new ones. While rebuilding one body
 * (post-order, memoized per body) the "current memory" starts as the new
 * memory parameter and becomes every axiom result of type %mem.M (or the
 * first component of a result Σ starting with one) that continues the
 * chain from that parameter (effects of enclosing lambdas that the walk
 * rebuilds do not count). A call whose callee's
 * type gained a memory parameter (rewritten lambdas, branches (f, g)#c,
 * continuation parameters) gets the current memory prepended. Externals are
 * re-pointed to the new lambdas; the old program becomes unreachable and the
 * cleanup after this (dirty) phase drops it.
 *
 * Simplifications (docs/mem-passes.md, "add_mem"): only continuations (Cn
 * types) are extended, direct-style functions keep their types and bodies;
 * memory operands that the program already passes (to axioms or to callees
 * whose domain already started with %mem.M, see threads_mem) are kept, i.e. memory is threaded
 * in the order of the original data dependencies rather than substituted;
 * a lambda without a body (a C declaration) becomes a declaration of the
 * extended type; implicit function types are left alone. A dependent domain
 * (a mutable Σ whose later components mention earlier ones, e.g. `[n: Nat,
 * Cn «n; I32»]`) becomes a new dependent Σ with %mem.M first and the old
 * components, their references to the old Σ's variable shifted by one. */
#include "mem_passes.h"
#include "mem_util.h"
#include "mim/plugin/mem.h"

#include <stdlib.h>

typedef struct AddMem {
    MimWorld *w;
    MimDef *M;    /* the type %mem.M */
    MimPtrMap types; /* old type -> extended type */
    MimPtrMap lams;  /* old lambda -> new lambda (or itself) */
    MimPtrMap vars;  /* old lambda variable -> its replacement */
} AddMem;

/* The rewriting state of one lambda body. */
typedef struct Body {
    MimPtrMap memo; /* old node -> new node */
    MimDef *mem; /* the current memory */
    MimDef *lam; /* the new lambda whose body this is */
    MimPtrMap own; /* effects (new axiom calls) on the chain from lam's memory parameter */
} Body;

static MimDef *ext_type(AddMem *am, MimDef *T);
static MimDef *ext_const(AddMem *am, MimDef *d);
/* ext_type and ext_const as operand maps of mim_map_ops */
static MimDef *ext_type_op(void *am, MimDef *T) { return ext_type(am, T); }
static MimDef *ext_const_op(void *am, MimDef *d) { return ext_const(am, d); }
static MimDef *rewrite(AddMem *am, Body *b, MimDef *d);

/* Components of a domain, a dependent (mutable) Σ included. */
static uint64_t num_comps(AddMem *am, MimDef *dom) {
    dom = dom ? mim_resolve(am->w, dom) : NULL;
    if (dom && mim_def_node(dom) == MIM_SIGMA && mim_def_is_mut(dom)) return mim_def_num_ops(dom);
    return mem_num_comps(am->w, dom);
}

static bool starts_with_M(AddMem *am, MimDef *dom) {
    uint64_t n = num_comps(am, dom);
    return n > 0 && mem_is_M(am->w, mem_comp_type(am->w, dom, n, 0));
}

/* An immutable, non-implicit Cn whose domain is immutable or a dependent
 * Σ, or NULL. */
static MimDef *plain_cn(AddMem *am, MimDef *T) {
    MimWorld *w = am->w;
    T = T ? mim_resolve(w, T) : NULL;
    if (T && mim_def_is_mut(T) && mim_def_node(T) == MIM_PI) T = mim_immutabilize(w, T);
    if (!T || mim_def_node(T) != MIM_PI || mim_def_is_mut(T) || mim_pi_is_implicit(T) || !mim_pi_is_cn(T))
        return NULL;
    MimDef *dom = mim_resolve(w, mim_pi_dom(T));
    return dom && (!mim_def_is_mut(dom) || mim_def_node(dom) == MIM_SIGMA) ? T : NULL;
}

static MimDef *tuple_or_single(MimWorld *w, MimDef *const *ops, size_t n, bool types) {
    if (n == 1) return ops[0];
    return types ? mim_sigma(w, ops, n) : mim_tuple(w, ops, n);
}

/* The extended form of a dependent domain S (a mutable Σ of n components):
 * a new dependent Σ S' = [%mem.M, S#0', …] whose components refer to S'
 * where the old ones referred to S (S#i becomes S'#(i+1)). */
static MimDef *ext_dep_dom(AddMem *am, MimDef *S) {
    MimWorld *w = am->w;
    uint64_t n = mim_def_num_ops(S);
    bool has_M = starts_with_M(am, S);
    uint64_t nn = has_M ? n : n + 1;
    MimDef *S2 = mim_mut_sigma(w, mim_def_type(S), nn);
    if (!S2) return NULL;
    /* component i mentions S#j for j < i only: the projections of S2 exist
     * once its earlier components are set; the later ones stay S#j */
    MimDef **vars = mim_xcalloc(n, sizeof *vars);
    for (uint64_t i = 0; i < n; i++) vars[i] = n == 1 ? mim_var(w, S) : mim_var_proj(w, S, n, i);
    bool ok = has_M || mim_mut_set(w, S2, 0, am->M) != NULL;
    for (uint64_t i = 0; i < n && ok; i++) {
        MimDef *repl = n == 1 ? vars[0] : mim_tuple(w, vars, n);
        MimDef *op = repl ? mim_subst(w, mim_def_op(S, i), S, repl) : NULL;
        MimDef *nop = op ? ext_type(am, op) : NULL;
        uint64_t k = has_M ? i : i + 1;
        ok = nop && mim_mut_set(w, S2, k, nop) != NULL;
        if (ok) ok = (vars[i] = mim_var_proj(w, S2, nn, k)) != NULL;
    }
    free(vars);
    return ok ? S2 : NULL;
}

/* The extended domain of a continuation: components extended, memory first. */
static MimDef *ext_dom(AddMem *am, MimDef *dom) {
    MimWorld *w = am->w;
    MimDef *S = mim_resolve(w, dom);
    if (S && mim_def_is_mut(S)) return mim_def_node(S) == MIM_SIGMA ? ext_dep_dom(am, S) : NULL;
    uint64_t n = mem_num_comps(w, dom);
    bool has_M = starts_with_M(am, dom);
    MimDef **ops = mim_xcalloc(n + 1, sizeof *ops);
    size_t k = 0;
    if (!has_M) ops[k++] = am->M;
    bool ok = true;
    for (uint64_t i = 0; i < n && ok; i++) ok = (ops[k++] = ext_type(am, mem_comp_type(w, dom, n, i))) != NULL;
    MimDef *res = ok ? tuple_or_single(w, ops, k, true) : NULL;
    free(ops);
    return res;
}

/* T with every continuation type inside extended (memoized). */
static MimDef *ext_type(AddMem *am, MimDef *T) {
    MimWorld *w = am->w;
    T = T ? mim_resolve(w, T) : NULL;
    if (T && mim_def_is_mut(T)) T = mim_immutabilize(w, T); /* the front end's named domains */
    if (!T || mim_def_is_mut(T)) return T;
    MimDef *done = mim_ptrmap_get(&am->types, T);
    if (done) return done;
    MimDef *res = T;
    switch (mim_def_node(T)) {
    case MIM_PI: {
        MimDef *pi = plain_cn(am, T);
        if (pi) {
            MimDef *dom = ext_dom(am, mim_pi_dom(pi));
            res = dom ? mim_pi(w, dom, mim_pi_codom(pi), false) : NULL;
        }
        break;
    }
    case MIM_SIGMA: {
        size_t n = mim_def_num_ops(T);
        MimDef **ops = mim_xcalloc(n ? n : 1, sizeof *ops);
        bool changed = false, ok = mim_map_ops(w, T, ext_type_op, am, ops, &changed);
        res = !ok ? NULL : changed ? mim_sigma(w, ops, n) : T;
        free(ops);
        break;
    }
    case MIM_ARR: {
        MimDef *body = ext_type(am, mim_def_op(T, 1));
        res = !body ? NULL : body == mim_def_op(T, 1) ? T : mim_arr(w, mim_def_op(T, 0), body);
        break;
    }
    default: break;
    }
    if (res) mim_ptrmap_put(&am->types, T, res);
    return res;
}

/* A closed node with the types inside extended, e.g. the type argument of
 * `%mem.store (Cn [I32, Cn I32], 0)` or `%mem.malloc (…)` (memoized). */
static MimDef *ext_const(AddMem *am, MimDef *d) {
    MimWorld *w = am->w;
    MimDef *T = mim_resolve(w, mim_def_type(d));
    MimNode k = mim_def_node(d);
    if (!T || mim_def_node(T) == MIM_TYPE || mim_def_node(T) == MIM_UNIV || k == MIM_PI || k == MIM_SIGMA ||
        k == MIM_ARR)
        return ext_type(am, d);
    size_t n = mim_def_num_ops(d);
    if (!n || mim_def_is_mut(d) || k == MIM_AXIOM || k == MIM_LAM || k == MIM_LIT) return d;
    MimDef *done = mim_ptrmap_get(&am->types, d);
    if (done) return done;
    MimDef **ops = mim_xcalloc(n, sizeof *ops);
    bool changed = false, ok = mim_map_ops(w, d, ext_const_op, am, ops, &changed);
    MimDef *nT = ok ? ext_const(am, T) : NULL;
    changed |= nT != T;
    MimDef *res = !ok || !nT ? NULL : changed ? mim_rebuild(w, d, nT, ops) : d;
    free(ops);
    if (res) mim_ptrmap_put(&am->types, d, res);
    return res;
}

/* arg (of old domain type with n components) with the memory put first. */
static MimDef *prepend_mem(MimWorld *w, MimDef *mem, MimDef *arg, uint64_t n) {
    MimDef **ops = mim_xcalloc(n + 1, sizeof *ops);
    ops[0] = mem;
    bool ok = true;
    for (uint64_t i = 0; i < n && ok; i++) ok = (ops[i + 1] = n == 1 ? arg : mim_proj(w, arg, n, i)) != NULL;
    MimDef *res = ok ? tuple_or_single(w, ops, n + 1, false) : NULL;
    free(ops);
    return res;
}

/* arg (of a domain with n components, the first a memory) passing mem instead. */
static MimDef *replace_mem(MimWorld *w, MimDef *mem, MimDef *arg, uint64_t n) {
    if (n == 1) return mem;
    MimDef **ops = mim_xcalloc(n, sizeof *ops);
    ops[0] = mem;
    bool ok = true;
    for (uint64_t i = 1; i < n && ok; i++) ok = (ops[i] = mim_proj(w, arg, n, i)) != NULL;
    MimDef *res = ok ? mim_tuple(w, ops, n) : NULL;
    free(ops);
    return res;
}

static MimDef *rewrite_lam(AddMem *am, MimDef *lam);

/* The memory in v: v itself if it is a %mem.M, its first component if its
 * type is a Σ starting with one (an effect's argument or result), else NULL. */
static MimDef *mem_part(AddMem *am, MimDef *v) {
    MimWorld *w = am->w;
    MimDef *T = mim_resolve(w, mim_def_type(v));
    if (mem_is_M(w, T)) return v;
    if (mim_def_node(T) == MIM_SIGMA && starts_with_M(am, T)) return mim_proj(w, v, mem_num_comps(w, T), 0);
    return NULL;
}

/* The lambda from whose memory parameter the memory token d (rewritten)
 * descends through the memory operands of axiom calls, or NULL (a constant
 * token, the result of a direct-style call, …); *effects counts the axiom
 * calls on the way. */
static MimDef *mem_root(AddMem *am, MimDef *d, unsigned *effects) {
    MimWorld *w = am->w;
    for (d = d ? mim_resolve(w, d) : NULL; d; d = d ? mim_resolve(w, d) : NULL) {
        switch (mim_def_node(d)) {
        case MIM_VAR: {
            MimDef *binder = mim_def_op(d, 0);
            return binder && mim_def_node(binder) == MIM_LAM ? binder : NULL;
        }
        case MIM_EXTRACT: d = mim_def_op(d, 0); break; /* a component of a parameter or of an effect's result */
        case MIM_APP: {
            if (!mim_app_axiom(d) || !(d = mem_part(am, mim_app_arg(d)))) return NULL;
            ++*effects;
            break;
        }
        default: return NULL;
        }
    }
    return NULL;
}

/* The memory argument `given` (rewritten) of a call in the body b is kept as
 * the program passes it when the body threads it itself: it descends from
 * the lambda's own memory parameter, or from the memory parameter of
 * another (enclosing) lambda through at least one effect. The memory of a
 * body is a DAG (a load may read an earlier token than the latest store),
 * and the current memory is only the end of the chain from the lambda's own
 * memory parameter, not the latest effect: replacing a token the body
 * threads dropped its effects (the shadow store after a tape read of
 * %autodiff.vjp; the load and store of a memory-less loop block that
 * extends its loop's memory and passes it to the next iteration). Only a
 * token that is another lambda's memory parameter as it is (a continuation
 * that had no memory reusing its enclosing one), or that comes from no
 * parameter, becomes the current memory. */
static bool threads_mem(AddMem *am, Body *b, MimDef *given) {
    unsigned effects = 0;
    MimDef *root = mem_root(am, given, &effects);
    return root && (root == b->lam || effects > 0);
}

/* The memory operand mem (rewritten) of an effect continues the chain from
 * the lambda's own memory parameter: the parameter itself or the memory of
 * an effect that did (effects of enclosing lambdas that the post-order walk
 * rebuilds, e.g. a malloc whose pointer a block uses, never become its
 * current memory). */
static bool extends_own(AddMem *am, Body *b, MimDef *mem) {
    MimWorld *w = am->w;
    for (mem = mem ? mim_resolve(w, mem) : NULL; mem && mim_def_node(mem) == MIM_EXTRACT;)
        mem = mim_resolve(w, mim_def_op(mem, 0));
    if (!mem) return false;
    if (mim_def_node(mem) == MIM_VAR) return mim_def_op(mem, 0) == b->lam;
    return mim_ptrmap_get(&b->own, mem) != NULL;
}

static MimDef *rewrite_app(AddMem *am, Body *b, MimDef *d) {
    MimWorld *w = am->w;
    MimDef *callee = mim_app_callee(d), *arg = mim_app_arg(d);
    MimDef *ncallee = rewrite(am, b, callee), *narg = rewrite(am, b, arg);
    if (!ncallee || !narg) return NULL;
    MimDef *T = mim_def_type(callee), *pi = plain_cn(am, T);
    if (pi && !mim_app_axiom(d)) {
        MimDef *mem = b->mem ? b->mem : mim_bot(w, am->M);
        uint64_t n = num_comps(am, mim_pi_dom(pi));
        MimDef *npi = plain_cn(am, mim_def_type(ncallee));
        if (starts_with_M(am, mim_pi_dom(pi))) {
            MimDef *given = n == 1 ? narg : mim_proj(w, narg, n, 0);
            if (!threads_mem(am, b, given)) narg = replace_mem(w, mem, narg, n);
        } else if (npi && starts_with_M(am, mim_pi_dom(npi))) narg = prepend_mem(w, mem, narg, n);
        if (!narg) return NULL;
    }
    MimDef *res = mim_app(w, ncallee, narg);
    if (res && mim_app_axiom(d)) { /* an effect on the own chain: its memory becomes the current one */
        MimDef *in = mem_part(am, narg);
        MimDef *out = in && extends_own(am, b, in) ? mem_part(am, res) : NULL;
        if (out) {
            mim_ptrmap_put(&b->own, res, res);
            b->mem = out;
        }
    }
    return res;
}

/* Rebuild d inside the body b (post-order; memoized per body). */
static MimDef *rewrite(AddMem *am, Body *b, MimDef *d) {
    MimWorld *w = am->w;
    d = d ? mim_resolve(w, d) : NULL;
    if (!d) return NULL;
    if (mim_def_is_mut(d)) return mim_def_node(d) == MIM_LAM ? rewrite_lam(am, d) : d;
    if (!(mim_def_dep(d) & (MIM_DEP_VAR | MIM_DEP_MUT))) return ext_const(am, d);
    MimDef *done = mim_ptrmap_get(&b->memo, d);
    if (done) return done;
    MimDef *res;
    if (mim_def_node(d) == MIM_VAR) {
        res = mim_ptrmap_get(&am->vars, d);
        if (!res) res = d; /* a variable of a binder left alone */
    } else if (mim_def_node(d) == MIM_APP) {
        res = rewrite_app(am, b, d);
    } else if ((mim_def_node(d) == MIM_PI || mim_def_node(d) == MIM_SIGMA || mim_def_node(d) == MIM_ARR) &&
               !(mim_def_dep(d) & MIM_DEP_VAR)) {
        res = ext_type(am, d);
    } else {
        size_t n = mim_def_num_ops(d);
        MimDef **ops = mim_xcalloc(n ? n : 1, sizeof *ops);
        bool ok = true;
        for (size_t i = 0; i < n && ok; i++) ok = (ops[i] = rewrite(am, b, mim_def_op(d, i))) != NULL;
        MimDef *type = ok ? rewrite(am, b, mim_def_type(d)) : NULL;
        res = type ? mim_rebuild(w, d, type, ops) : NULL;
        free(ops);
        /* a type mentioning variables (e.g. «n; I32»): rebuilt, then extended */
        if (res && (mim_def_node(d) == MIM_PI || mim_def_node(d) == MIM_SIGMA || mim_def_node(d) == MIM_ARR))
            res = ext_type(am, res);
    }
    if (!res) return NULL;
    mim_def_keep_dbg(res, d); /* the rebuilt node keeps d's name (first name wins) */
    mim_ptrmap_put(&b->memo, d, res);
    return res;
}

/* Carry the parameter names over (the memory gets "mem" if it is new). */
static void name_params(AddMem *am, MimDef *lam, MimDef *nl, MimDef *const *params, uint64_t n, bool had_M) {
    MimWorld *w = am->w;
    if (!had_M && params[0]) mim_def_set_name(params[0], mim_world_sym(w, "mem"));
    MimDef *old = mim_var(w, lam);
    if (old && n == 1 && mim_def_name(old) && params[had_M ? 0 : 1])
        mim_def_set_name(params[had_M ? 0 : 1], mim_def_name(old));
    if (old && mim_def_name(old) && n > 1 && !had_M) mim_def_set_name(mim_var(w, nl), mim_def_name(old));
    for (uint64_t i = 0; n > 1 && i < n; i++) {
        MimDef *p = mim_var_proj(w, lam, n, i), *q = params[had_M ? i : i + 1];
        if (p && q && mim_def_name(p)) mim_def_set_name(q, mim_def_name(p));
    }
}

/* The new lambda of lam (memoized); lam itself if it is left alone. */
static MimDef *rewrite_lam(AddMem *am, MimDef *lam) {
    MimWorld *w = am->w;
    MimDef *done = mim_ptrmap_get(&am->lams, lam);
    if (done) return done;
    MimDef *pi = plain_cn(am, mim_def_type(lam));
    MimDef *npi = pi ? ext_type(am, pi) : NULL;
    if (!pi || (!mim_lam_body(lam) && npi == pi)) {
        mim_ptrmap_put(&am->lams, lam, lam);
        return lam;
    }
    MimDef *nl = npi ? mim_mut_lam(w, npi) : NULL;
    if (!nl) return NULL;
    mim_ptrmap_put(&am->lams, lam, nl); /* before the body: recursion */
    mim_def_set_loc(nl, mim_def_loc(lam));
    MimSym name = mim_def_name(lam);
    if (name) mim_def_set_name(nl, name);
    if (mim_def_is_external(lam)) {
        mim_make_internal(w, lam);
        mim_make_external(w, nl);
    }
    /* a C declaration: the same declaration with memory (the back end drops
     * memory parameters, so the C signature stays) */
    if (!mim_lam_body(lam)) return nl;

    /* the old variable in terms of the new parameters */
    MimDef *dom = mim_pi_dom(pi);
    uint64_t n = num_comps(am, dom);
    bool had_M = starts_with_M(am, dom);
    uint64_t nn = had_M ? n : n + 1;
    MimDef **params = mim_xcalloc(nn, sizeof *params);
    for (uint64_t i = 0; i < nn; i++) params[i] = nn == 1 ? mim_var(w, nl) : mim_var_proj(w, nl, nn, i);
    name_params(am, lam, nl, params, n, had_M);
    MimDef *old_var = mim_var(w, lam);
    MimDef *repl = had_M ? mim_var(w, nl) : n == 0 ? mim_unit(w) : tuple_or_single(w, params + 1, n, false);
    Body b = {.mem = params[0], .lam = nl};
    free(params);
    if (!old_var || !repl) return NULL;
    mim_ptrmap_put(&am->vars, old_var, repl);

    MimDef *filter = rewrite(am, &b, mim_lam_filter(lam));
    MimDef *body = filter ? rewrite(am, &b, mim_lam_body(lam)) : NULL;
    mim_ptrmap_free(&b.memo);
    mim_ptrmap_free(&b.own);
    return body && mim_lam_set(w, nl, filter, body) ? nl : NULL;
}

static bool add_mem_run(MimPhase *ph, MimWorld **wp) {
    (void)ph;
    MimWorld *w = *wp;
    AddMem am = {.w = w, .M = mim_annex(w, MIM_mem_M)};
    if (!am.M) return false;
    MemVec ext = {0}; /* rewrite_lam changes the list of externals */
    for (size_t i = 0, n = mim_world_num_externals(w); i < n; i++) mim_vec_push(&ext, mim_world_external(w, i));
    bool ok = true;
    for (size_t i = 0; i < ext.len && ok; i++) {
        MimDef *e = ext.data[i];
        if (mim_def_node(e) == MIM_LAM) ok = rewrite_lam(&am, e) != NULL;
    }
    mim_vec_free(&ext);
    mim_ptrmap_free(&am.types);
    mim_ptrmap_free(&am.lams);
    mim_ptrmap_free(&am.vars);
    return ok && !mim_world_has_error(w);
}

static const MimPhaseClass add_mem_class = {
    .name = "add_mem", .size = sizeof(MimPhase), .dirty = true, .run = add_mem_run};

bool mem_handle_add_mem(MimPipeline *pb, MimDef *app) {
    (void)app;
    return mim_pipeline_add_phase(pb, &add_mem_class) != NULL;
}
