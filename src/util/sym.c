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

/* Fletcher's idea on 64-bit words, in eight lanes: `sum` catches every
 * changed word, `weighted` (the running total of the sums) also words
 * swapped or moved. The lanes are mixed at the end. With GCC and clang they
 * live in vector registers, two to a register (~0.25 instructions a byte);
 * elsewhere the same function runs on plain words. Sums modulo 2^64 guard
 * the top bit least: flipping bit 63 of two words of one lane 128 j bytes
 * apart goes unnoticed; damage is not that regular (forgeries are the
 * structural checks' business). */
#if defined(__GNUC__)
typedef uint64_t Lanes __attribute__((vector_size(16)));
#else
typedef struct Lanes {
    uint64_t w[2];
} Lanes;
#endif

static Lanes lanes_load(const unsigned char *p) {
    Lanes x;
    memcpy(&x, p, sizeof x);
    return x;
}

static Lanes lanes_add(Lanes a, Lanes b) {
#if defined(__GNUC__)
    return a + b;
#else
    a.w[0] += b.w[0], a.w[1] += b.w[1];
    return a;
#endif
}

static uint64_t lanes_mix(uint64_t h, Lanes a) {
    uint64_t w[2];
    memcpy(w, &a, sizeof w);
    return mim_hash_mix(mim_hash_mix(h, w[0]), w[1]);
}

uint64_t mim_checksum(const void *p, size_t n) {
    if (n == 0) return mim_hash_bytes("", 0); /* p may be NULL */
    const unsigned char *s = p;
    Lanes z;
    memset(&z, 0, sizeof z);
    Lanes s0 = z, s1 = z, s2 = z, s3 = z, w0 = z, w1 = z, w2 = z, w3 = z;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        s0 = lanes_add(s0, lanes_load(s + i)), s1 = lanes_add(s1, lanes_load(s + i + 16));
        s2 = lanes_add(s2, lanes_load(s + i + 32)), s3 = lanes_add(s3, lanes_load(s + i + 48));
        w0 = lanes_add(w0, s0), w1 = lanes_add(w1, s1), w2 = lanes_add(w2, s2), w3 = lanes_add(w3, s3);
    }
    uint64_t h = mim_hash_bytes(s + i, n - i); /* the last 0..63 bytes and the length */
    h = lanes_mix(lanes_mix(lanes_mix(lanes_mix(h, s0), s1), s2), s3);
    h = lanes_mix(lanes_mix(lanes_mix(lanes_mix(h, w0), w1), w2), w3);
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
