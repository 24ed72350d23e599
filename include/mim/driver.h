/* The compiler driver: what `mim` does for one run (cli.md §3), usable from C.
 * Fill a MimOptions (mim_options_init sets the defaults) and call mim_run. */
#ifndef MIM_DRIVER_H
#define MIM_DRIVER_H

#include "mim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MIM_VERSION "0.1"
#define MIM_MAX_PATHS 64

typedef struct MimOptions {
    const char *input;                   /* the <file> argument */
    const char *plugins[MIM_MAX_PATHS];  /* -p, in order */
    size_t num_plugins;
    const char *plugin_paths[MIM_MAX_PATHS]; /* -P, in order */
    size_t num_plugin_paths;
    int verbose;   /* 0..4 */
    long opt_level; /* -O, default 2 */
    const char *out_ast, *out_d, *out_dot, *out_h, *out_ll, *out_md, *out_mim;
    const char *clang;
    bool ascii, bootstrap, dot_follow_types, dot_all_annexes, dump_recursive, aggr_lam_spec;
    int dump_gid;
    uint64_t scalarize_threshold;
    size_t stack_budget; /* bytes for nested β-reductions; 0 = the World's default */
    const char *argv0; /* to find <exe dir>/../lib/mim */
    /* Prelude images (docs/startup.md): the standard plugin interfaces are
     * loaded from images saved by the build instead of being emitted again.
     * no_prelude turns that off; write_prelude saves the image of everything
     * emitted before the input (the build's mim-prelude tool sets it). */
    bool no_prelude, write_prelude;
    /* -O2 visits the interface helpers (internal_* externals of plugin
     * interfaces) in every pass manager before internal_cleanup even when
     * the program cannot use them, as the reference does; by default unused
     * ones are dropped first (docs/optimizer.md; only gids differ). */
    bool keep_helpers;
    /* The caller ends the process right after mim_run (the `mim` command):
     * the Worlds, the loaded plugins and the other memory of the run are
     * then left to the process exit instead of being taken apart piece by
     * piece (~0.1 ms of a start-up, docs/startup.md). Output files are
     * closed either way. Library users keep the default, false. */
    bool exiting;
    /* From the program to running code (docs/cli.md). out_exe/out_obj: an
     * executable/object file built by the C compiler `clang` (NULL = the
     * default, clang-14) from the `ll` back end's output; links: extra
     * arguments of the link (--link: C sources, objects, -l options). run:
     * JIT-compile the program in process and call its main with run_argv
     * (run_argc entries, run_argv[0] = the input); mim_run then returns
     * main's result. */
    const char *out_exe, *out_obj;
    const char *links[MIM_MAX_PATHS];
    size_t num_links;
    bool run;
    int run_argc;
    char **run_argv;
    /* Colours of diagnostics: MIM_COLOR_AUTO = on a terminal unless the
     * environment variable NO_COLOR is set (not empty). */
    int color;
    /* --time-passes: a table of the time of every phase and pass on err. */
    bool time_passes;
} MimOptions;

enum { MIM_COLOR_AUTO, MIM_COLOR_ALWAYS, MIM_COLOR_NEVER };

MIM_API void mim_options_init(MimOptions *o);

/* Search paths of cli.md §4.1 (the first is "", the current directory, used
 * for `.mim` files only: plugin libraries are looked up there only if it is
 * also given as a -P directory, "."). Returns the number written; each
 * entry is heap-allocated, free with mim_search_paths_free. */
MIM_API size_t mim_search_paths(const MimOptions *o, char **out, size_t max);
MIM_API void mim_search_paths_free(char **paths, size_t n);

/* One whole run: returns the process exit code (0 or 1; with o->run, the
 * program's exit code once it ran). Messages go to err. */
MIM_API int mim_run(const MimOptions *o, FILE *err);

#ifdef __cplusplus
}
#endif

#endif
