/* The PCRE2 differential test of capture groups
 * (tests/lit/regex/capture-pcre2.test): every pattern of the generated table
 * (pcre-capture-gen.py), compiled by mim through %regex.capture_pattern,
 * against PCRE2 on all strings of length 0…6 over the alphabet a b c.
 * Full matches are compared as in pcre-harness.c (PCRE2_ANCHORED |
 * PCRE2_ENDANCHORED against "matched and stopped at the string's end");
 * on a full match every group's start and end must be PCRE2's (PCRE2_UNSET
 * against -1 for a group that did not take part), and entries 0 and 1 must
 * be 0 and the length. After a failed match every entry must be -1. Prints
 * each mismatch (at most 30) and a summary line. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern const char *const patterns[];
extern const int groups[];
extern int (*const matchers[])(const char *, int32_t *);
extern const size_t num_patterns;

static const char alphabet[] = "abc";
enum { MAX_LEN = 6, ALPHA = sizeof alphabet - 1, ENTRIES = 20 };

int main(void) {
    unsigned long strings = 0, comparisons = 0, full = 0, mismatches = 0, bad_patterns = 0, positions = 0;
    unsigned long with_unset = 0; /* full matches where a group did not take part */
    pcre2_match_data *md = pcre2_match_data_create(ENTRIES / 2, NULL);
    for (size_t k = 0; k < num_patterns; ++k) {
        int err;
        PCRE2_SIZE off;
        pcre2_code *re = pcre2_compile((PCRE2_SPTR)patterns[k], PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
        if (!re) {
            printf("MISMATCH: PCRE2 rejects pattern %zu \"%s\" at offset %zu\n", k, patterns[k], (size_t)off);
            ++bad_patterns;
            continue;
        }
        char s[MAX_LEN + 1];
        for (size_t len = 0; len <= MAX_LEN; ++len) {
            size_t digits[MAX_LEN] = {0};
            for (;;) {
                for (size_t i = 0; i < len; ++i) s[i] = alphabet[digits[i]];
                s[len] = 0;
                if (k == 0) ++strings;
                int rc = pcre2_match(re, (PCRE2_SPTR)s, len, 0, PCRE2_ANCHORED | PCRE2_ENDANCHORED, md, NULL);
                int32_t caps[ENTRIES];
                for (int i = 0; i < ENTRIES; ++i) caps[i] = 12345;
                int r = matchers[k](s, caps);
                int pcre = rc > 0, ours = (r & 1) && (size_t)(r >> 1) == len;
                int n = 2 * (groups[k] + 1);
                char why[160] = "";
                ++comparisons;
                if (pcre != ours) {
                    snprintf(why, sizeof why, "PCRE2 %s, mim %s (matched %d, end %d)", pcre ? "matches" : "does not match",
                             ours ? "matches" : "does not match", r & 1, r >> 1);
                } else if (!(r & 1)) {
                    for (int i = 0; i < n; ++i)
                        if (caps[i] != -1) snprintf(why, sizeof why, "entry %d is %d after a failed match", i, (int)caps[i]);
                } else if (ours) {
                    ++full;
                    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
                    int unset = 0;
                    for (int i = 0; i < n; ++i) {
                        int32_t want = ov[i] == PCRE2_UNSET ? -1 : (int32_t)ov[i];
                        unset |= want == -1;
                        ++positions;
                        if (caps[i] != want) {
                            snprintf(why, sizeof why, "entry %d: PCRE2 %d, mim %d", i, (int)want, (int)caps[i]);
                            break;
                        }
                    }
                    with_unset += unset;
                }
                if (why[0] && ++mismatches <= 30) {
                    printf("MISMATCH: pattern %zu \"%s\" on \"%s\": %s |", k, patterns[k], s, why);
                    for (int i = 0; i < n; ++i) printf(" %d", (int)caps[i]);
                    printf(" | PCRE2");
                    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
                    for (int i = 0; rc > 0 && i < n; ++i) printf(" %d", ov[i] == PCRE2_UNSET ? -1 : (int)ov[i]);
                    printf("\n");
                }
                size_t i = 0; /* next string of this length */
                while (i < len && ++digits[i] == ALPHA) digits[i++] = 0;
                if (i == len) break;
            }
        }
        pcre2_code_free(re);
    }
    pcre2_match_data_free(md);
    printf("pcre2-capture: %zu patterns, %lu strings, %lu comparisons, %lu full matches, %lu positions, %lu mismatches, "
           "%lu patterns rejected by PCRE2\n",
           num_patterns, strings, comparisons, full, positions, mismatches, bad_patterns);
    printf("pcre2-capture: %lu full matches with a group that did not take part\n", with_unset);
    return mismatches || bad_patterns;
}
