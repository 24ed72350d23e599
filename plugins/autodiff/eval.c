/* autodiff_eval (plugins/autodiff.md §5.1): every fully applied
 * `%autodiff.ad f` with f a function `Cn [A, Cn R]` becomes the derivative
 * `<f>_deriv : AD(type of f)`, built by augmenting f's body: each
 * expression e is mapped to e' (the same value, in the new function) and
 * gets a pullback e* : Cn [E, Cn A] (how a tangent of e contributes to the
 * tangent of f's argument); tuples also get a shadow pullback (the tuple of
 * their components' pullbacks), so that projecting them needs no zero
 * tuples.
 *
 * Where the specification sums pullback results with `%direct.cps2ds`
 * calls, the tuple pullback here calls the components' pullbacks one after
 * the other in continuation-passing style (the same sums, without needing
 * direct's passes). Direct-style calls of functions whose derivatives are
 * CPS functions (the %core axioms' internal_diff_* derivatives) are wrapped
 * with `%direct.cps2ds` as specified, so a program that differentiates such
 * calls needs `plugin direct;` to compile. Calls of %math axioms (an
 * extension, docs/autodiff.md "Floats") get their pullbacks directly from
 * the rules of diff_math.c, without a derivative function. What the rules
 * do not cover is an error (`autodiff: cannot differentiate …`), never a
 * crash.
 *
 * Extensions (docs/autodiff.md, "Calls" and "Control flow"): a called
 * function is differentiated when the call is met; flattened functions
 * `Cn [D₁, …, Dₙ, Cn R]` are taken as `Cn [[D₁, …, Dₙ], Cn R]`; a recursive
 * derivative gets the filter ff; tuple pullbacks call each distinct
 * component pullback once; integers get zero pullbacks in functions of
 * floats. The same pass also rewrites `%autodiff.jvp f` (forward mode,
 * jvp.c). */
#include "autodiff.h"
#include "mim/pass.h"
#include "mim/plugin/direct.h"
#include "mim/ptrmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Eval Eval;

typedef struct Ad {
    Eval *ev;   /* the pass (its memo of derivatives) */
    MimWorld *w;
    MimPass *p;
    MimDef *A;        /* the tangent type of the differentiated function's argument */
    MimDef *cn_A;     /* Cn A */
    MimPtrMap aug;    /* old node ↦ augmented node */
    MimPtrMap pb;     /* old node ↦ its pullback (absent: none) */
    MimPtrMap shadow; /* old tuple ↦ the tuple of its components' pullbacks */
    MimPtrMap zero_pbs; /* type ↦ its zero pullback */
    MimLoc use;         /* the application being augmented (where an axiom is used) */
    bool floats;        /* A has a float component: integers get zero pullbacks */
} Ad;

static MimDef *pb_type(Ad *ad, MimDef *E) { return mim_cn(ad->w, autodiff_pair_type(ad->w, E, ad->cn_A)); }

static MimDef *named_lam(MimWorld *w, MimDef *type, const char *name) {
    MimDef *lam = mim_mut_lam(w, type);
    if (lam) mim_def_set_name(lam, mim_world_sym(w, name));
    return lam;
}

/* The axiom an anonymous node applies (through projections of its
 * result), or NULL: an error names the operation ('%mem.free'), since an
 * anonymous node prints as a gid ('_14508') that reads like a function's
 * name. */
static MimDef *anon_axiom(MimWorld *w, MimDef *d) {
    for (size_t guard = 0; guard < 1000 && d && !mim_def_name(d); ++guard) {
        if (mim_def_node(d) == MIM_APP) return mim_app_axiom(d);
        if (mim_def_node(d) != MIM_EXTRACT) return NULL;
        d = mim_resolve(w, mim_def_op(d, 0));
    }
    return NULL;
}

void autodiff_cannot(MimPass *p, MimLoc loc, const char *mode, const char *what, MimDef *old) {
    MimWorld *w = mim_pass_world(p);
    MimDef *d = mim_resolve(w, old);
    MimDef *ax = anon_axiom(w, d);
    bool expr = d && (mim_def_node(d) == MIM_APP || mim_def_node(d) == MIM_EXTRACT);
    if (expr && mim_def_name(d)) { /* a let's name ('b'; printing the node would show its operands) */
        mim_pass_error(p, loc, "autodiff: cannot differentiate %s%s '%s'", mode, what, mim_def_name(d));
        return;
    }
    if (d && mim_def_node(d) == MIM_VAR && !mim_def_name(d)) { /* an unnamed variable: named by its binder */
        const char *b = mim_def_name(mim_def_op(d, 0));
        if (b) mim_pass_error(p, loc, "autodiff: cannot differentiate %s%s of '%s'", mode, what, b);
        else mim_pass_error(p, loc, "autodiff: cannot differentiate %s%s", mode, what);
        return;
    }
    if (expr && !ax) { /* an anonymous expression: its gid names nothing the user wrote */
        mim_pass_error(p, loc, "autodiff: cannot differentiate %s%s", mode, what);
        return;
    }
    char *s = mim_def_to_str(w, ax ? ax : old);
    mim_pass_error(p, loc, "autodiff: cannot differentiate %s%s '%s'", mode, what, s);
    free(s);
}

bool autodiff_is_cn(MimWorld *w, MimDef *T) {
    T = mim_resolve(w, T);
    return T && mim_def_node(T) == MIM_PI && mim_pi_is_cn(T);
}

static MimDef *fail(Ad *ad, MimDef *old, const char *what) {
    MimLoc loc = mim_def_node(old) == MIM_AXIOM && ad->use.begin.row ? ad->use : mim_def_loc(old);
    autodiff_cannot(ad->p, loc, "", what, old);
    return NULL;
}

/* ---- pullbacks -------------------------------------------------------------------- */

/* λ(s, k). k (%autodiff.zero A) */
static MimDef *zero_pb(Ad *ad, MimDef *E) {
    MimDef *known = mim_ptrmap_get(&ad->zero_pbs, E);
    if (known) return known;
    MimWorld *w = ad->w;
    MimDef *lam = named_lam(w, pb_type(ad, E), "zero_pb");
    if (!lam) return NULL;
    MimDef *zero = mim_app(w, mim_world_annex(w, MIM_autodiff_zero), ad->A);
    if (!mim_lam_set(w, lam, mim_lit_bool(w, true), mim_app(w, mim_var_proj(w, lam, 2, 1), zero))) return NULL;
    mim_ptrmap_put(&ad->zero_pbs, E, lam);
    return lam;
}

/* λ(s, k). k s */
static MimDef *id_pb(Ad *ad) {
    MimWorld *w = ad->w;
    MimDef *lam = named_lam(w, pb_type(ad, ad->A), "id_pb");
    if (!lam) return NULL;
    MimDef *k = mim_var_proj(w, lam, 2, 1);
    MimDef *body = mim_app(w, k, mim_var_proj(w, lam, 2, 0));
    return mim_lam_set(w, lam, mim_lit_bool(w, true), body);
}

/* λ(s, k). k (insert (zero A, i, s)): the pullback of component i of the
 * argument of a function whose n parameters were flattened. */
static MimDef *proj_pb(Ad *ad, size_t i, size_t n) {
    MimWorld *w = ad->w;
    MimDef *A = mim_resolve(w, ad->A); /* a Σ, or an array «n; T» if all components agree */
    MimDef *Ai = mim_def_node(A) == MIM_ARR ? mim_def_op(A, 1) : mim_def_op(A, i);
    MimDef *lam = named_lam(w, pb_type(ad, Ai), "proj_pb");
    if (!lam) return NULL;
    MimDef *zero = mim_app(w, mim_world_annex(w, MIM_autodiff_zero), ad->A);
    MimDef *idx = mim_lit_idx(w, n, i);
    MimDef *ins = mim_insert(w, zero, idx, mim_var_proj(w, lam, 2, 0));
    return mim_lam_set(w, lam, mim_lit_bool(w, true), mim_app(w, mim_var_proj(w, lam, 2, 1), ins));
}

/* compose(f, g) = λ(x, ret). g (x, λy. f (y, ret)): g first. */
static MimDef *compose(Ad *ad, MimDef *f, MimDef *g) {
    MimWorld *w = ad->w;
    MimDef *X, *Y, *Y2, *A2;
    if (!f || !g || !mim_cps_fn_parts(w, mim_def_type(g), &X, &Y) || !mim_cps_fn_parts(w, mim_def_type(f), &Y2, &A2)) return NULL;
    MimDef *h = named_lam(w, mim_cn(w, autodiff_pair_type(w, X, mim_cn(w, A2))), "compose");
    MimDef *c = named_lam(w, mim_cn(w, Y), "compose_cont");
    if (!h || !c) return NULL;
    MimDef *ret = mim_var_proj(w, h, 2, 1);
    if (!mim_lam_set(w, c, mim_lit_bool(w, true), mim_app(w, f, mim_pair(w, mim_var(w, c), ret)))) return NULL;
    return mim_lam_set(w, h, mim_lit_bool(w, true), mim_app(w, g, mim_pair(w, mim_var_proj(w, h, 2, 0), c)));
}

/* The pullback of a tuple of type T whose components have the pullbacks
 * pbs: λ(s, k). p₀ (u₀, λt₀. p₁ (u₁, λt₁. … k (t₀ + t₁ + …))) over the
 * distinct pullbacks pⱼ other than zero pullbacks, where uⱼ sums the
 * components s#i whose pullback is pⱼ. Calling a shared pullback once
 * keeps a loop whose iterations use a value twice (acc·acc) linear
 * instead of exponential in the iteration count. */
static MimDef *tuple_pb(Ad *ad, MimDef *T, MimDef *const *pbs, size_t n) {
    MimWorld *w = ad->w;
    MimDef *lam = named_lam(w, pb_type(ad, T), "tuple_pb");
    if (!lam) return NULL;
    MimDef *s = mim_var_proj(w, lam, 2, 0), *k = mim_var_proj(w, lam, 2, 1);
    MimDef **dist = mim_xcalloc(n + 1, sizeof *dist), **args = mim_xcalloc(n + 1, sizeof *args);
    MimDef **conts = mim_xcalloc(n + 1, sizeof *conts);
    size_t m = 0;
    MimDef *res = NULL;
    for (size_t i = 0; i < n; ++i) {
        MimDef *si = mim_proj(w, s, n, i);
        MimDef *zero = zero_pb(ad, mim_def_type(si));
        if (!zero) goto out;
        if (pbs[i] == zero) continue;
        size_t j = 0;
        while (j < m && dist[j] != pbs[i]) ++j;
        if (j == m) dist[m++] = pbs[i], args[j] = si;
        else if (!(args[j] = autodiff_add(w, mim_def_type(si), args[j], si))) goto out;
    }
    for (size_t j = 0; j < m; ++j)
        if (!(conts[j] = named_lam(w, ad->cn_A, "tuple_pb_cont"))) goto out;
    MimDef *sum = NULL;
    for (size_t j = 0; j < m; ++j) {
        MimDef *t = mim_var(w, conts[j]);
        if (!(sum = sum ? autodiff_add(w, ad->A, sum, t) : t)) goto out;
    }
    if (m == 0) {
        res = mim_lam_set(w, lam, mim_lit_bool(w, true), mim_app(w, k, mim_app(w, mim_world_annex(w, MIM_autodiff_zero), ad->A)));
        goto out;
    }
    for (size_t j = 0; j < m; ++j) {
        MimDef *body = j + 1 < m ? mim_app(w, dist[j + 1], mim_pair(w, args[j + 1], conts[j + 1])) : mim_app(w, k, sum);
        if (!mim_lam_set(w, conts[j], mim_lit_bool(w, true), body)) goto out;
    }
    res = mim_lam_set(w, lam, mim_lit_bool(w, true), mim_app(w, dist[0], mim_pair(w, args[0], conts[0])));
out:
    free(dist);
    free(args);
    free(conts);
    return res;
}

/* ---- augmentation ------------------------------------------------------------------ */

static MimDef *augment(Ad *ad, MimDef *old);
static MimDef *derive(Eval *ev, MimDef *f);

/* The pullback of old (augmenting it first); a zero pullback if it has none. */
static MimDef *pullback(Ad *ad, MimDef *old) {
    if (!augment(ad, old)) return NULL;
    /* Differentiating w.r.t. floats, integers (loop counters, indices) are
     * constants: their pullbacks would only add zeros, and in a loop they
     * would call the loop's pullback a second time per iteration. */
    if (ad->floats && autodiff_is_idx(ad->w, mim_def_type(old))) return zero_pb(ad, mim_def_type(old));
    MimDef *pb = mim_ptrmap_get(&ad->pb, old);
    return pb ? pb : zero_pb(ad, mim_def_type(old));
}

static MimDef *done(Ad *ad, MimDef *old, MimDef *aug, MimDef *pb) {
    if (!aug) return NULL;
    mim_ptrmap_put(&ad->aug, old, aug);
    if (pb) mim_ptrmap_put(&ad->pb, old, pb);
    return aug;
}


/* A continuation that is not a returning function: a basic block. */
static bool is_basic_block(MimWorld *w, MimDef *T) {
    MimDef *X, *Y;
    return autodiff_is_cn(w, T) && !mim_cps_fn_parts(w, T, &X, &Y);
}

/* A CPS function whose parameters the optimizer has flattened (scalarize):
 * `Cn [D₁, …, Dₙ, Cn R]` with n ≥ 2; *A = [D₁, …, Dₙ], *R = R. With
 * `returning`, not when R is itself a function (a block taking a function
 * is no returning function: forward mode and vjp ask for that). */
static bool flat_parts(MimWorld *w, MimDef *T, MimDef **A, MimDef **R, size_t *n, bool returning) {
    T = mim_resolve(w, T);
    if (!autodiff_is_cn(w, T)) return false;
    MimDef *D = mim_resolve(w, mim_pi_dom(T));
    size_t k = D && mim_def_node(D) == MIM_SIGMA ? mim_def_num_ops(D) : 0;
    if (k < 3 || !autodiff_is_cn(w, mim_def_op(D, k - 1))) return false;
    MimDef *K = mim_resolve(w, mim_def_op(D, k - 1)), *X, *Y;
    if (returning && mim_cps_fn_parts(w, K, &X, &Y)) return false; /* a block taking a function */
    MimDef **ops = mim_xcalloc(k, sizeof *ops);
    for (size_t i = 0; i + 1 < k; ++i) ops[i] = mim_def_op(D, i);
    *A = mim_sigma(w, ops, k - 1);
    free(ops);
    *R = mim_pi_dom(K);
    *n = k - 1;
    return true;
}

static bool flat_fn_parts(MimWorld *w, MimDef *T, MimDef **A, MimDef **R, size_t *n) {
    return flat_parts(w, T, A, R, n, false);
}

bool autodiff_fn_parts(MimWorld *w, MimDef *T, MimDef **A, MimDef **R, size_t *n) {
    *n = 0;
    return mim_cps_fn_parts(w, T, A, R) || flat_parts(w, T, A, R, n, true);
}

/* A continuation lambda of the function being differentiated (a basic
 * block, or an "open continuation" named …ret… or …_cont…): aug_<name> :
 * Cn [AD(dom), Cn [dom, Cn A]] whose first parameter's pullback is its
 * second. */
static MimDef *augment_cont(Ad *ad, MimDef *lam) {
    MimWorld *w = ad->w;
    MimDef *dom = mim_pi_dom(mim_resolve(w, mim_def_type(lam)));
    MimDef *ad_dom = autodiff_type(w, dom);
    if (!ad_dom) return fail(ad, lam, "the continuation");
    char name[128];
    MimSym old_name = mim_def_name(lam);
    snprintf(name, sizeof name, "aug_%s", old_name ? old_name : "cont");
    MimDef *aug = named_lam(w, mim_cn(w, autodiff_pair_type(w, ad_dom, pb_type(ad, dom))), name);
    if (!aug) return NULL;
    mim_ptrmap_put(&ad->aug, lam, aug);
    mim_ptrmap_put(&ad->pb, lam, zero_pb(ad, mim_def_type(lam)));
    MimDef *var = mim_var(w, lam);
    if (var) {
        mim_ptrmap_put(&ad->aug, var, mim_var_proj(w, aug, 2, 0));
        mim_ptrmap_put(&ad->pb, var, mim_var_proj(w, aug, 2, 1));
    }
    MimDef *body = mim_lam_body(lam);
    MimDef *body2 = body ? augment(ad, body) : NULL;
    if (!body2 || !mim_lam_set(w, aug, mim_lit_bool(w, false), body2)) return NULL;
    return aug;
}

static MimDef *augment_lam(Ad *ad, MimDef *lam) {
    MimWorld *w = ad->w;
    MimSym name = mim_def_name(lam);
    bool open = name && (strstr(name, "ret") || strstr(name, "_cont"));
    MimDef *A, *R;
    size_t n;
    bool flat = flat_fn_parts(w, mim_def_type(lam), &A, &R, &n);
    if (open || (!flat && is_basic_block(w, mim_def_type(lam)))) return augment_cont(ad, lam);
    /* A closed function called from here: differentiated now (memoized, so
     * recursion ends at the derivative under construction). Leaving
     * `%autodiff.ad g` for later is not enough: a call of a derivative with
     * filter tt is β-reduced when it is built, and the pass manager does
     * not offer the nodes of an inlined body again. */
    MimDef *d = derive(ad->ev, lam);
    if (d) return done(ad, lam, d, NULL);
    return mim_world_has_error(w) ? NULL : fail(ad, lam, "the function");
}

static MimDef *augment_tuple(Ad *ad, MimDef *old) {
    MimWorld *w = ad->w;
    size_t n = mim_def_num_ops(old);
    MimDef **ops = mim_xcalloc(n + 1, sizeof *ops), **pbs = mim_xcalloc(n + 1, sizeof *pbs);
    MimDef *res = NULL;
    for (size_t i = 0; i < n; ++i)
        if (!(ops[i] = augment(ad, mim_def_op(old, i))) || !(pbs[i] = pullback(ad, mim_def_op(old, i)))) goto out;
    MimDef *aug = mim_tuple(w, ops, n);
    mim_ptrmap_put(&ad->shadow, old, mim_tuple(w, pbs, n));
    res = done(ad, old, aug, tuple_pb(ad, mim_def_type(old), pbs, n));
out:
    free(ops);
    free(pbs);
    return res;
}

/* A pack ‹n; e› with a literal n: its pullback is that of the tuple of n
 * copies of e, its shadow ‹n; e*›. */
static MimDef *augment_pack(Ad *ad, MimDef *old) {
    MimWorld *w = ad->w;
    uint64_t n;
    MimDef *shape = mim_def_op(mim_resolve(w, mim_def_type(old)), 0), *body = mim_def_op(old, 0);
    if (mim_def_is_mut(old) || !mim_def_lit(shape, &n) || n > 4096) return fail(ad, old, "the pack");
    MimDef *body2 = augment(ad, body), *bpb = body2 ? pullback(ad, body) : NULL;
    if (!body2 || !bpb) return NULL;
    MimDef **pbs = mim_xcalloc(n + 1, sizeof *pbs);
    for (uint64_t i = 0; i < n; ++i) pbs[i] = bpb;
    mim_ptrmap_put(&ad->shadow, old, mim_pack(w, shape, bpb));
    MimDef *res = done(ad, old, mim_pack(w, shape, body2), tuple_pb(ad, mim_def_type(old), pbs, (size_t)n));
    free(pbs);
    return res;
}

static MimDef *augment_extract(Ad *ad, MimDef *old) {
    MimWorld *w = ad->w;
    MimDef *t = mim_def_op(old, 0), *i = mim_def_op(old, 1);
    MimDef *t2 = augment(ad, t), *i2 = augment(ad, i);
    if (!t2 || !i2) return NULL;
    MimDef *aug = mim_extract(w, t2, i2);
    MimDef *shadow = mim_ptrmap_get(&ad->shadow, t);
    if (shadow && mim_def_node(i) == MIM_LIT) return done(ad, old, aug, mim_extract(w, shadow, i2));
    if (autodiff_is_cn(w, mim_def_type(old))) return done(ad, old, aug, NULL); /* a continuation: no tangent */
    /* λ(s, k). t* (insert (zero (type t'), i', s), k) */
    MimDef *tpb = pullback(ad, t);
    MimDef *lam = named_lam(w, pb_type(ad, mim_def_type(old)), "extract_pb");
    if (!tpb || !lam) return NULL;
    MimDef *zero = mim_app(w, mim_world_annex(w, MIM_autodiff_zero), mim_def_type(t2));
    MimDef *ins = mim_insert(w, zero, i2, mim_var_proj(w, lam, 2, 0));
    if (!mim_lam_set(w, lam, mim_lit_bool(w, true), mim_app(w, tpb, mim_pair(w, ins, mim_var_proj(w, lam, 2, 1)))))
        return NULL;
    return done(ad, old, aug, lam);
}

/* `%direct.cps2ds (X, Y) f` for f : Cn [X, Cn Y]. */
static MimDef *cps2ds(Ad *ad, MimDef *f) {
    MimWorld *w = ad->w;
    MimDef *X, *Y;
    if (!mim_cps_fn_parts(w, mim_def_type(f), &X, &Y)) return NULL;
    MimDef *ax = mim_world_annex(w, MIM_direct_cps2ds);
    return ax ? mim_app(w, mim_app(w, ax, mim_pair(w, X, Y)), f) : NULL;
}

/* A fully applied %math call without an internal_diff_ external: r' = the
 * call of a', pullback λ(s, k). a* (t, k) with t the tangent of the
 * argument (diff_math.c), or the zero pullback for a zero derivative. */
static MimDef *augment_math(Ad *ad, MimDef *old, AdMathKind kind) {
    MimWorld *w = ad->w;
    MimDef *g = mim_app_callee(old), *a = mim_app_arg(old), *ax = mim_app_axiom(old);
    if (kind == AD_MATH_NOT) return fail(ad, ax, "the axiom (no derivative)");
    if (mim_def_dep(g) & MIM_DEP_VAR) return fail(ad, ax, "the axiom with a variable format or mode");
    MimDef *a2 = augment(ad, a), *a_pb = a2 ? pullback(ad, a) : NULL;
    if (!a_pb) return NULL;
    MimDef *r = mim_app(w, g, a2);
    if (kind == AD_MATH_ZERO) return done(ad, old, r, zero_pb(ad, mim_def_type(old)));
    MimDef *lam = named_lam(w, pb_type(ad, mim_def_type(old)), "math_pb");
    if (!lam) return NULL;
    MimDef *t = autodiff_math_tangent(w, old, a2, r, mim_var_proj(w, lam, 2, 0));
    if (!t) return fail(ad, ax, "the axiom (no derivative)");
    MimDef *body = mim_app(w, a_pb, mim_pair(w, t, mim_var_proj(w, lam, 2, 1)));
    return mim_lam_set(w, lam, mim_lit_bool(w, true), body) ? done(ad, old, r, lam) : NULL;
}

static MimDef *augment_app(Ad *ad, MimDef *old) {
    MimWorld *w = ad->w;
    MimDef *g = mim_app_callee(old), *a = mim_app_arg(old);
    AdMathKind math = autodiff_math_kind(old);
    if (math != AD_MATH_NONE && !mim_annex_external(w, mim_app_axiom(old), "internal_diff_")) {
        if (mim_def_loc(old).begin.row) ad->use = mim_def_loc(old);
        return augment_math(ad, old, math);
    }
    MimDef *gT = mim_resolve(w, mim_def_type(g)), *T = mim_resolve(w, mim_def_type(old));
    if (mim_def_loc(old).begin.row) ad->use = mim_def_loc(old);
    MimDef *g2 = augment(ad, g);
    if (!g2) return NULL;
    /* the result is itself a function (a partial application): no pullback */
    if (T && mim_def_node(T) == MIM_PI) {
        MimDef *a2 = augment(ad, a);
        return a2 ? done(ad, old, mim_app(w, g2, a2), NULL) : NULL;
    }
    MimDef *X, *R;
    size_t nflat = 0;
    MimDef *gl = mim_resolve(w, g);
    bool flat = gl && mim_def_node(gl) == MIM_LAM && mim_def_is_mut(gl) && mim_ptrmap_get(&ad->aug, gl) == g2 &&
                mim_def_node(g2) == MIM_LAM && flat_fn_parts(w, gT, &X, &R, &nflat);
    if (flat || (autodiff_is_cn(w, gT) && mim_cps_fn_parts(w, gT, &X, &R))) {
        /* a CPS call g (args, k) → g' (args', c), c (r, r*) = k' (r, compose (args*, r*));
         * a call of a flattened function g (a₁, …, aₙ, k) as g ((a₁, …, aₙ), k) */
        MimDef *args, *k;
        if (flat) {
            MimDef **ops = mim_xcalloc(nflat, sizeof *ops);
            for (size_t i = 0; i < nflat; ++i) ops[i] = mim_proj(w, a, nflat + 1, i);
            args = mim_tuple(w, ops, nflat);
            free(ops);
            k = mim_proj(w, a, nflat + 1, nflat);
        } else {
            args = mim_proj(w, a, 2, 0), k = mim_proj(w, a, 2, 1);
        }
        MimDef *args2 = augment(ad, args), *args_pb = args2 ? pullback(ad, args) : NULL;
        MimDef *k2 = args_pb ? augment(ad, k) : NULL;
        if (!k2) return NULL;
        MimDef *adR = autodiff_type(w, R);
        if (!adR) return fail(ad, old, "the call");
        MimDef *c = named_lam(w, mim_cn(w, autodiff_pair_type(w, adR, mim_cn(w, autodiff_pair_type(w, R, mim_cn(w, X))))),
                              "ad_ret");
        if (!c) return NULL;
        MimDef *r_pb = compose(ad, args_pb, mim_var_proj(w, c, 2, 1));
        if (!r_pb || !mim_lam_set(w, c, mim_lit_bool(w, false), mim_app(w, k2, mim_pair(w, mim_var_proj(w, c, 2, 0), r_pb))))
            return NULL;
        return done(ad, old, mim_app(w, g2, mim_pair(w, args2, c)), NULL);
    }
    if (autodiff_is_cn(w, gT)) {
        /* a basic block (e.g. the return continuation): g' (a', a*) */
        MimDef *a2 = augment(ad, a), *a_pb = a2 ? pullback(ad, a) : NULL;
        return a_pb ? done(ad, old, mim_app(w, g2, mim_pair(w, a2, a_pb)), NULL) : NULL;
    }
    /* direct style: (r, pb) = g' a', with g' made direct style if it is CPS */
    MimDef *a2 = augment(ad, a), *a_pb = a2 ? pullback(ad, a) : NULL;
    if (!a_pb) return NULL;
    MimDef *ds = autodiff_is_cn(w, mim_def_type(g2)) ? cps2ds(ad, g2) : g2;
    if (!ds) return fail(ad, old, "the call");
    MimDef *rp = mim_app(w, ds, a2);
    MimDef *r = mim_proj(w, rp, 2, 0), *pb = mim_proj(w, rp, 2, 1);
    return r && pb ? done(ad, old, r, compose(ad, a_pb, pb)) : NULL;
}

static MimDef *augment(Ad *ad, MimDef *old) {
    old = mim_resolve(ad->w, old);
    if (!old) return NULL;
    MimDef *known = mim_ptrmap_get(&ad->aug, old);
    if (known) return known;
    switch (mim_def_node(old)) {
    case MIM_LIT: return done(ad, old, old, zero_pb(ad, mim_def_type(old)));
    case MIM_AXIOM: {
        MimDef *d = mim_annex_external(ad->w, old, "internal_diff_");
        return d ? done(ad, old, d, NULL) : fail(ad, old, "the axiom (no internal_diff_ derivative)");
    }
    case MIM_LAM: return mim_def_is_mut(old) ? augment_lam(ad, old) : fail(ad, old, "the immutable function");
    case MIM_TUPLE: return augment_tuple(ad, old);
    case MIM_PACK: return augment_pack(ad, old);
    case MIM_EXTRACT: return augment_extract(ad, old);
    case MIM_APP: return augment_app(ad, old);
    default:
        /* types and other closed constants stay as they are, without a tangent */
        if (!(mim_def_dep(old) & (MIM_DEP_VAR | MIM_DEP_MUT))) return done(ad, old, old, NULL);
        return fail(ad, old, "the expression");
    }
}

/* ---- the pass ------------------------------------------------------------------------ */

struct Eval {
    MimPass base;
    MimPtrMap derivs; /* f ↦ f_deriv, or f itself if differentiating it failed */
    MimPtrMap busy;   /* f_deriv ↦ f_deriv while its body is built; ↦ f if it calls itself */
    MimPtrMap jvps;   /* forward mode: f ↦ f_jvp, or f if it failed */
    MimPtrMap vjps;   /* reverse mode over memory: f ↦ f_vjp, or f if it failed */
    MimPtrMap copies; /* nested functions ↦ their copies for vjp's forward sweeps */
    MimDef *realloc_decl[3]; /* the tape runtime's grow, C's calloc, the runtime's free: declared when a vjp needs them */
    struct VjpSpec *specs; /* f_vjp specialized for calls with inactive pointer arguments */
    size_t nspecs;
};

/* f_vjp specialized for the set inactive; memo: its nested functions' vjps */
typedef struct VjpSpec {
    MimDef *fv, *spec;
    uint64_t inactive;
    MimPtrMap memo, copies; /* its own: a forward copy shared with another vjp breaks closure conversion */
} VjpSpec;

/* T is a float type or has a float component. */
static bool has_float(MimWorld *w, MimDef *T) {
    T = mim_resolve(w, T);
    if (!T) return false;
    if (mim_match(T, MIM_math_F)) return true;
    if (mim_def_node(T) == MIM_SIGMA) {
        for (size_t i = 0, n = mim_def_num_ops(T); i < n; ++i)
            if (has_float(w, mim_def_op(T, i))) return true;
        return false;
    }
    return mim_def_node(T) == MIM_ARR && has_float(w, mim_def_op(T, 1));
}

/* f's derivative (memoized: a recursive f meets its derivative under
 * construction); NULL after an error, or if f cannot be differentiated. */
static MimDef *derive(Eval *ev, MimDef *f) {
    MimWorld *w = mim_pass_world(&ev->base);
    MimDef *known = mim_ptrmap_get(&ev->derivs, f);
    if (known && known != f && mim_ptrmap_get(&ev->busy, known)) mim_ptrmap_put(&ev->busy, known, f); /* recursive */
    if (known) return known == f ? NULL : known;
    MimDef *A, *R, *T = NULL;
    size_t nflat = 0;
    bool flat = !mim_cps_fn_parts(w, mim_def_type(f), &A, &R) && flat_fn_parts(w, mim_def_type(f), &A, &R, &nflat);
    if (flat || mim_cps_fn_parts(w, mim_def_type(f), &A, &R)) {
        MimDef *dom[2];
        dom[0] = A;
        dom[1] = mim_cn(w, R);
        T = autodiff_type(w, mim_cn(w, mim_sigma(w, dom, 2)));
    }
    if (!T || !mim_lam_body(f)) {
        mim_ptrmap_put(&ev->derivs, f, f);
        return NULL;
    }
    char name[128];
    MimSym fname = mim_def_name(f);
    snprintf(name, sizeof name, "%s_deriv", fname ? fname : "f");
    MimDef *fd = named_lam(w, T, name);
    if (!fd) return NULL;
    mim_ptrmap_put(&ev->derivs, f, fd);
    Ad ad = {.ev = ev, .w = w, .p = &ev->base, .A = A, .cn_A = mim_cn(w, A), .floats = has_float(w, A)};
    MimDef *var = mim_var(w, f), *res = NULL;
    if (!var) goto out;
    if (flat) {
        /* f's parameters (d₁, …, dₙ, k) are fd's ((d₁', …, dₙ'), k'); dᵢ's
         * pullback puts its tangent at position i of a zero A */
        MimDef **augs = mim_xcalloc(nflat + 1, sizeof *augs), **pbs = mim_xcalloc(nflat + 1, sizeof *pbs);
        MimDef *fv = mim_var(w, fd);
        MimDef *fargs = mim_proj(w, fv, 2, 0);
        bool ok = true;
        for (size_t i = 0; ok && i < nflat; ++i) {
            augs[i] = mim_proj(w, fargs, nflat, i);
            ok = (pbs[i] = proj_pb(&ad, i, nflat)) != NULL;
        }
        augs[nflat] = mim_proj(w, fv, 2, 1);
        if (ok) ok = (pbs[nflat] = zero_pb(&ad, mim_def_op(mim_resolve(w, mim_pi_dom(mim_resolve(w, mim_def_type(f)))), nflat))) != NULL;
        if (ok) {
            mim_ptrmap_put(&ad.aug, var, mim_tuple(w, augs, nflat + 1));
            mim_ptrmap_put(&ad.shadow, var, mim_tuple(w, pbs, nflat + 1));
        }
        free(augs);
        free(pbs);
        if (!ok) goto out;
    } else {
        MimDef *shadow[2];
        shadow[0] = id_pb(&ad);
        shadow[1] = zero_pb(&ad, mim_pi_dom(mim_resolve(w, mim_def_type(f))));
        if (!shadow[0] || !shadow[1]) goto out;
        mim_ptrmap_put(&ad.aug, var, mim_var(w, fd));
        mim_ptrmap_put(&ad.shadow, var, mim_tuple(w, shadow, 2));
    }
    mim_ptrmap_put(&ev->busy, fd, fd);
    MimDef *body = augment(&ad, mim_lam_body(f));
    /* A recursive derivative is not inlined everywhere (filter ff), else
     * partial evaluation would unfold it without end. */
    bool rec = mim_ptrmap_get(&ev->busy, fd) == f;
    mim_ptrmap_remove(&ev->busy, fd);
    if (body && mim_lam_set(w, fd, mim_lit_bool(w, !rec), body)) res = fd;
out:
    mim_ptrmap_free(&ad.aug), mim_ptrmap_free(&ad.pb), mim_ptrmap_free(&ad.shadow), mim_ptrmap_free(&ad.zero_pbs);
    if (!res) mim_ptrmap_put(&ev->derivs, f, f);
    return res;
}

/* A call f_vjp ((x, sx, ȳ), k) passing ⊥ as the shadow of pointer
 * arguments (they are inactive, like Enzyme's constant arguments): the
 * call of f_vjp specialized for them (memoized on f_vjp and the set), or
 * NULL to keep def. */
static MimDef *vjp_call(Eval *ev, MimDef *def) {
    MimWorld *w = mim_pass_world(&ev->base);
    if (mim_def_node(def) != MIM_APP) return NULL;
    MimDef *fv = mim_resolve(w, mim_app_callee(def)), *f = NULL;
    for (size_t i = 0; fv && !f && i < ev->vjps.cap; ++i)
        if (ev->vjps.slots[i].key && ev->vjps.slots[i].val == fv && ev->vjps.slots[i].key != (void *)fv) f = (MimDef *)ev->vjps.slots[i].key;
    MimDef *A, *R;
    size_t n;
    if (!f || !autodiff_fn_parts(w, mim_def_type(f), &A, &R, &n)) return NULL;
    A = mim_resolve(w, A);
    size_t na = A && mim_def_node(A) == MIM_SIGMA ? mim_def_num_ops(A) : 1;
    MimDef *in = mim_proj(w, mim_app_arg(def), 2, 0);
    MimDef *sx = mim_proj(w, in, 3, 1);
    uint64_t inactive = 0;
    for (size_t i = 0; i < na && i < 64; ++i) {
        MimDef *T = na == 1 ? A : mim_def_op(A, i), *si = mim_resolve(w, na == 1 ? sx : mim_proj(w, sx, na, i));
        if (mim_match(T, MIM_mem_Ptr) && si && mim_def_node(si) == MIM_BOT) inactive |= (uint64_t)1 << i;
    }
    if (!inactive) return NULL;
    VjpSpec *sp = NULL;
    for (size_t i = 0; !sp && i < ev->nspecs; ++i)
        if (ev->specs[i].fv == fv && ev->specs[i].inactive == inactive) sp = &ev->specs[i];
    if (!sp) {
        ev->specs = mim_xrealloc(ev->specs, (ev->nspecs + 1) * sizeof *ev->specs);
        sp = &ev->specs[ev->nspecs++];
        *sp = (VjpSpec){.fv = fv, .inactive = inactive};
        sp->spec = autodiff_vjp_inactive(&ev->base, &sp->memo, &sp->copies, ev->realloc_decl, f, inactive);
    }
    return sp->spec ? mim_app(w, sp->spec, mim_app_arg(def)) : NULL;
}

static MimDef *eval_rewrite(MimPass *p, MimDef *def) {
    Eval *ev = (Eval *)p;
    MimDef *spec = vjp_call(ev, def);
    if (spec) return spec;
    MimDef *fj = mim_match(def, MIM_autodiff_jvp);
    if (fj) {
        MimDef *f = mim_resolve(mim_pass_world(p), mim_app_nth_arg(fj, 2));
        if (!f || mim_def_node(f) != MIM_LAM || !mim_def_is_mut(f)) return def; /* unsupported: stays */
        MimDef *d = autodiff_jvp(p, &ev->jvps, &ev->busy, f);
        return d ? d : mim_world_has_error(mim_pass_world(p)) ? NULL : def;
    }
    MimDef *fv = mim_match(def, MIM_autodiff_vjp);
    if (fv) {
        MimDef *f = mim_resolve(mim_pass_world(p), mim_app_nth_arg(fv, 2));
        if (!f || mim_def_node(f) != MIM_LAM || !mim_def_is_mut(f)) return def; /* unsupported: stays */
        MimDef *d = autodiff_vjp(p, &ev->vjps, &ev->copies, ev->realloc_decl, f);
        return d ? d : mim_world_has_error(mim_pass_world(p)) ? NULL : def;
    }
    MimDef *call = mim_match(def, MIM_autodiff_ad);
    if (!call) return def;
    MimDef *f = mim_resolve(mim_pass_world(p), mim_app_nth_arg(call, 1));
    if (!f || mim_def_node(f) != MIM_LAM || !mim_def_is_mut(f)) return def; /* unsupported: stays */
    MimDef *d = derive(ev, f);
    if (d) return d;
    return mim_world_has_error(mim_pass_world(p)) ? NULL : def; /* failed: reported once */
}

static void eval_fini(MimPass *p) {
    mim_ptrmap_free(&((Eval *)p)->derivs);
    mim_ptrmap_free(&((Eval *)p)->busy);
    mim_ptrmap_free(&((Eval *)p)->jvps);
    mim_ptrmap_free(&((Eval *)p)->vjps);
    mim_ptrmap_free(&((Eval *)p)->copies);
    for (size_t i = 0; i < ((Eval *)p)->nspecs; ++i) mim_ptrmap_free(&((Eval *)p)->specs[i].memo), mim_ptrmap_free(&((Eval *)p)->specs[i].copies);
    free(((Eval *)p)->specs);
}

const MimPassClass autodiff_eval_class = {
    .name = "autodiff_eval",
    .size = sizeof(Eval),
    .on_lams = true,
    .rewrite = eval_rewrite,
    .fini = eval_fini,
};
