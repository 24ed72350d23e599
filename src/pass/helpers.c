/* Unused interface helpers leave the pipeline before it starts
 * (docs/optimizer.md, "Interface helpers that nothing uses").
 *
 * A plugin interface may declare `extern` functions named internal_* for its
 * own passes: autodiff.mim's internal_diff_*, matrix.mim's internal_mapRed_*.
 * The pipeline's internal_cleanup step makes every such external internal,
 * and the cleanup after it drops the ones nothing uses. Until that step each
 * pass manager visits them like the program's own functions; for a small
 * program that is most of the optimizer's work.
 *
 * A helper of plugin P comes into use only through P's passes, which act on
 * P's axioms, or through code that names the helper. So a helper is made
 * internal before the first step when nothing that the program's other
 * externals reach is that helper or an axiom of its plugin: the first
 * cleanup drops it and no pass manager visits it. The program that comes out is
 * the same; the nodes built after that point get smaller gids, which
 * output-format.md leaves open. */
#include "pass/optimize.h"
#include "pass/std.h"
#include "util/path.h"

#include "mim/vec.h"

#include <stdlib.h>
#include <string.h>

typedef struct Helper {
    MimDef *lam;
    const char *plugin; /* the stem of the file declaring it (not terminated) */
    size_t plugin_len;
    bool used;          /* reached, or an axiom of its plugin is */
} Helper;

/* The plugin part of an axiom's name `%p.t` or `%p.t.s` is h's plugin. */
static bool axiom_of(MimDef *axiom, const Helper *h) {
    MimSym name = mim_def_name(axiom);
    return name && name[0] == '%' && strncmp(name + 1, h->plugin, h->plugin_len) == 0 &&
           name[1 + h->plugin_len] == '.';
}

/* Adds d to the walk's set `seen` unless it is there; false if it was. The
 * set is a side table indexed from the node (MimDef.scratch, as in the pass
 * manager; a stale index points past the end or to another node): a hash
 * set as large as the program would cost a cache miss per look-up. */
static bool see(MimDefVec *seen, MimDef *d) {
    uint32_t k = d->scratch;
    if (k < seen->len && seen->data[k] == d) return false;
    d->scratch = (uint32_t)seen->len;
    mim_vec_push(seen, d);
    return true;
}

/* Marks the helpers that what the non-helper externals reach may bring into
 * use. Axioms are leaves here: the type of an axiom of another plugin names
 * only what that plugin imports, never the passes of P. */
static void mark_used(MimWorld *w, Helper *hs, size_t n) {
    MimDefVec seen = {0};
    /* The walk meets about half of the World's nodes: reserved once, the
     * set is not copied while it grows. */
    mim_vec_reserve(&seen, mim_world_num_nodes(w) / 2);
    MIM_VEC(MimDef *) todo = {0};
    size_t unused = n; /* helpers not yet marked: the walk ends when none is left */
    for (size_t i = 0, e = mim_world_num_externals(w); i < e; ++i) {
        MimDef *ext = mim_world_external(w, i);
        bool helper = false;
        for (size_t k = 0; k < n; ++k) helper |= hs[k].lam == ext;
        if (!helper) mim_vec_push(&todo, ext);
    }
    while (todo.len && unused) {
        MimDef *d = mim_vec_pop(&todo);
        if (!d || !see(&seen, d)) continue;
        bool axiom = mim_def_node(d) == MIM_AXIOM;
        /* Helpers are externals: any other node is none of them. */
        for (size_t k = 0; (axiom || d->is_external) && k < n; ++k) {
            if (hs[k].used || !(axiom ? axiom_of(d, &hs[k]) : hs[k].lam == d)) continue;
            hs[k].used = true; /* an axiom of its plugin, or named by the program */
            --unused;
        }
        if (axiom) continue;
        MimNode kind = mim_def_node(d);
        bool universe = kind == MIM_TYPE || kind == MIM_UNIV || kind == MIM_UMAX || kind == MIM_UINC;
        if (!universe) mim_vec_push(&todo, mim_def_type(d)); /* a type's type: the next level up, endlessly */
        for (size_t i = 0, ops = mim_def_num_ops(d); i < ops; ++i) mim_vec_push(&todo, mim_def_op(d, i));
    }
    mim_vec_free(&todo);
    mim_vec_free(&seen);
}

size_t mim_retire_unused_helpers(MimWorld *w) {
    MIM_VEC(Helper) hs = {0};
    for (size_t i = 0, e = mim_world_num_externals(w); i < e; ++i) {
        /* The plugin (or module) of a helper is the stem of the file that
         * declares it. Whether its library is loaded does not matter:
         * without it none of the plugin's passes runs. */
        MimDef *ext = mim_world_external(w, i);
        const char *file = mim_def_loc(ext).file;
        if (!mim_is_internal_helper(ext) || !file) continue;
        Helper h = {.lam = ext};
        h.plugin = mim_path_stem(file, &h.plugin_len);
        if (h.plugin_len) mim_vec_push(&hs, h);
    }
    size_t retired = 0;
    if (hs.len) {
        mark_used(w, hs.data, hs.len);
        for (size_t k = 0; k < hs.len; ++k)
            if (!hs.data[k].used) mim_make_internal(w, hs.data[k].lam), ++retired;
    }
    mim_vec_free(&hs);
    return retired;
}
