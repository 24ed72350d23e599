/* Paper §4 Figure 3b built through the C API: the graph of
 *     let a = %core.wrap.add 0 (x, 1I8);
 *     let b = %core.wrap.add 0 (x, 2I8);
 * Hash-consing must share the curried call `%core.wrap.add 256 0` (with the
 * inferred implicit size made explicit) and x between both additions, while
 * the argument tuples (x, 1I8) and (x, 2I8) stay distinct. The axiom is built
 * with its exact type from core.md §3 and its annex id (no normalizer: the
 * sharing is a property of the IR, not of the core plugin). */
#include "mim/world.h"
#include "unit.h"

#define CORE_WRAP_ADD 0x1104c60000000700ull /* %core.wrap.add (tag 7, sub 0) */

/* {s: Nat} [m: Nat] «2; Idx s» → Idx s */
static MimDef *wrap_type(MimWorld *w) {
    MimDef *nat = mim_nat(w);
    MimDef *pi = mim_mut_pi(w, mim_star(w), true);
    mim_mut_set(w, pi, 0, nat);
    MimDef *idx_s = mim_type_idx(w, mim_var(w, pi));
    MimDef *ab = mim_arr(w, mim_lit_nat(w, 2), idx_s);
    MimDef *operands = mim_pi(w, ab, idx_s, false);
    return mim_mut_set(w, pi, 1, mim_pi(w, nat, operands, false));
}

static MimDef *pair(MimWorld *w, MimDef *a, MimDef *b) {
    MimDef *ops[2] = {a, b};
    return mim_tuple(w, ops, 2);
}

/* x: a parameter of `lam f(x: I8): [I8, I8]`, so it is no literal. */
static MimDef *new_f(MimWorld *w, MimDef **x) {
    MimDef *i8 = mim_type_int(w, 8);
    MimDef *i8s[2] = {i8, i8};
    MimDef *f = mim_mut_lam(w, mim_pi(w, i8, mim_sigma(w, i8s, 2), false));
    *x = mim_var(w, f);
    return f;
}

static void test_sharing_explicit(void) {
    MimWorld *w = mim_world_new();
    MimDef *ty = wrap_type(w);
    CHECK(ty != NULL);
    MimDef *add = mim_axiom(w, ty, CORE_WRAP_ADD, NULL, 0, 0);
    CHECK(add && mim_axiom_curry(add) == 3);
    MimDef *x;
    MimDef *f = new_f(w, &x);
    MimDef *i8 = mim_type_int(w, 8);
    CHECK(mim_def_type(x) == i8);

    /* %core.wrap.add 256 0, built twice: the same node */
    MimDef *add256 = mim_app(w, add, mim_lit_nat(w, 256));
    MimDef *add256_0 = mim_app(w, add256, mim_lit_nat(w, 0));
    CHECK(mim_app(w, mim_app(w, add, mim_lit_nat(w, 256)), mim_lit_nat(w, 0)) == add256_0);

    MimDef *one = mim_lit_int(w, 8, 1), *two = mim_lit_int(w, 8, 2);
    MimDef *a = mim_app(w, add256_0, pair(w, x, one));
    MimDef *b = mim_app(w, mim_app(w, mim_app(w, add, mim_lit_nat(w, 256)), mim_lit_nat(w, 0)), pair(w, x, two));
    CHECK(a && b && a != b);
    CHECK(mim_def_node(a) == MIM_APP && mim_def_node(b) == MIM_APP);

    /* the curried call is shared; its arguments are 256 and 0 */
    CHECK(mim_app_callee(a) == add256_0 && mim_app_callee(b) == add256_0);
    CHECK(mim_app_callee(add256_0) == add256);
    CHECK(mim_app_callee(add256) == add);
    uint64_t v = 99;
    CHECK(mim_def_lit(mim_app_arg(add256), &v) && v == 256);
    CHECK(mim_def_lit(mim_app_arg(add256_0), &v) && v == 0);
    CHECK(mim_app_axiom(a) == add && mim_app_axiom(b) == add);
    CHECK(mim_app_curry(add256) == 2 && mim_app_curry(add256_0) == 1 && mim_app_curry(a) == 0);

    /* the tuples differ, x is shared by both */
    MimDef *ta = mim_app_arg(a), *tb = mim_app_arg(b);
    CHECK(ta != tb);
    CHECK(mim_def_node(ta) == MIM_TUPLE && mim_def_node(tb) == MIM_TUPLE);
    CHECK(mim_def_op(ta, 0) == x && mim_def_op(tb, 0) == x);
    CHECK(mim_def_op(ta, 1) == one && mim_def_op(tb, 1) == two);

    /* type edges: both additions and both literals have type Idx 256 */
    CHECK(mim_def_type(a) == i8 && mim_def_type(b) == i8);
    CHECK(mim_def_type(one) == i8 && mim_def_type(two) == i8);
    CHECK(mim_type_idx_n(w, 256) == i8);

    /* any other 8-bit addition with mode 0 reuses the subgraph */
    MimDef *c = mim_app(w, add256_0, pair(w, one, two));
    CHECK(c && mim_app_callee(c) == add256_0);
    /* a different mode does not */
    MimDef *d = mim_app(w, mim_app(w, add256, mim_lit_nat(w, 1)), pair(w, x, one));
    CHECK(d && mim_app_callee(d) != add256_0 && mim_app_callee(mim_app_callee(d)) == add256);

    CHECK(mim_lam_set(w, f, mim_lit_bool(w, false), pair(w, a, b)) == f);
    CHECK(!mim_world_has_error(w));
    mim_world_free(w);
}

/* The front end's way: the implicit size is a hole, solved by the operand
 * tuple; the solved call is rebuilt, so it is the same node as the explicit
 * `%core.wrap.add 256 0`. */
static void test_sharing_inferred(void) {
    MimWorld *w = mim_world_new();
    MimDef *add = mim_axiom(w, wrap_type(w), CORE_WRAP_ADD, NULL, 0, 0);
    MimDef *x;
    MimDef *f = new_f(w, &x);
    MimDef *zero = mim_lit_nat(w, 0);
    MimDef *a = mim_iapp(w, mim_iapp(w, add, zero), pair(w, x, mim_lit_int(w, 8, 1)));
    MimDef *b = mim_iapp(w, mim_iapp(w, add, zero), pair(w, x, mim_lit_int(w, 8, 2)));
    CHECK(a && b && a != b);
    MimDef *explicit_call = mim_app(w, mim_app(w, add, mim_lit_nat(w, 256)), zero);
    CHECK(mim_app_callee(a) == explicit_call);
    CHECK(mim_app_callee(b) == explicit_call);
    CHECK(mim_def_op(mim_app_arg(a), 0) == x && mim_def_op(mim_app_arg(b), 0) == x);
    CHECK(mim_app_arg(a) != mim_app_arg(b));
    CHECK(mim_lam_set(w, f, mim_lit_bool(w, false), pair(w, a, b)) == f);
    CHECK(!mim_world_has_error(w));
    mim_world_free(w);
}

/* Two Worlds never share: the same program built in another World gives
 * other nodes (no global state). */
static void test_worlds_independent(void) {
    MimWorld *w1 = mim_world_new(), *w2 = mim_world_new();
    MimDef *a1 = mim_axiom(w1, wrap_type(w1), CORE_WRAP_ADD, NULL, 0, 0);
    MimDef *a2 = mim_axiom(w2, wrap_type(w2), CORE_WRAP_ADD, NULL, 0, 0);
    CHECK(a1 && a2 && a1 != a2);
    CHECK(mim_app(w1, a1, mim_lit_nat(w1, 256)) != mim_app(w2, a2, mim_lit_nat(w2, 256)));
    mim_world_free(w1);
    mim_world_free(w2);
}

int main(void) {
    RUN(test_sharing_explicit);
    RUN(test_sharing_inferred);
    RUN(test_worlds_independent);
    return unit_summary();
}
