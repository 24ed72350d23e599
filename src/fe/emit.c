/* The emitter's entry points, shared helpers and declarations (language.md
 * §3.1, §5.5, §5.10, §5.11; semantics.md §11–§13): axm, let, lam/con/fun,
 * rec and `and` chains, ccon/cfun. Patterns, functions and expressions live
 * in emit_ptrn.c, emit_fun.c and emit_expr.c. */
#include "fe/emit_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared helpers ------------------------------------------------------ */

static void report(Emitter *e, MimSeverity sev, MimLoc loc, const char *fmt, va_list ap) {
    mim_diag_vreport(mim_world_diag(e->w), sev, loc, fmt, ap);
}

MimDef *emit_error(Emitter *e, MimLoc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    report(e, MIM_ERROR, loc, fmt, ap);
    va_end(ap);
    return NULL;
}

void emit_warning(Emitter *e, MimLoc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    report(e, MIM_WARNING, loc, fmt, ap);
    va_end(ap);
}

MimDef *emit_type_hole_univ(Emitter *e) {
    return mim_type(e->w, mim_hole(e->w, mim_univ(e->w)));
}

MimDef *emit_hole_type(Emitter *e) { return mim_hole(e->w, emit_type_hole_univ(e)); }

void emit_bind(Emitter *e, MimBinder *b, MimDef *def) {
    (void)e;
    if (!b) return;
    b->def = def;
    if (b->anon || !def) return;
    mim_def_set_name(def, b->sym);
    mim_def_set_loc(def, b->loc);
}

MimDef *emit_unbound(Emitter *e, MimLoc loc, MimSym sym) {
    return emit_error(e, loc, "internal error: '%s' has no node at this point", sym ? sym : "?");
}

static bool plugin_loaded(Emitter *e, MimAnnex *a) {
    if (e->hooks && e->hooks->plugin_loaded) return e->hooks->plugin_loaded(e->hooks->user, a->plugin);
    return e->module->plugin_requested && e->module->name && a->plugin &&
           strcmp(e->module->name, a->plugin) == 0;
}

void emit_register_annex(Emitter *e, MimAnnex *annex, unsigned sub, MimDef *def) {
    if (annex && def && plugin_loaded(e, annex))
        mim_world_register_annex(e->w, annex->base | sub, def);
}

/* ---- axm ------------------------------------------------------------------- */

/* Curry/trip counters: inferred from the type, overridable downwards
 * (semantics.md §11). */
static bool axiom_counters(Emitter *e, MimAstDecl *d, MimDef *type, unsigned *curry,
                           unsigned *trip) {
    mim_axiom_infer_curry(e->w, type, curry, trip);
    if (d->u.axm.has_curry) {
        if (d->u.axm.curry > *curry) {
            emit_error(e, d->loc, "curry counter cannot be greater than %u", *curry);
            return false;
        }
        *curry = (unsigned)d->u.axm.curry;
    }
    if (d->u.axm.has_trip) {
        if (d->u.axm.trip > *curry) {
            emit_error(e, d->loc, "trip counter cannot be greater than curry counter '%u'", *curry);
            return false;
        }
        *trip = (unsigned)d->u.axm.trip;
    }
    return true;
}

/* The id of an axiom that is no annex (`axm %name`, no dot): axioms are
 * hash-consed on (type, id), so two of them must not share an id. The gid
 * the World gives next is unique, and below 2^58 it is no annex id (those
 * start with a plugin name's nonzero first character code, semantics.md
 * §12.1). */
static uint64_t plain_axiom_id(Emitter *e) { return mim_world_gid_counter(e->w); }

static MimDef *make_axiom(Emitter *e, MimAnnex *annex, unsigned sub, MimDef *type, unsigned curry,
                          unsigned trip) {
    uint64_t id = annex ? annex->base | sub : plain_axiom_id(e);
    MimNormalizer norm = NULL;
    if (annex && e->hooks && e->hooks->normalizer && plugin_loaded(e, annex))
        norm = e->hooks->normalizer(e->hooks->user, id);
    MimDef *ax = mim_axiom(e->w, type, id, norm, curry, trip);
    emit_register_annex(e, annex, sub, ax);
    return ax;
}

/* All declarations of one %p.t agree on whether their type is a function
 * type (semantics.md §12.3). The annex's emitter slot remembers the first. */
static const char fn_mark, value_mark;

static const void *annex_mark(MimWorld *w, MimDef *type) {
    MimDef *t = mim_resolve(w, type);
    return t && mim_def_node(t) == MIM_PI ? &fn_mark : &value_mark;
}

static bool check_fn_consistency(Emitter *e, MimAstDecl *d, MimAnnex *annex, MimDef *type) {
    const void *mark = annex_mark(e->w, type);
    if (!annex->user) annex->user = (void *)mark;
    if (annex->user == mark) return true;
    emit_error(e, d->u.axm.type->loc, "all declarations of annex '%s' have to be function types if any is",
               annex->sym);
    return false;
}

static bool emit_axm(Emitter *e, MimAstDecl *d) {
    MimDef *type = emit_expr(e, d->u.axm.type);
    if (!type) return false;
    unsigned curry, trip;
    if (!axiom_counters(e, d, type, &curry, &trip)) return false;
    MimAnnex *annex = d->u.axm.annex;
    if (annex && !check_fn_consistency(e, d, annex, type)) return false;
    if (d->u.axm.num_subs == 0) {
        MimDef *ax = make_axiom(e, annex, 0, type, curry, trip);
        if (!ax) return false;
        emit_bind(e, d->u.axm.name, ax);
        return true;
    }
    for (size_t i = 0; i < d->u.axm.num_subs; ++i) {
        MimAstSub *s = &d->u.axm.subs[i];
        MimDef *ax = make_axiom(e, annex, s->sub, type, curry, trip);
        if (!ax) return false;
        for (size_t k = 0; k < s->num_names; ++k) emit_bind(e, s->names[k], ax);
    }
    return true;
}

/* ---- let ------------------------------------------------------------------- */

static bool emit_let(Emitter *e, MimAstDecl *d) {
    if (d->u.let.post_type && !emit_expr(e, d->u.let.post_type)) return false;
    MimDef *v = emit_expr(e, d->u.let.value);
    if (!v || !emit_ptrn_value(e, d->u.let.ptrn, v)) return false;
    emit_register_annex(e, d->u.let.annex, d->u.let.sub, v);
    return true;
}

/* ---- rec ------------------------------------------------------------------- */

/* Phase 1: the empty mutable of the declaration, named and bound. */
static MimDef *emit_rec_head(Emitter *e, MimAstDecl *d, MimDef **last) {
    MimDef *t = d->u.rec.type ? emit_expr(e, d->u.rec.type) : emit_hole_type(e);
    if (!t) return NULL;
    MimAstExpr *body = d->u.rec.body;
    MimDef *def = NULL;
    switch (body->kind) {
    case MIM_EXPR_LAMBDA: def = emit_fun_head(e, body->u.lambda, last); break;
    case MIM_EXPR_PI:
        def = mim_mut_pi(e->w, t, body->u.pi.num_doms && mim_ptrn_is_implicit(body->u.pi.doms[0]));
        break;
    case MIM_EXPR_ARROW: def = mim_mut_pi(e->w, t, false); break;
    case MIM_EXPR_SIGMA: def = mim_mut_sigma(e->w, t, emit_ptrn_arity(body->u.sigma.ptrn)); break;
    default: return emit_error(e, body->loc, "unsupported expression for a recursive declaration");
    }
    if (!def) return NULL;
    emit_bind(e, d->u.rec.name, def);
    return def;
}

/* Phase 2: fill the body in. A rec node is not immutabilized (§5.10). */
static bool emit_rec_body(Emitter *e, MimAstDecl *d, MimDef *def, MimDef *last) {
    MimAstExpr *body = d->u.rec.body;
    MimLoc old = emit_push_loc(e, body->loc);
    bool ok = true;
    switch (body->kind) {
    case MIM_EXPR_LAMBDA: ok = emit_fun_body(e, body->u.lambda, def, last); break;
    case MIM_EXPR_PI: ok = emit_pi_expr(e, body, def) != NULL; break;
    case MIM_EXPR_ARROW: {
        MimDef *dom = emit_expr(e, body->u.arrow.dom);
        ok = dom && mim_mut_set(e->w, def, 0, dom);
        MimDef *codom = ok ? emit_expr(e, body->u.arrow.codom) : NULL;
        ok = codom && mim_mut_set(e->w, def, 1, codom);
        break;
    }
    case MIM_EXPR_SIGMA: ok = emit_ptrn_sigma_body(e, body->u.sigma.ptrn, def) != NULL; break;
    default: ok = false; break;
    }
    emit_pop_loc(e, old);
    if (ok) emit_register_annex(e, d->u.rec.annex, d->u.rec.sub, def);
    return ok;
}

/* ---- lam/con/fun declarations and `and` chains ------------------------------ */

/* All nodes of the chain first (names bound), then all bodies
 * (semantics.md §13), so the members may refer to each other. */
static bool emit_chain(Emitter *e, MimAstDecl *head) {
    size_t n = 0;
    for (MimAstDecl *d = head; d; d = d->next) ++n;
    MimDef *small[16] = {NULL}; /* a chain is mostly one or two declarations */
    MimDef **defs = 2 * n <= 16 ? small : calloc(2 * n, sizeof *defs);
    if (!defs) return emit_error(e, head->loc, "out of memory"), false;
    MimDef **lasts = defs + n;
    bool ok = true;
    size_t i = 0;
    for (MimAstDecl *d = head; ok && d; d = d->next, ++i) {
        MimLoc old = emit_push_loc(e, d->loc);
        if (d->kind == MIM_DECL_FUN) defs[i] = emit_fun_head(e, d->u.fun, &lasts[i]);
        else if (d->kind == MIM_DECL_REC) defs[i] = emit_rec_head(e, d, &lasts[i]);
        else emit_error(e, d->loc, "internal error: unexpected declaration in an 'and' chain");
        ok = defs[i] != NULL;
        emit_pop_loc(e, old);
    }
    i = 0;
    for (MimAstDecl *d = head; ok && d; d = d->next, ++i) {
        MimLoc old = emit_push_loc(e, d->loc);
        if (d->kind == MIM_DECL_FUN) ok = emit_fun_body(e, d->u.fun, defs[i], lasts[i]);
        else ok = emit_rec_body(e, d, defs[i], lasts[i]);
        emit_pop_loc(e, old);
    }
    if (defs != small) free(defs);
    return ok;
}

/* ---- ccon/cfun ----------------------------------------------------------- */

/* A mutable Lam without body of type Cn dom / Cn [dom, Cn codom]. */
static bool emit_cdecl(Emitter *e, MimAstDecl *d) {
    MimDef *dom = emit_ptrn_type(e, d->u.cdecl.dom);
    if (!dom) return false;
    MimDef *pi;
    if (d->u.cdecl.tok == MIM_TOK_CFUN) {
        MimDef *codom = emit_expr(e, d->u.cdecl.codom);
        if (!codom) return false;
        pi = mim_fn(e->w, dom, codom);
    } else {
        pi = mim_cn(e->w, dom);
    }
    MimDef *lam = mim_mut_lam(e->w, pi);
    if (!lam) return false;
    emit_bind(e, d->u.cdecl.name, lam);
    return true;
}

/* ---- declarations and modules ------------------------------------------- */

static bool emit_decl(Emitter *e, MimAstDecl *d) {
    MimLoc old = emit_push_loc(e, d->loc);
    bool ok;
    switch (d->kind) {
    case MIM_DECL_AXM: ok = emit_axm(e, d); break;
    case MIM_DECL_LET: ok = emit_let(e, d); break;
    case MIM_DECL_FUN:
    case MIM_DECL_REC: ok = emit_chain(e, d); break;
    case MIM_DECL_CDECL: ok = emit_cdecl(e, d); break;
    default: ok = false; emit_error(e, d->loc, "internal error: unknown declaration"); break;
    }
    emit_pop_loc(e, old);
    return ok;
}

bool emit_decls(Emitter *e, MimAstDecl *const *decls, size_t n, bool reverse) {
    for (size_t i = 0; i < n; ++i)
        if (!emit_decl(e, decls[reverse ? n - 1 - i : i])) return false;
    return true;
}

void mim_emit_stream_begin(MimEmitStream *s, MimWorld *w, MimAstModule *m, const MimEmitHooks *hooks,
                           size_t text_len) {
    *s = (MimEmitStream){.w = w, .module = m, .hooks = hooks, .ok = true};
    /* A big input makes about one node per 12 to 14 source bytes
     * (bench/opt 12.2, bench/frontend 13.8): the hash-consing table is
     * sized for one per 14 at once instead of doubling ~log2(n/1024) times
     * on the way (at 10^5 declarations of bench/frontend, one per 16 left
     * the last doubling, a rehash of 4 million nodes, to emission). */
    mim_world_reserve(w, text_len / 14);
    mim_world_cache_recent(w);
    s->errors = mim_world_diag(w)->num_errors;
}

bool mim_emit_stream_decl(MimEmitStream *s, MimAstDecl *d) {
    if (!s->ok) return false;
    Emitter e = {.w = s->w, .module = s->module, .hooks = s->hooks, .reeval_depth = s->reeval_depth,
                 .reeval_gids = s->reeval_gids};
    s->ok = emit_decl(&e, d);
    s->reeval_depth = e.reeval_depth;
    s->reeval_gids = e.reeval_gids;
    return s->ok;
}

bool mim_emit_stream_end(MimEmitStream *s) {
    MimDiag *diag = mim_world_diag(s->w);
    bool ok = s->ok && diag->num_errors == s->errors;
    if (!ok && diag->num_errors == s->errors)
        mim_diag_report(diag, MIM_ERROR, mim_world_loc(s->w), "internal error: emission failed");
    return ok;
}

bool mim_emit_module_with(MimWorld *w, MimAstModule *m, const MimEmitHooks *hooks) {
    if (!w || !m) return false;
    MimEmitStream s;
    mim_emit_stream_begin(&s, w, m, hooks, m->text_len);
    for (size_t i = 0; i < m->num_decls && mim_emit_stream_decl(&s, m->decls[i]); ++i) continue;
    return mim_emit_stream_end(&s);
}

bool mim_emit_module(MimWorld *w, MimAstModule *m) { return mim_emit_module_with(w, m, NULL); }

/* ---- top-level names (for prelude images) ------------------------------------ */

typedef void (*BinderFn)(void *user, MimBinder *b);

typedef struct BinderWalk {
    BinderFn fn;
    void *user;
} BinderWalk;

static void binder_of_slot(void *walk, MimBinder **slot) {
    BinderWalk *b = walk;
    b->fn(b->user, *slot);
}

void mim_emit_top_binders(MimAstModule *m, BinderFn fn, void *user) {
    if (m->skeleton) {
        for (size_t i = 0; i < m->num_top_binders; ++i) fn(user, m->top_binders[i]);
        return;
    }
    BinderWalk walk = {fn, user};
    for (size_t i = 0; i < m->num_decls; ++i) mim_ast_top_binder_slots(m->decls[i], binder_of_slot, &walk);
}

int mim_emit_annex_mark(const MimAnnex *a) {
    return a->user == &fn_mark ? 1 : a->user == &value_mark ? 2 : 0;
}

void mim_emit_set_annex_mark(MimAnnex *a, int mark) {
    a->user = mark == 1 ? (void *)&fn_mark : mark == 2 ? (void *)&value_mark : NULL;
}

void mim_emit_restore_annexes(MimWorld *w, MimAstModule *m) {
    for (size_t i = 0; i < m->num_decls; ++i) {
        MimAstDecl *d = m->decls[i];
        if (d->kind != MIM_DECL_AXM || !d->u.axm.annex || d->u.axm.annex->user) continue;
        MimBinder *b = d->u.axm.num_subs ? d->u.axm.subs[0].names[0] : d->u.axm.name;
        if (b && b->def) d->u.axm.annex->user = (void *)annex_mark(w, mim_def_type(b->def));
    }
}
