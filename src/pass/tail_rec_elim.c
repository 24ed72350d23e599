/* Tail-recursion elimination (opt.md §4.5): a returning lambda f that calls
 * itself with its own return continuation gets a loop. One traversal finds
 * such self tail calls; the next creates (once per f)
 *     rec  : f's type,            body: loop (rec's parameters without ret)
 *     loop : Cn [f's domains without ret],
 *            body: f's body with f's parameters := (loop's, rec's ret)
 * and rewrites calls of f: with rec's return continuation as last argument
 * (inside the loop) to `loop (args without it)`, otherwise to `rec args`. */
#include "pass/std.h"

#include "mim/vec.h"

#include <stdlib.h>

typedef struct TailRec {
    StdPass std;
    MimPtrMap found; /* f with a self tail call seen */
    MIM_VEC(MimDef *) order; /* the same, in the order found (deterministic gids) */
    MimPtrMap rec;   /* f -> rec */
    MimPtrMap loop;  /* f -> loop */
} TailRec;

static bool build(TailRec *t, MimWorld *w, MimDef *f) {
    uint64_t n = mim_dom_arity(w, f);
    MimDef *pi = mim_lam_imm_pi(w, f), *dom = pi ? mim_res(w, pi->ops[0]) : NULL;
    if (!pi || dom->node != MIM_SIGMA || dom->is_mut || n < 2) return false;
    MimDef *rec = mim_mut_lam(w, pi);
    MimDef *loop = mim_mut_lam(w, mim_cn(w, mim_sigma(w, dom->ops, n - 1)));
    if (!rec || !loop) return false;
    mim_def_set_name(rec, f->name);
    mim_def_set_name(loop, mim_world_sym(w, "loop"));
    MimDef **args = mim_xmalloc(n * sizeof *args);
    for (uint64_t i = 0; i + 1 < n; ++i) args[i] = mim_var_proj(w, rec, n, i);
    bool ok = mim_lam_set(w, rec, mim_lit_bool(w, false),
                          mim_app(w, loop, n == 2 ? args[0] : mim_tuple(w, args, n - 1))) != NULL;
    for (uint64_t i = 0; i + 1 < n; ++i) args[i] = mim_var_proj(w, loop, n - 1, i);
    args[n - 1] = mim_var_proj(w, rec, n, n - 1);
    MimDef *filter, *body;
    ok = ok && mim_lam_instantiate(w, f, mim_tuple_typed(w, dom, args, n), &filter, &body) &&
         mim_lam_set(w, loop, mim_lit_bool(w, false), body);
    free(args);
    if (!ok) return false;
    mim_eta_red_irreducible(t->std.link, loop);
    mim_ptrmap_put(&t->rec, f, rec);
    mim_ptrmap_put(&t->loop, f, loop);
    return true;
}

/* Could the call d be rewritten or be a self tail call? A call of a
 * lambda with a loop is rewritten; a self tail call passes f's return
 * continuation last, which (without building the projection) needs the last
 * element to be a projection of f's variable, or the argument to be f's
 * variable or something else than a tuple. */
static bool may_rewrite(TailRec *t, MimWorld *w, MimDef *d) {
    if (d->node != MIM_APP) return false;
    MimDef *f = mim_res(w, d->ops[0]);
    if (!f->is_mut || f->node != MIM_LAM || !f->ops[1]) return false;
    if (mim_ptrmap_has(&t->rec, f)) return true;
    uint64_t n = mim_dom_arity(w, f);
    MimDef *arg = mim_res(w, d->ops[1]);
    if (n < 2) return false;
    if (arg->node == MIM_VAR) return mim_res(w, arg->ops[0]) == f; /* f's own variable passed on */
    if (arg->node != MIM_TUPLE || arg->num_ops != n) return true;
    MimDef *last = mim_res(w, arg->ops[n - 1]);
    if (last->node != MIM_EXTRACT) return false;
    MimDef *var = mim_res(w, last->ops[0]);
    return var->node == MIM_VAR && mim_res(w, var->ops[0]) == f;
}

/* Does the traversal have work: a loop built by prepare, or a call that
 * may_rewrite? */
static bool has_work(TailRec *t, MimPass *p) {
    MimWorld *w = mim_pass_world(p);
    for (uint32_t i = 0, n = mim_pass_num_records(p); i < n; ++i)
        if (may_rewrite(t, w, mim_pass_record(p, i))) return true;
    return false;
}

static void tail_rec_prepare(MimPass *p) {
    TailRec *t = (TailRec *)p;
    MimWorld *w = mim_pass_world(p);
    for (size_t i = 0; i < t->order.len; ++i)
        if (!mim_ptrmap_has(&t->rec, t->order.data[i])) build(t, w, t->order.data[i]);
    mim_ptrmap_clear(&t->found);
    t->order.len = 0;
    /* Without records (no uses walk in this manager) there is no telling. */
    if (mim_pass_num_records(p) && !has_work(t, p)) mim_pass_idle(p);
}

static MimDef *tail_rec_rewrite(MimPass *p, MimDef *d) {
    TailRec *t = (TailRec *)p;
    MimWorld *w = mim_pass_world(p);
    if (d->node != MIM_APP) return d;
    MimDef *f = mim_res(w, d->ops[0]);
    if (!f->is_mut || f->node != MIM_LAM || !f->ops[1]) return d;
    MimDef *rec = mim_ptrmap_get(&t->rec, f);
    uint64_t n = mim_dom_arity(w, f);
    if (!rec) {
        MimDef *ret = mim_ret_var(w, f);
        if (ret && n >= 2 && mim_proj(w, d->ops[1], n, n - 1) == ret &&
            mim_ptrmap_add(&t->found, f, NULL, NULL)) {
            mim_vec_push(&t->order, f);
            mim_pass_changed(p);
        }
        return d;
    }
    MimDef *last = mim_proj(w, d->ops[1], n, n - 1);
    if (last != mim_var_proj(w, rec, n, n - 1)) return mim_app(w, rec, d->ops[1]);
    MimDef *loop = mim_ptrmap_get(&t->loop, f);
    MimDef **args = mim_xmalloc(n * sizeof *args);
    for (uint64_t i = 0; i + 1 < n; ++i) args[i] = mim_proj(w, d->ops[1], n, i);
    MimDef *res = mim_app(w, loop, n == 2 ? args[0] : mim_tuple(w, args, n - 1));
    free(args);
    return res;
}

static void tail_rec_fini(MimPass *p) {
    TailRec *t = (TailRec *)p;
    mim_ptrmap_free(&t->found);
    mim_vec_free(&t->order);
    mim_ptrmap_free(&t->rec);
    mim_ptrmap_free(&t->loop);
}

const MimPassClass mim_tail_rec_elim_pass = {
    .name = "tail_rec_elim", .size = sizeof(TailRec), .on_lams = true,
    .prepare = tail_rec_prepare, .rewrite = tail_rec_rewrite, .fini = tail_rec_fini};
