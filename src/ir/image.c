/* World images (image.h) as relocatable snapshots.
 *
 * Layout: a fixed header (magic, the node layout of this build, the lengths
 * and checksums of the two parts), then the *meta* part, a stream of LEB128
 * numbers: gid counters, the ids of the axioms that need normalizers, the
 * strings, the builtins the image names, the externals, the annexes, the
 * reduction cache and the World's counters; then the *block*: every other
 * node in gid order, laid out exactly as the World's arena holds it
 * (MimDef, operands, MimMutExt, a Sigma's field names), except that node
 * references hold node numbers (position in gid order + 1, builtins first;
 * 0 = none) and names hold string numbers.
 *
 * Reading copies the block into the World's arena in one go (the driver
 * reads it from the file straight into place) and relocates it where it
 * lies: numbers become addresses, hashes and dependencies are recomputed,
 * immutables enter the hash table. Decoding a stream record by record cost
 * ~400 instructions per node; relocating costs a fraction of that. Every
 * record is checked before the World changes (kinds, operand counts,
 * references in range and, for immutables, backwards, a variable's binder,
 * an application's axiom): a forged image with a fitting checksum is
 * refused without a trace, except one holding two equal immutables, found
 * only while entering them into the hash table. The header pins the node
 * layout; the prelude key pins the build of libmim besides. */
#include "ir/image.h"

#include "ir/build.h"
#include "ir/check.h"
#include "mim/ptrmap.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define IMAGE_MAGIC 0x32474d494d494dull /* "MIMIMG2" */
#define HEADER_WORDS 6                  /* magic, layout, meta and block lengths, their checksums */

/* Pointers are stored as numbers in their own slots. */
_Static_assert(sizeof(uintptr_t) == sizeof(void *), "a slot holds a number");
_Static_assert(sizeof(MimDef) % sizeof(void *) == 0, "operands follow a record's MimDef");

/* Records are padded as the arena pads nodes: each starts aligned for MimDef
 * (wider than a pointer where uint64_t is, e.g. 32-bit ARM). */
static size_t record_end(size_t size) {
    return (size + _Alignof(MimDef) - 1) & ~(size_t)(_Alignof(MimDef) - 1);
}

/* What a record's layout depends on: an image of another layout is refused. */
static uint64_t node_layout(void) {
    return (uint64_t)sizeof(MimDef) | (uint64_t)offsetof(MimDef, name) << 12 |
           (uint64_t)offsetof(MimDef, u) << 24 | (uint64_t)sizeof(MimMutExt) << 36 |
           (uint64_t)offsetof(MimDef, loc) << 48;
}

/* ---- bytes ----------------------------------------------------------------- */

static void put(MimBytes *b, const void *p, size_t n) {
    if (n == 0) return; /* p may be NULL */
    mim_vec_reserve(b, b->len + n);
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static void put_u8(MimBytes *b, uint8_t x) { put(b, &x, 1); }
/* A LEB128 varint. */
static void put_u64v(MimBytes *b, uint64_t x) {
    uint8_t buf[10];
    size_t n = 0;
    do {
        buf[n] = (uint8_t)(x & 0x7f);
        x >>= 7;
        if (x) buf[n] |= 0x80;
        ++n;
    } while (x);
    put(b, buf, n);
}
/* u32s as LEB128 varints: most are small gids, counts and columns. */
void mim_bytes_u32(MimBytes *b, uint32_t x) { put_u64v(b, x); }
void mim_bytes_u64(MimBytes *b, uint64_t x) { put(b, &x, sizeof x); }

void mim_bytes_str(MimBytes *b, const char *s) {
    if (!s) {
        mim_bytes_u32(b, 0);
        return;
    }
    size_t n = strlen(s);
    mim_bytes_u32(b, (uint32_t)n + 1);
    put(b, s, n);
}

static const uint8_t *take(MimByteReader *r, size_t n) {
    if (!r->ok || (size_t)(r->end - r->p) < n) {
        r->ok = false;
        return NULL;
    }
    const uint8_t *p = r->p;
    r->p += n;
    return p;
}

static uint8_t read_u8(MimByteReader *r) {
    if (r->p < r->end) return *r->p++;
    r->ok = false;
    return 0;
}

/* A LEB128 varint of at most `max_bytes` bytes. */
static uint64_t read_varint(MimByteReader *r, unsigned max_bytes) {
    uint64_t x = 0;
    for (unsigned k = 0; k < max_bytes; ++k) {
        const uint8_t *p = take(r, 1);
        if (!p) return 0;
        x |= (uint64_t)(*p & 0x7f) << (7 * k);
        if (!(*p & 0x80)) return x;
    }
    r->ok = false; /* too long for its type */
    return 0;
}

static uint64_t read_u64v(MimByteReader *r) { return read_varint(r, 10); }

uint32_t mim_read_u32_long(MimByteReader *r) {
    uint64_t x = read_varint(r, 5);
    if (x <= UINT32_MAX) return (uint32_t)x;
    r->ok = false;
    return 0;
}

uint64_t mim_read_u64(MimByteReader *r) {
    uint64_t x = 0;
    const uint8_t *p = take(r, sizeof x);
    if (p) memcpy(&x, p, sizeof x);
    return x;
}

MimSym mim_read_sym(MimByteReader *r, MimWorld *w) {
    uint32_t n = mim_read_u32(r);
    if (n == 0) return NULL;
    const uint8_t *s = take(r, n - 1);
    return s ? mim_world_sym_n(w, (const char *)s, n - 1) : NULL;
}

/* ---- writing ------------------------------------------------------------------ */

typedef struct Writer {
    MimWorld *w;
    MimPtrMap seen;            /* node -> itself */
    MIM_VEC(MimDef *) nodes;   /* collection stack, then the sorted nodes */
    MIM_VEC(MimDef *) pending; /* not yet expanded */
    MimPtrMap index;           /* node -> its number */
    MimPtrMap str_index;       /* string -> its number */
    MIM_VEC(MimSym) strs;      /* by number - 1 */
    MimBytes block, rest;      /* the block; the meta part after the strings */
} Writer;

static void collect(Writer *wr, MimDef *d) {
    if (d && mim_ptrmap_add(&wr->seen, d, d, NULL)) mim_vec_push(&wr->pending, d);
}

static void expand(Writer *wr) {
    while (wr->pending.len) {
        MimDef *d = mim_vec_pop(&wr->pending);
        mim_vec_push(&wr->nodes, d);
        collect(wr, d->type);
        for (uint32_t i = 0; i < d->num_ops; ++i) collect(wr, d->ops[i]);
        if (d->is_mut) collect(wr, mim_mut_ext(d)->var);
        else if (d->node == MIM_APP) collect(wr, d->u.app.axiom);
    }
}

static int by_gid(const void *a, const void *b) {
    uint32_t x = (*(MimDef *const *)a)->gid, y = (*(MimDef *const *)b)->gid;
    return (x > y) - (x < y);
}

/* A node's number: its position in gid order + 1 (0 = none). */
static uint32_t ref_of(Writer *wr, const MimDef *d) {
    return d ? (uint32_t)(uintptr_t)mim_ptrmap_get(&wr->index, d) : 0;
}

/* A string's number (0 = none), numbered in order of first use. */
static uint32_t str_of(Writer *wr, MimSym s) {
    if (!s) return 0;
    void **slot = mim_ptrmap_find(&wr->str_index, s);
    if (slot) return (uint32_t)(uintptr_t)*slot;
    mim_vec_push(&wr->strs, s);
    mim_ptrmap_put(&wr->str_index, s, (void *)(uintptr_t)wr->strs.len);
    return (uint32_t)wr->strs.len;
}

static void put_loc(Writer *wr, MimBytes *b, MimLoc l) {
    mim_bytes_u32(b, str_of(wr, l.file));
    mim_bytes_u32(b, l.begin.row), mim_bytes_u32(b, l.begin.col);
    mim_bytes_u32(b, l.end.row), mim_bytes_u32(b, l.end.col);
}

/* A number in a pointer's slot of a record. */
static void put_slot(void *slot, uintptr_t x) { memcpy(slot, &x, sizeof x); }

static MimSym *fields_of(const MimDef *d) {
    return d->is_mut && d->node == MIM_SIGMA ? mim_mut_ext(d)->fields : NULL;
}

/* A node's record: its bytes as the arena holds them, references and names
 * replaced by numbers, what reading recomputes or clears zeroed. */
static void put_record(Writer *wr, const MimDef *d) {
    MimSym *fields = fields_of(d);
    size_t ops_end = sizeof(MimDef) + d->num_ops * sizeof(MimDef *), size = ops_end;
    if (d->is_mut) size += sizeof(MimMutExt) + (fields ? d->num_ops * sizeof(MimSym) : 0);
    size = record_end(size);
    size_t at = wr->block.len;
    mim_vec_reserve(&wr->block, at + size);
    wr->block.len += size;
    char *p = (char *)wr->block.data + at;
    memset(p, 0, size);
    MimDef *r = (MimDef *)(void *)p;
    r->flags = d->flags;
    r->gid = d->gid;
    r->num_ops = d->num_ops;
    r->node = d->node;
    r->dep = d->is_mut ? d->dep : 0; /* an immutable's is computed from its operands */
    r->is_mut = d->is_mut, r->is_external = d->is_external, r->var_made = d->var_made;
    r->curry = d->curry, r->trip = d->trip;
    r->loc = d->loc;
    put_slot(&r->type, ref_of(wr, d->type));
    put_slot(&r->name, str_of(wr, d->name));
    put_slot(&r->loc.file, str_of(wr, d->loc.file));
    if (d->node == MIM_APP && !d->is_mut) put_slot(&r->u, ref_of(wr, d->u.app.axiom));
    else if (d->node == MIM_AXIOM) put_slot(&r->u, d->u.ax.norm != NULL);
    for (uint32_t i = 0; i < d->num_ops; ++i) put_slot(&r->ops[i], ref_of(wr, d->ops[i]));
    if (!d->is_mut) return;
    MimMutExt *e = (MimMutExt *)(void *)(p + ops_end);
    put_slot(&e->var, ref_of(wr, mim_mut_ext(d)->var));
    put_slot(&e->fields, fields != NULL);
    MimSym *f = (MimSym *)(void *)(e + 1);
    for (uint32_t i = 0; fields && i < d->num_ops; ++i) put_slot(&f[i], str_of(wr, fields[i]));
}

/* The reduction cache in a deterministic order (by binder and argument gid). */
typedef struct Reduct {
    MimDef *binder, *arg;
    uintptr_t gen;
    size_t n;
    MimDef *const *ops;
} Reduct;

static int by_key_gids(const void *a, const void *b) {
    const Reduct *x = a, *y = b;
    if (x->binder->gid != y->binder->gid) return x->binder->gid < y->binder->gid ? -1 : 1;
    return (x->arg->gid > y->arg->gid) - (x->arg->gid < y->arg->gid);
}

static size_t reducts(MimWorld *w, Reduct **out) {
    const MimPairMap *m = &w->reduce_cache;
    Reduct *rs = mim_xmalloc((m->len ? m->len : 1) * sizeof *rs);
    size_t n = 0;
    for (size_t i = 0; i < m->cap; ++i) {
        const MimPairMapSlot *s = &m->slots[i];
        if (!s->a) continue;
        Reduct *r = &rs[n++];
        r->binder = (MimDef *)s->a, r->arg = (MimDef *)s->b;
        mim_reduct_get(s->val, &r->gen, &r->n, &r->ops);
    }
    qsort(rs, n, sizeof *rs, by_key_gids);
    *out = rs;
    return n;
}

static int slot_by_gid(const void *a, const void *b) {
    const MimDef *x = ((const MimPtrMapSlot *)a)->key, *y = ((const MimPtrMapSlot *)b)->key;
    return (x->gid > y->gid) - (x->gid < y->gid);
}

static size_t generations(MimWorld *w, MimPtrMapSlot **out) {
    const MimPtrMap *m = &w->reduce_gen;
    MimPtrMapSlot *gs = mim_xmalloc((m->len ? m->len : 1) * sizeof *gs);
    size_t n = 0;
    for (size_t i = 0; i < m->cap; ++i)
        if (m->slots[i].key) gs[n++] = m->slots[i];
    qsort(gs, n, sizeof *gs, slot_by_gid);
    *out = gs;
    return n;
}

static void put_tables(Writer *wr, Reduct *rs, size_t num_reducts, MimPtrMapSlot *gs, size_t num_gens) {
    MimWorld *w = wr->w;
    MimBytes *out = &wr->rest;
    mim_bytes_u32(out, (uint32_t)w->externals.len);
    for (size_t i = 0; i < w->externals.len; ++i) mim_bytes_u32(out, ref_of(wr, w->externals.data[i]));
    mim_bytes_u32(out, (uint32_t)w->annexes.len);
    for (size_t i = 0; i < w->annexes.len; ++i) {
        put_u64v(out, w->annexes.data[i].id);
        mim_bytes_u32(out, ref_of(wr, w->annexes.data[i].def));
    }
    mim_bytes_u32(out, (uint32_t)num_reducts);
    for (size_t i = 0; i < num_reducts; ++i) {
        mim_bytes_u32(out, ref_of(wr, rs[i].binder)), mim_bytes_u32(out, ref_of(wr, rs[i].arg));
        put_u64v(out, rs[i].gen);
        mim_bytes_u32(out, (uint32_t)rs[i].n);
        for (size_t k = 0; k < rs[i].n; ++k) mim_bytes_u32(out, ref_of(wr, rs[i].ops[k]));
    }
    mim_bytes_u32(out, (uint32_t)num_gens);
    for (size_t i = 0; i < num_gens; ++i) {
        mim_bytes_u32(out, ref_of(wr, gs[i].key));
        put_u64v(out, (uint64_t)(uintptr_t)gs[i].val);
    }
    put_u64v(out, w->mutations);
    put_u64v(out, w->mut_epoch);
    put_loc(wr, out, w->loc);
    mim_bytes_u64(out, IMAGE_MAGIC);
}

/* Every node the image holds, sorted by gid and numbered. */
static void collect_all(Writer *wr, MimDef *const *roots, size_t num_roots, Reduct *rs, size_t num_reducts,
                        MimPtrMapSlot *gs, size_t num_gens) {
    MimWorld *w = wr->w;
    mim_world_settle(w);
    MimHashSet *t = &w->table;
    for (size_t i = 0; i < t->cap; ++i) collect(wr, mim_table_at(t, i));
    for (size_t i = 0; i < w->externals.len; ++i) collect(wr, w->externals.data[i]);
    for (size_t i = 0; i < w->annexes.len; ++i) collect(wr, w->annexes.data[i].def);
    for (size_t i = 0; i < num_roots; ++i) collect(wr, roots[i]);
    for (size_t i = 0; i < num_reducts; ++i) {
        collect(wr, rs[i].binder), collect(wr, rs[i].arg);
        for (size_t k = 0; k < rs[i].n; ++k) collect(wr, rs[i].ops[k]);
    }
    for (size_t i = 0; i < num_gens; ++i) collect(wr, (MimDef *)gs[i].key);
    expand(wr);
    qsort(wr->nodes.data, wr->nodes.len, sizeof *wr->nodes.data, by_gid);
    for (size_t i = 0; i < wr->nodes.len; ++i) mim_ptrmap_put(&wr->index, wr->nodes.data[i], (void *)(uintptr_t)(i + 1));
}

void mim_image_write(MimWorld *w, MimDef *const *roots, size_t num_roots, MimBytes *out,
                     uint32_t *root_refs) {
    Writer wr = {.w = w};
    Reduct *rs;
    size_t num_reducts = reducts(w, &rs);
    MimPtrMapSlot *gs;
    size_t num_gens = generations(w, &gs);
    collect_all(&wr, roots, num_roots, rs, num_reducts, gs, num_gens);
    for (size_t i = 0; i < num_roots; ++i) root_refs[i] = ref_of(&wr, roots[i]);

    MimWorld *fresh = mim_world_new(); /* where w began: its builtins only */
    uint32_t base_gid = fresh->gid;
    mim_world_free(fresh);
    uint32_t num_builtins = 0, num_norms = 0;
    for (size_t i = 0; i < wr.nodes.len; ++i) {
        const MimDef *d = wr.nodes.data[i];
        if (d->gid <= base_gid) { /* a builtin: already in every World, maybe named since */
            ++num_builtins;
            mim_bytes_u32(&wr.rest, d->gid);
            put_u8(&wr.rest, d->node);
            mim_bytes_u32(&wr.rest, str_of(&wr, d->name));
            put_loc(&wr, &wr.rest, d->loc);
        } else {
            put_record(&wr, d);
        }
        num_norms += d->node == MIM_AXIOM && d->u.ax.norm;
    }
    put_tables(&wr, rs, num_reducts, gs, num_gens);

    MimBytes meta = {0};
    mim_bytes_u32(&meta, base_gid);
    mim_bytes_u32(&meta, w->gid);
    mim_bytes_u32(&meta, (uint32_t)wr.nodes.len);
    mim_bytes_u32(&meta, num_builtins);
    mim_bytes_u32(&meta, num_norms);
    for (size_t i = 0; i < wr.nodes.len; ++i)
        if (wr.nodes.data[i]->node == MIM_AXIOM && wr.nodes.data[i]->u.ax.norm) put_u64v(&meta, wr.nodes.data[i]->flags);
    mim_bytes_u32(&meta, (uint32_t)wr.strs.len);
    for (size_t i = 0; i < wr.strs.len; ++i) mim_bytes_str(&meta, wr.strs.data[i]);
    put(&meta, wr.rest.data, wr.rest.len);

    mim_bytes_u64(out, IMAGE_MAGIC);
    mim_bytes_u64(out, node_layout());
    mim_bytes_u64(out, meta.len);
    mim_bytes_u64(out, wr.block.len);
    mim_bytes_u64(out, mim_checksum(meta.data, meta.len));
    mim_bytes_u64(out, mim_checksum(wr.block.data, wr.block.len));
    put(out, meta.data, meta.len);
    put(out, wr.block.data, wr.block.len);

    free(rs);
    free(gs);
    mim_vec_free(&meta);
    mim_vec_free(&wr.block);
    mim_vec_free(&wr.rest);
    mim_vec_free(&wr.strs);
    mim_ptrmap_free(&wr.seen);
    mim_ptrmap_free(&wr.str_index);
    mim_ptrmap_free(&wr.index);
    mim_vec_free(&wr.nodes);
    mim_vec_free(&wr.pending);
}

/* ---- reading ------------------------------------------------------------------ */

bool mim_byte_reader_read(void *reader, void *dst, size_t n) {
    const uint8_t *p = take(reader, n);
    if (p && n) memcpy(dst, p, n);
    return p != NULL;
}

MimImageSource mim_image_source_bytes(MimByteReader *r) {
    return (MimImageSource){mim_byte_reader_read, r, r->ok ? (uint64_t)(r->end - r->p) : 0};
}

/* A builtin the image names: applied only once everything is checked. */
typedef struct Named {
    MimDef *def;
    MimSym name;
    MimLoc loc;
} Named;

typedef struct Reader {
    MimWorld *w;
    MimImageNormFn norm;
    void *user;
    MimByteReader in; /* the meta part, from the strings on */
    uint8_t *meta;
    char *block;
    size_t block_len;
    uint32_t base_gid, last_gid, num_nodes, num_builtins, num_strs;
    uint32_t num_imms; /* records that are immutables (counted by prepare) */
    MimSym *strs;  /* by number - 1 */
    MimDef **nodes; /* by number: nodes[0] = NULL */
    Named *named;   /* the builtins' names and locations */
} Reader;

/* The node numbered x, a number below `limit`. */
static bool node_numbered(const Reader *rd, uintptr_t x, uint32_t limit, MimDef **out) {
    if (x >= limit) return false;
    *out = rd->nodes[x];
    return true;
}

/* The string numbered x (0: none). */
static bool sym_numbered(const Reader *rd, uintptr_t x, MimSym *out) {
    if (x > rd->num_strs) return false;
    *out = x ? rd->strs[x - 1] : NULL;
    return true;
}

/* The number a record holds in a pointer's slot. */
static uintptr_t slot_number(const void *slot) {
    uintptr_t x;
    memcpy(&x, slot, sizeof x);
    return x;
}

static bool take_ref(const Reader *rd, const void *slot, uint32_t limit, MimDef **out) {
    return node_numbered(rd, slot_number(slot), limit, out);
}

static bool take_sym(const Reader *rd, const void *slot, MimSym *out) {
    return sym_numbered(rd, slot_number(slot), out);
}

/* Numbers in the meta part: a bad one makes the image bad. */
static MimSym get_sym(Reader *rd) {
    MimSym s = NULL;
    if (!sym_numbered(rd, mim_read_u32(&rd->in), &s)) rd->in.ok = false;
    return s;
}

static MimDef *get_node(Reader *rd, uint32_t limit) {
    MimDef *d = NULL;
    if (!node_numbered(rd, mim_read_u32(&rd->in), limit, &d)) rd->in.ok = false;
    return d;
}

static MimLoc get_loc(Reader *rd) {
    MimLoc l;
    l.file = get_sym(rd);
    l.begin.row = mim_read_u32(&rd->in), l.begin.col = mim_read_u32(&rd->in);
    l.end.row = mim_read_u32(&rd->in), l.end.col = mim_read_u32(&rd->in);
    return l;
}

/* The shapes the rest of the library relies on when it reads a node: which
 * kinds can be mutable, and how many operands a kind has (-1: any). A record
 * that breaks them is refused, whatever its checksum says. */
static bool may_be_mut(uint8_t node) {
    return node == MIM_PI || node == MIM_LAM || node == MIM_SIGMA || node == MIM_ARR ||
           node == MIM_PACK || node == MIM_INFER;
}

static int num_ops_of(uint8_t node) {
    switch ((MimNode)node) {
    case MIM_UNIV: case MIM_BOT: case MIM_TOP: case MIM_AXIOM: case MIM_LIT: case MIM_NAT:
    case MIM_IDX: return 0;
    case MIM_TYPE: case MIM_UINC: case MIM_PACK: case MIM_VAR: case MIM_INFER: return 1;
    case MIM_PI: case MIM_LAM: case MIM_APP: case MIM_EXTRACT: case MIM_ARR: return 2;
    case MIM_INSERT: return 3;
    default: return -1;
    }
}

static bool shape_ok(uint8_t node, bool mut, uint32_t num_ops) {
    if (node >= MIM_NUM_NODES || (mut && !may_be_mut(node))) return false;
    int n = num_ops_of(node);
    return n < 0 || (uint32_t)n == num_ops;
}

/* The header, the meta part and what can be checked before building: the
 * checksum, the World (builtins only), the normalizers, the counts. */
static bool read_meta(Reader *rd, const MimImageSource *src, uint64_t *block_len, uint64_t *block_sum) {
    uint64_t h[HEADER_WORDS];
    if (src->size < sizeof h || !src->read(src->user, h, sizeof h)) return false;
    uint64_t meta_len = h[2];
    if (h[0] != IMAGE_MAGIC || h[1] != node_layout() || meta_len > src->size - sizeof h ||
        h[3] != src->size - sizeof h - meta_len || h[3] % sizeof(void *)) /* exactly the source */
        return false;
    *block_len = h[3], *block_sum = h[5];
    rd->meta = malloc(meta_len ? (size_t)meta_len : 1);
    if (!rd->meta || !src->read(src->user, rd->meta, (size_t)meta_len) ||
        mim_checksum(rd->meta, (size_t)meta_len) != h[4])
        return false;
    MimByteReader *in = &rd->in;
    *in = (MimByteReader){rd->meta, rd->meta + meta_len, true};
    rd->base_gid = mim_read_u32(in);
    rd->last_gid = mim_read_u32(in);
    rd->num_nodes = mim_read_u32(in);
    rd->num_builtins = mim_read_u32(in);
    MimWorld *w = rd->w;
    uint32_t num_records = rd->num_nodes - rd->num_builtins;
    if (!in->ok || rd->base_gid != w->gid || rd->last_gid < rd->base_gid || w->externals.len || w->annexes.len ||
        rd->num_builtins > rd->num_nodes || rd->num_builtins > rd->base_gid ||
        num_records > rd->last_gid - rd->base_gid || *block_len / sizeof(MimDef) < num_records)
        return false;
    uint32_t num_norms = mim_read_u32(in);
    for (uint32_t i = 0; in->ok && i < num_norms; ++i)
        if (!rd->norm || !rd->norm(rd->user, read_u64v(in))) return false;
    rd->num_strs = mim_read_u32(in);
    return in->ok && rd->num_strs <= (size_t)(in->end - in->p); /* a byte per string at least */
}

/* The strings, interned; the builtins the image names, checked. */
static bool read_strings_and_builtins(Reader *rd) {
    MimByteReader *in = &rd->in;
    rd->strs = malloc((rd->num_strs ? rd->num_strs : 1) * sizeof *rd->strs);
    if (!rd->strs) return false;
    for (uint32_t i = 0; in->ok && i < rd->num_strs; ++i) rd->strs[i] = mim_read_sym(in, rd->w);
    MimDef **by_gid = calloc((size_t)rd->base_gid + 1, sizeof *by_gid);
    rd->named = malloc((rd->num_builtins ? rd->num_builtins : 1) * sizeof *rd->named);
    bool ok = in->ok && by_gid && rd->named;
    mim_world_settle(rd->w);
    MimHashSet *t = &rd->w->table;
    for (size_t i = 0; ok && i < t->cap; ++i) {
        MimDef *d = mim_table_at(t, i);
        if (d && d->gid <= rd->base_gid) by_gid[d->gid] = d;
    }
    uint32_t gid = 0;
    for (uint32_t k = 1; ok && k <= rd->num_builtins; ++k) {
        uint32_t g = mim_read_u32(in);
        uint8_t node = read_u8(in);
        MimSym name = get_sym(rd);
        MimLoc loc = get_loc(rd);
        MimDef *d = g > gid && g <= rd->base_gid ? by_gid[g] : NULL;
        ok = in->ok && d && d->node == node;
        gid = g;
        rd->nodes[k] = d;
        rd->named[k - 1] = (Named){d, name, loc};
    }
    free(by_gid);
    return ok;
}

/* Round 1: where each record begins (kinds, operand counts and gids checked). */
static bool walk_block(Reader *rd) {
    size_t off = 0, len = rd->block_len;
    uint32_t k = rd->num_builtins, gid = rd->base_gid;
    while (off < len) {
        if (len - off < sizeof(MimDef) || k >= rd->num_nodes) return false;
        MimDef *d = (MimDef *)(void *)(rd->block + off);
        size_t size = sizeof(MimDef), room = len - off - size;
        if (d->gid <= gid || d->gid > rd->last_gid || d->num_ops > room / sizeof(MimDef *) ||
            !shape_ok(d->node, d->is_mut, d->num_ops))
            return false;
        gid = d->gid;
        size += d->num_ops * sizeof(MimDef *);
        if (d->is_mut) {
            if (len - off - size < sizeof(MimMutExt)) return false;
            uintptr_t fields = slot_number(&((MimMutExt *)(void *)(rd->block + off + size))->fields);
            size += sizeof(MimMutExt);
            if (fields > 1 || (fields && d->node != MIM_SIGMA)) return false;
            if (fields && (len - off - size) / sizeof(MimSym) < d->num_ops) return false;
            if (fields) size += d->num_ops * sizeof(MimSym);
        }
        size = record_end(size);
        if (size > len - off) return false;
        rd->nodes[++k] = d;
        off += size;
    }
    return k == rd->num_nodes;
}

/* What only some kinds keep in a record's union: an application's axiom, an
 * axiom's "had a normalizer", nothing for the others. */
static bool relocate_union(Reader *rd, MimDef *d, uint32_t limit) {
    uintptr_t u = slot_number(&d->u);
    memset(&d->u, 0, sizeof d->u);
    switch ((MimNode)d->node) {
    case MIM_APP: {
        MimDef *ax;
        if (!node_numbered(rd, u, limit, &ax)) return false;
        if (ax && (ax->node != MIM_AXIOM || ax->is_mut)) return false;
        d->u.app.axiom = ax;
        return true;
    }
    case MIM_AXIOM:
        if (u > 1) return false;
        if (u && rd->norm) d->u.ax.norm = rd->norm(rd->user, d->flags);
        return true;
    case MIM_TYPE: d->u.ty.world = rd->w; return u == 0;
    default: return u == 0;
    }
}

/* Round 2 for one record: numbers become addresses. An immutable refers
 * only to nodes before it, so its dependencies can be computed at once. */
static bool relocate(Reader *rd, uint32_t k) {
    MimDef *d = rd->nodes[k];
    bool mut = d->is_mut;
    uint32_t limit = mut ? rd->num_nodes + 1 : k;
    MimDef *x;
    if (!take_ref(rd, &d->type, limit, &x)) return false;
    d->type = x;
    if (mut ? !x || x == d : !x && d->node != MIM_UNIV && d->node != MIM_TYPE) return false;
    for (uint32_t i = 0; i < d->num_ops; ++i) {
        if (!take_ref(rd, &d->ops[i], limit, &x) || (!x && !mut)) return false;
        d->ops[i] = x;
    }
    if (!take_sym(rd, &d->name, &d->name) || !take_sym(rd, &d->loc.file, &d->loc.file) ||
        !relocate_union(rd, d, limit))
        return false;
    d->scratch = 0, d->hash = 0, d->in_check = 0;
    if (!mut) {
        if (d->is_external || d->var_made) return false;
        if (d->node == MIM_VAR && !d->ops[0]->is_mut) return false; /* a variable's operand is its binder */
        d->dep = (uint8_t)mim_dep_compute(d);
        return true;
    }
    MimMutExt *e = mim_mut_ext(d);
    uintptr_t fields = slot_number(&e->fields);
    e->fields = NULL, e->fv = NULL;
    if (fields) {
        MimSym *f = (MimSym *)(void *)(e + 1);
        for (uint32_t i = 0; i < d->num_ops; ++i)
            if (!take_sym(rd, &f[i], &f[i])) return false;
        e->fields = f;
    }
    return true;
}

/* Round 3: a mutable's variable is its own Var (or none yet). */
static bool relocate_var(Reader *rd, MimDef *d) {
    MimMutExt *e = mim_mut_ext(d);
    MimDef *v;
    if (!take_ref(rd, &e->var, rd->num_nodes + 1, &v)) return false;
    e->var = v;
    return !v || (v->node == MIM_VAR && !v->is_mut && v->ops[0] == d);
}

/* The tables after the builtins: checked first (apply false), then applied. */
static bool read_tables(Reader *rd, bool apply) {
    MimByteReader *in = &rd->in;
    MimWorld *w = rd->w;
    uint32_t limit = rd->num_nodes + 1;
    uint32_t n = mim_read_u32(in);
    for (uint32_t i = 0; in->ok && i < n; ++i) {
        MimDef *d = get_node(rd, limit);
        if (!d || !d->is_mut) return false;
        if (apply) mim_vec_push(&w->externals, d);
    }
    n = mim_read_u32(in);
    for (uint32_t i = 0; in->ok && i < n; ++i) {
        uint64_t id = read_u64v(in);
        MimDef *d = get_node(rd, limit);
        if (!d) return false;
        if (apply) mim_vec_push(&w->annexes, ((MimAnnexEntry){id, d}));
    }
    n = mim_read_u32(in);
    MIM_VEC(MimDef *) ops = {0};
    for (uint32_t i = 0; in->ok && i < n; ++i) {
        MimDef *binder = get_node(rd, limit), *arg = get_node(rd, limit);
        uint64_t gen = read_u64v(in);
        uint32_t k = mim_read_u32(in);
        if (k > (size_t)(in->end - in->p)) in->ok = false; /* a byte per reference at least */
        ops.len = 0;
        for (uint32_t j = 0; in->ok && j < k; ++j) mim_vec_push(&ops, get_node(rd, limit));
        if (!binder || !arg) in->ok = false;
        if (in->ok && apply) mim_reduce_cache_put(w, binder, arg, (uintptr_t)gen, ops.data, k);
    }
    mim_vec_free(&ops);
    n = mim_read_u32(in);
    for (uint32_t i = 0; in->ok && i < n; ++i) {
        MimDef *binder = get_node(rd, limit);
        uint64_t gen = read_u64v(in);
        if (!binder) return false;
        if (apply) {
            mim_ptrmap_put(&w->reduce_gen, binder, (void *)(uintptr_t)gen);
            binder->has_reduce_gen = 1;
        }
    }
    uint64_t mutations = read_u64v(in), mut_epoch = read_u64v(in);
    MimLoc loc = get_loc(rd);
    if (!in->ok || mim_read_u64(in) != IMAGE_MAGIC || in->p != in->end) return false;
    if (apply) w->mutations = mutations, w->mut_epoch = mut_epoch, w->loc = loc, w->gid = rd->last_gid;
    return true;
}

/* Everything short of changing the World: the block read into the arena,
 * relocated and checked record by record, the tables checked. */
static bool prepare(Reader *rd, const MimImageSource *src) {
    uint64_t block_len, block_sum;
    if (!read_meta(rd, src, &block_len, &block_sum)) return false;
    rd->block_len = (size_t)block_len;
    rd->block = mim_arena_alloc_aligned(&rd->w->arena, rd->block_len ? rd->block_len : 1, _Alignof(MimDef));
    if (!src->read(src->user, rd->block, rd->block_len) || mim_checksum(rd->block, rd->block_len) != block_sum)
        return false;
    rd->nodes = calloc((size_t)rd->num_nodes + 1, sizeof *rd->nodes);
    if (!rd->nodes || !read_strings_and_builtins(rd) || !walk_block(rd)) return false;
    for (uint32_t k = rd->num_builtins + 1; k <= rd->num_nodes; ++k)
        if (!relocate(rd, k)) return false;
    for (uint32_t k = rd->num_builtins + 1; k <= rd->num_nodes; ++k) {
        if (!rd->nodes[k]->is_mut) rd->num_imms++;
        else if (!relocate_var(rd, rd->nodes[k])) return false;
    }
    MimByteReader tables = rd->in;
    bool ok = read_tables(rd, false);
    rd->in = tables;
    return ok;
}

/* The nodes enter the World: immutables its hash table, with the hashes of
 * this build. Only an image holding two equal immutables fails here. */
static bool commit(Reader *rd) {
    MimWorld *w = rd->w;
    for (uint32_t i = 0; i < rd->num_builtins; ++i) rd->named[i].def->name = rd->named[i].name, rd->named[i].def->loc = rd->named[i].loc;
    mim_world_reserve(w, rd->num_imms); /* only immutables enter the table */
    for (uint32_t k = rd->num_builtins + 1; k <= rd->num_nodes; ++k)
        if (!rd->nodes[k]->is_mut && !mim_world_enter(w, rd->nodes[k])) return false;
    return read_tables(rd, true);
}

MimDef **mim_image_read(MimWorld *w, const MimImageSource *src, MimImageNormFn norm, void *user,
                        uint32_t *num_nodes, bool *changed) {
    Reader rd = {.w = w, .norm = norm, .user = user};
    *changed = false;
    bool ok = prepare(&rd, src);
    if (!ok && rd.block) mim_arena_unalloc(&w->arena, rd.block, rd.block_len ? rd.block_len : 1);
    if (ok) *changed = true; /* from here on, w holds the image's nodes */
    if (ok && !commit(&rd)) ok = false;
    free(rd.meta);
    free(rd.strs);
    free(rd.named);
    if (!ok) {
        free(rd.nodes);
        return NULL;
    }
    *num_nodes = rd.num_nodes;
    return rd.nodes;
}
