/* The pass manager (src/pass/pm.c) through its C interface: passes see every
 * rebuilt node of the program reachable from the externals, replacements
 * are rewritten again, a pass that builds an ill-typed node or never stops
 * replacing is reported as an internal error naming the pass (no crash),
 * fixed-point rounds are bounded, and two Worlds do not interfere. */
#include "mim/pass.h"
#include "mim/world.h"
#include "pass/pm.h"
#include "unit.h"

#include <string.h>

/* con extern f (x: Nat, k: Cn Nat) = k x */

/* One run with working memory of its own. */
static bool run_pm(MimPassMan *pm, MimWorld *w) {
    MimPmScratch *scratch = mim_pm_scratch_new();
    bool ok = mim_pm_run(pm, w, scratch);
    mim_pm_scratch_free(scratch);
    return ok;
}
static MimDef *build_f(MimWorld *w) {
    MimDef *nat = mim_nat(w);
    MimDef *dom_ops[2] = {nat, mim_cn(w, nat)};
    MimDef *f = mim_mut_lam(w, mim_cn(w, mim_sigma(w, dom_ops, 2)));
    mim_def_set_name(f, mim_world_sym(w, "f"));
    MimDef *x = mim_proj(w, mim_var(w, f), 2, 0), *k = mim_proj(w, mim_var(w, f), 2, 1);
    mim_lam_set(w, f, mim_lit_bool(w, false), mim_app(w, k, x));
    mim_make_external(w, f);
    return f;
}

static bool diag_has(MimWorld *w, const char *text) {
    MimDiag *d = mim_world_diag(w);
    for (size_t i = 0; i < d->len; ++i)
        if (strstr(d->msgs[i].text, text)) return true;
    return false;
}

/* Counts the Apps it is offered and replaces `k x` by `k 7`. */
typedef struct Seven {
    MimPass base;
    unsigned apps;
} Seven;

static MimDef *seven_rewrite(MimPass *p, MimDef *d) {
    if (mim_def_node(d) != MIM_APP) return d;
    ((Seven *)p)->apps++;
    MimWorld *w = mim_pass_world(p);
    MimDef *seven = mim_lit_nat(w, 7);
    return mim_def_op(d, 1) == seven ? d : mim_app(w, mim_def_op(d, 0), seven);
}

static const MimPassClass seven_class = {.name = "seven", .size = sizeof(Seven), .rewrite = seven_rewrite};

static void test_rewrite_replaces_and_reoffers(void) {
    MimWorld *w = mim_world_new();
    MimDef *f = build_f(w);
    MimPassMan *pm = mim_pm_new();
    bool fresh;
    Seven *s = (Seven *)mim_pm_add(pm, &seven_class, &fresh);
    CHECK(fresh && mim_pm_add(pm, &seven_class, &fresh) == &s->base && !fresh);
    CHECK(run_pm(pm, w));
    MimDef *body = mim_lam_body(f);
    CHECK(mim_def_node(body) == MIM_APP && mim_def_op(body, 1) == mim_lit_nat(w, 7));
    CHECK(s->apps == 2); /* k x, then its replacement k 7 */
    mim_pm_free(pm);
    mim_world_free(w);
}

/* Replaces `k x` by `k ()`: ill-typed, the constructor reports it. */
static MimDef *bad_rewrite(MimPass *p, MimDef *d) {
    if (mim_def_node(d) != MIM_APP) return d;
    MimWorld *w = mim_pass_world(p);
    return mim_app(w, mim_def_op(d, 0), mim_unit(w));
}

static const MimPassClass bad_class = {.name = "ill_typed_pass", .size = sizeof(MimPass),
                                       .rewrite = bad_rewrite};

static void test_ill_typed_is_internal_error(void) {
    MimWorld *w = mim_world_new();
    build_f(w);
    MimPassMan *pm = mim_pm_new();
    mim_pm_add(pm, &bad_class, NULL);
    CHECK(!run_pm(pm, w));
    CHECK(diag_has(w, "internal error") && diag_has(w, "ill_typed_pass"));
    mim_pm_free(pm);
    mim_world_free(w);
}

/* Replaces `k n` by `k (n + 1)` forever: bounded by the stack budget. */
static MimDef *endless_rewrite(MimPass *p, MimDef *d) {
    if (mim_def_node(d) != MIM_APP || mim_app_axiom(d)) return d;
    MimWorld *w = mim_pass_world(p);
    MimDef *ops[2] = {mim_def_op(d, 1), mim_lit_nat(w, 1)};
    MimDef *next = mim_tuple(w, ops, 2); /* a new, bigger argument each time */
    MimDef *nat = mim_nat(w);
    MimDef *pair_ty[2] = {nat, nat};
    MimDef *ax = mim_axiom(w, mim_pi(w, mim_sigma(w, pair_ty, 2), nat, false), 0x1234500000000100ull, NULL, 1, 0);
    return mim_app(w, mim_def_op(d, 0), mim_app(w, ax, next));
}

static const MimPassClass endless_class = {.name = "endless_pass", .size = sizeof(MimPass),
                                           .rewrite = endless_rewrite};

static void test_divergence_is_reported(void) {
    MimWorld *w = mim_world_new();
    mim_world_set_stack_budget(w, 256 << 10);
    build_f(w);
    MimPassMan *pm = mim_pm_new();
    mim_pm_add(pm, &endless_class, NULL);
    CHECK(!run_pm(pm, w));
    CHECK(diag_has(w, "does not converge") && diag_has(w, "endless_pass"));
    mim_pm_free(pm);
    mim_world_free(w);
}

/* Always asks for another round: the rounds are bounded. */
typedef struct Greedy {
    MimPass base;
    unsigned rounds;
} Greedy;

static void greedy_prepare(MimPass *p) {
    ((Greedy *)p)->rounds++;
    mim_pass_changed(p);
}

static const MimPassClass greedy_class = {.name = "greedy", .size = sizeof(Greedy),
                                          .prepare = greedy_prepare};

static void test_rounds_are_bounded(void) {
    MimWorld *w = mim_world_new();
    build_f(w);
    MimPassMan *pm = mim_pm_new();
    Greedy *g = (Greedy *)mim_pm_add(pm, &greedy_class, NULL);
    CHECK(run_pm(pm, w));
    CHECK(g->rounds == MIM_PM_MAX_ROUNDS);
    mim_pm_free(pm);
    mim_world_free(w);
}

/* Use counts: f is used once as external; k (a Var) is not a mutable. */
typedef struct Uses {
    MimPass base;
    unsigned f_uses, f_callee;
    MimDef *f;
} Uses;

static void uses_prepare(MimPass *p) {
    Uses *u = (Uses *)p;
    u->f_uses = mim_pass_uses(p, u->f, &u->f_callee);
}

static const MimPassClass uses_class = {.name = "uses", .size = sizeof(Uses), .prepare = uses_prepare};

static void test_two_worlds_and_uses(void) {
    MimWorld *w1 = mim_world_new(), *w2 = mim_world_new();
    MimDef *f1 = build_f(w1);
    build_f(w2);
    MimPassMan *pm1 = mim_pm_new(), *pm2 = mim_pm_new();
    Uses *u = (Uses *)mim_pm_add(pm1, &uses_class, NULL);
    u->f = f1;
    mim_pm_add(pm2, &bad_class, NULL);
    /* one working memory for both runs, as a pipeline lends it: the records
     * of the first run must not count in the second */
    MimPmScratch *scratch = mim_pm_scratch_new();
    CHECK(!mim_pm_run(pm2, w2, scratch));
    CHECK(mim_pm_run(pm1, w1, scratch));
    mim_pm_scratch_free(scratch);
    CHECK(!mim_world_has_error(w1) && mim_world_has_error(w2));
    CHECK(u->f_uses == 1 && u->f_callee == 0);
    mim_pm_free(pm1);
    mim_pm_free(pm2);
    mim_world_free(w1);
    mim_world_free(w2);
}

int main(void) {
    RUN(test_rewrite_replaces_and_reoffers);
    RUN(test_ill_typed_is_internal_error);
    RUN(test_divergence_is_reported);
    RUN(test_rounds_are_bounded);
    RUN(test_two_worlds_and_uses);
    return unit_summary();
}
