/* Prelude images (prelude.h). File layout: the key (magic, format version,
 * options, module count, then per module: name, text hash, loaded bits),
 * the tail's length and checksum, the tail (the paths the modules were
 * written from, the image references of their top-level binders in
 * mim_emit_top_binders order, a final magic), then the World image
 * (ir/image.h, checksummed itself). The file name is the key's hash, so
 * finding the image of a prefix costs one failed open per shorter prefix
 * tried. */
#define _GNU_SOURCE /* dl_iterate_phdr: the build ids of the loaded libraries */
#include "driver/prelude.h"

#include "fe/emit.h"
#include "ir/image.h"
#include "ir/ir.h" /* node locations, rewritten in place */
#include "util/sym.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define PRELUDE_MAGIC 0x31444c5250494dull /* "MIPRLD1" */
#define PRELUDE_FORMAT 4u
#define PRELUDE_DIR "prelude"

/* ---- keys ------------------------------------------------------------------ */

/* Everything about module m that emission can observe besides its text:
 * whether the plugins of the annexes it declares are loaded. */
static uint64_t loaded_bits(MimAstModule *m, MimRegistry *reg) {
    uint64_t h = mim_hash_mix(0, m->name ? mim_registry_is_loaded(reg, m->name) : 2);
    size_t n = mim_fe_module_annex_plugins(m, NULL);
    MimSym *plugins = mim_xcalloc(n ? n : 1, sizeof *plugins);
    mim_fe_module_annex_plugins(m, plugins);
    for (size_t i = 0; i < n; ++i) h = mim_hash_mix(h, plugins[i] && mim_registry_is_loaded(reg, plugins[i]));
    free(plugins);
    return h;
}

/* The build of the loaded object (libmim or a plugin library) holding
 * `addr`: a hash of its GNU build id, which the linker derives from the
 * object's contents, so copies of a library keep it and every rebuild with
 * other code changes it. Images saved by another build of the code that
 * emitted them are not trusted. 0 where there is no build id. */
typedef struct BuildQuery {
    uintptr_t addr;
    uint64_t id;
} BuildQuery;

static uint64_t build_id_note(const ElfW(Phdr) *ph, ElfW(Addr) base) {
    const unsigned char *p = (const unsigned char *)(base + ph->p_vaddr), *end = p + ph->p_memsz;
    while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
        ElfW(Nhdr) nh;
        memcpy(&nh, p, sizeof nh);
        size_t name = (nh.n_namesz + 3u) & ~3u, desc = (nh.n_descsz + 3u) & ~3u;
        const unsigned char *d = p + sizeof nh + name;
        if ((size_t)(end - p) < sizeof nh + name + desc) break;
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && memcmp(p + sizeof nh, "GNU", 4) == 0)
            return mim_hash_bytes(d, nh.n_descsz) | 1;
        p = d + desc;
    }
    return 0;
}

static int find_build(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    BuildQuery *q = data;
    bool inside = false;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = (uintptr_t)(info->dlpi_addr + ph->p_vaddr);
        if (ph->p_type == PT_LOAD && q->addr >= lo && q->addr - lo < ph->p_memsz) inside = true;
    }
    if (!inside) return 0;
    for (int i = 0; i < info->dlpi_phnum && !q->id; ++i)
        if (info->dlpi_phdr[i].p_type == PT_NOTE) q->id = build_id_note(&info->dlpi_phdr[i], info->dlpi_addr);
    return 1;
}

static uint64_t build_of(const void *addr) {
    BuildQuery q = {(uintptr_t)addr, 0};
    if (addr) dl_iterate_phdr(find_build, &q);
    return q.id;
}

static const char libmim_anchor; /* an address inside libmim */

/* The linker's symbol for libmim's own ELF header (weak: 0 without it). */
extern const ElfW(Ehdr) __ehdr_start __attribute__((weak, visibility("hidden")));

/* libmim's build, read from its own program headers rather than by a walk
 * over every loaded library (dl_iterate_phdr, which also takes the
 * loader's lock). */
static uint64_t libmim_build(void) {
    const ElfW(Ehdr) *eh = &__ehdr_start;
    if (!eh) return build_of(&libmim_anchor);
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(const void *)((const char *)eh + eh->e_phoff);
    ElfW(Addr) base = 0;
    for (int i = 0; i < eh->e_phnum; ++i) /* the header is loaded with the first segment */
        if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0) base = (ElfW(Addr))eh - ph[i].p_vaddr;
    for (int i = 0; i < eh->e_phnum; ++i)
        if (ph[i].p_type == PT_NOTE) {
            uint64_t id = build_id_note(&ph[i], base);
            if (id) return id;
        }
    return build_of(&libmim_anchor);
}

/* What the key needs of the run besides the module texts, computed once per
 * run (a run may try several prefixes): [0] the build of libmim, [i + 1]
 * the build of module i's library and its loaded bits. */
static uint64_t *run_facts(MimFe *fe, MimRegistry *reg, size_t n) {
    uint64_t *f = mim_xcalloc(n + 1, sizeof *f);
    f[0] = libmim_build();
    for (size_t i = 0; i < n; ++i) {
        MimAstModule *m = mim_fe_module(fe, i);
        uint64_t build = m->name ? build_of(mim_registry_library_address(reg, m->name)) : 0;
        f[i + 1] = mim_hash_mix(build, loaded_bits(m, reg));
    }
    return f;
}

static void put_key(MimBytes *b, MimWorld *w, MimFe *fe, size_t n, const uint64_t *facts) {
    mim_bytes_u64(b, PRELUDE_MAGIC);
    mim_bytes_u32(b, PRELUDE_FORMAT);
    mim_bytes_u64(b, mim_world_scalarize_threshold(w));
    mim_bytes_u32(b, mim_world_aggr_lam_spec(w));
    mim_bytes_u64(b, facts[0]);
    mim_bytes_u32(b, (uint32_t)n);
    for (size_t i = 0; i < n; ++i) {
        MimAstModule *m = mim_fe_module(fe, i);
        mim_bytes_str(b, m->name);
        mim_bytes_u64(b, m->text_hash);
        mim_bytes_u64(b, facts[i + 1]);
    }
}

static char *prelude_file(const char *first, const MimBytes *key, const char *ext);

/* <dir of the first module>/prelude/<key hash>.mimp (heap string). */
static char *image_path(MimFe *fe, const MimBytes *key) {
    return prelude_file(mim_fe_module(fe, 0)->path, key, "mimp");
}

/* ---- skeletons (fe/skeleton.c) -------------------------------------------------- */

#define SKELETON_MAGIC 0x314c454b5350494dull /* "MIPSKEL1" */

/* What a run knows before parsing: options, libmim's build, the roots. */
static void put_skeleton_key(MimBytes *b, MimWorld *w, const char *const *roots, size_t num_roots) {
    mim_bytes_u64(b, SKELETON_MAGIC);
    mim_bytes_u32(b, PRELUDE_FORMAT);
    mim_bytes_u64(b, mim_world_scalarize_threshold(w));
    mim_bytes_u32(b, mim_world_aggr_lam_spec(w));
    mim_bytes_u64(b, libmim_build());
    mim_bytes_u32(b, (uint32_t)num_roots);
    for (size_t i = 0; i < num_roots; ++i) mim_bytes_str(b, roots[i]);
}

/* <dir of first>/prelude/<key hash>.<ext> (heap string). */
static char *prelude_file(const char *first, const MimBytes *key, const char *ext) {
    const char *slash = first ? strrchr(first, '/') : NULL;
    size_t dir = slash ? (size_t)(slash - first) + 1 : 0;
    size_t len = dir + sizeof PRELUDE_DIR + 16 + strlen(ext) + 3;
    char *path = mim_xmalloc(len);
    snprintf(path, len, "%.*s%s/%016llx.%s", (int)dir, first ? first : "", PRELUDE_DIR,
             (unsigned long long)mim_hash_bytes(key->data, key->len), ext);
    return path;
}

/* An open regular file read from the start: its first bytes into `head`
 * (one read covers the key, the tail and an image's meta part, or a whole
 * manifest), an image's node block straight into the World's arena by
 * file_read. Reading beats mapping here: a mapped file's pages fault in one
 * by one, and each fault costs microseconds on the VMs meant (measured:
 * 800 KB read into place ~0.15 ms, mapped and copied ~0.5 ms). */
#define READ_AHEAD ((size_t)16 << 10)

typedef struct File {
    int fd;
    uint64_t size;
    uint8_t *head;   /* the file's first head_len bytes */
    size_t head_len; /* also where the next read from the file begins */
    uint64_t used;   /* bytes file_read handed out, from the start */
} File;

static bool file_open(File *f, const char *path);
static bool file_bytes(File *f, uint64_t end, MimByteReader *in);
static void file_close(File *f);
static bool write_file(const char *path, const MimBytes *b, FILE *err);

bool mim_prelude_skeleton(MimWorld *w, MimFe *fe, const char *const *roots, size_t num_roots) {
    char *first = num_roots ? mim_fe_lookup_path(fe, roots[0]) : NULL;
    if (!first) return false;
    MimBytes key = {0};
    put_skeleton_key(&key, w, roots, num_roots);
    char *path = prelude_file(first, &key, "mimf");
    File file;
    MimByteReader in;
    /* key, body length, body checksum, body */
    bool ok = file_open(&file, path) && file_bytes(&file, file.size, &in) && file.size >= key.len + 16 &&
              memcmp(in.p, key.data, key.len) == 0;
    if (ok) {
        in.p += key.len;
        uint64_t body = mim_read_u64(&in), sum = mim_read_u64(&in);
        ok = body == (uint64_t)(in.end - in.p) && mim_hash_bytes(in.p, (size_t)body) == sum &&
             mim_fe_read_skeleton(fe, &in, roots, num_roots);
    }
    file_close(&file);
    mim_vec_free(&key);
    free(path);
    free(first);
    return ok;
}

static bool write_skeleton(MimWorld *w, MimFe *fe, size_t n, FILE *err) {
    MimBytes body = {0};
    if (!mim_fe_write_skeleton(fe, n, &body)) {
        mim_vec_free(&body);
        return true; /* not of the shape a skeleton describes: none */
    }
    size_t num_roots = mim_fe_num_roots(fe);
    const char **roots = mim_xcalloc(num_roots ? num_roots : 1, sizeof *roots);
    for (size_t i = 0; i < num_roots; ++i) roots[i] = mim_fe_root_name(fe, i);
    MimBytes b = {0};
    put_skeleton_key(&b, w, roots, num_roots);
    free(roots);
    char *path = prelude_file(mim_fe_first_root_path(fe), &b, "mimf");
    mim_bytes_u64(&b, body.len);
    mim_bytes_u64(&b, mim_hash_bytes(body.data, body.len));
    mim_vec_reserve(&b, b.len + body.len);
    memcpy(b.data + b.len, body.data, body.len), b.len += body.len;
    bool ok = write_file(path, &b, err);
    mim_vec_free(&body);
    mim_vec_free(&b);
    free(path);
    return ok;
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

/* ---- files ------------------------------------------------------------------- */

static bool read_fully(int fd, void *dst, size_t n) {
    char *p = dst;
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        p += r, n -= (size_t)r;
    }
    return true;
}

/* Opens only regular files, without waiting (O_NONBLOCK: a FIFO of that
 * name would block a plain open). */
static bool file_open(File *f, const char *path) {
    memset(f, 0, sizeof *f);
    f->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (f->fd < 0 || fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) return false;
    f->size = (uint64_t)st.st_size;
    return file_bytes(f, f->size < READ_AHEAD ? f->size : READ_AHEAD, NULL);
}

/* The file's bytes [0, end) in memory (read now if need be); `in` reads
 * them, if given. */
static bool file_bytes(File *f, uint64_t end, MimByteReader *in) {
    if (end > f->size || f->used > f->head_len) return false;
    if (end > f->head_len) {
        uint8_t *h = realloc(f->head, (size_t)end);
        if (!h) return false;
        f->head = h;
        if (!read_fully(f->fd, h + f->head_len, (size_t)end - f->head_len)) return false;
        f->head_len = (size_t)end;
    }
    if (in) *in = (MimByteReader){f->head, f->head + end, true};
    return true;
}

/* MimImageSource.read: the next n bytes, from the head while it lasts. */
static bool file_read(void *user, void *dst, size_t n) {
    File *f = user;
    char *p = dst;
    if (f->used < f->head_len) {
        size_t k = f->head_len - (size_t)f->used < n ? f->head_len - (size_t)f->used : n;
        memcpy(p, f->head + f->used, k);
        p += k, n -= k, f->used += k;
    }
    if (n && !read_fully(f->fd, p, n)) return false;
    f->used += n;
    return true;
}

static void file_close(File *f) {
    if (f->fd >= 0) close(f->fd);
    free(f->head);
}

/* ---- loading ------------------------------------------------------------------ */

static MimNormalizer image_normalizer(void *reg, uint64_t id) { return mim_registry_normalizer(reg, id); }

/* Locations name the files the image was written from; this run may have
 * found the same interfaces elsewhere (a copied or installed plugin
 * directory): such locations are moved to this run's paths. */
static void move_locations(MimWorld *w, MimFe *fe, MimSym *written, size_t n, MimDef **nodes,
                           uint32_t num_nodes) {
    bool moved = false;
    for (size_t i = 0; i < n; ++i) moved |= written[i] != mim_fe_module(fe, i)->path;
    if (!moved) return;
    for (uint32_t k = 1; k <= num_nodes; ++k)
        for (size_t i = 0; i < n; ++i)
            if (nodes[k]->loc.file == written[i]) {
                nodes[k]->loc.file = mim_fe_module(fe, i)->path;
                break;
            }
    MimLoc loc = mim_world_loc(w);
    for (size_t i = 0; i < n; ++i)
        if (loc.file == written[i]) loc.file = mim_fe_module(fe, i)->path;
    mim_world_set_loc(w, loc);
}

typedef enum { LOAD_NONE, LOAD_DONE, LOAD_BROKEN } LoadResult;

/* The image file of exactly the first n modules, opened, with its key and
 * tail checked: the tail as a reader, the image as a source. */
typedef struct Prefix {
    char *path;
    File file;
    MimByteReader tail;
    MimImageSource image;
} Prefix;

static bool open_prefix(MimWorld *w, MimFe *fe, size_t n, const uint64_t *facts, Prefix *p) {
    memset(p, 0, sizeof *p);
    MimBytes key = {0};
    put_key(&key, w, fe, n, facts);
    p->path = image_path(fe, &key);
    File *f = &p->file;
    MimByteReader in;
    bool ok = file_open(f, p->path) && file_bytes(f, key.len + 16, &in) && memcmp(in.p, key.data, key.len) == 0;
    uint64_t tail_len = 0, tail_sum = 0;
    if (ok) {
        in.p += key.len;
        tail_len = mim_read_u64(&in), tail_sum = mim_read_u64(&in);
    }
    ok = ok && tail_len <= f->size - key.len - 16 && file_bytes(f, key.len + 16 + tail_len, &in) &&
         mim_hash_bytes(in.p + key.len + 16, (size_t)tail_len) == tail_sum;
    if (ok) {
        p->tail = (MimByteReader){in.p + key.len + 16, in.end, true};
        f->used = key.len + 16 + tail_len;
        p->image = (MimImageSource){file_read, f, f->size - f->used};
    }
    mim_vec_free(&key);
    return ok;
}

static void close_prefix(Prefix *p) {
    file_close(&p->file);
    free(p->path);
}

/* The image of exactly the first n modules, if there is one. Layout after
 * the key: the tail (the paths the modules were written from and the image
 * references of their top-level binders) with its length and checksum, then
 * the image. Everything is checked before anything is built, except what
 * only a forged file can get wrong: that breaks the run (LOAD_BROKEN). */
static LoadResult load_prefix(MimWorld *w, MimFe *fe, MimRegistry *reg, size_t n,
                              const uint64_t *facts, char **path) {
    Prefix p;
    bool ok = open_prefix(w, fe, n, facts, &p);
    *path = p.path;
    p.path = NULL;
    MimByteReader tail = p.tail;
    MimSym *written = mim_xcalloc(n ? n : 1, sizeof *written);
    for (size_t i = 0; ok && i < n; ++i) written[i] = mim_read_sym(&tail, w);
    ok = ok && tail.ok;
    uint32_t num_nodes = 0;
    bool changed = false;
    MimDef **nodes = ok ? mim_image_read(w, &p.image, image_normalizer, reg, &num_nodes, &changed) : NULL;
    BinderIn bi = {&tail, nodes, num_nodes, NULL, NULL, 0, 0};
    for (size_t i = 0; nodes && tail.ok && i < n; ++i) mim_emit_top_binders(mim_fe_module(fe, i), take_binder, &bi);
    ok = nodes && tail.ok && mim_read_u64(&tail) == PRELUDE_MAGIC && tail.p == tail.end;
    if (ok) {
        for (size_t i = 0; i < bi.len; ++i) bi.binders[i]->def = bi.defs[i];
        for (size_t i = 0; i < n; ++i) mim_emit_restore_annexes(w, mim_fe_module(fe, i));
        move_locations(w, fe, written, n, nodes, num_nodes);
    }
    free(written);
    free(bi.binders);
    free(bi.defs);
    free(nodes);
    close_prefix(&p);
    return ok ? LOAD_DONE : changed ? LOAD_BROKEN : LOAD_NONE;
}

static void report_broken(MimWorld *w, const char *path) {
    MimLoc none = {0};
    mim_diag_report(mim_world_diag(w), MIM_ERROR, none,
                    "prelude image \"%s\" is inconsistent (forged or from another build); remove it "
                    "or run with MIM_NO_PRELUDE=1",
                    path);
}

size_t mim_prelude_load(MimWorld *w, MimFe *fe, MimRegistry *reg) {
    size_t num = mim_fe_num_modules(fe), found = 0;
    size_t longest = num ? num - 1 : 0; /* never the input */
    uint64_t *facts = run_facts(fe, reg, longest);
    size_t num_skeleton = mim_fe_num_skeleton_modules(fe);
    for (size_t n = longest; n > 0 && !found; --n) {
        char *path = NULL;
        LoadResult r = load_prefix(w, fe, reg, n, facts, &path);
        if (r == LOAD_BROKEN) report_broken(w, path);
        free(path);
        if (r == LOAD_DONE) found = n;
        if (r == LOAD_BROKEN) found = MIM_PRELUDE_BROKEN;
        /* Skeleton modules cannot be emitted: when no image covering them
         * fits (the input's directives loaded libraries that change what
         * they emit, a damaged file), they are parsed and bound after all,
         * in the same order, so the facts computed stay valid. */
        if (!found && n <= num_skeleton) {
            mim_fe_materialize(fe);
            num_skeleton = 0;
        }
    }
    free(facts);
    return found;
}

/* ---- writing ------------------------------------------------------------------ */

typedef MIM_VEC(MimDef *) DefList;

static void add_root(void *user, MimBinder *b) { mim_vec_push((DefList *)user, b ? b->def : NULL); }

bool mim_prelude_write(MimWorld *w, MimFe *fe, MimRegistry *reg, size_t n, FILE *err) {
    if (n == 0) return true;
    MimBytes b = {0};
    uint64_t *facts = run_facts(fe, reg, n);
    put_key(&b, w, fe, n, facts);
    free(facts);
    char *path = image_path(fe, &b);
    DefList roots = {0}; /* what the top-level binders denote, in walk order */
    for (size_t i = 0; i < n; ++i) mim_emit_top_binders(mim_fe_module(fe, i), add_root, &roots);
    uint32_t *refs = mim_xmalloc((roots.len ? roots.len : 1) * sizeof *refs);
    MimBytes image = {0}, tail = {0};
    mim_image_write(w, roots.data, roots.len, &image, refs);
    for (size_t i = 0; i < n; ++i) mim_bytes_str(&tail, mim_fe_module(fe, i)->path);
    for (size_t i = 0; i < roots.len; ++i) mim_bytes_u32(&tail, refs[i]);
    mim_bytes_u64(&tail, PRELUDE_MAGIC);
    mim_bytes_u64(&b, tail.len);
    mim_bytes_u64(&b, mim_hash_bytes(tail.data, tail.len));
    mim_vec_reserve(&b, b.len + tail.len + image.len);
    memcpy(b.data + b.len, tail.data, tail.len), b.len += tail.len;
    memcpy(b.data + b.len, image.data, image.len), b.len += image.len;
    mim_vec_free(&image);
    mim_vec_free(&tail);
    free(refs);
    mim_vec_free(&roots);

    bool ok = write_file(path, &b, err) && write_skeleton(w, fe, n, err);
    free(path);
    mim_vec_free(&b);
    return ok;
}

/* Written next to its final name, then renamed: a run never reads a
 * half-written file. Creates the prelude directory. */
static bool write_file(const char *final, const MimBytes *b, FILE *err) {
    size_t plen = strlen(final);
    char *path = mim_xstrdup(final);
    char *slash = strrchr(path, '/');
    if (slash) {
        *slash = 0;
        mkdir(path, 0777);
    }
    free(path);
    char *tmp = mim_xmalloc(plen + 5);
    memcpy(tmp, final, plen);
    memcpy(tmp + plen, ".tmp", 5);
    FILE *f = fopen(tmp, "wb");
    bool ok = f && fwrite(b->data, 1, b->len, f) == b->len;
    if (f && fclose(f) != 0) ok = false;
    if (ok && rename(tmp, final) != 0) ok = false;
    if (!ok) {
        fprintf(err, "error: cannot write prelude image \"%s\": %s\n", final, strerror(errno));
        remove(tmp);
    }
    free(tmp);
    return ok;
}
