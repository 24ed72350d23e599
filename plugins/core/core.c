/* The core plugin's registration (include/mim/plugin.h): its normalizers,
 * keyed by annex id through the generated table, and the `ll` back end
 * (ll.h, plugins/ll-backend.md). No passes. */
#include "ll.h"
#include "mim/plugin.h"
#include "mim/plugin/core.h"

static const MimNormalizerReg normalizers[] = {MIM_core_NORMALIZERS};

static const MimBackendReg backends[] = {{"ll", mim_ll_emit}};

static const MimPlugin plugin = {
    MIM_PLUGIN_ABI, "core", normalizers, sizeof normalizers / sizeof *normalizers, NULL, 0,
    backends, sizeof backends / sizeof *backends,
};

MIM_EXPORT const MimPlugin *mim_get_plugin(void) { return &plugin; }
