/* The pass manager (compile.md §4.3–§4.5, include/mim/pass.h).
 *
 * One traversal: a LIFO work stack seeded with the externals (in name order,
 * so the last name is processed first); for the mutable on top, every pass
 * that participates is entered, its operands are rebuilt bottom-up (each
 * rebuilt node offered to the passes' rewrite hooks, first replacement wins
 * and is rewritten again), stored back, and the new operands are walked for
 * mutables not yet visited, which are pushed.
 *
 * Rounds replace the reference's speculation and undo: before each traversal
 * the uses of every reachable mutable are counted (mim_pass_uses; skipped
 * when no pass of the manager can ask, needs_uses) and the
 * passes' prepare hooks run; a pass that wants another traversal says so with
 * mim_pass_changed. Everything happens in one World; the caller runs the
 * cleanup afterwards.
 *
 * What a round knows about a node (walked, rewritten to, uses) lives in one
 * side table, in the order the round first meets the nodes, and each node
 * holds its index there (MimDef.scratch). Hash maps keyed by node would cost
 * a cache and TLB miss per access once the program outgrows the caches; the
 * side table is touched where the node is, in traversal order. */
#include "pass/pm.h"

#include "ir/check.h"
#include "mim/vec.h"
#include "mim/xalloc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>


/* A node's record for the current round. */
typedef struct NodeInfo {
    MimDef *def;
    MimDef *memo;           /* rewritten to (this round), NULL = not yet */
    uint32_t uses, callees; /* mutables: uses, and uses as a callee */
    uint8_t seen;           /* the walk that last reached it (Walk) */
} NodeInfo;

/* The two walks of a round; each marks the nodes it has reached. */
typedef enum Walk { WALK_NONE, WALK_USES, WALK_TRAVERSAL } Walk;

struct MimPassMan {
    MimPass **passes;
    size_t num_passes;
    MimWorld *w;
    MimDef *cur;      /* the mutable being rewritten */
    bool cur_is_lam;
    bool changed;     /* some pass asked for another round */
    bool failed;
    bool user_error; /* a pass reported an error in the program (mim_pass_error) */
    bool holes;      /* the uses walk met a node that is or holds an inference hole */
    bool *idle;      /* per pass: said in this round's prepare that it changes nothing */
    uintptr_t stack_base; /* C stack position at the start of the run */
    MimPmScratch *s;  /* lent by the caller for the duration of a run */
};

/* The big working memory of a run, lent to the pass managers of a pipeline
 * one after the other: each would otherwise fault in fresh pages for tables
 * as large as the program, and keep them until the pipeline ends. */
struct MimPmScratch {
    MIM_VEC(NodeInfo) info; /* this round's records, indexed by MimDef.scratch */
    MimDefVec stack;        /* work stack of mutables */
    MimDefVec walk;         /* scratch stack of iterative walks */
};

MimPmScratch *mim_pm_scratch_new(void) { return mim_xcalloc(1, sizeof(MimPmScratch)); }

void mim_pm_scratch_free(MimPmScratch *s) {
    if (!s) return;
    mim_vec_free(&s->info);
    mim_vec_free(&s->stack);
    mim_vec_free(&s->walk);
    free(s);
}

MimPassMan *mim_pm_new(void) { return mim_xcalloc(1, sizeof(MimPassMan)); }

void mim_pm_free(MimPassMan *pm) {
    if (!pm) return;
    for (size_t i = 0; i < pm->num_passes; ++i) {
        MimPass *p = pm->passes[i];
        if (p->cls->fini) p->cls->fini(p);
        free(p);
    }
    free(pm->passes);
    free(pm->idle);
    free(pm);
}

/* The manager's instance of cls, or NULL. */
static MimPass *pass_of_class(const MimPassMan *pm, const MimPassClass *cls) {
    for (size_t i = 0; i < pm->num_passes; ++i)
        if (pm->passes[i]->cls == cls) return pm->passes[i];
    return NULL;
}

MimPass *mim_pm_add(MimPassMan *pm, const MimPassClass *cls, bool *fresh) {
    MimPass *old = pass_of_class(pm, cls);
    if (old) {
        if (fresh) *fresh = false;
        return old;
    }
    size_t size = cls->size < sizeof(MimPass) ? sizeof(MimPass) : cls->size;
    MimPass *p = mim_xcalloc(1, size);
    p->cls = cls;
    p->pm = pm;
    p->index = pm->num_passes;
    pm->passes = mim_xrealloc(pm->passes, (pm->num_passes + 1) * sizeof *pm->passes);
    pm->idle = mim_xrealloc(pm->idle, (pm->num_passes + 1) * sizeof *pm->idle);
    pm->passes[pm->num_passes++] = p;
    if (fresh) *fresh = true;
    return p;
}

size_t mim_pm_num_passes(const MimPassMan *pm) { return pm->num_passes; }
const char *mim_pm_pass_name(const MimPassMan *pm, size_t i) { return pm->passes[i]->cls->name; }

bool mim_pm_has_pass(const MimPassMan *pm, const MimPassClass *cls) {
    return pass_of_class(pm, cls) != NULL;
}

/* ---- the interface offered to passes ------------------------------------- */

MimWorld *mim_pass_world(const MimPass *p) { return p->pm->w; }
MimDef *mim_pass_cur(const MimPass *p) { return p->pm->cur; }
void mim_pass_changed(MimPass *p) { p->pm->changed = true; }

void mim_pass_error(MimPass *p, MimLoc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    mim_diag_vreport(mim_world_diag(p->pm->w), MIM_ERROR, loc, fmt, ap);
    va_end(ap);
    p->pm->user_error = true;
}

/* ---- the side table ------------------------------------------------------- */

/* d's record of this round, or NULL. A stale index (from an earlier round or
 * another pass manager) points past the end or to another node's record. */
static NodeInfo *info_find(const MimPassMan *pm, const MimDef *d) {
    uint32_t k = d->scratch;
    return k < pm->s->info.len && pm->s->info.data[k].def == d ? &pm->s->info.data[k] : NULL;
}

/* A new record for d (info_get's rare path, kept out of its callers). */
static NodeInfo *info_new(MimPassMan *pm, MimDef *d) {
    d->scratch = (uint32_t)pm->s->info.len;
    mim_vec_push(&pm->s->info, ((NodeInfo){d, NULL, 0, 0, WALK_NONE}));
    return &mim_vec_last(&pm->s->info);
}

/* d's record, created if absent. Valid until the next info_get. Inlined in
 * the walks: it runs for every edge of the program in every round. */
static inline NodeInfo *info_get(MimPassMan *pm, MimDef *d) {
    NodeInfo *r = info_find(pm, d);
    return r ? r : info_new(pm, d);
}

/* Marks d as reached by walk; false if it already was. */
static bool reach(MimPassMan *pm, MimDef *d, Walk walk) {
    NodeInfo *r = info_get(pm, d);
    if (r->seen == walk) return false;
    r->seen = (uint8_t)walk;
    return true;
}

static void memo_put(MimPassMan *pm, MimDef *d, MimDef *res) { info_get(pm, d)->memo = res; }

unsigned mim_pass_uses(const MimPass *p, const MimDef *mut, unsigned *callee) {
    const NodeInfo *r = info_find(p->pm, mut);
    if (callee) *callee = r ? r->callees : 0;
    return r ? r->uses : 0;
}

uint32_t mim_pass_node_index(const MimPass *p, const MimDef *d) {
    const NodeInfo *r = info_find(p->pm, d);
    return r ? (uint32_t)(r - p->pm->s->info.data) : UINT32_MAX;
}

uint32_t mim_pass_num_records(const MimPass *p) { return (uint32_t)p->pm->s->info.len; }

MimDef *mim_pass_record(const MimPass *p, uint32_t i) { return p->pm->s->info.data[i].def; }

void mim_pass_idle(MimPass *p) { p->pm->idle[p->index] = true; }

uint64_t mim_pass_round_id(const MimPass *p) { return p->pm->w->pass_rounds; }

static bool participates(const MimPassMan *pm, const MimPass *p) {
    return !p->cls->on_lams || pm->cur_is_lam;
}

/* ---- uses (before each round) -------------------------------------------- */

/* Counts a use of op (if it is a mutable) and marks op reached by the uses
 * walk, with one look-up of its record; false if op was reached before. */
static bool use_and_reach(MimPassMan *pm, MimDef *op, bool callee) {
    NodeInfo *r = info_get(pm, op);
    if (op->is_mut) {
        r->uses++;
        if (callee) r->callees++;
    }
    if (r->seen == WALK_USES) return false;
    r->seen = WALK_USES;
    return true;
}

/* Walk everything reachable from the externals (types included) once and
 * count, per mutable, the (node, operand) pairs that refer to it. */
static void count_uses(MimPassMan *pm) {
    MimWorld *w = pm->w;
    pm->s->info.len = 0; /* a new round: every record is stale */
    pm->s->walk.len = 0;
    pm->holes = false;
    for (size_t i = 0, n = mim_world_num_externals(w); i < n; ++i) {
        MimDef *ext = mim_world_external(w, i);
        if (use_and_reach(pm, ext, false)) mim_vec_push(&pm->s->walk, ext);
    }
    while (pm->s->walk.len) {
        MimDef *d = mim_vec_pop(&pm->s->walk);
        pm->holes |= (d->dep & MIM_DEP_INFER) != 0;
        if (d->node == MIM_VAR) continue; /* its operand is its binder, not a use */
        if (d->type && reach(pm, d->type, WALK_USES)) mim_vec_push(&pm->s->walk, d->type);
        for (uint32_t i = 0; i < d->num_ops; ++i) {
            MimDef *op = d->ops[i] ? mim_res(w, d->ops[i]) : NULL;
            if (op && use_and_reach(pm, op, d->node == MIM_APP && i == 0)) mim_vec_push(&pm->s->walk, op);
        }
    }
}

/* Does a pass of this manager ask for use counts or records? Of the core
 * passes beta_red, eta_exp and lam_spec do; any other pass (a plugin's) may.
 * Without them a round skips the counting walk over the whole program, which
 * costs about what a traversal does: eta_red, scalarize and tail_rec_elim
 * alone in a manager do without it (and are then never idle, having no
 * records to judge by). */
static bool needs_uses(const MimPassMan *pm) {
    static const MimPassClass *const blind[] = {&mim_eta_red_pass,       &mim_scalarize_pass,
                                                &mim_tail_rec_elim_pass, &mim_ret_wrap_pass,
                                                &mim_internal_cleanup_pass, &mim_debug_print_pass};
    for (size_t i = 0; i < pm->num_passes; ++i) {
        bool known = false;
        for (size_t k = 0; k < sizeof blind / sizeof *blind; ++k) known |= pm->passes[i]->cls == blind[k];
        if (!known) return true;
    }
    return false;
}

/* ---- rewriting (§4.4) ----------------------------------------------------- */

static MimDef *rewrite_new(MimPassMan *pm, MimDef *x);

static bool has_free_deps(const MimDef *d) {
    return d->dep & (MIM_DEP_VAR | MIM_DEP_MUT | MIM_DEP_PROXY | MIM_DEP_INFER);
}

/* x as rewritten in this round. Most calls end here (nodes without free
 * dependencies, mutables, nodes met before): inlined in the walks, the
 * rest is rewrite_new. */
static inline MimDef *rewrite(MimPassMan *pm, MimDef *x) {
    if (!x || pm->failed) return NULL;
    x = mim_res(pm->w, x);
    if (!has_free_deps(x) || x->is_mut) return x;
    NodeInfo *r = info_find(pm, x);
    return r && r->memo ? r->memo : rewrite_new(pm, x);
}

/* Offer n to the passes; the first replacement is rewritten again. */
static MimDef *offer(MimPassMan *pm, MimDef *n) {
    for (size_t i = 0; i < pm->num_passes; ++i) {
        MimPass *p = pm->passes[i];
        if (!p->cls->rewrite || !participates(pm, p)) continue;
        MimDef *r = p->cls->rewrite(p, n);
        if (!r) {
            pm->failed = true;
            return NULL;
        }
        if (r == n) continue;
        /* Replacements are rewritten recursively (inlining chains nest); a
         * pass that keeps replacing would exhaust the C stack, so the World's
         * stack budget bounds the nesting (as for β-reduction). */
        char here;
        uintptr_t pos = (uintptr_t)&here;
        if (pm->stack_base > pos && pm->stack_base - pos > pm->w->stack_budget) {
            mim_err(pm->w, "internal error: pass '%s' does not converge (rewriting nested beyond the "
                           "stack budget of %zu bytes)", p->cls->name, pm->w->stack_budget);
            pm->failed = true;
            return NULL;
        }
        return rewrite(pm, r);
    }
    return n;
}

static MimDef *rebuild(MimPassMan *pm, MimDef *x) {
    MimDef *type = x->type ? rewrite(pm, x->type) : NULL;
    if (x->type && !type) return NULL;
    bool same = type == x->type;
    /* Every operand is written before it is read: no zeroed scratch (this
     * runs for every node of the program in every round). */
    MimDef *small[8], **ops = x->num_ops <= 8 ? small : mim_xmalloc(x->num_ops * sizeof *ops);
    MimDef *n = NULL;
    uint32_t i = 0;
    for (; i < x->num_ops; ++i) {
        if (!(ops[i] = rewrite(pm, x->ops[i]))) break;
        same &= ops[i] == x->ops[i];
    }
    if (i == x->num_ops) n = same ? x : mim_def_rebuild(pm->w, x, type, ops);
    if (ops != small) free(ops);
    return n;
}

/* rewrite of an immutable x with free dependencies not rewritten yet in
 * this round. */
static MimDef *rewrite_new(MimPassMan *pm, MimDef *x) {
    info_get(pm, x);
    uint32_t k = x->scratch; /* x's record stays at k; the table may move */
    MimDef *n = rebuild(pm, x);
    if (!n) {
        pm->failed = true;
        return NULL;
    }
    MimDef *res = n->is_mut ? n : offer(pm, n);
    if (!res) return NULL;
    /* What replaces x (its rebuild, or a pass's replacement of that) keeps
     * x's name and location unless it has its own: the first name wins
     * (semantics.md §1.2, output-format.md §4), as for the rewriter's
     * copies. */
    if (res != x) mim_def_keep_dbg(res, x);
    pm->s->info.data[k].memo = res;
    if (res != x) memo_put(pm, res, res);
    return res;
}

MimDef *mim_pass_rewrite(MimPass *p, MimDef *def) { return rewrite(p->pm, def); }

/* ---- the traversal --------------------------------------------------------- */

/* d may lead to a mutable: it is one or has free dependencies. */
static inline bool may_reach_mut(const MimDef *d) { return d->is_mut || has_free_deps(d); }

/* Push the mutables reachable from d without entering mutables. A node
 * without free dependencies reaches no mutable: it is passed over without
 * a record (most leaves: literals, types, axioms). */
static void push_reachable(MimPassMan *pm, MimDef *d) {
    if (!d) return;
    pm->s->walk.len = 0;
    mim_vec_push(&pm->s->walk, d);
    while (pm->s->walk.len) {
        MimDef *x = mim_res(pm->w, mim_vec_pop(&pm->s->walk));
        if (!x || !may_reach_mut(x) || !reach(pm, x, WALK_TRAVERSAL)) continue;
        if (x->is_mut) {
            mim_vec_push(&pm->s->stack, x);
            continue;
        }
        /* What the pop would pass over is not pushed (resolution keeps a
         * node without holes as it is). */
        if (x->type && may_reach_mut(x->type)) mim_vec_push(&pm->s->walk, x->type);
        for (uint32_t i = 0; i < x->num_ops; ++i) {
            MimDef *op = x->ops[i];
            if (op && may_reach_mut(op)) mim_vec_push(&pm->s->walk, op);
        }
    }
}

static bool has_body(const MimDef *m) {
    return m->num_ops > 0 && m->ops[m->num_ops - 1] != NULL;
}

/* Rebuild the operands of the mutable m and store them back. */
static bool visit(MimPassMan *pm, MimDef *m) {
    pm->cur = m;
    pm->cur_is_lam = m->node == MIM_LAM;
    for (size_t i = 0; i < pm->num_passes; ++i) {
        MimPass *p = pm->passes[i];
        if (p->cls->enter && participates(pm, p)) p->cls->enter(p, m);
    }
    if (!has_body(m)) return true; /* a pass may have unset it */
    MIM_SCRATCH(ops, m->num_ops);
    bool same = true;
    for (uint32_t i = 0; i < m->num_ops; ++i) {
        ops[i] = rewrite(pm, m->ops[i]);
        if (!ops[i]) {
            MIM_SCRATCH_FREE(ops);
            return false;
        }
        same &= ops[i] == m->ops[i];
    }
    bool ok = true;
    if (!same)
        for (uint32_t i = 0; ok && i < m->num_ops; ++i) ok = mim_mut_set(pm->w, m, i, ops[i]) != NULL;
    for (uint32_t i = 0; ok && i < m->num_ops; ++i) push_reachable(pm, m->ops[i]);
    if (ok) push_reachable(pm, m->type);
    MIM_SCRATCH_FREE(ops);
    return ok;
}

static bool traverse(MimPassMan *pm) {
    MimWorld *w = pm->w;
    pm->s->stack.len = 0;
    for (size_t i = 0, n = mim_world_num_externals(w); i < n; ++i) {
        MimDef *ext = mim_world_external(w, i);
        reach(pm, ext, WALK_TRAVERSAL);
        mim_vec_push(&pm->s->stack, ext);
    }
    while (pm->s->stack.len) {
        MimDef *m = mim_vec_pop(&pm->s->stack);
        if (!has_body(m)) continue;
        if (!visit(pm, m)) return false;
    }
    pm->cur = NULL;
    return true;
}

static void report_failure(MimPassMan *pm) {
    size_t len = 0;
    for (size_t i = 0; i < pm->num_passes; ++i) len += strlen(pm->passes[i]->cls->name) + 2;
    char *names = mim_xmalloc(len + 1);
    names[0] = 0;
    for (size_t i = 0; i < pm->num_passes; ++i) {
        if (i) strcat(names, ", ");
        strcat(names, pm->passes[i]->cls->name);
    }
    mim_err(pm->w, "internal error in the pass manager [%s]: a pass built an ill-typed node",
            pm->num_passes ? names : "no passes");
    free(names);
}

/* May this round's traversal be skipped? Every pass said in prepare that it
 * changes nothing, so the traversal would only resolve inference holes:
 * without any (the uses walk tells; a manager that needs no uses walks only
 * now), it would rebuild every node as it is and set no operand. */
static bool all_idle(MimPassMan *pm, bool counted) {
    for (size_t i = 0; i < pm->num_passes; ++i)
        if (!pm->idle[i]) return false;
    if (!counted) count_uses(pm); /* the hole check */
    return !pm->holes;
}

bool mim_pm_run(MimPassMan *pm, MimWorld *w, MimPmScratch *scratch) {
    pm->w = w;
    pm->s = scratch;
    /* About one record per reachable node: reserved once, not copied while
     * the table grows. */
    mim_vec_reserve(&pm->s->info, mim_world_num_nodes(w) / 2);
    bool uses = needs_uses(pm);
    for (unsigned round = 0; round < MIM_PM_MAX_ROUNDS; ++round) {
        char here;
        pm->changed = pm->failed = pm->user_error = false;
        ++w->pass_rounds;
        pm->stack_base = (uintptr_t)&here;
        if (uses) count_uses(pm);
        else pm->s->info.len = 0; /* a new round: every record is stale */
        for (size_t i = 0; i < pm->num_passes; ++i) {
            pm->idle[i] = false;
            if (pm->passes[i]->cls->prepare) pm->passes[i]->cls->prepare(pm->passes[i]);
        }
        bool ok = all_idle(pm, uses) || traverse(pm);
        for (size_t i = 0; i < pm->num_passes; ++i)
            if (pm->passes[i]->cls->finish) pm->passes[i]->cls->finish(pm->passes[i]);
        if (!ok) {
            if (!pm->user_error) report_failure(pm);
            pm->s = NULL; /* the scratch belongs to the caller between runs */
            return false;
        }
        if (!pm->changed) break;
    }
    pm->s = NULL;
    return true;
}
