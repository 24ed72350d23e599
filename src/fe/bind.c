/* Name binding (language.md §6) and annex numbering (semantics.md §12).
 *
 * Scopes are one hash table sym -> (binder, depth) plus an undo log: binding
 * records the previous entry, popping a scope restores everything recorded
 * since it was pushed. Lookup is one probe sequence regardless of nesting.
 * The traversal order is the binding order of the spec: it fixes what each
 * use sees and the tag numbers of annexes. */
#include "fe/fe_impl.h"

#include "util/suggest.h"
#include "util/sym.h"
#include "mim/xalloc.h"

#include <stdint.h>
#include <string.h>

typedef enum BindMode {
    DECLARE, /* redeclaration in the same scope is an error */
    REBIND,  /* let/ret: replaces a binding of the same scope */
    QUIET,   /* re-binding parameters for a function body: names only */
} BindMode;

/* ---- the scope table ------------------------------------------------------------- */

static size_t hash_ptr(const void *p) { return (size_t)mim_hash_mix(0, (uint64_t)(uintptr_t)p); }

static void grow_entries(MimFe *fe) {
    size_t ncap = fe->entries_cap ? fe->entries_cap * 2 : 1024;
    MimScopeEntry *ne = mim_xcalloc(ncap, sizeof *ne);
    for (size_t i = 0; i < fe->entries_cap; ++i) {
        MimScopeEntry *e = &fe->entries[i];
        if (!e->sym) continue;
        size_t j = hash_ptr(e->sym) & (ncap - 1);
        while (ne[j].sym) j = (j + 1) & (ncap - 1);
        ne[j] = *e;
    }
    free(fe->entries);
    fe->entries = ne;
    fe->entries_cap = ncap;
}

static MimScopeEntry *entry(MimFe *fe, MimSym sym) {
    if (2 * (fe->entries_len + 1) > fe->entries_cap) grow_entries(fe);
    size_t j = hash_ptr(sym) & (fe->entries_cap - 1);
    while (fe->entries[j].sym && fe->entries[j].sym != sym) j = (j + 1) & (fe->entries_cap - 1);
    if (!fe->entries[j].sym) {
        fe->entries[j].sym = sym;
        fe->entries_len++;
    }
    return &fe->entries[j];
}

static void push_scope(MimFe *fe) {
    mim_vec_push(&fe->scope_marks, fe->undo.len);
    fe->scope_depth++;
}

static void pop_scope(MimFe *fe) {
    size_t mark = mim_vec_pop(&fe->scope_marks);
    while (fe->undo.len > mark) {
        MimScopeUndo u = mim_vec_pop(&fe->undo);
        MimScopeEntry *e = entry(fe, u.sym);
        e->binder = u.binder;
        e->depth = u.depth;
    }
    fe->scope_depth--;
}

static void bind(MimFe *fe, MimBinder *b, BindMode mode) {
    if (!b || b->anon) return;
    MimScopeEntry *e = entry(fe, b->sym);
    if (e->binder && e->depth == fe->scope_depth && mode == DECLARE && e->binder->kind != MIM_BINDER_DUMMY) {
        if (e->binder == b) return;
        mim_diag_report(fe->diag, MIM_ERROR, b->loc, "redeclaration of '%s'", b->sym);
        mim_diag_report(fe->diag, MIM_NOTE, e->binder->loc, "previous declaration here");
        return;
    }
    MimScopeUndo u = {b->sym, e->binder, e->depth};
    mim_vec_push(&fe->undo, u);
    e->binder = b;
    e->depth = fe->scope_depth;
}

static MimBinder *find(MimFe *fe, MimSym sym) {
    MimScopeEntry *e = entry(fe, sym);
    return e->binder;
}

static bool is_anon(MimSym sym) { return sym[0] == '_' && sym[1] == '\0'; }

/* `%p.tag` where p names an import or plugin that was not found: that
 * directive's error says it all, the uses of its annexes are not reported
 * again. */
static bool of_missing_module(const MimFe *fe, MimSym sym) {
    if (sym[0] != '%') return false;
    const char *dot = strchr(sym + 1, '.');
    size_t n = dot ? (size_t)(dot - sym - 1) : strlen(sym + 1);
    for (size_t i = 0; i < fe->missing.len; ++i)
        if (strlen(fe->missing.data[i]) == n && memcmp(fe->missing.data[i], sym + 1, n) == 0) return true;
    return false;
}

/* `'x' not found`, with the visible name closest to x as a suggestion. */
static void report_not_found(MimFe *fe, MimAstExpr *e, MimSym sym) {
    MimSuggest sug;
    mim_suggest_init(&sug, sym);
    for (size_t i = 0; i < fe->entries_cap; ++i) {
        const MimScopeEntry *en = &fe->entries[i];
        if (en->sym && en->binder && en->binder->kind != MIM_BINDER_DUMMY) mim_suggest_offer(&sug, en->sym);
    }
    if (sug.best) mim_diag_report(fe->diag, MIM_ERROR, e->loc, "'%s' not found; did you mean '%s'?", sym, sug.best);
    else mim_diag_report(fe->diag, MIM_ERROR, e->loc, "'%s' not found", sym);
}

/* A use of a name: its binder, or a dummy after reporting `'x' not found`. */
static void use(MimFe *fe, MimAstExpr *e) {
    MimSym sym = e->u.id.sym;
    MimBinder *b = is_anon(sym) ? NULL : find(fe, sym);
    if (!b) {
        if (is_anon(sym))
            mim_diag_report(fe->diag, MIM_ERROR, e->loc, "'_' cannot be used as an expression");
        else if (!of_missing_module(fe, sym))
            report_not_found(fe, e, sym);
        b = mim_arena_alloc(&fe->arena, sizeof *b);
        b->kind = MIM_BINDER_DUMMY;
        b->sym = sym;
        b->loc = e->loc;
        if (!is_anon(sym)) bind(fe, b, REBIND);
    }
    e->u.id.binder = b;
}

void mim_bind_free_(MimFe *fe) {
    free(fe->entries);
    fe->entries = NULL;
    mim_vec_free(&fe->undo);
    mim_vec_free(&fe->scope_marks);
    for (size_t i = 0; i < fe->annexes.len; ++i) {
        MimAnnex *a = fe->annexes.data[i];
        for (size_t j = 0; j < a->num_subs; ++j) free(a->subs[j].aliases);
        free(a->subs);
    }
    mim_vec_free(&fe->annexes);
    mim_vec_free(&fe->plugin_tags);
    free(fe->annex_slots);
    fe->annex_slots = NULL;
    fe->annex_cap = fe->entries_cap = fe->entries_len = 0;
    fe->scope_depth = 0;
}

/* ---- annexes ---------------------------------------------------------------------- */

typedef enum AnnexHow { ANNEX_AXM, ANNEX_LET, ANNEX_FUN, ANNEX_REC } AnnexHow;

static MimAnnex **annex_slot(MimFe *fe, MimSym sym) {
    if (2 * (fe->annexes.len + 1) > fe->annex_cap) {
        size_t ncap = fe->annex_cap ? fe->annex_cap * 2 : 64;
        MimAnnex **ns = mim_xcalloc(ncap, sizeof *ns);
        for (size_t i = 0; i < fe->annex_cap; ++i) {
            MimAnnex *a = fe->annex_slots[i];
            if (!a) continue;
            size_t j = hash_ptr(a->sym) & (ncap - 1);
            while (ns[j]) j = (j + 1) & (ncap - 1);
            ns[j] = a;
        }
        free(fe->annex_slots);
        fe->annex_slots = ns;
        fe->annex_cap = ncap;
    }
    size_t j = hash_ptr(sym) & (fe->annex_cap - 1);
    while (fe->annex_slots[j] && fe->annex_slots[j]->sym != sym) j = (j + 1) & (fe->annex_cap - 1);
    return &fe->annex_slots[j];
}

static MimPluginTags *plugin_tags(MimFe *fe, MimSym plugin) {
    for (size_t i = 0; i < fe->plugin_tags.len; ++i)
        if (fe->plugin_tags.data[i].plugin == plugin) return &fe->plugin_tags.data[i];
    MimPluginTags t = {plugin, 0};
    mim_vec_push(&fe->plugin_tags, t);
    return &mim_vec_last(&fe->plugin_tags);
}

static MimAnnexSub *add_sub(MimAnnex *a, MimSym name, unsigned number) {
    a->subs = mim_xrealloc(a->subs, (a->num_subs + 1) * sizeof *a->subs);
    MimAnnexSub *s = &a->subs[a->num_subs++];
    memset(s, 0, sizeof *s);
    s->name = name;
    s->sub = number;
    return s;
}

/* The annex record of a declaration of `full` (`%p.t` or `%p.t.s`), created
 * on first declaration (fixing the tag number); NULL after an error. For a
 * 3-part name, the sub-tag is appended and its number stored in *sub. */
static MimAnnex *declare_annex(MimFe *fe, MimSym full, MimLoc loc, AnnexHow how, unsigned *sub) {
    const char *text = full + 1;
    const char *dot1 = strchr(text, '.');
    const char *tag = dot1 ? dot1 + 1 : NULL;
    const char *dot2 = tag ? strchr(tag, '.') : NULL;
    size_t tag_len = !tag ? 0 : dot2 ? (size_t)(dot2 - tag) : strlen(tag);
    const char *subs = dot2 ? dot2 + 1 : NULL;
    if (!dot1 || tag_len == 0 || (subs && !*subs)) {
        mim_diag_report(fe->diag, MIM_ERROR, loc, "invalid annex name '%s'", full);
        return NULL;
    }
    size_t plugin_len = (size_t)(dot1 - text);
    if (plugin_len == 7 && strncmp(text, "_error_", 7) == 0) {
        mim_diag_report(fe->diag, MIM_ERROR, loc, "plugin name '_error_' is reserved");
        return NULL;
    }
    uint64_t pid = mim_plugin_id(text, plugin_len);
    if (!pid) {
        mim_diag_report(fe->diag, MIM_ERROR, loc,
                        "invalid plugin name '%.*s' in annex '%s' (must be 1 to 8 characters of [_a-zA-Z0-9])",
                        (int)plugin_len, text, full);
        return NULL;
    }
    if (how == ANNEX_AXM && subs) {
        mim_diag_report(fe->diag, MIM_ERROR, loc, "annex '%s' must not have a subtag", full);
        return NULL;
    }
    MimSym key = mim_world_sym_n(fe->world, full, (size_t)(tag + tag_len - full));
    MimAnnex **slot = annex_slot(fe, key);
    MimAnnex *a = *slot;
    if (!a) {
        MimSym plugin = mim_world_sym_n(fe->world, text, plugin_len);
        MimPluginTags *tags = plugin_tags(fe, plugin);
        if (tags->num_tags >= 256) {
            mim_diag_report(fe->diag, MIM_ERROR, loc, "exceeded maximum number of annexes (256) in plugin '%s'",
                            plugin);
            return NULL;
        }
        a = mim_arena_alloc(&fe->arena, sizeof *a);
        a->sym = key;
        a->plugin = plugin;
        a->tag = mim_world_sym_n(fe->world, tag, tag_len);
        a->plugin_id = pid;
        a->tag_num = tags->num_tags++;
        a->base = pid | (uint64_t)a->tag_num << 8;
        a->loc = loc;
        *slot = a;
        mim_vec_push(&fe->annexes, a);
    }
    if (subs) {
        unsigned n = a->next_sub;
        /* reference quirk: function declarations register their sub-tag twice */
        a->next_sub += how == ANNEX_FUN ? 2 : 1;
        add_sub(a, mim_world_sym(fe->world, subs), n);
        if (sub) *sub = n;
    }
    return a;
}

/* Syntactically a function type: Pi (`{…}`, `[…] →`, Cn, Fn) or an arrow. */
static bool is_fn_type(const MimAstExpr *e) {
    while (e && e->kind == MIM_EXPR_DECLS) e = e->u.decls.expr;
    return e && (e->kind == MIM_EXPR_PI || e->kind == MIM_EXPR_ARROW);
}

/* `%name` without a dot has the shape of neither `%plugin.tag` nor
 * `%plugin.tag.sub`: like the reference, a declaration of it is an ordinary
 * name and registers no annex. (`%p.` or `%p.t.` are malformed annex names.) */
static bool is_tagless(MimSym sym) { return sym[0] == '%' && !strchr(sym, '.'); }

static void declare_axiom(MimFe *fe, MimAstDecl *d) {
    MimBinder *name = d->u.axm.name;
    if (!name) return;
    /* sub-tags are parts of an annex: with them the name must be one */
    if (is_tagless(name->sym) && d->u.axm.num_subs == 0) return;
    MimAnnex *a = declare_annex(fe, name->sym, name->loc, ANNEX_AXM, NULL);
    d->u.axm.annex = a;
    if (!a) return;
    a->is_axiom = true;
    if (is_fn_type(d->u.axm.type)) a->is_fn = true;
    MimSym norm = d->u.axm.normalizer;
    if (norm) {
        if (a->normalizer && a->normalizer != norm) {
            mim_diag_report(fe->diag, MIM_ERROR, d->u.axm.normalizer_loc, "normalizer mismatch for axiom '%s'", a->sym);
            mim_diag_report(fe->diag, MIM_NOTE, a->normalizer_loc, "previous normalizer '%s'", a->normalizer);
        } else {
            a->normalizer = norm;
            a->normalizer_loc = d->u.axm.normalizer_loc;
        }
    }
    if (d->u.axm.num_subs == 0) {
        a->subless_axiom = true;
        return;
    }
    if (a->subless_axiom) mim_diag_report(fe->diag, MIM_ERROR, name->loc, "redeclared sub-less axiom '%s' with subs", a->sym);
    size_t prefix = strlen(a->sym) + 1;
    for (size_t i = 0; i < d->u.axm.num_subs; ++i) {
        MimAstSub *s = &d->u.axm.subs[i];
        s->sub = a->next_sub++;
        MimAnnexSub *as = add_sub(a, mim_world_sym(fe->world, s->names[0]->sym + prefix), s->sub);
        if (s->num_names > 1) {
            as->num_aliases = s->num_names - 1;
            as->aliases = mim_xcalloc(as->num_aliases, sizeof *as->aliases);
            for (size_t j = 1; j < s->num_names; ++j)
                as->aliases[j - 1] = mim_world_sym(fe->world, s->names[j]->sym + prefix);
        }
    }
}

/* An annex declared by let/lam/con/fun/rec (binder->sym starts with '%'). */
static MimAnnex *declare_value_annex(MimFe *fe, MimBinder *b, AnnexHow how, unsigned *sub) {
    if (!b || b->sym[0] != '%' || is_tagless(b->sym)) return NULL;
    return declare_annex(fe, b->sym, b->loc, how, sub);
}

/* ---- traversal ----------------------------------------------------------------------- */

static void bind_expr(MimFe *fe, MimAstExpr *e);
static void bind_decls(MimFe *fe, MimAstDecl **decls, size_t n, bool reverse);

static void bind_opt(MimFe *fe, MimAstExpr *e) {
    if (e) bind_expr(fe, e);
}

/* Patterns: types first (unless QUIET), names in order, then the alias. */
static void bind_ptrn(MimFe *fe, MimAstPtrn *p, BindMode mode) {
    if (!p) return;
    switch (p->kind) {
    case MIM_PTRN_ERROR: break;
    case MIM_PTRN_ID:
        if (mode != QUIET) bind_opt(fe, p->u.id.type);
        bind(fe, p->u.id.binder, mode);
        break;
    case MIM_PTRN_EXPR:
        if (mode != QUIET) bind_expr(fe, p->u.expr.type);
        break;
    case MIM_PTRN_GROUP:
        if (mode != QUIET) bind_expr(fe, p->u.group.type);
        for (size_t i = 0; i < p->u.group.num_members; ++i) bind(fe, p->u.group.members[i], mode);
        break;
    case MIM_PTRN_TUPLE:
        for (size_t i = 0; i < p->u.tuple.num_elems; ++i) bind_ptrn(fe, p->u.tuple.elems[i], mode);
        break;
    }
    bind(fe, p->alias, mode);
}

/* Domains, filters and codomain in one scope (the function's own name is not visible). */
static void bind_fun_head(MimFe *fe, MimAstFun *f) {
    push_scope(fe);
    for (size_t i = 0; i < f->num_doms; ++i) {
        bind_ptrn(fe, f->doms[i].ptrn, DECLARE);
        bind_opt(fe, f->doms[i].filter);
    }
    bind_opt(fe, f->codom);
    pop_scope(fe);
}

static void bind_fun_name(MimFe *fe, MimAstFun *f) {
    if (!f->name) return;
    f->annex = declare_value_annex(fe, f->name, ANNEX_FUN, &f->sub);
    bind(fe, f->name, DECLARE);
}

/* A fresh scope with the parameters again (and `return`), then the body. */
static void bind_fun_body(MimFe *fe, MimAstFun *f) {
    push_scope(fe);
    for (size_t i = 0; i < f->num_doms; ++i) bind_ptrn(fe, f->doms[i].ptrn, QUIET);
    bind(fe, f->ret, DECLARE);
    bind_opt(fe, f->body);
    pop_scope(fe);
}

static void bind_fun(MimFe *fe, MimAstFun *f) {
    bind_fun_head(fe, f);
    bind_fun_name(fe, f);
    bind_fun_body(fe, f);
}

static void bind_pi(MimFe *fe, MimAstExpr *e) {
    push_scope(fe);
    for (size_t i = 0; i < e->u.pi.num_doms; ++i) bind_ptrn(fe, e->u.pi.doms[i], DECLARE);
    bind_opt(fe, e->u.pi.codom);
    pop_scope(fe);
}

/* Applications nest to the left without limit (`f a b c …`): walk the
 * callee spine iteratively so long argument lists need no deep recursion. */
static void bind_app(MimFe *fe, MimAstExpr *e) {
    size_t n = 0;
    for (MimAstExpr *c = e; c->kind == MIM_EXPR_APP; c = c->u.app.callee) ++n;
    MimAstExpr *small[16]; /* mostly a call or two */
    MimAstExpr **spine = n <= 16 ? small : mim_xmalloc(n * sizeof *spine);
    for (size_t i = 0; i < n; ++i, e = e->u.app.callee) spine[i] = e;
    bind_expr(fe, e);
    while (n) bind_expr(fe, spine[--n]->u.app.arg);
    if (spine != small) free(spine);
}

static void bind_expr(MimFe *fe, MimAstExpr *e) {
    switch (e->kind) {
    case MIM_EXPR_ERROR:
    case MIM_EXPR_HOLE:
    case MIM_EXPR_PRIM:
    case MIM_EXPR_IDX_LIT:
    case MIM_EXPR_STR: break;
    case MIM_EXPR_ID: use(fe, e); break;
    case MIM_EXPR_LIT: bind_opt(fe, e->u.lit.type); break;
    case MIM_EXPR_TYPE: bind_expr(fe, e->u.type.level); break;
    case MIM_EXPR_APP: bind_app(fe, e); break;
    case MIM_EXPR_ARROW:
        bind_expr(fe, e->u.arrow.dom);
        bind_expr(fe, e->u.arrow.codom);
        break;
    case MIM_EXPR_PI: bind_pi(fe, e); break;
    case MIM_EXPR_LAMBDA: bind_fun(fe, e->u.lambda); break;
    case MIM_EXPR_TUPLE:
        for (size_t i = 0; i < e->u.tuple.num_elems; ++i) bind_expr(fe, e->u.tuple.elems[i]);
        break;
    case MIM_EXPR_SIGMA:
        push_scope(fe);
        bind_ptrn(fe, e->u.sigma.ptrn, DECLARE);
        pop_scope(fe);
        break;
    case MIM_EXPR_ARR:
    case MIM_EXPR_PACK:
        bind_expr(fe, e->u.seq.shape);
        push_scope(fe);
        bind(fe, e->u.seq.var, DECLARE);
        bind_expr(fe, e->u.seq.body);
        pop_scope(fe);
        break;
    case MIM_EXPR_EXTRACT:
        bind_expr(fe, e->u.extract.tuple);
        if (e->u.extract.index)
            bind_expr(fe, e->u.extract.index);
        else if (!is_anon(e->u.extract.name))
            e->u.extract.var = find(fe, e->u.extract.name);
        if (e->u.extract.var && e->u.extract.var->kind == MIM_BINDER_DUMMY) e->u.extract.var = NULL;
        break;
    case MIM_EXPR_INSERT:
        bind_expr(fe, e->u.insert.tuple);
        bind_expr(fe, e->u.insert.index);
        bind_expr(fe, e->u.insert.value);
        break;
    case MIM_EXPR_RET:
        push_scope(fe);
        bind_expr(fe, e->u.ret.callee);
        bind_expr(fe, e->u.ret.arg);
        pop_scope(fe);
        bind_ptrn(fe, e->u.ret.ptrn, REBIND);
        bind_expr(fe, e->u.ret.body);
        break;
    case MIM_EXPR_DECLS:
        bind_decls(fe, e->u.decls.decls, e->u.decls.num_decls, e->u.decls.is_where);
        bind_expr(fe, e->u.decls.expr);
        break;
    }
}

/* rec/lam chains: first every member's head (type resp. domains) and name,
 * then every body, so all members of a chain see each other. */
static void bind_chain(MimFe *fe, MimAstDecl *d) {
    for (MimAstDecl *c = d; c; c = c->next) {
        if (c->kind == MIM_DECL_FUN) {
            bind_fun_head(fe, c->u.fun);
            bind_fun_name(fe, c->u.fun);
        } else {
            bind_opt(fe, c->u.rec.type);
            c->u.rec.annex = declare_value_annex(fe, c->u.rec.name, ANNEX_REC, &c->u.rec.sub);
            bind(fe, c->u.rec.name, DECLARE);
        }
    }
    for (MimAstDecl *c = d; c; c = c->next) {
        if (c->kind == MIM_DECL_FUN)
            bind_fun_body(fe, c->u.fun);
        else
            bind_opt(fe, c->u.rec.body);
    }
}

static void bind_decl(MimFe *fe, MimAstDecl *d) {
    switch (d->kind) {
    case MIM_DECL_AXM:
        bind_expr(fe, d->u.axm.type);
        declare_axiom(fe, d);
        if (d->u.axm.num_subs == 0) {
            bind(fe, d->u.axm.name, DECLARE);
        } else {
            for (size_t i = 0; i < d->u.axm.num_subs; ++i)
                for (size_t j = 0; j < d->u.axm.subs[i].num_names; ++j) bind(fe, d->u.axm.subs[i].names[j], DECLARE);
        }
        break;
    case MIM_DECL_LET: {
        push_scope(fe);
        bind_opt(fe, d->u.let.post_type);
        bind_expr(fe, d->u.let.value);
        pop_scope(fe);
        MimAstPtrn *p = d->u.let.ptrn;
        if (p->kind == MIM_PTRN_ID)
            d->u.let.annex = declare_value_annex(fe, p->u.id.binder, ANNEX_LET, &d->u.let.sub);
        bind_ptrn(fe, p, REBIND);
        break;
    }
    case MIM_DECL_FUN:
    case MIM_DECL_REC: bind_chain(fe, d); break;
    case MIM_DECL_CDECL:
        push_scope(fe);
        bind_ptrn(fe, d->u.cdecl.dom, DECLARE);
        pop_scope(fe);
        bind_opt(fe, d->u.cdecl.codom);
        bind(fe, d->u.cdecl.name, DECLARE);
        break;
    }
}

static void bind_decls(MimFe *fe, MimAstDecl **decls, size_t n, bool reverse) {
    for (size_t i = 0; i < n; ++i) bind_decl(fe, decls[reverse ? n - 1 - i : i]);
}

/* Each module after the modules it imported (they were parsed pre-order). */
static void bind_module(MimFe *fe, MimAstModule *m) {
    if (!m || m->bound) return;
    m->bound = true;
    for (size_t i = 0; i < m->num_imports; ++i) bind_module(fe, m->imports[i].module);
    bind_decls(fe, m->decls, m->num_decls, false);
    mim_vec_push(&fe->order, m);
}

void mim_bind_add_annex_(MimFe *fe, MimAnnex *a) {
    *annex_slot(fe, a->sym) = a;
    mim_vec_push(&fe->annexes, a);
    plugin_tags(fe, a->plugin)->num_tags++;
}

/* Skeleton modules come first in binding order (they are what the plugins
 * brought); their top-level names are bound in the order binding their
 * declarations bound them (the writer checked that this gives the scope
 * binding gave), and their annexes are the records binding made. */
static void bind_skeleton(MimFe *fe) {
    for (size_t i = 0; i < fe->skel_annexes.len; ++i) mim_bind_add_annex_(fe, fe->skel_annexes.data[i]);
    for (size_t i = 0; i < fe->skel_order.len; ++i) {
        MimAstModule *m = fe->skel_order.data[i];
        m->bound = true;
        for (size_t k = 0; k < m->num_top_binders; ++k) bind(fe, m->top_binders[k], REBIND);
        mim_vec_push(&fe->order, m);
    }
}

void mim_bind_modules_(MimFe *fe) {
    if (mim_fe_has_skeleton(fe) && !fe->prefix_bound) bind_skeleton(fe);
    for (size_t i = 0; i < fe->roots.len; ++i) bind_module(fe, fe->roots.data[i]);
}

/* What mim_bind_modules_ binds before the input's declarations: the input
 * is the last root (mim_fe_parse_input), bound after its imports. */
void mim_bind_prefix_(MimFe *fe, MimAstModule *input) {
    if (mim_fe_has_skeleton(fe)) bind_skeleton(fe);
    fe->prefix_bound = true;
    for (size_t i = 0; i < fe->roots.len; ++i) bind_module(fe, fe->roots.data[i]);
    for (size_t i = 0; i < input->num_imports; ++i) bind_module(fe, input->imports[i].module);
}

void mim_bind_top_decl_(MimFe *fe, MimAstDecl *d) { bind_decl(fe, d); }
