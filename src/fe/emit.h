/* The Mim emitter: translates bound ASTs (fe/ast.h) into World nodes,
 * following the desugarings of language.md §5 and the construction order of
 * semantics.md §13 (which determines names and gids in printed output).
 *
 * Use (after mim_fe_bind succeeded), once per module in mim_fe_module order:
 *     for (i < mim_fe_num_modules(fe))
 *         if (!mim_emit_module(w, mim_fe_module(fe, i))) { print mim_world_diag(w); fail; }
 * Emission stops at the first type error; it is recorded in the World's
 * diagnostics (mim_world_diag), as are front-end errors of emission time and
 * warnings. The emitter writes the AST's `binder->def` slots. */
#ifndef MIM_FE_EMIT_H
#define MIM_FE_EMIT_H

#include "fe/ast.h"
#include "mim/world.h"

#include <stdbool.h>

/* Connection to the plugin libraries (a later issue). Every field may be
 * NULL. */
typedef struct MimEmitHooks {
    /* Is the library of `plugin` loaded? Annexes (semantics.md §12.3) are
     * registered in the World only then. If NULL, the default rule is: an
     * annex %p.… is registered iff it is declared in the module named `p`
     * and that module's plugin library was requested (never in bootstrap
     * mode). */
    bool (*plugin_loaded)(void *user, MimSym plugin);
    /* Normalizer for the axiom with the full annex id `id`, or NULL. Only
     * asked if the plugin's library is loaded. */
    MimNormalizer (*normalizer)(void *user, uint64_t id);
    void *user;
} MimEmitHooks;

/* Emit the declarations of module m (its imports are separate modules,
 * emitted before it by the caller). Returns false at the first error. */
bool mim_emit_module(MimWorld *w, MimAstModule *m);
bool mim_emit_module_with(MimWorld *w, MimAstModule *m, const MimEmitHooks *hooks);

/* Emission of module m one top-level declaration at a time, as the parser
 * hands them on (the input streamed by fe.h's mim_fe_stream_input): begin,
 * then decl for each declaration in order while it returns true, then end,
 * whose result is that of mim_emit_module_with for the declarations given.
 * text_len (the bytes of m's source) sizes the World's table in advance. */
typedef struct MimEmitStream {
    MimWorld *w;
    MimAstModule *module;
    const MimEmitHooks *hooks;
    unsigned errors; /* World errors before begin */
    bool ok;         /* no declaration failed */
    unsigned reeval_depth;
    uint64_t reeval_gids;
} MimEmitStream;
void mim_emit_stream_begin(MimEmitStream *s, MimWorld *w, MimAstModule *m, const MimEmitHooks *hooks,
                           size_t text_len);
bool mim_emit_stream_decl(MimEmitStream *s, MimAstDecl *d);
bool mim_emit_stream_end(MimEmitStream *s);

/* The binders of m's top-level declarations (the names later modules can
 * see), in declaration order; fn(user, binder) for each. */
void mim_emit_top_binders(MimAstModule *m, void (*fn)(void *user, MimBinder *b), void *user);

/* For modules whose nodes came from a prelude image instead of emission
 * (driver/prelude.c): what emitting their axioms would have noted about
 * each annex (whether it is a function type), so later declarations of the
 * same annex are checked as usual. */
void mim_emit_restore_annexes(MimWorld *w, MimAstModule *m);

/* What emission remembers of an annex (0 nothing, 1 declared with a
 * function type, 2 with another type), for skeleton modules (fe/skeleton.c). */
int mim_emit_annex_mark(const MimAnnex *a);
void mim_emit_set_annex_mark(MimAnnex *a, int mark);

#endif
