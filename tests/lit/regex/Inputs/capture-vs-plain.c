/* tests/lit/regex/capture-plain.test: every capturing matcher k_K must give
 * the result and end position of the plain matcher m_K of the same pattern
 * (docs/regex.md, "Capture groups": the run is the plain matcher's) on all
 * strings of length 0…5 over a b 1 space newline, with entries 0 and 1 of
 * its capture array the whole match (pos 0, end) or -1 after a failure. */
#include <stdio.h>
#include <string.h>

extern const char *const patterns[];
extern int (*const matchers[])(const char *);
extern int (*const cmatchers[])(const char *, int *);
extern const size_t num_patterns;

static const char alphabet[] = "ab1 \n";
enum { MAX_LEN = 5, ALPHA = sizeof alphabet - 1 };

int main(void) {
    unsigned long comparisons = 0, mismatches = 0, matched = 0;
    static int caps[2 * 256 + 2];
    for (size_t k = 0; k < num_patterns; ++k) {
        char s[MAX_LEN + 1];
        for (size_t len = 0; len <= MAX_LEN; ++len) {
            size_t digits[MAX_LEN] = {0};
            for (;;) {
                for (size_t i = 0; i < len; ++i) s[i] = alphabet[digits[i]];
                s[len] = 0;
                int plain = matchers[k](s), cap = cmatchers[k](s, caps);
                int whole = (cap & 1) ? caps[0] == 0 && caps[1] == cap >> 1 : caps[0] == -1 && caps[1] == -1;
                ++comparisons;
                matched += cap & 1;
                if ((plain != cap || !whole) && ++mismatches <= 30)
                    printf("MISMATCH: pattern %zu \"%s\", string of length %zu: plain %d, capture %d, entries %d %d\n", k,
                           patterns[k], len, plain, cap, caps[0], caps[1]);
                size_t i = 0; /* next string of this length */
                while (i < len && ++digits[i] == ALPHA) digits[i++] = 0;
                if (i == len) break;
            }
        }
    }
    printf("capture-plain: %zu patterns, %lu comparisons, %lu matched, %lu mismatches\n", num_patterns, comparisons,
           matched, mismatches);
    return mismatches != 0;
}
