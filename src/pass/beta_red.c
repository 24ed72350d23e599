/* β-reduction (opt.md §4.1): inline every workable lambda that is used
 * exactly once, in callee position. Instead of the reference's optimistic
 * inlining with undo, the use counts of the previous traversal decide (see
 * include/mim/pass.h); inlining asks for another traversal, which finds the
 * next candidates. */
#include "pass/std.h"

typedef struct BetaRed {
    StdPass std;
    MimPtrMap keep;    /* never inline */
    MimPtrMap inlined; /* inlined in this traversal */
} BetaRed;

void mim_beta_red_keep(MimPass *p, MimDef *lam) {
    if (p && p->cls == &mim_beta_red_pass) mim_ptrmap_put(&((BetaRed *)p)->keep, lam, NULL);
}

bool mim_beta_red_is_kept(MimPass *p, const MimDef *lam) {
    return p && p->cls == &mim_beta_red_pass && mim_ptrmap_has(&((BetaRed *)p)->keep, lam);
}

/* Idle (mim_pass_idle) without a lambda that could be inlined: a workable
 * one used exactly once, as a callee, and not kept. */
static void beta_red_prepare(MimPass *p) {
    BetaRed *b = (BetaRed *)p;
    mim_ptrmap_clear(&b->inlined);
    if (!mim_pass_num_records(p)) return; /* no uses walk: no telling */
    for (uint32_t i = 0, n = mim_pass_num_records(p); i < n; ++i) {
        MimDef *f = mim_pass_record(p, i);
        unsigned callee;
        if (mim_is_workable_lam(f) && mim_pass_uses(p, f, &callee) == 1 && callee == 1 &&
            !mim_ptrmap_has(&b->keep, f))
            return;
    }
    mim_pass_idle(p);
}

static MimDef *beta_red_rewrite(MimPass *p, MimDef *d) {
    BetaRed *b = (BetaRed *)p;
    if (d->node != MIM_APP) return d;
    MimWorld *w = mim_pass_world(p);
    MimDef *f = mim_res(w, d->ops[0]);
    if (!mim_is_workable_lam(f) || f == mim_pass_cur(p) || mim_ptrmap_has(&b->keep, f)) return d;
    unsigned callee, uses = mim_pass_uses(p, f, &callee);
    if (uses != 1 || callee != 1 || !mim_ptrmap_add(&b->inlined, f, NULL, NULL)) return d;
    MimDef *filter, *body;
    if (!mim_lam_instantiate(w, f, d->ops[1], &filter, &body)) return NULL;
    mim_pass_changed(p);
    return body;
}

static void beta_red_fini(MimPass *p) {
    BetaRed *b = (BetaRed *)p;
    mim_ptrmap_free(&b->keep);
    mim_ptrmap_free(&b->inlined);
}

const MimPassClass mim_beta_red_pass = {.name = "beta_red", .size = sizeof(BetaRed),
                                        .prepare = beta_red_prepare,
                                        .rewrite = beta_red_rewrite, .fini = beta_red_fini};
