/* No-wrap flags of the `ll` back end (docs/ll-backend.md §3, "No-wrap
 * flags"): a small range analysis that proves a `%core.wrap` operation of
 * mode 0 cannot wrap wherever its result is used, so that the LLVM
 * instruction may carry `nsw`/`nuw` (LLVM then widens loop counters and
 * index sums to 64 bits as it does for C's `int`).
 *
 * Why a flag is legal. With `nsw`/`nuw` a wrapping operation yields poison
 * instead of the wrapped value; poison is harmless until it is observed (a
 * branch, an address, a memory operation, a call, a phi that is then
 * observed, ...). The analysis therefore asks for the value ranges of the
 * operands at the *latest* block that every use of the result is in (the
 * dominator-tree LCA of the use blocks, looking through pure operations,
 * which only pass poison on — not through a run-time index into an
 * aggregate, a load where it is placed): wherever the result is observed,
 * the operands
 * lie in the ranges found there, and the exact sum of the ranges fits the
 * width, so the operation did not wrap. Ranges come from
 *   - literals;
 *   - the conditions of dominating branches: a block whose only predecessor
 *     ends in `(f, t)#c` knows c (or ¬c) — `%core.icmp` against a value of
 *     known range, and `bit2.and_` of such conditions;
 *   - loop parameters by induction: every incoming value is a literal, a
 *     value of known range, the parameter itself, or the parameter plus a
 *     literal step that is shown not to wrap at the jumping block by that
 *     block's branch conditions (`i + 1` where `i <s n` holds);
 *   - interval arithmetic on wrap/extrema/shr operations that provably do not
 *     wrap.
 * Only Idx sizes 2^8, 2^16 and 2^32 are analysed (intervals in int64 are
 * exact there); other sizes keep mode 0. Everything is conservative: an
 * unknown value has the full range of its width. */
#include "ll_impl.h"
#include "mim/plugin/mem.h"

#include <stdlib.h>

/* Bounds of one query: recursion depth, dominating conditions looked at
 * per value, and ranges computed in all (beyond which values count as
 * unknown), so that a function with many conditions stays linear. */
enum { RANGE_DEPTH = 4, FACT_STEPS = 16, RANGE_STEPS = 64 };

typedef struct Range {
    int64_t lo, hi;
} Range;

/* ---- late blocks ---------------------------------------------------------- */
bool ll_no_value(const MimDef *d) {
    switch (mim_def_node(d)) {
    case MIM_LAM: case MIM_TYPE: case MIM_UNIV: case MIM_PI: case MIM_SIGMA: case MIM_ARR: case MIM_NAT:
    case MIM_IDX: case MIM_AXIOM: case MIM_LIT: case MIM_BOT: case MIM_TOP: return true;
    default: return false;
    }
}

/* Dominator-tree LCA of a and b; after LCA_STEPS steps up the tree the
 * entry block (which dominates every use: no facts, so conservative), so
 * that a value used all along a long chain of blocks costs linear time. */
enum { LCA_STEPS = 256 };

int ll_lca(LL *ll, int a, int b) {
    if (a < 0) return b;
    if (b < 0) return a;
    int steps = 0;
    while (ll->blocks.data[a].depth > ll->blocks.data[b].depth && steps++ < LCA_STEPS) a = ll->blocks.data[a].idom;
    while (ll->blocks.data[b].depth > ll->blocks.data[a].depth && steps++ < LCA_STEPS) b = ll->blocks.data[b].idom;
    while (a != b && steps++ < LCA_STEPS) a = ll->blocks.data[a].idom, b = ll->blocks.data[b].idom;
    return a == b ? a : 0;
}

/* d is used in block blk. A placed node records it (its operands are noted
 * when it is visited in the sweep); an unplaced one (a tuple looked
 * through, an extract of a branch, a node of a dependent pack's body, which
 * is computed where it is used) passes the use on to its operands. */
static void note_use(LL *ll, MimDef *d, int blk) {
    if (!d || blk < 0 || ll_no_value(d)) return;
    LLInfo *i = ll_info(ll, d);
    if (i->nuses < UINT32_MAX) ++i->nuses;
    int l = ll_lca(ll, i->late, blk);
    if (i->late >= 0 && l == i->late) return;
    i->late = l;
    /* a node of a dependent pack's body has a place but is in no block's
     * list (it is computed where the pack is emitted): the sweep does not
     * reach its operands, so the use passes on here */
    if (i->place >= 0 && !ll_pack_dep(ll, d)) return;
    for (size_t k = 0, n = mim_def_num_ops(d); k < n; ++k) note_use(ll, ll_op(d, k), l);
}

/* A pure node whose instructions observe its operands where it is placed:
 * a run-time index into an aggregate is a load or store through an
 * address computed from the index (an alloca or a constant global), which
 * must not be poison. */
bool ll_loads_at(const MimDef *d) {
    MimNode k = mim_def_node(d);
    return (k == MIM_EXTRACT || k == MIM_INSERT) && !mim_def_lit(ll_op(d, 1), NULL);
}

/* Late block of every placed node: the LCA of its uses, where the uses of a
 * pure node count at the node's own late block (it only passes poison on)
 * and those of a memory effect or terminator at its block. A node without
 * a use seen here keeps its placement. */
static void compute_late(LL *ll) {
    for (size_t k = 0; k < ll->norder; ++k) {
        int b = ll->order[k];
        MimDef *body = ll_body(ll->blocks.data[b].lam);
        for (size_t j = 0, n = body ? mim_def_num_ops(body) : 0; j < n; ++j) note_use(ll, ll_op(body, j), b);
    }
    for (size_t k = ll->norder; k-- > 0;) {
        LLVec *nodes = &ll->blocks.data[ll->order[k]].nodes;
        for (size_t j = nodes->len; j-- > 0;) {
            MimDef *d = nodes->data[j];
            LLInfo *i = ll_info(ll, d);
            if (i->late < 0 || i->effect || ll_loads_at(d)) i->late = i->place;
            int at = i->late;
            for (size_t o = 0, n = mim_def_num_ops(d); o < n; ++o) note_use(ll, ll_op(d, o), at);
        }
    }
}

/* ---- branch facts ------------------------------------------------------------ */
static unsigned width_of(LL *ll, MimDef *d);
static bool pair_of(MimDef *app, MimDef **a, MimDef **b);
static uint64_t core_id(MimDef *d, uint64_t base);
static uint64_t negated(uint64_t rel);

/* Block t knows its branch condition if its only predecessor ends in a
 * two-way branch with t as exactly one target. fact_up: the nearest block
 * on t's dominator-tree path (t included) that knows a condition. */
static void compute_facts(LL *ll) {
    for (size_t k = 0; k < ll->norder; ++k) {
        int b = ll->order[k];
        LLBlock *bb = &ll->blocks.data[b];
        bb->fact = NULL;
        bb->fact_up = k == 0 ? -1 : ll->blocks.data[bb->idom].fact_up;
        if (k == 0 || bb->pred.len != 1) continue;
        LLTerm t;
        if (!ll_classify(ll, ll_body(ll->blocks.data[bb->pred.data[0]].lam), &t) || t.kind != LL_T_BRANCH) continue;
        MimDef *tup = ll_op(t.callee, 0);
        if (mim_def_num_ops(tup) != 2) continue;
        int f = ll_block_of(ll, ll_op(tup, 0)), tr = ll_block_of(ll, ll_op(tup, 1));
        if (f == tr || (f != b && tr != b)) continue;
        bb->fact = ll_op(t.callee, 1);
        bb->fact_true = tr == b;
        bb->fact_up = b;
        bb->frel = 0;
        MimDef *x, *y;
        uint64_t id = core_id(bb->fact, MIM_core_icmp);
        if (id && pair_of(bb->fact, &x, &y) && width_of(ll, x)) { /* decoded once: facts() is hot */
            bb->frel = bb->fact_true ? id : negated(id);
            bb->fa = x;
            bb->fb = y;
        }
    }
}

/* Does any instruction of the function ask for ranges or uses (a wrap
 * operation or an address)? Most functions of large generated inputs
 * have none, and then the analysis is skipped (queries answer "unknown"). */
static bool wants_ranges(LL *ll) {
    for (size_t k = 0; k < ll->norder; ++k) {
        LLVec *nodes = &ll->blocks.data[ll->order[k]].nodes;
        for (size_t j = 0; j < nodes->len; ++j)
            if (mim_def_node(nodes->data[j]) == MIM_APP &&
                (mim_match_annex(nodes->data[j], MIM_core_wrap) || mim_match_annex(nodes->data[j], MIM_mem_lea)))
                return true;
    }
    return false;
}

static void mark_small_loops(LL *ll);

void ll_range_prepare(LL *ll) {
    if (!wants_ranges(ll)) return; /* a counted loop's step is a wrap operation */
    compute_facts(ll);
    compute_late(ll);
    mark_small_loops(ll);
}

/* ---- ranges -------------------------------------------------------------------- */
/* Analysed widths: the Idx sizes 2^8, 2^16, 2^32. */
static unsigned width_of(LL *ll, MimDef *d) {
    uint64_t s;
    MimDef *t = ll_typeof(d);
    if (!t || !core_idx_lit_size(ll->w, t, &s)) return 0;
    return s == 1ull << 8 ? 8 : s == 1ull << 16 ? 16 : s == 1ull << 32 ? 32 : 0;
}

static Range full(unsigned w) { return (Range){-((int64_t)1 << (w - 1)), ((int64_t)1 << (w - 1)) - 1}; }
static bool fits(Range r, unsigned w) { return r.lo >= full(w).lo && r.hi <= full(w).hi; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static bool signed_lit(const MimDef *d, unsigned w, int64_t *v) {
    uint64_t u;
    if (!mim_def_lit(d, &u)) return false;
    *v = u >= (1ull << (w - 1)) ? (int64_t)u - ((int64_t)1 << w) : (int64_t)u;
    return true;
}

/* The operand pair of a binary core call, if it is a literal tuple. */
static bool pair_of(MimDef *app, MimDef **a, MimDef **b) {
    MimDef *p = ll_arg(app, mim_app_num_args(app) - 1);
    if (!p || mim_def_node(p) != MIM_TUPLE || mim_def_num_ops(p) != 2) return false;
    *a = ll_op(p, 0);
    *b = ll_op(p, 1);
    return true;
}

static uint64_t core_id(MimDef *d, uint64_t base) {
    if (mim_def_node(d) != MIM_APP || mim_app_curry(d) != 0 || !mim_match_annex(d, base)) return 0;
    return mim_axiom_id(mim_app_axiom(d));
}

/* Exact result interval of a + b, a − b, a · b (int64 is exact: w ≤ 32). */
static Range arith(unsigned op, Range a, Range b) {
    if (op == 0) return (Range){a.lo + b.lo, a.hi + b.hi};
    if (op == 1) return (Range){a.lo - b.hi, a.hi - b.lo};
    int64_t c[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
    Range r = {c[0], c[0]};
    for (int k = 1; k < 4; ++k) r.lo = min64(r.lo, c[k]), r.hi = max64(r.hi, c[k]);
    return r;
}

static Range range_at(LL *ll, MimDef *x, unsigned w, int blk, int depth);

/* x rel y (rel an icmp subtag id) holds: narrow r, the range of x. */
static Range narrow(LL *ll, Range r, uint64_t rel, MimDef *y, unsigned w, int blk, int depth) {
    Range ry = range_at(ll, y, w, blk, depth);
    if (rel == MIM_core_icmp_sl) r.hi = min64(r.hi, ry.hi - 1);
    else if (rel == MIM_core_icmp_sle) r.hi = min64(r.hi, ry.hi);
    else if (rel == MIM_core_icmp_sg) r.lo = max64(r.lo, ry.lo + 1);
    else if (rel == MIM_core_icmp_sge) r.lo = max64(r.lo, ry.lo);
    else if (rel == MIM_core_icmp_e) r.lo = max64(r.lo, ry.lo), r.hi = min64(r.hi, ry.hi);
    else if ((rel == MIM_core_icmp_ul || rel == MIM_core_icmp_ule) && ry.lo >= 0) {
        /* unsigned below a non-negative bound: 0 ≤ x ≤ bound */
        r.lo = max64(r.lo, 0);
        r.hi = min64(r.hi, rel == MIM_core_icmp_ul ? ry.hi - 1 : ry.hi);
    }
    return r;
}

/* The relation of (b, a) that holds when `a rel b` holds, and ¬rel. */
static uint64_t swapped(uint64_t rel) {
    static const uint64_t pairs[][2] = {
        {MIM_core_icmp_sl, MIM_core_icmp_sg}, {MIM_core_icmp_sle, MIM_core_icmp_sge},
        {MIM_core_icmp_ul, MIM_core_icmp_ug}, {MIM_core_icmp_ule, MIM_core_icmp_uge},
    };
    for (size_t k = 0; k < sizeof pairs / sizeof *pairs; ++k) {
        if (pairs[k][0] == rel) return pairs[k][1];
        if (pairs[k][1] == rel) return pairs[k][0];
    }
    return rel; /* e, ne */
}

static uint64_t negated(uint64_t rel) {
    static const uint64_t pairs[][2] = {
        {MIM_core_icmp_sl, MIM_core_icmp_sge}, {MIM_core_icmp_sle, MIM_core_icmp_sg},
        {MIM_core_icmp_ul, MIM_core_icmp_uge}, {MIM_core_icmp_ule, MIM_core_icmp_ug},
        {MIM_core_icmp_e, MIM_core_icmp_ne},
    };
    for (size_t k = 0; k < sizeof pairs / sizeof *pairs; ++k) {
        if (pairs[k][0] == rel) return pairs[k][1];
        if (pairs[k][1] == rel) return pairs[k][0];
    }
    return 0;
}

/* Narrow r (the range of x) by condition c known to be `holds`. */
static Range apply_fact(LL *ll, Range r, MimDef *x, MimDef *c, bool holds, unsigned w, int blk, int depth) {
    MimDef *a, *b;
    uint64_t id = core_id(c, MIM_core_bit2);
    if (id == MIM_core_bit2_and_ && holds && pair_of(c, &a, &b)) {
        r = apply_fact(ll, r, x, a, true, w, blk, depth);
        return apply_fact(ll, r, x, b, true, w, blk, depth);
    }
    if (id == MIM_core_bit2_or_ && !holds && pair_of(c, &a, &b)) {
        r = apply_fact(ll, r, x, a, false, w, blk, depth);
        return apply_fact(ll, r, x, b, false, w, blk, depth);
    }
    id = core_id(c, MIM_core_icmp);
    if (!id || !pair_of(c, &a, &b) || width_of(ll, a) != w) return r;
    uint64_t rel = holds ? id : negated(id);
    if (!rel) return r;
    if (a == x) r = narrow(ll, r, rel, b, w, blk, depth);
    if (b == x) r = narrow(ll, r, swapped(rel), a, w, blk, depth);
    return r;
}

/* Conditions known at blk that mention x. */
static Range facts(LL *ll, Range r, MimDef *x, unsigned w, int blk, int depth) {
    if (depth <= 0) return r;
    int f = blk < 0 ? -1 : ll->blocks.data[blk].fact_up;
    for (int steps = 0; f >= 0 && steps < FACT_STEPS; ++steps) {
        LLBlock *fb = &ll->blocks.data[f];
        if (fb->frel) {
            if (fb->fa == x) r = narrow(ll, r, fb->frel, fb->fb, w, f, depth - 1);
            if (fb->fb == x) r = narrow(ll, r, swapped(fb->frel), fb->fa, w, f, depth - 1);
        } else if (fb->fact) {
            r = apply_fact(ll, r, x, fb->fact, fb->fact_true, w, f, depth - 1);
        }
        f = f == 0 ? -1 : ll->blocks.data[fb->idom].fact_up;
    }
    return r;
}

/* v is x + c (c a literal, x the parameter (h, j)): *step = c. */
static bool is_step(LL *ll, MimDef *v, int h, size_t j, unsigned w, MimDef **x, int64_t *step) {
    uint64_t id = core_id(v, MIM_core_wrap);
    MimDef *a, *b;
    if ((id != MIM_core_wrap_add && id != MIM_core_wrap_sub) || !pair_of(v, &a, &b)) return false;
    int pb;
    size_t pj;
    int64_t c;
    if (id == MIM_core_wrap_add && signed_lit(a, w, &c)) a = b, b = NULL;
    else if (signed_lit(b, w, &c)) c = id == MIM_core_wrap_sub ? -c : c;
    else return false;
    if (!ll_param_ref(ll, a, &pb, &pj) || pb != h || pj != j) return false;
    *x = a;
    *step = c;
    return true;
}

/* The value that predecessor p passes to parameter j of block h, NULL if
 * unknown (p does not end in a jump or branch, or passes a whole value). */
static MimDef *incoming(LL *ll, int h, int p, size_t j) {
    LLBlock *hb = &ll->blocks.data[h];
    LLTerm t;
    if (!ll_classify(ll, ll_body(ll->blocks.data[p].lam), &t) || (t.kind != LL_T_JUMP && t.kind != LL_T_BRANCH))
        return NULL;
    MimDef *v = t.arg;
    if (hb->split && mim_def_node(v) == MIM_TUPLE) return mim_def_num_ops(v) == hb->ncomp ? ll_op(v, j) : NULL;
    if (hb->split && mim_def_node(v) == MIM_VAR) /* p's parameters passed on as they are */
        return mim_extract_lit(ll->w, v, hb->ncomp, j); /* the World is frozen: NULL if it has no such node */
    return hb->split ? NULL : v;
}

/* Range of parameter j of block h on entry, by induction over the jumps to
 * h (see the file comment). A parameter whose range is being computed
 * counts as unknown (cycle guard). */
static Range induction(LL *ll, MimDef *x, int h, size_t j, unsigned w, int depth) {
    LLInfo *info = ll_info(ll, x);
    if (info->rvisit || depth <= 0) return full(w);
    info->rvisit = 1;
    LLBlock *hb = &ll->blocks.data[h];
    Range r = {INT64_MAX, INT64_MIN};
    bool ok = h != 0 && hb->pred.len > 0;
    for (size_t k = 0; k < hb->pred.len && ok; ++k) {
        int p = hb->pred.data[k];
        /* where the incoming value is known: h itself when p is its only
         * predecessor (h then also knows p's branch condition) */
        int at = hb->pred.len == 1 ? h : p;
        MimDef *v = incoming(ll, h, p, j);
        int vb;
        size_t vj;
        MimDef *px;
        int64_t c;
        if (!v) {
            ok = false;
        } else if (ll_param_ref(ll, v, &vb, &vj) && vb == h && vj == j) {
            continue; /* passed on unchanged */
        } else if (is_step(ll, v, h, j, w, &px, &c)) {
            Range rx = facts(ll, full(w), px, w, at, depth); /* x at the jump, from the conditions there */
            if (c >= 0 && rx.hi + c <= full(w).hi) r.hi = max64(r.hi, rx.hi + c);
            else if (c < 0 && rx.lo + c >= full(w).lo) r.lo = min64(r.lo, rx.lo + c);
            else ok = false;
        } else {
            Range rv = range_at(ll, v, w, at, depth - 1);
            r.lo = min64(r.lo, rv.lo);
            r.hi = max64(r.hi, rv.hi);
        }
    }
    info->rvisit = 0;
    if (!ok) return full(w);
    if (r.lo == INT64_MAX) r.lo = full(w).lo;
    if (r.hi == INT64_MIN) r.hi = full(w).hi;
    return r;
}

/* Range of x from its definition alone. */
static Range base_range(LL *ll, MimDef *x, unsigned w, int blk, int depth) {
    int64_t v;
    if (signed_lit(x, w, &v)) return (Range){v, v};
    if (depth <= 0) return full(w);
    int h;
    size_t j;
    if (ll_param_ref(ll, x, &h, &j)) return induction(ll, x, h, j, w, depth);
    MimDef *a, *b;
    uint64_t id;
    if ((id = core_id(x, MIM_core_wrap)) && pair_of(x, &a, &b)) {
        Range ra = range_at(ll, a, w, blk, depth - 1);
        Range rb = range_at(ll, b, w, blk, depth - 1);
        int64_t k;
        if (id == MIM_core_wrap_shl) {
            if (!signed_lit(b, w, &k) || k < 0 || k >= (int64_t)w) return full(w);
            rb = (Range){(int64_t)1 << k, (int64_t)1 << k};
        }
        Range r = arith(id == MIM_core_wrap_add ? 0 : id == MIM_core_wrap_sub ? 1 : 2, ra, rb);
        return fits(r, w) ? r : full(w);
    }
    if ((id = core_id(x, MIM_core_extrema)) && pair_of(x, &a, &b)) {
        Range ra = range_at(ll, a, w, blk, depth - 1);
        Range rb = range_at(ll, b, w, blk, depth - 1);
        if (id == MIM_core_extrema_smin) return (Range){min64(ra.lo, rb.lo), min64(ra.hi, rb.hi)};
        if (id == MIM_core_extrema_smax) return (Range){max64(ra.lo, rb.lo), max64(ra.hi, rb.hi)};
        return full(w);
    }
    if ((id = core_id(x, MIM_core_shr)) == MIM_core_shr_l && pair_of(x, &a, &b) && signed_lit(b, w, &v) && v > 0 &&
        v < (int64_t)w) {
        Range ra = range_at(ll, a, w, blk, depth - 1);
        if (ra.lo >= 0) return (Range){ra.lo >> v, ra.hi >> v};
        return (Range){0, (int64_t)((((uint64_t)1 << w) - 1) >> v)};
    }
    return full(w);
}

static Range range_at(LL *ll, MimDef *x, unsigned w, int blk, int depth) {
    if (!x || width_of(ll, x) != w || !ll->range_steps) return full(w);
    --ll->range_steps;
    Range r = base_range(ll, x, w, blk, depth);
    return facts(ll, r, x, w, blk, depth);
}

unsigned ll_no_wrap(LL *ll, MimDef *app) {
    uint64_t id = core_id(app, MIM_core_wrap);
    unsigned w = width_of(ll, app);
    MimDef *a, *b;
    if (!id || !w || !pair_of(app, &a, &b)) return 0;
    int at = ll_info(ll, app)->late;
    if (at < 0) return 0;
    ll->range_steps = RANGE_STEPS;
    Range ra = range_at(ll, a, w, at, RANGE_DEPTH);
    ll->range_steps = RANGE_STEPS;
    Range rb = range_at(ll, b, w, at, RANGE_DEPTH);
    if (ra.lo > ra.hi || rb.lo > rb.hi) return 0; /* unreachable there: leave it alone */
    int64_t k;
    if (id == MIM_core_wrap_shl) {
        if (!signed_lit(b, w, &k) || k < 0 || k >= (int64_t)w) return 0;
        rb = (Range){(int64_t)1 << k, (int64_t)1 << k};
    }
    unsigned op = id == MIM_core_wrap_add ? 0 : id == MIM_core_wrap_sub ? 1 : 2;
    Range r = arith(op, ra, rb);
    unsigned m = fits(r, w) ? 1 : 0; /* nsw */
    /* nuw: both operands non-negative, so their unsigned values are the
     * signed ones, and the exact result lies in [0, 2^w) */
    if (ra.lo >= 0 && rb.lo >= 0 && r.lo >= 0 && r.hi <= (int64_t)((((uint64_t)1 << w) - 1))) m |= 2;
    return m;
}

bool ll_nonneg(LL *ll, MimDef *x, MimDef *user) {
    unsigned w = width_of(ll, x);
    int at = ll_info(ll, user)->late;
    ll->range_steps = RANGE_STEPS;
    return w && at >= 0 && range_at(ll, x, w, at, RANGE_DEPTH).lo >= 0;
}

bool ll_literal_outside(LL *ll, MimDef *app, MimDef **c, MimDef **x, MimDef **y) {
    uint64_t id = core_id(app, MIM_core_wrap), m;
    MimDef *in;
    uint64_t s;
    MimDef *t = ll_typeof(app);
    if (!t || !core_idx_lit_size(ll->w, t, &s) || !core_size_is_pow2(s) || core_fold_width(s) != core_width(s))
        return false; /* sizes emitted as plain LLVM arithmetic only */
    if ((id != MIM_core_wrap_add && id != MIM_core_wrap_mul) || !pair_of(app, c, &in) ||
        !mim_def_lit(*c, &m) || core_id(in, MIM_core_wrap) != id || !pair_of(in, x, y) || mim_def_lit(*x, &m))
        return false;
    if (!mim_def_lit(ll_arg(app, mim_app_num_args(app) - 2), &m) || m != 0) return false;
    if (!mim_def_lit(ll_arg(in, mim_app_num_args(in) - 2), &m) || m != 0) return false;
    LLInfo *i = ll_info(ll, in);
    return i->place >= 0 && i->nuses == 1;
}

/* ---- small counted loops -------------------------------------------------------------- */
/* A loop whose counter bounds its trip count by UNROLL_TRIPS and whose body
 * (inner marked loops counted unrolled) times that bound has at most
 * UNROLL_SIZE instructions is marked for complete unrolling
 * (`llvm.loop.unroll.full`, docs/ll-backend.md §3): LLVM's own cost model
 * prices `llvm.sqrt` and other intrinsics by latency and leaves such loops
 * rolled where C's (errno-setting) library calls are unrolled. The mark is a
 * hint: LLVM unrolls only what it finds a constant trip count for. A quarter
 * of LLVM's limit for unroll pragmas (16 K instructions). */
enum { UNROLL_TRIPS = 16, UNROLL_SIZE = 4096 };

/* Header visits per entry of the loop at h bounded through the counter x
 * (parameter j of h): every back edge (a predecessor that h dominates)
 * passes x + c with c of one sign, so each visit sees a new value of x, all
 * within the range the induction finds. 0 if not so bounded. */
static int64_t counter_trips(LL *ll, int h, MimDef *x, size_t j, unsigned w) {
    LLBlock *hb = &ll->blocks.data[h];
    int64_t step = INT64_MAX;
    int sign = 0;
    for (size_t k = 0; k < hb->pred.len; ++k) {
        int p = hb->pred.data[k];
        if (!ll_dominates(ll, h, p)) continue; /* an entry */
        MimDef *v = incoming(ll, h, p, j), *px;
        int64_t c;
        if (!v || !is_step(ll, v, h, j, w, &px, &c) || c == 0) return 0;
        int s = c > 0 ? 1 : -1;
        if (sign && s != sign) return 0;
        sign = s;
        step = min64(step, c > 0 ? c : -c);
    }
    if (!sign) return 0; /* no back edge */
    ll->range_steps = RANGE_STEPS;
    Range r = induction(ll, x, h, j, w, RANGE_DEPTH);
    return r.lo > r.hi ? 0 : (r.hi - r.lo) / step + 1;
}

/* Trip bound of the loop at h from a counter in its exit test, 0 if none. */
static int64_t loop_trips(LL *ll, int h) {
    LLTerm t;
    MimDef *a, *b;
    if (!ll_classify(ll, ll_body(ll->blocks.data[h].lam), &t) || t.kind != LL_T_BRANCH) return 0;
    MimDef *c = ll_op(t.callee, 1);
    if (!core_id(c, MIM_core_icmp) || !pair_of(c, &a, &b)) return 0;
    int64_t trips = 0;
    MimDef *xs[2] = {a, b};
    for (int k = 0; k < 2; ++k) {
        int pb;
        size_t pj;
        unsigned w = width_of(ll, xs[k]);
        if (!w || !ll_param_ref(ll, xs[k], &pb, &pj) || pb != h) continue;
        int64_t n = counter_trips(ll, h, xs[k], pj, w);
        if (n > 0 && (!trips || n < trips)) trips = n;
    }
    return trips;
}

/* Inner loops first (an inner header follows its outer one in RPO); a
 * marked loop's blocks then weigh its trip bound in the outer loops. */
static void mark_small_loops(LL *ll) {
    size_t nb = ll->blocks.len;
    int *mark = calloc(nb, sizeof *mark), *list = calloc(nb, sizeof *list);
    int64_t *weight = malloc(nb * sizeof *weight);
    if (!mark || !list || !weight) abort();
    for (size_t k = 0; k < nb; ++k) weight[k] = 1;
    for (size_t k = ll->norder; k-- > 1;) {
        int h = ll->order[k];
        int64_t trips = loop_trips(ll, h);
        size_t n = trips > 0 && trips <= UNROLL_TRIPS ? ll_loop_blocks(ll, h, mark, list) : 0;
        int64_t size = 0;
        for (size_t j = 0; j < n && size <= UNROLL_SIZE; ++j)
            size += weight[list[j]] * (int64_t)(ll->blocks.data[list[j]].nodes.len + 1);
        if (!n || trips * size > UNROLL_SIZE) continue;
        ll->blocks.data[h].unroll = (unsigned)trips;
        for (size_t j = 0; j < n; ++j) weight[list[j]] *= trips;
    }
    free(mark), free(list), free(weight);
}

const char *ll_loop_md(LL *ll, int from, int to) {
    LLBlock *hb = &ll->blocks.data[to];
    if (!hb->unroll || !ll_dominates(ll, to, from)) return "";
    if (!hb->md) hb->md = ++ll->nloops;
    return ll_str(ll, ", !llvm.loop !%u", LL_MD_LOOP + hb->md - 1);
}
