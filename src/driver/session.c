/* Sessions (include/mim/session.h): the driver's parse/bind/load/emit steps
 * for embedders, in the order of the `mim` command line (cli.md §3, §4.2):
 * `compile` first, the requested plugins, `opt` last when the optimization
 * level needs it, then the program. Plugin libraries are found next to
 * libmim itself. A misuse (a call out of order, an illegal level) is
 * reported in the session's diagnostics and changes nothing else. */
#define _GNU_SOURCE /* dladdr */
#include "mim/session.h"

#include "driver/program.h"
#include "pass/optimize.h"
#include "util/path.h"
#include "mim/driver.h"
#include "mim/xalloc.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef MIM_VEC(MimWorld *) Worlds;
typedef MIM_VEC(char *) Names;

struct MimSession {
    MimWorld *world;
    MimWorld *front; /* the front end's World once optimization replaced it */
    Worlds replaced; /* Worlds of builds redone for -O2 (their nodes stay valid) */
    MimDiag diag;    /* front-end and loading messages */
    MimDiag misuse;  /* calls out of order: kept apart, they fail nothing */
    MimFe *fe;
    MimRegistry plugins;
    char *paths[MIM_MAX_PATHS + 8];
    size_t num_paths;
    Names requested; /* plugins named by the embedder, in order, without compile and opt */
    bool want_opt;   /* `opt` is emitted after them (requested, or for -O2) */
    char *src_path, *src_text;
    size_t src_len;
    uint32_t built_gids; /* the World's gid counter right after the build */
    bool built, failed, optimized;
};

/* <directory of libmim.so>/mim, where the build and an installation put the
 * plugins; NULL if it cannot be determined. */
static const char libmim_anchor; /* an object inside libmim, for dladdr */

static char *libmim_plugin_dir(void) {
    Dl_info info;
    if (!dladdr(&libmim_anchor, &info) || !info.dli_fname) return NULL;
    char real[PATH_MAX];
    if (!realpath(info.dli_fname, real)) return NULL;
    char *slash = strrchr(real, '/');
    if (!slash) return NULL;
    *slash = '\0';
    size_t n = strlen(real) + 5;
    char *dir = mim_xmalloc(n);
    snprintf(dir, n, "%s/mim", real);
    return dir;
}

MimSession *mim_session_new(const char *const *plugin_dirs, size_t num_dirs) {
    MimSession *s = mim_xcalloc(1, sizeof *s);
    MimOptions o;
    mim_options_init(&o);
    for (size_t i = 0; i < num_dirs && i < MIM_MAX_PATHS; ++i) o.plugin_paths[o.num_plugin_paths++] = plugin_dirs[i];
    size_t max = sizeof s->paths / sizeof s->paths[0];
    s->num_paths = mim_search_paths(&o, s->paths, max - 1);
    char *own = libmim_plugin_dir();
    if (own) s->paths[s->num_paths++] = own;
    s->world = mim_world_new();
    mim_diag_init(&s->diag);
    mim_diag_init(&s->misuse);
    return s;
}

void mim_session_free(MimSession *s) {
    if (!s) return;
    if (s->fe) mim_fe_free(s->fe);
    mim_world_free(s->world);
    if (s->front) mim_world_free(s->front);
    for (size_t i = 0; i < s->replaced.len; ++i) mim_world_free(s->replaced.data[i]);
    mim_vec_free(&s->replaced);
    mim_registry_free(&s->plugins); /* after the Worlds: they hold normalizer pointers */
    mim_diag_free(&s->diag);
    mim_diag_free(&s->misuse);
    mim_search_paths_free(s->paths, s->num_paths);
    for (size_t i = 0; i < s->requested.len; ++i) free(s->requested.data[i]);
    mim_vec_free(&s->requested);
    free(s->src_path);
    free(s->src_text);
    free(s);
}

/* An unlocated error of the embedder's call; returns false. */
static bool misuse(MimSession *s, const char *fmt, ...) MIM_PRINTF(2, 3);
static bool misuse(MimSession *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    MimLoc none = {0};
    mim_diag_vreport(&s->misuse, MIM_ERROR, none, fmt, ap);
    va_end(ap);
    return false;
}

static bool load(MimSession *s, const char *name, MimLoc loc) {
    char msg[256];
    if (mim_registry_load(&s->plugins, name, (const char *const *)s->paths, s->num_paths, msg, sizeof msg))
        return true;
    mim_diag_report(&s->diag, MIM_ERROR, loc, "%s", msg);
    s->failed = true;
    return false;
}

bool mim_session_plugin(MimSession *s, const char *name) {
    if (s->built) return misuse(s, "mim_session_plugin: plugin '%s' requested after mim_session_build", name);
    if (s->failed) return false;
    /* The library is opened now, so that a missing one is reported here; the
     * interface is parsed at build time, in the command line's order. */
    if (!load(s, name, (MimLoc){0})) return false;
    if (strcmp(name, "opt") == 0) s->want_opt = true;
    else if (strcmp(name, "compile") != 0) mim_vec_push(&s->requested, mim_xstrdup(name));
    return true;
}

bool mim_session_source(MimSession *s, const char *path, const char *text, size_t len) {
    if (s->built) return misuse(s, "mim_session_source: source '%s' given after mim_session_build", path);
    if (s->src_text) return misuse(s, "mim_session_source: the session already has a program ('%s')", s->src_path);
    if (s->failed) return false;
    s->src_path = mim_xstrdup(path);
    s->src_text = mim_xmalloc(len + 1);
    memcpy(s->src_text, text, len);
    s->src_text[len] = '\0';
    s->src_len = len;
    return true;
}

static bool load_directive(void *session, const char *name, MimLoc loc) { return load(session, name, loc); }

/* Parses, binds and emits compile, the requested plugins, opt (if wanted)
 * and the program into the session's fresh World, as `mim` does. */
static bool build_world(MimSession *s) {
    if (s->src_path) {
        size_t len;
        const char *base = mim_path_stem(s->src_path, &len);
        mim_world_set_name(s->world, mim_world_sym_n(s->world, base, len));
    }
    s->fe = mim_fe_new(s->world, &s->diag, (const char *const *)s->paths, s->num_paths, false);
    if (!load(s, "compile", (MimLoc){0}) || (s->want_opt && !load(s, "opt", (MimLoc){0}))) return false;
    mim_fe_parse_plugin(s->fe, "compile");
    for (size_t i = 0; i < s->requested.len; ++i) mim_fe_parse_plugin(s->fe, s->requested.data[i]);
    if (s->want_opt) mim_fe_parse_plugin(s->fe, "opt");
    if (s->src_text) mim_fe_parse_text(s->fe, s->src_path, s->src_text, s->src_len);
    if (mim_fe_num_errors(s->fe) || !mim_fe_bind(s->fe)) return false;
    mim_program_load_directives(s->fe, load_directive, s);
    if (s->failed) return false;
    /* Prelude images (docs/startup.md) spare the emission of the standard
     * interfaces when they fit; they never change the World built. */
    if (!mim_program_emit(s->world, s->fe, &s->plugins, true, false, NULL)) return false;
    s->built_gids = mim_world_gid_counter(s->world);
    return true;
}

bool mim_session_build(MimSession *s) {
    if (s->built) return !s->failed;
    s->built = true;
    if (s->failed || !build_world(s)) return !(s->failed = true);
    return true;
}

/* -O2 needs `opt` emitted before the program. If the embedder did not ask
 * for it and has built nothing into the World since, the build is redone
 * with it (the old World stays valid until the session ends); otherwise the
 * World cannot be made to match `mim -O2` any more. */
static bool ensure_opt(MimSession *s) {
    if (s->want_opt) return true;
    if (mim_world_gid_counter(s->world) != s->built_gids)
        return misuse(s, "mim_session_optimize: level 2 needs the 'opt' plugin, which comes before the program: "
                         "request it with mim_session_plugin before mim_session_build (nodes were built since)");
    mim_vec_push(&s->replaced, s->world);
    s->world = mim_world_new();
    mim_fe_free(s->fe);
    s->fe = NULL;
    s->want_opt = true;
    if (!build_world(s)) return !(s->failed = true);
    return true;
}

static MimPassHandler host_handler(void *ctx, uint64_t base) { return mim_registry_pass(ctx, base); }
static bool host_loaded(void *ctx, const char *name) { return mim_registry_is_loaded(ctx, name); }

bool mim_session_optimize(MimSession *s, int level) {
    if (!s->built) return misuse(s, "mim_session_optimize: call mim_session_build first");
    if (s->failed) return misuse(s, "mim_session_optimize: the session failed to build");
    if (level < 0 || level > 2) return misuse(s, "mim_session_optimize: illegal optimization level '%d' (0, 1 or 2)", level);
    if (s->optimized) return misuse(s, "mim_session_optimize: the session is already optimized");
    if (level == 2 && !ensure_opt(s)) return false;
    s->optimized = true;
    if (level == 0) return true;
    MimWorld *w = s->world;
    MimOptHost host = {&s->plugins, host_handler, host_loaded, NULL, false, NULL}; /* keeps s->front */
    /* Intermediate Worlds are freed; the front end's stays (its names and
     * paths are interned there) until the session ends. */
    bool ok = level == 2 ? mim_optimize(&w, &host) : mim_swap_cleanup(&w, s->world);
    if (w != s->world) {
        /* Pipeline warnings are recorded in the World it was read from. */
        mim_diag_append(&s->diag, mim_world_diag(s->world));
        mim_diag_clear(mim_world_diag(s->world));
        s->front = s->world;
        s->world = w;
    }
    return ok;
}

bool mim_session_emit(MimSession *s, const char *backend, FILE *out) {
    if (!s->built) return misuse(s, "mim_session_emit: call mim_session_build first");
    if (s->failed) return misuse(s, "mim_session_emit: the session failed to build");
    MimBackendFn fn = mim_registry_backend(&s->plugins, backend);
    if (!fn) return misuse(s, "no back end '%s' is loaded", backend);
    return fn(s->world, out);
}

MimWorld *mim_session_world(MimSession *s) { return s->world; }

bool mim_session_is_loaded(const MimSession *s, const char *plugin) {
    return mim_registry_is_loaded(&s->plugins, plugin);
}

void mim_session_print_diag(MimSession *s, FILE *out) {
    mim_diag_print_source(&s->diag, out, false, NULL, NULL);
    mim_diag_print_source(&s->misuse, out, false, NULL, NULL);
    mim_diag_print_source(mim_world_diag(s->world), out, false, NULL, NULL);
}
