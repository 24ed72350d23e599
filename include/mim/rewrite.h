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

/* Rewrite rules of applications: a plugin may take over the rewrite of the
 * fully applied calls of one of its axioms (annex id `id`) *before* their
 * operands are rewritten, e.g. to rebuild a long nested chain of calls in
 * one step instead of renormalizing every level of it. The rule is asked
 * for an old call `old` (a node of the source World); it returns false to
 * leave the call to the generic rewrite, or true with *res set to the
 * rewritten node (NULL on error). Its result must be exactly the node the
 * generic rewrite would give (the operands rewritten with mim_rewrite and
 * the call rebuilt through the normalizing constructors); it may build
 * fewer intermediate nodes. A rule is registered in a World (typically by
 * the plugin's normalizer that builds such calls; registering again
 * replaces it) and inherited by the World's heirs (the cleanup's copy).
 * Rules are used by rewriters without a per-node hook (the cleanup, plain
 * mim_world_rewrite): with a hook, any node of a chain may be the hook's
 * business. The environment variable MIM_APP_RULES=off disables them,
 * MIM_APP_RULES=check also runs the generic rewrite of every call a rule
 * handled and fails with an error showing both if the two nodes differ
 * (tests). */
typedef bool (*MimAppRule)(MimRewriter *rw, MimDef *old, MimDef **res);
MIM_API void mim_world_set_app_rule(MimWorld *w, uint64_t id, MimAppRule rule);
MIM_API void *mim_rewriter_user(const MimRewriter *rw);

#ifdef __cplusplus
}
#endif

#endif
