/* Warm-up of the plugin libraries of a run (start-up speed, see prefetch.c).
 *
 *     MimPrefetch pf;
 *     mim_prefetch_plugins(&pf, &opts);   // e.g. on an otherwise idle thread
 *     ...                                 // mim_run on another thread
 *     mim_prefetch_release(&pf);          // after the run
 *
 * Prefetching only opens libraries the run is expected to open itself, from
 * the same files; it never changes what a run does or reports. */
#ifndef MIM_DRIVER_PREFETCH_H
#define MIM_DRIVER_PREFETCH_H

#include "mim/driver.h"

#include <stddef.h>

#define MIM_PREFETCH_MAX 32

typedef struct MimPrefetch {
    void *handles[MIM_PREFETCH_MAX]; /* dlopen handles, in opening order */
    size_t num_handles;
} MimPrefetch;

/* Opens the libraries of the plugins a run with options o will load: the
 * implicit opt (at -O2), the -p ones and those named by
 * `plugin` directives at the top of their interfaces, their imports and the
 * input. Does nothing in bootstrap mode. */
void mim_prefetch_plugins(MimPrefetch *pf, const MimOptions *o);

/* Drops the prefetch's references (dlclose). */
void mim_prefetch_release(MimPrefetch *pf);

#endif
