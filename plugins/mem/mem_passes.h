/* The passes and phases of the mem plugin (plugins/mem.md §5) and their
 * pipeline handlers, registered in mem.c's MimPlugin passes table. */
#ifndef MEM_PASSES_H
#define MEM_PASSES_H

#include "mim/pass.h"
#include "mim/plugin.h"

bool mem_handle_remem_elim(MimPipeline *pb, MimDef *app);
bool mem_handle_alloc2malloc(MimPipeline *pb, MimDef *app);
bool mem_handle_ssa(MimPipeline *pb, MimDef *app);
bool mem_handle_copy_prop(MimPipeline *pb, MimDef *app);
bool mem_handle_reshape(MimPipeline *pb, MimDef *app);
bool mem_handle_add_mem(MimPipeline *pb, MimDef *app);

#endif
