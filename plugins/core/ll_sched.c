/* Per-function analysis of the `ll` back end (ll-backend.md §4): the blocks
 * of a function (the non-returning lambdas reachable from its body without
 * passing through another function), the CFG from the terminators, reverse
 * post-order, dominators (Cooper–Harvey–Kennedy) and the placement of every
 * instruction in a block.
 *
 * Placement (docs/ll-backend.md §3): an operation with a memory operand
 * ("effect") goes to the block whose memory chain — followed backwards from
 * the terminator's memory arguments — reaches it (the dominator-tree LCA if
 * several do); any other operation goes to the deepest block among those of
 * its operands ("as early as possible", so loop-invariant code lands before
 * the loop; clang -O moves code further). Every operand must dominate its
 * use; otherwise the program is rejected with the usual error. */
#include "ll_impl.h"
#include "mim/plugin/clos.h"
#include "mim/plugin/mem.h"

#include <stdlib.h>
#include <string.h>

static int add_block(LL *ll, MimDef *lam) {
    mim_vec_reserve(&ll->blocks, ll->blocks.len + 1);
    int idx = (int)ll->blocks.len++;
    LLBlock *b = &ll->blocks.data[idx];
    memset(b, 0, sizeof *b);
    b->lam = lam;
    b->label = ll_name(ll, lam);
    MimDef *dom = ll_dom(ll_typeof(lam));
    b->split = idx == 0 ? ll_fn_comps(dom, &b->ncomp, &b->comp, &b->inner)
                        : ll_domain_comps(dom, &b->ncomp, &b->comp);
    b->param = calloc(b->ncomp, sizeof *b->param);
    b->incoming = calloc(b->ncomp, sizeof *b->incoming);
    if (!b->param || !b->incoming) abort();
    b->rpo = -1;
    b->idom = -1;
    ll_info(ll, lam)->block = idx;
    return idx;
}

void ll_fn_free(LL *ll) {
    for (size_t i = 0; i < ll->blocks.len; ++i) {
        LLBlock *b = &ll->blocks.data[i];
        for (size_t j = 0; j < b->ncomp; ++j) mim_vec_free(&b->incoming[j]);
        free(b->incoming), free(b->param), free(b->comp);
        mim_vec_free(&b->succ), mim_vec_free(&b->pred);
        mim_vec_free(&b->nodes);
        mim_vec_free(&b->body);
    }
    ll->blocks.len = 0;
    free(ll->order);
    ll->order = NULL;
    ll->norder = 0;
    mim_vec_free(&ll->allocas);
    mim_vec_free(&ll->stubs);
    mim_vec_free(&ll->effects);
    ll->copy_keys.len = ll->copy_vals.len = ll->copy_blocks.len = 0;
}

int ll_block_of(LL *ll, MimDef *lam) {
    if (!lam || mim_def_node(lam) != MIM_LAM) return -1;
    return ll_info(ll, lam)->block;
}

/* ---- discovery ---------------------------------------------------------------- */
/* Type 1, Type 2, … or Univ: the type of a type-level tuple like (I32, 0). */
static bool is_kind(const MimDef *t) {
    uint64_t l;
    if (!t) return true;
    if (mim_def_node(t) == MIM_UNIV) return true;
    return mim_def_node(t) == MIM_TYPE && (!mim_def_lit(ll_op(t, 0), &l) || l >= 1);
}

static bool is_type_level(const MimDef *d) {
    switch (mim_def_node(d)) {
    case MIM_TYPE: case MIM_UNIV: case MIM_UMAX: case MIM_UINC: case MIM_PI: case MIM_SIGMA:
    case MIM_ARR: case MIM_NAT: case MIM_IDX: case MIM_AXIOM: case MIM_LIT: case MIM_BOT:
    case MIM_TOP: case MIM_JOIN: case MIM_MEET: return true;
    default: break;
    }
    MimDef *t = ll_typeof(d);
    return !t || mim_def_node(t) == MIM_TYPE || mim_def_node(t) == MIM_UNIV || is_kind(ll_typeof(t));
}

static void discover(LL *ll, MimDef *d) {
    if (!d) return;
    LLInfo *i = ll_info(ll, d);
    if (i->seen) return;
    i->seen = 1;
    if (mim_def_node(d) == MIM_LAM) {
        if (d == ll->cur) return;
        if (ll_is_fn_lam(d)) {
            ll_enqueue_fn(ll, d);
            return;
        }
        if (!mim_def_is_mut(d) || !mim_def_is_set(d) || !ll_body(d)) return; /* rejected on use */
        add_block(ll, d);
        discover(ll, ll_body(d));
        return;
    }
    if (mim_def_node(d) == MIM_VAR || is_type_level(d)) return;
    for (size_t k = 0, n = mim_def_num_ops(d); k < n; ++k) discover(ll, ll_op(d, k));
}

/* ---- terminators ------------------------------------------------------------ */
bool ll_param_ref(LL *ll, MimDef *d, int *b, size_t *j) {
    MimDef *var = d;
    uint64_t idx = 0, outer = 0;
    bool nested = false;
    if (mim_def_node(d) == MIM_EXTRACT) {
        var = ll_op(d, 0);
        if (!mim_def_lit(ll_op(d, 1), &idx)) return false;
        if (mim_def_node(var) == MIM_EXTRACT) { /* var#0#j of a flattened function domain */
            if (!mim_def_lit(ll_op(var, 1), &outer) || outer != 0) return false;
            var = ll_op(var, 0);
            nested = true;
        }
        if (mim_def_node(var) != MIM_VAR) return false;
    } else if (mim_def_node(d) != MIM_VAR) {
        return false;
    }
    MimDef *binder = ll_op(var, 0);
    int blk = ll_block_of(ll, binder);
    if (blk < 0) return false;
    LLBlock *bb = &ll->blocks.data[blk];
    if (nested) {
        if (!bb->inner || idx >= bb->inner) return false;
    } else if (bb->inner) {
        if (mim_def_node(d) != MIM_EXTRACT || idx != 1) return false; /* var#0: the inner tuple */
        idx = bb->inner;
    } else if (mim_def_node(d) == MIM_EXTRACT) {
        if (!bb->split || idx >= bb->ncomp) return false;
    } else if (bb->split) {
        return false;
    }
    *b = blk;
    *j = (size_t)idx;
    return true;
}

bool ll_is_ret(LL *ll, MimDef *d) {
    int b;
    size_t j;
    return ll_param_ref(ll, d, &b, &j) && b == 0 && j + 1 == ll->blocks.data[0].ncomp;
}

bool ll_classify(LL *ll, MimDef *body, LLTerm *t) {
    memset(t, 0, sizeof *t);
    if (!body || mim_def_node(body) != MIM_APP) {
        ll_error(ll, body, "the body of a continuation must be an application");
        return false;
    }
    t->callee = ll_callee(body);
    t->arg = ll_app_arg(body);
    MimDef *c = t->callee;
    if (ll_is_ret(ll, c)) {
        t->kind = LL_T_RET;
        return true;
    }
    if (mim_def_node(c) == MIM_BOT) {
        t->kind = LL_T_UNREACHABLE;
        return true;
    }
    if (mim_def_node(c) == MIM_AXIOM && mim_axiom_id(c) == MIM_clos_longjmp) {
        t->kind = LL_T_LONGJMP;
        return true;
    }
    if (mim_def_node(c) == MIM_LAM && c != ll->cur && ll_block_of(ll, c) >= 0) {
        t->kind = LL_T_JUMP;
        return true;
    }
    if (mim_def_node(c) == MIM_EXTRACT && mim_def_node(ll_op(c, 0)) == MIM_TUPLE) {
        MimDef *tup = ll_op(c, 0);
        bool all = mim_def_num_ops(tup) >= 2;
        for (size_t i = 0, n = mim_def_num_ops(tup); i < n && all; ++i) {
            MimDef *target = ll_op(tup, i);
            all = ll_is_ret(ll, target) || (target != ll->cur && ll_block_of(ll, target) >= 0);
        }
        if (all) {
            t->kind = LL_T_BRANCH;
            return true;
        }
    }
    MimDef *pi = ll_typeof(c);
    if (ll_ret_pi(pi)) {
        t->kind = LL_T_CALL;
        size_t n;
        MimDef **comps;
        bool split = ll_domain_comps(ll_dom(pi), &n, &comps);
        free(comps);
        t->k = !split ? t->arg : mim_def_node(t->arg) == MIM_TUPLE ? ll_op(t->arg, n - 1) : NULL;
        if (!t->k && mim_def_node(t->arg) == MIM_VAR && ll_op(t->arg, 0) == ll->cur &&
            ll_typeof(t->arg) == ll_dom(pi)) {
            t->own_args = true;
            return true;
        }
        if (!t->k) {
            ll_error(ll, body, "the return continuation of a call must be given explicitly");
            return false;
        }
        if (mim_def_node(t->k) == MIM_BOT) return true;
        if (ll_is_ret(ll, t->k)) return true;
        if (t->k != ll->cur && ll_block_of(ll, t->k) >= 0) return true;
        ll_error(ll, t->k, "the return continuation of a call must be a basic block, the caller's return "
                           "continuation or ⊥");
        return false;
    }
    if (mim_def_node(c) == MIM_LAM && (!mim_def_is_set(c) || !ll_body(c)) && mim_def_node(pi) == MIM_PI) {
        t->kind = LL_T_CCALL; /* a foreign continuation (ccon): call, never returns */
        ll_enqueue_fn(ll, c);
        return true;
    }
    ll_error(ll, body, "callee is neither a basic block, a branch, a function nor the return continuation");
    return false;
}

static void add_edge(LL *ll, int from, int to) {
    LLBlock *a = &ll->blocks.data[from], *b = &ll->blocks.data[to];
    mim_vec_push(&a->succ, to);
    mim_vec_push(&b->pred, from);
}

static bool build_cfg(LL *ll) {
    for (size_t i = 0; i < ll->blocks.len && ll->ok; ++i) {
        LLTerm t;
        if (!ll_classify(ll, ll_body(ll->blocks.data[i].lam), &t)) return false;
        switch (t.kind) {
        case LL_T_JUMP: add_edge(ll, (int)i, ll_block_of(ll, t.callee)); break;
        case LL_T_BRANCH: {
            MimDef *tup = ll_op(t.callee, 0);
            for (size_t k = 0, n = mim_def_num_ops(tup); k < n; ++k) {
                int to = ll_is_ret(ll, ll_op(tup, k)) ? -1 : ll_block_of(ll, ll_op(tup, k));
                if (to >= 0) add_edge(ll, (int)i, to); /* a return target is a stub of this block */
            }
            break;
        }
        case LL_T_CALL: {
            int k = t.k && mim_def_node(t.k) == MIM_LAM ? ll_block_of(ll, t.k) : -1;
            if (k >= 0) add_edge(ll, (int)i, k);
            break;
        }
        default: break;
        }
    }
    return ll->ok;
}

/* Iterative DFS post-order, then reversed. */
static void compute_rpo(LL *ll) {
    size_t n = ll->blocks.len;
    int *post = malloc(n * sizeof *post), *stack = malloc(n * sizeof *stack);
    size_t *next = calloc(n, sizeof *next);
    char *seen = calloc(n, 1);
    if (!post || !stack || !next || !seen) abort();
    size_t np = 0, sp = 0;
    stack[sp++] = 0;
    seen[0] = 1;
    while (sp) {
        int b = stack[sp - 1];
        LLBlock *bb = &ll->blocks.data[b];
        if (next[b] < bb->succ.len) {
            int s = bb->succ.data[next[b]++];
            if (!seen[s]) {
                seen[s] = 1;
                stack[sp++] = s;
            }
        } else {
            post[np++] = b;
            --sp;
        }
    }
    ll->order = malloc((np ? np : 1) * sizeof *ll->order);
    if (!ll->order) abort();
    ll->norder = np;
    for (size_t i = 0; i < np; ++i) {
        ll->order[i] = post[np - 1 - i];
        ll->blocks.data[ll->order[i]].rpo = (int)i;
    }
    free(post), free(stack), free(next), free(seen);
}

static int intersect(LL *ll, int a, int b) {
    while (a != b) {
        while (ll->blocks.data[a].rpo > ll->blocks.data[b].rpo) a = ll->blocks.data[a].idom;
        while (ll->blocks.data[b].rpo > ll->blocks.data[a].rpo) b = ll->blocks.data[b].idom;
    }
    return a;
}

static void compute_dominators(LL *ll) {
    ll->blocks.data[0].idom = 0;
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 1; i < ll->norder; ++i) {
            int b = ll->order[i];
            LLBlock *bb = &ll->blocks.data[b];
            int idom = -1;
            for (size_t k = 0; k < bb->pred.len; ++k) {
                int p = bb->pred.data[k];
                if (ll->blocks.data[p].rpo < 0 || ll->blocks.data[p].idom < 0) continue;
                idom = idom < 0 ? p : intersect(ll, p, idom);
            }
            if (idom != bb->idom) {
                bb->idom = idom;
                changed = true;
            }
        }
    }
    for (size_t i = 0; i < ll->norder; ++i) {
        int b = ll->order[i];
        ll->blocks.data[b].depth = b == 0 ? 0 : ll->blocks.data[ll->blocks.data[b].idom].depth + 1;
    }
}

bool ll_dominates(LL *ll, int a, int b) {
    if (a < 0) return true;
    if (b < 0 || ll->blocks.data[b].rpo < 0 || ll->blocks.data[a].rpo < 0) return false;
    while (ll->blocks.data[b].depth > ll->blocks.data[a].depth) b = ll->blocks.data[b].idom;
    return a == b;
}

static int lca(LL *ll, int a, int b) {
    while (ll->blocks.data[a].depth > ll->blocks.data[b].depth) a = ll->blocks.data[a].idom;
    while (ll->blocks.data[b].depth > ll->blocks.data[a].depth) b = ll->blocks.data[b].idom;
    while (a != b) a = ll->blocks.data[a].idom, b = ll->blocks.data[b].idom;
    return a;
}

/* ---- natural loops ----------------------------------------------------------- */
bool ll_loop_header(LL *ll, int h) {
    const LLBlock *hb = &ll->blocks.data[h];
    for (size_t j = 0; j < hb->pred.len; ++j)
        if (ll_dominates(ll, h, hb->pred.data[j])) return true; /* a back edge */
    return false;
}

enum { LOOP_STEPS = 1 << 14 }; /* predecessor edges looked at per loop */

size_t ll_loop_blocks(LL *ll, int h, int *mark, int *list) {
    size_t n = 0, steps = 0;
    mark[h] = h + 1;
    list[n++] = h;
    for (size_t next = 0; next < n; ++next) { /* list[next..n) are yet to be walked */
        LLBlock *bb = &ll->blocks.data[list[next]];
        for (size_t k = 0; k < bb->pred.len; ++k) {
            int p = bb->pred.data[k];
            if (++steps > LOOP_STEPS) return 0;
            if (mark[p] == h + 1 || !ll_dominates(ll, h, p)) continue;
            mark[p] = h + 1;
            list[n++] = p;
        }
    }
    return n;
}

/* ---- placement ------------------------------------------------------------------ */
/* Memory chain of block b: every effect whose memory result flows into the
 * memory arguments of b's terminator without passing a variable. */
static void walk_chain(LL *ll, MimDef *d, int b) {
    if (!d || !ll_has_mem(ll_typeof(d))) return;
    switch (mim_def_node(d)) {
    case MIM_EXTRACT: walk_chain(ll, ll_op(d, 0), b); return;
    case MIM_TUPLE:
        for (size_t i = 0, n = mim_def_num_ops(d); i < n; ++i) walk_chain(ll, ll_op(d, i), b);
        return;
    case MIM_APP: {
        if (!mim_app_axiom(d) || mim_app_curry(d) != 0) return;
        LLInfo *i = ll_info(ll, d);
        if (i->chain == b) return;
        i->chain = b;
        if (!i->effect) mim_vec_push(&ll->effects, d);
        i->place = i->effect ? lca(ll, i->place, b) : b;
        i->effect = 1;
        for (size_t k = 0, n = mim_app_num_args(d); k < n; ++k) walk_chain(ll, ll_arg(d, k), b);
        return;
    }
    default: return;
    }
}

/* Effects whose values are used: the memory chains place an effect where
 * its memory result is consumed, but its value may be needed earlier (a
 * load whose memory goes to the return block of a call that takes the
 * loaded value). Such an effect is hoisted to the dominator-tree LCA of its
 * placement and the use, together with what it needs (its memory
 * predecessors and operands). */
static void hoist(LL *ll, MimDef *e, int b);

/* The effects that value d needs must be placed in blocks dominating b. */
static void need_at(LL *ll, MimDef *d, int b) {
    if (!d || !ll->ok || mim_def_node(d) == MIM_LAM || mim_def_node(d) == MIM_VAR || is_type_level(d)) return;
    LLInfo *i = ll_info(ll, d);
    if (i->effect) {
        if (!ll_dominates(ll, i->place, b)) hoist(ll, d, b);
        return;
    }
    if (i->need == b) return;
    i->need = b;
    for (size_t k = 0, n = mim_def_num_ops(d); k < n; ++k) need_at(ll, ll_op(d, k), b);
}

static void hoist(LL *ll, MimDef *e, int b) {
    LLInfo *i = ll_info(ll, e);
    int p = lca(ll, i->place, b);
    if (p == i->place) return;
    i->place = p;
    for (size_t k = 0, n = mim_def_num_ops(e); k < n; ++k) need_at(ll, ll_op(e, k), p);
}

/* Every value use: the terminators' operands and the effects' operands. */
static void hoist_effects(LL *ll) {
    for (size_t k = 0; k < ll->effects.len && ll->ok; ++k) {
        MimDef *e = ll->effects.data[k];
        int p = ll_info(ll, e)->place;
        for (size_t j = 0, n = mim_def_num_ops(e); j < n; ++j) need_at(ll, ll_op(e, j), p);
    }
    for (size_t k = 0; k < ll->norder && ll->ok; ++k) {
        int b = ll->order[k];
        LLTerm t;
        if (!ll_classify(ll, ll_body(ll->blocks.data[b].lam), &t)) return;
        need_at(ll, t.arg, b);
        if (t.kind == LL_T_BRANCH) need_at(ll, ll_op(t.callee, 1), b);
        if (t.kind == LL_T_CALL && mim_def_node(t.callee) != MIM_LAM) need_at(ll, t.callee, b);
    }
}

static int place(LL *ll, MimDef *d);

/* Deepest placement among a and b (they must be on one dominator-tree path). */
static int deeper(LL *ll, MimDef *use, int a, int b) {
    if (a < 0) return b;
    if (b < 0) return a;
    if (ll_dominates(ll, a, b)) return b;
    if (ll_dominates(ll, b, a)) return a;
    ll_error(ll, use, "operands from blocks that do not dominate one another");
    return a;
}

/* Placement of an operand: tuples and packs are looked through (their
 * components are used directly by the instructions that take them apart;
 * a whole aggregate is built on demand where it is used). */
static int place_operand(LL *ll, MimDef *use, MimDef *d) {
    if (d && (mim_def_node(d) == MIM_TUPLE || (mim_def_node(d) == MIM_PACK && !mim_def_is_mut(d)))) {
        int p = LL_PLACE_NONE;
        for (size_t i = 0, n = mim_def_num_ops(d); i < n; ++i) p = deeper(ll, use, p, place_operand(ll, use, ll_op(d, i)));
        return p;
    }
    return place(ll, d);
}

static int place(LL *ll, MimDef *d) {
    if (!d || !ll->ok) return LL_PLACE_NONE;
    LLInfo *i = ll_info(ll, d);
    if (i->place != LL_PLACE_UNSET && !(i->effect && !i->emitted)) return i->place;
    if (i->visiting) return i->place == LL_PLACE_UNSET ? LL_PLACE_NONE : i->place;
    if (i->effect) i->emitted = 1; /* effect: operands are placed once (flag reused before emission) */
    if (is_type_level(d) || mim_def_node(d) == MIM_LAM) {
        i->place = LL_PLACE_NONE;
        return i->place;
    }
    /* part of a dependent pack's body: computed for each element where the
     * pack is emitted (ll_comp), after the operands that do not depend on
     * the pack's variable */
    MimDef *pd = ll_pack_dep(ll, d);
    if (pd == LL_PDEP_MANY) {
        ll_error(ll, d, "a value depending on the variables of several nested packs");
        return LL_PLACE_NONE;
    }
    if (pd && mim_def_node(d) == MIM_VAR) {
        i->place = LL_PLACE_NONE;
        return i->place;
    }
    int pb;
    size_t pj;
    if (ll_is_ret(ll, d)) { /* the return continuation: only used by terminators */
        i->place = LL_PLACE_NONE;
        return i->place;
    }
    if (ll_param_ref(ll, d, &pb, &pj)) { /* a parameter or phi: available in its block */
        i->place = pb;
        mim_vec_push(&ll->blocks.data[pb].nodes, d);
        return pb;
    }
    uint64_t k;
    if (mim_def_node(d) == MIM_EXTRACT && mim_def_node(ll_op(d, 0)) == MIM_VAR &&
        ll_op(ll_op(d, 0), 0) == ll->cur && ll->blocks.data[0].inner && mim_def_lit(ll_op(d, 1), &k) &&
        k == 0) {
        i->place = 0; /* the parameter tuple of a flattened domain: assembled where used (ll_val) */
        return 0;
    }
    if (mim_def_node(d) == MIM_VAR) {
        int b = ll_block_of(ll, ll_op(d, 0));
        if (b < 0 || ll->blocks.data[b].rpo < 0) {
            ll_error(ll, d, "variable of a lambda outside the function (the function is not closed)");
            b = LL_PLACE_NONE;
        }
        i->place = b; /* a whole tuple variable is assembled where it is used (ll_val) */
        return b;
    }
    i->visiting = 1;
    int p = LL_PLACE_NONE;
    if (mim_def_node(d) == MIM_APP) {
        if (!mim_app_axiom(d) || mim_app_curry(d) != 0) {
            ll_error(ll, d, "a call in value position (direct style) or a partial application");
            i->visiting = 0;
            return LL_PLACE_NONE;
        }
        for (size_t k = 0, n = mim_app_num_args(d); k < n; ++k)
            p = deeper(ll, d, p, place_operand(ll, d, ll_arg(d, k)));
    } else if (mim_def_node(d) == MIM_TUPLE) {
        p = place_operand(ll, d, d);
    } else {
        for (size_t k = 0, n = mim_def_num_ops(d); k < n; ++k)
            p = deeper(ll, d, p, place_operand(ll, d, ll_op(d, k)));
    }
    i->visiting = 0;
    if (pd && !i->effect) {
        i->place = p;
        return p;
    }
    if (i->effect) {
        if (!ll_dominates(ll, p, i->place)) ll_error(ll, d, "operand does not dominate the memory effect");
        p = i->place;
    } else if (p < 0) {
        if (ll_const(ll, d)) {
            i->place = LL_PLACE_NONE;
            return i->place;
        }
        p = 0; /* an operation on constants only */
    }
    i->place = p;
    mim_vec_push(&ll->blocks.data[p].nodes, d);
    return p;
}

/* The operands of block b's terminator. */
static void place_terminator(LL *ll, int b) {
    LLTerm t;
    if (!ll_classify(ll, ll_body(ll->blocks.data[b].lam), &t)) return;
    walk_chain(ll, t.arg, b);
    int p = LL_PLACE_NONE;
    MimDef *body = ll_body(ll->blocks.data[b].lam);
    if (t.kind == LL_T_BRANCH) p = deeper(ll, body, p, place(ll, ll_op(t.callee, 1)));
    if (t.kind == LL_T_CALL && mim_def_node(t.callee) != MIM_LAM) p = deeper(ll, body, p, place(ll, t.callee));
    p = deeper(ll, body, p, place_operand(ll, body, t.arg));
    if (!ll_dominates(ll, p, b)) ll_error(ll, body, "an argument is not available in this block");
}

bool ll_schedule(LL *ll) {
    add_block(ll, ll->cur);
    discover(ll, ll_body(ll->cur));
    if (!ll->ok || !build_cfg(ll)) return false;
    compute_rpo(ll);
    compute_dominators(ll);
    for (size_t k = 0; k < ll->norder && ll->ok; ++k) {
        int b = ll->order[k];
        LLTerm t;
        if (!ll_classify(ll, ll_body(ll->blocks.data[b].lam), &t)) return false;
        walk_chain(ll, t.arg, b);
    }
    hoist_effects(ll);
    for (size_t k = 0; k < ll->norder && ll->ok; ++k) place_terminator(ll, ll->order[k]);
    /* the emitted flag served as "operands placed" for effects */
    for (size_t k = 0; k < ll->blocks.len; ++k)
        for (size_t i = 0; i < ll->blocks.data[k].nodes.len; ++i) ll_info(ll, ll->blocks.data[k].nodes.data[i])->emitted = 0;
    if (ll->ok) ll_range_prepare(ll);
    if (ll->ok) ll_sink(ll);
    return ll->ok;
}
