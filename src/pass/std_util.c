/* Helpers shared by the standard passes and offered to plugin passes
 * (include/mim/pass.h), and the two trivial passes internal_cleanup and
 * debug_print (compile.md §6). */
#include "pass/std.h"

#include "mim/vec.h"

#include <stdlib.h>
#include <string.h>

bool mim_is_workable_lam(const MimDef *d) {
    return d && d->node == MIM_LAM && d->is_mut && !d->is_external && d->ops[1];
}

MimDef *mim_var_proj(MimWorld *w, MimDef *mut, uint64_t n, uint64_t i) {
    return mim_proj(w, mim_var(w, mut), n, i);
}

/* Literal arity of a domain type (1 for anything that is not a Σ/array of
 * literal arity). */
static uint64_t arity_of_type(MimWorld *w, MimDef *T) {
    T = mim_res(w, T);
    if (!T) return 1;
    if (T->node == MIM_SIGMA) return T->num_ops;
    uint64_t n;
    if (T->node == MIM_ARR && mim_is_lit(T->ops[0], &n)) return n;
    return 1;
}

MimDef *mim_lam_imm_pi(MimWorld *w, MimDef *lam) {
    MimDef *pi = mim_res(w, lam->type);
    if (pi && pi->is_mut) pi = mim_immutabilize(w, pi);
    return pi && !pi->is_mut && pi->node == MIM_PI ? pi : NULL;
}

uint64_t mim_dom_arity(MimWorld *w, MimDef *lam) {
    MimDef *pi = mim_res(w, lam->type);
    return pi && pi->node == MIM_PI ? arity_of_type(w, pi->ops[0]) : 1;
}

/* The return continuation type of continuation type pi (semantics.md §4.4):
 * the last element of its domain if that is a continuation without a return
 * continuation of its own (a basic block), else NULL. `Cn (Cn [I32, Cn I32])`
 * — a block receiving a function — has none: its one parameter is a
 * returning continuation. */
static MimDef *ret_pi(MimWorld *w, MimDef *pi, unsigned depth) {
    pi = mim_res(w, pi);
    if (!pi || pi->node != MIM_PI || !mim_pi_is_cn(pi) || depth > 64) return NULL;
    MimDef *dom = mim_res(w, pi->ops[0]);
    uint64_t n = arity_of_type(w, dom);
    if (n < 1 || !dom) return NULL;
    MimDef *last = dom->node == MIM_SIGMA ? mim_res(w, dom->ops[n - 1])
                   : dom->node == MIM_ARR ? mim_res(w, dom->ops[1]) : dom;
    if (!last || last->node != MIM_PI || !mim_pi_is_cn(last) || ret_pi(w, last, depth + 1)) return NULL;
    return last;
}

bool mim_has_ret(MimWorld *w, const MimDef *lam) { return lam->is_mut && ret_pi(w, lam->type, 0); }

MimDef *mim_ret_var(MimWorld *w, MimDef *lam) {
    if (!lam->is_mut || !ret_pi(w, lam->type, 0)) return NULL;
    return mim_var_proj(w, lam, mim_dom_arity(w, lam), mim_dom_arity(w, lam) - 1);
}

bool mim_lam_instantiate(MimWorld *w, MimDef *lam, MimDef *arg, MimDef **filter, MimDef **body) {
    MimDef *out[2];
    if (!mim_reduce(w, lam, arg, out) || !out[0] || !out[1]) return false;
    *filter = out[0];
    *body = out[1];
    return true;
}

/* Walks everything reachable from `from` (entering mutables) looking for
 * `target`; nodes without free dependencies are skipped. */
static bool reaches(MimWorld *w, MimDef *from, const MimDef *target) {
    MimPtrMap seen = {0};
    MIM_VEC(MimDef *) todo = {0};
    mim_vec_push(&todo, from);
    bool found = false;
    while (todo.len && !found) {
        MimDef *d = mim_res(w, mim_vec_pop(&todo));
        if (!d) continue;
        if (d == target) found = true;
        else if (!(d->dep & (MIM_DEP_MUT | MIM_DEP_VAR)) || d->node == MIM_VAR ||
                 !mim_ptrmap_add(&seen, d, NULL, NULL))
            continue;
        else
            for (uint32_t i = 0; i < d->num_ops; ++i)
                if (d->ops[i]) mim_vec_push(&todo, d->ops[i]);
    }
    mim_vec_free(&todo);
    mim_ptrmap_free(&seen);
    return found;
}

bool mim_mentions_var(MimWorld *w, MimDef *d, MimDef *mut) {
    MimDef *var = mim_mut_has_var(mut);
    return var && d && mim_has_free_var(w, d, var);
}

void mim_name_like_var(MimDef *param, const MimDef *lam) {
    MimDef *var = lam && lam->is_mut ? mim_mut_has_var(lam) : NULL;
    if (var && param != var) mim_def_set_name(param, var->name);
}

bool mim_is_recursive(MimWorld *w, MimDef *mut) {
    for (uint32_t i = 0; i < mut->num_ops; ++i)
        if (mut->ops[i] && reaches(w, mut->ops[i], mut)) return true;
    return false;
}

void mim_pass_link(MimPass *p, MimPass *other) {
    if (p->cls->size >= sizeof(StdPass)) ((StdPass *)p)->link = other;
}

/* ---- internal_cleanup ------------------------------------------------------ */

bool mim_is_prefixed_external(const MimDef *d, const char *prefix) {
    return d->node == MIM_LAM && d->is_external && d->name && strncmp(d->name, prefix, strlen(prefix)) == 0;
}

bool mim_is_internal_helper(const MimDef *lam) { return mim_is_prefixed_external(lam, "internal_"); }

static void internal_cleanup_enter(MimPass *p, MimDef *lam) {
    if (mim_is_internal_helper(lam)) mim_make_internal(mim_pass_world(p), lam);
}

/* Only externals are made internal: without a helper among them the
 * traversal has nothing to do. */
static void internal_cleanup_prepare(MimPass *p) {
    MimWorld *w = mim_pass_world(p);
    for (size_t i = 0, n = mim_world_num_externals(w); i < n; ++i)
        if (mim_is_internal_helper(mim_world_external(w, i))) return;
    mim_pass_idle(p);
}

const MimPassClass mim_internal_cleanup_pass = {
    .name = "internal_cleanup", .size = sizeof(StdPass), .on_lams = true,
    .prepare = internal_cleanup_prepare, .enter = internal_cleanup_enter};

/* ---- debug_print: traversal only (logging is not part of the output) ---- */

const MimPassClass mim_debug_print_pass = {.name = "debug_print", .size = sizeof(StdPass),
                                           .on_lams = true};
