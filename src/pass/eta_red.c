/* η-reduction (opt.md §4.2): an occurrence of a lambda λx. e x, where e is a
 * variable, a projection of a variable or a lambda (not depending on x), is
 * replaced by e. Every occurrence of such a lambda is rebuilt by the
 * manager, so all of them are replaced and the wrapper disappears; external
 * lambdas and wrappers other passes mark irreducible are kept. */
#include "pass/std.h"

typedef struct EtaRed {
    StdPass std;
    MimPtrMap irreducible;
} EtaRed;

void mim_eta_red_irreducible(MimPass *p, MimDef *lam) {
    if (p && p->cls == &mim_eta_red_pass) mim_ptrmap_put(&((EtaRed *)p)->irreducible, lam, NULL);
}

bool mim_eta_red_is_irreducible(MimPass *p, const MimDef *lam) {
    return p && p->cls == &mim_eta_red_pass && mim_ptrmap_has(&((EtaRed *)p)->irreducible, lam);
}

/* Whether var, the variable of lam, occurs free in e: whether it can be
 * reached from e through operands and types without passing through lam,
 * which binds it. A search that stops at the first occurrence and never
 * enters another variable's binder; it may see an occurrence that is not
 * free (through a type), which only keeps a wrapper, never the reverse.
 * Why not the free-variable sets (fv.c): a big group of mutually recursive
 * continuations (a lowered regex automaton has thousands) forms one
 * component, and every rewrite of the traversal invalidates it, so each
 * query recomputed the whole component (512 DFA states: 9 s). */
static bool var_free_in(MimWorld *w, MimDef *e, MimDef *var, MimDef *lam) {
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
    if (!ok || var_free_in(w, e, var, lam)) return NULL;
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

static void eta_red_fini(MimPass *p) { mim_ptrmap_free(&((EtaRed *)p)->irreducible); }

const MimPassClass mim_eta_red_pass = {.name = "eta_red", .size = sizeof(EtaRed),
                                       .rewrite = eta_red_rewrite, .fini = eta_red_fini};
