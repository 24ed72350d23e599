/* Pointer-keyed hash maps (see ptrmap.h): linear probing, load factor ≤ 1/2,
 * backward-shift deletion (no tombstones). */
#include "mim/ptrmap.h"

#include "util/arena.h"
#include "mim/xalloc.h"

#include <stdint.h>
#include <string.h>

static size_t hash_ptr(const void *p) {
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x;
}

static size_t hash_pair(const void *a, const void *b) {
    return hash_ptr(a) * 31u + hash_ptr((const char *)b + 1);
}

/* ---- MimPtrMap ---------------------------------------------------------- */

void mim_ptrmap_lend(MimPtrMap *m, MimPtrMapSlot *buf) {
    memset(m, 0, sizeof *m);
    m->lent = buf;
}

/* Tables live in mim_pages_zalloc blocks: big ones reuse memory freed
 * earlier and get their fresh pages mapped in one go (arena.c). */
static void *table_alloc(size_t n, size_t size) { return mim_pages_zalloc(n * size); }
static void table_free(void *p, size_t n, size_t size) { mim_pages_free(p, n * size); }

void mim_ptrmap_free(MimPtrMap *m) {
    if (m->slots != m->lent) table_free(m->slots, m->cap, sizeof *m->slots);
    memset(m, 0, sizeof *m);
}

void mim_ptrmap_clear(MimPtrMap *m) {
    if (m->slots) memset(m->slots, 0, m->cap * sizeof *m->slots);
    m->len = 0;
}

static MimPtrMapSlot *ptr_lookup(const MimPtrMap *m, const void *key) {
    if (!m->cap) return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = hash_ptr(key) & mask;; i = (i + 1) & mask) {
        MimPtrMapSlot *s = &m->slots[i];
        if (!s->key) return s;
        if (s->key == key) return s;
    }
}

/* Moves the entries into a table of capacity cap (a power of two, at least
 * MIM_MAP_INLINE, more than twice the entries). */
static void ptr_rehash(MimPtrMap *m, size_t cap) {
    MimPtrMapSlot *slots;
    if (!m->cap && m->lent && cap == MIM_MAP_INLINE) {
        slots = m->lent;
        memset(slots, 0, cap * sizeof *slots);
    } else {
        slots = table_alloc(cap, sizeof *slots);
    }
    size_t mask = cap - 1;
    for (size_t i = 0; i < m->cap; ++i) { /* keys are distinct: no comparisons */
        if (!m->slots[i].key) continue;
        size_t j = hash_ptr(m->slots[i].key) & mask;
        while (slots[j].key) j = (j + 1) & mask;
        slots[j] = m->slots[i];
    }
    if (m->slots != m->lent) table_free(m->slots, m->cap, sizeof *m->slots);
    m->slots = slots;
    m->cap = cap;
}

static void ptr_grow(MimPtrMap *m) { ptr_rehash(m, m->cap ? m->cap * 2 : MIM_MAP_INLINE); }

void mim_ptrmap_reserve(MimPtrMap *m, size_t n) { /* one table of the final size */
    size_t cap = m->cap ? m->cap : MIM_MAP_INLINE;
    while (cap < 2 * n) cap *= 2;
    if (cap > m->cap) ptr_rehash(m, cap);
}

void **mim_ptrmap_find(const MimPtrMap *m, const void *key) {
    MimPtrMapSlot *s = ptr_lookup(m, key);
    return s && s->key ? &s->val : NULL;
}

void *mim_ptrmap_get(const MimPtrMap *m, const void *key) {
    void **v = mim_ptrmap_find(m, key);
    return v ? *v : NULL;
}

bool mim_ptrmap_has(const MimPtrMap *m, const void *key) { return mim_ptrmap_find(m, key) != NULL; }

bool mim_ptrmap_add(MimPtrMap *m, const void *key, void *val, void **old) {
    if (2 * (m->len + 1) > m->cap) ptr_grow(m);
    MimPtrMapSlot *s = ptr_lookup(m, key);
    if (s->key) {
        if (old) *old = s->val;
        return false;
    }
    s->key = key;
    s->val = val;
    m->len++;
    return true;
}

void mim_ptrmap_put(MimPtrMap *m, const void *key, void *val) {
    if (2 * (m->len + 1) > m->cap) ptr_grow(m);
    MimPtrMapSlot *s = ptr_lookup(m, key);
    if (!s->key) {
        s->key = key;
        m->len++;
    }
    s->val = val;
}

bool mim_ptrmap_remove(MimPtrMap *m, const void *key) {
    MimPtrMapSlot *s = ptr_lookup(m, key);
    if (!s || !s->key) return false;
    size_t mask = m->cap - 1, i = (size_t)(s - m->slots);
    /* Backward shift: move later entries of the probe run into the hole when
     * their home slot does not lie strictly between the hole and them. */
    for (size_t j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
        size_t home = hash_ptr(m->slots[j].key) & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) {
            m->slots[i] = m->slots[j];
            i = j;
        }
    }
    m->slots[i].key = NULL;
    m->slots[i].val = NULL;
    m->len--;
    return true;
}

/* ---- MimPairMap --------------------------------------------------------- */

void mim_pairmap_lend(MimPairMap *m, MimPairMapSlot *buf) {
    memset(m, 0, sizeof *m);
    m->lent = buf;
}

void mim_pairmap_free(MimPairMap *m) {
    if (m->slots != m->lent) table_free(m->slots, m->cap, sizeof *m->slots);
    memset(m, 0, sizeof *m);
}

void mim_pairmap_clear(MimPairMap *m) {
    if (m->slots) memset(m->slots, 0, m->cap * sizeof *m->slots);
    m->len = 0;
}

static MimPairMapSlot *pair_lookup(const MimPairMap *m, const void *a, const void *b) {
    if (!m->cap) return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = hash_pair(a, b) & mask;; i = (i + 1) & mask) {
        MimPairMapSlot *s = &m->slots[i];
        if (!s->a || (s->a == a && s->b == b)) return s;
    }
}

static void pair_grow(MimPairMap *m) {
    size_t cap = m->cap ? m->cap * 2 : MIM_MAP_INLINE;
    MimPairMapSlot *slots;
    if (!m->cap && m->lent) {
        slots = m->lent;
        memset(slots, 0, cap * sizeof *slots);
    } else {
        slots = table_alloc(cap, sizeof *slots);
    }
    MimPairMap n = {slots, cap, m->len, m->lent};
    for (size_t i = 0; i < m->cap; ++i)
        if (m->slots[i].a) *pair_lookup(&n, m->slots[i].a, m->slots[i].b) = m->slots[i];
    if (m->slots != m->lent) table_free(m->slots, m->cap, sizeof *m->slots);
    *m = n;
}

void **mim_pairmap_find(const MimPairMap *m, const void *a, const void *b) {
    MimPairMapSlot *s = pair_lookup(m, a, b);
    return s && s->a ? &s->val : NULL;
}

void mim_pairmap_put(MimPairMap *m, const void *a, const void *b, void *val) {
    if (2 * (m->len + 1) > m->cap) pair_grow(m);
    MimPairMapSlot *s = pair_lookup(m, a, b);
    if (!s->a) {
        s->a = a;
        s->b = b;
        m->len++;
    }
    s->val = val;
}

bool mim_pairmap_remove(MimPairMap *m, const void *a, const void *b) {
    MimPairMapSlot *s = pair_lookup(m, a, b);
    if (!s || !s->a) return false;
    size_t mask = m->cap - 1, i = (size_t)(s - m->slots);
    /* Backward shift, as in mim_ptrmap_remove. */
    for (size_t j = (i + 1) & mask; m->slots[j].a; j = (j + 1) & mask) {
        size_t home = hash_pair(m->slots[j].a, m->slots[j].b) & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) {
            m->slots[i] = m->slots[j];
            i = j;
        }
    }
    m->slots[i].a = NULL;
    m->slots[i].b = NULL;
    m->slots[i].val = NULL;
    m->len--;
    return true;
}
