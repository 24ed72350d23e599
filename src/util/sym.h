/* Interned strings ("symbols"): equal names are pointer-equal, so names can be
 * compared and hashed by address. A table belongs to one World (no globals). */
#ifndef MIM_UTIL_SYM_H
#define MIM_UTIL_SYM_H

#include "util/arena.h"

#include <stddef.h>
#include <stdint.h>

typedef const char *MimSym; /* NUL-terminated, interned; NULL = no name */

typedef struct MimSymSlot {
    MimSym sym;    /* NULL = empty */
    uint32_t hash; /* low bits of the name's hash (cheap rejection, no rehashing) */
    uint32_t len;  /* strlen(sym) */
} MimSymSlot;

typedef struct MimSymTab {
    MimArena arena;
    MimSymSlot *slots; /* open addressing, power-of-two capacity */
    size_t cap, len;
} MimSymTab;

void mim_symtab_init(MimSymTab *t);
void mim_symtab_free(MimSymTab *t);
MimSym mim_sym_n(MimSymTab *t, const char *s, size_t n);
MimSym mim_sym(MimSymTab *t, const char *s);

uint64_t mim_hash_bytes(const void *p, size_t n);
/* A checksum of big blocks (World images) against damage: eight
 * independent lanes, several times faster than mim_hash_bytes, whose every
 * step waits for the last. */
uint64_t mim_checksum(const void *p, size_t n);
static inline uint64_t mim_hash_mix(uint64_t h, uint64_t x) {
    h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 31);
}

#endif
