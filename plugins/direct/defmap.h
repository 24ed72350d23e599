/* A small map from nodes to nodes for the passes of the direct and affine
 * plugins (memo tables and "already done" sets). The public API offers no
 * container, so this is a header of static functions: open addressing with
 * linear probing, no deletion; a zeroed DefMap is empty. */
#ifndef MIM_PLUGIN_DEFMAP_H
#define MIM_PLUGIN_DEFMAP_H

#include "mim/def.h"

#include <stdint.h>
#include <stdlib.h>

typedef struct DefMap {
    const MimDef **keys;
    MimDef **vals;
    size_t cap, len; /* cap is 0 or a power of two */
} DefMap;

static inline size_t defmap_slot(const DefMap *m, const MimDef *key) {
    uint64_t x = (uint64_t)(uintptr_t)key;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    size_t i = (size_t)x & (m->cap - 1);
    while (m->keys[i] && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
    return i;
}

/* The value stored for key, or NULL. */
static inline MimDef *defmap_get(const DefMap *m, const MimDef *key) {
    if (!m->cap) return NULL;
    size_t i = defmap_slot(m, key);
    return m->keys[i] ? m->vals[i] : NULL;
}

static inline void defmap_grow(DefMap *m) {
    DefMap bigger = {0};
    bigger.cap = m->cap ? 2 * m->cap : 16;
    bigger.keys = calloc(bigger.cap, sizeof *bigger.keys);
    bigger.vals = calloc(bigger.cap, sizeof *bigger.vals);
    if (!bigger.keys || !bigger.vals) abort(); /* out of memory, as xalloc does */
    for (size_t i = 0; i < m->cap; ++i)
        if (m->keys[i]) {
            size_t j = defmap_slot(&bigger, m->keys[i]);
            bigger.keys[j] = m->keys[i];
            bigger.vals[j] = m->vals[i];
        }
    bigger.len = m->len;
    free(m->keys);
    free(m->vals);
    *m = bigger;
}

/* Store (or overwrite) key ↦ val. */
static inline void defmap_put(DefMap *m, const MimDef *key, MimDef *val) {
    if (2 * (m->len + 1) > m->cap) defmap_grow(m);
    size_t i = defmap_slot(m, key);
    if (!m->keys[i]) {
        m->keys[i] = key;
        ++m->len;
    }
    m->vals[i] = val;
}

static inline void defmap_free(DefMap *m) {
    free(m->keys);
    free(m->vals);
    *m = (DefMap){0};
}

#endif
