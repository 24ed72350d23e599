/* Shared by the regex plugin's normalizers and its lowering. */
#ifndef MIM_PLUGIN_REGEX_INTERNAL_H
#define MIM_PLUGIN_REGEX_INTERNAL_H

#include "mim/plugin.h"
#include "mim/plugin/regex.h"

#include <stdbool.h>
#include <stdint.h>

/* Above this arity conj and disj stay raw and are not lowered: flattening
 * makes one projection per operand and disj compares operands pairwise, so
 * `disj 2^40 xs` would never finish (a robustness bound; the reference has
 * none). */
#define REGEX_MAX_OPERANDS 4096

typedef struct RegexList {
    MimDef **data;
    size_t len, cap;
} RegexList;

void regex_list_push(RegexList *l, MimDef *d);
void regex_list_free(RegexList *l);
bool regex_nary(MimDef *d, uint64_t id, uint64_t *n, MimDef **ops);
void regex_flatten(MimWorld *w, MimDef *d, uint64_t id, RegexList *out);
bool regex_range(MimWorld *w, MimDef *d, uint64_t *lo, uint64_t *hi);

#endif
