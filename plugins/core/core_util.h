/* Helpers shared by the normalizers of the core plugin (plugins/core.md §4):
 * literals and bit widths of `Idx s`, ⊥ tests, operand pairs, the canonical
 * operand order, and building further core calls through normalizing
 * application. Internal to the plugin (hidden visibility). */
#ifndef MIM_CORE_UTIL_H
#define MIM_CORE_UTIL_H

#include "mim/plugin.h"
#include "mim/plugin/core.h"

#include <stdbool.h>
#include <stdint.h>

/* Annexes of other plugins that core's normalizers inspect (ids per
 * semantics.md §12; see docs/plugin-interfaces.md). */
#define CORE_MEM_PTR 0x3863800000000100ull  /* %mem.Ptr */
#define CORE_MATH_F 0x3825490000000000ull   /* %math.F */
#define CORE_MATH_CMP 0x3825490000001a00ull /* %math.cmp (base) */

/* The k-th curried argument of callee counted from the head (0 = first). */
MimDef *core_callee_arg(const MimDef *callee, size_t k);

bool core_lit(const MimDef *d, uint64_t *v);
bool core_is_lit_val(const MimDef *d, uint64_t v);
bool core_is_bot(const MimDef *d);

/* Bit width of Idx s (§4.1): 64 for s = 0, else bit_width(s - 1). */
unsigned core_width(uint64_t s);
/* Width used by folding: w for w ∈ {1, 8, 16, 32, 64}, else 64 (§4.1). */
unsigned core_fold_width(uint64_t s);
/* Is the Idx size literal a power of two (or 0 = 2^64), so that s - 1 has all
 * bits set? */
bool core_size_is_pow2(uint64_t s);
/* Literal size s of `Idx s` (type), else false. */
bool core_idx_lit_size(MimWorld *w, MimDef *type, uint64_t *s);
/* The value v reduced to Idx s (s = 0: unchanged). */
uint64_t core_mod(uint64_t v, uint64_t s);

/* Component i of a pair. */
MimDef *core_op(MimWorld *w, MimDef *pair, uint64_t i);
MimDef *core_pair(MimWorld *w, MimDef *a, MimDef *b);
/* Canonical order of a commutative pair (README §3.6); true if swapped. */
bool core_commute(MimDef **a, MimDef **b);
/* Raw application with the pair (a, b) as argument; reuses arg when the
 * operands are unchanged. */
MimDef *core_raw_pair(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg, MimDef *a, MimDef *b);

/* Normalizing application of the registered annex id to args in curried
 * order; NULL if the annex is not registered or the application fails. */
MimDef *core_call(MimWorld *w, uint64_t id, MimDef *const *args, size_t n);

#endif
