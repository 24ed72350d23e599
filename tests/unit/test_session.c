/* The public session API (include/mim/session.h): a World with plugin
 * libraries loaded, used from C as an embedding DSL compiler would (paper
 * §4.4): normalizers fire, type errors are values, plugins are found next to
 * libmim without any search path. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "mim/plugin.h"
#include "mim/session.h"
#include "mim/world.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
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

/* A program with a stack slot, optimized at -O2 (SSA construction removes
 * the slot) and compiled to LLVM IR by core's "ll" back end. */
static void test_optimize_and_emit_ll(void) {
    static const char prog[] =
        "plugin core;\n"
        "con extern main(mem: %mem.M, argc: I32, argv: %mem.Ptr0 (%mem.Ptr0 I8), return: Cn [%mem.M, I32]) =\n"
        "    let (mem, ptr) = %mem.slot (I32, 0) (mem, 0);\n"
        "    let mem = %mem.store (mem, ptr, argc);\n"
        "    let (mem, val) = %mem.load (mem, ptr);\n"
        "    return (mem, %core.wrap.add 0 (val, 40:I32));\n";
    MimSession *s = mim_session_new(NULL, 0);
    CHECK(mim_session_plugin(s, "compile"));
    CHECK(mim_session_plugin(s, "opt"));
    CHECK(mim_session_source(s, "slot.mim", prog, sizeof prog - 1));
    CHECK(mim_session_build(s));
    MimWorld *front = mim_session_world(s);
    CHECK(mim_session_optimize(s, 2));
    CHECK(mim_session_world(s) != front);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    CHECK(out && mim_session_emit(s, "ll", out));
    fclose(out);
    CHECK(text && strstr(text, "define i32 @main(i32"));
    CHECK(text && strstr(text, "add i32 40"));
    CHECK(text && !strstr(text, "alloca")); /* the slot is gone */
    free(text);
    CHECK(!mim_session_emit(s, "no_such_backend", stdout));
    mim_session_free(s);
}

int main(void) {
    RUN(test_minus_folds_from_c);
    RUN(test_type_error_is_a_value);
    RUN(test_source_text_with_plugin_directive);
    RUN(test_missing_plugin_and_syntax_error);
    RUN(test_optimize_and_emit_ll);
    return unit_summary();
}
