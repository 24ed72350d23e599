/* Unit tests of the printers (output-format.md): the worked examples of §10
 * rebuilt through the C API, the ASCII forms (§5.2), --dump-gid (§5.3),
 * --dump-recursive (§6), self-reference in the dependency tree (§2.2),
 * unset nodes, mim_def_to_str and the DOT output (§8).
 *
 * gids depend on construction order, so expected texts name them with
 * placeholders: `$x` (x a lower-case/digit name) matches a run of digits;
 * the same name must match the same digits everywhere and different names
 * different digits; a bare `$` matches any digits. */
#include "ir/print.h"
#include "mim/world.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

/* ---- gid-independent matching ----------------------------------------------- */

typedef struct Binding {
    char name[16];
    char digits[24];
} Binding;

static bool is_name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

static bool match_gids(const char *pat, const char *s) {
    Binding b[64];
    size_t nb = 0;
    while (*pat) {
        if (*pat != '$') {
            if (*pat++ != *s++) return false;
            continue;
        }
        char name[16] = {0}, digits[24] = {0};
        size_t len = 0;
        for (++pat; is_name_char(*pat); ++pat)
            if (len < sizeof name - 1) name[len++] = *pat;
        size_t n = 0;
        while (s[n] >= '0' && s[n] <= '9' && n < sizeof digits - 1) n++;
        if (!n) return false;
        memcpy(digits, s, n);
        s += n;
        if (!name[0]) continue;
        bool found = false;
        for (size_t i = 0; i < nb; ++i) {
            if (!strcmp(b[i].name, name)) {
                if (strcmp(b[i].digits, digits)) return false;
                found = true;
            } else if (!strcmp(b[i].digits, digits)) {
                return false; /* two names for one node */
            }
        }
        if (!found && nb < 64) {
            strcpy(b[nb].name, name);
            strcpy(b[nb].digits, digits);
            nb++;
        }
    }
    return *s == '\0';
}

/* Print the world to a string. */
static char *dump(MimWorld *w, const MimPrintOptions *o, const char *import_line) {
    FILE *f = tmpfile();
    if (!f) return NULL;
    const char *lines[1] = {import_line};
    mim_print_world(w, f, o, lines, import_line ? 1 : 0);
    long len = ftell(f);
    rewind(f);
    char *s = malloc((size_t)len + 1);
    size_t got = fread(s, 1, (size_t)len, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

static char *dot(MimWorld *w, bool follow_types, bool all_annexes) {
    FILE *f = tmpfile();
    if (!f) return NULL;
    mim_print_dot(w, f, follow_types, all_annexes);
    long len = ftell(f);
    rewind(f);
    char *s = malloc((size_t)len + 1);
    size_t got = fread(s, 1, (size_t)len, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

static bool expect(MimWorld *w, const MimPrintOptions *o, const char *import_line, const char *pat) {
    uint32_t gids = mim_world_gid_counter(w);
    size_t nodes = mim_world_num_nodes(w);
    char *s = dump(w, o, import_line);
    /* Printing builds nothing and leaves the World unfrozen. */
    bool ok = s && match_gids(pat, s) && mim_world_gid_counter(w) == gids &&
              mim_world_num_nodes(w) == nodes && !mim_world_is_frozen(w);
    if (!ok) fprintf(stderr, "---- expected:\n%s---- got:\n%s----\n", pat, s ? s : "(null)");
    free(s);
    return ok;
}

static bool expect_str(MimWorld *w, const MimDef *d, const char *pat) {
    char *s = mim_def_to_str(w, d);
    bool ok = match_gids(pat, s);
    if (!ok) fprintf(stderr, "expected '%s', got '%s'\n", pat, s);
    free(s);
    return ok;
}

/* ---- builders ------------------------------------------------------------------ */

static MimDef *named(MimWorld *w, MimDef *d, const char *name) {
    mim_def_set_name(d, mim_world_sym(w, name));
    return d;
}

static MimDef *ff(MimWorld *w) { return mim_lit_bool(w, false); }
static MimDef *tt(MimWorld *w) { return mim_lit_bool(w, true); }

/* A mutable function of type Π dom → codom. */
static MimDef *lam(MimWorld *w, const char *name, MimDef *dom, MimDef *codom) {
    MimDef *l = mim_mut_lam(w, mim_pi(w, dom, codom, false));
    return name ? named(w, l, name) : l;
}

/* A mutable continuation of type Cn dom. */
static MimDef *con(MimWorld *w, const char *name, MimDef *dom) {
    MimDef *l = mim_mut_lam(w, mim_cn(w, dom));
    return name ? named(w, l, name) : l;
}

static MimDef *pair(MimWorld *w, MimDef *a, MimDef *b) { return mim_tuple(w, (MimDef *[]){a, b}, 2); }
static MimDef *sigma2(MimWorld *w, MimDef *a, MimDef *b) { return mim_sigma(w, (MimDef *[]){a, b}, 2); }

/* ---- §10.1 identity --------------------------------------------------------------- */

static MimWorld *build_identity(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *id = lam(w, "id", nat, nat);
    MimDef *x = named(w, mim_var(w, id), "x");
    mim_lam_set(w, id, tt(w), x);
    mim_make_external(w, id);
    return w;
}

static void test_identity(void) {
    MimWorld *w = build_identity();
    CHECK(expect(w, NULL, ".import id.mim;",
                 ".import id.mim;\n"
                 "lam extern id x_$x: Nat: Nat = {\n"
                 "    x_$x\n"
                 "};\n"));
    MimPrintOptions g2 = {.dump_gid = 2};
    CHECK(expect(w, &g2, ".import id.mim;",
                 ".import id.mim;\n"
                 "lam extern id x_$x: /*$*/Nat: /*$*/Nat = {\n"
                 "    /*$x*/x_$x\n"
                 "};\n"));
    /* Level 1: neither variables nor nodes without operands get comments. */
    MimPrintOptions g1 = {.dump_gid = 1};
    CHECK(expect(w, &g1, NULL,
                 "lam extern id x_$x: Nat: Nat = {\n"
                 "    x_$x\n"
                 "};\n"));
    mim_world_free(w);
}

/* Solved holes are seen through (semantics.md §7.1): a codomain left as a
 * hole and solved by the body prints as its solution. */
static void test_holes(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *hole = mim_hole(w, mim_star(w));
    MimDef *id = lam(w, "id", nat, hole);
    MimDef *x = named(w, mim_var(w, id), "x");
    mim_lam_set(w, id, tt(w), x);
    mim_make_external(w, id);
    CHECK(!mim_world_has_error(w));
    CHECK(expect(w, NULL, NULL,
                 "lam extern id x_$x: Nat: Nat = {\n"
                 "    x_$x\n"
                 "};\n"));
    CHECK(expect_str(w, hole, "Nat"));
    mim_world_free(w);
}

/* ---- §10.2 fun with an axiom, let lines, η and pack ---------------------------------- */

static MimWorld *build_add(MimDef **s_out, MimDef **s2_out) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *nn = sigma2(w, nat, nat);
    MimDef *add = named(w, mim_axiom(w, mim_pi(w, nn, nat, false), UINT64_C(0x1234) << 16, NULL, 0, 0),
                        "%ex.add");
    MimDef *f = con(w, "f", sigma2(w, nn, mim_cn(w, nat)));
    MimDef *v = mim_var(w, f);
    MimDef *ab = mim_proj(w, v, 2, 0);
    MimDef *a = named(w, mim_proj(w, ab, 2, 0), "a");
    MimDef *b = named(w, mim_proj(w, ab, 2, 1), "b");
    MimDef *ret = named(w, mim_proj(w, v, 2, 1), "return");
    MimDef *s = named(w, mim_app(w, add, pair(w, a, b)), "s");
    MimDef *s2 = mim_app(w, add, pair(w, s, s));
    mim_lam_set(w, f, ff(w), mim_app(w, ret, s2));
    mim_make_external(w, f);
    if (s_out) *s_out = s;
    if (s2_out) *s2_out = s2;
    return w;
}

static void test_add(void) {
    MimDef *s, *s2;
    MimWorld *w = build_add(&s, &s2);
    CHECK(!mim_world_has_error(w));
    CHECK(expect(w, NULL, ".import add.mim;",
                 ".import add.mim;\n"
                 "con extern f _$v::[_$ab::[a_$a: Nat, b_$b: Nat], return_$r: Cn Nat]@(ff) = {\n"
                 "    let s_$s: Nat = %ex.add _$ab;\n"
                 "    let _$s2: Nat = %ex.add ‹2; s_$s›;\n"
                 "    return_$r _$s2\n"
                 "};\n"));
    MimPrintOptions ascii = {.ascii = true};
    CHECK(expect(w, &ascii, ".import add.mim;",
                 ".import add.mim;\n"
                 "con extern f _$v::[_$ab::[a_$a: Nat, b_$b: Nat], return_$r: Cn Nat]@(ff) = {\n"
                 "    let s_$s: Nat = %ex.add _$ab;\n"
                 "    let _$s2: Nat = %ex.add (<2; s_$s>);\n"
                 "    return_$r _$s2\n"
                 "};\n"));
    /* Level 1: extractions, packs, Pis and applications have operands. */
    MimPrintOptions g1 = {.dump_gid = 1};
    CHECK(expect(w, &g1, NULL,
                 "con extern f _$v::[_$ab::[a_$a: Nat, b_$b: Nat], return_$r: /*$*/Cn Nat]@(ff) = {\n"
                 "    let s_$s: Nat = %ex.add /*$ab*/_$ab;\n"
                 "    let _$s2: Nat = %ex.add /*$p*/‹2; s_$s›;\n"
                 "    /*$body*//*$r*/return_$r _$s2\n"
                 "};\n"));
    /* Operand forms for messages: applications by name, the rest inline;
     * a name the user gave is printed without its gid, an unnamed node by
     * its unique name. */
    CHECK(expect_str(w, s, "s"));
    CHECK(expect_str(w, s2, "_$"));
    CHECK(expect_str(w, mim_app_arg(s2), "‹2; s›"));
    mim_world_free(w);
}

/* ---- §10.3 nested continuation ------------------------------------------------------- */

static void test_nested(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *k = con(w, "k", sigma2(w, nat, mim_cn(w, nat)));
    MimDef *v = mim_var(w, k);
    named(w, mim_proj(w, v, 2, 0), "n");
    MimDef *exit = named(w, mim_proj(w, v, 2, 1), "exit");
    MimDef *head = con(w, "head", nat);
    MimDef *i = named(w, mim_var(w, head), "i");
    mim_lam_set(w, head, ff(w), mim_app(w, exit, i));
    mim_lam_set(w, k, ff(w), mim_app(w, head, mim_lit_nat(w, 0)));
    mim_make_external(w, k);
    CHECK(expect(w, NULL, ".import k.mim;",
                 ".import k.mim;\n"
                 "con extern k _$v::[n_$n: Nat, exit_$e: Cn Nat]@(ff) = {\n"
                 "    con head_$h i_$i: Nat@(ff) = {\n"
                 "        exit_$e i_$i\n"
                 "    };\n"
                 "    head_$h 0\n"
                 "};\n"));
    /* At the scalarize threshold the parameter is not split (§3.2). */
    MimPrintOptions t2 = {.scalarize_threshold = 2};
    CHECK(expect(w, &t2, NULL,
                 "con extern k _$v: [Nat, Cn Nat]@(ff) = {\n"
                 "    con head_$h i_$i: Nat@(ff) = {\n"
                 "        exit_$e i_$i\n"
                 "    };\n"
                 "    head_$h 0\n"
                 "};\n"));
    mim_world_free(w);
}

/* ---- §10.4 literals ------------------------------------------------------------------ */

static void test_literals(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *types[5] = {mim_type_bool(w), mim_type_int(w, 8), mim_type_idx_n(w, 5), nat,
                        mim_arr(w, mim_lit_nat(w, 3), nat)};
    MimDef *codom = mim_sigma(w, types, 5);
    MimDef *f = lam(w, "lits", mim_unit_type(w), codom);
    mim_var(w, f);
    MimDef *seven = mim_lit_nat(w, 7);
    MimDef *vals[5] = {tt(w), mim_lit_int(w, 8, 42), mim_lit_idx(w, 5, 3), mim_lit_nat(w, 256),
                       mim_tuple(w, (MimDef *[]){seven, seven, seven}, 3)};
    mim_lam_set(w, f, tt(w), mim_tuple(w, vals, 5));
    mim_make_external(w, f);
    CHECK(!mim_world_has_error(w));
    CHECK(expect(w, NULL, ".import lits.mim;",
                 ".import lits.mim;\n"
                 "lam extern lits _$v: []: [Bool, I8, Idx 5, Nat, «3; Nat»] = {\n"
                 "    (tt, 42I8, 3₅, i8, ‹3; 7›)\n"
                 "};\n"));
    MimPrintOptions ascii = {.ascii = true};
    CHECK(expect(w, &ascii, ".import lits.mim;",
                 ".import lits.mim;\n"
                 "lam extern lits _$v: []: [Bool, I8, Idx 5, Nat, <<3; Nat>>] = {\n"
                 "    (tt, 42I8, 3_5, i8, (<3; 7>))\n"
                 "};\n"));
    /* More literal forms (§5.1) and types (§5.2). */
    CHECK(expect_str(w, mim_lit_int(w, 16, 7), "7I16"));
    CHECK(expect_str(w, mim_lit_int(w, 32, 7), "7I32"));
    CHECK(expect_str(w, mim_lit_int(w, 64, 7), "7I64"));
    CHECK(expect_str(w, mim_lit_idx(w, 12, 10), "10₁₂"));
    CHECK(expect_str(w, mim_lit_nat(w, 65536), "i16"));
    CHECK(expect_str(w, mim_lit_nat(w, UINT64_C(4294967296)), "i32"));
    CHECK(expect_str(w, mim_lit_nat(w, 2), "2"));
    CHECK(expect_str(w, mim_lit_univ(w, 2), "2:(.univ )"));
    CHECK(expect_str(w, mim_type_int(w, 64), "I64"));
    CHECK(expect_str(w, mim_star(w), "★"));
    CHECK(expect_str(w, mim_box(w), "□"));
    CHECK(expect_str(w, mim_type_lvl(w, 2), "(Type 2:(.univ ))"));
    CHECK(expect_str(w, mim_bot(w, nat), "⊥:Nat"));
    CHECK(expect_str(w, mim_top(w, mim_type_bool(w)), "⊤:(Bool)"));
    CHECK(expect_str(w, mim_pi(w, nat, nat, false), "Π Nat → Nat"));
    CHECK(expect_str(w, mim_unit(w), "()"));
    CHECK(expect_str(w, mim_unit_type(w), "[]"));
    CHECK(expect_str(w, mim_univ(w), "(.univ )"));
    CHECK(expect_str(w, NULL, "<nullptr>"));
    MimPrintOptions a = {.ascii = true};
    char *s = mim_def_inline_str(w, mim_star(w), &a);
    CHECK(s && !strcmp(s, "(Type 0:(.univ ))"));
    free(s);
    s = mim_def_inline_str(w, mim_pi(w, nat, mim_bot(w, mim_star(w)), false), &a);
    CHECK(s && !strcmp(s, "Cn Nat"));
    free(s);
    s = mim_def_inline_str(w, mim_pi(w, nat, nat, false), &a);
    CHECK(s && !strcmp(s, "Π Nat -> Nat"));
    free(s);
    s = mim_def_inline_str(w, mim_bot(w, nat), &a);
    CHECK(s && !strcmp(s, ".bot:Nat"));
    free(s);
    s = mim_def_inline_str(w, mim_lit_idx(w, 12, 10), &a);
    CHECK(s && !strcmp(s, "10_12"));
    free(s);
    mim_world_free(w);
}

/* ---- §10.5 helper function at top level, anonymous nested continuation ------------- */

static void test_ret(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *dom = sigma2(w, nat, mim_cn(w, nat));
    MimDef *dbl = con(w, "dbl", dom);
    MimDef *dv = mim_var(w, dbl);
    MimDef *x = named(w, mim_proj(w, dv, 2, 0), "x");
    MimDef *dret = named(w, mim_proj(w, dv, 2, 1), "return");
    mim_lam_set(w, dbl, ff(w), mim_app(w, dret, x));

    MimDef *g = con(w, "g", dom);
    MimDef *gv = mim_var(w, g);
    MimDef *y = named(w, mim_proj(w, gv, 2, 0), "y");
    MimDef *gret = named(w, mim_proj(w, gv, 2, 1), "return");
    MimDef *k = con(w, NULL, nat);
    MimDef *r = named(w, mim_var(w, k), "r");
    mim_lam_set(w, k, ff(w), mim_app(w, gret, r));
    mim_lam_set(w, g, ff(w), mim_app(w, dbl, pair(w, y, k)));
    mim_make_external(w, g);
    CHECK(!mim_world_has_error(w));
    CHECK(expect(w, NULL, ".import g.mim;",
                 ".import g.mim;\n"
                 "con dbl_$d _$dv::[x_$x: Nat, return_$dr: Cn Nat]@(ff) = {\n"
                 "    return_$dr x_$x\n"
                 "};\n"
                 "con extern g _$gv::[y_$y: Nat, return_$gr: Cn Nat]@(ff) = {\n"
                 "    con _$k r_$r: Nat@(ff) = {\n"
                 "        return_$gr r_$r\n"
                 "    };\n"
                 "    dbl_$d (y_$y, _$k)\n"
                 "};\n"));
    /* Recursive mode: externals first, then declarations in order of discovery. */
    MimPrintOptions rec = {.recursive = true};
    CHECK(expect(w, &rec, ".import g.mim;",
                 "con extern g _$gv::[y_$y: Nat, return_$gr: Cn Nat]@(ff) = {\n"
                 "    dbl_$d (y_$y, _$k)\n"
                 "};\n"
                 "con dbl_$d _$dv::[x_$x: Nat, return_$dr: Cn Nat]@(ff) = {\n"
                 "    return_$dr x_$x\n"
                 "};\n"
                 "con _$k r_$r: Nat@(ff) = {\n"
                 "    return_$gr r_$r\n"
                 "};\n"));
    mim_world_free(w);
}

/* ---- §10.6 dependent parameters ------------------------------------------------------ */

static void test_dependent(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w), *bool_ = mim_type_bool(w);
    MimDef *S = mim_mut_sigma(w, mim_star(w), 3);
    mim_mut_set(w, S, 0, nat);
    MimDef *sn = named(w, mim_proj(w, mim_var(w, S), 3, 0), "n");
    mim_mut_set(w, S, 1, mim_arr(w, sn, bool_));
    mim_mut_set(w, S, 2, mim_type_idx(w, sn));
    MimDef *pick = lam(w, "pick", S, bool_);
    MimDef *v = mim_var(w, pick);
    named(w, mim_proj(w, v, 3, 0), "n");
    MimDef *a = named(w, mim_proj(w, v, 3, 1), "a");
    MimDef *i = named(w, mim_proj(w, v, 3, 2), "i");
    mim_lam_set(w, pick, tt(w), mim_extract(w, a, i));
    mim_make_external(w, pick);
    CHECK(!mim_world_has_error(w));
    CHECK(expect(w, NULL, ".import pick.mim;",
                 ".import pick.mim;\n"
                 "lam extern pick _$v::[n_$n: Nat, a_$a: «n_$sn; Bool», i_$i: Idx n_$sn]: Bool = {\n"
                 "    a_$a#i_$i\n"
                 "};\n"));
    /* The sigma itself, inline: its variable's projections name the elements. */
    CHECK(expect_str(w, S, "[n: Nat, «n; Bool», Idx n]"));
    mim_world_free(w);
}

/* ---- §10.7 kept call gets a let line ------------------------------------------------ */

static MimWorld *build_use(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *inc = lam(w, "inc", nat, nat);
    mim_lam_set(w, inc, tt(w), named(w, mim_var(w, inc), "x"));
    MimDef *keep = lam(w, "keep", nat, nat);
    mim_lam_set(w, keep, ff(w), named(w, mim_var(w, keep), "x"));
    MimDef *use = lam(w, "use", nat, sigma2(w, nat, nat));
    MimDef *y = named(w, mim_var(w, use), "y");
    MimDef *body = pair(w, mim_app(w, keep, mim_app(w, inc, y)), mim_app(w, keep, y));
    mim_lam_set(w, use, tt(w), body);
    mim_make_external(w, use);
    return w;
}

static void test_use(void) {
    MimWorld *w = build_use();
    CHECK(!mim_world_has_error(w));
    CHECK(expect(w, NULL, ".import use.mim;",
                 ".import use.mim;\n"
                 "lam keep_$k x_$x: Nat: Nat = {\n"
                 "    x_$x\n"
                 "};\n"
                 "lam extern use y_$y: Nat: «2; Nat» = {\n"
                 "    let _$c: Nat = keep_$k y_$y;\n"
                 "    ‹2; _$c›\n"
                 "};\n"));
    MimPrintOptions rec = {.recursive = true};
    CHECK(expect(w, &rec, NULL,
                 "lam extern use y_$y: Nat: «2; Nat» = {\n"
                 "    let _$c: Nat = keep_$k y_$y;\n"
                 "    ‹2; _$c›\n"
                 "};\n"
                 "lam keep_$k x_$x: Nat: Nat = {\n"
                 "    x_$x\n"
                 "};\n"));
    mim_world_free(w);
}

/* ---- self-reference (the required fix of §2.2) ---------------------------------------- */

static void test_self_recursive_function(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *go = lam(w, "go", nat, nat);
    MimDef *x = named(w, mim_var(w, go), "x");
    mim_lam_set(w, go, ff(w), mim_app(w, go, x));
    MimDef *f = lam(w, "f", nat, nat);
    MimDef *y = named(w, mim_var(w, f), "y");
    mim_lam_set(w, f, tt(w), mim_app(w, go, y));
    mim_make_external(w, f);
    CHECK(!mim_world_has_error(w));
    CHECK(expect(w, NULL, NULL,
                 "lam go_$g x_$x: Nat: Nat = {\n"
                 "    go_$g x_$x\n"
                 "};\n"
                 "lam extern f y_$y: Nat: Nat = {\n"
                 "    go_$g y_$y\n"
                 "};\n"));
    mim_world_free(w);
}

static void test_rec_pi(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *P = named(w, mim_mut_pi(w, mim_star(w), false), "P"); /* rec P = Nat → P */
    mim_mut_set(w, P, 0, nat);
    mim_mut_set(w, P, 1, P);
    MimDef *h = lam(w, "h", P, P);
    MimDef *f = named(w, mim_var(w, h), "f");
    mim_lam_set(w, h, tt(w), f);
    mim_make_external(w, h);
    CHECK(!mim_world_has_error(w));
    CHECK(expect(w, NULL, NULL,
                 ".Pi P_$p: ★, Nat = {\n"
                 "    Nat, P_$p\n"
                 "};\n"
                 "lam extern h f_$f: P_$p: P_$p = {\n"
                 "    f_$f\n"
                 "};\n"));
    mim_world_free(w);
}

/* An unnamed recursive Pi is printed inline; the cycle is cut by its name. */
static void test_unnamed_cycle(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *P = mim_mut_pi(w, mim_star(w), false);
    mim_mut_set(w, P, 0, nat);
    mim_mut_set(w, P, 1, P);
    CHECK(expect_str(w, P, "Π Nat → _$p"));
    MimDef *h = lam(w, "h", P, nat);
    mim_lam_set(w, h, tt(w), mim_lit_nat(w, 1));
    mim_make_external(w, h);
    CHECK(expect(w, NULL, NULL,
                 "lam extern h Π Nat → _$p: Nat = {\n"
                 "    1\n"
                 "};\n"));
    mim_world_free(w);
}

/* ---- declaration blocks of non-functions, unset nodes ---------------------------------- */

static void test_sigma_block(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *Pair = named(w, mim_mut_sigma(w, mim_star(w), 2), "Pair");
    mim_mut_set(w, Pair, 0, nat);
    mim_mut_set(w, Pair, 1, nat);
    MimDef *pv = mim_var(w, Pair);
    named(w, mim_proj(w, pv, 2, 0), "fst");
    named(w, mim_proj(w, pv, 2, 1), "snd");
    MimDef *fn = lam(w, "first", Pair, nat);
    MimDef *p = named(w, mim_var(w, fn), "p");
    MimDef *e = mim_proj(w, p, 2, 0);
    mim_lam_set(w, fn, tt(w), e);
    mim_make_external(w, fn);
    CHECK(!mim_world_has_error(w));
    /* Reference quirk: the projections follow the element count directly. */
    CHECK(expect(w, NULL, NULL,
                 "Sigma Pair_$s: ★, 2fst_$f, snd_$g = {\n"
                 "    Nat, Nat\n"
                 "};\n"
                 "lam extern first p_$p::[_$e: Nat, Nat]: Nat = {\n"
                 "    _$e\n"
                 "};\n"));
    mim_world_free(w);
}

/* A named dependent Pi: its variable has arity 1, shown as `, @var`. */
static void test_pi_block(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *D = named(w, mim_mut_pi(w, mim_star(w), false), "D");
    mim_mut_set(w, D, 0, nat);
    MimDef *n = named(w, mim_var(w, D), "n");
    mim_mut_set(w, D, 1, mim_type_idx(w, n));
    MimDef *h = lam(w, "h", D, nat);
    mim_lam_set(w, h, tt(w), mim_lit_nat(w, 0));
    mim_make_external(w, h);
    CHECK(!mim_world_has_error(w));
    CHECK(expect(w, NULL, NULL,
                 ".Pi D_$d: ★, Nat, @n_$n = {\n"
                 "    Nat, Idx n_$n\n"
                 "};\n"
                 "lam extern h D_$d: Nat = {\n"
                 "    0\n"
                 "};\n"));
    MimPrintOptions ascii = {.ascii = true};
    char *s = mim_def_inline_str(w, D, &ascii);
    CHECK(s && match_gids("Π n_$: Nat -> Idx n_$", s));
    free(s);
    mim_world_free(w);
}

static void test_unset(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *g = lam(w, "g", nat, nat);
    mim_make_external(w, g);
    MimDef *c = con(w, "c", nat);
    mim_make_external(w, c);
    MimDef *decl = lam(w, "decl", nat, nat); /* a C declaration: never set */
    MimDef *f = lam(w, "f", nat, nat);
    MimDef *y = named(w, mim_var(w, f), "y");
    mim_lam_set(w, f, tt(w), mim_app(w, decl, y));
    mim_make_external(w, f);
    MimDef *S = named(w, mim_mut_sigma(w, mim_star(w), 2), "S");
    MimDef *h = lam(w, "h", S, nat);
    mim_lam_set(w, h, tt(w), mim_lit_nat(w, 1));
    mim_make_external(w, h);
    CHECK(!mim_world_has_error(w));
    CHECK(expect(w, NULL, NULL,
                 "con extern c Nat@(<nullptr>) = {\n"
                 "     <unset>\n"
                 "};\n"
                 "lam decl Nat: Nat = {\n"
                 "     <unset>\n"
                 "};\n"
                 "lam extern f y_$y: Nat: Nat = {\n"
                 "    decl y_$y\n"
                 "};\n"
                 "lam extern g Nat: Nat = {\n"
                 "     <unset>\n"
                 "};\n"
                 "S_$s: ★ = { <unset> };"
                 "lam extern h S_$s: Nat = {\n"
                 "    1\n"
                 "};\n"));
    MimPrintOptions g2 = {.dump_gid = 2};
    char *s = mim_def_inline_str(w, S, &g2);
    CHECK(s && match_gids("/*$*/unset", s));
    free(s);
    mim_world_free(w);
}

/* ---- scale: a long chain of helpers and deep let chains ------------------------------- */

static void test_many_functions(void) {
    MimWorld *w = mim_world_new();
    MimDef *nat = mim_nat(w);
    MimDef *nn = sigma2(w, nat, nat);
    MimDef *add = named(w, mim_axiom(w, mim_pi(w, nn, nat, false), UINT64_C(0x4321) << 16, NULL, 0, 0),
                        "%ex.add");
    enum { N = 3000 }; /* recursion follows the call chain: keep the test stack small */
    MimDef *prev = NULL;
    for (int i = 0; i < N; ++i) {
        MimDef *f = lam(w, "f", nat, nat);
        MimDef *x = mim_var(w, f);
        MimDef *body = mim_app(w, add, pair(w, x, x));
        if (prev) body = mim_app(w, prev, body);
        mim_lam_set(w, f, ff(w), body);
        prev = f;
    }
    mim_make_external(w, prev);
    CHECK(!mim_world_has_error(w));
    char *s = dump(w, NULL, NULL);
    size_t lams = 0, lets = 0;
    for (const char *p = s; (p = strstr(p, "\nlam ")); ++p) lams++;
    for (const char *p = s; (p = strstr(p, "let ")); ++p) lets++;
    CHECK(lams + 1 == N && lets == N - 1);
    CHECK(!strncmp(s, "lam f_", 6));
    free(s);
    mim_world_free(w);
}

/* ---- DOT (§8) ----------------------------------------------------------------------- */

static void test_dot(void) {
    MimWorld *w = build_identity();
    char *s = dot(w, false, false);
    const char *head = "digraph {\n    ordering=out;\n    splines=false;\n"
                       "    node [shape=box,style=filled];\n";
    CHECK(s && !strncmp(s, head, strlen(head)));
    CHECK(s && strstr(s, "style=\"filled,diagonals\"label=<id_"));
    CHECK(s && strstr(s, "<br/>lam>,fillcolor=\"0.166667 0.5 0.75\",rank=min,tooltip=\""));
    CHECK(s && strstr(s, "<br/>var>,fillcolor=\"0.866667 0.5 0.75\",tooltip=\""));
    CHECK(s && strstr(s, "<br/>tt\n>,fillcolor=\"0.766667 0.5 0.75\",rank=min,"));
    CHECK(s && strstr(s, "[taillabel=\"0\",fontcolor=\"#00000000\",color=\"#00000000\",constraint=false];\n"));
    CHECK(s && strstr(s, "[taillabel=\"1\",];\n"));
    CHECK(s && !strstr(s, "style=dashed"));
    CHECK(s && !strcmp(s + strlen(s) - 2, "}\n"));
    free(s);
    s = dot(w, true, false);
    CHECK(s && strstr(s, "[color=\"#00000000\",constraint=false,style=dashed];\n"));
    CHECK(s && strstr(s, "<br/>pi>"));
    free(s);
    mim_world_free(w);
}

int main(void) {
    RUN(test_identity);
    RUN(test_holes);
    RUN(test_add);
    RUN(test_nested);
    RUN(test_literals);
    RUN(test_ret);
    RUN(test_dependent);
    RUN(test_use);
    RUN(test_self_recursive_function);
    RUN(test_rec_pi);
    RUN(test_unnamed_cycle);
    RUN(test_sigma_block);
    RUN(test_pi_block);
    RUN(test_unset);
    RUN(test_many_functions);
    RUN(test_dot);
    return unit_summary();
}
