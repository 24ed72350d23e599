/* World images (src/ir/image.h), the machinery behind prelude images: a
 * World read back from its image prints the same (gids included), has the
 * same node count and gid counter, keeps normalizers, externals, annexes
 * and mutables, goes on consuming gids exactly like the original, and an
 * image that is cut short or damaged is refused before anything is built. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "ir/image.h"
#include "ir/print.h"
#include "mim/session.h"
#include "mim/world.h"
#include "unit.h"
#include "util/sym.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CORE_ID 0x1104c60000000000ull
#define CORE_MINUS (CORE_ID | 0x800) /* %core.minus (docs/plugin-interfaces.md) */

static const char program[] =
    "plugin core;\n"
    "plugin mem;\n"
    "let two = %core.nat.add (1, 1);\n"
    "lam extern f (n: Nat): Nat = %core.nat.mul (n, two);\n"
    "fun extern g (m: %mem.M, x: I32): [%mem.M, I32] = return (m, %core.wrap.add 0 (x, 1I32));\n";

static char *dump(MimWorld *w) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    MimPrintOptions po = {.dump_gid = 2};
    mim_print_world(w, f, &po, NULL, 0);
    fclose(f);
    return buf;
}

static MimNormalizer no_normalizer(void *user, uint64_t id) {
    (void)user, (void)id;
    return NULL;
}

/* The normalizers of the original World, found through its annexes. */
static MimNormalizer same_normalizer(void *user, uint64_t id) {
    MimDef *ax = mim_annex(user, id);
    return ax ? mim_axiom_normalizer(ax) : NULL;
}

/* Reads the image bytes [p, p + n) into `into` (mim_image_read). */
static MimDef **read_image(MimWorld *into, const uint8_t *p, size_t n, MimImageNormFn norm, void *user,
                           uint32_t *num_nodes, bool *changed) {
    MimByteReader in = {p, p + n, true};
    MimImageSource src = mim_image_source_bytes(&in);
    return mim_image_read(into, &src, norm, user, num_nodes, changed);
}

/* The program built in a session, its World and that World's image. */
typedef struct Written {
    MimSession *s;
    MimWorld *w;
    MimBytes img;
} Written;

static Written written(void) {
    Written x = {mim_session_new(NULL, 0), NULL, {0}};
    CHECK(mim_session_source(x.s, "image.mim", program, sizeof program - 1));
    CHECK(mim_session_build(x.s));
    x.w = mim_session_world(x.s);
    mim_image_write(x.w, NULL, 0, &x.img, NULL);
    return x;
}

static void written_free(Written *x) {
    mim_vec_free(&x->img);
    mim_session_free(x->s);
}

static void test_round_trip(void) {
    Written x = written();
    MimWorld *w = x.w;

    MimWorld *copy = mim_world_new();
    uint32_t num_nodes = 0;
    bool changed;
    MimDef **nodes = read_image(copy, x.img.data, x.img.len, same_normalizer, w, &num_nodes, &changed);
    CHECK(nodes != NULL && nodes[0] == NULL && changed); /* the driver relies on it */
    CHECK(num_nodes >= mim_world_num_nodes(w)); /* the hash table, plus mutables */
    CHECK(mim_world_gid_counter(copy) == mim_world_gid_counter(w));
    CHECK(mim_world_num_nodes(copy) == mim_world_num_nodes(w));
    CHECK(mim_world_num_externals(copy) == mim_world_num_externals(w));
    char *a = dump(w), *b = dump(copy);
    CHECK(strcmp(a, b) == 0);
    free(a), free(b);

    /* The copy goes on exactly like the original: same new nodes, same gids,
     * and the normalizers came along (%core.minus folds). */
    MimDef *m1 = mim_annex(w, CORE_MINUS), *m2 = mim_annex(copy, CORE_MINUS);
    CHECK(m1 && m2 && mim_def_gid(m1) == mim_def_gid(m2));
    MimDef *r1 = mim_iapp(w, mim_iapp(w, m1, mim_lit_nat(w, 0)), mim_lit_idx(w, 256, 42));
    MimDef *r2 = mim_iapp(copy, mim_iapp(copy, m2, mim_lit_nat(copy, 0)), mim_lit_idx(copy, 256, 42));
    uint64_t v1 = 0, v2 = 0;
    CHECK(r1 && r2 && mim_def_lit(r1, &v1) && mim_def_lit(r2, &v2) && v1 == 214 && v2 == 214);
    CHECK(mim_def_gid(r1) == mim_def_gid(r2));
    CHECK(mim_world_gid_counter(copy) == mim_world_gid_counter(w));
    MimDef *f1 = mim_world_lookup_external(w, mim_world_sym(w, "f"));
    MimDef *f2 = mim_world_lookup_external(copy, mim_world_sym(copy, "f"));
    CHECK(f1 && f2 && f1 != f2 && mim_def_is_mut(f2) && mim_def_gid(f1) == mim_def_gid(f2));
    bool listed = false;
    for (uint32_t i = 1; i <= num_nodes; ++i) listed |= nodes[i] == f2;
    CHECK(listed);

    free(nodes);
    mim_world_free(copy);
    written_free(&x);
}

/* An image names the normalizers it needs: without them it is refused. */
static void test_missing_normalizer_refused(void) {
    Written x = written();
    MimWorld *copy = mim_world_new();
    uint32_t gid0 = mim_world_gid_counter(copy);
    uint32_t n = 0;
    bool changed;
    CHECK(read_image(copy, x.img.data, x.img.len, no_normalizer, NULL, &n, &changed) == NULL && !changed);
    CHECK(mim_world_gid_counter(copy) == gid0 && mim_world_num_externals(copy) == 0);
    mim_world_free(copy);
    written_free(&x);
}

/* Only a World with nothing but its builtins can take an image. */
static void test_used_world_refused(void) {
    Written x = written();
    MimWorld *used = mim_world_new();
    mim_lit_nat(used, 77);
    uint32_t n = 0;
    bool changed;
    CHECK(read_image(used, x.img.data, x.img.len, same_normalizer, x.w, &n, &changed) == NULL && !changed);
    mim_world_free(used);
    written_free(&x);
}

/* Reads the image bytes [p, p + n) into a fresh World: true iff they are
 * refused before anything was built (no result, not changed, no gid used). */
static bool refused_untouched(const uint8_t *p, size_t n, MimWorld *normalizers) {
    MimWorld *copy = mim_world_new();
    uint32_t num = 0, gid0 = mim_world_gid_counter(copy);
    bool changed;
    MimDef **t = read_image(copy, p, n, same_normalizer, normalizers, &num, &changed);
    bool refused = t == NULL && !changed && mim_world_gid_counter(copy) == gid0;
    free(t);
    mim_world_free(copy);
    return refused;
}

/* Every truncation and a sweep of damaged bytes: refused before anything
 * is built, the World untouched (the sanitizer build checks the memory
 * accesses). */
static void test_damaged_images(void) {
    Written x = written();
    MimWorld *w = x.w;
    MimBytes img = x.img;
    unsigned refused = 0, tries = 0;
    for (size_t cut = 0; cut < img.len; cut += 1 + cut / 16)
        refused += refused_untouched(img.data, cut, w), tries++;
    CHECK(refused == tries); /* a cut image always fails its length or checksum */
    CHECK(tries > 20);
    refused = tries = 0;
    uint8_t *bad = malloc(img.len);
    for (size_t pos = 0; pos < img.len; pos += 1 + img.len / 300) {
        memcpy(bad, img.data, img.len);
        bad[pos] ^= 0xa5;
        refused += refused_untouched(bad, img.len, w), tries++;
    }
    CHECK(refused == tries); /* every damaged byte is caught by the checksum */
    free(bad);
    written_free(&x);
}

/* A World that refused an image after reading its node block (a damaged
 * last byte: the block's checksum fails) is as good as new: the block's
 * arena space is given back zeroed, so mutables built afterwards have no
 * operands, and the intact image can still be read into it. */
static void test_world_reusable_after_refusal(void) {
    Written x = written();
    MimWorld *w = x.w;
    MimBytes img = x.img;
    uint8_t *bad = malloc(img.len);
    memcpy(bad, img.data, img.len);
    bad[img.len - 1] ^= 0x5a;

    MimWorld *copy = mim_world_new();
    uint32_t n = 0;
    bool changed;
    CHECK(read_image(copy, bad, img.len, same_normalizer, w, &n, &changed) == NULL && !changed);
    MimDef *sigma = mim_mut_sigma(copy, mim_type_lvl(copy, 0), 40);
    bool unset = sigma != NULL;
    for (size_t i = 0; sigma && i < 40; ++i) unset &= mim_def_op(sigma, i) == NULL;
    CHECK(unset && !mim_def_is_set(sigma));
    mim_world_free(copy);

    copy = mim_world_new();
    CHECK(read_image(copy, bad, img.len, same_normalizer, w, &n, &changed) == NULL && !changed);
    MimDef **nodes = read_image(copy, img.data, img.len, same_normalizer, w, &n, &changed);
    CHECK(nodes != NULL);
    char *a = dump(w), *b = dump(copy);
    CHECK(strcmp(a, b) == 0);
    free(a), free(b);
    free(nodes);
    mim_world_free(copy);
    free(bad);
    written_free(&x);
}

/* Header words of an image (src/ir/image.c): magic, node layout, the
 * lengths of the meta part and the node block, their checksums. */
enum { HEADER = 48, META_LEN = 16, META_SUM = 32, BLOCK_SUM = 40 };

/* Makes the checksums of a changed image fit again. */
static void reseal(uint8_t *img, size_t len) {
    uint64_t meta_len, sum;
    memcpy(&meta_len, img + META_LEN, 8);
    if (meta_len > len - HEADER) return; /* the forgery hit the length itself */
    sum = mim_checksum(img + HEADER, (size_t)meta_len);
    memcpy(img + META_SUM, &sum, 8);
    sum = mim_checksum(img + HEADER + meta_len, len - HEADER - (size_t)meta_len);
    memcpy(img + BLOCK_SUM, &sum, 8);
}

/* Forged images: bytes changed and the checksums made to fit again. The
 * reader's structural checks must refuse what the rest of the library
 * cannot take (mutable axioms, wrong operand counts, foreign variables,
 * references out of range or forwards, …) before the World changes;
 * whatever it accepts or refuses, nothing crashes (checked by the
 * sanitizer build), and a refusal after building began says so. */
static void test_forged_images(void) {
    Written x = written();
    MimWorld *w = x.w;
    MimBytes img = x.img;
    uint8_t *bad = malloc(img.len);
    unsigned tries = 0, refused = 0, untouched = 0, late = 0;
    for (size_t pos = 8; pos < img.len; pos += 1 + img.len / 600) {
        if (pos >= META_SUM && pos < HEADER) continue; /* the checksums themselves */
        for (unsigned flip = 1; flip < 0x100; flip <<= 3) {
            memcpy(bad, img.data, img.len);
            bad[pos] ^= (uint8_t)flip;
            reseal(bad, img.len);
            MimWorld *copy = mim_world_new();
            uint32_t gid0 = mim_world_gid_counter(copy);
            size_t nodes0 = mim_world_num_nodes(copy);
            uint32_t n = 0;
            bool changed;
            MimDef **t = read_image(copy, bad, img.len, same_normalizer, w, &n, &changed);
            tries++;
            refused += t == NULL;
            CHECK(t != NULL || changed || mim_world_num_externals(copy) == 0);
            if (!t && !changed) /* refused without a trace */
                untouched += mim_world_gid_counter(copy) == gid0 && mim_world_num_nodes(copy) == nodes0;
            late += !t && changed; /* two equal immutables, found while entering them */
            if (t) CHECK(mim_world_gid_counter(copy) == mim_world_gid_counter(w));
            if (t) free(dump(copy)); /* an accepted World can be walked */
            free(t);
            mim_world_free(copy);
        }
    }
    CHECK(tries > 500 && refused > tries / 4);
    CHECK(untouched + late == refused && untouched > refused / 2);
    free(bad);
    written_free(&x);
}

int main(void) {
    RUN(test_round_trip);
    RUN(test_missing_normalizer_refused);
    RUN(test_used_world_refused);
    RUN(test_damaged_images);
    RUN(test_forged_images);
    RUN(test_world_reusable_after_refusal);
    return unit_summary();
}
