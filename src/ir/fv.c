/* Free variables (semantics.md §6).
 *
 * Immutables: the local vars and local muts are found by walking the
 * immutable "skin" (operands and types, stopping at Vars and mutables,
 * pruned by the dependency bits); nothing is cached for immutables.
 * Mutables: fv(m) = (local vars of m's type/ops ∪ fv of m's local muts)
 * minus m's own variable, cached in a record per mutable. Cycles between
 * mutables are handled by Tarjan's SCC algorithm with a fixed-point
 * iteration inside each component. Each record lists its *consumers* (the
 * mutables whose free variables were computed through it); invalidating a
 * record invalidates its consumers transitively (5.1). */
#include "ir/check.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* A consumer list's entry (in the World's check arena, like the records). */
typedef struct Consumer {
    MimDef *mut;
    struct Consumer *next;
    uint32_t gen; /* mut's record's gen when added: stale once it differs */
} Consumer;

/* Records, their sets and consumer entries live in the World's check arena,
 * which costs less than a heap block per set. A set dropped by an
 * invalidation or replaced by a recomputation, and the consumer entries of
 * an invalidated record, go to free lists of the World and are reused: a
 * World mutated for long (a compiler embedding libmim) keeps memory in
 * proportion to its live sets, not to the number of invalidations. */
struct MimFreeVars {
    MimDef **vars; /* sorted by gid, in the check arena */
    size_t n;
    bool valid, on_stack;
    uint32_t index, low; /* Tarjan numbering while computing; 0 = unvisited */
    Consumer *consumers; /* mutables computed through this one, latest first */
    uint32_t gen;        /* bumped by each invalidation (Consumer.gen) */
    uint32_t num_consumers, prune_at; /* entries; their number that prunes stale ones */
    /* While computing: the local vars (sorted), then the local muts, at
     * [at, at + num_lvars + num_lmuts) of the computation's pool (Tarjan). */
    size_t at;
    uint32_t num_lvars, num_lmuts;
    MimFreeVars *next;   /* list of all records of the World */
};

MimDef *mim_mut_has_var(const MimDef *mut) {
    MimDef *v = mim_mut_ext(mut)->var;
    return mim_is(v, MIM_VAR) ? v : NULL;
}

static MimFreeVars *record(MimWorld *w, MimDef *mut) {
    MimFreeVars *r = mim_mut_ext(mut)->fv;
    if (!r) {
        r = mim_arena_alloc(&w->check_arena, sizeof *r);
        r->next = w->fv_records;
        w->fv_records = r;
        mim_mut_ext(mut)->fv = r;
    }
    return r;
}

void mim_fv_world_fini(MimWorld *w) {
    /* all in the check arena */
    w->fv_records = NULL;
    memset(w->fv_free_sets, 0, sizeof w->fv_free_sets);
    w->fv_free_consumers = NULL;
}

/* ---- recycled sets and consumer entries ---------------------------------- */

/* The size class of a set of n > 0 variables and its capacity: exact up to
 * 16 (most sets), the next power of two beyond, so that a recycled block
 * fits every set of its class. */
static size_t set_class(size_t n, size_t *cap) {
    if (n <= 16) {
        *cap = n;
        return n - 1;
    }
    unsigned k = 5;
    while (((size_t)1 << k) < n) ++k;
    *cap = (size_t)1 << k;
    assert(16 + k - 5 < MIM_FV_SET_CLASSES);
    return 16 + k - 5;
}

/* Room for a set of n > 0 variables: a recycled block of its class or a new
 * one from the check arena. */
static MimDef **set_alloc(MimWorld *w, size_t n) {
    size_t cap, c = set_class(n, &cap);
    void *p = w->fv_free_sets[c];
    if (p) {
        memcpy(&w->fv_free_sets[c], p, sizeof p); /* the block's first word links the list */
        return p;
    }
    return mim_arena_alloc_aligned(&w->check_arena, cap * sizeof(MimDef *), sizeof(MimDef *));
}

/* Gives a set of n variables (none if n is 0) back for reuse. */
static void set_release(MimWorld *w, MimDef **vars, size_t n) {
    if (!n) return;
    size_t cap, c = set_class(n, &cap);
    memcpy(vars, &w->fv_free_sets[c], sizeof(void *));
    w->fv_free_sets[c] = vars;
}

/* A consumer entry: a recycled one or a new one from the check arena. */
static Consumer *consumer_alloc(MimWorld *w) {
    Consumer *c = w->fv_free_consumers;
    if (c) w->fv_free_consumers = c->next;
    else c = mim_arena_alloc_aligned(&w->check_arena, sizeof *c, sizeof(void *));
    return c;
}

/* Gives a consumer entry back for reuse. */
static void consumer_release(MimWorld *w, Consumer *c) {
    c->next = w->fv_free_consumers;
    w->fv_free_consumers = c;
}

/* ---- invalidation -------------------------------------------------------- */

void mim_fv_invalidate(MimWorld *w, MimDef *mut) {
    /* Cached reductions of this binder are stale too (subst.c). */
    void **gen = mut->has_reduce_gen ? mim_ptrmap_find(&w->reduce_gen, mut) : NULL;
    if (gen) *gen = (void *)((uintptr_t)*gen + 1);
    w->mut_epoch++;
    if (mut->node == MIM_INFER) w->hole_epoch++; /* eliminations may differ now (infer.c) */

    MimFreeVars *r = mim_mut_ext(mut)->fv;
    if (!r || !r->valid) return; /* invariant: valid consumers only of valid records */
    r->valid = false;
    r->gen++;
    r->num_consumers = 0;
    set_release(w, r->vars, r->n); /* callers hold sets only until the next invalidation */
    r->vars = NULL;
    r->n = 0;
    /* Detach the consumer list first: the recursion may re-enter cycles. */
    Consumer *cons = r->consumers;
    r->consumers = NULL;
    while (cons) {
        Consumer *next = cons->next;
        MimDef *m = cons->mut;
        consumer_release(w, cons);
        mim_fv_invalidate(w, m);
        cons = next;
    }
}

/* ---- sorted Var sets ------------------------------------------------------ */

static int cmp_gid(const void *a, const void *b) {
    uint32_t x = (*(MimDef *const *)a)->gid, y = (*(MimDef *const *)b)->gid;
    return (x > y) - (x < y);
}

/* out := a ∪ b (sorted, duplicate-free inputs); out must not alias a or b. */
static void set_union(MimDefVec *out, MimDef *const *a, size_t na, MimDef *const *b, size_t nb) {
    out->len = 0;
    mim_vec_reserve(out, na + nb);
    size_t i = 0, j = 0;
    while (i < na || j < nb) {
        MimDef *x;
        if (j == nb || (i < na && a[i]->gid < b[j]->gid)) x = a[i++];
        else if (i == na || b[j]->gid < a[i]->gid) x = b[j++];
        else x = a[i++], j++;
        out->data[out->len++] = x;
    }
}

/* Sorts d[0..*n) by gid and drops duplicates. Skins hold a handful of
 * variables: insertion sort up to 16, qsort beyond. */
static void sort_unique(MimDef **d, size_t *n) {
    if (*n < 2) return;
    if (*n <= 16) {
        for (size_t i = 1; i < *n; ++i) {
            MimDef *x = d[i];
            size_t j = i;
            for (; j > 0 && d[j - 1]->gid > x->gid; --j) d[j] = d[j - 1];
            d[j] = x;
        }
    } else {
        qsort(d, *n, sizeof *d, cmp_gid);
    }
    size_t k = 1;
    for (size_t i = 1; i < *n; ++i)
        if (d[i] != d[k - 1]) d[k++] = d[i];
    *n = k;
}

/* ---- local vars / local muts of the immutable skin ----------------------- */

typedef struct Skin {
    MimPtrMap seen; /* immutables and mutables already collected */
    MimDefVec *vars, *muts;
} Skin;

/* Variables are leaves collected without the seen-set (sort_unique drops
 * their repetitions); interior nodes and mutables are collected once. */
static void skin_walk(Skin *s, MimDef *d) {
    if (!d || !(d->dep & (MIM_DEP_VAR | MIM_DEP_MUT))) return;
    if (d->node == MIM_VAR && !d->is_mut) { /* a Var's local var is itself; its binder is not a local mut */
        mim_vec_push(s->vars, d);
        return;
    }
    if (!mim_ptrmap_add(&s->seen, d, NULL, NULL)) return;
    if (d->is_mut) {
        mim_vec_push(s->muts, d);
        return;
    }
    if (d->node != MIM_TYPE) skin_walk(s, d->type);
    for (size_t i = 0; i < d->num_ops; ++i) skin_walk(s, d->ops[i]);
}

/* Local vars (sorted) and local muts (in discovery order) of the type and
 * operands of `d` (of d itself if `self` and d is immutable), appended to
 * vars and muts; the number of vars appended in *num_vars. */
static void locals(MimDef *d, bool self, MimDefVec *vars, MimDefVec *muts, size_t *num_vars) {
    Skin s = {.vars = vars, .muts = muts};
    size_t vars_at = vars->len;
    MimPtrMapSlot seen[MIM_MAP_INLINE]; /* skins are mostly small */
    mim_ptrmap_lend(&s.seen, seen);
    if (self) {
        skin_walk(&s, d);
    } else {
        skin_walk(&s, d->type);
        for (size_t i = 0; i < d->num_ops; ++i) skin_walk(&s, d->ops[i]);
    }
    mim_ptrmap_free(&s.seen);
    size_t n = vars->len - vars_at;
    if (n > 1) sort_unique(vars->data + vars_at, &n); /* (data may be NULL when n is 0) */
    vars->len = vars_at + n;
    *num_vars = n;
}

/* ---- free variables of mutables: Tarjan + fixed point -------------------- */

static bool mut_is_set(const MimDef *m) { return m->num_ops == 0 || m->ops[m->num_ops - 1]; }

typedef struct Tarjan {
    MimWorld *w;
    MimDefVec stack;
    MimDefVec acc, tmp; /* recompute's working sets */
    /* The locals of the records being computed (MimFreeVars.at), one
     * buffer for the whole computation instead of two per mutable; the
     * records of a finished component give their end back. */
    MimDefVec pool;
    MimDefVec muts; /* scratch: a skin's local muts before they join the pool */
} Tarjan;

/* Recompute fv(m) from its locals; returns whether it changed. */
static bool recompute(Tarjan *t, MimDef *m) {
    MimFreeVars *r = mim_mut_ext(m)->fv;
    MimDefVec acc = t->acc;
    acc.len = 0;
    /* (the pool is still NULL if no record had locals) */
    MimDef *const *lvars = t->pool.data ? t->pool.data + r->at : NULL;
    MimDef *const *lmuts = lvars ? lvars + r->num_lvars : NULL;
    for (size_t i = 0; i < r->num_lvars; ++i) mim_vec_push(&acc, lvars[i]);
    for (size_t i = 0; i < r->num_lmuts; ++i) {
        MimFreeVars *q = mim_mut_ext(lmuts[i])->fv;
        if (!q->n) continue;
        set_union(&t->tmp, acc.data, acc.len, q->vars, q->n);
        MimDefVec x = acc;
        acc = t->tmp;
        t->tmp = x;
    }
    MimDef *own = mim_mut_has_var(m);
    if (own) {
        size_t k = 0;
        for (size_t i = 0; i < acc.len; ++i)
            if (acc.data[i] != own) acc.data[k++] = acc.data[i];
        acc.len = k;
    }
    bool changed = acc.len != r->n || (acc.len && memcmp(acc.data, r->vars, acc.len * sizeof *acc.data));
    if (changed) {
        /* no one holds r's old set: its component is being computed */
        set_release(t->w, r->vars, r->n);
        r->vars = acc.len ? set_alloc(t->w, acc.len) : NULL;
        if (acc.len) memcpy(r->vars, acc.data, acc.len * sizeof *acc.data);
        r->n = acc.len;
    }
    t->acc = acc; /* the buffer is kept for the next record */
    return changed;
}

static bool consumer_stale(const Consumer *c) { return mim_mut_ext(c->mut)->fv->gen != c->gen; }

/* Drops q's stale consumer entries: their mutables were invalidated since,
 * and a recomputation added (or refreshed) an entry if it still needs one.
 * Each mutable has at most one current entry (it is visited once per
 * computation), so what remains is q's live consumers. */
static void prune_consumers(MimWorld *w, MimFreeVars *q) {
    Consumer **link = &q->consumers;
    uint32_t n = 0;
    while (*link) {
        Consumer *c = *link;
        if (consumer_stale(c)) {
            *link = c->next;
            consumer_release(w, c);
        } else {
            link = &c->next;
            ++n;
        }
    }
    q->num_consumers = n;
    q->prune_at = 2 * n > 32 ? 2 * n : 32; /* amortised: the list at most doubles in between */
}

/* A short scan keeps the common case (recomputed consumers) from growing the
 * list; stale entries beyond it are pruned when the list has doubled, so a
 * World mutated for long keeps lists in proportion to the live consumers. */
static void add_consumer(MimWorld *w, MimFreeVars *q, MimDef *m) {
    uint32_t gen = mim_mut_ext(m)->fv->gen;
    unsigned i = 0;
    for (Consumer *c = q->consumers; c && i < 16; c = c->next, ++i)
        if (c->mut == m) {
            c->gen = gen;
            return;
        }
    if (q->num_consumers >= q->prune_at) prune_consumers(w, q);
    Consumer *c = consumer_alloc(w);
    c->mut = m;
    c->gen = gen;
    c->next = q->consumers;
    q->consumers = c;
    q->num_consumers++;
}

static void visit(Tarjan *t, MimDef *m) {
    MimWorld *w = t->w;
    MimFreeVars *r = record(w, m);
    r->index = r->low = ++w->fv_counter;
    r->on_stack = true;
    mim_vec_push(&t->stack, m);
    size_t nv;
    r->at = t->pool.len;
    t->muts.len = 0;
    locals(m, false, &t->pool, &t->muts, &nv);
    r->num_lvars = (uint32_t)nv;
    r->num_lmuts = (uint32_t)t->muts.len;
    mim_vec_reserve(&t->pool, t->pool.len + t->muts.len);
    for (size_t i = 0; i < t->muts.len; ++i) t->pool.data[t->pool.len++] = t->muts.data[i];

    for (size_t i = 0; i < r->num_lmuts; ++i) {
        /* the pool may move while m2 is visited: indexed anew each time */
        MimDef *m2 = t->pool.data[r->at + r->num_lvars + i];
        MimFreeVars *q = record(w, m2);
        add_consumer(w, q, m);
        if (q->valid) continue;
        if (!mut_is_set(m2)) { /* an unfinished mutable has no free variables (yet) */
            q->vars = NULL;
            q->n = 0;
            q->valid = true;
            continue;
        }
        if (!q->index) {
            visit(t, m2);
            /* a completed component was reset (index 0) and does not count */
            if (q->on_stack && q->low < r->low) r->low = q->low;
        } else if (q->on_stack && q->index < r->low) {
            r->low = q->index;
        }
    }
    if (r->low != r->index) return;

    /* m is the root of a component: pop it and iterate to the fixed point. */
    size_t base = t->stack.len;
    while (t->stack.data[base - 1] != m) base--;
    base--;
    for (size_t i = base; i < t->stack.len; ++i) {
        MimFreeVars *q = mim_mut_ext(t->stack.data[i])->fv;
        q->vars = NULL;
        q->n = 0;
        q->valid = true; /* members read each other's partial sets */
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = base; i < t->stack.len; ++i) changed |= recompute(t, t->stack.data[i]);
    }
    for (size_t i = base; i < t->stack.len; ++i) {
        MimFreeVars *q = mim_mut_ext(t->stack.data[i])->fv;
        q->on_stack = false;
        q->index = q->low = 0;
    }
    /* The component's locals are the pool's end: m's came first. */
    t->pool.len = r->at;
    t->stack.len = base;
}

MimDef *const *mim_mut_free_vars(MimWorld *w, MimDef *mut, size_t *n) {
    MimFreeVars *r = record(w, mut);
    if (!r->valid) {
        if (!mut_is_set(mut)) {
            r->valid = true;
            r->n = 0;
        } else {
            Tarjan t = {.w = w};
            visit(&t, mut);
            assert(t.stack.len == 0 && t.pool.len == 0 && r->valid);
            mim_vec_free(&t.stack);
            mim_vec_free(&t.acc);
            mim_vec_free(&t.tmp);
            mim_vec_free(&t.pool);
            mim_vec_free(&t.muts);
        }
    }
    *n = r->n;
    return r->vars;
}

void mim_free_vars(MimWorld *w, MimDef *d, MimDefVec *out) {
    if (!d) return;
    MimDefVec acc = {0}, muts = {0}, tmp = {0};
    if (d->is_mut) {
        mim_vec_push(&muts, d);
    } else {
        size_t nv;
        locals(d, true, &acc, &muts, &nv);
    }
    for (size_t i = 0; i < muts.len; ++i) {
        size_t n;
        MimDef *const *fv = mim_mut_free_vars(w, muts.data[i], &n);
        if (!n) continue;
        set_union(&tmp, acc.data, acc.len, fv, n);
        MimDefVec x = acc;
        acc = tmp;
        tmp = x;
    }
    for (size_t i = 0; i < acc.len; ++i) mim_vec_push(out, acc.data[i]);
    mim_vec_free(&acc);
    mim_vec_free(&muts);
    mim_vec_free(&tmp);
}

static bool contains(MimDef *const *vars, size_t n, MimDef *var) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (vars[mid] == var) return true;
        if (vars[mid]->gid < var->gid) lo = mid + 1;
        else hi = mid;
    }
    return false;
}

/* A search for one variable in an immutable skin: an occurrence there is
 * free; behind a mutable only that mutable's free variables can tell. */
typedef struct Search {
    MimPtrMap seen;
    MimDef *var;
    bool met_mut;
} Search;

static bool skin_finds(Search *s, MimDef *d) {
    if (!d || !(d->dep & (MIM_DEP_VAR | MIM_DEP_MUT))) return false;
    if (d == s->var) return true;
    if (d->is_mut) {
        s->met_mut = true;
        return false;
    }
    if (d->node == MIM_VAR || !mim_ptrmap_add(&s->seen, d, NULL, NULL)) return false;
    if (d->node != MIM_TYPE && skin_finds(s, d->type)) return true;
    for (size_t i = 0; i < d->num_ops; ++i)
        if (skin_finds(s, d->ops[i])) return true;
    return false;
}

bool mim_has_free_var(MimWorld *w, MimDef *d, MimDef *var) {
    if (!d || !var) return false;
    if (d->is_mut) {
        size_t n;
        MimDef *const *fv = mim_mut_free_vars(w, d, &n);
        return contains(fv, n, var);
    }
    /* Mostly the variable sits in the skin, or the skin holds no mutable:
     * then the free variables of the whole need not be computed. */
    Search s = {.var = var};
    MimPtrMapSlot seen[MIM_MAP_INLINE];
    mim_ptrmap_lend(&s.seen, seen);
    bool found = skin_finds(&s, d);
    mim_ptrmap_free(&s.seen);
    if (found || !s.met_mut) return found;
    MimDefVec fv = {0};
    mim_free_vars(w, d, &fv);
    bool res = contains(fv.data, fv.len, var);
    mim_vec_free(&fv);
    return res;
}

bool mim_is_closed(MimWorld *w, MimDef *d) {
    if (!d) return true;
    if (d->is_mut) {
        size_t n;
        mim_mut_free_vars(w, d, &n);
        return n == 0;
    }
    if (!(d->dep & (MIM_DEP_VAR | MIM_DEP_MUT))) return true;
    MimDefVec fv = {0};
    mim_free_vars(w, d, &fv);
    bool res = fv.len == 0;
    mim_vec_free(&fv);
    return res;
}
