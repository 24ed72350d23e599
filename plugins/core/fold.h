/* Constant folding of the integer operations of core (plugins/core.md §4.1,
 * §5.6–§5.11) on literal payloads: pure functions of (sub-tag, size,
 * operands). Widths 1, 8, 16, 32, 64 compute in w bits (two's complement,
 * wrapping; width 1 too: its signed view is 0 or -1, as LLVM i1); other
 * sizes compute on 64-bit operands and reduce the result modulo s. */
#ifndef MIM_CORE_FOLD_H
#define MIM_CORE_FOLD_H

#include <stdbool.h>
#include <stdint.h>

/* false = the result is ⊥ (shift amount ≥ width, division by zero). */
bool core_fold_shr(unsigned sub, uint64_t s, uint64_t a, uint64_t b, uint64_t *r);
bool core_fold_wrap(unsigned sub, uint64_t s, uint64_t a, uint64_t b, uint64_t *r);
bool core_fold_div(unsigned sub, uint64_t s, uint64_t a, uint64_t b, uint64_t *r);
/* Relation bits X(16) Y(8) G(4) L(2) E(1) between a and b (§5.9). */
unsigned core_icmp_relation(uint64_t s, uint64_t a, uint64_t b);
uint64_t core_fold_extrema(unsigned sub, uint64_t s, uint64_t a, uint64_t b);
uint64_t core_fold_abs(uint64_t s, uint64_t a);

#endif
