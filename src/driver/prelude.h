/* Prelude images: the World as it is after emitting the first modules of a
 * run (the standard plugin interfaces every run starts with), saved by the
 * build (tools/mim_prelude.c) and loaded instead of parsing-then-emitting
 * those modules again. Start-up time is dominated by that emission.
 *
 * An image is keyed by the exact module prefix it covers: for each module
 * its name, a hash of its source text and whether its library is loaded
 * (which decides normalizers and annex registration), plus the World
 * options emission can observe. A run uses the longest prefix of its
 * emission order for which an image exists; anything that does not match
 * is simply emitted as usual, so images never change what a run computes:
 * the World read back is node for node (and gid for gid) the one emission
 * would have built. Images live in `<dir of the first module>/prelude/`. */
#ifndef MIM_DRIVER_PRELUDE_H
#define MIM_DRIVER_PRELUDE_H

#include "driver/load.h"
#include "fe/fe.h"

#include <stdbool.h>
#include <stddef.h>

/* Loads the image covering the longest prefix of fe's emission order
 * (never the last module, the input) into the fresh World w and binds those
 * modules' top-level names to its nodes. Skeleton modules that no image
 * covers are parsed and fe is bound again (mim_fe_materialize). Returns the number of modules it
 * covers (0: none found, nothing changed), or MIM_PRELUDE_BROKEN if an image
 * passed every check before building but turned out inconsistent while
 * being read (a forged file): the error is in w's diagnostics, and w must
 * not be used. */
#define MIM_PRELUDE_BROKEN ((size_t)-1)
size_t mim_prelude_load(MimWorld *w, MimFe *fe, MimRegistry *reg);

/* Skeletons: before parsing, opens the interfaces that the plugins named
 * in `roots` (compile, -p plugins, opt) bring as skeleton modules
 * (fe/skeleton.c), if the build saved a manifest for these roots and every
 * file is found again unchanged. False: nothing changed, parse as usual. */
bool mim_prelude_skeleton(MimWorld *w, MimFe *fe, const char *const *roots, size_t num_roots);

/* Writes the image of w, which holds exactly the first `n` modules of fe's
 * emission order, into the prelude directory (and the manifest of their
 * skeleton, if the input is empty). False (with a message on err)
 * if the file cannot be written. */
bool mim_prelude_write(MimWorld *w, MimFe *fe, MimRegistry *reg, size_t n, FILE *err);

#endif
