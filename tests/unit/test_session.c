/* The public session API (include/mim/session.h): a World with plugin
 * libraries loaded, used from C as an embedding DSL compiler would (paper
 * §4.4): normalizers fire, type errors are values, plugins are found next to
 * libmim without any search path. */
#include "mim/plugin.h"
#include "mim/session.h"
#include "mim/world.h"
#include "unit.h"

#include <string.h>

#define CORE_ID 0x1104c60000000000ull
#define CORE_MINUS (CORE_ID | 0x800) /* %core.minus: tag 8 (docs/plugin-interfaces.md) */

static bool lit_value(MimDef *d, uint64_t *v) { return d && mim_def_lit(d, v); }

static void test_minus_folds_from_c(void) {
    MimSession *s = mim_session_new(NULL, 0);
    CHECK(mim_session_plugin(s, "core"));
    CHECK(mim_session_build(s));
    CHECK(mim_session_is_loaded(s, "core"));
    CHECK(mim_session_is_loaded(s, "mem")); /* core.mim says `plugin mem;` */
    MimWorld *w = mim_session_world(s);
    MimDef *minus = mim_annex(w, CORE_MINUS);
    CHECK(minus != NULL);
    MimDef *app = mim_iapp(w, mim_iapp(w, minus, mim_lit_nat(w, 0)), mim_lit_idx(w, 256, 42));
    uint64_t v = 0;
    CHECK(lit_value(app, &v) && v == 214); /* two's complement of 42 in Idx 256 */
    CHECK(app == mim_lit_idx(w, 256, 214));
    CHECK(!mim_world_has_error(w));
    mim_session_free(s);
}

static void test_type_error_is_a_value(void) {
    MimSession *s = mim_session_new(NULL, 0);
    CHECK(mim_session_plugin(s, "core"));
    CHECK(mim_session_build(s));
    MimWorld *w = mim_session_world(s);
    MimDef *minus = mim_annex(w, CORE_MINUS);
    MimDef *bad = mim_iapp(w, mim_iapp(w, minus, mim_lit_nat(w, 0)), mim_lit_nat(w, 42));
    CHECK(bad == NULL);
    CHECK(mim_world_has_error(w));
    MimDiag *d = mim_world_diag(w);
    CHECK(d->len >= 1 && strstr(d->msgs[0].text, "cannot apply argument to callee") != NULL);
    mim_session_free(s);
}

static void test_source_text_with_plugin_directive(void) {
    static const char text[] = "plugin core;\n"
                               "lam extern f (n: Nat): Nat = %core.nat.add (0, n);\n";
    MimSession *s = mim_session_new(NULL, 0);
    CHECK(mim_session_source(s, "text.mim", text, sizeof text - 1));
    CHECK(!mim_session_source(s, "again.mim", text, sizeof text - 1)); /* one program only */
    CHECK(mim_session_build(s));
    MimWorld *w = mim_session_world(s);
    MimDef *f = mim_world_lookup_external(w, mim_world_sym(w, "f"));
    CHECK(f != NULL);
    /* add (0, n) normalizes to n: the body is the function's own variable */
    CHECK(f && mim_lam_body(f) == mim_var(w, f));
    mim_session_free(s);
}

static void test_missing_plugin_and_syntax_error(void) {
    MimSession *s = mim_session_new(NULL, 0);
    CHECK(!mim_session_plugin(s, "no_such_plugin"));
    CHECK(!mim_session_build(s));
    mim_session_free(s);

    static const char bad[] = "lam f (x: Nat): Nat = ;";
    s = mim_session_new(NULL, 0);
    mim_session_source(s, "bad.mim", bad, sizeof bad - 1);
    CHECK(!mim_session_build(s));
    mim_session_free(s);
}

int main(void) {
    RUN(test_minus_folds_from_c);
    RUN(test_type_error_is_a_value);
    RUN(test_source_text_with_plugin_directive);
    RUN(test_missing_plugin_and_syntax_error);
    return unit_summary();
}
