/* The affine plugin (affine.md): the pass `lower_affine_for` lowers every
 * `%affine.For (m, n, Ts) (begin, end, step, init, body, exit)` whose body
 * and exit are mutable lambdas to explicit control flow (§4):
 *
 *     head (iter, acc…)  = (new_exit, new_body)#(%core.icmp.ul (iter, end)) mem
 *     new_body mem       = body's body [param := (iter, acc, new_yield)]
 *     new_yield acc'     = head (%core.wrap.add 3 (iter, step), acc'…)
 *     new_exit mem       = exit's body [param := acc]
 *
 * and the call becomes `head (begin, init…)`. With a %mem.M in the
 * accumulators, head takes them flattened one level and the branch targets
 * take the memory; without, head takes (iter, acc) and the targets take (). */
#include "mim/ptrmap.h"
#include "mim/pass.h"
#include "mim/plugin/affine.h"
#include "mim/plugin/core.h"
#include "mim/plugin/mem.h"

#include <stdlib.h>

typedef struct LowerFor {
    MimPass base;
    MimPtrMap lowered; /* For call ↦ its replacement */
} LowerFor;

/* The first %mem.M-typed component of x, searching nested tuples (not
 * arrays), or NULL. */
static MimDef *find_mem(MimWorld *w, MimDef *x) {
    MimDef *T = mim_resolve(w, mim_def_type(x));
    if (!T) return NULL;
    if (mim_match(T, MIM_mem_M)) return x;
    if (mim_def_node(T) != MIM_SIGMA) return NULL;
    size_t n = mim_def_num_ops(T);
    for (size_t i = 0; i < n; ++i) {
        MimDef *m = find_mem(w, mim_proj(w, x, n, i));
        if (m) return m;
    }
    return NULL;
}

/* With memory, init's type is %mem.M itself or a sigma (find_mem does not
 * enter arrays): its components are the sigma's elements, or the type. */
static size_t num_components(MimWorld *w, MimDef *T) {
    T = mim_resolve(w, T);
    return mim_def_node(T) == MIM_SIGMA ? mim_def_num_ops(T) : 1;
}

/* Component i of T, or NULL for a dependent sigma (whose elements refer to
 * the earlier ones through its variable). */
static MimDef *component_type(MimWorld *w, MimDef *T, size_t i) {
    T = mim_resolve(w, T);
    if (mim_def_node(T) != MIM_SIGMA) return T;
    return mim_def_is_mut(T) ? NULL : mim_def_op(T, i);
}

static MimDef *cn_named(MimWorld *w, MimDef *dom, const char *name) {
    MimDef *lam = mim_mut_lam(w, mim_cn(w, dom));
    if (lam) mim_def_set_name(lam, mim_world_sym(w, name));
    return lam;
}

/* `annex s` for the implicit size s of the core operations. */
static MimDef *core_op(MimWorld *w, uint64_t id, MimDef *size) {
    return mim_app(w, mim_annex(w, id), size);
}

/* One β-step of the continuation `lam` with `arg` into the fresh `target`
 * (filter and body); a continuation that is not a lambda with a body (e.g.
 * the return continuation an η-reduced exit became) is called instead. */
static bool move_body(MimWorld *w, MimDef *target, MimDef *lam, MimDef *arg) {
    if (mim_def_node(lam) != MIM_LAM || !mim_def_is_mut(lam) || !mim_lam_body(lam))
        return mim_lam_set(w, target, mim_lit_bool(w, false), mim_app(w, lam, arg)) != NULL;
    MimDef *ops[2];
    return mim_reduce(w, lam, arg, ops) && mim_lam_set(w, target, ops[0], ops[1]);
}

static MimDef *lower(MimWorld *w, MimDef *call) {
    MimDef *targs = mim_app_nth_arg(call, 0), *args = mim_app_nth_arg(call, 1);
    MimDef *m = mim_proj(w, targs, 3, 0);
    MimDef *begin = mim_proj(w, args, 6, 0), *end = mim_proj(w, args, 6, 1);
    MimDef *step = mim_proj(w, args, 6, 2), *init = mim_proj(w, args, 6, 3);
    MimDef *body = mim_resolve(w, mim_proj(w, args, 6, 4));
    MimDef *exit = mim_resolve(w, mim_proj(w, args, 6, 5));
    if (!body || !exit) return NULL;
    /* Decision (docs/direct-affine.md): the reference lowers only when body
     * and exit are lambdas; η-reduction, which runs before lower_for in the
     * same pass manager, turns `con exit (acc) = return acc` into `return`,
     * which would leave a For the back end cannot compile. Any continuation
     * is lowered here: lambdas are inlined, other continuations called. */

    MimDef *init_ty = mim_def_type(init);
    bool has_mem = find_mem(w, init) != NULL;
    size_t k = has_mem ? num_components(w, init_ty) : 1;
    MimDef **elems = malloc((k + 1) * sizeof *elems);
    if (!elems) abort();
    MimDef *res = NULL;

    /* head: [Idx m, c₁, …, cₖ] with memory, else [Idx m, T_init] */
    elems[0] = mim_def_type(begin);
    for (size_t i = 0; i < k; ++i)
        if (!(elems[i + 1] = has_mem ? component_type(w, init_ty, i) : init_ty)) {
            res = call; /* dependent accumulators: left as they are */
            goto done;
        }
    MimDef *head = cn_named(w, mim_sigma(w, elems, k + 1), "head");
    if (!head) goto done;
    MimDef *iter = mim_var_proj(w, head, k + 1, 0);
    for (size_t i = 0; i < k; ++i) elems[i] = mim_var_proj(w, head, k + 1, i + 1);
    MimDef *acc = k == 1 ? elems[0] : mim_tuple(w, elems, k);

    MimDef *target_dom = has_mem ? mim_annex(w, MIM_mem_M) : mim_unit_type(w);
    MimDef *new_body = cn_named(w, target_dom, "new_body");
    MimDef *new_exit = cn_named(w, target_dom, "new_exit");
    MimDef *new_yield = cn_named(w, init_ty, "new_yield");
    if (!new_body || !new_exit || !new_yield) goto done;

    MimDef *targets[2] = {new_exit, new_body};
    MimDef *ul = core_op(w, MIM_core_icmp_ul, m); /* built left to right: gids */
    MimDef *cmp = mim_app(w, ul, mim_pair(w, iter, end));
    MimDef *branch = mim_extract(w, mim_tuple(w, targets, 2), cmp);
    MimDef *mem_arg = has_mem ? find_mem(w, mim_var(w, head)) : mim_unit(w);
    if (!mim_lam_set(w, head, mim_lit_bool(w, false), mim_app(w, branch, mem_arg))) goto done;

    MimDef *add = core_op(w, MIM_core_wrap_add, m);
    add = mim_app(w, add, mim_lit_nat(w, 3));
    MimDef *next = mim_app(w, add, mim_pair(w, iter, step));
    elems[0] = next;
    for (size_t i = 0; i < k; ++i)
        elems[i + 1] = k == 1 ? mim_var(w, new_yield) : mim_var_proj(w, new_yield, k, i);
    MimDef *again = mim_app(w, head, mim_tuple(w, elems, k + 1));
    if (!mim_lam_set(w, new_yield, mim_lit_bool(w, false), again)) goto done;

    MimDef *body_arg[3] = {iter, acc, new_yield};
    if (!move_body(w, new_body, body, mim_tuple(w, body_arg, 3)) ||
        !move_body(w, new_exit, exit, acc))
        goto done;

    elems[0] = begin;
    for (size_t i = 0; i < k; ++i) elems[i + 1] = has_mem ? mim_proj(w, init, k, i) : init;
    res = mim_app(w, head, mim_tuple(w, elems, k + 1));
done:
    free(elems);
    return res;
}

static MimDef *lower_for_rewrite(MimPass *p, MimDef *def) {
    LowerFor *lf = (LowerFor *)p;
    MimWorld *w = mim_pass_world(p);
    MimDef *call = mim_match(def, MIM_affine_For);
    if (!call) return def;
    MimDef *res = mim_ptrmap_get(&lf->lowered, call);
    if (res) return res;
    res = lower(w, call);
    if (res) mim_ptrmap_put(&lf->lowered, call, res);
    return res;
}

/* Idle (mim_pass_idle) without %affine.For in the program: only its
 * applications are lowered. The uses walk before prepare recorded every
 * reachable node. */
static void lower_for_prepare(MimPass *p) {
    for (uint32_t i = 0, n = mim_pass_num_records(p); i < n; ++i) {
        MimDef *d = mim_pass_record(p, i);
        if (mim_def_node(d) == MIM_AXIOM && mim_axiom_id(d) == MIM_affine_For) return;
    }
    mim_pass_idle(p);
}

static void lower_for_fini(MimPass *p) { mim_ptrmap_free(&((LowerFor *)p)->lowered); }

static const MimPassClass lower_for_class = {
    .name = "lower_affine_for",
    .size = sizeof(LowerFor),
    .on_lams = true,
    .prepare = lower_for_prepare,
    .rewrite = lower_for_rewrite,
    .fini = lower_for_fini,
};

static bool handle_lower_for(MimPipeline *pb, MimDef *app) {
    return mim_pipeline_add_pass(pb, app, &lower_for_class, NULL) != NULL;
}

static const MimPassReg passes[] = {{MIM_affine_lower_for_pass, handle_lower_for}};
MIM_PLUGIN_DEFINE("affine", MIM_PLUGIN_NO_TABLE, MIM_PLUGIN_TABLE(passes), MIM_PLUGIN_NO_TABLE);
