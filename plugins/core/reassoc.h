/* Reassociation of literal operands (plugins/core.md §4.4) for the
 * associative and commutative operations of shape `{s} [m] «2; Idx s»`:
 * %core.wrap.add/mul and %core.bit2.xor_/and_/nxor/or_. */
#ifndef MIM_CORE_REASSOC_H
#define MIM_CORE_REASSOC_H

#include "core_util.h"

/* If a rule applies to `a op b` (op = annex id, size s), store the rebuilt
 * (normalized) expression in *out and return true. */
bool core_reassoc(MimWorld *w, uint64_t id, MimDef *s, MimDef *a, MimDef *b, MimDef **out);

#endif
