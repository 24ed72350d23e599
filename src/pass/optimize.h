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
    /* Called once the optimizer is done with the input World (after its
     * first cleanup; nothing of the optimizer points into it any more): the
     * host takes it over, e.g. reports its messages (the pipeline's warnings)
     * and frees it. NULL = the caller keeps owning it. */
    void (*release)(void *ctx, MimWorld *input);
    /* Let the pass managers before internal_cleanup visit interface helpers
     * the program cannot use (helpers.c; tests compare both ways). */
    bool keep_helpers;
    /* Called before (done = false) and after (done = true) each step the
     * pipeline runs, named "pass phase beta_red, eta_red, …", "phase NAME"
     * or "cleanup" (-V logging, --time-passes). NULL = not told. */
    void (*step)(void *ctx, const char *name, bool done);
} MimOptHost;

/* Optimizes *w. On return *w is the current World: the input World is never
 * freed by the optimizer (the caller owns it, or receives it through
 * host->release), intermediate Worlds are; on failure the returned World
 * holds the diagnostics. */
bool mim_optimize(MimWorld **w, const MimOptHost *host);

/* Makes internal the interface helpers (externals named internal_* declared
 * by a plugin interface or module) that nothing the program's other
 * externals reach can bring into use; returns how many (helpers.c). */
size_t mim_retire_unused_helpers(MimWorld *w);

/* Replace *w by its cleanup (freeing the old World unless it is keep). */
bool mim_swap_cleanup(MimWorld **w, const MimWorld *keep);

#endif
