/* Arenas (src/util/arena.c): handing the unused end of a chunk to a new
 * arena (what every cleanup's World does with its parent's memory). The heir
 * gets zeroed memory inside the parent's chunk, the two never hand out the
 * same bytes, and the memory lives until both are freed, in either order
 * (the sanitizer build sees a use after free otherwise). */
#include "ir/world_impl.h"
#include "mim/world.h"
#include "unit.h"
#include "util/arena.h"
#include "util/sanitizer.h"

#include <stdint.h>
#include <string.h>

#define PIECE 1024
#define PIECES 10

/* An arena on malloc'd chunks (no huge pages: the same on every system)
 * whose current chunk has well over 64 KiB free. */
static void fill(MimArena *a) {
    mim_arena_init(a);
    a->no_huge = true;
    for (int i = 0; i < 100; ++i) mim_arena_alloc(a, PIECE);
}

static bool all(const unsigned char *p, size_t n, unsigned char v) {
    for (size_t i = 0; i < n; ++i)
        if (p[i] != v) return false;
    return true;
}

/* PIECES blocks of `a`, checked zero, then painted with v. */
static void paint(MimArena *a, unsigned char *blocks[PIECES], unsigned char v) {
    for (int i = 0; i < PIECES; ++i) {
        blocks[i] = mim_arena_alloc(a, PIECE);
        CHECK(all(blocks[i], PIECE, 0));
        memset(blocks[i], v, PIECE);
    }
}

static void test_tail_goes_to_heir(void) {
    MimArena a, heir;
    fill(&a);
    char *cur = a.cur, *end = a.end;
    CHECK(end - cur > (128 << 10) / 2); /* the 128 KiB chunk holds 24 pieces */
    mim_arena_init(&heir);
    mim_arena_hand_tail(&a, &heir);
    CHECK(heir.cur >= cur && heir.cur < cur + 256 && heir.end == end);
    unsigned char *mine[PIECES], *theirs[PIECES];
    paint(&heir, theirs, 0x55);
    paint(&a, mine, 0xaa);
    for (int i = 0; i < PIECES; ++i) {
        CHECK(all(mine[i], PIECE, 0xaa));
        CHECK(all(theirs[i], PIECE, 0x55));
        CHECK((char *)theirs[i] >= cur && (char *)theirs[i] < end);
        CHECK((char *)mine[i] < cur || (char *)mine[i] >= end);
    }
    mim_arena_free(&heir);
    mim_arena_free(&a);
}

/* The parent goes first; the heir's memory, and that of its own heir, stays. */
static void test_parent_freed_first(void) {
    MimArena a, heir, next;
    fill(&a);
    mim_arena_init(&heir);
    mim_arena_hand_tail(&a, &heir);
    unsigned char *theirs[PIECES];
    paint(&heir, theirs, 0x55);
    mim_arena_free(&a);
    for (int i = 0; i < PIECES; ++i) CHECK(all(theirs[i], PIECE, 0x55));
    mim_arena_init(&next);
    mim_arena_hand_tail(&heir, &next); /* a tail of a tail: same memory */
    CHECK(next.head != NULL);
    unsigned char *later[PIECES];
    paint(&next, later, 0x33);
    mim_arena_free(&heir);
    for (int i = 0; i < PIECES; ++i) CHECK(all(later[i], PIECE, 0x33));
    mim_arena_free(&next);
}

/* A small end is not handed on: the heir starts with chunks of its own. */
static void test_small_tail_kept(void) {
    MimArena a, heir;
    mim_arena_init(&a);
    mim_arena_alloc(&a, 100);
    mim_arena_init(&heir);
    mim_arena_hand_tail(&a, &heir);
    CHECK(heir.head == NULL);
    CHECK(all(mim_arena_alloc(&heir, 64), 64, 0));
    mim_arena_free(&heir);
    mim_arena_free(&a);
}

/* Worlds: an heir built from a big World starts in its memory (not in a
 * sanitizer build, which must see nodes of freed Worlds) and keeps working
 * after it is gone. */
static void test_world_heir_outlives_parent(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    for (uint64_t i = 0; i < 20000; ++i) mim_lit_nat(w, i); /* ~1.5 MB of nodes */
    CHECK(mim_def_type(mim_lit_nat(w, 7)) == nat);
    char *cur = w->arena.cur, *end = w->arena.end;
    MimWorld *heir = mim_world_inherit(w);
    char *first = (char *)mim_lit_nat(heir, 123456);
#ifdef MIM_ASAN_BUILD
    CHECK(first < cur || first >= end);
#else
    CHECK(first >= cur && first < end);
#endif
    mim_world_free(w);
    MimDef *seven = mim_lit_nat(heir, 7);
    CHECK(mim_lit_nat(heir, 7) == seven && mim_def_type(seven) == mim_nat(heir));
    for (uint64_t i = 0; i < 20000; ++i) CHECK(mim_lit_nat(heir, i) != NULL);
    mim_world_free(heir);
}

/* A reset arena hands out its latest chunk again, zeroed, and lets the
 * older chunks go (the front end's scratch arena for the streamed input:
 * parser.c); many rounds keep one chunk (the sanitizer build sees leaks or
 * uses after free otherwise). */
static void test_reset_reuses_latest_chunk(void) {
    MimArena a;
    fill(&a); /* several chunks, the latest with room */
    unsigned char *blocks[PIECES];
    paint(&a, blocks, 0x5a);
    unsigned char *head = (unsigned char *)a.head, *first = NULL;
    for (int round = 0; round < 50; ++round) {
        mim_arena_reset(&a);
        CHECK(a.total == 0);
        CHECK((unsigned char *)a.head == head);
        paint(&a, blocks, (unsigned char)(round + 1)); /* checks the blocks are zero */
        if (!first) first = blocks[0];
        CHECK(blocks[0] == first && blocks[0] > head);
        CHECK((unsigned char *)a.head == head); /* they fit the kept chunk */
    }
    mim_arena_free(&a);
}

int main(void) {
    RUN(test_tail_goes_to_heir);
    RUN(test_parent_freed_first);
    RUN(test_small_tail_kept);
    RUN(test_world_heir_outlives_parent);
    RUN(test_reset_reuses_latest_chunk);
    return unit_summary();
}
