/* The public session API (include/mim/session.h): a World with plugin
 * libraries loaded, used from C as an embedding DSL compiler would (paper
 * §4.4): normalizers fire, type errors are values, plugins are found next to
 * libmim without any search path. */
#define _DEFAULT_SOURCE /* open_memstream, mkstemps, popen */
#include "mim/plugin.h"
#include "mim/session.h"
#include "mim/driver.h"
#include "mim/world.h"
#include "unit.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The session's messages as one string (caller frees). */
static char *diag_text(MimSession *s) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    mim_session_print_diag(s, f);
    fclose(f);
    return text;
}

static bool diag_has(MimSession *s, const char *needle) {
    char *text = diag_text(s);
    bool has = text && strstr(text, needle);
    if (!has) fprintf(stderr, "expected '%s' in the session's messages:\n%s", needle, text ? text : "");
    free(text);
    return has;
}

static const char slot_prog[] =
    "plugin core;\n"
    "con extern main(mem: %mem.M, argc: I32, argv: %mem.Ptr0 (%mem.Ptr0 I8), return: Cn [%mem.M, I32]) =\n"
    "    let (mem, ptr) = %mem.slot (I32, 0) (mem, 0);\n"
    "    let mem = %mem.store (mem, ptr, argc);\n"
    "    let (mem, val) = %mem.load (mem, ptr);\n"
    "    return (mem, %core.wrap.add 0 (val, 40:I32));\n";

/* Every misuse is a false with a message, and the session goes on: after
 * each one, the calls in the right order still work. */
static void test_misuse_leaves_session_usable(void) {
    MimSession *s = mim_session_new(NULL, 0);
    CHECK(!mim_session_emit(s, "ll", stdout));
    CHECK(diag_has(s, "mim_session_emit: call mim_session_build first"));
    CHECK(!mim_session_optimize(s, 2));
    CHECK(diag_has(s, "mim_session_optimize: call mim_session_build first"));
    CHECK(mim_session_source(s, "slot.mim", slot_prog, sizeof slot_prog - 1));
    CHECK(mim_session_build(s));
    CHECK(!mim_session_plugin(s, "math"));
    CHECK(diag_has(s, "plugin 'math' requested after mim_session_build"));
    CHECK(!mim_session_source(s, "x.mim", "", 0));
    CHECK(!mim_session_optimize(s, 3));
    CHECK(diag_has(s, "illegal optimization level '3' (0, 1 or 2)"));
    CHECK(!mim_session_optimize(s, -1));
    CHECK(diag_has(s, "illegal optimization level '-1'"));
    CHECK(mim_session_optimize(s, 2));
    CHECK(!mim_session_optimize(s, 2));
    CHECK(diag_has(s, "mim_session_optimize: the session is already optimized"));
    CHECK(!mim_session_optimize(s, 1));
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    CHECK(out && mim_session_emit(s, "ll", out));
    fclose(out);
    CHECK(text && strstr(text, "add i32 40") && !strstr(text, "alloca"));
    free(text);
    mim_session_free(s);
}

/* Level 2 without `opt` named: the session loads it as `mim -O2` does
 * (before, the pipeline was silently skipped and the slot stayed). */
static void test_optimize_loads_what_the_level_needs(void) {
    MimSession *s = mim_session_new(NULL, 0);
    CHECK(mim_session_source(s, "slot.mim", slot_prog, sizeof slot_prog - 1));
    CHECK(mim_session_build(s));
    CHECK(mim_session_is_loaded(s, "compile")); /* always, as on the command line */
    CHECK(!mim_session_is_loaded(s, "opt"));
    MimWorld *front = mim_session_world(s);
    MimDef *f = mim_world_lookup_external(front, mim_world_sym(front, "main"));
    CHECK(mim_session_optimize(s, 2));
    CHECK(mim_session_is_loaded(s, "opt"));
    CHECK(f && mim_def_name(f) && strcmp(mim_def_name(f), "main") == 0); /* earlier nodes stay valid */
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    CHECK(out && mim_session_emit(s, "ll", out));
    fclose(out);
    CHECK(text && strstr(text, "add i32 40") && !strstr(text, "alloca"));
    free(text);
    mim_session_free(s);

    /* Nodes built into the World since the build: it cannot be redone. */
    s = mim_session_new(NULL, 0);
    CHECK(mim_session_source(s, "slot.mim", slot_prog, sizeof slot_prog - 1));
    CHECK(mim_session_build(s));
    MimWorld *w = mim_session_world(s);
    CHECK(mim_lit_idx(w, 1000, 999) != NULL);
    CHECK(!mim_session_optimize(s, 2));
    CHECK(diag_has(s, "level 2 needs the 'opt' plugin"));
    CHECK(mim_session_optimize(s, 1)); /* still usable */
    mim_session_free(s);
}

/* `mim FILE -O<level> -o -` without its `.import`/`.mim/plugin` lines. */
static char *cli_output(const char *file, int level) {
    char exe[PATH_MAX], cmd[2 * PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return NULL;
    *slash = '\0';
    snprintf(cmd, sizeof cmd, "'%s/../bin/mim' '%s' -O%d -o - | grep -v '^\\.import \\|^\\.mim/plugin '", exe, file, level);
    FILE *p = popen(cmd, "r");
    if (!p) return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    char buf[4096];
    size_t got;
    while (out && (got = fread(buf, 1, sizeof buf, p)) > 0) fwrite(buf, 1, got, out);
    if (out) fclose(out);
    pclose(p);
    return text;
}

/* The optimized World prints exactly as `mim -O<level>` prints the same
 * program (gids included: the same modules were emitted in the same order). */
static void test_same_program_as_cli(void) {
    char file[] = "/tmp/mim-session-XXXXXX.mim";
    int fd = mkstemps(file, 4);
    CHECK(fd >= 0);
    if (fd < 0) return;
    CHECK(write(fd, slot_prog, sizeof slot_prog - 1) == (ssize_t)(sizeof slot_prog - 1));
    close(fd);
    for (int level = 0; level <= 2; ++level) {
        MimSession *s = mim_session_new(NULL, 0);
        CHECK(mim_session_source(s, file, slot_prog, sizeof slot_prog - 1));
        CHECK(mim_session_build(s));
        CHECK(mim_session_optimize(s, level));
        char *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        if (out) mim_world_print(mim_session_world(s), out);
        if (out) fclose(out);
        char *cli = cli_output(file, level);
        CHECK(text && cli && *cli && strcmp(text, cli) == 0);
        if (text && cli && strcmp(text, cli) != 0)
            fprintf(stderr, "-O%d: session:\n%s\nmim:\n%s\n", level, text, cli);
        free(text);
        free(cli);
        mim_session_free(s);
    }
    unlink(file);
}

static void test_version_and_dot(void) {
    CHECK(strcmp(mim_version(), MIM_VERSION) == 0);
    MimSession *s = mim_session_new(NULL, 0);
    CHECK(mim_session_source(s, "slot.mim", slot_prog, sizeof slot_prog - 1));
    CHECK(mim_session_build(s));
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (out) mim_world_print_dot(mim_session_world(s), out);
    if (out) fclose(out);
    CHECK(text && strncmp(text, "digraph {", 9) == 0 && strstr(text, "main"));
    free(text);
    mim_session_free(s);
}

int main(void) {
    RUN(test_minus_folds_from_c);
    RUN(test_type_error_is_a_value);
    RUN(test_source_text_with_plugin_directive);
    RUN(test_missing_plugin_and_syntax_error);
    RUN(test_optimize_and_emit_ll);
    RUN(test_misuse_leaves_session_usable);
    RUN(test_optimize_loads_what_the_level_needs);
    RUN(test_same_program_as_cli);
    RUN(test_version_and_dot);
    return unit_summary();
}
