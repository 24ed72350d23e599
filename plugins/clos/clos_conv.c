/* %clos.clos_conv_phase (clos.md §5.2, docs/clos.md): closure conversion of
 * a program in the shape reshape (Flat) + add_mem leave it (every
 * continuation `Cn [%mem.M, …]`).
 *
 * A *unit* is a lambda that becomes a function of its own: every returning
 * lambda (last parameter a continuation), and every other lambda that is
 * used as a value. The lambdas a unit calls directly, branches to, or passes
 * as the return continuation of a call (and that are not returning) are its
 * *blocks*: they are copied into the unit and keep their free variables,
 * which the back end sees as values of the enclosing function.
 *
 * The free definitions of a unit (the maximal subexpressions of its body and
 * blocks that depend on variables of other lambdas only, computed as a fixed
 * point through the units it builds closures of) become its environment.
 * A closure value is the pair (code, env): `code : Cn [M, Ptr0 [], D₁ …]`
 * takes the environment pointer as parameter 1; continuations that do not
 * return get a dummy last parameter `Cn M`, so that the code is a function.
 * A single integer or pointer is the environment pointer itself (bit
 * cast); a larger environment is a tuple stored in memory, which the code
 * loads in its prologue: a stack slot if the closure cannot outlive its
 * creator (escape analysis, §5.4) and is built once per call; if it is
 * built in a loop, a slot allocated when the creator starts, shared by the
 * iterations, when the closure is dead once its block's call returns, else
 * a malloc'd block on a list that the creator frees; else %mem.alloc
 * (never freed). So the phase goes
 * straight to the untyped pairs of lower_typed_clos (§5.6), which has
 * nothing left to do (docs/clos.md). Calls through branches between
 * closures build only the closure taken (branch_clos, §5.3).
 *
 * Applications whose callee is a closure call its code with the environment
 * inserted. Allocations are threaded into the memory of the call (or
 * memory operation) whose operands build the closure. Return continuations
 * stay plain continuations; where a closure captures one (a non-local
 * return), the function sets a jump buffer at its start and the captured
 * value is a closure that longjmps back to it (clos2sjlj, §5.5). */
#include "clos_impl.h"

#include "mim/plugin/clos.h"
#include "mim/plugin/core.h"
#include "mim/plugin/mem.h"

#include <stdlib.h>

typedef MIM_VEC(MimDef *) DefVec;
typedef struct Unit Unit;
typedef MIM_VEC(Unit *) UnitVec;

struct Unit {
    MimDef *lam;
    MimPtrMap owned;  /* lam and its blocks -> themselves */
    MimPtrMap fvset;  /* free definition -> itself */
    DefVec fvs;       /* free definitions, in discovery order */
    UnitVec refs;     /* units whose closures the unit builds */
    MimPtrMap seen;   /* nodes already walked */
    MimPtrMap loops;  /* lam or block -> 1: runs once per call, 2: on a cycle */
    DefVec blocks;    /* lam and its blocks (the keys of owned) */
    MimPtrMap clean;  /* block -> 1: may hold closures, 2: holds none (holds_closures) */
    bool linked;      /* the environment starts with a link (env pointer) */
    bool list;        /* its functions free their listed environments on return */
    MimPtrMap reuse;  /* unit -> 1: its closures built in loop blocks share a slot of the frame, */
    DefVec reuse_of;  /*           2: some of them cannot (plan_lists); the units marked 1 in order */
    MimDef *code;     /* closure code (env as parameter 1), or NULL */
    MimDef *direct;   /* closed returning unit: the copy with its own type */
    MimDef *env_type; /* Σ of the converted types of fvs */
};

typedef struct Conv {
    MimWorld *w;
    MimDef *M, *env_ptr; /* %mem.M, %mem.Ptr0 [] */
    MimPtrMap types;     /* old type -> converted type */
    MimPtrMap units;     /* lam -> Unit* */
    UnitVec unit_list;   /* for the fixed point and freeing */
    MimPtrMap decls;     /* body-less lambda -> converted copy */
    MimPtrMap decl_code; /* body-less lambda -> closure code calling it */
    DefVec todo;         /* lambdas whose bodies are still to build (Unit* of code/direct) */
    MimPtrMap todo_kind; /* new lambda -> Unit* */
    MimPtrMap sjlj;      /* functions whose return continuation a closure captures */
    MimPtrMap known;     /* the lambdas of the program (walked) */
    bool needed;         /* some lambda is a value, has free variables or takes closures */
    MimDef *dependent;   /* a lambda of a dependent type (not converted), or NULL */
    uint64_t num_slots;  /* ids of the slots (jump buffers, environments) */
    MimPtrMap escaping;  /* values that may outlive their creator (find_escaping) */
    MimDef *free_envs;   /* Cn [M, env ptr, Cn M]: frees a list of environments */
    bool failed;
} Conv;

/* The rewriting state of one unit's code (or direct copy). */
typedef struct Ctx {
    Conv *cv;
    Unit *u;
    MimPtrMap subst;  /* old var / free def -> replacement */
    MimPtrMap blocks; /* old block -> copy in this unit */
    MimPtrMap *memo;  /* of the body being rebuilt */
    MimDef *cur_mem;  /* memory to thread allocations into, or NULL */
    MimDef *cur_old;  /* the old lambda (unit or block) being rebuilt */
    MimDef *head;     /* slot of the list of this function's environments, or NULL */
    MimPtrMap frame;  /* unit lam -> pointer to the frame slot of its environments (u->reuse) */
    MimDef *self;     /* the unit's own closure inside its code, or NULL */
    MimDef *ret_old;  /* with sjlj: the old return continuation, and */
    MimDef *thrower;  /* the closure that stands for it as a value */
} Ctx;

enum Pos { VALUE, CALLEE, RET };

static void fail(Conv *cv, MimDef *at, const char *msg) {
    if (!cv->failed) {
        char *str = at ? mim_def_to_str(cv->w, at) : NULL;
        mim_diag_report(mim_world_diag(cv->w), MIM_ERROR, at ? mim_def_loc(at) : mim_world_loc(cv->w),
                        "clos: %s%s%s", msg, str ? ": " : "", str ? str : "");
        free(str);
    }
    cv->failed = true;
}

/* ---- types ------------------------------------------------------------------ */

/* A Cn type (resolved, immutable), or NULL. */
static MimDef *cn_type(Conv *cv, MimDef *T) {
    T = T ? mim_resolve(cv->w, T) : NULL;
    if (T && mim_def_is_mut(T) && mim_def_node(T) == MIM_PI) T = mim_immutabilize(cv->w, T);
    if (!T || mim_def_node(T) != MIM_PI || mim_def_is_mut(T) || mim_pi_is_implicit(T) || !mim_pi_is_cn(T))
        return NULL;
    return T;
}

uint64_t clos_num_comps(MimWorld *w, MimDef *dom) {
    dom = mim_resolve(w, dom);
    uint64_t n;
    if (mim_def_node(dom) == MIM_SIGMA) return mim_def_num_ops(dom);
    if (mim_def_node(dom) == MIM_ARR && mim_def_lit(mim_def_op(dom, 0), &n)) return n;
    return 1;
}

MimDef *clos_comp_type(MimWorld *w, MimDef *dom, uint64_t n, uint64_t i) {
    dom = mim_resolve(w, dom);
    if (n == 1) return dom;
    if (mim_def_node(dom) == MIM_SIGMA) return mim_def_op(dom, i);
    return mim_def_op(dom, 1);
}

/* Is the Cn type returning: is its last parameter a return continuation?
 * That is a continuation that does not return itself: a last parameter
 * `k: Cn [M, X, Cn R]` (a loop after tail_rec_elim carrying a closure) is a
 * value, and the lambda a basic block. */
static bool is_returning(Conv *cv, MimDef *pi) {
    if (!pi) return false;
    MimDef *dom = mim_pi_dom(pi);
    uint64_t n = clos_num_comps(cv->w, dom);
    MimDef *last = n ? cn_type(cv, clos_comp_type(cv->w, dom, n, n - 1)) : NULL;
    return last && !is_returning(cv, last);
}

static MimDef *conv_type(Conv *cv, MimDef *T);
static MimDef *conv_const(Conv *cv, MimDef *d);
/* conv_const as the operand map of mim_map_ops */
static MimDef *conv_const_op(void *cv, MimDef *d) { return conv_const(cv, d); }

/* The converted components of a Cn domain; env inserted at 1 if `env`,
 * the last one a plain continuation if the type is returning, a dummy
 * `Cn M` appended if `dummy`. */
static MimDef *conv_dom(Conv *cv, MimDef *pi, bool env, bool dummy) {
    MimWorld *w = cv->w;
    MimDef *dom = mim_pi_dom(pi);
    uint64_t n = clos_num_comps(w, dom);
    bool ret = is_returning(cv, pi);
    MimDef **ops = mim_xcalloc(n + 2, sizeof *ops);
    size_t k = 0;
    bool ok = true;
    for (uint64_t i = 0; i < n && ok; i++) {
        MimDef *D = clos_comp_type(w, dom, n, i);
        if (i == 1 && env) ops[k++] = cv->env_ptr;
        if (ret && i == n - 1) {
            MimDef *rdom = conv_dom(cv, cn_type(cv, D), false, false); /* a Cn: ret */
            ops[k] = rdom ? mim_cn(w, rdom) : NULL;
        } else {
            ops[k] = conv_type(cv, D);
        }
        ok = ops[k++] != NULL;
    }
    if (env && n == 1) ops[k++] = cv->env_ptr;
    if (dummy) ops[k++] = mim_cn(w, cv->M);
    MimDef *res = !ok ? NULL : k == 1 ? ops[0] : mim_sigma(w, ops, k);
    free(ops);
    return res;
}

static MimDef *direct_type(Conv *cv, MimDef *pi) {
    MimDef *dom = pi ? conv_dom(cv, pi, false, false) : NULL;
    return dom ? mim_cn(cv->w, dom) : NULL;
}

static MimDef *code_type(Conv *cv, MimDef *pi) {
    MimDef *dom = pi ? conv_dom(cv, pi, true, !is_returning(cv, pi)) : NULL;
    return dom ? mim_cn(cv->w, dom) : NULL;
}

/* A value of Cn type becomes the pair [code, env pointer]. */
static MimDef *clos_type(Conv *cv, MimDef *pi) {
    MimDef *ops[2] = {code_type(cv, pi), cv->env_ptr};
    return ops[0] ? mim_sigma(cv->w, ops, 2) : NULL;
}

bool clos_is_clos_type(MimDef *T, MimDef *env_ptr) {
    return T && mim_def_node(T) == MIM_SIGMA && mim_def_num_ops(T) == 2 && mim_def_op(T, 1) == env_ptr &&
           mim_def_node(mim_def_op(T, 0)) == MIM_PI;
}

/* T with every continuation type in value position converted (memoized). */
static MimDef *conv_type(Conv *cv, MimDef *T) {
    MimWorld *w = cv->w;
    T = T ? mim_resolve(w, T) : NULL;
    if (!T) return NULL;
    if (mim_def_is_mut(T) && mim_def_node(T) == MIM_PI) T = mim_immutabilize(w, T);
    if (mim_def_is_mut(T) || !mim_def_is_const(T)) return T;
    MimDef *done = mim_ptrmap_get(&cv->types, T);
    if (done) return done;
    MimDef *res = T;
    MimDef *pi = cn_type(cv, T);
    if (pi) {
        res = clos_type(cv, pi);
    } else if (mim_def_num_ops(T) && mim_def_node(T) != MIM_AXIOM) {
        MimDef **ops = mim_xcalloc(mim_def_num_ops(T), sizeof *ops);
        bool changed = false, ok = mim_map_ops(w, T, conv_const_op, cv, ops, &changed);
        res = !ok ? NULL : changed ? mim_rebuild(w, T, mim_def_type(T), ops) : T;
        free(ops);
    }
    if (res) mim_ptrmap_put(&cv->types, T, res);
    return res;
}

/* ---- units and their free definitions ------------------------------------------ */

static bool is_type_level(MimWorld *w, MimDef *d) {
    MimDef *T = mim_def_type(d);
    T = T ? mim_resolve(w, T) : NULL;
    return !T || mim_def_node(T) == MIM_TYPE || mim_def_node(T) == MIM_UNIV;
}

static bool has_mem(Conv *cv, MimDef *T) {
    T = T ? mim_resolve(cv->w, T) : NULL;
    if (!T) return false;
    if (T == cv->M) return true;
    if (mim_def_node(T) == MIM_SIGMA)
        for (size_t i = 0; i < mim_def_num_ops(T); i++)
            if (has_mem(cv, mim_def_op(T, i))) return true;
    if (mim_def_node(T) == MIM_ARR) return has_mem(cv, mim_def_op(T, 1));
    return false;
}

static bool is_body_lam(MimDef *d) {
    return mim_def_is_mut(d) && mim_def_node(d) == MIM_LAM && mim_lam_body(d) && mim_pi_is_cn(mim_def_type(d));
}

static Unit *unit_of(Conv *cv, MimDef *lam) {
    Unit *u = mim_ptrmap_get(&cv->units, lam);
    if (u) return u;
    u = mim_xcalloc(1, sizeof *u);
    u->lam = lam;
    mim_ptrmap_put(&cv->units, lam, u);
    mim_vec_push(&cv->unit_list, u);
    return u;
}

static void unit_free(Unit *u) {
    mim_ptrmap_free(&u->owned);
    mim_ptrmap_free(&u->fvset);
    mim_ptrmap_free(&u->seen);
    mim_ptrmap_free(&u->loops);
    mim_vec_free(&u->blocks);
    mim_ptrmap_free(&u->clean);
    mim_ptrmap_free(&u->reuse);
    mim_vec_free(&u->reuse_of);
    mim_vec_free(&u->fvs);
    mim_vec_free(&u->refs);
    free(u);
}

enum { USES_OWNED = 1, HAS_LAM = 2, USES_OUTER = 4, KNOWN = 8 };

/* Does d (not entering mutables) use a variable of a lambda the unit owns
 * (USES_OWNED), of another lambda of the program (USES_OUTER), or contain
 * a lambda (HAS_LAM)? Variables of binders that are not part of the
 * program any more (left in types by earlier rewrites) count as neither.
 * Memoized in memo. */
static unsigned inspect(Conv *cv, Unit *u, MimDef *d, MimPtrMap *memo) {
    d = mim_resolve(cv->w, d);
    if (!d || !(mim_def_dep(d) & (MIM_DEP_VAR | MIM_DEP_MUT))) return 0;
    if (mim_def_is_mut(d)) return mim_def_node(d) == MIM_LAM ? HAS_LAM : 0;
    void **hit = mim_ptrmap_find(memo, d);
    if (hit) return (unsigned)(uintptr_t)*hit & ~(unsigned)KNOWN;
    unsigned res = 0;
    if (mim_def_node(d) == MIM_VAR) {
        MimDef *b = mim_def_op(d, 0);
        res = mim_ptrmap_has(&u->owned, b) ? USES_OWNED : mim_ptrmap_has(&cv->known, b) ? USES_OUTER : 0;
    } else {
        for (size_t i = 0; i < mim_def_num_ops(d); i++) res |= inspect(cv, u, mim_def_op(d, i), memo);
    }
    mim_ptrmap_put(memo, d, (void *)(uintptr_t)(res | KNOWN));
    return res;
}

static void add_fv(Conv *cv, Unit *u, MimDef *d) {
    if (mim_ptrmap_has(&u->fvset, d)) return;
    if (has_mem(cv, mim_def_type(d))) {
        fail(cv, d, "a closure would capture a memory token");
        return;
    }
    MimDef *RT = cn_type(cv, mim_def_type(d));
    if (RT && mim_def_node(d) == MIM_EXTRACT) {
        /* a return continuation of an enclosing function: a non-local return */
        MimDef *tup = mim_resolve(cv->w, mim_def_op(d, 0));
        MimDef *binder = mim_def_node(tup) == MIM_VAR ? mim_def_op(tup, 0) : NULL;
        MimDef *bpi = binder ? cn_type(cv, mim_def_type(binder)) : NULL;
        uint64_t idx, n = bpi ? clos_num_comps(cv->w, mim_pi_dom(bpi)) : 0;
        if (bpi && is_returning(cv, bpi) && mim_def_lit(mim_def_op(d, 1), &idx) && idx == n - 1)
            mim_ptrmap_put(&cv->sjlj, binder, binder); /* a non-local return: setjmp in binder */
    }
    mim_ptrmap_put(&u->fvset, d, d);
    mim_vec_push(&u->fvs, d);
    cv->needed = true;
}

static void walk(Conv *cv, Unit *u, MimDef *d, enum Pos pos, MimPtrMap *dep_memo);
static bool unboxed(Conv *cv, Unit *u);

/* Is lam a lambda of a dependent function type (a later parameter's type
 * mentions an earlier parameter; add_mem leaves them alone too)? Those are
 * left as they are: called directly, they keep working; as values they
 * cannot be converted. Notes whether lam's own type must change. */
static bool is_dependent(Conv *cv, MimDef *lam) {
    MimDef *pi = cn_type(cv, mim_def_type(lam));
    MimDef *dom = pi ? mim_resolve(cv->w, mim_pi_dom(pi)) : NULL;
    if (!dom || mim_def_is_mut(dom) || (mim_def_dep(dom) & MIM_DEP_VAR)) return true;
    if (!mim_ptrmap_has(&cv->known, lam) && direct_type(cv, pi) != pi)
        cv->needed = true; /* it has continuations in value position */
    return false;
}

static void walk_lam(Conv *cv, Unit *u, MimDef *lam, enum Pos pos, MimPtrMap *dep_memo) {
    if (!is_body_lam(lam)) { /* C declarations, imports, direct-style functions */
        if (pos == VALUE) cv->needed = true;
        return;
    }
    if (is_dependent(cv, lam)) {
        if (pos == VALUE && !cv->dependent) cv->dependent = lam;
        return;
    }
    mim_ptrmap_put(&cv->known, lam, lam);
    bool ret = is_returning(cv, cn_type(cv, mim_def_type(lam)));
    if (ret || pos == VALUE) {
        if (pos == VALUE) cv->needed = true;
        if (lam == u->lam) return;
        Unit *r = unit_of(cv, lam);
        for (size_t i = 0; i < u->refs.len; i++)
            if (u->refs.data[i] == r) return;
        mim_vec_push(&u->refs, r);
        return;
    }
    if (mim_ptrmap_has(&u->owned, lam)) return;
    mim_ptrmap_put(&u->owned, lam, lam);
    mim_vec_push(&u->blocks, lam);
    walk(cv, u, mim_lam_filter(lam), VALUE, dep_memo);
    walk(cv, u, mim_lam_body(lam), VALUE, dep_memo);
}

static void walk_app(Conv *cv, Unit *u, MimDef *d, MimPtrMap *dep_memo) {
    MimWorld *w = cv->w;
    MimDef *callee = mim_resolve(w, mim_app_callee(d)), *arg = mim_resolve(w, mim_app_arg(d));
    MimDef *pi = mim_app_axiom(d) ? NULL : cn_type(cv, mim_def_type(callee));
    if (!pi) {
        walk(cv, u, callee, VALUE, dep_memo);
        walk(cv, u, arg, VALUE, dep_memo);
        return;
    }
    if (mim_def_node(callee) == MIM_EXTRACT && mim_def_node(mim_resolve(w, mim_def_op(callee, 0))) == MIM_TUPLE) {
        MimDef *branches = mim_resolve(w, mim_def_op(callee, 0));
        for (size_t i = 0; i < mim_def_num_ops(branches); i++) walk(cv, u, mim_def_op(branches, i), CALLEE, dep_memo);
        walk(cv, u, mim_def_op(callee, 1), VALUE, dep_memo);
    } else {
        walk(cv, u, callee, CALLEE, dep_memo);
    }
    bool ret = is_returning(cv, pi);
    if (mim_def_node(arg) == MIM_TUPLE) {
        size_t n = mim_def_num_ops(arg);
        for (size_t i = 0; i < n; i++) walk(cv, u, mim_def_op(arg, i), ret && i == n - 1 ? RET : VALUE, dep_memo);
    } else {
        walk(cv, u, arg, VALUE, dep_memo);
    }
}

/* Record the free definitions and closures of unit u reachable from d. */
static void walk(Conv *cv, Unit *u, MimDef *d, enum Pos pos, MimPtrMap *dep_memo) {
    MimWorld *w = cv->w;
    d = d ? mim_resolve(w, d) : NULL;
    if (!d || cv->failed) return;
    if (mim_def_is_mut(d)) {
        if (mim_def_node(d) == MIM_LAM) walk_lam(cv, u, d, pos, dep_memo);
        return;
    }
    if (!(mim_def_dep(d) & (MIM_DEP_VAR | MIM_DEP_MUT)) || is_type_level(w, d)) return;
    if (pos == VALUE && mim_ptrmap_has(&u->seen, d)) return;
    if (pos == VALUE) mim_ptrmap_put(&u->seen, d, d);
    if (mim_def_node(d) == MIM_VAR) {
        MimDef *b = mim_def_op(d, 0);
        if (!mim_ptrmap_has(&u->owned, b) && mim_ptrmap_has(&cv->known, b)) add_fv(cv, u, d);
        return;
    }
    if (!has_mem(cv, mim_def_type(d)) && inspect(cv, u, d, dep_memo) == USES_OUTER) {
        add_fv(cv, u, d); /* depends on variables of enclosing lambdas only */
        return;
    }
    if (mim_def_node(d) == MIM_APP) {
        walk_app(cv, u, d, dep_memo);
        return;
    }
    for (size_t i = 0; i < mim_def_num_ops(d); i++) walk(cv, u, mim_def_op(d, i), VALUE, dep_memo);
}

/* Walk every unit reachable from the externals, then grow the free
 * definitions until no unit's set changes: a unit captures what the
 * closures it builds capture, as far as it does not compute it itself. */
static void find_units(Conv *cv) {
    for (size_t i = 0, n = mim_world_num_externals(cv->w); i < n; i++) {
        MimDef *e = mim_world_external(cv->w, i);
        if (is_body_lam(e) && !is_dependent(cv, e)) mim_ptrmap_put(&cv->known, unit_of(cv, e)->lam, e);
    }
    for (size_t i = 0; i < cv->unit_list.len && !cv->failed; i++) { /* the list grows */
        Unit *u = cv->unit_list.data[i];
        MimPtrMap dep_memo = {0};
        mim_ptrmap_put(&u->owned, u->lam, u->lam);
        mim_vec_push(&u->blocks, u->lam);
        walk(cv, u, mim_lam_filter(u->lam), VALUE, &dep_memo);
        walk(cv, u, mim_lam_body(u->lam), VALUE, &dep_memo);
        mim_ptrmap_free(&dep_memo);
    }
    for (bool changed = true; changed && !cv->failed;) {
        changed = false;
        for (size_t i = 0; i < cv->unit_list.len && !cv->failed; i++) {
            Unit *u = cv->unit_list.data[i];
            size_t before = u->fvs.len;
            MimPtrMap dep_memo = {0};
            for (size_t j = 0; j < u->refs.len; j++) {
                Unit *r = u->refs.data[j];
                for (size_t k = 0; k < r->fvs.len; k++) walk(cv, u, r->fvs.data[k], VALUE, &dep_memo);
            }
            mim_ptrmap_free(&dep_memo);
            changed |= u->fvs.len != before;
        }
    }
}

/* ---- escape analysis (clos.md §5.4) ---------------------------------------------------- */

/* Which closures may outlive the function that builds them? A whole-program
 * analysis on the program before conversion: a fact esc(x) for values x
 * (lambdas, parameters, anything holding them), with implications
 * esc(a) ⇒ esc(b), solved by propagation from the uses that surely leak:
 * an argument of an axiom (store, C-side operations), of a C function, of
 * a call through a closure (its code is unknown; this includes returning a
 * value: the return continuation is such a callee) or of a lambda of a
 * dependent type. Passing x to parameter i of a known lambda K gives
 * esc(K's parameter i) ⇒ esc(x); capturing x in a unit gives
 * esc(unit) ⇒ esc(x); a value built from x (a tuple, a cast, …) that
 * escapes makes x escape. Calling a closure does not leak it.
 *
 * A closure that does not escape is only called, passed to parameters that
 * do not escape, or captured by closures that do not escape, so it is dead
 * when its creator returns (the back end emits no `tail` calls, so the
 * creator's frame outlives its callees). */

typedef struct EscEdge {
    MimDef *to;
    size_t next; /* index + 1 of the next edge from the same value, 0: none */
} EscEdge;

typedef struct Esc {
    Conv *cv;
    MimPtrMap head;         /* value -> index + 1 of its first edge */
    MIM_VEC(EscEdge) edges;
    DefVec work;            /* escaping values whose edges are still to follow */
    DefVec lams;            /* lambdas to walk */
    MimPtrMap seen;         /* walked nodes and lambdas */
} Esc;

static void esc_mark(Esc *e, MimDef *d) {
    MimWorld *w = e->cv->w;
    d = d ? mim_resolve(w, d) : NULL;
    if (!d || !(mim_def_dep(d) & (MIM_DEP_VAR | MIM_DEP_MUT)) || is_type_level(w, d)) return;
    if (mim_ptrmap_has(&e->cv->escaping, d)) return;
    mim_ptrmap_put(&e->cv->escaping, d, d);
    mim_vec_push(&e->work, d);
    if (mim_def_is_mut(d) || mim_def_node(d) == MIM_VAR) return; /* a var's operand is its binder */
    uint64_t idx;
    MimDef *tup = mim_def_node(d) == MIM_EXTRACT ? mim_resolve(w, mim_def_op(d, 0)) : NULL;
    if (tup && mim_def_node(tup) == MIM_VAR && mim_def_lit(mim_def_op(d, 1), &idx))
        return; /* one parameter: not the others */
    for (size_t i = 0; i < mim_def_num_ops(d); i++) esc_mark(e, mim_def_op(d, i));
}

/* esc(from) ⇒ esc(to) */
static void esc_edge(Esc *e, MimDef *from, MimDef *to) {
    EscEdge edge = {.to = to, .next = (size_t)(uintptr_t)mim_ptrmap_get(&e->head, from)};
    mim_vec_push(&e->edges, edge);
    mim_ptrmap_put(&e->head, from, (void *)(uintptr_t)e->edges.len);
}

/* arg is passed to the known lambda K: each component flows into the
 * corresponding parameter (and into K's whole variable). */
static void esc_flow(Esc *e, MimDef *K, MimDef *arg) {
    MimWorld *w = e->cv->w;
    uint64_t n = clos_num_comps(w, mim_pi_dom(mim_def_type(K)));
    MimDef *v = mim_var(w, K);
    bool split = n > 1 && mim_def_node(arg) == MIM_TUPLE && mim_def_num_ops(arg) == n;
    for (uint64_t i = 0; i < n; i++) {
        MimDef *x = split ? mim_def_op(arg, i) : arg;
        if (n > 1) esc_edge(e, mim_var_proj(w, K, n, i), x);
        if (split || i == 0) esc_edge(e, v, x);
    }
}

static bool esc_known(Conv *cv, MimDef *K) {
    return mim_def_is_mut(K) && is_body_lam(K) && !is_dependent(cv, K);
}

static void esc_app(Esc *e, MimDef *d) {
    Conv *cv = e->cv;
    MimWorld *w = cv->w;
    MimDef *callee = mim_resolve(w, mim_app_callee(d)), *arg = mim_resolve(w, mim_app_arg(d));
    if (mim_app_axiom(d) || !cn_type(cv, mim_def_type(callee))) {
        esc_mark(e, arg);
        return;
    }
    if (mim_def_is_mut(callee)) {
        if (esc_known(cv, callee)) esc_flow(e, callee, arg);
        else esc_mark(e, arg); /* a C function, an import, a dependent lambda */
        return;
    }
    MimDef *tup = mim_def_node(callee) == MIM_EXTRACT ? mim_resolve(w, mim_def_op(callee, 0)) : NULL;
    if (tup && mim_def_node(tup) == MIM_TUPLE) { /* a branch */
        for (size_t i = 0; i < mim_def_num_ops(tup); i++) {
            MimDef *K = mim_resolve(w, mim_def_op(tup, i));
            if (esc_known(cv, K)) esc_flow(e, K, arg);
            else esc_mark(e, arg);
        }
        return;
    }
    esc_mark(e, arg); /* a call through a closure */
}

static void esc_walk(Esc *e, MimDef *d) {
    MimWorld *w = e->cv->w;
    d = d ? mim_resolve(w, d) : NULL;
    if (!d || !(mim_def_dep(d) & (MIM_DEP_VAR | MIM_DEP_MUT)) || mim_ptrmap_has(&e->seen, d)) return;
    mim_ptrmap_put(&e->seen, d, d);
    if (mim_def_is_mut(d)) {
        if (is_body_lam(d)) mim_vec_push(&e->lams, d);
        return;
    }
    if (is_type_level(w, d)) return;
    if (mim_def_node(d) == MIM_APP) esc_app(e, d);
    for (size_t i = 0; i < mim_def_num_ops(d); i++) esc_walk(e, mim_def_op(d, i));
}

/* Fill cv->escaping with every value that may escape. */
static void find_escaping(Conv *cv) {
    Esc e = {.cv = cv};
    for (size_t i = 0, n = mim_world_num_externals(cv->w); i < n; i++) esc_walk(&e, mim_world_external(cv->w, i));
    while (e.lams.len) {
        MimDef *lam = mim_vec_pop(&e.lams);
        esc_walk(&e, mim_lam_filter(lam));
        esc_walk(&e, mim_lam_body(lam));
    }
    for (size_t i = 0; i < cv->unit_list.len; i++) {
        Unit *u = cv->unit_list.data[i];
        for (size_t j = 0; j < u->fvs.len; j++) esc_edge(&e, u->lam, u->fvs.data[j]);
    }
    while (e.work.len) {
        MimDef *d = mim_vec_pop(&e.work);
        for (size_t k = (size_t)(uintptr_t)mim_ptrmap_get(&e.head, d); k; k = e.edges.data[k - 1].next)
            esc_mark(&e, e.edges.data[k - 1].to);
    }
    mim_ptrmap_free(&e.head);
    mim_ptrmap_free(&e.seen);
    mim_vec_free(&e.edges);
    mim_vec_free(&e.work);
    mim_vec_free(&e.lams);
}

/* Is lam (the unit's lambda or one of its blocks) on a cycle of the unit's
 * blocks, i.e. may it run more than once per call of the unit? A slot
 * there would be a new alloca at every iteration. Memoized in u->loops. */
static void block_succs(Conv *cv, Unit *u, MimDef *d, DefVec *out, MimPtrMap *seen) {
    d = d ? mim_resolve(cv->w, d) : NULL;
    if (!d || !(mim_def_dep(d) & MIM_DEP_MUT) || mim_ptrmap_has(seen, d)) return;
    mim_ptrmap_put(seen, d, d);
    if (mim_def_is_mut(d)) {
        if (mim_ptrmap_has(&u->owned, d)) mim_vec_push(out, d);
        return;
    }
    if (mim_def_node(d) == MIM_VAR) return; /* its operand is the binder, not a jump */
    for (size_t i = 0; i < mim_def_num_ops(d); i++) block_succs(cv, u, mim_def_op(d, i), out, seen);
}

static bool in_loop(Conv *cv, Unit *u, MimDef *lam) {
    void *memo = mim_ptrmap_get(&u->loops, lam);
    if (memo) return memo == (void *)2;
    DefVec stack = {0};
    MimPtrMap seen = {0}, visited = {0};
    block_succs(cv, u, mim_lam_body(lam), &stack, &seen);
    bool cyc = false;
    while (stack.len && !cyc) {
        MimDef *b = mim_vec_pop(&stack);
        if (b == lam) cyc = true;
        if (cyc || mim_ptrmap_has(&visited, b)) continue;
        mim_ptrmap_put(&visited, b, b);
        mim_ptrmap_clear(&seen);
        block_succs(cv, u, mim_lam_body(b), &stack, &seen);
    }
    mim_vec_free(&stack);
    mim_ptrmap_free(&seen);
    mim_ptrmap_free(&visited);
    mim_ptrmap_put(&u->loops, lam, cyc ? (void *)2 : (void *)1);
    return cyc;
}

/* Collect into out the units with an environment in memory whose closures
 * d builds (not entering lambdas): those that do not escape, have free
 * definitions and do not fit in the environment pointer. */
static void closures_built(Conv *cv, Unit *u, MimDef *d, DefVec *out, MimPtrMap *seen) {
    d = d ? mim_resolve(cv->w, d) : NULL;
    if (!d || !(mim_def_dep(d) & MIM_DEP_MUT) || mim_ptrmap_has(seen, d)) return;
    mim_ptrmap_put(seen, d, d);
    if (mim_def_is_mut(d)) {
        Unit *r = mim_ptrmap_get(&cv->units, d);
        if (r && r != u && r->fvs.len && !mim_ptrmap_has(&cv->escaping, d) && !unboxed(cv, r)) mim_vec_push(out, d);
        return;
    }
    if (mim_def_node(d) == MIM_VAR) return;
    for (size_t i = 0; i < mim_def_num_ops(d); i++) closures_built(cv, u, mim_def_op(d, i), out, seen);
}

/* Does d contain the lambda lam (not entering lambdas)? */
static bool mentions(Conv *cv, MimDef *d, MimDef *lam) {
    MimPtrMap seen = {0};
    DefVec stack = {0};
    bool found = false;
    mim_vec_push(&stack, d);
    while (stack.len && !found) {
        MimDef *x = mim_vec_pop(&stack);
        x = x ? mim_resolve(cv->w, x) : NULL;
        if (!x || !(mim_def_dep(x) & MIM_DEP_MUT) || mim_ptrmap_has(&seen, x)) continue;
        mim_ptrmap_put(&seen, x, x);
        found = x == lam;
        if (mim_def_is_mut(x) || mim_def_node(x) == MIM_VAR) continue;
        for (size_t i = 0; i < mim_def_num_ops(x); i++) mim_vec_push(&stack, mim_def_op(x, i));
    }
    mim_ptrmap_free(&seen);
    mim_vec_free(&stack);
    return found;
}

/* Is K, the callee of a call whose closure argument r does not escape,
 * r itself or a returning lambda of the program (called directly: the
 * call returns to the caller's frame)? */
static bool frame_callee(Conv *cv, MimDef *K, MimDef *r) {
    K = mim_resolve(cv->w, K);
    return K == r || (mim_def_is_mut(K) && mim_ptrmap_has(&cv->known, K) && is_body_lam(K) &&
                      is_returning(cv, cn_type(cv, mim_def_type(K))));
}

/* Is the closure of r (a unit that does not escape) built by the block b
 * dead when b's body call returns? Then all closures of r built in loop
 * blocks of one function can share one slot of its frame: b's body must be
 * a call of r or of a returning function (through a branch between such
 * functions), with r only among the arguments before the return
 * continuation. Such a call returns into the frame and nothing of the
 * frame holds the closure afterwards: it is no block's argument (which
 * could carry it to the next iteration), not in the return continuation,
 * and a closure that does not escape is not stored or kept by the callee. */
static bool frame_site(Conv *cv, MimDef *b, MimDef *r) {
    MimWorld *w = cv->w;
    MimDef *body = mim_resolve(w, mim_lam_body(b));
    if (mentions(cv, mim_lam_filter(b), r) || mim_def_node(body) != MIM_APP || mim_app_axiom(body)) return false;
    MimDef *callee = mim_resolve(w, mim_app_callee(body)), *arg = mim_resolve(w, mim_app_arg(body));
    if (!is_returning(cv, cn_type(cv, mim_def_type(callee)))) return false;
    MimDef *tup = mim_def_node(callee) == MIM_EXTRACT ? mim_resolve(w, mim_def_op(callee, 0)) : NULL;
    if (tup && mim_def_node(tup) == MIM_TUPLE) {
        if (mentions(cv, mim_def_op(callee, 1), r)) return false;
        for (size_t i = 0; i < mim_def_num_ops(tup); i++)
            if (!frame_callee(cv, mim_def_op(tup, i), r)) return false;
    } else if (!frame_callee(cv, callee, r)) {
        return false;
    }
    size_t n = mim_def_node(arg) == MIM_TUPLE ? mim_def_num_ops(arg) : 0;
    return n ? !mentions(cv, mim_def_op(arg, n - 1), r) : !mentions(cv, arg, r);
}

/* Closures that do not escape but are built in a loop cannot get a slot
 * where they are built (a new alloca at every iteration). If every such
 * closure of a unit r built in u's loop blocks is dead when the call of
 * its block returns (frame_site), they share one slot allocated when u's
 * function starts (u->reuse). Otherwise their environments are malloc'd
 * and put on a list of the returning function that builds them (a slot
 * holding the head, a link field first in each such environment), which
 * the function frees when it returns: the closures are dead by then.
 * Marks those units `linked` and the functions `list`. Runs before any
 * environment type is built. */
static void plan_lists(Conv *cv) {
    for (size_t i = 0; i < cv->unit_list.len; i++) {
        Unit *u = cv->unit_list.data[i];
        if (mim_ptrmap_has(&cv->sjlj, u->lam)) continue;
        DefVec built = {0};
        MimPtrMap seen = {0};
        for (size_t j = 0; j < u->blocks.len; j++) {
            MimDef *b = u->blocks.data[j];
            if (!in_loop(cv, u, b)) continue;
            built.len = 0;
            mim_ptrmap_clear(&seen);
            closures_built(cv, u, mim_lam_filter(b), &built, &seen);
            closures_built(cv, u, mim_lam_body(b), &built, &seen);
            for (size_t k = 0; k < built.len; k++) {
                MimDef *r = built.data[k];
                uintptr_t st = (uintptr_t)mim_ptrmap_get(&u->reuse, r);
                if (!st) mim_vec_push(&u->reuse_of, r);
                if (st != 2) mim_ptrmap_put(&u->reuse, r, (void *)(uintptr_t)(frame_site(cv, b, r) ? 1 : 2));
            }
        }
        mim_vec_free(&built);
        mim_ptrmap_free(&seen);
        if (!is_returning(cv, cn_type(cv, mim_def_type(u->lam)))) continue;
        for (size_t k = 0; k < u->reuse_of.len; k++) {
            MimDef *r = u->reuse_of.data[k];
            if (mim_ptrmap_get(&u->reuse, r) != (void *)2) continue;
            ((Unit *)mim_ptrmap_get(&cv->units, r))->linked = true;
            u->list = true;
        }
    }
}

/* ---- building the converted program ------------------------------------------------- */

static MimDef *rewrite(Ctx *c, MimDef *d, enum Pos pos);
static MimDef *free_envs(Conv *cv);
static bool holds_closures(Conv *cv, Unit *u, MimDef *block);

static MimDef *annex(Conv *cv, uint64_t id) {
    MimDef *a = mim_annex(cv->w, id);
    if (!a) cv->failed = true;
    return a;
}

static MimDef *ptr_to(Conv *cv, MimDef *T) {
    MimWorld *w = cv->w;
    MimDef *zero = mim_lit_nat(w, 0);
    MimDef *pair = mim_pair(w, T, zero);
    return mim_app(w, annex(cv, MIM_mem_Ptr), pair);
}

static MimDef *bitcast(Conv *cv, MimDef *to, MimDef *x) {
    MimWorld *w = cv->w;
    MimDef *bc = mim_app(w, annex(cv, MIM_core_bitcast), mim_def_type(x));
    bc = mim_app(w, bc, to);
    return mim_app(w, bc, x);
}

static void name_after(MimDef *d, MimDef *old) {
    if (mim_def_name(old)) mim_def_set_name(d, mim_def_name(old));
    mim_def_set_loc(d, mim_def_loc(old));
}

static MimDef *schedule(Conv *cv, MimDef *lam, Unit *u) {
    mim_vec_push(&cv->todo, lam);
    mim_ptrmap_put(&cv->todo_kind, lam, u);
    return lam;
}

/* The converted environment type of a unit (built once). */
static MimDef *env_type(Conv *cv, Unit *u) {
    if (u->env_type || !u->fvs.len) return u->env_type;
    size_t l = u->linked, n = u->fvs.len + l;
    MimDef **ops = mim_xcalloc(n, sizeof *ops);
    bool ok = true;
    if (l) ops[0] = cv->env_ptr;
    for (size_t i = 0; i < u->fvs.len && ok; i++)
        ok = (ops[i + l] = conv_type(cv, mim_def_type(u->fvs.data[i]))) != NULL;
    u->env_type = ok ? (n == 1 ? ops[0] : mim_sigma(cv->w, ops, n)) : NULL;
    free(ops);
    return u->env_type;
}

/* A single free definition that is an integer or a pointer is stored in the
 * environment pointer itself (clos.md §5.6, "unboxed"). */
static bool unboxed(Conv *cv, Unit *u) {
    MimDef *T = u->fvs.len == 1 && !u->linked ? conv_type(cv, mim_def_type(u->fvs.data[0])) : NULL;
    T = T ? mim_resolve(cv->w, T) : NULL;
    if (!T) return false;
    if (mim_match(T, MIM_mem_Ptr)) return true;
    uint64_t s;
    return mim_def_node(T) == MIM_APP && mim_app_callee(T) == mim_idx(cv->w) && mim_def_lit(mim_app_arg(T), &s);
}

static MimDef *direct_of(Conv *cv, Unit *u) {
    if (u->direct) return u->direct;
    MimDef *T = direct_type(cv, cn_type(cv, mim_def_type(u->lam)));
    u->direct = T ? mim_mut_lam(cv->w, T) : NULL;
    if (!u->direct) return NULL;
    name_after(u->direct, u->lam);
    return schedule(cv, u->direct, u);
}

static MimDef *code_of(Conv *cv, Unit *u) {
    if (u->code) return u->code;
    MimDef *T = code_type(cv, cn_type(cv, mim_def_type(u->lam)));
    u->code = T ? mim_mut_lam(cv->w, T) : NULL;
    if (!u->code) return NULL;
    name_after(u->code, u->lam);
    return schedule(cv, u->code, u);
}

/* A null environment pointer (0 cast; ⊥ would be undef). */
static MimDef *null_env(Conv *cv) {
    return bitcast(cv, cv->env_ptr, mim_lit_int(cv->w, 64, 0));
}

/* Where the environment of lam's closure built in c goes: */
enum Place {
    SLOT,   /* a stack slot: the closure does not escape and is built at most once per call */
    FRAME,  /* the unit's slot allocated when the function starts: built in a loop,
               dead when the call of its block returns (plan_lists) */
    LISTED, /* the heap, on the list of the function, freed when it returns: does
               not escape, built in a loop of a function keeping a list */
    HEAP    /* the heap, never freed */
};

static enum Place place_of(Ctx *c, Unit *u) {
    if (mim_ptrmap_has(&c->cv->escaping, u->lam) || !c->cur_old) return HEAP;
    if (!in_loop(c->cv, c->u, c->cur_old)) return SLOT;
    if (mim_ptrmap_has(&c->frame, u->lam)) return FRAME;
    return c->head && u->linked ? LISTED : HEAP;
}

/* Memory for the environment (of type ET) placed at `place`. */
static MimDef *alloc_env(Ctx *c, enum Place place, MimDef *ET) {
    Conv *cv = c->cv;
    MimWorld *w = cv->w;
    MimDef *targs = mim_pair(w, ET, mim_lit_nat(w, 0));
    if (place == SLOT) {
        MimDef *slot = mim_app(w, annex(cv, MIM_mem_slot), targs);
        MimDef *id = mim_lit_nat(w, cv->num_slots++);
        MimDef *slot_arg = mim_pair(w, c->cur_mem, id);
        return mim_app(w, slot, slot_arg);
    }
    MimDef *alloc = mim_app(w, annex(cv, MIM_mem_alloc), targs);
    return mim_app(w, alloc, c->cur_mem);
}

/* mem' = %mem.store (mem, p, v) */
static MimDef *store(Conv *cv, MimDef *mem, MimDef *p, MimDef *v) {
    MimDef *st_ops[3] = {mem, p, v};
    MimDef *st_arg = mim_tuple(cv->w, st_ops, 3);
    return mim_iapp(cv->w, annex(cv, MIM_mem_store), st_arg);
}

/* %mem.load (mem, p): [mem', value] */
static MimDef *load(Conv *cv, MimDef *mem, MimDef *p) {
    MimDef *ld_ops[2] = {mem, p};
    MimDef *ld_arg = mim_tuple(cv->w, ld_ops, 2);
    return mim_iapp(cv->w, annex(cv, MIM_mem_load), ld_arg);
}

/* The closure of lam built in c (its environment threaded into c's memory). */
static MimDef *make_closure(Ctx *c, MimDef *lam) {
    Conv *cv = c->cv;
    MimWorld *w = cv->w;
    if (c->self && lam == c->u->lam) return c->self;
    Unit *u = mim_ptrmap_get(&cv->units, lam);
    if (!u) {
        fail(cv, lam, "internal: a closure of an unknown lambda");
        return NULL;
    }
    MimDef *code = code_of(cv, u);
    MimDef *env;
    if (!u->fvs.len) {
        env = mim_bot(w, cv->env_ptr);
    } else if (unboxed(cv, u)) {
        MimDef *val = rewrite(c, u->fvs.data[0], VALUE);
        env = val ? bitcast(cv, cv->env_ptr, val) : NULL;
    } else {
        if (!c->cur_mem) {
            fail(cv, lam, "cannot place the environment of this closure (no memory at its use)");
            return NULL;
        }
        enum Place place = place_of(c, u);
        size_t l = u->linked, ne = u->fvs.len + l;
        MimDef **vals = mim_xcalloc(ne, sizeof *vals);
        bool ok = true;
        if (place == LISTED) { /* link to the current head of the list */
            MimDef *ld = load(cv, c->cur_mem, c->head);
            c->cur_mem = mim_proj(w, ld, 2, 0);
            vals[0] = mim_proj(w, ld, 2, 1);
        } else if (l) {
            vals[0] = null_env(cv);
        }
        for (size_t i = 0; i < u->fvs.len && ok; i++) ok = (vals[i + l] = rewrite(c, u->fvs.data[i], VALUE)) != NULL;
        MimDef *ET = env_type(cv, u);
        MimDef *tup = ok && ET ? (ne == 1 ? vals[0] : mim_tuple_typed(w, ET, vals, ne)) : NULL;
        free(vals);
        if (!tup) return NULL;
        MimDef *res = place == FRAME ? NULL : alloc_env(c, place, ET);
        MimDef *p = res ? mim_proj(w, res, 2, 1) : mim_ptrmap_get(&c->frame, u->lam);
        MimDef *m2 = store(cv, res ? mim_proj(w, res, 2, 0) : c->cur_mem, p, tup);
        if (m2 && place == LISTED) m2 = store(cv, m2, c->head, bitcast(cv, cv->env_ptr, p));
        if (!m2) return NULL;
        c->cur_mem = m2;
        env = bitcast(cv, cv->env_ptr, p);
    }
    MimDef *ops[2] = {code, env};
    return code && env ? mim_tuple(w, ops, 2) : NULL;
}

/* A body-less lambda (C declaration, import) with its type converted. */
static MimDef *conv_decl(Conv *cv, MimDef *lam) {
    MimDef *done = mim_ptrmap_get(&cv->decls, lam);
    if (done) return done;
    MimDef *pi = cn_type(cv, mim_def_type(lam));
    MimDef *T = pi ? direct_type(cv, pi) : NULL;
    if (!T || T == pi) {
        mim_ptrmap_put(&cv->decls, lam, lam);
        return lam;
    }
    MimDef *nl = mim_mut_lam(cv->w, T);
    if (!nl) return NULL;
    name_after(nl, lam);
    if (mim_def_is_external(lam)) {
        mim_make_internal(cv->w, lam);
        mim_make_external(cv->w, nl);
    }
    mim_ptrmap_put(&cv->decls, lam, nl);
    return nl;
}

/* Parameters of nl standing for the old lambda's variable: a tuple of all of
 * nl's parameters except the environment (1) and a dummy return (last). */
static MimDef *old_var_repl(Conv *cv, MimDef *nl, uint64_t n_old, bool env, MimDef *mem) {
    MimWorld *w = cv->w;
    uint64_t nn = clos_num_comps(w, mim_pi_dom(mim_def_type(nl)));
    MimDef **ops = mim_xcalloc(n_old ? n_old : 1, sizeof *ops);
    for (uint64_t i = 0, j = 0; i < n_old; i++, j++) {
        if (env && j == 1) j++;
        ops[i] = i == 0 && mem ? mem : nn == 1 ? mim_var(w, nl) : mim_var_proj(w, nl, nn, j);
    }
    MimDef *res = n_old == 1 ? ops[0] : mim_tuple(w, ops, n_old);
    free(ops);
    return res;
}

static void name_params(Conv *cv, MimDef *old, MimDef *nl, bool env) {
    MimWorld *w = cv->w;
    uint64_t n = clos_num_comps(w, mim_pi_dom(mim_def_type(old)));
    uint64_t nn = clos_num_comps(w, mim_pi_dom(mim_def_type(nl)));
    if (n < 2 || nn < 2) return;
    for (uint64_t i = 0, j = 0; i < n; i++, j++) {
        if (env && j == 1) j++;
        MimDef *p = mim_var_proj(w, old, n, i), *q = mim_var_proj(w, nl, nn, j);
        if (p && q && mim_def_name(p)) mim_def_set_name(q, mim_def_name(p));
    }
    if (env) mim_def_set_name(mim_var_proj(w, nl, nn, 1), mim_world_sym(w, "env"));
}

/* Rebuild filter and body of old into nl within c (a fresh memo per body). */
static bool fill(Ctx *c, MimDef *old, MimDef *nl) {
    MimPtrMap memo = {0}, *saved = c->memo;
    MimDef *saved_mem = c->cur_mem, *saved_old = c->cur_old;
    MimLoc saved_loc = mim_world_loc(c->cv->w);
    mim_world_set_loc(c->cv->w, mim_def_loc(old)); /* errors of constructions: at the lambda */
    c->memo = &memo;
    c->cur_mem = NULL;
    c->cur_old = old;
    MimDef *filter = rewrite(c, mim_lam_filter(old), VALUE);
    MimDef *body = filter ? rewrite(c, mim_lam_body(old), VALUE) : NULL;
    mim_ptrmap_free(&memo);
    c->memo = saved;
    c->cur_mem = saved_mem;
    c->cur_old = saved_old;
    mim_world_set_loc(c->cv->w, saved_loc);
    return body && mim_lam_set(c->cv->w, nl, filter, body);
}

static MimDef *block_of(Ctx *c, MimDef *lam) {
    Conv *cv = c->cv;
    MimDef *done = mim_ptrmap_get(&c->blocks, lam);
    if (done) return done;
    MimDef *T = direct_type(cv, cn_type(cv, mim_def_type(lam)));
    MimDef *nl = T ? mim_mut_lam(cv->w, T) : NULL;
    if (!nl) return NULL;
    name_after(nl, lam);
    mim_ptrmap_put(&c->blocks, lam, nl);
    name_params(cv, lam, nl, false);
    mim_ptrmap_put(&c->subst, mim_var(cv->w, lam), mim_var(cv->w, nl));
    return fill(c, lam, nl) ? nl : NULL;
}

/* A C function used as a value: the closure of a code lambda (without
 * environment) that calls it. */
static MimDef *decl_closure(Conv *cv, MimDef *lam) {
    MimWorld *w = cv->w;
    MimDef *pi = cn_type(cv, mim_def_type(lam));
    MimDef *code = mim_ptrmap_get(&cv->decl_code, lam);
    if (!code) {
        MimDef *decl = conv_decl(cv, lam);
        MimDef *T = decl && pi ? code_type(cv, pi) : NULL;
        code = T ? mim_mut_lam(w, T) : NULL;
        if (!code) return NULL;
        name_after(code, lam);
        uint64_t n = clos_num_comps(w, mim_pi_dom(pi));
        MimDef *args = old_var_repl(cv, code, n, true, NULL);
        MimDef *call = mim_app(w, decl, args);
        if (!call || !mim_lam_set(w, code, mim_lit_bool(w, false), call)) return NULL;
        mim_ptrmap_put(&cv->decl_code, lam, code);
    }
    MimDef *env = mim_bot(w, cv->env_ptr);
    MimDef *ops[2] = {code, env};
    return mim_tuple(w, ops, 2);
}

static MimDef *rewrite_lam(Ctx *c, MimDef *lam, enum Pos pos) {
    Conv *cv = c->cv;
    if (!is_body_lam(lam)) {
        bool decl = mim_def_node(lam) == MIM_LAM && !mim_lam_body(lam) && cn_type(cv, mim_def_type(lam));
        if (decl && pos == CALLEE) return conv_decl(cv, lam);
        if (decl) return decl_closure(cv, lam);
        fail(cv, lam, "a function in direct style used as a value");
        return NULL;
    }
    if (!mim_ptrmap_has(&cv->known, lam) && is_dependent(cv, lam)) return lam; /* left as it is */
    bool ret = is_returning(cv, cn_type(cv, mim_def_type(lam)));
    if (!ret && pos != VALUE) return block_of(c, lam);
    Unit *u = mim_ptrmap_get(&cv->units, lam);
    if (ret && pos == CALLEE && u && !u->fvs.len) return direct_of(cv, u);
    return make_closure(c, lam);
}

/* Rebuild a tuple argument whose first component is memory, threading the
 * allocations of closures built for the other components into it. */
static MimDef *rewrite_mem_args(Ctx *c, MimDef *arg, bool ret, MimDef **mem) {
    MimWorld *w = c->cv->w;
    size_t n = mim_def_num_ops(arg);
    MimDef **ops = mim_xcalloc(n, sizeof *ops);
    MimDef *saved = c->cur_mem;
    c->cur_mem = ops[0] = rewrite(c, mim_def_op(arg, 0), VALUE);
    bool ok = ops[0] != NULL;
    for (size_t i = 1; i < n && ok; i++)
        ok = (ops[i] = rewrite(c, mim_def_op(arg, i), ret && i == n - 1 ? RET : VALUE)) != NULL;
    ops[0] = c->cur_mem;
    c->cur_mem = saved;
    *mem = ops[0];
    MimDef *res = ok ? mim_tuple(w, ops, n) : NULL;
    free(ops);
    return res;
}

static bool mem_tuple(Conv *cv, MimDef *arg) {
    return mim_def_node(arg) == MIM_TUPLE && mim_def_num_ops(arg) > 1 &&
           mim_resolve(cv->w, mim_def_type(mim_def_op(arg, 0))) == cv->M;
}

/* The number of components of x if its type is [%mem.M, …], else 0. */
static uint64_t mem_first(Conv *cv, MimDef *x) {
    MimDef *T = mim_resolve(cv->w, mim_def_type(x));
    uint64_t n = T && mim_def_node(T) == MIM_SIGMA ? mim_def_num_ops(T) : 0;
    return n >= 2 && mim_resolve(cv->w, mim_def_op(T, 0)) == cv->M ? n : 0;
}

/* The tuple t (memory first) with its memory replaced by m. */
static MimDef *with_mem(MimWorld *w, MimDef *t, MimDef *m) {
    bool tup = mim_def_node(t) == MIM_TUPLE;
    size_t n = tup ? mim_def_num_ops(t) : mim_def_num_ops(mim_resolve(w, mim_def_type(t)));
    MimDef **ops = mim_xcalloc(n, sizeof *ops);
    for (size_t i = 0; i < n; i++) ops[i] = tup ? mim_def_op(t, i) : mim_proj(w, t, n, i);
    ops[0] = m;
    MimDef *res = mim_tuple(w, ops, n);
    free(ops);
    return res;
}

/* The call of the rewritten callee ncallee with narg: through its code if
 * it is a closure, code (m, env, args…[, ⊥ dummy return]). */
static MimDef *call_of(Ctx *c, MimDef *pi, MimDef *ncallee, MimDef *narg) {
    Conv *cv = c->cv;
    MimWorld *w = cv->w;
    MimDef *CT = mim_resolve(w, mim_def_type(ncallee));
    if (!pi || !clos_is_clos_type(CT, cv->env_ptr)) return mim_app(w, ncallee, narg);
    uint64_t n = clos_num_comps(w, mim_pi_dom(pi));
    MimDef **ops = mim_xcalloc(n + 2, sizeof *ops);
    size_t k = 0;
    for (uint64_t i = 0; i < n; i++) {
        ops[k++] = n == 1 ? narg : mim_proj(w, narg, n, i);
        if (i == 0) ops[k++] = mim_proj(w, ncallee, 2, 1);
    }
    if (!is_returning(cv, pi)) ops[k++] = mim_bot(w, mim_cn(w, cv->M));
    MimDef *nargs = mim_tuple(w, ops, k);
    free(ops);
    return mim_app(w, mim_proj(w, ncallee, 2, 0), nargs);
}

/* Does the branch target b become a closure built at the call (a nested
 * function with free definitions)? */
static bool builds_closure(Ctx *c, MimDef *b) {
    Conv *cv = c->cv;
    b = mim_resolve(cv->w, b);
    if (!is_body_lam(b) || !is_returning(cv, cn_type(cv, mim_def_type(b)))) return false;
    Unit *u = mim_ptrmap_get(&cv->units, b);
    return u && u->fvs.len && !(c->self && b == c->u->lam);
}

/* branch_clos (clos.md §5.3): `(c₀, c₁)#i (m, args)` where some cᵢ is a
 * closure built here becomes `(b₀, b₁)#i m'` with blocks bⱼ = λ m. cⱼ (m,
 * args): each block builds only its own closure. The arguments narg are
 * rewritten already (memory cmem); NULL if nothing is to be done. */
static MimDef *branch_clos(Ctx *c, MimDef *pi, MimDef *callee, MimDef *narg, MimDef *cmem) {
    Conv *cv = c->cv;
    MimWorld *w = cv->w;
    MimDef *branches = mim_resolve(w, mim_def_op(callee, 0));
    size_t n = mim_def_num_ops(branches);
    bool any = false;
    for (size_t i = 0; i < n; i++) any |= builds_closure(c, mim_def_op(branches, i));
    if (!any || !cmem) return NULL;
    MimDef **blocks = mim_xcalloc(n, sizeof *blocks);
    MimDef *saved = c->cur_mem, *res = NULL;
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        MimDef *b = blocks[i] = mim_mut_lam(w, mim_cn(w, cv->M));
        ok = b != NULL;
        if (!ok) break;
        mim_def_set_name(b, mim_world_sym(w, "branch"));
        c->cur_mem = mim_var(w, b);
        MimDef *nc = rewrite(c, mim_def_op(branches, i), CALLEE);
        MimDef *call = nc ? call_of(c, pi, nc, with_mem(w, narg, c->cur_mem)) : NULL;
        ok = call && mim_lam_set(w, b, mim_lit_bool(w, false), call);
    }
    c->cur_mem = saved;
    MimDef *idx = ok ? rewrite(c, mim_def_op(callee, 1), VALUE) : NULL;
    MimDef *tup = idx ? mim_tuple(w, blocks, n) : NULL;
    MimDef *sel = tup ? mim_extract(w, tup, idx) : NULL;
    res = sel ? mim_app(w, sel, cmem) : NULL;
    free(blocks);
    if (!res) cv->failed = true;
    return res;
}

/* The jump block (narg) to a loop block that holds no closure: first free
 * the function's list of environments and empty it. */
static MimDef *free_then(Ctx *c, MimDef *block, MimDef *narg) {
    Conv *cv = c->cv;
    MimWorld *w = cv->w;
    MimDef *fe = free_envs(cv);
    MimDef *k = mim_mut_lam(w, mim_cn(w, cv->M));
    if (!fe || !k) return NULL;
    mim_def_set_name(k, mim_world_sym(w, "freed"));
    MimDef *m3 = store(cv, mim_var(w, k), c->head, null_env(cv));
    MimDef *jump = m3 ? mim_app(w, block, with_mem(w, narg, m3)) : NULL;
    if (!jump || !mim_lam_set(w, k, mim_lit_bool(w, false), jump)) return NULL;
    MimDef *m0 = mim_def_node(narg) == MIM_TUPLE ? mim_def_op(narg, 0) : mim_proj(w, narg, mem_first(cv, narg), 0);
    MimDef *ld = load(cv, m0, c->head);
    MimDef *fe_ops[3] = {mim_proj(w, ld, 2, 0), mim_proj(w, ld, 2, 1), k};
    MimDef *fe_arg = mim_tuple(w, fe_ops, 3);
    return mim_app(w, fe, fe_arg);
}

static MimDef *rewrite_app(Ctx *c, MimDef *d) {
    Conv *cv = c->cv;
    MimWorld *w = cv->w;
    MimDef *callee = mim_resolve(w, mim_app_callee(d)), *arg = mim_resolve(w, mim_app_arg(d));
    MimDef *pi = mim_app_axiom(d) ? NULL : cn_type(cv, mim_def_type(callee));
    MimDef *mem = NULL, *ncallee, *narg;
    bool ret = pi && is_returning(cv, pi);
    /* the arguments first: a callee that is a closure built here (a unit
     * with an environment called directly) threads its environment into
     * the memory the arguments leave */
    bool margs = mem_tuple(cv, arg);
    narg = margs ? rewrite_mem_args(c, arg, ret, &mem) : rewrite(c, arg, VALUE);
    if (!narg) return NULL;
    uint64_t an = pi && !margs ? mem_first(cv, narg) : 0;
    if (an) { /* e.g. a lambda's whole variable passed on: its memory component */
        margs = true;
        mem = mim_proj(w, narg, an, 0);
    }
    bool branch = pi && mim_def_node(callee) == MIM_EXTRACT &&
                  mim_def_node(mim_resolve(w, mim_def_op(callee, 0))) == MIM_TUPLE;
    if (branch && margs) {
        MimDef *res = branch_clos(c, pi, callee, narg, mem);
        if (res || cv->failed) return res;
    }
    MimDef *saved_mem = c->cur_mem;
    if (margs) c->cur_mem = mem;
    if (branch) {
        MimDef *branches = mim_resolve(w, mim_def_op(callee, 0));
        size_t n = mim_def_num_ops(branches);
        MimDef **ops = mim_xcalloc(n, sizeof *ops);
        bool ok = true;
        for (size_t i = 0; i < n && ok; i++) ok = (ops[i] = rewrite(c, mim_def_op(branches, i), CALLEE)) != NULL;
        MimDef *idx = ok ? rewrite(c, mim_def_op(callee, 1), VALUE) : NULL;
        MimDef *tup = idx ? mim_tuple(w, ops, n) : NULL;
        ncallee = tup ? mim_extract(w, tup, idx) : NULL;
        free(ops);
    } else {
        ncallee = rewrite(c, callee, pi ? CALLEE : VALUE);
    }
    MimDef *cmem = c->cur_mem;
    c->cur_mem = saved_mem;
    if (!ncallee) return NULL;
    if (margs && cmem != mem) narg = with_mem(w, narg, cmem);
    /* a jump from a loop to a loop block that holds no closure (outside
     * loops, nothing was put on the list since the last such jump) */
    if (narg && margs && c->head && mim_def_is_mut(callee) && mim_ptrmap_has(&c->u->owned, callee) &&
        c->cur_old && in_loop(cv, c->u, c->cur_old) && in_loop(cv, c->u, callee) &&
        !holds_closures(cv, c->u, callee))
        return free_then(c, ncallee, narg);
    return narg ? call_of(c, pi, ncallee, narg) : NULL;
}

/* A closed node with the types inside converted (e.g. `%mem.store (F, 0)`). */
static MimDef *conv_const(Conv *cv, MimDef *d) {
    MimWorld *w = cv->w;
    if (is_type_level(w, d)) return conv_type(cv, d);
    size_t n = mim_def_num_ops(d);
    MimNode k = mim_def_node(d);
    if (!n || k == MIM_AXIOM || k == MIM_LAM || k == MIM_LIT) return d;
    MimDef *done = mim_ptrmap_get(&cv->types, d);
    if (done) return done;
    MimDef **ops = mim_xcalloc(n, sizeof *ops);
    bool changed = false, ok = mim_map_ops(w, d, conv_const_op, cv, ops, &changed);
    MimDef *T = ok ? conv_const(cv, mim_def_type(d)) : NULL;
    changed |= T != mim_def_type(d);
    MimDef *res = !ok || !T ? NULL : changed ? mim_rebuild(w, d, T, ops) : d;
    free(ops);
    if (res) mim_ptrmap_put(&cv->types, d, res);
    return res;
}

static MimDef *rewrite(Ctx *c, MimDef *d, enum Pos pos) {
    Conv *cv = c->cv;
    MimWorld *w = cv->w;
    d = d ? mim_resolve(w, d) : NULL;
    if (!d || cv->failed) return NULL;
    if (pos == VALUE && c->thrower && d == c->ret_old) return c->thrower;
    MimDef *s = mim_ptrmap_get(&c->subst, d);
    if (s) return s;
    if (mim_def_is_mut(d)) {
        if (mim_def_node(d) == MIM_LAM) return rewrite_lam(c, d, pos);
        return d;
    }
    if (!(mim_def_dep(d) & (MIM_DEP_VAR | MIM_DEP_MUT))) return conv_const(cv, d);
    MimDef *done = mim_ptrmap_get(c->memo, d);
    if (done) return done;
    MimDef *res;
    if (mim_def_node(d) == MIM_VAR) {
        res = d; /* of a binder that is not part of the program (in a type) */
    } else if (mim_def_node(d) == MIM_APP) {
        res = rewrite_app(c, d);
    } else {
        size_t n = mim_def_num_ops(d);
        MimDef **ops = mim_xcalloc(n ? n : 1, sizeof *ops);
        bool ok = true;
        for (size_t i = 0; i < n && ok; i++) ok = (ops[i] = rewrite(c, mim_def_op(d, i), VALUE)) != NULL;
        MimDef *type = ok ? rewrite(c, mim_def_type(d), VALUE) : NULL;
        res = type ? mim_rebuild(w, d, type, ops) : NULL;
        free(ops);
    }
    if (res) mim_ptrmap_put(c->memo, d, res);
    return res;
}

/* The code that a captured return continuation of type rpi becomes: it
 * stores its arguments next to the jump buffer in the slot its environment
 * points to and longjmps back into the function (clos.md §5.5). */
static MimDef *thrower_code(Conv *cv, MimDef *rpi, MimDef *slot_t) {
    MimWorld *w = cv->w;
    MimDef *T = code_type(cv, rpi);
    MimDef *thr = T ? mim_mut_lam(w, T) : NULL;
    if (!thr) return NULL;
    mim_def_set_name(thr, mim_world_sym(w, "throw"));
    uint64_t nn = clos_num_comps(w, mim_pi_dom(T));
    MimDef *p = bitcast(cv, ptr_to(cv, slot_t), mim_var_proj(w, thr, nn, 1));
    MimDef *ld_ops[2] = {mim_var_proj(w, thr, nn, 0), p};
    MimDef *ld_arg = mim_tuple(w, ld_ops, 2);
    MimDef *ld = mim_iapp(w, annex(cv, MIM_mem_load), ld_arg);
    MimDef *m1 = mim_proj(w, ld, 2, 0);
    MimDef *jb = mim_proj(w, mim_proj(w, ld, 2, 1), 2, 0);
    uint64_t k = nn - 3; /* the arguments: all but memory, env and the dummy return */
    MimDef **args = mim_xcalloc(k ? k : 1, sizeof *args);
    for (uint64_t i = 0; i < k; i++) args[i] = mim_var_proj(w, thr, nn, i + 2);
    MimDef *argt = k == 1 ? args[0] : mim_tuple(w, args, k);
    free(args);
    MimDef *val_ops[2] = {jb, argt};
    MimDef *val = mim_tuple(w, val_ops, 2);
    MimDef *st_ops[3] = {m1, p, val};
    MimDef *st_arg = mim_tuple(w, st_ops, 3);
    MimDef *m2 = mim_iapp(w, annex(cv, MIM_mem_store), st_arg);
    MimDef *one = mim_lit_int(w, 32, 1);
    MimDef *lj_ops[3] = {m2, jb, one};
    MimDef *lj_arg = mim_tuple(w, lj_ops, 3);
    MimDef *body = mim_app(w, annex(cv, MIM_clos_longjmp), lj_arg);
    return body && mim_lam_set(w, thr, mim_lit_bool(w, false), body) ? thr : NULL;
}

/* Does the type T contain a continuation type (a closure after conversion)? */
static bool has_cn(Conv *cv, MimDef *T) {
    T = T ? mim_resolve(cv->w, T) : NULL;
    if (!T) return false;
    if (cn_type(cv, T)) return true;
    if (mim_def_node(T) == MIM_SIGMA)
        for (size_t i = 0; i < mim_def_num_ops(T); i++)
            if (has_cn(cv, mim_def_op(T, i))) return true;
    if (mim_def_node(T) == MIM_ARR) return has_cn(cv, mim_def_op(T, 1));
    return false;
}

/* Collect the blocks of u that d refers to (succs) and the blocks whose
 * parameters of closure type d uses (binders), not entering lambdas. */
static void block_uses(Conv *cv, Unit *u, MimDef *d, DefVec *succs, DefVec *binders, MimPtrMap *seen) {
    MimWorld *w = cv->w;
    d = d ? mim_resolve(w, d) : NULL;
    if (!d || !(mim_def_dep(d) & (MIM_DEP_VAR | MIM_DEP_MUT)) || mim_ptrmap_has(seen, d)) return;
    mim_ptrmap_put(seen, d, d);
    if (mim_def_is_mut(d)) {
        if (d != u->lam && mim_ptrmap_has(&u->owned, d)) mim_vec_push(succs, d);
        return;
    }
    if (is_type_level(w, d)) return;
    MimDef *tup = mim_def_node(d) == MIM_EXTRACT ? mim_resolve(w, mim_def_op(d, 0)) : NULL;
    uint64_t idx;
    bool param = tup && mim_def_node(tup) == MIM_VAR && mim_def_lit(mim_def_op(d, 1), &idx);
    MimDef *v = param ? tup : mim_def_node(d) == MIM_VAR ? d : NULL;
    if (v) {
        MimDef *b = mim_def_op(v, 0);
        if (b != u->lam && mim_ptrmap_has(&u->owned, b) && has_cn(cv, mim_def_type(d))) mim_vec_push(binders, b);
        return;
    }
    for (size_t i = 0; i < mim_def_num_ops(d); i++) block_uses(cv, u, mim_def_op(d, i), succs, binders, seen);
}

/* Is `target` reachable from `from` through u's blocks without entering
 * `avoid`? */
static bool reaches(Conv *cv, Unit *u, MimDef *from, MimDef *target, MimDef *avoid) {
    DefVec stack = {0}, succs = {0}, binders = {0};
    MimPtrMap visited = {0}, seen = {0};
    mim_vec_push(&stack, from);
    bool found = false;
    while (stack.len && !found) {
        MimDef *b = mim_vec_pop(&stack);
        if (b == avoid || mim_ptrmap_has(&visited, b)) continue;
        found = b == target;
        mim_ptrmap_put(&visited, b, b);
        mim_ptrmap_clear(&seen);
        succs.len = 0;
        block_uses(cv, u, mim_lam_filter(b), &succs, &binders, &seen);
        block_uses(cv, u, mim_lam_body(b), &succs, &binders, &seen);
        for (size_t i = 0; i < succs.len; i++) mim_vec_push(&stack, succs.data[i]);
    }
    mim_vec_free(&stack);
    mim_vec_free(&succs);
    mim_vec_free(&binders);
    mim_ptrmap_free(&visited);
    mim_ptrmap_free(&seen);
    return found;
}

/* May a closure built by u's function be live when it jumps to `block`?
 * Only values of closure type carry closures (a closure that does not
 * escape is never stored): the jump's arguments (block's parameters) and
 * the parameters of u's blocks that are free in block — used in a block X
 * reachable from it on a path that does not pass through their own block
 * (which would bind them anew). Parameters of u's function itself come
 * from its caller and are never on its list. Memoized in u->clean. */
static bool holds_closures(Conv *cv, Unit *u, MimDef *block) {
    void *memo = mim_ptrmap_get(&u->clean, block);
    if (memo) return memo == (void *)1;
    bool res = has_cn(cv, mim_def_type(mim_var(cv->w, block)));
    DefVec stack = {0}, succs = {0}, binders = {0};
    MimPtrMap visited = {0}, seen = {0};
    mim_vec_push(&stack, block);
    while (stack.len && !res) {
        MimDef *x = mim_vec_pop(&stack);
        if (mim_ptrmap_has(&visited, x)) continue;
        mim_ptrmap_put(&visited, x, x);
        mim_ptrmap_clear(&seen);
        succs.len = binders.len = 0;
        block_uses(cv, u, mim_lam_filter(x), &succs, &binders, &seen);
        block_uses(cv, u, mim_lam_body(x), &succs, &binders, &seen);
        for (size_t i = 0; i < succs.len; i++) mim_vec_push(&stack, succs.data[i]);
        for (size_t i = 0; i < binders.len && !res; i++)
            res = binders.data[i] != x && (binders.data[i] == block || reaches(cv, u, block, x, binders.data[i]));
    }
    mim_vec_free(&stack);
    mim_vec_free(&succs);
    mim_vec_free(&binders);
    mim_ptrmap_free(&visited);
    mim_ptrmap_free(&seen);
    mim_ptrmap_put(&u->clean, block, res ? (void *)1 : (void *)2);
    return res;
}

/* free_envs (m, p, k): frees the list of environments starting at p (each
 * starts with the link to the next one, null at the end), then k m. Built
 * once per program. */
static MimDef *free_envs(Conv *cv) {
    MimWorld *w = cv->w;
    if (cv->free_envs) return cv->free_envs;
    MimDef *k_t = mim_cn(w, cv->M);
    MimDef *dom_ops[3] = {cv->M, cv->env_ptr, k_t};
    MimDef *f = mim_mut_lam(w, mim_cn(w, mim_sigma(w, dom_ops, 3)));
    MimDef *done = mim_mut_lam(w, k_t), *more = mim_mut_lam(w, k_t);
    if (!f || !done || !more) return NULL;
    mim_def_set_name(f, mim_world_sym(w, "free_envs"));
    mim_def_set_name(done, mim_world_sym(w, "done"));
    mim_def_set_name(more, mim_world_sym(w, "more"));
    MimDef *p = mim_var_proj(w, f, 3, 1), *k = mim_var_proj(w, f, 3, 2);
    MimDef *done_body = mim_app(w, k, mim_var(w, done));
    MimDef *ld = load(cv, mim_var(w, more), bitcast(cv, ptr_to(cv, cv->env_ptr), p));
    MimDef *free_ops[2] = {mim_proj(w, ld, 2, 0), p};
    MimDef *free_arg = mim_tuple(w, free_ops, 2);
    MimDef *m1 = mim_iapp(w, annex(cv, MIM_mem_free), free_arg);
    MimDef *rec_ops[3] = {m1, mim_proj(w, ld, 2, 1), k};
    MimDef *rec_arg = mim_tuple(w, rec_ops, 3);
    MimDef *more_body = mim_app(w, f, rec_arg);
    MimDef *zero = mim_lit_int(w, 64, 0);
    MimDef *pi = bitcast(cv, mim_type_int(w, 64), p);
    MimDef *cmp_arg = mim_pair(w, pi, zero);
    MimDef *is_null = mim_iapp(w, annex(cv, MIM_core_icmp_e), cmp_arg);
    MimDef *br_ops[2] = {more, done};
    MimDef *br = mim_tuple(w, br_ops, 2);
    MimDef *sel = is_null ? mim_extract(w, br, is_null) : NULL;
    MimDef *body = sel ? mim_app(w, sel, mim_var_proj(w, f, 3, 0)) : NULL;
    bool ok = done_body && mim_lam_set(w, done, mim_lit_bool(w, false), done_body) && more_body &&
              mim_lam_set(w, more, mim_lit_bool(w, false), more_body) && body &&
              mim_lam_set(w, f, mim_lit_bool(w, false), body);
    if (!ok) return NULL;
    return cv->free_envs = f;
}

/* Start the list of environments of the function nl (copy of old) at its
 * memory m0: a slot holding the head (null), and old's return continuation
 * replaced by a block that frees the list, then returns. Returns the memory
 * after the slot is initialized. */
static MimDef *start_list(Ctx *c, MimDef *old, MimDef *nl, MimDef *m0) {
    Conv *cv = c->cv;
    MimWorld *w = cv->w;
    uint64_t n = clos_num_comps(w, mim_pi_dom(mim_def_type(old)));
    uint64_t nn = clos_num_comps(w, mim_pi_dom(mim_def_type(nl)));
    MimDef *targs = mim_pair(w, cv->env_ptr, mim_lit_nat(w, 0));
    MimDef *slot_ax = mim_app(w, annex(cv, MIM_mem_slot), targs);
    MimDef *slot_arg = mim_pair(w, m0, mim_lit_nat(w, cv->num_slots++));
    MimDef *slot = mim_app(w, slot_ax, slot_arg);
    MimDef *hp = mim_proj(w, slot, 2, 1);
    MimDef *m1 = store(cv, mim_proj(w, slot, 2, 0), hp, null_env(cv));
    MimDef *ret_new = mim_var_proj(w, nl, nn, nn - 1);
    MimDef *RT = mim_def_type(ret_new);
    uint64_t rn = clos_num_comps(w, mim_pi_dom(RT));
    MimDef *retk = mim_mut_lam(w, RT), *freed = mim_mut_lam(w, mim_cn(w, cv->M));
    MimDef *fe = free_envs(cv);
    if (!m1 || !retk || !freed || !fe) return NULL;
    mim_def_set_name(retk, mim_world_sym(w, "free_return"));
    mim_def_set_name(freed, mim_world_sym(w, "freed"));
    MimDef **ops = mim_xcalloc(rn, sizeof *ops);
    ops[0] = mim_var(w, freed);
    for (uint64_t i = 1; i < rn; i++) ops[i] = mim_var_proj(w, retk, rn, i);
    MimDef *rarg = rn == 1 ? ops[0] : mim_tuple(w, ops, rn);
    free(ops);
    MimDef *freed_body = mim_app(w, ret_new, rarg);
    MimDef *ld = load(cv, rn == 1 ? mim_var(w, retk) : mim_var_proj(w, retk, rn, 0), hp);
    MimDef *fe_ops[3] = {mim_proj(w, ld, 2, 0), mim_proj(w, ld, 2, 1), freed};
    MimDef *fe_arg = mim_tuple(w, fe_ops, 3);
    MimDef *retk_body = mim_app(w, fe, fe_arg);
    if (!freed_body || !mim_lam_set(w, freed, mim_lit_bool(w, false), freed_body) || !retk_body ||
        !mim_lam_set(w, retk, mim_lit_bool(w, false), retk_body))
        return NULL;
    c->head = hp;
    mim_ptrmap_put(&c->subst, mim_var_proj(w, old, n, n - 1), retk);
    return m1;
}

/* Allocate at the start of the function (memory m0) one slot for the
 * environments of each unit whose closures built in its loops share one
 * (plan_lists), noted in c->frame. Returns the memory after them. */
static MimDef *frame_slots(Ctx *c, MimDef *m0) {
    Conv *cv = c->cv;
    MimWorld *w = cv->w;
    for (size_t i = 0; i < c->u->reuse_of.len && m0; i++) {
        MimDef *r = c->u->reuse_of.data[i];
        if (mim_ptrmap_get(&c->u->reuse, r) != (void *)1) continue;
        MimDef *ET = env_type(cv, mim_ptrmap_get(&cv->units, r));
        if (!ET) return NULL;
        MimDef *targs = mim_pair(w, ET, mim_lit_nat(w, 0));
        MimDef *slot_ax = mim_app(w, annex(cv, MIM_mem_slot), targs);
        MimDef *slot_arg = mim_pair(w, m0, mim_lit_nat(w, cv->num_slots++));
        MimDef *slot = mim_app(w, slot_ax, slot_arg);
        mim_ptrmap_put(&c->frame, r, mim_proj(w, slot, 2, 1));
        m0 = mim_proj(w, slot, 2, 0);
    }
    return m0;
}

/* Fill nl (the copy of the function old, env at parameter 1 if `env`)
 * starting from memory `mem` (NULL: nl's memory parameter). If a closure
 * captures old's return continuation, nl first sets a jump buffer (in a
 * slot that also receives the return values), then runs old's body in a
 * block; a longjmp lands in a second block that returns the stored values. */
static bool fill_fn(Ctx *c, MimDef *old, MimDef *nl, bool env, MimDef *mem) {
    Conv *cv = c->cv;
    MimWorld *w = cv->w;
    uint64_t n = clos_num_comps(w, mim_pi_dom(mim_def_type(old)));
    uint64_t nn = clos_num_comps(w, mim_pi_dom(mim_def_type(nl)));
    if (!mim_ptrmap_has(&cv->sjlj, old)) {
        if (c->u->list && c->u->lam == old) {
            mem = start_list(c, old, nl, mem ? mem : mim_var_proj(w, nl, nn, 0));
            if (!mem) return false;
        }
        if (c->u->reuse_of.len && c->u->lam == old) {
            mem = frame_slots(c, mem ? mem : mim_var_proj(w, nl, nn, 0));
            if (!mem) return false;
        }
        mim_ptrmap_put(&c->subst, mim_var(w, old), old_var_repl(cv, nl, n, env, mem));
        return fill(c, old, nl);
    }
    MimDef *m0 = mem ? mem : mim_var_proj(w, nl, nn, 0);
    MimDef *rpi = cn_type(cv, clos_comp_type(w, mim_pi_dom(mim_def_type(old)), n, n - 1));
    MimDef *rdom = conv_dom(cv, rpi, false, false);
    uint64_t rn = rdom ? clos_num_comps(w, rdom) : 0, k = rn ? rn - 1 : 0;
    if (!rdom || !k) {
        fail(cv, old, "a captured return continuation without values");
        return false;
    }
    MimDef **ts = mim_xcalloc(k, sizeof *ts);
    for (uint64_t i = 0; i < k; i++) ts[i] = clos_comp_type(w, rdom, rn, i + 1);
    MimDef *arg_t = k == 1 ? ts[0] : mim_sigma(w, ts, k);
    free(ts);
    MimDef *i8 = mim_type_int(w, 8);
    MimDef *slot_ops[2] = {ptr_to(cv, i8), arg_t};
    MimDef *slot_t = mim_sigma(w, slot_ops, 2);

    /* entry: jump buffer, slot, setjmp */
    MimDef *ajb = mim_app(w, annex(cv, MIM_clos_alloc_jmpbuf), m0);
    MimDef *jb = mim_proj(w, ajb, 2, 1);
    MimDef *targs = mim_pair(w, slot_t, mim_lit_nat(w, 0));
    MimDef *slot_ax = mim_app(w, annex(cv, MIM_mem_slot), targs);
    MimDef *m1 = mim_proj(w, ajb, 2, 0);
    MimDef *slot_id = mim_lit_nat(w, cv->num_slots++); /* not a gid: ids must not depend on them */
    MimDef *slot_arg = mim_pair(w, m1, slot_id);
    MimDef *slot = mim_app(w, slot_ax, slot_arg);
    MimDef *sp = mim_proj(w, slot, 2, 1);
    MimDef *init_ops[2] = {jb, mim_bot(w, arg_t)};
    MimDef *init = mim_tuple(w, init_ops, 2);
    MimDef *st_ops[3] = {mim_proj(w, slot, 2, 0), sp, init};
    MimDef *st_arg = mim_tuple(w, st_ops, 3);
    MimDef *m3 = mim_iapp(w, annex(cv, MIM_mem_store), st_arg);
    MimDef *sj_ops[2] = {m3, jb};
    MimDef *sj_arg = mim_tuple(w, sj_ops, 2);
    MimDef *sj = mim_app(w, annex(cv, MIM_clos_setjmp), sj_arg);
    if (!sj) return false;

    MimDef *thr = thrower_code(cv, rpi, slot_t);
    MimDef *thr_ops[2] = {thr, bitcast(cv, cv->env_ptr, sp)};
    c->thrower = thr ? mim_tuple(w, thr_ops, 2) : NULL;
    c->ret_old = mim_var_proj(w, old, n, n - 1);

    /* the body of old in a block, the landing pad in another */
    MimDef *bb_t = mim_cn(w, cv->M);
    MimDef *body = mim_mut_lam(w, bb_t), *land = mim_mut_lam(w, bb_t);
    mim_def_set_name(body, mim_def_name(old));
    mim_def_set_name(land, mim_world_sym(w, "landing"));
    mim_ptrmap_put(&c->subst, mim_var(w, old), old_var_repl(cv, nl, n, env, mim_var(w, body)));
    if (!c->thrower || !fill(c, old, body)) return false;
    MimDef *ld_ops[2] = {mim_var(w, land), sp};
    MimDef *ld_arg = mim_tuple(w, ld_ops, 2);
    MimDef *ld = mim_iapp(w, annex(cv, MIM_mem_load), ld_arg);
    MimDef *vals = mim_proj(w, mim_proj(w, ld, 2, 1), 2, 1);
    MimDef **rops = mim_xcalloc(rn, sizeof *rops);
    rops[0] = mim_proj(w, ld, 2, 0);
    for (uint64_t i = 0; i < k; i++) rops[i + 1] = k == 1 ? vals : mim_proj(w, vals, k, i);
    MimDef *rarg = mim_tuple(w, rops, rn);
    free(rops);
    MimDef *ret_new = mim_var_proj(w, nl, nn, nn - 1);
    MimDef *lbody = mim_app(w, ret_new, rarg);
    if (!lbody || !mim_lam_set(w, land, mim_lit_bool(w, false), lbody)) return false;
    MimDef *zero = mim_lit_int(w, 32, 0);
    MimDef *cmp_arg = mim_pair(w, mim_proj(w, sj, 2, 1), zero);
    MimDef *direct = mim_iapp(w, annex(cv, MIM_core_icmp_e), cmp_arg);
    MimDef *br_ops[2] = {land, body};
    MimDef *br = mim_tuple(w, br_ops, 2);
    MimDef *callee = direct ? mim_extract(w, br, direct) : NULL;
    MimDef *nbody = callee ? mim_app(w, callee, mim_proj(w, sj, 2, 0)) : NULL;
    return nbody && mim_lam_set(w, nl, mim_lit_bool(w, false), nbody);
}

/* The body of a unit's code: load the environment, then the old body with
 * the free definitions replaced by its components. */
static bool build_code(Conv *cv, Unit *u) {
    MimWorld *w = cv->w;
    MimDef *lam = u->lam, *nl = u->code;
    uint64_t n = clos_num_comps(w, mim_pi_dom(mim_def_type(lam)));
    uint64_t nn = clos_num_comps(w, mim_pi_dom(mim_def_type(nl)));
    name_params(cv, lam, nl, true);
    if (!u->fvs.len && u->direct) { /* forward to the direct copy */
        MimDef *args = old_var_repl(cv, nl, n, true, NULL);
        MimDef *call = mim_app(w, u->direct, args);
        return mim_lam_set(w, nl, mim_lit_bool(w, false), call) != NULL;
    }
    Ctx c = {.cv = cv, .u = u};
    MimDef *mem = NULL;
    if (unboxed(cv, u)) {
        MimDef *v = bitcast(cv, env_type(cv, u), mim_var_proj(w, nl, nn, 1));
        if (!v) return false;
        if (mim_def_name(u->fvs.data[0])) mim_def_set_name(v, mim_def_name(u->fvs.data[0]));
        mim_ptrmap_put(&c.subst, u->fvs.data[0], v);
    } else if (u->fvs.len) {
        MimDef *ET = env_type(cv, u);
        MimDef *envp = mim_var_proj(w, nl, nn, 1);
        MimDef *p = ET ? bitcast(cv, ptr_to(cv, ET), envp) : NULL;
        MimDef *ld_ops[2] = {mim_var_proj(w, nl, nn, 0), p};
        MimDef *ld_arg = p ? mim_tuple(w, ld_ops, 2) : NULL;
        MimDef *ld = ld_arg ? mim_iapp(w, annex(cv, MIM_mem_load), ld_arg) : NULL;
        if (!ld) return false;
        mem = mim_proj(w, ld, 2, 0);
        MimDef *env = mim_proj(w, ld, 2, 1);
        size_t l = u->linked, ne = u->fvs.len + l;
        for (size_t i = 0; i < u->fvs.len; i++) {
            MimDef *v = ne == 1 ? env : mim_proj(w, env, ne, i + l);
            if (mim_def_name(u->fvs.data[i])) mim_def_set_name(v, mim_def_name(u->fvs.data[i]));
            mim_ptrmap_put(&c.subst, u->fvs.data[i], v);
        }
    }
    MimDef *self_ops[2] = {nl, mim_var_proj(w, nl, nn, 1)};
    c.self = mim_tuple(w, self_ops, 2);
    bool ok = c.self && fill_fn(&c, lam, nl, true, mem);
    mim_ptrmap_free(&c.subst);
    mim_ptrmap_free(&c.blocks);
    mim_ptrmap_free(&c.frame);
    return ok;
}

/* The body of a closed returning unit's copy with its own (converted) type. */
static bool build_direct(Conv *cv, Unit *u) {
    Ctx c = {.cv = cv, .u = u};
    name_params(cv, u->lam, u->direct, false);
    bool ok = fill_fn(&c, u->lam, u->direct, false, NULL);
    mim_ptrmap_free(&c.subst);
    mim_ptrmap_free(&c.blocks);
    mim_ptrmap_free(&c.frame);
    return ok;
}

static bool conv_run(MimPhase *ph, MimWorld **wp) {
    (void)ph;
    MimWorld *w = *wp;
    Conv cv = {.w = w, .M = mim_annex(w, MIM_mem_M)};
    if (!cv.M) return false;
    MimDef *unit_ty = mim_unit_type(w);
    cv.env_ptr = ptr_to(&cv, unit_ty);
    find_units(&cv);
    if (!cv.failed && cv.dependent)
        fail(&cv, cv.dependent, "a function of a dependent type used as a value cannot be closure-converted");
    bool skip = !cv.needed; /* a first-order program stays as it is */
    if (!cv.failed && !skip) {
        find_escaping(&cv);
        plan_lists(&cv);
    }
    DefVec ext = {0}; /* the list of externals changes below */
    for (size_t i = 0, n = mim_world_num_externals(w); i < n; i++) mim_vec_push(&ext, mim_world_external(w, i));
    for (size_t i = 0; i < ext.len && !cv.failed && !skip; i++) {
        MimDef *e = ext.data[i];
        if (mim_def_node(e) != MIM_LAM) continue;
        if (!is_body_lam(e)) {
            conv_decl(&cv, e);
            continue;
        }
        Unit *u = mim_ptrmap_get(&cv.units, e);
        if (!u) continue; /* of a dependent type: left as it is */
        if (u->fvs.len) {
            fail(&cv, u->fvs.data[0], "an external function uses a variable of another function "
                                      "(e.g. through a dependent type)");
            break;
        }
        MimDef *nl = direct_of(&cv, u);
        if (!nl) break;
        mim_make_internal(w, e);
        mim_make_external(w, nl);
    }
    while (cv.todo.len && !cv.failed) {
        MimDef *nl = mim_vec_pop(&cv.todo);
        Unit *u = mim_ptrmap_get(&cv.todo_kind, nl);
        bool ok = nl == u->code ? build_code(&cv, u) : build_direct(&cv, u);
        if (!ok) cv.failed = true;
    }
    for (size_t i = 0; i < cv.unit_list.len; i++) unit_free(cv.unit_list.data[i]);
    mim_vec_free(&cv.unit_list);
    mim_vec_free(&cv.todo);
    mim_vec_free(&ext);
    mim_ptrmap_free(&cv.todo_kind);
    mim_ptrmap_free(&cv.types);
    mim_ptrmap_free(&cv.units);
    mim_ptrmap_free(&cv.decls);
    mim_ptrmap_free(&cv.decl_code);
    mim_ptrmap_free(&cv.sjlj);
    mim_ptrmap_free(&cv.known);
    mim_ptrmap_free(&cv.escaping);
    if (cv.failed && !mim_world_has_error(w))
        mim_diag_report(mim_world_diag(w), MIM_ERROR, mim_world_loc(w), "clos: closure conversion failed");
    return !cv.failed && !mim_world_has_error(w);
}

static const MimPhaseClass clos_conv_class = {
    .name = "clos_conv", .size = sizeof(MimPhase), .dirty = true, .run = conv_run};

bool clos_handle_clos_conv(MimPipeline *pb, MimDef *app) {
    (void)app;
    return mim_pipeline_add_phase(pb, &clos_conv_class) != NULL;
}
