/* Driver of tests/lit/regex/capture.mim: runs one capturing matcher of the
 * program, chosen by name (argv[1]), on the string argv[2] from position
 * argv[3], and prints matched, end and every entry of the capture array
 * (initialized to 77, so entries the matcher does not write show as 77). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mail(const char *s, int32_t pos, int32_t *caps);
int greedy(const char *s, int32_t pos, int32_t *caps);
int alt(const char *s, int32_t pos, int32_t *caps);
int rep(const char *s, int32_t pos, int32_t *caps);
int nested(const char *s, int32_t pos, int32_t *caps);
int hand(const char *s, int32_t pos, int32_t *caps);
int plain(const char *s, int32_t pos, int32_t *caps);
typedef struct {
    _Bool ok;
    int64_t end;
} Res64;
Res64 wide(const char *s, int64_t pos, int64_t *caps);

static const struct {
    const char *name;
    int (*f)(const char *, int32_t, int32_t *);
} matchers[] = {{"mail", mail}, {"greedy", greedy}, {"alt", alt},   {"rep", rep},
                {"nested", nested}, {"hand", hand}, {"plain", plain}};

enum { ENTRIES = 8 };

int main(int argc, char **argv) {
    if (argc != 4) return 2;
    int pos = atoi(argv[3]);
    printf("%s \"%s\"@%d:", argv[1], argv[2], pos);
    if (!strcmp(argv[1], "wide")) { /* positions of type Idx ⊤:Nat */
        int64_t caps[ENTRIES];
        for (int i = 0; i < ENTRIES; ++i) caps[i] = 77;
        Res64 r = wide(argv[2], pos, caps);
        printf(" %d %lld |", r.ok, (long long)r.end);
        for (int i = 0; i < ENTRIES; ++i) printf(" %lld", (long long)caps[i]);
        printf("\n");
        return 0;
    }
    for (size_t k = 0; k < sizeof matchers / sizeof *matchers; ++k) {
        if (strcmp(argv[1], matchers[k].name)) continue;
        int32_t caps[ENTRIES];
        for (int i = 0; i < ENTRIES; ++i) caps[i] = 77;
        int r = matchers[k].f(argv[2], pos, caps);
        printf(" %d %d |", r & 1, r >> 1);
        for (int i = 0; i < ENTRIES; ++i) printf(" %d", (int)caps[i]);
        printf("\n");
        return 0;
    }
    return 2;
}
