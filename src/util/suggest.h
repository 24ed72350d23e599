/* "Did you mean" suggestions: the candidate closest to a misspelt name by
 * edit distance (insertions, deletions, substitutions and swaps of two
 * neighbours each cost 1), if it is close enough to be a likely typo. */
#ifndef MIM_UTIL_SUGGEST_H
#define MIM_UTIL_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

/* Edit distance of a and b, or limit + 1 if it exceeds limit. */
size_t mim_edit_distance(const char *a, const char *b, size_t limit);

/* The best candidate so far: offer each with mim_suggest_offer; `best` is
 * then the closest within max(1, |name| / 3) (none for names shorter than
 * three characters), ties broken by the smaller
 * string so that the answer does not depend on the order of offers. */
typedef struct MimSuggest {
    const char *name;
    const char *best; /* NULL = none close enough */
    size_t dist;
} MimSuggest;

void mim_suggest_init(MimSuggest *s, const char *name);
void mim_suggest_offer(MimSuggest *s, const char *candidate);

#endif
