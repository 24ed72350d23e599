/* Plugin ba of the two-plugin library of bundle.test (compiled with
 * -DMIM_PLUGIN_ENTRY_NAME=mim_get_plugin_ba). */
#include "mim/plugin/ba.h"

MimDef *normalize_ba(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    (void)type, (void)callee, (void)arg;
    return mim_lit_nat(w, 7);
}

static const MimNormalizerReg normalizers[] = {MIM_ba_NORMALIZERS};
MIM_PLUGIN_DEFINE("ba", MIM_PLUGIN_TABLE(normalizers), MIM_PLUGIN_NO_TABLE, MIM_PLUGIN_NO_TABLE);
