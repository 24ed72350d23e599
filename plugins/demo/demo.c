/* The demo plugin (demo.md): the smallest plugin, a template for others.
 * `%demo.const_idx n` is the constant 42 of type `Idx n`. */
#include "mim/plugin/demo.h"

/* Builds the literal directly, so a size n that is a literal ≤ 42 (other than
 * 0) or not a literal at all gets the World's usual literal error. */
MimDef *normalize_const(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    (void)callee, (void)arg;
    return mim_lit(w, type, 42);
}

static const MimNormalizerReg normalizers[] = {MIM_demo_NORMALIZERS};
MIM_PLUGIN_DEFINE("demo", MIM_PLUGIN_TABLE(normalizers), MIM_PLUGIN_NO_TABLE, MIM_PLUGIN_NO_TABLE);
