/* %mem.remem_elim_pass (mem.md §5.1): every `%mem.remem m` becomes `m`.
 * A stateless rewrite pass run in code-generation preparation: the LLVM
 * back end does not know remem. */
#include "mem_passes.h"
#include "mim/plugin/mem.h"

static MimDef *remem_elim_rewrite(MimPass *p, MimDef *d) {
    (void)p;
    MimDef *app = mim_match(d, MIM_mem_remem);
    return app ? mim_app_arg(app) : d;
}

static const MimPassClass remem_elim_class = {
    .name = "remem_elim", .size = sizeof(MimPass), .on_lams = true, .rewrite = remem_elim_rewrite};

bool mem_handle_remem_elim(MimPipeline *pb, MimDef *app) {
    bool fresh;
    return mim_pipeline_add_pass(pb, app, &remem_elim_class, &fresh) != NULL;
}
