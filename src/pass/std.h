/* Shared pieces of the standard passes (opt.md §4): the common instance
 * layout with an optional link to another pass, and small helpers. */
#ifndef MIM_PASS_STD_H
#define MIM_PASS_STD_H

#include "ir/check.h"
#include "mim/pass.h"
#include "mim/ptrmap.h"

/* Every standard pass instance starts like this. */
typedef struct StdPass {
    MimPass base;
    MimPass *link; /* η-reduction / η-expansion instance it cooperates with */
} StdPass;

/* Does the internal_cleanup pass make this external lambda internal (its
 * name starts with `internal_`)? Also decides which externals are interface
 * helpers (helpers.c). */
bool mim_is_internal_helper(const MimDef *lam);

/* The return continuation's variable projection of a returning lambda (last
 * domain component a continuation type), or NULL. */
MimDef *mim_ret_var(MimWorld *w, MimDef *lam);
/* Does lam have one (mim_ret_var without building the projection)? */
bool mim_has_ret(MimWorld *w, const MimDef *lam);
/* The function type of lam as an immutable Pi (a mutable one is
 * immutabilized), or NULL if it is dependent. */
MimDef *mim_lam_imm_pi(MimWorld *w, MimDef *lam);
/* Number of components of a lambda's domain (1 if not a Σ of literal arity). */
uint64_t mim_dom_arity(MimWorld *w, MimDef *lam);
/* Filter and body of lam with its variable replaced by arg (NULL on error). */
bool mim_lam_instantiate(MimWorld *w, MimDef *lam, MimDef *arg, MimDef **filter, MimDef **body);
/* Is mut reachable from its own body (recursive)? Walks the program:
 * prefer mim_find_recursive for many queries. */
bool mim_is_recursive(MimWorld *w, MimDef *mut);
/* Maps every mutable reachable from the externals to (void *)1 if it lies
 * on a cycle of references (recursive), else to NULL (recursion.c). */
void mim_find_recursive(MimWorld *w, MimPtrMap *out);

/* Bookkeeping shared between passes. */
bool mim_beta_red_is_kept(MimPass *beta_red, const MimDef *lam);
bool mim_eta_red_is_irreducible(MimPass *eta_red, const MimDef *lam);

#endif
