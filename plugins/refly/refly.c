/* The refly plugin (plugins/refly.md): reification and reflection of IR
 * nodes, their global ids, debug output while they are built, and the
 * remove_dbg_perm pass.
 *
 * A reified node is the literal `gid:(%refly.Code T)`: the handle is the
 * node's gid (unique in its World, and deterministic, unlike the reference's
 * node address, so output does not vary between runs). The World's refly
 * state maps handles back to nodes; only handles made by reify in this
 * World reflect. A literal written by hand, or one that outlived its World
 * (the cleanup copies literals, not the nodes they name), stays a raw
 * application instead of naming whatever node has that number now
 * (docs/refly.md). */
#include "mim/plugin/refly.h"
#include "mim/pass.h"
#include "mim/ptrmap.h"

#include <stdlib.h>

/* ---- handles ---------------------------------------------------------------- */

typedef struct Reified {
    MimPtrMap by_handle; /* handle + 1 -> node (keys are never NULL) */
} Reified;

static void reified_fini(void *state) { mim_ptrmap_free(&((Reified *)state)->by_handle); }

static Reified *reified(MimWorld *w) {
    return mim_world_plugin_state(w, MIM_refly_ID, sizeof(Reified), reified_fini);
}

static const void *key_of(uint64_t handle) { return (const void *)(uintptr_t)(handle + 1); }

/* The literal naming d, of type `code` (= %refly.Code (type of d)). */
static MimDef *reify(MimWorld *w, MimDef *code, MimDef *d) {
    uint64_t handle = mim_def_gid(d);
    mim_ptrmap_put(&reified(w)->by_handle, key_of(handle), d);
    return mim_lit(w, code, handle);
}

/* The node a reified literal names, if it has type `type`; else NULL. */
static MimDef *reflect(MimWorld *w, MimDef *c, MimDef *type) {
    uint64_t handle;
    if (!c || mim_def_node(c) != MIM_LIT || !mim_def_lit(c, &handle)) return NULL;
    MimDef *d = mim_ptrmap_get(&reified(w)->by_handle, key_of(handle));
    return d && mim_def_type(d) == type ? d : NULL;
}

/* ---- normalizers -------------------------------------------------------------- */

MimDef *normalize_reify(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    (void)callee;
    return reify(w, type, arg);
}

MimDef *normalize_reflect(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    MimDef *d = reflect(w, arg, type);
    return d ? d : mim_raw_app(w, type, callee, arg);
}

MimDef *normalize_gid(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    (void)type, (void)callee;
    return mim_lit_nat(w, mim_def_gid(arg));
}

enum { DBG_TMP, DBG_PERM };
enum { LOG_DEBUG = 4 };

/* One log line about x: the node, its unique name, its type, its kind and
 * its operands (the reference's list, in its own words). */
static void log_node(MimWorld *w, int level, MimDef *x) {
    if (!mim_world_logs(w, level)) return;
    char *node = mim_def_to_str(w, x), *type = mim_def_type(x) ? mim_def_to_str(w, mim_def_type(x)) : NULL;
    MimSym name = mim_def_name(x);
    mim_world_log(w, level, mim_world_loc(w), "%s (unique name %s_%u): %s; node %s, %zu operand(s)%s", node,
                  name ? name : "", mim_def_gid(x), type ? type : "(none)", mim_node_name(mim_def_node(x)),
                  mim_def_num_ops(x), mim_def_is_mut(x) ? ", mutable" : "");
    free(node);
    free(type);
}

MimDef *normalize_dbg(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    MimDef *lvl = mim_proj(w, arg, 2, 0), *x = mim_proj(w, arg, 2, 1);
    if (!lvl || !x) return NULL;
    uint64_t level;
    if (!mim_def_lit(lvl, &level) || level > LOG_DEBUG) level = LOG_DEBUG;
    log_node(w, (int)level, x);
    return mim_callee_sub(callee) == DBG_TMP ? x : mim_raw_app(w, type, callee, arg);
}

/* refine (E, X) (e, i, x): e's node with operand i replaced by x's node,
 * reified; raw unless i is a literal below e's operand count and both
 * handles reflect, and e's node is an immutable (a mutable would have to
 * be changed in place, which a normalizer must not do). */
MimDef *normalize_refine(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    MimDef *ex = mim_app_nth_arg(callee, 0);
    MimDef *E = mim_proj(w, ex, 2, 0), *X = mim_proj(w, ex, 2, 1);
    MimDef *e = mim_proj(w, arg, 3, 0), *i = mim_proj(w, arg, 3, 1), *x = mim_proj(w, arg, 3, 2);
    if (!E || !X || !e || !i || !x) return NULL;
    uint64_t k;
    MimDef *de = reflect(w, e, E), *dx = reflect(w, x, X);
    if (!de || !dx || mim_def_is_mut(de) || !mim_def_lit(i, &k) || k >= mim_def_num_ops(de))
        return mim_raw_app(w, type, callee, arg);
    size_t n = mim_def_num_ops(de);
    MimDef **ops = malloc((n ? n : 1) * sizeof *ops);
    if (!ops) return NULL;
    for (size_t j = 0; j < n; ++j) ops[j] = mim_def_op(de, j);
    MimDef *old = ops[k];
    ops[k] = dx;
    /* Rebuilt through the checking constructors. Two kinds take their type
     * as given: a tuple is built afresh (its type inferred from the new
     * operands), a function only with an operand of the old one's type. */
    MimDef *refined = NULL;
    unsigned errors = mim_world_diag(w)->num_errors;
    if (mim_def_node(de) == MIM_TUPLE) refined = mim_tuple(w, ops, n);
    else if (mim_def_node(de) != MIM_VAR && (mim_def_node(de) != MIM_LAM || mim_def_type(dx) == mim_def_type(old)))
        refined = mim_rebuild(w, de, mim_def_type(de), ops);
    else refined = de; /* a variable (its operand is its binder), or a function
                          given an operand of another type: stays raw below */
    free(ops);
    /* NULL after a reported error is that error; NULL without one (a kind
     * that cannot be rebuilt from these operands) leaves the call raw */
    if (!refined) return mim_world_diag(w)->num_errors != errors ? NULL : mim_raw_app(w, type, callee, arg);
    /* the result must stay a Code E: a replacement that changes the type of
     * the node leaves the call as it is */
    if (refined == de && dx != old) return mim_raw_app(w, type, callee, arg);
    return mim_def_type(refined) == E ? reify(w, type, refined) : mim_raw_app(w, type, callee, arg);
}

/* ---- the remove_dbg_perm pass (refly.md §4) ------------------------------------ */

static MimDef *remove_dbg_perm(MimPass *p, MimDef *def) {
    MimDef *call = mim_match(def, MIM_refly_dbg_perm);
    if (!call) return def;
    return mim_proj(mim_pass_world(p), mim_app_nth_arg(call, 1), 2, 1);
}

static const MimPassClass remove_dbg_perm_class = {
    .name = "remove_dbg_perm",
    .size = sizeof(MimPass),
    .on_lams = true,
    .rewrite = remove_dbg_perm,
};

static bool handle_remove_dbg_perm(MimPipeline *pb, MimDef *app) {
    return mim_pipeline_add_pass(pb, app, &remove_dbg_perm_class, NULL) != NULL;
}

static const MimNormalizerReg normalizers[] = {MIM_refly_NORMALIZERS};
static const MimPassReg passes[] = {{MIM_refly_remove_dbg_perm_pass, handle_remove_dbg_perm}};
MIM_PLUGIN_DEFINE("refly", MIM_PLUGIN_TABLE(normalizers), MIM_PLUGIN_TABLE(passes), MIM_PLUGIN_NO_TABLE);
