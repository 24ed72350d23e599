/* η-reduction (opt.md §4.2): an occurrence of a lambda λx. e x, where e is a
 * variable, a projection of a variable or a lambda (not depending on x), is
 * replaced by e. Every occurrence of such a lambda is rebuilt by the
 * manager, so all of them are replaced and the wrapper disappears; external
 * lambdas and wrappers other passes mark irreducible are kept. */
#include "pass/std.h"

/* A set of variables (keys of a map). */
typedef MimPtrMap VarSet;

typedef struct EtaRed {
    StdPass std;
    MimPtrMap irreducible;
    /* This traversal's memo: mutable -> VarSet holding at least every
     * variable reachable from it (shared by all mutables one search found),
     * and the sets it owns. */
    MimPtrMap reach;
    MIM_VEC(VarSet *) sets;
} EtaRed;

void mim_eta_red_irreducible(MimPass *p, MimDef *lam) {
    if (p && p->cls == &mim_eta_red_pass) mim_ptrmap_put(&((EtaRed *)p)->irreducible, lam, NULL);
}

bool mim_eta_red_is_irreducible(MimPass *p, const MimDef *lam) {
    return p && p->cls == &mim_eta_red_pass && mim_ptrmap_has(&((EtaRed *)p)->irreducible, lam);
}

/* A superset of the variables var_free_in can find from the mutable e: the
 * variables that the immutable part of a mutable reachable from e (its
 * operands and types up to the next mutables) contains, except the
 * mutable's own variable, which is bound there. One search visits every
 * mutable reachable from e and gives its set to each of them, so a group of
 * mutually recursive continuations is searched once per traversal, not once
 * per wrapper; a mutable met that already has a set contributes it.
 * The memo lives for one traversal. The rewrites of a traversal keep scoping:
 * a variable only enters a mutable that was already in its binder's scope
 * (used it), so a variable missing from a set stays out of reach. */
static const VarSet *reach_vars(MimWorld *w, EtaRed *er, MimDef *e) {
    VarSet *memo = mim_ptrmap_get(&er->reach, e);
    if (memo) return memo;
    VarSet *vars = mim_xcalloc(1, sizeof *vars);
    mim_vec_push(&er->sets, vars);
    MimPtrMap muts = {0}; /* mutables found (the worklist's members) */
    MimPtrMap seen = {0}; /* the current mutable's immutable part */
    MIM_VEC(MimDef *) work = {0};
    MIM_VEC(MimDef *) stack = {0};
    mim_ptrmap_put(&muts, e, NULL);
    mim_vec_push(&work, e);
    for (size_t k = 0; k < work.len; ++k) {
        MimDef *mut = work.data[k];
        VarSet *known = k ? mim_ptrmap_get(&er->reach, mut) : NULL;
        if (known) { /* a superset of what mut reaches */
            for (size_t i = 0; i < known->cap; ++i)
                if (known->slots[i].key) mim_ptrmap_put(vars, known->slots[i].key, NULL);
            continue;
        }
        mim_ptrmap_clear(&seen);
        if (mut->type) mim_vec_push(&stack, mut->type);
        for (uint32_t i = 0; i < mut->num_ops; ++i)
            if (mut->ops[i]) mim_vec_push(&stack, mut->ops[i]);
        while (stack.len) {
            MimDef *d = mim_res(w, mim_vec_pop(&stack));
            if (!d) continue;
            if (d->is_mut) {
                if (mim_ptrmap_add(&muts, d, NULL, NULL)) mim_vec_push(&work, d);
                continue;
            }
            if (!(d->dep & (MIM_DEP_VAR | MIM_DEP_MUT | MIM_DEP_INFER))) continue;
            if (!mim_ptrmap_add(&seen, d, NULL, NULL)) continue;
            if (d->type) mim_vec_push(&stack, d->type);
            if (d->node == MIM_VAR) {
                if (mim_res(w, d->ops[0]) != mut) mim_ptrmap_put(vars, d, NULL);
                continue; /* its operand is its binder, not a use */
            }
            for (uint32_t i = 0; i < d->num_ops; ++i)
                if (d->ops[i]) mim_vec_push(&stack, d->ops[i]);
        }
    }
    for (size_t k = 0; k < work.len; ++k)
        if (!mim_ptrmap_has(&er->reach, work.data[k])) mim_ptrmap_put(&er->reach, work.data[k], vars);
    mim_ptrmap_free(&muts);
    mim_ptrmap_free(&seen);
    mim_vec_free(&work);
    mim_vec_free(&stack);
    return vars;
}

/* Whether var, the variable of lam, occurs free in e: whether it can be
 * reached from e through operands and types without passing through lam,
 * which binds it. A search that stops at the first occurrence and never
 * enters another variable's binder; it may see an occurrence that is not
 * free (through a type), which only keeps a wrapper, never the reverse.
 * Why not the free-variable sets (fv.c): a big group of mutually recursive
 * continuations (a lowered regex automaton has thousands) forms one
 * component, and every rewrite of the traversal invalidates it, so each
 * query recomputed the whole component (512 DFA states: 9 s). The search
 * itself would still cost the whole component per wrapper (quadratic), so a
 * mutable e is first looked up in reach_vars: a var out of reach there is
 * not free (the usual case, e.g. the wrappers of η-expansion). */
static bool var_free_in(MimWorld *w, EtaRed *er, MimDef *e, MimDef *var, MimDef *lam) {
    if (e->is_mut && !mim_ptrmap_has(reach_vars(w, er, e), var)) return false;
    MimPtrMap seen = {0};
    MIM_VEC(MimDef *) stack = {0};
    bool found = false;
    mim_vec_push(&stack, e);
    while (stack.len && !found) {
        MimDef *d = mim_res(w, mim_vec_pop(&stack));
        if (!d || d == lam) continue;
        if (d == var) {
            found = true;
            break;
        }
        if (!d->is_mut && !(d->dep & (MIM_DEP_VAR | MIM_DEP_MUT | MIM_DEP_INFER))) continue;
        if (!mim_ptrmap_add(&seen, d, NULL, NULL)) continue;
        if (d->type) mim_vec_push(&stack, d->type);
        if (d->node == MIM_VAR) continue; /* its operand is its binder, not a use */
        for (uint32_t i = 0; i < d->num_ops; ++i)
            if (d->ops[i]) mim_vec_push(&stack, d->ops[i]);
    }
    mim_ptrmap_free(&seen);
    mim_vec_free(&stack);
    return found;
}

/* e if lam is λx. e x with an admissible e, else NULL. */
static MimDef *reduct(MimWorld *w, EtaRed *er, MimDef *lam) {
    if (!mim_is_workable_lam(lam) || mim_ptrmap_has(&er->irreducible, lam)) return NULL;
    MimDef *body = mim_res(w, lam->ops[1]);
    MimDef *var = mim_mut_has_var(lam);
    if (!body || body->node != MIM_APP || !var || mim_res(w, body->ops[1]) != var) return NULL;
    MimDef *e = mim_res(w, body->ops[0]);
    bool ok = e->node == MIM_VAR ? e != var
              : e->node == MIM_EXTRACT ? mim_res(w, e->ops[0])->node == MIM_VAR &&
                                            mim_res(w, e->ops[0]) != var
              : e->node == MIM_LAM ? e != lam : false;
    if (!ok || var_free_in(w, er, e, var, lam)) return NULL;
    /* The reduct must have the same type (e.g. not an implicit/dependent one). */
    return mim_alpha(w, mim_type_of(w, e), mim_type_of(w, lam), false) ? e : NULL;
}

/* The reduct of lam unless reducing leads back to lam (λx. g x and
 * g = λy. lam y reduce into each other forever). */
static MimDef *acyclic_reduct(MimWorld *w, EtaRed *er, MimDef *lam) {
    MimDef *e = reduct(w, er, lam);
    MimDef *next = e;
    for (int i = 0; next && next->node == MIM_LAM && i < 64; ++i) {
        next = reduct(w, er, next);
        if (next == lam) {
            mim_ptrmap_put(&er->irreducible, lam, NULL);
            return NULL;
        }
    }
    return e;
}

static MimDef *eta_red_rewrite(MimPass *p, MimDef *d) {
    EtaRed *er = (EtaRed *)p;
    MimWorld *w = mim_pass_world(p);
    if (d->node == MIM_VAR) return d; /* its operand is its binder, not a use */
    for (uint32_t i = 0; i < d->num_ops; ++i) {
        MimDef *op = mim_res(w, d->ops[i]);
        if (!op || op->node != MIM_LAM || !op->is_mut) continue;
        MimDef *e = acyclic_reduct(w, er, op);
        if (!e) continue;
        MIM_SCRATCH(ops, d->num_ops);
        for (uint32_t j = 0; j < d->num_ops; ++j) ops[j] = j == i ? e : d->ops[j];
        MimDef *n = mim_def_rebuild(w, d, d->type, ops);
        MIM_SCRATCH_FREE(ops);
        mim_pass_changed(p);
        return n;
    }
    return d;
}

static void forget_reach(EtaRed *er) {
    for (size_t i = 0; i < er->sets.len; ++i) {
        mim_ptrmap_free(er->sets.data[i]);
        free(er->sets.data[i]);
    }
    er->sets.len = 0;
    mim_ptrmap_clear(&er->reach);
}

/* Could lam be reduced? reduct's checks of its shape, which build nothing
 * and search nothing: a superset of the reducible lambdas. */
static bool may_reduce(MimWorld *w, EtaRed *er, MimDef *lam) {
    if (!mim_is_workable_lam(lam) || mim_ptrmap_has(&er->irreducible, lam)) return false;
    MimDef *body = mim_res(w, lam->ops[1]);
    MimDef *var = mim_mut_has_var(lam);
    if (!body || body->node != MIM_APP || !var || mim_res(w, body->ops[1]) != var) return false;
    MimNode k = mim_res(w, body->ops[0])->node;
    return k == MIM_VAR || k == MIM_EXTRACT || k == MIM_LAM;
}

/* Idle (mim_pass_idle) without a used lambda that may be reducible; never
 * without records (no uses walk in this manager). */
static void eta_red_prepare(MimPass *p) {
    EtaRed *er = (EtaRed *)p;
    MimWorld *w = mim_pass_world(p);
    forget_reach(er);
    if (!mim_pass_num_records(p)) return;
    for (uint32_t i = 0, n = mim_pass_num_records(p); i < n; ++i) {
        MimDef *f = mim_pass_record(p, i);
        if (f->node == MIM_LAM && f->is_mut && mim_pass_uses(p, f, NULL) && may_reduce(w, er, f)) return;
    }
    mim_pass_idle(p);
}

static void eta_red_fini(MimPass *p) {
    EtaRed *er = (EtaRed *)p;
    forget_reach(er);
    mim_vec_free(&er->sets);
    mim_ptrmap_free(&er->reach);
    mim_ptrmap_free(&er->irreducible);
}

const MimPassClass mim_eta_red_pass = {.name = "eta_red", .size = sizeof(EtaRed),
                                       .prepare = eta_red_prepare, .rewrite = eta_red_rewrite,
                                       .fini = eta_red_fini};
