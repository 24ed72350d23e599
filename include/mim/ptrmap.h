/* Hash maps keyed by pointers (MimPtrMap) and by pointer pairs (MimPairMap),
 * with pointer values. Used for memo tables of the checking code
 * (α-equivalence, substitution, hole elimination), World caches and passes
 * (public: plugins use the same maps for their memo tables).
 * Open addressing with linear probing; keys are never NULL; values may be
 * NULL (use the *_find functions to tell "absent" from "mapped to NULL").
 * A zero-initialised map is empty and allocates nothing until the first put.
 * Iteration order is unspecified: never let it influence output. */
#ifndef MIM_PTRMAP_H
#define MIM_PTRMAP_H

#include "mim/api.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct MimPtrMapSlot {
    const void *key;
    void *val;
} MimPtrMapSlot;

typedef struct MimPtrMap {
    MimPtrMapSlot *slots; /* power-of-two capacity; key NULL = empty slot */
    size_t cap, len;
    MimPtrMapSlot *lent;  /* caller storage for the first MIM_MAP_INLINE slots, or NULL */
} MimPtrMap;

/* Capacity of a map's first storage. Short-lived maps that stay this small
 * can live in caller storage (a local array) instead of on the heap. */
#define MIM_MAP_INLINE 16

/* Makes the empty map m use buf (MIM_MAP_INLINE slots) as its first storage;
 * it moves to the heap when it grows. buf must outlive the map's use, and m
 * must not be copied while it uses buf. Capacities and slot positions are the
 * same as without buf. */
MIM_API void mim_ptrmap_lend(MimPtrMap *m, MimPtrMapSlot *buf);

MIM_API void mim_ptrmap_free(MimPtrMap *m);
MIM_API void mim_ptrmap_clear(MimPtrMap *m); /* keeps the storage */
/* Make room for n entries without growing (big maps of known size). */
MIM_API void mim_ptrmap_reserve(MimPtrMap *m, size_t n);
/* Slot of the value of key, or NULL if absent. Valid until the next put. */
MIM_API void **mim_ptrmap_find(const MimPtrMap *m, const void *key);
MIM_API void *mim_ptrmap_get(const MimPtrMap *m, const void *key); /* NULL if absent */
MIM_API bool mim_ptrmap_has(const MimPtrMap *m, const void *key);
/* Insert or overwrite. */
MIM_API void mim_ptrmap_put(MimPtrMap *m, const void *key, void *val);
/* Insert unless present; returns true if inserted, else *old (if non-NULL)
 * receives the present value. */
MIM_API bool mim_ptrmap_add(MimPtrMap *m, const void *key, void *val, void **old);
MIM_API bool mim_ptrmap_remove(MimPtrMap *m, const void *key);

typedef struct MimPairMapSlot {
    const void *a, *b; /* a == NULL: empty slot */
    void *val;
} MimPairMapSlot;

typedef struct MimPairMap {
    MimPairMapSlot *slots;
    size_t cap, len;
    MimPairMapSlot *lent; /* as for MimPtrMap */
} MimPairMap;

MIM_API void mim_pairmap_lend(MimPairMap *m, MimPairMapSlot *buf); /* as mim_ptrmap_lend */

MIM_API void mim_pairmap_free(MimPairMap *m);
MIM_API void mim_pairmap_clear(MimPairMap *m);
MIM_API void **mim_pairmap_find(const MimPairMap *m, const void *a, const void *b);
MIM_API void mim_pairmap_put(MimPairMap *m, const void *a, const void *b, void *val);
MIM_API bool mim_pairmap_remove(MimPairMap *m, const void *a, const void *b);

#ifdef __cplusplus
}
#endif

#endif
