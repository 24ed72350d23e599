/* Forward mode (docs/autodiff.md, "Forward mode", an extension of the
 * specification): `%autodiff.jvp f` for f : Cn [A, Cn R] becomes
 * `<f>_jvp : Cn [[A, A], Cn [R, R]]`, which computes f's result together
 * with its tangent (the Jacobian-vector product) for a point and a tangent
 * of the argument. Every expression e of f is mapped to e' (its value) and
 * a tangent e~ of the same type, computed alongside: no pullbacks, no
 * closures, so branches and loops (a block `con B (p: P)` becomes
 * `B' (p: P, t: P)`) compile as they are.
 *
 * Tangents: floats as in reverse mode (the %math rules of diff_math.c,
 * applied to the argument's tangents); integers and Bool have the tangent
 * 0 (they are constants); the tangent of a %mem.M value is the value
 * itself (one memory chain); the tangent of a %mem.Ptr is its *shadow*
 * pointer, at which the tangents of the pointed-to values live (Enzyme's
 * duplicated arguments): a load reads the shadow too, a store writes the
 * tangent to the shadow, lea offsets the shadow the same way, malloc and
 * alloc allocate a shadow, free frees it, a pointer bitcast casts it. */
#include "autodiff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Fwd Fwd;
struct Fwd {
    Fwd *parent;     /* the enclosing function's (a nested function uses its variables) */
    MimWorld *w;
    MimPass *p;
    MimPtrMap *memo; /* f ↦ f_jvp, or f if it failed */
    MimPtrMap *busy; /* f_jvp ↦ f_jvp while built, ↦ f if it calls itself */
    MimPtrMap aug;   /* old ↦ value */
    MimPtrMap tan;   /* old ↦ tangent */
    MimLoc use;
};

static MimDef *jvp_of(Fwd *parent, MimPass *p, MimPtrMap *memo, MimPtrMap *busy, MimDef *f);

/* old's value or tangent in fw or an enclosing function's map. */
static MimDef *lookup(Fwd *fw, MimDef *old, bool tan) {
    for (; fw; fw = fw->parent) {
        MimDef *r = mim_ptrmap_get(tan ? &fw->tan : &fw->aug, old);
        if (r) return r;
    }
    return NULL;
}
static MimDef *fwd(Fwd *fw, MimDef *old);

static MimDef *fail(Fwd *fw, MimDef *old, const char *what) {
    autodiff_cannot(fw->p, fw->use.begin.row ? fw->use : mim_def_loc(old), "(forward mode) ", what, old);
    return NULL;
}


static MimDef *pair_type(MimWorld *w, MimDef *a, MimDef *b) { return autodiff_pair_type(w, a, b); }

/* Integers (Idx s, Nat): constants in forward mode, tangent 0. */
static bool is_int(MimWorld *w, MimDef *T) {
    MimDef *R = mim_resolve(w, T);
    return autodiff_is_idx(w, T) || (R && mim_def_node(R) == MIM_NAT);
}

static MimDef *done(Fwd *fw, MimDef *old, MimDef *aug, MimDef *tan) {
    if (!aug) return NULL;
    mim_ptrmap_put(&fw->aug, old, aug);
    if (tan) mim_ptrmap_put(&fw->tan, old, tan);
    return aug;
}

/* The tangent of old (after fwd): M is its own tangent, integers have 0. */
static MimDef *tangent(Fwd *fw, MimDef *old) {
    MimWorld *w = fw->w;
    MimDef *aug = fwd(fw, old);
    if (!aug) return NULL;
    MimDef *T = mim_def_type(old);
    if (mim_match(T, MIM_mem_M)) return aug;
    if (is_int(w, T)) return mim_lit(w, T, 0);
    MimDef *t = lookup(fw, old, true);
    if (t) return t;
    if (autodiff_is_cn(w, T)) return aug; /* continuations carry no tangent: a placeholder of the type */
    return mim_app(w, mim_world_annex(w, MIM_autodiff_zero), T);
}

/* A continuation of f (block, return point): B' : Cn [P, P]. */
static MimDef *fwd_cont(Fwd *fw, MimDef *lam) {
    MimWorld *w = fw->w;
    MimDef *P = mim_pi_dom(mim_resolve(w, mim_def_type(lam)));
    char name[128];
    MimSym n = mim_def_name(lam);
    snprintf(name, sizeof name, "fwd_%s", n ? n : "cont");
    MimDef *nl = mim_mut_lam(w, mim_cn(w, pair_type(w, P, P)));
    if (!nl) return NULL;
    mim_def_set_name(nl, mim_world_sym(w, name));
    mim_ptrmap_put(&fw->aug, lam, nl);
    MimDef *var = mim_var(w, lam);
    if (var) {
        MimDef *v0 = mim_var_proj(w, nl, 2, 0);
        MimDef *v1 = mim_var_proj(w, nl, 2, 1);
        mim_ptrmap_put(&fw->aug, var, v0);
        mim_ptrmap_put(&fw->tan, var, v1);
    }
    MimDef *body = mim_lam_body(lam);
    MimDef *b2 = body ? fwd(fw, body) : NULL;
    return b2 && mim_lam_set(w, nl, mim_lit_bool(w, false), b2) ? nl : NULL;
}


static MimDef *fwd_lam(Fwd *fw, MimDef *lam) {
    MimWorld *w = fw->w;
    MimSym name = mim_def_name(lam);
    bool open = name && (strstr(name, "ret") || strstr(name, "_cont"));
    MimDef *A, *R;
    size_t n;
    if (!open && autodiff_fn_parts(w, mim_def_type(lam), &A, &R, &n)) {
        MimDef *d = jvp_of(fw, fw->p, fw->memo, fw->busy, lam) ? mim_ptrmap_get(fw->memo, lam) : NULL;
        if (d && d != lam) return done(fw, lam, d, NULL);
        return mim_world_has_error(w) ? NULL : fail(fw, lam, "the function");
    }
    if (autodiff_is_cn(w, mim_def_type(lam))) return fwd_cont(fw, lam);
    return fail(fw, lam, "the function");
}

static MimDef *fwd_tuple(Fwd *fw, MimDef *old) {
    MimWorld *w = fw->w;
    size_t n = mim_def_num_ops(old);
    MimDef **a = mim_xcalloc(n + 1, sizeof *a), **t = mim_xcalloc(n + 1, sizeof *t);
    MimDef *res = NULL;
    for (size_t i = 0; i < n; ++i)
        if (!(a[i] = fwd(fw, mim_def_op(old, i))) || !(t[i] = tangent(fw, mim_def_op(old, i)))) goto out;
    MimDef *aug = mim_tuple(w, a, n);
    MimDef *tan = mim_tuple(w, t, n);
    res = done(fw, old, aug, tan);
out:
    free(a);
    free(t);
    return res;
}

/* %mem operations and pointer casts on the value and on the shadow. */
static MimDef *fwd_mem(Fwd *fw, MimDef *old, uint64_t id) {
    MimWorld *w = fw->w;
    MimDef *g = mim_app_callee(old), *a = mim_app_arg(old);
    if (mim_def_dep(g) & MIM_DEP_VAR) return fail(fw, old, "the memory operation with a variable type");
    MimDef *T = mim_def_type(old);
    switch (id) {
    case MIM_mem_load: { /* (m', v) = load (m, p); (m'', t) = load (m', p~) */
        MimDef *m = fwd(fw, mim_proj(w, a, 2, 0)), *p = fwd(fw, mim_proj(w, a, 2, 1));
        MimDef *sp = p ? tangent(fw, mim_proj(w, a, 2, 1)) : NULL;
        if (!m || !sp) return NULL;
        MimDef *r1 = mim_app(w, g, mim_pair(w, m, p));
        MimDef *m1 = mim_proj(w, r1, 2, 0);
        MimDef *r2 = mim_app(w, g, mim_pair(w, m1, sp));
        MimDef *m2 = mim_proj(w, r2, 2, 0);
        MimDef *v = mim_proj(w, r1, 2, 1);
        MimDef *aug = mim_pair(w, m2, v);
        MimDef *t = mim_proj(w, r2, 2, 1);
        return done(fw, old, aug, mim_pair(w, m2, t));
    }
    case MIM_mem_store: { /* store (m, p, v); store (·, p~, v~) */
        MimDef *o0 = mim_proj(w, a, 3, 0), *o1 = mim_proj(w, a, 3, 1), *o2 = mim_proj(w, a, 3, 2);
        MimDef *m = fwd(fw, o0), *p = fwd(fw, o1), *v = fwd(fw, o2);
        MimDef *sp = p ? tangent(fw, o1) : NULL, *tv = v ? tangent(fw, o2) : NULL;
        if (!m || !sp || !tv) return NULL;
        MimDef *ops[3] = {m, p, v};
        MimDef *m1 = mim_app(w, g, mim_tuple(w, ops, 3));
        MimDef *ops2[3] = {m1, sp, tv};
        MimDef *m2 = mim_app(w, g, mim_tuple(w, ops2, 3));
        return done(fw, old, m2, m2);
    }
    case MIM_mem_free: {
        MimDef *m = fwd(fw, mim_proj(w, a, 2, 0)), *p = fwd(fw, mim_proj(w, a, 2, 1));
        MimDef *sp = p ? tangent(fw, mim_proj(w, a, 2, 1)) : NULL;
        if (!m || !sp) return NULL;
        MimDef *m1 = mim_app(w, g, mim_pair(w, m, p));
        MimDef *m2 = mim_app(w, g, mim_pair(w, m1, sp));
        return done(fw, old, m2, m2);
    }
    case MIM_mem_malloc: { /* the shadow: an allocation of the same size */
        MimDef *m = fwd(fw, mim_proj(w, a, 2, 0)), *n = fwd(fw, mim_proj(w, a, 2, 1));
        if (!m || !n) return NULL;
        MimDef *r1 = mim_app(w, g, mim_pair(w, m, n));
        MimDef *m1 = mim_proj(w, r1, 2, 0);
        MimDef *r2 = mim_app(w, g, mim_pair(w, m1, n));
        MimDef *m2 = mim_proj(w, r2, 2, 0);
        MimDef *p = mim_proj(w, r1, 2, 1);
        MimDef *aug = mim_pair(w, m2, p);
        MimDef *sp = mim_proj(w, r2, 2, 1);
        return done(fw, old, aug, mim_pair(w, m2, sp));
    }
    case MIM_mem_alloc: {
        MimDef *m = fwd(fw, a);
        if (!m) return NULL;
        MimDef *r1 = mim_app(w, g, m);
        MimDef *m1 = mim_proj(w, r1, 2, 0);
        MimDef *r2 = mim_app(w, g, m1);
        MimDef *m2 = mim_proj(w, r2, 2, 0);
        MimDef *p = mim_proj(w, r1, 2, 1);
        MimDef *aug = mim_pair(w, m2, p);
        MimDef *sp = mim_proj(w, r2, 2, 1);
        return done(fw, old, aug, mim_pair(w, m2, sp));
    }
    case MIM_mem_lea: { /* the same offset into the shadow */
        MimDef *o0 = mim_proj(w, a, 2, 0), *o1 = mim_proj(w, a, 2, 1);
        MimDef *p = fwd(fw, o0), *i = fwd(fw, o1);
        MimDef *sp = p ? tangent(fw, o0) : NULL;
        if (!sp || !i) return NULL;
        MimDef *aug = mim_app(w, g, mim_pair(w, p, i));
        MimDef *tan = mim_app(w, g, mim_pair(w, sp, i));
        return done(fw, old, aug, tan);
    }
    default: { /* %core.bitcast between pointers */
        if (!mim_match(T, MIM_mem_Ptr) || !mim_match(mim_def_type(a), MIM_mem_Ptr))
            return fail(fw, mim_app_axiom(old), "the axiom (no derivative)");
        MimDef *p = fwd(fw, a), *sp = p ? tangent(fw, a) : NULL;
        if (!sp) return NULL;
        MimDef *aug = mim_app(w, g, p);
        MimDef *tan = mim_app(w, g, sp);
        return done(fw, old, aug, tan);
    }
    }
}

/* A fully applied %math call: the value, and the tangent from the
 * (linear) reverse rule: unary s ↦ s·f'(x) at s = x~; binary
 * (s·∂a, s·∂b) at s = a~ and at s = b~, summed; conv.f2f converts x~. */
static MimDef *fwd_math(Fwd *fw, MimDef *old, AdMathKind kind) {
    MimWorld *w = fw->w;
    MimDef *g = mim_app_callee(old), *a = mim_app_arg(old), *ax = mim_app_axiom(old);
    if (kind == AD_MATH_NOT) return fail(fw, ax, "the axiom (no derivative)");
    if (mim_def_dep(g) & MIM_DEP_VAR) return fail(fw, ax, "the axiom with a variable format or mode");
    MimDef *a2 = fwd(fw, a), *ta = a2 ? tangent(fw, a) : NULL;
    if (!ta) return NULL;
    MimDef *r = mim_app(w, g, a2);
    MimDef *T = mim_def_type(old);
    if (kind == AD_MATH_ZERO || is_int(w, T)) return done(fw, old, r, NULL);
    uint64_t id = mim_axiom_id(ax), base = mim_annex_base(id);
    if (id == MIM_math_conv_f2f) return done(fw, old, r, mim_app(w, g, ta));
    if (base == MIM_math_arith || base == MIM_math_extrema || base == MIM_math_pow) {
        MimDef *t0 = mim_proj(w, ta, 2, 0), *t1 = mim_proj(w, ta, 2, 1);
        MimDef *d0 = autodiff_math_tangent(w, old, a2, r, t0);
        MimDef *d1 = d0 ? autodiff_math_tangent(w, old, a2, r, t1) : NULL;
        if (!d1) return fail(fw, ax, "the axiom (no derivative)");
        MimDef *x0 = mim_proj(w, d0, 2, 0), *x1 = mim_proj(w, d1, 2, 1);
        MimDef *add = mim_app(w, mim_world_annex(w, MIM_math_arith_add), mim_app_arg(mim_app_callee(g)));
        add = mim_app(w, add, mim_app_arg(g));
        return done(fw, old, r, mim_app(w, add, mim_pair(w, x0, x1)));
    }
    MimDef *t = autodiff_math_tangent(w, old, a2, r, ta);
    return t ? done(fw, old, r, t) : fail(fw, ax, "the axiom (no derivative)");
}

static MimDef *fwd_app(Fwd *fw, MimDef *old) {
    MimWorld *w = fw->w;
    MimDef *g = mim_app_callee(old), *a = mim_app_arg(old);
    if (mim_def_loc(old).begin.row) fw->use = mim_def_loc(old);
    MimDef *ax = mim_app_axiom(old);
    uint64_t id = ax ? mim_axiom_id(ax) : 0;
    if (ax && mim_match_annex(old, mim_annex_base(id))) {
        if (id == MIM_mem_remem) { /* a fresh token: M is its own tangent */
            MimDef *m = fwd(fw, a);
            return m ? done(fw, old, mim_app(w, g, m), NULL) : NULL;
        }
        if (id == MIM_mem_load || id == MIM_mem_store || id == MIM_mem_free || id == MIM_mem_malloc ||
            id == MIM_mem_alloc || id == MIM_mem_lea || (id == MIM_core_bitcast && !is_int(w, mim_def_type(old))))
            return fwd_mem(fw, old, id);
        AdMathKind k = autodiff_math_kind(old);
        if (k != AD_MATH_NONE) return fwd_math(fw, old, k);
        /* integer results of other axioms (wrap.add, bitcast to Nat, …): tangent 0 */
        if (is_int(w, mim_def_type(old))) {
            MimDef *a2 = fwd(fw, a);
            return a2 ? done(fw, old, mim_app(w, g, a2), NULL) : NULL;
        }
        return fail(fw, ax, "the axiom (no derivative)");
    }
    MimDef *gT = mim_resolve(w, mim_def_type(g));
    MimDef *g2 = fwd(fw, g);
    if (!g2) return NULL;
    if (!autodiff_is_cn(w, gT)) return fail(fw, old, "the direct-style call");
    MimDef *A, *R;
    size_t n = 0;
    MimDef *gl = mim_resolve(w, g);
    bool fn = gl && mim_def_node(gl) == MIM_LAM && mim_def_is_mut(gl) && mim_ptrmap_get(fw->memo, gl) == g2 &&
              autodiff_fn_parts(w, gT, &A, &R, &n);
    if (fn) {
        /* g (args, k) → g' ((args', args~), k'); flattened: g (a₁, …, aₙ, k) */
        MimDef *args, *k;
        if (n) {
            MimDef **ops = mim_xcalloc(n, sizeof *ops);
            for (size_t i = 0; i < n; ++i) ops[i] = mim_proj(w, a, n + 1, i);
            args = mim_tuple(w, ops, n);
            free(ops);
            k = mim_proj(w, a, n + 1, n);
        } else {
            args = mim_proj(w, a, 2, 0), k = mim_proj(w, a, 2, 1);
        }
        MimDef *args2 = fwd(fw, args), *targs = args2 ? tangent(fw, args) : NULL;
        MimDef *k2 = targs ? fwd(fw, k) : NULL;
        if (!k2) return NULL;
        MimDef *in = mim_pair(w, args2, targs);
        return done(fw, old, mim_app(w, g2, mim_pair(w, in, k2)), NULL);
    }
    /* a block or the return continuation: B' (a', a~) */
    MimDef *a2 = fwd(fw, a), *ta = a2 ? tangent(fw, a) : NULL;
    return ta ? done(fw, old, mim_app(w, g2, mim_pair(w, a2, ta)), NULL) : NULL;
}

static MimDef *fwd(Fwd *fw, MimDef *old) {
    MimWorld *w = fw->w;
    old = mim_resolve(w, old);
    if (!old) return NULL;
    MimDef *known = lookup(fw, old, false);
    if (known) return known;
    switch (mim_def_node(old)) {
    case MIM_LIT: return done(fw, old, old, NULL);
    case MIM_LAM: return mim_def_is_mut(old) ? fwd_lam(fw, old) : fail(fw, old, "the immutable function");
    case MIM_TUPLE: return fwd_tuple(fw, old);
    case MIM_PACK: {
        if (mim_def_is_mut(old)) return fail(fw, old, "the pack");
        MimDef *shape = mim_def_op(mim_resolve(w, mim_def_type(old)), 0), *body = mim_def_op(old, 0);
        MimDef *b2 = fwd(fw, body), *tb = b2 ? tangent(fw, body) : NULL;
        if (!tb) return NULL;
        MimDef *aug = mim_pack(w, shape, b2);
        MimDef *tan = mim_pack(w, shape, tb);
        return done(fw, old, aug, tan);
    }
    case MIM_EXTRACT: {
        MimDef *t = mim_def_op(old, 0), *i = mim_def_op(old, 1);
        MimDef *t2 = fwd(fw, t), *i2 = t2 ? fwd(fw, i) : NULL, *tt = i2 ? tangent(fw, t) : NULL;
        if (!tt) return NULL;
        MimDef *aug = mim_extract(w, t2, i2);
        MimDef *tan = mim_extract(w, tt, i2);
        return done(fw, old, aug, tan);
    }
    case MIM_INSERT: {
        MimDef *t = mim_def_op(old, 0), *i = mim_def_op(old, 1), *v = mim_def_op(old, 2);
        MimDef *t2 = fwd(fw, t), *i2 = t2 ? fwd(fw, i) : NULL, *v2 = i2 ? fwd(fw, v) : NULL;
        MimDef *tt = v2 ? tangent(fw, t) : NULL, *tv = tt ? tangent(fw, v) : NULL;
        if (!tv) return NULL;
        MimDef *aug = mim_insert(w, t2, i2, v2);
        MimDef *tan = mim_insert(w, tt, i2, tv);
        return done(fw, old, aug, tan);
    }
    case MIM_APP: return fwd_app(fw, old);
    default:
        if (!(mim_def_dep(old) & (MIM_DEP_VAR | MIM_DEP_MUT))) return done(fw, old, old, NULL);
        return fail(fw, old, "the expression");
    }
}

/* f_jvp (memoized in memo; f ↦ f on failure). NULL after an error or if f
 * is not a CPS function. */
static MimDef *jvp_of(Fwd *parent, MimPass *p, MimPtrMap *memo, MimPtrMap *busy, MimDef *f) {
    MimWorld *w = mim_pass_world(p);
    MimDef *known = mim_ptrmap_get(memo, f);
    if (known && known != f && mim_ptrmap_get(busy, known)) mim_ptrmap_put(busy, known, f);
    if (known) return known == f ? NULL : known;
    MimDef *A, *R;
    size_t n;
    if (!autodiff_fn_parts(w, mim_def_type(f), &A, &R, &n) || !mim_lam_body(f)) {
        mim_ptrmap_put(memo, f, f);
        return NULL;
    }
    MimDef *dom[2];
    dom[0] = pair_type(w, A, A);
    dom[1] = mim_cn(w, pair_type(w, R, R));
    MimDef *T = mim_cn(w, mim_sigma(w, dom, 2));
    char name[128];
    MimSym fname = mim_def_name(f);
    snprintf(name, sizeof name, "%s_jvp", fname ? fname : "f");
    MimDef *fj = mim_mut_lam(w, T);
    if (!fj) return NULL;
    mim_def_set_name(fj, mim_world_sym(w, name));
    mim_ptrmap_put(memo, f, fj);
    Fwd fw = {.parent = parent, .w = w, .p = p, .memo = memo, .busy = busy};
    MimDef *var = mim_var(w, f), *res = NULL;
    MimDef *fv = mim_var(w, fj);
    MimDef *in = mim_proj(w, fv, 2, 0);
    MimDef *x = mim_proj(w, in, 2, 0);
    MimDef *tx = mim_proj(w, in, 2, 1);
    MimDef *k = mim_proj(w, fv, 2, 1);
    if (!var) goto out;
    if (n) {
        MimDef **a = mim_xcalloc(n + 1, sizeof *a), **t = mim_xcalloc(n + 1, sizeof *t);
        for (size_t i = 0; i < n; ++i) {
            a[i] = mim_proj(w, x, n, i);
            t[i] = mim_proj(w, tx, n, i);
        }
        a[n] = k, t[n] = k;
        MimDef *va = mim_tuple(w, a, n + 1);
        MimDef *vt = mim_tuple(w, t, n + 1);
        mim_ptrmap_put(&fw.aug, var, va);
        mim_ptrmap_put(&fw.tan, var, vt);
        free(a);
        free(t);
    } else {
        MimDef *va = mim_pair(w, x, k);
        MimDef *vt = mim_pair(w, tx, k);
        mim_ptrmap_put(&fw.aug, var, va);
        mim_ptrmap_put(&fw.tan, var, vt);
    }
    mim_ptrmap_put(busy, fj, fj);
    MimDef *body = fwd(&fw, mim_lam_body(f));
    bool rec = mim_ptrmap_get(busy, fj) == f; /* recursive: not inlined everywhere */
    mim_ptrmap_remove(busy, fj);
    if (body && mim_lam_set(w, fj, mim_lit_bool(w, !rec), body)) res = fj;
out:
    mim_ptrmap_free(&fw.aug), mim_ptrmap_free(&fw.tan);
    if (!res) mim_ptrmap_put(memo, f, f);
    return res;
}

MimDef *autodiff_jvp(MimPass *p, MimPtrMap *memo, MimPtrMap *busy, MimDef *f) { return jvp_of(NULL, p, memo, busy, f); }
