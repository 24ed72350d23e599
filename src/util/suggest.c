/* "Did you mean" suggestions (suggest.h): optimal string alignment distance
 * in two rows plus the one before, cut off at the limit. */
#include "util/suggest.h"

#include "mim/xalloc.h"

#include <stdlib.h>
#include <string.h>

static size_t min3(size_t a, size_t b, size_t c) { return a < b ? (a < c ? a : c) : (b < c ? b : c); }

size_t mim_edit_distance(const char *a, const char *b, size_t limit) {
    size_t n = strlen(a), m = strlen(b);
    if ((n > m ? n - m : m - n) > limit) return limit + 1;
    size_t *prev2 = mim_xcalloc(m + 1, sizeof *prev2), *prev = mim_xcalloc(m + 1, sizeof *prev),
           *cur = mim_xcalloc(m + 1, sizeof *cur);
    for (size_t j = 0; j <= m; ++j) prev[j] = j;
    for (size_t i = 1; i <= n; ++i) {
        cur[0] = i;
        size_t row_min = cur[0];
        for (size_t j = 1; j <= m; ++j) {
            size_t cost = a[i - 1] != b[j - 1];
            cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < cur[j])
                cur[j] = prev2[j - 2] + 1;
            if (cur[j] < row_min) row_min = cur[j];
        }
        size_t *t = prev2;
        prev2 = prev, prev = cur, cur = t;
        if (row_min > limit) {
            free(prev2), free(prev), free(cur);
            return limit + 1;
        }
    }
    size_t d = prev[m];
    free(prev2), free(prev), free(cur);
    return d > limit ? limit + 1 : d;
}

void mim_suggest_init(MimSuggest *s, const char *name) {
    s->name = name;
    s->best = NULL;
    /* Accepted: distances below s->dist. Names of one or two characters get
     * no suggestion: every other short name would be one edit away. */
    size_t len = strlen(name);
    s->dist = len < 3 ? 0 : (len / 3 > 1 ? len / 3 : 1) + 1;
}

void mim_suggest_offer(MimSuggest *s, const char *candidate) {
    if (!candidate || strcmp(candidate, s->name) == 0) return;
    size_t d = mim_edit_distance(s->name, candidate, s->dist);
    if (d < s->dist || (d == s->dist && s->best && strcmp(candidate, s->best) < 0)) {
        s->best = candidate;
        s->dist = d;
    }
}
