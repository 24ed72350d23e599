/* Whole-World rewriting for plugin phases (e.g. matrix's low-level phase,
 * which turns tensor types into pointer types everywhere).
 *
 * mim_world_rewrite builds a fresh World (an heir of `old`: its gids
 * continue old's counter) holding old's annexes and externals, each node
 * rewritten once: through `hook` if it is given, which returns the node's
 * replacement built in mim_rewriter_world(rw), or calls mim_rewrite_default
 * for the standard copy. Operands are rewritten with mim_rewrite (memoized).
 * A mutable's copy is a new mutable of the rewritten type, so changing a
 * type changes every function that mentions it. This is the cleanup
 * (semantics.md §10.2) with a hook; the caller frees old (a phase's
 * `run` replaces *w by the result). NULL on error, with the diagnostics
 * in old's World. */
#ifndef MIM_REWRITE_H
#define MIM_REWRITE_H

#include "mim/api.h"

#include "mim/def.h"
#include "mim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct MimRewriter MimRewriter;
typedef MimDef *(*MimRewriteHook)(MimRewriter *rw, MimDef *old);

MIM_API MimWorld *mim_world_rewrite(MimWorld *old, MimRewriteHook hook, void *user);
/* The rewritten node (memoized; NULL stays NULL). */
MIM_API MimDef *mim_rewrite(MimRewriter *rw, MimDef *old);
/* What the rewriter does without a hook. */
MIM_API MimDef *mim_rewrite_default(MimRewriter *rw, MimDef *old);
MIM_API MimWorld *mim_rewriter_world(const MimRewriter *rw); /* where the new nodes go */
MIM_API void *mim_rewriter_user(const MimRewriter *rw);

#ifdef __cplusplus
}
#endif

#endif
