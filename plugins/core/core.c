/* The core plugin's registration (include/mim/plugin.h): its normalizers,
 * keyed by annex id through the generated table, and the `ll` back end
 * (ll.h, plugins/ll-backend.md). No passes. */
#include "ll.h"
#include "mim/plugin.h"
#include "mim/plugin/core.h"

static const MimNormalizerReg normalizers[] = {MIM_core_NORMALIZERS};

static const MimBackendReg backends[] = {{"ll", mim_ll_emit}};

MIM_PLUGIN_DEFINE("core", MIM_PLUGIN_TABLE(normalizers), MIM_PLUGIN_NO_TABLE,
                  MIM_PLUGIN_TABLE(backends));
