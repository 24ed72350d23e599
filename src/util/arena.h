/* Bump-pointer arena: many small allocations, freed all at once.
 * Used by the World (nodes), the front end (tokens, AST) and the symbol table. */
#ifndef MIM_UTIL_ARENA_H
#define MIM_UTIL_ARENA_H

#include <stdbool.h>
#include <stddef.h>

typedef struct MimArenaChunk MimArenaChunk;

typedef struct MimArena {
    MimArenaChunk *head; /* current chunk; older chunks are linked behind it */
    char *cur, *end;     /* free space in the current chunk */
    size_t total;        /* bytes handed out */
    size_t handed;       /* total when a tail was last handed on (chunk sizes restart) */
    bool no_huge;        /* a huge page was asked for and not given */
} MimArena;

void mim_arena_init(MimArena *a);
void mim_arena_free(MimArena *a);
/* Zero-initialised, aligned to max_align_t. Never returns NULL (aborts on OOM). */
void *mim_arena_alloc(MimArena *a, size_t size);
/* The same with a smaller alignment `align` (a power of two up to that of
 * max_align_t): nodes need only pointer alignment, and rounding each to 16
 * bytes would cost a word in every other one. */
void *mim_arena_alloc_aligned(MimArena *a, size_t size, size_t align);
/* Hands the unused end of a's current chunk to `heir`, an arena without
 * chunks, as its first chunk (if it is at least 64 KiB); a goes on in chunks
 * of its own. The memory is given back when both arenas are freed, in any
 * order. A World made from another (mim_world_inherit) starts this way. */
void mim_arena_hand_tail(MimArena *a, MimArena *heir);
/* Gives back p, the latest allocation of `size` bytes, zeroed again (a
 * World image refused after its nodes were read into the arena). */
void mim_arena_unalloc(MimArena *a, void *p, size_t size);
/* Gives back everything a holds, zeroed again, keeping its latest chunk
 * (usually the biggest; after an allocation above the chunk size, that
 * allocation's own chunk) for what comes next: a scratch arena reused per piece of
 * work stays in memory the process touched already. Not for an arena that
 * handed a tail on or was handed one. */
void mim_arena_reset(MimArena *a);
char *mim_arena_strndup(MimArena *a, const char *s, size_t n);

/* A zeroed block for big tables, with the same memory policy as arena chunks
 * (arena.c: memory of earlier blocks is reused, fresh pages are mapped in
 * one go). Free with the same size. */
void *mim_pages_zalloc(size_t bytes);
void mim_pages_free(void *p, size_t bytes);
/* Maps the not yet mapped pages inside [p, p + bytes) in one call (a hint:
 * nothing happens where the kernel cannot). A fault costs ~11 us per 4 KiB
 * page on the 2-core VM, mapping in advance ~0.5 us. */
void mim_pages_populate(void *p, size_t bytes);

#endif
