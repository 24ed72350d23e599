/* Internal interface of the checking half of the IR (check.c, infer.c, fv.c,
 * subst.c): α-equivalence, holes, free variables, substitution and rewriting.
 * Used by the construction half (world.c, constructors) and by later passes
 * (the -O1 cleanup and optimizer phases use the MimRewriter).
 * The public part (mim_alpha, mim_assignable, mim_hole, mim_resolve,
 * mim_subst, mim_reduce) is declared in include/mim/world.h; rebuilding of
 * immutables and stubs of mutables (mim_def_rebuild, mim_stub) come from the
 * construction half (ir/build.h). */
#ifndef MIM_IR_CHECK_H
#define MIM_IR_CHECK_H

#include "ir/build.h"
#include "ir/ir.h"
#include "ir/world_impl.h"
#include "mim/ptrmap.h"
#include "mim/vec.h"
#include "mim/xalloc.h"

#include <stdint.h>
#include <stdlib.h>

typedef MIM_VEC(MimDef *) MimDefVec;

/* ---- World lifecycle (mim_world_free calls fini) ------------------------- */
/* The checking section of a World is valid when zero-initialised. fini
 * releases all memory owned by the checking code. */
void mim_check_world_fini(MimWorld *w);
void mim_fv_world_fini(MimWorld *w);    /* part of mim_check_world_fini */
void mim_subst_world_fini(MimWorld *w); /* part of mim_check_world_fini */

/* The reduction cache as data, for World images (image.c): an entry's
 * reduct, and the way to put an entry back. */
void mim_reduct_get(const void *reduct, uintptr_t *gen, size_t *n, MimDef *const **ops);
void mim_reduce_cache_put(MimWorld *w, MimDef *binder, MimDef *arg, uintptr_t gen,
                          MimDef *const *ops, size_t n);

/* ---- holes (infer.c, semantics.md §7) ------------------------------------ */
/* True iff d is an Infer node whose solution is unset. */
bool mim_is_open_hole(const MimDef *d);
/* Make the open hole `hole` point to `sol` (no checks; invalidates the free
 * variables of everything computed through the hole). */
void mim_hole_solve(MimWorld *w, MimDef *hole, MimDef *sol);
/* Union two distinct open holes by rank (the lighter points to the heavier). */
void mim_hole_union(MimWorld *w, MimDef *h1, MimDef *h2);
/* An open hole whose type is a sigma or array of literal arity n >= 2 (at
 * most a few hundred) is solved by a tuple of n fresh holes of the element
 * types, so that its projections can be solved one by one (an implicit
 * group `{A B: *}` is one such hole). Returns that tuple, or NULL (hole
 * untouched) if its type has no such shape or a constructor failed. */
MimDef *mim_hole_tuplefy(MimWorld *w, MimDef *hole);
/* Whether hole or a hole its chain of solutions leads through (as stored,
 * before path compression) was split by mim_hole_tuplefy. */
bool mim_hole_is_split(const MimDef *hole);
/* §7.2: rebuild the immutable parts of d that contain solved holes, bottom-up
 * through the World constructors (renormalizing); solved holes are replaced
 * by their (recursively eliminated) solutions. Mutables are kept. Returns d
 * itself if nothing changed, NULL if a constructor failed. */
MimDef *mim_eliminate_holes(MimWorld *w, MimDef *d);

/* ---- free variables (fv.c, semantics.md §6) ------------------------------ */
/* The Var node of a binder if it was created (NULL if never requested or if
 * the binder's variable is the literal 0₁). */
MimDef *mim_mut_has_var(const MimDef *mut);
/* Must be called whenever operands of a mutable are set, reset or unset
 * (hole solving calls it itself): drops the cached free variables of `mut`
 * and of every mutable whose free variables were computed through it, and the
 * cached reductions (mim_reduce, mim_beta) of `mut`. */
void mim_fv_invalidate(MimWorld *w, MimDef *mut);
/* Free variables of a mutable: sorted by gid, owned by the cache, valid until
 * the next invalidation. An unset mutable has none. */
MimDef *const *mim_mut_free_vars(MimWorld *w, MimDef *mut, size_t *n);
/* Free variables of any node, appended to `out` sorted by gid. */
void mim_free_vars(MimWorld *w, MimDef *d, MimDefVec *out);
bool mim_has_free_var(MimWorld *w, MimDef *d, MimDef *var);
bool mim_is_closed(MimWorld *w, MimDef *d);

/* ---- α-equivalence (check.c) --------------------------------------------- */
/* Two distinct nodes that strict α-equivalence (without inference) tells
 * apart by a look at them alone: free of holes, of different kinds (none
 * that may stand for another: tuples, packs, sigmas, arrays, ⊤, umax), or
 * projections of one tuple at two different literal indices. false: maybe
 * equivalent (mim_alpha decides). */
bool mim_quick_differ(const MimDef *a, const MimDef *b);

/* ---- rewriting (subst.c, semantics.md §10.2) ----------------------------- */
/* MimRewriter, MimRewriteHook, mim_rewrite and mim_rewrite_default are
 * public (mim/rewrite.h). Per-node hook: return the rewritten node (NULL =
 * error). A hook may call mim_rewrite_default (or _imm/_mut) for the
 * standard behaviour ("super call"). The result is memoized by mim_rewrite. */
#include "mim/rewrite.h"

/* What a rewriter knows of one old node (side-table mode, see below). */
typedef struct MimRewriteRec {
    MimDef *old, *new_, *stub;
    bool pending;
} MimRewriteRec;

struct MimRewriter {
    MimWorld *src, *dst; /* may be the same World */
    MimPtrMap map;       /* old -> new, memo of this run */
    MimPtrMap stubs;     /* old mutable -> its stub (even if immutabilized later) */
    MimPtrMap pending;   /* old mutables whose type is being rewritten (no stub yet) */
    /* Side-table mode (mim_rewriter_use_side_table): the three maps above
     * are replaced by records indexed from the old nodes (MimDef.scratch). */
    bool side;
    MIM_VEC(MimRewriteRec) recs;
    MimRewriteHook hook; /* NULL = mim_rewrite_default */
    void *user;
    int rules; /* MIM_APP_RULES read on first use: 0 unread, else a RuleMode (subst.c) */
    /* Between Worlds, the last source file name and its copy interned in
     * dst (nodes come in runs from one file: one lookup per run). */
    const char *file_src, *file_dst;
    /* Names of src interned in dst, a small direct-mapped cache (a few
     * dozen distinct names cover most nodes), allocated on first use. */
    struct MimNameCopy {
        MimSym src, dst;
    } *names;
};

void mim_rewriter_init(MimRewriter *rw, MimWorld *src, MimWorld *dst, MimRewriteHook hook,
                       void *user);
void mim_rewriter_fini(MimRewriter *rw);
/* For rewriting a whole World into another one (the cleanup): keeps what
 * the rewriter knows of each old node in a table indexed from the node
 * itself (MimDef.scratch) instead of hash maps, which a big World turns into
 * cache misses. Only while nothing else indexes src's nodes (no pass manager
 * runs over src), and before anything was rewritten. */
void mim_rewriter_use_side_table(MimRewriter *rw, size_t expected_nodes);
/* mim_rewrite (mim/rewrite.h): resolve holes, memo lookup, hook. */
/* Record old -> new (e.g. to seed a substitution); returns new. */
MimDef *mim_rewriter_map(MimRewriter *rw, MimDef *old, MimDef *new_);
/* mim_rewrite_default (mim/rewrite.h): mutables via mim_rewrite_mut,
 * others via mim_rewrite_imm. */
/* Rebuild an immutable from rewritten type/operands (mim_def_rebuild); an
 * Extract with a literal rewritten index from a Tuple (or from an immutable
 * Pack of constant shape) only rewrites the selected element (§10.1 branch
 * short-circuit); a Var follows its binder's stub. */
MimDef *mim_rewrite_imm(MimRewriter *rw, MimDef *old);
/* Stub the mutable with the rewritten type (mim_stub), map it, set its
 * rewritten operands, then immutabilize if possible (5.4). */
MimDef *mim_rewrite_mut(MimRewriter *rw, MimDef *old);

/* ---- substitution (subst.c, semantics.md §10.1) -------------------------- */
typedef struct MimSubst {
    MimRewriter rw;
    MimPtrMap vars; /* set of the Var nodes being substituted */
    /* Immutables that an earlier run of the same substitution over the same
     * body with another argument left unchanged (mim_subst_kept), or NULL. */
    const MimPtrMap *kept;
    /* First storage of rw.map and vars (most substitutions are small): a
     * MimSubst must not be copied after mim_subst_init. */
    MimPtrMapSlot map_buf[MIM_MAP_INLINE], vars_buf[MIM_MAP_INLINE];
} MimSubst;

/* One substitution run var := arg (var must be a Var node); several nodes
 * rewritten with the same run share the memo. */
void mim_subst_init(MimSubst *s, MimWorld *w, MimDef *var, MimDef *arg);
MimDef *mim_subst_rewrite(MimSubst *s, MimDef *e);
void mim_subst_fini(MimSubst *s);
/* mim_subst for one of several arguments of the same variable over the same
 * body e (the elements of a Pack or Arr, mim_seq_body_at_kept): *kept
 * (empty at first) collects the immutables a run left unchanged, and later
 * runs return them at once instead of walking them again. Such a node does
 * not contain the variable where a rewrite can reach it, whatever the
 * argument. */
MimDef *mim_subst_kept(MimWorld *w, MimDef *e, MimDef *mut, MimDef *arg, MimPtrMap *kept);

/* β-reduction of a mutable Lam (semantics.md §4.13 step 5, §10.3): if lam is
 * a set mutable Lam whose filter is not ff, substitute lam's variable by arg
 * in the filter; only if the result is the literal tt, also substitute the
 * body with the same memo, cache (lam, arg) -> reduct like mim_reduce, and
 * store the reduced body in *body. A Lam without a variable reduces iff its
 * filter is tt. Returns 1 if reduced, 0 if not, -1 on error. */
int mim_beta(MimWorld *w, MimDef *lam, MimDef *arg, MimDef **body);

#endif
