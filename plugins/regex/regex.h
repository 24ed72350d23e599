/* Shared by the regex plugin's normalizers and its lowering. */
#ifndef MIM_PLUGIN_REGEX_INTERNAL_H
#define MIM_PLUGIN_REGEX_INTERNAL_H

#include "mim/pass.h"
#include "mim/plugin.h"
#include "mim/plugin/regex.h"
#include "mim/vec.h"

#include <stdbool.h>
#include <stdint.h>

/* Above this arity conj and disj stay raw and are not lowered: flattening
 * makes one projection per operand and disj compares operands pairwise, so
 * `disj 2^40 xs` would never finish (a robustness bound; the reference has
 * none). */
#define REGEX_MAX_OPERANDS 4096

/* The most groups a capturing matcher may have (docs/regex.md, "Capture
 * groups"): each is two registers of every state of its tagged automaton. */
#define REGEX_MAX_GROUPS 255

typedef MIM_VEC(MimDef *) RegexList; /* mim_vec_push, mim_vec_free */

bool regex_nary(MimDef *d, uint64_t id, uint64_t *n, MimDef **ops);
void regex_flatten(MimWorld *w, MimDef *d, uint64_t id, RegexList *out);
bool regex_range(MimWorld *w, MimDef *d, uint64_t *lo, uint64_t *hi);

/* lower.c: `%core.icmp.X 256 (c, lit)` on a character, and the check that c
 * lies in one of the intervals of a 256-entry mask (shared with capture.c). */
MimDef *regex_cmp_char(MimWorld *w, uint64_t id, MimDef *c, uint64_t v);
MimDef *regex_char_check(MimWorld *w, const bool *chars, MimDef *c);

/* capture.c: the lowering of `%regex.capture r` applied to n and k. */
MimDef *regex_lower_capture(MimPass *p, MimDef *app, MimDef *r, MimDef *n, MimDef *k);

#endif
