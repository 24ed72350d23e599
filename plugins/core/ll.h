/* The `ll` back end of the core plugin (plugins/ll-backend.md): writes the
 * World as textual LLVM IR. Registered in core.c as back end "ll". */
#ifndef MIM_CORE_LL_H
#define MIM_CORE_LL_H

#include "mim/world.h"

#include <stdbool.h>
#include <stdio.h>

/* Writes the module to out. On an unsupported construct nothing is written,
 * the error `unhandled def in LLVM backend: <def> : <type>` is recorded in
 * the World's diagnostics and false is returned. */
bool mim_ll_emit(MimWorld *w, FILE *out);

#endif
