/* --output-ast: a debugging rendering of the parsed input (output-format.md
 * §9). Only the general shape matters; forms follow the reference printer. */
#include "fe/fe_impl.h"

#include <inttypes.h>
#include <string.h>

typedef struct Printer {
    FILE *out;
    unsigned indent;
} Printer;

static void expr(Printer *p, const MimAstExpr *e);
static void ptrn(Printer *p, const MimAstPtrn *pt);
static void decl(Printer *p, const MimAstDecl *d);
static void decl_one(Printer *p, const MimAstDecl *d);

static void newline(Printer *p) {
    fputc('\n', p->out);
    for (unsigned i = 0; i < p->indent; ++i) fputs("    ", p->out);
}

static void sym(Printer *p, const MimBinder *b) { fputs(b ? b->sym : "<error>", p->out); }

/* Printed form of an index literal (output-format.md §5.1, UTF-8 mode). */
static void idx_lit(Printer *p, uint64_t v, uint64_t s) {
    if (s == 2) {
        fputs(v ? "tt" : "ff", p->out);
        return;
    }
    fprintf(p->out, "%" PRIu64, v);
    switch (s) {
    case 256: fputs("I8", p->out); return;
    case 65536: fputs("I16", p->out); return;
    case 4294967296ull: fputs("I32", p->out); return;
    case 0: fputs("I64", p->out); return;
    default: break;
    }
    char digits[24];
    snprintf(digits, sizeof digits, "%" PRIu64, s);
    for (char *c = digits; *c; ++c) fprintf(p->out, "\xe2\x82%c", (char)(0x80 + (*c - '0')));
}

static void lit(Printer *p, const MimAstExpr *e) {
    switch (e->u.lit.kind) {
    case MIM_LIT_INT:
        if (e->u.lit.is_signed) fprintf(p->out, "%" PRId64, (int64_t)e->u.lit.bits);
        else fprintf(p->out, "%" PRIu64, e->u.lit.bits);
        break;
    case MIM_LIT_FLOAT: {
        double d;
        memcpy(&d, &e->u.lit.bits, sizeof d);
        fprintf(p->out, "%g", d);
        break;
    }
    default: fputs("TODO", p->out); return;
    }
    if (e->u.lit.type) {
        fputs(": ", p->out);
        expr(p, e->u.lit.type);
    }
}

static const char *tuple_close(char open) { return open == '(' ? ")" : open == '[' ? "]" : "}"; }

static void ptrn(Printer *p, const MimAstPtrn *pt) {
    switch (pt->kind) {
    case MIM_PTRN_ERROR: fputs("<error pattern>", p->out); break;
    case MIM_PTRN_ID:
        sym(p, pt->u.id.binder);
        if (pt->u.id.type) {
            fputs(": ", p->out);
            expr(p, pt->u.id.type);
        }
        break;
    case MIM_PTRN_EXPR: expr(p, pt->u.expr.type); break;
    case MIM_PTRN_GROUP:
        for (size_t i = 0; i < pt->u.group.num_members; ++i) {
            if (i) fputs(", ", p->out);
            sym(p, pt->u.group.members[i]);
        }
        fputs(": ", p->out);
        expr(p, pt->u.group.type);
        break;
    case MIM_PTRN_TUPLE:
        fputc(pt->u.tuple.delim, p->out);
        for (size_t i = 0; i < pt->u.tuple.num_elems; ++i) {
            if (i) fputs(", ", p->out);
            ptrn(p, pt->u.tuple.elems[i]);
        }
        fputs(tuple_close(pt->u.tuple.delim), p->out);
        break;
    }
    if (pt->alias) {
        fputs(": ", p->out);
        sym(p, pt->alias);
    }
}

/* A function: `kw name` + groups + codomain + body (decls: `kw name …;`). */
static void fun(Printer *p, const MimAstFun *f) {
    fputs(mim_tok_kind_str(f->tok), p->out);
    if (f->is_extern) fputs(" extern", p->out);
    if (f->name) {
        fputc(' ', p->out);
        sym(p, f->name);
    }
    if (f->num_doms && f->doms[0].ptrn->kind != MIM_PTRN_TUPLE) fputc(' ', p->out);
    for (size_t i = 0; i < f->num_doms; ++i) {
        const MimAstDom *d = &f->doms[i];
        if (mim_ptrn_is_implicit(d->ptrn)) fputc('.', p->out);
        ptrn(p, d->ptrn);
        if (d->filter) {
            fputs("@(", p->out);
            expr(p, d->filter);
            fputc(')', p->out);
        }
        if (f->style == MIM_FUN_RET && i + 1 == f->num_doms && f->codom) {
            fputs(": ", p->out);
            expr(p, f->codom);
        }
    }
    if (f->style == MIM_FUN_DIRECT && f->codom) {
        fputs(": ", p->out);
        expr(p, f->codom);
    }
    if (f->body && f->body->kind == MIM_EXPR_DECLS && !f->body->u.decls.is_where) {
        fputs(" =", p->out);
        p->indent++;
        newline(p);
        expr(p, f->body);
        p->indent--;
    } else {
        fputs(" = ", p->out);
        if (f->body) expr(p, f->body);
    }
    fputc(';', p->out);
}

static void pi(Printer *p, const MimAstExpr *e) {
    if (e->u.pi.tok == MIM_TOK_CN_TYPE || e->u.pi.tok == MIM_TOK_FN_TYPE) {
        fputs(mim_tok_kind_str(e->u.pi.tok), p->out);
        fputc(' ', p->out);
    }
    for (size_t i = 0; i < e->u.pi.num_doms; ++i) {
        const MimAstPtrn *d = e->u.pi.doms[i];
        if (mim_ptrn_is_implicit(d)) fputc('.', p->out);
        ptrn(p, d);
    }
    if (e->u.pi.codom) {
        fputs(" -> ", p->out);
        expr(p, e->u.pi.codom);
    }
}

static void expr(Printer *p, const MimAstExpr *e) {
    switch (e->kind) {
    case MIM_EXPR_ERROR: fputs("<error expression>", p->out); break;
    case MIM_EXPR_HOLE: fputs("<infer>", p->out); break;
    case MIM_EXPR_ID: fputs(e->u.id.sym, p->out); break;
    case MIM_EXPR_PRIM: fputs(mim_tok_kind_str(e->u.prim.tok), p->out); break;
    case MIM_EXPR_LIT: lit(p, e); break;
    case MIM_EXPR_IDX_LIT:
        if (e->u.idx_lit.is_char) fputs("TODO", p->out);
        else idx_lit(p, e->u.idx_lit.value, e->u.idx_lit.size);
        break;
    case MIM_EXPR_STR: fputs("TODO", p->out); break;
    case MIM_EXPR_TYPE:
        fputs("(Type ", p->out);
        expr(p, e->u.type.level);
        fputc(')', p->out);
        break;
    case MIM_EXPR_APP:
        expr(p, e->u.app.callee);
        fputs(e->u.app.is_explicit ? " @ " : "  ", p->out);
        expr(p, e->u.app.arg);
        break;
    case MIM_EXPR_ARROW:
        expr(p, e->u.arrow.dom);
        fputs(" -> ", p->out);
        expr(p, e->u.arrow.codom);
        break;
    case MIM_EXPR_PI: pi(p, e); break;
    case MIM_EXPR_LAMBDA:
        fun(p, e->u.lambda);
        fputc(';', p->out);
        break;
    case MIM_EXPR_TUPLE:
        fputc('(', p->out);
        for (size_t i = 0; i < e->u.tuple.num_elems; ++i) {
            if (i) fputs(", ", p->out);
            expr(p, e->u.tuple.elems[i]);
        }
        fputc(')', p->out);
        break;
    case MIM_EXPR_SIGMA: ptrn(p, e->u.sigma.ptrn); break;
    case MIM_EXPR_ARR:
    case MIM_EXPR_PACK:
        fputs(e->kind == MIM_EXPR_ARR ? "«" : "‹", p->out);
        if (e->u.seq.var) {
            sym(p, e->u.seq.var);
            fputs(": ", p->out);
        }
        expr(p, e->u.seq.shape);
        fputs("; ", p->out);
        expr(p, e->u.seq.body);
        fputs(e->kind == MIM_EXPR_ARR ? "»" : "›", p->out);
        break;
    case MIM_EXPR_EXTRACT:
        expr(p, e->u.extract.tuple);
        fputc('#', p->out);
        if (e->u.extract.index) expr(p, e->u.extract.index);
        else fputs(e->u.extract.name, p->out);
        break;
    case MIM_EXPR_INSERT:
        fputs("ins(", p->out);
        expr(p, e->u.insert.tuple);
        fputs(", ", p->out);
        expr(p, e->u.insert.index);
        fputs(", ", p->out);
        expr(p, e->u.insert.value);
        fputc(')', p->out);
        break;
    case MIM_EXPR_RET:
        fputs("ret ", p->out);
        ptrn(p, e->u.ret.ptrn);
        fputs(" = ", p->out);
        expr(p, e->u.ret.callee);
        fputs(" $ ", p->out);
        expr(p, e->u.ret.arg);
        fputc(';', p->out);
        p->indent++; /* "newline, indented body" (output-format.md §9) */
        newline(p);
        expr(p, e->u.ret.body);
        p->indent--;
        break;
    case MIM_EXPR_DECLS:
        if (e->u.decls.is_where) {
            expr(p, e->u.decls.expr);
            fputs(" where", p->out);
            p->indent++;
            for (size_t i = 0; i < e->u.decls.num_decls; ++i) {
                newline(p);
                decl(p, e->u.decls.decls[i]);
            }
            p->indent--;
        } else {
            for (size_t i = 0; i < e->u.decls.num_decls; ++i) {
                decl(p, e->u.decls.decls[i]);
                newline(p);
            }
            expr(p, e->u.decls.expr);
        }
        break;
    }
}

static void axm(Printer *p, const MimAstDecl *d) {
    fputs("axm ", p->out);
    sym(p, d->u.axm.name);
    if (d->u.axm.num_subs) {
        fputc('(', p->out);
        size_t prefix = d->u.axm.name ? strlen(d->u.axm.name->sym) + 1 : 0;
        for (size_t i = 0; i < d->u.axm.num_subs; ++i) {
            const MimAstSub *s = &d->u.axm.subs[i];
            if (i) fputs(", ", p->out);
            for (size_t j = 0; j < s->num_names; ++j) {
                if (j) fputs(" = ", p->out);
                const char *n = s->names[j]->sym;
                fputs(strlen(n) > prefix ? n + prefix : n, p->out);
            }
        }
        fputc(')', p->out);
    }
    fputs(": ", p->out);
    expr(p, d->u.axm.type);
    if (d->u.axm.normalizer) fprintf(p->out, ", %s", d->u.axm.normalizer);
    if (d->u.axm.has_curry) fprintf(p->out, ", %s", mim_tok_kind_str(MIM_TOK_INT));
    if (d->u.axm.has_trip) fprintf(p->out, ", %s", mim_tok_kind_str(MIM_TOK_INT));
    fputc(';', p->out);
}

/* A declaration and its `and` chain (iteratively: chains may be long). */
static void decl(Printer *p, const MimAstDecl *d) {
    for (bool first = true; d; d = d->next, first = false) {
        if (!first) {
            newline(p);
            fputs("and ", p->out);
        }
        decl_one(p, d);
    }
}

static void decl_one(Printer *p, const MimAstDecl *d) {
    switch (d->kind) {
    case MIM_DECL_AXM: axm(p, d); break;
    case MIM_DECL_LET:
        fputs("let ", p->out);
        ptrn(p, d->u.let.ptrn);
        fputs(" = ", p->out);
        expr(p, d->u.let.value);
        fputc(';', p->out);
        break;
    case MIM_DECL_FUN: fun(p, d->u.fun); break;
    case MIM_DECL_REC:
        fputs(".rec ", p->out);
        sym(p, d->u.rec.name);
        if (d->u.rec.type) {
            fputs(": ", p->out);
            expr(p, d->u.rec.type);
        }
        fputs(" = ", p->out);
        expr(p, d->u.rec.body);
        fputc(';', p->out);
        break;
    case MIM_DECL_CDECL:
        sym(p, d->u.cdecl.name);
        fprintf(p->out, " %s ", mim_tok_kind_str(d->u.cdecl.tok));
        ptrn(p, d->u.cdecl.dom);
        if (d->u.cdecl.codom) {
            fputs(": ", p->out);
            expr(p, d->u.cdecl.codom);
        }
        break;
    }
}

void mim_ast_print_expr(const MimAstExpr *e, FILE *out) {
    Printer p = {out, 0};
    expr(&p, e);
}

void mim_ast_print_module(const MimAstModule *m, FILE *out) {
    Printer p = {out, 0};
    for (size_t i = 0; i < m->num_imports; ++i)
        fprintf(out, "%s 'TODO';\n", m->imports[i].tok == MIM_TOK_PLUGIN ? "plugin" : "import");
    for (size_t i = 0; i < m->num_decls; ++i) {
        decl(&p, m->decls[i]);
        fputc('\n', out);
    }
}
