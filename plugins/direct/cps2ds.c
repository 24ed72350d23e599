/* The cps2ds pass (direct.md §4.2): removes the direct-style calls
 * `%direct.cps2ds_dep (T, U) f a` by splitting the enclosing lambda.
 *
 * On entering a lambda L, its filter and body are rewritten in a memoized
 * depth-first walk (callee before argument, tuple elements in order) that
 * keeps a *current* lambda C, initially L. A direct-style call ends C with
 * the CPS call `f (a, k)` for a fresh continuation k : Cn R (R = the call's
 * type); k becomes current and the call's value is k's parameter. Finally the
 * current lambda gets the rewritten filter and body: a straight-line body
 * becomes a chain of blocks, one per call. Lambdas met during the walk are
 * split first, each with its own context (memo and current lambda). */
#include "mim/ptrmap.h"
#include "direct_impl.h"

#include <stdlib.h>
#include <string.h>

typedef struct Cps2Ds {
    MimPass base;
    MimPtrMap done;  /* lambdas entered (and continuations created) */
    bool failed;  /* an error was recorded while entering */
} Cps2Ds;

typedef struct Ctx {
    Cps2Ds *pass;
    MimWorld *w;
    MimDef *cur; /* the block that the walk currently appends to */
    MimPtrMap memo; /* old node ↦ rewritten node, for this lambda only */
} Ctx;

static bool split_lam(Cps2Ds *p, MimWorld *w, MimDef *lam);
static MimDef *walk(Ctx *c, MimDef *d);

/* "<block>_cps_cont"; a block that is itself such a continuation passes its
 * name on, so a chain of n calls does not build names of length O(n). */
static MimSym cont_name(MimWorld *w, const MimDef *block) {
    static const char suffix[] = "_cps_cont";
    MimSym name = mim_def_name(block);
    size_t len = name ? strlen(name) : 0, n = sizeof suffix - 1;
    if (len >= n && strcmp(name + len - n, suffix) == 0) return name;
    return direct_suffixed_name(w, block, suffix);
}

/* End the current block with `f (a, k)` and continue in k; the call's value
 * is k's parameter. */
static MimDef *split_call(Ctx *c, MimDef *callee, MimDef *arg) {
    MimWorld *w = c->w;
    MimDef *f = mim_app_arg(callee);
    MimDef *call = mim_app(w, callee, arg); /* only for its (instantiated) type */
    if (!call) return NULL;
    MimDef *k = mim_mut_lam(w, mim_cn(w, mim_def_type(call)));
    if (!k) return NULL;
    mim_def_set_name(k, cont_name(w, c->cur));
    mim_ptrmap_put(&c->pass->done, k, k);
    MimDef *filter = mim_lam_body(c->cur) ? mim_lam_filter(c->cur) : mim_lit_bool(w, false);
    MimDef *ops[2] = {arg, k};
    if (!mim_lam_set(w, c->cur, filter, mim_app(w, f, mim_tuple(w, ops, 2)))) return NULL;
    c->cur = k;
    return mim_var(w, k);
}

/* An immutable node with rewritten operands, through the public
 * constructors; kinds that cannot hold a direct-style call in a body are
 * reported if their operands changed anyway. */
static MimDef *rebuild(Ctx *c, MimDef *d, MimDef **ops, size_t n) {
    MimWorld *w = c->w;
    switch (mim_def_node(d)) {
    case MIM_TUPLE: return mim_tuple(w, ops, n);
    case MIM_SIGMA: return mim_sigma(w, ops, n);
    case MIM_EXTRACT: return mim_extract(w, ops[0], ops[1]);
    case MIM_INSERT: return mim_insert(w, ops[0], ops[1], ops[2]);
    case MIM_PI: return mim_pi(w, ops[0], ops[1], mim_pi_is_implicit(d));
    case MIM_ARR: return mim_arr(w, ops[0], ops[1]);
    case MIM_PACK: {
        MimDef *T = mim_resolve(w, mim_def_type(d));
        MimDef *shape = mim_def_node(T) == MIM_ARR ? mim_def_op(T, 0) : mim_lit_nat(w, 1);
        return mim_pack(w, shape, ops[0]);
    }
    default:
        mim_diag_report(mim_world_diag(w), MIM_ERROR, mim_def_loc(d),
                        "cps2ds: cannot split a direct-style call inside a '%s' node",
                        mim_node_name(mim_def_node(d)));
        return NULL;
    }
}

static MimDef *walk_node(Ctx *c, MimDef *d) {
    MimWorld *w = c->w;
    switch (mim_def_node(d)) {
    case MIM_VAR:
    case MIM_GLOBAL: return d;
    case MIM_INFER:
        mim_diag_report(mim_world_diag(w), MIM_WARNING, mim_def_loc(d),
                        "cps2ds: an unresolved inference hole is left alone");
        return d;
    case MIM_LAM:
        /* An immutable lambda is a scope of its own that the walk cannot
         * split into the current block: left alone. */
        return d;
    case MIM_APP: {
        MimDef *callee = walk(c, mim_app_callee(d));
        MimDef *arg = callee ? walk(c, mim_app_arg(d)) : NULL;
        if (!arg) return NULL;
        if (mim_match(callee, MIM_direct_cps2ds_dep)) return split_call(c, callee, arg);
        return callee == mim_app_callee(d) && arg == mim_app_arg(d) ? d : mim_app(w, callee, arg);
    }
    default: break;
    }
    size_t n = mim_def_num_ops(d);
    MimDef *small[8], **ops = n <= 8 ? small : malloc(n * sizeof *ops);
    if (!ops) abort();
    bool same = true;
    MimDef *res = d;
    for (size_t i = 0; i < n; ++i) {
        MimDef *op = mim_def_op(d, i);
        ops[i] = walk(c, op);
        if (!ops[i]) {
            res = NULL;
            goto done;
        }
        same &= ops[i] == op;
    }
    if (!same) res = rebuild(c, d, ops, n);
done:
    if (ops != small) free(ops);
    return res;
}

static MimDef *walk(Ctx *c, MimDef *d) {
    MimWorld *w = c->w;
    d = mim_resolve(w, d);
    if (!d) return NULL;
    if (!(mim_def_dep(d) & (MIM_DEP_VAR | MIM_DEP_MUT | MIM_DEP_INFER | MIM_DEP_PROXY))) return d;
    if (mim_def_is_mut(d)) {
        /* Other mutables are visited by the pass manager on their own. */
        if (mim_def_node(d) == MIM_LAM && !split_lam(c->pass, w, d)) return NULL;
        return d;
    }
    MimDef *memo = mim_ptrmap_get(&c->memo, d);
    if (memo) return memo;
    MimDef *res = walk_node(c, d);
    if (res) mim_ptrmap_put(&c->memo, d, res);
    return res;
}

/* Split lam (once): false after an error was recorded. */
static bool split_lam(Cps2Ds *p, MimWorld *w, MimDef *lam) {
    if (mim_ptrmap_get(&p->done, lam)) return true;
    mim_ptrmap_put(&p->done, lam, lam);
    MimDef *filter = mim_lam_filter(lam), *body = mim_lam_body(lam);
    if (!mim_def_is_mut(lam) || !filter || !body) return true;
    MimDef *pi = mim_resolve(w, mim_def_type(lam));
    MimDef *codom = pi && mim_def_node(pi) == MIM_PI ? mim_resolve(w, mim_pi_codom(pi)) : NULL;
    if (!codom || mim_def_node(codom) == MIM_TYPE) return true;
    /* Only a continuation can end with a CPS call: a direct-style lambda
     * (whose codomain would not accept the ⊥ of `f (a, k)`) keeps its
     * direct-style calls, as ds2cps leaves them (docs/decisions.md). */
    if (!mim_pi_is_cn(pi)) return true;

    Ctx c = {p, w, lam, {0}};
    MimDef *new_filter = walk(&c, filter);
    MimDef *new_body = new_filter ? walk(&c, body) : NULL;
    bool ok = new_body != NULL;
    if (ok && (c.cur != lam || new_filter != filter || new_body != body))
        ok = mim_lam_set(w, c.cur, new_filter, new_body) != NULL;
    mim_ptrmap_free(&c.memo);
    return ok;
}

/* Only a direct-style call (an application of %direct.cps2ds_dep) splits a
 * lambda, and only an unresolved hole draws a warning: without either in
 * the program, entering lambdas has nothing to do. The uses walk before
 * prepare recorded every reachable node. */
static void cps2ds_prepare(MimPass *p) {
    for (uint32_t i = 0, n = mim_pass_num_records(p); i < n; ++i) {
        MimDef *d = mim_pass_record(p, i);
        MimNode k = mim_def_node(d);
        if (k == MIM_INFER || (k == MIM_AXIOM && mim_axiom_id(d) == MIM_direct_cps2ds_dep)) return;
    }
    mim_pass_idle(p);
}

static void cps2ds_enter(MimPass *p, MimDef *mut) {
    Cps2Ds *c = (Cps2Ds *)p;
    if (mim_def_node(mut) == MIM_LAM && !split_lam(c, mim_pass_world(p), mut)) c->failed = true;
}

/* Only reports a failure of `enter` (already recorded in the World) to the
 * manager: NULL aborts it. The manager offers the rebuilt operands of the
 * entered lambda right after `enter`. */
static MimDef *cps2ds_rewrite(MimPass *p, MimDef *def) {
    return ((Cps2Ds *)p)->failed ? NULL : def;
}

static void cps2ds_fini(MimPass *p) { mim_ptrmap_free(&((Cps2Ds *)p)->done); }

const MimPassClass direct_cps2ds_class = {
    .name = "cps2ds",
    .size = sizeof(Cps2Ds),
    .on_lams = true,
    .prepare = cps2ds_prepare,
    .enter = cps2ds_enter,
    .rewrite = cps2ds_rewrite,
    .fini = cps2ds_fini,
};
