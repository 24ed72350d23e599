/* The PCRE2 differential test (tests/lit/regex/pcre2.test): every pattern of
 * the generated table (pcre-gen.py), compiled by mim through %regex.pattern,
 * against PCRE2 on all strings of length 0…5 over the alphabet a b 1 space
 * newline. A string is a full match for PCRE2 if it matches anchored at both
 * ends (PCRE2_ANCHORED | PCRE2_ENDANCHORED); for the generated matcher if it
 * matched and stopped at the string's end (the DFA has a transition for
 * every prefix of a word of its language, so it stops early only on a
 * string outside it). Prints each mismatch and a summary line. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <string.h>

extern const char *const patterns[];
extern int (*const matchers[])(const char *);
extern const size_t num_patterns;

static const char alphabet[] = "ab1 \n";
enum { MAX_LEN = 5, ALPHA = sizeof alphabet - 1 };

static void show(const char *s) {
    putchar('"');
    for (; *s; ++s)
        if (*s == '\n') fputs("\\n", stdout);
        else putchar(*s);
    putchar('"');
}

int main(void) {
    unsigned long strings = 0, comparisons = 0, mismatches = 0, bad_patterns = 0;
    unsigned long nontrivial = 0; /* patterns that both match and reject some string: the test's reach */
    for (size_t len = 0; len <= MAX_LEN; ++len) {
        unsigned long n = 1;
        for (size_t i = 0; i < len; ++i) n *= ALPHA;
        strings += n;
    }
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    for (size_t k = 0; k < num_patterns; ++k) {
        int err;
        PCRE2_SIZE off;
        pcre2_code *re = pcre2_compile((PCRE2_SPTR)patterns[k], PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
        if (!re) {
            printf("MISMATCH: PCRE2 rejects pattern %zu ", k);
            show(patterns[k]);
            printf(" at offset %zu\n", (size_t)off);
            ++bad_patterns;
            continue;
        }
        char s[MAX_LEN + 1];
        unsigned long matches = 0, before = comparisons;
        for (size_t len = 0; len <= MAX_LEN; ++len) {
            size_t digits[MAX_LEN] = {0};
            for (;;) {
                for (size_t i = 0; i < len; ++i) s[i] = alphabet[digits[i]];
                s[len] = 0;
                /* rc 0: a match with more groups than md holds */
                int rc = pcre2_match(re, (PCRE2_SPTR)s, len, 0, PCRE2_ANCHORED | PCRE2_ENDANCHORED, md, NULL);
                int r = matchers[k](s);
                int pcre = rc >= 0, ours = (r & 1) && (size_t)(r >> 1) == len;
                ++comparisons;
                matches += pcre;
                if (pcre != ours && ++mismatches <= 30) {
                    printf("MISMATCH: pattern %zu ", k);
                    show(patterns[k]);
                    printf(" on ");
                    show(s);
                    printf(": PCRE2 %s, mim %s (matched %d, end %d)\n", pcre ? "matches" : "does not match",
                           ours ? "matches" : "does not match", r & 1, r >> 1);
                }
                size_t i = 0; /* next string of this length */
                while (i < len && ++digits[i] == ALPHA) digits[i++] = 0;
                if (i == len) break;
            }
        }
        nontrivial += matches > 0 && matches < comparisons - before;
        pcre2_code_free(re);
    }
    pcre2_match_data_free(md);
    printf("pcre2: %zu patterns, %lu strings, %lu comparisons, %lu mismatches, %lu patterns rejected by PCRE2\n",
           num_patterns, strings, comparisons, mismatches, bad_patterns);
    printf("pcre2: %lu patterns match some strings and reject others\n", nontrivial);
    return mismatches || bad_patterns;
}
