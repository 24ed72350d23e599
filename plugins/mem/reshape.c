/* %mem.reshape_pass and %mem.add_mem_phase (mem.md §5.5, §5.6) are only used
 * by the closure-conversion pipeline (clos.md) and are not implemented yet:
 * their handlers report a clear error instead of silently skipping, so a
 * pipeline that needs them fails loudly rather than producing wrong code. */
#include "mem_passes.h"

bool mem_handle_reshape(MimPipeline *pb, MimDef *app) {
    mim_pipeline_error(pb, app, "%mem.reshape_pass is not implemented yet");
    return false;
}

bool mem_handle_add_mem(MimPipeline *pb, MimDef *app) {
    mim_pipeline_error(pb, app, "%mem.add_mem_phase is not implemented yet");
    return false;
}
