/* The plugin-side matching API (include/mim/plugin.h, src/ir/annex.c):
 * mim_match only at the application whose curry counter is 0 (semantics.md
 * §11), argument access of curried chains, annex lookup with the demangled
 * error of semantics.md §12.3. */
#include "mim/plugin.h"
#include "unit.h"

#include <string.h>

#define CORE 0x1104c60000000000ull /* plugin id of core (semantics.md §12.1) */

static bool has_error(MimWorld *w, const char *text) {
    MimDiag *d = mim_world_diag(w);
    for (size_t i = 0; i < d->len; ++i)
        if (d->msgs[i].sev == MIM_ERROR && strcmp(d->msgs[i].text, text) == 0) return true;
    return false;
}

/* Nat → Nat → Nat */
static MimDef *nat2(MimWorld *w) {
    MimDef *nat = mim_nat(w);
    return mim_pi(w, nat, mim_pi(w, nat, nat, false), false);
}

static void test_match_counts_curry(void) {
    MimWorld *w = mim_world_new();
    uint64_t id = CORE | 0x0101;
    MimDef *type = nat2(w);
    unsigned curry, trip;
    mim_axiom_infer_curry(w, type, &curry, &trip);
    CHECK(curry == 2 && trip == 0);
    MimDef *ax = mim_axiom(w, type, id, NULL, curry, trip);
    MimDef *a1 = mim_app(w, ax, mim_lit_nat(w, 1));
    MimDef *a2 = mim_app(w, a1, mim_lit_nat(w, 2));
    CHECK(ax && a1 && a2);
    CHECK(mim_axiom_id(ax) == id);
    CHECK(mim_axiom_id(a2) == 0);
    CHECK(mim_match(a2, id) == a2);
    CHECK(mim_match(a1, id) == NULL); /* partially applied */
    CHECK(mim_match(ax, id) == NULL); /* a function axiom by itself */
    CHECK(mim_match(a2, id + 1) == NULL);
    CHECK(mim_match(a2, CORE | 0x0100) == NULL);
    CHECK(mim_match_annex(a2, CORE | 0x0100) == a2);
    CHECK(mim_match_annex(a2, CORE | 0x0105) == a2); /* any id of the annex names its base */
    CHECK(mim_match_annex(a2, CORE | 0x0200) == NULL);
    CHECK(mim_match_annex(a1, CORE | 0x0100) == NULL);
    CHECK(mim_match(mim_lit_nat(w, 1), id) == NULL);
    mim_world_free(w);
}

static void test_curry_override(void) {
    MimWorld *w = mim_world_new();
    uint64_t id = CORE | 0x0300;
    MimDef *ax = mim_axiom(w, nat2(w), id, NULL, 1, 0);
    MimDef *a1 = mim_app(w, ax, mim_lit_nat(w, 1));
    MimDef *a2 = mim_app(w, a1, mim_lit_nat(w, 2));
    CHECK(mim_match(a1, id) == a1); /* counter 0 after the first argument */
    CHECK(mim_match(a2, id) == NULL); /* 0 − 1 = 255: never again */
    mim_world_free(w);
}

static void test_args(void) {
    MimWorld *w = mim_world_new();
    MimDef *ax = mim_axiom(w, nat2(w), CORE, NULL, 2, 0);
    MimDef *one = mim_lit_nat(w, 1), *two = mim_lit_nat(w, 2);
    MimDef *a2 = mim_app(w, mim_app(w, ax, one), two);
    CHECK(mim_app_num_args(a2) == 2);
    CHECK(mim_app_nth_arg(a2, 0) == one);
    CHECK(mim_app_nth_arg(a2, 1) == two);
    CHECK(mim_app_nth_arg(a2, 2) == NULL);
    CHECK(mim_app_num_args(ax) == 0);
    CHECK(mim_app_nth_arg(ax, 0) == NULL);
    mim_world_free(w);
}

static void test_non_function_axiom(void) {
    MimWorld *w = mim_world_new();
    uint64_t id = CORE | 0x0400;
    MimDef *ax = mim_axiom(w, mim_type_lvl(w, 0), id, NULL, 0, 0);
    CHECK(mim_match(ax, id) == ax);
    CHECK(mim_match_annex(ax, id) == ax);
    CHECK(mim_match(ax, id | 1) == NULL);
    mim_world_free(w);
}

static MimDef *fold_to_seven(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    (void)type, (void)callee, (void)arg;
    return mim_lit_nat(w, 7);
}

static void test_normalizer_sees_match(void) {
    MimWorld *w = mim_world_new();
    uint64_t id = CORE | 0x0500;
    MimDef *ax = mim_axiom(w, nat2(w), id, fold_to_seven, 2, 0);
    MimDef *a1 = mim_app(w, ax, mim_lit_nat(w, 1));
    CHECK(mim_match(a1, id) == NULL);
    uint64_t v = 0;
    CHECK(mim_def_lit(mim_app(w, a1, mim_lit_nat(w, 2)), &v) && v == 7);
    mim_world_free(w);
}

static void test_annex_lookup(void) {
    MimWorld *w = mim_world_new();
    uint64_t id = CORE | 0x0305;
    MimDef *ax = mim_axiom(w, mim_type_lvl(w, 0), id, NULL, 0, 0);
    mim_world_register_annex(w, id, ax);
    CHECK(mim_annex(w, id) == ax);
    CHECK(!mim_world_has_error(w));
    CHECK(mim_annex(w, id + 1) == NULL);
    CHECK(has_error(w, "Axiom with ID '1104c60000000306' not found; demangled plugin name is 'core'"));
    CHECK(mim_annex(w, 0x4115400000000000ull) == NULL);
    CHECK(has_error(w, "Axiom with ID '4115400000000000' not found; demangled plugin name is 'opt'"));
    mim_world_free(w);
}

static void test_id_parts(void) {
    uint64_t id = CORE | 0x0a07;
    CHECK(mim_annex_base(id) == (CORE | 0x0a00));
    CHECK(mim_annex_sub(id) == 7);
    CHECK(mim_annex_plugin(id) == CORE);
}

int main(void) {
    RUN(test_match_counts_curry);
    RUN(test_curry_override);
    RUN(test_args);
    RUN(test_non_function_axiom);
    RUN(test_normalizer_sees_match);
    RUN(test_annex_lookup);
    RUN(test_id_parts);
    return unit_summary();
}
