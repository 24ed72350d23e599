/* The clos plugin (plugins/clos.md, docs/clos.md): the normalizer of
 * %clos.attr (§2.3: `%clos.attr.bottom x` is x, the other attributes stay)
 * and the pipeline handlers of every pass and phase of `clos_phases`.
 * The conversion itself is clos_conv.c; the jmpbuf axioms need no C code
 * here: the LLVM back end emits them (ll-backend.md §5.4). */
#include "clos_impl.h"
#include "mim/plugin/clos.h"

enum { ATTR_BOTTOM = 4 }; /* sub-tag of %clos.attr.bottom */

MimDef *normalize_clos(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    return mim_callee_sub(callee) == ATTR_BOTTOM ? arg : mim_raw_app(w, type, callee, arg);
}

/* clos_conv produces closures in their lowered form already, so the passes
 * that prepare or refine typed closures find nothing to do (docs/clos.md,
 * "Differences from clos.md"); they are registered so that the pipeline
 * runs as specified. */
static const MimPassClass noop_pass = {.name = "clos_noop", .size = sizeof(MimPass), .on_lams = true};

bool clos_handle_noop_pass(MimPipeline *pb, MimDef *app) {
    return mim_pipeline_add_pass(pb, app, &noop_pass, NULL) != NULL;
}

static bool noop_run(MimPhase *ph, MimWorld **w) {
    (void)ph;
    return !mim_world_has_error(*w);
}

static const MimPhaseClass noop_phase = {.name = "lower_typed_clos", .size = sizeof(MimPhase), .run = noop_run};

bool clos_handle_noop_phase(MimPipeline *pb, MimDef *app) {
    (void)app;
    return mim_pipeline_add_phase(pb, &noop_phase) != NULL;
}

/* η-reduction; the callee_only flag makes no difference on converted code
 * (docs/clos.md). */
bool clos_handle_eta_red_bool(MimPipeline *pb, MimDef *app) {
    return mim_pipeline_add_pass(pb, app, &mim_eta_red_pass, NULL) != NULL;
}

static const MimNormalizerReg normalizers[] = {MIM_clos_NORMALIZERS};
static const MimPassReg passes[] = {
    {MIM_clos_clos_conv_prep_pass, clos_handle_noop_pass},
    {MIM_clos_branch_clos_pass, clos_handle_noop_pass},
    {MIM_clos_lower_typed_clos_prep_pass, clos_handle_noop_pass},
    {MIM_clos_clos2sjlj_pass, clos_handle_noop_pass},
    {MIM_clos_eta_red_bool_pass, clos_handle_eta_red_bool},
    {MIM_clos_clos_conv_phase, clos_handle_clos_conv},
    {MIM_clos_lower_typed_clos_phase, clos_handle_noop_phase},
};
MIM_PLUGIN_DEFINE("clos", MIM_PLUGIN_TABLE(normalizers), MIM_PLUGIN_TABLE(passes), MIM_PLUGIN_NO_TABLE);
