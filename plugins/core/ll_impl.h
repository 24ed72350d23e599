/* Internal interface of the `ll` back end (plugins/ll-backend.md,
 * docs/ll-backend.md): the emitter state shared by ll.c (module layout,
 * types, constants), ll_sched.c (per-function blocks, CFG, dominators,
 * placement of instructions) and ll_emit.c / ll_ops.c (instructions).
 *
 * Per-node data lives in an array indexed by gid (the World is frozen while
 * emitting, so no node appears); per-function fields carry the stamp of the
 * function they belong to, so nothing is cleared between functions. */
#ifndef MIM_LL_IMPL_H
#define MIM_LL_IMPL_H

#include "core_util.h"
#include "mim/plugin.h"
#include "mim/vec.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- growable text and pointer vectors (mim/vec.h) ---------------------- */
/* Text: data is NUL-terminated once anything was printed (NULL before);
 * len excludes the NUL. Freed with mim_vec_free like LLVec. */
typedef MIM_VEC(char) LLBuf;
void ll_buf_printf(LLBuf *b, const char *fmt, ...) MIM_PRINTF(2, 3);
void ll_buf_vprintf(LLBuf *b, const char *fmt, va_list ap) MIM_PRINTF(2, 0);
void ll_buf_puts(LLBuf *b, const char *s); /* appends s (no formatting: the big constant tables) */

typedef MIM_VEC(void *) LLVec;

/* ---- operands through solved holes ----------------------------------------- */
/* Inference holes solved after the code that uses them was built (e.g. the
 * implicit arguments of a function β-reduced at -O0) stay in the graph as
 * Infer nodes whose operand is the solution. Every walk of the back end
 * reads operands through these accessors, which follow such chains, so no
 * hole is ever scheduled, typed or emitted (the graph is frozen; following
 * the chain builds nothing, unlike mim_resolve's rebuilding of tuples). */
static inline MimDef *ll_solved(MimDef *d) {
    while (d && mim_def_node(d) == MIM_INFER && mim_def_op(d, 0)) d = mim_def_op(d, 0);
    return d;
}
static inline MimDef *ll_op(const MimDef *d, size_t i) { return ll_solved(mim_def_op(d, i)); }
static inline MimDef *ll_typeof(const MimDef *d) { return ll_solved(mim_def_type(d)); }
static inline MimDef *ll_callee(const MimDef *app) { return ll_solved(mim_app_callee(app)); }
static inline MimDef *ll_app_arg(const MimDef *app) { return ll_solved(mim_app_arg(app)); }
static inline MimDef *ll_arg(const MimDef *app, size_t i) { return ll_solved(mim_app_nth_arg(app, i)); }
static inline MimDef *ll_body(const MimDef *lam) { return ll_solved(mim_lam_body(lam)); }
static inline MimDef *ll_dom(const MimDef *pi) { return ll_solved(mim_pi_dom(pi)); }

/* ---- per-node data ------------------------------------------------------- */
enum { LL_PLACE_NONE = -1, LL_PLACE_UNSET = -2 };

typedef struct LLInfo {
    const char *type; /* cached LLVM type of the node as a type ("" = no value) */
    uint32_t fn;      /* stamp of the function the fields below belong to */
    int32_t place;    /* block of the instruction, LL_PLACE_NONE = constant */
    int32_t chain;    /* last block whose memory chain reached this node */
    int32_t need;     /* last block for which the effects this value needs were checked */
    int32_t block;    /* a lambda: its block index in the current function */
    uint8_t effect;   /* placed by a memory chain */
    uint8_t visiting; /* placement in progress (cycle guard) */
    uint8_t rvisit;   /* range of this parameter in progress (ll_range.c, cycle guard) */
    int32_t late;     /* LCA of the blocks where the value is observed (ll_range.c) */
    uint32_t nuses;   /* uses seen by ll_range_prepare (an upper bound) */
    uint8_t emitted;
    uint8_t seen;      /* discovery visited */
    uint8_t copies;    /* computed anew in each block that uses it (ll_sink.c) */
    uint8_t here;      /* used in the loop header it is placed in (ll_sink.c) */
    int32_t sink;      /* LCA of the blocks of its users' final places (ll_sink.c) */
    const char *val;   /* emitted LLVM value ("" = no value) */
    uint8_t queued;    /* global: function queued for emission */
    uint8_t pdep_done; /* pdep computed */
    MimDef *pdep[2];   /* see ll_pack_dep: up to two packs, pdep[0] = LL_PDEP_MANY if more */
    const char *global; /* global: the constant global holding this constant array (see ll_const_global) */
} LLInfo;

/* A dependent pack ‹i: n; body› being emitted element by element: its
 * variable stands for the literal `value`; nodes of the body computed for
 * this element are cached from `cache_mark` on (LL.cache_keys/vals). */
typedef struct LLFrame {
    MimDef *binder;
    size_t index; /* the element */
    const char *value;
    size_t cache_mark;
} LLFrame;
#define LL_PDEP_MANY ((MimDef *)(uintptr_t)1)

/* ---- blocks of a function ----------------------------------------------- */
typedef struct LLBlock {
    MimDef *lam;
    const char *label;
    size_t ncomp;          /* components of the domain (see ll_domain_comps) */
    MimDef **comp;         /* their types */
    const char **param;    /* LLVM names of the parameters/phis (NULL = no value) */
    bool split;            /* the variable is a tuple of the components */
    size_t inner;          /* function [[a, …], Cn R]: number of inner components */
    int rpo;               /* position in reverse post-order, -1 unreachable */
    int idom, depth;
    MIM_VEC(int) succ, pred; /* CFG edges: block indices */
    LLVec nodes;  /* instructions placed here, in dependency order */
    LLBuf *incoming; /* per component: "[ v, %pred ], …" */
    MimDef *fact;    /* branch condition known here (only predecessor's branch), or NULL */
    bool fact_true;  /* ... known to hold (else known not to hold) */
    int fact_up;     /* nearest block knowing a condition on the dominator-tree path, -1 = none */
    uint64_t frel;   /* the fact decoded when it is `fa rel fb` (an icmp subtag id; 0 = not decoded) */
    MimDef *fa, *fb;
    LLBuf body;
    /* a small counted loop's header: its trip bound (ll_range.c), 0 = none;
     * md: 1 + the number of its `!llvm.loop` node once emitted, 0 = none */
    unsigned unroll, md;
} LLBlock;

typedef struct LLNaming {
    MimDef *sigma;
    bool used;
} LLNaming;

typedef struct LL {
    MimWorld *w;
    bool ok;
    uint32_t num_gids;
    LLInfo *info;
    LLVec strings; /* owned strings */
    LLBuf types, funcs;
    LLBuf globals; /* private constants: arrays indexed at run time (ll_const_global) */
    /* Named struct types (ll-backend.md §3): the named Σs whose LLVM type is
     * being computed (a use of the name meanwhile makes it recursive, so it
     * keeps its name), and the bodies of the named types emitted so far: a
     * literal struct equal to one of them is written as that name, so that
     * structural tuples and values of the named type have one LLVM type. */
    MIM_VEC(LLNaming) naming;
    LLVec named_body, named_name; /* parallel: "{…}" -> "%Name_gid" */
    LLVec decls;   /* runtime/intrinsic declarations (owned strings) */
    LLVec imports; /* body-less lambdas to declare */
    LLVec queue;   /* functions to emit */
    size_t queue_head;
    /* the current function */
    uint32_t fn;
    MimDef *cur;
    MIM_VEC(LLBlock) blocks;
    int *order; /* block indices in RPO */
    size_t norder;
    int bb;          /* block being emitted */
    LLBuf allocas;   /* entry-block allocas (dynamic extract/insert) */
    LLBuf stubs;     /* blocks that only return: branch targets that are the return continuation */
    LLVec effects;   /* effects found by the memory chains */
    const char *ret_type;
    unsigned tmp;    /* counter for temporaries */
    MIM_VEC(LLFrame) frames; /* dependent packs being emitted (innermost last) */
    LLVec cache_keys, cache_vals;
    unsigned range_steps; /* work left for the current range query (ll_range.c) */
    bool runtime_tape;    /* the tape runtime is defined (ll_runtime.c) */
    uint64_t regions;     /* the %mem.region numbers of loads and stores (bit r) */
    unsigned nloops;      /* `!llvm.loop` nodes emitted in the module */
    /* copies of the nodes computed where used (LLInfo.copies): node, block, value */
    LLVec copy_keys, copy_vals;
    MIM_VEC(int) copy_blocks;
    unsigned fresh; /* > 0: results get fresh names (a copy being emitted) */
} LL;

/* ---- ll.c ------------------------------------------------------------------ */
const char *ll_str(LL *ll, const char *fmt, ...) MIM_PRINTF(2, 3);
const char *ll_name(LL *ll, const MimDef *d); /* <name>_<gid>, sanitized */
const char *ll_tmp(LL *ll, const char *hint); /* fresh %-less temporary */
/* %<name>_<gid> of an instruction's result; inside a dependent pack's
 * element (computed once per element) with a fresh suffix. */
const char *ll_result(LL *ll, const MimDef *d);
LLInfo *ll_info(LL *ll, const MimDef *d);     /* per-function fields reset if stale */
void ll_error(LL *ll, const MimDef *d, const char *why);
void ll_declare(LL *ll, const char *decl);
/* A function `name` ("@f") is declared already: in the imports written to
 * out so far or among the back end's own declarations (ll_declare). */
bool ll_declared(LL *ll, const LLBuf *out, const char *name);
/* ---- ll_ops.c: alias metadata of %mem.region ------------------------------- */
/* Metadata numbers: the regions' nodes from LL_MD_REGION (the domain, then
 * three per region r < 64 at LL_MD_REGION + 3r ...), the loops' from
 * LL_MD_LOOP, after every region's (LLVM does not need them contiguous). */
enum { LL_MD_REGION = 0, LL_MD_LOOP = LL_MD_REGION + 3 * 64 };
void ll_region_metadata(LL *ll, FILE *out); /* the nodes of the regions used */
/* ---- ll_runtime.c ------------------------------------------------------------ */
/* If the import lam (LLVM name `name`, declaration `decl`) is a runtime
 * function of the back end: define it in out (once; an error if decl is not
 * its type) and return true; else false. */
bool ll_runtime(LL *ll, LLBuf *out, MimDef *lam, const char *name, const char *decl);
bool ll_is_mem(const MimDef *type);
bool ll_has_mem(const MimDef *type);
/* LLVM type of a Mim type; "" if it has no value (memory, unit); NULL after
 * an error. */
const char *ll_type(LL *ll, MimDef *type);
/* A returning function type Cn [..., Cn R]: its return continuation type. */
MimDef *ll_ret_pi(const MimDef *pi);
bool ll_is_fn_lam(const MimDef *lam);
/* The LLVM type of the values of a continuation domain (what a function
 * returns to it): "void", the one value's type, or a literal struct. */
const char *ll_values_type(LL *ll, MimDef *dom);
const char *ll_fn_ret_type(LL *ll, MimDef *pi);
const char *ll_fn_ptr_type(LL *ll, MimDef *pi);
const char *ll_fn_name(LL *ll, MimDef *lam);
/* The components of a domain: Σ elements, elements of a literal array, or
 * the domain itself. Returns whether it is split; *n, out (malloc'd). */
bool ll_domain_comps(MimDef *dom, size_t *n, MimDef ***out);
/* Components of a function domain: like ll_domain_comps, but a domain
 * [[a, b, …], Cn R] (fun, cfun) is flattened to a, b, …, Cn R so that C sees
 * separate parameters; *inner = number of flattened components (0 = none). */
bool ll_fn_comps(MimDef *dom, size_t *n, MimDef ***out, size_t *inner);
/* Float format width of %math.F (p, e) for the three IEEE formats, else 0. */
unsigned ll_float_width(MimDef *type);
/* Bit width of Idx s / Nat, 0 if none; 64 for an Idx whose size is not a
 * literal (`Idx ⊤:Nat`). */
unsigned ll_int_width(LL *ll, MimDef *type);
/* Constant value of d (no instruction needed), or NULL if d is not constant. */
const char *ll_const(LL *ll, MimDef *d);
/* The name (@…) of a private constant global holding the constant array d
 * (of LLVM type aty), emitted once per node; NULL if d is not constant. */
const char *ll_const_global(LL *ll, MimDef *d, const char *aty);
void ll_enqueue_fn(LL *ll, MimDef *lam);
/* A dependent pack (mutable ‹i: n; body›) whose variable occurs free in d:
 * NULL if none, LL_PDEP_MANY if variables of more than two packs do (packs
 * nest at most two deep when the inner body uses both variables). */
MimDef *ll_pack_dep(LL *ll, MimDef *d);

/* ---- ll_sched.c ------------------------------------------------------------ */
typedef enum LLTermKind {
    LL_T_RET, LL_T_JUMP, LL_T_BRANCH, LL_T_CALL, LL_T_CCALL, LL_T_UNREACHABLE, LL_T_LONGJMP
} LLTermKind;
/* A block's terminator (§4.3): callee and argument of the body, and for a
 * call the return continuation k (a block, the caller's return or ⊥). */
typedef struct LLTerm {
    LLTermKind kind;
    MimDef *callee, *arg, *k;
    /* a call whose argument is the calling function's own variable (an
     * eta-expanded wrapper `f x = g x`): a tail call with the caller's
     * parameters, k = NULL */
    bool own_args;
} LLTerm;
bool ll_classify(LL *ll, MimDef *body, LLTerm *t);
/* Builds blocks, CFG, RPO, dominators, placement for ll->cur. */
bool ll_schedule(LL *ll);
bool ll_dominates(LL *ll, int a, int b);
/* d refers to component j of block b's variable. */
bool ll_param_ref(LL *ll, MimDef *d, int *b, size_t *j);
bool ll_is_ret(LL *ll, MimDef *d);
/* The blocks of the natural loop at header h (h and those reaching a back
 * edge to h without passing h) get mark[b] = h + 1 and are stored in list
 * (room for every block), h first; their number, or 0 if the walk exceeds
 * its budget. */
size_t ll_loop_blocks(LL *ll, int h, int *mark, int *list);
/* Block h is a loop header: a predecessor of h is dominated by h. */
bool ll_loop_header(LL *ll, int h);
int ll_block_of(LL *ll, MimDef *lam); /* -1 if not a block of the function */
/* ---- ll_sink.c ------------------------------------------------------------- */
/* After placement and ranges: pure operations move down to the latest block
 * dominating their uses that is in no deeper loop (docs/ll-backend.md §3). */
void ll_sink(LL *ll);

/* ---- ll_range.c ------------------------------------------------------------ */
/* After scheduling: branch facts per block and late blocks per node. */
void ll_range_prepare(LL *ll);
/* Dominator-tree LCA of blocks a and b (-1 = none yet); the entry block
 * after a bounded walk (conservative for every user). */
int ll_lca(LL *ll, int a, int b);
/* A pure node whose instructions observe its operands where it is placed
 * (a run-time index into an aggregate: a load or store through an address). */
bool ll_loads_at(const MimDef *d);
/* d has no LLVM value of its own (a lambda, a type, a literal, ...). */
bool ll_no_value(const MimDef *d);
/* Mode bits (1 = nsw, 2 = nuw) that the `%core.wrap` application app
 * provably satisfies wherever its result is observed (docs/ll-backend.md §3). */
unsigned ll_no_wrap(LL *ll, MimDef *app);
/* x (an Idx 2^8, 2^16 or 2^32 operand of user) is non-negative as a
 * signed value wherever user's result is observed. */
bool ll_nonneg(LL *ll, MimDef *x, MimDef *user);
/* The `!llvm.loop` annotation (", !llvm.loop !N" or "") of a jump from block
 * `from` to block `to`: a back edge of a small counted loop (ll_range.c). */
const char *ll_loop_md(LL *ll, int from, int to);
/* app is `c op (x op y)` (op wrap.add or wrap.mul of mode 0, c a literal)
 * and the inner call has no other use: *c, *x, *y. */
bool ll_literal_outside(LL *ll, MimDef *app, MimDef **c, MimDef **x, MimDef **y);
void ll_fn_free(LL *ll);

/* ---- ll_emit.c ------------------------------------------------------------- */
bool ll_emit_function(LL *ll);
/* The value of d at the current block ("" = no value; NULL = error). */
const char *ll_val(LL *ll, MimDef *d);
/* Component j of value node d of (sigma/array) type; emits extractvalue. */
const char *ll_comp(LL *ll, MimDef *d, size_t j);
void ll_inst(LL *ll, const char *fmt, ...) MIM_PRINTF(2, 3);

/* ---- ll_ops.c -------------------------------------------------------------- */
/* Instruction(s) for a fully applied axiom; returns the value ("" = none). */
const char *ll_emit_axiom(LL *ll, MimDef *app);

#endif
