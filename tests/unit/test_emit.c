/* Unit tests of the emitter (src/fe/emit.h): Mim text is parsed, bound and
 * emitted, then the resulting nodes are inspected through the public API:
 * names, externals, axiom ids and counters, annex registration hooks,
 * emission order, errors, and bounded work on deeply nested input. */
#include "fe/emit.h"
#include "fe/fe.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct Run {
    MimWorld *w;
    MimDiag diag; /* front-end messages */
    MimFe *fe;
    bool ok; /* parsed, bound and emitted without error */
} Run;

/* Parse/bind/emit `text` (bootstrap mode: no plugin libraries). */
static void run_with(Run *r, const char *text, const MimEmitHooks *hooks) {
    r->w = mim_world_new();
    mim_diag_init(&r->diag);
    const char *paths[] = {""};
    r->fe = mim_fe_new(r->w, &r->diag, paths, 1, true);
    r->ok = mim_fe_parse_text(r->fe, "test.mim", text, strlen(text)) && mim_fe_bind(r->fe);
    for (size_t i = 0; r->ok && i < mim_fe_num_modules(r->fe); ++i)
        r->ok = mim_emit_module_with(r->w, mim_fe_module(r->fe, i), hooks);
}

static void run(Run *r, const char *text) { run_with(r, text, NULL); }

static void done(Run *r) {
    mim_fe_free(r->fe);
    mim_diag_free(&r->diag);
    mim_world_free(r->w);
}

static MimDef *external(Run *r, const char *name) {
    return mim_world_lookup_external(r->w, mim_world_sym(r->w, name));
}

static bool has_message(MimDiag *d, MimSeverity sev, const char *text) {
    for (size_t i = 0; i < d->len; ++i)
        if (d->msgs[i].sev == sev && strstr(d->msgs[i].text, text)) return true;
    return false;
}

static bool name_is(const MimDef *d, const char *name) {
    return d && mim_def_name(d) && strcmp(mim_def_name(d), name) == 0;
}

/* ---- functions ------------------------------------------------------------ */

static void test_identity(void) {
    Run r;
    run(&r, "lam extern id (x: Nat): Nat = x;");
    CHECK(r.ok);
    MimDef *id = external(&r, "id");
    CHECK(id && mim_def_node(id) == MIM_LAM && mim_def_is_mut(id));
    if (id) {
        MimDef *var = mim_var(r.w, id);
        CHECK(mim_lam_body(id) == var); /* the 1-tuple parameter is the variable */
        CHECK(name_is(var, "x"));
        CHECK(mim_lam_filter(id) == mim_lit_bool(r.w, true));
        MimDef *pi = mim_def_type(id);
        CHECK(mim_pi_dom(pi) == mim_nat(r.w) && mim_pi_codom(pi) == mim_nat(r.w));
        CHECK(mim_def_is_mut(pi)); /* Pis of functions are not immutabilized */
    }
    done(&r);
}

static void test_fun_desugaring(void) {
    Run r;
    run(&r, "fun extern f (a b: Nat): Nat = return a;");
    CHECK(r.ok);
    MimDef *f = external(&r, "f");
    CHECK(f && mim_pi_is_cn(mim_def_type(f)));
    if (f) {
        CHECK(mim_lam_filter(f) == mim_lit_bool(r.w, false)); /* last group of fun: ff */
        MimDef *body = mim_lam_body(f);
        CHECK(body && mim_def_node(body) == MIM_APP);
        MimDef *ret = mim_app_callee(body);
        CHECK(name_is(ret, "return"));
        CHECK(ret == mim_proj(r.w, mim_var(r.w, f), 2, 1));
        MimDef *a = mim_app_arg(body);
        CHECK(name_is(a, "a"));
        /* domain: [«2; Nat», Cn Nat], immutable */
        MimDef *dom = mim_pi_dom(mim_def_type(f));
        CHECK(dom && !mim_def_is_mut(dom) && mim_def_num_ops(dom) == 2);
    }
    done(&r);
}

static void test_curried_groups(void) {
    Run r;
    run(&r, "con extern f (n: Nat) (m: Nat) (k: Cn Nat) = k n;");
    CHECK(r.ok);
    MimDef *f1 = external(&r, "f");
    CHECK(f1 != NULL);
    if (f1) {
        MimDef *f2 = mim_lam_body(f1);
        CHECK(f2 && mim_def_node(f2) == MIM_LAM && mim_def_is_mut(f2));
        MimDef *f3 = f2 ? mim_lam_body(f2) : NULL;
        CHECK(f3 && mim_def_node(f3) == MIM_LAM && mim_def_is_mut(f3));
        CHECK(mim_lam_filter(f1) == mim_lit_bool(r.w, true));
        CHECK(f2 && mim_lam_filter(f2) == mim_lit_bool(r.w, true));
        CHECK(f3 && mim_lam_filter(f3) == mim_lit_bool(r.w, false));
        CHECK(name_is(f1, "f") && !mim_def_name(f2));
        /* the Pi of group 1 is rebuilt for f2: distinct mutables */
        CHECK(f2 && mim_pi_codom(mim_def_type(f1)) != mim_def_type(f2));
        /* f3's body `k n` uses f1's variable */
        MimDef *app = f3 ? mim_lam_body(f3) : NULL;
        CHECK(app && mim_app_arg(app) == mim_var(r.w, f1));
    }
    done(&r);
}

static void test_implicit_pi(void) {
    Run r;
    run(&r, "lam extern f {T: *} (x: T): T = x;");
    CHECK(r.ok);
    MimDef *f = external(&r, "f");
    CHECK(f && mim_pi_is_implicit(mim_def_type(f)));
    CHECK(f && !mim_pi_is_implicit(mim_def_type(mim_lam_body(f))));
    done(&r);
}

/* ---- order ---------------------------------------------------------------- */

static void test_where_reverse_order(void) {
    Run r;
    run(&r, "lam extern h (a: Nat): Nat = f a where\n"
            "  lam f (x: Nat) @(ff): Nat = g x;\n"
            "  lam g (y: Nat) @(ff): Nat = y;\n"
            "end;");
    CHECK(r.ok);
    MimDef *h = external(&r, "h");
    MimDef *call_f = h ? mim_lam_body(h) : NULL;
    MimDef *f = call_f ? mim_app_callee(call_f) : NULL;
    MimDef *call_g = f ? mim_lam_body(f) : NULL;
    MimDef *g = call_g ? mim_app_callee(call_g) : NULL;
    CHECK(name_is(f, "f") && name_is(g, "g"));
    CHECK(f && g && mim_def_gid(g) < mim_def_gid(f)); /* g emitted first */
    CHECK(h && f && mim_def_gid(h) < mim_def_gid(g)); /* h's Lam exists before its body */
    done(&r);
}

static void test_and_chain(void) {
    Run r;
    run(&r, "lam even (n: Nat) @(ff): Bool = odd n and lam odd (n: Nat) @(ff): Bool = even n;\n"
            "lam extern e (n: Nat): Bool = even n;");
    CHECK(r.ok);
    MimDef *e = external(&r, "e");
    MimDef *even = e ? mim_app_callee(mim_lam_body(e)) : NULL;
    MimDef *odd = even ? mim_app_callee(mim_lam_body(even)) : NULL;
    CHECK(name_is(even, "even") && name_is(odd, "odd"));
    CHECK(odd && mim_app_callee(mim_lam_body(odd)) == even);
    done(&r);
}

static void test_let_names_first_wins(void) {
    Run r;
    run(&r, "axm %ex.f: Nat → Nat;\n"
            "lam extern g (x: Nat): Nat = let a = %ex.f x; let b = a; b;");
    CHECK(r.ok);
    MimDef *g = external(&r, "g");
    MimDef *body = g ? mim_lam_body(g) : NULL;
    CHECK(name_is(body, "a")); /* `let b = a` does not rename */
    done(&r);
}

/* ---- patterns ------------------------------------------------------------- */

static void test_dependent_sigma_fields(void) {
    Run r;
    run(&r, "lam extern f (p: [n: Nat, v: «n; Bool»]): «p#n; Bool» = p#v;");
    CHECK(r.ok);
    MimDef *f = external(&r, "f");
    if (f) {
        MimDef *dom = mim_pi_dom(mim_def_type(f));
        CHECK(dom && mim_def_is_mut(dom) && mim_def_node(dom) == MIM_SIGMA); /* dependent: stays */
        MimDef *body = mim_lam_body(f);
        CHECK(body == mim_proj(r.w, mim_var(r.w, f), 2, 1));
    }
    done(&r);
}

static void test_let_tuple_pattern(void) {
    Run r;
    run(&r, "lam extern f (x: Nat, y: Bool): [Bool, Nat] = let (a, b) as ab = (x, y); (b, a);\n"
            "lam extern g (x: Nat, y: Bool): [Nat, Bool] = let (a, b) as ab = (x, y); ab;");
    CHECK(r.ok);
    MimDef *f = external(&r, "f"), *g = external(&r, "g");
    if (f) {
        MimDef *body = mim_lam_body(f), *var = mim_var(r.w, f);
        CHECK(mim_def_node(body) == MIM_TUPLE);
        CHECK(mim_def_op(body, 0) == mim_proj(r.w, var, 2, 1));
        CHECK(mim_def_op(body, 1) == mim_proj(r.w, var, 2, 0));
    }
    if (g) CHECK(mim_lam_body(g) == mim_var(r.w, g)); /* (x, y) is η-reduced to the variable */
    done(&r);
}

static void test_arr_pack_binder(void) {
    Run r;
    run(&r, "lam extern f (n: Nat): [*, *, «3; Nat»] = («i: n; Nat», «i: 2; (Nat, Bool)#i», ‹i: 3; 4›);\n"
            "lam extern g (): «3; Idx 3» = ‹i: 3; i›;");
    CHECK(r.ok);
    MimDef *f = external(&r, "f");
    if (f) {
        MimDef *t = mim_lam_body(f);
        CHECK(mim_def_node(t) == MIM_TUPLE && mim_def_num_ops(t) == 3);
        MimDef *a0 = mim_def_op(t, 0), *a1 = mim_def_op(t, 1), *p2 = mim_def_op(t, 2);
        CHECK(mim_def_node(a0) == MIM_ARR && !mim_def_is_mut(a0));
        CHECK(mim_def_node(a1) == MIM_SIGMA && !mim_def_is_mut(a1)); /* scalarized */
        CHECK(mim_def_node(p2) == MIM_PACK && !mim_def_is_mut(p2));
    }
    MimDef *g = external(&r, "g");
    if (g) {
        MimDef *t = mim_lam_body(g); /* (0₃, 1₃, 2₃) */
        CHECK(mim_def_node(t) == MIM_TUPLE && mim_def_num_ops(t) == 3);
        uint64_t v = 9;
        CHECK(mim_def_lit(mim_def_op(t, 2), &v) && v == 2);
    }
    done(&r);
}

/* ---- axioms and annexes ------------------------------------------------- */

static const char axioms_text[] = "axm %ex.op(plus, times = mul): [Nat, Nat] → Nat, normalize_op;\n"
                                  "axm %ex.f: Nat → Nat → Nat → Nat, normalize_f, 2, 1;\n"
                                  "lam extern u (a: Nat): [Nat, Nat] = (%ex.op.times (a, a), %ex.op.mul (a, a));\n";

static void test_axioms(void) {
    Run r;
    run(&r, axioms_text);
    CHECK(r.ok);
    MimDef *u = external(&r, "u");
    MimDef *body = u ? mim_lam_body(u) : NULL;
    /* times and mul are the same axiom, so both calls are one node: a pack */
    CHECK(body && mim_def_node(body) == MIM_PACK);
    MimDef *ax = body ? mim_app_callee(mim_def_op(body, 0)) : NULL;
    CHECK(ax && mim_def_node(ax) == MIM_AXIOM && name_is(ax, "%ex.op.times"));
    uint64_t ex = 0x1990000000000000ull; /* plugin id of "ex" */
    CHECK(ax && mim_def_flags(ax) == (ex | (0u << 8) | 1u));
    /* bootstrap, no hooks: nothing registered */
    CHECK(mim_world_annex(r.w, ex | 1) == NULL);
    done(&r);
}

static bool always_loaded(void *user, MimSym plugin) {
    (void)user;
    return strcmp(plugin, "ex") == 0;
}

static MimDef *dummy_norm(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    return mim_raw_app(w, type, callee, arg);
}

static MimNormalizer norm_for(void *user, uint64_t id) {
    ++*(int *)user;
    return (id & 0xff) == 0 ? dummy_norm : NULL;
}

static void test_annex_hooks(void) {
    int asked = 0;
    MimEmitHooks hooks = {always_loaded, norm_for, &asked};
    Run r;
    run_with(&r, "axm %ex.op(plus, times = mul): [Nat, Nat] → Nat, normalize_op;\n"
                 "axm %ex.f: Nat → Nat → Nat → Nat, normalize_f, 2, 1;\n"
                 "lam %ex.twice (x: Nat): Nat = x;\n"
                 "let %ex.k = 42;\n"
                 "rec %ex.R = [Nat, Bool];\n",
             &hooks);
    CHECK(r.ok);
    uint64_t ex = 0x1990000000000000ull;
    MimDef *plus = mim_world_annex(r.w, ex | (0 << 8) | 0);
    MimDef *times = mim_world_annex(r.w, ex | (0 << 8) | 1);
    CHECK(name_is(plus, "%ex.op.plus") && name_is(times, "%ex.op.times"));
    CHECK(mim_axiom_normalizer(plus) == dummy_norm && mim_axiom_normalizer(times) == NULL);
    MimDef *f = mim_world_annex(r.w, ex | (1 << 8));
    CHECK(f && mim_axiom_curry(f) == 2 && mim_axiom_trip(f) == 1);
    CHECK(asked == 3);
    MimDef *twice = mim_world_annex(r.w, ex | (2 << 8));
    CHECK(twice && mim_def_node(twice) == MIM_LAM && name_is(twice, "%ex.twice"));
    uint64_t k = 0;
    CHECK(mim_def_lit(mim_world_annex(r.w, ex | (3 << 8)), &k) && k == 42);
    MimDef *R = mim_world_annex(r.w, ex | (4 << 8));
    CHECK(R && mim_def_node(R) == MIM_SIGMA && mim_def_is_mut(R)); /* rec stays mutable */
    done(&r);
}

static void test_axiom_counters_inferred(void) {
    MimEmitHooks hooks = {always_loaded, NULL, NULL};
    Run r;
    run_with(&r, "axm %ex.f: {s: Nat} → Nat → [Idx s, Idx s] → Idx s;\n"
                 "rec P: □ = Nat → P;\n"
                 "axm %ex.g: P;\n",
             &hooks);
    CHECK(r.ok);
    uint64_t ex = 0x1990000000000000ull;
    MimDef *f = mim_world_annex(r.w, ex | (0 << 8)), *g = mim_world_annex(r.w, ex | (1 << 8));
    CHECK(f && mim_axiom_curry(f) == 3 && mim_axiom_trip(f) == 0);
    CHECK(g && mim_axiom_curry(g) == 1 && mim_axiom_trip(g) == 1);
    CHECK(name_is(f, "%ex.f") && name_is(g, "%ex.g"));
    done(&r);
}

/* ---- errors --------------------------------------------------------------- */

static void test_error_stops(void) {
    Run r;
    run(&r, "lam extern f (x: Nat): Bool = x;\nlam extern g (x: Nat): Nat = x;");
    CHECK(!r.ok);
    CHECK(mim_world_has_error(r.w));
    CHECK(has_message(mim_world_diag(r.w), MIM_ERROR, "body of function is not assignable"));
    CHECK(external(&r, "g") == NULL); /* stopped at the first error */
    done(&r);
}

static void test_ret_error(void) {
    Run r;
    run(&r, "lam f (x: Nat): Nat = x;\ncon extern g (y: Nat, k: Cn Nat) = ret r = f $ y; k r;");
    CHECK(!r.ok);
    CHECK(has_message(mim_world_diag(r.w), MIM_ERROR,
                      "callee of a ret expression must type as a returning continuation"));
    done(&r);
}

static void test_field_error(void) {
    Run r;
    run(&r, "lam extern f (p: [a: Nat, b: Bool]): Bool = p#b;");
    CHECK(!r.ok);
    CHECK(has_message(mim_world_diag(r.w), MIM_ERROR, "cannot resolve index 'b' for extraction"));
    done(&r);
}

static void test_curry_errors(void) {
    Run r;
    run(&r, "axm %ex.f: Nat → Nat, normalize_f, 2;");
    CHECK(!r.ok && has_message(mim_world_diag(r.w), MIM_ERROR, "curry counter cannot be greater than 1"));
    done(&r);
    run(&r, "axm %ex.f: Nat → Nat → Nat, normalize_f, 1, 2;");
    CHECK(!r.ok && has_message(mim_world_diag(r.w), MIM_ERROR,
                               "trip counter cannot be greater than curry counter '1'"));
    done(&r);
}

/* ---- scale ---------------------------------------------------------------- */

static char *repeat(const char *pre, const char *mid, const char *post, size_t n) {
    size_t lp = strlen(pre), lm = strlen(mid), lq = strlen(post);
    char *s = malloc(n * (lp + lq) + lm + 1), *p = s;
    for (size_t i = 0; i < n; ++i) memcpy(p, pre, lp), p += lp;
    memcpy(p, mid, lm), p += lm;
    for (size_t i = 0; i < n; ++i) memcpy(p, post, lq), p += lq;
    *p = 0;
    return s;
}

/* Re-evaluating pattern annotations must not take time exponential in the
 * nesting depth. */
static void test_deep_nesting_is_fast(void) {
    clock_t start = clock();
    char *cn = repeat("Cn ", "Nat", "", 1500);
    char *text = malloc(strlen(cn) + 64);
    sprintf(text, "lam extern f (k: %s): Nat = 0;", cn);
    Run r;
    run(&r, text);
    CHECK(r.ok);
    done(&r);
    free(text);
    free(cn);

    char *ptrn = repeat("(", "x: Nat", ")", 500);
    text = malloc(strlen(ptrn) + 64);
    sprintf(text, "lam extern g %s: Nat = x;", ptrn);
    run(&r, text);
    CHECK(r.ok);
    if (r.ok) CHECK(mim_lam_body(external(&r, "g")) == mim_var(r.w, external(&r, "g")));
    done(&r);
    free(text);
    free(ptrn);
    CHECK((double)(clock() - start) / CLOCKS_PER_SEC < 10.0);
}

static void test_many_declarations(void) {
    enum { N = 20000 };
    size_t cap = (size_t)N * 64 + 64, len = 0;
    char *text = malloc(cap);
    for (int i = 0; i < N; ++i)
        len += (size_t)snprintf(text + len, cap - len, "lam f%d (x: Nat) @(ff): Nat = x;\n", i);
    snprintf(text + len, cap - len, "lam extern main (x: Nat): Nat = f%d x;", N - 1);
    clock_t start = clock();
    Run r;
    run(&r, text);
    CHECK(r.ok);
    CHECK(external(&r, "main") != NULL);
    done(&r);
    free(text);
    CHECK((double)(clock() - start) / CLOCKS_PER_SEC < 20.0);
}

int main(void) {
    RUN(test_identity);
    RUN(test_fun_desugaring);
    RUN(test_curried_groups);
    RUN(test_implicit_pi);
    RUN(test_where_reverse_order);
    RUN(test_and_chain);
    RUN(test_let_names_first_wins);
    RUN(test_dependent_sigma_fields);
    RUN(test_let_tuple_pattern);
    RUN(test_arr_pack_binder);
    RUN(test_axioms);
    RUN(test_annex_hooks);
    RUN(test_axiom_counters_inferred);
    RUN(test_error_stops);
    RUN(test_ret_error);
    RUN(test_field_error);
    RUN(test_curry_errors);
    RUN(test_deep_nesting_is_fast);
    RUN(test_many_declarations);
    return unit_summary();
}
