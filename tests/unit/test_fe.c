/* Unit tests of the Mim front end (lexer, parser, binder, annex numbering,
 * Markdown echo, imports) through fe.h and the internal lexer API. Expected
 * values are derived from language.md / semantics.md §12 / output-format.md. */
#define _POSIX_C_SOURCE 200809L
#include "fe/fe.h"
#include "fe/fe_impl.h"
#include "fe/lexer.h"
#include "mim/world.h"
#include "unit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------------ */

typedef struct Run {
    MimWorld *w;
    MimDiag diag;
    MimFe *fe;
    bool ok;
} Run;

static void run_begin(Run *r, const char *const *paths, size_t n) {
    r->w = mim_world_new();
    mim_diag_init(&r->diag);
    static const char *const cwd[] = {""};
    r->fe = mim_fe_new(r->w, &r->diag, paths ? paths : cwd, paths ? n : 1, false);
}

static void run_end(Run *r) {
    mim_fe_free(r->fe);
    mim_diag_free(&r->diag);
    mim_world_free(r->w);
}

static void run_text(Run *r, const char *text) {
    run_begin(r, NULL, 0);
    mim_fe_parse_text(r->fe, "t.mim", text, strlen(text));
    r->ok = mim_fe_bind(r->fe);
}

/* All messages as "row:col[-row:col]: severity: text\n". */
static char *diag_text(const MimDiag *d) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    static const char *const sev[] = {"error", "warning", "note"};
    for (size_t i = 0; i < d->len; ++i) {
        MimLoc l = d->msgs[i].loc;
        if (l.begin.row == 0) fprintf(f, "?");
        else fprintf(f, "%u:%u", l.begin.row, l.begin.col);
        if (l.end.row && (l.end.row != l.begin.row || l.end.col != l.begin.col))
            fprintf(f, "-%u:%u", l.end.row, l.end.col);
        fprintf(f, ": %s: %s\n", sev[d->msgs[i].sev], d->msgs[i].text);
    }
    fclose(f);
    return buf;
}

/* Does the diagnostics text contain `needle`? Prints everything on failure. */
static bool diag_has(Run *r, const char *needle) {
    char *s = diag_text(&r->diag);
    bool ok = strstr(s, needle) != NULL;
    if (!ok) fprintf(stderr, "  missing <%s> in:\n%s", needle, s);
    free(s);
    return ok;
}

static bool diag_empty(Run *r) {
    if (r->diag.len == 0) return true;
    char *s = diag_text(&r->diag);
    fprintf(stderr, "  unexpected messages:\n%s", s);
    free(s);
    return false;
}

/* Expect exactly these diagnostics (joined lines). */
static bool diag_is(Run *r, const char *expected) {
    char *s = diag_text(&r->diag);
    bool ok = strcmp(s, expected) == 0;
    if (!ok) fprintf(stderr, "  expected:\n%s  got:\n%s", expected, s);
    free(s);
    return ok;
}

static char *ast_text(Run *r) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    mim_fe_print_ast(r->fe, f);
    fclose(f);
    return buf;
}

static bool ast_is(Run *r, const char *expected) {
    char *s = ast_text(r);
    bool ok = strcmp(s, expected) == 0;
    if (!ok) fprintf(stderr, "  AST expected:\n%s  got:\n%s", expected, s);
    free(s);
    return ok;
}

/* Checks that `text` alone is accepted and yields the errors `expected`. */
static bool errors_of(const char *text, const char *expected) {
    Run r;
    run_text(&r, text);
    bool ok = diag_is(&r, expected);
    run_end(&r);
    return ok;
}

/* The first diagnostic of `text` is `expected` (later ones are recovery noise). */
static bool first_error(const char *text, const char *expected) {
    Run r;
    run_text(&r, text);
    char *s = diag_text(&r.diag);
    bool ok = strncmp(s, expected, strlen(expected)) == 0;
    if (!ok) fprintf(stderr, "  first message expected:\n%s  got:\n%s", expected, s);
    free(s);
    run_end(&r);
    return ok;
}

static bool accepted(const char *text) {
    Run r;
    run_text(&r, text);
    bool ok = r.ok && diag_empty(&r);
    run_end(&r);
    return ok;
}

/* Lex `text` into at most `max` tokens (EOF included). */
static size_t lex_all(MimWorld *w, MimDiag *d, MimArena *a, const char *text, MimTok *out, size_t max) {
    MimLexer lx;
    mim_lexer_init(&lx, w, a, d, "t.mim", text, strlen(text), NULL);
    size_t n = 0;
    while (n < max) {
        out[n] = mim_lex(&lx);
        if (out[n++].kind == MIM_TOK_EOF) break;
    }
    mim_lexer_fini(&lx);
    return n;
}

typedef struct LexRun {
    MimWorld *w;
    MimDiag diag;
    MimArena arena;
    MimTok toks[64];
    size_t n;
} LexRun;

static void lex_begin(LexRun *l, const char *text) {
    l->w = mim_world_new();
    mim_diag_init(&l->diag);
    mim_arena_init(&l->arena);
    l->n = lex_all(l->w, &l->diag, &l->arena, text, l->toks, 64);
}

static void lex_end(LexRun *l) {
    mim_arena_free(&l->arena);
    mim_diag_free(&l->diag);
    mim_world_free(l->w);
}

/* The token kinds of `text` equal `kinds` (terminated by EOF). */
static bool kinds_are(const char *text, const MimTokKind *kinds) {
    LexRun l;
    lex_begin(&l, text);
    bool ok = true;
    for (size_t i = 0;; ++i) {
        if (i >= l.n || l.toks[i].kind != kinds[i]) {
            fprintf(stderr, "  %s: token %zu is %s, expected %s\n", text, i,
                    i < l.n ? mim_tok_kind_str(l.toks[i].kind) : "(none)", mim_tok_kind_str(kinds[i]));
            ok = false;
            break;
        }
        if (kinds[i] == MIM_TOK_EOF) break;
    }
    lex_end(&l);
    return ok;
}

#define KINDS(text, ...) kinds_are(text, (const MimTokKind[]){__VA_ARGS__, MIM_TOK_EOF})

/* ---- lexer --------------------------------------------------------------------- */

static void test_alternatives(void) {
    CHECK(KINDS("( ) [ ] { }", MIM_TOK_LPAREN, MIM_TOK_RPAREN, MIM_TOK_LBRACKET, MIM_TOK_RBRACKET, MIM_TOK_LBRACE,
                MIM_TOK_RBRACE));
    CHECK(KINDS("‹ < ⟨ › > ⟩", MIM_TOK_LPACK, MIM_TOK_LPACK, MIM_TOK_LPACK, MIM_TOK_RPACK, MIM_TOK_RPACK,
                MIM_TOK_RPACK));
    CHECK(KINDS("« << ⟪ » >> ⟫", MIM_TOK_LARR, MIM_TOK_LARR, MIM_TOK_LARR, MIM_TOK_RARR, MIM_TOK_RARR,
                MIM_TOK_RARR));
    CHECK(KINDS("→ -> ⊥ bot ⊤ top * ★ □ λ lm", MIM_TOK_ARROW, MIM_TOK_ARROW, MIM_TOK_BOT, MIM_TOK_BOT, MIM_TOK_TOP,
                MIM_TOK_TOP, MIM_TOK_STAR, MIM_TOK_STAR, MIM_TOK_BOX, MIM_TOK_LAMBDA, MIM_TOK_LAMBDA));
    CHECK(KINDS("= , ; : # @ $ .", MIM_TOK_ASSIGN, MIM_TOK_COMMA, MIM_TOK_SEMI, MIM_TOK_COLON, MIM_TOK_HASH,
                MIM_TOK_AT, MIM_TOK_DOLLAR, MIM_TOK_DOT));
    CHECK(KINDS("ins insert", MIM_TOK_INS, MIM_TOK_INS));
    /* maximal munch: >>> is » then › */
    CHECK(KINDS(">>>", MIM_TOK_RARR, MIM_TOK_RPACK));
    CHECK(KINDS("<<<", MIM_TOK_LARR, MIM_TOK_LPACK));
}

static void test_keywords(void) {
    CHECK(KINDS("module import plugin and as axm let rec ret where end", MIM_TOK_MODULE, MIM_TOK_IMPORT,
                MIM_TOK_PLUGIN, MIM_TOK_AND, MIM_TOK_AS, MIM_TOK_AXM, MIM_TOK_LET, MIM_TOK_REC, MIM_TOK_RET,
                MIM_TOK_WHERE, MIM_TOK_END));
    CHECK(KINDS("Nat Idx extern Type Univ Cn Fn con fun lam ccon cfun cn fn", MIM_TOK_NAT, MIM_TOK_IDX,
                MIM_TOK_EXTERN, MIM_TOK_TYPE, MIM_TOK_UNIV, MIM_TOK_CN_TYPE, MIM_TOK_FN_TYPE, MIM_TOK_CON,
                MIM_TOK_FUN, MIM_TOK_LAM, MIM_TOK_CCON, MIM_TOK_CFUN, MIM_TOK_CN, MIM_TOK_FN));
    CHECK(KINDS("ff tt i1 i8 i16 i32 i64 Bool I1 I8 I16 I32 I64", MIM_TOK_FF, MIM_TOK_TT, MIM_TOK_i1, MIM_TOK_i8,
                MIM_TOK_i16, MIM_TOK_i32, MIM_TOK_i64, MIM_TOK_BOOL, MIM_TOK_I1, MIM_TOK_I8, MIM_TOK_I16,
                MIM_TOK_I32, MIM_TOK_I64));
    /* whole identifiers are compared; `return` is not a keyword */
    CHECK(KINDS("let.x Nat2 return _ a.b.c", MIM_TOK_ID, MIM_TOK_ID, MIM_TOK_ID, MIM_TOK_ID, MIM_TOK_ID));
    CHECK(KINDS("%core.nat.add %x", MIM_TOK_ANNEX, MIM_TOK_ANNEX));
    /* letters after a number start a new token */
    CHECK(KINDS("23ab", MIM_TOK_INT, MIM_TOK_ID));
}

static void test_identifier_text(void) {
    LexRun l;
    lex_begin(&l, "a.b %p.t.s _x9");
    CHECK(l.n == 4);
    CHECK(strcmp(l.toks[0].v.sym, "a.b") == 0);
    CHECK(strcmp(l.toks[1].v.sym, "%p.t.s") == 0);
    CHECK(strcmp(l.toks[2].v.sym, "_x9") == 0);
    CHECK(l.diag.len == 0);
    lex_end(&l);
}

static bool int_is(const char *text, uint64_t v) {
    LexRun l;
    lex_begin(&l, text);
    bool ok = l.n == 2 && l.toks[0].kind == MIM_TOK_INT && l.toks[0].v.u == v && l.diag.len == 0;
    if (!ok) fprintf(stderr, "  %s: kind %s value %llu\n", text, mim_tok_kind_str(l.toks[0].kind),
                     (unsigned long long)l.toks[0].v.u);
    lex_end(&l);
    return ok;
}

static bool idx_is(const char *text, uint64_t v, uint64_t size) {
    LexRun l;
    lex_begin(&l, text);
    bool ok = l.n == 2 && l.toks[0].kind == MIM_TOK_INDEX && l.toks[0].v.idx.value == v &&
              l.toks[0].v.idx.size == size && l.diag.len == 0;
    if (!ok) fprintf(stderr, "  %s: kind %s value %llu size %llu\n", text, mim_tok_kind_str(l.toks[0].kind),
                     (unsigned long long)l.toks[0].v.idx.value, (unsigned long long)l.toks[0].v.idx.size);
    lex_end(&l);
    return ok;
}

static bool float_is(const char *text, double v) {
    LexRun l;
    lex_begin(&l, text);
    bool ok = l.n == 2 && l.toks[0].kind == MIM_TOK_FLOAT && l.toks[0].v.f == v && l.diag.len == 0;
    if (!ok) fprintf(stderr, "  %s: kind %s value %g\n", text, mim_tok_kind_str(l.toks[0].kind), l.toks[0].v.f);
    lex_end(&l);
    return ok;
}

/* The bytewise scanner of the frequent tokens (identifiers, keywords,
 * one-byte punctuation, plain decimal integers) gives what the general one
 * gives: a Markdown echo turns it off, so the same text lexed with and
 * without an echo must give the same tokens, positions and payloads. */
static bool same_tokens_both_scanners(const char *text) {
    MimWorld *w = mim_world_new();
    MimDiag d1, d2;
    MimArena a;
    mim_diag_init(&d1);
    mim_diag_init(&d2);
    mim_arena_init(&a);
    FILE *md = fopen("/dev/null", "w");
    MimLexer fast, slow;
    mim_lexer_init(&fast, w, &a, &d1, "t.mim", text, strlen(text), NULL);
    mim_lexer_init(&slow, w, &a, &d2, "t.mim", text, strlen(text), md);
    bool ok = md != NULL;
    for (size_t i = 0; ok && i < 1000; ++i) {
        MimTok x = mim_lex(&fast), y = mim_lex(&slow);
        ok = x.kind == y.kind && x.loc.begin.row == y.loc.begin.row && x.loc.begin.col == y.loc.begin.col &&
             x.loc.end.row == y.loc.end.row && x.loc.end.col == y.loc.end.col && x.len == y.len &&
             x.is_signed == y.is_signed &&
             (x.kind == MIM_TOK_STRING ? memcmp(x.v.bytes, y.v.bytes, x.len) == 0
                                       : memcmp(&x.v, &y.v, sizeof x.v) == 0);
        if (!ok)
            fprintf(stderr, "  token %zu: %s %u:%u-%u:%u vs %s %u:%u-%u:%u\n", i, mim_tok_kind_str(x.kind),
                    x.loc.begin.row, x.loc.begin.col, x.loc.end.row, x.loc.end.col, mim_tok_kind_str(y.kind),
                    y.loc.begin.row, y.loc.begin.col, y.loc.end.row, y.loc.end.col);
        if (x.kind == MIM_TOK_EOF) break;
    }
    mim_lexer_fini(&fast);
    mim_lexer_fini(&slow);
    if (md) fclose(md);
    mim_arena_free(&a);
    mim_diag_free(&d1);
    mim_diag_free(&d2);
    mim_world_free(w);
    return ok;
}

static void test_fast_scanner(void) {
    CHECK(same_tokens_both_scanners("\nfun f (x: Nat): Nat = %core.nat.add (x, 1);\n\tlet y = x#0_2; con c3 @(tt) = ret"));
    CHECK(same_tokens_both_scanners("0 007 42 12abc 12b 0x1F 0b101 0o17 1.5 1e3 5_8 3\u2084 255I8 12i8 +3 -4 .5"));
    CHECK(same_tokens_both_scanners("9999999999999999999 99999999999999999999 18446744073709551615 123456789012"));
    CHECK(same_tokens_both_scanners("( ) [ ] { } * = , ; : # @ $ . < << -> \u2192 // c\n/* b */ x.y _z Type Idx Cn"));
    CHECK(same_tokens_both_scanners("  \r\n\v\f x 'a' \"s\" \u03bb y \u00e9 z"));
    CHECK(same_tokens_both_scanners("abc"));
    CHECK(same_tokens_both_scanners("17"));
    CHECK(same_tokens_both_scanners("\n\n  x\n  y"));
}

static void test_numbers(void) {
    CHECK(int_is("42", 42));
    CHECK(int_is("0x2a", 42));
    CHECK(int_is("0X2A", 42));
    CHECK(int_is("0b101010", 42));
    CHECK(int_is("0B11", 3));
    CHECK(int_is("0o52", 42));
    CHECK(int_is("0O7", 7));
    CHECK(int_is("007", 7));
    CHECK(int_is("-1", UINT64_MAX));
    CHECK(int_is("+5", 5));
    CHECK(int_is("-0x10", (uint64_t)-16));
    CHECK(int_is("18446744073709551615", UINT64_MAX));
    CHECK(int_is("99999999999999999999999", UINT64_MAX));     /* strtoull saturates */
    CHECK(int_is("-99999999999999999999999", (uint64_t)INT64_MIN)); /* strtoll saturates */
    CHECK(int_is("+99999999999999999999999", (uint64_t)INT64_MAX));
    CHECK(int_is("0x", 0));
}

static void test_index_literals(void) {
    CHECK(idx_is("3₄", 3, 4));
    CHECK(idx_is("3_4", 3, 4));
    CHECK(idx_is("5_3", 2, 3));
    CHECK(idx_is("0_2", 0, 2));
    CHECK(idx_is("1_2", 1, 2));
    CHECK(idx_is("9_0", 9, 0));
    CHECK(idx_is("12₁₀", 2, 10));
    CHECK(idx_is("42I8", 42, 256));
    CHECK(idx_is("42i8", 42, 256));
    CHECK(idx_is("0xffI8", 255, 256));
    CHECK(idx_is("1I1", 1, 2));
    CHECK(idx_is("7I64", 7, 0));
    CHECK(idx_is("-1I64", UINT64_MAX, 0));
    CHECK(idx_is("65535i16", 65535, 65536));
    /* a sign or a base prefix disables subscripts and _n */
    CHECK(KINDS("-3_4", MIM_TOK_INT, MIM_TOK_ID));
    CHECK(KINDS("0x3_4", MIM_TOK_INT, MIM_TOK_ID));
}

static void test_index_literal_errors(void) {
    Run r;
    run_text(&r, "let x = 256I8;");
    CHECK(!r.ok);
    CHECK(diag_is(&r, "1:9-1:13: error: index '256' does not fit within arity '256'\n"));
    run_end(&r);
    /* fatal: later lexical and syntax errors are not reported */
    run_text(&r, "let x = -1I8; ) ) 'ab");
    CHECK(!r.ok);
    CHECK(diag_is(&r, "1:9-1:12: error: index '256' does not fit within arity '18446744073709551615'\n"));
    run_end(&r);
    CHECK(errors_of("let x = 3_;", "1:9-1:10: error: stray underscore in Idx literal; size is missing\n"));
}

static void test_floats(void) {
    CHECK(float_is("2.5", 2.5));
    CHECK(float_is("2.", 2.0));
    CHECK(float_is(".25", 0.25));
    CHECK(float_is("2e3", 2000.0));
    CHECK(float_is("2.5E-3", 2.5e-3));
    CHECK(float_is("-0x1.8p1", -3.0));
    CHECK(float_is("0x1p4", 16.0));
    CHECK(float_is("+1.5e+2", 150.0));
    CHECK(float_is("-.5", -0.5));
    CHECK(float_is("1e400", HUGE_VAL)); /* overflow: HUGE_VAL as strtod */
    /* base 2/8 have no fraction: `0b1.` is 1 then `.` */
    CHECK(KINDS("0b1.", MIM_TOK_INT, MIM_TOK_DOT));
}

static void test_float_errors(void) {
    CHECK(errors_of("axm %math.F64: *; let x = 1e:%math.F64;", "1:29: error: exponent has no digits\n"));
    CHECK(errors_of("axm %math.F64: *; let x = 0x1.8:%math.F64;",
                    "1:27-1:31: error: hexadecimal floating constants require an exponent\n"));
    CHECK(errors_of("let x = 2.5;", "1:9-1:11: error: type annotation mandatory for floating point literal\n"));
    CHECK(accepted("axm %math.F64: *; let x = 2.5:%math.F64;"));
}

static void test_chars_strings(void) {
    LexRun l;
    lex_begin(&l, "'x' '\\n' '\\'' '\\0' \"ab\\tc\" \"\"");
    CHECK(l.n == 7);
    CHECK(l.toks[0].kind == MIM_TOK_CHAR && l.toks[0].v.idx.value == 'x' && l.toks[0].v.idx.size == 256);
    CHECK(l.toks[1].v.idx.value == '\n');
    CHECK(l.toks[2].v.idx.value == '\'');
    CHECK(l.toks[3].v.idx.value == 0);
    CHECK(l.toks[4].kind == MIM_TOK_STRING && l.toks[4].len == 4 && memcmp(l.toks[4].v.bytes, "ab\tc", 4) == 0);
    CHECK(l.toks[5].kind == MIM_TOK_STRING && l.toks[5].len == 0);
    CHECK(l.diag.len == 0);
    lex_end(&l);
    /* the \" quirk: the escaped quote terminates the string, `b"` follows */
    lex_begin(&l, "\"a\\\"b");
    CHECK(l.toks[0].kind == MIM_TOK_STRING && l.toks[0].len == 1);
    CHECK(l.toks[1].kind == MIM_TOK_ID && strcmp(l.toks[1].v.sym, "b") == 0);
    lex_end(&l);
    /* all escapes */
    lex_begin(&l, "\"\\'\\\\\\0\\a\\b\\f\\n\\r\\t\\v\"");
    CHECK(l.toks[0].kind == MIM_TOK_STRING && l.toks[0].len == 10 &&
          memcmp(l.toks[0].v.bytes, "'\\\0\a\b\f\n\r\t\v", 10) == 0);
    CHECK(l.diag.len == 0);
    lex_end(&l);
}

static void test_char_string_errors(void) {
    /* no token for a broken char literal: `b` follows, then `';` is broken too */
    CHECK(errors_of("let x = 'ab';", "1:9-1:10: error: invalid character literal 'a\n"
                                     "1:12-1:13: error: invalid character literal ';\n"
                                     "1:11: error: 'b' not found\n"));
    CHECK(errors_of("let x = '\\q';", "1:10-1:11: error: invalid escape character '\\q'\n"));
    CHECK(errors_of("let x = \"\\q\";", "1:10-1:11: error: invalid escape character '\\q'\n"));
    CHECK(errors_of("let x = 'é';", "1:10: error: invalid character 'é'\n"));
    CHECK(errors_of("let x = \"aé\";", "1:11: error: invalid character 'é'\n"));
    CHECK(errors_of("let x = \"abc", "1:9-1:12: error: unterminated string literal\n"));
    CHECK(errors_of("let x = 'a", "1:9-1:10: error: invalid character literal 'a\n"
                                  "1:11: error: expected primary expression, got '<end of file>' while parsing value of a let declaration\n"));
    CHECK(errors_of("let x = 'a':I8;", "1:13-1:14: error: a <character literal> shall not have a type annotation\n"));
    CHECK(errors_of("let x = 1_2:I8;", "1:13-1:14: error: a <index literal> shall not have a type annotation\n"));
    CHECK(errors_of("let x = \"a\":I8;", "1:13-1:14: error: a <string literal> shall not have a type annotation\n"));
}

static void test_lexical_errors(void) {
    CHECK(errors_of("let x = 1 / 2;", "1:11: error: invalid input char '/'; maybe you wanted to start a comment?\n"));
    CHECK(errors_of("let x = - 2;", "1:9: error: stray '-'\n"));
    CHECK(errors_of("let x = + 2;", "1:9: error: stray '+'\n"));
    CHECK(errors_of("let x = %;", "1:9: error: invalid axiom name '%'\n"
                                  "1:10: error: expected primary expression, got ';' while parsing value of a let declaration\n"));
    CHECK(errors_of("let x = 1; /* abc\n\n", "1:12-2:1: error: non-terminated multiline comment\n"));
    CHECK(errors_of("let x = 1 & 2;", "1:11: error: invalid input char '&'\n"));
    CHECK(errors_of("let x = \xff 1;", "1:9: error: invalid UTF-8 character\n"));
    CHECK(errors_of("let \xc3 x = 1;", "1:5: error: invalid UTF-8 character\n"));
    CHECK(errors_of("// \xff in a comment\nlet x = 1;", "1:4: error: invalid UTF-8 character\n"));
    CHECK(accepted("\xef\xbb\xbflet x = 1; // comment\n/* multi\nline */ let y = x; /// md"));
}

static void test_positions(void) {
    LexRun l;
    lex_begin(&l, "a\n\tλx  ->\n  %p.t");
    CHECK(l.toks[0].loc.begin.row == 1 && l.toks[0].loc.begin.col == 1);
    CHECK(l.toks[1].kind == MIM_TOK_LAMBDA && l.toks[1].loc.begin.row == 2 && l.toks[1].loc.begin.col == 2);
    CHECK(l.toks[2].kind == MIM_TOK_ID && l.toks[2].loc.begin.col == 3); /* code points, tab = 1 */
    CHECK(l.toks[3].kind == MIM_TOK_ARROW && l.toks[3].loc.begin.col == 6 && l.toks[3].loc.end.col == 7);
    CHECK(l.toks[4].loc.begin.row == 3 && l.toks[4].loc.begin.col == 3 && l.toks[4].loc.end.col == 6);
    lex_end(&l);
    /* quirk: a leading newline is not counted */
    lex_begin(&l, "\n\nx");
    CHECK(l.toks[0].loc.begin.row == 2 && l.toks[0].loc.begin.col == 1);
    lex_end(&l);
}

/* ---- Markdown ----------------------------------------------------------------------- */

static char *md_of(const char *text) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    Run r;
    run_begin(&r, NULL, 0);
    mim_fe_set_md(r.fe, f);
    mim_fe_parse_text(r.fe, "t.mim", text, strlen(text));
    run_end(&r);
    fclose(f);
    return buf;
}

static bool md_is(const char *text, const char *expected) {
    char *s = md_of(text);
    bool ok = strcmp(s, expected) == 0;
    if (!ok) fprintf(stderr, "  md expected:\n[%s]\n  got:\n[%s]\n", expected, s);
    free(s);
    return ok;
}

static void test_markdown(void) {
    CHECK(md_is("/// # Demo\n/// Adds things.\naxm %demo.add: [Nat, Nat] → Nat;\n",
                "# Demo\nAdds things.\n```\naxm %demo.add: [Nat, Nat] → Nat;\n\n```\n"));
    CHECK(md_is("let x = 1;\n", "```\nlet x = 1;\n\n```\n"));
    CHECK(md_is("let x = 1;\n///  two spaces\n", "```\nlet x = 1;\n```\n two spaces\n"));
    CHECK(md_is("let x = 1; /// mid\nlet y = 2;", "```\nlet x = 1; ```\nmid\n```\nlet y = 2;\n```\n"));
    CHECK(md_is("///a", "a"));
    CHECK(md_is("", "```\n\n```\n"));
}

/* ---- syntax ------------------------------------------------------------------------- */

static void test_syntax_errors(void) {
    CHECK(errors_of("let x = 1; )", "1:12: error: expected '<end of file>', got ')' while parsing module\n"));
    CHECK(errors_of("let f = 0; let x = f 1; where",
                    "1:25-1:29: error: expected '<end of file>', got 'where' while parsing module\n"
                    "1:25-1:29: note: did you accidentally end your declaration expression with a ';'?\n"));
    /* the codomain is parsed at Arrow level: `Nat x` would be an application */
    CHECK(errors_of("lam f (x: Nat): Nat;", "1:20: error: expected '=', got ';' while parsing function declaration\n"));
    CHECK(errors_of("let x = (1, 2;", "1:14: error: expected ')', got ';' while parsing tuple\n"));
    CHECK(errors_of("let x = «2; Nat;", "1:16: error: expected '»', got ';' while parsing array\n"));
    CHECK(errors_of("let x = ‹2; 0 ;", "1:15: error: expected '›', got ';' while parsing pack\n"));
    CHECK(first_error("axm Nat: *;", "1:5-1:7: error: expected annex name, got 'Nat' while parsing axiom\n"));
    CHECK(errors_of("axm %a.b;", "1:9: error: expected ':', got ';' while parsing axiom\n"));
    CHECK(errors_of("let x = .;", "1:9: error: expected primary expression, got '.' while parsing value of a let declaration\n"));
    CHECK(first_error("let x = ins(1, 2);", "1:17: error: expected ',', got ')' while parsing insert expression\n"));
    CHECK(first_error("con f (x: Nat) = ret y = f 1;", "1:29: error: expected '$', got ';' while parsing ret expression\n"));
    CHECK(errors_of("con f (x: Nat) = ret y = f $ 1 2;",
                    "1:34: error: expected primary expression, got '<end of file>' while parsing body of a ret expression\n"));
    CHECK(errors_of("let x: Nat = [Nat, Nat] as ab;",
                    "1:30: error: expected '→', got ';' while parsing function type\n"));
    CHECK(errors_of("let f = Fn [Nat];", "1:17: error: expected '→', got ';' while parsing returning continuation type\n"));
    CHECK(errors_of("axm %a.b: Nat; import c;", "1:16-1:21: error: expected '<end of file>', got 'import' while parsing module\n"));
    CHECK(errors_of("import \"mem\";",
                    "1:8-1:12: error: expected identifier, got 'mem' while parsing import directive\n"));
    CHECK(errors_of("con f (x: Nat): Nat = f x;", "1:17-1:19: error: a continuation shall not have a codomain\n"));
    CHECK(errors_of("let f = cn (x: Nat): Nat = f x;", "1:22-1:24: error: a continuation shall not have a codomain\n"
                                                        "1:28: error: 'f' not found\n"));
    CHECK(errors_of("rec X = Nat;", "1:9-1:11: error: unsupported expression for a recursive declaration\n"));
    CHECK(errors_of("let x = (1, 2) as y;",
                    "1:16-1:17: error: expected '<end of file>', got 'as' while parsing module\n"));
    /* paren-style element `[A, B] → C` is a syntax error */
    CHECK(first_error("lam f ([Nat, Nat] → Nat) = 0;", "1:19: error: expected ')', got '→' while parsing tuple pattern\n"));
    /* `(T x)` in paren style is an application; an arrow after it is an error */
    CHECK(first_error("let T = 0; lam f (T x → Nat) = 0;", "1:23: error: expected ')', got '→' while parsing tuple pattern\n"));
    /* an annex name cannot start a paren-style element */
    CHECK(first_error("lam f (%a.T x) = 0;",
                      "1:8-1:11: error: expected pattern, got '%a.T' while parsing element of a tuple pattern\n"));
}

static void test_recovery_continues(void) {
    Run r;
    run_text(&r, "let a = (1, ;\nlet b = [Nat;\nlet c = undefined_name;");
    CHECK(!r.ok);
    CHECK(diag_has(&r, "1:13: error: expected primary expression, got ';' while parsing tuple element"));
    CHECK(diag_has(&r, "2:13: error: expected ']', got ';' while parsing tuple pattern"));
    CHECK(diag_has(&r, "3:9-3:22: error: 'undefined_name' not found"));
    run_end(&r);
}

static void test_truncated_and_garbage(void) {
    static const char *const cases[] = {
        "lam",          "lam f",        "lam f (",        "lam f (x:",     "lam f (x: Nat",  "lam f (x: Nat)",
        "lam f (x: Nat):", "lam f (x: Nat): Nat =", "axm %a.b(", "axm %a.b(x =", "axm %a.b: Nat,", "axm %a.b: Nat, n,",
        "let",          "let (",        "let [a",         "let x = «",     "let x = ‹i:",    "let x = ret",
        "let x = ins(", "rec",          "rec X: * = [",   "ccon",          "cfun f [Nat]",   "let x = f where",
        "let x = {",    "let x = Cn",   "let x = Fn [A]", "let x = λ",     "import",         "plugin x",
        "let x = e#",   "let x = (a b", "let x = Type",   "lam f (x: Nat) @", "let x = [[A] →", "\"",
        "'",            "/*",           "%",              "-",             "0x1.",           "1_",
        ")))]]]}}}",    "and and and",  "= = = , , ,",    "let x = 1 where let y = 2",
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        Run r;
        run_text(&r, cases[i]);
        if (r.ok) fprintf(stderr, "  accepted truncated input <%s>\n", cases[i]);
        CHECK(!r.ok);
        run_end(&r);
    }
    /* pseudo-random binary garbage, fixed seed */
    uint64_t s = 0x1234567;
    for (int round = 0; round < 50; ++round) {
        char buf[512];
        for (size_t i = 0; i + 1 < sizeof buf; ++i) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            buf[i] = (char)(s >> 56);
            if (!buf[i]) buf[i] = ' ';
        }
        buf[sizeof buf - 1] = '\0';
        Run r;
        run_text(&r, buf);
        CHECK(!r.ok);
        run_end(&r);
    }
    /* token soup of valid tokens */
    static const char *const toks[] = {"(", ")", "[", "]", "{", "}", "«", "»", "‹", "›", "→", "=", ",", ";", ":",
                                       "#", "@", "$", "let", "lam", "fn", "cn", "λ", "rec", "and", "where", "end",
                                       "ret", "x", "%a.b", "1", "2.5", "Nat", "Cn", "Fn", "axm", "as", "ins", "Type"};
    for (int round = 0; round < 200; ++round) {
        char buf[2048] = "";
        size_t len = 0;
        for (int i = 0; i < 60; ++i) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            const char *t = toks[(s >> 33) % (sizeof toks / sizeof *toks)];
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s ", t);
        }
        Run r;
        run_text(&r, buf);
        run_end(&r);
    }
}

static void test_deep_nesting(void) {
    size_t n = 100000;
    char *text = malloc(n + 64);
    strcpy(text, "let x = ");
    size_t len = strlen(text);
    memset(text + len, '(', n);
    text[len + n] = '\0';
    Run r;
    run_text(&r, text);
    CHECK(!r.ok);
    CHECK(r.diag.num_errors == 1);
    CHECK(diag_has(&r, "nesting too deep"));
    run_end(&r);
    /* also for brackets / patterns and arrows */
    memset(text + len, '[', n);
    run_text(&r, text);
    CHECK(r.diag.num_errors == 1);
    run_end(&r);
    free(text);
    /* a balanced nesting below the limit is fine */
    char buf[4096] = "let x = ";
    for (int i = 0; i < 500; ++i) strcat(buf, "(");
    strcat(buf, "1");
    for (int i = 0; i < 500; ++i) strcat(buf, ")");
    strcat(buf, ";");
    CHECK(accepted(buf));
}

static void test_many_decls(void) {
    size_t n = 100000;
    char *text = malloc(n * 40);
    size_t len = 0;
    len += (size_t)sprintf(text + len, "let x0 = 0;\n");
    for (size_t i = 1; i < n; ++i) len += (size_t)sprintf(text + len, "let x%zu = x%zu;\n", i, i - 1);
    /* a long application chain is iterative in the binder */
    len += (size_t)sprintf(text + len, "let app = x0");
    for (size_t i = 0; i < n; ++i) len += (size_t)sprintf(text + len, " x1");
    len += (size_t)sprintf(text + len, ";\n");
    Run r;
    run_text(&r, text);
    CHECK(r.ok);
    CHECK(mim_fe_input(r.fe)->num_decls == n + 1);
    run_end(&r);
    free(text);
}

/* ---- AST shapes --------------------------------------------------------------------- */

static bool ast_of(const char *text, const char *expected) {
    Run r;
    run_text(&r, text);
    bool ok = ast_is(&r, expected);
    if (!r.ok) {
        char *s = diag_text(&r.diag);
        fprintf(stderr, "  errors for <%s>:\n%s", text, s);
        free(s);
        ok = false;
    }
    run_end(&r);
    return ok;
}

static void test_ast_shapes(void) {
    CHECK(ast_of("lam f (a b: Nat): Nat = a;", "lam f(a, b: Nat): Nat = a;\n"));
    CHECK(ast_of("axm %x.T: *; let y = %x.T → %x.T → %x.T;", "axm %x.T: *;\nlet y = %x.T -> %x.T -> %x.T;\n"));
    /* application binds tighter than →, extraction tighter than application */
    CHECK(ast_of("axm %x.F: Nat → *; let y = %x.F 1 → %x.F 2;", "axm %x.F: Nat -> *;\nlet y = %x.F  1 -> %x.F  2;\n"));
    CHECK(ast_of("let t = (1, 2); let f = λ (x: Nat): Nat = x; let y = f t#0_2;",
                 "let t = (1, 2);\nlet f = λ(x: Nat): Nat = x;;;\nlet y = f  t#ff;\n"));
    CHECK(ast_of("let t = (1, (2, 3)); let y = t#1_2#0_2;", "let t = (1, (2, 3));\nlet y = t#tt#ff;\n"));
    CHECK(ast_of("let f = λ (x: Nat): Nat = x; let y = f @ 1;",
                 "let f = λ(x: Nat): Nat = x;;;\nlet y = f @ 1;\n"));
    CHECK(ast_of("axm %x.op(add, sub = minus): [Nat, Nat] → Nat, norm, 1, 0;",
                 "axm %x.op(add, sub = minus): [Nat, Nat] -> Nat, norm, <integer literal>, <integer literal>;\n"));
    CHECK(ast_of("let x = 42:I32; let y = 3₄; let z = 42I8; let b = 1_2;",
                 "let x = 42: I32;\nlet y = 3₄;\nlet z = 42I8;\nlet b = tt;\n"));
    CHECK(ast_of("let x = (); let y = (1,); let z = «2; Nat»; let w = ‹i: 2; i›;",
                 "let x = ();\nlet y = 1;\nlet z = «2; Nat»;\nlet w = ‹i: 2; i›;\n"));
    CHECK(ast_of("let T = {T: *} → [T, T] → T;", "let T = .{T: *} -> [T, T] -> T;\n"));
    CHECK(ast_of("let T = Cn [Nat, Nat];", "let T = Cn [Nat, Nat];\n"));
    CHECK(ast_of("let T = Cn Nat → Nat;", "let T = Cn Nat -> Nat;\n"));
    CHECK(ast_of("let T = Fn [a b: Nat] → Nat;", "let T = Fn [a, b: Nat] -> Nat;\n"));
    CHECK(ast_of("let T = [n: Nat, Idx n];", "let T = [n: Nat, Idx  n];\n"));
    CHECK(ast_of("let y = (Type (0:Univ));", "let y = (Type 0: Univ);\n"));
    CHECK(ast_of("fun extern f (x: Nat): Nat = return x;", "fun extern f(x: Nat): Nat = return  x;\n"));
    CHECK(ast_of("con f (x: Nat) @(ff) = f x;", "con f(x: Nat)@(ff) = f  x;\n"));
    CHECK(ast_of("lam f x: Nat: Nat = x;", "lam f x: Nat: Nat = x;\n"));
    CHECK(ast_of("lam f {T: *} (x: T): T = x;", "lam f.{T: *}(x: T): T = x;\n"));
    CHECK(ast_of("let (a, b) as ab = (1, 2);", "let (a, b): ab = (1, 2);\n"));
    CHECK(ast_of("rec P: □ = Nat → P;", ".rec P: □ = Nat -> P;\n"));
    CHECK(ast_of("let x = ⊥:Nat; let y = ⊤; let z = 'a'; let s = \"s\";",
                 "let x = TODO;\nlet y = TODO;\nlet z = TODO;\nlet s = TODO;\n"));
    CHECK(ast_of("let x = ins((1, 2), 0_2, 3);", "let x = ins((1, 2), ff, 3);\n"));
    CHECK(ast_of("let x = let y = 1; y;", "let x = let y = 1;\ny;\n"));
    CHECK(ast_of("let x = y where let y = 1; end;", "let x = y where\n    let y = 1;;\n"));
    /* `let x = : T e` — the post-= type is ignored but parsed */
    CHECK(ast_of("let x = : Nat 5;", "let x = 5;\n"));
    /* `F x y` as an anonymous tuple-pattern element; `a b: T` as a group */
    CHECK(ast_of("axm %x.F: Nat → Nat → *; let T = [%x.F 1 2, a b: Nat];",
                 "axm %x.F: Nat -> Nat -> *;\nlet T = [%x.F  1  2, a, b: Nat];\n"));
    /* bracket-style nested pattern followed by → */
    CHECK(ast_of("let T = [[Nat, Nat] → Nat, Nat];", "let T = [[Nat, Nat] -> Nat, Nat];\n"));
    /* a pattern group in a Pi domain and a sigma with an alias continued as Pi */
    CHECK(ast_of("let T = [x: Nat] as p → Idx x;", "let T = [x: Nat]: p -> Idx  x;\n"));
    CHECK(ast_of("ccon putc [Nat, Nat]; cfun puts [Nat]: Nat;",
                 "putc ccon [Nat, Nat]\nputs cfun [Nat]: Nat\n"));
}

static void test_where_and_decl_exprs(void) {
    /* where binds in reverse: f sees g (declared later), not the other way */
    CHECK(accepted("let r = f 1 where\n lam f (x: Nat): Nat = g x;\n lam g (y: Nat): Nat = y;\nend;"));
    CHECK(errors_of("let r = f 1 where\n lam f (x: Nat): Nat = x;\n lam g (y: Nat): Nat = f y;\nend;",
                    "3:24: error: 'f' not found\n"));
    /* names of a declaration expression stay visible in the enclosing scope */
    CHECK(accepted("lam f (x: let T = Nat; T) (y: T): T = y;"));
    /* ... but not in the body */
    CHECK(errors_of("lam f (x: let T = Nat; T): Nat = let z: T = x; z;", "1:41: error: 'T' not found\n"));
    /* declarations inside a let value do not leak */
    CHECK(errors_of("let a = let b = 1; b; let c = b;", "1:31: error: 'b' not found\n"));
    /* declaration passed as argument: a warning with notes */
    Run r;
    run_text(&r, "let f = λ (x: Nat): Nat = x; let y = f let z = 1; z;");
    CHECK(r.ok);
    CHECK(diag_has(&r, "warning: you are passing a declaration expression as argument"));
    run_end(&r);
}

/* ---- scoping ---------------------------------------------------------------------------- */

static void test_scoping(void) {
    CHECK(errors_of("let x = y;", "1:9: error: 'y' not found\n"));
    /* reported only once */
    CHECK(errors_of("let x = (y, y);", "1:10: error: 'y' not found\n"));
    CHECK(errors_of("lam f (x: Nat): Nat = x; lam f (y: Nat): Nat = y;",
                    "1:30: error: redeclaration of 'f'\n1:5: note: previous declaration here\n"));
    CHECK(errors_of("lam f (x x: Nat): Nat = x;",
                    "1:10: error: redeclaration of 'x'\n1:8: note: previous declaration here\n"));
    CHECK(errors_of("axm %a.b: *; axm %a.b: *;",
                    "1:18-1:21: error: redeclaration of '%a.b'\n1:5-1:8: note: previous declaration here\n"));
    /* let rebinds */
    CHECK(accepted("let mem = 0; let mem = mem; let (mem, x) = (mem, mem);"));
    /* _ never binds and may repeat; `_` as expression is an error */
    CHECK(accepted("let T = [_: Nat, _: Nat]; lam f (_: Nat, _: Nat): Nat = 0;"));
    CHECK(errors_of("let x = _;", "1:9: error: '_' cannot be used as an expression\n"));
    /* shadowing an outer name is fine */
    CHECK(accepted("let x = 1; lam f (x: Nat): Nat = x;"));
    /* the function's name is visible in its body but not in its parameter types */
    CHECK(accepted("lam f (x: Nat): Nat = f x;"));
    CHECK(errors_of("lam f (x: f): Nat = 0;", "1:11: error: 'f' not found\n"));
    /* later groups, filters and the codomain see earlier parameters */
    CHECK(accepted("lam f (n: Nat) (i: Idx n) @(ff): Idx n = i;"));
    /* fun binds return in the body */
    CHECK(accepted("fun f (x: Nat): Nat = return x;"));
    CHECK(errors_of("lam f (x: Nat): Nat = return x;", "1:23-1:28: error: 'return' not found\n"));
    /* sigma and pi binders are not visible outside */
    CHECK(errors_of("let T = [n: Nat, Idx n]; let y = n;", "1:34: error: 'n' not found\n"));
    CHECK(errors_of("let T = [n: Nat] → Idx n; let y = n;", "1:35: error: 'n' not found\n"));
    /* group members must not see each other */
    CHECK(errors_of("let T = [a b: a];", "1:15: error: 'a' not found\n"));
    /* arrays and packs */
    CHECK(accepted("let t = ‹i: 3; i›; let A = «i: 3; Idx 3»;"));
    CHECK(errors_of("let t = ‹i: 3; i›; let y = i;", "1:28: error: 'i' not found\n"));
    /* C declarations: the codomain does not see the domain */
    CHECK(errors_of("cfun f [n: Nat]: Idx n;", "1:22: error: 'n' not found\n"));
    /* rec/and chains see each other */
    CHECK(accepted("rec Tree: * = [Nat, Forest] and Forest: * = [Tree, Tree];"));
    CHECK(accepted("lam even (n: Nat): Bool = odd n and lam odd (n: Nat): Bool = even n;"));
    CHECK(errors_of("lam even (n: Nat): Bool = odd n; lam odd (n: Nat): Bool = even n;", "1:27-1:29: error: 'odd' not found\n"));
    /* ret rebinds in the current scope */
    CHECK(accepted("con k (x: Nat) = ret y = k $ x; ret y = k $ y; k y;"));
    /* redeclaration is checked in the current scope only */
    CHECK(errors_of("let T = [x: Nat, x: Nat];", "1:18: error: redeclaration of 'x'\n1:10: note: previous declaration here\n"));
    /* alias binding */
    CHECK(accepted("lam f {T: *, n: Nat} as Tn (x: T): T = x;"));
}

static void test_extract_by_name(void) {
    Run r;
    run_text(&r, "rec Pair = [fst: Nat, snd: Bool]; lam get (p: Pair): Bool = p#snd; let i = 0_2; "
                 "lam g (p: Pair): Nat = p#i; lam h (p: Pair): Nat = p#(i);");
    CHECK(r.ok && diag_empty(&r));
    MimAstModule *m = mim_fe_input(r.fe);
    /* get: p#snd has no variable candidate */
    MimAstExpr *body = m->decls[1]->u.fun->body;
    CHECK(body->kind == MIM_EXPR_EXTRACT && body->u.extract.index == NULL);
    CHECK(strcmp(body->u.extract.name, "snd") == 0 && body->u.extract.var == NULL);
    /* g: p#i records both the name and the let binder of i */
    body = m->decls[3]->u.fun->body;
    CHECK(body->u.extract.index == NULL && strcmp(body->u.extract.name, "i") == 0);
    CHECK(body->u.extract.var && body->u.extract.var->kind == MIM_BINDER_PTRN);
    CHECK(body->u.extract.var == m->decls[2]->u.let.ptrn->u.id.binder);
    /* h: p#(i) is by index */
    body = m->decls[4]->u.fun->body;
    CHECK(body->u.extract.index && body->u.extract.index->kind == MIM_EXPR_ID);
    CHECK(body->u.extract.index->u.id.binder == m->decls[2]->u.let.ptrn->u.id.binder);
    run_end(&r);
}

static void test_binder_links(void) {
    Run r;
    run_text(&r, "let mem = 0; let mem = mem; lam f (x: Nat) (y: Nat): Nat = x; fun g (a: Nat): Nat = return a;");
    CHECK(r.ok);
    MimAstModule *m = mim_fe_input(r.fe);
    MimBinder *mem0 = m->decls[0]->u.let.ptrn->u.id.binder;
    MimBinder *mem1 = m->decls[1]->u.let.ptrn->u.id.binder;
    CHECK(mem0 != mem1);
    CHECK(m->decls[1]->u.let.value->u.id.binder == mem0); /* value sees the old binding */
    MimAstFun *f = m->decls[2]->u.fun;
    CHECK(f->name && f->name->kind == MIM_BINDER_FUN);
    CHECK(f->body->u.id.binder == f->doms[0].ptrn->u.tuple.elems[0]->u.id.binder);
    MimAstFun *g = m->decls[3]->u.fun;
    CHECK(g->style == MIM_FUN_RET && g->ret && g->ret->kind == MIM_BINDER_RETURN);
    CHECK(g->body->kind == MIM_EXPR_APP && g->body->u.app.callee->u.id.binder == g->ret);
    run_end(&r);
    /* a where-bound function used before its declaration position */
    run_text(&r, "let r = f 1 where lam f (x: Nat): Nat = x; end;");
    CHECK(r.ok);
    MimAstExpr *w = mim_fe_input(r.fe)->decls[0]->u.let.value;
    CHECK(w->kind == MIM_EXPR_DECLS && w->u.decls.is_where);
    CHECK(w->u.decls.expr->u.app.callee->u.id.binder == w->u.decls.decls[0]->u.fun->name);
    run_end(&r);
}

/* ---- annexes ----------------------------------------------------------------------------- */

static void test_plugin_ids(void) {
    struct {
        const char *name;
        uint64_t id;
    } v[] = {{"core", 0x1104c60000000000}, {"mem", 0x3863800000000000},   {"math", 0x3825490000000000},
             {"compile", 0x11039128d1800000}, {"opt", 0x4115400000000000}, {"demo", 0x1463900000000000},
             {"regex", 0x4c62066400000000}, {"direct", 0x14a4c61150000000}, {"affine", 0x871ca3c60000000},
             {"autodiff", 0x9655014a1c70000}, {"clos", 0x10d4140000000000}, {"refly", 0x4c61cd6800000000},
             {"matrix", 0x3825532990000000}, {"ex", 0x1990000000000000}};
    for (size_t i = 0; i < sizeof v / sizeof *v; ++i) CHECK(mim_plugin_id(v[i].name, strlen(v[i].name)) == v[i].id);
    CHECK(mim_plugin_id("toolongname", 11) == 0);
    CHECK(mim_plugin_id("a-b", 3) == 0);
    CHECK(mim_plugin_id("", 0) == 0);
}

static void test_annex_numbering(void) {
    Run r;
    run_text(&r, "axm %ex.T: *;\naxm %ex.op(add, sub = minus): [Nat, Nat] → Nat, normalize_op;\nlet %ex.k = 42;\n"
                 "axm %ex.op(mul): [Nat, Nat] → Nat;\nlet %ex.c.x = 1;\nlet %ex.c.y = 2;\naxm %other.A: *;\n"
                 "let v = (%ex.op.add, %ex.op.minus, %ex.op.mul, %ex.c.y);");
    CHECK(r.ok && diag_empty(&r));
    CHECK(mim_fe_num_annexes(r.fe) == 5);
    MimAnnex *T = mim_fe_annex(r.fe, 0), *op = mim_fe_annex(r.fe, 1), *k = mim_fe_annex(r.fe, 2);
    MimAnnex *c = mim_fe_annex(r.fe, 3), *A = mim_fe_annex(r.fe, 4);
    CHECK(strcmp(T->sym, "%ex.T") == 0 && T->tag_num == 0 && T->base == 0x1990000000000000);
    CHECK(T->is_axiom && !T->is_fn && T->num_subs == 0 && T->subless_axiom);
    CHECK(strcmp(op->plugin, "ex") == 0 && strcmp(op->tag, "op") == 0);
    CHECK(op->tag_num == 1 && op->base == 0x1990000000000100 && op->is_fn);
    CHECK(op->num_subs == 3 && strcmp(op->normalizer, "normalize_op") == 0);
    CHECK(strcmp(op->subs[0].name, "add") == 0 && op->subs[0].sub == 0 && op->subs[0].num_aliases == 0);
    CHECK(strcmp(op->subs[1].name, "sub") == 0 && op->subs[1].sub == 1 && op->subs[1].num_aliases == 1 &&
          strcmp(op->subs[1].aliases[0], "minus") == 0);
    CHECK(strcmp(op->subs[2].name, "mul") == 0 && op->subs[2].sub == 2);
    CHECK(k->tag_num == 2 && !k->is_axiom && k->num_subs == 0);
    CHECK(c->tag_num == 3 && c->num_subs == 2 && c->subs[1].sub == 1);
    CHECK(A->tag_num == 0 && A->base == mim_plugin_id("other", 5));
    /* the AST records the sub numbers and annex links */
    MimAstModule *m = mim_fe_input(r.fe);
    CHECK(m->decls[1]->u.axm.annex == op && m->decls[1]->u.axm.subs[1].sub == 1);
    CHECK(m->decls[1]->u.axm.subs[1].num_names == 2);
    CHECK(strcmp(m->decls[1]->u.axm.subs[1].names[1]->sym, "%ex.op.minus") == 0);
    CHECK(m->decls[5]->u.let.annex == c && m->decls[5]->u.let.sub == 1);
    /* uses of the alias resolve to the alias binder of the same sub */
    MimAstExpr *v = m->decls[7]->u.let.value;
    CHECK(v->u.tuple.elems[1]->u.id.binder == m->decls[1]->u.axm.subs[1].names[1]);
    run_end(&r);
    /* function annexes with a sub-tag consume two numbers (reference quirk) */
    run_text(&r, "lam %ex.f.a (x: Nat): Nat = x; let %ex.f.b = 1;");
    CHECK(r.ok);
    MimAnnex *f = mim_fe_annex(r.fe, 0);
    CHECK(f->num_subs == 2 && f->subs[0].sub == 0 && f->subs[1].sub == 2);
    run_end(&r);
    /* where-blocks are bound (and numbered) in reverse order */
    run_text(&r, "let x = 0 where let %w.a = 1; let %w.b = 2; end;");
    CHECK(r.ok);
    CHECK(strcmp(mim_fe_annex(r.fe, 0)->sym, "%w.b") == 0 && mim_fe_annex(r.fe, 1)->tag_num == 1);
    run_end(&r);
}

static void test_annex_errors(void) {
    CHECK(errors_of("axm %a.b.c: *;", "1:5-1:10: error: annex '%a.b.c' must not have a subtag\n"));
    CHECK(errors_of("axm %a.b: *, n1; axm %a.b(x): *, n2;",
                    "1:34-1:35: error: normalizer mismatch for axiom '%a.b'\n1:14-1:15: note: previous normalizer 'n1'\n"
                    "1:22-1:25: error: redeclared sub-less axiom '%a.b' with subs\n"));
    CHECK(errors_of("axm %_error_.x: *;", "1:5-1:14: error: plugin name '_error_' is reserved\n"));
    CHECK(errors_of("axm %toolongname.x: *;",
                    "1:5-1:18: error: invalid plugin name 'toolongname' in annex '%toolongname.x' (must be 1 to 8 "
                    "characters of [_a-zA-Z0-9])\n"));
    /* a name without a dot is an ordinary name (no annex); sub-tags need an
     * annex; an empty tag or sub-tag is malformed */
    Run t;
    run_text(&t, "axm %ab: *; axm %w.x: *; lam %f (n: Nat): Nat = n; let %k = %f 1; let y = (%ab, %k);");
    CHECK(t.ok && diag_empty(&t));
    CHECK(mim_fe_num_annexes(t.fe) == 1 && strcmp(mim_fe_annex(t.fe, 0)->sym, "%w.x") == 0);
    run_end(&t);
    CHECK(errors_of("axm %ab(x): *;", "1:5-1:7: error: invalid annex name '%ab'\n"));
    CHECK(errors_of("axm %a.: *;", "1:5-1:7: error: invalid annex name '%a.'\n"));
    CHECK(errors_of("let %a.b. = 1;", "1:5-1:9: error: invalid annex name '%a.b.'\n"));
    /* sub-tag extension with new names is fine; the bare name is then unbound */
    CHECK(errors_of("axm %a.b(x): *; axm %a.b(y): *; let z = %a.b;", "1:41-1:44: error: '%a.b' not found\n"));
    /* more than 256 tags in one plugin */
    char *text = malloc(300 * 32);
    size_t len = 0;
    for (int i = 0; i < 257; ++i) len += (size_t)sprintf(text + len, "axm %%p.t%d: *;\n", i);
    Run r;
    run_text(&r, text);
    CHECK(r.diag.num_errors == 1);
    CHECK(diag_has(&r, "257:5-257:11: error: exceeded maximum number of annexes (256) in plugin 'p'"));
    run_end(&r);
    free(text);
}

static void test_warnings(void) {
    Run r;
    run_text(&r, "lam f (x: Nat) @tt: Nat = x; con g (x: Nat) @ff = g x; con h (x: Nat) @(ff) = h x;"
                 "rec F: * = λ (x: Nat): Nat = x;");
    CHECK(r.ok);
    CHECK(r.diag.num_warnings == 3);
    CHECK(diag_has(&r, "1:17-1:18: warning: 'tt' filter is superfluous"));
    CHECK(diag_has(&r, "1:46-1:47: warning: 'ff' filter is superfluous"));
    CHECK(diag_has(&r, "warning: type of recursive declaration ignored"));
    run_end(&r);
}

/* ---- files ------------------------------------------------------------------------------- */

static char tmpdir[256];

static void write_file(const char *rel, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void test_imports(void) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mim_fe_test_%d", (int)getpid());
    char sub[512];
    mkdir(tmpdir, 0700);
    snprintf(sub, sizeof sub, "%s/b", tmpdir);
    mkdir(sub, 0700);
    write_file("a.mim", "import b;\nplugin c;\naxm %a.A: *;");
    write_file("b/b.mim", "import c;\naxm %b.B: *; let useA = 1;");
    write_file("c.mim", "axm %c.C: *;");
    write_file("main.mim", "import a;\nimport b;\nplugin c;\nlet x = (%a.A, %b.B, %c.C);\nimport d;");
    write_file("bad.mim", "import nothere;\nlet y = 1;");

    const char *paths[] = {"", tmpdir};
    Run r;
    run_begin(&r, paths, 2);
    char input[512];
    snprintf(input, sizeof input, "%s/main", tmpdir);
    MimAstModule *m = mim_fe_parse_input(r.fe, input);
    CHECK(m != NULL);
    CHECK(!mim_fe_bind(r.fe)); /* the late import d is a syntax error */
    CHECK(diag_has(&r, "5:1-5:6: error: expected '<end of file>', got 'import' while parsing module"));
    CHECK(mim_fe_num_files(r.fe) == 4);
    const MimFeFile *f0 = mim_fe_file(r.fe, 0), *f1 = mim_fe_file(r.fe, 1), *f2 = mim_fe_file(r.fe, 2),
                    *f3 = mim_fe_file(r.fe, 3);
    CHECK(strcmp(f0->name, input) == 0 && f0->is_input && !f0->plugin_requested);
    CHECK(strstr(f0->path, "main.mim") != NULL);
    CHECK(strcmp(f1->name, "a") == 0 && !f1->plugin_requested);
    CHECK(strcmp(f2->name, "b") == 0 && strstr(f2->path, "/b/b.mim") != NULL);
    CHECK(strcmp(f3->name, "c") == 0 && f3->plugin_requested); /* plugin c; after import c */
    /* binding order: c, b, a, main (each after its imports) */
    CHECK(mim_fe_num_modules(r.fe) == 4);
    CHECK(mim_fe_module(r.fe, 0) == f3->module && mim_fe_module(r.fe, 1) == f2->module &&
          mim_fe_module(r.fe, 2) == f1->module && mim_fe_module(r.fe, 3) == m);
    /* the second import of b in main is a no-op */
    CHECK(m->num_imports == 3 && m->imports[1].module == NULL);
    CHECK(r.diag.num_errors == 1);
    run_end(&r);

    /* unreadable import: error at the name in the directive, with the last path tried */
    run_begin(&r, paths, 2);
    snprintf(input, sizeof input, "%s/bad.mim", tmpdir);
    CHECK(mim_fe_parse_input(r.fe, input) != NULL);
    CHECK(!mim_fe_bind(r.fe));
    char expect[1024];
    snprintf(expect, sizeof expect, "1:8-1:14: error: cannot read file \"%s/nothere/nothere.mim\"\n", tmpdir);
    CHECK(diag_is(&r, expect));
    run_end(&r);

    /* unreadable input: unlocated error */
    run_begin(&r, paths, 2);
    CHECK(mim_fe_parse_input(r.fe, "no_such_input") == NULL);
    snprintf(expect, sizeof expect, "?: error: cannot read file \"%s/no_such_input/no_such_input.mim\"\n", tmpdir);
    CHECK(diag_is(&r, expect));
    run_end(&r);

    /* plugins parsed first share the root scope with the input; bootstrap
     * mode never requests libraries */
    run_begin(&r, paths, 2);
    mim_fe_parse_plugin(r.fe, "c");
    mim_fe_parse_plugin(r.fe, "c"); /* again: no-op */
    snprintf(input, sizeof input, "%s/b/b.mim", tmpdir);
    mim_fe_parse_input(r.fe, input);
    CHECK(mim_fe_bind(r.fe));
    CHECK(mim_fe_num_files(r.fe) == 2 && mim_fe_file(r.fe, 0)->plugin_requested);
    run_end(&r);

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    CHECK(system(cmd) == 0);
}

/* Every plugin interface file (plugins/NAME/NAME.mim) parses and binds without
 * errors, with the plugin directory as search path (as in bootstrap mode). */
static void test_plugin_files(void) {
    static const char *const names[] = {"compile", "core", "mem", "math", "affine", "autodiff", "clos",
                                        "direct", "matrix", "opt", "refly", "regex", "demo"};
    char root[512];
    snprintf(root, sizeof root, "%s", __FILE__);
    char *cut = strstr(root, "tests/unit/test_fe.c");
    if (!cut) return; /* relative __FILE__: sources not locatable */
    strcpy(cut, "plugins");
    for (size_t i = 0; i < sizeof names / sizeof *names; ++i) {
        char file[600];
        snprintf(file, sizeof file, "%s/%s/%s.mim", root, names[i], names[i]);
        struct stat st;
        if (stat(file, &st) != 0) continue;
        const char *paths[] = {"", root};
        Run r;
        r.w = mim_world_new();
        mim_diag_init(&r.diag);
        r.fe = mim_fe_new(r.w, &r.diag, paths, 2, true);
        CHECK(mim_fe_parse_input(r.fe, file) != NULL);
        bool ok = mim_fe_bind(r.fe);
        if (!ok) fprintf(stderr, "  plugin %s:\n", names[i]);
        CHECK(ok && diag_empty(&r));
        run_end(&r);
    }
}

/* The racy-file rule of stat signatures (fe.c): a change time counts as
 * settled only if stamped more than 100 ms before the text was read, with
 * nanoseconds (not a whole-second file system), and never after it. */
static void test_stamp_settled(void) {
    struct stat st;
    memset(&st, 0, sizeof st);
    struct timespec read_at = {1000000, 500000000};
    st.st_ctim = (struct timespec){1000000, 450000000}; /* 50 ms before */
    CHECK(!mim_fe_stamp_settled_(&st, read_at));
    st.st_ctim = (struct timespec){1000000, 350000000}; /* 150 ms before */
    CHECK(mim_fe_stamp_settled_(&st, read_at));
    st.st_ctim = (struct timespec){999999, 950000000}; /* 550 ms, across a second */
    CHECK(mim_fe_stamp_settled_(&st, read_at));
    read_at = (struct timespec){1000000, 0};
    st.st_ctim = (struct timespec){999999, 950000000}; /* 50 ms, across a second */
    CHECK(!mim_fe_stamp_settled_(&st, read_at));
    read_at = (struct timespec){1000000, 500000000};
    st.st_ctim = (struct timespec){1000001, 1}; /* after the read */
    CHECK(!mim_fe_stamp_settled_(&st, read_at));
    st.st_ctim = (struct timespec){999000, 0}; /* whole seconds: not trusted */
    CHECK(!mim_fe_stamp_settled_(&st, read_at));
    st.st_ctim = (struct timespec){999000, 1};
    CHECK(mim_fe_stamp_settled_(&st, read_at));
    st.st_ctim = (struct timespec){INT64_MIN + 1, 1}; /* absurd stamps do not overflow */
    CHECK(mim_fe_stamp_settled_(&st, read_at));
    st.st_ctim = (struct timespec){INT64_MAX, 1};
    CHECK(!mim_fe_stamp_settled_(&st, read_at));
    CHECK(!mim_fe_stamp_settled_(&st, (struct timespec){0, 0})); /* no clock */
}

int main(void) {
    RUN(test_stamp_settled);
    RUN(test_alternatives);
    RUN(test_keywords);
    RUN(test_identifier_text);
    RUN(test_numbers);
    RUN(test_fast_scanner);
    RUN(test_index_literals);
    RUN(test_index_literal_errors);
    RUN(test_floats);
    RUN(test_float_errors);
    RUN(test_chars_strings);
    RUN(test_char_string_errors);
    RUN(test_lexical_errors);
    RUN(test_positions);
    RUN(test_markdown);
    RUN(test_syntax_errors);
    RUN(test_recovery_continues);
    RUN(test_truncated_and_garbage);
    RUN(test_deep_nesting);
    RUN(test_many_decls);
    RUN(test_ast_shapes);
    RUN(test_where_and_decl_exprs);
    RUN(test_scoping);
    RUN(test_extract_by_name);
    RUN(test_binder_links);
    RUN(test_plugin_ids);
    RUN(test_annex_numbering);
    RUN(test_annex_errors);
    RUN(test_warnings);
    RUN(test_imports);
    RUN(test_plugin_files);
    return unit_summary();
}
