/* The -O2 optimizer (compile.md §3): select the compilation function,
 * interpret its pipeline through the handlers registered by plugins, run the
 * phases with a cleanup after every pass manager and dirty phase. */
#ifndef MIM_PASS_OPTIMIZE_H
#define MIM_PASS_OPTIMIZE_H

#include "mim/plugin.h"

/* How the optimizer reaches the loaded plugins (the driver's registry). */
typedef struct MimOptHost {
    void *ctx;
    MimPassHandler (*handler)(void *ctx, uint64_t base_id); /* NULL = none */
    bool (*loaded)(void *ctx, const char *plugin);
} MimOptHost;

/* Optimizes *w. On return *w is the current World: the input World is never
 * freed (the caller owns it), intermediate Worlds are; on failure the
 * returned World holds the diagnostics. */
bool mim_optimize(MimWorld **w, const MimOptHost *host);

/* Replace *w by its cleanup (freeing the old World unless it is keep). */
bool mim_swap_cleanup(MimWorld **w, const MimWorld *keep);

#endif
