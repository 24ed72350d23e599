/* Internal construction API of the IR (owner: world.c and the build code),
 * shared with the checking half (substitution, hole elimination), the
 * printer and the front end where they need more than include/mim/world.h.
 *
 * Conventions of every function here: operands are seen through hole
 * resolution (mim_res), NULL in gives NULL out without a diagnostic, errors
 * are recorded with mim_err and give NULL. */
#ifndef MIM_IR_BUILD_H
#define MIM_IR_BUILD_H

#include "ir/ir.h"
#include "ir/print.h"
#include "ir/world_impl.h"

#include <stddef.h>

/* ---- printing for diagnostics (printer: src/ir/print.c) ---------------- */
/* mim_def_to_str (ir/print.h) as a string owned by a small per-World ring
 * buffer: valid until 8 more calls. For message arguments. */
const char *mim_str(MimWorld *w, const MimDef *d);

/* Record a message at the World's current location; ignored while frozen
 * (a frozen World only looks nodes up, it never reports). */
void mim_err(MimWorld *w, const char *fmt, ...) MIM_PRINTF(2, 3);
void mim_note(MimWorld *w, const char *fmt, ...) MIM_PRINTF(2, 3);

/* ---- node allocation (world.c) -------------------------------------------- */
/* Hash-cons the immutable (node, type, flags, ops): returns the existing
 * equal node or a new one (consuming a gid either way, semantics.md §1.2).
 * Frozen: lookup only, NULL if absent, gid counter untouched. No
 * normalization, no checks. type may be NULL only for Univ and Type. */
MimDef *mim_unify(MimWorld *w, MimNode node, MimDef *type, uint64_t flags,
                  MimDef *const *ops, size_t n);
/* Enters d, an immutable built outside mim_unify (a node read from an
 * image: type and operands final, in the World), into the hash table with
 * its hash; false if an equal node is there. Gids are left alone. */
bool mim_world_enter(MimWorld *w, MimDef *d);
/* A fresh mutable with n unset operands (NULL while frozen). */
MimDef *mim_alloc_mut(MimWorld *w, MimNode node, MimDef *type, uint64_t flags, size_t n);
/* Dependency bits of a node from its kind, type and operands (def.c). */
unsigned mim_dep_compute(const MimDef *d);

/* ---- hole resolution shortcut ----------------------------------------- */
/* Only nodes with the Infer dependency can be or contain holes. */
static inline MimDef *mim_res(MimWorld *w, MimDef *d) {
    return d && (d->dep & MIM_DEP_INFER) ? mim_resolve(w, d) : d;
}

/* ---- queries used across the build code ------------------------------- */
/* Type of d, resolved; for `Type l` it is built on demand (semantics.md §3):
 * Type (l+1). NULL for Univ (and, frozen, if that node does not exist). */
MimDef *mim_type_of(MimWorld *w, MimDef *d);
/* mim_type_of for a node used as a term or type: the universe has no type, so
 * using it there records "… has no type" instead of failing silently. */
MimDef *mim_type_of_checked(MimWorld *w, MimDef *d);
/* s if T is `Idx s` (through resolution), else NULL. */
MimDef *mim_idx_size(MimWorld *w, MimDef *T);
/* Literal value of d (through resolution). */
bool mim_is_lit(MimDef *d, uint64_t *value);
/* The `umax` of the levels of the sorts of types[0..n) (semantics.md §3),
 * wrapped as `Type (…)`: the sort of a Pi or Sigma. */
MimDef *mim_sort_of_types(MimWorld *w, MimDef *const *types, size_t n);
/* Application with curry counters and the normalizer hook (§4.13, §11), no
 * type check or β-reduction. */
MimDef *mim_app_normalize(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg);
/* Body of an Arr/Pack binder instantiated with index i (the body itself if
 * immutable). */
MimDef *mim_seq_body_at(MimWorld *w, MimDef *seq, MimDef *i);
/* The same for several indices in turn, sharing *kept (mim_subst_kept). */
MimDef *mim_seq_body_at_kept(MimWorld *w, MimDef *seq, MimDef *i, MimPtrMap *kept);

/* Completion checks, run when the last operand of a mutable is set (§5.1):
 * return the node's (possibly recomputed) type, or NULL on a type error. */
MimDef *mim_complete_pi(MimWorld *w, MimDef *pi);
MimDef *mim_complete_lam(MimWorld *w, MimDef *lam);
MimDef *mim_complete_sigma(MimWorld *w, MimDef *sigma);
MimDef *mim_complete_arr(MimWorld *w, MimDef *arr);

/* ---- rewriting support (rebuild.c) -------------------------------------- */
/* Rebuild immutable d (of any World) in w with a new type and operands
 * through the normalizing constructors (substitution, hole elimination,
 * whole-program rewriting). type is ignored for kinds whose type is
 * inferred. */
MimDef *mim_def_rebuild(MimWorld *w, MimDef *d, MimDef *type, MimDef *const *ops);
/* A stub of mutable m in w (semantics.md §5.5): same kind, operand count,
 * flags and name, given type, operands unset. */
MimDef *mim_stub(MimWorld *w, MimDef *m, MimDef *type);

/* Scratch arrays of definitions: on the stack up to 16, else on the heap. */
#define MIM_SCRATCH(name, n)                                                             \
    MimDef *name##_small_[16] = {NULL};                                                  \
    MimDef **name = (n) <= 16 ? name##_small_ : mim_xmalloc((n) * sizeof(MimDef *))
#define MIM_SCRATCH_FREE(name)                                                           \
    do {                                                                                 \
        if (name != name##_small_) free(name);                                           \
    } while (0)

#endif
