/* Sinking of the `ll` back end (docs/ll-backend.md §3, "Placement").
 * ll_schedule places every pure operation as early as its operands allow,
 * so loop-invariant code lands before a loop; but it also puts all of a
 * loop's body arithmetic into the loop header, ahead of the loop test.
 * Clang's loop rotation copies a header only while it is small, so such a
 * loop stays unrotated (mandelbrot's iteration: its count and the next z
 * were computed before `k < 50`). Here every pure operation moves down to
 * the latest block that dominates all its uses, unless that block is in a
 * deeper loop: on the dominator-tree path from the late block up to the
 * early one it takes the latest block of the smallest loop depth (global
 * code motion, C. Click, PLDI 1995). Uses are collected from the users'
 * final places, users before operands (the blocks' lists concatenated in
 * reverse post-order are in dependency order), and the lists are rebuilt in
 * that order. Effects, loop parameters, nodes that load through an address
 * where they are placed and the nodes of dependent packs stay where they
 * are. Moving a pure operation down only computes it on fewer paths. */
#include "ll_impl.h"

#include <stdlib.h>

/* Blocks walked up from a late block to the early one per operation; a
 * longer way keeps the early block (linear time on long chains). */
enum { SINK_STEPS = 256 };

/* d is used in block blk: the use reaches its operands through nodes that
 * have no place of their own (tuples, projections, a dependent pack's body). */
static void use_at(LL *ll, MimDef *d, int blk) {
    if (!d || blk < 0 || ll_no_value(d)) return;
    LLInfo *i = ll_info(ll, d);
    int l = ll_lca(ll, i->sink, blk);
    if (i->sink >= 0 && l == i->sink) return;
    i->sink = l;
    if (i->place >= 0 && !ll_pack_dep(ll, d)) return;
    for (size_t k = 0, n = mim_def_num_ops(d); k < n; ++k) use_at(ll, ll_op(d, k), l);
}

/* Loop depth of every block (natural loops of the back edges); false if
 * the function has no loop or a loop walk exceeds its budget. */
static bool loop_depths(LL *ll, int *depth) {
    size_t nb = ll->blocks.len;
    int *mark = calloc(nb, sizeof *mark), *list = calloc(nb, sizeof *list);
    if (!mark || !list) abort();
    bool any = false, ok = true;
    for (size_t k = 0; k < ll->norder && ok; ++k) {
        int h = ll->order[k];
        if (!ll_loop_header(ll, h)) continue;
        size_t n = ll_loop_blocks(ll, h, mark, list);
        ok = n > 0;
        for (size_t j = 0; j < n; ++j) ++depth[list[j]];
        any = true;
    }
    free(mark), free(list);
    return any && ok;
}

/* The block between early (dominating) and late to compute an operation in. */
static int best_block(LL *ll, const int *depth, int early, int late) {
    int best = late;
    for (int b = late, steps = 0; b != early; ++steps) {
        if (steps >= SINK_STEPS) return early;
        b = ll->blocks.data[b].idom;
        if (depth[b] < depth[best]) best = b;
    }
    return best;
}

static bool movable(LL *ll, MimDef *d, const LLInfo *i) {
    int pb;
    size_t pj;
    return !i->effect && !ll_loads_at(d) && !ll_param_ref(ll, d, &pb, &pj) && !ll_pack_dep(ll, d);
}

/* ---- copies out of loop headers ------------------------------------------------ */
/* A pure operation left in a loop header although nothing in the header
 * uses it (its uses are in the body and after the exit: mandelbrot's
 * |z|² ≤ 4, tested in the body and counted after the loop) is computed
 * anew in each block that uses it instead, reusing a copy from a
 * dominating block (LLInfo.copies, ll_val). Each path computes it at most
 * once more than before (at the loop's exit), and the header is left with
 * its test, which clang's loop rotation and unrolling need. */
enum { HERE_DEPTH = 8 };

/* d is used in header h (through nodes without a place of their own);
 * false if the walk is too deep to tell. */
static bool used_here(LL *ll, MimDef *d, int h, int depth) {
    if (!d || ll_no_value(d)) return true;
    LLInfo *i = ll_info(ll, d);
    if (i->place >= 0 && !ll_pack_dep(ll, d)) {
        if (i->place == h) i->here = 1;
        return true;
    }
    if (depth <= 0) return false;
    for (size_t k = 0, n = mim_def_num_ops(d); k < n; ++k)
        if (!used_here(ll, ll_op(d, k), h, depth - 1)) return false;
    return true;
}

static void copy_out_of(LL *ll, int h) {
    LLVec *nodes = &ll->blocks.data[h].nodes;
    MimDef *body = ll_body(ll->blocks.data[h].lam);
    for (size_t j = 0, n = body ? mim_def_num_ops(body) : 0; j < n; ++j)
        if (!used_here(ll, ll_op(body, j), h, HERE_DEPTH)) return;
    for (size_t j = nodes->len; j-- > 0;) {
        MimDef *d = nodes->data[j];
        LLInfo *i = ll_info(ll, d);
        if (!i->here && mim_def_node(d) == MIM_APP && movable(ll, d, i)) {
            i->copies = 1;
            continue;
        }
        for (size_t o = 0, n = mim_def_num_ops(d); o < n; ++o)
            if (!used_here(ll, ll_op(d, o), h, HERE_DEPTH)) return; /* undecided: the rest stays */
    }
}

void ll_sink(LL *ll) {
    size_t nb = ll->blocks.len;
    int *depth = calloc(nb, sizeof *depth);
    if (!depth) abort();
    if (!loop_depths(ll, depth)) {
        free(depth);
        return;
    }
    LLVec all = {0};
    for (size_t k = 0; k < ll->norder; ++k) {
        LLVec *nodes = &ll->blocks.data[ll->order[k]].nodes;
        for (size_t j = 0; j < nodes->len; ++j) mim_vec_push(&all, nodes->data[j]);
    }
    for (size_t k = 0; k < ll->norder; ++k) {
        int b = ll->order[k];
        MimDef *body = ll_body(ll->blocks.data[b].lam);
        for (size_t j = 0, n = body ? mim_def_num_ops(body) : 0; j < n; ++j) use_at(ll, ll_op(body, j), b);
    }
    for (size_t j = all.len; j-- > 0;) {
        MimDef *d = all.data[j];
        LLInfo *i = ll_info(ll, d);
        if (movable(ll, d, i) && i->sink >= 0 && i->sink != i->place && ll_dominates(ll, i->place, i->sink))
            i->place = best_block(ll, depth, i->place, i->sink);
        int at = i->place;
        for (size_t o = 0, n = mim_def_num_ops(d); o < n; ++o) use_at(ll, ll_op(d, o), at);
    }
    for (size_t k = 0; k < nb; ++k) ll->blocks.data[k].nodes.len = 0;
    for (size_t j = 0; j < all.len; ++j) {
        MimDef *d = all.data[j];
        mim_vec_push(&ll->blocks.data[ll_info(ll, d)->place].nodes, d);
    }
    mim_vec_free(&all);
    for (size_t k = 1; k < ll->norder; ++k) {
        int h = ll->order[k];
        if (!ll_loop_header(ll, h)) continue;
        LLBlock *hb = &ll->blocks.data[h];
        copy_out_of(ll, h);
        size_t n = 0; /* the copies leave the header's list */
        for (size_t j = 0; j < hb->nodes.len; ++j)
            if (!ll_info(ll, hb->nodes.data[j])->copies) hb->nodes.data[n++] = hb->nodes.data[j];
        hb->nodes.len = n;
    }
    free(depth);
}
