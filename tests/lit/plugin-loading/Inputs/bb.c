/* Plugin bb of the two-plugin library of bundle.test (compiled with
 * -DMIM_PLUGIN_ENTRY_NAME=mim_get_plugin_bb). */
#include "mim/plugin/bb.h"

MimDef *normalize_bb(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    (void)type, (void)callee, (void)arg;
    return mim_lit_nat(w, 8);
}

static const MimNormalizerReg normalizers[] = {MIM_bb_NORMALIZERS};
MIM_PLUGIN_DEFINE("bb", MIM_PLUGIN_TABLE(normalizers), MIM_PLUGIN_NO_TABLE, MIM_PLUGIN_NO_TABLE);
