/* The matrix plugin (plugins/matrix.md): normalizers (§4), the high-level
 * pass that turns %matrix.prod/transpose/sum into calls of the interface's
 * internal_mapRed_* functions (§5.1), and internal_map_reduce_cleanup
 * (§5: internal_cleanup with the prefix internal_mapRed_).
 *
 * Not yet here (docs/matrix.md): the medium-level pass (map_reduce to
 * %affine.For loops, §5.2) and the low-level phase (tensors to pointers,
 * §5.3). Without them the pipeline interpretation warns that the two are
 * not found and skips them, so map_reduce calls stay and the LLVM back end
 * rejects them with a located error. */
#include "mim/pass.h"
#include "mim/plugin.h"
#include "mim/plugin/direct.h"
#include "mim/plugin/matrix.h"
#include "mim/ptrmap.h"

#include <stdio.h>
#include <string.h>

/* ---- normalizers (§4) ------------------------------------------------------------ */

/* shape (mat, i) → S#i, S from mat's type %matrix.Mat (n, S, T). */
MimDef *normalize_shape(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    MimDef *mat = mim_proj(w, arg, 2, 0), *i = mim_proj(w, arg, 2, 1);
    MimDef *mat_type = mat ? mim_resolve(w, mim_def_type(mat)) : NULL;
    MimDef *Mat = mat_type ? mim_match(mat_type, MIM_matrix_Mat) : NULL;
    if (!Mat || !i) return mim_raw_app(w, type, callee, arg);
    MimDef *S = mim_proj(w, mim_app_nth_arg(Mat, 0), 3, 1);
    return S ? mim_extract(w, S, i) : NULL;
}

/* read (mem, constMat (m₀, v)#1, idx) → (mem, v). */
MimDef *normalize_read(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    MimDef *mem = mim_proj(w, arg, 3, 0), *mat = mim_proj(w, arg, 3, 1);
    uint64_t k;
    if (mem && mat && mim_def_node(mat) == MIM_EXTRACT && mim_def_lit(mim_def_op(mat, 1), &k) && k == 1) {
        MimDef *made = mim_match(mim_def_op(mat, 0), MIM_matrix_constMat);
        if (made) {
            MimDef *v = mim_proj(w, mim_app_nth_arg(made, 1), 2, 1);
            MimDef *ops[2] = {mem, v};
            return v ? mim_tuple(w, ops, 2) : NULL;
        }
    }
    return mim_raw_app(w, type, callee, arg);
}

static MimDef *raw(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    return mim_raw_app(w, type, callee, arg);
}

MimDef *normalize_insert(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    return raw(w, type, callee, arg);
}
MimDef *normalize_map_reduce(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    return raw(w, type, callee, arg);
}
MimDef *normalize_prod(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    return raw(w, type, callee, arg);
}
MimDef *normalize_transpose(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    return raw(w, type, callee, arg);
}

/* ---- high level (§5.1) ------------------------------------------------------------ */

/* The direct-style view of a CPS function f : Cn [T, Cn U] (direct.md §3.2),
 * or NULL if f has another type. */
static MimDef *cps2ds(MimWorld *w, MimDef *f) {
    MimDef *K = mim_resolve(w, mim_def_type(f));
    if (!K || mim_def_node(K) != MIM_PI || !mim_pi_is_cn(K)) return NULL;
    MimDef *T = mim_proj(w, mim_pi_dom(K), 2, 0), *ret = mim_proj(w, mim_pi_dom(K), 2, 1);
    ret = ret ? mim_resolve(w, ret) : NULL;
    if (!T || !ret || mim_def_node(ret) != MIM_PI || !mim_pi_is_cn(ret)) return NULL;
    MimDef *TU[2] = {T, mim_pi_dom(ret)};
    return mim_app(w, mim_app(w, mim_world_annex(w, MIM_direct_cps2ds), mim_tuple(w, TU, 2)), f);
}

typedef struct HighLevel {
    MimPass base;
    MimPtrMap done; /* node ↦ replacement */
} HighLevel;

/* The external internal_mapRed_<name of ax without %, dots as _>, or NULL. */
static MimDef *map_reduce_impl(MimWorld *w, const MimDef *ax) {
    MimSym name = mim_def_name(ax);
    if (!name || name[0] != '%') return NULL;
    char buf[160];
    int len = snprintf(buf, sizeof buf, "internal_mapRed_%s", name + 1);
    if (len < 0 || (size_t)len >= sizeof buf) return NULL;
    for (char *c = buf; *c; ++c)
        if (*c == '.') *c = '_';
    return mim_world_lookup_external(w, mim_world_sym(w, buf));
}

static MimDef *high_level_rewrite(MimPass *p, MimDef *def) {
    HighLevel *hl = (HighLevel *)p;
    if (mim_def_node(def) != MIM_APP) return def;
    MimDef *inner = mim_app_callee(def);
    if (mim_def_node(inner) != MIM_APP || mim_def_node(mim_app_callee(inner)) != MIM_AXIOM) return def;
    MimDef *known = mim_ptrmap_get(&hl->done, def);
    if (known) return known;
    MimWorld *w = mim_pass_world(p);
    MimDef *impl = map_reduce_impl(w, mim_app_callee(inner));
    if (!impl) return def;
    MimDef *fn = mim_app(w, impl, mim_app_arg(inner));
    MimDef *ds = fn ? cps2ds(w, fn) : NULL;
    MimDef *res = ds ? mim_app(w, ds, mim_app_arg(def)) : NULL;
    if (res) mim_ptrmap_put(&hl->done, def, res);
    return res;
}

static void high_level_fini(MimPass *p) { mim_ptrmap_free(&((HighLevel *)p)->done); }

static const MimPassClass high_level_class = {
    .name = "lower_matrix_high_level_map_reduce",
    .size = sizeof(HighLevel),
    .on_lams = true,
    .rewrite = high_level_rewrite,
    .fini = high_level_fini,
};

/* ---- internal_map_reduce_cleanup (§5) ------------------------------------------------ */

static void map_reduce_cleanup_enter(MimPass *p, MimDef *lam) {
    static const char prefix[] = "internal_mapRed_";
    MimSym name = mim_def_name(lam);
    if (mim_def_node(lam) == MIM_LAM && mim_def_is_external(lam) && name &&
        strncmp(name, prefix, sizeof prefix - 1) == 0)
        mim_make_internal(mim_pass_world(p), lam);
}

static const MimPassClass map_reduce_cleanup_class = {
    .name = "internal_map_reduce_cleanup",
    .size = sizeof(MimPass),
    .on_lams = true,
    .enter = map_reduce_cleanup_enter,
};

static bool handle_high_level(MimPipeline *pb, MimDef *app) {
    return mim_pipeline_add_pass(pb, app, &high_level_class, NULL) != NULL;
}

static bool handle_cleanup(MimPipeline *pb, MimDef *app) {
    return mim_pipeline_add_pass(pb, app, &map_reduce_cleanup_class, NULL) != NULL;
}

static const MimNormalizerReg normalizers[] = {MIM_matrix_NORMALIZERS};
static const MimPassReg passes[] = {
    {MIM_matrix_lower_matrix_high_level_map_reduce, handle_high_level},
    {MIM_matrix_internal_map_reduce_cleanup, handle_cleanup},
};
MIM_PLUGIN_DEFINE("matrix", MIM_PLUGIN_TABLE(normalizers), MIM_PLUGIN_TABLE(passes), MIM_PLUGIN_NO_TABLE);
