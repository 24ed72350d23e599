/* The autodiff plugin's passes (plugins/autodiff.md §5): autodiff_zero and
 * autodiff_zero_cleanup resolve the remaining `%autodiff.zero T`, and
 * ad_ext_cleanup makes the interface's internal_diff_* derivatives
 * internal; the registration of all four. autodiff_eval (§5.1) is in
 * eval.c. */
#include "autodiff.h"
#include "mim/pass.h"

#include <stdlib.h>

/* The zero tangent of a float type: −0.0, the identity of addition (−0 + x
 * is x for every x, +0 and NaN included), so that LLVM removes the sums with
 * it even in strict mode; +0.0 in a format whose sign bit is not known. */
static MimDef *float_zero(MimWorld *w, MimDef *T) {
    MimDef *pe = mim_resolve(w, mim_app_arg(T));
    uint64_t p, e;
    bool lit = pe && mim_def_node(pe) == MIM_TUPLE && mim_def_num_ops(pe) == 2 && mim_def_lit(mim_def_op(pe, 0), &p) &&
               mim_def_lit(mim_def_op(pe, 1), &e) && p + e < 64;
    return mim_lit(w, T, lit ? (uint64_t)1 << (p + e) : 0);
}

/* A concrete zero of T where §5.2 knows one, else NULL. */
static MimDef *zero_of(MimWorld *w, MimDef *T) {
    T = mim_resolve(w, T);
    MimDef *zero = mim_world_annex(w, MIM_autodiff_zero);
    if (!T || !zero) return NULL;
    if (mim_def_node(T) == MIM_ARR && !mim_def_is_mut(T))
        return mim_pack(w, mim_def_op(T, 0), mim_app(w, zero, mim_def_op(T, 1)));
    if (autodiff_is_idx(w, T)) return mim_lit(w, T, 0);
    if (mim_match(T, MIM_math_F)) return float_zero(w, T);
    if (mim_def_node(T) == MIM_SIGMA && !mim_def_is_mut(T)) {
        size_t n = mim_def_num_ops(T);
        MimDef **ops = mim_xmalloc(n * sizeof *ops);
        for (size_t i = 0; i < n; ++i) ops[i] = mim_app(w, zero, mim_def_op(T, i));
        MimDef *res = mim_tuple(w, ops, n);
        free(ops);
        return res;
    }
    return NULL;
}

static MimDef *zero_rewrite(MimPass *p, MimDef *def) {
    MimDef *call = mim_match(def, MIM_autodiff_zero);
    if (!call) return def;
    MimDef *z = zero_of(mim_pass_world(p), mim_app_nth_arg(call, 0));
    return z ? z : def;
}

static MimDef *zero_cleanup_rewrite(MimPass *p, MimDef *def) {
    MimDef *call = mim_match(def, MIM_autodiff_zero);
    return call ? mim_bot(mim_pass_world(p), mim_app_nth_arg(call, 0)) : def;
}

static void ext_cleanup_enter(MimPass *p, MimDef *lam) {
    if (mim_is_prefixed_external(lam, "internal_diff_")) mim_make_internal(mim_pass_world(p), lam);
}

static const MimPassClass zero_class = {
    .name = "autodiff_zero", .size = sizeof(MimPass), .on_lams = true, .rewrite = zero_rewrite};
static const MimPassClass zero_cleanup_class = {
    .name = "autodiff_zero_cleanup", .size = sizeof(MimPass), .on_lams = true, .rewrite = zero_cleanup_rewrite};
static const MimPassClass ext_cleanup_class = {
    .name = "ad_ext_cleanup", .size = sizeof(MimPass), .on_lams = true, .enter = ext_cleanup_enter};

static bool handle_eval(MimPipeline *pb, MimDef *app) {
    return mim_pipeline_add_pass(pb, app, &autodiff_eval_class, NULL) != NULL;
}
static bool handle_zero(MimPipeline *pb, MimDef *app) {
    return mim_pipeline_add_pass(pb, app, &zero_class, NULL) != NULL;
}
static bool handle_zero_cleanup(MimPipeline *pb, MimDef *app) {
    return mim_pipeline_add_pass(pb, app, &zero_cleanup_class, NULL) != NULL;
}
static bool handle_ext_cleanup(MimPipeline *pb, MimDef *app) {
    return mim_pipeline_add_pass(pb, app, &ext_cleanup_class, NULL) != NULL;
}

static const MimNormalizerReg normalizers[] = {MIM_autodiff_NORMALIZERS};
static const MimPassReg passes[] = {
    {MIM_autodiff_ad_eval_pass, handle_eval},
    {MIM_autodiff_ad_zero_pass, handle_zero},
    {MIM_autodiff_ad_zero_cleanup_pass, handle_zero_cleanup},
    {MIM_autodiff_ad_ext_cleanup_pass, handle_ext_cleanup},
};
MIM_PLUGIN_DEFINE("autodiff", MIM_PLUGIN_TABLE(normalizers), MIM_PLUGIN_TABLE(passes), MIM_PLUGIN_NO_TABLE);
