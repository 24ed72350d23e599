/* Substitution, rewriting and partial evaluation (semantics.md §10).
 *
 * MimRewriter is the general world-to-world rebuilder (§10.2): every node is
 * rebuilt through the World constructors (so everything is renormalized),
 * mutables are stubbed (5.5), filled and immutabilized when possible. A hook
 * lets clients (substitution, -O1 cleanup, optimizer passes) change the rule
 * per node. Substitution (§10.1) is a rewriter within one World whose hook
 * leaves unaffected parts alone. mim_reduce/mim_beta cache their results per
 * (binder, argument) in the World. */
#include "ir/check.h"

#include <stdlib.h>
#include <string.h>

/* Bound on nested β-reductions; each level costs a few stack frames per
 * level of the reduced body, far below the CLI's stack. */

/* ---- the general rewriter ------------------------------------------------ */

void mim_rewriter_init(MimRewriter *rw, MimWorld *src, MimWorld *dst, MimRewriteHook hook,
                       void *user) {
    memset(rw, 0, sizeof *rw);
    rw->src = src;
    rw->dst = dst;
    rw->hook = hook;
    rw->user = user;
}

void mim_rewriter_fini(MimRewriter *rw) {
    mim_ptrmap_free(&rw->map);
    mim_ptrmap_free(&rw->stubs);
    mim_ptrmap_free(&rw->pending);
    mim_vec_free(&rw->recs);
    free(rw->names);
    rw->names = NULL;
}

void mim_rewriter_use_side_table(MimRewriter *rw, size_t expected_nodes) {
    assert(!rw->map.len && !rw->stubs.len && !rw->pending.len && "nothing rewritten yet");
    rw->side = true;
    mim_vec_reserve(&rw->recs, expected_nodes);
}

/* ---- what the rewriter knows of old nodes: hash maps or the side table ---- */

/* old's record, or NULL. A stale index (left by another table) points past
 * the end or to another node's record. */
static MimRewriteRec *rec_find(const MimRewriter *rw, const MimDef *old) {
    uint32_t k = old->scratch;
    return k < rw->recs.len && rw->recs.data[k].old == old ? &rw->recs.data[k] : NULL;
}

/* old's record, created if absent. Valid until the next rec_get. */
static MimRewriteRec *rec_get(MimRewriter *rw, MimDef *old) {
    MimRewriteRec *r = rec_find(rw, old);
    if (r) return r;
    old->scratch = (uint32_t)rw->recs.len;
    mim_vec_push(&rw->recs, ((MimRewriteRec){old, NULL, NULL, false}));
    return &mim_vec_last(&rw->recs);
}

/* What old was rewritten to in this run, or NULL. */
static MimDef *memo_get(const MimRewriter *rw, const MimDef *old) {
    if (!rw->side) return mim_ptrmap_get(&rw->map, old);
    const MimRewriteRec *r = rec_find(rw, old);
    return r ? r->new_ : NULL;
}

static MimDef *stub_get(const MimRewriter *rw, const MimDef *old) {
    if (!rw->side) return mim_ptrmap_get(&rw->stubs, old);
    const MimRewriteRec *r = rec_find(rw, old);
    return r ? r->stub : NULL;
}

static void stub_put(MimRewriter *rw, MimDef *old, MimDef *stub) {
    if (rw->side) rec_get(rw, old)->stub = stub;
    else mim_ptrmap_put(&rw->stubs, old, stub);
}

static bool is_pending(const MimRewriter *rw, const MimDef *old) {
    if (!rw->side) return mim_ptrmap_has(&rw->pending, old);
    const MimRewriteRec *r = rec_find(rw, old);
    return r && r->pending;
}

static void set_pending(MimRewriter *rw, MimDef *old, bool pending) {
    if (rw->side) rec_get(rw, old)->pending = pending;
    else if (pending) mim_ptrmap_put(&rw->pending, old, NULL);
    else mim_ptrmap_remove(&rw->pending, old);
}

MimDef *mim_rewriter_map(MimRewriter *rw, MimDef *old, MimDef *new_) {
    if (rw->side) rec_get(rw, old)->new_ = new_;
    else mim_ptrmap_put(&rw->map, old, new_);
    return new_;
}

/* old's location as a location of dst: between Worlds the file name is
 * interned in dst, so that the source World can be freed. */
static MimLoc dst_loc(MimRewriter *rw, MimLoc loc) {
    if (rw->src == rw->dst || !loc.file) return loc;
    if (loc.file != rw->file_src) {
        rw->file_src = loc.file;
        rw->file_dst = mim_world_sym(rw->dst, loc.file);
    }
    loc.file = rw->file_dst;
    return loc;
}

/* A rebuilt node keeps the name and location of the node it replaces unless
 * it already has its own (first name wins, output-format.md §4): copies made
 * by specialization or by the cleanup print with the original's name. */
#define NAME_CACHE 64 /* entries of MimRewriter.names: dst_name indexes by 6 bits */
_Static_assert(NAME_CACHE == 64, "dst_name takes the top 6 bits of a hash");

/* name (of src) interned in dst; between Worlds through the cache (a
 * cleanup copies every name, one symbol-table look-up each otherwise). */
static MimSym dst_name(MimRewriter *rw, MimSym name) {
    if (rw->src == rw->dst) return mim_world_sym(rw->dst, name);
    if (!rw->names) rw->names = mim_xcalloc(NAME_CACHE, sizeof *rw->names);
    uint64_t h = (uint64_t)(uintptr_t)name * UINT64_C(0x9E3779B97F4A7C15);
    struct MimNameCopy *e = &rw->names[h >> 58]; /* the top 6 bits: NAME_CACHE entries */
    if (e->src != name) {
        e->src = name;
        e->dst = mim_world_sym(rw->dst, name);
    }
    return e->dst;
}

static void keep_debug_info(MimRewriter *rw, const MimDef *old, MimDef *res) {
    if (res == old) return;
    if (!res->name && old->name) mim_def_set_name(res, dst_name(rw, old->name));
    if (res->loc.begin.row == 0) res->loc = dst_loc(rw, old->loc);
}

static MimDef *subst_hook(MimRewriter *rw, MimDef *old);
static bool is_const(const MimDef *d);

MimDef *mim_rewrite(MimRewriter *rw, MimDef *old) {
    if (!old) return NULL;
    old = mim_res(rw->src, old);
    /* A substitution keeps a node without variables and mutables as it is
     * (subst_hook): known without a look-up, and not memoized (most nodes a
     * substitution meets are such leaves: literals, types, axioms). */
    if (rw->hook == subst_hook && is_const(old)) return old;
    MimDef *hit = memo_get(rw, old);
    if (hit) return hit;
    MimDef *res = rw->hook ? rw->hook(rw, old) : mim_rewrite_default(rw, old);
    if (res) {
        mim_rewriter_map(rw, old, res);
        keep_debug_info(rw, old, res);
    }
    return res;
}

MimDef *mim_rewrite_default(MimRewriter *rw, MimDef *old) {
    return old->is_mut ? mim_rewrite_mut(rw, old) : mim_rewrite_imm(rw, old);
}

static bool is_const(const MimDef *d) { return !(d->dep & (MIM_DEP_MUT | MIM_DEP_VAR)); }

/* §10.1 branch short-circuit: t#k with literal k only rewrites what is
 * selected, so a branch that is not taken is never unfolded. */
static MimDef *rewrite_extract(MimRewriter *rw, MimDef *old) {
    MimDef *index = mim_rewrite(rw, old->ops[1]);
    if (!index) return NULL;
    uint64_t k;
    if (mim_is(index, MIM_LIT) && mim_def_lit(index, &k)) {
        MimDef *tuple = mim_res(rw->src, old->ops[0]);
        if (mim_is(tuple, MIM_TUPLE) && !tuple->is_mut && k < tuple->num_ops)
            return mim_rewrite(rw, tuple->ops[k]);
        if (mim_is(tuple, MIM_PACK) && !tuple->is_mut && mim_is(tuple->type, MIM_ARR) &&
            is_const(tuple->type->ops[0]))
            return mim_rewrite(rw, tuple->ops[0]);
    }
    MimDef *tuple = mim_rewrite(rw, old->ops[0]);
    return tuple ? mim_extract(rw->dst, tuple, index) : NULL;
}

/* A function whose type is an immutable Pi mentioning the function's own
 * variable (a hole codomain solved with the body's type, immutabilized by an
 * earlier cleanup): its variable is met while that Pi is rewritten, before
 * the new function can exist. It is stubbed with a mutable Pi holding only
 * the rewritten domain, which is all its variable needs; rewrite_mut gives
 * it the rewritten Pi once that is built. NULL for any other binder. */
static MimDef *provisional_pi(MimRewriter *rw, MimDef *binder) {
    MimDef *pi = mim_resolve(rw->src, binder->type);
    if (binder->node != MIM_LAM || !mim_is(pi, MIM_PI) || pi->is_mut) return NULL;
    MimDef *univ = mim_rewrite(rw, pi->type);
    MimDef *dom = univ ? mim_rewrite(rw, pi->ops[0]) : NULL;
    MimDef *stub = dom ? mim_alloc_mut(rw->dst, MIM_PI, univ, pi->flags, pi->num_ops) : NULL;
    return stub && mim_mut_set(rw->dst, stub, 0, dom) ? stub : NULL;
}

/* A variable follows its binder: the stub made for it in this run, a
 * mutable the binder was explicitly mapped to (by a hook), or the binder's
 * rewrite when rewriting into another World. Within one World, a binder that
 * is not rewritten keeps its variable (and is not visited: the variable may
 * occur while its binder is still being rewritten). */
static MimDef *rewrite_var(MimRewriter *rw, MimDef *old) {
    MimDef *binder = old->ops[0];
    MimDef *stub = stub_get(rw, binder);
    if (stub) return mim_var(rw->dst, stub);
    MimDef *mapped = memo_get(rw, binder);
    if (mapped && mapped != binder && mapped->is_mut) return mim_var(rw->dst, mapped);
    if (is_pending(rw, binder)) {
        /* The binder's own type mentions its variable (a hole codomain solved
         * with the body's type): stub the binder early with the stub of its
         * type that is being filled right now. */
        MimDef *type = memo_get(rw, mim_resolve(rw->src, binder->type));
        if (!type && rw->src == rw->dst) return old;
        if (!type) type = provisional_pi(rw, binder);
        if (!type) return NULL;
        stub = mim_stub(rw->dst, binder, type);
        if (!stub) return NULL;
        mim_rewriter_map(rw, binder, stub);
        stub_put(rw, binder, stub);
        return mim_var(rw->dst, stub);
    }
    if (rw->src == rw->dst) return old;
    MimDef *nb = mim_rewrite(rw, binder);
    if (!nb) return NULL;
    if (!nb->is_mut) return NULL; /* binder was immutabilized away: no variable left */
    return mim_var(rw->dst, nb);
}

/* ---- rewrite rules of applications (mim_world_set_app_rule) --------------- */

enum RuleMode { RULES_ON = 1, RULES_OFF, RULES_CHECK };

static int rule_mode(MimRewriter *rw) {
    if (!rw->rules) {
        const char *env = getenv("MIM_APP_RULES");
        rw->rules = RULES_ON;
        if (env && strcmp(env, "off") == 0) rw->rules = RULES_OFF;
        if (env && strcmp(env, "check") == 0) rw->rules = RULES_CHECK;
    }
    return rw->rules;
}

/* The rule for old, a fully applied call of an axiom with a rule, in a
 * rewriter without a hook (see rewrite.h); NULL if there is none. */
static MimAppRule app_rule(MimRewriter *rw, const MimDef *old) {
    if (rw->hook || old->node != MIM_APP || old->curry != 0 || !old->u.app.axiom || !rw->src->app_rules.len)
        return NULL;
    MimAppRule rule = mim_world_app_rule(rw->src, old->u.app.axiom->flags);
    return rule && rule_mode(rw) != RULES_OFF ? rule : NULL;
}

static MimDef *rewrite_generic(MimRewriter *rw, MimDef *old);

/* old rewritten by its rule: true with *res set, false if the rule leaves
 * it to the generic rewrite. In check mode the generic rewrite runs too
 * and must give the same node (both are hash-consed in the same World). */
static bool rewrite_by_rule(MimRewriter *rw, MimDef *old, MimAppRule rule, MimDef **res) {
    if (!rule(rw, old, res)) return false;
    if (rule_mode(rw) != RULES_CHECK || !*res) return true;
    MimDef *generic = rewrite_generic(rw, old);
    if (generic != *res) {
        mim_err(rw->dst, "the rewrite rule of '%s' gives '%s', the generic rewrite '%s'",
                mim_str(rw->src, old), mim_str(rw->dst, *res), mim_str(rw->dst, generic));
        *res = NULL;
    }
    return true;
}

MimDef *mim_rewrite_imm(MimRewriter *rw, MimDef *old) {
    if (old->node == MIM_EXTRACT) return rewrite_extract(rw, old);
    if (old->node == MIM_VAR) return rewrite_var(rw, old);
    MimAppRule rule = app_rule(rw, old);
    MimDef *res;
    if (rule && rewrite_by_rule(rw, old, rule, &res)) return res;
    return rewrite_generic(rw, old);
}

/* An immutable rebuilt from its rewritten type and operands. */
static MimDef *rewrite_generic(MimRewriter *rw, MimDef *old) {
    MimDef *type = NULL;
    if (old->type && old->node != MIM_TYPE) { /* the type of Type follows its level */
        type = mim_rewrite(rw, old->type);
        if (!type) return NULL;
    }
    size_t n = old->num_ops;
    MimDef *small[8], **ops = n <= 8 ? small : mim_xmalloc(n * sizeof *ops);
    MimDef *res = NULL;
    size_t i = 0;
    for (; i < n; ++i)
        if (!(ops[i] = mim_rewrite(rw, old->ops[i]))) break;
    if (i == n) res = mim_def_rebuild(rw->dst, old, type, ops);
    if (ops != small) free(ops);
    return res;
}

static bool is_set(const MimDef *m) { return m->num_ops == 0 || m->ops[m->num_ops - 1]; }

MimDef *mim_rewrite_mut(MimRewriter *rw, MimDef *old) {
    set_pending(rw, old, true);
    MimDef *type = mim_rewrite(rw, old->type);
    set_pending(rw, old, false);
    if (!type) return NULL;
    MimDef *stub = stub_get(rw, old);
    if (stub) { /* stubbed early by its variable (rewrite_var) */
        if (stub->type != type) mim_mut_set_type(rw->dst, stub, type);
    } else {
        /* The type may have mapped `old` already (a recursive type). */
        MimDef *hit = memo_get(rw, old);
        if (hit) return hit;
        stub = mim_stub(rw->dst, old, type);
        if (!stub) return NULL;
        mim_rewriter_map(rw, old, stub);
        stub_put(rw, old, stub);
    }
    for (size_t i = 0; i < old->num_ops && old->ops[i]; ++i) {
        MimDef *op = mim_rewrite(rw, old->ops[i]);
        if (!op || !mim_mut_set(rw->dst, stub, i, op)) return NULL;
    }
    if (!is_set(stub) || stub->node == MIM_INFER) return stub;
    MimDef *imm = mim_immutabilize(rw->dst, stub);
    if (!imm) return NULL;
    return mim_rewriter_map(rw, old, imm);
}

/* ---- substitution -------------------------------------------------------- */

/* Does mutable m have one of the variables being substituted free? */
static bool affected(MimSubst *s, MimDef *m) {
    size_t n;
    MimDef *const *fv = mim_mut_free_vars(s->rw.src, m, &n);
    for (size_t i = 0; i < n; ++i)
        if (mim_ptrmap_has(&s->vars, fv[i])) return true;
    return false;
}

static MimDef *subst_hook(MimRewriter *rw, MimDef *old) {
    MimSubst *s = rw->user;
    if (is_const(old)) return old; /* no local vars, no local muts */
    if (s->kept && !old->is_mut && mim_ptrmap_has(s->kept, old)) return old;
    if (old->is_mut) {
        if (!affected(s, old)) return old;
        MimDef *var = mim_mut_has_var(old);
        if (var) mim_ptrmap_put(&s->vars, var, NULL);
        return mim_rewrite_mut(rw, old);
    }
    return mim_rewrite_imm(rw, old);
}

/* Spare maps bigger than this are freed: emptying them would cost more
 * than growing a fresh one. */
#define SPARE_MAP_MAX_CAP 256

/* An empty map for a substitution: a spare one of w's, or one that starts in
 * buf (if given). Maps are only looked up, never iterated, so a spare's
 * larger capacity changes nothing but the growth. */
static void take_map(MimWorld *w, MimPtrMap *m, MimPtrMapSlot *buf) {
    if (w->num_spare_maps) *m = w->spare_maps[--w->num_spare_maps];
    else if (buf) mim_ptrmap_lend(m, buf);
}

/* Frees m, or empties it and keeps it as a spare of w's. */
static void give_map(MimWorld *w, MimPtrMap *m) {
    size_t spares = sizeof w->spare_maps / sizeof *w->spare_maps;
    if (m->slots && m->slots != m->lent && m->cap <= SPARE_MAP_MAX_CAP && w->num_spare_maps < spares) {
        if (m->len) mim_ptrmap_clear(m); /* an empty one is clear (removal leaves no marks) */
        m->lent = NULL; /* it may point into a finished MimSubst */
        w->spare_maps[w->num_spare_maps++] = *m;
        memset(m, 0, sizeof *m);
    } else {
        mim_ptrmap_free(m);
    }
}

void mim_subst_init(MimSubst *s, MimWorld *w, MimDef *var, MimDef *arg) {
    memset(s, 0, sizeof *s);
    mim_rewriter_init(&s->rw, w, w, subst_hook, s);
    take_map(w, &s->rw.map, s->map_buf);
    take_map(w, &s->vars, s->vars_buf);
    take_map(w, &s->rw.stubs, NULL);
    take_map(w, &s->rw.pending, NULL);
    mim_ptrmap_put(&s->vars, var, NULL);
    mim_rewriter_map(&s->rw, var, arg);
}

MimDef *mim_subst_rewrite(MimSubst *s, MimDef *e) { return mim_rewrite(&s->rw, e); }

void mim_subst_fini(MimSubst *s) {
    MimWorld *w = s->rw.src;
    give_map(w, &s->rw.map);
    give_map(w, &s->rw.stubs);
    give_map(w, &s->rw.pending);
    give_map(w, &s->vars);
    mim_rewriter_fini(&s->rw);
}

MimDef *mim_subst(MimWorld *w, MimDef *e, MimDef *mut, MimDef *arg) {
    return mim_subst_kept(w, e, mut, arg, NULL);
}

/* Records in *kept the immutables s mapped to themselves. */
static void collect_kept(const MimSubst *s, MimPtrMap *kept) {
    const MimPtrMap *m = &s->rw.map;
    mim_ptrmap_reserve(kept, kept->len + m->len); /* one table instead of doubling */
    for (size_t i = 0; i < m->cap; ++i) {
        const MimDef *old = m->slots[i].key;
        if (old && old == m->slots[i].val && !old->is_mut) mim_ptrmap_put(kept, old, NULL);
    }
}

MimDef *mim_subst_kept(MimWorld *w, MimDef *e, MimDef *mut, MimDef *arg, MimPtrMap *kept) {
    if (!e || !mut || !arg) return NULL;
    MimDef *var = mut->is_mut ? mim_mut_has_var(mut) : NULL;
    if (!var) return e; /* nothing can refer to a variable that was never made */
    /* What the rewrite would do first, and all it would do for a node
     * without variables and mutables (subst_hook). */
    MimDef *r = mim_res(w, e);
    if (r && is_const(r)) return r;
    MimSubst s;
    mim_subst_init(&s, w, var, arg);
    s.kept = kept;
    MimDef *res = mim_subst_rewrite(&s, e);
    if (kept && res) collect_kept(&s, kept);
    mim_subst_fini(&s);
    return res;
}

/* ---- reduction cache ----------------------------------------------------- */

typedef struct MimReduct {
    uintptr_t gen; /* generation of the binder when computed (see mim_fv_invalidate) */
    size_t n;
    MimDef *ops[];
} MimReduct;

static uintptr_t binder_gen(MimWorld *w, MimDef *mut) {
    void **g = mim_ptrmap_find(&w->reduce_gen, mut);
    if (!g) {
        mim_ptrmap_put(&w->reduce_gen, mut, NULL);
        mut->has_reduce_gen = 1;
        return 0;
    }
    return (uintptr_t)*g;
}

static MimReduct *cached(MimWorld *w, MimDef *mut, MimDef *arg) {
    void **hit = mim_pairmap_find(&w->reduce_cache, mut, arg);
    if (!hit) return NULL;
    MimReduct *r = *hit;
    return r->gen == binder_gen(w, mut) ? r : NULL;
}

void mim_reduce_cache_put(MimWorld *w, MimDef *binder, MimDef *arg, uintptr_t gen,
                          MimDef *const *ops, size_t n) {
    MimReduct *r = mim_arena_alloc(&w->check_arena, sizeof *r + n * sizeof *ops);
    r->gen = gen;
    r->n = n;
    for (size_t i = 0; i < n; ++i) r->ops[i] = ops[i];
    mim_pairmap_put(&w->reduce_cache, binder, arg, r);
}

void mim_reduct_get(const void *reduct, uintptr_t *gen, size_t *n, MimDef *const **ops) {
    const MimReduct *r = reduct;
    *gen = r->gen;
    *n = r->n;
    *ops = r->ops;
}

static void store(MimWorld *w, MimDef *mut, MimDef *arg, MimDef *const *ops, size_t n) {
    mim_reduce_cache_put(w, mut, arg, binder_gen(w, mut), ops, n);
}

bool mim_reduce(MimWorld *w, MimDef *mut, MimDef *arg, MimDef **out) {
    if (!mut || !arg) return false;
    size_t n = mut->num_ops;
    MimDef *var = mut->is_mut ? mim_mut_has_var(mut) : NULL;
    if (!var) {
        for (size_t i = 0; i < n; ++i) out[i] = mut->ops[i];
        return true;
    }
    MimReduct *r = cached(w, mut, arg);
    if (r && r->n == n) {
        for (size_t i = 0; i < n; ++i) out[i] = r->ops[i];
        return true;
    }
    MimSubst s;
    mim_subst_init(&s, w, var, arg);
    bool ok = true;
    for (size_t i = 0; i < n; ++i) {
        out[i] = NULL;
        if (mut->ops[i] && !(out[i] = mim_subst_rewrite(&s, mut->ops[i]))) ok = false;
        if (!ok) break;
    }
    mim_subst_fini(&s);
    if (ok) store(w, mut, arg, out, n);
    return ok;
}

/* Nested β-reductions allowed at most (see mim_beta). */
#define MIM_BETA_DEPTH_LIMIT 65536u

int mim_beta(MimWorld *w, MimDef *lam, MimDef *arg, MimDef **body) {
    if (!lam || !arg || !mim_is(lam, MIM_LAM) || !lam->is_mut || !is_set(lam)) return 0;
    MimDef *tt = w->builtin.tt, *filter = mim_resolve(w, lam->ops[0]);
    if (filter == w->builtin.ff) return 0;
    MimDef *var = mim_mut_has_var(lam);
    if (!var) {
        if (filter != tt) return 0;
        *body = lam->ops[1];
        return 1;
    }
    MimReduct *r = cached(w, lam, arg);
    if (r) {
        if (r->n != 2 || r->ops[0] != tt) return 0;
        *body = r->ops[1];
        return 1;
    }
    /* A recursive function whose filter keeps yielding tt unfolds forever
     * (by design, §10.3). Nested reductions recurse on the C stack, so they
     * may use the World's stack budget; beyond it we report an error instead
     * of overflowing the stack (the stack grows downwards on every target we
     * build for; the distance is measured from the outermost reduction). */
    char here;
    uintptr_t pos = (uintptr_t)&here;
    /* A runaway recursion whose argument changes every time (`f (a + 1)`)
     * would fill the whole budget: 700,000 levels, 10 s and 1.3 GB on the
     * `mim` thread. No useful compile-time unfolding nests that deep, so
     * the nesting itself is bounded too (2^16, twice tests/lit/core/pe-deep). */
    if (w->beta_depth >= MIM_BETA_DEPTH_LIMIT) {
        mim_err(w, "partial evaluation nested too deeply (%u nested β-reductions); is the filter of a "
                   "recursive function 'tt' for arguments that are not constant?",
                w->beta_depth);
        return -1;
    }
    if (w->beta_depth == 0) w->beta_stack_base = pos;
    else if (w->beta_stack_base > pos && w->beta_stack_base - pos > w->stack_budget) {
        mim_err(w, "partial evaluation nested too deeply (%u nested β-reductions used the stack budget "
                   "of %zu bytes); is the filter of a recursive function 'tt' for arguments that are "
                   "not constant?",
                w->beta_depth, w->stack_budget);
        return -1;
    }
    /* Unfolding lam with arg while the same unfolding is in progress can
     * never end: the same body asks for the same reduction again (the
     * naive `f a = f a`). Reported at once instead of after the budget. */
    if (mim_pairmap_find(&w->beta_active, lam, arg)) {
        mim_err(w, "partial evaluation does not terminate: '%s' is unfolded with the same argument "
                   "while that unfolding is in progress (its filter is 'tt' for that argument)",
                mim_str(w, lam));
        return -1;
    }
    mim_pairmap_put(&w->beta_active, lam, arg, lam);
    /* The body is only substituted when the filter says so: this is what
     * stops the unfolding of recursive functions (§10.3). */
    w->beta_depth++;
    MimSubst s;
    mim_subst_init(&s, w, var, arg);
    int res = 0;
    MimDef *ops[2] = {mim_subst_rewrite(&s, filter), NULL};
    if (!ops[0]) {
        res = -1;
    } else if (ops[0] == tt) {
        ops[1] = mim_subst_rewrite(&s, lam->ops[1]);
        if (!ops[1]) {
            res = -1;
        } else {
            store(w, lam, arg, ops, 2);
            *body = ops[1];
            res = 1;
        }
    }
    mim_subst_fini(&s);
    w->beta_depth--;
    /* Removed, not set to NULL: the map then holds only the reductions in
     * progress and stays small (in cache) instead of growing with every
     * reduction of the run. */
    mim_pairmap_remove(&w->beta_active, lam, arg);
    return res;
}

void mim_subst_world_fini(MimWorld *w) {
    while (w->num_spare_maps) mim_ptrmap_free(&w->spare_maps[--w->num_spare_maps]);
    mim_pairmap_free(&w->beta_active);
    mim_pairmap_free(&w->reduce_cache);
    mim_ptrmap_free(&w->reduce_gen);
}
