/* Bootstrap outputs (cli.md §5–§6): the C header of a plugin, generated from
 * its interface NAME.mim by `mim --bootstrap NAME.mim --output-h NAME.h`. */
#ifndef MIM_DRIVER_BOOTSTRAP_H
#define MIM_DRIVER_BOOTSTRAP_H

#include "fe/fe.h"

#include <stdbool.h>
#include <stdio.h>

/* Writes the header of plugin `plugin` (the input's stem) to out: the ids and
 * facts of every annex of that plugin declared in the run (cli.md §6.1), in
 * the format documented in include/mim/plugin.h. Run after emission (IS_FN
 * comes from the emitted axiom types). On an invalid plugin name or an annex
 * name that is no C identifier, prints `error: …` to err and returns false. */
bool mim_write_plugin_header(const MimFe *fe, const char *plugin, FILE *out, FILE *err);

#endif
