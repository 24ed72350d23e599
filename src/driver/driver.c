/* One run of the compiler (cli.md §3): open the outputs, parse the plugins and
 * the input, bind, emit (build and type-check), optimize, write the outputs.
 * Every failure is a diagnostic and exit code 1; nothing aborts. */
#include "mim/driver.h"

#include "driver/bootstrap.h"
#include "driver/load.h"
#include "driver/prelude.h"
#include "driver/program.h"
#include "fe/fe.h"
#include "ir/print.h"
#include "pass/cleanup.h"
#include "pass/optimize.h"
#include "util/path.h"
#include "mim/world.h"
#include "mim/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* An output file named on the command line; "-" is stdout. */
typedef struct Output {
    const char *name;
    FILE *f;
} Output;

typedef struct Run {
    const MimOptions *o;
    FILE *err;
    Output ast, d, dot, h, ll, md, mim;
    char *paths[MIM_MAX_PATHS * 2 + 8];
    size_t num_paths;
    MimWorld *world;
    MimDiag diag; /* front-end messages */
    MimFe *fe;      /* freed before optimization (the AST is no longer needed) */
    char **imports; /* the --output-mim header lines, taken from the front end */
    size_t num_imports;
    MimRegistry plugins; /* loaded libraries; closed after every World is freed */
} Run;

/* True if `name` is the input file itself (same device and inode): opening
 * it for writing would truncate the source before it is read. */
static bool is_input(const Run *r, const char *name) {
    struct stat in, out;
    if (!r->o->input || stat(r->o->input, &in) != 0 || stat(name, &out) != 0) return false;
    return in.st_dev == out.st_dev && in.st_ino == out.st_ino;
}

static bool open_output(Run *r, Output *out, const char *name) {
    out->name = name;
    if (!name) return true;
    if (strcmp(name, "-") == 0) {
        out->f = stdout;
        return true;
    }
    if (is_input(r, name)) {
        fprintf(r->err, "error: output file '%s' is the input file\n", name);
        return false;
    }
    out->f = fopen(name, "w");
    if (!out->f) {
        fprintf(r->err, "error: cannot open output file '%s'\n", name);
        return false;
    }
    return true;
}

/* Flushes and closes an output (stdout is only flushed). The error flag of
 * the stream is sticky, so checking it here covers every earlier write: a
 * failed write (disk full, closed pipe) is reported, never ignored. */
static bool close_output(Run *r, Output *out) {
    if (!out->f) return true;
    int err = 0;
    if (fflush(out->f) != 0) err = errno;
    bool ok = err == 0 && !ferror(out->f);
    if (out->f != stdout && fclose(out->f) != 0 && ok) {
        err = errno;
        ok = false;
    }
    out->f = NULL;
    if (!ok)
        fprintf(r->err, "error: cannot write output file '%s': %s\n", out->name,
                err ? strerror(err) : "write error");
    return ok;
}

/* Closes every output; false if any failed. */
static bool close_outputs(Run *r) {
    Output *all[] = {&r->ast, &r->d, &r->dot, &r->h, &r->ll, &r->md, &r->mim};
    bool ok = true;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        if (!close_output(r, all[i])) ok = false;
    return ok;
}

static bool open_outputs(Run *r) {
    const MimOptions *o = r->o;
    return open_output(r, &r->ast, o->out_ast) && open_output(r, &r->d, o->out_d) &&
           open_output(r, &r->dot, o->out_dot) && open_output(r, &r->h, o->out_h) &&
           open_output(r, &r->ll, o->out_ll) && open_output(r, &r->md, o->out_md) &&
           open_output(r, &r->mim, o->out_mim);
}

static bool color_of(FILE *f) { return isatty(fileno(f)) != 0; }

/* Prints the World's diagnostics (type errors and emission warnings). */
static void print_world_diag(Run *r) {
    MimDiag *d = mim_world_diag(r->world);
    mim_diag_print(d, r->err, color_of(r->err));
    mim_diag_clear(d);
}

/* The stem of a path: file name without directory and extension. */
static MimSym stem(MimWorld *w, const char *path) {
    size_t len;
    const char *base = mim_path_stem(path, &len);
    return mim_world_sym_n(w, base, len);
}

/* Loads the library of `name` (never in bootstrap mode). An error is
 * reported at loc, or as an unlocated fatal line if loc has no row. */
static bool load_plugin(Run *r, const char *name, MimLoc loc) {
    if (r->o->bootstrap) return true;
    char msg[256];
    if (mim_registry_load(&r->plugins, name, (const char *const *)r->paths, r->num_paths, msg, sizeof msg)) {
        /* The pullbacks of a loop are closures that pass through the loop's
         * blocks: autodiff brings closure conversion with it (docs/autodiff.md,
         * "Control flow"), so that such derivatives compile without -p clos. */
        if (strcmp(name, "autodiff") == 0) return load_plugin(r, "clos", loc);
        return true;
    }
    if (loc.begin.row == 0) fprintf(r->err, "error: %s\n", msg);
    else mim_diag_report(&r->diag, MIM_ERROR, loc, "%s", msg);
    return false;
}

static bool load_directive(void *run, const char *name, MimLoc loc) { return load_plugin(run, name, loc); }

/* The implicit and -p plugins (cli.md §3 step 5), in their order: compile,
 * the -p plugins, opt at -O2. */
static size_t implicit_plugins(const Run *r, const char **names) {
    const MimOptions *o = r->o;
    size_t n = 0;
    if (!o->bootstrap) names[n++] = "compile";
    for (size_t i = 0; i < o->num_plugins; ++i) names[n++] = o->plugins[i];
    if (!o->bootstrap && o->opt_level >= 2) names[n++] = "opt";
    return n;
}

static bool parse_all(Run *r) {
    const MimOptions *o = r->o;
    /* Each implicit plugin is its library, then its interface. The
     * interfaces (and what they import) are parsed before the libraries are
     * opened; nothing observable depends on that order: parsing needs no
     * library, and when a library fails to load the run stops with that
     * error alone, before the input is read. An invalid name ends the
     * parsing (no file is looked up for it). */
    const char **names = mim_xcalloc(o->num_plugins + 2, sizeof *names);
    size_t num = implicit_plugins(r, names), valid = 0;
    while (valid < num && (o->bootstrap || mim_plugin_name_valid(names[valid]))) ++valid;
    /* With a prelude image for these plugins, their interfaces need not be
     * parsed at all: skeleton modules stand for them (fe/skeleton.c), until
     * mim_prelude_load finds no image covering them fits. */
    bool skeleton = valid == num && !o->bootstrap && !o->no_prelude && !o->write_prelude &&
                    mim_prelude_skeleton(r->world, r->fe, names, num);
    for (size_t i = 0; i < valid && !skeleton; ++i) mim_fe_parse_plugin(r->fe, names[i]);
    bool loaded = true;
    for (size_t i = 0; loaded && i < num; ++i) loaded = load_plugin(r, names[i], (MimLoc){0});
    free(names);
    if (!loaded) return false;
    mim_fe_set_md(r->fe, r->md.f);
    mim_fe_parse_input(r->fe, o->input);
    bool ok = mim_fe_bind(r->fe);
    if (ok && !r->diag.num_errors && !o->bootstrap) mim_program_load_directives(r->fe, load_directive, r);
    if (!ok || r->diag.num_errors) {
        mim_diag_print(&r->diag, r->err, color_of(r->err));
        return false;
    }
    if (r->diag.num_warnings) {
        fprintf(r->err, "%u warning(s) encountered\n", r->diag.num_warnings);
        mim_diag_print(&r->diag, r->err, color_of(r->err));
    }
    return true;
}

static bool emit_all(Run *r) {
    bool load = !r->o->no_prelude && !r->o->bootstrap;
    bool ok = mim_program_emit(r->world, r->fe, &r->plugins, load, r->o->write_prelude, r->err);
    print_world_diag(r); /* the first type error, or the warnings of emission (no count line) */
    return ok;
}

/* --output-d: `<h file>: "<import>" \⏎ "<import>"…` without the first file. */
static void write_deps(Run *r) {
    FILE *f = r->d.f;
    fprintf(f, "%s: ", r->o->out_h);
    for (size_t i = 1, n = mim_fe_num_files(r->fe); i < n; ++i)
        fprintf(f, "%s\"%s\"", i > 1 ? " \\\n " : "", mim_fe_file(r->fe, i)->path);
    fputc('\n', f);
}

/* The `.import`/`.mim/plugin` lines of --output-mim, one per parsed file:
 * copied out of the front end, whose names live in the front end's World. */
static void take_imports(Run *r) {
    size_t n = mim_fe_num_files(r->fe);
    r->imports = mim_xcalloc(n, sizeof *r->imports);
    r->num_imports = n;
    for (size_t i = 0; i < n; ++i) {
        const MimFeFile *file = mim_fe_file(r->fe, i);
        const char *kw = mim_registry_is_loaded(&r->plugins, file->name) ? ".mim/plugin" : ".import";
        size_t len = strlen(kw) + strlen(file->name) + 3;
        r->imports[i] = mim_xmalloc(len);
        snprintf(r->imports[i], len, "%s %s;", kw, file->name);
    }
}

static void write_mim(Run *r) {
    MimPrintOptions po = {.ascii = r->o->ascii,
                          .dump_gid = r->o->dump_gid,
                          .recursive = r->o->dump_recursive,
                          .scalarize_threshold = r->o->scalarize_threshold};
    mim_print_world(r->world, r->mim.f, &po, (const char *const *)r->imports, r->num_imports);
}

/* The optimizer is done with the front end's World: its messages (the
 * warnings of the pipeline interpretation) are printed and it is freed.
 * Later Worlds intern their own names and file names, so nothing points
 * into it; freeing it early lowers the peak memory of -O2. */
static void release_front(void *run, MimWorld *front) {
    Run *r = run;
    mim_diag_print(mim_world_diag(front), r->err, color_of(r->err));
    mim_world_free(front);
    r->world = NULL;
}

static MimPassHandler run_handler(void *run, uint64_t base) {
    return mim_registry_pass(&((Run *)run)->plugins, base);
}
static bool run_loaded(void *run, const char *name) {
    return mim_registry_is_loaded(&((Run *)run)->plugins, name);
}

/* -O1: the cleanup. -O2: the compilation pipeline (compile.md §3). The front
 * end's World is freed as soon as it has been copied (release_front). */
static bool optimize(Run *r, long level) {
    MimWorld *front = r->world, *w = front;
    bool ok;
    if (level >= 2) {
        MimOptHost host = {r, run_handler, run_loaded, release_front, r->o->keep_helpers};
        ok = mim_optimize(&w, &host);
    } else {
        ok = mim_swap_cleanup(&w, front);
    }
    if (w != front && r->world) release_front(r, front); /* -O1, or failed after copying */
    r->world = w;
    if (!ok) {
        fprintf(r->err, "error: optimization failed\n");
        print_world_diag(r);
    }
    return ok;
}

static int run(Run *r) {
    const MimOptions *o = r->o;
    if (!open_outputs(r)) return 1;
    if (!o->input) {
        fprintf(r->err, "error: no input given\n");
        return 1;
    }
    r->num_paths = mim_search_paths(o, r->paths, sizeof r->paths / sizeof r->paths[0]);
    r->world = mim_world_new();
    mim_world_set_scalarize_threshold(r->world, o->scalarize_threshold);
    mim_world_set_aggr_lam_spec(r->world, o->aggr_lam_spec);
    if (o->stack_budget) mim_world_set_stack_budget(r->world, o->stack_budget);
    mim_world_set_log(r->world, r->err, o->verbose); /* -V: errors only … debug */
    mim_world_set_name(r->world, stem(r->world, o->input));
    mim_diag_init(&r->diag);
    r->fe = mim_fe_new(r->world, &r->diag, (const char *const *)r->paths, r->num_paths, o->bootstrap);

    if (!parse_all(r) || !emit_all(r)) return 1;

    if (r->ast.f) mim_fe_print_ast(r->fe, r->ast.f);
    if (r->d.f) {
        if (!o->out_h) {
            fprintf(r->err, "error: --output-d requires --output-h\n");
            return 1;
        }
        write_deps(r);
    }
    /* Step 11: the plugin header (outside bootstrap mode the file stays empty). */
    if (o->bootstrap && r->h.f && !mim_write_plugin_header(r->fe, mim_world_name(r->world), r->h.f, r->err))
        return 1;
    long level = o->opt_level;
    if (o->bootstrap && level > 1) level = 1;
    if (level < 0 || level > 2) {
        fprintf(r->err, "error: illegal optimization level '%ld'\n", o->opt_level);
        return 1;
    }
    take_imports(r);
    mim_fe_free(r->fe);
    r->fe = NULL;
    if (level >= 1 && !optimize(r, level)) return 1;
    if (r->dot.f) mim_print_dot(r->world, r->dot.f, o->dot_follow_types, o->dot_all_annexes);
    if (r->mim.f) write_mim(r);
    if (r->ll.f) {
        MimBackendFn ll = mim_registry_backend(&r->plugins, "ll");
        if (!ll) {
            fprintf(r->err, "error: 'll' emitter not loaded; try loading 'mem' plugin\n");
            return 1;
        }
        if (!ll(r->world, r->ll.f)) {
            print_world_diag(r);
            return 1;
        }
    }
    return 0;
}

int mim_run(const MimOptions *o, FILE *err) {
    Run r;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.err = err;
    int code = run(&r);
    if (!close_outputs(&r)) code = 1;
    fflush(stdout);
    if (o->exiting) return code; /* the process exit frees the rest */
    if (r.fe) mim_fe_free(r.fe);
    if (r.world) mim_world_free(r.world);
    for (size_t i = 0; i < r.num_imports; ++i) free(r.imports[i]);
    free(r.imports);
    mim_registry_free(&r.plugins); /* after the Worlds: they hold normalizer pointers */
    mim_diag_free(&r.diag);
    mim_search_paths_free(r.paths, r.num_paths);
    return code;
}
