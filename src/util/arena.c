/* Bump-pointer arena (see arena.h). Chunks grow geometrically up to 1 MiB;
 * oversized requests get a chunk of their own. */
#include "util/arena.h"
#include "util/xalloc.h"

#include <stdalign.h>
#include <stdint.h>
#include <string.h>

struct MimArenaChunk {
    MimArenaChunk *next;
    alignas(max_align_t) char data[];
};

#define ALIGN (alignof(max_align_t))

void mim_arena_init(MimArena *a) { memset(a, 0, sizeof *a); }

void mim_arena_free(MimArena *a) {
    for (MimArenaChunk *c = a->head, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    memset(a, 0, sizeof *a);
}

void *mim_arena_alloc(MimArena *a, size_t size) {
    size = (size + ALIGN - 1) & ~(ALIGN - 1);
    if (size == 0) size = ALIGN;
    if ((size_t)(a->end - a->cur) < size) {
        size_t cap = a->head ? (size_t)(a->end - a->head->data) * 2 : 4096;
        if (cap > (1u << 20)) cap = 1u << 20;
        if (cap < size) cap = size;
        MimArenaChunk *c = mim_xmalloc(sizeof *c + cap);
        c->next = a->head;
        a->head = c;
        a->cur = c->data;
        a->end = c->data + cap;
    }
    void *p = a->cur;
    a->cur += size;
    a->total += size;
    memset(p, 0, size);
    return p;
}

char *mim_arena_strndup(MimArena *a, const char *s, size_t n) {
    char *p = mim_arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}
