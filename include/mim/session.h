/* A session: a World together with the plugins it uses, for DSL compilers
 * that embed libmim instead of running the `mim` command line.
 *
 *     MimSession *s = mim_session_new(NULL, 0);
 *     mim_session_plugin(s, "core");            // interface + library
 *     if (!mim_session_build(s)) { mim_session_print_diag(s, stderr); ... }
 *     MimWorld *w = mim_session_world(s);
 *     MimDef *minus = mim_annex(w, MIM_core_minus);   // ids: generated headers
 *     ... build nodes with world.h: normalizers of loaded plugins fire ...
 *     mim_session_optimize(s, 2);                // optional: -O2 pipeline
 *     mim_session_emit(s, "ll", out);            // optional: LLVM IR
 *     mim_session_free(s);
 *
 * A session is built once: name the plugins (and optionally one Mim source
 * text), then mim_session_build parses, binds and emits them exactly as the
 * driver does (cli.md §3 steps 4–8): `compile` first, the named plugins in
 * order, `opt` last if it was named, then the program. Plugin libraries stay
 * loaded until mim_session_free.
 *
 * A call out of order (a plugin or source after build, optimize or emit
 * before build, optimize twice, a level outside 0–2) returns false with an
 * error in the session's diagnostics and changes nothing else: the session
 * stays usable. */
#ifndef MIM_SESSION_H
#define MIM_SESSION_H

#include "mim/api.h"

#include "mim/loc.h"
#include "mim/world.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct MimSession MimSession;

/* Plugin search directories in priority order (like -P); then
 * MIM_PLUGIN_PATH, then the `mim` directory next to the libmim shared
 * library, then <install prefix>/lib/mim. The current directory is searched
 * for libraries only if it is given here ("."). */
MIM_API MimSession *mim_session_new(const char *const *plugin_dirs, size_t num_dirs);
MIM_API void mim_session_free(MimSession *s);

/* Requests plugin `name` (its library and NAME.mim). Before build only. */
MIM_API bool mim_session_plugin(MimSession *s, const char *name);
/* Adds Mim source text as the session's program (at most one; it may itself
 * `import`/`plugin` further files). `path` names it in diagnostics. */
MIM_API bool mim_session_source(MimSession *s, const char *path, const char *text, size_t len);
/* Parses, binds, loads the requested libraries and emits everything into the
 * World. Returns false on any error (see mim_session_print_diag). */
MIM_API bool mim_session_build(MimSession *s);

/* The optimizer of `mim -O<level>` (cli.md §3), once, after build: 0 = none,
 * 1 = the cleanup, 2 = the program's compilation pipeline (`_compile`, else
 * opt's `_default_compile`). Level 2 needs `opt` emitted before the program,
 * as `mim -O2` does; if it was not named, the build is redone with it when
 * the World is as the build left it (the earlier World and its nodes stay
 * valid until mim_session_free), and refused otherwise. The result is the
 * program `mim -O<level>` makes of the same source. Afterwards
 * mim_session_world returns the optimized World. */
MIM_API bool mim_session_optimize(MimSession *s, int level);
/* Runs the back end registered under `name` by a loaded plugin (e.g. "ll"
 * from core: textual LLVM IR) on the current World. */
MIM_API bool mim_session_emit(MimSession *s, const char *backend, FILE *out);

MIM_API MimWorld *mim_session_world(MimSession *s);
MIM_API bool mim_session_is_loaded(const MimSession *s, const char *plugin);
/* Prints front-end and World diagnostics (`file:row:col: error: …`, each
 * with its source line and a caret under the range, no colours). */
MIM_API void mim_session_print_diag(MimSession *s, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
