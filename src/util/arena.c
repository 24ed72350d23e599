/* Bump-pointer arena (see arena.h). Chunks grow geometrically up to 1 MiB;
 * oversized requests get a chunk of their own.
 *
 * Every chunk is zeroed when it is created, so allocations need no memset.
 * Big chunks come straight from mmap: fresh pages are already zero, and
 * MAP_POPULATE maps them all in one system call instead of taking one page
 * fault per 4 KiB as the nodes are written (faults dominate a short run). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_POPULATE */
#include "util/arena.h"
#include "util/xalloc.h"

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#endif

struct MimArenaChunk {
    MimArenaChunk *next;
    size_t mapped; /* bytes of the mapping, or 0 if the chunk is from calloc */
    alignas(max_align_t) char data[];
};

#define ALIGN (alignof(max_align_t))
#if defined(MAP_ANONYMOUS)
#define MAP_MIN ((size_t)64 << 10) /* smaller blocks come from calloc */
#else
#define MAP_MIN SIZE_MAX /* no anonymous mappings: always calloc */
#endif

/* Fresh, populated anonymous pages, or NULL (then the caller uses calloc). */
static void *map_pages(size_t bytes) {
#if defined(MAP_ANONYMOUS)
#if defined(MAP_POPULATE)
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE;
#else
    int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#endif
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
    return p == MAP_FAILED ? NULL : p;
#else
    (void)bytes;
    return NULL;
#endif
}

static void unmap_pages(void *p, size_t bytes) {
#if defined(MAP_ANONYMOUS)
    munmap(p, bytes);
#else
    (void)p, (void)bytes;
#endif
}

void *mim_pages_zalloc(size_t bytes) {
    if (bytes < MAP_MIN) return mim_xcalloc(1, bytes);
    void *p = map_pages(bytes);
    if (!p) {
        fputs("mim: out of memory\n", stderr);
        abort();
    }
    return p;
}

void mim_pages_free(void *p, size_t bytes) {
    if (!p) return;
    if (bytes >= MAP_MIN) unmap_pages(p, bytes);
    else free(p);
}

static MimArenaChunk *chunk_new(size_t cap) {
    size_t bytes = sizeof(MimArenaChunk) + cap;
    MimArenaChunk *c = bytes >= MAP_MIN ? map_pages(bytes) : NULL;
    if (c) {
        c->mapped = bytes;
        return c;
    }
    c = mim_xcalloc(1, bytes);
    c->mapped = 0;
    return c;
}

static void chunk_free(MimArenaChunk *c) {
    if (c->mapped) unmap_pages(c, c->mapped);
    else free(c);
}

void mim_arena_init(MimArena *a) { memset(a, 0, sizeof *a); }

void mim_arena_free(MimArena *a) {
    for (MimArenaChunk *c = a->head, *n; c; c = n) {
        n = c->next;
        chunk_free(c);
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
        MimArenaChunk *c = chunk_new(cap);
        c->next = a->head;
        a->head = c;
        a->cur = c->data;
        a->end = c->data + cap;
    }
    void *p = a->cur; /* already zero: chunks are zeroed when created */
    a->cur += size;
    a->total += size;
    return p;
}

char *mim_arena_strndup(MimArena *a, const char *s, size_t n) {
    char *p = mim_arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}
