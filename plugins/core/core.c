/* The core plugin's registration (include/mim/plugin.h): its normalizers,
 * keyed by annex id through the generated table. No passes; the `ll` back
 * end is added by a later issue. */
#include "mim/plugin.h"
#include "mim/plugin/core.h"

static const MimNormalizerReg normalizers[] = {MIM_core_NORMALIZERS};

static const MimPlugin plugin = {
    MIM_PLUGIN_ABI, "core", normalizers, sizeof normalizers / sizeof *normalizers, NULL, 0, NULL, 0,
};

MIM_EXPORT const MimPlugin *mim_get_plugin(void) { return &plugin; }
