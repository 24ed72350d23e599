/* η-expansion (opt.md §4.3): a lambda f that is used more than once and at
 * least once not as a callee gets, at each non-callee occurrence, its own
 * wrapper `eta_f = λx. f x` (a generalization of critical-edge splitting),
 * so that other passes may change f's signature at its call sites. A
 * wrapper in callee position is replaced by its original (calls go straight
 * to f).
 *
 * Without speculation (docs/optimizer.md) "used more than once" comes from
 * the use counts of the traversal start; derived versions of f (scalarize,
 * SSA, copy propagation register them) count as f. Wrappers are marked
 * irreducible for the linked η-reduction and are never expanded again, so
 * a second traversal finds f used in callee position only and stops. */
#include "pass/std.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct EtaExp {
    StdPass std;
    MimPtrMap derived; /* derived lambda -> original */
    MimPtrMap wrapper; /* wrapper -> original */
    MimPtrMap memo;    /* rebuilt node -> node with wrappers (this traversal) */
} EtaExp;

void mim_eta_exp_derive(MimPass *p, MimDef *derived, MimDef *original) {
    if (p && p->cls == &mim_eta_exp_pass) mim_ptrmap_put(&((EtaExp *)p)->derived, derived, original);
}

static MimDef *original(EtaExp *e, MimDef *f) {
    for (int i = 0; i < 64; ++i) { /* chains are short; a bound guards against cycles */
        MimDef *o = mim_ptrmap_get(&e->derived, f);
        if (!o) break;
        f = o;
    }
    return f;
}

static bool expand(EtaExp *e, MimPass *p, MimDef *f);

/* Idle (mim_pass_idle) unless a lambda is to be wrapped (expand) or a
 * wrapper is called (replaced by its original). */
static void eta_exp_prepare(MimPass *p) {
    EtaExp *e = (EtaExp *)p;
    mim_ptrmap_clear(&e->memo);
    if (!mim_pass_num_records(p)) return; /* no uses walk: no telling */
    for (uint32_t i = 0, n = mim_pass_num_records(p); i < n; ++i) {
        MimDef *f = mim_pass_record(p, i);
        if (f->node != MIM_LAM || !f->is_mut) continue;
        unsigned callee;
        bool wrapper = mim_ptrmap_has(&e->wrapper, f);
        if (wrapper && mim_pass_uses(p, f, &callee) && callee) return;
        if (!wrapper && expand(e, p, f)) return;
    }
    mim_pass_idle(p);
}

/* Should a non-callee occurrence of f be wrapped? */
static bool expand(EtaExp *e, MimPass *p, MimDef *f) {
    if (!mim_is_workable_lam(f) || mim_ptrmap_has(&e->wrapper, f)) return false;
    MimDef *orig = original(e, f);
    unsigned callee, uses = mim_pass_uses(p, orig, &callee);
    if (orig != f) {
        unsigned c2, u2 = mim_pass_uses(p, f, &c2);
        uses += u2, callee += c2;
    }
    return uses >= 2 && uses > callee;
}

static MimDef *wrap(EtaExp *e, MimWorld *w, MimDef *f) {
    MimDef *pi = mim_res(w, f->type);
    MimDef *lam = mim_mut_lam(w, pi);
    if (!lam) return NULL;
    const char *name = f->name ? f->name : "";
    size_t len = strlen(name) + 5;
    char *buf = mim_xmalloc(len);
    snprintf(buf, len, "eta_%s", name);
    mim_def_set_name(lam, mim_world_sym(w, buf));
    free(buf);
    if (!mim_lam_set(w, lam, mim_lit_bool(w, false), mim_app(w, f, mim_var(w, lam)))) return NULL;
    mim_ptrmap_put(&e->wrapper, lam, f);
    mim_eta_red_irreducible(e->std.link, lam);
    return lam;
}

static MimDef *eta_exp_rewrite(MimPass *p, MimDef *d) {
    EtaExp *e = (EtaExp *)p;
    MimWorld *w = mim_pass_world(p);
    if (d->node == MIM_VAR) return d; /* its operand is its binder, not a use */
    /* Only an operand that is a mutable lambda can change; the other nodes
     * (most of them) need no memo entry, which would cost two look-ups in
     * a map as large as the program. */
    bool any = false;
    for (uint32_t i = 0; !any && i < d->num_ops; ++i) {
        MimDef *op = mim_res(w, d->ops[i]);
        any = op && op->node == MIM_LAM && op->is_mut;
    }
    if (!any) return d;
    void **memo = mim_ptrmap_find(&e->memo, d);
    if (memo) return *memo;
    MIM_SCRATCH(ops, d->num_ops);
    bool changed = false;
    for (uint32_t i = 0; i < d->num_ops; ++i) {
        MimDef *op = mim_res(w, d->ops[i]);
        ops[i] = op;
        if (!op || op->node != MIM_LAM || !op->is_mut) continue;
        bool callee = d->node == MIM_APP && i == 0;
        MimDef *orig = mim_ptrmap_get(&e->wrapper, op);
        if (callee && orig) ops[i] = orig;
        else if (!callee && expand(e, p, op)) ops[i] = wrap(e, w, op);
        if (!ops[i]) {
            MIM_SCRATCH_FREE(ops);
            return NULL;
        }
        changed |= ops[i] != op;
    }
    MimDef *res = changed ? mim_def_rebuild(w, d, d->type, ops) : d;
    MIM_SCRATCH_FREE(ops);
    if (res) mim_ptrmap_put(&e->memo, d, res);
    return res;
}

static void eta_exp_fini(MimPass *p) {
    EtaExp *e = (EtaExp *)p;
    mim_ptrmap_free(&e->derived);
    mim_ptrmap_free(&e->wrapper);
    mim_ptrmap_free(&e->memo);
}

const MimPassClass mim_eta_exp_pass = {.name = "eta_exp", .size = sizeof(EtaExp), .on_lams = true,
                                       .prepare = eta_exp_prepare, .rewrite = eta_exp_rewrite,
                                       .fini = eta_exp_fini};
