/* The compile plugin (compile.md): normalizers that turn pass lists and
 * phase lists into the tuple forms, and the handlers that interpret pipeline
 * values into the pipeline builder (include/mim/pass.h). The standard passes
 * themselves live in libmim (src/pass). */
#include "mim/pass.h"
#include "mim/plugin/compile.h"
#include "mim/vec.h"

#include <stdlib.h>

/* ---- helpers ------------------------------------------------------------------ */

/* The head axiom id of d (an axiom or an application chain), or 0. */
static uint64_t head_id(MimWorld *w, MimDef *d) {
    d = mim_resolve(w, d);
    if (!d) return 0;
    MimDef *ax = mim_def_node(d) == MIM_AXIOM ? d : mim_app_axiom(d);
    return ax ? mim_axiom_id(ax) : 0;
}

/* Arguments of a curried chain headed by an axiom (none for the axiom). */
static size_t num_args(MimWorld *w, MimDef *d) {
    d = mim_resolve(w, d);
    return mim_def_node(d) == MIM_APP ? mim_app_num_args(d) : 0;
}

/* %compile.<ax> n (items…) with the items as a tuple (the item itself for n = 1). */
static MimDef *to_tuple_form(MimWorld *w, uint64_t ax, MimDef *const *items, size_t n) {
    MimDef *head = mim_annex(w, ax);
    MimDef *tuple = n == 1 ? items[0] : mim_tuple(w, items, n);
    return mim_app(w, mim_app(w, head, mim_lit_nat(w, n)), tuple);
}

typedef MIM_VEC(MimDef *) Items;

/* Appends the curried arguments of a list headed by `list_ax` to v. */
static bool collect(MimWorld *w, MimDef *list, uint64_t list_ax, Items *v) {
    if (head_id(w, list) != list_ax) return false;
    list = mim_resolve(w, list);
    for (size_t i = 0, n = num_args(w, list); i < n; ++i) mim_vec_push(v, mim_app_nth_arg(list, i));
    return true;
}

/* The items of `%compile.X n (i₁, …, iₙ)` (combine_pass_list,
 * phases_to_phase, passes_to_phase) and their number. n is often ⊤:Nat
 * (opt.mim, matrix.mim): then the tuple's own count counts ("the tuple's
 * projections", compile.md §3.3). */
static bool items_of(MimWorld *w, MimDef *app, MimDef **items, uint64_t *n) {
    if (num_args(w, app) != 2) return false;
    *items = mim_resolve(w, mim_app_nth_arg(app, 1));
    return *items && (mim_def_lit(mim_app_nth_arg(app, 0), n) ||
                      (mim_def_node(*items) == MIM_TUPLE && (*n = mim_def_num_ops(*items), true)) ||
                      mim_literal_arity(w, *items, n));
}

/* The passes of %compile.combine_pass_list n (l₁, …, lₙ), in order. */
static bool collect_combined(MimWorld *w, MimDef *comb, Items *v) {
    uint64_t n;
    MimDef *lists;
    if (!items_of(w, mim_resolve(w, comb), &lists, &n)) return false;
    for (uint64_t i = 0; i < n; ++i)
        if (!collect(w, n == 1 ? lists : mim_proj(w, lists, n, i), MIM_compile_pass_list, v))
            return false;
    return true;
}

static MimDef *bad_list(MimWorld *w, MimDef *list, const char *what, const char *list_ax) {
    mim_diag_report(mim_world_diag(w), MIM_ERROR, mim_def_loc(list),
                    "%s expects a list built with %s", what, list_ax);
    return NULL;
}

/* ---- normalizers (§2.4) ---------------------------------------------------------- */

MimDef *normalize_pass_phase(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    (void)type, (void)callee;
    Items v = {0};
    bool ok = head_id(w, arg) == MIM_compile_combine_pass_list ? collect_combined(w, arg, &v)
                                                               : collect(w, arg, MIM_compile_pass_list, &v);
    MimDef *res = ok ? to_tuple_form(w, MIM_compile_passes_to_phase, v.data, v.len)
                     : bad_list(w, arg, "%compile.pass_phase", "%compile.pass_list");
    mim_vec_free(&v);
    return res;
}

/* Never fires by itself (curry 3); pass_phase does the combination. */
MimDef *normalize_combine_pass_list(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    return mim_raw_app(w, type, callee, arg);
}

MimDef *normalize_single_pass_phase(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    (void)type, (void)callee;
    return to_tuple_form(w, MIM_compile_passes_to_phase, &arg, 1);
}

MimDef *normalize_combined_phase(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    (void)type, (void)callee;
    Items v = {0};
    MimDef *res = collect(w, arg, MIM_compile_phase_list, &v)
                      ? to_tuple_form(w, MIM_compile_phases_to_phase, v.data, v.len)
                      : bad_list(w, arg, "%compile.combined_phase", "%compile.phase_list");
    mim_vec_free(&v);
    return res;
}

/* ---- handlers (§3.3) ------------------------------------------------------------ */

static bool handle_pipe(MimPipeline *pb, MimDef *app) {
    MimWorld *w = mim_pipeline_world(pb);
    for (size_t i = 0, n = num_args(w, app); i < n; ++i)
        if (!mim_pipeline_handle(pb, mim_app_nth_arg(mim_resolve(w, app), i))) return false;
    return true;
}

/* The items of `%compile.X n (i₁, …, iₙ)`, each handled in order. */
static bool handle_items(MimPipeline *pb, MimDef *app) {
    MimWorld *w = mim_pipeline_world(pb);
    app = mim_resolve(w, app);
    uint64_t n;
    MimDef *items;
    if (!items_of(w, app, &items, &n)) {
        mim_pipeline_error(pb, app, "the number of items of this phase is not a literal");
        return false;
    }
    for (uint64_t i = 0; i < n; ++i)
        if (!mim_pipeline_handle(pb, n == 1 ? items : mim_proj(w, items, n, i))) return false;
    return true;
}

static bool handle_passes_to_phase(MimPipeline *pb, MimDef *app) {
    mim_pipeline_begin_pass_phase(pb);
    bool ok = handle_items(pb, app);
    mim_pipeline_end_pass_phase(pb);
    return ok;
}

static bool handle_debug_phase(MimPipeline *pb, MimDef *app) {
    mim_pipeline_begin_pass_phase(pb);
    mim_pipeline_add_pass(pb, app, &mim_debug_print_pass, NULL);
    mim_pipeline_end_pass_phase(pb);
    return true;
}

static bool handle_nullptr(MimPipeline *pb, MimDef *app) {
    mim_pipeline_add_none(pb, app);
    return true;
}

static bool add(MimPipeline *pb, MimDef *app, const MimPassClass *cls) {
    mim_pipeline_add_pass(pb, app, cls, NULL);
    return true;
}

/* A pass whose argument names the instance it is linked to. */
static bool add_linked(MimPipeline *pb, MimDef *app, const MimPassClass *cls) {
    MimWorld *w = mim_pipeline_world(pb);
    MimDef *arg = mim_app_arg(mim_resolve(w, app));
    MimPass *other = mim_pipeline_pass_of(pb, arg);
    bool fresh;
    MimPass *p = mim_pipeline_add_pass(pb, app, cls, &fresh);
    if (fresh) mim_pass_link(p, other);
    return true;
}

static bool handle_beta_red(MimPipeline *pb, MimDef *app) { return add(pb, app, &mim_beta_red_pass); }
static bool handle_eta_red(MimPipeline *pb, MimDef *app) { return add(pb, app, &mim_eta_red_pass); }
static bool handle_eta_exp(MimPipeline *pb, MimDef *app) { return add_linked(pb, app, &mim_eta_exp_pass); }
static bool handle_scalarize(MimPipeline *pb, MimDef *app) {
    return add_linked(pb, app, &mim_scalarize_pass);
}
static bool handle_tail_rec_elim(MimPipeline *pb, MimDef *app) {
    return add_linked(pb, app, &mim_tail_rec_elim_pass);
}
static bool handle_lam_spec(MimPipeline *pb, MimDef *app) { return add(pb, app, &mim_lam_spec_pass); }
static bool handle_ret_wrap(MimPipeline *pb, MimDef *app) { return add(pb, app, &mim_ret_wrap_pass); }
static bool handle_internal_cleanup(MimPipeline *pb, MimDef *app) {
    return add(pb, app, &mim_internal_cleanup_pass);
}

static const MimPassReg passes[] = {
    {MIM_compile_pipe, handle_pipe},
    {MIM_compile_phases_to_phase, handle_items},
    {MIM_compile_passes_to_phase, handle_passes_to_phase},
    {MIM_compile_debug_phase, handle_debug_phase},
    {MIM_compile_nullptr_pass, handle_nullptr},
    {MIM_compile_beta_red_pass, handle_beta_red},
    {MIM_compile_eta_red_pass, handle_eta_red},
    {MIM_compile_eta_exp_pass, handle_eta_exp},
    {MIM_compile_scalarize_pass, handle_scalarize},
    {MIM_compile_tail_rec_elim_pass, handle_tail_rec_elim},
    {MIM_compile_lam_spec_pass, handle_lam_spec},
    {MIM_compile_ret_wrap_pass, handle_ret_wrap},
    {MIM_compile_internal_cleanup_pass, handle_internal_cleanup},
};

static const MimNormalizerReg normalizers[] = {MIM_compile_NORMALIZERS};
MIM_PLUGIN_DEFINE("compile", MIM_PLUGIN_TABLE(normalizers), MIM_PLUGIN_TABLE(passes),
                  MIM_PLUGIN_NO_TABLE);
