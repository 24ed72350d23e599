/* The ds2cps pass (direct.md §4.1): a direct-style lambda g : [x: A] → B
 * that is called gets a CPS twin g_cps : Cn [A, Cn B] computing the same
 * body, and every call `g a` becomes `%direct.cps2ds_dep (…) g_cps a`. The
 * body of g_cps still holds direct-style calls; the cps2ds pass splits them. */
#include "mim/ptrmap.h"
#include "direct_impl.h"

typedef struct Ds2Cps {
    MimPass base;
    MimPtrMap converted; /* g ↦ its direct-style wrapper, or g itself */
} Ds2Cps;

/* Lambdas that stay as they are: continuations, type-level functions and
 * functions returning functions. */
static bool keeps_style(MimWorld *w, MimDef *pi) {
    if (mim_pi_is_cn(pi)) return true;
    MimDef *codom = mim_resolve(w, mim_pi_codom(pi));
    return !codom || mim_def_node(codom) == MIM_TYPE || mim_def_node(codom) == MIM_PI;
}

/* The CPS twin `<g>_cps` of g : [x: A] → B, wrapped for direct-style calls. */
static MimDef *convert(MimWorld *w, MimDef *g) {
    MimDef *pi = mim_resolve(w, mim_def_type(g));
    if (!pi || mim_def_node(pi) != MIM_PI || keeps_style(w, pi)) return g;

    /* S = [A, Cn B'] with B' = B[x := S#0]: a dependent codomain stays
     * well-typed. An S that does not need its variable becomes immutable. */
    MimDef *S = mim_mut_sigma(w, mim_star(w), 2);
    if (!mim_mut_set(w, S, 0, mim_pi_dom(pi))) return NULL;
    MimDef *B = mim_pi_codom(pi);
    if (mim_def_is_mut(pi)) B = mim_subst(w, B, pi, mim_var_proj(w, S, 2, 0));
    if (!mim_mut_set(w, S, 1, mim_cn(w, B))) return NULL;
    S = mim_immutabilize(w, S);

    MimDef *g_cps = mim_mut_lam(w, mim_cn(w, S));
    if (!g_cps) return NULL;
    mim_def_set_name(g_cps, direct_suffixed_name(w, g, "_cps"));
    mim_def_set_loc(g_cps, mim_def_loc(g));
    MimDef *x = mim_var_proj(w, g_cps, 2, 0), *ret = mim_var_proj(w, g_cps, 2, 1);
    MimDef *filter = mim_subst(w, mim_lam_filter(g), g, x);
    MimDef *body = mim_subst(w, mim_lam_body(g), g, x);
    if (!mim_lam_set(w, g_cps, filter, mim_app(w, ret, body))) return NULL;
    return direct_cps2ds_dep(w, g_cps);
}

/* Whether the lambda whose body is rewritten can take CPS calls: only a
 * continuation can. cps2ds would end a direct-style lambda (an external
 * `Nat → Nat`, a recursive `lam`, the original of a converted g) with the
 * CPS call, a body of type ⊥ that its codomain does not accept; its calls
 * stay direct-style calls (see docs/decisions.md). */
static bool in_cps_context(MimPass *p) {
    MimDef *cur = mim_pass_cur(p);
    if (!cur || mim_def_node(cur) != MIM_LAM) return false;
    MimDef *pi = mim_resolve(mim_pass_world(p), mim_def_type(cur));
    return pi && mim_def_node(pi) == MIM_PI && mim_pi_is_cn(pi);
}

/* `g a` with g a called direct-style lambda → `wrapper(g) a`. */
static MimDef *ds2cps_rewrite(MimPass *p, MimDef *def) {
    Ds2Cps *d = (Ds2Cps *)p;
    MimWorld *w = mim_pass_world(p);
    if (mim_def_node(def) != MIM_APP || !in_cps_context(p)) return def;
    MimDef *g = mim_resolve(w, mim_app_callee(def));
    if (!g || mim_def_node(g) != MIM_LAM || !mim_def_is_mut(g) || !mim_lam_body(g)) return def;
    MimDef *wrapper = mim_ptrmap_get(&d->converted, g);
    if (!wrapper) {
        wrapper = convert(w, g);
        if (!wrapper) return NULL;
        mim_ptrmap_put(&d->converted, g, wrapper);
    }
    return wrapper == g ? def : mim_app(w, wrapper, mim_app_arg(def));
}

/* Only a call of a direct-style lambda (one that does not keep its style)
 * is rewritten: without one in the program, the traversal has nothing to
 * do. The uses walk before prepare recorded every reachable node. */
static void ds2cps_prepare(MimPass *p) {
    MimWorld *w = mim_pass_world(p);
    for (uint32_t i = 0, n = mim_pass_num_records(p); i < n; ++i) {
        MimDef *g = mim_pass_record(p, i);
        unsigned callee;
        if (mim_def_node(g) != MIM_LAM || !mim_def_is_mut(g) || !mim_lam_body(g)) continue;
        if (mim_pass_uses(p, g, &callee) == 0 || callee == 0) continue;
        MimDef *pi = mim_resolve(w, mim_def_type(g));
        if (!pi || mim_def_node(pi) != MIM_PI || !keeps_style(w, pi)) return;
    }
    mim_pass_idle(p);
}

static void ds2cps_fini(MimPass *p) { mim_ptrmap_free(&((Ds2Cps *)p)->converted); }

const MimPassClass direct_ds2cps_class = {
    .name = "ds2cps",
    .size = sizeof(Ds2Cps),
    .on_lams = true,
    .prepare = ds2cps_prepare,
    .rewrite = ds2cps_rewrite,
    .fini = ds2cps_fini,
};
