/* mim-prelude: saves the prelude image (docs/startup.md) of one plugin
 * configuration, run by the build after the plugins are built:
 *     mim-prelude EMPTY.mim [-O0|-O1|-O2] [-p PLUGIN]... [-P DIR]...
 * emits everything a run of `mim EMPTY.mim` with these options emits before
 * its input and writes that World into <plugin dir>/prelude/. A run with the
 * same options, or whose plugins bring the same interfaces in the same
 * order, then starts from the image. */
#include "mim/driver.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    MimOptions o;
    mim_options_init(&o);
    o.argv0 = argv[0];
    o.write_prelude = true;
    o.no_prelude = true; /* build the image by emission, never from an older image */
    for (int i = 1; i < argc; ++i) {
        if (strncmp(argv[i], "-O", 2) == 0 && argv[i][2] >= '0' && argv[i][2] <= '2' && !argv[i][3]) {
            o.opt_level = argv[i][2] - '0';
        } else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc && o.num_plugins < MIM_MAX_PATHS) {
            o.plugins[o.num_plugins++] = argv[++i];
        } else if (strcmp(argv[i], "-P") == 0 && i + 1 < argc && o.num_plugin_paths < MIM_MAX_PATHS) {
            o.plugin_paths[o.num_plugin_paths++] = argv[++i]; /* tests: a plugin directory of their own */
        } else if (argv[i][0] != '-' && !o.input) {
            o.input = argv[i];
        } else {
            fprintf(stderr, "usage: %s EMPTY.mim [-O0|-O1|-O2] [-p PLUGIN]... [-P DIR]...\n", argv[0]);
            return 2;
        }
    }
    return mim_run(&o, stderr);
}
