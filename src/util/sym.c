/* Symbol interning (see sym.h): an open-addressing set of arena strings. */
#include "util/sym.h"

#include "mim/xalloc.h"

#include <string.h>

/* Eight bytes at a time (names, interface texts and whole images are
 * hashed on every run), the last word padded with zeros; the length goes
 * into the final mix, so padding cannot collide with real zeros. */
static uint64_t hash_word(uint64_t h, uint64_t x) {
    h = (h ^ x) * 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

uint64_t mim_hash_bytes(const void *p, size_t n) {
    const unsigned char *s = p;
    uint64_t h = 0xcbf29ce484222325ull, x;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&x, s + i, 8);
        h = hash_word(h, x);
    }
    if (i < n) {
        x = 0;
        memcpy(&x, s + i, n - i);
        h = hash_word(h, x);
    }
    return mim_hash_mix(h, n);
}

void mim_symtab_init(MimSymTab *t) {
    memset(t, 0, sizeof *t);
    mim_arena_init(&t->arena);
}

void mim_symtab_free(MimSymTab *t) {
    mim_arena_free(&t->arena);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static void grow(MimSymTab *t) {
    size_t ncap = t->cap ? t->cap * 2 : 256;
    MimSymSlot *ns = mim_xcalloc(ncap, sizeof *ns);
    for (size_t i = 0; i < t->cap; ++i) {
        MimSymSlot e = t->slots[i];
        if (!e.sym) continue;
        size_t j = e.hash & (ncap - 1);
        while (ns[j].sym) j = (j + 1) & (ncap - 1);
        ns[j] = e;
    }
    free(t->slots);
    t->slots = ns;
    t->cap = ncap;
}

MimSym mim_sym_n(MimSymTab *t, const char *s, size_t n) {
    if (2 * (t->len + 1) > t->cap) grow(t);
    uint32_t h = (uint32_t)mim_hash_bytes(s, n);
    size_t j = h & (t->cap - 1);
    for (MimSymSlot *e; (e = &t->slots[j])->sym; j = (j + 1) & (t->cap - 1))
        if (e->hash == h && e->len == n && memcmp(e->sym, s, n) == 0) return e->sym;
    MimSym sym = mim_arena_strndup(&t->arena, s, n);
    t->slots[j] = (MimSymSlot){sym, h, (uint32_t)n};
    t->len++;
    return sym;
}

MimSym mim_sym(MimSymTab *t, const char *s) { return mim_sym_n(t, s, strlen(s)); }
