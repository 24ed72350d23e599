/* The abstract syntax tree of Mim (language.md §3) and the contract between
 * the front end (parser, binder) and the emitter (src/fe/emit.c).
 *
 * OWNERSHIP. Every AST node, binder record and array below lives in the
 * front end's arena (MimFe) and is freed with it. Arrays are `T *xs` plus
 * `size_t num_xs`. The emitter may write only the `def` slots of MimBinder
 * (and MimAnnex.user), nothing else.
 *
 * LOCATIONS. Every node has `loc`, the range from its first to its last
 * character (file = path of the module as opened).
 *
 * BINDERS. Each *binding occurrence* of a name (a pattern identifier, an
 * alias after `as`, a function/rec/C-declaration name, an axiom name or
 * sub-tag spelling, the implicit `return` of fun/fn, the variable of
 * «i: n; T» / ‹i: n; e›) owns exactly one MimBinder record. After binding
 * (mim_fe_bind), every *use* of a name (MIM_EXPR_ID) points to the binder it
 * denotes: `expr->id.binder`. The emitter emits a binding construct by
 * storing the node the name denotes into `binder->def` *before* emitting the
 * code in which the name is visible; a use then simply reads
 * `expr->id.binder->def`. Constructs that are emitted several times with
 * different meanings of the same names (function domains: once per Pi of the
 * chain, then for the Lam, language.md §5.5 / semantics.md §13) just
 * overwrite `def` each time: the slot always holds the *current* meaning.
 * Since `let`/`ret` rebinding creates a new binder per occurrence, uses after
 * `let mem = …; let mem = …;` point to the right one.
 *
 * A name that was not found is bound to a per-name dummy binder
 * (kind MIM_BINDER_DUMMY, def NULL); this only happens in erroneous programs,
 * which are never emitted (binding errors stop the run before emission).
 *
 * `_` never binds: an anonymous pattern identifier has `binder->anon == true`
 * (the emitter may still store a def there; nobody reads it).
 *
 * EXTRACTION BY NAME `e#x` (language.md §6.4): the binder records both
 * candidates: `extract.name` (the field name) and `extract.var` (the binder
 * of a variable `x` visible at that point, or NULL if none). The emitter
 * decides by the type of `e` (named mutable sigma with field `x` → field,
 * else the variable, else `cannot resolve index 'x' for extraction`).
 *
 * ANNEXES: see MimAnnex at the end; declarations of annexes point to their
 * MimAnnex record and sub-tag number. */
#ifndef MIM_FE_AST_H
#define MIM_FE_AST_H

#include "fe/token.h"
#include "mim/def.h"
#include "mim/loc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct MimAstExpr MimAstExpr;
typedef struct MimAstPtrn MimAstPtrn;
typedef struct MimAstDecl MimAstDecl;
typedef struct MimAstFun MimAstFun;
typedef struct MimAstModule MimAstModule;
typedef struct MimBinder MimBinder;
typedef struct MimAnnex MimAnnex;

/* ---- binder records ---------------------------------------------------- */

typedef enum MimBinderKind {
    MIM_BINDER_PTRN,   /* identifier of a pattern (let, ret, parameter, sigma/Pi element, group member) */
    MIM_BINDER_ALIAS,  /* `p as x` */
    MIM_BINDER_FUN,    /* name of lam/con/fun declaration (may be an annex name) */
    MIM_BINDER_REC,    /* name of a rec declaration or of an `and name = e` tail */
    MIM_BINDER_AXIOM,  /* axm %p.t without sub-tags: the name %p.t */
    MIM_BINDER_SUBTAG, /* axm %p.t(s = a): the full names %p.t.s and %p.t.a */
    MIM_BINDER_CDECL,  /* ccon/cfun name */
    MIM_BINDER_RETURN, /* the implicit `return` of the last group of fun/fn */
    MIM_BINDER_SEQ,    /* the index variable i of «i: n; T» / ‹i: n; e› */
    MIM_BINDER_DUMMY,  /* stands for a name that was not found */
} MimBinderKind;

struct MimBinder {
    MimBinderKind kind;
    bool anon;      /* the name is `_`: binds nothing */
    MimSym sym;     /* the (interned) name; for sub-tags the full `%p.t.s` */
    MimLoc loc;     /* the name's location */
    MimDef *def;    /* EMITTER-OWNED slot: the node this name currently denotes */
    void *node;     /* the AST node that introduces the binder (MimAstPtrn*, MimAstDecl*,
                       MimAstExpr* for SEQ, MimAstFun* for RETURN), NULL for DUMMY */
};

/* ---- expressions -------------------------------------------------------- */

/* Precedence levels (language.md §4), weakest first. */
typedef enum MimPrec {
    MIM_PREC_BOT, MIM_PREC_WHERE, MIM_PREC_ARROW, MIM_PREC_PI, MIM_PREC_APP,
    MIM_PREC_EXTRACT, MIM_PREC_LIT
} MimPrec;

typedef enum MimExprKind {
    MIM_EXPR_ERROR,   /* placeholder after a syntax error (never emitted) */
    MIM_EXPR_HOLE,    /* an omitted type to be inferred (not produced by the parser today) */
    MIM_EXPR_ID,      /* use of an identifier or annex name: id */
    MIM_EXPR_PRIM,    /* builtin keyword: prim (Univ Nat Idx Bool ff tt i1..i64 I1..I64 * □) */
    MIM_EXPR_LIT,     /* INT / FLOAT / ⊥ / ⊤ with optional ascription: lit */
    MIM_EXPR_IDX_LIT, /* index or character literal: idx_lit (never ascribed) */
    MIM_EXPR_STR,     /* string literal: str (never ascribed) */
    MIM_EXPR_TYPE,    /* Type l: type.level */
    MIM_EXPR_APP,     /* f a / f @ a: app */
    MIM_EXPR_ARROW,   /* A → B: arrow */
    MIM_EXPR_PI,      /* [..] → B, {..} → B, Cn .., Fn .. → R: pi */
    MIM_EXPR_LAMBDA,  /* λ / cn / fn expression: lambda (a MimAstFun with name NULL) */
    MIM_EXPR_TUPLE,   /* (e1, ..., en), n != 1: tuple; `(e)` is returned as e itself */
    MIM_EXPR_SIGMA,   /* [..] (not followed by a Pi): sigma.ptrn, a '[' tuple pattern */
    MIM_EXPR_ARR,     /* «i: n; T»: seq */
    MIM_EXPR_PACK,    /* ‹i: n; e›: seq */
    MIM_EXPR_EXTRACT, /* e#i / e#x: extract */
    MIM_EXPR_INSERT,  /* ins(t, i, v): insert */
    MIM_EXPR_RET,     /* ret p = f $ a; body: ret */
    MIM_EXPR_DECLS,   /* d1 .. dn e  and  e where d1 .. dn end: decls */
} MimExprKind;

typedef enum MimLitKind { MIM_LIT_INT, MIM_LIT_FLOAT, MIM_LIT_BOT, MIM_LIT_TOP } MimLitKind;

typedef enum MimFunStyle {
    MIM_FUN_DIRECT, /* lam, λ/lm: codomain C or hole; last filter defaults to tt */
    MIM_FUN_CONT,   /* con, cn: codomain ⊥; last filter defaults to ff */
    MIM_FUN_RET,    /* fun, fn: last domain [D, return: Cn R]; last filter ff */
} MimFunStyle;

struct MimAstExpr {
    MimExprKind kind;
    MimLoc loc;
    union {
        struct {
            MimSym sym;
            MimBinder *binder; /* set by the binder; never NULL after a successful bind */
        } id;
        struct {
            MimTokKind tok; /* UNIV NAT IDX BOOL FF TT i1..i64 I1..I64 STAR BOX */
        } prim;
        struct {
            MimLitKind kind;
            uint64_t bits;    /* INT: payload; FLOAT: the binary64 bit pattern; else 0 */
            bool is_signed;   /* INT/FLOAT written with a sign */
            MimAstExpr *type; /* ascription `L : T`, or NULL (FLOAT always has one if no error) */
        } lit;
        struct {
            uint64_t value, size; /* value of type Idx size (size 0 = 2^64); value < size if size != 0 */
            bool is_char;         /* came from a character literal */
        } idx_lit;
        struct {
            const char *bytes; /* the characters (I8 each), after escape processing */
            size_t len;
        } str;
        struct {
            MimAstExpr *level;
        } type;
        struct {
            MimAstExpr *callee, *arg;
            bool is_explicit; /* `f @ a`: no implicit-argument insertion */
        } app;
        struct {
            MimAstExpr *dom, *codom;
        } arrow;
        struct {
            MimTokKind tok;    /* what started it: LBRACKET, LBRACE, CN_TYPE or FN_TYPE */
            MimAstPtrn **doms; /* curried domains; an implicit one is a '{' tuple pattern */
            size_t num_doms;
            MimAstExpr *codom; /* NULL for Cn; for Fn the `R` of the last domain */
        } pi;
        MimAstFun *lambda;
        struct {
            MimAstExpr **elems;
            size_t num_elems;
        } tuple;
        struct {
            MimAstPtrn *ptrn; /* kind MIM_PTRN_TUPLE, delim '[', bracket style, no alias
                                 (`[…] as x` always continues as a Pi) */
        } sigma;
        struct {
            MimBinder *var;    /* `i` of «i: n; T», or NULL */
            MimAstExpr *shape; /* n */
            MimAstExpr *body;  /* T (Arr) or e (Pack) */
        } seq;
        struct {
            MimAstExpr *tuple;
            MimAstExpr *index; /* by index (`e#0_2`, `e#(x)`, `e#f`... see below), or NULL */
            MimSym name;       /* by name: `e#x` (index == NULL) */
            MimLoc name_loc;
            MimBinder *var;    /* by name: the variable candidate `x`, or NULL if none */
        } extract;
        struct {
            MimAstExpr *tuple, *index, *value;
        } insert;
        struct {
            MimAstPtrn *ptrn; /* paren style, binds in the current scope (rebinding) */
            MimAstExpr *callee, *arg, *body;
        } ret;
        struct {
            MimAstDecl **decls; /* in source order */
            size_t num_decls;
            MimAstExpr *expr;
            bool is_where; /* emit and bind in REVERSE order (language.md §5.7) */
        } decls;
    } u;
};

/* ---- patterns ----------------------------------------------------------- */

typedef enum MimPtrnKind {
    MIM_PTRN_ERROR, /* after a syntax error */
    MIM_PTRN_ID,    /* x  or  x: T   (id.type NULL = inferred/hole); binder kind PTRN */
    MIM_PTRN_EXPR,  /* anonymous element of a bracket pattern: its type `expr.type` */
    MIM_PTRN_GROUP, /* a b c: T   — each member bound as `m: T` (T re-evaluated per member) */
    MIM_PTRN_TUPLE, /* ( .. )  [ .. ]  { .. } */
} MimPtrnKind;

struct MimAstPtrn {
    MimPtrnKind kind;
    MimLoc loc;
    MimBinder *alias; /* `p as x` (binder kind ALIAS), or NULL */
    union {
        struct {
            MimBinder *binder; /* never NULL; binder->anon for `_` */
            MimAstExpr *type;  /* or NULL */
        } id;
        struct {
            MimAstExpr *type;
        } expr;
        struct {
            MimBinder **members; /* >= 2 members, all kind PTRN */
            size_t num_members;
            MimAstExpr *type;
        } group;
        struct {
            char delim;      /* '(' paren style, '[' bracket style, '{' implicit group */
            bool bracket;    /* element style: false = paren (bare ident binds), true = bracket */
            MimAstPtrn **elems;
            size_t num_elems;
        } tuple;
    } u;
};

/* A '{' tuple pattern is an implicit parameter group / implicit Pi domain. */
static inline bool mim_ptrn_is_implicit(const MimAstPtrn *p) {
    return p->kind == MIM_PTRN_TUPLE && p->u.tuple.delim == '{';
}

/* ---- functions (lam/con/fun declarations and λ/cn/fn expressions) ---------- */

typedef struct MimAstDom {
    MimAstPtrn *ptrn;   /* paren style; '{' tuple = implicit group */
    MimAstExpr *filter; /* `@ e`, or NULL for the default (language.md §5.5) */
    MimLoc loc;
} MimAstDom;

struct MimAstFun {
    MimTokKind tok;    /* LAM CON FUN (declarations) or LAMBDA CN FN (expressions) */
    MimFunStyle style;
    bool is_extern;
    MimBinder *name;   /* kind FUN; NULL for expressions */
    MimAnnex *annex;   /* the name is an annex name: its record (else NULL) */
    unsigned sub;      /* sub-tag number for a 3-part annex name, else 0 */
    MimAstDom *doms;   /* >= 1 curried groups */
    size_t num_doms;
    MimAstExpr *codom; /* `: C` or NULL (lam: hole; fun: hole return type; con: always NULL) */
    MimAstExpr *body;
    MimBinder *ret;    /* style RET only: binder of `return` (element 1 of the last param) */
    MimLoc loc;
};

/* ---- declarations --------------------------------------------------------- */

typedef enum MimDeclKind {
    MIM_DECL_AXM,  /* axm */
    MIM_DECL_LET,  /* let */
    MIM_DECL_FUN,  /* lam / con / fun declaration */
    MIM_DECL_REC,  /* rec, or an `and name (: T)? = e` tail */
    MIM_DECL_CDECL /* ccon / cfun */
} MimDeclKind;

typedef struct MimAstSub {
    MimBinder **names; /* names[0] the primary spelling, the rest aliases; kind SUBTAG,
                          binder->sym is the full name `%p.t.<spelling>` */
    size_t num_names;
    unsigned sub;      /* sub-tag number (semantics.md §12.2) */
} MimAstSub;

struct MimAstDecl {
    MimDeclKind kind;
    MimLoc loc;
    /* `and` chain (rec … and …, lam … and …): the next declaration of the
     * chain (kind FUN or REC), or NULL. Only the head of a chain appears in a
     * declaration list; all names of a chain are bound before any body
     * (mutual recursion); the emitter creates all nodes, then fills bodies. */
    MimAstDecl *next;
    union {
        struct {
            MimBinder *name;   /* kind AXIOM; bound only if num_subs == 0 */
            MimAstSub *subs;
            size_t num_subs;
            MimAstExpr *type;
            MimSym normalizer; /* or NULL */
            MimLoc normalizer_loc;
            bool has_curry, has_trip;
            uint64_t curry, trip;
            MimAnnex *annex;   /* NULL for a name without a dot (`axm %x`: no annex) or after errors */
        } axm;
        struct {
            /* `let p = e`; for `let %p.t(: T)? = e` ptrn is a MIM_PTRN_ID whose
             * binder->sym is the annex name. */
            MimAstPtrn *ptrn;
            MimAstExpr *post_type; /* the odd `let x = : T e` type, or NULL (evaluated, ignored) */
            MimAstExpr *value;
            MimAnnex *annex;       /* let %…: its record, else NULL */
            unsigned sub;          /* sub-tag number of `let %p.t.s`, else 0 */
        } let;
        MimAstFun *fun;
        struct {
            MimBinder *name;   /* kind REC */
            MimAstExpr *type;  /* or NULL (hole) */
            MimAstExpr *body;  /* lambda/Pi/arrow/sigma (else a syntax error was reported) */
            MimAnnex *annex;
            unsigned sub;
        } rec;
        struct {
            MimTokKind tok;    /* CCON or CFUN */
            MimBinder *name;   /* kind CDECL */
            MimAstPtrn *dom;   /* bracket style */
            MimAstExpr *codom; /* cfun only */
        } cdecl;
    } u;
};

/* ---- modules -------------------------------------------------------------- */

typedef struct MimAstImport {
    MimTokKind tok;       /* IMPORT or PLUGIN */
    MimSym name;          /* the identifier after the keyword */
    MimLoc loc;           /* of the name */
    MimAstModule *module; /* the module parsed for it; NULL if it had been parsed before or
                             could not be read */
} MimAstImport;

struct MimAstModule {
    const char *name;     /* name used in the directive (input: as on the command line) */
    const char *path;     /* path as opened */
    MimAstImport *imports;
    size_t num_imports;
    MimAstDecl **decls;
    size_t num_decls;
    bool plugin_requested; /* some `plugin`/-p requested its library (never in bootstrap mode) */
    bool bound;            /* internal to the binder */
    uint64_t text_hash;    /* of the source text (keys prelude images, driver/prelude.c); 0 for the input */
    size_t text_len;       /* bytes of source text (sizes the World's table before emission) */
    /* A skeleton module (fe/skeleton.c) stands for an interface covered by
     * a prelude image: no imports' modules parsed, no decls, only what the
     * rest of the run can see of it, read from the image's manifest. */
    bool skeleton;
    MimBinder **top_binders; /* skeleton: mim_emit_top_binders' walk (entries may be NULL) */
    size_t num_top_binders;
    MimSym *annex_plugins; /* skeleton: see mim_fe_module_annex_plugins */
    size_t num_annex_plugins;
};

/* The slots of the binders a top-level declaration binds in its module's
 * scope (what later modules see), in binding order: pattern names before
 * an alias, chains in order, an axiom's name only without sub-tags, else
 * every spelling of every sub-tag. A slot may hold NULL after errors. */
typedef void (*MimBinderSlotFn)(void *user, MimBinder **slot);
void mim_ast_top_binder_slots(MimAstDecl *d, MimBinderSlotFn fn, void *user);

/* ---- annexes (semantics.md §12) -------------------------------------------- */

typedef struct MimAnnexSub {
    MimSym name;       /* primary spelling (without %p.t.) */
    MimSym *aliases;   /* further spellings */
    size_t num_aliases;
    unsigned sub;      /* its number */
} MimAnnexSub;

/* One record per distinct `%plugin.tag` declared in the run. */
struct MimAnnex {
    MimSym sym;          /* "%p.t" */
    MimSym plugin, tag;  /* "p", "t" */
    uint64_t plugin_id;  /* 48-bit encoding << 16 (semantics.md §12.1) */
    unsigned tag_num;    /* 0, 1, 2, ... per plugin in binding order */
    uint64_t base;       /* plugin_id | tag_num << 8; full id of sub s = base | s */
    MimAnnexSub *subs;   /* sub-tags in number order (heap, owned by MimFe) */
    size_t num_subs;
    unsigned next_sub;   /* next free sub-tag number */
    MimSym normalizer;   /* or NULL */
    MimLoc normalizer_loc;
    bool is_fn;          /* a declaration's type is syntactically a function type
                            (Pi / arrow / Cn / Fn / {…} …) */
    bool is_axiom;       /* declared by `axm` */
    bool subless_axiom;  /* declared by `axm` without sub-tags */
    MimLoc loc;          /* first declaration */
    void *user;          /* EMITTER-OWNED slot */
};

#endif
