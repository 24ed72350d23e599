/* %mem.ssa_pass (mem.md §5.3): SSA construction. Stack slots whose address
 * does not escape (the pointer is only the pointer operand of loads and
 * stores) are promoted to SSA values.
 *
 * Instead of the reference's per-lambda value tables with speculation and
 * undo, values are found by following the *memory token* backwards (the
 * memory chain is the program order of effects, and nothing but the loads and
 * stores of a non-escaping slot can touch it): the value of slot s at token m
 * is v if m comes from `store (m', p_s, v)`, ⊥ if m comes out of the slot's
 * own allocation, the value at m' for any other axiom taking m', and at the
 * memory parameter of a lambda X a φ: X gets an extra parameter for s (a
 * "φ-version" X' with the domain extended by the slot types), and every use
 * of X passes the value at its own memory — directly for calls, through a
 * small wrapper `λx. X' (x, v)` for branch targets and continuations handed
 * to a call. The pass works in rounds (include/mim/pass.h):
 *
 *   prepare: build use lists, classify every slot: escaping (kept), loads
 *            left (PROMOTE: check that every load's value can be found and
 *            which lambdas need a φ), only stores left (STORES), unused
 *            (DEAD); the needs of all promoted slots per lambda.
 *   rewrite: PROMOTE: a load becomes (m, value); a call of a lambda needing
 *            φs calls its φ-version; STORES: a store becomes %mem.remem m;
 *            DEAD: the slot becomes (m, ⊥).
 *
 * Stores are only removed in a later round, when no load of the slot is left:
 * whatever other passes do in the same traversal (β-reduction may inline a
 * body the analysis saw elsewhere), a load that cannot be resolved when it is
 * rebuilt simply stays, and the slot keeps its memory contents until the next
 * round looks again. Values are always exact, so partial progress is safe.
 *
 * Slots are identified across rebuilt copies by their `id` literal (mem.md
 * §4.2: unique per slot); slots whose id is not a literal are kept, copies
 * of a non-unique id are matched by identity and only promoted where no φ
 * is needed. Decisions and differences: docs/mem-passes.md. */
#include "mem_passes.h"
#include "mem_util.h"
#include "mim/plugin/mem.h"

#include <stdlib.h>
#include <string.h>

/* Steps along one memory chain before giving up (guards malformed cycles). */
#define MAX_CHAIN 1000000

typedef enum SlotState { SLOT_KEEP, SLOT_PROMOTE, SLOT_STORES, SLOT_DEAD } SlotState;

typedef struct SlotInfo {
    uint64_t id;
    MimDef *slot; /* the slot application (as of prepare) */
    MimDef *T;    /* its pointee type */
    SlotState state;
    bool dup;       /* another slot has the same id: only promoted where no φ
                     * is needed, matching the copies by identity */
    MemVec binders; /* mutables whose variables the slot depends on */
    MemVec loads;
} SlotInfo;

/* A φ-version X' of X: the first `base` components are X's parameters, then
 * one parameter per slot id (in ids order). */
typedef struct PhiInfo {
    uint64_t base, n;
    size_t num;
    uint64_t *ids;
} PhiInfo;

/* Slot ids (sorted) that need a φ-parameter in a lambda. */
typedef struct Need {
    MIM_VEC(uint64_t) ids;
} Need;

typedef struct Ssa {
    MimPass base;
    MimPass *eta_exp;
    const MemUses *uses; /* of the current round (mem_uses_of) */
    MemVec slots;      /* SlotInfo* of this round */
    MimPtrMap slot_by_id; /* id + 1 -> SlotInfo* (this round) */
    MimPtrMap need;       /* lambda -> Need* (this round) */
    MimPtrMap need_by_type; /* type -> MemVec* of lambdas with needs (copies, see need_of) */
    MIM_VEC(MemVec *) type_vecs; /* to free */
    MimPtrMap made;       /* φ-versions and wrappers made by this pass */
    MemVec needs;      /* Need* to free */
    MimPtrMap version;    /* lambda -> its φ-version (this round) */
    MimPtrMap phi;        /* φ-version -> PhiInfo* (kept: a later round may meet it) */
    MemVec phis;       /* PhiInfo* to free */
    MimPtrMap binders;    /* union of the binders of promoted slots */
    MimPtrMap safe;       /* callee -> 1 safe, 2 unsafe (this round) */
    MimPtrMap binder_of;  /* node -> its only binder (this round) */
    MimPtrMap scope_cache; /* binder -> 1 scope controlled, 2 not (this round) */
} Ssa;

static MimWorld *world(Ssa *s) { return mim_pass_world(&s->base); }
static MimDef *res(MimWorld *w, MimDef *d) { return d ? mim_resolve(w, d) : NULL; }
static void *id_key(uint64_t id) { return (void *)(uintptr_t)(id + 1); }

/* Component i of an n-tuple without building an extract for literal tuples. */
static MimDef *comp(MimWorld *w, MimDef *t, uint64_t n, uint64_t i) {
    MimDef *r = res(w, t);
    if (r && mim_def_node(r) == MIM_TUPLE && mim_def_num_ops(r) == n) return res(w, mim_def_op(r, i));
    return mim_proj(w, t, n, i);
}


/* ---- recognizing memory operations ----------------------------------------------- */

/* The slot application behind the pointer p = slot#1, or NULL. */
static MimDef *slot_of_ptr(MimWorld *w, MimDef *p) {
    p = res(w, p);
    uint64_t i;
    if (!p || mim_def_node(p) != MIM_EXTRACT || !mem_lit(w, mim_def_op(p, 1), &i) || i != 1) return NULL;
    return mim_match(res(w, mim_def_op(p, 0)), MIM_mem_slot);
}

static bool slot_id(MimWorld *w, MimDef *slot, uint64_t *id) {
    return mem_lit(w, comp(w, mim_app_arg(slot), 2, 1), id);
}

/* The slot info for the slot behind pointer p if its state is `state`. */
static SlotInfo *slot_info(Ssa *s, MimDef *p, SlotState state) {
    MimWorld *w = world(s);
    MimDef *slot = slot_of_ptr(w, p);
    uint64_t id;
    if (!slot || !slot_id(w, slot, &id)) return NULL;
    SlotInfo *si = mim_ptrmap_get(&s->slot_by_id, id_key(id));
    return si && si->state == state ? si : NULL;
}

static bool is_lam_with_body(MimDef *d) {
    return d && mim_def_node(d) == MIM_LAM && mim_def_is_mut(d) && mim_lam_body(d);
}

/* Does the value d carry a lambda with a body, directly or inside tuples?
 * (Such a lambda could be called by an axiom and access a slot; lambdas
 * reachable in other ways are covered by scope_controlled.) Only tuple
 * structure is followed, so memory chains are never walked. */
static bool value_has_lam(MimWorld *w, MimDef *d) {
    d = res(w, d);
    if (!d) return false;
    if (mim_def_is_mut(d)) return is_lam_with_body(d);
    if (mim_def_node(d) != MIM_TUPLE && mim_def_node(d) != MIM_PACK) return false;
    for (size_t i = 0, n = mim_def_num_ops(d); i < n; ++i)
        if (value_has_lam(w, mim_def_op(d, i))) return true;
    return false;
}

/* Does the application chain pass a lambda in one of its arguments? */
static bool has_local_lam(MimWorld *w, MimDef *d) {
    for (d = res(w, d); d && mim_def_node(d) == MIM_APP; d = res(w, mim_app_callee(d)))
        if (value_has_lam(w, mim_app_arg(d))) return true;
    return value_has_lam(w, d);
}

/* The memory token inside `arg` (its only %mem.M component), or NULL. */
static MimDef *mem_of(MimWorld *w, MimDef *arg) {
    MimDef *type = res(w, mim_def_type(arg));
    uint64_t i;
    if (!type || !mem_unique_M(w, type, &i)) return NULL;
    uint64_t n = mem_num_comps(w, type);
    return n == 1 && mem_is_M(w, type) ? arg : comp(w, arg, n, i);
}

/* An application of an axiom through which memory flows unchanged for a
 * non-escaping slot: the head is an axiom and no lambda that could run is
 * passed along. */
static bool is_transparent_app(MimWorld *w, MimDef *app) {
    return mim_def_node(app) == MIM_APP && mim_app_axiom(app) && mim_app_curry(app) == 0 &&
           !has_local_lam(w, app);
}

/* ---- the memory chain ---------------------------------------------------------------- */

typedef enum WalkRes { WALK_FAIL, WALK_VALUE, WALK_PARAM } WalkRes;

/* Is `slot` the slot we follow: the node `node` if given (copies of a slot
 * whose id is not unique are told apart by identity), else any slot `id`? */
static bool is_slot(MimWorld *w, MimDef *slot, uint64_t id, MimDef *node) {
    uint64_t sid;
    if (!slot) return false;
    if (node) return slot == node;
    return slot_id(w, slot, &sid) && sid == id;
}

/* Follows token m backwards to the value of slot `id` (or the slot node
 * `node`; pointee T): a value, or the lambda whose memory parameter is
 * reached (*out), or failure. */
static WalkRes walk(MimWorld *w, uint64_t id, MimDef *node, MimDef *T, MimDef *m, MimDef **out) {
    for (size_t step = 0; step < MAX_CHAIN; ++step) {
        m = res(w, m);
        if (!m) return WALK_FAIL;
        switch (mim_def_node(m)) {
        case MIM_APP: {
            MimDef *store = mim_match(m, MIM_mem_store);
            if (store) {
                MimDef *arg = mim_app_arg(store), *slot = slot_of_ptr(w, comp(w, arg, 3, 1));
                if (is_slot(w, slot, id, node)) {
                    *out = comp(w, arg, 3, 2);
                    return WALK_VALUE;
                }
                m = comp(w, arg, 3, 0);
                continue;
            }
            if (!is_transparent_app(w, m) || !mem_is_M(w, mim_def_type(m))) return WALK_FAIL;
            m = mem_of(w, mim_app_arg(m));
            continue;
        }
        case MIM_EXTRACT: {
            MimDef *tup = res(w, mim_def_op(m, 0));
            uint64_t idx;
            if (!mem_lit(w, mim_def_op(m, 1), &idx)) return WALK_FAIL;
            if (mim_def_node(tup) == MIM_VAR) {
                *out = res(w, mim_def_op(tup, 0));
                return WALK_PARAM;
            }
            MimDef *slot = mim_match(tup, MIM_mem_slot);
            if (idx == 0 && is_slot(w, slot, id, node)) {
                *out = mim_bot(w, T);
                return *out ? WALK_VALUE : WALK_FAIL;
            }
            if (!is_transparent_app(w, tup)) return WALK_FAIL;
            m = mem_of(w, mim_app_arg(tup));
            continue;
        }
        case MIM_VAR: *out = res(w, mim_def_op(m, 0)); return WALK_PARAM;
        default: return WALK_FAIL;
        }
    }
    return WALK_FAIL;
}

/* ---- prepare: classification -------------------------------------------------------- */

static void free_round(Ssa *s) {
    for (size_t i = 0; i < s->slots.len; ++i) {
        SlotInfo *si = s->slots.data[i];
        mim_vec_free(&si->binders);
        mim_vec_free(&si->loads);
        free(si);
    }
    s->slots.len = 0;
    for (size_t i = 0; i < s->needs.len; ++i) {
        Need *n = s->needs.data[i];
        mim_vec_free(&n->ids);
        free(n);
    }
    s->needs.len = 0;
    for (size_t i = 0; i < s->type_vecs.len; ++i) {
        mim_vec_free(s->type_vecs.data[i]);
        free(s->type_vecs.data[i]);
    }
    s->type_vecs.len = 0;
    mim_ptrmap_clear(&s->need_by_type);
    mim_ptrmap_clear(&s->slot_by_id);
    mim_ptrmap_clear(&s->need);
    mim_ptrmap_clear(&s->version);
    mim_ptrmap_clear(&s->binders);
    mim_ptrmap_clear(&s->safe);
    mim_ptrmap_clear(&s->binder_of);
    mim_ptrmap_clear(&s->scope_cache);
}

/* The mutables whose variables occur in d (not entering mutables). */
static void collect_binders(Ssa *s, MimDef *d, MemVec *out) {
    MimWorld *w = world(s);
    MemVec todo = {0}, visited = {0};
    MimPtrMap seen = {0};
    mim_vec_push(&todo, d);
    while (todo.len) {
        MimDef *x = res(w, todo.data[--todo.len]);
        if (!x || mim_def_is_mut(x) || mim_ptrmap_has(&seen, x)) continue;
        mim_ptrmap_put(&seen, x, (void *)1);
        MimDef *known = mim_ptrmap_get(&s->binder_of, x);
        if (known || mim_def_node(x) == MIM_VAR) {
            MimDef *b = known ? known : res(w, mim_def_op(x, 0));
            size_t i = 0;
            while (i < out->len && out->data[i] != b) ++i;
            if (i == out->len) mim_vec_push(out, b);
            continue;
        }
        if (!(mim_def_dep(x) & MIM_DEP_VAR)) continue;
        mim_vec_push(&visited, x);
        for (size_t i = 0, n = mim_def_num_ops(x); i < n; ++i) mim_vec_push(&todo, mim_def_op(x, i));
    }
    /* Memory chains are shared by all the slots along them: remember the
     * common case of a single binder so the next slot stops early. */
    if (out->len == 1)
        for (size_t i = 0; i < visited.len; ++i) mim_ptrmap_put(&s->binder_of, visited.data[i], out->data[0]);
    mim_vec_free(&todo);
    mim_vec_free(&visited);
    mim_ptrmap_free(&seen);
}

static bool mentions_any(MimWorld *w, MimDef *lam, MimDef *const *binders, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (mim_mentions_var(w, lam, binders[i])) return true;
    return false;
}

/* May `g`, called with memory, run code that accesses a slot with these
 * binders? Lambdas in the scope of the slot might; axioms and unknown
 * functions cannot (the slot's address does not escape). */
static bool may_access(MimWorld *w, MimDef *g, MimDef *const *binders, size_t n) {
    g = res(w, g);
    if (is_lam_with_body(g)) return mentions_any(w, g, binders, n);
    return mim_def_is_mut(g) ? false : has_local_lam(w, g);
}

/* Can control come back from X to its caller: X is not a continuation
 * (it returns) or takes a function (e.g. a return continuation)? Then its
 * caller may go on after X touched a slot. */
static bool has_pi_param(MimWorld *w, MimDef *X) {
    MimDef *pi = res(w, mim_def_type(X));
    if (!pi || mim_def_node(pi) != MIM_PI || !mim_pi_is_cn(pi)) return true; /* returns: same */
    MimDef *dom = mim_pi_dom(pi);
    uint64_t n = mem_num_comps(w, dom);
    for (uint64_t i = 0; i < n; ++i) {
        MimDef *t = mem_comp_type(w, dom, n, i);
        if (!t || mim_def_node(t) == MIM_PI) return true;
    }
    return false;
}

/* X is handed as a continuation to the call `app` (a component of its
 * argument): control enters X with memory derived from the call's memory
 * without passing through code that could touch the slot, provided the
 * callee and the other components cannot run such code and X never gives
 * control back (no function parameters). */
static bool cont_call_safe(MimWorld *w, MimDef *app, MimDef *X, MimDef *const *binders, size_t n) {
    if (has_pi_param(w, X) || may_access(w, mim_app_callee(app), binders, n)) return false;
    MimDef *arg = res(w, mim_app_arg(app));
    if (mim_def_node(arg) != MIM_TUPLE) return false;
    for (size_t i = 0, k = mim_def_num_ops(arg); i < k; ++i) {
        MimDef *c = res(w, mim_def_op(arg, i));
        if (c != X && may_access(w, c, binders, n)) return false;
    }
    return true;
}

/* The applications through which control enters lambda X (so that each can
 * pass X's φ values): calls of X, branches (…, X, …)#c arg, and calls that
 * take X as a continuation. false if X is used in another way (its entry
 * values would be unknown). With `entries` NULL only the check is done. */
static bool entries(Ssa *s, MimDef *X, SlotInfo *si, MemVec *out) {
    MimWorld *w = world(s);
    const MemUses *u = s->uses;
    MimDef **b = (MimDef **)si->binders.data;
    for (uint32_t i = mem_uses_first(u, X); i; i = u->uses.data[i - 1].next) {
        MemUse use = u->uses.data[i - 1];
        MimNode kind = mim_def_node(use.user);
        if (kind == MIM_APP && use.op == 0) {
            if (out) mim_vec_push(out, use.user); /* a call */
            continue;
        }
        if (kind != MIM_TUPLE || use.op == MEM_USE_TYPE) return false;
        for (uint32_t j = mem_uses_first(u, use.user); j; j = u->uses.data[j - 1].next) {
            MemUse tu = u->uses.data[j - 1];
            MimNode tk = mim_def_node(tu.user);
            if (tk == MIM_EXTRACT && tu.op == 0) { /* a branch (…, X, …)#c arg */
                for (uint32_t k = mem_uses_first(u, tu.user); k; k = u->uses.data[k - 1].next) {
                    MemUse eu = u->uses.data[k - 1];
                    if (mim_def_node(eu.user) != MIM_APP || eu.op != 0) return false;
                    if (out) mim_vec_push(out, eu.user);
                }
            } else if (tk == MIM_APP && tu.op == 1 && cont_call_safe(w, tu.user, X, b, si->binders.len)) {
                if (out) mim_vec_push(out, tu.user);
            } else {
                return false;
            }
        }
    }
    return true;
}

/* Every lambda in the slot's scope (mentioning its binders) must be entered
 * only in the ways `entries` understands; otherwise it may be called from
 * unknown code at unknown times (and touch the slot there). */
static bool scope_controlled(Ssa *s, SlotInfo *si) {
    MimWorld *w = world(s);
    MimDef **b = (MimDef **)si->binders.data;
    for (size_t i = 0; i < s->uses->lams.len; ++i) {
        MimDef *L = s->uses->lams.data[i];
        if (!is_lam_with_body(L) || !mentions_any(w, L, b, si->binders.len)) continue;
        if (mim_def_is_external(L) || !entries(s, L, si, NULL)) return false;
    }
    return true;
}

/* Can X get a φ-version at all? */
static bool phi_capable(MimWorld *w, MimDef *X) {
    uint64_t i;
    return mem_is_simple_lam(w, X) && mem_unique_M(w, mim_pi_dom(mem_lam_pi(w, X)), &i);
}

static void need_add(Ssa *s, MimDef *X, uint64_t id) {
    Need *n = mim_ptrmap_get(&s->need, X);
    if (!n) {
        n = mim_xcalloc(1, sizeof *n);
        mim_ptrmap_put(&s->need, X, n);
        mim_vec_push(&s->needs, n);
    }
    size_t pos = 0;
    while (pos < n->ids.len && n->ids.data[pos] < id) ++pos;
    if (pos < n->ids.len && n->ids.data[pos] == id) return;
    mim_vec_reserve(&n->ids, n->ids.len + 1);
    memmove(n->ids.data + pos + 1, n->ids.data + pos, (n->ids.len - pos) * sizeof *n->ids.data);
    n->ids.data[pos] = id;
    ++n->ids.len;
}

static bool phi_has(Ssa *s, MimDef *X, uint64_t id);
static void index_needs(Ssa *s);

/* Can the value of every load of si be found? Records the lambdas that need
 * a φ for it. */
static bool analyse_loads(Ssa *s, SlotInfo *si) {
    MimWorld *w = world(s);
    MemVec todo = {0}, lams = {0}, ents = {0};
    MimPtrMap seen_lam = {0};
    bool ok = true;
    for (size_t i = 0; i < si->loads.len; ++i)
        mim_vec_push(&todo, comp(w, mim_app_arg(si->loads.data[i]), 2, 0));
    while (ok && todo.len) {
        MimDef *out = NULL;
        WalkRes r = walk(w, si->id, si->dup ? si->slot : NULL, si->T, todo.data[--todo.len], &out);
        if (r == WALK_FAIL || (r == WALK_PARAM && si->dup)) ok = false;
        if (r != WALK_PARAM || phi_has(s, out, si->id) || mim_ptrmap_has(&seen_lam, out)) continue;
        mim_ptrmap_put(&seen_lam, out, (void *)1);
        ents.len = 0;
        if (!phi_capable(w, out) || !entries(s, out, si, &ents)) {
            ok = false;
            continue;
        }
        mim_vec_push(&lams, out);
        for (size_t j = 0; ok && j < ents.len; ++j) {
            MimDef *m = mem_of(w, mim_app_arg(ents.data[j]));
            if (m) mim_vec_push(&todo, m);
            else ok = false;
        }
    }
    if (ok)
        for (size_t i = 0; i < lams.len; ++i) need_add(s, lams.data[i], si->id);
    mim_vec_free(&todo);
    mim_vec_free(&lams);
    mim_vec_free(&ents);
    mim_ptrmap_free(&seen_lam);
    return ok;
}

/* The pointer of a load (2 operands) or store (3) used at position 1 of the
 * argument tuple `tup`; pushes the memory operations onto loads/stores. */
static bool ptr_use_ok(Ssa *s, MimDef *P, MimDef *tup, uint32_t op, MemVec *loads, size_t *stores) {
    MimWorld *w = world(s);
    size_t n = mim_def_num_ops(tup);
    if (mim_def_node(tup) != MIM_TUPLE || op != 1 || (n != 2 && n != 3)) return false;
    if (res(w, mim_def_op(tup, 0)) == P || (n == 3 && res(w, mim_def_op(tup, 2)) == P)) return false;
    const MemUses *u = s->uses;
    for (uint32_t i = mem_uses_first(u, tup); i; i = u->uses.data[i - 1].next) {
        MemUse use = u->uses.data[i - 1];
        uint64_t ax = n == 2 ? MIM_mem_load : MIM_mem_store;
        if (use.op != 1 || mim_match(use.user, ax) != use.user) return false;
        if (n == 2) mim_vec_push(loads, use.user);
        else ++*stores;
    }
    return true;
}

/* scope_controlled, cached per binder for the usual single-binder slots. */
static bool scope_ok(Ssa *s, SlotInfo *si) {
    if (si->binders.len != 1) return scope_controlled(s, si);
    uintptr_t c = (uintptr_t)mim_ptrmap_get(&s->scope_cache, si->binders.data[0]);
    if (!c) {
        c = scope_controlled(s, si) ? 1 : 2;
        mim_ptrmap_put(&s->scope_cache, si->binders.data[0], (void *)c);
    }
    return c == 1;
}

static void classify(Ssa *s, SlotInfo *si) {
    MimWorld *w = world(s);
    const MemUses *u = s->uses;
    MimDef *P = NULL;
    si->state = SLOT_KEEP;
    for (uint32_t i = mem_uses_first(u, si->slot); i; i = u->uses.data[i - 1].next) {
        MemUse use = u->uses.data[i - 1];
        uint64_t idx;
        if (mim_def_node(use.user) != MIM_EXTRACT || use.op != 0 || !mem_lit(w, mim_def_op(use.user, 1), &idx) ||
            idx > 1)
            return;
        if (idx == 1) {
            if (P && P != use.user) return;
            P = use.user;
        }
    }
    size_t stores = 0;
    for (uint32_t i = P ? mem_uses_first(u, P) : 0; i; i = u->uses.data[i - 1].next) {
        MemUse use = u->uses.data[i - 1];
        if (!ptr_use_ok(s, P, use.user, use.op, &si->loads, &stores)) return;
    }
    if (!si->loads.len) {
        si->state = stores ? SLOT_STORES : SLOT_DEAD;
        return;
    }
    collect_binders(s, si->slot, &si->binders);
    if (scope_ok(s, si) && analyse_loads(s, si)) si->state = SLOT_PROMOTE;
}

/* Can the rewrite change anything this round? Loads, stores and slots are
 * rewritten only for a slot (its shared state) that is not kept, calls only
 * for lambdas with needs. */
static bool has_work(Ssa *s) {
    if (s->need.len) return true;
    for (size_t i = 0; i < s->slots.len; ++i) {
        SlotInfo *si = s->slots.data[i], *first = mim_ptrmap_get(&s->slot_by_id, id_key(si->id));
        if (!first || first->state != SLOT_KEEP) return true;
    }
    return false;
}

static void ssa_prepare(MimPass *p) {
    Ssa *s = (Ssa *)p;
    MimWorld *w = world(s);
    free_round(s);
    s->uses = mem_uses_of(p);
    for (size_t i = 0; i < s->uses->slots.len; ++i) {
        MimDef *slot = s->uses->slots.data[i];
        uint64_t id;
        if (mim_app_num_args(slot) != 2 || !slot_id(w, slot, &id))
            continue;
        SlotInfo *si = mim_xcalloc(1, sizeof *si);
        si->id = id;
        si->slot = slot;
        si->T = mim_proj(w, mim_app_nth_arg(slot, 0), 2, 0);
        SlotInfo *other = mim_ptrmap_get(&s->slot_by_id, id_key(id));
        if (other) other->dup = si->dup = true;
        else mim_ptrmap_put(&s->slot_by_id, id_key(id), si);
        mim_vec_push(&s->slots, si);
    }
    for (size_t i = 0; i < s->slots.len; ++i) {
        SlotInfo *si = s->slots.data[i];
        classify(s, si);
        if (si->state == SLOT_PROMOTE)
            for (size_t j = 0; j < si->binders.len; ++j) mim_ptrmap_put(&s->binders, si->binders.data[j], (void *)1);
    }
    /* The copies of a non-unique id share one state, kept in the info that
     * slot_by_id finds: any escaping copy keeps them all. */
    for (size_t i = 0; i < s->slots.len; ++i) {
        SlotInfo *si = s->slots.data[i], *first = mim_ptrmap_get(&s->slot_by_id, id_key(si->id));
        if (si == first || !si->dup) continue;
        if (si->state == SLOT_KEEP || first->state == SLOT_KEEP) first->state = SLOT_KEEP;
        else if (si->state < first->state) first->state = si->state; /* PROMOTE < STORES < DEAD */
    }
    index_needs(s);
    if (!has_work(s)) mim_pass_idle(p);
}

/* Is X a φ-version carrying slot `id`? */
static bool phi_has(Ssa *s, MimDef *X, uint64_t id) {
    PhiInfo *pi = mim_ptrmap_get(&s->phi, X);
    for (size_t j = 0; pi && j < pi->num; ++j)
        if (pi->ids[j] == id) return true;
    return false;
}

static bool same_loc(MimLoc a, MimLoc b) {
    return a.file == b.file && a.begin.row == b.begin.row && a.begin.col == b.begin.col &&
           a.end.row == b.end.row && a.end.col == b.end.col;
}

/* Index the lambdas with needs by type, to recognize their copies. */
static void index_needs(Ssa *s) {
    MimWorld *w = world(s);
    for (size_t i = 0; i < s->need.cap; ++i) {
        MimDef *X = (MimDef *)s->need.slots[i].key;
        if (!X) continue;
        MimDef *type = res(w, mim_def_type(X));
        MemVec *v = mim_ptrmap_get(&s->need_by_type, type);
        if (!v) {
            v = mim_xcalloc(1, sizeof *v);
            mim_ptrmap_put(&s->need_by_type, type, v);
            mim_vec_push(&s->type_vecs, v);
        }
        mim_vec_push(v, X);
    }
}

/* The slots needing φs in X. Creating a φ-version copies the lambdas nested
 * in the original (they mention its variable), so within one traversal a
 * lambda may be a fresh copy of one the analysis saw: it is recognized by
 * name, location and type (a wrong match would only add exact, unused φ
 * values: every value passed is the slot's contents at that point). */
static Need *need_of(Ssa *s, MimDef *X) {
    Need *need = mim_ptrmap_get(&s->need, X);
    if (need || !is_lam_with_body(X) || mim_ptrmap_has(&s->made, X)) return need;
    MimLoc loc = mim_def_loc(X);
    MimSym name = mim_def_name(X);
    MemVec *v = name && loc.begin.row ? mim_ptrmap_get(&s->need_by_type, res(world(s), mim_def_type(X))) : NULL;
    for (size_t i = 0; v && i < v->len; ++i) {
        MimDef *Y = v->data[i];
        if (mim_def_name(Y) == name && same_loc(mim_def_loc(Y), loc)) {
            need = mim_ptrmap_get(&s->need, Y);
            mim_ptrmap_put(&s->need, X, need);
            return need;
        }
    }
    return NULL;
}

/* ---- rewriting -------------------------------------------------------------------------- */

/* The value of slot `id` (copy `node` for a non-unique id) at token m while
 * rewriting, or NULL. */
static MimDef *value_at(Ssa *s, uint64_t id, MimDef *node, MimDef *m) {
    MimWorld *w = world(s);
    SlotInfo *si = mim_ptrmap_get(&s->slot_by_id, id_key(id));
    MimDef *out = NULL;
    if (!si || (si->dup && !node)) return NULL;
    switch (walk(w, id, si->dup ? node : NULL, si->T, m, &out)) {
    case WALK_VALUE: return out;
    case WALK_PARAM: {
        if (si->dup) return NULL;
        PhiInfo *pi = mim_ptrmap_get(&s->phi, out);
        for (size_t j = 0; pi && j < pi->num; ++j)
            if (pi->ids[j] == id) return mim_var_proj(w, out, pi->n, pi->base + j);
        return NULL;
    }
    default: return NULL;
    }
}

/* Values of all slots of `need` at token m (false if one is unknown). */
static bool values_at(Ssa *s, const Need *need, MimDef *m, MimDef **vals) {
    for (size_t j = 0; j < need->ids.len; ++j)
        if (!m || !(vals[j] = value_at(s, need->ids.data[j], NULL, m))) return false;
    return true;
}

/* X's parameters as a tuple of the first n variable projections of `lam`
 * (which keep the names of X's parameters). */
static MimDef *forward_params(MimWorld *w, MimDef *X, MimDef *dom, uint64_t n, MimDef *lam,
                              uint64_t total, MimDef **args) {
    bool sigma = mim_def_node(res(w, dom)) == MIM_SIGMA;
    for (uint64_t i = 0; i < n; ++i) args[i] = total == 1 ? mim_var(w, lam) : mim_var_proj(w, lam, total, i);
    if (!sigma && n == 1 && args[0]) mim_name_like_var(args[0], X);
    return sigma ? mim_tuple_typed(w, dom, args, n) : args[0];
}

/* The φ-version of X for the slots of `need` (created once per round). */
static MimDef *phi_version(Ssa *s, MimDef *X, const Need *need) {
    MimDef *done = mim_ptrmap_get(&s->version, X);
    if (done) return done;
    MimWorld *w = world(s);
    MimDef *pi = mem_lam_pi(w, X), *dom = mim_pi_dom(pi);
    uint64_t n = mem_num_comps(w, dom), total = n + need->ids.len;
    MimDef **comps = mim_xcalloc(total, sizeof *comps);
    for (uint64_t i = 0; i < n; ++i) comps[i] = mem_comp_type(w, dom, n, i);
    for (size_t j = 0; j < need->ids.len; ++j)
        comps[n + j] = ((SlotInfo *)mim_ptrmap_get(&s->slot_by_id, id_key(need->ids.data[j])))->T;
    MimDef *lam = mim_mut_lam(w, mim_pi(w, mim_sigma(w, comps, total), mim_pi_codom(pi), false));
    MimDef *out[2] = {NULL, NULL};
    bool ok = lam && mim_reduce(w, X, forward_params(w, X, dom, n, lam, total, comps), out) &&
              mim_lam_set(w, lam, out[0], out[1]);
    free(comps);
    if (!ok) return NULL;
    if (mim_def_name(X)) mim_def_set_name(lam, mim_def_name(X));
    PhiInfo *info = mim_xcalloc(1, sizeof *info);
    info->base = n;
    info->n = total;
    info->num = need->ids.len;
    info->ids = mim_xcalloc(need->ids.len, sizeof *info->ids);
    memcpy(info->ids, need->ids.data, need->ids.len * sizeof *info->ids);
    mim_ptrmap_put(&s->phi, lam, info);
    mim_ptrmap_put(&s->made, lam, (void *)1);
    mim_vec_push(&s->phis, info);
    mim_ptrmap_put(&s->version, X, lam);
    /* Copies of lambdas nested in X now live under the new binder. */
    if (mim_ptrmap_has(&s->binders, X)) mim_ptrmap_put(&s->binders, lam, (void *)1);
    if (s->eta_exp) mim_eta_exp_derive(s->eta_exp, lam, X);
    return lam;
}

/* `X' (params…, vals…)` for the arguments `arg` of a call of X. */
static MimDef *call_phi(Ssa *s, MimDef *X, const Need *need, MimDef *arg, MimDef *const *vals) {
    MimWorld *w = world(s);
    MimDef *lam = phi_version(s, X, need);
    if (!lam) return NULL;
    MimDef *dom = mim_pi_dom(mem_lam_pi(w, X));
    uint64_t n = mem_num_comps(w, dom), total = n + need->ids.len;
    bool sigma = mim_def_node(res(w, dom)) == MIM_SIGMA;
    MimDef **args = mim_xcalloc(total, sizeof *args);
    for (uint64_t i = 0; i < n; ++i) args[i] = sigma ? mim_proj(w, arg, n, i) : arg;
    for (size_t j = 0; j < need->ids.len; ++j) args[n + j] = vals[j];
    MimDef *call = mim_app(w, lam, mim_tuple(w, args, total));
    free(args);
    return call;
}

/* A wrapper `λx. X' (x, vals)` standing for X where control enters it with
 * the memory the values were taken at. */
static MimDef *wrapper(Ssa *s, MimDef *X, const Need *need, MimDef *const *vals) {
    MimWorld *w = world(s);
    MimDef *lam = mim_mut_lam(w, mim_def_type(X));
    if (!lam) return NULL;
    MimDef *dom = mim_pi_dom(mem_lam_pi(w, X));
    uint64_t n = mem_num_comps(w, dom);
    MimDef **tmp = mim_xcalloc(n ? n : 1, sizeof *tmp);
    MimDef *params = n == 0 ? mim_var(w, lam) : forward_params(w, X, dom, n, lam, n, tmp);
    free(tmp);
    MimDef *body = call_phi(s, X, need, params, vals);
    if (!body || !mim_lam_set(w, lam, mim_lit_bool(w, false), body)) return NULL;
    mim_ptrmap_put(&s->made, lam, (void *)1);
    if (mim_def_name(X)) mim_def_set_name(lam, mim_def_name(X));
    return lam;
}

/* Is one of the components of tuple t a lambda needing φs? */
static bool tuple_has_need(Ssa *s, MimDef *t) {
    MimWorld *w = world(s);
    t = res(w, t);
    if (!t || mim_def_node(t) != MIM_TUPLE) return false;
    for (size_t i = 0, n = mim_def_num_ops(t); i < n; ++i)
        if (need_of(s, res(w, mim_def_op(t, i)))) return true;
    return false;
}

/* t with every component that needs φs replaced by a wrapper receiving the
 * values at token m; NULL if some value is unknown. */
static MimDef *wrap_components(Ssa *s, MimDef *t, MimDef *m) {
    MimWorld *w = world(s);
    t = res(w, t);
    size_t n = mim_def_num_ops(t);
    MimDef **ops = mim_xcalloc(n, sizeof *ops);
    MimDef *result = NULL;
    for (size_t i = 0; i < n; ++i) {
        MimDef *c = res(w, mim_def_op(t, i));
        Need *need = need_of(s, c);
        ops[i] = c;
        if (!need) continue;
        MimDef **vals = mim_xcalloc(need->ids.len, sizeof *vals);
        bool ok = values_at(s, need, m, vals) && (ops[i] = wrapper(s, c, need, vals));
        free(vals);
        if (!ok) goto done;
    }
    result = mim_tuple_typed(w, mim_def_type(t), ops, n);
done:
    free(ops);
    return result;
}

/* At rewrite time: may g touch a promoted slot? (cached per round) */
static bool rewrite_may_access(Ssa *s, MimDef *g) {
    MimWorld *w = world(s);
    g = res(w, g);
    uintptr_t c = (uintptr_t)mim_ptrmap_get(&s->safe, g);
    if (c) return c == 2;
    bool acc;
    if (is_lam_with_body(g)) {
        acc = false;
        for (size_t i = 0; i < s->binders.cap && !acc; ++i)
            if (s->binders.slots[i].key) acc = mim_mentions_var(w, g, (MimDef *)s->binders.slots[i].key);
    } else {
        acc = !mim_def_is_mut(g) && has_local_lam(w, g);
    }
    mim_ptrmap_put(&s->safe, g, (void *)(uintptr_t)(acc ? 2 : 1));
    return acc;
}

static MimDef *rewrite_call(Ssa *s, MimDef *d) {
    MimWorld *w = world(s);
    MimDef *callee = res(w, mim_app_callee(d)), *arg = mim_app_arg(d);
    /* X args → X' (args, vals) */
    Need *need = need_of(s, callee);
    if (need) {
        MimDef **vals = mim_xcalloc(need->ids.len, sizeof *vals);
        MimDef *r = values_at(s, need, mem_of(w, arg), vals) ? call_phi(s, callee, need, arg, vals) : d;
        free(vals);
        return r;
    }
    /* (…, X, …)#c args: wrap the targets needing φs */
    if (mim_def_node(callee) == MIM_EXTRACT && tuple_has_need(s, mim_def_op(callee, 0))) {
        MimDef *m = mem_of(w, arg);
        MimDef *t = m ? wrap_components(s, mim_def_op(callee, 0), m) : NULL;
        return t ? mim_app(w, mim_extract(w, t, mim_def_op(callee, 1)), arg) : d;
    }
    /* g (m, …, X, …): wrap the one continuation needing φs (cf. cont_call_safe) */
    MimDef *t = res(w, arg);
    if (!tuple_has_need(s, t) || rewrite_may_access(s, callee)) return d;
    size_t needing = 0;
    for (size_t i = 0, n = mim_def_num_ops(t); i < n; ++i) {
        MimDef *c = res(w, mim_def_op(t, i));
        if (need_of(s, c)) needing += has_pi_param(w, c) ? 2 : 1;
        else if (rewrite_may_access(s, c)) return d;
    }
    MimDef *m = needing == 1 ? mem_of(w, arg) : NULL;
    MimDef *nt = m ? wrap_components(s, arg, m) : NULL;
    return nt ? mim_app(w, callee, nt) : d;
}

static MimDef *ssa_rewrite(MimPass *p, MimDef *d) {
    Ssa *s = (Ssa *)p;
    MimWorld *w = world(s);
    if (mim_def_node(d) != MIM_APP) return d;
    MimDef *arg = mim_app_arg(d);
    if (mim_match(d, MIM_mem_load) == d) {
        SlotInfo *si = slot_info(s, mim_proj(w, arg, 2, 1), SLOT_PROMOTE);
        MimDef *m = mim_proj(w, arg, 2, 0);
        MimDef *v = si ? value_at(s, si->id, slot_of_ptr(w, mim_proj(w, arg, 2, 1)), m) : NULL;
        if (!v) return d;
        mim_pass_changed(p);
        return mim_tuple(w, (MimDef *[]){m, v}, 2);
    }
    if (mim_match(d, MIM_mem_store) == d) {
        if (!slot_info(s, mim_proj(w, arg, 3, 1), SLOT_STORES)) return d;
        MimDef *remem = mim_annex(w, MIM_mem_remem);
        mim_pass_changed(p);
        return remem ? mim_app(w, remem, mim_proj(w, arg, 3, 0)) : NULL;
    }
    MimDef *slot = mim_match(d, MIM_mem_slot);
    uint64_t id;
    if (slot == d && mim_app_num_args(d) == 2 && slot_id(w, d, &id)) {
        SlotInfo *si = mim_ptrmap_get(&s->slot_by_id, id_key(id));
        if (!si || si->state != SLOT_DEAD) return d;
        MimDef *ptr = res(w, mim_proj(w, mim_def_type(d), 2, 1));
        MimDef *mem = mim_proj(w, arg, 2, 0); /* left to right: gids */
        return mim_tuple(w, (MimDef *[]){mem, mim_bot(w, ptr)}, 2);
    }
    if (!s->need.len) return d;
    MimDef *r = rewrite_call(s, d);
    if (r != d && r) mim_pass_changed(p);
    return r;
}

static void ssa_fini(MimPass *p) {
    Ssa *s = (Ssa *)p;
    free_round(s);
    for (size_t i = 0; i < s->phis.len; ++i) {
        PhiInfo *pi = s->phis.data[i];
        free(pi->ids);
        free(pi);
    }
    mim_vec_free(&s->phis);
    mim_vec_free(&s->slots);
    mim_vec_free(&s->needs);
    mim_ptrmap_free(&s->slot_by_id);
    mim_ptrmap_free(&s->need);
    mim_ptrmap_free(&s->need_by_type);
    mim_vec_free(&s->type_vecs);
    mim_ptrmap_free(&s->made);
    mim_ptrmap_free(&s->version);
    mim_ptrmap_free(&s->phi);
    mim_ptrmap_free(&s->binders);
    mim_ptrmap_free(&s->safe);
    mim_ptrmap_free(&s->binder_of);
    mim_ptrmap_free(&s->scope_cache);
}

static const MimPassClass ssa_class = {.name = "ssa_constr", .size = sizeof(Ssa), .on_lams = true,
                                       .prepare = ssa_prepare, .rewrite = ssa_rewrite, .fini = ssa_fini};

/* %mem.ssa_pass ee */
bool mem_handle_ssa(MimPipeline *pb, MimDef *app) {
    bool fresh;
    Ssa *s = (Ssa *)mim_pipeline_add_pass(pb, app, &ssa_class, &fresh);
    if (!s) return false;
    if (fresh) s->eta_exp = mim_pipeline_pass_of(pb, mim_app_arg(app));
    return true;
}
