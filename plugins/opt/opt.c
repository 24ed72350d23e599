/* The opt plugin (opt.md): no axioms; it ships `_default_compile` in opt.mim
 * and handles %compile.plugin_select (compile.md §3.3). */
#include "mim/pass.h"
#include "mim/plugin/compile.h"
#include "mim/plugin/opt.h"

#include <string.h>

/* `%compile.plugin_select T plug a b`: a if the plugin named by `plug`
 * (%compile.<x>_plugin → x) is loaded, else b. */
static bool handle_plugin_select(MimPipeline *pb, MimDef *app) {
    MimWorld *w = mim_pipeline_world(pb);
    app = mim_resolve(w, app);
    if (mim_app_num_args(app) != 4) {
        mim_pipeline_error(pb, app, "%compile.plugin_select is not fully applied");
        return false;
    }
    MimDef *plug = mim_resolve(w, mim_app_nth_arg(app, 1));
    MimSym name = plug && mim_def_node(plug) == MIM_AXIOM ? mim_def_name(plug) : NULL;
    const char *prefix = "%compile.";
    if (!name || strncmp(name, prefix, strlen(prefix)) != 0) {
        mim_pipeline_error(pb, plug, "not a plugin axiom %compile.<name>_plugin");
        return false;
    }
    const char *tag = name + strlen(prefix);
    const char *us = strchr(tag, '_');
    size_t len = us ? (size_t)(us - tag) : strlen(tag);
    char plugin[32];
    if (len >= sizeof plugin) len = sizeof plugin - 1;
    memcpy(plugin, tag, len);
    plugin[len] = 0;
    bool loaded = mim_pipeline_plugin_loaded(pb, plugin);
    return mim_pipeline_handle(pb, mim_app_nth_arg(app, loaded ? 2 : 3));
}

static const MimPassReg passes[] = {{MIM_compile_plugin_select, handle_plugin_select}};
MIM_PLUGIN_DEFINE("opt", MIM_PLUGIN_NO_TABLE, MIM_PLUGIN_TABLE(passes), MIM_PLUGIN_NO_TABLE);
