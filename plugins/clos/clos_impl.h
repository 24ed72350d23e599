/* Shared declarations of the clos plugin's C files: the pipeline handlers
 * (registered in clos.c) and small helpers for continuation domains. */
#ifndef CLOS_IMPL_H
#define CLOS_IMPL_H

#include "mim/pass.h"
#include "mim/plugin.h"
#include "mim/ptrmap.h"
#include "mim/vec.h"
#include "mim/xalloc.h"

#include <stdbool.h>
#include <stdint.h>

/* Components of a domain: Σ operands, a literal array's elements, else 1. */
uint64_t clos_num_comps(MimWorld *w, MimDef *dom);
MimDef *clos_comp_type(MimWorld *w, MimDef *dom, uint64_t n, uint64_t i);
/* A closure value's type [code: Cn [M, env_ptr, …], env_ptr]. */
bool clos_is_clos_type(MimDef *T, MimDef *env_ptr);

bool clos_handle_clos_conv(MimPipeline *pb, MimDef *app);
bool clos_handle_noop_phase(MimPipeline *pb, MimDef *app);
bool clos_handle_noop_pass(MimPipeline *pb, MimDef *app);
bool clos_handle_eta_red_bool(MimPipeline *pb, MimDef *app);

#endif
