/* Prelude images (prelude.h). File layout: magic, format version, the key
 * (module count, then per module: name, text hash, loaded bits), the World
 * image (ir/image.h), then the image references of the top-level binders of
 * each module (in mim_emit_top_binders order),
 * and a final magic. The file name is the key's hash, so finding the image
 * of a prefix costs one failed open per shorter prefix tried. */
#include "driver/prelude.h"

#include "fe/emit.h"
#include "ir/image.h"
#include "util/sym.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PRELUDE_MAGIC 0x31444c5250494dull /* "MIPRLD1" */
#define PRELUDE_FORMAT 1u
#define PRELUDE_DIR "prelude"

/* ---- keys ------------------------------------------------------------------ */

static bool annex_plugin_loaded(MimRegistry *reg, MimAnnex *a) {
    return a && a->plugin && mim_registry_is_loaded(reg, a->plugin);
}

/* Everything about module m that emission can observe besides its text:
 * whether the plugins of the annexes it declares are loaded. */
static uint64_t loaded_bits(MimAstModule *m, MimRegistry *reg) {
    uint64_t h = mim_hash_mix(0, m->name ? mim_registry_is_loaded(reg, m->name) : 2);
    for (size_t i = 0; i < m->num_decls; ++i) {
        MimAstDecl *d = m->decls[i];
        MimAnnex *a = d->kind == MIM_DECL_AXM ? d->u.axm.annex
                      : d->kind == MIM_DECL_LET ? d->u.let.annex
                      : d->kind == MIM_DECL_REC ? d->u.rec.annex
                      : d->kind == MIM_DECL_FUN ? d->u.fun->annex
                                                : NULL;
        if (a) h = mim_hash_mix(h, annex_plugin_loaded(reg, a));
    }
    return h;
}

static void put_key(MimBytes *b, MimWorld *w, MimFe *fe, MimRegistry *reg, size_t n) {
    mim_bytes_u64(b, PRELUDE_MAGIC);
    mim_bytes_u32(b, PRELUDE_FORMAT);
    mim_bytes_u64(b, mim_world_scalarize_threshold(w));
    mim_bytes_u32(b, mim_world_aggr_lam_spec(w));
    mim_bytes_u32(b, (uint32_t)n);
    for (size_t i = 0; i < n; ++i) {
        MimAstModule *m = mim_fe_module(fe, i);
        mim_bytes_str(b, m->name);
        mim_bytes_u64(b, m->text_hash);
        mim_bytes_u64(b, loaded_bits(m, reg));
    }
}

/* <dir of the first module>/prelude/<key hash>.mimp (heap string). */
static char *image_path(MimFe *fe, const MimBytes *key) {
    const char *first = mim_fe_module(fe, 0)->path;
    const char *slash = first ? strrchr(first, '/') : NULL;
    size_t dir = slash ? (size_t)(slash - first) + 1 : 0;
    size_t len = dir + sizeof PRELUDE_DIR + 16 + sizeof ".mimp" + 1;
    char *path = mim_xmalloc(len);
    snprintf(path, len, "%.*s%s/%016llx.mimp", (int)dir, first ? first : "", PRELUDE_DIR,
             (unsigned long long)mim_hash_bytes(key->data, key->len));
    return path;
}

/* ---- binders ------------------------------------------------------------------ */

typedef struct BinderIn {
    MimByteReader *in;
    MimDef **nodes; /* by image reference */
    uint32_t num_nodes;
    MimBinder **binders; /* collected first, bound only once all are read */
    MimDef **defs;
    size_t len, cap;
} BinderIn;

static void take_binder(void *user, MimBinder *b) {
    BinderIn *bi = user;
    uint32_t ref = mim_read_u32(bi->in);
    if (ref > bi->num_nodes || (ref && !bi->nodes[ref])) bi->in->ok = false;
    if (!bi->in->ok || !b) return;
    if (bi->len == bi->cap) {
        bi->cap = bi->cap ? 2 * bi->cap : 256;
        bi->binders = mim_xrealloc(bi->binders, bi->cap * sizeof *bi->binders);
        bi->defs = mim_xrealloc(bi->defs, bi->cap * sizeof *bi->defs);
    }
    bi->binders[bi->len] = b;
    bi->defs[bi->len++] = bi->nodes[ref];
}

/* ---- loading ------------------------------------------------------------------ */

/* The file mapped read-only (no copy: fewer pages to fault in). */
static const uint8_t *map_file(const char *path, size_t *len) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return NULL;
    struct stat st;
    void *p = MAP_FAILED;
    if (fstat(fd, &st) == 0 && st.st_size > 0)
        p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return NULL;
    *len = (size_t)st.st_size;
    return p;
}

static MimNormalizer image_normalizer(void *reg, uint64_t id) { return mim_registry_normalizer(reg, id); }

/* The image of exactly the first n modules, if there is one. */
static bool load_prefix(MimWorld *w, MimFe *fe, MimRegistry *reg, size_t n) {
    MimBytes key = {0};
    put_key(&key, w, fe, reg, n);
    char *path = image_path(fe, &key);
    size_t len = 0;
    const uint8_t *data = map_file(path, &len);
    free(path);
    bool ok = data && len >= key.len && memcmp(data, key.data, key.len) == 0;
    MimByteReader in = {NULL, NULL, false};
    if (ok) in = (MimByteReader){data + key.len, data + len, true};
    uint32_t num_nodes = 0;
    MimDef **nodes = ok ? mim_image_read(w, &in, image_normalizer, reg, &num_nodes) : NULL;
    /* The binder table follows the image. */
    if (nodes) in = (MimByteReader){in.end, data + len, true};
    BinderIn bi = {&in, nodes, num_nodes, NULL, NULL, 0, 0};
    for (size_t i = 0; nodes && in.ok && i < n; ++i) mim_emit_top_binders(mim_fe_module(fe, i), take_binder, &bi);
    ok = nodes && in.ok && mim_read_u64(&in) == PRELUDE_MAGIC && in.p == in.end;
    if (ok) {
        for (size_t i = 0; i < bi.len; ++i) bi.binders[i]->def = bi.defs[i];
        for (size_t i = 0; i < n; ++i) mim_emit_restore_annexes(w, mim_fe_module(fe, i));
    }
    free(bi.binders);
    free(bi.defs);
    free(nodes);
    if (data) munmap((void *)data, len);
    mim_vec_free(&key);
    return ok;
}

size_t mim_prelude_load(MimWorld *w, MimFe *fe, MimRegistry *reg) {
    size_t num = mim_fe_num_modules(fe);
    for (size_t n = num ? num - 1 : 0; n > 0; --n)
        if (load_prefix(w, fe, reg, n)) return n;
    return 0;
}

/* ---- writing ------------------------------------------------------------------ */

typedef MIM_VEC(MimDef *) DefList;

static void add_root(void *user, MimBinder *b) { mim_vec_push((DefList *)user, b ? b->def : NULL); }

bool mim_prelude_write(MimWorld *w, MimFe *fe, MimRegistry *reg, size_t n, FILE *err) {
    if (n == 0) return true;
    MimBytes b = {0};
    put_key(&b, w, fe, reg, n);
    char *path = image_path(fe, &b);
    DefList roots = {0}; /* what the top-level binders denote, in walk order */
    for (size_t i = 0; i < n; ++i) mim_emit_top_binders(mim_fe_module(fe, i), add_root, &roots);
    uint32_t *refs = mim_xmalloc((roots.len ? roots.len : 1) * sizeof *refs);
    mim_image_write(w, roots.data, roots.len, &b, refs);
    for (size_t i = 0; i < roots.len; ++i) mim_bytes_u32(&b, refs[i]);
    mim_bytes_u64(&b, PRELUDE_MAGIC);
    free(refs);
    mim_vec_free(&roots);

    char *slash = strrchr(path, '/');
    if (slash) { /* the prelude directory */
        *slash = 0;
        mkdir(path, 0777);
        *slash = '/';
    }
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(b.data, 1, b.len, f) == b.len;
    if (f && fclose(f) != 0) ok = false;
    if (!ok) fprintf(err, "error: cannot write prelude image \"%s\": %s\n", path, strerror(errno));
    free(path);
    mim_vec_free(&b);
    return ok;
}
