/* Emission of patterns (language.md §5.2, §6.4; semantics.md §13): a
 * pattern used as a type builds a mutable sigma whose element names are
 * bound to projections of its own variable while later element types are
 * built, then immutabilizes it (if no element type may use a name of the
 * pattern: the immutable sigma of the element types at once); a pattern
 * bound to a value binds (and names) the projections of the value, after
 * evaluating its type annotations once for their errors if nothing
 * evaluated them as a type before (let, ret). */
#include "fe/emit_impl.h"
#include "ir/build.h"      /* mim_sort_of_types */
#include "ir/world_impl.h" /* the World's arena, for the sigma field names */

#include <stdlib.h>

/* A tuple pattern's elements, with groups `a b c: T` expanded per member:
 * element i is `ptrn` (member < 0) or member `member` of the group `ptrn`. */
typedef struct Elem {
    MimAstPtrn *ptrn;
    long member;
} Elem;

size_t emit_ptrn_arity(const MimAstPtrn *p) {
    if (p->kind != MIM_PTRN_TUPLE) return 1;
    size_t n = 0;
    for (size_t i = 0; i < p->u.tuple.num_elems; ++i) {
        const MimAstPtrn *q = p->u.tuple.elems[i];
        n += q->kind == MIM_PTRN_GROUP ? q->u.group.num_members : 1;
    }
    return n;
}

/* Calls `fn` for every element of tuple pattern p in order; stops at false. */
typedef bool (*ElemFn)(Emitter *e, Elem el, size_t i, size_t n, void *data);

static bool for_each_elem(Emitter *e, MimAstPtrn *p, ElemFn fn, void *data) {
    size_t n = emit_ptrn_arity(p), i = 0;
    for (size_t k = 0; k < p->u.tuple.num_elems; ++k) {
        MimAstPtrn *q = p->u.tuple.elems[k];
        if (q->kind == MIM_PTRN_GROUP) {
            for (size_t m = 0; m < q->u.group.num_members; ++m)
                if (!fn(e, (Elem){q, (long)m}, i++, n, data)) return false;
        } else if (!fn(e, (Elem){q, -1}, i++, n, data)) {
            return false;
        }
    }
    return true;
}

/* ---- dependence on a pattern's names ------------------------------------------- */

/* Is `node` (what introduced a binder) pattern p or one of its parts? */
static bool ptrn_has_node(const MimAstPtrn *p, const void *node) {
    if ((const void *)p == node) return true;
    if (p->kind != MIM_PTRN_TUPLE) return false;
    for (size_t i = 0; i < p->u.tuple.num_elems; ++i)
        if (ptrn_has_node(p->u.tuple.elems[i], node)) return true;
    return false;
}

static bool names_of(const MimAstPtrn *p, const MimBinder *b) {
    return b && b->node && (b->kind == MIM_BINDER_PTRN || b->kind == MIM_BINDER_ALIAS) &&
           ptrn_has_node(p, b->node);
}

static bool ptrn_may_use(const MimAstPtrn *q, const MimAstPtrn *p, long *budget);

/* May expression x use a name that pattern p introduces? Conservative: an
 * expression that is large or of a rarer kind (functions, declarations)
 * answers yes. */
static bool expr_may_use(const MimAstExpr *x, const MimAstPtrn *p, long *budget) {
    if (!x) return false;
    if (--*budget <= 0) return true;
    switch (x->kind) {
    case MIM_EXPR_ID: return names_of(p, x->u.id.binder);
    case MIM_EXPR_PRIM:
    case MIM_EXPR_IDX_LIT:
    case MIM_EXPR_STR: return false;
    case MIM_EXPR_LIT: return expr_may_use(x->u.lit.type, p, budget);
    case MIM_EXPR_TYPE: return expr_may_use(x->u.type.level, p, budget);
    case MIM_EXPR_APP:
        return expr_may_use(x->u.app.callee, p, budget) || expr_may_use(x->u.app.arg, p, budget);
    case MIM_EXPR_ARROW:
        return expr_may_use(x->u.arrow.dom, p, budget) || expr_may_use(x->u.arrow.codom, p, budget);
    case MIM_EXPR_PI:
        for (size_t i = 0; i < x->u.pi.num_doms; ++i)
            if (ptrn_may_use(x->u.pi.doms[i], p, budget)) return true;
        return expr_may_use(x->u.pi.codom, p, budget);
    case MIM_EXPR_TUPLE:
        for (size_t i = 0; i < x->u.tuple.num_elems; ++i)
            if (expr_may_use(x->u.tuple.elems[i], p, budget)) return true;
        return false;
    case MIM_EXPR_SIGMA: return ptrn_may_use(x->u.sigma.ptrn, p, budget);
    case MIM_EXPR_ARR:
    case MIM_EXPR_PACK:
        return expr_may_use(x->u.seq.shape, p, budget) || expr_may_use(x->u.seq.body, p, budget);
    case MIM_EXPR_EXTRACT:
        return names_of(p, x->u.extract.var) || expr_may_use(x->u.extract.tuple, p, budget) ||
               expr_may_use(x->u.extract.index, p, budget);
    case MIM_EXPR_INSERT:
        return expr_may_use(x->u.insert.tuple, p, budget) || expr_may_use(x->u.insert.index, p, budget) ||
               expr_may_use(x->u.insert.value, p, budget);
    default: return true;
    }
}

/* May the annotations of pattern q use a name that pattern p introduces? */
static bool ptrn_may_use(const MimAstPtrn *q, const MimAstPtrn *p, long *budget) {
    if (--*budget <= 0) return true;
    switch (q->kind) {
    case MIM_PTRN_ID: return expr_may_use(q->u.id.type, p, budget);
    case MIM_PTRN_EXPR: return expr_may_use(q->u.expr.type, p, budget);
    case MIM_PTRN_GROUP: return expr_may_use(q->u.group.type, p, budget);
    case MIM_PTRN_TUPLE:
        for (size_t i = 0; i < q->u.tuple.num_elems; ++i)
            if (ptrn_may_use(q->u.tuple.elems[i], p, budget)) return true;
        return false;
    default: return true;
    }
}

enum { USE_BUDGET = 256 }; /* AST nodes examined before answering "maybe" */

bool emit_expr_may_use(const MimAstExpr *x, const MimAstPtrn *p) {
    long budget = USE_BUDGET;
    return expr_may_use(x, p, &budget);
}

bool emit_ptrn_may_use(const MimAstPtrn *q, const MimAstPtrn *p) {
    long budget = USE_BUDGET;
    return ptrn_may_use(q, p, &budget);
}

/* ---- bounded re-evaluation -------------------------------------------------- */

/* Counts AST nodes of an annotation, decrementing *budget; stops at 0. */
static void count_expr(const MimAstExpr *x, long *budget);

static void count_ptrn(const MimAstPtrn *p, long *budget) {
    if (!p || --*budget <= 0) return;
    switch (p->kind) {
    case MIM_PTRN_ID: count_expr(p->u.id.type, budget); break;
    case MIM_PTRN_EXPR: count_expr(p->u.expr.type, budget); break;
    case MIM_PTRN_GROUP: count_expr(p->u.group.type, budget); break;
    case MIM_PTRN_TUPLE:
        for (size_t i = 0; i < p->u.tuple.num_elems && *budget > 0; ++i)
            count_ptrn(p->u.tuple.elems[i], budget);
        break;
    default: break;
    }
}

static void count_fun(const MimAstFun *f, long *budget) {
    for (size_t i = 0; i < f->num_doms && *budget > 0; ++i) {
        count_ptrn(f->doms[i].ptrn, budget);
        count_expr(f->doms[i].filter, budget);
    }
    count_expr(f->codom, budget);
    count_expr(f->body, budget);
}

static void count_decl(const MimAstDecl *d, long *budget) {
    for (; d && --*budget > 0; d = d->next) {
        switch (d->kind) {
        case MIM_DECL_AXM: count_expr(d->u.axm.type, budget); break;
        case MIM_DECL_LET:
            count_ptrn(d->u.let.ptrn, budget);
            count_expr(d->u.let.post_type, budget);
            count_expr(d->u.let.value, budget);
            break;
        case MIM_DECL_FUN: count_fun(d->u.fun, budget); break;
        case MIM_DECL_REC:
            count_expr(d->u.rec.type, budget);
            count_expr(d->u.rec.body, budget);
            break;
        case MIM_DECL_CDECL:
            count_ptrn(d->u.cdecl.dom, budget);
            count_expr(d->u.cdecl.codom, budget);
            break;
        default: break;
        }
    }
}

static void count_expr(const MimAstExpr *x, long *budget) {
    if (!x || --*budget <= 0) return;
    switch (x->kind) {
    case MIM_EXPR_LIT: count_expr(x->u.lit.type, budget); break;
    case MIM_EXPR_TYPE: count_expr(x->u.type.level, budget); break;
    case MIM_EXPR_APP:
        count_expr(x->u.app.callee, budget);
        count_expr(x->u.app.arg, budget);
        break;
    case MIM_EXPR_ARROW:
        count_expr(x->u.arrow.dom, budget);
        count_expr(x->u.arrow.codom, budget);
        break;
    case MIM_EXPR_PI:
        for (size_t i = 0; i < x->u.pi.num_doms && *budget > 0; ++i) count_ptrn(x->u.pi.doms[i], budget);
        count_expr(x->u.pi.codom, budget);
        break;
    case MIM_EXPR_LAMBDA: count_fun(x->u.lambda, budget); break;
    case MIM_EXPR_TUPLE:
        for (size_t i = 0; i < x->u.tuple.num_elems && *budget > 0; ++i)
            count_expr(x->u.tuple.elems[i], budget);
        break;
    case MIM_EXPR_SIGMA: count_ptrn(x->u.sigma.ptrn, budget); break;
    case MIM_EXPR_ARR:
    case MIM_EXPR_PACK:
        count_expr(x->u.seq.shape, budget);
        count_expr(x->u.seq.body, budget);
        break;
    case MIM_EXPR_EXTRACT:
        count_expr(x->u.extract.tuple, budget);
        count_expr(x->u.extract.index, budget);
        break;
    case MIM_EXPR_INSERT:
        count_expr(x->u.insert.tuple, budget);
        count_expr(x->u.insert.index, budget);
        count_expr(x->u.insert.value, budget);
        break;
    case MIM_EXPR_RET:
        count_ptrn(x->u.ret.ptrn, budget);
        count_expr(x->u.ret.callee, budget);
        count_expr(x->u.ret.arg, budget);
        count_expr(x->u.ret.body, budget);
        break;
    case MIM_EXPR_DECLS:
        for (size_t i = 0; i < x->u.decls.num_decls && *budget > 0; ++i)
            count_decl(x->u.decls.decls[i], budget);
        count_expr(x->u.decls.expr, budget);
        break;
    default: break;
    }
}

/* May an annotation be re-evaluated? Not when nested too deeply in other
 * re-evaluations, nor when it is large, nor when re-evaluations have
 * already cost more than everything else (see Emitter.reeval_depth). */
static bool may_reeval(Emitter *e, const MimAstExpr *x, const MimAstPtrn *p) {
    if (e->reeval_depth >= EMIT_REEVAL_DEPTH) return false;
    uint64_t total = mim_world_gid_counter(e->w);
    if (e->reeval_gids > 2 * (total - e->reeval_gids) + EMIT_REEVAL_SLACK) return false;
    long budget = EMIT_REEVAL_SIZE + 1;
    if (x) count_expr(x, &budget);
    else count_ptrn(p, &budget);
    return budget > 0;
}

static void reeval_begin(Emitter *e, uint32_t *gid) {
    if (e->reeval_depth++ == 0) *gid = mim_world_gid_counter(e->w);
}

static void reeval_end(Emitter *e, uint32_t gid) {
    if (--e->reeval_depth == 0) e->reeval_gids += mim_world_gid_counter(e->w) - gid;
}

/* Evaluates a type annotation, discarding the result (a `let` or `ret`
 * pattern is not a type: its annotations are evaluated for their errors).
 * Returns false on error. */
static bool reeval_expr(Emitter *e, MimAstExpr *type) {
    if (!type || !may_reeval(e, type, NULL)) return true;
    uint32_t gid = 0;
    reeval_begin(e, &gid);
    bool ok = emit_expr(e, type) != NULL;
    reeval_end(e, gid);
    return ok;
}

/* Evaluates the annotations of tuple pattern p as a type; *done tells
 * whether they were (nested patterns then need no evaluation of their own). */
static bool reeval_ptrn(Emitter *e, MimAstPtrn *p, bool *done) {
    *done = false;
    if (!may_reeval(e, NULL, p)) return true;
    uint32_t gid = 0;
    reeval_begin(e, &gid);
    bool ok = emit_ptrn_type(e, p) != NULL;
    reeval_end(e, gid);
    *done = true;
    return ok;
}

/* ---- patterns as values ------------------------------------------------------ */

/* Binds p to v; `eval`: p's annotations have not been evaluated yet. */
static bool bind_ptrn(Emitter *e, MimAstPtrn *p, MimDef *v, bool eval);

static bool elem_value(Emitter *e, Elem el, MimDef *v, bool eval) {
    if (el.member < 0) return bind_ptrn(e, el.ptrn, v, eval);
    MimLoc old = emit_push_loc(e, el.ptrn->loc);
    /* Only the last member stands for the group's type annotation. */
    bool last = (size_t)el.member + 1 == el.ptrn->u.group.num_members;
    bool ok = !eval || !last || reeval_expr(e, el.ptrn->u.group.type);
    if (ok) emit_bind(e, el.ptrn->u.group.members[el.member], v);
    emit_pop_loc(e, old);
    return ok;
}

typedef struct ProjBind {
    MimDef *v;
    bool eval;
} ProjBind;

static bool bind_proj(Emitter *e, Elem el, size_t i, size_t n, void *data) {
    ProjBind *b = data;
    MimDef *v = mim_proj(e->w, b->v, n, i);
    return v && elem_value(e, el, v, b->eval);
}

static bool bind_ptrn(Emitter *e, MimAstPtrn *p, MimDef *v, bool eval) {
    if (!v) return false;
    MimLoc old = emit_push_loc(e, p->loc);
    bool ok, done = false;
    switch (p->kind) {
    case MIM_PTRN_ID:
        ok = !eval || reeval_expr(e, p->u.id.type);
        if (ok) emit_bind(e, p->u.id.binder, v);
        break;
    case MIM_PTRN_EXPR: ok = !eval || reeval_expr(e, p->u.expr.type); break;
    case MIM_PTRN_TUPLE: {
        ok = !eval || reeval_ptrn(e, p, &done);
        ProjBind b = {v, eval && !done};
        ok = ok && for_each_elem(e, p, bind_proj, &b);
        break;
    }
    case MIM_PTRN_GROUP: /* only as a tuple element, handled by elem_value */
    default: ok = false; emit_error(e, p->loc, "internal error: unexpected pattern"); break;
    }
    if (ok && p->alias) emit_bind(e, p->alias, v);
    emit_pop_loc(e, old);
    return ok;
}

bool emit_ptrn_value(Emitter *e, MimAstPtrn *p, MimDef *v) { return bind_ptrn(e, p, v, true); }

bool emit_ptrn_bind(Emitter *e, MimAstPtrn *p, MimDef *v) { return bind_ptrn(e, p, v, false); }

/* ---- patterns as types ----------------------------------------------------- */

static MimDef *elem_type(Emitter *e, Elem el) {
    if (el.member < 0) return emit_ptrn_type(e, el.ptrn);
    MimLoc old = emit_push_loc(e, el.ptrn->loc);
    MimDef *t = emit_expr(e, el.ptrn->u.group.type); /* evaluated once per member */
    emit_pop_loc(e, old);
    return t;
}

/* The name by which element `el` is remembered as a field (§6.4): plain
 * `name: T` elements and the last member of a group. */
static MimSym field_name(Elem el) {
    MimAstPtrn *p = el.ptrn;
    if (el.member >= 0)
        return (size_t)el.member + 1 == p->u.group.num_members && !p->u.group.members[el.member]->anon
                   ? p->u.group.members[el.member]->sym
                   : NULL;
    if (p->kind == MIM_PTRN_ID && !p->alias && !p->u.id.binder->anon) return p->u.id.binder->sym;
    return NULL;
}

typedef struct SigmaFill {
    MimDef *sigma, *var;
    MimSym *fields; /* allocated (zeroed) at the first field name */
} SigmaFill;

static bool fill_elem(Emitter *e, Elem el, size_t i, size_t n, void *data) {
    SigmaFill *s = data;
    MimDef *t = elem_type(e, el);
    if (!t || !mim_mut_set(e->w, s->sigma, i, t)) return false;
    MimDef *v = mim_proj(e->w, s->var, n, i);
    if (!v || !elem_value(e, el, v, false)) return false;
    MimSym name = field_name(el);
    if (name && !s->fields) s->fields = mim_arena_alloc(&e->w->arena, n * sizeof *s->fields);
    if (name) s->fields[i] = name;
    return true;
}

MimDef *emit_ptrn_sigma_body(Emitter *e, MimAstPtrn *p, MimDef *sigma) {
    MimLoc old = emit_push_loc(e, p->loc);
    MimDef *res = NULL;
    SigmaFill s = {sigma, mim_var(e->w, sigma), NULL};
    if (!s.var || !for_each_elem(e, p, fill_elem, &s)) goto out;
    mim_mut_ext(sigma)->fields = s.fields;
    res = mim_immutabilize(e->w, sigma);
out:
    emit_pop_loc(e, old);
    return res;
}

static bool plain_elem(Emitter *e, Elem el, size_t i, size_t n, void *data) {
    (void)n;
    MimDef **types = data;
    return (types[i] = elem_type(e, el)) != NULL;
}

/* Would mim_sigma skip the check that the element types are types (the
 * mutable sigma's completion makes it, with its own message)? For 0 or 1
 * elements and for uniform ones (which become an array). */
static bool sigma_skips_sort(MimDef *const *types, size_t n) {
    const unsigned open = MIM_DEP_VAR | MIM_DEP_MUT | MIM_DEP_INFER;
    if (n < 2) return true;
    for (size_t i = 1; i < n; ++i)
        if (types[i] == types[0] || ((mim_def_dep(types[0]) | mim_def_dep(types[i])) & open)) return true;
    return false;
}

MimDef *emit_sigma(Emitter *e, MimDef *const *types, size_t n) {
    if (sigma_skips_sort(types, n) && !mim_sort_of_types(e->w, types, n)) return NULL;
    return mim_sigma(e->w, types, n);
}

/* A tuple pattern whose element types use none of its names: the sigma of
 * the element types, i.e. what immutabilizing the mutable sigma gives when
 * its variable is unused (its field names are not kept either). */
static MimDef *plain_sigma(Emitter *e, MimAstPtrn *p) {
    size_t n = emit_ptrn_arity(p);
    MimDef *small[8], **types = n <= 8 ? small : calloc(n, sizeof *types);
    if (!types) return emit_error(e, p->loc, "out of memory");
    MimDef *t = for_each_elem(e, p, plain_elem, types) ? emit_sigma(e, types, n) : NULL;
    if (types != small) free(types);
    return t;
}

MimDef *emit_ptrn_type(Emitter *e, MimAstPtrn *p) {
    MimLoc old = emit_push_loc(e, p->loc);
    MimDef *t = NULL;
    switch (p->kind) {
    case MIM_PTRN_ID: t = p->u.id.type ? emit_expr(e, p->u.id.type) : emit_hole_type(e); break;
    case MIM_PTRN_EXPR: t = emit_expr(e, p->u.expr.type); break;
    case MIM_PTRN_GROUP: t = emit_expr(e, p->u.group.type); break;
    case MIM_PTRN_TUPLE:
        if (emit_ptrn_may_use(p, p)) {
            MimDef *sigma = mim_mut_sigma(e->w, emit_type_hole_univ(e), emit_ptrn_arity(p));
            if (sigma) t = emit_ptrn_sigma_body(e, p, sigma);
        } else {
            t = plain_sigma(e, p);
        }
        break;
    default: emit_error(e, p->loc, "internal error: unexpected pattern"); break;
    }
    emit_pop_loc(e, old);
    return t;
}
