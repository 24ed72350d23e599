/* Internal interface between the parts of the emitter: emit.c
 * (declarations, entry points), emit_ptrn.c (patterns), emit_fun.c
 * (functions and Pi types) and emit_expr.c (expressions).
 *
 * Error convention: every emit function returns the node it built, or NULL
 * after an error has been recorded in the World's diagnostics (by a World
 * constructor or by the emitter itself). Callers stop at the first NULL. */
#ifndef MIM_FE_EMIT_IMPL_H
#define MIM_FE_EMIT_IMPL_H

#include "fe/emit.h"
#include "ir/world_impl.h" /* MimWorld.loc */

typedef struct Emitter {
    MimWorld *w;
    MimAstModule *module;
    const MimEmitHooks *hooks;
    /* Binding a `let` or `ret` pattern evaluates its type annotations
     * (semantics.md §13) and discards them: only their errors count. The
     * reference repeats this for every pattern nested in the annotation, at
     * a cost exponential in the nesting depth. Here an annotation is
     * evaluated only if it has at most EMIT_REEVAL_SIZE AST nodes, at most
     * EMIT_REEVAL_DEPTH such evaluations are nested, and they so far
     * consumed at most twice as many gids as everything else (plus
     * EMIT_REEVAL_SLACK): pathological nesting costs at most three times
     * the normal work. */
    unsigned reeval_depth;
    uint64_t reeval_gids; /* gids consumed by outermost re-evaluations */
} Emitter;

enum { EMIT_REEVAL_DEPTH = 2, EMIT_REEVAL_SIZE = 32, EMIT_REEVAL_SLACK = 4096 };

/* ---- emit.c: shared helpers ---- */
/* The World's location for new nodes and diagnostics; push returns the
 * previous one. Inline: emission sets it around every construct. */
static inline MimLoc emit_push_loc(Emitter *e, MimLoc loc) {
    MimLoc old = e->w->loc;
    e->w->loc = loc;
    return old;
}

static inline void emit_pop_loc(Emitter *e, MimLoc old) { e->w->loc = old; }
/* A front-end error of emission time; always returns NULL. */
MimDef *emit_error(Emitter *e, MimLoc loc, const char *fmt, ...) MIM_PRINTF(3, 4);
void emit_warning(Emitter *e, MimLoc loc, const char *fmt, ...) MIM_PRINTF(3, 4);
/* `Type ?` (a level hole) and `? : Type ?` (a type hole). */
MimDef *emit_type_hole_univ(Emitter *e);
MimDef *emit_hole_type(Emitter *e);
/* Bind `b` to `def` and name def `b` if it has no name yet (anon: nothing). */
void emit_bind(Emitter *e, MimBinder *b, MimDef *def);
/* Register def as annex base|sub if the plugin's library is loaded. */
void emit_register_annex(Emitter *e, MimAnnex *annex, unsigned sub, MimDef *def);
/* A user of a name whose binder has no node: only possible after a bug. */
MimDef *emit_unbound(Emitter *e, MimLoc loc, MimSym sym);
/* Declarations in order (where-blocks: reversed). */
bool emit_decls(Emitter *e, MimAstDecl *const *decls, size_t n, bool reverse);

/* ---- emit_expr.c ---- */
MimDef *emit_expr(Emitter *e, MimAstExpr *x);

/* ---- emit_ptrn.c ---- */
/* The pattern as a type (semantics.md §13): a tuple pattern becomes a
 * mutable sigma whose element names are bound to projections of its
 * variable, then immutabilized. */
MimDef *emit_ptrn_type(Emitter *e, MimAstPtrn *p);
/* Fill the given (rec-declared) mutable sigma from tuple pattern p. */
MimDef *emit_ptrn_sigma_body(Emitter *e, MimAstPtrn *p, MimDef *sigma);
/* Bind the names of p to v and its projections (naming unnamed nodes),
 * after evaluating p's annotations for their errors (the pattern of a let
 * or ret). Returns false on error. */
bool emit_ptrn_value(Emitter *e, MimAstPtrn *p, MimDef *v);
/* The same for a pattern whose type was emitted already (a parameter):
 * its annotations are not evaluated again. */
bool emit_ptrn_bind(Emitter *e, MimAstPtrn *p, MimDef *v);
/* May expression x (the annotations of pattern q) use a name that pattern p
 * introduces? false only if certainly not. */
bool emit_expr_may_use(const MimAstExpr *x, const MimAstPtrn *p);
bool emit_ptrn_may_use(const MimAstPtrn *q, const MimAstPtrn *p);
/* The immutable sigma of `types`, with the errors of a mutable sigma's
 * completion (the element types must be types). */
MimDef *emit_sigma(Emitter *e, MimDef *const *types, size_t n);
/* Number of sigma elements of a tuple pattern (groups count per member). */
size_t emit_ptrn_arity(const MimAstPtrn *p);

/* ---- emit_fun.c ---- */
/* Pi type expression; `decl` is the mutable Pi created by a rec
 * declaration for the first domain, or NULL. */
MimDef *emit_pi_expr(Emitter *e, MimAstExpr *x, MimDef *decl);
/* Phase 1 of a function (declaration or expression): Pi chains, Lams,
 * parameter bindings and filters; binds the function's name. Returns the
 * first Lam and stores the last one in *last. */
MimDef *emit_fun_head(Emitter *e, MimAstFun *f, MimDef **last);
/* Phase 2: body of the last Lam, external, annex. */
bool emit_fun_body(Emitter *e, MimAstFun *f, MimDef *first, MimDef *last);
MimDef *emit_ret(Emitter *e, MimAstExpr *x);

#endif
