/* Emission of Pi types and functions (language.md §5.4–§5.6, semantics.md
 * §13): one mutable Pi per domain with the domain pattern's names bound to
 * its variable; the `[dom, Cn R]` sigma of Fn/fun; curried functions whose
 * Pi chain is rebuilt for every group; `ret`. */
#include "fe/emit_impl.h"
#include "ir/print.h" /* mim_def_to_str */

#include <stdlib.h>

/* The domain [dom, Cn R] of the last Pi of Fn/fun. R sees the pattern's
 * names bound to projections of the sigma's variable; if R cannot use them
 * (or is a hole), the immutable sigma is built at once (what immutabilizing
 * the mutable one gave). */
static MimDef *emit_ret_dom(Emitter *e, MimAstPtrn *ptrn, MimDef *dom, MimAstExpr *ret) {
    MimWorld *w = e->w;
    if (!ret || !emit_expr_may_use(ret, ptrn)) {
        MimDef *R = ret ? emit_expr(e, ret) : emit_hole_type(e);
        MimDef *cn = R ? mim_cn(w, R) : NULL;
        if (!cn) return NULL;
        MimDef *ops[2] = {dom, cn};
        return emit_sigma(e, ops, 2);
    }
    MimDef *sigma = mim_mut_sigma(w, emit_type_hole_univ(e), 2);
    if (!sigma || !mim_mut_set(w, sigma, 0, dom)) return NULL;
    if (!emit_ptrn_bind(e, ptrn, mim_proj(w, mim_var(w, sigma), 2, 0))) return NULL;
    MimDef *R = emit_expr(e, ret);
    if (!R || !mim_mut_set(w, sigma, 1, mim_cn(w, R))) return NULL;
    return mim_immutabilize(w, sigma);
}

/* One domain of a Pi chain: a fresh mutable Pi (or the rec-declared `pi`)
 * with a level-hole type and the domain's implicit bit. With `has_ret` (the
 * last domain of Fn/fun) the domain is the sigma [dom, Cn R]; `ret` is R's
 * expression (NULL: a hole). `bind`: the pattern's names are bound to the
 * Pi's variable for the rest of the chain (not needed when nothing after
 * the domain can use them: the last domain of a continuation type, whose
 * codomain is ⊥ and which prints without its variable). */
static MimDef *emit_pi_dom(Emitter *e, MimAstPtrn *ptrn, bool has_ret, MimAstExpr *ret,
                           MimDef *pi, bool bind) {
    MimWorld *w = e->w;
    MimLoc old = emit_push_loc(e, ptrn->loc);
    MimDef *res = NULL;
    if (!pi) pi = mim_mut_pi(w, emit_type_hole_univ(e), mim_ptrn_is_implicit(ptrn));
    MimDef *dom = pi ? emit_ptrn_type(e, ptrn) : NULL;
    if (!dom) goto out;
    if (has_ret) {
        dom = emit_ret_dom(e, ptrn, dom, ret);
        if (!dom || !mim_mut_set(w, pi, 0, dom)) goto out;
        if (bind && !emit_ptrn_bind(e, ptrn, mim_proj(w, mim_var(w, pi), 2, 0))) goto out;
    } else {
        if (!mim_mut_set(w, pi, 0, dom)) goto out;
        if (bind && !emit_ptrn_bind(e, ptrn, mim_var(w, pi))) goto out;
    }
    res = pi;
out:
    emit_pop_loc(e, old);
    return res;
}

/* The immutable `Cn dom` of a last domain that binds no names; with
 * `has_ret` the domain is [dom, Cn R] (emit_ret_dom). */
static MimDef *emit_cn_dom(Emitter *e, MimAstPtrn *ptrn, MimAstExpr *ret, bool has_ret) {
    MimLoc old = emit_push_loc(e, ptrn->loc);
    MimDef *dom = emit_ptrn_type(e, ptrn);
    if (dom && has_ret) dom = emit_ret_dom(e, ptrn, dom, ret);
    MimDef *res = dom ? mim_cn(e->w, dom) : NULL;
    emit_pop_loc(e, old);
    return res;
}

/* Sets the codomains of pis[n-1] … pis[0] from the inside out: pis[k]'s
 * codomain is pis[k+1], the last one's is `codom`. */
static bool link_pis(Emitter *e, MimDef **pis, size_t n, MimDef *codom) {
    for (size_t k = n; k-- > 0;) {
        if (!codom || !mim_mut_set(e->w, pis[k], 1, codom)) return false;
        codom = pis[k];
    }
    return true;
}

MimDef *emit_pi_expr(Emitter *e, MimAstExpr *x, MimDef *decl) {
    size_t n = x->u.pi.num_doms;
    bool is_cn = x->u.pi.tok == MIM_TOK_CN_TYPE, is_fn = x->u.pi.tok == MIM_TOK_FN_TYPE;
    if (n == 0) return emit_error(e, x->loc, "internal error: function type without domain");
    MimDef **pis = calloc(n, sizeof *pis);
    if (!pis) return emit_error(e, x->loc, "out of memory");
    MimDef *res = NULL;
    for (size_t k = 0; k < n; ++k) {
        bool last = k + 1 == n;
        pis[k] = emit_pi_dom(e, x->u.pi.doms[k], is_fn && last, is_fn ? x->u.pi.codom : NULL,
                             k == 0 ? decl : NULL, true);
        if (!pis[k]) goto out;
    }
    MimDef *codom = is_cn || is_fn ? mim_bot(e->w, mim_star(e->w)) : emit_expr(e, x->u.pi.codom);
    if (link_pis(e, pis, n, codom)) res = pis[0];
out:
    free(pis);
    return res;
}

/* ---- functions ---------------------------------------------------------------- */

/* The Pi type of group k of f: the chain for groups k…n-1 rebuilt, with the
 * codomain (⊥ for continuations, C or a hole for direct style). */
static MimDef *emit_fun_pi(Emitter *e, MimAstFun *f, size_t k, MimDef **pis) {
    size_t n = f->num_doms;
    bool is_ret = f->style == MIM_FUN_RET;
    /* The last domain of con/cn/fun/fn binds no names and its codomain is
     * ⊥: a mutable Pi would be immutabilized to `Cn dom` (dropping the
     * implicit bit) if anything asked, so an explicit one is built as that
     * immutable Pi at once, without a level hole and two completions. */
    bool cn_last = f->style != MIM_FUN_DIRECT && !mim_ptrn_is_implicit(f->doms[n - 1].ptrn);
    for (size_t j = k; j < n; ++j) {
        bool last = j + 1 == n;
        if (last && cn_last) {
            pis[j] = emit_cn_dom(e, f->doms[j].ptrn, is_ret ? f->codom : NULL, is_ret);
            if (!pis[j]) return NULL;
            return link_pis(e, pis + k, n - 1 - k, pis[j]) ? pis[k] : NULL;
        }
        pis[j] = emit_pi_dom(e, f->doms[j].ptrn, is_ret && last, is_ret ? f->codom : NULL, NULL,
                             !(last && f->style != MIM_FUN_DIRECT));
        if (!pis[j]) return NULL;
    }
    MimDef *codom;
    if (f->style != MIM_FUN_DIRECT) codom = mim_bot(e->w, mim_star(e->w));
    else codom = f->codom ? emit_expr(e, f->codom) : emit_hole_type(e);
    return link_pis(e, pis + k, n - k, codom) ? pis[k] : NULL;
}

/* The Lam of group k: parameter bound, filter set. */
static MimDef *emit_fun_lam(Emitter *e, MimAstFun *f, size_t k, MimDef *pi) {
    MimWorld *w = e->w;
    MimAstDom *dom = &f->doms[k];
    bool last = k + 1 == f->num_doms;
    MimLoc old = emit_push_loc(e, dom->loc);
    MimDef *res = NULL;
    MimDef *lam = mim_mut_lam(w, pi);
    MimDef *var = lam ? mim_var(w, lam) : NULL;
    if (!var) goto out;
    if (f->style == MIM_FUN_RET && last) {
        if (!emit_ptrn_bind(e, dom->ptrn, mim_proj(w, var, 2, 0))) goto out;
        MimDef *ret = mim_proj(w, var, 2, 1);
        if (!ret) goto out;
        emit_bind(e, f->ret, ret);
    } else if (!emit_ptrn_bind(e, dom->ptrn, var)) {
        goto out;
    }
    /* Default filter: tt, except ff for the last group of con/cn/fun/fn. */
    MimDef *filter = dom->filter ? emit_expr(e, dom->filter)
                                 : mim_lit_bool(w, !last || f->style == MIM_FUN_DIRECT);
    if (filter && mim_mut_set(w, lam, 0, filter)) res = lam;
out:
    emit_pop_loc(e, old);
    return res;
}

MimDef *emit_fun_head(Emitter *e, MimAstFun *f, MimDef **last) {
    size_t n = f->num_doms;
    if (n == 0) return emit_error(e, f->loc, "internal error: function without parameters");
    MimDef *small[8] = {NULL}; /* curried groups: mostly one */
    MimDef **pis = n <= 8 ? small : calloc(n, sizeof *pis);
    if (!pis) return emit_error(e, f->loc, "out of memory");
    MimLoc old = emit_push_loc(e, f->loc);
    MimDef *first = NULL, *prev = NULL;
    for (size_t k = 0; k < n; ++k) {
        MimDef *pi = emit_fun_pi(e, f, k, pis);
        MimDef *lam = pi ? emit_fun_lam(e, f, k, pi) : NULL;
        if (!lam) {
            first = NULL;
            break;
        }
        if (k == 0) {
            first = lam;
            emit_bind(e, f->name, lam);
        } else if (!mim_mut_set(e->w, prev, 1, lam)) {
            first = NULL;
            break;
        }
        prev = lam;
    }
    emit_pop_loc(e, old);
    if (pis != small) free(pis);
    *last = prev;
    return first;
}

bool emit_fun_body(Emitter *e, MimAstFun *f, MimDef *first, MimDef *last) {
    MimDef *body = emit_expr(e, f->body);
    if (!body) return false;
    MimLoc old = emit_push_loc(e, f->loc);
    bool ok = mim_mut_set(e->w, last, 1, body) != NULL;
    emit_pop_loc(e, old);
    if (!ok) return false;
    if (f->is_extern) mim_make_external(e->w, first);
    emit_register_annex(e, f->annex, f->sub, first);
    return true;
}

/* ---- ret --------------------------------------------------------------------- */

/* Bound on the nesting of return continuations examined: recursive types
 * such as `rec P = Cn P` would otherwise be followed forever. */
enum { RET_PI_DEPTH = 64 };

static MimDef *ret_pi(MimWorld *w, MimDef *pi, unsigned depth);

/* A basic block: a continuation without return continuation. */
static bool is_basic_block(MimWorld *w, MimDef *pi, unsigned depth) {
    return mim_pi_is_cn(pi) && depth < RET_PI_DEPTH && !ret_pi(w, pi, depth + 1);
}

/* The return continuation of Pi `pi` (semantics.md §4.4): the last element
 * of its domain if that is a basic block, else NULL. */
static MimDef *ret_pi(MimWorld *w, MimDef *pi, unsigned depth) {
    pi = mim_resolve(w, pi);
    if (!pi || mim_def_node(pi) != MIM_PI) return NULL;
    MimDef *dom = mim_resolve(w, mim_pi_dom(pi));
    uint64_t n;
    if (!dom || !mim_literal_arity(w, dom, &n)) n = 1;
    if (n == 0) return NULL;
    MimDef *last = mim_resolve(w, n == 1 ? dom : mim_proj(w, dom, n, n - 1));
    return last && mim_def_node(last) == MIM_PI && is_basic_block(w, last, depth) ? last : NULL;
}

/* `ret p = f $ a; body` ≡ f @ (a, cn p = body) where f : Cn [… , Cn R]. */
MimDef *emit_ret(Emitter *e, MimAstExpr *x) {
    MimWorld *w = e->w;
    MimDef *callee = emit_expr(e, x->u.ret.callee);
    if (!callee) return NULL;
    MimDef *type = mim_resolve(w, mim_def_type(callee));
    MimDef *rpi = mim_pi_is_cn(type) ? ret_pi(w, type, 0) : NULL;
    if (!rpi) {
        char *c = mim_def_to_str(w, callee), *t = mim_def_to_str(w, type);
        emit_error(e, x->u.ret.callee->loc,
                   "callee of a ret expression must type as a returning continuation but got "
                   "'%s' of type '%s'",
                   c, t);
        free(c);
        free(t);
        return NULL;
    }
    MimDef *k = mim_mut_lam(w, mim_cn(w, mim_pi_dom(rpi)));
    MimDef *var = k ? mim_var(w, k) : NULL;
    if (!var || !emit_ptrn_value(e, x->u.ret.ptrn, var)) return NULL;
    MimDef *arg = emit_expr(e, x->u.ret.arg);
    if (!arg) return NULL;
    MimDef *args[2] = {arg, k};
    MimDef *app = mim_app(w, callee, mim_tuple(w, args, 2));
    if (!app) return NULL;
    MimDef *body = emit_expr(e, x->u.ret.body);
    if (!body || !mim_lam_set(w, k, mim_lit_bool(w, false), body)) return NULL;
    return app;
}
