/* The plugin libraries of one run (cli.md §4.2): lookup along the search
 * paths, dlopen, entry point and ABI checks, and the tables the libraries
 * register (normalizers by annex id, passes by annex id, back ends by name).
 * Libraries stay open until mim_registry_free, which must run after every
 * World that may call into them has been freed. */
#ifndef MIM_DRIVER_LOAD_H
#define MIM_DRIVER_LOAD_H

#include "mim/plugin.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct MimPluginLib {
    char name[9];            /* validated plugin name */
    void *handle;            /* dlopen handle */
    const MimPlugin *plugin; /* the library's static tables */
    MimNormalizerReg *norms; /* copy of plugin->normalizers sorted by id */
} MimPluginLib;

typedef struct MimRegistry {
    MimPluginLib *libs; /* in load order */
    size_t num_libs, cap;
} MimRegistry;

/* Loads the library of plugin `name` from the first search path D where
 * `D/<name>` or `D/libmim_<name>.so` is a loadable file (the empty path "",
 * the current directory, is skipped: it is searched only as ".", -P .); a second load of the same name is a no-op. On an error
 * (invalid name, no library found, no entry point, ABI or name mismatch)
 * returns false with the message text (without "error: ") in msg; the caller
 * reports it, located at a `plugin` directive or unlocated. */
bool mim_registry_load(MimRegistry *r, const char *name, const char *const *paths,
                       size_t num_paths, char *msg, size_t msg_size);
/* Whether `name` can name a plugin: 1 to MIM_PLUGIN_NAME_MAX characters of
 * [_a-zA-Z0-9], only what fits into an annex id (semantics.md §12.1). */
#define MIM_PLUGIN_NAME_MAX 8
bool mim_plugin_name_valid(const char *name);
/* The dlopen handle of the library of plugin `name`, found as by
 * mim_registry_load (no entry point or ABI checks), or NULL. */
void *mim_plugin_library_open(const char *name, const char *const *paths, size_t num_paths);
bool mim_registry_is_loaded(const MimRegistry *r, const char *name);
/* An address inside the library of plugin `name` (its static tables), or
 * NULL if it is not loaded: tells which file the library came from. */
const void *mim_registry_library_address(const MimRegistry *r, const char *name);
/* Normalizer registered for the full annex id, or NULL. */
MimNormalizer mim_registry_normalizer(const MimRegistry *r, uint64_t id);
/* Pass handler registered for the base id of a pass axiom, or NULL. */
MimPassHandler mim_registry_pass(const MimRegistry *r, uint64_t id);
/* Back end registered under name (e.g. "ll"), or NULL. */
MimBackendFn mim_registry_backend(const MimRegistry *r, const char *name);
/* dlclose every library (in reverse load order) and free the registry. */
void mim_registry_free(MimRegistry *r);

#endif
