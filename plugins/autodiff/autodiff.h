/* Shared by the autodiff plugin's normalizers and passes. */
#ifndef MIM_PLUGIN_AUTODIFF_INTERNAL_H
#define MIM_PLUGIN_AUTODIFF_INTERNAL_H

#include "mim/plugin.h"
#include "mim/plugin/autodiff.h"
#include "mim/plugin/core.h"
#include "mim/plugin/math.h"
#include "mim/plugin/mem.h"
#include "mim/pass.h"
#include "mim/ptrmap.h"
#include "mim/xalloc.h"

/* AD(T) of autodiff.md §3, or NULL where it is undefined. */
MimDef *autodiff_type(MimWorld *w, MimDef *T);
MimDef *autodiff_pair_type(MimWorld *w, MimDef *a, MimDef *b);
/* T is `Idx s` */
bool autodiff_is_idx(MimWorld *w, MimDef *T);
/* `%autodiff.add T (a, b)` */
MimDef *autodiff_add(MimWorld *w, MimDef *T, MimDef *a, MimDef *b);
/* Derivatives of the %math axioms and %core.wrap.sub (diff_math.c):
 * whether a fully applied call is one (NONE: no rule here), and the
 * tangent of its argument x for the output tangent s, given its augmented
 * result r. */
typedef enum AdMathKind { AD_MATH_NONE, AD_MATH_NOT, AD_MATH_ZERO, AD_MATH_TANGENT } AdMathKind;
AdMathKind autodiff_math_kind(MimDef *app);
MimDef *autodiff_math_tangent(MimWorld *w, MimDef *app, MimDef *x, MimDef *r, MimDef *s);
/* Forward mode (jvp.c): f_jvp for `%autodiff.jvp f`, memoized in memo
 * (f ↦ f on failure); busy is scratch for recursion. */
/* eval.c: the located error `autodiff: cannot differentiate MODEWHAT 'old'`
 * (mode "" or e.g. "(forward mode) "); whether T is a continuation type. */
void autodiff_cannot(MimPass *p, MimLoc loc, const char *mode, const char *what, MimDef *old);
bool autodiff_is_cn(MimWorld *w, MimDef *T);
/* A returning CPS function `Cn [A, Cn R]` (*n = 0), or flattened
 * `Cn [D₁, …, Dₙ, Cn R]` with n ≥ 2 and R not itself a function
 * (*A = [D₁, …, Dₙ], *n = n). */
bool autodiff_fn_parts(MimWorld *w, MimDef *T, MimDef **A, MimDef **R, size_t *n);

MimDef *autodiff_jvp(MimPass *p, MimPtrMap *memo, MimPtrMap *busy, MimDef *f);
/* Reverse mode over memory (vjp.c): f_vjp for `%autodiff.vjp f`, memoized
 * in memo (f ↦ f on failure); copies holds the forward copies of nested
 * functions, realloc_decl[0..2] the declarations of the tape runtime's
 * mim_rt_tape_grow, C's calloc and mim_rt_tape_free (NULL at first). */
MimDef *autodiff_vjp(MimPass *p, MimPtrMap *memo, MimPtrMap *copies, MimDef **realloc_decl, MimDef *f);
/* f_vjp for a call passing ⊥ as the shadows of the pointer arguments in
 * the bit set inactive (bit i: component i of f's arguments): their
 * adjoints are not computed (Enzyme's constant arguments); memo is this
 * specialization's own. */
MimDef *autodiff_vjp_inactive(MimPass *p, MimPtrMap *memo, MimPtrMap *copies, MimDef **realloc_decl, MimDef *f,
                              uint64_t inactive);
/* autodiff_eval (§5.1, eval.c) */
extern const MimPassClass autodiff_eval_class;

#endif
