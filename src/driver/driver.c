/* One run of the compiler (cli.md §3): open the outputs, parse the plugins and
 * the input, bind, emit (build and type-check), optimize, write the outputs.
 * Every failure is a diagnostic and exit code 1; nothing aborts. */
#include "mim/driver.h"

#include "driver/bootstrap.h"
#include "driver/load.h"
#include "driver/native.h"
#include "driver/output.h"
#include "driver/prelude.h"
#include "driver/program.h"
#include "driver/trace.h"
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

typedef struct Run {
    const MimOptions *o;
    FILE *err;
    MimOutput ast, d, dot, h, ll, md, mim, exe, obj;
    char *paths[MIM_MAX_PATHS * 2 + 8];
    size_t num_paths;
    MimWorld *world;
    MimDiag diag; /* front-end messages */
    MimFe *fe;      /* freed before optimization (the AST is no longer needed) */
    char **imports; /* the --output-mim header lines, taken from the front end */
    size_t num_imports;
    MimRegistry plugins; /* loaded libraries; closed after every World is freed */
    bool color;          /* of diagnostics */
    MimTrace trace;      /* -V, --time-passes */
    char *stdin_text;    /* the input when it is read from stdin ("-") */
    size_t stdin_len;
    bool implicit_clos;  /* clos loaded by autodiff only: listed as an import in --output-mim */
    MimProgramStream stream; /* the input emitted as it is parsed (streams_input) */
} Run;

/* True if `name` is the input file itself (same device and inode): opening
 * it for writing would truncate the source before it is read. */
static bool is_input(const Run *r, const char *name) {
    struct stat in, out;
    if (!r->o->input || stat(r->o->input, &in) != 0 || stat(name, &out) != 0) return false;
    return in.st_dev == out.st_dev && in.st_ino == out.st_ino;
}

static bool open_output(Run *r, MimOutput *out, const char *name) {
    if (name && strcmp(name, "-") != 0 && is_input(r, name)) {
        fprintf(r->err, "error: output file '%s' is the input file\n", name);
        return false;
    }
    return mim_output_open(out, name, r->err);
}

/* --output-exe/--output-obj: a temporary path the C compiler writes. */
static bool reserve_output(Run *r, MimOutput *out, const char *name) {
    if (name && is_input(r, name)) {
        fprintf(r->err, "error: output file '%s' is the input file\n", name);
        return false;
    }
    return mim_output_reserve(out, name, r->err);
}

/* Closes every output: those completely written replace their
 * destination, the others vanish (output.h). False if any write failed. */
static bool close_outputs(Run *r) {
    MimOutput *all[] = {&r->ast, &r->d, &r->dot, &r->h, &r->ll, &r->md, &r->mim, &r->exe, &r->obj};
    bool ok = true;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        if (!mim_output_close(all[i], r->err)) ok = false;
    return ok;
}

static bool open_outputs(Run *r) {
    const MimOptions *o = r->o;
    return open_output(r, &r->ast, o->out_ast) && open_output(r, &r->d, o->out_d) &&
           open_output(r, &r->dot, o->out_dot) && open_output(r, &r->h, o->out_h) &&
           open_output(r, &r->ll, o->out_ll) && open_output(r, &r->md, o->out_md) &&
           open_output(r, &r->mim, o->out_mim) && reserve_output(r, &r->exe, o->out_exe) &&
           reserve_output(r, &r->obj, o->out_obj);
}

/* Colours (--color): always, never, or on a terminal unless NO_COLOR is
 * set to something (no-color.org). */
static bool use_color(const MimOptions *o, FILE *f) {
    if (o->color == MIM_COLOR_ALWAYS) return true;
    if (o->color == MIM_COLOR_NEVER) return false;
    const char *no = getenv("NO_COLOR");
    return !(no && *no) && isatty(fileno(f)) != 0;
}

/* The input "-": read from stdin, named so in messages. */
#define MIM_STDIN_NAME "<stdin>"

/* Source lines of messages: the input read from stdin is kept by the run. */
static const char *run_source(void *run, const char *file, size_t *len) {
    Run *r = run;
    if (!r->stdin_text || strcmp(file, MIM_STDIN_NAME) != 0) return NULL;
    *len = r->stdin_len;
    return r->stdin_text;
}

static void print_diag(Run *r, const MimDiag *d) { mim_diag_print_source(d, r->err, r->color, run_source, r); }

/* Prints the World's diagnostics (type errors and emission warnings). */
static void print_world_diag(Run *r) {
    MimDiag *d = mim_world_diag(r->world);
    print_diag(r, d);
    mim_diag_clear(d);
}

/* Reads all of stdin into the run (the input "-"). */
static bool read_stdin(Run *r) {
    size_t cap = 1 << 16, n = 0;
    char *buf = mim_xmalloc(cap);
    for (size_t got; (got = fread(buf + n, 1, cap - n, stdin)) > 0;)
        if ((n += got) == cap) buf = mim_xrealloc(buf, cap *= 2);
    if (ferror(stdin)) {
        fprintf(r->err, "<unknown location>: error: cannot read file \"-\": %s\n", strerror(errno));
        free(buf);
        return false;
    }
    r->stdin_text = buf;
    r->stdin_len = n;
    return true;
}

/* Whether a path's last component has an extension (cli.md §2: without one,
 * ".mim" is appended). */
static bool has_extension(const char *name) {
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    const char *dot = strrchr(base, '.');
    return dot && dot != base && strcmp(base, "..") != 0;
}

/* The input of cli.md §2, checked before anything is parsed so that each
 * way it can be wrong is one message naming it as given: `-` is stdin;
 * otherwise it must resolve to a readable regular file. */
static bool check_input(Run *r) {
    const char *in = r->o->input;
    if (strcmp(in, "-") == 0) return read_stdin(r);
    char *path = mim_fe_lookup_path(r->fe, in);
    FILE *f = path ? fopen(path, "rb") : NULL;
    int e = errno;
    free(path);
    if (f) {
        fclose(f);
        return true;
    }
    struct stat st;
    bool exists = stat(in, &st) == 0;
    if (!exists) e = errno;
    fprintf(r->err, "<unknown location>: error: cannot read file \"%s\": ", in);
    if (path) fprintf(r->err, "%s\n", strerror(e));
    else if (exists && S_ISDIR(st.st_mode)) fprintf(r->err, "it is a directory, not a Mim file\n");
    else if (!has_extension(in))
        fprintf(r->err, "no file '%s.mim' (an input without extension names a .mim file)%s\n", in,
                exists ? "; the file without extension is not read" : "");
    else fprintf(r->err, "%s\n", strerror(e));
    return false;
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
        if (strcmp(name, "autodiff") == 0 && !mim_registry_is_loaded(&r->plugins, "clos")) {
            bool ok = load_plugin(r, "clos", loc);
            r->implicit_clos = true;
            return ok;
        }
        if (strcmp(name, "clos") == 0 && loc.begin.row) r->implicit_clos = false; /* named too */
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

/* Whether the input is emitted declaration by declaration as it is parsed
 * (its AST memory reused: docs/cli.md, "Streaming the input"): only where
 * nothing needs the whole AST afterwards (--output-ast, -h, writing a
 * prelude) and nothing runs between binding and emission (outside
 * bootstrap mode the libraries of `plugin` directives are loaded and
 * prelude images read there). */
static bool streams_input(const Run *r) {
    const MimOptions *o = r->o;
    return o->bootstrap && !r->ast.f && !o->out_h && !o->write_prelude;
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
    if (streams_input(r)) mim_program_stream(&r->stream, r->world, r->fe, &r->plugins);
    if (r->stdin_text) mim_fe_parse_text(r->fe, MIM_STDIN_NAME, r->stdin_text, r->stdin_len);
    else mim_fe_parse_input(r->fe, o->input);
    bool ok = mim_fe_bind(r->fe);
    if (ok && !r->diag.num_errors && !o->bootstrap) mim_program_load_directives(r->fe, load_directive, r);
    if (!ok || r->diag.num_errors) {
        print_diag(r, &r->diag);
        return false;
    }
    if (r->diag.num_warnings) {
        fprintf(r->err, "%u warning(s) encountered\n", r->diag.num_warnings);
        print_diag(r, &r->diag);
    }
    return true;
}

static bool emit_all(Run *r) {
    bool load = !r->o->no_prelude && !r->o->bootstrap;
    bool ok = r->stream.began ? mim_program_stream_end(&r->stream)
                              : mim_program_emit(r->world, r->fe, &r->plugins, load, r->o->write_prelude, r->err);
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
    r->num_imports = 0;
    for (size_t i = 0; i < n; ++i) {
        const MimFeFile *file = mim_fe_file(r->fe, i);
        /* The library of a clos that only autodiff loaded does not count
         * (spec output-format.md §2): clos.mim is listed as the reference
         * lists it, an import (of opt's, at -O2). */
        bool lib = mim_registry_is_loaded(&r->plugins, file->name) &&
                   !(r->implicit_clos && strcmp(file->name, "clos") == 0);
        const char *kw = lib ? ".mim/plugin" : ".import";
        size_t len = strlen(kw) + strlen(file->name) + 3;
        r->imports[r->num_imports] = mim_xmalloc(len);
        snprintf(r->imports[r->num_imports], len, "%s %s;", kw, file->name);
        r->num_imports++;
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
    print_diag(r, mim_world_diag(front));
    mim_world_free(front);
    r->world = NULL;
}

static void run_step(void *run, const char *name, bool done) {
    Run *r = run;
    if (done) mim_trace_end(&r->trace);
    else mim_trace_begin(&r->trace, name);
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
        MimOptHost host = {r, run_handler, run_loaded, release_front, r->o->keep_helpers, NULL};
        if (mim_trace_on(&r->trace)) host.step = run_step;
        ok = mim_optimize(&w, &host);
    } else {
        ok = mim_swap_cleanup(&w, front);
    }
    if (w != front && r->world) release_front(r, front); /* -O1, or failed after copying */
    r->world = w;
    if (!ok) {
        /* The generic line only when no pass said what went wrong. */
        if (mim_world_diag(r->world)->num_errors == 0) fprintf(r->err, "error: optimization failed\n");
        print_world_diag(r);
    }
    return ok;
}

/* The `ll` back end's output on f; false after reporting an error. */
static bool emit_ll(Run *r, FILE *f) {
    MimBackendFn ll = mim_registry_backend(&r->plugins, "ll");
    if (!ll) {
        fprintf(r->err, "error: 'll' emitter not loaded; try loading 'mem' plugin\n");
        return false;
    }
    if (!ll(r->world, f)) {
        print_world_diag(r);
        return false;
    }
    return true;
}

/* The LLVM IR of the program in memory (free *ir), for the C compiler and
 * the JIT. */
static bool ll_text(Run *r, char **ir, size_t *len) {
    *ir = NULL;
    *len = 0;
    FILE *f = open_memstream(ir, len);
    if (!f) {
        fprintf(r->err, "error: out of memory\n");
        return false;
    }
    bool ok = emit_ll(r, f);
    if (fclose(f) != 0) ok = false;
    if (!ok) {
        free(*ir);
        *ir = NULL;
    }
    return ok;
}

/* --output-obj and --output-exe: the C compiler writes each into the
 * output's temporary (or the named file, when written directly). */
static bool build_native(Run *r, long level) {
    const MimOptions *o = r->o;
    if (!o->out_exe && !o->out_obj) return true;
    char *ir;
    size_t len;
    if (!ll_text(r, &ir, &len)) return false;
    const char *cc = o->clang ? o->clang : MIM_DEFAULT_CC;
    MimOutput *outs[] = {&r->obj, &r->exe};
    bool ok = true;
    for (int i = 0; i < 2 && ok; ++i) {
        MimOutput *out = outs[i];
        if (!out->name) continue;
        ok = mim_native_compile(cc, ir, len, out->tmp ? out->tmp : out->name, i == 0, level, o->links,
                                o->num_links, r->err);
        out->done = ok;
    }
    free(ir);
    return ok;
}

/* --run: every output is final before the program runs (it may exit()
 * itself); the program's exit code is the run's. */
static int run_program(Run *r, long level) {
    const MimOptions *o = r->o;
    if (!mim_world_lookup_external(r->world, mim_world_sym(r->world, "main"))) {
        fprintf(r->err, "error: --run: the program has no external function 'main' to run\n");
        return 1;
    }
    char *ir;
    size_t len;
    if (!ll_text(r, &ir, &len)) return 1;
    if (!close_outputs(r)) {
        free(ir);
        return 1;
    }
    char *argv0[] = {(char *)o->input, NULL};
    int argc = o->run_argv ? o->run_argc : 1;
    char **argv = o->run_argv ? o->run_argv : argv0;
    int code = 1;
    const char *cc = o->clang ? o->clang : MIM_DEFAULT_CC;
    bool ok = mim_native_run(ir, len, argc, argv, (const char *const *)r->paths, r->num_paths, cc, level, &code,
                             r->err);
    free(ir);
    return ok ? code : 1;
}

static int write_outputs(Run *r, long level);

static int run(Run *r) {
    const MimOptions *o = r->o;
    if (o->num_links && !o->out_exe) {
        fprintf(r->err, "error: --link requires --output-exe\n");
        return 1;
    }
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
    bool from_stdin = strcmp(o->input, "-") == 0;
    mim_world_set_name(r->world, from_stdin ? mim_world_sym(r->world, "stdin") : stem(r->world, o->input));
    mim_diag_init(&r->diag);
    r->fe = mim_fe_new(r->world, &r->diag, (const char *const *)r->paths, r->num_paths, o->bootstrap);
    if (!check_input(r)) return 1;

    MimTrace *t = &r->trace;
    mim_trace_begin(t, "parse and bind");
    if (!parse_all(r)) return 1;
    mim_trace_end(t);
    r->md.done = true;
    mim_trace_begin(t, "emit");
    if (!emit_all(r)) return 1;
    mim_trace_end(t);

    if (r->ast.f) mim_fe_print_ast(r->fe, r->ast.f);
    r->ast.done = true;
    if (r->d.f) {
        if (!o->out_h) {
            fprintf(r->err, "error: --output-d requires --output-h\n");
            return 1;
        }
        write_deps(r);
        r->d.done = true;
    }
    /* Step 11: the plugin header (outside bootstrap mode the file stays empty). */
    if (o->bootstrap && r->h.f && !mim_write_plugin_header(r->fe, mim_world_name(r->world), r->h.f, r->err))
        return 1;
    r->h.done = true;
    long level = o->opt_level;
    if (o->bootstrap && level > 1) level = 1;
    if (level < 0 || level > 2) {
        fprintf(r->err, "error: illegal optimization level '%ld'\n", o->opt_level);
        return 1;
    }
    take_imports(r);
    mim_fe_free(r->fe);
    r->fe = NULL;
    if (level >= 1) {
        mim_trace_begin(t, level >= 2 ? "optimize" : "cleanup");
        if (!optimize(r, level)) return 1;
        mim_trace_end(t);
    }
    return write_outputs(r, level);
}

/* Steps 13-15 and the extensions: DOT, Mim, LLVM IR, object file,
 * executable, then the program itself (--run). */
static int write_outputs(Run *r, long level) {
    const MimOptions *o = r->o;
    MimTrace *t = &r->trace;
    if (r->dot.f) {
        mim_trace_begin(t, "write --output-dot");
        mim_print_dot(r->world, r->dot.f, o->dot_follow_types, o->dot_all_annexes);
        mim_trace_end(t);
    }
    r->dot.done = true;
    if (r->mim.f) {
        mim_trace_begin(t, "write --output-mim");
        write_mim(r);
        mim_trace_end(t);
    }
    r->mim.done = true;
    if (r->ll.f) {
        mim_trace_begin(t, "write --output-ll");
        if (!emit_ll(r, r->ll.f)) return 1;
        mim_trace_end(t);
    }
    r->ll.done = true;
    if (o->out_exe || o->out_obj) {
        mim_trace_begin(t, "C compiler");
        if (!build_native(r, level)) return 1;
        mim_trace_end(t);
    }
    if (!o->run) return 0;
    mim_trace_begin(t, "run");
    int code = run_program(r, level);
    mim_trace_end(t);
    return code;
}

int mim_run(const MimOptions *o, FILE *err) {
    Run r;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.err = err;
    r.color = use_color(o, err);
    mim_trace_init(&r.trace, err, o->verbose, o->time_passes);
    int code = run(&r);
    mim_trace_finish(&r.trace);
    mim_trace_free(&r.trace);
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
    free(r.stdin_text);
    return code;
}
