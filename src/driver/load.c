/* Loading plugin libraries (cli.md §4.2, include/mim/plugin.h): for each
 * search path D but the current directory, `D/<name>` then
 * `D/libmim_<name>.so`; the entry point
 * mim_get_plugin returns the library's static tables, which are checked
 * (ABI version, name) and indexed for lookups by annex id. */
#include "driver/load.h"

#include "mim/xalloc.h"
#include "util/suggest.h"

#include <dirent.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool mim_plugin_name_valid(const char *name) {
    size_t n = strlen(name);
    if (n == 0 || n > MIM_PLUGIN_NAME_MAX) return false;
    for (size_t i = 0; i < n; ++i) {
        char c = name[i];
        if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            return false;
    }
    return strcmp(name, "_error_") != 0;
}

static bool is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* dlopen of the first candidate that exists and loads. The empty search
 * path (the current directory, where `.mim` files are looked up first) is
 * skipped: loading a library runs its code, so a library lying in whatever
 * directory `mim` runs in is only loaded when the user names that
 * directory (`-P .`; docs/decisions.md). */
static void *open_library(const char *name, const char *const *paths, size_t num_paths) {
    for (size_t i = 0; i < num_paths; ++i) {
        const char *dir = paths[i];
        if (!*dir) continue;
        char path[4096];
        for (int form = 0; form < 2; ++form) {
            int len = form == 0 ? snprintf(path, sizeof path, "%s/%s", dir, name)
                                : snprintf(path, sizeof path, "%s/libmim_%s.so", dir, name);
            if (len < 0 || (size_t)len >= sizeof path || !is_file(path)) continue;
            void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (h) return h;
        }
    }
    return NULL;
}

void *mim_plugin_library_open(const char *name, const char *const *paths, size_t num_paths) {
    return mim_plugin_name_valid(name) ? open_library(name, paths, num_paths) : NULL;
}

static int by_id(const void *x, const void *y) {
    uint64_t a = ((const MimNormalizerReg *)x)->id, b = ((const MimNormalizerReg *)y)->id;
    return (a > b) - (a < b);
}

/* The library's tables, or NULL with a message. */
static const MimPlugin *entry(void *h, const char *name, char *msg, size_t msg_size) {
    /* POSIX guarantees the object/function pointer conversion for dlsym. */
    char named[sizeof MIM_PLUGIN_ENTRY_PREFIX + MIM_PLUGIN_NAME_MAX];
    snprintf(named, sizeof named, "%s%s", MIM_PLUGIN_ENTRY_PREFIX, name);
    void *sym = dlsym(h, named);
    if (!sym) sym = dlsym(h, MIM_PLUGIN_ENTRY);
    MimGetPlugin get;
    if (!sym) {
        snprintf(msg, msg_size, "mim/plugin has no '%s()'", MIM_PLUGIN_ENTRY);
        return NULL;
    }
    memcpy(&get, &sym, sizeof get);
    const MimPlugin *p = get();
    if (!p) snprintf(msg, msg_size, "plugin '%s': %s() returned no plugin", name, MIM_PLUGIN_ENTRY);
    else if (p->abi != MIM_PLUGIN_ABI)
        snprintf(msg, msg_size, "plugin '%s' has ABI version %d, expected %d", name, p->abi, MIM_PLUGIN_ABI);
    else if (!p->name || strcmp(p->name, name) != 0)
        snprintf(msg, msg_size, "library of plugin '%s' calls itself '%s'", name, p->name ? p->name : "");
    else if ((p->num_normalizers && !p->normalizers) || (p->num_passes && !p->passes) ||
             (p->num_backends && !p->backends))
        snprintf(msg, msg_size, "plugin '%s' has a malformed table", name);
    else return p;
    return NULL;
}

/* `cannot open plugin 'x'`, and the closest name of a plugin library
 * `libmim_<name>.so` in the search directories (not the current one). */
static void not_found(const char *name, const char *const *paths, size_t num_paths, char *msg, size_t msg_size) {
    MimSuggest sug;
    mim_suggest_init(&sug, name);
    char best[MIM_PLUGIN_NAME_MAX + 1] = "";
    for (size_t i = 1; i < num_paths; ++i) {
        DIR *dir = opendir(paths[i]);
        for (struct dirent *de; dir && (de = readdir(dir));) {
            size_t len = strlen(de->d_name);
            if (len < 11 || strncmp(de->d_name, "libmim_", 7) != 0 || strcmp(de->d_name + len - 3, ".so") != 0)
                continue;
            char cand[MIM_PLUGIN_NAME_MAX + 1];
            if (len - 10 > MIM_PLUGIN_NAME_MAX) continue;
            memcpy(cand, de->d_name + 7, len - 10);
            cand[len - 10] = '\0';
            mim_suggest_offer(&sug, cand);
            if (sug.best == cand) { /* keep it: cand is reused */
                memcpy(best, cand, sizeof best);
                sug.best = best;
            }
        }
        if (dir) closedir(dir);
    }
    if (sug.best) snprintf(msg, msg_size, "cannot open plugin '%s'; did you mean '%s'?", name, sug.best);
    else snprintf(msg, msg_size, "cannot open plugin '%s'", name);
}

bool mim_registry_load(MimRegistry *r, const char *name, const char *const *paths,
                       size_t num_paths, char *msg, size_t msg_size) {
    if (!mim_plugin_name_valid(name)) {
        snprintf(msg, msg_size, "invalid plugin name '%s' (1 to 8 characters of [_a-zA-Z0-9])", name);
        return false;
    }
    if (mim_registry_is_loaded(r, name)) return true;
    void *h = mim_plugin_library_open(name, paths, num_paths);
    if (!h) {
        not_found(name, paths, num_paths, msg, msg_size);
        return false;
    }
    const MimPlugin *p = entry(h, name, msg, msg_size);
    if (!p) {
        dlclose(h);
        return false;
    }
    if (r->num_libs == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 8;
        r->libs = mim_xrealloc(r->libs, r->cap * sizeof *r->libs);
    }
    MimPluginLib *lib = &r->libs[r->num_libs++];
    memset(lib, 0, sizeof *lib);
    memcpy(lib->name, name, strlen(name) + 1);
    lib->handle = h;
    lib->plugin = p;
    if (p->num_normalizers) {
        lib->norms = mim_xmalloc(p->num_normalizers * sizeof *lib->norms);
        memcpy(lib->norms, p->normalizers, p->num_normalizers * sizeof *lib->norms);
        qsort(lib->norms, p->num_normalizers, sizeof *lib->norms, by_id);
    }
    return true;
}

bool mim_registry_is_loaded(const MimRegistry *r, const char *name) {
    for (size_t i = 0; i < r->num_libs; ++i)
        if (strcmp(r->libs[i].name, name) == 0) return true;
    return false;
}

const void *mim_registry_library_address(const MimRegistry *r, const char *name) {
    for (size_t i = 0; i < r->num_libs; ++i)
        if (strcmp(r->libs[i].name, name) == 0) return r->libs[i].plugin;
    return NULL;
}

MimNormalizer mim_registry_normalizer(const MimRegistry *r, uint64_t id) {
    MimNormalizerReg key = {id, NULL};
    for (size_t i = 0; i < r->num_libs; ++i) {
        const MimPluginLib *lib = &r->libs[i];
        if (!lib->norms) continue;
        const MimNormalizerReg *hit =
            bsearch(&key, lib->norms, lib->plugin->num_normalizers, sizeof key, by_id);
        if (hit) return hit->fn;
    }
    return NULL;
}

MimPassHandler mim_registry_pass(const MimRegistry *r, uint64_t id) {
    for (size_t i = 0; i < r->num_libs; ++i) {
        const MimPlugin *p = r->libs[i].plugin;
        for (size_t k = 0; k < p->num_passes; ++k)
            if (p->passes[k].id == id) return p->passes[k].fn;
    }
    return NULL;
}

MimBackendFn mim_registry_backend(const MimRegistry *r, const char *name) {
    for (size_t i = 0; i < r->num_libs; ++i) {
        const MimPlugin *p = r->libs[i].plugin;
        for (size_t k = 0; k < p->num_backends; ++k)
            if (p->backends[k].name && strcmp(p->backends[k].name, name) == 0) return p->backends[k].fn;
    }
    return NULL;
}

void mim_registry_free(MimRegistry *r) {
    for (size_t i = r->num_libs; i-- > 0;) {
        free(r->libs[i].norms);
        dlclose(r->libs[i].handle);
    }
    free(r->libs);
    memset(r, 0, sizeof *r);
}
