/* World images: the complete state of a World (every node with its gid,
 * names, locations, externals, annexes, the β-reduction cache and the
 * counters) as bytes, and the way back into a fresh World, node for node:
 * the nodes are a snapshot of the arena, relocated where they are read to.
 * A World read from an image is indistinguishable from the one written:
 * same gids, same hash-table contents, same later gid consumption. The
 * driver uses images to skip re-emitting the standard plugin interfaces on
 * every run (driver/prelude.c). */
#ifndef MIM_IR_IMAGE_H
#define MIM_IR_IMAGE_H

#include "mim/plugin.h"
#include "mim/vec.h"
#include "mim/world.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef MIM_VEC(uint8_t) MimBytes;

/* Little helpers for the byte formats built on images (native byte order:
 * images are caches for the machine that wrote them). */
void mim_bytes_u32(MimBytes *b, uint32_t x);
void mim_bytes_u64(MimBytes *b, uint64_t x);
void mim_bytes_str(MimBytes *b, const char *s); /* NULL allowed */

typedef struct MimByteReader {
    const uint8_t *p, *end;
    bool ok; /* false once a read ran past the end or met a bad value */
} MimByteReader;

/* A LEB128 number; most are below 128, read here without a call. */
uint32_t mim_read_u32_long(MimByteReader *r);
static inline uint32_t mim_read_u32(MimByteReader *r) {
    if (r->p < r->end && *r->p < 0x80) return *r->p++;
    return mim_read_u32_long(r);
}
uint64_t mim_read_u64(MimByteReader *r);
/* A string written by mim_bytes_str, interned in w (NULL stays NULL). */
MimSym mim_read_sym(MimByteReader *r, MimWorld *w);

/* Appends the image of w: every hash-consed node and everything reachable
 * from those nodes, the externals, the annexes, the reduction cache and
 * roots[0..n) (entries may be NULL). root_refs[i] receives the reference of
 * roots[i] (0 for NULL): what mim_image_read's table holds at that index. */
void mim_image_write(MimWorld *w, MimDef *const *roots, size_t num_roots, MimBytes *out,
                     uint32_t *root_refs);

/* Normalizer of axiom `id`, or NULL if its plugin is not loaded. */
typedef MimNormalizer (*MimImageNormFn)(void *user, uint64_t id);

/* Where an image's bytes come from: `read` copies the next n bytes to dst
 * (false if there are fewer); `size` is the number of bytes the source
 * holds, all of them the image's (more or fewer: refused before anything
 * is allocated). The node block is read straight into the World's arena:
 * a file source does that without mapping the file or copying it twice. */
typedef struct MimImageSource {
    bool (*read)(void *user, void *dst, size_t n);
    void *user;
    uint64_t size;
} MimImageSource;

/* A source reading from a MimByteReader (`reader`), and its read function. */
MimImageSource mim_image_source_bytes(MimByteReader *reader);
bool mim_byte_reader_read(void *reader, void *dst, size_t n);

/* Reads an image into w, which must hold no node besides its builtins.
 * Returns the nodes by reference (index 0 is NULL, *num_nodes entries
 * after it; caller frees), *changed true, or NULL. An image that is cut
 * short or damaged (checksums), meant for another World or build, needing
 * a normalizer `norm` does not provide, or whose records are inconsistent
 * (a forged file with fitting checksums) is refused before w changes:
 * *changed false. Only a forged image holding two equal immutables is
 * found while they enter the hash table: then *changed is true and w holds
 * some of its nodes, so w must not be used as if nothing had happened. */
MimDef **mim_image_read(MimWorld *w, const MimImageSource *src, MimImageNormFn norm, void *user,
                        uint32_t *num_nodes, bool *changed);

#endif
