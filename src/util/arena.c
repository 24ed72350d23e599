/* Bump-pointer arena (see arena.h). Chunks grow geometrically; oversized
 * requests get a chunk of their own. Every chunk is zeroed when it is
 * created, so allocations need no memset.
 *
 * Where the memory comes from matters more than the instructions here: on a
 * virtual machine a page touched for the first time costs microseconds
 * (measured on the 2-core VM: ~10 us per 4 KiB page fault, ~1.6 us per page
 * mapped in advance with MADV_POPULATE_WRITE, ~0.13 ms for a whole 2 MiB
 * transparent huge page, i.e. 0.25 us per 4 KiB; on 2026-11-26 ~2 us for
 * a fault and for a page mapped in advance alike), while zeroing a page the
 * process used before costs ~0.1 us. So:
 *  - the first chunks (up to HUGE_FROM) come from malloc, which hands memory
 *    freed by earlier Worlds to later ones; pages of such a block that are
 *    still fresh are mapped in one call (MADV_POPULATE_WRITE) before it is
 *    zeroed, instead of faulting one by one;
 *  - an arena past HUGE_FROM continues in 2 MiB chunks aligned for
 *    transparent huge pages (MADV_HUGEPAGE): one fault maps a whole chunk.
 *    A chunk is kept only if that first fault did map a huge page (the
 *    system may have none to give, or not use them): otherwise the arena
 *    goes on with malloc'd chunks, whose pages are populated in one call;
 *  - oversized blocks are fresh mappings (MAP_POPULATE); big tables
 *    (mim_pages_zalloc) in transparent huge pages where the system gives
 *    them, since their look-ups land anywhere (map_table);
 *  - a World made from another (mim_world_inherit: every cleanup) starts in
 *    the unused end of its parent's current chunk (mim_arena_hand_tail), so
 *    the chain of Worlds of a pipeline shares one huge page instead of
 *    faulting a fresh one per cleanup. Chunks count the arenas using them
 *    and are given back when the last one is freed.
 * HUGE_FROM is small (64 KiB) because start-up is dominated by page faults:
 * the World of an empty -O2 run (the prelude image, ~0.8 MB of nodes) and
 * the front end's arena each fit one huge page. Small arenas (checks,
 * tests, short programs) never take one. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_POPULATE, MADV_HUGEPAGE, MADV_POPULATE_WRITE, mincore */
#include "util/arena.h"
#include "mim/xalloc.h"

#include <assert.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#include <unistd.h>
#endif

struct MimArenaChunk {
    MimArenaChunk *next;
    size_t mapped;        /* bytes of the mapping, or 0 if the chunk is from malloc */
    MimArenaChunk *owner; /* a handed tail: the chunk whose memory it is; else NULL */
    atomic_uint users;    /* not a tail: the arenas holding it or a tail of it */
    alignas(max_align_t) char data[];
};

#define ALIGN (alignof(max_align_t))
#define POPULATE_MIN ((size_t)64 << 10) /* smaller blocks: plain calloc */
#if defined(MAP_ANONYMOUS)
#define MAP_BIG ((size_t)4 << 20) /* bigger blocks: fresh mappings */
#else
#define MAP_BIG SIZE_MAX /* no anonymous mappings: always malloc */
#endif
#define HUGE_SIZE ((size_t)2 << 20)
#define HUGE_FROM ((size_t)64 << 10)
#define TAIL_MIN ((size_t)64 << 10) /* smaller ends are not handed on */

/* ---- fresh mappings ------------------------------------------------------- */

/* Fresh, populated anonymous pages, or NULL. */
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

/* Whether the first write to `chunk` brought a whole huge page with it:
 * then the chunk's last page is resident too. */
static bool backed_by_huge_page(char *chunk) {
#if defined(MAP_ANONYMOUS)
    long page = sysconf(_SC_PAGESIZE);
    unsigned char resident = 0;
    if (page <= 0) return false;
    return mincore(chunk + HUGE_SIZE - (size_t)page, (size_t)page, &resident) == 0 && (resident & 1);
#else
    (void)chunk;
    return false;
#endif
}

/* A fresh HUGE_SIZE block aligned to HUGE_SIZE and backed by one
 * transparent huge page, or NULL if the system gives none. */
static void *map_huge(void) {
#if defined(MAP_ANONYMOUS) && defined(MADV_HUGEPAGE)
    size_t span = 2 * HUGE_SIZE;
    char *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return NULL;
    char *aligned = (char *)(((uintptr_t)p + HUGE_SIZE - 1) & ~(uintptr_t)(HUGE_SIZE - 1));
    if (aligned > p) munmap(p, (size_t)(aligned - p));
    if (aligned + HUGE_SIZE < p + span) munmap(aligned + HUGE_SIZE, (size_t)(p + span - aligned - HUGE_SIZE));
    if (madvise(aligned, HUGE_SIZE, MADV_HUGEPAGE) == 0) {
        aligned[0] = 0; /* the first fault */
        if (backed_by_huge_page(aligned)) return aligned;
    }
    munmap(aligned, HUGE_SIZE);
    return NULL;
#else
    return NULL;
#endif
}

/* ---- zeroed blocks ---------------------------------------------------------- */

void mim_pages_populate(void *p, size_t bytes) {
#if defined(MADV_POPULATE_WRITE)
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    if (page == 0 || (page & (page - 1))) return;
    uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1), hi = ((uintptr_t)p + bytes) & ~(page - 1);
    if (lo < hi) madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE); /* a hint: may fail on old kernels */
#else
    (void)p, (void)bytes;
#endif
}

/* A zeroed block from malloc (never NULL); free with free(). */
static void *heap_zalloc(size_t bytes) {
    if (bytes < POPULATE_MIN) return mim_xcalloc(1, bytes);
    void *p = mim_xmalloc(bytes);
    mim_pages_populate(p, bytes);
    memset(p, 0, bytes);
    return p;
}

/* Fresh zeroed pages for a big table, in transparent huge pages where the
 * system gives them: look-ups land anywhere in a table, and with 4 KiB pages
 * nearly each one in a big table (the World's hash-consing table at 10^4
 * functions) missed the TLB as well as the cache. NULL if nothing could be
 * mapped. Freed like map_pages' blocks (the mapping is exactly `bytes`). */
static void *map_table(size_t bytes) {
#if defined(MAP_ANONYMOUS) && defined(MADV_HUGEPAGE)
    size_t span = bytes + HUGE_SIZE;
    char *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return map_pages(bytes);
    char *aligned = (char *)(((uintptr_t)p + HUGE_SIZE - 1) & ~(uintptr_t)(HUGE_SIZE - 1));
    if (aligned > p) munmap(p, (size_t)(aligned - p));
    if (aligned + bytes < p + span) munmap(aligned + bytes, (size_t)(p + span - aligned - bytes));
    madvise(aligned, bytes, MADV_HUGEPAGE); /* a hint: 4 KiB pages otherwise */
    mim_pages_populate(aligned, bytes);
    return aligned;
#else
    return map_pages(bytes);
#endif
}

void *mim_pages_zalloc(size_t bytes) {
    if (bytes < MAP_BIG) return heap_zalloc(bytes);
    void *p = map_table(bytes);
    if (!p) mim_xalloc_fail();
    return p;
}

void mim_pages_free(void *p, size_t bytes) {
    if (!p) return;
    if (bytes >= MAP_BIG) unmap_pages(p, bytes);
    else free(p);
}

/* ---- chunks ------------------------------------------------------------------- */

static MimArenaChunk *chunk_new(size_t cap) {
    size_t bytes = sizeof(MimArenaChunk) + cap;
    MimArenaChunk *c;
    if (bytes < MAP_BIG) {
        c = heap_zalloc(bytes);
        c->mapped = 0;
    } else {
        c = map_pages(bytes);
        if (!c) mim_xalloc_fail();
        c->mapped = bytes;
    }
    return c;
}

static MimArenaChunk *chunk_huge(void) {
    MimArenaChunk *c = map_huge();
    if (c) c->mapped = HUGE_SIZE;
    return c;
}

/* An arena lets go of c; the memory goes when no arena uses it any more
 * (a tail's header lies in its owner's memory: it is not touched after). */
static void chunk_free(MimArenaChunk *c) {
    if (c->owner) c = c->owner;
    if (atomic_fetch_sub_explicit(&c->users, 1, memory_order_acq_rel) != 1) return;
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

void *mim_arena_alloc(MimArena *a, size_t size) { return mim_arena_alloc_aligned(a, size, ALIGN); }

void *mim_arena_alloc_aligned(MimArena *a, size_t size, size_t align) {
    assert(align && !(align & (align - 1)) && align <= ALIGN);
    if (size == 0) size = 1;
    if (size > SIZE_MAX / 2) mim_xalloc_fail(); /* pad + size and the doubling below overflow */
    size_t pad = (size_t)(-(uintptr_t)a->cur & (align - 1));
    if ((size_t)(a->end - a->cur) < pad + size) {
        pad = 0; /* a chunk's data is aligned for anything */
        /* Chunks double from 4 KiB, again after a tail was handed on. */
        size_t cap = a->head && a->total > a->handed ? (size_t)(a->end - a->head->data) * 2 : 4096;
        /* Past the first 12 KiB, chunks are big enough to be populated in
         * one call rather than faulted in page by page. */
        if (cap >= (16u << 10) && cap < POPULATE_MIN) cap = POPULATE_MIN;
        if (cap > (1u << 20)) cap = 1u << 20;
        if (cap < size) cap = size;
        MimArenaChunk *c = NULL;
        if (a->total - a->handed + size >= HUGE_FROM && !a->no_huge && sizeof(MimArenaChunk) + size <= HUGE_SIZE) {
            c = chunk_huge();
            if (c) cap = HUGE_SIZE - sizeof(MimArenaChunk);
            else a->no_huge = true; /* none to give now: do not ask at every chunk */
        }
        if (!c) c = chunk_new(cap);
        atomic_init(&c->users, 1); /* this arena */
        c->next = a->head;
        a->head = c;
        a->cur = c->data;
        a->end = c->data + cap;
    }
    void *p = a->cur + pad; /* already zero: chunks are zeroed when created */
    a->cur += pad + size;
    a->total += size;
    return p;
}

void mim_arena_hand_tail(MimArena *a, MimArena *heir) {
    assert(!heir->head);
    if (!a->head) return;
    uintptr_t at = ((uintptr_t)a->cur + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1);
    if ((uintptr_t)a->end < at || (uintptr_t)a->end - at < sizeof(MimArenaChunk) + TAIL_MIN) return;
    MimArenaChunk *owner = a->head->owner ? a->head->owner : a->head;
    MimArenaChunk *t = (MimArenaChunk *)at; /* zero: never handed out */
    t->owner = owner;
    atomic_fetch_add_explicit(&owner->users, 1, memory_order_relaxed);
    heir->head = t;
    heir->cur = t->data;
    heir->end = a->end;
    a->end = a->cur;
    a->handed = a->total;
}

void mim_arena_unalloc(MimArena *a, void *p, size_t size) {
    if ((char *)p + size != a->cur) return; /* not the latest: left as it is */
    memset(p, 0, size);
    a->cur = p;
    a->total -= size;
    if (a->handed > a->total) a->handed = a->total; /* taken back from before a handing on */
}

void mim_arena_reset(MimArena *a) {
    MimArenaChunk *c = a->head;
    if (!c) return;
    assert(!c->owner && a->handed == 0);
    for (MimArenaChunk *o = c->next, *n; o; o = n) {
        n = o->next;
        chunk_free(o);
    }
    c->next = NULL;
    memset(c->data, 0, (size_t)(a->cur - c->data));
    a->cur = c->data;
    a->total = 0;
}

char *mim_arena_strndup(MimArena *a, const char *s, size_t n) {
    char *p = mim_arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}
