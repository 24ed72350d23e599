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

MimWorld *mim_world_rewrite(MimWorld *old, MimRewriteHook hook, void *user) {
    MimWorld *w = mim_world_inherit(old);
    MimRewriter rw;
    mim_rewriter_init(&rw, old, w, hook, user);
    /* Nothing else indexes old's nodes while it is copied; about half of its
     * nodes are reached (no regrowth while copying). */
    mim_rewriter_use_side_table(&rw, mim_world_num_nodes(old) / 2);
    mim_world_reserve(w, mim_world_num_nodes(old) / 2);
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
    if (!ok) {
        /* Rewriting a well-typed program must not fail; if it does, keep the
         * diagnostics so the caller can report them as an internal error. */
        mim_diag_append(mim_world_diag(old), mim_world_diag(w));
        mim_world_free(w);
        return NULL;
    }
    return w;
}
