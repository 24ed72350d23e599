/* Test environment for the core plugin through the C API: a World in which
 * `plugin core;` was parsed and emitted with the real plugin library
 * (build/lib/mim/libmim_core.so, found next to the test executable as
 * <exe dir>/../lib/mim), exactly as the driver does it, plus helpers to
 * build core calls by annex id. Header-only; include it once per test. */
#ifndef MIM_TESTS_CORE_ENV_H
#define MIM_TESTS_CORE_ENV_H

#include "driver/load.h"
#include "fe/emit.h"
#include "fe/fe.h"
#include "mim/plugin.h"
#include "mim/world.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Ids of core.md §3 / docs/plugin-interfaces.md, independent of the
 * generated header. */
#define T_CORE 0x1104c60000000000ull
#define T_NAT (T_CORE | 0x000)
#define T_NCMP (T_CORE | 0x100)
#define T_IDX (T_CORE | 0x300)
#define T_BIT1 (T_CORE | 0x400)
#define T_BIT2 (T_CORE | 0x500)
#define T_SHR (T_CORE | 0x600)
#define T_WRAP (T_CORE | 0x700)
#define T_MINUS (T_CORE | 0x800)
#define T_DIV (T_CORE | 0x900)
#define T_ICMP (T_CORE | 0xa00)
#define T_EXTREMA (T_CORE | 0xb00)
#define T_ABS (T_CORE | 0xc00)
#define T_CONV (T_CORE | 0xd00)
#define T_BITCAST (T_CORE | 0xe00)
#define T_TRAIT (T_CORE | 0xf00)
#define T_PE (T_CORE | 0x1000)
#define T_ZIP (T_CORE | 0x1100)
#define T_MEM_M 0x3863800000000000ull

typedef struct CoreEnv {
    MimWorld *w;
    MimDiag diag;
    MimFe *fe;
    MimRegistry reg;
    char libdir[PATH_MAX];
    bool ok;
} CoreEnv;

static bool core_env_loaded(void *user, MimSym plugin) {
    return mim_registry_is_loaded(&((CoreEnv *)user)->reg, plugin);
}

static MimNormalizer core_env_normalizer(void *user, uint64_t id) {
    return mim_registry_normalizer(&((CoreEnv *)user)->reg, id);
}

/* <exe dir>/../lib/mim */
static bool core_env_libdir(char *out, size_t n) {
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) return false;
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return false;
    *slash = '\0';
    return snprintf(out, n, "%s/../lib/mim", exe) < (int)n;
}

/* Open a World with core (and mem, which core's interface loads) and the
 * optional Mim text `src` as the input module. */
static bool core_env_open(CoreEnv *e, const char *src) {
    memset(e, 0, sizeof *e);
    e->w = mim_world_new();
    mim_diag_init(&e->diag);
    if (!core_env_libdir(e->libdir, sizeof e->libdir)) return false;
    const char *paths[] = {"", e->libdir};
    char msg[256];
    if (!mim_registry_load(&e->reg, "core", paths, 2, msg, sizeof msg) ||
        !mim_registry_load(&e->reg, "mem", paths, 2, msg, sizeof msg)) {
        fprintf(stderr, "core_env: %s\n", msg);
        return false;
    }
    e->fe = mim_fe_new(e->w, &e->diag, paths, 2, false);
    mim_fe_parse_plugin(e->fe, "core");
    if (src) mim_fe_parse_text(e->fe, "test.mim", src, strlen(src));
    e->ok = mim_fe_bind(e->fe);
    MimEmitHooks hooks = {core_env_loaded, core_env_normalizer, e};
    for (size_t i = 0; e->ok && i < mim_fe_num_modules(e->fe); ++i)
        e->ok = mim_emit_module_with(e->w, mim_fe_module(e->fe, i), &hooks) && !mim_world_has_error(e->w);
    return e->ok;
}

static void core_env_close(CoreEnv *e) {
    if (e->fe) mim_fe_free(e->fe);
    mim_diag_free(&e->diag);
    mim_world_free(e->w);
    mim_registry_free(&e->reg); /* after the World: it holds normalizer pointers */
}

static MimDef *core_env_pair(MimWorld *w, MimDef *a, MimDef *b) {
    MimDef *ops[2] = {a, b};
    return mim_tuple(w, ops, 2);
}

/* The annex id applied to args in curried order (explicit implicits). */
static MimDef *core_env_call(MimWorld *w, uint64_t id, MimDef *const *args, size_t n) {
    MimDef *d = mim_world_annex(w, id);
    for (size_t i = 0; d && i < n; ++i) d = mim_app(w, d, args[i]);
    return d;
}

#endif
