/* World images (image.h). Layout: magic, body length and checksum, then the
 * body: gid counters, the ids of the axioms that need normalizers, the nodes
 * in gid order, the externals, the annexes, the reduction cache and the
 * World's counters. Nodes refer to each other by position in the image + 1
 * (0 = none); numbers are LEB128 varints; strings are written once and then
 * referred to by number. Reading streams through the body once, touching
 * little memory besides the nodes it builds (page faults dominate start-up
 * on some machines): immutables are re-hash-consed in gid order with their
 * recorded gids, so the hash table ends up exactly as it was; mutables are
 * allocated in place and filled in a second round, because their operands
 * and final types may come later. */
#include "ir/image.h"

#include "ir/build.h"
#include "ir/check.h"
#include "mim/ptrmap.h"

#include <stdlib.h>
#include <string.h>

#define IMAGE_MAGIC 0x31474d494d494dull /* "MIMIMG1" */

enum {
    BIT_MUT = 1,
    BIT_EXTERNAL = 2,
    BIT_VAR_MADE = 4,
    BIT_NORM = 8,   /* an axiom that had a normalizer */
    BIT_FIELDS = 16 /* a mutable Sigma with field names */
};

/* ---- bytes ----------------------------------------------------------------- */

static void put(MimBytes *b, const void *p, size_t n) {
    mim_vec_reserve(b, b->len + n);
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static void put_u8(MimBytes *b, uint8_t x) { put(b, &x, 1); }
/* u32s as LEB128 varints: most are small gids, counts and columns. */
void mim_bytes_u32(MimBytes *b, uint32_t x) {
    uint8_t buf[5];
    size_t n = 0;
    do {
        buf[n] = (uint8_t)(x & 0x7f);
        x >>= 7;
        if (x) buf[n] |= 0x80;
        ++n;
    } while (x);
    put(b, buf, n);
}
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
    MimBytes *out;
    MimPtrMap seen;            /* node -> itself */
    MIM_VEC(MimDef *) nodes;   /* collection stack, then the sorted nodes */
    MIM_VEC(MimDef *) pending; /* not yet expanded */
    MimPtrMap strs;            /* sym -> number + 1 */
    MimPtrMap index;           /* node -> its reference (position + 1) */
    uint32_t num_strs;
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

/* A string: its number if written before, else a fresh number and the text. */
static void put_sym(Writer *wr, MimSym s) {
    if (!s) {
        mim_bytes_u32(wr->out, 0);
        return;
    }
    void **slot = mim_ptrmap_find(&wr->strs, s);
    if (slot) {
        mim_bytes_u32(wr->out, (uint32_t)(uintptr_t)*slot);
        return;
    }
    mim_ptrmap_put(&wr->strs, s, (void *)(uintptr_t)++wr->num_strs);
    mim_bytes_u32(wr->out, UINT32_MAX);
    mim_bytes_str(wr->out, s);
}


/* A node reference: its position in the image + 1 (0 = none). */
static uint32_t ref_of(Writer *wr, const MimDef *d) {
    return d ? (uint32_t)(uintptr_t)mim_ptrmap_get(&wr->index, d) : 0;
}

static void put_u64v(MimBytes *b, uint64_t x) {
    do {
        put_u8(b, (uint8_t)((x & 0x7f) | (x >> 7 ? 0x80 : 0)));
        x >>= 7;
    } while (x);
}

static void put_loc(Writer *wr, MimLoc l) {
    put_sym(wr, l.file);
    mim_bytes_u32(wr->out, l.begin.row), mim_bytes_u32(wr->out, l.begin.col);
    mim_bytes_u32(wr->out, l.end.row), mim_bytes_u32(wr->out, l.end.col);
}

static void put_node(Writer *wr, const MimDef *d, uint32_t prev_gid) {
    MimBytes *o = wr->out;
    bool fields = d->is_mut && d->node == MIM_SIGMA && mim_mut_ext(d)->fields;
    uint8_t bits = (uint8_t)((d->is_mut ? BIT_MUT : 0) | (d->is_external ? BIT_EXTERNAL : 0) |
                             (d->var_made ? BIT_VAR_MADE : 0) | (fields ? BIT_FIELDS : 0) |
                             (d->node == MIM_AXIOM && d->u.ax.norm ? BIT_NORM : 0));
    mim_bytes_u32(o, d->gid - prev_gid);
    put_u8(o, d->node);
    put_u8(o, bits);
    put_u8(o, d->dep);
    put_u8(o, d->curry);
    put_u8(o, d->trip);
    put_u64v(o, d->flags);
    put_sym(wr, d->name);
    put_loc(wr, d->loc);
    mim_bytes_u32(o, ref_of(wr, d->type));
    mim_bytes_u32(o, d->num_ops);
    for (uint32_t i = 0; i < d->num_ops; ++i) mim_bytes_u32(o, ref_of(wr, d->ops[i]));
    if (d->is_mut) mim_bytes_u32(o, ref_of(wr, mim_mut_ext(d)->var));
    else if (d->node == MIM_APP) mim_bytes_u32(o, ref_of(wr, d->u.app.axiom));
    if (fields)
        for (uint32_t i = 0; i < d->num_ops; ++i) put_sym(wr, mim_mut_ext(d)->fields[i]);
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

static void write_tables(Writer *wr, Reduct *rs, size_t num_reducts, MimPtrMapSlot *gs, size_t num_gens) {
    MimWorld *w = wr->w;
    MimBytes *out = wr->out;
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
    put_loc(wr, w->loc);
}

void mim_image_write(MimWorld *w, MimDef *const *roots, size_t num_roots, MimBytes *out,
                     uint32_t *root_refs) {
    Writer wr = {.w = w, .out = out};
    MimHashSet *t = &w->table;
    for (size_t i = 0; i < t->cap; ++i) collect(&wr, mim_table_at(t, i));
    for (size_t i = 0; i < w->externals.len; ++i) collect(&wr, w->externals.data[i]);
    for (size_t i = 0; i < w->annexes.len; ++i) collect(&wr, w->annexes.data[i].def);
    for (size_t i = 0; i < num_roots; ++i) collect(&wr, roots[i]);
    Reduct *rs;
    size_t num_reducts = reducts(w, &rs);
    for (size_t i = 0; i < num_reducts; ++i) {
        collect(&wr, rs[i].binder), collect(&wr, rs[i].arg);
        for (size_t k = 0; k < rs[i].n; ++k) collect(&wr, rs[i].ops[k]);
    }
    MimPtrMapSlot *gs;
    size_t num_gens = generations(w, &gs);
    for (size_t i = 0; i < num_gens; ++i) collect(&wr, (MimDef *)gs[i].key);
    expand(&wr);
    qsort(wr.nodes.data, wr.nodes.len, sizeof *wr.nodes.data, by_gid);
    for (size_t i = 0; i < wr.nodes.len; ++i) mim_ptrmap_put(&wr.index, wr.nodes.data[i], (void *)(uintptr_t)(i + 1));
    for (size_t i = 0; i < num_roots; ++i) root_refs[i] = ref_of(&wr, roots[i]);

    MimWorld *fresh = mim_world_new(); /* where w began: its builtins only */
    uint32_t base_gid = fresh->gid;
    mim_world_free(fresh);
    mim_bytes_u64(out, IMAGE_MAGIC);
    size_t sums = out->len; /* body length and checksum, patched below */
    mim_bytes_u64(out, 0), mim_bytes_u64(out, 0);
    size_t body = out->len;
    mim_bytes_u32(out, base_gid);
    mim_bytes_u32(out, w->gid);
    mim_bytes_u32(out, (uint32_t)wr.nodes.len);
    uint32_t num_norms = 0;
    for (size_t i = 0; i < wr.nodes.len; ++i)
        num_norms += wr.nodes.data[i]->node == MIM_AXIOM && wr.nodes.data[i]->u.ax.norm;
    mim_bytes_u32(out, num_norms);
    for (size_t i = 0; i < wr.nodes.len; ++i)
        if (wr.nodes.data[i]->node == MIM_AXIOM && wr.nodes.data[i]->u.ax.norm) put_u64v(out, wr.nodes.data[i]->flags);
    uint32_t prev = 0;
    for (size_t i = 0; i < wr.nodes.len; ++i) {
        put_node(&wr, wr.nodes.data[i], prev);
        prev = wr.nodes.data[i]->gid;
    }
    write_tables(&wr, rs, num_reducts, gs, num_gens);
    mim_bytes_u64(out, IMAGE_MAGIC);
    uint64_t len = out->len - body, sum = mim_hash_bytes(out->data + body, out->len - body);
    memcpy(out->data + sums, &len, 8);
    memcpy(out->data + sums + 8, &sum, 8);

    free(rs);
    free(gs);
    mim_ptrmap_free(&wr.seen);
    mim_ptrmap_free(&wr.strs);
    mim_ptrmap_free(&wr.index);
    mim_vec_free(&wr.nodes);
    mim_vec_free(&wr.pending);
}

/* ---- reading ------------------------------------------------------------------ */

/* What round 2 needs of a mutable: everything else is set in round 1. */
typedef struct MutRec {
    uint32_t index, type, ops, num_ops, var, fields; /* ops/fields: into Reader.refs/field_syms */
    uint8_t bits;
} MutRec;

typedef struct Reader {
    MimByteReader *in;
    MimWorld *w;
    MimImageNormFn norm;
    void *user;
    MIM_VEC(MimSym) strs;
    MIM_VEC(MutRec) muts;
    MIM_VEC(uint32_t) refs;
    MIM_VEC(MimSym) field_syms;
    MIM_VEC(MimDef *) scratch;
    uint32_t base_gid, last_gid, num_nodes;
    MimDef **nodes;    /* by reference: nodes[0] = NULL */
    MimDef **builtins; /* by gid, up to base_gid */
} Reader;


static MimSym get_sym(Reader *rd) {
    uint32_t k = mim_read_u32(rd->in);
    if (k == 0) return NULL;
    if (k == UINT32_MAX) {
        MimSym s = mim_read_sym(rd->in, rd->w);
        mim_vec_push(&rd->strs, s);
        return s;
    }
    if (k > rd->strs.len) rd->in->ok = false;
    return rd->in->ok ? rd->strs.data[k - 1] : NULL;
}

static MimLoc get_loc(Reader *rd) {
    MimLoc l;
    l.file = get_sym(rd);
    l.begin.row = mim_read_u32(rd->in), l.begin.col = mim_read_u32(rd->in);
    l.end.row = mim_read_u32(rd->in), l.end.col = mim_read_u32(rd->in);
    return l;
}

/* A reference below `limit` (0 = none allowed), else the image is bad. */
static uint32_t get_ref(Reader *rd, uint32_t limit) {
    uint32_t r = mim_read_u32(rd->in);
    if (r < limit) return r;
    rd->in->ok = false;
    return 0;
}

static MimDef *node_at(Reader *rd, uint32_t ref) { return rd->nodes[ref]; }

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

/* Round 1 for one record: an immutable is re-hash-consed with its own gid
 * (its references all point backwards), a mutable is allocated with a
 * stand-in type and noted for round 2. */
static bool read_node(Reader *rd, uint32_t index, uint32_t *gid) {
    MimByteReader *in = rd->in;
    MimWorld *w = rd->w;
    uint32_t delta = mim_read_u32(in);
    if (delta == 0 || delta > rd->last_gid - *gid) return false; /* gids strictly increase */
    *gid += delta;
    uint8_t node = read_u8(in), bits = read_u8(in), dep = read_u8(in);
    uint8_t curry = read_u8(in), trip = read_u8(in);
    uint64_t flags = read_u64v(in);
    MimSym name = get_sym(rd);
    MimLoc loc = get_loc(rd);
    bool mut = bits & BIT_MUT;
    uint32_t limit = mut ? rd->num_nodes + 1 : index; /* immutables refer backwards */
    uint32_t type = get_ref(rd, limit), num_ops = mim_read_u32(in);
    if (!in->ok || !shape_ok(node, mut, num_ops) || num_ops > (size_t)(in->end - in->p)) return false;
    uint32_t ops = (uint32_t)rd->refs.len;
    for (uint32_t i = 0; i < num_ops; ++i) mim_vec_push(&rd->refs, get_ref(rd, limit));
    uint32_t extra = mut || node == MIM_APP ? get_ref(rd, limit) : 0;
    uint32_t fields = (uint32_t)rd->field_syms.len;
    if (bits & BIT_FIELDS)
        for (uint32_t i = 0; i < num_ops; ++i) mim_vec_push(&rd->field_syms, get_sym(rd));
    if (!in->ok) return false;

    MimDef *d;
    if (*gid <= rd->base_gid) { /* a builtin: already there, named by emission */
        d = rd->builtins[*gid];
        if (!d || d->node != node || mut) return false;
        d->name = name;
        d->loc = loc;
        rd->nodes[index] = d;
        return true;
    }
    w->gid = *gid - 1;
    if (mut) {
        if (!type) return false;
        d = mim_alloc_mut(w, (MimNode)node, w->builtin.star, flags, num_ops);
        mim_vec_push(&rd->muts, ((MutRec){index, type, ops, num_ops, extra, fields, bits}));
    } else {
        if (!type && node != MIM_UNIV && node != MIM_TYPE) return false;
        rd->scratch.len = 0;
        for (uint32_t i = 0; i < num_ops; ++i) {
            MimDef *op = node_at(rd, rd->refs.data[ops + i]);
            if (!op) return false;
            mim_vec_push(&rd->scratch, op);
        }
        rd->refs.len = ops; /* an immutable's references are done with */
        d = mim_unify(w, (MimNode)node, node_at(rd, type), flags, rd->scratch.data, num_ops);
    }
    if (!d || d->gid != *gid) return false; /* a duplicate: the image lies */
    if (mut) d->dep = dep; /* an immutable's was computed from its operands */
    d->curry = curry, d->trip = trip;
    d->name = name;
    d->loc = loc;
    if (node == MIM_AXIOM && !mut && (bits & BIT_NORM) && rd->norm) d->u.ax.norm = rd->norm(rd->user, flags);
    if (node == MIM_VAR && !d->ops[0]->is_mut) return false; /* a variable's operand is its binder */
    if (node == MIM_APP && !mut && extra) {
        MimDef *ax = node_at(rd, extra);
        if (!ax || ax->node != MIM_AXIOM || ax->is_mut) return false;
        d->u.app.axiom = ax;
    }
    rd->nodes[index] = d;
    return true;
}

/* Round 2: the mutables' types, operands, variables and field names. */
static bool fill_mut(Reader *rd, const MutRec *m) {
    MimDef *d = rd->nodes[m->index];
    if (!(d->type = node_at(rd, m->type)) || d->type == d) return false;
    for (uint32_t i = 0; i < m->num_ops; ++i) {
        uint32_t r = rd->refs.data[m->ops + i];
        if (r && !(d->ops[i] = node_at(rd, r))) return false;
    }
    if (m->var) { /* its own variable: Var(d) */
        MimDef *v = node_at(rd, m->var);
        if (!v || v->node != MIM_VAR || v->is_mut || v->ops[0] != d) return false;
        mim_mut_ext(d)->var = v;
    }
    d->var_made = (m->bits & BIT_VAR_MADE) != 0;
    d->is_external = (m->bits & BIT_EXTERNAL) != 0;
    if (m->bits & BIT_FIELDS) {
        MimSym *f = mim_arena_alloc(&rd->w->arena, m->num_ops * sizeof *f);
        memcpy(f, rd->field_syms.data + m->fields, m->num_ops * sizeof *f);
        mim_mut_ext(d)->fields = f;
    }
    return true;
}

/* The tables after the nodes, applied as they are read. */
static bool read_tables(Reader *rd) {
    MimByteReader *in = rd->in;
    MimWorld *w = rd->w;
    uint32_t limit = rd->num_nodes + 1;
    uint32_t n = mim_read_u32(in);
    for (uint32_t i = 0; in->ok && i < n; ++i) {
        MimDef *d = node_at(rd, get_ref(rd, limit));
        if (!d || !d->is_mut) return false;
        mim_vec_push(&w->externals, d);
    }
    n = mim_read_u32(in);
    for (uint32_t i = 0; in->ok && i < n; ++i) {
        uint64_t id = read_u64v(in);
        MimDef *d = node_at(rd, get_ref(rd, limit));
        if (!d) return false;
        mim_vec_push(&w->annexes, ((MimAnnexEntry){id, d}));
    }
    n = mim_read_u32(in);
    for (uint32_t i = 0; in->ok && i < n; ++i) {
        MimDef *binder = node_at(rd, get_ref(rd, limit)), *arg = node_at(rd, get_ref(rd, limit));
        uint64_t gen = read_u64v(in);
        uint32_t k = mim_read_u32(in);
        if (k > (size_t)(in->end - in->p)) return false; /* a byte per reference at least */
        rd->scratch.len = 0;
        for (uint32_t j = 0; in->ok && j < k; ++j) mim_vec_push(&rd->scratch, node_at(rd, get_ref(rd, limit)));
        if (!in->ok || !binder || !arg) return false;
        mim_reduce_cache_put(w, binder, arg, (uintptr_t)gen, rd->scratch.data, k);
    }
    n = mim_read_u32(in);
    for (uint32_t i = 0; in->ok && i < n; ++i) {
        MimDef *binder = node_at(rd, get_ref(rd, limit));
        uint64_t gen = read_u64v(in);
        if (!binder) return false;
        mim_ptrmap_put(&w->reduce_gen, binder, (void *)(uintptr_t)gen);
    }
    w->mutations = read_u64v(in);
    w->mut_epoch = read_u64v(in);
    w->loc = get_loc(rd);
    w->gid = rd->last_gid;
    return in->ok && mim_read_u64(in) == IMAGE_MAGIC && in->p == in->end;
}

static void reader_free(Reader *rd) {
    mim_vec_free(&rd->strs);
    mim_vec_free(&rd->muts);
    mim_vec_free(&rd->refs);
    mim_vec_free(&rd->field_syms);
    mim_vec_free(&rd->scratch);
    free(rd->builtins);
}

/* Everything that can be checked before building: the checksum (a cut or
 * damaged image), the World (builtins only) and the normalizers. */
static bool precheck(Reader *rd, MimImageNormFn norm, void *user) {
    MimByteReader *in = rd->in;
    if (mim_read_u64(in) != IMAGE_MAGIC) return false;
    uint64_t len = mim_read_u64(in), sum = mim_read_u64(in);
    if (!in->ok || len > (uint64_t)(in->end - in->p) || mim_hash_bytes(in->p, (size_t)len) != sum) return false;
    in->end = in->p + len;
    rd->base_gid = mim_read_u32(in);
    rd->last_gid = mim_read_u32(in);
    rd->num_nodes = mim_read_u32(in);
    MimWorld *w = rd->w;
    /* A record takes 12 bytes at least: a small file cannot ask for much. */
    if (!in->ok || rd->base_gid != w->gid || w->externals.len || w->annexes.len ||
        rd->num_nodes > rd->last_gid || rd->num_nodes > (size_t)(in->end - in->p) / 12)
        return false;
    uint32_t num_norms = mim_read_u32(in);
    for (uint32_t i = 0; in->ok && i < num_norms; ++i)
        if (!norm || !norm(user, read_u64v(in))) return false;
    return in->ok;
}

MimDef **mim_image_read(MimWorld *w, MimByteReader *in, MimImageNormFn norm, void *user,
                        uint32_t *num_nodes, bool *changed) {
    Reader rd = {.in = in, .w = w, .norm = norm, .user = user};
    *changed = false;
    if (!precheck(&rd, norm, user)) return NULL;
    *changed = true; /* from here on, a failure leaves nodes behind */
    rd.nodes = calloc((size_t)rd.num_nodes + 1, sizeof *rd.nodes);
    rd.builtins = calloc((size_t)rd.base_gid + 1, sizeof *rd.builtins);
    bool ok = rd.nodes && rd.builtins;
    MimHashSet *t = &w->table;
    for (size_t i = 0; ok && i < t->cap; ++i) {
        MimDef *d = mim_table_at(t, i);
        if (d && d->gid <= rd.base_gid) rd.builtins[d->gid] = d;
    }
    uint32_t gid = 0;
    if (ok) mim_world_reserve(w, rd.num_nodes);
    for (uint32_t i = 1; ok && i <= rd.num_nodes; ++i) ok = read_node(&rd, i, &gid);
    for (size_t i = 0; ok && i < rd.muts.len; ++i) ok = fill_mut(&rd, &rd.muts.data[i]);
    ok = ok && read_tables(&rd);
    reader_free(&rd);
    if (!ok) {
        free(rd.nodes);
        return NULL;
    }
    *num_nodes = rd.num_nodes;
    return rd.nodes;
}
