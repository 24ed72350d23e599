/* Holes (semantics.md §7): mutable Infer nodes with one operand, their
 * solution. Holes are unified with union-find (rank in the flags, path
 * compression in mim_resolve); solved holes are eliminated from immutable
 * nodes by rebuilding them through the World constructors (§7.2). */
#include "ir/check.h"

#include <assert.h>
#include <string.h>

bool mim_is_open_hole(const MimDef *d) { return mim_is(d, MIM_INFER) && !d->ops[0]; }

MimDef *mim_hole(MimWorld *w, MimDef *type) {
    return mim_alloc_mut(w, MIM_INFER, type, 0, 1); /* rank 0 in the flags */
}

/* Last node of the chain of solved holes starting at d, with path
 * compression: every hole on the chain then points directly to the root. */
static MimDef *find_root(MimDef *d) {
    MimDef *root = d;
    while (root->node == MIM_INFER && root->ops[0]) root = root->ops[0];
    while (d->node == MIM_INFER && d->ops[0] && d->ops[0] != root) {
        MimDef *next = d->ops[0];
        d->ops[0] = root;
        d = next;
    }
    return root;
}

MimDef *mim_resolve(MimWorld *w, MimDef *d) {
    /* Nothing to follow or rebuild without holes (a hole has the INFER
     * dependency itself): the common case once the front end is done. */
    if (!d || !(d->dep & MIM_DEP_INFER)) return d;
    MimDef *root = find_root(d);
    /* A Tuple or Type representative that contains (possibly now solved)
     * holes is rebuilt with the solutions (§7.1). */
    if (!root->is_mut && (root->node == MIM_TUPLE || root->node == MIM_TYPE) &&
        (root->dep & MIM_DEP_INFER)) {
        /* The elimination of a node depends only on the holes it reaches:
         * if it left the node as it was and no hole has changed since, it
         * would again, so it is skipped. */
        struct MimElimClean *clean = &w->elim_clean[(root->gid * 0x9e3779b1u) >> 24];
        if (clean->def == root && clean->epoch == w->hole_epoch + 1) return root;
        uint32_t gid = w->gid;
        MimDef *rebuilt = mim_eliminate_holes(w, root);
        if (rebuilt && rebuilt != root) {
            root = rebuilt;
            if (d->node == MIM_INFER && d->ops[0]) d->ops[0] = root; /* cache it */
        } else if (rebuilt == root && gid == w->gid && !w->frozen) {
            /* not when it built nodes (gids are consumed even if the
             * result is the node itself) or could not (frozen) */
            clean->def = root;
            clean->epoch = w->hole_epoch + 1;
        }
    }
    return root;
}

void mim_hole_solve(MimWorld *w, MimDef *hole, MimDef *sol) {
    assert(mim_is_open_hole(hole) && sol != hole);
    hole->ops[0] = sol;
    mim_fv_invalidate(w, hole);
}

void mim_hole_union(MimWorld *w, MimDef *h1, MimDef *h2) {
    if (h1->flags < h2->flags) { /* make h1 the heavier one */
        MimDef *t = h1;
        h1 = h2;
        h2 = t;
    }
    if (h1->flags == h2->flags) h1->flags++;
    mim_hole_solve(w, h2, h1);
}

/* ---- holes of tuple type ------------------------------------------------- */

/* More elements than an implicit parameter group plausibly has: a hole of
 * a larger (array) type is not split. */
#define MAX_TUPLEFY 256

/* Marks a hole solved by mim_hole_tuplefy (the rank in the low flags bits
 * matters only while a hole is open). */
#define HOLE_SPLIT (UINT64_C(1) << 63)

bool mim_hole_is_split(const MimDef *hole) {
    for (const MimDef *d = hole; mim_is(d, MIM_INFER); d = d->ops[0])
        if (d->flags & HOLE_SPLIT) return true;
    return false;
}

MimDef *mim_hole_tuplefy(MimWorld *w, MimDef *hole) {
    if (!mim_is_open_hole(hole)) return NULL;
    MimDef *T = mim_resolve(w, hole->type);
    uint64_t n;
    if (!T || (T->node != MIM_SIGMA && T->node != MIM_ARR) || !mim_literal_arity(w, T, &n) || n < 2 ||
        n > MAX_TUPLEFY)
        return NULL;
    MIM_SCRATCH(elems, n);
    MimDef *res = NULL;
    for (uint64_t k = 0; k < n; ++k) {
        /* the type of hole#k: a later element of a dependent sigma refers
         * to earlier ones through the hole, which is their tuple below */
        MimDef *proj = mim_extract_lit(w, hole, n, k);
        MimDef *type = proj ? mim_type_of(w, proj) : NULL;
        elems[k] = type ? mim_hole(w, type) : NULL;
        if (!elems[k]) goto out;
    }
    res = mim_tuple_typed(w, T, elems, n);
    if (res) {
        mim_hole_solve(w, hole, res);
        hole->flags |= HOLE_SPLIT;
    }
out:
    MIM_SCRATCH_FREE(elems);
    return res;
}

/* ---- elimination of solved holes (§7.2) ---------------------------------- */

typedef struct Elim {
    MimWorld *w;
    MimPtrMap memo; /* immutable -> rebuilt; the map itself marks "in progress" */
    bool failed;
} Elim;

static MimDef *elim(Elim *e, MimDef *d);

static MimDef *elim_imm(Elim *e, MimDef *d) {
    void **hit = mim_ptrmap_find(&e->memo, d);
    if (hit) return *hit ? *hit : d; /* NULL value: in progress (cycle via a hole) */
    mim_ptrmap_put(&e->memo, d, NULL);

    size_t n = d->num_ops;
    MimDef *small[8], **ops = n <= 8 ? small : mim_xmalloc(n * sizeof *ops);
    bool changed = false;
    MimDef *type = d->type;
    if (type && d->node != MIM_TYPE) { /* the type of Type is implied by its level */
        type = elim(e, type);
        changed |= type != d->type;
    }
    for (size_t i = 0; i < n; ++i) {
        ops[i] = elim(e, d->ops[i]);
        changed |= ops[i] != d->ops[i];
    }
    MimDef *res = d;
    if (!e->failed && changed) {
        res = mim_def_rebuild(e->w, d, type, ops);
        if (!res) {
            /* Frozen Worlds cannot build: keep the original. Otherwise a
             * constructor reported an error. */
            if (!e->w->frozen) e->failed = true;
            res = d;
        }
    }
    if (ops != small) free(ops);
    mim_ptrmap_put(&e->memo, d, res);
    return res;
}

static MimDef *elim(Elim *e, MimDef *d) {
    if (!d || !(d->dep & MIM_DEP_INFER)) return d;
    if (d->node == MIM_INFER) {
        MimDef *root = find_root(d);
        return root == d ? d : elim(e, root);
    }
    if (d->is_mut) return d; /* only immutable parts are rebuilt */
    return elim_imm(e, d);
}

MimDef *mim_eliminate_holes(MimWorld *w, MimDef *d) {
    if (!d || !(d->dep & MIM_DEP_INFER)) return d;
    Elim e = {.w = w};
    MimPtrMapSlot memo[MIM_MAP_INLINE]; /* most eliminations touch few nodes */
    mim_ptrmap_lend(&e.memo, memo);
    MimDef *res = elim(&e, d);
    mim_ptrmap_free(&e.memo);
    return e.failed ? NULL : res;
}
