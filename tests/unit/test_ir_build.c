/* Unit tests of IR construction through the public World API
 * (semantics.md §1–5, §11, §12): hash-consing, gids, normalization rules,
 * type errors, curry/trip counters, β-reduction, independence of Worlds.
 * One internal header is used, for the table of untagged pointers. */
#include "ir/world_impl.h" /* mim_world_untag_table */
#include "mim/world.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

/* ---- helpers ---------------------------------------------------------------- */

static MimDef *nat(MimWorld *w, uint64_t v) { return mim_lit_nat(w, v); }

static MimDef *tup2(MimWorld *w, MimDef *a, MimDef *b) {
    MimDef *ops[2] = {a, b};
    return mim_tuple(w, ops, 2);
}

static MimDef *sig2(MimWorld *w, MimDef *a, MimDef *b) {
    MimDef *ops[2] = {a, b};
    return mim_sigma(w, ops, 2);
}

static size_t num_msgs(MimWorld *w) { return mim_world_diag(w)->len; }

static const MimDiagMsg *msg(MimWorld *w, size_t i) { return &mim_world_diag(w)->msgs[i]; }

/* The i-th message is an error whose text contains s. */
static bool error_has(MimWorld *w, size_t i, const char *s) {
    return i < num_msgs(w) && msg(w, i)->sev == MIM_ERROR && strstr(msg(w, i)->text, s);
}

/* A variable of type T: the parameter of a fresh function T → Nat. */
static MimDef *var_of(MimWorld *w, MimDef *T) {
    MimDef *lam = mim_mut_lam(w, mim_pi(w, T, mim_nat(w), false));
    return mim_var(w, lam);
}

/* ---- gids and hash-consing -------------------------------------------------- */

static void test_gids(void) {
    MimWorld *w = mim_world_new();
    CHECK(mim_def_gid(mim_univ(w)) == 1);
    CHECK(mim_def_type(mim_univ(w)) == NULL);
    uint32_t before = mim_world_gid_counter(w);
    MimDef *a = nat(w, 12345);
    CHECK(mim_def_gid(a) == before + 1);
    CHECK(mim_world_gid_counter(w) == before + 1);
    /* a hash-cons hit returns the same node but still consumes a gid */
    CHECK(nat(w, 12345) == a);
    CHECK(mim_world_gid_counter(w) == before + 2);
    MimDef *b = nat(w, 54321);
    CHECK(mim_def_gid(b) == before + 3);
    /* frozen: lookups only, counter untouched */
    size_t nodes = mim_world_num_nodes(w);
    CHECK(mim_world_freeze(w, true) == false);
    CHECK(nat(w, 12345) == a);
    CHECK(nat(w, 999999) == NULL);
    CHECK(mim_world_gid_counter(w) == before + 3);
    CHECK(mim_world_num_nodes(w) == nodes);
    CHECK(mim_world_freeze(w, false) == true);
    CHECK(nat(w, 999999) != NULL);
    mim_world_free(w);
}

static void test_hash_consing(void) {
    MimWorld *w = mim_world_new();
    MimDef *N = mim_nat(w);
    CHECK(mim_pi(w, N, N, false) == mim_pi(w, N, N, false));
    CHECK(mim_pi(w, N, N, false) != mim_pi(w, N, N, true)); /* flags are part of identity */
    CHECK(mim_type_idx_n(w, 7) == mim_type_idx_n(w, 7));
    CHECK(mim_lit_idx(w, 7, 3) == mim_lit_idx(w, 7, 3));
    CHECK(mim_lit_idx(w, 7, 3) != mim_lit_idx(w, 8, 3));
    CHECK(tup2(w, nat(w, 1), mim_lit_bool(w, true)) == tup2(w, nat(w, 1), mim_lit_bool(w, true)));
    /* mutables are never shared */
    CHECK(mim_mut_pi(w, mim_star(w), false) != mim_mut_pi(w, mim_star(w), false));
    mim_world_free(w);
}

static void test_builtins(void) {
    MimWorld *w = mim_world_new();
    CHECK(mim_def_node(mim_star(w)) == MIM_TYPE);
    CHECK(mim_type_lvl(w, 0) == mim_star(w));
    CHECK(mim_type_lvl(w, 1) == mim_box(w));
    CHECK(mim_def_type(mim_star(w)) == mim_box(w));
    CHECK(mim_def_type(mim_box(w)) == mim_type_lvl(w, 2));
    CHECK(mim_def_type(mim_nat(w)) == mim_star(w));
    CHECK(mim_def_type(mim_idx(w)) == mim_pi(w, mim_nat(w), mim_star(w), false));
    CHECK(mim_type_bool(w) == mim_type_idx_n(w, 2));
    CHECK(mim_type_int(w, 8) == mim_type_idx_n(w, 256));
    CHECK(mim_type_int(w, 64) == mim_type_idx_n(w, 0));
    CHECK(mim_lit_bool(w, false) == mim_lit_idx(w, 2, 0));
    CHECK(mim_lit_bool(w, true) == mim_lit_idx(w, 2, 1));
    CHECK(mim_def_type(mim_unit_type(w)) == mim_star(w));
    CHECK(mim_def_type(mim_unit(w)) == mim_unit_type(w));
    CHECK(mim_lit_idx_mod(w, 5, 17) == mim_lit_idx(w, 5, 2));
    CHECK(mim_lit_int(w, 8, 255) == mim_lit_idx(w, 256, 255));
    uint64_t v = 0;
    CHECK(mim_def_lit(mim_lit_idx(w, 0, UINT64_MAX), &v) && v == UINT64_MAX); /* Idx 0: any value */
    CHECK(!mim_world_has_error(w));
    mim_world_free(w);
}

/* ---- universes (§3) --------------------------------------------------------- */

static void test_levels(void) {
    MimWorld *w = mim_world_new();
    MimDef *l3 = mim_lit_univ(w, 3);
    CHECK(mim_def_type(l3) == mim_univ(w));
    CHECK(mim_uinc(w, l3, 5) == mim_lit_univ(w, 4)); /* offset ignored for literals */
    MimDef *ls[3] = {mim_lit_univ(w, 1), l3, mim_lit_univ(w, 2)};
    CHECK(mim_umax(w, ls, 3) == l3);

    /* non-literal levels: UMax over gid-sorted, duplicate-free, flattened levels */
    MimDef *h = mim_hole(w, mim_univ(w));
    MimDef *inc = mim_uinc(w, h, 1);
    CHECK(mim_def_node(inc) == MIM_UINC && mim_def_flags(inc) == 1 && mim_def_op(inc, 0) == h);
    MimDef *m1[3] = {l3, h, h};
    MimDef *um = mim_umax(w, m1, 3);
    CHECK(mim_def_node(um) == MIM_UMAX && mim_def_num_ops(um) == 2);
    CHECK(mim_def_op(um, 0) == l3 && mim_def_op(um, 1) == h); /* l3 is older than h */
    MimDef *m2[2] = {h, um};
    CHECK(mim_umax(w, m2, 2) == um);
    MimDef *T = mim_type(w, h);
    CHECK(mim_def_node(mim_def_type(T)) == MIM_TYPE);
    CHECK(mim_def_op(mim_def_type(T), 0) == mim_uinc(w, h, 1));
    CHECK(!mim_world_has_error(w));

    /* errors */
    CHECK(mim_type(w, nat(w, 0)) == NULL);
    CHECK(error_has(w, 0, "to `Type` must be of type `Univ` but is of type"));
    CHECK(mim_uinc(w, nat(w, 0), 1) == NULL);
    CHECK(error_has(w, 1, "of a universe increment must be of type `Univ`"));
    mim_world_free(w);
}

static void test_pi_sorts(void) {
    MimWorld *w = mim_world_new();
    MimDef *N = mim_nat(w), *S = mim_star(w);
    CHECK(mim_def_type(mim_pi(w, N, N, false)) == S);      /* Nat → Nat : * */
    CHECK(mim_def_type(mim_pi(w, S, S, false)) == mim_box(w)); /* * → * : □ */
    CHECK(mim_def_type(mim_pi(w, N, S, false)) == mim_box(w));
    CHECK(mim_def_type(sig2(w, N, S)) == mim_box(w));      /* [Nat, *] : □ */
    CHECK(mim_def_type(sig2(w, N, mim_type_bool(w))) == S);
    MimDef *cn = mim_cn(w, N);
    CHECK(mim_pi_is_cn(cn) && mim_def_node(mim_pi_codom(cn)) == MIM_BOT);
    CHECK(mim_fn(w, N, N) == mim_cn(w, sig2(w, N, mim_cn(w, N))));
    CHECK(mim_pi_is_implicit(mim_pi(w, N, N, true)) && !mim_pi_is_implicit(mim_pi(w, N, N, false)));

    /* mutable Pi: declared sort checked against the inferred one */
    MimDef *p = mim_mut_pi(w, mim_box(w), false);
    CHECK(mim_mut_set(w, p, 0, N) == p);
    CHECK(!mim_world_has_error(w));
    CHECK(mim_mut_set(w, p, 1, N) == NULL);
    CHECK(error_has(w, 0, "declared sort '"));
    CHECK(error_has(w, 0, "' of function type does not match inferred one '"));
    mim_world_free(w);
}

/* ---- literals (§4.1) -------------------------------------------------------- */

static void test_literals(void) {
    MimWorld *w = mim_world_new();
    MimLoc loc = {"f.mim", {3, 4}, {3, 9}};
    mim_world_set_loc(w, loc);
    CHECK(mim_lit_idx(w, 5, 4) != NULL);
    CHECK(mim_lit_idx(w, 5, 5) == NULL);
    CHECK(error_has(w, 0, "' does not fit within arity '5'"));
    CHECK(strncmp(msg(w, 0)->text, "index '", 7) == 0);
    CHECK(msg(w, 0)->loc.begin.row == 3 && msg(w, 0)->loc.end.col == 9);

    MimDef *n = var_of(w, mim_nat(w));
    MimDef *idx_n = mim_type_idx(w, n);
    CHECK(mim_lit(w, idx_n, 0) != NULL);
    CHECK(mim_lit(w, idx_n, 1) == NULL);
    CHECK(error_has(w, 1, "cannot create literal '1' of 'Idx "));
    CHECK(error_has(w, 1, "' as size is unknown"));
    /* no check for other types */
    CHECK(mim_lit(w, mim_star(w), 77) != NULL);
    CHECK(num_msgs(w) == 2);
    mim_world_free(w);
}

/* ---- sigma and tuple (§4.6, §4.7, §4.9) ------------------------------------ */

static void test_sigma(void) {
    MimWorld *w = mim_world_new();
    MimDef *N = mim_nat(w), *B = mim_type_bool(w);
    CHECK(mim_sigma(w, NULL, 0) == mim_unit_type(w));
    CHECK(mim_sigma(w, &N, 1) == N);                          /* N-Sig₁ */
    MimDef *nn = sig2(w, N, N);                               /* N-ArrSig */
    CHECK(mim_def_node(nn) == MIM_ARR);
    CHECK(nn == mim_arr(w, nat(w, 2), N));
    MimDef *nb = sig2(w, N, B);
    CHECK(mim_def_node(nb) == MIM_SIGMA && mim_def_num_ops(nb) == 2);
    uint64_t a = 0;
    CHECK(mim_literal_arity(w, nb, &a) && a == 2);
    CHECK(mim_literal_arity(w, N, &a) && a == 1);
    CHECK(mim_arity(w, nn) == nat(w, 2));
    CHECK(mim_arity(w, tup2(w, nat(w, 1), mim_lit_bool(w, true))) == nat(w, 2));
    mim_world_free(w);
}

static void test_tuple(void) {
    MimWorld *w = mim_world_new();
    MimDef *N = mim_nat(w), *B = mim_type_bool(w), *tt = mim_lit_bool(w, true);
    MimDef *x = nat(w, 42);
    CHECK(mim_tuple(w, &x, 1) == x);                          /* N-Tup₁ */
    CHECK(mim_tuple(w, NULL, 0) == mim_unit(w));
    MimDef *zz = tup2(w, nat(w, 0), nat(w, 0));               /* N-PackTup */
    CHECK(mim_def_node(zz) == MIM_PACK && zz == mim_pack(w, nat(w, 2), nat(w, 0)));
    CHECK(mim_def_type(zz) == mim_arr(w, nat(w, 2), N));
    MimDef *zt = tup2(w, nat(w, 0), tt);
    CHECK(mim_def_node(zt) == MIM_TUPLE && mim_def_type(zt) == sig2(w, N, B));
    MimDef *ops[3] = {nat(w, 0), nat(w, 1), nat(w, 2)};
    MimDef *t3 = mim_tuple(w, ops, 3);
    CHECK(mim_def_node(t3) == MIM_TUPLE && mim_def_type(t3) == mim_arr(w, nat(w, 3), N));

    /* η: (p#0₂, p#1₂) → p for p : «2; Nat» */
    MimDef *NN = mim_arr(w, nat(w, 2), N);
    MimDef *p = var_of(w, NN);
    MimDef *p0 = mim_extract_lit(w, p, 2, 0), *p1 = mim_extract_lit(w, p, 2, 1);
    CHECK(mim_def_node(p0) == MIM_EXTRACT && mim_def_type(p0) == N);
    CHECK(tup2(w, p0, p1) == p);
    MimDef *swapped = tup2(w, p1, p0);
    CHECK(swapped != p && mim_def_node(swapped) == MIM_TUPLE);
    MimDef *typed[2] = {p0, p1};
    CHECK(mim_tuple_typed(w, NN, typed, 2) == p);
    CHECK(!mim_world_has_error(w));
    mim_world_free(w);
}

/* ---- arrays and packs (§4.8) ----------------------------------------------- */

static void test_arr_pack(void) {
    MimWorld *w = mim_world_new();
    MimDef *N = mim_nat(w), *x = nat(w, 7);
    CHECK(mim_arr(w, nat(w, 0), N) == mim_unit_type(w));
    CHECK(mim_pack(w, nat(w, 0), x) == mim_unit(w));
    CHECK(mim_arr(w, nat(w, 1), N) == N);
    CHECK(mim_pack(w, nat(w, 1), x) == x);
    MimDef *a3 = mim_arr(w, nat(w, 3), N);
    CHECK(mim_def_node(a3) == MIM_ARR && mim_def_type(a3) == mim_star(w));
    CHECK(mim_def_op(a3, 0) == nat(w, 3) && mim_def_op(a3, 1) == N);
    MimDef *p3 = mim_pack(w, nat(w, 3), x);
    CHECK(mim_def_node(p3) == MIM_PACK && mim_def_type(p3) == a3 && mim_def_num_ops(p3) == 1);

    /* tuple shapes: «(2, 3); T» → «2; «3; T»» */
    MimDef *s23 = tup2(w, nat(w, 2), nat(w, 3));
    CHECK(mim_arr(w, s23, N) == mim_arr(w, nat(w, 2), a3));
    CHECK(mim_pack(w, s23, x) == mim_pack(w, nat(w, 2), p3));
    /* pack shapes: «‹2; 3›; T» → «3; «3; T»» */
    MimDef *s33 = mim_pack(w, nat(w, 2), nat(w, 3));
    CHECK(mim_def_node(s33) == MIM_PACK);
    CHECK(mim_arr(w, s33, N) == mim_arr(w, nat(w, 3), a3));
    /* three dimensions */
    MimDef *ops[3] = {nat(w, 2), nat(w, 4), nat(w, 5)};
    MimDef *s245 = mim_tuple(w, ops, 3);
    CHECK(mim_arr(w, s245, N) == mim_arr(w, nat(w, 2), mim_arr(w, nat(w, 4), mim_arr(w, nat(w, 5), N))));

    /* extract shapes (arrays only): «(2, 3)#b; T» → («2; T», «3; T»)#b */
    MimDef *b = var_of(w, mim_type_bool(w));
    MimDef *sx = mim_extract(w, s23, b);
    CHECK(mim_def_node(sx) == MIM_EXTRACT && mim_def_type(sx) == N);
    MimDef *ax = mim_arr(w, sx, N);
    CHECK(mim_def_node(ax) == MIM_EXTRACT);
    CHECK(ax == mim_extract(w, tup2(w, mim_arr(w, nat(w, 2), N), a3), b));
    CHECK(!mim_world_has_error(w));

    /* shape errors */
    CHECK(mim_arr(w, mim_lit_bool(w, true), N) == NULL);
    CHECK(error_has(w, 0, "expected shape but got '"));
    CHECK(mim_pack(w, N, x) == NULL);
    CHECK(error_has(w, 1, "expected shape but got '"));
    mim_world_free(w);
}

/* ---- extract and insert (§4.10, §4.11) --------------------------------------- */

static void test_extract(void) {
    MimWorld *w = mim_world_new();
    MimDef *N = mim_nat(w), *B = mim_type_bool(w), *tt = mim_lit_bool(w, true);
    MimDef *zt = tup2(w, nat(w, 0), tt);
    CHECK(mim_extract_lit(w, zt, 2, 0) == nat(w, 0)); /* N-Tup_β */
    CHECK(mim_extract_lit(w, zt, 2, 1) == tt);
    MimDef *e = nat(w, 9);
    CHECK(mim_extract(w, e, mim_lit_idx(w, 1, 0)) == e); /* N-Ex₁ */
    MimDef *i5 = var_of(w, mim_type_idx_n(w, 5));
    CHECK(mim_extract(w, mim_pack(w, nat(w, 5), e), i5) == e); /* N-Pack_β */

    /* unknown index into an array: Ex-A */
    MimDef *b = var_of(w, B);
    MimDef *t12 = tup2(w, nat(w, 1), nat(w, 2));
    MimDef *x = mim_extract(w, t12, b);
    CHECK(mim_def_node(x) == MIM_EXTRACT && mim_def_type(x) == N);
    CHECK(mim_extract(w, t12, b) == x);
    /* unknown index into a sigma: Ex-S_i, the type is (Nat, Bool)#b */
    MimDef *y = mim_extract(w, zt, b);
    CHECK(mim_def_node(y) == MIM_EXTRACT);
    MimDef *yt = mim_def_type(y);
    CHECK(mim_def_node(yt) == MIM_EXTRACT && mim_def_op(yt, 0) == tup2(w, N, B) && mim_def_op(yt, 1) == b);
    CHECK(mim_def_type(yt) == mim_star(w));
    /* tuple of literal indices */
    MimDef *i3 = mim_lit_idx(w, 3, 2), *j3 = mim_lit_idx(w, 3, 0);
    MimDef *ops[3] = {nat(w, 10), nat(w, 11), nat(w, 12)};
    MimDef *t3 = mim_tuple(w, ops, 3);
    MimDef *sel = mim_extract(w, t3, tup2(w, i3, j3));
    CHECK(sel == tup2(w, nat(w, 12), nat(w, 10)));
    CHECK(!mim_world_has_error(w));

    /* insert then extract */
    MimDef *v = var_of(w, N);
    MimDef *ins = mim_insert(w, t12, b, v);
    CHECK(mim_def_node(ins) == MIM_INSERT && mim_def_type(ins) == mim_def_type(t12));
    CHECK(mim_extract(w, ins, b) == v);
    MimDef *p = var_of(w, sig2(w, N, B));
    MimDef *ins0 = mim_insert(w, p, mim_lit_idx(w, 2, 0), v);
    CHECK(mim_def_node(ins0) == MIM_INSERT);
    CHECK(mim_extract_lit(w, ins0, 2, 0) == v);
    CHECK(mim_extract_lit(w, ins0, 2, 1) == mim_extract_lit(w, p, 2, 1));
    CHECK(!mim_world_has_error(w));

    /* arity mismatch */
    CHECK(mim_extract_lit(w, zt, 3, 0) == NULL);
    CHECK(error_has(w, 0, "index '"));
    CHECK(error_has(w, 0, "' does not fit within arity '"));
    /* unknown index into a tuple of types of different universes: (0, Bool)#b */
    size_t before = num_msgs(w);
    MimDef *mixed = tup2(w, nat(w, 0), B);
    CHECK(mim_def_node(mixed) == MIM_TUPLE);
    CHECK(mim_extract(w, mixed, b) == NULL);
    CHECK(num_msgs(w) == before + 1 && msg(w, before)->sev == MIM_ERROR);
    mim_world_free(w);
}

static void test_insert(void) {
    MimWorld *w = mim_world_new();
    MimDef *N = mim_nat(w), *tt = mim_lit_bool(w, true);
    MimDef *zt = tup2(w, nat(w, 0), tt);
    CHECK(mim_insert(w, zt, mim_lit_idx(w, 2, 0), nat(w, 5)) == tup2(w, nat(w, 5), tt));
    /* a pack below the scalarize threshold becomes a tuple */
    MimDef *p = mim_pack(w, nat(w, 3), nat(w, 0));
    MimDef *ops[3] = {nat(w, 0), nat(w, 7), nat(w, 0)};
    CHECK(mim_insert(w, p, mim_lit_idx(w, 3, 1), nat(w, 7)) == mim_tuple(w, ops, 3));
    /* re-inserting a tuple's own elements renormalizes: (0, 7, 0) → ‹3; 0› */
    CHECK(mim_insert(w, mim_tuple(w, ops, 3), mim_lit_idx(w, 3, 1), nat(w, 0)) == p);
    /* size 1 */
    MimDef *x = var_of(w, N);
    CHECK(mim_insert(w, x, mim_lit_idx(w, 1, 0), nat(w, 3)) == nat(w, 3));
    /* insert(insert(t, i, v), i, u) → insert(t, i, u) */
    MimDef *b = var_of(w, mim_type_bool(w));
    MimDef *t12 = tup2(w, nat(w, 1), nat(w, 2));
    MimDef *i1 = mim_insert(w, t12, b, nat(w, 8));
    CHECK(mim_insert(w, i1, b, nat(w, 9)) == mim_insert(w, t12, b, nat(w, 9)));
    CHECK(!mim_world_has_error(w));
    /* value type mismatch */
    CHECK(mim_insert(w, zt, mim_lit_idx(w, 2, 1), nat(w, 5)) == NULL);
    CHECK(error_has(w, 0, "value to be inserted not assignable to element"));
    CHECK(num_msgs(w) == 3 && msg(w, 1)->sev == MIM_NOTE && msg(w, 2)->sev == MIM_NOTE);
    /* arity mismatch */
    CHECK(mim_insert(w, zt, mim_lit_idx(w, 3, 1), nat(w, 5)) == NULL);
    CHECK(error_has(w, 3, "' does not fit within arity '"));
    mim_world_free(w);
}

/* ---- bottom and top (§4.12) -------------------------------------------------- */

static void test_bot_top(void) {
    MimWorld *w = mim_world_new();
    MimDef *N = mim_nat(w), *B = mim_type_bool(w);
    MimDef *botN = mim_bot(w, N);
    CHECK(mim_def_node(botN) == MIM_BOT && mim_def_type(botN) == N);
    CHECK(mim_bot(w, N) == botN);
    CHECK(mim_def_node(mim_top(w, mim_star(w))) == MIM_TOP);
    CHECK(mim_bot(w, mim_arr(w, nat(w, 4), N)) == mim_pack(w, nat(w, 4), botN));
    MimDef *NB = sig2(w, N, B);
    MimDef *tb = mim_top(w, NB);
    CHECK(mim_def_node(tb) == MIM_TUPLE && mim_def_type(tb) == NB);
    CHECK(mim_def_op(tb, 0) == mim_top(w, N) && mim_def_op(tb, 1) == mim_top(w, B));
    CHECK(mim_bot(w, mim_unit_type(w)) == mim_unit(w));
    mim_world_free(w);
}

/* ---- application, β-reduction (§4.13) ---------------------------------------- */

static void test_beta(void) {
    MimWorld *w = mim_world_new();
    MimDef *N = mim_nat(w), *NN = mim_pi(w, N, N, false);
    /* λ x: Nat @tt: Nat = x */
    MimDef *id = mim_mut_lam(w, NN);
    MimDef *x = mim_var(w, id);
    CHECK(mim_def_node(x) == MIM_VAR && mim_def_type(x) == N && mim_var(w, id) == x);
    CHECK(mim_lam_set(w, id, mim_lit_bool(w, true), x) == id);
    CHECK(mim_lam_filter(id) == mim_lit_bool(w, true) && mim_lam_body(id) == x);
    CHECK(mim_app(w, id, nat(w, 5)) == nat(w, 5));
    /* filter ff: kept as an application */
    MimDef *k = mim_mut_lam(w, NN);
    MimDef *kx = mim_var(w, k);
    CHECK(mim_lam_set(w, k, mim_lit_bool(w, false), kx) == k);
    MimDef *ap = mim_app(w, k, nat(w, 5));
    CHECK(mim_def_node(ap) == MIM_APP && mim_app_callee(ap) == k && mim_app_arg(ap) == nat(w, 5));
    CHECK(mim_def_type(ap) == N);
    CHECK(mim_app(w, k, nat(w, 5)) == ap);
    /* tt filter without a variable */
    MimDef *c = mim_mut_lam(w, NN);
    CHECK(mim_lam_set(w, c, mim_lit_bool(w, true), nat(w, 3)) == c);
    CHECK(mim_app(w, c, nat(w, 5)) == nat(w, 3));
    /* immutable lambdas always reduce */
    MimDef *il = mim_lam(w, NN, mim_lit_bool(w, false), nat(w, 4));
    CHECK(mim_def_node(il) == MIM_LAM && !mim_def_is_mut(il));
    CHECK(mim_app(w, il, nat(w, 1)) == nat(w, 4));
    /* a function whose body is not yet set is not reduced */
    MimDef *r = mim_mut_lam(w, NN);
    MimDef *rr = mim_app(w, r, nat(w, 2));
    CHECK(mim_def_node(rr) == MIM_APP);
    CHECK(!mim_world_has_error(w));
    mim_world_free(w);
}

static void test_app_errors(void) {
    MimWorld *w = mim_world_new();
    MimDef *N = mim_nat(w);
    CHECK(mim_app(w, nat(w, 5), nat(w, 6)) == NULL);
    CHECK(num_msgs(w) == 2);
    CHECK(error_has(w, 0, "called expression not of function type"));
    CHECK(error_has(w, 1, "' <--- callee type"));
    MimDef *f = mim_mut_lam(w, mim_pi(w, N, N, false));
    CHECK(mim_app(w, f, mim_lit_bool(w, true)) == NULL);
    CHECK(num_msgs(w) == 7);
    CHECK(error_has(w, 2, "cannot apply argument to callee"));
    for (size_t i = 3; i < 7; ++i) CHECK(msg(w, i)->sev == MIM_NOTE);
    CHECK(strncmp(msg(w, 3)->text, "callee: '", 9) == 0);
    CHECK(strncmp(msg(w, 4)->text, "argument: '", 11) == 0);
    CHECK(strncmp(msg(w, 5)->text, "vvv domain type vvv\n'", 21) == 0);
    CHECK(strcmp(msg(w, 6)->text, "^^^ argument type ^^^") == 0);
    /* NULL operands propagate silently */
    CHECK(mim_app(w, f, NULL) == NULL);
    CHECK(mim_pi(w, NULL, N, false) == NULL);
    CHECK(mim_tuple(w, (MimDef *[]){N, NULL}, 2) == NULL);
    CHECK(mim_extract(w, NULL, mim_lit_bool(w, true)) == NULL);
    CHECK(mim_type(w, NULL) == NULL);
    CHECK(num_msgs(w) == 7);
    mim_world_free(w);
}

static void test_lam_errors(void) {
    MimWorld *w = mim_world_new();
    MimDef *N = mim_nat(w), *NN = mim_pi(w, N, N, false);
    MimDef *f = mim_mut_lam(w, NN);
    CHECK(mim_lam_set(w, f, nat(w, 0), nat(w, 1)) == NULL);
    CHECK(error_has(w, 0, "filter '"));
    CHECK(error_has(w, 0, "' of lambda is of type '"));
    CHECK(error_has(w, 0, "' but must be of type 'Bool'"));
    MimDef *g = mim_mut_lam(w, NN);
    CHECK(mim_lam_set(w, g, mim_lit_bool(w, true), mim_lit_bool(w, true)) == NULL);
    CHECK(num_msgs(w) == 5);
    CHECK(error_has(w, 1, "body of function is not assignable to declared codomain"));
    CHECK(msg(w, 2)->sev == MIM_NOTE && strncmp(msg(w, 2)->text, "body: '", 7) == 0);
    CHECK(msg(w, 3)->sev == MIM_NOTE && strncmp(msg(w, 3)->text, "type: '", 7) == 0);
    CHECK(msg(w, 4)->sev == MIM_NOTE && strncmp(msg(w, 4)->text, "codomain: '", 11) == 0);
    mim_world_free(w);
}

/* ---- axioms: curry and trip counters (§11) ------------------------------------ */

static int norm_calls;

static MimDef *count_norm(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    ++norm_calls;
    return mim_raw_app(w, type, callee, arg);
}

/* {s: Nat} → Nat → [Idx s, Idx s] → Idx s */
static MimDef *three_curried(MimWorld *w) {
    MimDef *N = mim_nat(w);
    MimDef *p = mim_mut_pi(w, mim_star(w), true);
    mim_mut_set(w, p, 0, N);
    MimDef *s = mim_var(w, p);
    MimDef *is = mim_type_idx(w, s);
    MimDef *inner = mim_pi(w, sig2(w, is, is), is, false);
    mim_mut_set(w, p, 1, mim_pi(w, N, inner, false));
    return p;
}

static void test_curry_inference(void) {
    MimWorld *w = mim_world_new();
    MimDef *N = mim_nat(w);
    unsigned curry = 99, trip = 99;
    MimDef *t3 = three_curried(w);
    CHECK(mim_def_type(t3) == mim_star(w));
    mim_axiom_infer_curry(w, t3, &curry, &trip);
    CHECK(curry == 3 && trip == 0);
    mim_axiom_infer_curry(w, N, &curry, &trip);
    CHECK(curry == 0 && trip == 0);

    /* rec P: □ = Nat → P */
    MimDef *P = mim_mut_pi(w, mim_box(w), false);
    mim_mut_set(w, P, 0, N);
    CHECK(mim_mut_set(w, P, 1, P) == P);
    mim_axiom_infer_curry(w, P, &curry, &trip);
    CHECK(curry == 1 && trip == 1);
    /* Nat → Nat → P: cycle of length 1 after two Pis */
    MimDef *NNP = mim_pi(w, N, mim_pi(w, N, P, false), false);
    mim_axiom_infer_curry(w, NNP, &curry, &trip);
    CHECK(curry == 3 && trip == 1);
    CHECK(!mim_world_has_error(w));

    MimDef *ax = mim_axiom(w, t3, 0x1234, NULL, 0, 0);
    CHECK(mim_axiom_curry(ax) == 3 && mim_axiom_trip(ax) == 0);
    CHECK(mim_axiom(w, t3, 0x1234, NULL, 0, 0) == ax);
    CHECK(mim_axiom(w, t3, 0x1235, NULL, 0, 0) != ax);
    CHECK(mim_def_flags(ax) == 0x1234);
    CHECK(mim_def_dep(ax) & MIM_DEP_AXIOM);
    MimDef *ax1 = mim_axiom(w, t3, 0x1300, NULL, 1, 0);
    CHECK(mim_axiom_curry(ax1) == 1);
    CHECK(mim_axiom(w, t3, 0x1400, NULL, 4, 0) == NULL);
    CHECK(error_has(w, 0, "curry counter cannot be greater than 3"));
    CHECK(mim_axiom(w, t3, 0x1500, NULL, 1, 2) == NULL);
    CHECK(error_has(w, 1, "trip counter cannot be greater than curry counter '1'"));
    mim_world_free(w);
}

static void test_normalizer_counters(void) {
    MimWorld *w = mim_world_new();
    MimDef *N = mim_nat(w);
    /* Nat → Nat → Nat: fires at the second application */
    MimDef *T = mim_pi(w, N, mim_pi(w, N, N, false), false);
    MimDef *add = mim_axiom(w, T, 0x100, count_norm, 0, 0);
    norm_calls = 0;
    MimDef *a1 = mim_app(w, add, nat(w, 1));
    CHECK(norm_calls == 0 && mim_app_curry(a1) == 1 && mim_app_axiom(a1) == add);
    MimDef *a2 = mim_app(w, a1, nat(w, 2));
    CHECK(norm_calls == 1 && mim_app_curry(a2) == 0 && mim_app_axiom(a2) == add);
    CHECK(mim_def_type(a2) == N);

    /* curry override 1: fires at the first application */
    MimDef *add1 = mim_axiom(w, T, 0x200, count_norm, 1, 0);
    norm_calls = 0;
    MimDef *b1 = mim_app(w, add1, nat(w, 1));
    CHECK(norm_calls == 1 && mim_app_curry(b1) == 0);
    MimDef *b2 = mim_app(w, b1, nat(w, 2));
    CHECK(norm_calls == 1 && mim_app_curry(b2) == 255); /* never again */

    /* rec P = Nat → P; axm f: P — curry 1, trip 1: fires at every application */
    MimDef *P = mim_mut_pi(w, mim_box(w), false);
    mim_mut_set(w, P, 0, N);
    mim_mut_set(w, P, 1, P);
    MimDef *f = mim_axiom(w, P, 0x300, count_norm, 0, 0);
    norm_calls = 0;
    MimDef *c = f;
    for (int i = 0; i < 3; ++i) c = mim_app(w, c, nat(w, (uint64_t)i));
    CHECK(norm_calls == 3 && mim_app_curry(c) == 0);

    /* a non-axiom application has no head axiom */
    MimDef *g = mim_mut_lam(w, mim_pi(w, N, N, false));
    CHECK(mim_app_axiom(mim_app(w, g, nat(w, 1))) == NULL);
    CHECK(!mim_world_has_error(w));
    mim_world_free(w);
}

static void test_iapp(void) {
    MimWorld *w = mim_world_new();
    /* {s: Nat} → Idx s → Idx s, applied implicitly to 42I8 */
    MimDef *p = mim_mut_pi(w, mim_star(w), true);
    mim_mut_set(w, p, 0, mim_nat(w));
    MimDef *is = mim_type_idx(w, mim_var(w, p));
    mim_mut_set(w, p, 1, mim_pi(w, is, is, false));
    MimDef *ax = mim_axiom(w, p, 0x400, NULL, 0, 0);
    MimDef *r = mim_iapp(w, ax, mim_lit_int(w, 8, 42));
    CHECK(r && mim_def_node(r) == MIM_APP);
    CHECK(r && mim_app_arg(mim_app_callee(r)) == nat(w, 256));
    CHECK(r && mim_def_type(r) == mim_type_int(w, 8));
    CHECK(!mim_world_has_error(w));
    mim_world_free(w);
}

/* ---- mutables, variables, immutabilization (§2, §5) ----------------------------- */

static void test_vars(void) {
    MimWorld *w = mim_world_new();
    MimDef *N = mim_nat(w);
    /* a binder over Idx 1 has the variable 0₁ */
    MimDef *f = mim_mut_lam(w, mim_pi(w, mim_type_idx_n(w, 1), N, false));
    CHECK(mim_var(w, f) == mim_lit_idx(w, 1, 0));
    /* the variable of a sigma has the sigma as type; of an Arr, Idx shape */
    MimDef *s = mim_mut_sigma(w, mim_star(w), 2);
    MimDef *sv = mim_var(w, s);
    CHECK(mim_def_type(sv) == s && mim_def_op(sv, 0) == s);
    MimDef *a = mim_mut_arr(w, mim_star(w));
    mim_mut_set(w, a, 0, nat(w, 4));
    CHECK(mim_def_type(mim_var(w, a)) == mim_type_idx_n(w, 4));
    /* frozen: an uncreated variable is absent */
    MimDef *g = mim_mut_lam(w, mim_pi(w, N, N, false));
    mim_world_freeze(w, true);
    CHECK(mim_var(w, g) == NULL);
    CHECK(mim_var(w, s) == sv);
    mim_world_freeze(w, false);
    CHECK(mim_def_dep(sv) & MIM_DEP_VAR);
    CHECK(!mim_def_is_const(sv) && mim_def_is_const(N));
    mim_world_free(w);
}

static void test_mut_set(void) {
    MimWorld *w = mim_world_new();
    MimDef *N = mim_nat(w), *B = mim_type_bool(w);
    MimDef *s = mim_mut_sigma(w, mim_star(w), 2);
    CHECK(mim_def_is_mut(s) && !mim_def_is_set(s));
    CHECK(mim_mut_set(w, s, 0, N) == s && !mim_def_is_set(s));
    CHECK(mim_mut_set(w, s, 1, B) == s && mim_def_is_set(s));
    CHECK(mim_def_op(s, 1) == B);
    mim_mut_unset(w, s);
    CHECK(mim_def_op(s, 0) == NULL && !mim_def_is_set(s));
    mim_mut_set_type(w, s, mim_box(w));
    CHECK(mim_def_type(s) == mim_box(w));
    /* the type of a mutable Arr becomes its body's type */
    MimDef *a = mim_mut_arr(w, mim_hole(w, mim_box(w)));
    mim_mut_set(w, a, 0, nat(w, 2));
    CHECK(mim_mut_set(w, a, 1, N) == a);
    CHECK(mim_def_type(a) == mim_star(w));
    CHECK(!mim_world_has_error(w));
    MimDef *a2 = mim_mut_arr(w, mim_box(w));
    mim_mut_set(w, a2, 0, nat(w, 2));
    CHECK(mim_mut_set(w, a2, 1, N) == NULL);
    CHECK(error_has(w, 0, "' of array does not match inferred one '"));
    mim_world_free(w);
}

static void test_immutabilize(void) {
    MimWorld *w = mim_world_new();
    MimDef *N = mim_nat(w), *B = mim_type_bool(w);
    /* sigma without dependency → normalized immutable sigma */
    MimDef *s = mim_mut_sigma(w, mim_star(w), 2);
    mim_mut_set(w, s, 0, N);
    mim_mut_set(w, s, 1, N);
    CHECK(mim_immutabilize(w, s) == mim_arr(w, nat(w, 2), N));
    /* dependent sigma [n: Nat, Idx n] stays mutable */
    MimDef *d = mim_mut_sigma(w, mim_star(w), 2);
    mim_mut_set(w, d, 0, N);
    mim_mut_set(w, d, 1, mim_type_idx(w, mim_extract_lit(w, mim_var(w, d), 2, 0)));
    CHECK(mim_immutabilize(w, d) == d);
    /* Pi with an unused variable → immutable, implicit bit dropped */
    MimDef *p = mim_mut_pi(w, mim_star(w), true);
    mim_mut_set(w, p, 0, N);
    mim_var(w, p);
    mim_mut_set(w, p, 1, B);
    CHECK(mim_immutabilize(w, p) == mim_pi(w, N, B, false));
    /* ‹i: 3; i› → (0₃, 1₃, 2₃); ‹i: 3; 0› → ‹3; 0› */
    MimDef *I3 = mim_type_idx_n(w, 3);
    MimDef *pk = mim_mut_pack(w, mim_arr(w, nat(w, 3), I3));
    MimDef *i = mim_var(w, pk);
    CHECK(mim_def_type(i) == I3);
    mim_mut_set(w, pk, 0, i);
    MimDef *ops[3] = {mim_lit_idx(w, 3, 0), mim_lit_idx(w, 3, 1), mim_lit_idx(w, 3, 2)};
    CHECK(mim_immutabilize(w, pk) == mim_tuple(w, ops, 3));
    MimDef *pk0 = mim_mut_pack(w, mim_arr(w, nat(w, 3), N));
    mim_mut_set(w, pk0, 0, nat(w, 0));
    CHECK(mim_immutabilize(w, pk0) == mim_pack(w, nat(w, 3), nat(w, 0)));
    /* above the threshold a used variable keeps the binder */
    mim_world_set_scalarize_threshold(w, 2);
    MimDef *pk2 = mim_mut_pack(w, mim_arr(w, nat(w, 3), I3));
    mim_mut_set(w, pk2, 0, mim_var(w, pk2));
    CHECK(mim_immutabilize(w, pk2) == pk2);
    /* lambdas are never immutabilized */
    MimDef *l = mim_mut_lam(w, mim_pi(w, N, N, false));
    mim_lam_set(w, l, mim_lit_bool(w, true), nat(w, 0));
    CHECK(mim_immutabilize(w, l) == l);
    CHECK(!mim_world_has_error(w));
    mim_world_free(w);
}

static void test_dependent_extract(void) {
    MimWorld *w = mim_world_new();
    MimDef *N = mim_nat(w);
    /* p : [n: Nat, Idx n] → p#1 : Idx (p#0) (Ex-S_L) */
    MimDef *d = mim_mut_sigma(w, mim_star(w), 2);
    mim_mut_set(w, d, 0, N);
    mim_mut_set(w, d, 1, mim_type_idx(w, mim_extract_lit(w, mim_var(w, d), 2, 0)));
    MimDef *p = var_of(w, d);
    MimDef *p1 = mim_extract_lit(w, p, 2, 1);
    CHECK(p1 && mim_def_type(p1) == mim_type_idx(w, mim_extract_lit(w, p, 2, 0)));
    CHECK(!mim_world_has_error(w));
    mim_world_free(w);
}

/* ---- externals, annexes, names ----------------------------------------------------- */

static void test_externals_annexes(void) {
    MimWorld *w = mim_world_new();
    MimDef *T = mim_pi(w, mim_nat(w), mim_nat(w), false);
    const char *names[3] = {"main", "bar", "foo"};
    MimDef *fs[3];
    for (int i = 0; i < 3; ++i) {
        fs[i] = mim_mut_lam(w, T);
        mim_def_set_name(fs[i], mim_world_sym(w, names[i]));
        mim_make_external(w, fs[i]);
    }
    mim_def_set_name(fs[0], mim_world_sym(w, "other")); /* first name wins */
    CHECK(strcmp(mim_def_name(fs[0]), "main") == 0);
    CHECK(mim_world_num_externals(w) == 3);
    CHECK(mim_world_external(w, 0) == fs[1] && mim_world_external(w, 1) == fs[2] &&
          mim_world_external(w, 2) == fs[0]);
    CHECK(mim_world_lookup_external(w, mim_world_sym(w, "foo")) == fs[2]);
    CHECK(mim_def_is_external(fs[2]));
    mim_make_internal(w, fs[2]);
    CHECK(!mim_def_is_external(fs[2]) && mim_world_num_externals(w) == 2);
    CHECK(mim_world_lookup_external(w, mim_world_sym(w, "foo")) == NULL);

    CHECK(mim_world_annex(w, 0x1104c60000000000ull) == NULL);
    mim_world_register_annex(w, 0x1104c60000000100ull, fs[0]);
    mim_world_register_annex(w, 0x1104c60000000000ull, fs[1]);
    CHECK(mim_world_annex(w, 0x1104c60000000000ull) == fs[1]);
    CHECK(mim_world_annex(w, 0x1104c60000000100ull) == fs[0]);
    CHECK(mim_world_annex(w, 0x1104c60000000200ull) == NULL);
    mim_world_free(w);
}

static void test_two_worlds(void) {
    MimWorld *w1 = mim_world_new(), *w2 = mim_world_new();
    uint32_t g2 = mim_world_gid_counter(w2);
    CHECK(mim_world_gid_counter(w1) == g2);
    MimDef *a = nat(w1, 777);
    CHECK(mim_world_gid_counter(w2) == g2);
    MimDef *b = nat(w2, 777);
    CHECK(a != b && mim_def_gid(a) == mim_def_gid(b));
    CHECK(mim_nat(w1) != mim_nat(w2));
    CHECK(mim_lit_idx(w1, 2, 2) == NULL);
    CHECK(mim_world_has_error(w1) && !mim_world_has_error(w2));
    mim_world_set_name(w1, mim_world_sym(w1, "one"));
    CHECK(mim_world_name(w2) == NULL);
    mim_world_free(w1);
    CHECK(mim_def_type(mim_star(w2)) == mim_box(w2));
    mim_world_free(w2);
}

/* Many nodes: hash-consing stays linear-ish and correct. */
static void test_many_nodes(void) {
    MimWorld *w = mim_world_new();
    MimDef *N = mim_nat(w);
    size_t nodes = mim_world_num_nodes(w);
    for (uint64_t i = 0; i < 100000; ++i) CHECK(nat(w, 1000000 + i) != NULL);
    CHECK(mim_world_num_nodes(w) == nodes + 100000);
    CHECK(nat(w, 1000000 + 4711) == nat(w, 1000000 + 4711));
    MimDef *t = N;
    for (uint64_t i = 0; i < 100000; ++i) t = mim_pi(w, N, t, false);
    CHECK(t != NULL);
    MimDef *u = N;
    for (uint64_t i = 0; i < 100000; ++i) u = mim_pi(w, N, u, false);
    CHECK(u == t);
    CHECK(!mim_world_has_error(w));
    mim_world_free(w);
}

/* The hash-consing table keeps part of each hash next to the address; a
 * table that had to give that up (an address above 2^48) must still find
 * every node, and keep growing. */
static void test_untagged_table(void) {
    MimWorld *w = mim_world_new();
    MimDef *N = mim_nat(w);
    MimDef *lits[2000], *t = N;
    for (uint64_t i = 0; i < 2000; ++i) lits[i] = nat(w, 7000000 + i);
    for (uint64_t i = 0; i < 2000; ++i) t = mim_pi(w, N, t, false);
    size_t nodes = mim_world_num_nodes(w);
    CHECK(w->table.tag_mask != 0); /* tagged from the start */
    mim_world_untag_table(w);
    CHECK(w->table.tag_mask == 0);
    CHECK(mim_world_num_nodes(w) == nodes);
    bool same = true;
    for (uint64_t i = 0; i < 2000; ++i) same = same && nat(w, 7000000 + i) == lits[i];
    CHECK(same);
    MimDef *u = N;
    for (uint64_t i = 0; i < 2000; ++i) u = mim_pi(w, N, u, false);
    CHECK(u == t);
    CHECK(mim_world_num_nodes(w) == nodes);
    for (uint64_t i = 0; i < 100000; ++i) CHECK(nat(w, 9000000 + i) != NULL); /* grows untagged */
    CHECK(mim_world_num_nodes(w) == nodes + 100000);
    CHECK(nat(w, 9000000 + 777) == nat(w, 9000000 + 777));
    CHECK(nat(w, 7000000 + 5) == lits[5]);
    mim_world_free(w);
}

/* One step of a construction sequence that revisits old nodes: literals
 * (new, then again much later), Pis over them, repeated. The gid of the
 * result. */
static uint32_t step(MimWorld *w, uint64_t i) {
    MimDef *N = mim_nat(w);
    MimDef *a = nat(w, i % 5000), *b = nat(w, 1000000 + i);
    MimDef *p = mim_pi(w, N, N, false);
    MimDef *q = mim_pi(w, mim_arr(w, a, N), N, false);
    return (uint32_t)(mim_def_gid(a) + mim_def_gid(b) + mim_def_gid(p) + mim_def_gid(q));
}

/* The emitter's cache of recent nodes (world.c, mim_world_cache_recent)
 * finds exactly what the table finds, and a hit in it consumes a gid like
 * a hit in the table: a World with the cache numbers every node as one
 * without it, also after its table gave up its tags (the cache's entries
 * are tagged too). The table passes the size from which the cache exists. */
static void test_recent_cache(void) {
    MimWorld *plain = mim_world_new(), *cached = mim_world_new();
    mim_world_cache_recent(cached);
    CHECK(cached->recent == NULL); /* small table: no cache yet */
    bool same = true;
    for (uint64_t i = 0; i < 150000 && same; ++i) {
        if (i == 100000) mim_world_untag_table(cached);
        same = step(plain, i) == step(cached, i);
    }
    CHECK(same);
    CHECK(cached->recent != NULL);
    CHECK(plain->recent == NULL); /* not asked for */
    CHECK(mim_world_num_nodes(plain) == mim_world_num_nodes(cached));
    CHECK(mim_def_gid(nat(plain, 77)) == mim_def_gid(nat(cached, 77)));
    mim_world_free(plain);
    mim_world_free(cached);
}

int main(void) {
    RUN(test_gids);
    RUN(test_hash_consing);
    RUN(test_builtins);
    RUN(test_levels);
    RUN(test_pi_sorts);
    RUN(test_literals);
    RUN(test_sigma);
    RUN(test_tuple);
    RUN(test_arr_pack);
    RUN(test_extract);
    RUN(test_insert);
    RUN(test_bot_top);
    RUN(test_beta);
    RUN(test_app_errors);
    RUN(test_lam_errors);
    RUN(test_curry_inference);
    RUN(test_normalizer_counters);
    RUN(test_iapp);
    RUN(test_vars);
    RUN(test_mut_set);
    RUN(test_immutabilize);
    RUN(test_dependent_extract);
    RUN(test_externals_annexes);
    RUN(test_two_worlds);
    RUN(test_many_nodes);
    RUN(test_untagged_table);
    RUN(test_recent_cache);
    return unit_summary();
}
