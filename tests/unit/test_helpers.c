/* Unused interface helpers (src/pass/helpers.c): the internal_* externals of
 * a plugin or module leave the pipeline before it starts exactly when nothing
 * the program's other externals reach is one of them or an axiom of their
 * plugin. */
#include "mim/session.h"
#include "mim/world.h"
#include "pass/optimize.h"
#include "unit.h"

#include <string.h>

static const char *const autodiff_helpers[] = {
    "internal_diff_core_icmp_xYgLE", "internal_diff_core_wrap_add", "internal_diff_core_wrap_mul"};
static const char *const matrix_helpers[] = {
    "internal_mapRed_matrix_prod", "internal_mapRed_matrix_sum", "internal_mapRed_matrix_transpose"};

/* A World with the compile and opt plugins (opt imports autodiff and
 * matrix) and the program; NULL if it does not build. */
static MimSession *session_with(const char *program) {
    MimSession *s = mim_session_new(NULL, 0);
    bool ok = mim_session_plugin(s, "compile") && mim_session_plugin(s, "opt") &&
              mim_session_source(s, "t.mim", program, strlen(program)) && mim_session_build(s);
    if (!ok) {
        mim_session_print_diag(s, stderr);
        mim_session_free(s);
        return NULL;
    }
    return s;
}

static bool external(MimWorld *w, const char *name) {
    return mim_world_lookup_external(w, mim_world_sym(w, name)) != NULL;
}

static size_t num_external(MimWorld *w, const char *const *names, size_t n) {
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) k += external(w, names[i]);
    return k;
}

/* What the optimizer does first (compile.md §3, steps 1–3): the pipeline
 * functions of the interfaces become internal; their pass axioms are not the
 * program's. */
static bool pipelines_internal(MimWorld *w) {
    static const char *const names[] = {"_default_compile", "_fallback_compile"};
    for (size_t i = 0; i < 2; ++i) {
        MimDef *f = mim_world_lookup_external(w, mim_world_sym(w, names[i]));
        if (!f) return false;
        mim_make_internal(w, f);
    }
    return true;
}

/* The World of session_with(program) as the pipeline's first step finds
 * it; NULL (and s freed) if the program does not build. */
static MimWorld *before_pipeline(MimSession **s, const char *program) {
    *s = session_with(program);
    MimWorld *w = *s ? mim_session_world(*s) : NULL;
    if (w && pipelines_internal(w)) return w;
    mim_session_free(*s);
    *s = NULL;
    return NULL;
}

static void test_empty_program_retires_all(void) {
    MimSession *s;
    MimWorld *w = before_pipeline(&s, "");
    CHECK(w != NULL);
    if (!w) return;
    CHECK(num_external(w, autodiff_helpers, 3) == 3 && num_external(w, matrix_helpers, 3) == 3);
    CHECK(mim_retire_unused_helpers(w) == 6);
    CHECK(num_external(w, autodiff_helpers, 3) == 0 && num_external(w, matrix_helpers, 3) == 0);
    CHECK(mim_retire_unused_helpers(w) == 0); /* nothing left to retire */
    mim_session_free(s);
}

/* An axiom of autodiff keeps autodiff's helpers, not matrix's. */
static void test_axiom_keeps_its_plugins_helpers(void) {
    MimSession *s;
    MimWorld *w = before_pipeline(&s, "lam extern f (x: Nat): Nat = %autodiff.add (x, x);\n");
    CHECK(w != NULL);
    if (!w) return;
    CHECK(mim_retire_unused_helpers(w) == 3);
    CHECK(num_external(w, autodiff_helpers, 3) == 3);
    CHECK(num_external(w, matrix_helpers, 3) == 0);
    CHECK(external(w, "f"));
    mim_session_free(s);
}

/* Through a type: a matrix parameter keeps matrix's helpers. A helper of the
 * input itself that another external uses stays; an unused one goes. */
static void test_types_and_module_helpers(void) {
    MimSession *s;
    MimWorld *w = before_pipeline(&s, "lam extern m (x: %matrix.Mat (1, 4, Nat)): Nat = 0;\n"
                                      "lam extern internal_mine (x: Nat): Nat = x;\n"
                                      "lam extern internal_lone (x: Nat): Nat = x;\n"
                                      "lam extern user (x: Nat): Nat → Nat = internal_mine;\n");
    CHECK(w != NULL);
    if (!w) return;
    CHECK(mim_retire_unused_helpers(w) == 4);
    CHECK(num_external(w, matrix_helpers, 3) == 3);
    CHECK(num_external(w, autodiff_helpers, 3) == 0);
    CHECK(external(w, "internal_mine") && !external(w, "internal_lone"));
    CHECK(external(w, "m") && external(w, "user"));
    mim_session_free(s);
}

/* Optimizing at -O2 ends with no helper either way, and the program's
 * function survives. */
static void test_optimized_program_keeps_its_functions(void) {
    MimSession *s = session_with("lam extern f (x: Nat): Nat = %core.nat.add (x, 1);\n");
    CHECK(s != NULL);
    if (!s) return;
    CHECK(mim_session_optimize(s, 2));
    MimWorld *w = mim_session_world(s);
    CHECK(external(w, "f"));
    CHECK(num_external(w, autodiff_helpers, 3) == 0 && num_external(w, matrix_helpers, 3) == 0);
    mim_session_free(s);
}

int main(void) {
    RUN(test_empty_program_retires_all);
    RUN(test_axiom_keeps_its_plugins_helpers);
    RUN(test_types_and_module_helpers);
    RUN(test_optimized_program_keeps_its_functions);
    return unit_summary();
}
