/* Emission of expressions (language.md §5.1, §5.3, §5.7–§5.9): builtins,
 * literals, strings, applications, tuples, sigmas, arrays and packs (with
 * and without binder), extraction by index and by field name, insertion,
 * declaration expressions and where-blocks. Each expression is built
 * bottom-up, operands left to right, with the World's current location set
 * to the expression while its own node is built. */
#include "fe/emit_impl.h"
#include "ir/ir.h" /* sigma field names (mim_mut_ext) */

#include <stdlib.h>
#include <string.h>

static MimDef *emit_prim(Emitter *e, MimAstExpr *x) {
    MimWorld *w = e->w;
    switch (x->u.prim.tok) {
    case MIM_TOK_UNIV: return mim_univ(w);
    case MIM_TOK_NAT: return mim_nat(w);
    case MIM_TOK_IDX: return mim_idx(w);
    case MIM_TOK_BOOL: return mim_type_bool(w);
    case MIM_TOK_FF: return mim_lit_bool(w, false);
    case MIM_TOK_TT: return mim_lit_bool(w, true);
    case MIM_TOK_i1: return mim_lit_nat(w, 2);
    case MIM_TOK_i8: return mim_lit_nat(w, 256);
    case MIM_TOK_i16: return mim_lit_nat(w, 65536);
    case MIM_TOK_i32: return mim_lit_nat(w, UINT64_C(4294967296));
    case MIM_TOK_i64: return mim_lit_nat(w, 0);
    case MIM_TOK_I1: return mim_type_int(w, 1);
    case MIM_TOK_I8: return mim_type_int(w, 8);
    case MIM_TOK_I16: return mim_type_int(w, 16);
    case MIM_TOK_I32: return mim_type_int(w, 32);
    case MIM_TOK_I64: return mim_type_int(w, 64);
    case MIM_TOK_STAR: return mim_star(w);
    case MIM_TOK_BOX: return mim_box(w);
    default: return emit_error(e, x->loc, "internal error: unknown builtin");
    }
}

/* `L` / `L : T` (§5.3): the raw payload with type T; Idx types are checked
 * by the World. */
static MimDef *emit_lit(Emitter *e, MimAstExpr *x) {
    MimDef *t = NULL;
    if (x->u.lit.type && !(t = emit_expr(e, x->u.lit.type))) return NULL;
    switch (x->u.lit.kind) {
    case MIM_LIT_INT:
    case MIM_LIT_FLOAT: return t ? mim_lit(e->w, t, x->u.lit.bits) : mim_lit_nat(e->w, x->u.lit.bits);
    case MIM_LIT_BOT: return mim_bot(e->w, t ? t : mim_star(e->w));
    case MIM_LIT_TOP: return mim_top(e->w, t ? t : mim_star(e->w));
    default: return emit_error(e, x->loc, "internal error: unknown literal");
    }
}

/* A string is the tuple of its characters as I8 literals. */
static MimDef *emit_str(Emitter *e, MimAstExpr *x) {
    size_t n = x->u.str.len;
    MimDef *small[16];
    MimDef **chars = n <= 16 ? small : malloc(n * sizeof *chars);
    if (!chars) return emit_error(e, x->loc, "out of memory");
    MimDef *res = NULL;
    for (size_t i = 0; i < n; ++i)
        if (!(chars[i] = mim_lit_int(e->w, 8, (unsigned char)x->u.str.bytes[i]))) goto out;
    res = mim_tuple(e->w, chars, n);
out:
    if (chars != small) free(chars);
    return res;
}

static MimDef *emit_tuple(Emitter *e, MimAstExpr *x) {
    size_t n = x->u.tuple.num_elems;
    MimDef *small[16];
    MimDef **elems = n <= 16 ? small : malloc(n * sizeof *elems);
    if (!elems) return emit_error(e, x->loc, "out of memory");
    MimDef *res = NULL;
    for (size_t i = 0; i < n; ++i)
        if (!(elems[i] = emit_expr(e, x->u.tuple.elems[i]))) goto out;
    res = mim_tuple(e->w, elems, n);
out:
    if (elems != small) free(elems);
    return res;
}

static MimDef *emit_app(Emitter *e, MimAstExpr *x) {
    MimDef *callee = emit_expr(e, x->u.app.callee);
    MimDef *arg = callee ? emit_expr(e, x->u.app.arg) : NULL;
    if (!arg) return NULL;
    return x->u.app.is_explicit ? mim_app(e->w, callee, arg) : mim_iapp(e->w, callee, arg);
}

static MimDef *emit_arrow(Emitter *e, MimAstExpr *x) {
    MimDef *dom = emit_expr(e, x->u.arrow.dom);
    MimDef *codom = dom ? emit_expr(e, x->u.arrow.codom) : NULL;
    return codom ? mim_pi(e->w, dom, codom, false) : NULL;
}

static MimDef *emit_lambda(Emitter *e, MimAstExpr *x) {
    MimDef *last = NULL;
    MimDef *first = emit_fun_head(e, x->u.lambda, &last);
    return first && emit_fun_body(e, x->u.lambda, first, last) ? first : NULL;
}

/* ---- arrays and packs ------------------------------------------------------- */

static bool has_binder(const MimAstExpr *x) { return x->u.seq.var && !x->u.seq.var->anon; }

/* «i: n; T»: a mutable Arr binding i : Idx n, then immutabilized (§4.8). */
static MimDef *emit_arr_binder(Emitter *e, MimAstExpr *x, MimDef *shape) {
    MimWorld *w = e->w;
    MimDef *arr = mim_mut_arr(w, emit_type_hole_univ(e));
    if (!arr || !mim_mut_set(w, arr, 0, shape)) return NULL;
    emit_bind(e, x->u.seq.var, mim_var(w, arr));
    if (!x->u.seq.var->def) return NULL;
    MimDef *body = emit_expr(e, x->u.seq.body);
    if (!body || !mim_mut_set(w, arr, 1, body)) return NULL;
    return mim_immutabilize(w, arr);
}

/* ‹i: n; e›: a mutable Pack binding i : Idx n whose type «j: n; T» is a
 * mutable Arr; its body T is the type of e with i replaced by j. */
static MimDef *emit_pack_binder(Emitter *e, MimAstExpr *x, MimDef *shape) {
    MimWorld *w = e->w;
    MimDef *arr = mim_mut_arr(w, emit_type_hole_univ(e));
    if (!arr || !mim_mut_set(w, arr, 0, shape)) return NULL;
    MimDef *pack = mim_mut_pack(w, arr);
    if (!pack) return NULL;
    emit_bind(e, x->u.seq.var, mim_var(w, pack));
    if (!x->u.seq.var->def) return NULL;
    MimDef *body = emit_expr(e, x->u.seq.body);
    if (!body) return NULL;
    MimDef *btype = mim_resolve(w, mim_def_type(body));
    MimDef *avar = btype ? mim_var(w, arr) : NULL;
    MimDef *elem = avar ? mim_subst(w, btype, pack, avar) : NULL;
    if (!elem || !mim_mut_set(w, arr, 1, elem)) return NULL;
    MimDef *type = mim_immutabilize(w, arr);
    if (!type) return NULL;
    if (type != arr) mim_mut_set_type(w, pack, type);
    if (!mim_mut_set(w, pack, 0, body)) return NULL;
    return mim_immutabilize(w, pack);
}

static MimDef *emit_seq(Emitter *e, MimAstExpr *x) {
    bool is_arr = x->kind == MIM_EXPR_ARR;
    MimDef *shape = emit_expr(e, x->u.seq.shape);
    if (!shape) return NULL;
    if (has_binder(x)) return is_arr ? emit_arr_binder(e, x, shape) : emit_pack_binder(e, x, shape);
    MimDef *body = emit_expr(e, x->u.seq.body);
    if (!body) return NULL;
    return is_arr ? mim_arr(e->w, shape, body) : mim_pack(e->w, shape, body);
}

/* ---- extraction and insertion ------------------------------------------------ */

/* The element of `name` if t's type is a mutable sigma with that field
 * (§6.4); the last field of that name wins. */
static bool field_index(MimWorld *w, MimDef *t, MimSym name, size_t *n, size_t *index) {
    MimDef *T = mim_resolve(w, mim_def_type(t));
    if (!T || T->node != MIM_SIGMA || !T->is_mut || !mim_mut_ext(T)->fields) return false;
    for (size_t i = T->num_ops; i-- > 0;) {
        MimSym f = mim_mut_ext(T)->fields[i];
        if (f && (f == name || strcmp(f, name) == 0)) {
            *n = T->num_ops;
            *index = i;
            return true;
        }
    }
    return false;
}

static MimDef *emit_extract(Emitter *e, MimAstExpr *x) {
    MimDef *tuple = emit_expr(e, x->u.extract.tuple);
    if (!tuple) return NULL;
    if (x->u.extract.index) {
        MimDef *index = emit_expr(e, x->u.extract.index);
        return index ? mim_extract(e->w, tuple, index) : NULL;
    }
    size_t n, i;
    if (field_index(e->w, tuple, x->u.extract.name, &n, &i))
        return mim_extract_lit(e->w, tuple, n, i);
    MimBinder *var = x->u.extract.var;
    if (!var)
        return emit_error(e, x->u.extract.name_loc, "cannot resolve index '%s' for extraction",
                          x->u.extract.name);
    if (!var->def) return emit_unbound(e, x->u.extract.name_loc, var->sym);
    return mim_extract(e->w, tuple, var->def);
}

static MimDef *emit_insert(Emitter *e, MimAstExpr *x) {
    MimDef *tuple = emit_expr(e, x->u.insert.tuple);
    MimDef *index = tuple ? emit_expr(e, x->u.insert.index) : NULL;
    MimDef *value = index ? emit_expr(e, x->u.insert.value) : NULL;
    return value ? mim_insert(e->w, tuple, index, value) : NULL;
}

/* ---- dispatch ---------------------------------------------------------------- */

static MimDef *emit_expr_(Emitter *e, MimAstExpr *x) {
    MimWorld *w = e->w;
    switch (x->kind) {
    case MIM_EXPR_HOLE: return emit_hole_type(e);
    case MIM_EXPR_ID: {
        MimBinder *b = x->u.id.binder;
        if (!b || !b->def) return emit_unbound(e, x->loc, x->u.id.sym);
        return b->def;
    }
    case MIM_EXPR_PRIM: return emit_prim(e, x);
    case MIM_EXPR_LIT: return emit_lit(e, x);
    case MIM_EXPR_IDX_LIT: return mim_lit_idx(w, x->u.idx_lit.size, x->u.idx_lit.value);
    case MIM_EXPR_STR: return emit_str(e, x);
    case MIM_EXPR_TYPE: {
        MimDef *level = emit_expr(e, x->u.type.level);
        return level ? mim_type(w, level) : NULL;
    }
    case MIM_EXPR_APP: return emit_app(e, x);
    case MIM_EXPR_ARROW: return emit_arrow(e, x);
    case MIM_EXPR_PI: return emit_pi_expr(e, x, NULL);
    case MIM_EXPR_LAMBDA: return emit_lambda(e, x);
    case MIM_EXPR_TUPLE: return emit_tuple(e, x);
    case MIM_EXPR_SIGMA: return emit_ptrn_type(e, x->u.sigma.ptrn);
    case MIM_EXPR_ARR:
    case MIM_EXPR_PACK: return emit_seq(e, x);
    case MIM_EXPR_EXTRACT: return emit_extract(e, x);
    case MIM_EXPR_INSERT: return emit_insert(e, x);
    case MIM_EXPR_RET: return emit_ret(e, x);
    case MIM_EXPR_DECLS:
        if (!emit_decls(e, x->u.decls.decls, x->u.decls.num_decls, x->u.decls.is_where)) return NULL;
        return emit_expr(e, x->u.decls.expr);
    case MIM_EXPR_ERROR:
    default: return emit_error(e, x->loc, "internal error: erroneous expression reached emission");
    }
}

MimDef *emit_expr(Emitter *e, MimAstExpr *x) {
    if (!x) return emit_error(e, mim_world_loc(e->w), "internal error: missing expression");
    MimLoc old = emit_push_loc(e, x->loc);
    MimDef *d = emit_expr_(e, x);
    emit_pop_loc(e, old);
    return d;
}
