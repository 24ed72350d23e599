/* The clos plugin (plugins/clos.md). So far only its normalizer (§2.3):
 * `%clos.attr.bottom x` is x, the other attributes stay. The closure
 * conversion passes and phases (§5) are not written yet: with `plugin clos;`
 * the -O2 pipeline skips them with the warning "pass/phase not found", as it
 * did while the library was a generated stub. The jmpbuf axioms need no C
 * code here: the LLVM back end emits them (ll-backend.md §5.4). */
#include "mim/plugin.h"
#include "mim/plugin/clos.h"

enum { ATTR_BOTTOM = 4 }; /* sub-tag of %clos.attr.bottom */

MimDef *normalize_clos(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    return mim_callee_sub(callee) == ATTR_BOTTOM ? arg : mim_raw_app(w, type, callee, arg);
}

static const MimNormalizerReg normalizers[] = {MIM_clos_NORMALIZERS};
MIM_PLUGIN_DEFINE("clos", MIM_PLUGIN_TABLE(normalizers), MIM_PLUGIN_NO_TABLE, MIM_PLUGIN_NO_TABLE);
