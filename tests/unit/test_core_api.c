/* The core plugin through the C API (paper §4.3–§4.4): `%core.minus mode
 * 42₂₅₆` built from C infers the implicit size and folds to 214₂₅₆; passing
 * a Nat instead is a recorded type error (NULL), not a crash; normalized
 * calls are recognized by mim_match; ⊥ cases (division by zero, shift out of
 * range, conversion of a literal that does not fit) record no error. */
#include "core_env.h"
#include "unit.h"

static bool has_error_text(MimWorld *w, const char *text) {
    MimDiag *d = mim_world_diag(w);
    for (size_t i = 0; i < d->len; ++i)
        if (d->msgs[i].sev == MIM_ERROR && strstr(d->msgs[i].text, text)) return true;
    return false;
}

static MimDef *minus_of(MimWorld *w, MimDef *mode, MimDef *a) {
    MimDef *minus = mim_world_annex(w, T_MINUS);
    return minus ? mim_app(w, mim_iapp(w, minus, mode), a) : NULL;
}

static void test_minus_folds(void) {
    CoreEnv e;
    CHECK(core_env_open(&e, NULL));
    MimDef *res = minus_of(e.w, mim_lit_nat(e.w, 0), mim_lit_idx(e.w, 256, 42));
    uint64_t v = 0;
    CHECK(res && mim_def_lit(res, &v) && v == 214);
    CHECK(res && mim_def_type(res) == mim_type_idx_n(e.w, 256));
    CHECK(!mim_world_has_error(e.w));
    core_env_close(&e);
}

static void test_minus_nat_is_type_error(void) {
    CoreEnv e;
    CHECK(core_env_open(&e, NULL));
    MimDef *res = minus_of(e.w, mim_lit_nat(e.w, 0), mim_lit_nat(e.w, 42));
    CHECK(res == NULL);
    CHECK(mim_world_has_error(e.w) && has_error_text(e.w, "cannot apply argument"));
    core_env_close(&e);
}

/* A variable x : I8 (parameter of some function). */
static MimDef *var_i8(MimWorld *w) {
    MimDef *i8 = mim_type_int(w, 8);
    return mim_var(w, mim_mut_lam(w, mim_pi(w, i8, i8, false)));
}

static MimDef *wrap_add(MimWorld *w, MimDef *a, MimDef *b) {
    MimDef *args[3] = {mim_lit_nat(w, 256), mim_lit_nat(w, 0), core_env_pair(w, a, b)};
    return core_env_call(w, T_WRAP | 0, args, 3);
}

static void test_match_and_sharing(void) {
    CoreEnv e;
    CHECK(core_env_open(&e, NULL));
    MimWorld *w = e.w;
    MimDef *x = var_i8(w), *one = mim_lit_idx(w, 256, 1);
    MimDef *a = wrap_add(w, x, one), *b = wrap_add(w, one, x);
    CHECK(a && a == b); /* canonical order: literal left, hash-consed */
    CHECK(mim_match(a, T_WRAP | 0) == a && mim_match(a, T_WRAP | 1) == NULL);
    CHECK(mim_app_nth_arg(a, 2) == core_env_pair(w, one, x));
    /* (x + 1) + 2 reassociates to 3 + x */
    MimDef *c = wrap_add(w, a, mim_lit_idx(w, 256, 2));
    CHECK(c && mim_app_nth_arg(c, 2) == core_env_pair(w, mim_lit_idx(w, 256, 3), x));
    CHECK(!mim_world_has_error(w));
    core_env_close(&e);
}

static void test_bottom_cases_record_no_error(void) {
    CoreEnv e;
    CHECK(core_env_open(&e, NULL));
    MimWorld *w = e.w;
    MimDef *x = var_i8(w);
    MimDef *shl[3] = {mim_lit_nat(w, 256), mim_lit_nat(w, 0), core_env_pair(w, x, mim_lit_idx(w, 256, 8))};
    MimDef *r = core_env_call(w, T_WRAP | 3, shl, 3);
    CHECK(r && mim_def_node(r) == MIM_BOT);
    /* %core.bitcast I8 300: does not fit, stays an application */
    MimDef *bc[3] = {mim_nat(w), mim_type_int(w, 8), mim_lit_nat(w, 300)};
    r = core_env_call(w, T_BITCAST, bc, 3);
    CHECK(r && mim_def_node(r) == MIM_APP && mim_match(r, T_BITCAST) == r);
    /* %core.idx 256 1 300: out of range with a nonzero mode is ⊥ */
    MimDef *idx[3] = {mim_lit_nat(w, 256), mim_lit_nat(w, 1), mim_lit_nat(w, 300)};
    r = core_env_call(w, T_IDX, idx, 3);
    CHECK(r && mim_def_node(r) == MIM_BOT);
    CHECK(!mim_world_has_error(w));
    core_env_close(&e);
}

/* Programs given as Mim text through the same environment. */
static void test_text(void) {
    CoreEnv e;
    CHECK(core_env_open(&e, "lam extern f (x: I32): I32 = %core.wrap.sub 0 (x, x);\n"));
    MimDef *f = mim_world_lookup_external(e.w, mim_world_sym(e.w, "f"));
    uint64_t v = 1;
    CHECK(f && mim_def_lit(mim_lam_body(f), &v) && v == 0);
    core_env_close(&e);
}

int main(void) {
    RUN(test_minus_folds);
    RUN(test_minus_nat_is_type_error);
    RUN(test_match_and_sharing);
    RUN(test_bottom_cases_record_no_error);
    RUN(test_text);
    return unit_summary();
}
