/* Recursive-descent parser for Mim (language.md §3, precedence §4).
 *
 * Syntax errors read `expected <what>, got '<token>' while parsing <ctxt>`;
 * they are collected and parsing goes on. Recovery is simple: a failed
 * `expect` consumes nothing, a token that cannot start a primary expression
 * is skipped unless it is a closing/separating token some caller waits for.
 * Every loop consumes a token per iteration or stops, so garbage input
 * terminates. Nesting is bounded by fe->max_depth: beyond it one error is
 * reported and the rest of the file is ignored (no stack overflow). */
#include "fe/fe_impl.h"
#include "fe/lexer.h"

#include <stddef.h>
#include <string.h>

#define LOOKAHEAD 3
/* The lookahead is a ring of RING slots: consuming a token moves the head
 * instead of copying the tokens, and the consumed token keeps its slot until
 * the next one is consumed (RING > LOOKAHEAD). */
#define RING 4
_Static_assert((RING & (RING - 1)) == 0 && RING > LOOKAHEAD, "RING is a power of two above LOOKAHEAD");

typedef struct Parser {
    MimFe *fe;
    MimLexer lx;
    MimTok ring[RING];
    unsigned head; /* ring slot of the next token */
    MimLoc prev;   /* location of the last consumed token */
    unsigned depth;
    bool aborted;  /* nesting limit hit: only <end of file> from now on, no more errors */
    const char *file;
    MimSym sym_anon, sym_return;
    MimArena *ast; /* where nodes go: the front end's arena, or its scratch arena (streaming) */
} Parser;

typedef MIM_VEC(void *) PtrVec;

/* ---- tokens ---------------------------------------------------------------- */

static MimTok eof_tok(Parser *p) {
    MimTok t;
    memset(&t, 0, sizeof t);
    t.kind = MIM_TOK_EOF;
    t.loc = p->ring[p->head % RING].loc;
    t.loc.begin = t.loc.end;
    return t;
}

/* Lexes the next token into *slot (a lookahead slot). */
static void next_tok(Parser *p, MimTok *slot) {
    if (p->aborted || p->fe->fatal) {
        *slot = eof_tok(p);
        return;
    }
    mim_lex_to(&p->lx, slot);
    if (p->lx.fatal) p->fe->fatal = true;
}

static MimTok *ahead(Parser *p, int i) { return &p->ring[(p->head + (unsigned)i) % RING]; }
static MimTokKind kind(Parser *p, int i) { return ahead(p, i)->kind; }

/* Only <end of file> ahead (after a fatal error or when aborting). */
static void ahead_eof(Parser *p) {
    for (int i = 0; i < LOOKAHEAD; ++i) ahead(p, i)->kind = MIM_TOK_EOF;
}

/* Consumes the next token; the result stays valid until the next call. */
static const MimTok *advance(Parser *p) {
    const MimTok *t = ahead(p, 0);
    p->head++;
    next_tok(p, ahead(p, LOOKAHEAD - 1)); /* the slot after t's LOOKAHEAD - 1 successors */
    if (p->aborted || p->fe->fatal) ahead_eof(p);
    p->prev = t->loc;
    return t;
}

static inline MimTok lex(Parser *p) { return *advance(p); }

static bool accept(Parser *p, MimTokKind k) {
    if (kind(p, 0) != k) return false;
    advance(p);
    return true;
}

static bool silent(Parser *p) { return p->aborted || p->fe->fatal; }

/* The text shown for a token in "got '…'". */
static void tok_text(const MimTok *t, const char **s, int *n) {
    switch (t->kind) {
    case MIM_TOK_ID:
    case MIM_TOK_ANNEX: *s = t->v.sym, *n = (int)strlen(t->v.sym); break;
    case MIM_TOK_STRING: {
        const char *z = memchr(t->v.bytes, '\0', t->len);
        *s = t->v.bytes, *n = z ? (int)(z - t->v.bytes) : (int)t->len;
        break;
    }
    default: *s = mim_tok_kind_str(t->kind), *n = (int)strlen(*s);
    }
}

static void syntax_err(Parser *p, const char *what, const char *ctxt) {
    if (silent(p)) return;
    const char *s;
    int n;
    tok_text(ahead(p, 0), &s, &n);
    mim_diag_report(p->fe->diag, MIM_ERROR, ahead(p, 0)->loc, "expected %s, got '%.*s' while parsing %s", what, n,
                    s, ctxt);
}

static void syntax_err_tok(Parser *p, MimTokKind k, const char *ctxt) {
    char what[64];
    snprintf(what, sizeof what, "'%s'", mim_tok_kind_str(k));
    syntax_err(p, what, ctxt);
}

static bool expect(Parser *p, MimTokKind k, const char *ctxt) {
    if (accept(p, k)) return true;
    syntax_err_tok(p, k, ctxt);
    return false;
}

/* Tokens that close or separate something an enclosing parse waits for. */
static bool is_sync(MimTokKind k) {
    switch (k) {
    case MIM_TOK_RPAREN: case MIM_TOK_RBRACKET: case MIM_TOK_RBRACE: case MIM_TOK_RPACK:
    case MIM_TOK_RARR: case MIM_TOK_SEMI: case MIM_TOK_COMMA: case MIM_TOK_ASSIGN:
    case MIM_TOK_END: case MIM_TOK_EOF: case MIM_TOK_DOLLAR: case MIM_TOK_COLON:
        return true;
    default: return false;
    }
}

static void skip_unless_sync(Parser *p) {
    if (!is_sync(kind(p, 0))) lex(p);
}

static bool is_decl_start(MimTokKind k) {
    switch (k) {
    case MIM_TOK_AXM: case MIM_TOK_LET: case MIM_TOK_REC: case MIM_TOK_LAM: case MIM_TOK_CON:
    case MIM_TOK_FUN: case MIM_TOK_CCON: case MIM_TOK_CFUN:
        return true;
    default: return false;
    }
}

static bool is_builtin(MimTokKind k) {
    switch (k) {
    case MIM_TOK_UNIV: case MIM_TOK_NAT: case MIM_TOK_IDX: case MIM_TOK_BOOL: case MIM_TOK_FF:
    case MIM_TOK_TT: case MIM_TOK_i1: case MIM_TOK_i8: case MIM_TOK_i16: case MIM_TOK_i32:
    case MIM_TOK_i64: case MIM_TOK_I1: case MIM_TOK_I8: case MIM_TOK_I16: case MIM_TOK_I32:
    case MIM_TOK_I64: case MIM_TOK_STAR: case MIM_TOK_BOX:
        return true;
    default: return false;
    }
}

static bool can_start_expr(MimTokKind k) {
    if (is_builtin(k) || is_decl_start(k)) return true;
    switch (k) {
    case MIM_TOK_ID: case MIM_TOK_ANNEX: case MIM_TOK_INT: case MIM_TOK_FLOAT: case MIM_TOK_INDEX:
    case MIM_TOK_CHAR: case MIM_TOK_STRING: case MIM_TOK_BOT: case MIM_TOK_TOP: case MIM_TOK_TYPE:
    case MIM_TOK_INS: case MIM_TOK_RET: case MIM_TOK_LAMBDA: case MIM_TOK_CN: case MIM_TOK_FN:
    case MIM_TOK_CN_TYPE: case MIM_TOK_FN_TYPE: case MIM_TOK_LBRACE: case MIM_TOK_LPAREN:
    case MIM_TOK_LBRACKET: case MIM_TOK_LPACK: case MIM_TOK_LARR:
        return true;
    default: return false;
    }
}

/* ---- nodes ------------------------------------------------------------------ */

/* AST nodes hold pointers and 64-bit numbers: no more alignment than their
 * size (the arena's default, that of max_align_t, would pad most nodes). */
enum { AST_ALIGN = sizeof(uint64_t) };
_Static_assert(_Alignof(MimAstExpr) <= AST_ALIGN && _Alignof(MimTok) <= AST_ALIGN &&
                   _Alignof(MimAstFun) <= AST_ALIGN && _Alignof(MimAstDecl) <= AST_ALIGN,
               "AST nodes are allocated with AST_ALIGN");

static void *alloc(Parser *p, size_t n) { return mim_arena_alloc_aligned(p->ast, n, AST_ALIGN); }

static MimLoc span(Parser *p, MimLoc begin) {
    MimLoc l = begin;
    if (p->prev.begin.row && (p->prev.end.row > begin.begin.row ||
                              (p->prev.end.row == begin.begin.row && p->prev.end.col >= begin.begin.col)))
        l.end = p->prev.end;
    return l;
}

/* Bytes of an expression node of kind k: the header and its own member of
 * the union (the nodes of a big program are most of the front end's
 * memory; an identifier needs 48 of the 88 bytes of the largest kind). A
 * node never changes its kind. */
static size_t expr_size(MimExprKind k) {
    const size_t head = offsetof(MimAstExpr, u);
    const MimAstExpr *x = NULL;
    switch (k) {
    case MIM_EXPR_ID: return head + sizeof x->u.id;
    case MIM_EXPR_PRIM: return head + sizeof x->u.prim;
    case MIM_EXPR_LIT: return head + sizeof x->u.lit;
    case MIM_EXPR_IDX_LIT: return head + sizeof x->u.idx_lit;
    case MIM_EXPR_STR: return head + sizeof x->u.str;
    case MIM_EXPR_TYPE: return head + sizeof x->u.type;
    case MIM_EXPR_APP: return head + sizeof x->u.app;
    case MIM_EXPR_ARROW: return head + sizeof x->u.arrow;
    case MIM_EXPR_PI: return head + sizeof x->u.pi;
    case MIM_EXPR_LAMBDA: return head + sizeof x->u.lambda;
    case MIM_EXPR_TUPLE: return head + sizeof x->u.tuple;
    case MIM_EXPR_SIGMA: return head + sizeof x->u.sigma;
    case MIM_EXPR_ARR:
    case MIM_EXPR_PACK: return head + sizeof x->u.seq;
    case MIM_EXPR_EXTRACT: return head + sizeof x->u.extract;
    case MIM_EXPR_INSERT: return head + sizeof x->u.insert;
    case MIM_EXPR_RET: return head + sizeof x->u.ret;
    case MIM_EXPR_DECLS: return head + sizeof x->u.decls;
    default: return sizeof *x; /* ERROR, HOLE */
    }
}

static MimAstExpr *new_expr(Parser *p, MimExprKind k, MimLoc loc) {
    MimAstExpr *e = alloc(p, expr_size(k));
    e->kind = k;
    e->loc = loc;
    return e;
}

/* Bytes of a pattern of kind k, as expr_size: an identifier pattern (most
 * of them) needs 56 of the 64 bytes of a tuple. */
static size_t ptrn_size(MimPtrnKind k) {
    const size_t head = offsetof(MimAstPtrn, u);
    const MimAstPtrn *x = NULL;
    switch (k) {
    case MIM_PTRN_ID: return head + sizeof x->u.id;
    case MIM_PTRN_EXPR: return head + sizeof x->u.expr;
    default: return sizeof *x; /* ERROR, GROUP, TUPLE */
    }
}

/* Bytes of a declaration of kind k, as expr_size: a `let` (most of them)
 * needs 80 of the 136 bytes of an axiom. */
static size_t decl_size(MimDeclKind k) {
    const size_t head = offsetof(MimAstDecl, u);
    const MimAstDecl *x = NULL;
    switch (k) {
    case MIM_DECL_LET: return head + sizeof x->u.let;
    case MIM_DECL_FUN: return head + sizeof x->u.fun;
    case MIM_DECL_REC: return head + sizeof x->u.rec;
    case MIM_DECL_CDECL: return head + sizeof x->u.cdecl;
    default: return sizeof *x; /* AXM */
    }
}

static MimAstPtrn *new_ptrn(Parser *p, MimPtrnKind k, MimLoc loc) {
    MimAstPtrn *pt = alloc(p, ptrn_size(k));
    pt->kind = k;
    pt->loc = loc;
    return pt;
}

static MimAstDecl *new_decl(Parser *p, MimDeclKind k, MimLoc loc) {
    MimAstDecl *d = alloc(p, decl_size(k));
    d->kind = k;
    d->loc = loc;
    return d;
}

static MimBinder *new_binder(Parser *p, MimBinderKind k, MimSym sym, MimLoc loc, void *node) {
    MimBinder *b = alloc(p, sizeof *b);
    b->kind = k;
    b->sym = sym;
    b->loc = loc;
    b->node = node;
    b->anon = sym == p->sym_anon;
    return b;
}

static void **to_array(Parser *p, PtrVec *v) {
    void **a = v->len ? alloc(p, v->len * sizeof *a) : NULL;
    if (v->len) memcpy(a, v->data, v->len * sizeof *a);
    mim_vec_free(v);
    return a;
}

static MimAstExpr *error_expr(Parser *p) { return new_expr(p, MIM_EXPR_ERROR, ahead(p, 0)->loc); }

/* ---- nesting limit ------------------------------------------------------------- */

static bool enter(Parser *p) {
    if (++p->depth <= p->fe->max_depth) return true;
    if (!p->aborted) {
        mim_diag_report(p->fe->diag, MIM_ERROR, ahead(p, 0)->loc,
                        "nesting too deep: more than %u levels of nested expressions or patterns",
                        p->fe->max_depth);
        p->aborted = true;
        ahead_eof(p);
    }
    return false;
}

static void leave(Parser *p) { p->depth--; }

/* ---- forward declarations ----------------------------------------------------------- */

static MimAstExpr *parse_expr(Parser *p, const char *ctxt, MimPrec prec);
static MimAstExpr *parse_infix(Parser *p, MimLoc begin, MimAstExpr *lhs, MimPrec prec);
static MimAstPtrn *parse_tuple_ptrn(Parser *p, bool bracket_style);
static MimAstDecl *parse_decl(Parser *p);
static void parse_decls(Parser *p, PtrVec *out);
static MimAstFun *parse_fun(Parser *p, bool is_decl);

/* ---- names -------------------------------------------------------------------------- */

/* name ::= IDENT | ANNEX */
static MimBinder *parse_name(Parser *p, MimBinderKind k, const char *ctxt, bool allow_annex) {
    MimTokKind t = kind(p, 0);
    if (t == MIM_TOK_ID || (allow_annex && t == MIM_TOK_ANNEX)) {
        MimTok tok = lex(p);
        return new_binder(p, k, tok.v.sym, tok.loc, NULL);
    }
    syntax_err(p, allow_annex ? "identifier or annex name" : "identifier", ctxt);
    return NULL;
}

static MimAstPtrn *parse_alias(Parser *p, MimAstPtrn *pt) {
    if (!accept(p, MIM_TOK_AS)) return pt;
    MimBinder *b = parse_name(p, MIM_BINDER_ALIAS, "alias of a pattern", true);
    if (b) {
        b->node = pt;
        pt->alias = b;
        pt->loc = span(p, pt->loc);
    }
    return pt;
}

/* ---- patterns ------------------------------------------------------------------------ */

static MimAstPtrn *id_ptrn(Parser *p, MimTok tok, MimAstExpr *type) {
    MimAstPtrn *pt = new_ptrn(p, MIM_PTRN_ID, span(p, tok.loc));
    pt->u.id.binder = new_binder(p, MIM_BINDER_PTRN, tok.v.sym, tok.loc, pt);
    pt->u.id.type = type;
    return pt;
}

static MimAstPtrn *expr_ptrn(Parser *p, MimAstExpr *type) {
    MimAstPtrn *pt = new_ptrn(p, MIM_PTRN_EXPR, type->loc);
    pt->u.expr.type = type;
    return pt;
}

/* `x: T` or `x` (the caller saw an identifier). */
static MimAstPtrn *parse_id_ptrn(Parser *p, const char *ctxt, MimPrec prec) {
    MimTok tok = lex(p);
    MimAstExpr *type = NULL;
    if (accept(p, MIM_TOK_COLON)) type = parse_expr(p, ctxt, prec);
    return id_ptrn(p, tok, type);
}

/* ptrn-p ::= ( '(' list(elem-p) ')' | '[' list(elem-b) ']' | IDENT (':' expr[P])? ) ('as' name)? */
static MimAstPtrn *parse_ptrn_p(Parser *p, const char *ctxt, MimPrec prec) {
    MimAstPtrn *pt;
    switch (kind(p, 0)) {
    case MIM_TOK_LPAREN: pt = parse_tuple_ptrn(p, false); break;
    case MIM_TOK_LBRACKET: pt = parse_tuple_ptrn(p, true); break;
    case MIM_TOK_ID: pt = parse_id_ptrn(p, ctxt, prec); break;
    default:
        syntax_err(p, "pattern", ctxt);
        pt = new_ptrn(p, MIM_PTRN_ERROR, ahead(p, 0)->loc);
        skip_unless_sync(p);
        return pt;
    }
    return parse_alias(p, pt);
}

/* ptrn-b ::= ( '[' list(elem-b) ']' | IDENT ':' expr[P] | expr[P] ) ('as' name)?
 * ptrn-pi additionally allows an implicit '{' group. */
static MimAstPtrn *parse_ptrn_b(Parser *p, const char *ctxt, MimPrec prec, bool allow_implicit) {
    MimTokKind k = kind(p, 0);
    if (k == MIM_TOK_LBRACKET || (allow_implicit && k == MIM_TOK_LBRACE))
        return parse_alias(p, parse_tuple_ptrn(p, true));
    if (k == MIM_TOK_ID && kind(p, 1) == MIM_TOK_COLON) return parse_alias(p, parse_id_ptrn(p, ctxt, prec));
    return parse_alias(p, expr_ptrn(p, parse_expr(p, ctxt, prec)));
}

static MimAstExpr *sigma_of(Parser *p, MimAstPtrn *pt) {
    MimAstExpr *e = new_expr(p, MIM_EXPR_SIGMA, pt->loc);
    e->u.sigma.ptrn = pt;
    return e;
}

static bool continues_infix(MimTokKind k) {
    return k == MIM_TOK_HASH || k == MIM_TOK_AT || k == MIM_TOK_WHERE || can_start_expr(k);
}

static MimAstExpr *parse_pi_rest(Parser *p, MimLoc begin, MimTokKind tok, PtrVec *doms);

/* One element of a tuple pattern (language.md §3.2, tried in order). */
static MimAstPtrn *parse_tuple_elem(Parser *p, bool bracket_style) {
    MimLoc begin = ahead(p, 0)->loc;
    if (kind(p, 0) == MIM_TOK_ID && kind(p, 1) == MIM_TOK_ID) {
        PtrVec ids = {0};
        while (kind(p, 0) == MIM_TOK_ID) {
            MimTok *t = alloc(p, sizeof *t);
            *t = lex(p);
            mim_vec_push(&ids, t);
        }
        if (accept(p, MIM_TOK_COLON)) { /* group: a b c: T */
            MimAstExpr *type = parse_expr(p, "type of an identifier group within a tuple pattern", MIM_PREC_BOT);
            MimAstPtrn *pt = new_ptrn(p, MIM_PTRN_GROUP, span(p, begin));
            size_t n = ids.len;
            MimBinder **members = alloc(p, n * sizeof *members);
            for (size_t i = 0; i < n; ++i) {
                MimTok *t = ids.data[i];
                members[i] = new_binder(p, MIM_BINDER_PTRN, t->v.sym, t->loc, pt);
            }
            mim_vec_free(&ids);
            pt->u.group.members = members;
            pt->u.group.num_members = n;
            pt->u.group.type = type;
            return pt;
        }
        /* `F x y`: an application, continued only by extractions */
        MimAstExpr *lhs = NULL;
        for (size_t i = 0; i < ids.len; ++i) {
            MimTok *t = ids.data[i];
            MimAstExpr *id = new_expr(p, MIM_EXPR_ID, t->loc);
            id->u.id.sym = t->v.sym;
            if (!lhs) {
                lhs = id;
            } else {
                MimAstExpr *app = new_expr(p, MIM_EXPR_APP, mim_loc_span(begin, t->loc));
                app->u.app.callee = lhs;
                app->u.app.arg = id;
                lhs = app;
            }
        }
        mim_vec_free(&ids);
        return expr_ptrn(p, parse_infix(p, begin, lhs, MIM_PREC_APP));
    }
    if (bracket_style) {
        if (kind(p, 0) == MIM_TOK_LBRACKET) {
            MimAstPtrn *t = parse_alias(p, parse_tuple_ptrn(p, true));
            if (kind(p, 0) == MIM_TOK_ARROW) {
                PtrVec doms = {0};
                mim_vec_push(&doms, t);
                return expr_ptrn(p, parse_pi_rest(p, begin, MIM_TOK_LBRACKET, &doms));
            }
            if (!t->alias && continues_infix(kind(p, 0)))
                return expr_ptrn(p, parse_infix(p, begin, sigma_of(p, t), MIM_PREC_BOT));
            return t;
        }
        if (kind(p, 0) == MIM_TOK_ID && kind(p, 1) == MIM_TOK_COLON)
            return parse_alias(p, parse_id_ptrn(p, "type of an element of a tuple pattern", MIM_PREC_BOT));
        return expr_ptrn(p, parse_expr(p, "element of a tuple pattern", MIM_PREC_BOT));
    }
    switch (kind(p, 0)) {
    case MIM_TOK_LPAREN: return parse_alias(p, parse_tuple_ptrn(p, false));
    case MIM_TOK_LBRACKET: return parse_alias(p, parse_tuple_ptrn(p, true));
    case MIM_TOK_ID:
        return parse_alias(p, parse_id_ptrn(p, "type of an element of a tuple pattern", MIM_PREC_BOT));
    default: {
        syntax_err(p, "pattern", "element of a tuple pattern");
        MimAstPtrn *pt = new_ptrn(p, MIM_PTRN_ERROR, ahead(p, 0)->loc);
        skip_unless_sync(p);
        return pt;
    }
    }
}

/* '(' / '[' / '{' list(elem) closing delimiter. The caller saw the opener. */
static MimAstPtrn *parse_tuple_ptrn(Parser *p, bool bracket_style) {
    MimLoc begin = ahead(p, 0)->loc;
    MimTokKind open = kind(p, 0);
    MimTokKind close = open == MIM_TOK_LPAREN ? MIM_TOK_RPAREN : open == MIM_TOK_LBRACKET ? MIM_TOK_RBRACKET : MIM_TOK_RBRACE;
    MimAstPtrn *pt = new_ptrn(p, MIM_PTRN_TUPLE, begin);
    pt->u.tuple.delim = open == MIM_TOK_LPAREN ? '(' : open == MIM_TOK_LBRACKET ? '[' : '{';
    pt->u.tuple.bracket = bracket_style;
    if (!enter(p)) {
        leave(p);
        return pt;
    }
    advance(p);
    PtrVec elems = {0};
    while (kind(p, 0) != close && kind(p, 0) != MIM_TOK_EOF) {
        mim_vec_push(&elems, parse_tuple_elem(p, bracket_style));
        if (!accept(p, MIM_TOK_COMMA)) break;
    }
    expect(p, close, "tuple pattern");
    pt->u.tuple.num_elems = elems.len;
    pt->u.tuple.elems = (MimAstPtrn **)to_array(p, &elems);
    pt->loc = span(p, begin);
    leave(p);
    return pt;
}

/* ---- expressions ----------------------------------------------------------------------- */

static MimAstExpr *parse_primary(Parser *p, const char *ctxt);

static MimAstExpr *parse_expr(Parser *p, const char *ctxt, MimPrec prec) {
    if (!enter(p)) {
        leave(p);
        return error_expr(p);
    }
    MimLoc begin = ahead(p, 0)->loc;
    MimAstExpr *lhs = parse_primary(p, ctxt);
    MimAstExpr *e = parse_infix(p, begin, lhs, prec);
    leave(p);
    return e;
}

static void warn_decl_arg(Parser *p, MimAstExpr *callee) {
    if (silent(p)) return;
    MimLoc l = ahead(p, 0)->loc;
    mim_diag_report(p->fe->diag, MIM_WARNING, l, "you are passing a declaration expression as argument");
    mim_diag_report(p->fe->diag, MIM_NOTE, callee->loc, "to this expression");
    mim_diag_report(p->fe->diag, MIM_NOTE, l,
                    "if this was on purpose, consider putting the declaration expression in parentheses");
    mim_diag_report(p->fe->diag, MIM_NOTE, l, "if this was not on purpose, you probably forgot a ';'");
}

static MimAstExpr *parse_infix(Parser *p, MimLoc begin, MimAstExpr *lhs, MimPrec prec) {
    for (;;) {
        MimTokKind k = kind(p, 0);
        if (k == MIM_TOK_HASH) {
            if (prec >= MIM_PREC_EXTRACT) break;
            advance(p);
            MimAstExpr *e = new_expr(p, MIM_EXPR_EXTRACT, begin);
            e->u.extract.tuple = lhs;
            if (kind(p, 0) == MIM_TOK_ID) {
                MimTok t = lex(p);
                e->u.extract.name = t.v.sym;
                e->u.extract.name_loc = t.loc;
            } else {
                e->u.extract.index = parse_expr(p, "right-hand side of an extract", MIM_PREC_EXTRACT);
            }
            e->loc = span(p, begin);
            lhs = e;
        } else if (k == MIM_TOK_ARROW) {
            if (prec > MIM_PREC_ARROW) break;
            advance(p);
            MimAstExpr *e = new_expr(p, MIM_EXPR_ARROW, begin);
            e->u.arrow.dom = lhs;
            e->u.arrow.codom = parse_expr(p, "right-hand side of a function type", MIM_PREC_ARROW);
            e->loc = span(p, begin);
            lhs = e;
        } else if (k == MIM_TOK_WHERE) {
            /* Absorbed at Bot and at Where, the level of a declaration
             * expression's final expression: in `let x = …; e where D end`
             * the block belongs to `e`, so D is bound and emitted after the
             * `let` and sees x (language.md §6.1: neither opens a scope). */
            if (prec > MIM_PREC_WHERE) break;
            advance(p);
            PtrVec decls = {0};
            parse_decls(p, &decls);
            expect(p, MIM_TOK_END, "where clause");
            MimAstExpr *e = new_expr(p, MIM_EXPR_DECLS, span(p, begin));
            e->u.decls.num_decls = decls.len;
            e->u.decls.decls = (MimAstDecl **)to_array(p, &decls);
            e->u.decls.expr = lhs;
            e->u.decls.is_where = true;
            return e;
        } else if (k == MIM_TOK_AT || can_start_expr(k)) {
            if (prec >= MIM_PREC_APP) break;
            bool is_explicit = accept(p, MIM_TOK_AT);
            if (is_decl_start(kind(p, 0))) warn_decl_arg(p, lhs);
            MimAstExpr *e = new_expr(p, MIM_EXPR_APP, begin);
            e->u.app.callee = lhs;
            e->u.app.is_explicit = is_explicit;
            e->u.app.arg = parse_expr(p, is_explicit ? "explicit argument of an application" : "argument of an application",
                                      MIM_PREC_APP);
            e->loc = span(p, begin);
            lhs = e;
        } else {
            break;
        }
    }
    return lhs;
}

static MimAstExpr *parse_lit(Parser *p) {
    MimTok t = lex(p);
    MimAstExpr *e;
    switch (t.kind) {
    case MIM_TOK_INDEX:
    case MIM_TOK_CHAR:
        e = new_expr(p, MIM_EXPR_IDX_LIT, t.loc);
        e->u.idx_lit.value = t.v.idx.value;
        e->u.idx_lit.size = t.v.idx.size;
        e->u.idx_lit.is_char = t.kind == MIM_TOK_CHAR;
        break;
    case MIM_TOK_STRING:
        e = new_expr(p, MIM_EXPR_STR, t.loc);
        e->u.str.bytes = t.v.bytes;
        e->u.str.len = t.len;
        break;
    default:
        e = new_expr(p, MIM_EXPR_LIT, t.loc);
        e->u.lit.kind = t.kind == MIM_TOK_INT ? MIM_LIT_INT : t.kind == MIM_TOK_FLOAT ? MIM_LIT_FLOAT
                      : t.kind == MIM_TOK_BOT ? MIM_LIT_BOT : MIM_LIT_TOP;
        e->u.lit.is_signed = t.is_signed;
        if (t.kind == MIM_TOK_INT) e->u.lit.bits = t.v.u;
        if (t.kind == MIM_TOK_FLOAT) memcpy(&e->u.lit.bits, &t.v.f, sizeof(double));
    }
    if (accept(p, MIM_TOK_COLON)) {
        MimAstExpr *type = parse_expr(p, "literal", MIM_PREC_LIT);
        if (e->kind == MIM_EXPR_LIT) {
            e->u.lit.type = type;
            e->loc = span(p, t.loc);
        } else if (!silent(p)) {
            mim_diag_report(p->fe->diag, MIM_ERROR, type->loc, "a %s shall not have a type annotation",
                            mim_tok_kind_str(t.kind));
        }
    } else if (t.kind == MIM_TOK_FLOAT && !silent(p)) {
        mim_diag_report(p->fe->diag, MIM_ERROR, t.loc, "type annotation mandatory for floating point literal");
    }
    return e;
}

/* '(' list(expr) ')': `()` unit, `(e)`/`(e,)` = e. */
static MimAstExpr *parse_tuple(Parser *p) {
    MimLoc begin = lex(p).loc;
    PtrVec elems = {0};
    bool comma = false;
    while (kind(p, 0) != MIM_TOK_RPAREN && kind(p, 0) != MIM_TOK_EOF) {
        mim_vec_push(&elems, parse_expr(p, "tuple element", MIM_PREC_BOT));
        if (!accept(p, MIM_TOK_COMMA)) break;
        comma = true;
    }
    expect(p, MIM_TOK_RPAREN, "tuple");
    (void)comma;
    if (elems.len == 1) {
        MimAstExpr *e = elems.data[0];
        mim_vec_free(&elems);
        return e;
    }
    MimAstExpr *e = new_expr(p, MIM_EXPR_TUPLE, span(p, begin));
    e->u.tuple.num_elems = elems.len;
    e->u.tuple.elems = (MimAstExpr **)to_array(p, &elems);
    return e;
}

/* '«' (IDENT ':')? expr ';' expr '»'  and the same with ‹ › */
static MimAstExpr *parse_seq(Parser *p) {
    MimTok open = lex(p);
    bool is_arr = open.kind == MIM_TOK_LARR;
    MimAstExpr *e = new_expr(p, is_arr ? MIM_EXPR_ARR : MIM_EXPR_PACK, open.loc);
    if (kind(p, 0) == MIM_TOK_ID && kind(p, 1) == MIM_TOK_COLON) {
        MimTok t = lex(p);
        advance(p);
        e->u.seq.var = new_binder(p, MIM_BINDER_SEQ, t.v.sym, t.loc, e);
    }
    e->u.seq.shape = parse_expr(p, is_arr ? "shape of an array" : "shape of a pack", MIM_PREC_BOT);
    expect(p, MIM_TOK_SEMI, is_arr ? "array" : "pack");
    e->u.seq.body = parse_expr(p, is_arr ? "body of an array" : "body of a pack", MIM_PREC_BOT);
    expect(p, is_arr ? MIM_TOK_RARR : MIM_TOK_RPACK, is_arr ? "array" : "pack");
    e->loc = span(p, open.loc);
    return e;
}

static MimAstExpr *parse_insert(Parser *p) {
    MimLoc begin = lex(p).loc;
    MimAstExpr *e = new_expr(p, MIM_EXPR_INSERT, begin);
    expect(p, MIM_TOK_LPAREN, "insert expression");
    e->u.insert.tuple = parse_expr(p, "the tuple to insert into", MIM_PREC_BOT);
    expect(p, MIM_TOK_COMMA, "insert expression");
    e->u.insert.index = parse_expr(p, "insert index", MIM_PREC_BOT);
    expect(p, MIM_TOK_COMMA, "insert expression");
    e->u.insert.value = parse_expr(p, "insert value", MIM_PREC_BOT);
    expect(p, MIM_TOK_RPAREN, "insert expression");
    e->loc = span(p, begin);
    return e;
}

/* 'ret' ptrn '=' expr '$' expr ';' expr. The body of a ret is often the
 * next ret: such a chain is read in a loop, not by recursion, so that it is
 * bounded like a chain of lets (parse_decls reads those as a list) and not
 * by the nesting limit. Every ret of the chain ends where the last body
 * ends (a ret's body extends as far as possible: nothing can follow an
 * inner ret that the outer one would take). */
static MimAstExpr *parse_ret(Parser *p) {
    MimAstExpr *first = NULL, *last = NULL;
    do {
        MimAstExpr *e = new_expr(p, MIM_EXPR_RET, lex(p).loc); /* loc: begin, see below */
        e->u.ret.ptrn = parse_ptrn_p(p, "binding pattern of a ret expression", MIM_PREC_BOT);
        expect(p, MIM_TOK_ASSIGN, "ret expression");
        e->u.ret.callee = parse_expr(p, "continuation of a ret expression", MIM_PREC_BOT);
        expect(p, MIM_TOK_DOLLAR, "ret expression");
        e->u.ret.arg = parse_expr(p, "argument of a ret expression", MIM_PREC_BOT);
        expect(p, MIM_TOK_SEMI, "ret expression");
        if (last) last->u.ret.body = e;
        else first = e;
        last = e;
    } while (kind(p, 0) == MIM_TOK_RET);
    last->u.ret.body = parse_expr(p, "body of a ret expression", MIM_PREC_BOT);
    for (MimAstExpr *e = first;; e = e->u.ret.body) {
        e->loc = span(p, e->loc);
        if (e == last) break;
    }
    return first;
}

static MimAstExpr *make_pi(Parser *p, MimLoc begin, MimTokKind tok, PtrVec *doms, MimAstExpr *codom) {
    MimAstExpr *e = new_expr(p, MIM_EXPR_PI, span(p, begin));
    e->u.pi.tok = tok;
    e->u.pi.num_doms = doms->len;
    e->u.pi.doms = (MimAstPtrn **)to_array(p, doms);
    e->u.pi.codom = codom;
    return e;
}

/* Further curried domains of a Pi: each starts with { [ or « */
static void parse_more_pi_doms(Parser *p, PtrVec *doms, MimPrec prec) {
    for (;;) {
        MimTokKind k = kind(p, 0);
        if (k == MIM_TOK_LBRACE || k == MIM_TOK_LBRACKET)
            mim_vec_push(doms, parse_alias(p, parse_tuple_ptrn(p, true)));
        else if (k == MIM_TOK_LARR)
            mim_vec_push(doms, expr_ptrn(p, parse_expr(p, "domain of a function type", prec)));
        else
            break;
    }
}

/* pi-rest ::= dom-b* '→' expr[Arrow] (the first domain is in doms). */
static MimAstExpr *parse_pi_rest(Parser *p, MimLoc begin, MimTokKind tok, PtrVec *doms) {
    parse_more_pi_doms(p, doms, MIM_PREC_PI);
    MimAstExpr *codom;
    if (expect(p, MIM_TOK_ARROW, "function type"))
        codom = parse_expr(p, "codomain of a function type", MIM_PREC_ARROW);
    else
        codom = error_expr(p);
    return make_pi(p, begin, tok, doms, codom);
}

/* '[' … ']' ('as' name)? : a sigma, or the first domain of a Pi. */
static MimAstExpr *parse_sigma_or_pi(Parser *p) {
    MimLoc begin = ahead(p, 0)->loc;
    MimAstPtrn *t = parse_alias(p, parse_tuple_ptrn(p, true));
    MimTokKind k = kind(p, 0);
    if (t->alias || k == MIM_TOK_ARROW || k == MIM_TOK_LBRACE || k == MIM_TOK_LBRACKET || k == MIM_TOK_LARR) {
        PtrVec doms = {0};
        mim_vec_push(&doms, t);
        return parse_pi_rest(p, begin, MIM_TOK_LBRACKET, &doms);
    }
    return sigma_of(p, t);
}

static MimAstExpr *parse_implicit_pi(Parser *p) {
    MimLoc begin = ahead(p, 0)->loc;
    PtrVec doms = {0};
    mim_vec_push(&doms, parse_alias(p, parse_tuple_ptrn(p, true)));
    return parse_pi_rest(p, begin, MIM_TOK_LBRACE, &doms);
}

/* 'Cn' dom+  |  'Fn' dom+ '→' expr[Arrow] */
static MimAstExpr *parse_cn_fn_type(Parser *p) {
    MimTok tok = lex(p);
    bool is_fn = tok.kind == MIM_TOK_FN_TYPE;
    MimPrec prec = is_fn ? MIM_PREC_PI : MIM_PREC_BOT;
    PtrVec doms = {0};
    mim_vec_push(&doms, parse_ptrn_b(p, is_fn ? "domain of a returning continuation type" : "domain of a continuation type",
                                     prec, true));
    parse_more_pi_doms(p, &doms, prec);
    MimAstExpr *codom = NULL;
    if (is_fn) {
        if (expect(p, MIM_TOK_ARROW, "returning continuation type"))
            codom = parse_expr(p, "codomain of a returning continuation type", MIM_PREC_ARROW);
        else
            codom = error_expr(p);
    }
    return make_pi(p, tok.loc, tok.kind, &doms, codom);
}

static MimAstExpr *parse_decl_expr(Parser *p) {
    MimLoc begin = ahead(p, 0)->loc;
    PtrVec decls = {0};
    parse_decls(p, &decls);
    MimAstExpr *e = new_expr(p, MIM_EXPR_DECLS, begin);
    e->u.decls.num_decls = decls.len;
    e->u.decls.decls = (MimAstDecl **)to_array(p, &decls);
    e->u.decls.expr = parse_expr(p, "final expression of a declaration expression", MIM_PREC_WHERE);
    e->loc = span(p, begin);
    return e;
}

static MimAstExpr *parse_primary(Parser *p, const char *ctxt) {
    MimTokKind k = kind(p, 0);
    if (is_builtin(k)) {
        MimTok t = lex(p);
        MimAstExpr *e = new_expr(p, MIM_EXPR_PRIM, t.loc);
        e->u.prim.tok = t.kind;
        return e;
    }
    if (is_decl_start(k)) return parse_decl_expr(p);
    switch (k) {
    case MIM_TOK_TYPE: {
        MimTok t = lex(p);
        MimAstExpr *e = new_expr(p, MIM_EXPR_TYPE, t.loc);
        e->u.type.level = parse_expr(p, "type level", MIM_PREC_APP);
        e->loc = span(p, t.loc);
        return e;
    }
    case MIM_TOK_ID:
    case MIM_TOK_ANNEX: {
        MimTok t = lex(p);
        MimAstExpr *e = new_expr(p, MIM_EXPR_ID, t.loc);
        e->u.id.sym = t.v.sym;
        return e;
    }
    case MIM_TOK_INT: case MIM_TOK_FLOAT: case MIM_TOK_INDEX: case MIM_TOK_CHAR: case MIM_TOK_STRING:
    case MIM_TOK_BOT: case MIM_TOK_TOP:
        return parse_lit(p);
    case MIM_TOK_LBRACE: return parse_implicit_pi(p);
    case MIM_TOK_CN_TYPE:
    case MIM_TOK_FN_TYPE: return parse_cn_fn_type(p);
    case MIM_TOK_LAMBDA:
    case MIM_TOK_CN:
    case MIM_TOK_FN: {
        MimAstFun *f = parse_fun(p, false);
        MimAstExpr *e = new_expr(p, MIM_EXPR_LAMBDA, f->loc);
        e->u.lambda = f;
        return e;
    }
    case MIM_TOK_INS: return parse_insert(p);
    case MIM_TOK_RET: return parse_ret(p);
    case MIM_TOK_LARR:
    case MIM_TOK_LPACK: return parse_seq(p);
    case MIM_TOK_LBRACKET: return parse_sigma_or_pi(p);
    case MIM_TOK_LPAREN: return parse_tuple(p);
    default: {
        syntax_err(p, "primary expression", ctxt);
        MimAstExpr *e = error_expr(p);
        skip_unless_sync(p);
        return e;
    }
    }
}

/* ---- functions -------------------------------------------------------------------- */

static bool is_bare_bool(const MimAstExpr *e, MimTokKind k) {
    return e && e->kind == MIM_EXPR_PRIM && e->u.prim.tok == k;
}

/* ('lam'|'con'|'fun'|'λ'|'cn'|'fn') 'extern'? name? dom+ (':' expr[Arrow])? '=' expr */
static MimAstFun *parse_fun(Parser *p, bool is_decl) {
    MimTok kw = lex(p);
    MimAstFun *f = alloc(p, sizeof *f);
    f->tok = kw.kind;
    f->style = (kw.kind == MIM_TOK_LAM || kw.kind == MIM_TOK_LAMBDA) ? MIM_FUN_DIRECT
             : (kw.kind == MIM_TOK_CON || kw.kind == MIM_TOK_CN)    ? MIM_FUN_CONT
                                                                     : MIM_FUN_RET;
    f->is_extern = accept(p, MIM_TOK_EXTERN);
    const char *ctxt = is_decl ? "function declaration" : "lambda expression";
    if (is_decl) {
        f->name = parse_name(p, MIM_BINDER_FUN, ctxt, true);
        if (f->name) f->name->node = f;
    }
    MimPrec prec = f->style == MIM_FUN_CONT ? MIM_PREC_BOT : MIM_PREC_PI;
    MIM_VEC(MimAstDom) doms = {0};
    bool bare_filter_tok = false;
    do {
        MimAstDom d = {0};
        d.loc = ahead(p, 0)->loc;
        if (kind(p, 0) == MIM_TOK_LBRACE)
            d.ptrn = parse_alias(p, parse_tuple_ptrn(p, false));
        else
            d.ptrn = parse_ptrn_p(p, "domain of a function", prec);
        bare_filter_tok = false;
        if (accept(p, MIM_TOK_AT)) {
            MimTokKind fk = kind(p, 0);
            d.filter = parse_expr(p, "filter", MIM_PREC_BOT);
            bare_filter_tok = fk == MIM_TOK_TT || fk == MIM_TOK_FF;
        }
        d.loc = span(p, d.loc);
        mim_vec_push(&doms, d);
    } while (kind(p, 0) == MIM_TOK_LPAREN || kind(p, 0) == MIM_TOK_LBRACKET || kind(p, 0) == MIM_TOK_LBRACE);

    MimAstDom *last = &doms.data[doms.len - 1];
    MimTokKind redundant = f->style == MIM_FUN_DIRECT ? MIM_TOK_TT : MIM_TOK_FF;
    if (bare_filter_tok && is_bare_bool(last->filter, redundant) && !silent(p))
        mim_diag_report(p->fe->diag, MIM_WARNING, last->filter->loc,
                        "'%s' filter is superfluous: it is the default for the last curried group of a '%s'",
                        mim_tok_kind_str(redundant), mim_tok_kind_str(kw.kind));

    if (accept(p, MIM_TOK_COLON)) {
        MimAstExpr *codom = parse_expr(p, "codomain of a function", MIM_PREC_ARROW);
        if (f->style == MIM_FUN_CONT) {
            if (!silent(p))
                mim_diag_report(p->fe->diag, MIM_ERROR, codom->loc, "a continuation shall not have a codomain");
        } else {
            f->codom = codom;
        }
    }
    if (f->style == MIM_FUN_RET) f->ret = new_binder(p, MIM_BINDER_RETURN, p->sym_return, last->loc, f);
    f->num_doms = doms.len;
    f->doms = alloc(p, doms.len * sizeof *f->doms);
    memcpy(f->doms, doms.data, doms.len * sizeof *f->doms);
    mim_vec_free(&doms);
    if (expect(p, MIM_TOK_ASSIGN, ctxt))
        f->body = parse_expr(p, is_decl ? "body of a function declaration" : "body of a lambda expression", MIM_PREC_BOT);
    else
        f->body = error_expr(p);
    f->loc = span(p, kw.loc);
    return f;
}

/* ---- declarations ------------------------------------------------------------------ */

static MimAstDecl *parse_fun_decl(Parser *p) {
    MimLoc begin = ahead(p, 0)->loc;
    MimAstDecl *d = new_decl(p, MIM_DECL_FUN, begin);
    d->u.fun = parse_fun(p, true);
    d->loc = span(p, begin);
    return d;
}

static bool is_rec_body(const MimAstExpr *e) {
    return e->kind == MIM_EXPR_LAMBDA || e->kind == MIM_EXPR_PI || e->kind == MIM_EXPR_ARROW ||
           e->kind == MIM_EXPR_SIGMA || e->kind == MIM_EXPR_ERROR;
}

/* name (':' expr)? '=' expr   (after 'rec' or in an and-tail) */
static MimAstDecl *parse_rec_rest(Parser *p, MimLoc begin) {
    MimAstDecl *d = new_decl(p, MIM_DECL_REC, begin);
    d->u.rec.name = parse_name(p, MIM_BINDER_REC, "recursive declaration", true);
    if (d->u.rec.name) d->u.rec.name->node = d;
    if (accept(p, MIM_TOK_COLON)) d->u.rec.type = parse_expr(p, "type of a recursive declaration", MIM_PREC_BOT);
    if (expect(p, MIM_TOK_ASSIGN, "recursive declaration")) {
        MimAstExpr *body = parse_expr(p, "body of a recursive declaration", MIM_PREC_BOT);
        d->u.rec.body = body;
        if (!is_rec_body(body) && !silent(p))
            mim_diag_report(p->fe->diag, MIM_ERROR, body->loc, "unsupported expression for a recursive declaration");
        else if (body->kind == MIM_EXPR_LAMBDA && d->u.rec.type && !silent(p))
            mim_diag_report(p->fe->diag, MIM_WARNING, d->u.rec.type->loc,
                            "type of recursive declaration ignored since it is a lambda expression");
    } else {
        d->u.rec.body = error_expr(p);
    }
    d->loc = span(p, begin);
    return d;
}

/* and-tail*: links the chain through `next` (iteratively). */
static void parse_and_tail(Parser *p, MimAstDecl *head) {
    MimAstDecl *tail = head;
    while (kind(p, 0) == MIM_TOK_AND) {
        MimLoc begin = lex(p).loc;
        MimTokKind k = kind(p, 0);
        MimAstDecl *d = (k == MIM_TOK_LAM || k == MIM_TOK_CON || k == MIM_TOK_FUN) ? parse_fun_decl(p)
                                                                                 : parse_rec_rest(p, begin);
        tail->next = d;
        tail = d;
    }
}

/* Full name `%p.t.<spelling>` of an axiom sub-tag. */
static MimSym subtag_sym(Parser *p, MimSym annex, MimSym spelling) {
    size_t a = strlen(annex), s = strlen(spelling);
    char *buf = mim_xmalloc(a + s + 2);
    memcpy(buf, annex, a);
    buf[a] = '.';
    memcpy(buf + a + 1, spelling, s + 1);
    MimSym r = mim_world_sym(p->fe->world, buf);
    free(buf);
    return r;
}

static MimAstDecl *parse_axm(Parser *p) {
    MimLoc begin = lex(p).loc;
    MimAstDecl *d = new_decl(p, MIM_DECL_AXM, begin);
    MimSym name = NULL;
    if (kind(p, 0) == MIM_TOK_ANNEX) {
        MimTok t = lex(p);
        name = t.v.sym;
        d->u.axm.name = new_binder(p, MIM_BINDER_AXIOM, name, t.loc, d);
    } else {
        syntax_err(p, "annex name", "axiom");
    }
    if (accept(p, MIM_TOK_LPAREN)) {
        MIM_VEC(MimAstSub) subs = {0};
        while (kind(p, 0) != MIM_TOK_RPAREN && kind(p, 0) != MIM_TOK_EOF) {
            PtrVec names = {0};
            do {
                if (kind(p, 0) != MIM_TOK_ID) {
                    syntax_err(p, "identifier", "sub-tag of an axiom");
                    break;
                }
                MimTok t = lex(p);
                MimSym full = name ? subtag_sym(p, name, t.v.sym) : t.v.sym;
                mim_vec_push(&names, new_binder(p, MIM_BINDER_SUBTAG, full, t.loc, d));
            } while (accept(p, MIM_TOK_ASSIGN));
            if (names.len) {
                MimAstSub s = {0};
                s.num_names = names.len;
                s.names = (MimBinder **)to_array(p, &names);
                mim_vec_push(&subs, s);
            } else {
                mim_vec_free(&names);
                skip_unless_sync(p);
            }
            if (!accept(p, MIM_TOK_COMMA)) break;
        }
        expect(p, MIM_TOK_RPAREN, "sub-tags of an axiom");
        d->u.axm.num_subs = subs.len;
        d->u.axm.subs = subs.len ? alloc(p, subs.len * sizeof *subs.data) : NULL;
        if (subs.len) memcpy(d->u.axm.subs, subs.data, subs.len * sizeof *subs.data);
        mim_vec_free(&subs);
    }
    if (expect(p, MIM_TOK_COLON, "axiom"))
        d->u.axm.type = parse_expr(p, "type of an axiom", MIM_PREC_BOT);
    else
        d->u.axm.type = error_expr(p);
    if (kind(p, 0) == MIM_TOK_COMMA && kind(p, 1) == MIM_TOK_ID) {
        advance(p);
        MimTok t = lex(p);
        d->u.axm.normalizer = t.v.sym;
        d->u.axm.normalizer_loc = t.loc;
    }
    if (accept(p, MIM_TOK_COMMA)) {
        if (kind(p, 0) == MIM_TOK_INT) {
            d->u.axm.has_curry = true;
            d->u.axm.curry = lex(p).v.u;
            if (accept(p, MIM_TOK_COMMA)) {
                if (kind(p, 0) == MIM_TOK_INT) {
                    d->u.axm.has_trip = true;
                    d->u.axm.trip = lex(p).v.u;
                } else {
                    syntax_err(p, "trip count", "axiom");
                }
            }
        } else {
            syntax_err(p, "curry counter", "axiom");
        }
    }
    d->loc = span(p, begin);
    return d;
}

static MimAstDecl *parse_let(Parser *p) {
    MimLoc begin = lex(p).loc;
    MimAstDecl *d = new_decl(p, MIM_DECL_LET, begin);
    if (kind(p, 0) == MIM_TOK_ANNEX) {
        MimTok t = lex(p);
        MimAstExpr *type = NULL;
        if (accept(p, MIM_TOK_COLON)) type = parse_expr(p, "type of a let declaration", MIM_PREC_BOT);
        d->u.let.ptrn = id_ptrn(p, t, type);
    } else {
        d->u.let.ptrn = parse_ptrn_p(p, "binding pattern of a let declaration", MIM_PREC_BOT);
    }
    if (expect(p, MIM_TOK_ASSIGN, "let declaration")) {
        if (accept(p, MIM_TOK_COLON)) d->u.let.post_type = parse_expr(p, "type ascription of a let value", MIM_PREC_APP);
        d->u.let.value = parse_expr(p, "value of a let declaration", MIM_PREC_BOT);
    } else {
        d->u.let.value = error_expr(p);
    }
    d->loc = span(p, begin);
    return d;
}

/* 'ccon' IDENT ptrn-b[App]  |  'cfun' IDENT ptrn-b[App] ':' expr */
static MimAstDecl *parse_cdecl(Parser *p) {
    MimTok kw = lex(p);
    MimAstDecl *d = new_decl(p, MIM_DECL_CDECL, kw.loc);
    d->u.cdecl.tok = kw.kind;
    d->u.cdecl.name = parse_name(p, MIM_BINDER_CDECL, "C function declaration", false);
    if (d->u.cdecl.name) d->u.cdecl.name->node = d;
    d->u.cdecl.dom = parse_ptrn_b(p, "domain of a C function declaration", MIM_PREC_APP, false);
    if (kw.kind == MIM_TOK_CFUN) {
        if (expect(p, MIM_TOK_COLON, "C function declaration"))
            d->u.cdecl.codom = parse_expr(p, "codomain of a C function declaration", MIM_PREC_BOT);
        else
            d->u.cdecl.codom = error_expr(p);
    }
    d->loc = span(p, kw.loc);
    return d;
}

static MimAstDecl *parse_decl(Parser *p) {
    MimAstDecl *d;
    switch (kind(p, 0)) {
    case MIM_TOK_AXM: return parse_axm(p);
    case MIM_TOK_LET: return parse_let(p);
    case MIM_TOK_CCON:
    case MIM_TOK_CFUN: return parse_cdecl(p);
    case MIM_TOK_REC: {
        MimLoc begin = lex(p).loc;
        d = parse_rec_rest(p, begin);
        break;
    }
    default: d = parse_fun_decl(p); break;
    }
    parse_and_tail(p, d);
    return d;
}

/* The next declaration of decls ::= ( ';' | decl )*, NULL at the end. */
static MimAstDecl *parse_next_decl(Parser *p) {
    while (accept(p, MIM_TOK_SEMI)) continue;
    if (!is_decl_start(kind(p, 0))) return NULL;
    MimAstDecl *d = enter(p) ? parse_decl(p) : NULL;
    leave(p);
    return d;
}

static void parse_decls(Parser *p, PtrVec *out) {
    for (MimAstDecl *d; (d = parse_next_decl(p));) mim_vec_push(out, d);
}

/* ---- modules ---------------------------------------------------------------------------- */

static void parse_imports(Parser *p, MimAstModule *m) {
    MIM_VEC(MimAstImport) imports = {0};
    while (kind(p, 0) == MIM_TOK_IMPORT || kind(p, 0) == MIM_TOK_PLUGIN) {
        MimTok kw = lex(p);
        const char *ctxt = kw.kind == MIM_TOK_IMPORT ? "import directive" : "plugin directive";
        if (kind(p, 0) != MIM_TOK_ID) {
            syntax_err(p, "identifier", ctxt);
            skip_unless_sync(p);
            accept(p, MIM_TOK_SEMI);
            continue;
        }
        MimTok name = lex(p);
        expect(p, MIM_TOK_SEMI, ctxt);
        MimAstImport imp = {kw.kind, name.v.sym, name.loc, NULL};
        if (!silent(p)) imp.module = mim_fe_import_(p->fe, kw.kind, name.v.sym, name.loc);
        mim_vec_push(&imports, imp);
    }
    m->num_imports = imports.len;
    m->imports = imports.len ? alloc(p, imports.len * sizeof *imports.data) : NULL;
    if (imports.len) memcpy(m->imports, imports.data, imports.len * sizeof *imports.data);
    mim_vec_free(&imports);
}

/* ---- top-level binders ------------------------------------------------------------------ */

static void ptrn_binder_slots(MimAstPtrn *pt, MimBinderSlotFn fn, void *user) {
    if (!pt) return;
    switch (pt->kind) {
    case MIM_PTRN_ID: fn(user, &pt->u.id.binder); break;
    case MIM_PTRN_GROUP:
        for (size_t i = 0; i < pt->u.group.num_members; ++i) fn(user, &pt->u.group.members[i]);
        break;
    case MIM_PTRN_TUPLE:
        for (size_t i = 0; i < pt->u.tuple.num_elems; ++i) ptrn_binder_slots(pt->u.tuple.elems[i], fn, user);
        break;
    default: break;
    }
    if (pt->alias) fn(user, &pt->alias);
}

void mim_ast_top_binder_slots(MimAstDecl *d, MimBinderSlotFn fn, void *user) {
    switch (d->kind) {
    case MIM_DECL_AXM:
        if (d->u.axm.num_subs == 0) fn(user, &d->u.axm.name);
        for (size_t i = 0; i < d->u.axm.num_subs; ++i)
            for (size_t k = 0; k < d->u.axm.subs[i].num_names; ++k) fn(user, &d->u.axm.subs[i].names[k]);
        break;
    case MIM_DECL_LET: ptrn_binder_slots(d->u.let.ptrn, fn, user); break;
    case MIM_DECL_FUN:
    case MIM_DECL_REC:
        for (MimAstDecl *c = d; c; c = c->next) fn(user, c->kind == MIM_DECL_FUN ? &c->u.fun->name : &c->u.rec.name);
        break;
    case MIM_DECL_CDECL: fn(user, &d->u.cdecl.name); break;
    }
}

/* ---- streaming the input ----------------------------------------------------------------- */

/* A top-level binder outlives its declaration's nodes (later declarations
 * use it): it moves from the scratch arena to the front end's. */
static void persist(void *parser, MimBinder **slot) {
    Parser *p = parser;
    if (!*slot) return;
    MimBinder *b = mim_arena_alloc_aligned(&p->fe->arena, sizeof *b, AST_ALIGN);
    *b = **slot;
    *slot = b;
    mim_vec_push(&p->fe->stream_binders, b);
}

/* Bytes of syntax tree parsed before the declarations are handed on. One
 * declaration at a time interleaves parsing, binding and emission so
 * finely that their code evicts each other from the instruction cache; a
 * whole batch still stays in the (1 MiB) second-level cache until it is
 * emitted. Simulated (cachegrind, bench/frontend at 10^4 declarations,
 * 1 MiB last level), I1/D1/L2 misses in millions: all at once (no
 * streaming) 4.0/14.9/9.8; one at a time 10.0/16.7/5.7; 256 KiB 5.2/17.1/
 * 6.1; 1 MiB 5.1/17.1/9.9. A batch fits the scratch arena's chunk (a 2 MiB
 * huge page once warm: arena.c) with the declaration that crosses the
 * limit, so the chunk is reused. */
enum { STREAM_BATCH = 256 << 10 };

/* decls ::= ( ';' | decl )*  at the top of a streamed module: declarations
 * are parsed into the scratch arena and handed on in batches (bound and
 * emitted: fe.c), then dropped, so their memory serves the next batch. */
static void parse_decls_streamed(Parser *p, MimAstModule *m) {
    MimFe *fe = p->fe;
    PtrVec batch = {0};
    for (;;) {
        p->ast = &fe->scratch;
        MimAstDecl *d = parse_next_decl(p);
        p->ast = &fe->arena;
        if (!d) break;
        mim_ast_top_binder_slots(d, persist, p);
        mim_vec_push(&batch, d);
        if (fe->scratch.total >= STREAM_BATCH) {
            mim_fe_stream_decls_(fe, m, (MimAstDecl **)batch.data, batch.len);
            batch.len = 0;
            mim_arena_reset(&fe->scratch);
        }
    }
    mim_fe_stream_decls_(fe, m, (MimAstDecl **)batch.data, batch.len);
    mim_vec_free(&batch);
    mim_arena_reset(&fe->scratch);
}

MimAstModule *mim_parse_module_(MimFe *fe, const char *path, const char *text, size_t len, FILE *md, bool stream) {
    Parser p;
    memset(&p, 0, sizeof p);
    p.fe = fe;
    p.file = path;
    p.ast = &fe->arena;
    p.sym_anon = mim_world_sym(fe->world, "_");
    p.sym_return = mim_world_sym(fe->world, "return");
    mim_lexer_init(&p.lx, fe->world, &fe->arena, fe->diag, path, text, len, md);
    for (int i = 0; i < LOOKAHEAD; ++i) next_tok(&p, ahead(&p, i));

    MimAstModule *m = alloc(&p, sizeof *m);
    m->path = path;
    m->text_len = len;
    parse_imports(&p, m);
    PtrVec decls = {0};
    if (stream) parse_decls_streamed(&p, m);
    else parse_decls(&p, &decls);
    if (kind(&p, 0) != MIM_TOK_EOF) {
        syntax_err_tok(&p, MIM_TOK_EOF, "module");
        if (kind(&p, 0) == MIM_TOK_WHERE && !silent(&p))
            mim_diag_report(fe->diag, MIM_NOTE, ahead(&p, 0)->loc,
                            "did you accidentally end your declaration expression with a ';'?");
    }
    m->num_decls = decls.len;
    m->decls = (MimAstDecl **)to_array(&p, &decls);
    /* drain the lexer so the Markdown echo sees the whole file */
    if (md)
        while (!p.aborted && !fe->fatal && kind(&p, LOOKAHEAD - 1) != MIM_TOK_EOF) advance(&p);
    mim_lexer_fini(&p.lx);
    return m;
}
