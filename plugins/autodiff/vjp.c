/* Reverse mode over memory (docs/autodiff.md, "Memory in reverse mode", an
 * extension of the specification): `%autodiff.vjp f` for f : Cn [A, Cn R]
 * becomes `<f>_vjp : Cn [[A, A, R], Cn [R, A]]`: for a point x, shadows
 * (the pointers of the second A are shadow buffers into which the adjoints
 * of the pointed-to values are added, Enzyme's duplicated arguments) and
 * the adjoint ȳ of the result, it returns f's result and the adjoint of
 * the non-memory arguments (floats; the memory token is the final one).
 *
 * The two sweeps are generated as code, not composed pullbacks:
 * - the blocks of f (its body, "block 0", and the continuations it
 *   reaches) get a forward version fwd_B, which pushes a record (the values
 *   the backward sweep needs: the integers and floats of B's and of its
 *   enclosing blocks' parameters that the reverse of B's body uses, then
 *   B's number, left out when only direct backward jumps pop the record:
 *   mark_ids) onto a tape (an I64 buffer of the back end's tape runtime,
 *   mim_rt_tape_grow/free: tape_fn) and then runs B's statements;
 * - the backward sweep is one loop (bwd_loop) that pops a record and
 *   dispatches on the block number to bwd_B, which recomputes what it needs
 *   from the record (a load is recomputed unless f stores), and
 *   propagates adjoints through B's statements in reverse: one accumulator
 *   per float parameter of every block (parameters of the loop state, so
 *   fan-in adds up there: no exponential case), the adjoint of a jump's
 *   arguments read from (and cleared in) the accumulators of the target's
 *   parameters, a load `x = p[i]` adding x̄ into the shadow at the same
 *   offset;
 * - a block whose reverse is empty (it jumps only to blocks without float
 *   parameters) pushes no record;
 * - a counted loop's body (counted_loop: a counter H#k + 1 from a literal
 *   start, the reverse reading nothing else of the loop) pushes no record
 *   per iteration: the loop's exit pushes one (without the counter when
 *   H tests counter < bound, bound invariant: the reverse starts at
 *   max(s0, bound)), and the backward sweep runs the body's reverse with
 *   the counter counting down (build_lr_bwd);
 * - a loop whose body spans several blocks (carried_loop) keeps its body's
 *   records but not its counter: the backward state carries it (set by
 *   the exit's record, counted down by the body entry's reverse), and the
 *   backward sweep branches on it between the previous iteration's records
 *   and those below the loop (link_next);
 * - a record leaves out the slots that the next record pushed (always the
 *   same one) holds with the same value: the reverse reads them there
 *   (plan_above);
 * - a nested function without pointer arguments becomes blocks of f at
 *   its call site if called once, at each of its call sites (up to
 *   INL_SITES) if it has no loop (inline_once); any other call
 *   `h (args, k)` in a block but the first, when neither f nor h writes,
 *   shares f's tape: h_vjp_shared's forward sweep pushes h's records onto
 *   it, and the calling block's reverse runs h_vjp_shared's backward sweep
 *   over them (fwd_shared_call, shared_call); the remaining calls run as a
 *   copy of h in the forward sweep, and the backward sweep calls h_vjp
 *   (which redoes h's forward sweep on its own tape: a checkpoint, so that
 *   tape holds one call's records); a function whose body is a tail call
 *   (an η-wrapper) is the callee's vjp.
 * Stores, allocations and frees: the section "writes" at the end (loads
 * are taped instead of recomputed when f stores); pointer parameters of
 * blocks: the section at the very end. Recursion, pointers without a
 * shadow (loaded from memory, or parameters passed offsets into different
 * buffers) and calls that would have to be checkpoints where memory is
 * written are the located error `autodiff: cannot differentiate (reverse
 * mode) …`. */
#include "autodiff.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef struct Rev Rev;
typedef struct {
    MimDef **d;
    size_t n, cap;
} Vec;

static void vpush(Vec *v, MimDef *d) {
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 8;
        v->d = mim_xrealloc(v->d, v->cap * sizeof *v->d);
    }
    v->d[v->n++] = d;
}

struct Rev {
    Rev *parent; /* the enclosing function's (a nested function reads its parameters) */
    MimWorld *w;
    MimPass *p;
    MimPtrMap *memo; /* h ↦ h_vjp (f ↦ f on failure) */
    MimPtrMap *copies; /* h ↦ a copy of h for forward sweeps */
    MimDef **realloc_fn; /* the declarations of mim_rt_tape_grow [0], C's calloc [1] and mim_rt_tape_free [2] */
    MimDef *f;
    size_t nflat;
    MimDef *A, *R;
    MimDef *x, *sx, *ybar, *kret; /* f_vjp's parameters */
    MimDef *kold;                 /* f's return continuation */
    MimPtrMap top;                /* f's parameters (leaves) ↦ values in f_vjp */
    MimPtrMap topsh;              /* f's pointer parameters ↦ their shadows */
    MimDef *args_old;             /* f's argument tuple (not flattened), or NULL */
    MimPtrMap topm;               /* f's %mem.M parameters (their declared type, not the projection's) */
    Vec blk;                      /* blk.d[0] = f */
    MimPtrMap bid;                /* block ↦ index + 1 */
    MimPtrMap acc;                /* float leaf ↦ accumulator index + 1 */
    Vec accT;                     /* accumulator types */
    Vec *slots;                   /* per block: the leaves its record holds */
    MimDef **fwd, **bwd;
    bool *trivial; /* per block: its reverse does nothing (no record) */
    /* counted loops (see counted_loop): per body block B, its header H
     * (0: none), the counter's component in H, its start value, the exit
     * block E; per header, the body block; per body block, the record
     * pushing wrapper of fwd_E taken on H's exit */
    long *lr_h, *lr_e, *lr_b;
    size_t *lr_k;
    MimDef **lr_s0, **lrx;
    MimDef **lr_bound; /* per body block: H's test is counter < bound, bound invariant in the loop (else NULL) */
    /* while building a counted loop's reverse: leaves ↦ values (the
     * counter, the record's values), and the jump back to its head */
    MimPtrMap lr_over;
    MimDef *lr_next, **lr_rest;
    size_t lr_nrest;
    MimPtrMap inl;  /* the call of a nested function called once ↦ its body as a block of f */
    MimPtrMap inlh; /* the functions inlined so */
    MimDef *loop;
    bool *noid;   /* per block: its record (or its counted loop's) has no block number (mark_ids) */
    bool *ret_row; /* the records that may be on top when f returns, when the backward sweep starts at the one reverse they lead to (mark_ids, bwd_start), else NULL */
    MimDef **nxt; /* per block: bwd_next_B, where B's reverse (or its loop's) goes after popping B's record */
    MimDef *TP, *I64, *M, *BS; /* tape pointer, I64, %mem.M, the backward state */
    MimDef *tape0; /* Cn [M, TP]: block 0 after the tape runtime gave the first block (not when shared) */
    size_t mpos;               /* index of the %mem.M component of A */
    MimLoc use;
    bool failed;
    struct VjpMem *vm; /* f writes or allocates memory (see "writes" below), else NULL */
    MimPtrMap proot;   /* a pointer parameter of a block ↦ the buffer every jump passes a pointer into (vm_ptr_param) */
    uint64_t inactive; /* pointer arguments without shadow (bit i: component i of A) */
    /* a nested function's vjp that shares its caller's tape (vjp_shared_of):
     * f_vjp_shared : Cn [[A, A, R, St, I64 base, Bool bwd], Cn [R, A, St]]
     * with St = [M, TP, I64 pos, I64 cap] the caller's tape; its forward sweep
     * (bwd = ff) pushes f's records onto that tape, its backward sweep
     * (bwd = tt) pops them down to base */
    bool shared;
    MimDef *st_in, *base, *mode;
    bool *shcall; /* per block: its terminator calls a nested function's shared vjp (shared_call) */
    /* per record (indexed by its block: a counted loop's body for its exit
     * record): the slots read from a record above it instead (plan_above),
     * leaf ↦ 1 + the word's offset from the end of the record */
    MimPtrMap *above;
    /* per block H heading a carried loop (carried_loop; in == NULL: none):
     * the body's entry block, the index of H's counter among the
     * backward state's accumulators (an I64 there, after the floats'),
     * the body's blocks; H's exit record uses the counted-loop arrays with
     * H as its own body (lr_h[H] = lr_b[H] = H) */
    struct Carried { long b0; size_t acc; bool *in; } *cr;
};

static MimDef *vjp_of(Rev *parent, MimDef *h);
static MimDef *vjp_shared_of(Rev *parent, MimDef *h);
/* writes and allocations (the section "writes" at the end of the file) */
struct Cl;
struct Adj;
static bool vm_allows(Rev *rv, uint64_t id);
static bool vm_cl(struct Cl *c, MimDef *old, MimDef **res);
static MimDef *vm_shadow(struct Cl *c, MimDef *old);
static MimDef *vm_tape_late(struct Cl *c, MimDef *r, MimDef **m, MimDef *tp, MimDef *pos);
static bool vm_late(Rev *rv, MimDef *key);
static bool vm_taped(Rev *rv, MimDef *ld);
static bool vm_frozen(Rev *rv, long b);
static bool vm_reads(MimWorld *w, MimDef *e, MimPtrMap *seen);
static bool vm_late_free(Rev *rv, long r);
static bool vm_adj_load(struct Adj *ad, MimDef *ld, MimDef *v, bool *taken);
static bool vm_seed_cross(struct Adj *ad, long b);
static void vm_acc_add(struct Adj *ad, MimDef *key, MimDef *T, MimDef *v);
static MimDef *vm_acc_take(struct Adj *ad, MimDef *key, MimDef *T);
static void vm_note_fwd(struct Cl *c, MimDef *old, MimDef *res);
static MimDef *vm_fwd_block(struct Cl *c, MimDef *B, MimDef *tp, MimDef *pos, MimDef *cap);
static bool vm_free_loop(struct Cl *c, long b);
static bool vm_store_rev(struct Adj *ad, MimDef *e);
static bool vm_checkpoint_ok(Rev *rv, MimDef *h);
static bool vm_writes(MimWorld *w, MimDef *e, MimPtrMap *seen);
static bool vm_stores(Rev *rv);
static bool vm_no_checkpoint(Rev *rv, bool f_stores, MimDef *h);
static MimDef *vm_free_all(Rev *rv, MimDef *m);
static bool vm_begin(Rev *rv);
static MimDef *vm_fwd0(Rev *rv, MimDef *m0, MimDef *tp0, MimDef *pos0, MimDef *cap0);
static void vm_drop(Rev *rv);
static bool vm_ptr_param(Rev *rv, long b, size_t i);
static MimDef *vm_param_shadow(struct Cl *c, MimDef *old);
static bool vm_ptr_swap(Rev *rv, long b, size_t i);
static MimDef *ptr_root(Rev *rv, MimDef *p);
static bool float_agg(MimWorld *w, MimDef *T);
static bool plain_agg(MimWorld *w, MimDef *T);
static bool agg_arity(MimWorld *w, MimDef *T, uint64_t *n);
static MimDef *agg_comp(MimWorld *w, MimDef *T, uint64_t k);
static MimDef *vadd(MimWorld *w, MimDef *a, MimDef *b);
static MimDef *vzero(MimWorld *w, MimDef *T);
static bool vm_extract_rev(struct Adj *ad, MimDef *e, MimDef *s);

static MimDef *fail(Rev *rv, MimDef *old, const char *what) {
    if (rv->failed) return NULL;
    rv->failed = true;
    autodiff_cannot(rv->p, rv->use.begin.row ? rv->use : mim_def_loc(old), "(reverse mode) ", what, old);
    return NULL;
}

/* ---- types and small builders ---------------------------------------------------------- */

static bool is_float(MimDef *T) { return mim_match(T, MIM_math_F) != NULL; }
static bool is_mem(MimDef *T) { return mim_match(T, MIM_mem_M) != NULL; }
static bool is_ptr(MimDef *T) { return mim_match(T, MIM_mem_Ptr) != NULL; }
static MimDef *annex(MimWorld *w, uint64_t id) { return mim_world_annex(w, id); }

/* the number of components of a parameter of type D (1 unless a Σ) */
static size_t arity(MimWorld *w, MimDef *D) {
    D = mim_resolve(w, D);
    return D && mim_def_node(D) == MIM_SIGMA ? mim_def_num_ops(D) : 1;
}
static MimDef *comp_type(MimWorld *w, MimDef *D, size_t i) {
    D = mim_resolve(w, D);
    return D && mim_def_node(D) == MIM_SIGMA ? mim_def_op(D, i) : D;
}
static MimDef *dom_of(MimWorld *w, MimDef *lam) { return mim_pi_dom(mim_resolve(w, mim_def_type(lam))); }

static MimDef *tuple_n(MimWorld *w, MimDef **ops, size_t n) { return n == 1 ? ops[0] : mim_tuple(w, ops, n); }

/* −0.0, the identity of addition, in the format of T (+0 if unknown) */
static MimDef *fzero(MimWorld *w, MimDef *T) {
    MimDef *pe = mim_resolve(w, mim_app_arg(T));
    uint64_t p, e;
    bool lit = pe && mim_def_node(pe) == MIM_TUPLE && mim_def_num_ops(pe) == 2 && mim_def_lit(mim_def_op(pe, 0), &p) &&
               mim_def_lit(mim_def_op(pe, 1), &e) && p + e < 64;
    return mim_lit(w, T, lit ? (uint64_t)1 << (p + e) : 0);
}
static MimDef *fadd(MimWorld *w, MimDef *a, MimDef *b) {
    if (!a) return b;
    if (!b) return a;
    MimDef *T = mim_def_type(a);
    MimDef *c = mim_app(w, annex(w, MIM_math_arith_add), mim_app_arg(T));
    c = mim_app(w, c, mim_lit_nat(w, 0));
    return mim_app(w, c, mim_pair(w, a, b));
}
static MimDef *size_of_idx(MimDef *T) { return mim_app_arg(T); }
static MimDef *iop(MimWorld *w, uint64_t id, MimDef *a, MimDef *b) { /* wrap.add/sub/mul on I64 */
    MimDef *c = mim_app(w, annex(w, id), mim_lit_nat(w, 0));
    c = mim_app(w, c, mim_lit_nat(w, 0));
    return mim_app(w, c, mim_pair(w, a, b));
}
static MimDef *icmp(MimWorld *w, uint64_t id, MimDef *a, MimDef *b) {
    MimDef *c = mim_app(w, annex(w, id), size_of_idx(mim_def_type(a)));
    return mim_app(w, c, mim_pair(w, a, b));
}
static MimDef *i64(Rev *rv, uint64_t v) { return mim_lit(rv->w, rv->I64, v); }
static MimDef *bitcast(MimWorld *w, MimDef *D, MimDef *x) {
    MimDef *c = mim_app(w, annex(w, MIM_core_bitcast), mim_def_type(x));
    c = mim_app(w, c, D);
    return mim_app(w, c, x);
}
static MimDef *conv_u(MimWorld *w, MimDef *ss, MimDef *ds, MimDef *x) {
    MimDef *c = mim_app(w, annex(w, MIM_core_conv_u), ss);
    c = mim_app(w, c, ds);
    return mim_app(w, c, x);
}
static bool is_i64(MimWorld *w, MimDef *T) {
    uint64_t s;
    return autodiff_is_idx(w, T) && mim_def_lit(size_of_idx(T), &s) && s == 0;
}
/* a value of a leaf type (Idx s, F64) as a tape word and back */
static MimDef *to_word(Rev *rv, MimDef *v, MimDef *T) {
    MimWorld *w = rv->w;
    if (is_float(T) || is_ptr(T)) return bitcast(w, rv->I64, v);
    if (is_i64(w, T)) return v;
    return conv_u(w, size_of_idx(T), mim_lit_nat(w, 0), v);
}
static MimDef *from_word(Rev *rv, MimDef *v, MimDef *T) {
    MimWorld *w = rv->w;
    if (is_float(T) || is_ptr(T)) return bitcast(w, T, v);
    if (is_i64(w, T)) return v;
    return conv_u(w, mim_lit_nat(w, 0), size_of_idx(T), v);
}
static bool wordable(Rev *rv, MimDef *T) {
    if (is_ptr(T)) return true; /* ptrtoint/inttoptr */
    if (is_float(T)) {
        MimDef *pe = mim_resolve(rv->w, mim_app_arg(T));
        uint64_t p, e;
        return mim_def_node(pe) == MIM_TUPLE && mim_def_num_ops(pe) == 2 && mim_def_lit(mim_def_op(pe, 0), &p) &&
               mim_def_lit(mim_def_op(pe, 1), &e) && p + e + 1 == 64;
    }
    return autodiff_is_idx(rv->w, T);
}

/* Alias information (docs/autodiff.md "Alias information"): the loads
 * and stores f_vjp makes go through %mem.region pointers of three regions,
 * which the LLVM back end turns into scoped alias metadata: the tape (its
 * memory is the gradient's own), shadows (the caller's and those f_vjp
 * allocates) and primal memory (f's arguments' buffers and f's
 * allocations). A shadow never overlaps a primal buffer by the calling
 * contract of %autodiff.vjp; shadows may overlap each other (as the
 * primal arguments may), so they share one region, as primal buffers do. */
enum { REGION_TAPE = 1, REGION_SHADOW = 2, REGION_PRIMAL = 3 };
/* p in region r; p itself for ⊥ (normalize_region) and for an offset
 * into a slot or alloc of f (the mem passes promote slots by looking at
 * their pointers' roots) */
static MimDef *in_region(Rev *rv, uint64_t r, MimDef *p) {
    MimWorld *w = rv->w;
    MimDef *root = mim_resolve(w, p);
    while (root && mim_match(root, MIM_mem_lea)) root = mim_resolve(w, mim_proj(w, mim_app_arg(root), 2, 0));
    if (!root || mim_match(root, MIM_mem_region)) return p;
    if (mim_def_node(root) == MIM_EXTRACT) {
        MimDef *a = mim_resolve(w, mim_def_op(root, 0));
        if (a && (mim_match(a, MIM_mem_slot) || mim_match(a, MIM_mem_mslot) || mim_match(a, MIM_mem_alloc))) return p;
    }
    MimDef *T = mim_resolve(w, mim_def_type(p));
    if (!T || !mim_match(T, MIM_mem_Ptr)) return p;
    MimDef *reg = mim_app(w, annex(w, MIM_mem_region), mim_app_arg(T));
    MimDef *lit = mim_lit_nat(w, r);
    return mim_app(w, reg, mim_pair(w, lit, p));
}
/* the load or store e (f's, rebuilt by cl) through a pointer of the primal
 * region */
static MimDef *primal_access(Rev *rv, MimDef *e) {
    MimWorld *w = rv->w;
    bool ld = mim_match(e, MIM_mem_load) != NULL;
    if (!ld && !mim_match(e, MIM_mem_store)) return e;
    MimDef *a = mim_resolve(w, mim_app_arg(e));
    size_t n = ld ? 2 : 3;
    if (!a || mim_def_node(a) != MIM_TUPLE || mim_def_num_ops(a) != n) return e;
    MimDef *p = in_region(rv, REGION_PRIMAL, mim_def_op(a, 1));
    if (p == mim_def_op(a, 1)) return e;
    MimDef *ops[3];
    for (size_t i = 0; i < n; ++i) ops[i] = mim_def_op(a, i);
    ops[1] = p;
    MimDef *na = mim_tuple(w, ops, n);
    return mim_app(w, mim_app_callee(e), na);
}

/* tape memory: the word at index i, loads and stores of words */
/* (Nodes are built in separate statements: C leaves the evaluation order of
 * arguments open, and gids must not depend on the compiler.) */
static MimDef *tape_meta(Rev *rv) {
    MimDef *arr = mim_arr(rv->w, mim_top(rv->w, mim_nat(rv->w)), rv->I64);
    MimDef *zero = mim_lit_nat(rv->w, 0);
    return mim_pair(rv->w, arr, zero);
}
static MimDef *tape_at(Rev *rv, MimDef *tp, MimDef *i) {
    MimWorld *w = rv->w;
    MimDef *top = mim_top(w, mim_nat(w));
    MimDef *ops[3];
    ops[0] = top;
    ops[1] = mim_pack(w, top, rv->I64);
    ops[2] = mim_lit_nat(w, 0);
    MimDef *lea = mim_app(w, annex(w, MIM_mem_lea), mim_tuple(w, ops, 3));
    MimDef *at = mim_app(w, lea, mim_pair(w, tp, i));
    return in_region(rv, REGION_TAPE, at);
}
static MimDef *word_ty(Rev *rv) { return mim_pair(rv->w, rv->I64, mim_lit_nat(rv->w, 0)); }
static MimDef *tape_load(Rev *rv, MimDef *m, MimDef *tp, MimDef *i) {
    MimDef *ld = mim_app(rv->w, annex(rv->w, MIM_mem_load), word_ty(rv));
    return mim_proj(rv->w, mim_app(rv->w, ld, mim_pair(rv->w, m, tape_at(rv, tp, i))), 2, 1);
}
static MimDef *tape_store(Rev *rv, MimDef *m, MimDef *tp, MimDef *i, MimDef *v) {
    MimDef *st = mim_app(rv->w, annex(rv->w, MIM_mem_store), word_ty(rv));
    MimDef *ops[3] = {m, tape_at(rv, tp, i), v};
    return mim_app(rv->w, st, mim_tuple(rv->w, ops, 3));
}

static MimDef *named(MimWorld *w, MimDef *T, const char *a, MimDef *of) {
    char name[160];
    MimSym n = of ? mim_def_name(of) : NULL;
    snprintf(name, sizeof name, "%s%s", a, n ? n : "b");
    MimDef *l = mim_mut_lam(w, T);
    if (l) mim_def_set_name(l, mim_world_sym(w, name));
    return l;
}
static bool set_body(MimWorld *w, MimDef *lam, MimDef *body) {
    return body && mim_lam_set(w, lam, mim_lit_bool(w, false), body) != NULL;
}

/* The tape's memory comes from the LLVM back end's tape runtime
 * (docs/ll-backend.md "Runtime functions", docs/autodiff.md "The tape's
 * memory"), which keeps the last tape's block for the next gradient instead
 * of giving its pages back. The declarations are C functions with flat
 * parameters (as `cfun` writes them), made once per program in
 * rv->realloc_fn[k]: ops are the parameters, ret the return continuation's. */
static MimDef *tape_fn(Rev *rv, size_t k, const char *name, MimDef **ops, size_t n, MimDef *ret) {
    if (rv->realloc_fn[k]) return rv->realloc_fn[k];
    MimWorld *w = rv->w;
    MimDef *d[4];
    for (size_t i = 0; i < n; ++i) d[i] = ops[i];
    d[n] = mim_cn(w, ret);
    MimDef *l = mim_mut_lam(w, mim_cn(w, mim_sigma(w, d, n + 1)));
    if (l) mim_def_set_name(l, mim_world_sym(w, name));
    return rv->realloc_fn[k] = l;
}
/* mim_rt_tape_grow: Cn [M, TP, Nat, Cn [M, TP]], like realloc (a null TP:
 * a new tape) but the block may be larger than asked (then the same
 * pointer comes back while it fits) */
static MimDef *realloc_fn(Rev *rv) {
    if (rv->realloc_fn[0]) return rv->realloc_fn[0];
    MimDef *d[3] = {rv->M, rv->TP, NULL}, *r[2] = {rv->M, rv->TP};
    d[2] = mim_nat(rv->w);
    MimDef *R = mim_sigma(rv->w, r, 2);
    return tape_fn(rv, 0, "mim_rt_tape_grow", d, 3, R);
}
/* mim_rt_tape_free: Cn [M, TP, Cn M] (TP may be null: no record was pushed) */
static MimDef *tape_free_fn(Rev *rv) {
    MimDef *d[2] = {rv->M, rv->TP};
    return tape_fn(rv, 2, "mim_rt_tape_free", d, 2, rv->M);
}
/* the words of a block that mim_rt_tape_grow(null, 0) returns at least
 * (64 KiB; docs/ll-backend.md §2 item 18) */
enum { TAPE_MIN = 8192 };
/* the null tape pointer: mim_rt_tape_grow's argument for a new tape */
static MimDef *tape_null(Rev *rv) {
    MimDef *zero = i64(rv, 0);
    return bitcast(rv->w, rv->TP, zero);
}

/* ---- f's shape: blocks, nested functions, leaves --------------------------------------- */


static bool is_function(MimWorld *w, MimDef *lam) {
    MimSym name = mim_def_name(lam);
    bool open = name && (strstr(name, "ret") || strstr(name, "_cont"));
    MimDef *A, *R;
    size_t n;
    return !open && autodiff_fn_parts(w, mim_def_type(lam), &A, &R, &n);
}

/* the blocks reachable from e (not entering nested functions) */
static void collect(Rev *rv, MimDef *e, MimPtrMap *seen) {
    MimWorld *w = rv->w;
    e = mim_resolve(w, e);
    if (!e || mim_ptrmap_has(seen, e) || mim_def_is_const(e)) return;
    mim_ptrmap_put(seen, e, e);
    if (mim_def_node(e) == MIM_VAR) return;
    if (mim_def_node(e) == MIM_LAM && mim_def_is_mut(e)) {
        if (e == rv->f || is_function(w, e) || !autodiff_is_cn(w, mim_def_type(e)) || !mim_lam_body(e)) return;
        vpush(&rv->blk, e);
        mim_ptrmap_put(&rv->bid, e, (void *)(uintptr_t)rv->blk.n);
        collect(rv, mim_lam_body(e), seen);
        return;
    }
    if (mim_def_is_mut(e)) return;
    for (size_t i = 0, n = mim_def_num_ops(e); i < n; ++i) collect(rv, mim_def_op(e, i), seen);
}

/* block index of lam, or -1 */
static long block_of(Rev *rv, MimDef *lam) {
    uintptr_t b = (uintptr_t)mim_ptrmap_get(&rv->bid, lam);
    return b ? (long)b - 1 : -1;
}

/* The leaf `var(X)#i` (or var(X)): *X's block index and *i; false if d is not a
 * leaf of a (non-entry) block of rv. */
static bool block_leaf(Rev *rv, MimDef *d, long *b, size_t *i) {
    MimWorld *w = rv->w;
    MimDef *v = d;
    uint64_t k = 0;
    if (mim_def_node(d) == MIM_EXTRACT) {
        v = mim_resolve(w, mim_def_op(d, 0));
        if (!mim_def_lit(mim_def_op(d, 1), &k)) return false;
    }
    if (!v || mim_def_node(v) != MIM_VAR) return false;
    MimDef *X = mim_def_op(v, 0);
    long x = block_of(rv, X);
    if (x <= 0) return false;
    size_t n = arity(w, dom_of(w, X));
    if (v == d && n != 1) return false;
    *b = x, *i = (size_t)k;
    return true;
}
static MimDef *leaf_key(Rev *rv, long b, size_t i) {
    MimDef *X = rv->blk.d[b];
    return mim_var_proj(rv->w, X, arity(rv->w, dom_of(rv->w, X)), i);
}

/* the top-level value of d (a parameter of f or of an enclosing function) */
static MimDef *top_of(Rev *rv, MimDef *d, bool shadow) {
    for (; rv; rv = rv->parent) {
        MimDef *r = mim_ptrmap_get(shadow ? &rv->topsh : &rv->top, d);
        if (r) return r;
    }
    return NULL;
}

static bool top_is_mem(Rev *rv, MimDef *d) {
    for (; rv; rv = rv->parent)
        if (mim_ptrmap_has(&rv->topm, d)) return true;
    return false;
}

/* ---- rebuilding f's expressions in a forward or backward block --------------------------- */

typedef enum { CL_FWD, CL_BWD, CL_COPY } ClMode;
typedef struct Cl {
    Rev *rv;
    ClMode mode;
    long b;        /* the block being built */
    MimDef *mem;   /* the current memory token (every %mem.M leaf of f's) */
    MimDef *tp, *p; /* backward: the tape and the position of the record's block number */
    MimPtrMap map;
    MimPtrMap sh; /* backward: pointer ↦ shadow */
    MimDef *end;  /* backward: the end of the record (its slots read from above are at end + offset) */
    MimDef *st;   /* backward: the state the reverse receives (carried loops' counters are read there) */
} Cl;

static MimDef *cl(Cl *c, MimDef *old);
static MimDef *cl_cb(void *ctx, MimDef *op) { return cl(ctx, op); }

/* the slot of leaf in the record of block b */
static size_t slot_of(Rev *rv, long b, MimDef *leaf) {
    Vec *s = &rv->slots[b];
    for (size_t j = 0; j < s->n; ++j)
        if (s->d[j] == leaf) return j;
    vpush(s, leaf);
    return s->n - 1;
}

static MimDef *carried_ctr(Cl *c, long x, size_t i);

static MimDef *cl_leaf(Cl *c, MimDef *old, long x, size_t i) {
    Rev *rv = c->rv;
    MimWorld *w = rv->w;
    MimDef *T = comp_type(w, dom_of(w, rv->blk.d[x]), i);
    if (is_mem(T)) return c->mem;
    if (c->mode == CL_FWD) {
        MimDef *fv = mim_var(w, rv->fwd[x]);
        MimDef *args = mim_proj(w, fv, 2, 0);
        return mim_proj(w, args, arity(w, dom_of(w, rv->blk.d[x])), i);
    }
    MimDef *ctr = carried_ctr(c, x, i);
    if (ctr) return ctr;
    if (!wordable(rv, T)) return fail(rv, old, "a value of this type carried between blocks");
    MimDef *key = leaf_key(rv, x, i), *at;
    uintptr_t up = c->end && rv->above ? (uintptr_t)mim_ptrmap_get(&rv->above[c->b], key) : 0;
    if (up) {
        at = iop(w, MIM_core_wrap_add, c->end, i64(rv, up - 1));
    } else {
        size_t j = slot_of(rv, c->b, key);
        at = iop(w, MIM_core_wrap_sub, c->p, i64(rv, j + 1));
    }
    return from_word(rv, tape_load(rv, c->mem, c->tp, at), T);
}

static MimDef *copy_fn(Rev *rv, MimDef *h);

static MimDef *cl(Cl *c, MimDef *old) {
    Rev *rv = c->rv;
    MimWorld *w = rv->w;
    old = mim_resolve(w, old);
    if (!old || rv->failed) return NULL;
    MimDef *known = mim_ptrmap_get(&c->map, old);
    if (known) return known;
    if (mim_def_is_const(old)) return old;
    if (mim_def_loc(old).begin.row) rv->use = mim_def_loc(old);
    MimDef *res = NULL;
    for (Rev *r = rv; r; r = r->parent) {
        if (old != r->args_old) continue;
        /* f's arguments as a whole: component-wise (a %mem.M is the current token) */
        size_t n = arity(w, r->A);
        MimDef **ops = mim_xcalloc(n, sizeof *ops);
        bool ok = true;
        for (size_t k = 0; k < n && ok; ++k) ok = (ops[k] = cl(c, mim_proj(w, old, n, k))) != NULL;
        res = ok ? mim_tuple(w, ops, n) : NULL;
        free(ops);
        if (res) mim_ptrmap_put(&c->map, old, res);
        return res;
    }
    MimDef *t = top_of(rv, old, false);
    long x;
    size_t i;
    if (t) {
        res = c->mode != CL_COPY && top_is_mem(rv, old) ? c->mem : t;
    } else if (c->mode != CL_COPY && block_leaf(rv, old, &x, &i)) {
        res = cl_leaf(c, old, x, i);
    } else if (mim_def_node(old) == MIM_LAM && mim_def_is_mut(old)) {
        if (c->mode != CL_COPY) return fail(rv, old, "the use of a function as a value");
        MimDef *nl = named(w, mim_def_type(old), "", old);
        if (!nl) return NULL;
        mim_ptrmap_put(&c->map, old, nl);
        MimDef *v = mim_var(w, old);
        if (v) mim_ptrmap_put(&c->map, v, mim_var(w, nl));
        MimDef *body = mim_lam_body(old);
        if (!body) return fail(rv, old, "the function without body");
        MimDef *b2 = cl(c, body);
        return b2 && mim_lam_set(w, nl, mim_lam_filter(old), b2) ? nl : NULL;
    } else if (mim_def_node(old) == MIM_VAR) {
        return fail(rv, old, "the free variable");
    } else if (mim_def_is_mut(old)) {
        return fail(rv, old, "the expression");
    } else {
        if (mim_def_node(old) == MIM_APP && c->mode != CL_COPY) {
            MimDef *ax = mim_app_axiom(old);
            uint64_t id = ax ? mim_axiom_id(ax) : 0;
            if (vm_cl(c, old, &res)) {
                if (res) mim_ptrmap_put(&c->map, old, res);
                return res;
            }
            if (ax && mim_annex_plugin(id) == MIM_mem_ID && id != MIM_mem_load && id != MIM_mem_lea && !vm_allows(rv, id) &&
                mim_match_annex(old, mim_annex_base(id)))
                return fail(rv, ax, "the memory operation (supported: load, store, lea, malloc/alloc/slot/mslot, free, remem)");
            MimDef *g = mim_resolve(w, mim_app_callee(old));
            if (g && mim_def_node(g) == MIM_LAM && mim_def_is_mut(g))
                return fail(rv, old, "the call in the middle of a block");
        }
        size_t n = mim_def_num_ops(old);
        MimDef **ops = mim_xcalloc(n + 1, sizeof *ops);
        bool changed = false;
        if (mim_map_ops(w, old, cl_cb, c, ops, &changed)) res = changed ? mim_rebuild(w, old, mim_def_type(old), ops) : old;
        free(ops);
        if (res && mim_def_node(res) == MIM_APP) res = primal_access(rv, res);
    }
    if (res) mim_ptrmap_put(&c->map, old, res);
    if (res && rv->vm) vm_note_fwd(c, old, res);
    return res;
}

/* the shadow of the pointer expression old (backward) */
static MimDef *shadow(Cl *c, MimDef *old) {
    Rev *rv = c->rv;
    MimWorld *w = rv->w;
    old = mim_resolve(w, old);
    MimDef *known = mim_ptrmap_get(&c->sh, old);
    if (known) return known;
    MimDef *res = top_of(rv, old, true);
    if (!res && mim_def_node(old) == MIM_APP) {
        MimDef *g = mim_app_callee(old), *a = mim_app_arg(old);
        if (mim_match(old, MIM_mem_lea)) {
            MimDef *sp = shadow(c, mim_proj(w, a, 2, 0)), *i = sp ? cl(c, mim_proj(w, a, 2, 1)) : NULL;
            if (!i) return NULL;
            res = mim_app(w, g, mim_pair(w, sp, i));
        } else if (mim_match(old, MIM_core_bitcast) && is_ptr(mim_def_type(a))) {
            MimDef *sp = shadow(c, a);
            if (!sp) return NULL;
            res = mim_app(w, g, sp);
        }
    }
    if (!res && !rv->failed) res = vm_shadow(c, old);
    if (!res && !rv->failed) res = vm_param_shadow(c, old);
    if (!res) return fail(rv, old, "the pointer (no shadow: only pointer arguments and offsets into them have one)");
    mim_ptrmap_put(&c->sh, old, res);
    return res;
}

/* ---- the forward sweep ----------------------------------------------------------------- */

/* the %mem.M component of the value v of type T, or dflt */
static MimDef *mem_of(MimWorld *w, MimDef *v, MimDef *T, MimDef *dflt) {
    size_t n = arity(w, T);
    for (size_t i = 0; i < n; ++i)
        if (is_mem(comp_type(w, T, i))) return mim_proj(w, v, n, i);
    return dflt;
}

static MimDef *state(Rev *rv, MimDef *m, MimDef *tp, MimDef *pos, MimDef *cap) {
    MimDef *ops[4] = {m, tp, pos, cap};
    return mim_tuple(rv->w, ops, 4);
}

static MimDef *bwd_start(Rev *rv, MimDef *m, MimDef *tp, MimDef *pos, MimDef *res);
static MimDef *jump_below(Rev *rv, long b, MimDef *S, const bool *row);

/* a value of type T whose %mem.M components are m and whose other
 * components are ⊥ (the unused parts of a shared vjp's arguments and
 * results: the shadows and ȳ of its forward sweep, x̄ returned by it) */
static MimDef *filler(MimWorld *w, MimDef *T, MimDef *m) {
    size_t n = arity(w, T);
    if (n == 1) return is_mem(T) ? m : mim_bot(w, T);
    MimDef **ops = mim_xcalloc(n, sizeof *ops);
    for (size_t i = 0; i < n; ++i) {
        MimDef *Ti = comp_type(w, T, i);
        ops[i] = is_mem(Ti) ? m : mim_bot(w, Ti);
    }
    MimDef *r = mim_tuple(w, ops, n);
    free(ops);
    return r;
}

/* v (of type T) with its %mem.M components replaced by m */
static MimDef *with_mem(MimWorld *w, MimDef *v, MimDef *T, MimDef *m) {
    size_t n = arity(w, T);
    if (n == 1) return is_mem(T) ? m : v;
    MimDef **ops = mim_xcalloc(n, sizeof *ops);
    for (size_t i = 0; i < n; ++i) ops[i] = is_mem(comp_type(w, T, i)) ? m : mim_proj(w, v, n, i);
    MimDef *r = mim_tuple(w, ops, n);
    free(ops);
    return r;
}

/* The jump to k (a block or f's return continuation) with the value r. */
static MimDef *fwd_goto(Cl *c, MimDef *k, MimDef *r, MimDef *tp, MimDef *pos, MimDef *cap) {
    Rev *rv = c->rv;
    MimWorld *w = rv->w;
    MimDef *m = mem_of(w, r, mim_def_type(r), c->mem);
    r = vm_tape_late(c, r, &m, tp, pos); /* the loaded values of c's block the backward sweep reads */
    if (k == rv->kold && rv->shared) { /* f's forward sweep ends: back to the caller with its tape */
        MimDef *ops[3];
        ops[0] = r;
        ops[1] = filler(w, rv->A, m);
        ops[2] = state(rv, m, tp, pos, cap);
        return mim_app(w, rv->kret, mim_tuple(w, ops, 3));
    }
    if (k == rv->kold) return bwd_start(rv, m, tp, pos, r);
    long b = block_of(rv, k);
    if (b <= 0) return fail(rv, k, "the continuation");
    return mim_app(w, rv->fwd[b], mim_pair(w, r, state(rv, m, tp, pos, cap)));
}

static bool split_call(Rev *rv, MimDef *h, MimDef *arg, MimDef **args, MimDef **k, size_t *n) {
    MimWorld *w = rv->w;
    MimDef *A, *R;
    if (!autodiff_fn_parts(w, mim_def_type(h), &A, &R, n)) return false;
    if (*n) {
        MimDef **ops = mim_xcalloc(*n, sizeof *ops);
        for (size_t i = 0; i < *n; ++i) ops[i] = mim_proj(w, arg, *n + 1, i);
        *args = mim_tuple(w, ops, *n);
        free(ops);
        *k = mim_resolve(w, mim_proj(w, arg, *n + 1, *n));
    } else {
        *args = mim_proj(w, arg, 2, 0);
        *k = mim_resolve(w, mim_proj(w, arg, 2, 1));
    }
    return true;
}
/* h (args, k) with the flattening of h's type */
static MimDef *call(MimWorld *w, MimDef *h, MimDef *args, MimDef *k, size_t n) {
    if (!n) return mim_app(w, h, mim_pair(w, args, k));
    MimDef **ops = mim_xcalloc(n + 1, sizeof *ops);
    for (size_t i = 0; i < n; ++i) ops[i] = mim_proj(w, args, n, i);
    ops[n] = k;
    MimDef *r = mim_app(w, h, mim_tuple(w, ops, n + 1));
    free(ops);
    return r;
}

static bool split_call(Rev *rv, MimDef *h, MimDef *arg, MimDef **args, MimDef **k, size_t *n);

/* The callee and argument of the terminator body; a call of a function
 * inlined as a block (inl) is a jump to that block with the arguments. */
static void target(Rev *rv, MimDef *body, MimDef **g, MimDef **a) {
    MimWorld *w = rv->w;
    *g = mim_resolve(w, mim_app_callee(body)), *a = mim_app_arg(body);
    MimDef *hb = mim_ptrmap_get(&rv->inl, body), *args, *k;
    size_t n;
    if (hb && split_call(rv, *g, *a, &args, &k, &n)) *g = hb, *a = args;
}

static MimDef *fwd_shared_call(Cl *c, MimDef *h, MimDef *args, MimDef *k, MimDef *tp, MimDef *pos, MimDef *cap);

/* The end of a forward block: the primal terminator with the tape state. */
static MimDef *fwd_term(Cl *c, MimDef *body, MimDef *tp, MimDef *pos, MimDef *cap) {
    Rev *rv = c->rv;
    MimWorld *w = rv->w;
    body = mim_resolve(w, body);
    if (mim_def_node(body) != MIM_APP) return fail(rv, body, "the block body");
    if (mim_def_loc(body).begin.row) rv->use = mim_def_loc(body);
    MimDef *g, *a;
    target(rv, body, &g, &a);
    if (g == rv->kold || block_of(rv, g) > 0) {
        MimDef *a2 = cl(c, a);
        return a2 ? fwd_goto(c, g, a2, tp, pos, cap) : NULL;
    }
    if (mim_def_node(g) == MIM_EXTRACT) { /* a branch */
        MimDef *tup = mim_resolve(w, mim_def_op(g, 0));
        size_t n = tup && mim_def_node(tup) == MIM_TUPLE ? mim_def_num_ops(tup) : 0;
        MimDef **ts = mim_xcalloc(n + 1, sizeof *ts);
        bool ok = n > 0;
        for (size_t i = 0; ok && i < n; ++i) {
            long b = block_of(rv, mim_resolve(w, mim_def_op(tup, i)));
            ok = b > 0;
            if (ok) ts[i] = rv->fwd[b];
            long lb = c->b > 0 ? rv->lr_b[c->b] : 0;
            if (ok && lb && rv->lr_h[lb] == c->b && b == rv->lr_e[lb]) ts[i] = rv->lrx[lb]; /* the exit pushes the loop's record */
        }
        MimDef *idx = ok ? cl(c, mim_def_op(g, 1)) : NULL, *a2 = idx ? cl(c, a) : NULL, *res = NULL;
        if (a2) {
            MimDef *m = mem_of(w, a2, mim_def_type(a2), c->mem);
            a2 = vm_tape_late(c, a2, &m, tp, pos);
            MimDef *sel = mim_extract(w, mim_tuple(w, ts, n), idx);
            res = mim_app(w, sel, mim_pair(w, a2, state(rv, m, tp, pos, cap)));
        } else if (!ok) {
            fail(rv, g, "the branch (its targets must be blocks of the function)");
        }
        free(ts);
        return res;
    }
    if (mim_def_node(g) == MIM_LAM && mim_def_is_mut(g) && is_function(w, g)) { /* h (args, k) */
        MimDef *args, *k;
        size_t n;
        if (!split_call(rv, g, a, &args, &k, &n)) return fail(rv, g, "the call");
        if (c->b > 0 && rv->shcall[c->b]) return fwd_shared_call(c, g, args, k, tp, pos, cap);
        MimDef *hc = copy_fn(rv, g), *args2 = hc ? cl(c, args) : NULL;
        if (!args2) return NULL;
        MimDef *kw = named(w, mim_def_type(k), "fwd_", k);
        if (!kw) return NULL;
        if (!set_body(w, kw, fwd_goto(c, k, mim_var(w, kw), tp, pos, cap))) return NULL;
        return call(w, hc, args2, kw, n);
    }
    return fail(rv, g, "the call");
}

static long acc_of(Rev *rv, MimDef *leaf) {
    uintptr_t j = (uintptr_t)mim_ptrmap_get(&rv->acc, leaf);
    return j ? (long)j - 1 : -1;
}

/* block b has float parameters (accumulators) */
static bool has_acc(Rev *rv, long b) {
    MimWorld *w = rv->w;
    size_t n = arity(w, dom_of(w, rv->blk.d[b]));
    for (size_t i = 0; i < n; ++i)
        if (acc_of(rv, leaf_key(rv, b, i)) >= 0) return true;
    return false;
}

/* B's reverse does nothing: B jumps or branches to blocks without float
 * parameters (no adjoint to take over, nothing to propagate) */
static bool is_trivial(Rev *rv, long b) {
    MimWorld *w = rv->w;
    MimDef *body = mim_resolve(w, mim_lam_body(rv->blk.d[b]));
    if (mim_def_node(body) != MIM_APP) return false;
    MimDef *g, *a;
    target(rv, body, &g, &a);
    long t = block_of(rv, g);
    if (t > 0) return !has_acc(rv, t);
    if (mim_def_node(g) != MIM_EXTRACT) return false;
    MimDef *tup = mim_resolve(w, mim_def_op(g, 0));
    if (!tup || mim_def_node(tup) != MIM_TUPLE) return false;
    for (size_t i = 0, n = mim_def_num_ops(tup); i < n; ++i) {
        long k = block_of(rv, mim_resolve(w, mim_def_op(tup, i)));
        if (k <= 0 || has_acc(rv, k)) return false;
    }
    return true;
}

/* what follows a pushed record: B's statements, or the jump of a counted
 * loop's exit wrapper to fwd_E */
typedef MimDef *Then(Cl *c, void *ctx, MimDef *tp, MimDef *pos, MimDef *cap);

/* fl's body (S: the tape state [M, TP, pos, cap] fl receives): push a
 * record (the values of leaves[0..n), leaves[j] at pos + n − 1 − j, then
 * the word extra if not NULL, then the block number id), growing the tape
 * when full, then then(…). */
static bool push_then(Rev *rv, long b, long rec, MimDef *fl, MimDef *S, MimDef *B, MimDef **leaves, size_t n, MimDef *extra,
                      uint64_t id, Then *then, void *ctx) {
    MimWorld *w = rv->w;
    MimDef *m0 = mim_proj(w, S, 4, 0), *tp = mim_proj(w, S, 4, 1), *pos = mim_proj(w, S, 4, 2);
    MimDef *cap = mim_proj(w, S, 4, 3);
    bool id_word = !rv->noid[rec];
    size_t ne = extra ? 1 : 0;
    if (!n && !ne && !id_word) { /* an empty record (its slots all read above, plan_above): nothing to push */
        Cl c0 = {.rv = rv, .mode = CL_FWD, .b = b, .mem = m0};
        bool ok0 = set_body(w, fl, then(&c0, ctx, tp, pos, cap));
        mim_ptrmap_free(&c0.map), mim_ptrmap_free(&c0.sh);
        return ok0 && !rv->failed;
    }
    MimDef *need = iop(w, MIM_core_wrap_add, pos, i64(rv, n + ne + id_word));
    /* go (m, tp, cap): the stores and what follows */
    MimDef *gd[3] = {rv->M, rv->TP, rv->I64};
    MimDef *go = named(w, mim_cn(w, mim_sigma(w, gd, 3)), "fwd_go_", B);
    MimDef *gv = mim_var(w, go);
    MimDef *m = mim_proj(w, gv, 3, 0), *gtp = mim_proj(w, gv, 3, 1), *gcap = mim_proj(w, gv, 3, 2);
    Cl c = {.rv = rv, .mode = CL_FWD, .b = b, .mem = m};
    bool ok = false;
    for (size_t j = 0; j < n; ++j) {
        MimDef *leaf = leaves[j];
        if (vm_late(rv, leaf)) continue; /* stored at the block's end (vm_tape_late) */
        MimDef *v = cl(&c, leaf);
        if (!v) goto out;
        MimDef *at = iop(w, MIM_core_wrap_add, pos, i64(rv, n - 1 - j));
        long x;
        size_t i;
        MimDef *T = block_leaf(rv, leaf, &x, &i) ? comp_type(w, dom_of(w, rv->blk.d[x]), i) : mim_def_type(leaf);
        m = tape_store(rv, m, gtp, at, to_word(rv, v, T));
    }
    if (extra) {
        MimDef *at_x = iop(w, MIM_core_wrap_add, pos, i64(rv, n));
        m = tape_store(rv, m, gtp, at_x, extra);
    }
    if (id_word) { /* read by bwd_loop's dispatch */
        MimDef *at_id = iop(w, MIM_core_wrap_add, pos, i64(rv, n + ne));
        m = tape_store(rv, m, gtp, at_id, i64(rv, id));
    }
    c.mem = m;
    if (!set_body(w, go, then(&c, ctx, gtp, need, gcap))) goto out;
    /* grow: realloc to 2·cap + n + 1 + ne words */
    MimDef *nogrow = named(w, mim_cn(w, mim_unit_type(w)), "fwd_keep_", B);
    MimDef *grow = named(w, mim_cn(w, mim_unit_type(w)), "fwd_grow_", B);
    MimDef *rd[2] = {rv->M, rv->TP};
    MimDef *grown = named(w, mim_cn(w, mim_sigma(w, rd, 2)), "fwd_grown_", B);
    MimDef *twice = iop(w, MIM_core_wrap_mul, cap, i64(rv, 2));
    MimDef *more = i64(rv, n + 1 + ne);
    MimDef *newcap = iop(w, MIM_core_wrap_add, twice, more);
    MimDef *gn = mim_var(w, grown);
    MimDef *go_args[3];
    go_args[0] = mim_proj(w, gn, 2, 0);
    go_args[1] = mim_proj(w, gn, 2, 1);
    go_args[2] = newcap;
    if (!set_body(w, grown, mim_app(w, go, mim_tuple(w, go_args, 3)))) goto out;
    MimDef *bytes = bitcast(w, mim_nat(w), iop(w, MIM_core_wrap_mul, newcap, i64(rv, 8)));
    MimDef *ra[4] = {m0, tp, bytes, grown};
    MimDef *rf = realloc_fn(rv);
    if (!rf || !set_body(w, grow, mim_app(w, rf, mim_tuple(w, ra, 4)))) goto out;
    MimDef *ka[3] = {m0, tp, cap};
    if (!set_body(w, nogrow, mim_app(w, go, mim_tuple(w, ka, 3)))) goto out;
    MimDef *full = icmp(w, MIM_core_icmp_ul, cap, need);
    MimDef *br[2] = {nogrow, grow};
    MimDef *sel = mim_extract(w, mim_tuple(w, br, 2), full);
    ok = set_body(w, fl, mim_app(w, sel, mim_unit(w)));
out:
    mim_ptrmap_free(&c.map), mim_ptrmap_free(&c.sh);
    return ok && !rv->failed;
}

static MimDef *then_block(Cl *c, void *ctx, MimDef *tp, MimDef *pos, MimDef *cap) {
    if (c->rv->vm) return vm_fwd_block(c, ctx, tp, pos, cap); /* the shadows of B's allocations first */
    return fwd_term(c, mim_lam_body(ctx), tp, pos, cap);
}

/* ---- calls of nested functions sharing the tape --------------------------------------- */

/* the tape state's type [M, TP, I64 pos, I64 cap] */
static MimDef *state_type(Rev *rv) {
    MimDef *sd[4] = {rv->M, rv->TP, rv->I64, rv->I64};
    return mim_sigma(rv->w, sd, 4);
}

typedef struct { MimDef *kw, *k, *Rh; } Back;

static MimDef *then_back(Cl *c, void *ctx, MimDef *tp, MimDef *pos, MimDef *cap) {
    Back *x = ctx;
    MimWorld *w = c->rv->w;
    MimDef *r = mim_proj(w, mim_var(w, x->kw), 3, 0);
    return fwd_goto(c, x->k, with_mem(w, r, x->Rh, c->mem), tp, pos, cap);
}

/* B's terminator h (args, k) when B calls h's shared vjp (shared_call):
 * h_vjp_shared's forward sweep pushes h's records onto f's tape, then
 * fwd_back_k pushes B's record (its slots, then the position where h's
 * records start, then B's number) and goes on to k. The backward sweep
 * thus meets B's record first, and B's reverse runs h's backward sweep
 * over the records below it (build_bwd): h's forward loops run once. */
static MimDef *fwd_shared_call(Cl *c, MimDef *h, MimDef *args, MimDef *k, MimDef *tp, MimDef *pos, MimDef *cap) {
    Rev *rv = c->rv;
    MimWorld *w = rv->w;
    MimDef *hv = vjp_shared_of(rv, h);
    MimDef *args2 = hv ? cl(c, args) : NULL;
    MimDef *Ah, *Rh;
    size_t nf;
    if (!args2 || !autodiff_fn_parts(w, mim_def_type(h), &Ah, &Rh, &nf)) return NULL;
    MimDef *cd[3] = {Rh, Ah, state_type(rv)};
    MimDef *kw = named(w, mim_cn(w, mim_sigma(w, cd, 3)), "fwd_back_", k);
    if (!kw) return NULL;
    MimDef *S = mim_proj(w, mim_var(w, kw), 3, 2);
    long b = c->b;
    Back x = {kw, k, Rh};
    if (!push_then(rv, b, b, kw, S, rv->blk.d[b], rv->slots[b].d, rv->slots[b].n, pos, (uint64_t)b - 1, then_back, &x))
        return NULL;
    MimDef *in[6];
    in[0] = args2;
    in[1] = filler(w, Ah, c->mem);
    in[2] = filler(w, Rh, c->mem);
    in[3] = state(rv, c->mem, tp, pos, cap);
    in[4] = pos;
    in[5] = mim_lit_bool(w, false);
    MimDef *arg = mim_tuple(w, in, 6);
    return mim_app(w, hv, mim_pair(w, arg, kw));
}

/* Block b's terminator calls a nested function h that is not inlined
 * and can share f's tape: h does not write memory, f does not write
 * or allocate (rv->vm), and b is not block 0 (whose reverse ends the
 * backward sweep: its call keeps the checkpoint, h_vjp) */
static bool shared_call(Rev *rv, long b) {
    MimWorld *w = rv->w;
    if (b <= 0 || rv->vm) return false;
    MimDef *body = mim_resolve(w, mim_lam_body(rv->blk.d[b])), *g, *a, *args, *k;
    if (!body || mim_def_node(body) != MIM_APP) return false;
    target(rv, body, &g, &a);
    size_t n;
    if (!g || mim_def_node(g) != MIM_LAM || !mim_def_is_mut(g) || !is_function(w, g) || !split_call(rv, g, a, &args, &k, &n))
        return false;
    MimPtrMap seen = {0};
    bool wr = vm_writes(w, mim_lam_body(g), &seen);
    mim_ptrmap_free(&seen);
    return !wr;
}

/* fwd_B: push B's record (growing the tape when full), then B's statements;
 * no record if B's reverse is empty or B is a counted loop's body */
static bool build_fwd(Rev *rv, long b) {
    MimWorld *w = rv->w;
    MimDef *B = rv->blk.d[b], *fl = rv->fwd[b];
    if (rv->trivial[b] || rv->lr_h[b] || rv->shcall[b]) { /* a shared call pushes B's record after it returns */
        MimDef *fv = mim_var(w, fl);
        MimDef *S = mim_proj(w, fv, 2, 1);
        MimDef *m0 = mim_proj(w, S, 4, 0), *tp = mim_proj(w, S, 4, 1), *pos = mim_proj(w, S, 4, 2);
        MimDef *cap = mim_proj(w, S, 4, 3);
        Cl c = {.rv = rv, .mode = CL_FWD, .b = b, .mem = m0};
        bool ok = set_body(w, fl, then_block(&c, B, tp, pos, cap));
        mim_ptrmap_free(&c.map), mim_ptrmap_free(&c.sh);
        return ok && !rv->failed;
    }
    MimDef *S = mim_proj(w, mim_var(w, fl), 2, 1);
    return push_then(rv, b, b, fl, S, B, rv->slots[b].d, rv->slots[b].n, NULL, (uint64_t)b - 1, then_block, B);
}

/* ---- the backward sweep ---------------------------------------------------------------- */

/* the backward state: [M, TP, I64 (tape position), R (f's result), accumulators…] */
enum { S_M, S_TP, S_POS, S_RES, S_ACC };

static MimDef *bwd_state(Rev *rv, MimDef *m, MimDef *tp, MimDef *pos, MimDef *res, MimDef **acc) {
    MimWorld *w = rv->w;
    size_t n = S_ACC + rv->accT.n;
    MimDef **ops = mim_xcalloc(n, sizeof *ops);
    ops[S_M] = m, ops[S_TP] = tp, ops[S_POS] = pos, ops[S_RES] = res;
    for (size_t j = 0; j < rv->accT.n; ++j) /* a carried loop's counter (an I64) starts anywhere: its exit record sets it */
        ops[S_ACC + j] = acc[j] ? acc[j] : is_float(rv->accT.d[j]) ? fzero(w, rv->accT.d[j]) : i64(rv, 0);
    MimDef *s = mim_tuple(w, ops, n);
    free(ops);
    return s;
}

static MimDef *bwd_start(Rev *rv, MimDef *m, MimDef *tp, MimDef *pos, MimDef *res) {
    MimDef **acc = mim_xcalloc(rv->accT.n + 1, sizeof *acc);
    MimDef *s = bwd_state(rv, m, tp, pos, res, acc);
    free(acc);
    if (rv->ret_row) return jump_below(rv, 0, s, rv->ret_row);
    return mim_app(rv->w, rv->loop, s);
}

/* adjoints of the expressions of one block (old ↦ new adjoint) */
typedef struct Adj {
    Cl *c;
    MimPtrMap adj;
    MimDef **acc; /* the accumulators, updated in place */
} Adj;


static bool adj_add2(Adj *ad, MimDef *old, MimDef *v, size_t n, size_t i);

/* adds v to the adjoint of old */
static bool adj_add(Adj *ad, MimDef *old, MimDef *v) {
    Rev *rv = ad->c->rv;
    MimWorld *w = rv->w;
    old = mim_resolve(w, old);
    if (!v) return true;
    MimDef *T = mim_def_type(old);
    long x;
    size_t i;
    MimDef *t = top_of(rv, old, false);
    if (mim_def_node(old) == MIM_TUPLE) {
        size_t n = mim_def_num_ops(old);
        for (size_t k = 0; k < n; ++k)
            if (!adj_add(ad, mim_def_op(old, k), mim_proj(w, v, n, k))) return false;
        return true;
    }
    uint64_t np;
    if (mim_def_node(old) == MIM_PACK && !mim_def_is_mut(old) && mim_literal_arity(w, old, &np) && np <= 64) {
        for (uint64_t k = 0; k < np; ++k) /* ‹n; e›: e gets every component */
            if (!adj_add(ad, mim_def_op(old, 0), mim_proj(w, v, np, k))) return false;
        return true;
    }
    if (t || block_leaf(rv, old, &x, &i)) {
        long j = acc_of(rv, old);
        if (j >= 0) ad->acc[j] = fadd(w, ad->acc[j], v);
        else if (is_float(T)) {
            if (t && rv->parent && !mim_ptrmap_get(&rv->top, old)) return fail(rv, old, "the float of an enclosing function") != NULL;
        }
        return true;
    }
    if (mim_def_node(old) == MIM_VAR || old == rv->args_old) { /* a whole tuple of leaves */
        size_t n = arity(w, T);
        for (size_t k = 0; k < n; ++k)
            if (!adj_add2(ad, old, v, n, k)) return false;
        return true;
    }
    if (mim_match(old, MIM_mem_load)) { /* (m, x) as a whole: x's adjoint */
        size_t n = arity(w, T);
        return adj_add2(ad, old, v, n, n - 1);
    }
    if (!is_float(T) && !float_agg(w, T)) {
        if (autodiff_is_idx(w, T) || is_mem(T) || is_ptr(T) || plain_agg(w, T)) return true;
        return fail(rv, old, "the expression of this type") != NULL;
    }
    /* the value of a load: its adjoint is kept on the load itself (the
     * pair (m, x) may be used as a whole, without this extract) */
    if (mim_def_node(old) == MIM_EXTRACT) {
        MimDef *ld = mim_resolve(w, mim_def_op(old, 0));
        uint64_t k;
        if (mim_match(ld, MIM_mem_load) && mim_def_lit(mim_def_op(old, 1), &k) && k == 1) old = ld;
    }
    bool taken = false; /* a load of another block: its adjoint waits in an accumulator (vm_adj_load) */
    if (mim_match(old, MIM_mem_load) && (!vm_adj_load(ad, old, v, &taken) || taken)) return !rv->failed;
    MimDef *prev = mim_ptrmap_get(&ad->adj, old);
    mim_ptrmap_put(&ad->adj, old, vadd(w, prev, v));
    return true;
}

/* adds component i of v to the adjoint of component i of old (arity n) */
static bool adj_add2(Adj *ad, MimDef *old, MimDef *v, size_t n, size_t i) {
    MimDef *oi = mim_proj(ad->c->rv->w, old, n, i);
    MimDef *vi = mim_proj(ad->c->rv->w, v, n, i);
    return adj_add(ad, oi, vi);
}

/* post-order of the expressions below e (within the block) */
static void topo(Rev *rv, MimDef *e, MimPtrMap *seen, Vec *out) {
    MimWorld *w = rv->w;
    e = mim_resolve(w, e);
    if (!e || mim_def_is_const(e) || mim_def_is_mut(e) || mim_def_node(e) == MIM_VAR || mim_ptrmap_has(seen, e)) return;
    mim_ptrmap_put(seen, e, e);
    for (size_t i = 0, n = mim_def_num_ops(e); i < n; ++i) topo(rv, mim_def_op(e, i), seen, out);
    vpush(out, e);
}

/* the adjoint of one expression, propagated to its operands */
static bool adj_node(Adj *ad, MimDef *e, MimDef *s) {
    Cl *c = ad->c;
    Rev *rv = c->rv;
    MimWorld *w = rv->w;
    if (mim_match(e, MIM_mem_load)) { /* x = p[i]: shadow_p[i] += x̄ */
        {
            MimDef *t = e;
            if (mim_def_loc(e).begin.row) rv->use = mim_def_loc(e); /* (an error about its pointer points here) */
            MimDef *g = mim_app_callee(t);
            MimDef *sp = shadow(c, mim_proj(w, mim_app_arg(t), 2, 1));
            if (!sp) return false;
            sp = in_region(rv, REGION_SHADOW, sp);
            MimDef *r = mim_app(w, g, mim_pair(w, c->mem, sp));
            MimDef *st = mim_app(w, annex(w, MIM_mem_store), mim_app_arg(g));
            MimDef *ops[3];
            ops[0] = mim_proj(w, r, 2, 0);
            ops[1] = sp;
            ops[2] = vadd(w, mim_proj(w, r, 2, 1), s);
            c->mem = mim_app(w, st, mim_tuple(w, ops, 3));
            return true;
        }
    }
    if (mim_def_node(e) == MIM_EXTRACT) {
        MimDef *t = mim_resolve(w, mim_def_op(e, 0));
        if (t && mim_def_node(t) == MIM_TUPLE) { /* a select (a, b)#c: s to the chosen one */
            MimDef *idx = cl(c, mim_def_op(e, 1));
            if (!idx) return false;
            size_t n = mim_def_num_ops(t);
            MimDef **ops = mim_xcalloc(n, sizeof *ops);
            MimDef *z = fzero(w, mim_def_type(e));
            bool ok = true;
            for (size_t k2 = 0; k2 < n && ok; ++k2) {
                for (size_t j = 0; j < n; ++j) ops[j] = j == k2 ? s : z;
                ok = adj_add(ad, mim_def_op(t, k2), mim_extract(w, mim_tuple(w, ops, n), idx));
            }
            free(ops);
            return ok;
        }
        if (vm_extract_rev(ad, e, s)) return !rv->failed;
        return fail(rv, e, "the extract") != NULL;
    }
    if (mim_def_node(e) == MIM_APP) {
        AdMathKind k = autodiff_math_kind(e);
        MimDef *ax = mim_app_axiom(e);
        if (k == AD_MATH_ZERO) return true;
        if (k == AD_MATH_NOT || k == AD_MATH_NONE)
            return fail(rv, ax ? ax : e, "the operation (no derivative)") != NULL;
        if (mim_def_dep(mim_app_callee(e)) & MIM_DEP_VAR) return fail(rv, ax, "the axiom with a variable format or mode") != NULL;
        MimDef *a = mim_app_arg(e);
        uint64_t id = mim_axiom_id(ax);
        if (id == MIM_math_arith_add || id == MIM_math_arith_sub) { /* linear: no primal values needed */
            MimDef *ns = s;
            if (id == MIM_math_arith_sub) {
                MimDef *sub = mim_app(w, mim_app_callee(e), mim_pair(w, fzero(w, mim_def_type(e)), s));
                ns = sub;
            }
            return adj_add(ad, mim_proj(w, a, 2, 0), s) && adj_add(ad, mim_proj(w, a, 2, 1), ns);
        }
        if (id == MIM_math_arith_mul) { /* by a constant k: only k·s (the other operand's adjoint is dropped: not taped for it) */
            MimDef *a0 = mim_resolve(w, mim_proj(w, a, 2, 0)), *a1 = mim_resolve(w, mim_proj(w, a, 2, 1));
            bool k0 = a0 && mim_def_is_const(a0), k1 = a1 && mim_def_is_const(a1);
            if (k0 != k1) return adj_add(ad, k0 ? a1 : a0, mim_app(w, mim_app_callee(e), mim_pair(w, s, k0 ? a0 : a1)));
        }
        MimDef *a2 = cl(c, a), *r2 = a2 ? cl(c, e) : NULL;
        if (!r2) return false;
        MimDef *t = autodiff_math_tangent(w, e, a2, r2, s);
        if (!t) return fail(rv, ax, "the axiom (no derivative)") != NULL;
        return adj_add(ad, a, t);
    }
    return fail(rv, e, "the expression") != NULL;
}

/* propagates the seeded adjoints through the expressions below root */
static bool propagate(Adj *ad, MimDef *root) {
    Rev *rv = ad->c->rv;
    MimPtrMap seen = {0};
    Vec order = {0};
    topo(rv, root, &seen, &order);
    bool ok = true;
    for (size_t k = order.n; ok && k-- > 0;) {
        MimDef *s = mim_ptrmap_get(&ad->adj, order.d[k]);
        if (s) ok = adj_node(ad, order.d[k], s);
        else if (rv->vm && mim_match(order.d[k], MIM_mem_store)) ok = vm_store_rev(ad, order.d[k]);
    }
    mim_ptrmap_free(&seen);
    free(order.d);
    return ok && !rv->failed;
}

/* the seeds of a jump into the block k with the argument a: the
 * accumulators of k's float parameters (then cleared) */
static bool seed_jump(Adj *ad, long k, MimDef *a) {
    Rev *rv = ad->c->rv;
    MimWorld *w = rv->w;
    MimDef *K = rv->blk.d[k];
    size_t n = arity(w, dom_of(w, K));
    /* all seeds are read and cleared before any is propagated: the
     * argument may use k's own parameters (a loop's previous values) */
    MimDef **seeds = mim_xcalloc(n, sizeof *seeds);
    for (size_t i = 0; i < n; ++i) {
        long j = acc_of(rv, leaf_key(rv, k, i));
        if (j < 0) continue;
        seeds[i] = ad->acc[j];
        ad->acc[j] = NULL;
    }
    bool ok = true;
    for (size_t i = 0; i < n && ok; ++i)
        if (seeds[i]) ok = adj_add(ad, mim_proj(w, a, n, i), seeds[i]);
    free(seeds);
    return ok;
}

static MimDef *bwd_finish(Rev *rv, Adj *ad, MimDef *res, bool tape);
static long carried_head(Rev *rv, long b);

/* bwd_next_B (state): where the backward sweep goes after popping block
 * b's record (or its counted loop's); its body is set by link_next */
static MimDef *next_of(Rev *rv, long b) {
    if (!rv->nxt[b]) rv->nxt[b] = named(rv->w, mim_cn(rv->w, rv->BS), "bwd_next_", rv->blk.d[b]);
    return rv->nxt[b];
}

/* The reverse of block b, built into lam (state S): seeds from its
 * terminator, then the propagation; returns false after an error. */
static bool build_bwd(Rev *rv, long b, MimDef *lam, MimDef *S, MimDef *p) {
    MimWorld *w = rv->w;
    MimDef *B = rv->blk.d[b];
    size_t ns = S_ACC + rv->accT.n;
    /* B calls a shared vjp: B's record holds the start of h's records on top (fwd_shared_call) */
    bool sh = b > 0 && S && rv->shcall[b];
    MimDef *entry = lam, *callh = NULL, *base = NULL;
    Cl c = {.rv = rv, .mode = CL_BWD, .b = b, .p = sh ? iop(w, MIM_core_wrap_sub, p, i64(rv, 1)) : p};
    if (p && rv->above && rv->above[b].len && !rv->lr_next) c.end = rv->noid[b] ? p : iop(w, MIM_core_wrap_add, p, i64(rv, 1));
    c.mem = S ? mim_proj(w, S, ns, S_M) : mim_proj(w, rv->x, arity(w, rv->A), rv->mpos);
    c.tp = S ? mim_proj(w, S, ns, S_TP) : NULL;
    c.st = S;
    for (size_t j = 0; rv->lr_next && j < rv->lr_over.cap; ++j) /* a counted loop's counter and record */
        if (rv->lr_over.slots[j].key) mim_ptrmap_put(&c.map, (MimDef *)rv->lr_over.slots[j].key, rv->lr_over.slots[j].val);
    Adj ad = {.c = &c};
    ad.acc = mim_xcalloc(rv->accT.n + 1, sizeof *ad.acc);
    for (size_t j = 0; S && j < rv->accT.n; ++j) ad.acc[j] = mim_proj(w, S, ns, S_ACC + j);
    bool ok = false;
    MimDef *body = mim_resolve(w, mim_lam_body(B));
    if (mim_def_loc(body).begin.row) rv->use = mim_def_loc(body);
    MimDef *g, *a;
    target(rv, body, &g, &a);
    MimDef *res = S ? mim_proj(w, S, ns, S_RES) : NULL;
    if (g == rv->kold) { /* return: the seed is ȳ */
        size_t n = arity(w, rv->R);
        for (size_t i = 0; i < n; ++i)
            if (is_float(comp_type(w, rv->R, i)) && !adj_add2(&ad, a, rv->ybar, n, i))
                goto out;
    } else if (block_of(rv, g) > 0) {
        if (!seed_jump(&ad, block_of(rv, g), a)) goto out;
    } else if (mim_def_node(g) == MIM_EXTRACT) {
        MimDef *tup = mim_resolve(w, mim_def_op(g, 0));
        size_t n = mim_def_num_ops(tup);
        size_t na = arity(w, dom_of(w, mim_resolve(w, mim_def_op(tup, 0))));
        MimDef *idx = NULL;
        MimDef **bseeds = mim_xcalloc(na + 1, sizeof *bseeds);
        for (size_t i = 0; i < na; ++i) {
            /* component i: the accumulator of the chosen target; the chosen one is cleared */
            MimDef **sv = mim_xcalloc(n, sizeof *sv);
            long *js = mim_xcalloc(n, sizeof *js);
            bool any = false;
            MimDef *T = NULL;
            for (size_t k = 0; k < n; ++k) {
                js[k] = acc_of(rv, leaf_key(rv, block_of(rv, mim_resolve(w, mim_def_op(tup, k))), i));
                if (js[k] >= 0) any = true, T = rv->accT.d[js[k]];
            }
            if (any && !idx) idx = cl(&c, mim_def_op(g, 1));
            if (any && idx) {
                for (size_t k = 0; k < n; ++k) sv[k] = js[k] >= 0 && ad.acc[js[k]] ? ad.acc[js[k]] : fzero(w, T);
                MimDef *seed = mim_extract(w, mim_tuple(w, sv, n), idx);
                for (size_t k = 0; k < n; ++k) {
                    if (js[k] < 0) continue;
                    MimDef *cur = ad.acc[js[k]] ? ad.acc[js[k]] : fzero(w, T);
                    for (size_t k2 = 0; k2 < n; ++k2)
                        sv[k2] = block_of(rv, mim_resolve(w, mim_def_op(tup, k2))) ==
                                         block_of(rv, mim_resolve(w, mim_def_op(tup, k)))
                                     ? fzero(w, T)
                                     : cur;
                    ad.acc[js[k]] = mim_extract(w, mim_tuple(w, sv, n), idx);
                }
                bseeds[i] = seed;
            }
            free(sv);
            free(js);
            if (any && !idx) {
                free(bseeds);
                goto out;
            }
        }
        bool bok = true;
        for (size_t i = 0; i < na && bok; ++i)
            if (bseeds[i]) bok = adj_add(&ad, mim_proj(w, a, na, i), bseeds[i]);
        free(bseeds);
        if (!bok) goto out;
    } else if (mim_def_node(g) == MIM_LAM && is_function(w, g)) { /* h (args, k): h_vjp, then the rest */
        MimDef *args, *k;
        size_t nf;
        if (!split_call(rv, g, a, &args, &k, &nf)) goto out;
        if (S && !vm_checkpoint_ok(rv, g)) goto out;
        MimDef *hv = sh ? vjp_shared_of(rv, g) : vjp_of(rv, g);
        if (!hv) goto out;
        MimDef *Ah, *Rh;
        size_t dummy;
        autodiff_fn_parts(w, mim_def_type(g), &Ah, &Rh, &dummy);
        size_t nr = arity(w, Rh), na = arity(w, Ah);
        MimDef **rb = mim_xcalloc(nr + na + 1, sizeof *rb);
        long kb = block_of(rv, k);
        MimDef *args2 = cl(&c, args);
        for (size_t i = 0; args2 && i < nr; ++i) {
            MimDef *T = comp_type(w, Rh, i);
            if (k == rv->kold) rb[i] = mim_proj(w, rv->ybar, nr, i);
            else if (is_float(T)) {
                long j = kb > 0 ? acc_of(rv, leaf_key(rv, kb, i)) : -1;
                rb[i] = j >= 0 && ad.acc[j] ? ad.acc[j] : fzero(w, T);
                if (j >= 0) ad.acc[j] = NULL;
            } else rb[i] = is_mem(T) ? c.mem : mim_bot(w, T);
        }
        MimDef *rbar = args2 ? tuple_n(w, rb, nr) : NULL;
        for (size_t i = 0; rbar && i < na; ++i) { /* the shadows of h's arguments */
            MimDef *T = comp_type(w, Ah, i), *ai = mim_proj(w, args, na, i);
            rb[i] = is_ptr(T) ? shadow(&c, ai) : is_mem(T) ? c.mem : is_float(T) ? fzero(w, T) : mim_proj(w, args2, na, i);
            if (!rb[i]) rbar = NULL;
        }
        MimDef *sargs = rbar ? tuple_n(w, rb, na) : NULL;
        free(rb);
        if (!sargs) goto out;
        MimDef *cd[3] = {Rh, Ah, sh ? state_type(rv) : NULL};
        MimDef *cont = named(w, mim_cn(w, mim_sigma(w, cd, sh ? 3 : 2)), "bwd_cont_", B);
        MimDef *cv = mim_var(w, cont);
        MimDef *abar = mim_proj(w, cv, sh ? 3 : 2, 1);
        MimDef *callb;
        if (sh) { /* h's backward sweep over its records, below B's; their top is bwd_call_B's parameter (set below) */
            callh = named(w, mim_cn(w, rv->I64), "bwd_call_", B);
            if (!callh) goto out;
            base = tape_load(rv, c.mem, c.tp, c.p);
            MimDef *in[6];
            in[0] = args2;
            in[1] = sargs;
            in[2] = rbar;
            MimDef *ptop = mim_var(w, callh);
            MimDef *cap0 = i64(rv, 0);
            in[3] = state(rv, c.mem, c.tp, ptop, cap0);
            in[4] = base;
            in[5] = mim_lit_bool(w, true);
            MimDef *arg = mim_tuple(w, in, 6);
            if (!set_body(w, callh, mim_app(w, hv, mim_pair(w, arg, cont)))) goto out;
        } else {
            MimDef *in[3] = {args2, sargs, rbar};
            callb = mim_app(w, hv, mim_pair(w, mim_tuple(w, in, 3), cont));
            if (!set_body(w, lam, callb)) goto out;
        }
        c.mem = mem_of(w, abar, Ah, c.mem);
        for (size_t i = 0; i < na; ++i)
            if (is_float(comp_type(w, Ah, i)) && !adj_add2(&ad, args, abar, na, i))
                goto out;
        lam = cont;
        a = args;
        if (!S) res = mim_proj(w, cv, 2, 0); /* a tail call of the whole function: h's result */
    } else {
        fail(rv, g, "the call");
        goto out;
    }
    if (!vm_seed_cross(&ad, b) || !propagate(&ad, a) || !vm_free_loop(&c, b)) goto out;
    {
        MimDef *end;
        if (b == 0) {
            end = bwd_finish(rv, &ad, res, S != NULL);
        } else if (rv->lr_next) { /* a counted loop's body: the next (lower) counter */
            MimDef *st = bwd_state(rv, c.mem, c.tp, p, res, ad.acc);
            MimDef **ops = mim_xcalloc(rv->lr_nrest + 1, sizeof *ops);
            ops[0] = st;
            for (size_t j = 0; j < rv->lr_nrest; ++j) ops[j + 1] = rv->lr_rest[j];
            end = mim_app(w, rv->lr_next, mim_tuple(w, ops, rv->lr_nrest + 1));
            free(ops);
        } else {
            MimDef *pos = sh ? base : iop(w, MIM_core_wrap_sub, p, i64(rv, rv->slots[b].n));
            long ch = carried_head(rv, b);
            if (ch) /* a carried loop's body entry: its iteration's reverse is done, the counter goes down */
                ad.acc[rv->cr[ch].acc] = iop(w, MIM_core_wrap_sub, ad.acc[rv->cr[ch].acc], i64(rv, 1));
            MimDef *nx = next_of(rv, b);
            end = nx ? mim_app(w, nx, bwd_state(rv, c.mem, c.tp, pos, res, ad.acc)) : NULL;
        }
        ok = set_body(w, lam, end);
        if (ok && sh) /* h's records end where B's starts; B's slots are all known now */
            ok = set_body(w, entry, mim_app(w, callh, iop(w, MIM_core_wrap_sub, c.p, i64(rv, rv->slots[b].n))));
    }
out:
    free(ad.acc);
    mim_ptrmap_free(&ad.adj);
    mim_ptrmap_free(&c.map), mim_ptrmap_free(&c.sh);
    return ok && !rv->failed;
}

/* the end of the backward sweep (after block 0's reverse): free the tape
 * and return (result, x̄) */
static MimDef *bwd_finish_with(Rev *rv, Adj *ad, MimDef *res, MimDef *m);
static MimDef *bwd_finish(Rev *rv, Adj *ad, MimDef *res, bool tape) {
    MimWorld *w = rv->w;
    Cl *c = ad->c;
    if (!tape || rv->shared) return bwd_finish_with(rv, ad, res, c->mem);
    /* the tape goes back to the runtime, then bwd_done_f returns */
    MimDef *done = named(w, mim_cn(w, rv->M), "bwd_done_", rv->f);
    MimDef *fr = tape_free_fn(rv);
    if (!done || !fr || !set_body(w, done, bwd_finish_with(rv, ad, res, mim_var(w, done)))) return NULL;
    MimDef *fa[3] = {c->mem, c->tp, done};
    return mim_app(w, fr, mim_tuple(w, fa, 3));
}
/* bwd_finish after the tape's free (m: the memory then) */
static MimDef *bwd_finish_with(Rev *rv, Adj *ad, MimDef *res, MimDef *m) {
    MimWorld *w = rv->w;
    Cl *c = ad->c;
    m = vm_free_all(rv, m); /* the shadows, and the buffers whose free f deferred */
    size_t nr = arity(w, rv->R), na = arity(w, rv->A);
    size_t nmax = nr > na ? nr : na;
    MimDef **ops = mim_xcalloc(nmax + 1, sizeof *ops);
    for (size_t i = 0; i < nr; ++i) ops[i] = is_mem(comp_type(w, rv->R, i)) ? m : mim_proj(w, res, nr, i);
    MimDef *r = tuple_n(w, ops, nr);
    for (size_t i = 0; i < na; ++i) {
        MimDef *T = comp_type(w, rv->A, i);
        MimDef *key = rv->nflat ? mim_var_proj(w, rv->f, rv->nflat + 1, i)
                                : mim_proj(w, mim_var_proj(w, rv->f, 2, 0), na, i);
        long j = acc_of(rv, key);
        if (is_mem(T)) ops[i] = m;
        else if (j >= 0) ops[i] = ad->acc[j] ? ad->acc[j] : fzero(w, T);
        else if (is_ptr(T)) ops[i] = mim_proj(w, rv->sx, na, i);
        else if (autodiff_is_idx(w, T)) ops[i] = mim_lit(w, T, 0);
        else ops[i] = mim_bot(w, T);
    }
    MimDef *xb = tuple_n(w, ops, na);
    free(ops);
    if (rv->shared) { /* the tape stays the caller's: its position is back at base */
        MimDef *cap = mim_proj(w, rv->st_in, 4, 3);
        MimDef *out[3];
        out[0] = r;
        out[1] = xb;
        out[2] = state(rv, m, c->tp, rv->base, cap);
        return mim_app(w, rv->kret, mim_tuple(w, out, 3));
    }
    return mim_app(w, rv->kret, mim_pair(w, r, xb));
}

/* ---- counted loops ----------------------------------------------------------------------- */

/* e mentions a parameter of block h or b (b < 0: of h only) through any
 * operand, the memory chain included; mutables are not entered. With
 * floats_only, a single parameter counts only if it is a float (a use of
 * the block's whole parameter tuple always counts). */
static bool mentions_param(Rev *rv, MimDef *e, long h, long b, bool floats_only, MimPtrMap *seen) {
    MimWorld *w = rv->w;
    e = mim_resolve(w, e);
    if (!e || mim_def_is_const(e) || mim_ptrmap_has(seen, e)) return false;
    mim_ptrmap_put(seen, e, e);
    long x;
    size_t i;
    if (block_leaf(rv, e, &x, &i))
        return (x == h || (b >= 0 && x == b)) && (!floats_only || is_float(comp_type(w, dom_of(w, rv->blk.d[x]), i)));
    if (mim_def_node(e) == MIM_VAR) {
        long y = block_of(rv, mim_def_op(e, 0)); /* -1: not a block */
        return y == h || (b >= 0 && y == b);
    }
    if (mim_def_is_mut(e)) return false;
    for (size_t j = 0, n = mim_def_num_ops(e); j < n; ++j)
        if (mentions_param(rv, mim_def_op(e, j), h, b, floats_only, seen)) return true;
    return false;
}

/* e uses a parameter of block h or b */
static bool varies(Rev *rv, MimDef *e, long h, long b, MimPtrMap *seen) {
    return mentions_param(rv, e, h, b, false, seen);
}

/* component i of a (the argument of a jump to block h) is h#i + 1, an I64 */
static bool plus_one(Rev *rv, MimDef *a, long h, size_t i) {
    MimWorld *w = rv->w;
    MimDef *DH = dom_of(w, rv->blk.d[h]);
    size_t nh = arity(w, DH);
    MimDef *ai = mim_resolve(w, mim_proj(w, a, nh, i));
    if (!is_i64(w, comp_type(w, DH, i)) || !ai || !mim_match(ai, MIM_core_wrap_add)) return false;
    MimDef *pr = mim_app_arg(ai);
    MimDef *key = mim_resolve(w, leaf_key(rv, h, i));
    for (size_t o = 0; o < 2; ++o) { /* s + 1 or 1 + s (the normalizer puts literals first) */
        uint64_t one;
        if (mim_resolve(w, mim_proj(w, pr, 2, o)) == key && mim_def_lit(mim_proj(w, pr, 2, 1 - o), &one) && one == 1) return true;
    }
    return false;
}

/* Block b (B) is the body of a counted loop: B's parameters are memory
 * only, B jumps to its header H with the counter H#k + 1 (an I64), H
 * pushes no record and branches between B and its exit E, and every other
 * jump into H passes the same literal start s0 for the counter (no branch
 * or call enters H). B then ran for the counters s0, s0 + 1, …, s − 1,
 * where s is the counter at H's exit: B pushes no record; the exit pushes
 * one (s and what B's reverse reads from the enclosing blocks), and the
 * backward sweep runs B's reverse for the counters s − 1 down to s0, as
 * Enzyme recomputes induction variables instead of taping them. */
static bool counted_loop(Rev *rv, long b) {
    MimWorld *w = rv->w;
    MimDef *B = rv->blk.d[b], *D = dom_of(w, B);
    for (size_t i = 0, n = arity(w, D); i < n; ++i)
        if (!is_mem(comp_type(w, D, i))) return false;
    MimDef *body = mim_resolve(w, mim_lam_body(B)), *g, *a;
    if (!body || mim_def_node(body) != MIM_APP) return false;
    target(rv, body, &g, &a);
    long h = block_of(rv, g);
    if (h <= 0 || h == b || !rv->trivial[h] || rv->lr_b[h]) return false;
    MimDef *H = rv->blk.d[h], *DH = dom_of(w, H);
    size_t nh = arity(w, DH), k = nh;
    for (size_t i = 0; i < nh && k == nh; ++i)
        if (plus_one(rv, a, h, i)) k = i;
    if (k == nh) return false;
    MimDef *hb = mim_resolve(w, mim_lam_body(H)), *hg, *ha;
    if (!hb || mim_def_node(hb) != MIM_APP) return false;
    target(rv, hb, &hg, &ha);
    if (mim_def_node(hg) != MIM_EXTRACT) return false;
    MimDef *tup = mim_resolve(w, mim_def_op(hg, 0));
    if (!tup || mim_def_node(tup) != MIM_TUPLE || mim_def_num_ops(tup) != 2) return false;
    long t0 = block_of(rv, mim_resolve(w, mim_def_op(tup, 0))), t1 = block_of(rv, mim_resolve(w, mim_def_op(tup, 1)));
    long e = t0 == b ? t1 : t1 == b ? t0 : -1;
    if (e <= 0 || e == b || e == h) return false;
    MimDef *s0 = NULL;
    for (size_t x = 0; x < rv->blk.n; ++x) {
        if ((long)x == b) continue;
        MimDef *xb = mim_resolve(w, mim_lam_body(rv->blk.d[x])), *xg, *xa;
        if (!xb || mim_def_node(xb) != MIM_APP) return false;
        target(rv, xb, &xg, &xa);
        if (xg == H) {
            MimDef *v = mim_resolve(w, mim_proj(w, xa, nh, k));
            uint64_t lit;
            if (!v || !mim_def_lit(v, &lit) || (s0 && v != s0)) return false;
            s0 = v;
        } else if (mim_def_node(xg) == MIM_EXTRACT) {
            MimDef *t = mim_resolve(w, mim_def_op(xg, 0));
            for (size_t j = 0, n = t && mim_def_node(t) == MIM_TUPLE ? mim_def_num_ops(t) : 0; j < n; ++j)
                if (mim_resolve(w, mim_def_op(t, j)) == H) return false;
        } else if (mim_def_node(xg) == MIM_LAM && is_function(w, xg)) {
            MimDef *args, *kk;
            size_t n;
            if (!split_call(rv, xg, xa, &args, &kk, &n) || kk == H) return false;
        }
    }
    if (!s0) return false;
    rv->lr_h[b] = h, rv->lr_k[b] = k, rv->lr_s0[b] = s0, rv->lr_e[b] = e, rv->lr_b[h] = b;
    /* H branches to B while counter < bound (signed), bound computed
     * from values of enclosing blocks: the counter at the exit is
     * max(s0, bound), the exit record need not hold it (when f writes,
     * only if the loop's memory is frozen and the bound reads no memory:
     * memory it reads may have changed by the backward sweep) */
    MimDef *idx = mim_resolve(w, mim_def_op(hg, 1)), *cmp = idx ? mim_match(idx, MIM_core_icmp_sl) : NULL;
    rv->lr_bound[b] = NULL;
    MimPtrMap rd = {0};
    bool invariant_mem = !rv->vm || (cmp && vm_frozen(rv, h) && !vm_reads(w, mim_proj(w, mim_app_arg(cmp), 2, 1), &rd));
    mim_ptrmap_free(&rd);
    if (cmp && t1 == b && invariant_mem) {
        MimDef *pr = mim_app_arg(cmp);
        MimPtrMap seen = {0};
        MimDef *lhs = mim_resolve(w, mim_proj(w, pr, 2, 0));
        MimDef *ctr = mim_resolve(w, leaf_key(rv, h, k));
        MimDef *rhs = mim_proj(w, pr, 2, 1);
        if (lhs == ctr && !varies(rv, rhs, h, b, &seen)) rv->lr_bound[b] = rhs;
        mim_ptrmap_free(&seen);
    }
    return true;
}

/* B's reverse for one counter into the lam more, whose end jumps to
 * head with (state, counter − 1, rest…); the counter and the leaves in
 * over (the loop's record, loaded once) map to the given values */
static bool lr_body(Rev *rv, long b, MimDef *more, MimDef *head, MimDef *S, MimDef *s, MimDef *end, MimDef **rest,
                    size_t nrest) {
    MimWorld *w = rv->w;
    size_t ns = S_ACC + rv->accT.n, lead = end ? 2 : 1;
    /* downwards: B's reverse for s − 1, then head (s − 1, rest…); upwards
     * (end: the exit's counter): for s, then head (s + 1, end, rest…) */
    MimDef *s1 = iop(w, end ? MIM_core_wrap_add : MIM_core_wrap_sub, s, i64(rv, 1));
    mim_ptrmap_put(&rv->lr_over, leaf_key(rv, rv->lr_h[b], rv->lr_k[b]), end ? s : s1);
    MimDef **r = mim_xcalloc(nrest + lead, sizeof *r);
    r[0] = s1;
    if (end) r[1] = end;
    for (size_t j = 0; j < nrest; ++j) r[j + lead] = rest[j];
    rv->lr_next = head, rv->lr_rest = r, rv->lr_nrest = nrest + lead;
    /* the memory token is more's parameter: the reloads stay behind the
     * loop's test (at the exit they would read before the arrays) */
    MimDef **ops = mim_xcalloc(ns, sizeof *ops);
    for (size_t i = 0; i < ns; ++i) ops[i] = i == S_M ? mim_var(w, more) : mim_proj(w, S, ns, i);
    MimDef *S2 = mim_tuple(w, ops, ns);
    free(ops);
    bool ok = build_bwd(rv, b, more, S2, mim_proj(w, S, ns, S_POS));
    rv->lr_next = NULL, rv->lr_rest = NULL, rv->lr_nrest = 0;
    mim_ptrmap_free(&rv->lr_over);
    rv->lr_over = (MimPtrMap){0};
    free(r);
    return ok;
}

/* e mentions a float parameter of block h (or h's whole parameter tuple) */
static bool uses_float_of(Rev *rv, MimDef *e, long h, MimPtrMap *seen) {
    return mentions_param(rv, e, h, -1, true, seen);
}

/* The reverses of the counted loop B's iterations commute, so the backward
 * sweep may run them in the forward order (counter from s0 up to the exit's
 * counter: LLVM vectorizes that loop without reversing its vectors): f
 * does not write memory, or memory is frozen from B on (vm_freeze) (each
 * reverse only adds into shadows and into
 * accumulators), H's parameters are memory, I64 or floats, and each float
 * t of H reaches B's jump back only as its own argument, alone or plus a
 * term not depending on H's floats (t ↦ t or t + e): the adjoint of t is
 * then the same in every iteration, and so is everything B's reverse
 * computes from it. (Sums into one cell or accumulator are made in the
 * other order: the same gradient up to rounding.) */
static bool lr_up(Rev *rv, long b) {
    MimWorld *w = rv->w;
    if (rv->vm && !vm_frozen(rv, b)) return false;
    long h = rv->lr_h[b];
    MimDef *DH = dom_of(w, rv->blk.d[h]);
    MimDef *body = mim_resolve(w, mim_lam_body(rv->blk.d[b])), *g, *a;
    if (!body || mim_def_node(body) != MIM_APP) return false;
    target(rv, body, &g, &a);
    size_t nh = arity(w, DH);
    bool ok = true;
    for (size_t i = 0; i < nh && ok; ++i) {
        MimDef *T = comp_type(w, DH, i);
        MimDef *ai = mim_resolve(w, mim_proj(w, a, nh, i));
        MimPtrMap seen = {0};
        if (!is_float(T)) {
            ok = (is_mem(T) || is_i64(w, T)) && !uses_float_of(rv, ai, h, &seen);
        } else if (ai != mim_resolve(w, leaf_key(rv, h, i))) {
            MimDef *key = mim_resolve(w, leaf_key(rv, h, i)), *pr = ai ? mim_app_arg(ai) : NULL;
            ok = ai && mim_def_node(ai) == MIM_APP && mim_app_axiom(ai) && mim_axiom_id(mim_app_axiom(ai)) == MIM_math_arith_add;
            size_t o = 2;
            for (size_t j = 0; ok && j < 2 && o == 2; ++j)
                if (mim_resolve(w, mim_proj(w, pr, 2, j)) == key) o = j;
            ok = ok && o < 2 && !uses_float_of(rv, mim_proj(w, pr, 2, 1 - o), h, &seen);
        }
        mim_ptrmap_free(&seen);
    }
    return ok;
}

/* The reverse of the counted loop with body b, entered at rv->bwd[b] with
 * the exit's record [s, B's slots…, id] (s the counter at the exit): the
 * entry loads the record once, bwd_lrh (S, s, words…) runs B's reverse for
 * s − 1 while s > s0, then pops the record (when the iterations' reverses
 * commute, lr_up: bwd_lrh (S, u, s, words…) for u from s0 while u < s). A first build of B's reverse
 * finds the slots (the values it reads from enclosing blocks), the second
 * takes them from bwd_lrh's parameters. 1: built; 0: an error; −1: B's
 * reverse reads a value of H or B (it varies per iteration: B keeps its
 * per-iteration records). */
static int build_lr_bwd(Rev *rv, long b) {
    MimWorld *w = rv->w;
    long h = rv->lr_h[b];
    MimDef *B = rv->blk.d[b];
    size_t ns = S_ACC + rv->accT.n;
    bool asc = lr_up(rv, b);
    size_t lead = asc ? 2 : 1; /* the counter (and, upwards, the exit's counter) */
    MimDef *hd[3] = {rv->BS, rv->I64, rv->I64};
    MimDef *probe = named(w, mim_cn(w, mim_sigma(w, hd, lead + 1)), "bwd_lrp_", B);
    MimDef *pmore = named(w, mim_cn(w, rv->M), "bwd_lrq_", B);
    if (!probe || !pmore) return 0;
    rv->slots[b].n = 0;
    MimDef *pv = mim_var(w, probe);
    MimDef *ps = mim_proj(w, pv, lead + 1, 1);
    MimDef *plim = asc ? mim_proj(w, pv, lead + 1, 2) : NULL;
    MimDef *pS = mim_proj(w, pv, lead + 1, 0);
    if (!lr_body(rv, b, pmore, probe, pS, ps, plim, NULL, 0)) return 0;
    MimDef *bound = rv->lr_bound[b];
    if (bound) { /* the bound's leaves become slots of the record */
        MimDef *PS = mim_proj(w, pv, lead + 1, 0);
        Cl cb = {.rv = rv, .mode = CL_BWD, .b = b};
        cb.p = mim_proj(w, PS, ns, S_POS);
        cb.tp = mim_proj(w, PS, ns, S_TP);
        cb.mem = mim_proj(w, PS, ns, S_M);
        cb.st = PS;
        bool okb = cl(&cb, bound) != NULL;
        mim_ptrmap_free(&cb.map), mim_ptrmap_free(&cb.sh);
        if (!okb) return 0;
    }
    size_t cw = bound ? 0 : 1; /* the counter's word in the record */
    size_t n = rv->slots[b].n;
    for (size_t j = 0; j < n; ++j) {
        long x;
        size_t i;
        if (block_leaf(rv, rv->slots[b].d[j], &x, &i) && (x == h || x == b)) return -1;
        if (vm_late(rv, rv->slots[b].d[j])) return -1; /* a value loaded per iteration */
    }
    size_t nhd = n + lead + 1;
    MimDef **hd2 = mim_xcalloc(nhd, sizeof *hd2);
    hd2[0] = rv->BS;
    for (size_t j = 1; j < nhd; ++j) hd2[j] = rv->I64;
    MimDef *head = named(w, mim_cn(w, mim_sigma(w, hd2, nhd)), "bwd_lrh_", B);
    free(hd2);
    MimDef *more = named(w, mim_cn(w, rv->M), "bwd_lrb_", B);
    MimDef *done = named(w, mim_cn(w, rv->M), "bwd_lrd_", B);
    if (!head || !more || !done) return 0;
    MimDef *hv = mim_var(w, head);
    MimDef *S = mim_proj(w, hv, nhd, 0);
    MimDef *s = mim_proj(w, hv, nhd, 1);
    MimDef *lim = asc ? mim_proj(w, hv, nhd, 2) : NULL;
    MimDef **rest = mim_xcalloc(n + 1, sizeof *rest);
    for (size_t j = 0; j < n; ++j) {
        MimDef *leaf = rv->slots[b].d[j];
        long x;
        size_t i;
        MimDef *T = block_leaf(rv, leaf, &x, &i) ? comp_type(w, dom_of(w, rv->blk.d[x]), i) : mim_def_type(leaf);
        rest[j] = mim_proj(w, hv, nhd, j + lead + 1);
        mim_ptrmap_put(&rv->lr_over, leaf, from_word(rv, rest[j], T));
    }
    bool ok = lr_body(rv, b, more, head, S, s, lim, rest, n);
    free(rest);
    if (!ok) return 0;
    if (rv->slots[b].n != n) { /* the second build read no other leaf: they all map to parameters */
        fail(rv, B, "the loop (its record changed)");
        return 0;
    }
    /* the slots read from a record above (plan_above) leave the record */
    MimPtrMap *up = rv->above ? &rv->above[b] : NULL;
    size_t nf = 0;
    for (size_t j = 0; j < n; ++j) nf += !(up && mim_ptrmap_has(up, rv->slots[b].d[j]));
    MimDef *p = mim_proj(w, S, ns, S_POS);
    MimDef **ops = mim_xcalloc(ns + nhd, sizeof *ops);
    for (size_t i = 0; i < ns; ++i) ops[i] = mim_proj(w, S, ns, i);
    ops[S_POS] = iop(w, MIM_core_wrap_sub, p, i64(rv, nf + cw));
    ops[S_M] = mim_var(w, done);
    MimDef *popped = mim_tuple(w, ops, ns);
    MimDef *nx = next_of(rv, b);
    if (!nx || !set_body(w, done, mim_app(w, nx, popped))) goto fail;
    MimDef *cond = asc ? icmp(w, MIM_core_icmp_sl, s, lim) : icmp(w, MIM_core_icmp_sg, s, rv->lr_s0[b]);
    MimDef *br[2] = {done, more};
    MimDef *sel = mim_extract(w, mim_tuple(w, br, 2), cond);
    if (!set_body(w, head, mim_app(w, sel, mim_proj(w, S, ns, S_M)))) goto fail;
    MimDef *E = mim_var(w, rv->bwd[b]);
    MimDef *ep = mim_proj(w, E, ns, S_POS);
    MimDef *em = mim_proj(w, E, ns, S_M);
    MimDef *etp = mim_proj(w, E, ns, S_TP);
    ops[0] = E;
    MimDef *end = rv->noid[b] ? ep : iop(w, MIM_core_wrap_add, ep, i64(rv, 1));
    size_t jf = 0;
    Cl ce = {.rv = rv, .mode = CL_BWD, .b = b, .p = ep, .tp = etp, .mem = em, .st = E};
    for (size_t j = 0; j < n; ++j) {
        uintptr_t o = up ? (uintptr_t)mim_ptrmap_get(up, rv->slots[b].d[j]) : 0;
        MimDef *at = o ? iop(w, MIM_core_wrap_add, end, i64(rv, o - 1)) : iop(w, MIM_core_wrap_sub, ep, i64(rv, ++jf));
        ops[j + lead + 1] = tape_load(rv, em, etp, at);
        MimDef *leaf = rv->slots[b].d[j];
        long x;
        size_t i;
        MimDef *T = block_leaf(rv, leaf, &x, &i) ? comp_type(w, dom_of(w, rv->blk.d[x]), i) : mim_def_type(leaf);
        mim_ptrmap_put(&ce.map, leaf, from_word(rv, ops[j + lead + 1], T));
    }
    if (bound) { /* the counter at the exit: max(s0, bound) */
        MimDef *bv = cl(&ce, bound);
        if (!bv || rv->slots[b].n != n) {
            mim_ptrmap_free(&ce.map), mim_ptrmap_free(&ce.sh);
            if (bv) fail(rv, B, "the loop (its bound changed)");
            goto fail;
        }
        MimDef *lt = icmp(w, MIM_core_icmp_sl, rv->lr_s0[b], bv);
        MimDef *sel[2] = {rv->lr_s0[b], bv};
        ops[1] = mim_extract(w, mim_tuple(w, sel, 2), lt);
    } else {
        ops[1] = tape_load(rv, em, etp, iop(w, MIM_core_wrap_sub, ep, i64(rv, nf + 1))); /* the counter, below the slots */
    }
    mim_ptrmap_free(&ce.map), mim_ptrmap_free(&ce.sh);
    if (asc) ops[2] = ops[1], ops[1] = rv->lr_s0[b]; /* from s0 up to the exit's counter */
    bool built = set_body(w, rv->bwd[b], mim_app(w, head, mim_tuple(w, ops, nhd)));
    free(ops);
    if (up) { /* the record pushed at the loop's exit: the other slots */
        size_t k = 0;
        for (size_t j = 0; j < n; ++j)
            if (!mim_ptrmap_has(up, rv->slots[b].d[j])) rv->slots[b].d[k++] = rv->slots[b].d[j];
        rv->slots[b].n = k;
    }
    return built ? 1 : 0;
fail:
    free(ops);
    return 0;
}

typedef struct { MimDef *lam; long e; } Exit;

static MimDef *then_exit(Cl *c, void *ctx, MimDef *tp, MimDef *pos, MimDef *cap) {
    Exit *x = ctx;
    Rev *rv = c->rv;
    MimDef *args = mim_proj(rv->w, mim_var(rv->w, x->lam), 2, 0);
    return mim_app(rv->w, rv->fwd[x->e], mim_pair(rv->w, args, state(rv, c->mem, tp, pos, cap)));
}

/* fwd_lrx_B (the type of fwd_E): H's exit, pushing the loop's record */
static bool build_lrx(Rev *rv, long b) {
    MimWorld *w = rv->w;
    long h = rv->lr_h[b], e = rv->lr_e[b];
    MimDef *B = rv->blk.d[b];
    rv->lrx[b] = named(w, mim_def_type(rv->fwd[e]), "fwd_lrx_", B);
    if (!rv->lrx[b]) return false;
    size_t n = rv->slots[b].n;
    MimDef **leaves = mim_xcalloc(n + 1, sizeof *leaves);
    for (size_t j = 0; j < n; ++j) leaves[j] = rv->slots[b].d[j];
    leaves[n] = leaf_key(rv, h, rv->lr_k[b]); /* the counter, unless computed from the bound */
    Exit x = {rv->lrx[b], e};
    MimDef *S = mim_proj(w, mim_var(w, rv->lrx[b]), 2, 1);
    bool ok = push_then(rv, h, b, rv->lrx[b], S, B, leaves, n + !rv->lr_bound[b], NULL, (uint64_t)b - 1, then_exit, &x);
    free(leaves);
    return ok;
}

/* ---- carried loops ----------------------------------------------------------------------- */

static void succs(Rev *rv, long b, Vec *out);

/* how block x's terminator enters block h: 0 not, 1 by a direct jump with
 * the argument *a, -1 otherwise (a branch, a call's continuation) */
static int jumps_into(Rev *rv, long x, long h, MimDef **a) {
    MimWorld *w = rv->w;
    MimDef *body = mim_resolve(w, mim_lam_body(rv->blk.d[x])), *g, *H = rv->blk.d[h];
    if (!body || mim_def_node(body) != MIM_APP) return -1;
    target(rv, body, &g, a);
    if (g == H) return 1;
    if (mim_def_node(g) == MIM_EXTRACT) {
        MimDef *t = mim_resolve(w, mim_def_op(g, 0));
        for (size_t j = 0, n = t && mim_def_node(t) == MIM_TUPLE ? mim_def_num_ops(t) : 0; j < n; ++j)
            if (mim_resolve(w, mim_def_op(t, j)) == H) return -1;
    } else if (mim_def_node(g) == MIM_LAM && is_function(w, g)) {
        MimDef *args, *k;
        size_t n;
        if (!split_call(rv, g, *a, &args, &k, &n) || k == H) return -1;
    }
    return 0;
}

/* The body in (the blocks reached from b0 without passing h) is entered
 * only by h's branch and left only by jumps back to h: its blocks jump,
 * branch or return from calls to blocks of the body other than b0 or
 * (directly) to h, and no other block jumps into it. */
static bool closed_body(Rev *rv, long h, long b0, const bool *in) {
    MimWorld *w = rv->w;
    Vec out = {0};
    bool ok = true;
    for (size_t x = 0; ok && x < rv->blk.n; ++x) {
        if ((long)x == h) continue;
        succs(rv, (long)x, &out);
        MimDef *body = mim_resolve(w, mim_lam_body(rv->blk.d[x])), *g, *a;
        if (in[x] && (!body || mim_def_node(body) != MIM_APP)) ok = false;
        else if (in[x]) { /* no return, no call returning elsewhere: every way out of x is in out */
            target(rv, body, &g, &a);
            MimDef *t = mim_def_node(g) == MIM_EXTRACT ? mim_resolve(w, mim_def_op(g, 0)) : NULL;
            size_t nt = t && mim_def_node(t) == MIM_TUPLE ? mim_def_num_ops(t) : 0;
            ok = block_of(rv, g) > 0 ? out.n == 1 : t ? nt && out.n == nt : out.n == 1;
        }
        for (size_t o = 0; ok && o < out.n; ++o) {
            long y = block_of(rv, out.d[o]);
            ok = in[x] ? y == h || (in[y] && y != b0) : !in[y];
        }
    }
    free(out.d);
    return ok;
}

/* Block h (H) heads a loop whose body spans several blocks (a carried
 * loop; counted_loop takes a body of one block): f does not write (or
 * memory is frozen from H on, vm_freeze), H
 * pushes no record and branches between the body's entry B0 and its exit
 * E, the body is closed (closed_body), every jump back to H passes H#k + 1
 * (an I64) and every other jump into H the same literal s0. The backward
 * sweep then carries the counter in its state instead of the body's
 * records holding it: H's exit pushes a record (the counter, left out
 * when H tests counter < bound with the bound invariant in the loop) whose
 * reverse sets the state's counter to the exit's − 1 (build_cr_bwd); the
 * body's reverses read it there (carried_ctr); B0's reverse, once per
 * iteration, counts it down; after either, the backward sweep goes to the
 * previous iteration's records while the counter is ≥ s0, else to those
 * below the loop (link_next), so they need no block number. */
static bool carried_loop(Rev *rv, long h) {
    MimWorld *w = rv->w;
    size_t nb = rv->blk.n;
    if ((rv->vm && !vm_frozen(rv, h)) || !rv->trivial[h] || rv->lr_b[h] || rv->lr_h[h]) return false;
    MimDef *H = rv->blk.d[h], *DH = dom_of(w, H), *hb = mim_resolve(w, mim_lam_body(H)), *hg, *ha;
    if (!hb || mim_def_node(hb) != MIM_APP) return false;
    target(rv, hb, &hg, &ha);
    MimDef *tup = mim_def_node(hg) == MIM_EXTRACT ? mim_resolve(w, mim_def_op(hg, 0)) : NULL;
    if (!tup || mim_def_node(tup) != MIM_TUPLE || mim_def_num_ops(tup) != 2) return false;
    long t[2] = {block_of(rv, mim_resolve(w, mim_def_op(tup, 0))), block_of(rv, mim_resolve(w, mim_def_op(tup, 1)))};
    if (t[0] <= 0 || t[1] <= 0 || t[0] == t[1] || t[0] == h || t[1] == h) return false;
    bool *in = mim_xcalloc(nb, sizeof *in);
    Vec q = {0}, out = {0};
    long b0 = 0, e = 0;
    for (int j = 0; j < 2 && !b0; ++j) { /* the body's entry: the target H is reached from */
        memset(in, 0, nb * sizeof *in);
        q.n = 0;
        in[t[j]] = true;
        vpush(&q, rv->blk.d[t[j]]);
        bool back = false;
        for (size_t i = 0; i < q.n; ++i) {
            succs(rv, block_of(rv, q.d[i]), &out);
            for (size_t o = 0; o < out.n; ++o) {
                long y = block_of(rv, out.d[o]);
                back |= y == h;
                if (y > 0 && y != h && !in[y]) in[y] = true, vpush(&q, out.d[o]);
            }
        }
        if (back && !in[t[1 - j]] && closed_body(rv, h, t[j], in)) b0 = t[j], e = t[1 - j];
    }
    free(q.d), free(out.d);
    size_t nh = arity(w, DH), k = nh;
    MimDef *s0 = NULL;
    for (size_t i = 0; b0 && i < nh && k == nh; ++i) { /* the counter */
        bool ok = is_i64(w, comp_type(w, DH, i));
        s0 = NULL;
        for (size_t x = 0; ok && x < nb; ++x) {
            MimDef *a;
            int jt = (long)x == h ? 0 : jumps_into(rv, (long)x, h, &a);
            if (jt == 1 && in[x]) {
                ok = plus_one(rv, a, h, i);
            } else if (jt == 1) {
                MimDef *v = mim_resolve(w, mim_proj(w, a, nh, i));
                uint64_t lit;
                ok = v && mim_def_lit(v, &lit) && (!s0 || v == s0);
                s0 = v;
            } else {
                ok = jt == 0;
            }
        }
        if (ok && s0) k = i;
    }
    uint64_t lit;
    if (k == nh || !mim_def_lit(s0, &lit) || lit == UINT64_C(1) << 63) { /* s0 − 1 ≥ s0 would wrap */
        free(in);
        return false;
    }
    rv->lr_h[h] = h, rv->lr_b[h] = h, rv->lr_k[h] = k, rv->lr_s0[h] = s0, rv->lr_e[h] = e;
    MimDef *idx = mim_resolve(w, mim_def_op(hg, 1)), *cmp = idx ? mim_match(idx, MIM_core_icmp_sl) : NULL;
    if (cmp && t[1] == b0) { /* as counted_loop's: the exit's counter is max(s0, bound) */
        MimDef *pr = mim_app_arg(cmp), *rhs = mim_proj(w, pr, 2, 1);
        MimDef *lhs = mim_resolve(w, mim_proj(w, pr, 2, 0));
        MimDef *ctr = mim_resolve(w, leaf_key(rv, h, k));
        MimPtrMap seen = {0};
        if (lhs == ctr && !varies(rv, rhs, h, -1, &seen)) rv->lr_bound[h] = rhs;
        mim_ptrmap_free(&seen);
    }
    if (!rv->cr) rv->cr = mim_xcalloc(nb, sizeof *rv->cr);
    rv->cr[h] = (struct Carried){b0, rv->accT.n, in};
    vpush(&rv->accT, rv->I64);
    rv->trivial[b0] = false; /* B0's reverse counts down, even with nothing else to do */
    return true;
}

/* the carried loop whose body b enters (b is its B0), or 0 */
static long carried_head(Rev *rv, long b) {
    for (size_t h = 1; rv->cr && h < rv->blk.n; ++h)
        if (rv->cr[h].in && rv->cr[h].b0 == b) return (long)h;
    return 0;
}

/* backward: component i of block x's parameter read in c's reverse, when
 * it is the counter of x's carried loop and c's block is in its body: the
 * state's counter */
static MimDef *carried_ctr(Cl *c, long x, size_t i) {
    Rev *rv = c->rv;
    if (!rv->cr || !rv->cr[x].in || !c->st || c->b <= 0 || !rv->cr[x].in[c->b] || i != rv->lr_k[x]) return NULL;
    return mim_proj(rv->w, c->st, S_ACC + rv->accT.n, S_ACC + rv->cr[x].acc);
}

/* bwd_H, the reverse of the carried loop H's exit record ([counter,]
 * slots, [id]): the state's counter becomes the exit's counter − 1 (the
 * last iteration's), the record is popped, then bwd_next_H. Its slots are
 * what the bound reads; built again when some are read above
 * (rebuild_above). */
static bool build_cr_bwd(Rev *rv, long h) {
    MimWorld *w = rv->w;
    size_t ns = S_ACC + rv->accT.n;
    MimDef *E = mim_var(w, rv->bwd[h]);
    MimDef *ep = mim_proj(w, E, ns, S_POS);
    MimPtrMap *up = rv->above ? &rv->above[h] : NULL;
    bool again = up && up->len;
    size_t n0 = 0;
    for (size_t j = 0; again && j < rv->slots[h].n; ++j)
        if (!mim_ptrmap_has(up, rv->slots[h].d[j])) rv->slots[h].d[n0++] = rv->slots[h].d[j];
    rv->slots[h].n = n0;
    MimDef *etp = mim_proj(w, E, ns, S_TP);
    MimDef *em = mim_proj(w, E, ns, S_M);
    Cl ce = {.rv = rv, .mode = CL_BWD, .b = h, .p = ep, .tp = etp, .mem = em, .st = E};
    if (again) ce.end = rv->noid[h] ? ep : iop(w, MIM_core_wrap_add, ep, i64(rv, 1));
    MimDef *bound = rv->lr_bound[h], *s0 = rv->lr_s0[h], *ctr = bound ? cl(&ce, bound) : s0;
    size_t n = rv->slots[h].n;
    bool ok = ctr && (!again || n == n0);
    if (ok && bound) {
        MimDef *sel[2] = {s0, ctr};
        MimDef *lt = icmp(w, MIM_core_icmp_sl, s0, ctr);
        ctr = mim_extract(w, mim_tuple(w, sel, 2), lt);
    } else if (ok) {
        ctr = tape_load(rv, ce.mem, ce.tp, iop(w, MIM_core_wrap_sub, ep, i64(rv, n + 1))); /* below the slots */
    }
    MimDef **ops = mim_xcalloc(ns, sizeof *ops);
    for (size_t i = 0; i < ns; ++i) ops[i] = mim_proj(w, E, ns, i);
    ops[S_POS] = iop(w, MIM_core_wrap_sub, ep, i64(rv, n + !bound));
    MimDef *nx = ok ? next_of(rv, h) : NULL;
    if (nx) {
        ops[S_ACC + rv->cr[h].acc] = iop(w, MIM_core_wrap_sub, ctr, i64(rv, 1));
        ok = set_body(w, rv->bwd[h], mim_app(w, nx, mim_tuple(w, ops, ns)));
    } else if (ok) {
        ok = false;
    }
    if (!ok && !rv->failed) fail(rv, rv->blk.d[h], "the loop (its record changed)");
    free(ops);
    mim_ptrmap_free(&ce.map), mim_ptrmap_free(&ce.sh);
    return ok && !rv->failed;
}

/* bwd_loop: pop a record and dispatch on its block number; block 0's
 * reverse when the tape is empty */
static bool build_loop(Rev *rv) {
    MimWorld *w = rv->w;
    size_t ns = S_ACC + rv->accT.n, nb = rv->blk.n;
    MimDef *S = mim_var(w, rv->loop);
    MimDef *pos = mim_proj(w, S, ns, S_POS);
    MimDef *more = named(w, mim_cn(w, mim_unit_type(w)), "bwd_more_", rv->f);
    MimDef *done = named(w, mim_cn(w, mim_unit_type(w)), "bwd_entry_", rv->f);
    if (!build_bwd(rv, 0, done, S, NULL)) return false;
    if (nb > 1) {
        MimDef *p = iop(w, MIM_core_wrap_sub, pos, i64(rv, 1));
        MimDef **ops = mim_xcalloc(ns, sizeof *ops);
        for (size_t i = 0; i < ns; ++i) ops[i] = i == S_POS ? p : mim_proj(w, S, ns, i);
        MimDef *S2 = mim_tuple(w, ops, ns);
        free(ops);
        MimDef *target;
        if (nb == 2) {
            target = rv->bwd[1];
        } else {
            MimDef *sm = mim_proj(w, S, ns, S_M);
            MimDef *stp = mim_proj(w, S, ns, S_TP);
            MimDef *id = tape_load(rv, sm, stp, p);
            /* a power-of-two number of targets (the rest never taken):
             * the conversion of the word to an index is a mask, not a
             * remainder */
            size_t np = 2;
            while (np < nb - 1) np *= 2;
            MimDef **ts = mim_xcalloc(np, sizeof *ts);
            for (size_t j = 0; j < np; ++j) ts[j] = rv->bwd[j + 1 < nb ? j + 1 : 1];
            MimDef *from = mim_lit_nat(w, 0);
            MimDef *to = mim_lit_nat(w, np);
            MimDef *idx = conv_u(w, from, to, id);
            target = mim_extract(w, mim_tuple(w, ts, np), idx);
            free(ts);
        }
        if (!set_body(w, more, mim_app(w, target, S2))) return false;
    } else if (!set_body(w, more, mim_app(w, done, mim_unit(w)))) {
        return false;
    }
    MimDef *empty = icmp(w, MIM_core_icmp_e, pos, rv->shared ? rv->base : i64(rv, 0)); /* a shared vjp's records start at base */
    MimDef *br[2] = {more, done};
    MimDef *sel = mim_extract(w, mim_tuple(w, br, 2), empty);
    return set_body(w, rv->loop, mim_app(w, sel, mim_unit(w)));
}

/* ---- direct backward jumps ------------------------------------------------------------- */

enum { TOP_NONE = 0, TOP_MANY = -1, TOP_EMPTY = -2 };

/* joins v (a record's block, TOP_EMPTY or TOP_MANY) into *at */
static bool join_top(long *at, long v) {
    if (v == TOP_NONE || *at == v || *at == TOP_MANY) return false;
    *at = *at == TOP_NONE ? v : TOP_MANY;
    return true;
}

/* The records on top of the tape when the forward sweep enters each block
 * (in[y·nb + x]: block x's record may be on top on entering y, x = 0 for
 * the empty tape): a block pushing a record passes its own on; a block
 * without one passes on what it found; a counted loop's header passes the
 * loop's record to the exit. top[y]: the one record (or TOP_EMPTY), or
 * TOP_MANY when it depends on the path. exits[x]: x leaves f (its
 * terminator jumps to no block of f). */
static void tape_tops(Rev *rv, long *top, bool *in, bool *exits) {
    MimWorld *w = rv->w;
    size_t nb = rv->blk.n;
    in[0] = true;
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t x = 0; x < nb; ++x) {
            MimDef *body = mim_resolve(w, mim_lam_body(rv->blk.d[x])), *g, *a;
            exits[x] = true;
            if (!body || mim_def_node(body) != MIM_APP) continue;
            target(rv, body, &g, &a);
            bool pushes = x > 0 && !rv->trivial[x] && !rv->lr_h[x];
            long lb = x > 0 ? rv->lr_b[x] : 0;
            MimDef *succ[2] = {NULL, NULL}, *tup = NULL;
            if (block_of(rv, g) > 0) {
                succ[0] = g;
            } else if (mim_def_node(g) == MIM_EXTRACT) {
                tup = mim_resolve(w, mim_def_op(g, 0));
            } else if (mim_def_node(g) == MIM_LAM && is_function(w, g)) { /* a checkpointed call: its continuation */
                MimDef *args, *k;
                size_t n;
                if (split_call(rv, g, a, &args, &k, &n)) succ[0] = k;
            }
            size_t ns = tup && mim_def_node(tup) == MIM_TUPLE ? mim_def_num_ops(tup) : 1;
            for (size_t i = 0; i < ns; ++i) {
                long y = block_of(rv, tup ? mim_resolve(w, mim_def_op(tup, i)) : succ[0]);
                if (y <= 0) continue;
                exits[x] = false;
                bool exit = lb && rv->lr_h[lb] == (long)x && y == rv->lr_e[lb];
                bool *to = in + (size_t)y * nb;
                if (exit || pushes) {
                    size_t r = exit ? (size_t)lb : x;
                    changed |= !to[r];
                    to[r] = true;
                } else {
                    for (size_t r = 0; r < nb; ++r)
                        if (in[x * nb + r] && !to[r]) to[r] = changed = true;
                }
            }
        }
    }
    for (size_t y = 0; y < nb; ++y) {
        top[y] = TOP_NONE;
        for (size_t r = 0; r < nb; ++r)
            if (in[y * nb + r]) join_top(&top[y], r ? (long)r : TOP_EMPTY);
    }
}

/* The one record x when the records on top on entering y are x's or
 * none (the tape empty, or at a shared vjp's base), else 0: the reverse
 * goes to x's unless the tape is empty (empty_or) */
static long empty_or(Rev *rv, const bool *in, long y) {
    size_t nb = rv->blk.n;
    long x = 0;
    if (!in[(size_t)y * nb]) return 0;
    for (size_t r = 1; r < nb; ++r) {
        if (!in[(size_t)y * nb + r]) continue;
        if (x) return 0;
        x = (long)r;
    }
    return x;
}

static int jumps_into(Rev *rv, long x, long h, MimDef **a);
static long carried_head(Rev *rv, long b);

/* the one record of row (like in's rows: row[r] for r's record, row[0]
 * for the empty tape), TOP_EMPTY, TOP_MANY or TOP_NONE */
static long row_top(Rev *rv, const bool *row) {
    long top = TOP_NONE;
    for (size_t r = 0; r < rv->blk.n; ++r)
        if (row[r]) join_top(&top, r ? (long)r : TOP_EMPTY);
    return top;
}

/* The records that may be on top when the reverse of b's record (or of
 * its counted loop's) is done, as rows of in's kind: in's row of b (of
 * its loop's header); for a carried loop's exit record and its body's
 * entry (*h set to the loop's header) two, told apart by the counter in
 * bwd_next_B: [0] those on top at the jumps back to the header (below the
 * previous iteration's reverse), [1] those at the jumps into the loop.
 * Returns the number of rows; tmp has room for two. */
static size_t rows_below(Rev *rv, const bool *in, long b, bool *tmp, const bool **rows, long *h) {
    size_t nb = rv->blk.n;
    *h = rv->cr && rv->cr[b].in ? b : carried_head(rv, b);
    if (!*h) {
        rows[0] = in + (size_t)(rv->lr_h[b] ? rv->lr_h[b] : b) * nb;
        return 1;
    }
    memset(tmp, 0, 2 * nb * sizeof *tmp);
    for (size_t x = 0; x < nb; ++x) {
        MimDef *a;
        if ((long)x == *h || jumps_into(rv, (long)x, *h, &a) != 1) continue;
        bool *to = tmp + (rv->cr[*h].in[x] ? 0 : nb);
        if (x > 0 && !rv->trivial[x] && !rv->lr_h[x]) to[x] = true; /* x pushes its record (tape_tops) */
        else
            for (size_t r = 0; r < nb; ++r) to[r] |= in[x * nb + r];
    }
    rows[0] = tmp, rows[1] = tmp + nb;
    return 2;
}

/* Marks the records the dispatch of bwd_loop may pop (they keep their block
 * number; the others are only reached by direct jumps and omit it): those
 * below a record whose reverse goes to bwd_loop, and the one on top when f
 * returns if that depends on the path; if it is always one block's record
 * (or none), the backward sweep starts at its reverse instead (ret_row,
 * bwd_start: one exit block, a shared vjp's too). With writes (rv->vm)
 * every record keeps it. */
static void mark_ids(Rev *rv, const bool *in, const bool *exits) {
    size_t nb = rv->blk.n;
    bool *tmp = mim_xcalloc(2 * nb, sizeof *tmp);
    free(rv->ret_row);
    rv->ret_row = NULL;
    for (size_t x = 1; x < nb; ++x) rv->noid[x] = vm_late_free(rv, (long)x);
    for (size_t b = 1; b < nb; ++b) {
        const bool *rows[2];
        long h;
        for (size_t k = 0, n = rv->nxt[b] ? rows_below(rv, in, (long)b, tmp, rows, &h) : 0; k < n; ++k)
            if (row_top(rv, rows[k]) <= 0 && !empty_or(rv, rows[k], 0))
                for (size_t r = 1; r < nb; ++r) rv->noid[r] &= !rows[k][r];
    }
    free(tmp);
    bool *row = mim_xcalloc(nb, sizeof *row); /* the records on top at f's returns */
    for (size_t x = 0; x < nb; ++x) {
        if (!exits[x]) continue;
        if (x > 0 && !rv->trivial[x] && !rv->lr_h[x]) row[x] = true;
        else
            for (size_t r = 0; r < nb; ++r) row[r] |= in[x * nb + r];
    }
    if (row_top(rv, row) > 0 || empty_or(rv, row, 0)) { /* one record (or none): the sweep starts at its reverse (jump_below) */
        rv->ret_row = row;
        return;
    }
    for (size_t r = 1; r < nb; ++r) rv->noid[r] &= !row[r]; /* bwd_loop's dispatch pops the one on top */
    free(row);
}

/* The jump from bwd_next_B (its state S) when the records that may be on
 * top are row's: straight to the reverse of the record below when it is
 * always the same block's, else through bwd_loop's dispatch */
static MimDef *jump_below(Rev *rv, long b, MimDef *S, const bool *row) {
    MimWorld *w = rv->w;
    size_t ns = S_ACC + rv->accT.n;
    long x = row_top(rv, row), alt = x > 0 ? 0 : empty_or(rv, row, 0);
    MimDef *to = rv->loop, *arg = S;
    if (x > 0 || alt) { /* x's reverse, its block number (if any) popped */
        long t = x > 0 ? x : alt;
        MimDef **ops = mim_xcalloc(ns, sizeof *ops);
        for (size_t i = 0; i < ns; ++i) ops[i] = mim_proj(w, S, ns, i);
        if (!rv->noid[t]) ops[S_POS] = iop(w, MIM_core_wrap_sub, ops[S_POS], i64(rv, 1));
        arg = mim_tuple(w, ops, ns);
        free(ops);
        to = rv->bwd[t];
    }
    if (alt) { /* the tape may be empty here: then bwd_loop (which ends the sweep), else x's reverse */
        MimDef *pos = mim_proj(w, S, ns, S_POS);
        MimDef *empty = icmp(w, MIM_core_icmp_e, pos, rv->shared ? rv->base : i64(rv, 0));
        MimDef *go = named(w, mim_cn(w, mim_unit_type(w)), "bwd_pop_", rv->blk.d[b]);
        MimDef *end = named(w, mim_cn(w, mim_unit_type(w)), "bwd_end_", rv->blk.d[b]);
        if (!go || !end || !set_body(w, go, mim_app(w, to, arg)) || !set_body(w, end, mim_app(w, rv->loop, S))) return NULL;
        MimDef *br[2] = {go, end};
        MimDef *sel = mim_extract(w, mim_tuple(w, br, 2), empty);
        return mim_app(w, sel, mim_unit(w));
    }
    return mim_app(w, to, arg);
}

/* bwd_next_B: jump_below; after a carried loop's exit record or body
 * entry, by the counter just counted down: the previous iteration's
 * records while it is ≥ s0, else those below the loop */
static bool link_next(Rev *rv) {
    MimWorld *w = rv->w;
    size_t nb = rv->blk.n, ns = S_ACC + rv->accT.n;
    long *top = mim_xcalloc(nb, sizeof *top);
    bool *in = mim_xcalloc(nb * nb, sizeof *in), *exits = mim_xcalloc(nb, sizeof *exits), *tmp = mim_xcalloc(2 * nb, sizeof *tmp);
    tape_tops(rv, top, in, exits);
    mark_ids(rv, in, exits);
    bool ok = true;
    for (size_t b = 1; ok && b < nb; ++b) {
        MimDef *nx = rv->nxt[b];
        if (!nx) continue;
        const bool *rows[2];
        long h;
        size_t nr = rows_below(rv, in, (long)b, tmp, rows, &h);
        MimDef *S = mim_var(w, nx);
        if (nr == 1) {
            MimDef *j = jump_below(rv, (long)b, S, rows[0]);
            ok = j && set_body(w, nx, j);
            continue;
        }
        MimDef *iter = named(w, mim_cn(w, mim_unit_type(w)), "bwd_iter_", rv->blk.d[b]);
        MimDef *left = named(w, mim_cn(w, mim_unit_type(w)), "bwd_left_", rv->blk.d[b]);
        MimDef *ji = iter && left ? jump_below(rv, (long)b, S, rows[0]) : NULL;
        MimDef *jl = ji ? jump_below(rv, (long)b, S, rows[1]) : NULL;
        ok = jl && set_body(w, iter, ji) && set_body(w, left, jl);
        MimDef *more = icmp(w, MIM_core_icmp_sge, mim_proj(w, S, ns, S_ACC + rv->cr[h].acc), rv->lr_s0[h]);
        MimDef *br[2] = {left, iter};
        MimDef *sel = mim_extract(w, mim_tuple(w, br, 2), more);
        ok = ok && set_body(w, nx, mim_app(w, sel, mim_unit(w)));
    }
    free(top), free(in), free(exits), free(tmp);
    return ok;
}

/* ---- slots read from the record above ---------------------------------------------------- */

/* Records are indexed by block: block r's own record, or (r a counted
 * loop's body) its loop's exit record. When the next record pushed after
 * r's is always y's, and the block owning a slot's leaf L is not entered
 * between the two pushes, L's value is the same in y's record if y holds
 * L: r's reverse reads it there (the backward sweep has popped y's record,
 * but the words are still on the tape) and r's record leaves it out. GMM's
 * beta: the row counter is held once per row, by fin's record, instead of
 * also by row's and by the inner loop's exit record. */

static bool has_rec(Rev *rv, long r) { return r > 0 && (rv->lr_h[r] || !rv->trivial[r]); }

static bool walk_succ(Rev *rv, long x, long *next, bool *entered, bool *seen);

/* the forward sweep enters y: the record it pushes next goes to *next
 * (false: several, a shared vjp's records, or f returns first) */
static bool walk_next(Rev *rv, long y, long *next, bool *entered, bool *seen) {
    if (y <= 0) return false;
    entered[y] = true;
    if (rv->shcall[y]) return false;
    if (!rv->trivial[y] && !rv->lr_h[y]) {
        if (*next && *next != y) return false;
        *next = y;
        return true;
    }
    if (seen[y]) return true;
    seen[y] = true;
    return walk_succ(rv, y, next, entered, seen);
}

/* the same for x's successors (a counted loop's exit pushes its record) */
static bool walk_succ(Rev *rv, long x, long *next, bool *entered, bool *seen) {
    MimWorld *w = rv->w;
    MimDef *body = mim_resolve(w, mim_lam_body(rv->blk.d[x])), *g, *a, *one = NULL, *tup = NULL;
    if (!body || mim_def_node(body) != MIM_APP) return false;
    target(rv, body, &g, &a);
    if (block_of(rv, g) > 0) {
        one = g;
    } else if (mim_def_node(g) == MIM_EXTRACT) {
        tup = mim_resolve(w, mim_def_op(g, 0));
        if (!tup || mim_def_node(tup) != MIM_TUPLE) return false;
    } else if (mim_def_node(g) == MIM_LAM && is_function(w, g)) {
        MimDef *args;
        size_t n;
        if (!split_call(rv, g, a, &args, &one, &n)) return false;
    } else {
        return false;
    }
    long lb = rv->lr_b[x];
    for (size_t i = 0, n = tup ? mim_def_num_ops(tup) : 1; i < n; ++i) {
        long z = block_of(rv, tup ? mim_resolve(w, mim_def_op(tup, i)) : one);
        if (z <= 0) return false;
        if (lb && rv->lr_h[lb] == x && z == rv->lr_e[lb]) {
            if (*next && *next != lb) return false;
            *next = lb;
        } else if (!walk_next(rv, z, next, entered, seen)) {
            return false;
        }
    }
    return true;
}

static bool in_slots(Rev *rv, long r, MimDef *L) {
    for (size_t j = 0; j < rv->slots[r].n; ++j)
        if (rv->slots[r].d[j] == L) return true;
    return false;
}

typedef struct {
    Rev *rv;
    const long *up;    /* the next record above each record, or 0 */
    const bool *ent;   /* ent[r·nb + y]: block y entered between r's push and up[r]'s */
    MimPtrMap *keeps;  /* per record: leaf ↦ 1 (it holds the leaf) or 2 (it reads it above) */
} Above;

static long holder(Above *ab, long r, MimDef *L, long owner);

static bool keeps(Above *ab, long y, MimDef *L, long owner) {
    uintptr_t k = (uintptr_t)mim_ptrmap_get(&ab->keeps[y], L);
    if (!k) {
        k = holder(ab, y, L, owner) == y ? 1 : 2;
        mim_ptrmap_put(&ab->keeps[y], L, (void *)k);
    }
    return k == 1;
}

/* the record that holds r's slot L: the highest one above r, up to where
 * L's block (owner) is entered, that holds L itself; else r */
static long holder(Above *ab, long r, MimDef *L, long owner) {
    size_t nb = ab->rv->blk.n;
    bool *acc = mim_xcalloc(nb, sizeof *acc);
    long cur = r, best = r;
    while (ab->up[cur]) {
        long y = ab->up[cur];
        for (size_t i = 0; i < nb; ++i) acc[i] |= ab->ent[(size_t)cur * nb + i];
        if (acc[owner]) break;
        if (in_slots(ab->rv, y, L) && keeps(ab, y, L, owner)) best = y;
        cur = y;
    }
    free(acc);
    return best;
}

/* words of record r once the slots read above are left out */
static size_t kept(Rev *rv, long r) {
    size_t k = 0;
    for (size_t j = 0; j < rv->slots[r].n; ++j) k += !mim_ptrmap_has(&rv->above[r], rv->slots[r].d[j]);
    return k;
}
static size_t rec_words(Rev *rv, long r) {
    bool counter = rv->lr_h[r] && !rv->lr_bound[r];
    return kept(rv, r) + (counter || rv->shcall[r] ? 1 : 0) + !rv->noid[r];
}
/* L's word in record h, from h's start (layouts: push_then; a loop's exit
 * record has the counter at the bottom) */
static size_t word_in(Rev *rv, long h, MimDef *L) {
    size_t nf = kept(rv, h), jf = 0;
    for (size_t j = 0; j < rv->slots[h].n && rv->slots[h].d[j] != L; ++j) jf += !mim_ptrmap_has(&rv->above[h], rv->slots[h].d[j]);
    return rv->lr_h[h] && !rv->lr_bound[h] ? nf - jf : nf - 1 - jf;
}

/* Fills rv->above (f without writes, or between records of blocks whose
 * memory is frozen, vm_freeze: the records' words do not change) */
static bool plan_above(Rev *rv) {
    size_t nb = rv->blk.n;
    if (nb > 512) return true;
    long *up = mim_xcalloc(nb, sizeof *up);
    bool *ent = mim_xcalloc(nb * nb, sizeof *ent), *seen = mim_xcalloc(nb, sizeof *seen);
    for (size_t r = 1; r < nb; ++r) {
        if (!has_rec(rv, (long)r)) continue;
        memset(seen, 0, nb * sizeof *seen);
        long nx = 0;
        bool ok = rv->lr_h[r] ? walk_next(rv, rv->lr_e[r], &nx, ent + r * nb, seen) : walk_succ(rv, (long)r, &nx, ent + r * nb, seen);
        up[r] = ok && has_rec(rv, nx) && (!rv->vm || (vm_frozen(rv, (long)r) && vm_frozen(rv, nx))) ? nx : 0;
    }
    for (size_t r = 1; r < nb; ++r) { /* a cycle (f would never return): nothing is read above */
        long c = (long)r;
        for (size_t k = 0; c && k <= nb; ++k) c = up[c];
        if (c) memset(up, 0, nb * sizeof *up);
    }
    rv->above = mim_xcalloc(nb, sizeof *rv->above);
    MimPtrMap *keepm = mim_xcalloc(nb, sizeof *keepm);
    Above ab = {rv, up, ent, keepm};
    long **hold = mim_xcalloc(nb, sizeof *hold);
    for (size_t r = 1; r < nb; ++r) { /* first which records hold which leaves */
        if (!up[r]) continue;
        hold[r] = mim_xcalloc(rv->slots[r].n + 1, sizeof **hold);
        for (size_t j = 0; j < rv->slots[r].n; ++j) {
            MimDef *L = rv->slots[r].d[j];
            long x;
            size_t i;
            hold[r][j] = block_leaf(rv, L, &x, &i) ? holder(&ab, (long)r, L, x) : (long)r;
            if (hold[r][j] != (long)r) mim_ptrmap_put(&rv->above[r], L, (void *)1);
        }
    }
    for (size_t r = 1; r < nb; ++r) { /* then the offsets, from the end of r's record */
        for (size_t j = 0; hold[r] && j < rv->slots[r].n; ++j) {
            long h = hold[r][j];
            if (h == (long)r) continue;
            size_t off = 0;
            for (long y = up[r]; y != h; y = up[y]) off += rec_words(rv, y);
            off += word_in(rv, h, rv->slots[r].d[j]);
            mim_ptrmap_put(&rv->above[r], rv->slots[r].d[j], (void *)(uintptr_t)(off + 1));
        }
        free(hold[r]);
        mim_ptrmap_free(&keepm[r]);
    }
    free(hold), free(keepm), free(up), free(ent), free(seen);
    return true;
}

/* the reverses of the records that read slots above, rebuilt (plan_above) */
static bool rebuild_above(Rev *rv) {
    MimWorld *w = rv->w;
    size_t nb = rv->blk.n, ns = S_ACC + rv->accT.n;
    for (size_t b = 1; rv->above && b < nb; ++b) {
        if (!rv->above[b].len) continue;
        if (rv->cr && rv->cr[b].in) {
            if (!build_cr_bwd(rv, (long)b)) return false;
            continue;
        }
        if (rv->lr_h[b]) {
            if (build_lr_bwd(rv, (long)b) != 1) return false;
            continue;
        }
        size_t k = 0, n = rv->slots[b].n;
        for (size_t j = 0; j < n; ++j)
            if (!mim_ptrmap_has(&rv->above[b], rv->slots[b].d[j])) rv->slots[b].d[k++] = rv->slots[b].d[j];
        rv->slots[b].n = k;
        MimDef *S = mim_var(w, rv->bwd[b]);
        if (!build_bwd(rv, (long)b, rv->bwd[b], S, mim_proj(w, S, ns, S_POS))) return false;
        if (rv->slots[b].n != k) {
            fail(rv, rv->blk.d[b], "the block (its record changed)");
            return false;
        }
    }
    return true;
}

/* ---- f_vjp ------------------------------------------------------------------------------ */

/* a copy of the nested function h for forward sweeps (its free variables
 * are parameters of enclosing functions) */
static MimDef *copy_fn(Rev *rv, MimDef *h) {
    MimDef *known = mim_ptrmap_get(rv->copies, h);
    if (known) return known;
    /* functions h calls are copied with it (sharing one copy between
     * copies made it through closure conversion with a stale variable) */
    Cl c = {.rv = rv, .mode = CL_COPY};
    MimDef *r = cl(&c, h);
    if (r) mim_ptrmap_put(rv->copies, h, r);
    mim_ptrmap_free(&c.map), mim_ptrmap_free(&c.sh);
    return r;
}

enum { INL_SITES = 8, INL_BLOCKS = 2048 }; /* at most this many call sites of one function, blocks of f (INL_BLOCKS: vm_checkpoint_ok's message) */

/* The call body (a block's terminator h (args, k)) becomes a jump to a new
 * block inl_h: h's body with its return continuation replaced by k (every
 * block of h is copied for this call site); false on an error. */
/* An integer argument of an inlined call that is a literal or a block's
 * parameter (an index, a loop counter) is used by the copy of h's blocks
 * directly instead of through h's parameter: the copy is entered only from
 * this call, and that block is not entered again while h's blocks run
 * (they leave only through the call's continuation). Reverses then read
 * the caller's leaf, which a record above or a carried loop's counter may
 * already hold (GMM's beta: the point and component indices are the
 * carried counters of the loops calling it, not words per row). */
static bool fixed_arg(Rev *rv, MimDef *a) {
    long x;
    size_t i;
    if (!a || !autodiff_is_idx(rv->w, mim_def_type(a))) return false;
    uint64_t lit;
    return mim_def_lit(a, &lit) || block_leaf(rv, a, &x, &i);
}

static bool inline_site(Rev *rv, MimDef *h, MimDef *body, MimPtrMap *seen) {
    MimWorld *w = rv->w;
    MimDef *args, *k, *A, *R;
    size_t n;
    if (!split_call(rv, h, mim_app_arg(body), &args, &k, &n) || !autodiff_fn_parts(w, mim_def_type(h), &A, &R, &n))
        return true;
    MimDef *hb = named(w, mim_cn(w, A), "inl_", h);
    if (!hb) return false;
    MimDef *v = mim_var(w, hb), *arg;
    if (n) {
        MimDef **ops = mim_xcalloc(n + 1, sizeof *ops);
        for (size_t j = 0; j < n; ++j) {
            MimDef *aj = mim_resolve(w, mim_proj(w, args, n, j));
            ops[j] = fixed_arg(rv, aj) ? aj : mim_proj(w, v, n, j);
        }
        ops[n] = k;
        arg = mim_tuple(w, ops, n + 1);
        free(ops);
    } else {
        arg = mim_pair(w, v, k);
    }
    MimDef *hbody = mim_subst(w, mim_lam_body(h), h, arg);
    if (!set_body(w, hb, hbody)) return false;
    mim_ptrmap_put(&rv->inl, body, hb);
    collect(rv, hb, seen);
    return true;
}

/* h can become blocks of f: a nested function with a body and no pointer
 * argument (pointer arguments need shadows: h keeps its vjp) */
/* The blocks reachable from e (not entering functions) form no cycle: DFS
 * over the continuations, state 1 on the path, 2 done. */
static bool acyclic(Rev *rv, MimDef *e, MimPtrMap *state) {
    MimWorld *w = rv->w;
    e = mim_resolve(w, e);
    if (!e || mim_def_is_const(e) || mim_def_node(e) == MIM_VAR) return true;
    uintptr_t st = (uintptr_t)mim_ptrmap_get(state, e);
    if (st) return st == 2;
    bool blk = mim_def_node(e) == MIM_LAM && mim_def_is_mut(e);
    if (blk && (is_function(w, e) || !autodiff_is_cn(w, mim_def_type(e)) || !mim_lam_body(e))) return true;
    if (!blk && mim_def_is_mut(e)) return true;
    mim_ptrmap_put(state, e, (void *)1);
    bool ok = true;
    if (blk) ok = acyclic(rv, mim_lam_body(e), state);
    for (size_t i = 0, n = blk ? 0 : mim_def_num_ops(e); ok && i < n; ++i) ok = acyclic(rv, mim_def_op(e, i), state);
    mim_ptrmap_put(state, e, (void *)2);
    return ok;
}

/* h has no loop: inlined at several call sites, it adds a bounded number of
 * records per call. A function with loops called from several places stays
 * a checkpoint: inlined, its loops' records all stay on f's tape until the
 * backward sweep (GMM's beta: 104 bytes per row, a 27 MB tape at d = 10,
 * k = 25, n = 1000, whose page faults cost more than the forward run that
 * the checkpoint repeats on a small tape of its own). */
static bool loop_free(Rev *rv, MimDef *h) {
    MimPtrMap state = {0};
    mim_ptrmap_put(&state, h, (void *)1);
    bool ok = acyclic(rv, mim_lam_body(h), &state);
    mim_ptrmap_free(&state);
    return ok;
}

static bool inlinable(Rev *rv, MimDef *h, bool ptrs) {
    MimWorld *w = rv->w;
    MimDef *A, *R;
    size_t n;
    if (!mim_lam_body(h) || !autodiff_fn_parts(w, mim_def_type(h), &A, &R, &n)) return false;
    for (size_t j = 0, na = arity(w, A); j < na && !ptrs; ++j)
        if (is_ptr(comp_type(w, A, j))) return false;
    return true;
}

/* A nested function h called from f (e.g. a function written for
 * structure) becomes blocks of f: its body with its return continuation
 * replaced by the call's, so that it is taped in f's sweep instead of
 * being run forward twice (once more by h_vjp in the backward sweep: a
 * checkpoint). A function called once is inlined; one without loops at up
 * to INL_SITES call sites, each with its own copy of h's blocks (see
 * loop_free); recursion (a function already inlined) and more than
 * INL_BLOCKS blocks keep h_vjp. */
/* f's body is the call of h with f's own return continuation (a tail
 * call, e.g. the optimizer's η-wrapper of a function also called
 * directly): f_vjp calls h_vjp instead of inlining h (build), so that h's
 * first block stays block 0 of a vjp (its allocations run once, its
 * loads need no tape) */
static bool tail_call(Rev *rv, MimDef *h, MimDef *arg) {
    MimDef *args, *k;
    size_t n;
    if (rv->shared || !split_call(rv, h, arg, &args, &k, &n) || k != rv->kold) return false;
    MimPtrMap seen = {0};
    bool wr = vm_writes(rv->w, args, &seen); /* (block 0 stores, allocates or frees: inline h) */
    mim_ptrmap_free(&seen);
    return !wr;
}

static bool inline_once(Rev *rv, MimPtrMap *seen) {
    MimWorld *w = rv->w;
    bool st = vm_stores(rv); /* (vm_no_checkpoint: every site inlined, pointer arguments too; their shadows: vm_ptr_param) */
    for (bool again = true; again;) {
        again = false;
        MimPtrMap count = {0};
        Vec calls = {0}; /* the call bodies, in block order (deterministic) */
        for (size_t b = 0; b < rv->blk.n; ++b) {
            MimDef *body = mim_resolve(w, mim_lam_body(rv->blk.d[b]));
            if (!body || mim_def_node(body) != MIM_APP) continue;
            MimDef *g = mim_resolve(w, mim_app_callee(body));
            if (!g || mim_def_node(g) != MIM_LAM || !mim_def_is_mut(g) || g == rv->f || !is_function(w, g) ||
                mim_ptrmap_has(&rv->inlh, g))
                continue;
            if (b == 0 && rv->blk.n == 1 && tail_call(rv, g, mim_app_arg(body))) continue; /* an η-wrapper: build calls h_vjp */
            uintptr_t c = (uintptr_t)mim_ptrmap_get(&count, g);
            mim_ptrmap_put(&count, g, (void *)(c + 1));
            vpush(&calls, body);
        }
        bool ok = true;
        for (size_t j = 0; ok && j < calls.n; ++j) {
            MimDef *body = calls.d[j], *h = mim_resolve(w, mim_app_callee(body));
            bool all = vm_no_checkpoint(rv, st, h); /* (every site, up to INL_BLOCKS blocks) */
            bool many = (uintptr_t)mim_ptrmap_get(&count, h) > 1 + (loop_free(rv, h) ? INL_SITES - 1 : 0);
            if ((many && !all) || rv->blk.n > INL_BLOCKS || !inlinable(rv, h, all)) continue;
            ok = inline_site(rv, h, body, seen);
            again = true;
        }
        for (size_t j = 0; j < calls.n; ++j) { /* all sites of h in one round: h's own calls of h stay calls */
            MimDef *h = mim_resolve(w, mim_app_callee(calls.d[j]));
            if (mim_ptrmap_has(&rv->inl, calls.d[j])) mim_ptrmap_put(&rv->inlh, h, h);
        }
        mim_ptrmap_free(&count);
        free(calls.d);
        if (!ok) return false;
    }
    return true;
}

static bool setup(Rev *rv, MimDef *fv) {
    MimWorld *w = rv->w;
    MimDef *f = rv->f, *var = mim_var(w, f);
    size_t na = arity(w, rv->A);
    MimDef *in = mim_proj(w, fv, 2, 0);
    size_t nin = rv->shared ? 6 : 3;
    rv->x = mim_proj(w, in, nin, 0), rv->sx = mim_proj(w, in, nin, 1), rv->ybar = mim_proj(w, in, nin, 2);
    if (rv->shared) rv->st_in = mim_proj(w, in, nin, 3), rv->base = mim_proj(w, in, nin, 4), rv->mode = mim_proj(w, in, nin, 5);
    rv->kret = mim_proj(w, fv, 2, 1);
    if (!var) return false;
    MimDef *args;
    if (rv->nflat) {
        rv->kold = mim_var_proj(w, f, rv->nflat + 1, rv->nflat);
        MimDef **ops = mim_xcalloc(na + 1, sizeof *ops);
        for (size_t i = 0; i < na; ++i) ops[i] = mim_var_proj(w, f, na + 1, i);
        args = mim_tuple(w, ops, na);
        free(ops);
    } else {
        rv->kold = mim_var_proj(w, f, 2, 1);
        args = mim_var_proj(w, f, 2, 0);
        if (na == 1) mim_ptrmap_put(&rv->top, args, rv->x);
        else rv->args_old = mim_resolve(w, args);
    }
    rv->kold = mim_resolve(w, rv->kold);
    rv->mpos = na;
    vpush(&rv->blk, f);
    mim_ptrmap_put(&rv->bid, f, (void *)(uintptr_t)1);
    for (size_t i = 0; i < na; ++i) {
        MimDef *T = comp_type(w, rv->A, i), *leaf = mim_resolve(w, mim_proj(w, args, na, i));
        mim_ptrmap_put(&rv->top, leaf, mim_proj(w, rv->x, na, i));
        if (is_ptr(T)) { /* an inactive pointer's shadow is ⊥: the mem normalizers drop its updates */
            MimDef *sh = i < 64 && (rv->inactive >> i & 1) ? mim_bot(w, T) : mim_proj(w, rv->sx, na, i);
            mim_ptrmap_put(&rv->topsh, leaf, sh);
        }
        if (is_mem(T)) mim_ptrmap_put(&rv->topm, leaf, leaf);
        if (is_mem(T) && rv->mpos == na) rv->mpos = i;
        if (is_float(T)) {
            vpush(&rv->accT, T);
            mim_ptrmap_put(&rv->acc, leaf, (void *)(uintptr_t)rv->accT.n);
        } else if (!is_mem(T) && !is_ptr(T) && !autodiff_is_idx(w, T)) {
            return fail(rv, leaf, "the argument of this type") != NULL;
        }
    }
    if (rv->mpos == na) return fail(rv, f, "the function without a %mem.M argument (use %autodiff.ad)") != NULL;
    MimPtrMap seen = {0};
    mim_ptrmap_put(&seen, f, f);
    collect(rv, mim_lam_body(f), &seen);
    bool ok = inline_once(rv, &seen);
    mim_ptrmap_free(&seen);
    if (!ok) return false;
    for (size_t b = 1; b < rv->blk.n; ++b) {
        MimDef *X = rv->blk.d[b], *D = dom_of(w, X);
        size_t n = arity(w, D);
        for (size_t i = 0; i < n; ++i) {
            MimDef *T = comp_type(w, D, i);
            if (is_float(T)) {
                vpush(&rv->accT, T);
                mim_ptrmap_put(&rv->acc, leaf_key(rv, (long)b, i), (void *)(uintptr_t)rv->accT.n);
            } else if (is_ptr(T) && !vm_ptr_param(rv, (long)b, i) && !vm_ptr_swap(rv, (long)b, i)) {
                if (!mim_def_loc(X).begin.row && mim_def_loc(mim_lam_body(X)).begin.row) rv->use = mim_def_loc(mim_lam_body(X)); /* (an inlined function's block) */
                return fail(rv, X, "the block with a pointer parameter to which jumps pass pointers into different buffers (its shadow is not known)") != NULL;
            } else if (!is_mem(T) && !autodiff_is_idx(w, T) && !is_float(T) && !is_ptr(T)) {
                return fail(rv, X, "the block with a parameter of this type") != NULL;
            }
        }
    }
    return true;
}

/* f_vjp_shared's body: the forward sweep from block 0 on the caller's tape
 * (it returns to the caller when f returns, fwd_goto) or the backward
 * sweep over f's records on it, by the mode argument */
static bool build_shared0(Rev *rv, MimDef *fv) {
    MimWorld *w = rv->w;
    MimDef *m0 = mim_proj(w, rv->st_in, 4, 0), *tp0 = mim_proj(w, rv->st_in, 4, 1);
    MimDef *pos0 = mim_proj(w, rv->st_in, 4, 2), *cap0 = mim_proj(w, rv->st_in, 4, 3);
    MimDef *fw = named(w, mim_cn(w, mim_unit_type(w)), "fwd_entry_", rv->f);
    MimDef *bw = named(w, mim_cn(w, mim_unit_type(w)), "bwd_start_", rv->f);
    if (!fw || !bw) return false;
    Cl c = {.rv = rv, .mode = CL_FWD, .b = 0, .mem = m0};
    MimDef *body = fwd_term(&c, mim_lam_body(rv->f), tp0, pos0, cap0);
    mim_ptrmap_free(&c.map), mim_ptrmap_free(&c.sh);
    if (!body || rv->failed || !set_body(w, fw, body)) return false;
    if (!set_body(w, bw, bwd_start(rv, m0, tp0, pos0, rv->ybar))) return false;
    MimDef *br[2] = {fw, bw};
    MimDef *sel = mim_extract(w, mim_tuple(w, br, 2), rv->mode);
    return mim_lam_set(w, fv, mim_lit_bool(w, false), mim_app(w, sel, mim_unit(w))) != NULL;
}

static MimDef *build(Rev *rv) {
    MimWorld *w = rv->w;
    rv->I64 = mim_type_int(w, 64);
    rv->M = annex(w, MIM_mem_M);
    rv->TP = mim_app(w, annex(w, MIM_mem_Ptr), tape_meta(rv));
    MimDef *dom[6] = {rv->A, rv->A, rv->R, NULL, rv->I64, mim_type_bool(w)}, *cod[3] = {rv->R, rv->A, NULL};
    dom[3] = cod[2] = state_type(rv);
    MimDef *Dom = mim_sigma(w, dom, rv->shared ? 6 : 3);
    MimDef *Cod = mim_sigma(w, cod, rv->shared ? 3 : 2);
    MimDef *T = mim_fn(w, Dom, Cod);
    char name[160];
    MimSym fname = mim_def_name(rv->f);
    snprintf(name, sizeof name, rv->shared ? "%s_vjp_shared" : rv->inactive ? "%s_vjp_const" : "%s_vjp", fname ? fname : "f");
    MimDef *fv = mim_mut_lam(w, T);
    if (!fv) return NULL;
    mim_def_set_name(fv, mim_world_sym(w, name));
    mim_ptrmap_put(rv->memo, rv->shared ? mim_var(w, rv->f) : rv->f, fv);
    if (!setup(rv, mim_var(w, fv))) return NULL;
    size_t nb = rv->blk.n;
    rv->slots = mim_xcalloc(nb, sizeof *rv->slots);
    rv->fwd = mim_xcalloc(nb, sizeof *rv->fwd);
    rv->bwd = mim_xcalloc(nb, sizeof *rv->bwd);
    rv->trivial = mim_xcalloc(nb, sizeof *rv->trivial);
    for (size_t b = 1; b < nb; ++b) rv->trivial[b] = is_trivial(rv, (long)b);
    rv->lr_h = mim_xcalloc(nb, sizeof *rv->lr_h), rv->lr_e = mim_xcalloc(nb, sizeof *rv->lr_e);
    rv->lr_b = mim_xcalloc(nb, sizeof *rv->lr_b), rv->lr_k = mim_xcalloc(nb, sizeof *rv->lr_k);
    rv->lr_s0 = mim_xcalloc(nb, sizeof *rv->lr_s0), rv->lrx = mim_xcalloc(nb, sizeof *rv->lrx);
    rv->lr_bound = mim_xcalloc(nb, sizeof *rv->lr_bound);
    rv->nxt = mim_xcalloc(nb, sizeof *rv->nxt);
    rv->noid = mim_xcalloc(nb, sizeof *rv->noid);
    rv->shcall = mim_xcalloc(nb, sizeof *rv->shcall);
    MimDef *body0 = mim_resolve(w, mim_lam_body(rv->f));
    MimDef *g0 = mim_def_node(body0) == MIM_APP ? mim_resolve(w, mim_app_callee(body0)) : NULL;
    if (nb == 1 && !rv->shared && g0 && mim_def_node(g0) == MIM_LAM && mim_def_is_mut(g0) && is_function(w, g0)) {
        if (tail_call(rv, g0, mim_app_arg(body0))) {
            /* f's body is a tail call of h (e.g. an η-wrapper): f_vjp calls
             * h_vjp directly, without a forward sweep of its own */
            return build_bwd(rv, 0, fv, NULL, NULL) ? fv : NULL;
        }
    }
    if (!rv->shared) { /* block 0 starts when the tape runtime has given a block */
        MimDef *td[2] = {rv->M, rv->TP};
        if (!(rv->tape0 = named(w, mim_cn(w, mim_sigma(w, td, 2)), "vjp_tape_", rv->f))) return NULL;
    }
    if (!vm_begin(rv)) return NULL;
    if (rv->shared && rv->vm) return fail(rv, rv->f, "the function sharing its caller's tape that writes memory");
    for (size_t b = 1; b < nb; ++b) rv->shcall[b] = shared_call(rv, (long)b);
    for (size_t b = 1; b < nb; ++b)
        if (!rv->trivial[b]) counted_loop(rv, (long)b);
    for (size_t b = 1; b < nb; ++b) carried_loop(rv, (long)b); /* adds its counter to the backward state */
    MimDef *St = state_type(rv);
    size_t ns = S_ACC + rv->accT.n;
    MimDef **bs = mim_xcalloc(ns, sizeof *bs);
    bs[S_M] = rv->M, bs[S_TP] = rv->TP, bs[S_POS] = rv->I64, bs[S_RES] = rv->R;
    for (size_t j = 0; j < rv->accT.n; ++j) bs[S_ACC + j] = rv->accT.d[j];
    rv->BS = mim_sigma(w, bs, ns);
    free(bs);
    rv->loop = named(w, mim_cn(w, rv->BS), "bwd_loop_", rv->f);
    for (size_t b = 1; b < nb; ++b) {
        MimDef *X = rv->blk.d[b];
        MimDef *fd[2] = {dom_of(w, X), St};
        rv->fwd[b] = named(w, mim_cn(w, mim_sigma(w, fd, 2)), "fwd_", X);
        rv->bwd[b] = named(w, mim_cn(w, rv->BS), "bwd_", X);
    }
    /* backward first: it decides what the records hold */
    for (size_t b = 1; b < nb; ++b) {
        int lr = rv->cr && rv->cr[b].in ? build_cr_bwd(rv, (long)b) : rv->lr_h[b] ? build_lr_bwd(rv, (long)b) : -1;
        if (lr == 0) return NULL;
        if (lr == 1) continue;
        if (rv->lr_h[b]) rv->lr_b[rv->lr_h[b]] = 0, rv->lr_h[b] = 0, rv->lr_bound[b] = NULL, rv->slots[b].n = 0; /* not a counted loop after all */
        MimDef *S = mim_var(w, rv->bwd[b]);
        if (!build_bwd(rv, (long)b, rv->bwd[b], S, mim_proj(w, S, ns, S_POS))) return NULL;
    }
    if (!build_loop(rv) || !link_next(rv) || !plan_above(rv) || !rebuild_above(rv)) return NULL;
    for (size_t b = 1; b < nb; ++b)
        if (rv->lr_h[b] && !build_lrx(rv, (long)b)) return NULL;
    for (size_t b = 1; b < nb; ++b)
        if (!build_fwd(rv, (long)b)) return NULL;
    if (rv->shared) return build_shared0(rv, fv) ? fv : NULL;
    /* block 0: a block from the tape runtime (the kept one, or a new one:
     * tp0 is never null, the backward dispatch may read the word below a
     * record before it tests for the empty tape), then f's body; the
     * capacity starts at the runtime's least block size (the block may be
     * larger: a push that finds the tape full asks, and gets the same
     * block back) */
    size_t na = arity(w, rv->A);
    MimDef *m0 = mim_proj(w, rv->x, na, rv->mpos);
    MimDef *tv = mim_var(w, rv->tape0);
    MimDef *mt = mim_proj(w, tv, 2, 0);
    Cl c = {.rv = rv, .mode = CL_FWD, .b = 0, .mem = mt};
    MimDef *tp0 = mim_proj(w, tv, 2, 1);
    MimDef *pos0 = i64(rv, 0);
    MimDef *cap0 = i64(rv, TAPE_MIN);
    MimDef *body;
    if (rv->vm) { /* the shadows' allocation, then block 0 by the builder the sweeps share */
        body = vm_fwd0(rv, mt, tp0, pos0, cap0);
    } else {
        body = fwd_term(&c, mim_lam_body(rv->f), tp0, pos0, cap0);
        mim_ptrmap_free(&c.map), mim_ptrmap_free(&c.sh);
    }
    MimDef *rf = realloc_fn(rv);
    if (!body || rv->failed || !rf || !set_body(w, rv->tape0, body)) return NULL;
    MimDef *ga[4] = {m0, NULL, NULL, rv->tape0};
    ga[1] = tape_null(rv);
    ga[2] = mim_lit_nat(w, 0);
    return mim_lam_set(w, fv, mim_lit_bool(w, false), mim_app(w, rf, mim_tuple(w, ga, 4))) ? fv : NULL;
}

static MimDef *vjp_in(Rev *parent, MimPass *p, MimPtrMap *memo, MimPtrMap *copies, MimDef **rf, MimDef *f, uint64_t inactive,
                      bool shared) {
    MimWorld *w = mim_pass_world(p);
    MimDef *key = shared ? mim_var(w, f) : f; /* the shared vjp's memo key: f's variable */
    MimDef *known = mim_ptrmap_get(memo, key);
    MimLoc loc = parent && parent->use.begin.row ? parent->use : mim_def_loc(f);
    if (known) {
        if (known != f && !mim_lam_body(known)) {
            mim_pass_error(p, loc, "autodiff: cannot differentiate (reverse mode) the recursive function '%s'",
                           mim_def_name(f) ? mim_def_name(f) : "f");
            mim_ptrmap_put(memo, key, f);
            return NULL;
        }
        return known == f ? NULL : known;
    }
    Rev rv = {.parent = parent, .w = w, .p = p, .memo = memo, .copies = copies, .realloc_fn = rf, .f = f, .inactive = inactive,
              .shared = shared};
    if (parent) rv.use = parent->use;
    MimDef *res = NULL;
    if (!autodiff_fn_parts(w, mim_def_type(f), &rv.A, &rv.R, &rv.nflat) || !mim_lam_body(f)) {
        mim_pass_error(p, loc, "autodiff: cannot differentiate (reverse mode) '%s': not a returning function",
                       mim_def_name(f) ? mim_def_name(f) : "f");
    } else {
        res = build(&rv);
    }
    vm_drop(&rv), mim_ptrmap_free(&rv.proot);
    mim_ptrmap_free(&rv.top), mim_ptrmap_free(&rv.topsh), mim_ptrmap_free(&rv.topm), mim_ptrmap_free(&rv.inl), mim_ptrmap_free(&rv.inlh), mim_ptrmap_free(&rv.bid), mim_ptrmap_free(&rv.acc);
    for (size_t b = 0; rv.slots && b < rv.blk.n; ++b) free(rv.slots[b].d);
    free(rv.slots), free(rv.fwd), free(rv.bwd), free(rv.trivial), free(rv.lr_h), free(rv.lr_e), free(rv.lr_b), free(rv.lr_k), free(rv.lr_s0), free(rv.lrx), free(rv.lr_bound);
    for (size_t b = 0; rv.above && b < rv.blk.n; ++b) mim_ptrmap_free(&rv.above[b]);
    free(rv.above), free(rv.nxt), free(rv.noid), free(rv.ret_row), free(rv.shcall), free(rv.blk.d), free(rv.accT.d);
    for (size_t b = 0; rv.cr && b < rv.blk.n; ++b) free(rv.cr[b].in);
    free(rv.cr);
    if (!res) {
        mim_ptrmap_put(memo, key, f);
        if (parent) parent->failed = true;
    }
    return res;
}

static MimDef *vjp_of(Rev *parent, MimDef *h) {
    return vjp_in(parent, parent->p, parent->memo, parent->copies, parent->realloc_fn, h, 0, false);
}

/* h_vjp_shared: h's vjp on its caller's tape (see Rev.shared) */
static MimDef *vjp_shared_of(Rev *parent, MimDef *h) {
    return vjp_in(parent, parent->p, parent->memo, parent->copies, parent->realloc_fn, h, 0, true);
}

MimDef *autodiff_vjp(MimPass *p, MimPtrMap *memo, MimPtrMap *copies, MimDef **realloc_decl, MimDef *f) {
    return vjp_in(NULL, p, memo, copies, realloc_decl, f, 0, false);
}

MimDef *autodiff_vjp_inactive(MimPass *p, MimPtrMap *memo, MimPtrMap *copies, MimDef **realloc_decl, MimDef *f,
                              uint64_t inactive) {
    return vjp_in(NULL, p, memo, copies, realloc_decl, f, inactive, false);
}

/* ---- writes: stores, allocations, frees ------------------------------------------------ */

/* When f stores or allocates (rv->vm set, docs/autodiff.md "Memory in
 * reverse mode"), Enzyme-style:
 * - a store `*p = v` of a float (or an aggregate of floats) runs in the
 *   forward sweep; its reverse adds the shadow cell into v's adjoint and
 *   zeroes the cell (v̄ += *p̄; *p̄ = 0);
 * - memory may change after a load: a load of block B ≥ 1 that a later
 *   store may overwrite (vm_taped) and whose value B's reverse needs is
 *   taped: a slot of B's record ("late": the word is reserved when the
 *   record is pushed and written at B's end, once the value is loaded);
 *   other loads are recomputed; the loads and allocations of block 0 (f's
 *   body) are built once by the builder c0, whose nodes are in scope of
 *   both sweeps (block 0 runs once and dominates them), so no record is
 *   needed there;
 * - malloc/alloc/slot in block 0 get a zeroed shadow (calloc, before block
 *   0's statements), freed at the end of the backward sweep; `free` of such
 *   a buffer is deferred to that end too (the backward sweep reads it);
 *   allocations in other blocks (loops): VjpMem.lallocs;
 * - a taped load's value used in another block than the one loading it is
 *   taped by that block too, and its adjoint waits in an accumulator for
 *   the loading block's reverse (vm_cross);
 * - `free` of an argument buffer runs in the forward sweep; the loads it
 *   may follow are taped (VjpMem.afree);
 * - a nested function's calls are blocks of f at each site
 *   (vm_no_checkpoint): a checkpoint (the function redone by its vjp)
 *   would redo its writes, or read memory written since, so one that
 *   remains (recursion, INL_BLOCKS) is a located error (vm_checkpoint_ok). */
typedef struct VjpMem {
    Cl c0;         /* block 0's forward builder */
    bool write;    /* f stores: loads may be taped (vm_taped) */
    Vec allocs;    /* the allocations of block 0 (apps of f) */
    Vec conts;     /* per allocation: the continuation receiving its shadow from calloc */
    Vec raws;      /* per allocation: calloc's pointer (freed at the end) */
    MimPtrMap sh;  /* allocation ↦ its shadow pointer */
    MimPtrMap freed; /* allocation ↦ itself if f frees it */
    MimPtrMap chain, cand; /* memory operation ↦ its block + 1 (vm_place) */
    MimPairMap lchain;     /* (a load, a block whose jump passes on a token made after it) ↦ itself (vm_owner_at) */
    uint64_t *dirty;       /* per block: the buffers (vm_class) stores may write after it starts */
    bool *frozen;          /* per block: memory is frozen from its start on (vm_freeze) */
    /* taped loads whose value another block uses (vm_cross), in block
     * order; a float one has an accumulator (rv->acc) for the adjoint the
     * other blocks' reverses collect, which its own block's reverse adds
     * into the shadow (vm_seed_cross) */
    Vec xlds;
    MimPtrMap xld;   /* such a load ↦ itself */
    MimPtrMap fwdld; /* such a load of a block ≥ 1 (or an allocation in lallocs) ↦ its node in that block's forward (vm_note_fwd) */
    /* allocations of blocks ≥ 1 (in loops): the block's forward callocs
     * a shadow (vm_fwd_block, continuation lconts[i]); the primal and
     * shadow pointers are late slots of the records of the blocks whose
     * reverse uses them (the shadow's key: the allocation itself), and the
     * block's reverse frees the shadow, and the primal if f frees it
     * (vm_free_loop) */
    Vec lallocs, lconts;
    MimPtrMap lsh; /* such an allocation ↦ its shadow pointer in the forward sweep */
    /* frees of argument buffers (vm_arg_free) ↦ themselves: they run where
     * f has them, in the forward sweep, and count as writes of the
     * arguments' buffers (vm_dirty), so the loads they may follow are
     * taped: the backward sweep does not read freed memory */
    MimPtrMap afree;
} VjpMem;

static bool is_alloc(MimDef *d) {
    return mim_match(d, MIM_mem_malloc) || mim_match(d, MIM_mem_alloc) || mim_match(d, MIM_mem_slot) || mim_match(d, MIM_mem_mslot);
}

static bool vm_allows(Rev *rv, uint64_t id) {
    if (id == MIM_mem_remem) return true; /* the identity on memory (left by a store forwarded to a load) */
    return rv->vm && (id == MIM_mem_store || id == MIM_mem_free || id == MIM_mem_malloc || id == MIM_mem_alloc ||
                      id == MIM_mem_slot || id == MIM_mem_mslot);
}

/* d is an allocation of a block ≥ 1 (VjpMem.lallocs) */
static bool vm_lalloc(Rev *rv, MimDef *d) { return rv->vm && d && mim_ptrmap_has(&rv->vm->lsh, d); }

/* the block that executes the memory operation d (see vm_place), or −1 */
static long vm_owner(Rev *rv, MimDef *d) {
    if (!rv->vm) return -1;
    d = mim_resolve(rv->w, d);
    uintptr_t b = (uintptr_t)mim_ptrmap_get(&rv->vm->chain, d);
    if (!b) b = (uintptr_t)mim_ptrmap_get(&rv->vm->cand, d);
    return b && b != UINTPTR_MAX ? (long)b - 1 : -1;
}

/* ld is on the chains of several blocks (vm_owner_at) */
static bool vm_multi(Rev *rv, MimDef *ld) {
    VjpMem *vm = rv->vm;
    ld = mim_resolve(rv->w, ld);
    for (size_t b = 0; vm && b < rv->blk.n; ++b)
        if (mim_pairmap_find(&vm->lchain, ld, rv->blk.d[b])) return true;
    return false;
}
/* the block that executes the load ld when block b does: a load whose
 * token several blocks pass on (a loop header's load continued by both
 * targets of its branch, `con body ()` and `con exit ()`) runs in each of
 * them (each rebuilds it: only loads are on that chain, vm_begin) */
static long vm_owner_at(Rev *rv, MimDef *ld, long b) {
    long o = vm_owner(rv, ld);
    if (o >= 0 || b < 0 || !rv->vm) return o;
    return mim_pairmap_find(&rv->vm->lchain, mim_resolve(rv->w, ld), rv->blk.d[b]) ? b : o;
}

static bool is_memop(MimDef *d) {
    return mim_match(d, MIM_mem_load) || mim_match(d, MIM_mem_store) || mim_match(d, MIM_mem_free) || is_alloc(d);
}

static void vm_mark(MimPtrMap *m, MimDef *d, long b) {
    uintptr_t o = (uintptr_t)mim_ptrmap_get(m, d);
    mim_ptrmap_put(m, d, (void *)(o && o != (uintptr_t)b + 1 ? UINTPTR_MAX : (uintptr_t)b + 1));
}

/* Where each memory operation runs: a block whose parameters hold no
 * memory (`con body () = …`) continues its enclosing block's chain, so the
 * root of a chain does not tell. An operation runs in the block whose jump
 * passes on a memory token made after it (vm->chain); one on no such chain
 * (a loaded value whose token is dropped) in the one block that uses it
 * (vm->cand); used by several: −1. ops collects them all. */
static void vm_place(Rev *rv, VjpMem *vm, Vec *ops) {
    MimWorld *w = rv->w;
    for (size_t b = 0; b < rv->blk.n; ++b) {
        MimDef *body = mim_resolve(w, mim_lam_body(rv->blk.d[b]));
        MimPtrMap seen = {0};
        Vec order = {0};
        topo(rv, body, &seen, &order);
        for (size_t k = 0; k < order.n; ++k) {
            if (!is_memop(order.d[k])) continue;
            if (!mim_ptrmap_has(&vm->cand, order.d[k])) vpush(ops, order.d[k]);
            vm_mark(&vm->cand, order.d[k], (long)b);
        }
        mim_ptrmap_free(&seen);
        free(order.d);
        if (!body || mim_def_node(body) != MIM_APP) continue;
        MimDef *a = mim_app_arg(body), *T = mim_def_type(a);
        for (size_t i = 0, n = arity(w, T); i < n; ++i) {
            if (!is_mem(comp_type(w, T, i))) continue;
            MimDef *t = mim_proj(w, a, n, i);
            for (size_t guard = 0; guard < 1000000; ++guard) {
                t = mim_resolve(w, t);
                if (!t) break;
                if (mim_def_node(t) == MIM_EXTRACT) t = mim_resolve(w, mim_def_op(t, 0));
                if (!t || mim_def_node(t) != MIM_APP || !mim_app_axiom(t)) break;
                vm_mark(&vm->chain, t, (long)b);
                if (mim_match(t, MIM_mem_load)) mim_pairmap_put(&vm->lchain, t, rv->blk.d[b], t);
                MimDef *x = mim_app_arg(t), *X = mim_def_type(x);
                t = is_mem(X) ? x : mem_of(w, x, X, NULL);
            }
        }
    }
}

/* the allocation of block 0 that ptr is (its pointer, `alloc#1`), or NULL */
static MimDef *vm_alloc_of(Rev *rv, MimDef *ptr) {
    MimWorld *w = rv->w;
    ptr = mim_resolve(w, ptr);
    uint64_t k;
    if (!rv->vm || !ptr || mim_def_node(ptr) != MIM_EXTRACT || !mim_def_lit(mim_def_op(ptr, 1), &k) || k != 1) return NULL;
    MimDef *a = mim_resolve(w, mim_def_op(ptr, 0));
    return a && (mim_ptrmap_has(&rv->vm->sh, a) || vm_lalloc(rv, a)) ? a : NULL;
}

/* a late slot's key: the value of a load (`load#1`), or a component of it
 * (an aggregate is taped word by word) */
static bool vm_late(Rev *rv, MimDef *key) {
    if (!rv->vm) return false;
    if (vm_lalloc(rv, key)) return true; /* the shadow of an allocation in a loop */
    while (key && mim_def_node(key) == MIM_EXTRACT) {
        MimDef *t = mim_resolve(rv->w, mim_def_op(key, 0));
        if ((rv->vm->write && mim_match(t, MIM_mem_load)) || vm_lalloc(rv, t)) return true;
        key = t;
    }
    return false;
}

/* the value at key (of type T, a loaded value or a component) read from
 * the late slots of c's block's record */
static MimDef *vm_read(Cl *c, MimDef *key, MimDef *T) {
    Rev *rv = c->rv;
    MimWorld *w = rv->w;
    uint64_t n;
    if (wordable(rv, T)) {
        size_t j = slot_of(rv, c->b, key);
        MimDef *at = iop(w, MIM_core_wrap_sub, c->p, i64(rv, j + 1));
        return from_word(rv, tape_load(rv, c->mem, c->tp, at), T);
    }
    if (!agg_arity(w, T, &n)) return NULL;
    MimDef **ops = mim_xcalloc(n, sizeof *ops);
    bool ok = true;
    for (uint64_t k = 0; k < n && ok; ++k) ok = (ops[k] = vm_read(c, mim_proj(w, key, n, k), agg_comp(w, T, k))) != NULL;
    MimDef *r = ok ? mim_tuple(w, ops, n) : NULL;
    free(ops);
    return r;
}

/* cl for memory operations when f writes or allocates; true if handled
 * (*res the value, NULL after an error) */
static bool vm_cl(Cl *c, MimDef *old, MimDef **res) {
    Rev *rv = c->rv;
    MimWorld *w = rv->w;
    VjpMem *vm = rv->vm;
    if (!vm) return false; /* (a remem is rebuilt as it is) */
    bool ld = mim_match(old, MIM_mem_load), st = mim_match(old, MIM_mem_store), fr = mim_match(old, MIM_mem_free);
    bool al = is_alloc(old);
    if (mim_match(old, MIM_mem_remem) && c->mode == CL_BWD) { /* a store forwarded to a load leaves one */
        *res = c->mem;
        return true;
    }
    if (!ld && !st && !fr && !al) return false;
    *res = NULL;
    if (fr && c->mode == CL_FWD && !mim_ptrmap_has(&vm->afree, old)) { /* deferred (vm_free_all, vm_free_loop) */
        *res = cl(c, mim_proj(w, mim_app_arg(old), 2, 0));
        return true;
    }
    if (c->mode == CL_BWD && (st || fr)) {
        *res = c->mem;
        return true;
    }
    if (c == &vm->c0) return false;
    long o = ld ? vm_owner_at(rv, old, c->b) : vm_owner(rv, old);
    if (o == 0) { /* block 0's node, in scope everywhere */
        *res = cl(&vm->c0, old);
        return true;
    }
    if (al && o < 0) {
        fail(rv, old, "the allocation used by several blocks");
        return true;
    }
    if (al && c->mode == CL_FWD && o != c->b) { /* the pointer its own block allocated */
        *res = mim_ptrmap_get(&vm->fwdld, old);
        /* (a loop's allocation reaches a block not nested in its own only
         * as the root of a block parameter passed several buffers) */
        if (!*res && vm_lalloc(rv, old))
            fail(rv, old, "the allocation in a loop whose pointer is passed to a block parameter (its shadow is not known in the blocks it reaches)");
        else if (!*res) fail(rv, old, "the allocation used before its block");
        return true;
    }
    if (al && c->mode == CL_BWD) { /* the pointer, read from c's record */
        MimDef *PT = comp_type(w, mim_def_type(old), 1);
        MimDef *p = vm_read(c, mim_proj(w, old, 2, 1), PT);
        *res = p ? mim_pair(w, c->mem, p) : NULL;
        return true;
    }
    if (al) return false; /* its block's forward: allocated there (vm_note_fwd) */
    if (ld && o > 0 && !vm_taped(rv, old)) return false; /* nothing writes its buffer after it: recomputed */
    bool cross = ld && o > 0 && mim_ptrmap_has(&vm->xld, old);
    if (cross && c->mode == CL_FWD && o != c->b) { /* the value its own block loaded */
        *res = mim_ptrmap_get(&vm->fwdld, old);
        if (!*res) fail(rv, old, "the loaded value used before its block");
        return true;
    }
    /* a load several blocks continue, used by a block they are nested in
     * (the header's branch condition): rebuilt there too */
    bool multi = ld && o < 0 && c->b >= 0 && vm_multi(rv, old);
    if (o != c->b && !cross && !multi) {
        fail(rv, old, "the memory operation of another block (pass loaded values as block arguments)");
        return true;
    }
    if (!ld || c->mode != CL_BWD || !vm->write) return false; /* rebuilt as it is */
    /* late slots of c's block */
    MimDef *T = comp_type(w, mim_def_type(old), 1);
    MimDef *v = vm_read(c, mim_proj(w, old, 2, 1), T);
    if (!v) {
        fail(rv, old, "the load of a value of this type in a function that writes memory");
        return true;
    }
    *res = mim_pair(w, c->mem, v);
    return true;
}

static MimDef *vm_shadow(Cl *c, MimDef *old) {
    MimDef *a = vm_alloc_of(c->rv, old);
    if (a && vm_lalloc(c->rv, a)) /* in a loop: taped, read from c's record */
        return c->mode == CL_BWD ? vm_read(c, a, comp_type(c->rv->w, mim_def_type(a), 1)) : NULL;
    return a ? mim_ptrmap_get(&c->rv->vm->sh, a) : NULL;
}

/* the end of a forward block: the late slots of its record (its loaded
 * values the reverse reads), at pos − j − 2 for slot j, stored after the
 * block's memory *m; returns the jump's argument r with the new token (the
 * optimizer keeps one memory parameter per continuation: the argument's
 * and the tape state's must be the same) */
static MimDef *vm_tape_late(Cl *c, MimDef *r, MimDef **m, MimDef *tp, MimDef *pos) {
    Rev *rv = c->rv;
    MimWorld *w = rv->w;
    long b = c->b;
    if (!r || !rv->vm || b <= 0 || rv->trivial[b] || rv->lr_h[b]) return r;
    Vec *s = &rv->slots[b];
    MimDef *m0 = *m;
    for (size_t j = 0; j < s->n && *m; ++j) {
        if (!vm_late(rv, s->d[j])) continue;
        bool sh = vm_lalloc(rv, s->d[j]); /* an allocation's shadow pointer */
        MimDef *v = sh ? mim_ptrmap_get(&rv->vm->lsh, s->d[j]) : cl(c, s->d[j]);
        if (!v) return NULL;
        MimDef *T = sh ? comp_type(w, mim_def_type(s->d[j]), 1) : mim_def_type(s->d[j]);
        MimDef *at = iop(w, MIM_core_wrap_sub, pos, i64(rv, j + 2));
        *m = tape_store(rv, *m, tp, at, to_word(rv, v, T));
    }
    if (*m == m0) return r;
    MimDef *T = mim_def_type(r);
    size_t n = arity(w, T);
    if (n == 1) return is_mem(T) ? *m : r;
    MimDef **ops = mim_xcalloc(n, sizeof *ops);
    for (size_t i = 0; i < n; ++i) ops[i] = is_mem(comp_type(w, T, i)) ? *m : mim_proj(w, r, n, i);
    MimDef *r2 = mim_tuple(w, ops, n);
    free(ops);
    return r2;
}

/* a seeded load: in a function that writes, only the block that loads may
 * add its adjoint into the shadow (a later block's reverse runs before the
 * reverse of a store between the two), unless no store may write its
 * buffer after it; another block adds v to the load's accumulator instead
 * (*taken), which the loading block's reverse takes over (vm_seed_cross) */
static bool vm_adj_load(Adj *ad, MimDef *ld, MimDef *v, bool *taken) {
    Rev *rv = ad->c->rv;
    long o = vm_owner_at(rv, ld, ad->c->b);
    if (!rv->vm || !rv->vm->write || o == ad->c->b || (o >= 0 && !vm_taped(rv, ld))) return true;
    long j = acc_of(rv, ld);
    if (j >= 0 && is_float(mim_def_type(v))) {
        ad->acc[j] = fadd(rv->w, ad->acc[j], v);
        *taken = true;
        return true;
    }
    MimDef *T = comp_type(rv->w, mim_def_type(ld), 1);
    if (mim_ptrmap_has(&rv->vm->xld, ld) && float_agg(rv->w, T) && float_agg(rv->w, mim_def_type(v))) { /* an aggregate's */
        vm_acc_add(ad, mim_proj(rv->w, ld, 2, 1), T, v);
        *taken = true;
        return true;
    }
    if (mim_def_loc(ld).begin.row) rv->use = mim_def_loc(ld); /* (the load, not the use, which may be a library's node) */
    return fail(rv, ld, "the loaded value used in another block of a function that writes memory (pass it as a block argument)") != NULL;
}

/* block b's reverse: the adjoints of b's loads that other blocks' reverses
 * collected (vm_adj_load) join the loads' own, before the propagation
 * adds them into the shadows (every load b owns is on b's memory chain,
 * so the propagation from b's jump reaches it) */
static bool vm_seed_cross(Adj *ad, long b) {
    Rev *rv = ad->c->rv;
    VjpMem *vm = rv->vm;
    for (size_t k = 0; vm && k < vm->xlds.n; ++k) {
        MimDef *ld = vm->xlds.d[k];
        long j = acc_of(rv, ld);
        if (vm_owner(rv, ld) != b) continue;
        MimDef *s = j >= 0 ? ad->acc[j] : vm_acc_take(ad, mim_proj(rv->w, ld, 2, 1), comp_type(rv->w, mim_def_type(ld), 1));
        if (!s) continue;
        if (j >= 0) ad->acc[j] = NULL;
        if (!adj_add(ad, mim_proj(rv->w, ld, 2, 1), s)) return false;
    }
    return true;
}

/* the forward node of a load other blocks use, built by its own block's
 * forward (those blocks are nested in it and built after it) */
static void vm_note_fwd(Cl *c, MimDef *old, MimDef *res) {
    VjpMem *vm = c->rv->vm;
    if (c->mode != CL_FWD || c == &vm->c0 || !mim_ptrmap_has(&vm->xld, old) || vm_owner(c->rv, old) != c->b) return;
    if (!mim_ptrmap_has(&vm->fwdld, old)) mim_ptrmap_put(&vm->fwdld, old, res);
}

/* the accumulators of the float components of a cross load's aggregate
 * value (key: that value, or a component of it, of type T): registered
 * (vm_cross), v added into them (vm_adj_load), taken as an aggregate (its
 * other components 0 or ⊥; NULL if all are empty) and cleared
 * (vm_seed_cross) */
static void vm_acc_reg(Rev *rv, MimDef *key, MimDef *T) {
    uint64_t n;
    if (is_float(T)) vpush(&rv->accT, T), mim_ptrmap_put(&rv->acc, mim_resolve(rv->w, key), (void *)(uintptr_t)rv->accT.n);
    else if (float_agg(rv->w, T) && agg_arity(rv->w, T, &n))
        for (uint64_t k = 0; k < n; ++k) vm_acc_reg(rv, mim_proj(rv->w, key, n, k), agg_comp(rv->w, T, k));
}
static void vm_acc_add(Adj *ad, MimDef *key, MimDef *T, MimDef *v) {
    Rev *rv = ad->c->rv;
    uint64_t n;
    long j = is_float(T) ? acc_of(rv, mim_resolve(rv->w, key)) : -1;
    if (j >= 0) ad->acc[j] = fadd(rv->w, ad->acc[j], v);
    else if (float_agg(rv->w, T) && agg_arity(rv->w, T, &n))
        for (uint64_t k = 0; k < n; ++k) {
            MimDef *kk = mim_proj(rv->w, key, n, k);
            MimDef *vk = mim_proj(rv->w, v, n, k);
            vm_acc_add(ad, kk, agg_comp(rv->w, T, k), vk);
        }
}
static MimDef *vm_acc_take(Adj *ad, MimDef *key, MimDef *T) {
    Rev *rv = ad->c->rv;
    MimWorld *w = rv->w;
    uint64_t n;
    long j = is_float(T) ? acc_of(rv, mim_resolve(w, key)) : -1;
    if (j >= 0) {
        MimDef *s = ad->acc[j];
        ad->acc[j] = NULL;
        return s;
    }
    if (!float_agg(w, T) || !agg_arity(w, T, &n)) return NULL;
    MimDef **ops = mim_xcalloc(n, sizeof *ops);
    bool any = false;
    for (uint64_t k = 0; k < n; ++k) any |= (ops[k] = vm_acc_take(ad, mim_proj(w, key, n, k), agg_comp(w, T, k))) != NULL;
    for (uint64_t k = 0; any && k < n; ++k)
        if (!ops[k]) ops[k] = vzero(w, agg_comp(w, T, k));
    MimDef *r = any ? mim_tuple(w, ops, n) : NULL;
    free(ops);
    return r;
}

/* The taped loads whose value another block uses (vm->xlds): that
 * block's record holds the value (a late slot, as for the loading
 * block), and a float's adjoint waits in an accumulator for the loading
 * block's reverse, which then has one even if it had nothing else to do. */
static void vm_cross(Rev *rv, VjpMem *vm) {
    MimWorld *w = rv->w;
    for (size_t y = 0; y < rv->blk.n; ++y) {
        MimPtrMap seen = {0};
        Vec order = {0};
        topo(rv, mim_lam_body(rv->blk.d[y]), &seen, &order);
        for (size_t k = 0; k < order.n; ++k) {
            MimDef *ld = order.d[k];
            long o = mim_match(ld, MIM_mem_load) ? vm_owner(rv, ld) : -1;
            if (o < 0 || o == (long)y || mim_ptrmap_has(&vm->xld, ld) || !vm_taped(rv, ld)) continue;
            MimDef *T = comp_type(w, mim_def_type(ld), 1);
            bool agg = float_agg(w, T);
            if (!is_float(T) && !wordable(rv, T) && !agg) continue;
            vpush(&vm->xlds, ld);
            mim_ptrmap_put(&vm->xld, ld, ld);
            if (!is_float(T) && !agg) continue;
            if (agg) vm_acc_reg(rv, mim_proj(w, ld, 2, 1), T); /* one per float component */
            else vpush(&rv->accT, T), mim_ptrmap_put(&rv->acc, ld, (void *)(uintptr_t)rv->accT.n);
            if (o > 0) rv->trivial[o] = false;
        }
        mim_ptrmap_free(&seen);
        free(order.d);
    }
}

/* the reverse of the store e of block c->b: v̄ += *p̄; *p̄ = 0 */
static bool vm_store_rev(Adj *ad, MimDef *e) {
    Cl *c = ad->c;
    Rev *rv = c->rv;
    MimWorld *w = rv->w;
    if (vm_owner(rv, e) != c->b) return true;
    MimDef *a = mim_app_arg(e);
    MimDef *p = mim_proj(w, a, 3, 1), *v = mim_proj(w, a, 3, 2);
    MimDef *T = mim_def_type(v);
    if (!is_float(T) && !float_agg(w, T)) {
        if (autodiff_is_idx(w, T) || is_ptr(T) || is_mem(T) || plain_agg(w, T)) return true;
        return fail(rv, e, "the store of a value of this type (floats, integers, pointers and aggregates of them are supported)") != NULL;
    }
    MimDef *sp = shadow(c, p);
    if (!sp) return false;
    sp = in_region(rv, REGION_SHADOW, sp);
    MimDef *stc = mim_app_callee(e);
    MimDef *ldc = mim_app(w, annex(w, MIM_mem_load), mim_app_arg(stc));
    MimDef *r = mim_app(w, ldc, mim_pair(w, c->mem, sp));
    MimDef *ops[3];
    ops[0] = mim_proj(w, r, 2, 0);
    ops[1] = sp;
    ops[2] = vzero(w, T);
    c->mem = mim_app(w, stc, mim_tuple(w, ops, 3));
    MimDef *dv = mim_proj(w, r, 2, 1);
    return adj_add(ad, v, dv);
}

/* aggregates of floats (Σ and arrays of literal arity ≤ 64 of floats or
 * such aggregates, besides which they may hold integers and pointers):
 * stored and loaded as a whole, their adjoints are aggregates of the same
 * shape (whose integers and pointers mean nothing: 0 and ⊥ when made) */
static bool agg_arity(MimWorld *w, MimDef *T, uint64_t *n) {
    T = mim_resolve(w, T);
    if (!T) return false;
    if (mim_def_node(T) == MIM_SIGMA) *n = mim_def_num_ops(T);
    else if (mim_def_node(T) != MIM_ARR || !mim_def_lit(mim_resolve(w, mim_def_op(T, 0)), n)) return false;
    return *n > 0 && *n <= 64;
}
static MimDef *agg_comp(MimWorld *w, MimDef *T, uint64_t k) {
    T = mim_resolve(w, T);
    return mim_def_node(T) == MIM_SIGMA ? mim_def_op(T, k) : mim_def_op(T, 1);
}
static bool float_agg(MimWorld *w, MimDef *T) {
    uint64_t n;
    bool any = false;
    if (!agg_arity(w, T, &n)) return false;
    for (uint64_t k = 0; k < n; ++k) {
        MimDef *C = agg_comp(w, T, k);
        if (is_float(C) || float_agg(w, C)) any = true;
        else if (!autodiff_is_idx(w, C) && !is_ptr(C)) return false;
    }
    return any;
}
/* an aggregate of integers and pointers only (no adjoint) */
static bool plain_agg(MimWorld *w, MimDef *T) {
    uint64_t n;
    if (!agg_arity(w, T, &n)) return false;
    for (uint64_t k = 0; k < n; ++k) {
        MimDef *C = agg_comp(w, T, k);
        if (!autodiff_is_idx(w, C) && !is_ptr(C) && !plain_agg(w, C)) return false;
    }
    return true;
}
static MimDef *vzero(MimWorld *w, MimDef *T) {
    uint64_t n;
    if (is_ptr(T)) return mim_bot(w, T);
    if (is_float(T) || !agg_arity(w, T, &n)) return fzero(w, T);
    MimDef **ops = mim_xcalloc(n, sizeof *ops);
    for (uint64_t k = 0; k < n; ++k) ops[k] = vzero(w, agg_comp(w, T, k));
    MimDef *z = mim_tuple(w, ops, n);
    free(ops);
    return z;
}
/* a + b, component-wise for aggregates */
static MimDef *vadd(MimWorld *w, MimDef *a, MimDef *b) {
    uint64_t n;
    if (a && b && !is_float(mim_def_type(a)) && !agg_arity(w, mim_def_type(a), &n)) return a; /* an integer or pointer */
    if (!a || !b || is_float(mim_def_type(a)) || !agg_arity(w, mim_def_type(a), &n)) return fadd(w, a, b);
    MimDef **ops = mim_xcalloc(n, sizeof *ops);
    for (uint64_t k = 0; k < n; ++k) {
        MimDef *ak = mim_proj(w, a, n, k);
        MimDef *bk = mim_proj(w, b, n, k);
        ops[k] = vadd(w, ak, bk);
    }
    MimDef *r = mim_tuple(w, ops, n);
    free(ops);
    return r;
}
/* the reverse of `v#k` (v an aggregate of floats, k a literal): the
 * aggregate with s at k and zeros elsewhere to v; false if e is not one */
static bool vm_extract_rev(Adj *ad, MimDef *e, MimDef *s) {
    Rev *rv = ad->c->rv;
    MimWorld *w = rv->w;
    MimDef *v = mim_def_op(e, 0), *T = mim_def_type(v);
    uint64_t n, k;
    if (!float_agg(w, T) || !agg_arity(w, T, &n) || !mim_def_lit(mim_resolve(w, mim_def_op(e, 1)), &k) || k >= n) return false;
    MimDef **ops = mim_xcalloc(n, sizeof *ops);
    for (uint64_t j = 0; j < n; ++j) ops[j] = j == k ? s : vzero(w, agg_comp(w, T, j));
    MimDef *oh = mim_tuple(w, ops, n);
    free(ops);
    adj_add(ad, v, oh);
    return true;
}

/* e (or what it calls) writes or allocates memory; with st (f's Rev):
 * stores, or frees an argument of f (rv->vm->write, see vm_begin) */
static bool vm_writes_in(MimWorld *w, MimDef *e, MimPtrMap *seen, Rev *st) {
    e = mim_resolve(w, e);
    if (!e || mim_def_is_const(e) || mim_ptrmap_has(seen, e)) return false;
    mim_ptrmap_put(seen, e, e);
    if (mim_def_node(e) == MIM_VAR) return false;
    if (mim_def_node(e) == MIM_APP) {
        MimDef *ax = mim_app_axiom(e);
        uint64_t id = ax ? mim_axiom_id(ax) : 0;
        bool fr = id && mim_match(e, MIM_mem_free);
        if (fr && st) fr = top_of(st, ptr_root(st, mim_proj(w, mim_app_arg(e), 2, 1)), false) != NULL;
        if (id && (mim_match(e, MIM_mem_store) || fr || (!st && is_alloc(e)))) return true;
    }
    if (mim_def_node(e) == MIM_LAM && mim_def_is_mut(e)) return mim_lam_body(e) && vm_writes_in(w, mim_lam_body(e), seen, st);
    if (mim_def_is_mut(e)) return false;
    for (size_t i = 0, n = mim_def_num_ops(e); i < n; ++i)
        if (vm_writes_in(w, mim_def_op(e, i), seen, st)) return true;
    return false;
}
static bool vm_writes(MimWorld *w, MimDef *e, MimPtrMap *seen) { return vm_writes_in(w, e, seen, NULL); }

/* f or a function it calls stores (or frees an argument), or h writes: a
 * call of h cannot be a checkpoint (vm_checkpoint_ok), so inline_once
 * makes blocks of f of every call of h, also with loops or pointer
 * arguments (at any number of sites, up to INL_BLOCKS blocks of f) */
static bool vm_no_checkpoint(Rev *rv, bool f_stores, MimDef *h) {
    MimPtrMap seen = {0};
    bool st = f_stores || vm_writes(rv->w, mim_lam_body(h), &seen);
    mim_ptrmap_free(&seen);
    return st;
}
static bool vm_stores(Rev *rv) {
    MimPtrMap seen = {0};
    bool st = vm_writes_in(rv->w, mim_lam_body(rv->f), &seen, rv);
    mim_ptrmap_free(&seen);
    return st;
}

/* a call of h redone by h_vjp in the backward sweep (a checkpoint) must
 * neither write (it would write twice) nor read memory f writes */
static bool vm_checkpoint_ok(Rev *rv, MimDef *h) {
    MimPtrMap seen = {0};
    bool wr = (rv->vm && rv->vm->write) || vm_writes(rv->w, mim_lam_body(h), &seen);
    mim_ptrmap_free(&seen);
    if (!wr) return true;
    return fail(rv, h, "the call of a nested function that stays a call where memory is written (a recursive one, or in a function of more than 2048 blocks: its backward sweep would redo it)") != NULL;
}

/* the end of the backward sweep: free the shadows, and the buffers f frees */
static MimDef *vm_free_all(Rev *rv, MimDef *m) {
    MimWorld *w = rv->w;
    VjpMem *vm = rv->vm;
    if (!vm || !m) return m;
    for (size_t i = 0; i < vm->allocs.n; ++i) {
        MimDef *fr = mim_app(w, annex(w, MIM_mem_free), tape_meta(rv));
        m = mim_app(w, fr, mim_pair(w, m, vm->raws.d[i]));
        MimDef *al = vm->allocs.d[i];
        if (!mim_ptrmap_has(&vm->freed, al)) continue;
        MimDef *prim = cl(&vm->c0, al);
        if (!prim) return NULL;
        MimDef *p = mim_proj(w, prim, 2, 1);
        MimDef *pf = mim_app(w, annex(w, MIM_mem_free), mim_app_arg(mim_def_type(p)));
        m = mim_app(w, pf, mim_pair(w, m, p));
    }
    return m;
}

/* C's calloc: Cn [M, I64, Nat, Cn [M, TP]] (flat, as C declares it: a
 * tuple parameter would be an LLVM struct argument, right only by the
 * calling convention's chance) */
static MimDef *calloc_fn(Rev *rv) {
    if (rv->realloc_fn[1]) return rv->realloc_fn[1];
    MimDef *d[3] = {rv->M, rv->I64, NULL}, *r[2] = {rv->M, rv->TP};
    d[2] = mim_nat(rv->w);
    MimDef *R = mim_sigma(rv->w, r, 2);
    return tape_fn(rv, 1, "calloc", d, 3, R);
}

/* e depends on memory */
static bool vm_reads(MimWorld *w, MimDef *e, MimPtrMap *seen) {
    e = mim_resolve(w, e);
    if (!e || mim_def_is_const(e) || mim_def_is_mut(e) || mim_ptrmap_has(seen, e)) return false;
    mim_ptrmap_put(seen, e, e);
    if (is_mem(mim_def_type(e))) return true;
    for (size_t i = 0, n = mim_def_num_ops(e); i < n; ++i)
        if (vm_reads(w, mim_def_op(e, i), seen)) return true;
    return false;
}

/* the blocks b jumps, branches or returns to (as block indices) */
static void succs(Rev *rv, long b, Vec *out) {
    MimWorld *w = rv->w;
    MimDef *body = mim_resolve(w, mim_lam_body(rv->blk.d[b])), *g, *a;
    out->n = 0;
    if (!body || mim_def_node(body) != MIM_APP) return;
    target(rv, body, &g, &a);
    if (block_of(rv, g) > 0) vpush(out, g);
    if (mim_def_node(g) == MIM_EXTRACT) {
        MimDef *t = mim_resolve(w, mim_def_op(g, 0));
        for (size_t j = 0, n = t && mim_def_node(t) == MIM_TUPLE ? mim_def_num_ops(t) : 0; j < n; ++j)
            if (block_of(rv, mim_resolve(w, mim_def_op(t, j))) > 0) vpush(out, mim_resolve(w, mim_def_op(t, j)));
    } else if (mim_def_node(g) == MIM_LAM && is_function(w, g)) {
        MimDef *args, *k;
        size_t n;
        if (split_call(rv, g, a, &args, &k, &n) && block_of(rv, k) > 0) vpush(out, k);
    }
}

/* The buffer a pointer points into, as a bit: arguments (which may alias
 * each other) bit 0, block 0's allocation i bit i + 1 (distinct from
 * everything else), anything else (a pointer loaded from memory, …) bit 63,
 * which may alias every buffer. */
enum { CL_ARGS = 0, CL_UNKNOWN = 63 };
static uint64_t vm_class(Rev *rv, MimDef *p) {
    MimWorld *w = rv->w;
    for (size_t guard = 0; guard < 100000; ++guard) {
        p = mim_resolve(w, p);
        if (!p) break;
        MimDef *root = mim_ptrmap_get(&rv->proot, p); /* a pointer parameter points into its root's buffer */
        if (mim_match(p, MIM_mem_lea)) p = mim_proj(w, mim_app_arg(p), 2, 0);
        else if (mim_match(p, MIM_core_bitcast) && is_ptr(mim_def_type(mim_app_arg(p)))) p = mim_app_arg(p);
        else if (root) p = root;
        else break;
    }
    if (!p) return (uint64_t)1 << CL_UNKNOWN;
    if (top_of(rv, p, false)) return (uint64_t)1 << CL_ARGS;
    MimDef *al = vm_alloc_of(rv, p);
    for (size_t i = 0; al && i < rv->vm->allocs.n; ++i)
        if (rv->vm->allocs.d[i] == al) return (uint64_t)1 << (i + 1 < CL_UNKNOWN ? i + 1 : CL_UNKNOWN);
    for (size_t i = 0, n0 = rv->vm->allocs.n; al && i < rv->vm->lallocs.n; ++i) /* (all of one allocation's executions) */
        if (rv->vm->lallocs.d[i] == al) return (uint64_t)1 << (n0 + i + 1 < CL_UNKNOWN ? n0 + i + 1 : CL_UNKNOWN);
    return (uint64_t)1 << CL_UNKNOWN;
}

/* the value of the load ld may be overwritten later in the forward sweep:
 * a store into a buffer that may be ld's can run after ld's block starts */
static bool vm_taped(Rev *rv, MimDef *ld) {
    long o = vm_owner(rv, ld);
    if (o < 0) return true;
    uint64_t c = vm_class(rv, mim_proj(rv->w, mim_app_arg(ld), 2, 1)), u = (uint64_t)1 << CL_UNKNOWN;
    uint64_t d = rv->vm->dirty[o];
    return (c & u) ? d != 0 : (d & (c | u)) != 0;
}

/* vm->dirty: a load from a buffer that no store can write after the load
 * (a loop that only reads what earlier loops wrote, or an argument while
 * only malloc'd buffers are written) sees the same memory in the backward
 * sweep, so it is recomputed as in a function that does not write; the
 * other loads are taped */
/* out[b]: the union of own[y] over block b and every block reachable from b
 * (with `any`, only whether it is 0: the walk from b stops at the first
 * non-zero own[y]) */
static void reach_union(Rev *rv, const uint64_t *own, uint64_t *out, bool any) {
    size_t nb = rv->blk.n;
    bool *seen = mim_xcalloc(nb, sizeof *seen);
    Vec stack = {0}, next = {0};
    for (size_t b = 0; b < nb; ++b) {
        memset(seen, 0, nb * sizeof *seen);
        stack.n = 0;
        vpush(&stack, rv->blk.d[b]);
        seen[b] = true;
        uint64_t d = own[b];
        while (stack.n && !(any && d)) {
            long x = block_of(rv, stack.d[--stack.n]);
            succs(rv, x, &next);
            for (size_t j = 0; j < next.n && !(any && d); ++j) {
                long y = block_of(rv, next.d[j]);
                d |= own[y];
                if (!seen[y]) seen[y] = true, vpush(&stack, next.d[j]);
            }
        }
        out[b] = d;
    }
    free(stack.d), free(next.d), free(seen);
}

static void vm_dirty(Rev *rv, VjpMem *vm, Vec *ops) {
    size_t nb = rv->blk.n;
    uint64_t *st = mim_xcalloc(nb, sizeof *st);
    vm->dirty = mim_xcalloc(nb, sizeof *vm->dirty);
    for (size_t k = 0; k < ops->n; ++k) {
        long o = mim_match(ops->d[k], MIM_mem_store) ? vm_owner(rv, ops->d[k]) : -1;
        if (o >= 0) st[o] |= vm_class(rv, mim_proj(rv->w, mim_app_arg(ops->d[k]), 3, 1));
        o = mim_ptrmap_has(&vm->afree, ops->d[k]) ? vm_owner(rv, ops->d[k]) : -1; /* (a free of an argument buffer) */
        if (o >= 0) st[o] |= vm_class(rv, mim_proj(rv->w, mim_app_arg(ops->d[k]), 2, 1));
    }
    reach_union(rv, st, vm->dirty, false); /* the stores of the blocks reachable from b */
    free(st);
}

/* vm->frozen: no write can run once block b has started (no store or
 * free of an argument buffer reachable from b, vm->dirty), no block
 * reachable from b allocates (VjpMem.lallocs) or uses a taped load of
 * another block (vm_cross): the memory b and the blocks after it read is
 * what the backward sweep sees, their loads are recomputed, and their
 * records hold no late slots. There, what needs "f does not write" in a
 * function without writes holds too (counted loops' invariant bounds and
 * forward-order reverses, carried loops, values read from the record
 * above): a function whose writes all precede a loop (a prologue filling
 * a scratch buffer: GMM's exp(q)) keeps that loop's small records. */
static void vm_freeze(Rev *rv, VjpMem *vm) {
    size_t nb = rv->blk.n;
    uint64_t *bad = mim_xcalloc(nb, sizeof *bad), *reach = mim_xcalloc(nb, sizeof *reach);
    for (size_t y = 0; y < nb; ++y) {
        bad[y] = vm->dirty[y] != 0;
        MimPtrMap tseen = {0};
        Vec order = {0};
        topo(rv, mim_lam_body(rv->blk.d[y]), &tseen, &order);
        for (size_t k = 0; k < order.n && !bad[y]; ++k) {
            MimDef *d = order.d[k];
            if (vm_lalloc(rv, d)) bad[y] = 1;
            else if (mim_ptrmap_has(&vm->xld, d) && vm_owner(rv, d) != (long)y) bad[y] = 1;
        }
        mim_ptrmap_free(&tseen);
        free(order.d);
    }
    reach_union(rv, bad, reach, true); /* b is frozen if no block reachable from it is bad */
    vm->frozen = mim_xcalloc(nb, sizeof *vm->frozen);
    for (size_t b = 0; b < nb; ++b) vm->frozen[b] = !reach[b];
    free(reach), free(bad);
}

/* memory is frozen from block b's start (vm_freeze), or f does not write */
static bool vm_frozen(Rev *rv, long b) { return !rv->vm || (b >= 0 && rv->vm->frozen && rv->vm->frozen[b]); }

/* record r has no late slot (vm_tape_late stores those below the block
 * number, so a record with one keeps it) */
static bool vm_late_free(Rev *rv, long r) {
    for (size_t j = 0; rv->vm && j < rv->slots[r].n; ++j)
        if (vm_late(rv, rv->slots[r].d[j])) return false;
    return true;
}

/* the free fr frees an argument buffer: its pointer is an offset into a
 * pointer argument (through lea, pointer bitcasts and the pointer
 * parameters of blocks whose every jump passes one, vm_ptr_param) */
static bool vm_arg_free(Rev *rv, MimDef *fr) {
    MimDef *r = ptr_root(rv, mim_proj(rv->w, mim_app_arg(fr), 2, 1));
    MimDef *up = r ? mim_ptrmap_get(&rv->proot, r) : NULL;
    if (up) r = ptr_root(rv, up);
    return r && top_of(rv, r, false) && is_ptr(mim_def_type(r));
}

/* the free fr frees a pointer parameter of a block (or an offset into
 * one) that every jump passes a buffer of f or an argument (vm_ptr_param,
 * vm_ptr_swap): a buffer f allocates, since an argument's is vm_arg_free's */
static bool vm_free_param(Rev *rv, MimDef *fr) {
    MimDef *r = ptr_root(rv, mim_proj(rv->w, mim_app_arg(fr), 2, 1));
    long x;
    size_t i;
    return r && block_leaf(rv, r, &x, &i) && mim_ptrmap_has(&rv->proot, mim_resolve(rv->w, leaf_key(rv, x, i)));
}

/* Finds f's stores, allocations and frees; sets rv->vm if there are any. */
static bool vm_begin(Rev *rv) {
    MimWorld *w = rv->w;
    bool write = false;
    Vec allocs = {0}, frees = {0}, ops = {0}, lallocs = {0};
    VjpMem *vm = mim_xcalloc(1, sizeof *vm);
    rv->vm = vm;
    vm_place(rv, vm, &ops);
    bool ok = true;
    for (size_t k = 0; k < ops.n && ok; ++k) {
        MimDef *e = ops.d[k];
        bool st = mim_match(e, MIM_mem_store) != NULL;
        if (mim_match(e, MIM_mem_load)) continue;
        long b = vm_owner(rv, e);
        if (b < 0) {
            ok = fail(rv, e, "the memory operation used by several blocks") != NULL;
        } else if (st) {
            write = true;
            if (b > 0) rv->trivial[b] = false; /* its reverse zeroes shadow cells */
        } else if (mim_match(e, MIM_mem_free)) {
            vpush(&frees, e);
            if (vm_arg_free(rv, e)) mim_ptrmap_put(&vm->afree, e, e), write = true;
        } else if (b > 0) {
            vpush(&lallocs, e);
        } else {
            vpush(&allocs, e);
        }
    }
    if (!ok || (!write && !allocs.n && !frees.n && !lallocs.n)) {
        free(ops.d);
        free(allocs.d), free(frees.d), free(lallocs.d);
        vm_drop(rv);
        return ok;
    }

    vm->write = write;
    vm->allocs = allocs;
    /* block 0's chain (after the tape runtime's first block, build): the
     * shadows' callocs, then f's body */
    MimDef *m = mim_proj(w, mim_var(w, rv->tape0), 2, 0);
    for (size_t i = 0; i < allocs.n; ++i) {
        MimDef *al = allocs.d[i];
        MimDef *cd[2] = {rv->M, rv->TP};
        MimDef *k = named(w, mim_cn(w, mim_sigma(w, cd, 2)), "vjp_shadow_", rv->f);
        if (!k) {
            free(frees.d), free(lallocs.d);
            return false;
        }
        MimDef *kv = mim_var(w, k);
        MimDef *raw = mim_proj(w, kv, 2, 1);
        MimDef *PT = comp_type(w, mim_def_type(al), 1);
        MimDef *sp = bitcast(w, PT, raw);
        vpush(&vm->conts, k);
        vpush(&vm->raws, raw);
        mim_ptrmap_put(&vm->sh, al, sp);
        m = mim_proj(w, kv, 2, 0);
    }
    vm->c0 = (Cl){.rv = rv, .mode = CL_FWD, .b = 0, .mem = m};
    vm->lallocs = lallocs;
    for (size_t i = 0; i < lallocs.n && ok; ++i) { /* (the continuations' bodies: vm_fwd_block) */
        MimDef *al = lallocs.d[i];
        MimDef *cd[2] = {rv->M, rv->TP};
        MimDef *k = named(w, mim_cn(w, mim_sigma(w, cd, 2)), "vjp_shadow_", rv->f);
        if (!k) ok = false;
        MimDef *raw = k ? mim_proj(w, mim_var(w, k), 2, 1) : NULL;
        if (k) vpush(&vm->lconts, k), mim_ptrmap_put(&vm->lsh, al, bitcast(w, comp_type(w, mim_def_type(al), 1), raw));
        if (k) mim_ptrmap_put(&vm->xld, al, al), rv->trivial[vm_owner(rv, al)] = false; /* its reverse frees the shadow */
    }
    vm_dirty(rv, vm, &ops);
    if (write) vm_cross(rv, vm);
    vm_freeze(rv, vm);
    for (size_t i = 0; i < frees.n && ok; ++i) {
        MimDef *al = vm_alloc_of(rv, mim_proj(w, mim_app_arg(frees.d[i]), 2, 1));
        if (al) mim_ptrmap_put(&vm->freed, al, al);
        else if (!mim_ptrmap_has(&vm->afree, frees.d[i]) && vm_free_param(rv, frees.d[i]))
            ok = fail(rv, frees.d[i], "the free through a block parameter of a buffer the function allocates (only the allocation's own pointer can be freed)") != NULL;
        else if (!mim_ptrmap_has(&vm->afree, frees.d[i]))
            ok = fail(rv, frees.d[i], "the free of a buffer that is neither an argument nor allocated by the function") != NULL;
    }
    free(frees.d);
    free(ops.d);
    return ok;
}

/* the size in bytes of the buffer the allocation al makes, built by c
 * (malloc's and mslot's argument, or the size of alloc's/slot's type) */
static MimDef *vm_size(Cl *c, MimDef *al) {
    Rev *rv = c->rv;
    MimWorld *w = rv->w;
    bool ml = mim_match(al, MIM_mem_malloc) != NULL;
    if (!ml && !mim_match(al, MIM_mem_mslot)) {
        MimDef *Ta = mim_app_arg(mim_app_callee(al));
        return mim_app(w, annex(w, MIM_core_trait_size), mim_proj(w, Ta, 2, 0));
    }
    MimDef *os = ml ? mim_proj(w, mim_app_arg(al), 2, 1) : mim_proj(w, mim_app_arg(al), 3, 1);
    MimPtrMap seen = {0};
    bool rd = vm_reads(w, os, &seen);
    mim_ptrmap_free(&seen);
    if (rd && mim_def_loc(al).begin.row) rv->use = mim_def_loc(al);
    if (rd) return fail(rv, al, "the allocation whose size is read from memory");
    return cl(c, os);
}

/* block 0's forward: calloc a shadow per allocation (its size is the
 * buffer's: malloc's argument, or the size of alloc's/slot's type), then
 * f's body */
static MimDef *vm_fwd0(Rev *rv, MimDef *m0, MimDef *tp0, MimDef *pos0, MimDef *cap0) {
    MimWorld *w = rv->w;
    VjpMem *vm = rv->vm;
    MimDef *body = fwd_term(&vm->c0, mim_lam_body(rv->f), tp0, pos0, cap0);
    for (size_t i = vm->allocs.n; body && i-- > 0;) {
        MimDef *al = vm->allocs.d[i];
        if (!set_body(w, vm->conts.d[i], body)) return NULL;
        MimDef *size = vm_size(&vm->c0, al);
        if (!size) return NULL;
        MimDef *m = i ? mim_proj(w, mim_var(w, vm->conts.d[i - 1]), 2, 0) : m0;
        MimDef *ca[3] = {m, i64(rv, 1), size};
        MimDef *cf = calloc_fn(rv);
        if (!cf) return NULL;
        MimDef *cargs[4] = {ca[0], ca[1], ca[2], vm->conts.d[i]};
        body = mim_app(w, cf, mim_tuple(w, cargs, 4));
    }
    return body;
}

/* B's statements (block c->b ≥ 1) after a zeroed shadow (calloc) per
 * allocation of B: their sizes are built at B's start (they do not read
 * memory) */
static MimDef *vm_fwd_block(Cl *c, MimDef *B, MimDef *tp, MimDef *pos, MimDef *cap) {
    Rev *rv = c->rv;
    MimWorld *w = rv->w;
    VjpMem *vm = rv->vm;
    size_t n = 0;
    for (size_t i = 0; i < vm->lallocs.n; ++i) n += vm_owner(rv, vm->lallocs.d[i]) == c->b;
    if (!n) return fwd_term(c, mim_lam_body(B), tp, pos, cap);
    MimDef **size = mim_xcalloc(n, sizeof *size), **k = mim_xcalloc(n, sizeof *k);
    MimDef *m0 = c->mem, *body = NULL;
    size_t j = 0;
    for (size_t i = 0; i < vm->lallocs.n; ++i) {
        if (vm_owner(rv, vm->lallocs.d[i]) != c->b) continue;
        k[j] = vm->lconts.d[i];
        if (!(size[j++] = vm_size(c, vm->lallocs.d[i]))) goto out;
    }
    c->mem = mim_proj(w, mim_var(w, k[n - 1]), 2, 0);
    body = fwd_term(c, mim_lam_body(B), tp, pos, cap);
    for (size_t i = n; body && i-- > 0;) {
        MimDef *cf = calloc_fn(rv);
        if (!cf || !set_body(w, k[i], body)) {
            body = NULL;
            break;
        }
        MimDef *mi = i ? mim_proj(w, mim_var(w, k[i - 1]), 2, 0) : m0;
        MimDef *one = i64(rv, 1);
        MimDef *ca[4] = {mi, one, size[i], k[i]};
        body = mim_app(w, cf, mim_tuple(w, ca, 4));
    }
out:
    free(size), free(k);
    return body;
}

/* the end of block b's reverse: free the shadows of b's allocations, and
 * the primal buffers f frees (deferred from the forward sweep: the reverses
 * of the blocks after b read them) */
static bool vm_free_loop(Cl *c, long b) {
    Rev *rv = c->rv;
    MimWorld *w = rv->w;
    VjpMem *vm = rv->vm;
    for (size_t i = 0; vm && i < vm->lallocs.n; ++i) {
        MimDef *al = vm->lallocs.d[i];
        if (vm_owner(rv, al) != b) continue;
        MimDef *PT = comp_type(w, mim_def_type(al), 1);
        MimDef *sp = vm_read(c, al, PT);
        MimDef *p = sp && mim_ptrmap_has(&vm->freed, al) ? vm_read(c, mim_proj(w, al, 2, 1), PT) : NULL;
        if (!sp) return false;
        MimDef *fr = mim_app(w, annex(w, MIM_mem_free), mim_app_arg(PT));
        c->mem = mim_app(w, fr, mim_pair(w, c->mem, sp));
        if (p) c->mem = mim_app(w, fr, mim_pair(w, c->mem, p));
    }
    return true;
}

static void vm_drop(Rev *rv) {
    VjpMem *vm = rv->vm;
    if (!vm) return;
    mim_ptrmap_free(&vm->c0.map), mim_ptrmap_free(&vm->c0.sh);
    mim_ptrmap_free(&vm->sh), mim_ptrmap_free(&vm->freed), mim_ptrmap_free(&vm->chain), mim_ptrmap_free(&vm->cand);
    mim_pairmap_free(&vm->lchain);
    free(vm->allocs.d), free(vm->conts.d), free(vm->raws.d), free(vm->dirty);
    free(vm->xlds.d), mim_ptrmap_free(&vm->xld), mim_ptrmap_free(&vm->fwdld), free(vm->frozen);
    free(vm->lallocs.d), free(vm->lconts.d), mim_ptrmap_free(&vm->lsh), mim_ptrmap_free(&vm->afree);
    free(vm);
    rv->vm = NULL;
}

/* ---- pointers carried between blocks ----------------------------------------------------- */

/* the pointer p is an offset into (through lea and pointer bitcasts) */
static MimDef *ptr_root(Rev *rv, MimDef *p) {
    MimWorld *w = rv->w;
    for (size_t guard = 0; guard < 100000; ++guard) {
        p = mim_resolve(w, p);
        if (p && mim_match(p, MIM_mem_lea)) p = mim_proj(w, mim_app_arg(p), 2, 0);
        else if (p && mim_match(p, MIM_core_bitcast) && is_ptr(mim_def_type(mim_app_arg(p)))) p = mim_app_arg(p);
        else break;
    }
    return p;
}

/* The argument for parameter i of every jump into block b (into out, in
 * block order); false if b receives a call's result or a block has no
 * jump. */
static bool jump_args(Rev *rv, long b, size_t i, Vec *out) {
    MimWorld *w = rv->w;
    MimDef *X = rv->blk.d[b];
    size_t n = arity(w, dom_of(w, X));
    out->n = 0;
    for (size_t y = 0; y < rv->blk.n; ++y) {
        MimDef *body = mim_resolve(w, mim_lam_body(rv->blk.d[y])), *g, *a;
        if (!body || mim_def_node(body) != MIM_APP) return false;
        target(rv, body, &g, &a);
        bool into = g == X;
        if (mim_def_node(g) == MIM_EXTRACT) {
            MimDef *t = mim_resolve(w, mim_def_op(g, 0));
            for (size_t j = 0, m = t && mim_def_node(t) == MIM_TUPLE ? mim_def_num_ops(t) : 0; j < m; ++j)
                into |= mim_resolve(w, mim_def_op(t, j)) == X;
        } else if (mim_def_node(g) == MIM_LAM && is_function(w, g)) {
            MimDef *args, *k;
            size_t nf;
            if (!split_call(rv, g, a, &args, &k, &nf) || k == X) return false; /* X receives a result */
        }
        if (into) vpush(out, mim_proj(w, a, n, i));
    }
    return true;
}

/* r is a buffer's start: an argument, or an allocation's pointer */
static bool is_base(Rev *rv, MimDef *r) {
    long x;
    size_t k;
    bool top = top_of(rv, r, false) != NULL, alloc = false;
    if (!top && r && mim_def_node(r) == MIM_EXTRACT) {
        MimDef *ap = mim_resolve(rv->w, mim_def_op(r, 0));
        alloc = ap && is_alloc(ap);
    }
    return (top || alloc) && !block_leaf(rv, r, &x, &k);
}

/* Pointer parameter i of block b has a shadow if every jump into b passes
 * it a pointer into one buffer R (an argument or an allocation of block
 * 0: a value of f's body, or a pointer parameter of another block that
 * has a shadow, e.g. passed to a nested function made blocks of f),
 * possibly through the parameter itself (a pointer bumped per
 * iteration). Its value is then taped like an integer
 * (ptrtoint) and its shadow is R's shadow at the same byte offset
 * (vm_param_shadow). */
static bool vm_ptr_param(Rev *rv, long b, size_t i) {
    MimWorld *w = rv->w;
    MimDef *key = mim_resolve(w, leaf_key(rv, b, i)), *root = NULL;
    Vec args = {0};
    bool ok = jump_args(rv, b, i, &args);
    for (size_t y = 0; ok && y < args.n; ++y) {
        MimDef *r = ptr_root(rv, args.d[y]);
        if (r == key) continue;
        long x;
        size_t k;
        bool param = r && block_leaf(rv, r, &x, &k) && mim_ptrmap_has(&rv->proot, r); /* (one with a shadow: an earlier block's) */
        ok = (is_base(rv, r) || param) && (!root || root == r);
        root = r;
    }
    free(args.d);
    if (!ok || !root) return false;
    mim_ptrmap_put(&rv->proot, key, root);
    return true;
}

/* Pointer parameters of block b passed the starts of different buffers
 * (two arrays swapped per iteration, `loop (q, p)`): every jump passes
 * parameter i (and the parameters of b it passes on, a group) an
 * argument or an allocation itself, or a parameter of the group. The
 * parameters' values are taped like integers, and the shadow of one is
 * the shadow of the buffer whose start it equals (vm_param_shadow; as
 * Enzyme, arguments that alias need shadows that alias). proot maps each
 * parameter of the group to the tuple of the buffers. */
static bool vm_ptr_swap(Rev *rv, long b, size_t i) {
    MimWorld *w = rv->w;
    size_t n = arity(w, dom_of(w, rv->blk.d[b]));
    bool *in = mim_xcalloc(n, sizeof *in);
    Vec todo = {0}, roots = {0}, args = {0};
    bool ok = true;
    in[i] = true;
    vpush(&todo, leaf_key(rv, b, i));
    for (size_t t = 0; ok && t < todo.n; ++t) {
        long x;
        size_t j;
        ok = block_leaf(rv, mim_resolve(w, todo.d[t]), &x, &j) && x == b && jump_args(rv, b, j, &args);
        for (size_t y = 0; ok && y < args.n; ++y) {
            MimDef *r = mim_resolve(w, args.d[y]);
            long x2;
            size_t j2;
            if (r && block_leaf(rv, r, &x2, &j2) && x2 == b) {
                if (!in[j2]) in[j2] = true, vpush(&todo, r);
                continue;
            }
            ok = r && is_base(rv, r);
            size_t k = 0;
            while (ok && k < roots.n && roots.d[k] != r) ++k;
            if (ok && k == roots.n) vpush(&roots, r);
        }
    }
    ok = ok && roots.n >= 2 && roots.n <= 64;
    MimDef *tup = ok ? mim_tuple(w, roots.d, roots.n) : NULL;
    for (size_t t = 0; tup && t < todo.n; ++t) mim_ptrmap_put(&rv->proot, mim_resolve(w, todo.d[t]), tup);
    free(in), free(todo.d), free(roots.d), free(args.d);
    return ok;
}

/* the shadow of a pointer parameter p of a swap group with the buffers Rs
 * (vm_ptr_swap): the shadow of the R_k that p equals (the last one if
 * none does) */
static MimDef *vm_swap_shadow(Cl *c, MimDef *old, MimDef *Rs) {
    Rev *rv = c->rv;
    MimWorld *w = rv->w;
    MimDef *T = mim_def_type(old), *pv = cl(c, old);
    size_t n = mim_def_num_ops(Rs);
    MimDef *ip = pv ? bitcast(w, rv->I64, pv) : NULL, *sp = NULL;
    for (size_t k = n; ip && k-- > 0;) {
        MimDef *R = mim_def_op(Rs, k);
        MimDef *r = cl(c, R);
        MimDef *sr = r ? shadow(c, R) : NULL;
        if (!sr) return NULL;
        MimDef *sk = bitcast(w, T, sr);
        if (!sp) {
            sp = sk;
            continue;
        }
        MimDef *eq = icmp(w, MIM_core_icmp_e, ip, bitcast(w, rv->I64, r));
        MimDef *sel[2] = {sp, sk};
        sp = mim_extract(w, mim_tuple(w, sel, 2), eq);
    }
    return sp;
}

/* the shadow of a pointer parameter with a root R (backward): R's shadow
 * + (p − R) */
static MimDef *vm_param_shadow(Cl *c, MimDef *old) {
    Rev *rv = c->rv;
    MimWorld *w = rv->w;
    long x;
    size_t i;
    if (c->mode != CL_BWD || !block_leaf(rv, old, &x, &i)) return NULL;
    MimDef *R = mim_ptrmap_get(&rv->proot, mim_resolve(w, leaf_key(rv, x, i)));
    if (!R) return NULL;
    if (mim_def_node(R) == MIM_TUPLE) return vm_swap_shadow(c, old, R);
    MimDef *pv = cl(c, old);
    MimDef *rv0 = pv ? cl(c, R) : NULL;
    MimDef *sr = rv0 ? shadow(c, R) : NULL;
    if (!sr) return NULL;
    MimDef *ip = bitcast(w, rv->I64, pv);
    MimDef *ir = bitcast(w, rv->I64, rv0);
    MimDef *is = bitcast(w, rv->I64, sr);
    MimDef *off = iop(w, MIM_core_wrap_sub, ip, ir);
    MimDef *sp = iop(w, MIM_core_wrap_add, is, off);
    return bitcast(w, mim_def_type(old), sp);
}
