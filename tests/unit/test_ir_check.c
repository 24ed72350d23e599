/* Unit tests of the checking half of the IR: α-equivalence (strict and
 * inference mode), holes, assignability, substitution, β-reduction, the
 * reduce cache and free variables (semantics.md §6–§10). */
#include "ir/check.h"
#include "ir/world_impl.h" /* check_arena.total */
#include "mim/world.h"
#include "unit.h"

#include <pthread.h>

/* ---- helpers --------------------------------------------------------------- */

static MimDef *idx_lit(MimWorld *w, uint64_t n, uint64_t v) { return mim_lit_idx(w, n, v); }

/* Π T:* → Π x:T → C(T) where C is T itself or Nat (`codom_nat`). */
static MimDef *poly_pi(MimWorld *w, bool codom_nat) {
    MimDef *outer = mim_mut_pi(w, mim_box(w), false);
    mim_mut_set(w, outer, 0, mim_star(w));
    MimDef *T = mim_var(w, outer);
    MimDef *inner = mim_mut_pi(w, mim_star(w), false);
    mim_mut_set(w, inner, 0, T);
    mim_mut_set(w, inner, 1, codom_nat ? mim_nat(w) : T);
    return mim_mut_set(w, outer, 1, inner);
}

/* λ T:* → λ x:T → x (the polymorphic identity), built from scratch. */
static MimDef *poly_id(MimWorld *w) {
    MimDef *lam = mim_mut_lam(w, poly_pi(w, false));
    MimDef *T = mim_var(w, lam);
    MimDef *ipi = mim_mut_pi(w, mim_star(w), false);
    mim_mut_set(w, ipi, 0, T);
    mim_mut_set(w, ipi, 1, T);
    MimDef *inner = mim_mut_lam(w, ipi);
    MimDef *x = mim_var(w, inner);
    mim_lam_set(w, inner, mim_lit_bool(w, true), x);
    return mim_lam_set(w, lam, mim_lit_bool(w, true), inner);
}

/* A mutable function Π dom → codom with filter/body to be set by the caller. */
static MimDef *mut_fun(MimWorld *w, MimDef *dom, MimDef *codom) {
    return mim_mut_lam(w, mim_pi(w, dom, codom, false));
}

/* ---- α-equivalence ----------------------------------------------------------- */

static void test_alpha_identity_fast(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w), *s = mim_sigma(w, (MimDef *[]){nat, mim_type_bool(w)}, 2);
    uint32_t before = mim_world_gid_counter(w);
    CHECK(mim_alpha(w, nat, nat, false));
    CHECK(mim_alpha(w, s, s, false));
    CHECK(mim_world_gid_counter(w) == before); /* nothing built on the fast path */
    CHECK(!mim_alpha(w, nat, mim_type_bool(w), false));
    CHECK(!mim_alpha(w, nat, mim_type_bool(w), true));
    CHECK(!mim_alpha(w, mim_lit_nat(w, 1), mim_lit_nat(w, 2), true));
    CHECK(mim_alpha(w, NULL, NULL, false));
    CHECK(!mim_alpha(w, nat, NULL, true));
    mim_world_free(w);
}

static void test_alpha_renaming_pi(void) {
    MimWorld *w = mim_world_new();
    MimDef *p1 = poly_pi(w, false), *p2 = poly_pi(w, false), *p3 = poly_pi(w, true);
    CHECK(p1 && p2 && p3 && p1 != p2);
    CHECK(mim_alpha(w, p1, p2, false));
    CHECK(mim_alpha(w, p2, p1, true));
    CHECK(!mim_alpha(w, p1, p3, false)); /* codomain T vs Nat */
    CHECK(!mim_alpha(w, p1, p3, true));  /* a bound T is not a free variable */
    CHECK(!mim_world_has_error(w));
    mim_world_free(w);
}

static void test_alpha_renaming_lam(void) {
    MimWorld *w = mim_world_new();
    MimDef *f = poly_id(w), *g = poly_id(w);
    CHECK(f && g && f != g);
    CHECK(mim_alpha(w, f, g, false));
    CHECK(mim_alpha(w, g, f, false));
    CHECK(!mim_world_has_error(w));
    mim_world_free(w);
}

/* λx.x vs λz.x: identical-looking bodies, but one variable is bound, the
 * other free. */
static void test_alpha_bound_vs_free(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *outer = mut_fun(w, nat, nat);
    MimDef *x_free = mim_var(w, outer);
    MimDef *lx = mut_fun(w, nat, nat);
    mim_lam_set(w, lx, mim_lit_bool(w, true), mim_var(w, lx));
    MimDef *lz = mut_fun(w, nat, nat);
    mim_lam_set(w, lz, mim_lit_bool(w, true), x_free);
    CHECK(!mim_alpha(w, lx, lz, false));
    CHECK(!mim_alpha(w, lx, lz, true));
    mim_world_free(w);
}

static void test_alpha_free_vars_modes(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *f = mut_fun(w, nat, nat), *g = mut_fun(w, nat, nat);
    MimDef *x = mim_var(w, f), *y = mim_var(w, g);
    CHECK(mim_alpha(w, x, x, false));
    CHECK(!mim_alpha(w, x, y, false)); /* distinct free variables: strict says no */
    CHECK(mim_alpha(w, x, y, true));   /* ... inference mode is optimistic */
    MimDef *tx = mim_tuple(w, (MimDef *[]){x, mim_lit_nat(w, 1)}, 2);
    MimDef *ty = mim_tuple(w, (MimDef *[]){y, mim_lit_nat(w, 1)}, 2);
    CHECK(!mim_alpha(w, tx, ty, false));
    CHECK(mim_alpha(w, tx, ty, true));
    mim_world_free(w);
}

static void test_alpha_holes_modes(void) {
    MimWorld *w = mim_world_new();
    MimDef *h = mim_hole(w, mim_star(w));
    CHECK(mim_is_open_hole(h));
    CHECK(!mim_alpha(w, h, mim_nat(w), false)); /* strict: a hole is unequal */
    CHECK(mim_is_open_hole(h));                  /* ... and stays open */
    CHECK(mim_alpha(w, h, mim_nat(w), true));
    CHECK(mim_resolve(w, h) == mim_nat(w));
    CHECK(mim_alpha(w, h, mim_nat(w), false)); /* seen through resolution now */
    CHECK(!mim_alpha(w, h, mim_type_bool(w), true));
    mim_world_free(w);
}

static void test_hole_union(void) {
    MimWorld *w = mim_world_new();
    MimDef *h1 = mim_hole(w, mim_star(w)), *h2 = mim_hole(w, mim_star(w));
    MimDef *h3 = mim_hole(w, mim_star(w));
    CHECK(mim_alpha(w, h1, h2, true));
    CHECK(mim_is_open_hole(mim_resolve(w, h1)));
    CHECK(mim_resolve(w, h1) == mim_resolve(w, h2));
    CHECK(mim_alpha(w, h3, h1, true)); /* joins the heavier class */
    CHECK(mim_resolve(w, h3) == mim_resolve(w, h2));
    CHECK(mim_alpha(w, h2, mim_nat(w), true));
    CHECK(mim_resolve(w, h1) == mim_nat(w));
    CHECK(mim_resolve(w, h3) == mim_nat(w));
    mim_world_free(w);
}

static void test_hole_occurs_check(void) {
    MimWorld *w = mim_world_new();
    MimDef *h = mim_hole(w, mim_star(w));
    MimDef *s = mim_sigma(w, (MimDef *[]){mim_nat(w), h}, 2);
    CHECK(s != NULL);
    CHECK(!mim_alpha(w, h, s, true)); /* ?h = [Nat, ?h] has no finite solution */
    CHECK(mim_is_open_hole(h));
    mim_world_free(w);
}

/* A tuple containing a hole is seen through resolution as rebuilt (and
 * renormalized) once the hole is solved (§7.1, §7.2). */
static void test_hole_elimination(void) {
    MimWorld *w = mim_world_new();
    MimDef *h = mim_hole(w, mim_nat(w));
    MimDef *two = mim_lit_nat(w, 2);
    MimDef *t = mim_tuple(w, (MimDef *[]){h, two}, 2);
    CHECK(mim_is(t, MIM_TUPLE));
    CHECK(mim_resolve(w, t) == t); /* open hole: nothing to rebuild */
    CHECK(mim_alpha(w, h, two, true));
    MimDef *r = mim_resolve(w, t);
    CHECK(r == mim_pack(w, two, two)); /* (2, 2) = ‹2; 2› */
    CHECK(mim_eliminate_holes(w, t) == r);
    MimDef *c = mim_tuple(w, (MimDef *[]){two, mim_lit_nat(w, 3)}, 2);
    CHECK(mim_eliminate_holes(w, c) == c); /* nothing to do */
    mim_world_free(w);
}

/* A projection ?#k of an open hole of sigma/array type is solved on its own
 * in inference mode: the hole becomes a tuple of holes (implicit groups
 * `{A B: *}`, semantics.md §4.13). */
static void test_hole_projections(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w), *bool_ = mim_type_bool(w);
    MimDef *h = mim_hole(w, mim_arr(w, mim_lit_nat(w, 2), mim_star(w)));
    MimDef *p0 = mim_extract_lit(w, h, 2, 0), *p1 = mim_extract_lit(w, h, 2, 1);
    CHECK(mim_is(p0, MIM_EXTRACT) && mim_is(p1, MIM_EXTRACT));
    CHECK(!mim_alpha(w, p0, nat, false)); /* strict: nothing is solved */
    CHECK(mim_is_open_hole(h));
    CHECK(mim_alpha(w, p0, nat, true));
    CHECK(mim_is(mim_resolve(w, h), MIM_TUPLE));
    CHECK(mim_resolve(w, mim_eliminate_holes(w, p0)) == nat);
    CHECK(mim_is_open_hole(mim_resolve(w, mim_eliminate_holes(w, p1))));
    /* the stale projection ?#1 is the second hole: no cycle with it */
    CHECK(mim_alpha(w, mim_eliminate_holes(w, p1), p1, true));
    CHECK(mim_alpha(w, p1, bool_, true)); /* the stale projection too */
    MimDef *both = mim_tuple(w, (MimDef *[]){nat, bool_}, 2);
    CHECK(mim_eliminate_holes(w, h) == both);
    CHECK(!mim_alpha(w, p1, nat, true));

    /* ⊤ is a wildcard and an open hole takes the projection whole: no split */
    MimDef *g = mim_hole(w, mim_arr(w, mim_lit_nat(w, 2), mim_star(w)));
    CHECK(mim_alpha(w, mim_extract_lit(w, g, 2, 0), mim_top(w, mim_star(w)), true));
    MimDef *o = mim_hole(w, mim_star(w));
    MimDef *g1 = mim_extract_lit(w, g, 2, 1);
    CHECK(mim_alpha(w, g1, o, true));
    CHECK(mim_is_open_hole(g) && mim_resolve(w, o) == g1);

    /* dependent [n: Nat, «n; Nat»]: the second hole's type follows the first */
    MimDef *S = mim_mut_sigma(w, mim_star(w), 2);
    mim_mut_set(w, S, 0, nat);
    MimDef *n = mim_extract_lit(w, mim_var(w, S), 2, 0);
    mim_mut_set(w, S, 1, mim_arr(w, n, nat));
    MimDef *d = mim_hole(w, S);
    CHECK(mim_alpha(w, mim_extract_lit(w, d, 2, 0), mim_lit_nat(w, 3), true));
    MimDef *e1 = mim_resolve(w, mim_eliminate_holes(w, mim_extract_lit(w, d, 2, 1)));
    CHECK(mim_is_open_hole(e1));
    CHECK(mim_eliminate_holes(w, mim_type_of(w, e1)) == mim_arr(w, mim_lit_nat(w, 3), nat));
    mim_world_free(w);
}

/* The general rewriter copies a function into another World (§10.2). */
static void test_rewrite_other_world(void) {
    MimWorld *a = mim_world_new(), *b = mim_world_new();
    MimDef *nat = mim_nat(a), *pair = mim_arr(a, mim_lit_nat(a, 2), nat);
    MimDef *f = mut_fun(a, nat, pair);
    mim_def_set_name(f, mim_world_sym(a, "f"));
    MimDef *x = mim_var(a, f);
    mim_lam_set(a, f, mim_lit_bool(a, false), mim_tuple(a, (MimDef *[]){x, mim_lit_nat(a, 1)}, 2));

    MimRewriter rw;
    mim_rewriter_init(&rw, a, b, NULL, NULL);
    MimDef *g = mim_rewrite(&rw, f);
    CHECK(mim_rewrite(&rw, f) == g); /* memoized */
    mim_rewriter_fini(&rw);

    CHECK(g && g != f && mim_is(g, MIM_LAM) && g->is_mut);
    CHECK(g->name == mim_world_sym(b, "f"));
    MimDef *nb = mim_nat(b);
    CHECK(g->type == mim_pi(b, nb, mim_arr(b, mim_lit_nat(b, 2), nb), false));
    CHECK(mim_lam_filter(g) == mim_lit_bool(b, false));
    MimDef *body = mim_lam_body(g);
    CHECK(mim_is(body, MIM_TUPLE) && body->ops[0] == mim_var(b, g));
    CHECK(body->ops[1] == mim_lit_nat(b, 1));
    CHECK(mim_is_closed(b, g));
    CHECK(!mim_world_has_error(b));
    mim_world_free(a);
    mim_world_free(b);
}

/* A copy into an inherited World outlives its source: names and location
 * file names are interned in the new World (the driver frees the front end's
 * World right after the first cleanup). */
static void test_rewrite_outlives_source(void) {
    MimWorld *a = mim_world_new();
    MimLoc loc = {mim_world_sym(a, "src/t.mim"), {3, 1}, {3, 9}};
    mim_world_set_loc(a, loc);
    MimDef *nat = mim_nat(a);
    MimDef *f = mut_fun(a, nat, nat);
    mim_def_set_name(f, mim_world_sym(a, "f"));
    mim_lam_set(a, f, mim_lit_bool(a, false), mim_var(a, f));
    MimWorld *b = mim_world_inherit(a);
    mim_world_set_loc(b, (MimLoc){0});
    MimRewriter rw;
    mim_rewriter_init(&rw, a, b, NULL, NULL);
    MimDef *g = mim_rewrite(&rw, f);
    mim_rewriter_fini(&rw);
    MimWorld *c = mim_world_inherit(a);
    mim_world_free(a);
    CHECK(g && g->name == mim_world_sym(b, "f"));
    CHECK(g && g->loc.file == mim_world_sym(b, "src/t.mim") && g->loc.begin.row == 3);
    CHECK(mim_world_loc(c).file == mim_world_sym(c, "src/t.mim"));
    mim_world_free(b);
    mim_world_free(c);
}

/* `lam b (i: Bool) = (0, tt)#i` as the front end builds it: the Pi's hole
 * codomain is solved with the body's type, which mentions the Lam's own
 * variable, so the Lam's type refers back to the Lam. Rewriting must stub the
 * Lam while its type is still being rewritten. */
static void test_rewrite_type_mentions_own_var(void) {
    MimWorld *a = mim_world_new(), *b = mim_world_new();
    MimDef *nat = mim_nat(a), *bool_ = mim_type_bool(a);
    MimDef *pi = mim_mut_pi(a, mim_type(a, mim_hole(a, mim_univ(a))), false);
    mim_mut_set(a, pi, 0, bool_);
    mim_mut_set(a, pi, 1, mim_hole(a, mim_star(a)));
    MimDef *lam = mim_mut_lam(a, pi);
    MimDef *i = mim_var(a, lam);
    MimDef *body = mim_extract(a, mim_tuple(a, (MimDef *[]){mim_lit_nat(a, 0), mim_lit_bool(a, true)}, 2), i);
    CHECK(mim_lam_set(a, lam, mim_lit_bool(a, true), body) == lam);
    MimDef *cod = mim_resolve(a, mim_pi_codom(pi));
    CHECK(cod == mim_extract(a, mim_tuple(a, (MimDef *[]){nat, bool_}, 2), i)); /* hole solved */

    MimRewriter rw;
    mim_rewriter_init(&rw, a, b, NULL, NULL);
    MimDef *lam2 = mim_rewrite(&rw, lam);
    mim_rewriter_fini(&rw);
    CHECK(lam2 && lam2->is_mut && mim_is(lam2, MIM_LAM));
    if (lam2) {
        MimDef *i2 = mim_var(b, lam2), *pair = mim_tuple(b, (MimDef *[]){mim_nat(b), mim_type_bool(b)}, 2);
        MimDef *pi2 = mim_resolve(b, lam2->type);
        CHECK(mim_is(pi2, MIM_PI) && mim_resolve(b, mim_pi_codom(pi2)) == mim_extract(b, pair, i2));
        MimDef *t = mim_tuple(b, (MimDef *[]){mim_lit_nat(b, 0), mim_lit_bool(b, true)}, 2);
        CHECK(mim_lam_body(lam2) == mim_extract(b, t, i2));
    }
    CHECK(!mim_world_has_error(b));
    mim_world_free(a);
    mim_world_free(b);
}

/* A pass-like hook: replace the literal 1 by 2, everything else default. */
static MimDef *one_to_two(MimRewriter *rw, MimDef *old) {
    if (old == mim_lit_nat(rw->src, 1)) return mim_lit_nat(rw->dst, 2);
    return mim_rewrite_default(rw, old);
}

static void test_rewrite_hook(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w), *pair = mim_arr(w, mim_lit_nat(w, 2), nat);
    MimDef *f = mut_fun(w, nat, pair);
    MimDef *x = mim_var(w, f);
    mim_lam_set(w, f, mim_lit_bool(w, false), mim_tuple(w, (MimDef *[]){x, mim_lit_nat(w, 1)}, 2));
    MimRewriter rw;
    mim_rewriter_init(&rw, w, w, one_to_two, NULL);
    MimDef *g = mim_rewrite(&rw, f);
    mim_rewriter_fini(&rw);
    CHECK(g && g != f && g->is_mut);
    MimDef *body = mim_lam_body(g);
    CHECK(body == mim_tuple(w, (MimDef *[]){mim_var(w, g), mim_lit_nat(w, 2)}, 2));
    CHECK(mim_lam_body(f) == mim_tuple(w, (MimDef *[]){x, mim_lit_nat(w, 1)}, 2)); /* untouched */
    mim_world_free(w);
}

static void test_top_wildcard(void) {
    MimWorld *w = mim_world_new();
    MimDef *top = mim_top(w, mim_star(w));
    CHECK(mim_alpha(w, top, mim_nat(w), true));
    CHECK(!mim_alpha(w, top, mim_nat(w), false));
    mim_world_free(w);
}

static void test_umax_hole(void) {
    MimWorld *w = mim_world_new();
    MimDef *h = mim_hole(w, mim_univ(w));
    MimDef *m = mim_umax(w, (MimDef *[]){h, mim_lit_univ(w, 0)}, 2);
    CHECK(mim_is(m, MIM_UMAX));
    CHECK(mim_alpha(w, mim_lit_univ(w, 1), m, true));
    CHECK(mim_resolve(w, h) == mim_lit_univ(w, 1));
    mim_world_free(w);
}

static void test_sigma_vs_array(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *arr = mim_arr(w, mim_lit_nat(w, 2), nat);
    MimDef *ms = mim_mut_sigma(w, mim_star(w), 2);
    mim_mut_set(w, ms, 0, nat);
    mim_mut_set(w, ms, 1, nat);
    CHECK(arr && ms && mim_is(arr, MIM_ARR));
    CHECK(mim_alpha(w, ms, arr, false));
    CHECK(mim_alpha(w, arr, ms, false));
    MimDef *ms2 = mim_mut_sigma(w, mim_star(w), 2);
    mim_mut_set(w, ms2, 0, nat);
    mim_mut_set(w, ms2, 1, mim_type_bool(w));
    CHECK(!mim_alpha(w, ms2, arr, true));
    mim_world_free(w);
}

/* ---- assignability ----------------------------------------------------------- */

static void test_assignable_solves_holes(void) {
    MimWorld *w = mim_world_new();
    MimDef *ha = mim_hole(w, mim_star(w)), *hb = mim_hole(w, mim_star(w));
    MimDef *S = mim_sigma(w, (MimDef *[]){ha, hb}, 2);
    CHECK(mim_is(S, MIM_SIGMA)); /* holes are not α-equal in strict mode: no array */
    MimDef *v = mim_tuple(w, (MimDef *[]){mim_lit_nat(w, 3), mim_lit_bool(w, true)}, 2);
    CHECK(mim_assignable(w, S, v));
    CHECK(mim_resolve(w, ha) == mim_nat(w));
    CHECK(mim_resolve(w, hb) == mim_type_bool(w));
    MimDef *expect = mim_sigma(w, (MimDef *[]){mim_nat(w), mim_type_bool(w)}, 2);
    CHECK(mim_eliminate_holes(w, S) == expect);
    CHECK(!mim_assignable(w, mim_nat(w), mim_lit_bool(w, false)));
    mim_world_free(w);
}

/* [T: *, [T, T] → Bool] accepts (Nat, ncmp) without ascription (§9). */
static void test_assignable_dependent_sigma(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w), *bool_ = mim_type_bool(w);
    MimDef *cmp_type = mim_pi(w, mim_sigma(w, (MimDef *[]){nat, nat}, 2), bool_, false);
    MimDef *ncmp = mim_axiom(w, cmp_type, 0x1104c60000000000ull | (7u << 8) | 1u, NULL, 0, 0);
    CHECK(ncmp != NULL);

    MimDef *S = mim_mut_sigma(w, mim_box(w), 2);
    mim_mut_set(w, S, 0, mim_star(w));
    MimDef *T = mim_extract(w, mim_var(w, S), idx_lit(w, 2, 0));
    MimDef *fn = mim_pi(w, mim_sigma(w, (MimDef *[]){T, T}, 2), bool_, false);
    CHECK(mim_mut_set(w, S, 1, fn) == S);
    CHECK(!mim_world_has_error(w));

    MimDef *good = mim_tuple(w, (MimDef *[]){nat, ncmp}, 2);
    MimDef *bad = mim_tuple(w, (MimDef *[]){bool_, ncmp}, 2);
    CHECK(good && bad);
    CHECK(mim_assignable(w, S, good));
    CHECK(!mim_assignable(w, S, bad)); /* ncmp does not compare Bools */
    mim_world_free(w);
}

/* ---- substitution -------------------------------------------------------------- */

static void test_subst_renormalizes(void) {
    MimWorld *w = mim_world_new();
    MimDef *bool_ = mim_type_bool(w), *nat = mim_nat(w);
    MimDef *f = mut_fun(w, bool_, nat);
    MimDef *b = mim_var(w, f);
    MimDef *n5 = mim_lit_nat(w, 5), *n7 = mim_lit_nat(w, 7);

    /* (5, 7)#b stays an Extract; b := tt selects 7. */
    MimDef *sel = mim_extract(w, mim_tuple(w, (MimDef *[]){n5, n7}, 2), b);
    CHECK(mim_is(sel, MIM_EXTRACT));
    CHECK(mim_subst(w, sel, f, mim_lit_bool(w, true)) == n7);
    CHECK(mim_subst(w, sel, f, mim_lit_bool(w, false)) == n5);

    /* (b, ff) with b := ff becomes (ff, ff), i.e. the pack ‹2; ff›. */
    MimDef *ff = mim_lit_bool(w, false);
    MimDef *t = mim_tuple(w, (MimDef *[]){b, ff}, 2);
    CHECK(mim_is(t, MIM_TUPLE));
    MimDef *r = mim_subst(w, t, f, ff);
    CHECK(mim_is(r, MIM_PACK));
    CHECK(r == mim_pack(w, mim_lit_nat(w, 2), ff));

    /* Unaffected nodes come back unchanged. */
    MimDef *c = mim_tuple(w, (MimDef *[]){n5, ff}, 2);
    CHECK(mim_subst(w, c, f, ff) == c);
    CHECK(!mim_world_has_error(w));
    mim_world_free(w);
}

/* Only the selected branch is rewritten (§10.1): the untaken branch calls a
 * mutable k1 that would have its free variables computed if it were
 * visited. */
static void test_subst_branch_short_circuit(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w), *bool_ = mim_type_bool(w);
    MimDef *f = mut_fun(w, bool_, nat);
    MimDef *c = mim_var(w, f);
    MimDef *k1 = mut_fun(w, bool_, nat), *k2 = mut_fun(w, bool_, nat);
    mim_lam_set(w, k1, mim_lit_bool(w, false), mim_lit_nat(w, 0));
    mim_lam_set(w, k2, mim_lit_bool(w, false), mim_lit_nat(w, 1)); /* not α-equal to k1 */
    MimDef *other = mim_app(w, k1, c), *taken = mim_app(w, k2, c);
    MimDef *sel = mim_extract(w, mim_tuple(w, (MimDef *[]){other, taken}, 2), c);
    CHECK(mim_is(sel, MIM_EXTRACT));
    CHECK(mim_mut_ext(k1)->fv == NULL && mim_mut_ext(k2)->fv == NULL);
    MimDef *tt = mim_lit_bool(w, true);
    MimDef *r = mim_subst(w, sel, f, tt);
    CHECK(r == mim_app(w, k2, tt));
    CHECK(mim_mut_ext(k1)->fv == NULL); /* never looked at */
    CHECK(mim_mut_ext(k2)->fv != NULL);
    CHECK(!mim_world_has_error(w));
    mim_world_free(w);
}

static void test_beta_and_filter(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *pair = mim_arr(w, mim_lit_nat(w, 2), nat);
    MimDef *f = mut_fun(w, nat, pair);
    MimDef *x = mim_var(w, f);
    MimDef *body = mim_tuple(w, (MimDef *[]){x, mim_lit_nat(w, 3)}, 2);
    CHECK(mim_lam_set(w, f, mim_lit_bool(w, true), body) == f);
    MimDef *r = mim_app(w, f, mim_lit_nat(w, 3));
    CHECK(r == mim_pack(w, mim_lit_nat(w, 2), mim_lit_nat(w, 3))); /* (3, 3) renormalized */

    MimDef *g = mut_fun(w, nat, pair);
    MimDef *y = mim_var(w, g);
    CHECK(mim_lam_set(w, g, mim_lit_bool(w, false),
                      mim_tuple(w, (MimDef *[]){y, mim_lit_nat(w, 3)}, 2)) == g);
    MimDef *a = mim_app(w, g, mim_lit_nat(w, 3));
    CHECK(mim_is(a, MIM_APP)); /* ff filter: no partial evaluation */
    CHECK(!mim_world_has_error(w));
    mim_world_free(w);
}

/* f = λ x @tt → f 0: every application unfolds again. The unfolding is
 * reported as an error when nested too deeply (instead of a stack overflow).
 * Runs on a big stack like the CLI does. */
static void *diverge(void *res) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *f = mut_fun(w, nat, nat);
    mim_var(w, f);
    MimDef *call = mim_app(w, f, mim_lit_nat(w, 0)); /* body unset: no reduction yet */
    bool ok = mim_is(call, MIM_APP) && mim_lam_set(w, f, mim_lit_bool(w, true), call) == f;
    ok = ok && !mim_world_has_error(w);
    ok = ok && mim_app(w, f, mim_lit_nat(w, 5)) == NULL && mim_world_has_error(w);
    *(bool *)res = ok;
    mim_world_free(w);
    return NULL;
}

static void test_beta_divergence_bounded(void) {
    bool ok = false;
    pthread_attr_t attr;
    pthread_t th;
    CHECK(pthread_attr_init(&attr) == 0);
    CHECK(pthread_attr_setstacksize(&attr, (size_t)1 << 30) == 0);
    if (pthread_create(&th, &attr, diverge, &ok) == 0) pthread_join(th, NULL);
    pthread_attr_destroy(&attr);
    CHECK(ok);
}

static void test_reduce_cache(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *pair = mim_arr(w, mim_lit_nat(w, 2), nat);
    MimDef *f = mut_fun(w, nat, pair);
    MimDef *x = mim_var(w, f);
    mim_lam_set(w, f, mim_lit_bool(w, true), mim_tuple(w, (MimDef *[]){x, x}, 2));
    MimDef *arg = mim_lit_nat(w, 9), *out1[2], *out2[2];
    CHECK(mim_reduce(w, f, arg, out1));
    CHECK(out1[0] == mim_lit_bool(w, true));
    CHECK(out1[1] == mim_pack(w, mim_lit_nat(w, 2), arg));
    uint32_t before = mim_world_gid_counter(w);
    CHECK(mim_reduce(w, f, arg, out2));
    CHECK(mim_world_gid_counter(w) == before); /* served from the cache */
    CHECK(out1[0] == out2[0] && out1[1] == out2[1]);
    /* Changing the function drops its cached reductions. */
    mim_mut_unset(w, f);
    mim_lam_set(w, f, mim_lit_bool(w, true), mim_tuple(w, (MimDef *[]){x, mim_lit_nat(w, 0)}, 2));
    CHECK(mim_reduce(w, f, arg, out2));
    CHECK(out2[1] == mim_tuple(w, (MimDef *[]){arg, mim_lit_nat(w, 0)}, 2));
    mim_world_free(w);
}

/* ---- free variables -------------------------------------------------------------- */

static void test_free_vars(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w), *pair = mim_arr(w, mim_lit_nat(w, 2), nat);
    MimDef *outer = mut_fun(w, nat, pair), *other = mut_fun(w, nat, nat);
    MimDef *y = mim_var(w, outer), *x = mim_var(w, other);

    MimDefVec fv = {0};
    mim_free_vars(w, mim_tuple(w, (MimDef *[]){y, x}, 2), &fv);
    CHECK(fv.len == 2 && fv.data[0] == y && fv.data[1] == x); /* sorted by gid */
    fv.len = 0;
    mim_free_vars(w, mim_lit_nat(w, 4), &fv);
    CHECK(fv.len == 0);
    /* In the skin itself (no mutable there): found, or not there at all. */
    MimDef *yx = mim_tuple(w, (MimDef *[]){y, x}, 2), *y4 = mim_tuple(w, (MimDef *[]){y, mim_lit_nat(w, 4)}, 2);
    CHECK(mim_has_free_var(w, yx, y) && mim_has_free_var(w, yx, x));
    CHECK(mim_has_free_var(w, y4, y) && !mim_has_free_var(w, y4, x));

    /* inner = λ z → (z, y), filter ff so that applications stay. */
    MimDef *inner = mut_fun(w, nat, pair);
    MimDef *z = mim_var(w, inner);
    mim_lam_set(w, inner, mim_lit_bool(w, false), mim_tuple(w, (MimDef *[]){z, y}, 2));
    size_t n;
    MimDef *const *vs = mim_mut_free_vars(w, inner, &n);
    CHECK(n == 1 && vs[0] == y); /* own variable removed, outer one free */
    CHECK(!mim_is_closed(w, inner));
    CHECK(mim_has_free_var(w, inner, y) && !mim_has_free_var(w, inner, z));

    MimDef *app = mim_app(w, inner, mim_lit_nat(w, 1));
    CHECK(mim_is(app, MIM_APP));
    CHECK(mim_has_free_var(w, app, y)); /* through the local mut `inner` */
    CHECK(!mim_has_free_var(w, app, x)); /* behind `inner`, and not free there */
    mim_lam_set(w, outer, mim_lit_bool(w, false), app);
    CHECK(mim_is_closed(w, outer));
    mim_free_vars(w, outer, &fv);
    CHECK(fv.len == 0);
    mim_vec_free(&fv);
    mim_world_free(w);
}

/* Mutually recursive functions f and g inside a binder y: g mentions y, so
 * both have y free (fixed point over the cycle); after g is changed not to
 * mention y, the cached sets are invalidated. */
static void test_free_vars_cycle(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *outer = mut_fun(w, nat, nat);
    MimDef *y = mim_var(w, outer);
    MimDef *f = mut_fun(w, nat, nat), *g = mut_fun(w, nat, nat);
    MimDef *ff = mim_lit_bool(w, false);
    mim_lam_set(w, f, ff, mim_app(w, g, mim_var(w, f)));
    mim_lam_set(w, g, ff, mim_app(w, f, y));
    /* h calls into the cycle; asking h first computes the cycle as a nested
     * component whose result must flow back to h. */
    MimDef *h = mut_fun(w, nat, nat);
    mim_lam_set(w, h, ff, mim_app(w, f, mim_var(w, h)));
    size_t n;
    MimDef *const *vs = mim_mut_free_vars(w, h, &n);
    CHECK(n == 1 && vs[0] == y);
    vs = mim_mut_free_vars(w, f, &n);
    CHECK(n == 1 && vs[0] == y);
    vs = mim_mut_free_vars(w, g, &n);
    CHECK(n == 1 && vs[0] == y);
    CHECK(mim_has_free_var(w, mim_app(w, f, mim_lit_nat(w, 0)), y));

    mim_mut_unset(w, g);
    mim_lam_set(w, g, ff, mim_app(w, f, mim_lit_nat(w, 1)));
    vs = mim_mut_free_vars(w, f, &n);
    CHECK(n == 0);
    CHECK(mim_is_closed(w, g));
    CHECK(mim_is_closed(w, h)); /* invalidated through the consumer chain */
    mim_world_free(w);
}

/* A World mutated for long: resetting a function's body many times, with
 * its free variables and those of a caller (a consumer) asked for after
 * each change, must not grow the check arena with every invalidation: the
 * dropped sets and consumer entries are reused (issue 27). */
static void test_free_vars_recycled(void) {
    enum { NV = 20, ROUNDS = 2000 };
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w), *arr = mim_arr(w, mim_lit_nat(w, NV), nat);
    MimDef *ff = mim_lit_bool(w, false);
    MimDef *ys[NV], *rev[NV];
    for (size_t i = 0; i < NV; ++i) {
        MimDef *binder = mut_fun(w, nat, nat);
        ys[i] = mim_var(w, binder);
    }
    for (size_t i = 0; i < NV; ++i) rev[i] = i + 1 < NV ? ys[i] : mim_lit_nat(w, 0);
    MimDef *all = mim_tuple(w, ys, NV), *most = mim_tuple(w, rev, NV);
    MimDef *f = mut_fun(w, nat, arr), *h = mut_fun(w, nat, arr);
    MimDef *call = mim_app(w, f, mim_var(w, h));
    mim_lam_set(w, h, ff, call);
    size_t after_warmup = 0;
    for (unsigned round = 0; round < ROUNDS; ++round) {
        if (round % 3 == 2) mim_mut_unset(w, f);
        else mim_lam_set(w, f, ff, round % 2 ? most : all);
        size_t n, expected = round % 3 == 2 ? 0 : round % 2 ? NV - 1 : NV;
        MimDef *const *vs = mim_mut_free_vars(w, f, &n);
        CHECK(n == expected && (!n || vs[0] == ys[0]));
        vs = mim_mut_free_vars(w, h, &n);
        CHECK(n == expected && (!n || vs[n - 1] == ys[n - 1]));
        CHECK(mim_has_free_var(w, call, ys[0]) == (expected != 0));
        if (round == 5) after_warmup = w->check_arena.total;
    }
    /* Without reuse the arena grew by a set of ~NV pointers per change (~200 KB). */
    CHECK(w->check_arena.total - after_warmup < 1024);
    mim_world_free(w);
}

/* Many callers of one function, each reset and asked again many times: the
 * function stays valid, so its consumer list must not gain an entry per
 * recomputation of a caller (stale entries are pruned). */
static void test_free_vars_consumers_pruned(void) {
    enum { NC = 40, ROUNDS = 500 };
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w), *ff = mim_lit_bool(w, false);
    MimDef *outer = mut_fun(w, nat, nat);
    MimDef *y = mim_var(w, outer);
    MimDef *f = mut_fun(w, nat, nat);
    mim_lam_set(w, f, ff, y);
    MimDef *callers[NC], *calls[NC];
    for (size_t i = 0; i < NC; ++i) {
        callers[i] = mut_fun(w, nat, nat);
        calls[i] = mim_app(w, f, mim_var(w, callers[i]));
    }
    size_t after_warmup = 0;
    for (unsigned round = 0; round < ROUNDS; ++round) {
        for (size_t i = 0; i < NC; ++i) {
            mim_lam_set(w, callers[i], ff, round % 2 ? calls[i] : mim_lit_nat(w, 1));
            size_t n;
            MimDef *const *vs = mim_mut_free_vars(w, callers[i], &n);
            CHECK(round % 2 ? n == 1 && vs[0] == y : n == 0);
        }
        if (round == 5) after_warmup = w->check_arena.total;
    }
    /* f is still a consumer source: changing it reaches every caller. */
    mim_lam_set(w, f, ff, mim_lit_nat(w, 2));
    for (size_t i = 0; i < NC; ++i) CHECK(mim_is_closed(w, callers[i]));
    CHECK(w->check_arena.total - after_warmup < 4096);
    mim_world_free(w);
}

int main(void) {
    RUN(test_alpha_identity_fast);
    RUN(test_alpha_renaming_pi);
    RUN(test_alpha_renaming_lam);
    RUN(test_alpha_bound_vs_free);
    RUN(test_alpha_free_vars_modes);
    RUN(test_alpha_holes_modes);
    RUN(test_hole_union);
    RUN(test_hole_occurs_check);
    RUN(test_hole_elimination);
    RUN(test_hole_projections);
    RUN(test_rewrite_other_world);
    RUN(test_rewrite_outlives_source);
    RUN(test_rewrite_hook);
    RUN(test_rewrite_type_mentions_own_var);
    RUN(test_top_wildcard);
    RUN(test_umax_hole);
    RUN(test_sigma_vs_array);
    RUN(test_assignable_solves_holes);
    RUN(test_assignable_dependent_sigma);
    RUN(test_subst_renormalizes);
    RUN(test_subst_branch_short_circuit);
    RUN(test_beta_and_filter);
    RUN(test_beta_divergence_bounded);
    RUN(test_reduce_cache);
    RUN(test_free_vars);
    RUN(test_free_vars_cycle);
    RUN(test_free_vars_recycled);
    RUN(test_free_vars_consumers_pruned);
    return unit_summary();
}
