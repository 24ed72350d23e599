/* The -O1 cleanup (cli.md §3, semantics.md §10.2), and the same with a
 * per-node hook for plugin phases (mim_world_rewrite, mim/rewrite.h):
 * rebuild every annex and
 * every external into a fresh World whose gids continue the old counter.
 * Rebuilding goes through the World constructors, so everything is
 * renormalized, applications are β-reduced again where their filters allow,
 * mutables are immutabilized where possible, and whatever is unreachable
 * from the roots is simply not copied. */
#include "pass/cleanup.h"

#include "ir/check.h"

MimWorld *mim_rewriter_world(const MimRewriter *rw) { return rw->dst; }
void *mim_rewriter_user(const MimRewriter *rw) { return rw->user; }

MimWorld *mim_cleanup(MimWorld *old) { return mim_world_rewrite(old, NULL, NULL); }

/* How many nodes a rewrite of old copies. A World made by a rewrite holds
 * what that rewrite gave it and what passes added since, of which they
 * dropped some: about as many are reached again, or half of all when the
 * passes doubled it (at 10^4 functions of bench/opt/gen.py the five
 * cleanups of -O2 keep 38–87 % of the nodes; the front end's World, 86 %).
 * The hash-consing table and the side table are sized once from this:
 * growing them while copying rehashes the whole table, a cache miss per
 * node. */
static size_t expected_copies(const MimWorld *old) {
    size_t n = mim_world_num_nodes(old);
    if (!old->rewritten_nodes) return n;
    return old->rewritten_nodes > n / 2 ? old->rewritten_nodes : n / 2;
}

MimWorld *mim_world_rewrite(MimWorld *old, MimRewriteHook hook, void *user) {
    MimWorld *w = mim_world_inherit(old);
    MimRewriter rw;
    mim_rewriter_init(&rw, old, w, hook, user);
    /* Nothing else indexes old's nodes while it is copied. The side table
     * also holds the old types and variables reached: about a fifth more. */
    size_t expect = expected_copies(old);
    mim_rewriter_use_side_table(&rw, expect + expect / 4);
    mim_world_reserve(w, expect);
    bool ok = true;
    for (size_t i = 0, n = mim_world_num_annexes(old); ok && i < n; ++i) {
        uint64_t id;
        MimDef *def = mim_world_annex_at(old, i, &id);
        MimDef *copy = mim_rewrite(&rw, def);
        if (!copy) ok = false;
        else mim_world_register_annex(w, id, copy);
    }
    for (size_t i = 0, n = mim_world_num_externals(old); ok && i < n; ++i) {
        MimDef *ext = mim_world_external(old, i);
        MimDef *copy = mim_rewrite(&rw, ext);
        if (!copy) ok = false;
        else if (mim_def_is_mut(copy)) mim_make_external(w, copy);
    }
    mim_rewriter_fini(&rw);
    w->rewritten_nodes = mim_world_num_nodes(w);
    if (!ok) {
        /* Rewriting a well-typed program must not fail; if it does, keep the
         * diagnostics so the caller can report them as an internal error. */
        mim_diag_append(mim_world_diag(old), mim_world_diag(w));
        mim_world_free(w);
        return NULL;
    }
    return w;
}
