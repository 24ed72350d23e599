/* The direct plugin (direct.md): the normalizer of %direct.cps2ds, the
 * construction of direct-style wrappers shared with the passes, and the
 * registration of the ds2cps and cps2ds passes. */
#include "direct_impl.h"

#include <stdlib.h>
#include <string.h>

MimDef *direct_error(MimWorld *w, const char *msg) {
    mim_diag_report(mim_world_diag(w), MIM_ERROR, mim_world_loc(w), "%s", msg);
    return NULL;
}

MimSym direct_suffixed_name(MimWorld *w, const MimDef *d, const char *suffix) {
    MimSym name = mim_def_name(d);
    if (!name) return mim_world_sym(w, suffix);
    size_t a = strlen(name), b = strlen(suffix);
    char *buf = malloc(a + b + 1);
    if (!buf) abort();
    memcpy(buf, name, a);
    memcpy(buf + a, suffix, b + 1);
    MimSym sym = mim_world_sym(w, buf);
    free(buf);
    return sym;
}

/* Element i of a two-element domain: a sigma or a homogeneous «2; T». */
static MimDef *dom_elem(MimWorld *w, MimDef *dom, uint64_t i) {
    dom = mim_resolve(w, dom);
    if (!dom) return NULL;
    if (mim_def_node(dom) == MIM_SIGMA)
        return mim_def_num_ops(dom) == 2 ? mim_def_op(dom, i) : NULL;
    uint64_t shape;
    if (mim_def_node(dom) != MIM_ARR || !mim_def_lit(mim_def_op(dom, 0), &shape) || shape != 2)
        return NULL;
    MimDef *body = mim_def_op(dom, 1);
    return mim_def_is_mut(dom) ? mim_subst(w, body, dom, mim_lit_idx(w, 2, i)) : body;
}

MimDef *direct_cps2ds_dep(MimWorld *w, MimDef *f) {
    static const char *const expects =
        "%direct.cps2ds expects a continuation of type 'Cn [T, Cn U]'";
    MimDef *K = f ? mim_resolve(w, mim_def_type(f)) : NULL;
    if (!K) return NULL;
    if (mim_def_node(K) != MIM_PI || !mim_pi_is_cn(K)) return direct_error(w, expects);
    MimDef *dom = mim_resolve(w, mim_pi_dom(K));
    MimDef *T = dom_elem(w, dom, 0), *ret = dom_elem(w, dom, 1);
    ret = ret ? mim_resolve(w, ret) : NULL;
    if (!T || !ret || mim_def_node(ret) != MIM_PI || !mim_pi_is_cn(ret))
        return direct_error(w, expects);
    MimDef *U = mim_pi_dom(ret);

    /* Uf : T → * returns U₀; a dependent domain [t: T, Cn U₀] refers to t as
     * (its variable)#0, which becomes Uf's parameter. */
    MimDef *Uf = mim_mut_lam(w, mim_pi(w, T, mim_star(w), false));
    if (!Uf) return NULL;
    mim_def_set_name(Uf, mim_world_sym(w, "Uf"));
    if (mim_def_is_mut(dom) && mim_def_node(dom) == MIM_SIGMA) {
        MimDef *as_var[2] = {mim_var(w, Uf), mim_unit(w)};
        U = mim_subst(w, U, dom, mim_tuple(w, as_var, 2));
    }
    if (!mim_lam_set(w, Uf, mim_lit_bool(w, true), U)) return NULL;

    MimDef *ax = mim_annex(w, MIM_direct_cps2ds_dep);
    return mim_app(w, mim_app(w, ax, mim_pair(w, T, Uf)), f);
}

/* `%direct.cps2ds (T, U) f` → `%direct.cps2ds_dep (T', Uf) f`; T and U are
 * implied by f's type (§3.2). */
MimDef *normalize_cps2ds(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    (void)type, (void)callee;
    return direct_cps2ds_dep(w, arg);
}

static bool handle_ds2cps(MimPipeline *pb, MimDef *app) {
    return mim_pipeline_add_pass(pb, app, &direct_ds2cps_class, NULL) != NULL;
}

static bool handle_cps2ds(MimPipeline *pb, MimDef *app) {
    return mim_pipeline_add_pass(pb, app, &direct_cps2ds_class, NULL) != NULL;
}

static const MimNormalizerReg normalizers[] = {MIM_direct_NORMALIZERS};
static const MimPassReg passes[] = {
    {MIM_direct_ds2cps_pass, handle_ds2cps},
    {MIM_direct_cps2ds_pass, handle_cps2ds},
};
MIM_PLUGIN_DEFINE("direct", MIM_PLUGIN_TABLE(normalizers), MIM_PLUGIN_TABLE(passes),
                  MIM_PLUGIN_NO_TABLE);
