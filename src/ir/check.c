/* α-equivalence (semantics.md §8) and assignability (§9).
 *
 * One run (an Alpha) remembers which mutables were compared with what
 * (coinduction over cycles), which binders correspond (to compare bound
 * variables), and which immutable pairs were already found equal (so shared
 * sub-DAGs are compared once). Inference mode solves holes as a side effect;
 * solutions are kept even if the overall comparison fails (reference
 * behaviour). */
#include "ir/check.h"

#include <string.h>

typedef struct Alpha {
    MimWorld *w;
    bool infer;
    MimPairMap done; /* pairs with a mutable side met so far (ordered by gid) */
    MimPtrMap vars;  /* binder -> corresponding binder (NULL: compared with an immutable) */
    MimPairMap same; /* immutable pairs (ordered) found equal */
} Alpha;

/* Inline first storage of an Alpha's maps: most comparisons are small. */
typedef struct AlphaBufs {
    MimPtrMapSlot vars[MIM_MAP_INLINE];
    MimPairMapSlot done[MIM_MAP_INLINE], same[MIM_MAP_INLINE];
} AlphaBufs;

static void alpha_init(Alpha *a, AlphaBufs *bufs, MimWorld *w, bool infer) {
    memset(a, 0, sizeof *a);
    a->w = w;
    a->infer = infer;
    mim_pairmap_lend(&a->done, bufs->done);
    mim_ptrmap_lend(&a->vars, bufs->vars);
    mim_pairmap_lend(&a->same, bufs->same);
}

static void alpha_fini(Alpha *a) {
    mim_pairmap_free(&a->done);
    mim_ptrmap_free(&a->vars);
    mim_pairmap_free(&a->same);
}

static bool is_set(const MimDef *m) { return m->num_ops == 0 || m->ops[m->num_ops - 1]; }

/* The type as stored: the type of `Type l` is implied by l and not compared
 * (comparing it would recurse through ever higher universes). */
static MimDef *raw_type(const MimDef *d) { return d->node == MIM_TYPE ? NULL : d->type; }

/* Occurs check: would solving `hole` with `d` create a cycle through
 * immutables? (Cycles through mutables are legitimate recursion.) */
static bool occurs(MimPtrMap *seen, MimDef *hole, MimDef *d) {
    if (!d) return false;
    if (d == hole) return true;
    if (!(d->dep & MIM_DEP_INFER)) return false;
    if (d->node == MIM_INFER) return d->ops[0] && occurs(seen, hole, d->ops[0]);
    if (d->is_mut || !mim_ptrmap_add(seen, d, NULL, NULL)) return false;
    if (occurs(seen, hole, raw_type(d))) return true;
    for (size_t i = 0; i < d->num_ops; ++i)
        if (occurs(seen, hole, d->ops[i])) return true;
    return false;
}

static bool solve(Alpha *a, MimDef *hole, MimDef *sol) {
    MimPtrMap seen = {0};
    bool cyclic = occurs(&seen, hole, sol);
    mim_ptrmap_free(&seen);
    if (cyclic) return false;
    mim_hole_solve(a->w, hole, sol);
    return true;
}

static bool alpha_(Alpha *a, MimDef *d1, MimDef *d2);

/* Pair order of §8 step 7: literal to the right, UMax to the left, otherwise
 * the smaller gid to the left. */
static bool needs_swap(const MimDef *d1, const MimDef *d2) {
    bool l1 = d1->node == MIM_LIT, l2 = d2->node == MIM_LIT;
    if (l1 != l2) return l1;
    bool u1 = d1->node == MIM_UMAX, u2 = d2->node == MIM_UMAX;
    if (u1 != u2) return u2;
    return d1->gid > d2->gid;
}

static bool alpha_var(Alpha *a, MimDef *v1, MimDef *v2) {
    MimDef *b1 = v1->ops[0], *b2 = v2->ops[0];
    void **p = mim_ptrmap_find(&a->vars, b1);
    if (p) return *p == b2;
    if (mim_ptrmap_has(&a->vars, b2)) return false; /* v2 bound, v1 free */
    return v1 == v2 || a->infer;                      /* both free */
}

/* `.umax(a, ?) == b`: solve the open holes among the levels with b, then
 * rebuild (renormalize) the maximum. */
static MimDef *solve_umax(Alpha *a, MimDef *umax, MimDef *other) {
    size_t n = umax->num_ops;
    MimDef *small[8], **ops = n <= 8 ? small : mim_xmalloc(n * sizeof *ops);
    for (size_t i = 0; i < n; ++i) {
        ops[i] = mim_resolve(a->w, umax->ops[i]);
        if (mim_is_open_hole(ops[i]) && solve(a, ops[i], other)) ops[i] = other;
    }
    MimDef *res = mim_umax(a->w, ops, n);
    if (ops != small) free(ops);
    return res;
}

/* The arities of d1 and d2 agree. They are computed in this order on
 * purpose (they may build literals, and gids follow creation order; C would
 * leave the order of two arguments open). */
static bool same_arity(Alpha *a, MimDef *d1, MimDef *d2) {
    MimDef *n1 = mim_arity(a->w, d1);
    MimDef *n2 = mim_arity(a->w, d2);
    return alpha_(a, n1, n2);
}

static bool alpha_internal(Alpha *a, MimDef *d1, MimDef *d2) {
    MimWorld *w = a->w;
    if (!alpha_(a, raw_type(d1), raw_type(d2))) return false;
    if (d1->node == MIM_TOP || d2->node == MIM_TOP) return a->infer; /* ⊤ is a wildcard */
    if (!a->infer && (d1->node == MIM_INFER || d2->node == MIM_INFER)) return false;
    if (!same_arity(a, d1, d2)) return false;

    if (d1->is_mut) mim_ptrmap_put(&a->vars, d1, d2->is_mut ? d2 : NULL);
    if (d2->is_mut) mim_ptrmap_put(&a->vars, d2, d1->is_mut ? d1 : NULL);

    switch ((MimNode)d1->node) {
    case MIM_TUPLE:
    case MIM_SIGMA: { /* a tuple may equal a pack, a sigma an array */
        size_t n = d1->num_ops;
        for (size_t k = 0; k < n; ++k) {
            MimDef *p = mim_proj(w, d2, n, k);
            if (!p || !alpha_(a, d1->ops[k], p)) return false;
        }
        return true;
    }
    case MIM_PACK:
    case MIM_ARR: {
        if (d1->node == d2->node) /* shapes were compared as arities */
            return alpha_(a, d1->ops[d1->num_ops - 1], d2->ops[d2->num_ops - 1]);
        uint64_t n;
        if (mim_literal_arity(w, d1, &n)) {
            for (uint64_t k = 0; k < n; ++k) {
                MimDef *p1 = mim_proj(w, d1, n, k), *p2 = mim_proj(w, d2, n, k);
                if (!p1 || !p2 || !alpha_(a, p1, p2)) return false;
            }
            return true;
        }
        break;
    }
    case MIM_UMAX:
        if ((d1->dep & MIM_DEP_INFER) && d2->node != MIM_UMAX) {
            d1 = solve_umax(a, d1, d2);
            if (!d1) return false;
        }
        break;
    default: break;
    }

    if (d1->node != d2->node || d1->flags != d2->flags || d1->num_ops != d2->num_ops) return false;
    if (d1->node == MIM_VAR) return alpha_var(a, d1, d2);
    for (size_t i = 0; i < d1->num_ops; ++i)
        if (!alpha_(a, d1->ops[i], d2->ops[i])) return false;
    return true;
}

/* Inference mode, `h#k`: an extraction by a literal index from a hole h,
 * compared with a node other that is not a projection `x#k` (comparing
 * the tuples, x with h, solves h as a whole, as before), ⊤ (a wildcard) or
 * a UMax (whose holes are solved with `h#k`).
 * - h open and other no open hole (that is solved with `h#k` itself): the
 *   projection is a hole of its own. h is split into a tuple of holes
 *   (mim_hole_tuplefy) and `h#k` becomes its k-th element, which the
 *   comparison then solves.
 * - h split before (e.g. by an earlier part of the comparison): `h#k` is
 *   stale and is compared as the k-th element of h's solution.
 * Anything else is compared as before: a failed comparison may be harmless
 * (e.g. iapp's early check) and must not change its nodes, so programs
 * inferred before keep their nodes and gids. Returns d, or what replaces it. */
static MimDef *split_hole_proj(Alpha *a, MimDef *d, MimDef *other) {
    MimWorld *w = a->w;
    uint64_t k, ko;
    if (d->node != MIM_EXTRACT || !(d->dep & MIM_DEP_INFER) || !mim_is(d->ops[0], MIM_INFER) ||
        !mim_is_lit(mim_resolve(w, d->ops[1]), &k))
        return d;
    if (other->node == MIM_TOP || other->node == MIM_UMAX) return d;
    if (other->node == MIM_EXTRACT && mim_is_lit(mim_resolve(w, other->ops[1]), &ko) && ko == k) return d;
    MimDef *h = mim_resolve(w, d->ops[0]);
    if (mim_is_open_hole(h) ? other->node == MIM_INFER || !mim_hole_tuplefy(w, h) : !mim_hole_is_split(d->ops[0]))
        return d;
    MimDef *res = mim_eliminate_holes(w, d);
    return res ? mim_resolve(w, res) : d;
}

/* Memo of pairs with a mutable side (§8 step 4): a pair met again is
 * equal, coinductively (it is being compared, or was: a failure anywhere
 * fails the whole run). The memo is per pair, not per mutable: one mutable
 * may be compared with several distinct but equal nodes in one run, e.g.
 * the element type `Cn T` of `«2; Cn T»` with the types of two different
 * `fun`s (the reference only lets a mutable meet one partner per run, see
 * docs/decisions.md). Returns false if the pair was met before. */
static bool assume_pair(Alpha *a, MimDef *d1, MimDef *d2) {
    if (d1->gid > d2->gid) {
        MimDef *t = d1;
        d1 = d2;
        d2 = t;
    }
    if (mim_pairmap_find(&a->done, d1, d2)) return false;
    mim_pairmap_put(&a->done, d1, d2, NULL);
    return true;
}

static bool alpha_(Alpha *a, MimDef *d1, MimDef *d2) {
    d1 = mim_resolve(a->w, d1);
    d2 = mim_resolve(a->w, d2);
    if (!d1 || !d2) return !d1 && !d2;
    /* Identity suffices only without variables: λx.x vs λz.x */
    if (d1 == d2 && !((d1->dep | d2->dep) & MIM_DEP_VAR)) return true;
    if (d1 == d2 && d1->is_mut) return true;
    if (d1->node == MIM_GLOBAL || d2->node == MIM_GLOBAL) return false;
    if (a->infer) { /* before the memo below records either side */
        MimDef *s1 = split_hole_proj(a, d1, d2);
        MimDef *s2 = s1 != d1 ? d2 : split_hole_proj(a, d2, d1);
        if (s1 != d1 || s2 != d2) return alpha_(a, s1, s2);
    }

    if ((d1->is_mut || d2->is_mut) && !assume_pair(a, d1, d2)) return true;

    bool h1 = d1->node == MIM_INFER, h2 = d2->node == MIM_INFER; /* resolved: open */
    if ((d1->is_mut && !h1 && !is_set(d1)) || (d2->is_mut && !h2 && !is_set(d2))) return false;

    if (a->infer) {
        if (h1 && h2) {
            mim_hole_union(a->w, d1, d2);
            return true;
        }
        if (h1) return solve(a, d1, d2);
        if (h2) return solve(a, d2, d1);
    }

    if (needs_swap(d1, d2)) {
        MimDef *t = d1;
        d1 = d2;
        d2 = t;
    }
    bool imm = !d1->is_mut && !d2->is_mut;
    if (imm && mim_pairmap_find(&a->same, d1, d2)) return true;
    bool res = alpha_internal(a, d1, d2);
    /* Only successes are remembered: they stay valid as the run proceeds
     * (binder correspondences and hole solutions only ever grow). */
    if (res && imm) mim_pairmap_put(&a->same, d1, d2, NULL);
    return res;
}

/* Nodes alpha_internal compares other than operand by operand: a tuple
 * with a pack, a sigma with an array, ⊤, maxima of levels, holes. */
static bool special_kind(const MimDef *d) {
    switch ((MimNode)d->node) {
    case MIM_TUPLE:
    case MIM_PACK:
    case MIM_SIGMA:
    case MIM_ARR:
    case MIM_TOP:
    case MIM_UMAX:
    case MIM_INFER: return true;
    default: return false;
    }
}

/* The literal arity of d as mim_arity computes it, without building the
 * literal; false if it is not known to be a literal within a few steps. */
static bool quick_arity(MimWorld *w, MimDef *d, uint64_t *n) {
    for (unsigned steps = 0; steps < 4; ++steps) {
        d = mim_res(w, d);
        if (!d) return false;
        switch ((MimNode)d->node) {
        case MIM_SIGMA: *n = d->num_ops; return true;
        case MIM_ARR: return mim_is_lit(mim_res(w, d->ops[0]), n);
        case MIM_TYPE:
        case MIM_UNIV: *n = 1; return true;
        default: d = d->type;
        }
    }
    return false;
}

/* A tuple, pack, sigma or array against anything but ⊤, a maximum of
 * levels or a hole: alpha_internal compares the arities before anything
 * kind-specific, and two distinct literal arities differ. */
bool mim_quick_differ(const MimDef *a, const MimDef *b) {
    if (a == b || ((a->dep | b->dep) & MIM_DEP_INFER) || special_kind(a) || special_kind(b)) return false;
    if (a->node != b->node) return true; /* as certainly_differ: kinds first */
    /* Distinct literals are distinct normal forms (their types or values
     * differ), so the projections differ in an operand. */
    return a->node == MIM_EXTRACT && !a->is_mut && !b->is_mut && a->ops[0] == b->ops[0] &&
           a->ops[1] != b->ops[1] && a->ops[1]->node == MIM_LIT && b->ops[1]->node == MIM_LIT;
}

static bool arities_differ(MimWorld *w, MimDef *a, MimDef *b) {
    for (int i = 0; i < 2; ++i) {
        MimNode k = (MimNode)(i ? b : a)->node;
        if (k == MIM_TOP || k == MIM_UMAX || k == MIM_INFER) return false;
    }
    uint64_t na, nb;
    return quick_arity(w, a, &na) && quick_arity(w, b, &nb) && na != nb;
}

/* Certainly not α-equivalent without inference (false: maybe)? alpha_internal
 * needs the same kind (except the special ones), a set mutable, the same
 * flags and operand count, equal types and all operands equal. This holds
 * for mutables too (distinct `con`s in one tuple, e.g. the branches of a
 * conditional): a mismatch reached through a pair the full comparison meets
 * twice is also reached from its first meeting. Variables (whose binders the
 * comparison may have paired) are left to the full comparison. This answers without setting up a run (tuples of
 * unrelated elements ask often, for N-PackTup). */
static bool certainly_differ(MimWorld *w, MimDef *a, MimDef *b, unsigned depth) {
    a = mim_resolve(w, a);
    b = mim_resolve(w, b);
    if (!a || !b || a == b) return false;
    if (special_kind(a) || special_kind(b)) {
        if (arities_differ(w, a, b)) return true;
        /* Two immutable tuples (sigmas) of one arity are compared as
         * alpha_internal does: types first, then element by element. */
        if (depth == 0 || a->node != b->node || (a->node != MIM_TUPLE && a->node != MIM_SIGMA) || a->is_mut ||
            b->is_mut || a->num_ops != b->num_ops)
            return false;
        if (certainly_differ(w, raw_type(a), raw_type(b), depth - 1)) return true;
        for (uint32_t i = 0; i < a->num_ops; ++i)
            if (certainly_differ(w, a->ops[i], b->ops[i], depth - 1)) return true;
        return false;
    }
    if (a->node != b->node) return true;
    if (a->node == MIM_VAR) return false;
    if ((a->is_mut && !is_set(a)) || (b->is_mut && !is_set(b))) return true; /* §8 step 5 */
    if (a->flags != b->flags || a->num_ops != b->num_ops) return true;
    if (depth == 0) return false;
    if (certainly_differ(w, raw_type(a), raw_type(b), depth - 1)) return true; /* compared first */
    for (uint32_t i = 0; i < a->num_ops; ++i)
        if (certainly_differ(w, a->ops[i], b->ops[i], depth - 1)) return true;
    return false;
}

/* `Type l` against `Type ?` with l free of holes, the completion of every
 * mutable Pi and sigma (their declared sort is a level hole): the full
 * comparison would solve the hole with l and nothing else; so does this,
 * without setting up a run. */
static bool solve_level(MimWorld *w, MimDef *t, MimDef *u) {
    t = mim_resolve(w, t);
    u = mim_resolve(w, u);
    if (!t || !u || t == u || t->node != MIM_TYPE || u->node != MIM_TYPE || t->flags != u->flags) return false;
    MimDef *l = mim_resolve(w, t->ops[0]), *h = mim_resolve(w, u->ops[0]);
    if (!l || !h || l->is_mut || (l->dep & MIM_DEP_INFER) || l->node == MIM_GLOBAL || !mim_is_open_hole(h))
        return false;
    mim_hole_solve(w, h, l);
    return true;
}

bool mim_alpha(MimWorld *w, MimDef *a, MimDef *b, bool infer) {
    if (a == b && (!a || !(a->dep & MIM_DEP_VAR))) return true; /* O(1) fast path */
    if (!infer && a && b && certainly_differ(w, a, b, 3)) return false;
    if (infer && a && b && (solve_level(w, a, b) || solve_level(w, b, a))) return true;
    Alpha al;
    AlphaBufs bufs;
    alpha_init(&al, &bufs, w, infer);
    bool res = alpha_(&al, a, b);
    alpha_fini(&al);
    return res;
}

/* ---- assignability (§9) -------------------------------------------------- */

static bool assignable_(Alpha *a, MimDef *type, MimDef *val) {
    MimWorld *w = a->w;
    type = mim_resolve(w, type);
    val = mim_resolve(w, val);
    if (!type || !val) return false;
    MimDef *vtype = mim_resolve(w, mim_type_of(w, val)); /* Type l has an implied type */
    if (type == vtype) return true;
    if (val->node == MIM_INFER) return alpha_(a, type, val->type); /* open hole */

    if (type->node == MIM_SIGMA) {
        if (!vtype || !same_arity(a, type, vtype)) return false;
        size_t n = type->num_ops;
        MimDef *small[8], **red = n <= 8 ? small : mim_xmalloc(n * sizeof *red);
        bool ok = mim_reduce(w, type, val, red); /* dependent elements see val */
        for (size_t k = 0; ok && k < n; ++k) {
            MimDef *p = mim_proj(w, val, n, k);
            ok = p && assignable_(a, red[k], p);
        }
        if (red != small) free(red);
        return ok;
    }
    if (type->node == MIM_ARR) {
        if (!vtype || !same_arity(a, type, vtype)) return false;
        uint64_t n;
        MimDef *shape = mim_resolve(w, type->ops[0]);
        if (shape && shape->node == MIM_LIT && mim_def_lit(shape, &n)) {
            /* «1; T» (a shape just inferred as 1, e.g. «?n; I8» against the
             * one-character string "a" : I8) is T; its projection of arity 1
             * would be the array type itself, and recurse forever. */
            if (n == 1) {
                MimDef *t = type->is_mut ? mim_seq_body_at(w, type, mim_lit_idx(w, 1, 0)) : mim_res(w, type->ops[1]);
                return t && assignable_(a, t, val);
            }
            for (uint64_t k = 0; k < n; ++k) {
                MimDef *t = mim_proj(w, type, n, k), *v = mim_proj(w, val, n, k);
                if (!t || !v || !assignable_(a, t, v)) return false;
            }
            return true;
        }
    } else if (val->node == MIM_VEL) {
        return assignable_(a, type, val->ops[0]);
    }
    return alpha_(a, type, vtype);
}

bool mim_assignable(MimWorld *w, MimDef *type, MimDef *value) {
    /* assignable_'s first test, without setting up a run: a value of exactly
     * the type (every rebuilt application of a well-typed program). `Type l`
     * is left to it (its type is built). */
    MimDef *t = mim_res(w, type), *v = mim_res(w, value);
    if (t && v && v->node != MIM_TYPE && mim_res(w, v->type) == t) return true;
    Alpha al;
    AlphaBufs bufs;
    alpha_init(&al, &bufs, w, true);
    bool res = assignable_(&al, type, value);
    alpha_fini(&al);
    return res;
}

/* ---- World lifecycle of the checking section ----------------------------- */

void mim_check_world_fini(MimWorld *w) {
    mim_fv_world_fini(w);
    mim_subst_world_fini(w);
    mim_arena_free(&w->check_arena);
}
