/* An out-of-tree plugin built against an installed libmim with
 * find_package(mim) and mim_add_plugin: a normalizer that uses another
 * plugin's annex (core's, through the installed generated header) and a
 * pass (docs/writing-plugins.md §3b). */
#include "mim/pass.h"
#include "mim/plugin/core.h"
#include "mim/plugin/twice.h"

/* %twice.dbl x = %core.wrap.add 0 (x, x) */
MimDef *normalize_dbl(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    (void)type, (void)callee;
    MimDef *add = mim_annex(w, MIM_core_wrap_add);
    MimDef *mode = mim_lit_nat(w, 0);
    MimDef *add0 = mim_iapp(w, add, mode);
    MimDef *pair = mim_pair(w, arg, arg);
    return mim_iapp(w, add0, pair);
}

typedef struct Unmark {
    MimPass base;   /* first member */
    MimPtrMap seen; /* state lives in the instance (here: unused) */
} Unmark;

static MimDef *unmark_rewrite(MimPass *p, MimDef *def) {
    (void)p;
    MimDef *call = mim_match(def, MIM_twice_mark);
    return call ? mim_app_arg(call) : def;
}

static void unmark_fini(MimPass *p) { mim_ptrmap_free(&((Unmark *)p)->seen); }

static const MimPassClass unmark_class = {
    .name = "unmark", .size = sizeof(Unmark), .on_lams = true, .rewrite = unmark_rewrite, .fini = unmark_fini};

static bool handle_unmark(MimPipeline *pb, MimDef *app) {
    return mim_pipeline_add_pass(pb, app, &unmark_class, NULL) != NULL;
}

static const MimNormalizerReg normalizers[] = {MIM_twice_NORMALIZERS};
static const MimPassReg passes[] = {{MIM_twice_unmark_pass, handle_unmark}};
MIM_PLUGIN_DEFINE("twice", MIM_PLUGIN_TABLE(normalizers), MIM_PLUGIN_TABLE(passes), MIM_PLUGIN_NO_TABLE);
