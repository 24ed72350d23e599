/* Use lists and type helpers for the mem passes. */
#include "mem_util.h"

#include "mim/plugin/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- use lists ------------------------------------------------------------------ */

/* The head of d's use list (see MemUses), created as 0 (not met) if absent. */
static uint32_t *use_head(MemUses *u, const MimDef *d) {
    uint32_t k = mim_pass_node_index(u->pass, d);
    if (k < u->first.len) return &u->first.data[k];
    /* Not reached by the round's use count: rare, through the map. */
    void **v = mim_ptrmap_find(&u->other, d);
    if (v) return &u->other_heads.data[(uintptr_t)*v];
    mim_ptrmap_put(&u->other, d, (void *)(uintptr_t)u->other_heads.len);
    mim_vec_push(&u->other_heads, 0);
    return &mim_vec_last(&u->other_heads);
}

/* Records the use of `used` by operand `op` of `user`; returns whether
 * `used` was met for the first time (then it is to be walked). The head of
 * each node's use list also marks it as met: one look-up per edge, in the
 * round's dense index instead of a hash map (a cache miss per edge once the
 * program outgrows the caches). */
static bool add_use(MemUses *u, MimDef *used, MimDef *user, uint32_t op) {
    uint32_t *head = use_head(u, used);
    uint32_t prev = *head == MEM_MET ? 0 : *head;
    bool fresh = *head == 0;
    mim_vec_push(&u->uses, ((MemUse){user, op, prev}));
    *head = (uint32_t)u->uses.len;
    return fresh;
}

/* Marks d as met (an external); false if it was. */
static bool meet(MemUses *u, MimDef *d) {
    uint32_t *head = use_head(u, d);
    if (*head) return false;
    *head = MEM_MET;
    return true;
}

/* Rebuild the use lists of the program reachable from w's externals. */
static void uses_build(MemUses *u, MimPass *p) {
    MimWorld *w = mim_pass_world(p);
    size_t expect = u->num_nodes ? u->num_nodes : mim_world_num_nodes(w) / 2;
    u->pass = p;
    /* Stale entries are cleared; the round's records all start unmet. */
    size_t records = mim_pass_num_records(p);
    mim_vec_reserve(&u->first, records);
    if (records) memset(u->first.data, 0, records * sizeof *u->first.data);
    u->first.len = records;
    mim_ptrmap_clear(&u->other);
    u->other_heads.len = 0;
    u->uses.len = 0;
    u->num_nodes = 0;
    u->lams.len = 0;
    u->slots.len = 0;
    mim_vec_reserve(&u->uses, 2 * expect); /* about two uses per node */
    MemVec todo = {0};
    for (size_t i = 0, n = mim_world_num_externals(w); i < n; ++i) {
        MimDef *ext = mim_world_external(w, i);
        if (meet(u, ext)) mim_vec_push(&todo, ext);
    }
    while (todo.len) {
        MimDef *d = todo.data[--todo.len];
        ++u->num_nodes;
        if (mim_def_node(d) == MIM_LAM && mim_def_is_mut(d)) mim_vec_push(&u->lams, d);
        else if (mim_def_node(d) == MIM_APP && mim_match(d, MIM_mem_slot) == d) mim_vec_push(&u->slots, d);
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
 * and copy_prop each ask for them in the same round) and kept while the
 * round lasts and no mutable changes: an unchanged mutation count means the
 * same program. */
typedef struct MemShared {
    MemUses uses;
    uint64_t built_at; /* mim_world_mutations when built */
    uint64_t round;    /* mim_pass_round_id when built */
    bool built;
} MemShared;

static void shared_fini(void *state) { mem_uses_free(&((MemShared *)state)->uses); }

const MemUses *mem_uses_of(MimPass *p) {
    MimWorld *w = mim_pass_world(p);
    MemShared *sh = mim_world_plugin_state(w, MIM_mem_ID, sizeof(MemShared), shared_fini);
    uint64_t now = mim_world_mutations(w), round = mim_pass_round_id(p);
    if (!sh->built || sh->built_at != now || sh->round != round) {
        uses_build(&sh->uses, p);
        sh->built_at = now;
        sh->round = round;
        sh->built = true;
    }
    return &sh->uses;
}

void mem_uses_free(MemUses *u) {
    mim_vec_free(&u->first);
    mim_ptrmap_free(&u->other);
    mim_vec_free(&u->other_heads);
    mim_vec_free(&u->uses);
    mim_vec_free(&u->lams);
    mim_vec_free(&u->slots);
    *u = (MemUses){0};
}

uint32_t mem_uses_first(const MemUses *u, const MimDef *d) {
    uint32_t k = mim_pass_node_index(u->pass, d), head;
    void **v;
    if (k < u->first.len) head = u->first.data[k];
    else head = (v = mim_ptrmap_find(&u->other, d)) ? u->other_heads.data[(uintptr_t)*v] : 0;
    return head == MEM_MET ? 0 : head;
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
