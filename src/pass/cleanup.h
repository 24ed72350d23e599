/* The -O1 cleanup: rewrite a World's annexes and externals into a fresh one. */
#ifndef MIM_PASS_CLEANUP_H
#define MIM_PASS_CLEANUP_H

#include "mim/world.h"

/* Returns the new World (the old one is left intact; the caller frees it),
 * or NULL on an internal error (diagnostics appended to old's). */
MimWorld *mim_cleanup(MimWorld *old);

#endif
