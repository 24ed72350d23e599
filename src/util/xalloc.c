/* Checked heap allocation (see xalloc.h). */
#include "mim/xalloc.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

_Noreturn void mim_xalloc_fail(void) {
    fputs("mim: out of memory\n", stderr);
    abort();
}

static void *check(void *p) {
    if (!p) mim_xalloc_fail();
    return p;
}

void *mim_xmalloc(size_t n) { return check(malloc(n ? n : 1)); }
void *mim_xcalloc(size_t n, size_t size) { return check(calloc(n ? n : 1, size ? size : 1)); }
void *mim_xrealloc(void *p, size_t n) { return check(realloc(p, n ? n : 1)); }
char *mim_xstrdup(const char *s) { return strcpy(mim_xmalloc(strlen(s) + 1), s); }

char *mim_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = mim_xmalloc(cap);
    for (size_t r; (r = fread(buf + n, 1, cap - n, f)) > 0;)
        if ((n += r) == cap) buf = mim_xrealloc(buf, cap *= 2);
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}
