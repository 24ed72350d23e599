/* Use lists and type helpers for the mem passes. */
#include "mem_util.h"

#include "mim/plugin/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- use lists ------------------------------------------------------------------ */

/* Records the use of `used` by operand `op` of `user`; returns whether
 * `used` was met for the first time (then it is to be walked). One map
 * serves as the set of nodes met (present = met, value 0 = no use yet: an
 * external) and as the head of each node's use list: one look-up per edge,
 * where a separate set and list head cost four. */
static bool add_use(MemUses *u, MimDef *used, MimDef *user, uint32_t op) {
    void **head = mim_ptrmap_find(&u->first, used);
    uint32_t prev = head ? (uint32_t)(uintptr_t)*head : 0;
    mim_vec_push(&u->uses, ((MemUse){user, op, prev}));
    void *first = (void *)(uintptr_t)u->uses.len;
    if (head) *head = first;
    else mim_ptrmap_put(&u->first, used, first);
    return !head;
}

/* Rebuild the use lists of the program reachable from w's externals. */
static void uses_build(MemUses *u, MimWorld *w) {
    /* The map ends up with about one entry per reachable node (the count of
     * the previous build, else at most half the World's nodes): sized once,
     * it is not rehashed while it grows. */
    size_t expect = u->nodes.len ? u->nodes.len : mim_world_num_nodes(w) / 2;
    mim_ptrmap_clear(&u->first);
    mim_ptrmap_reserve(&u->first, expect);
    u->uses.len = 0;
    u->nodes.len = 0;
    mim_vec_reserve(&u->nodes, expect);
    mim_vec_reserve(&u->uses, 2 * expect); /* about two uses per node */
    MemVec todo = {0};
    for (size_t i = 0, n = mim_world_num_externals(w); i < n; ++i) {
        MimDef *ext = mim_world_external(w, i);
        if (mim_ptrmap_add(&u->first, ext, NULL, NULL)) mim_vec_push(&todo, ext);
    }
    while (todo.len) {
        MimDef *d = todo.data[--todo.len];
        mim_vec_push(&u->nodes, d);
        /* Types only matter where they depend on variables (a closed type
         * cannot mention a slot or a parameter; the tower of universes
         * above `*` is also created lazily and must not be walked). */
        MimDef *type = mim_def_type(d) ? mim_resolve(w, mim_def_type(d)) : NULL;
        if (type && (mim_def_dep(type) & MIM_DEP_VAR) && add_use(u, type, d, MEM_USE_TYPE))
            mim_vec_push(&todo, type);
        if (mim_def_node(d) == MIM_VAR) continue; /* its operand is the binder */
        for (size_t i = 0, n = mim_def_num_ops(d); i < n; ++i) {
            MimDef *op = mim_def_op(d, i);
            op = op ? mim_resolve(w, op) : NULL;
            if (op && add_use(u, op, d, (uint32_t)i)) mim_vec_push(&todo, op);
        }
    }
    mim_vec_free(&todo);
}

/* The use lists of a World, shared by the passes of the plugin (ssa_constr
 * and copy_prop each ask for them in the same round) and kept while no
 * mutable changes: an unchanged mutation count means the same program. */
typedef struct MemShared {
    MemUses uses;
    uint64_t built_at; /* mim_world_mutations when built */
    bool built;
} MemShared;

static void shared_fini(void *state) { mem_uses_free(&((MemShared *)state)->uses); }

const MemUses *mem_uses_of(MimWorld *w) {
    MemShared *sh = mim_world_plugin_state(w, MIM_mem_ID, sizeof(MemShared), shared_fini);
    uint64_t now = mim_world_mutations(w);
    if (!sh->built || sh->built_at != now) {
        uses_build(&sh->uses, w);
        sh->built_at = now;
        sh->built = true;
    }
    return &sh->uses;
}

void mem_uses_free(MemUses *u) {
    mim_ptrmap_free(&u->first);
    mim_vec_free(&u->uses);
    mim_vec_free(&u->nodes);
    *u = (MemUses){0};
}

uint32_t mem_uses_first(const MemUses *u, const MimDef *d) {
    return (uint32_t)(uintptr_t)mim_ptrmap_get(&u->first, d);
}

size_t mem_uses_count(const MemUses *u, const MimDef *d) {
    size_t n = 0;
    for (uint32_t i = mem_uses_first(u, d); i; i = u->uses.data[i - 1].next) ++n;
    return n;
}

/* ---- helpers ------------------------------------------------------------------- */

bool mem_is_M(MimWorld *w, MimDef *type) {
    type = type ? mim_resolve(w, type) : NULL;
    return type && mim_match(type, MIM_mem_M) != NULL;
}

uint64_t mem_num_comps(MimWorld *w, MimDef *type) {
    type = mim_resolve(w, type);
    if (type && mim_def_node(type) == MIM_SIGMA && !mim_def_is_mut(type)) return mim_def_num_ops(type);
    return 1;
}

MimDef *mem_comp_type(MimWorld *w, MimDef *type, uint64_t n, uint64_t i) {
    type = mim_resolve(w, type);
    if (n == 1 && !(mim_def_node(type) == MIM_SIGMA && mim_def_num_ops(type) == 1)) return type;
    return mim_resolve(w, mim_def_op(type, i));
}

bool mem_unique_M(MimWorld *w, MimDef *type, uint64_t *index) {
    uint64_t n = mem_num_comps(w, type), found = 0;
    for (uint64_t i = 0; i < n; ++i)
        if (mem_is_M(w, mem_comp_type(w, type, n, i))) {
            *index = i;
            ++found;
        }
    return found == 1;
}

MimDef *mem_lam_pi(MimWorld *w, MimDef *lam) {
    MimDef *pi = mim_resolve(w, mim_def_type(lam));
    if (pi && mim_def_is_mut(pi)) pi = mim_immutabilize(w, pi); /* the front end's named domains */
    if (!pi || mim_def_node(pi) != MIM_PI || mim_def_is_mut(pi) || mim_pi_is_implicit(pi)) return NULL;
    MimDef *dom = mim_resolve(w, mim_pi_dom(pi));
    return dom && !mim_def_is_mut(dom) ? pi : NULL;
}

bool mem_is_simple_lam(MimWorld *w, MimDef *d) {
    return d && mim_is_workable_lam(d) && mem_lam_pi(w, d);
}

bool mem_has_ret(MimWorld *w, MimDef *lam) {
    MimDef *pi = mim_resolve(w, mim_def_type(lam));
    if (!pi || mim_def_node(pi) != MIM_PI || !mim_pi_is_cn(pi)) return false;
    MimDef *dom = mim_pi_dom(pi);
    uint64_t n = mem_num_comps(w, dom);
    if (n == 0) return false;
    MimDef *last = mem_comp_type(w, dom, n, n - 1);
    return last && mim_def_node(last) == MIM_PI && mim_pi_is_cn(last);
}

bool mem_lit(MimWorld *w, MimDef *d, uint64_t *v) {
    d = d ? mim_resolve(w, d) : NULL;
    return d && mim_def_lit(d, v);
}
