/* Sessions (include/mim/session.h): the driver's parse/bind/load/emit steps
 * for embedders, with plugin libraries found next to libmim itself. */
#define _GNU_SOURCE /* dladdr */
#include "mim/session.h"

#include "driver/program.h"
#include "pass/optimize.h"
#include "mim/driver.h"
#include "mim/xalloc.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct MimSession {
    MimWorld *world;
    MimWorld *front; /* the front end's World once optimization replaced it */
    MimDiag diag; /* front-end and loading messages */
    MimFe *fe;
    MimRegistry plugins;
    char *paths[MIM_MAX_PATHS + 8];
    size_t num_paths;
    bool built, failed;
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
    s->fe = mim_fe_new(s->world, &s->diag, (const char *const *)s->paths, s->num_paths, false);
    return s;
}

void mim_session_free(MimSession *s) {
    if (!s) return;
    mim_fe_free(s->fe);
    mim_world_free(s->world);
    if (s->front) mim_world_free(s->front);
    mim_registry_free(&s->plugins); /* after the World: it holds normalizer pointers */
    mim_diag_free(&s->diag);
    mim_search_paths_free(s->paths, s->num_paths);
    free(s);
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
    if (s->built || s->failed) return false;
    MimLoc none = {0};
    if (!load(s, name, none)) return false;
    mim_fe_parse_plugin(s->fe, name);
    return mim_fe_num_errors(s->fe) == 0;
}

bool mim_session_source(MimSession *s, const char *path, const char *text, size_t len) {
    if (s->built || s->failed || mim_fe_input(s->fe)) return false;
    return mim_fe_parse_text(s->fe, path, text, len) != NULL && mim_fe_num_errors(s->fe) == 0;
}

static bool load_directive(void *session, const char *name, MimLoc loc) { return load(session, name, loc); }

bool mim_session_build(MimSession *s) {
    if (s->built || s->failed) return !s->failed && s->built;
    s->built = true;
    if (!mim_fe_bind(s->fe)) return !(s->failed = true);
    mim_program_load_directives(s->fe, load_directive, s);
    if (s->failed) return false;
    /* Prelude images (docs/startup.md) spare the emission of the standard
     * interfaces when they fit; they never change the World built. */
    if (!mim_program_emit(s->world, s->fe, &s->plugins, true, false, NULL))
        return !(s->failed = true);
    return true;
}

static MimPassHandler host_handler(void *ctx, uint64_t base) { return mim_registry_pass(ctx, base); }
static bool host_loaded(void *ctx, const char *name) { return mim_registry_is_loaded(ctx, name); }

bool mim_session_optimize(MimSession *s, int level) {
    if (!s->built || s->failed || level < 0 || level > 2) return false;
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
        if (!s->front) s->front = s->world;
        else if (s->world != s->front) mim_world_free(s->world);
        s->world = w;
    }
    return ok;
}

bool mim_session_emit(MimSession *s, const char *backend, FILE *out) {
    MimBackendFn fn = s->built && !s->failed ? mim_registry_backend(&s->plugins, backend) : NULL;
    if (!fn) {
        MimLoc none = {0};
        mim_diag_report(&s->diag, MIM_ERROR, none, "no back end '%s' is loaded", backend);
        return false;
    }
    return fn(s->world, out);
}

MimWorld *mim_session_world(MimSession *s) { return s->world; }

bool mim_session_is_loaded(const MimSession *s, const char *plugin) {
    return mim_registry_is_loaded(&s->plugins, plugin);
}

void mim_session_print_diag(MimSession *s, FILE *out) {
    mim_diag_print_source(&s->diag, out, false, NULL, NULL);
    mim_diag_print_source(mim_world_diag(s->world), out, false, NULL, NULL);
}
