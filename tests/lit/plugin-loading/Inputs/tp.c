/* Library of the test plugin Inputs/tp.mim, built by the lit tests with
 * -DTP_VALUE=n against its bootstrapped header: %tp.f x normalizes to n. */
#include "mim/plugin/tp.h"

MimDef *normalize_f(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    (void)type, (void)callee, (void)arg;
    return mim_lit_nat(w, TP_VALUE);
}

static const MimNormalizerReg normalizers[] = {MIM_tp_NORMALIZERS};
static const MimPlugin plugin = {MIM_PLUGIN_ABI, TP_NAME, normalizers,
                                 sizeof normalizers / sizeof *normalizers, NULL, 0, NULL, 0};

#ifndef TP_NO_ENTRY
MIM_EXPORT const MimPlugin *mim_get_plugin(void) { return &plugin; }
#else
MIM_EXPORT const MimPlugin *other_entry(void) { return &plugin; }
#endif
