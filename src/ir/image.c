/* World images (image.h). Layout: a node section in gid order, then the
 * externals, the annexes, the reduction cache and the World's counters.
 * Nodes refer to each other by gid (0 = none). Strings are written once and
 * then referred to by number. Reading decodes and checks everything first
 * and only then builds: immutables are re-hash-consed in gid order with
 * their recorded gids (so the hash table ends up exactly as it was),
 * mutables are allocated first and filled in a second round because their
 * operands and final types may have larger gids. */
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
    const uint8_t *p = take(r, 1);
    return p ? *p : 0;
}

uint32_t mim_read_u32(MimByteReader *r) {
    uint32_t x = 0;
    for (unsigned shift = 0; shift < 35; shift += 7) {
        const uint8_t *p = take(r, 1);
        if (!p) return 0;
        x |= (uint32_t)(*p & 0x7f) << shift;
        if (!(*p & 0x80)) return x;
    }
    r->ok = false; /* more than 5 bytes: not a u32 */
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
        if (d->is_mut) collect(wr, d->u.mut.var);
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

static uint32_t gid_of(const MimDef *d) { return d ? d->gid : 0; }

static void put_node(Writer *wr, const MimDef *d) {
    MimBytes *o = wr->out;
    bool fields = d->is_mut && d->node == MIM_SIGMA && d->u.mut.fields;
    uint8_t bits = (uint8_t)((d->is_mut ? BIT_MUT : 0) | (d->is_external ? BIT_EXTERNAL : 0) |
                             (d->var_made ? BIT_VAR_MADE : 0) | (fields ? BIT_FIELDS : 0) |
                             (d->node == MIM_AXIOM && d->u.ax.norm ? BIT_NORM : 0));
    mim_bytes_u32(o, d->gid);
    put_u8(o, d->node);
    put_u8(o, bits);
    put_u8(o, d->dep);
    put_u8(o, d->curry);
    put_u8(o, d->trip);
    mim_bytes_u64(o, d->flags);
    put_sym(wr, d->name);
    put_sym(wr, d->loc.file);
    mim_bytes_u32(o, d->loc.begin.row), mim_bytes_u32(o, d->loc.begin.col);
    mim_bytes_u32(o, d->loc.end.row), mim_bytes_u32(o, d->loc.end.col);
    mim_bytes_u32(o, gid_of(d->type));
    mim_bytes_u32(o, d->num_ops);
    for (uint32_t i = 0; i < d->num_ops; ++i) mim_bytes_u32(o, gid_of(d->ops[i]));
    if (d->is_mut) mim_bytes_u32(o, gid_of(d->u.mut.var));
    else if (d->node == MIM_APP) mim_bytes_u32(o, gid_of(d->u.app.axiom));
    if (fields)
        for (uint32_t i = 0; i < d->num_ops; ++i) put_sym(wr, d->u.mut.fields[i]);
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

void mim_image_write(MimWorld *w, MimDef *const *roots, size_t num_roots, MimBytes *out) {
    Writer wr = {.w = w, .out = out};
    MimHashSet *t = &w->table;
    for (size_t i = 0; i < t->cap; ++i) collect(&wr, t->slots[i]);
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

    MimWorld *fresh = mim_world_new(); /* where w began: its builtins only */
    uint32_t base_gid = fresh->gid;
    mim_world_free(fresh);
    mim_bytes_u64(out, IMAGE_MAGIC);
    mim_bytes_u32(out, base_gid);
    mim_bytes_u32(out, w->gid);
    mim_bytes_u32(out, (uint32_t)wr.nodes.len);
    for (size_t i = 0; i < wr.nodes.len; ++i) put_node(&wr, wr.nodes.data[i]);

    mim_bytes_u32(out, (uint32_t)w->externals.len);
    for (size_t i = 0; i < w->externals.len; ++i) mim_bytes_u32(out, w->externals.data[i]->gid);
    mim_bytes_u32(out, (uint32_t)w->annexes.len);
    for (size_t i = 0; i < w->annexes.len; ++i) {
        mim_bytes_u64(out, w->annexes.data[i].id);
        mim_bytes_u32(out, w->annexes.data[i].def->gid);
    }
    mim_bytes_u32(out, (uint32_t)num_reducts);
    for (size_t i = 0; i < num_reducts; ++i) {
        mim_bytes_u32(out, rs[i].binder->gid), mim_bytes_u32(out, rs[i].arg->gid);
        mim_bytes_u64(out, rs[i].gen);
        mim_bytes_u32(out, (uint32_t)rs[i].n);
        for (size_t k = 0; k < rs[i].n; ++k) mim_bytes_u32(out, gid_of(rs[i].ops[k]));
    }
    mim_bytes_u32(out, (uint32_t)num_gens);
    for (size_t i = 0; i < num_gens; ++i) {
        mim_bytes_u32(out, ((const MimDef *)gs[i].key)->gid);
        mim_bytes_u64(out, (uint64_t)(uintptr_t)gs[i].val);
    }
    mim_bytes_u64(out, w->mutations);
    mim_bytes_u64(out, w->mut_epoch);
    put_sym(&wr, w->loc.file);
    mim_bytes_u32(out, w->loc.begin.row), mim_bytes_u32(out, w->loc.begin.col);
    mim_bytes_u32(out, w->loc.end.row), mim_bytes_u32(out, w->loc.end.col);
    mim_bytes_u64(out, IMAGE_MAGIC);

    free(rs);
    free(gs);
    mim_ptrmap_free(&wr.seen);
    mim_ptrmap_free(&wr.strs);
    mim_vec_free(&wr.nodes);
    mim_vec_free(&wr.pending);
}

/* ---- reading ------------------------------------------------------------------ */

typedef struct NodeRec {
    uint32_t gid, type, num_ops, ops; /* ops: first index into Reader.refs */
    uint32_t extra;                   /* var (mutables) or head axiom (App) */
    uint64_t flags;
    uint8_t node, bits, dep, curry, trip;
    MimSym name;
    MimLoc loc;
    MimSym *fields;
    MimNormalizer norm;
} NodeRec;

typedef struct Reader {
    MimByteReader *in;
    MimWorld *w;
    MIM_VEC(MimSym) strs;
    MIM_VEC(NodeRec) recs;
    MIM_VEC(uint32_t) refs;
    MIM_VEC(MimSym) field_syms;
    MIM_VEC(MimDef *) scratch;
    uint32_t base_gid, last_gid;
    MimDef **by_gid;
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

/* A gid reference: 0 (none) or any gid up to the last one. */
static uint32_t get_ref(Reader *rd) {
    uint32_t g = mim_read_u32(rd->in);
    if (g <= rd->last_gid) return g;
    rd->in->ok = false;
    return 0;
}

static bool decode_node(Reader *rd, uint32_t prev_gid, MimImageNormFn norm, void *user) {
    MimByteReader *in = rd->in;
    NodeRec n = {0};
    n.gid = mim_read_u32(in);
    n.node = read_u8(in), n.bits = read_u8(in), n.dep = read_u8(in);
    n.curry = read_u8(in), n.trip = read_u8(in);
    n.flags = mim_read_u64(in);
    n.name = get_sym(rd);
    n.loc = get_loc(rd);
    if (n.gid <= prev_gid || n.gid > rd->last_gid || n.node >= MIM_NUM_NODES) in->ok = false;
    n.type = get_ref(rd);
    n.num_ops = mim_read_u32(in);
    if (!in->ok || n.num_ops > (size_t)(in->end - in->p)) return in->ok = false;
    n.ops = (uint32_t)rd->refs.len;
    for (uint32_t i = 0; i < n.num_ops; ++i) mim_vec_push(&rd->refs, get_ref(rd));
    bool mut = n.bits & BIT_MUT;
    if (mut || n.node == MIM_APP) n.extra = get_ref(rd);
    if (n.bits & BIT_FIELDS) {
        n.fields = (MimSym *)(uintptr_t)rd->field_syms.len; /* an index until all are read */
        for (uint32_t i = 0; i < n.num_ops; ++i) mim_vec_push(&rd->field_syms, get_sym(rd));
    }
    if (n.bits & BIT_NORM) {
        n.norm = norm ? norm(user, n.flags) : NULL;
        if (!n.norm) in->ok = false;
    }
    if (!mut) { /* an immutable only refers to older nodes */
        if (n.type >= n.gid || n.extra >= n.gid) in->ok = false;
        for (uint32_t i = 0; i < n.num_ops; ++i)
            if (!rd->refs.data[n.ops + i] || rd->refs.data[n.ops + i] >= n.gid) in->ok = false;
        if (!n.type && n.node != MIM_UNIV && n.node != MIM_TYPE) in->ok = false;
    } else if (!n.type) {
        in->ok = false;
    }
    mim_vec_push(&rd->recs, n);
    return in->ok;
}

static MimDef *node_at(Reader *rd, uint32_t gid) { return gid ? rd->by_gid[gid] : NULL; }

/* Round 1: immutables in gid order with their own gids, mutables as stubs. */
static bool build_node(Reader *rd, NodeRec *n) {
    MimWorld *w = rd->w;
    if (n->gid <= rd->base_gid) /* a builtin */
        return rd->by_gid[n->gid] && rd->by_gid[n->gid]->node == n->node;
    w->gid = n->gid - 1;
    MimDef *d;
    if (n->bits & BIT_MUT) {
        d = mim_alloc_mut(w, (MimNode)n->node, w->builtin.star, n->flags, n->num_ops);
    } else {
        rd->scratch.len = 0;
        for (uint32_t i = 0; i < n->num_ops; ++i)
            mim_vec_push(&rd->scratch, node_at(rd, rd->refs.data[n->ops + i]));
        d = mim_unify(w, (MimNode)n->node, node_at(rd, n->type), n->flags, rd->scratch.data,
                      n->num_ops);
    }
    if (!d || d->gid != n->gid) return false; /* a duplicate: the image lies */
    d->dep = n->dep;
    d->curry = n->curry, d->trip = n->trip;
    d->name = n->name;
    d->loc = n->loc;
    if (n->node == MIM_AXIOM && !d->is_mut) d->u.ax.norm = n->norm;
    if (n->node == MIM_APP && !d->is_mut) d->u.app.axiom = node_at(rd, n->extra);
    rd->by_gid[n->gid] = d;
    return true;
}

/* Every reference of n names a node that exists after round 1. */
static bool refs_exist(Reader *rd, const NodeRec *n) {
    if (n->type && !rd->by_gid[n->type]) return false;
    if (n->extra && !rd->by_gid[n->extra]) return false;
    for (uint32_t i = 0; i < n->num_ops; ++i) {
        uint32_t g = rd->refs.data[n->ops + i];
        if (g && !rd->by_gid[g]) return false;
    }
    return (n->bits & BIT_MUT) == 0 || n->type;
}

/* Round 2: the mutables' types, operands, variables and field names. */
static void fill_mut(Reader *rd, NodeRec *n) {
    MimDef *d = rd->by_gid[n->gid];
    d->type = node_at(rd, n->type);
    for (uint32_t i = 0; i < n->num_ops; ++i) d->ops[i] = node_at(rd, rd->refs.data[n->ops + i]);
    d->u.mut.var = node_at(rd, n->extra);
    d->var_made = (n->bits & BIT_VAR_MADE) != 0;
    d->is_external = (n->bits & BIT_EXTERNAL) != 0;
    if (n->bits & BIT_FIELDS) {
        MimSym *f = mim_arena_alloc(&rd->w->arena, n->num_ops * sizeof *f);
        memcpy(f, rd->field_syms.data + (uintptr_t)n->fields, n->num_ops * sizeof *f);
        d->u.mut.fields = f;
    }
}

/* w must be as mim_world_new made it, the way the written World began. */
static bool builtins_only(MimWorld *w, Reader *rd, uint32_t base_gid) {
    if (w->gid != base_gid || w->externals.len || w->annexes.len) return false;
    MimHashSet *t = &w->table;
    for (size_t i = 0; i < t->cap; ++i)
        if (t->slots[i]) rd->by_gid[t->slots[i]->gid] = t->slots[i];
    return true;
}

static void reader_free(Reader *rd) {
    mim_vec_free(&rd->strs);
    mim_vec_free(&rd->recs);
    mim_vec_free(&rd->refs);
    mim_vec_free(&rd->field_syms);
    mim_vec_free(&rd->scratch);
}

/* Decodes the tables after the nodes; applies them only if `apply`. */
static bool tables(Reader *rd, bool apply) {
    MimByteReader *in = rd->in;
    MimWorld *w = rd->w;
    uint32_t n = mim_read_u32(in);
    for (uint32_t i = 0; in->ok && i < n; ++i) {
        MimDef *d = node_at(rd, get_ref(rd));
        if (apply && d && d->is_mut) mim_vec_push(&w->externals, d);
    }
    n = mim_read_u32(in);
    for (uint32_t i = 0; in->ok && i < n; ++i) {
        uint64_t id = mim_read_u64(in);
        MimDef *d = node_at(rd, get_ref(rd));
        if (apply && d) mim_vec_push(&w->annexes, ((MimAnnexEntry){id, d}));
    }
    n = mim_read_u32(in);
    for (uint32_t i = 0; in->ok && i < n; ++i) {
        MimDef *binder = node_at(rd, get_ref(rd)), *arg = node_at(rd, get_ref(rd));
        uint64_t gen = mim_read_u64(in);
        uint32_t k = mim_read_u32(in);
        if (k > (size_t)(in->end - in->p)) in->ok = false; /* a byte per reference at least */
        rd->scratch.len = 0;
        for (uint32_t j = 0; in->ok && j < k; ++j) mim_vec_push(&rd->scratch, node_at(rd, get_ref(rd)));
        if (apply && in->ok && binder && arg)
            mim_reduce_cache_put(w, binder, arg, (uintptr_t)gen, rd->scratch.data, k);
    }
    n = mim_read_u32(in);
    for (uint32_t i = 0; in->ok && i < n; ++i) {
        MimDef *binder = node_at(rd, get_ref(rd));
        uint64_t gen = mim_read_u64(in);
        if (apply && binder) mim_ptrmap_put(&w->reduce_gen, binder, (void *)(uintptr_t)gen);
    }
    uint64_t mutations = mim_read_u64(in), epoch = mim_read_u64(in);
    MimLoc loc = get_loc(rd);
    if (mim_read_u64(in) != IMAGE_MAGIC) in->ok = false;
    if (apply) {
        w->mutations = mutations;
        w->mut_epoch = epoch;
        w->loc = loc;
        w->gid = rd->last_gid;
    }
    return in->ok;
}

MimDef **mim_image_read(MimWorld *w, MimByteReader *in, MimImageNormFn norm, void *user,
                        uint32_t *num_gids) {
    Reader rd = {.in = in, .w = w};
    if (mim_read_u64(in) != IMAGE_MAGIC) return NULL;
    rd.base_gid = mim_read_u32(in);
    rd.last_gid = mim_read_u32(in);
    uint32_t num_nodes = mim_read_u32(in);
    if (!in->ok || num_nodes > rd.last_gid || rd.last_gid < w->gid || rd.last_gid > (1u << 30))
        return NULL;
    rd.by_gid = calloc((size_t)rd.last_gid + 1, sizeof *rd.by_gid);
    if (!rd.by_gid) return NULL;
    bool ok = builtins_only(w, &rd, rd.base_gid);
    mim_vec_reserve(&rd.recs, num_nodes);
    uint32_t prev = 0;
    for (uint32_t i = 0; ok && i < num_nodes; ++i)
        if ((ok = decode_node(&rd, prev, norm, user))) prev = rd.recs.data[i].gid;
    /* Check the tables on a copy of the cursor before anything is built. */
    MimByteReader probe = *in;
    size_t num_strs = rd.strs.len;
    rd.in = &probe;
    ok = ok && tables(&rd, false);
    rd.in = in;
    rd.strs.len = num_strs; /* the real pass meets the same strings again */
    for (size_t i = 0; ok && i < rd.recs.len; ++i) ok = build_node(&rd, &rd.recs.data[i]);
    for (size_t i = 0; ok && i < rd.recs.len; ++i) ok = refs_exist(&rd, &rd.recs.data[i]);
    if (ok) {
        for (size_t i = 0; i < rd.recs.len; ++i)
            if (rd.recs.data[i].bits & BIT_MUT) fill_mut(&rd, &rd.recs.data[i]);
        ok = tables(&rd, true);
    }
    reader_free(&rd);
    if (!ok) {
        free(rd.by_gid);
        return NULL;
    }
    *num_gids = rd.last_gid + 1;
    return rd.by_gid;
}
