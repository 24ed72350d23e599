/* The regex plugin's normalizers (plugins/regex.md §3): range swaps its
 * bounds into order, quantifiers merge, conj flattens, disj flattens, sorts,
 * merges character ranges and detects complements. The reference's
 * behaviour is followed exactly, quirks included (regex.md §2.2 and §3.3
 * step 5: `%regex.any` is never recognized among operands, and the
 * complement test is unsound), because normalized regexes are what `-o`
 * prints and what the lowering turns into automata. */
#include "regex.h"

#include "mim/ptrmap.h"
#include "mim/rewrite.h"

#include <stdlib.h>

/* ---- operand lists ------------------------------------------------------------ */

/* n and the operand tuple of a fully applied `%regex.conj n t` or
 * `%regex.disj n t` (id) with a literal n; false otherwise. */
bool regex_nary(MimDef *d, uint64_t id, uint64_t *n, MimDef **ops) {
    MimDef *call = mim_match(d, id);
    if (!call || mim_app_num_args(call) != 2 || !mim_def_lit(mim_app_nth_arg(call, 0), n)) return false;
    *ops = mim_app_nth_arg(call, 1);
    return true;
}

/* Appends the operands of d, replacing fully applied calls of id (conj or
 * disj) by their operands, recursively, left to right. */
void regex_flatten(MimWorld *w, MimDef *d, uint64_t id, RegexList *out) {
    uint64_t n;
    MimDef *ops;
    if (!regex_nary(d, id, &n, &ops)) {
        mim_vec_push(out, d);
        return;
    }
    for (uint64_t i = 0; i < n; ++i) regex_flatten(w, mim_proj(w, ops, n, i), id, out);
}

/* The bounds of a fully applied `%regex.range (lo, hi)` with literal bounds. */
bool regex_range(MimWorld *w, MimDef *d, uint64_t *lo, uint64_t *hi) {
    MimDef *call = mim_match(d, MIM_regex_range);
    if (!call) return false;
    MimDef *arg = mim_app_nth_arg(call, 0);
    return mim_def_lit(mim_proj(w, arg, 2, 0), lo) && mim_def_lit(mim_proj(w, arg, 2, 1), hi);
}

/* The raw left-nested tree `op 2 (op 2 (… (o₀, o₁) …), oₖ)` of raw calls
 * (regex.md §3.3 step 6); one operand is itself. */
static MimDef *binary_tree(MimWorld *w, MimDef *type, uint64_t id, const RegexList *l) {
    MimDef *callee = mim_app(w, mim_world_annex(w, id), mim_lit_nat(w, 2));
    MimDef *acc = l->data[0];
    for (size_t i = 1; acc && callee && i < l->len; ++i) {
        MimDef *pair[2] = {acc, l->data[i]};
        acc = mim_raw_app(w, type, callee, mim_tuple(w, pair, 2));
    }
    return callee ? acc : NULL;
}

/* ---- range, not_, quant ------------------------------------------------------------ */

MimDef *normalize_range(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    uint64_t lo, hi;
    MimDef *l = mim_proj(w, arg, 2, 0), *h = mim_proj(w, arg, 2, 1);
    if (l && h && mim_def_lit(l, &lo) && mim_def_lit(h, &hi) && lo > hi) {
        MimDef *swapped[2] = {h, l};
        return mim_raw_app(w, type, callee, mim_tuple(w, swapped, 2));
    }
    return mim_raw_app(w, type, callee, arg);
}

MimDef *normalize_not(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    return mim_raw_app(w, type, callee, arg); /* no double-negation elimination */
}

enum { Q_OPTIONAL, Q_STAR, Q_PLUS }; /* the sub-tags of %regex.quant */

/* regex.md §3.2: q (p r) is p r itself or a new `star r`. */
MimDef *normalize_quant(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    MimDef *inner = mim_match_annex(arg, MIM_regex_quant);
    if (!inner || mim_app_num_args(inner) != 1) return mim_raw_app(w, type, callee, arg);
    unsigned q = mim_callee_sub(callee), p = mim_callee_sub(inner);
    if (p == Q_STAR || p == q) return inner;
    return mim_app(w, mim_world_annex(w, MIM_regex_quant_star), mim_app_nth_arg(inner, 0));
}

/* ---- conj (regex.md §3.4) ----------------------------------------------------------- */

MimDef *normalize_conj(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    uint64_t n;
    if (!mim_def_lit(mim_app_nth_arg(callee, 0), &n) || n == 2 || n > REGEX_MAX_OPERANDS)
        return mim_raw_app(w, type, callee, arg);
    if (n <= 1) return arg;
    RegexList l = {0};
    for (uint64_t i = 0; i < n; ++i) regex_flatten(w, mim_proj(w, arg, n, i), MIM_regex_conj, &l);
    MimDef *res = binary_tree(w, type, MIM_regex_conj, &l);
    mim_vec_free(&l);
    return res;
}

/* ---- disj (regex.md §3.3) ------------------------------------------------------------ */

typedef struct Ranged {
    MimDef *d;
    uint64_t lo, hi;
} Ranged;

static int by_lo(const void *a, const void *b) {
    const Ranged *x = a, *y = b;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    return 0;
}

/* Step 3, "make unique": the non-ranges in reverse order of appearance, then
 * the ranges stably sorted by lower bound (insertion sort: stable, and the
 * lists are short); consecutive equal nodes once. */
static void make_unique(MimWorld *w, RegexList *l) {
    size_t n = l->len, num_ranges = 0;
    Ranged *ranges = mim_xmalloc(n * sizeof *ranges);
    MimDef **out = mim_xmalloc(n * sizeof *out);
    size_t k = 0;
    for (size_t i = n; i-- > 0;) {
        uint64_t lo, hi;
        if (!regex_range(w, l->data[i], &lo, &hi)) out[k++] = l->data[i];
    }
    for (size_t i = 0; i < n; ++i) {
        uint64_t lo, hi;
        if (regex_range(w, l->data[i], &lo, &hi)) ranges[num_ranges++] = (Ranged){l->data[i], lo, hi};
    }
    /* stable by (lo, position) */
    for (size_t i = 1; i < num_ranges; ++i)
        for (size_t j = i; j > 0 && (ranges[j - 1].lo > ranges[j].lo); --j) {
            Ranged t = ranges[j];
            ranges[j] = ranges[j - 1];
            ranges[j - 1] = t;
        }
    for (size_t i = 0; i < num_ranges; ++i) out[k++] = ranges[i].d;
    l->len = 0;
    for (size_t i = 0; i < k; ++i)
        if (i == 0 || out[i] != out[i - 1]) l->data[l->len++] = out[i];
    free(ranges);
    free(out);
}

/* Step 4: the ranges (the tail of the list) replaced by the union of their
 * intervals, overlapping and adjacent ones merged, as fresh range calls. */
static bool merge_ranges(MimWorld *w, RegexList *l) {
    size_t first = l->len;
    uint64_t lo, hi;
    while (first > 0 && regex_range(w, l->data[first - 1], &lo, &hi)) --first;
    if (first == l->len) return true;
    size_t num = l->len - first;
    Ranged *iv = mim_xmalloc(num * sizeof *iv);
    for (size_t i = 0; i < num; ++i) {
        regex_range(w, l->data[first + i], &iv[i].lo, &iv[i].hi);
        iv[i].d = NULL;
    }
    qsort(iv, num, sizeof *iv, by_lo); /* only the union matters here */
    l->len = first;
    MimDef *range = mim_world_annex(w, MIM_regex_range);
    bool ok = range != NULL;
    for (size_t i = 0; ok && i < num;) {
        uint64_t a = iv[i].lo, b = iv[i].hi;
        size_t j = i + 1;
        for (; j < num && iv[j].lo <= b + 1; ++j)
            if (iv[j].hi > b) b = iv[j].hi;
        MimDef *bounds[2];
        bounds[0] = mim_lit_int(w, 8, a);
        bounds[1] = mim_lit_int(w, 8, b);
        MimDef *call = mim_app(w, range, mim_tuple(w, bounds, 2));
        if (!call) ok = false;
        else mim_vec_push(l, call);
        i = j;
    }
    free(iv);
    return ok;
}

/* The (lo, hi) pairs of the ranges in l. */
static size_t range_pairs(MimWorld *w, const RegexList *l, Ranged *out) {
    size_t k = 0;
    for (size_t i = 0; i < l->len; ++i) {
        uint64_t lo, hi;
        if (regex_range(w, l->data[i], &lo, &hi)) out[k++] = (Ranged){NULL, lo, hi};
    }
    return k;
}

/* Multiset inclusion of pairs: every pair of `sub` matched by its own pair
 * of `sup`. */
static bool includes(const Ranged *sup, size_t nsup, const Ranged *sub, size_t nsub) {
    bool *used = mim_xcalloc(nsup ? nsup : 1, sizeof *used);
    bool all = true;
    for (size_t i = 0; all && i < nsub; ++i) {
        bool found = false;
        for (size_t j = 0; !found && j < nsup; ++j)
            if (!used[j] && sup[j].lo == sub[i].lo && sup[j].hi == sub[i].hi) used[j] = found = true;
        all = found;
    }
    free(used);
    return all;
}

/* `not_ x` fully applied: x; else NULL. */
static MimDef *negated(MimDef *d) {
    MimDef *call = mim_match(d, MIM_regex_not_);
    return call ? mim_app_nth_arg(call, 0) : NULL;
}

/* The `not_ disj` test of step 5 for c0 = `not_ D`: do the range pairs of
 * the list (a, na) and of D's operands (flattened, made unique) include one
 * another? */
static bool covers_negated_disj(MimWorld *w, MimDef *c0, const Ranged *a, size_t na) {
    uint64_t n;
    MimDef *ops, *inner = negated(c0);
    if (!inner || !regex_nary(inner, MIM_regex_disj, &n, &ops)) return false;
    RegexList rs = {0};
    for (uint64_t k = 0; k < n; ++k) regex_flatten(w, mim_proj(w, ops, n, k), MIM_regex_disj, &rs);
    make_unique(w, &rs);
    Ranged *b = mim_xmalloc((rs.len + 1) * sizeof *b);
    size_t nb = range_pairs(w, &rs, b);
    bool hit = includes(a, na, b, nb) || includes(b, nb, a, na);
    free(b);
    mim_vec_free(&rs);
    return hit;
}

/* Step 5: does the list denote "anything" by the reference's tests? For
 * each c₀ in order: the pairs (c₀, c₁), then the `not_ disj` test of c₀;
 * the first hit returns. A pair is a range R and `not_ R` (the same node)
 * in the list, in either role: found in linear time through a set of the
 * list's range nodes and one of the operands of its `not_`s, not by trying
 * all pairs (the same tests in the same order, so the same projections are
 * built before a hit). */
static bool complements(MimWorld *w, const RegexList *l) {
    MimPtrMap ranges = {0}, negations = {0};
    bool *is_range = mim_xcalloc(l->len, sizeof *is_range);
    Ranged *a = mim_xmalloc((l->len + 1) * sizeof *a);
    size_t na = 0;
    for (size_t i = 0; i < l->len; ++i) {
        uint64_t lo, hi;
        MimDef *inner = negated(l->data[i]);
        if (inner) mim_ptrmap_put(&negations, inner, NULL);
        if ((is_range[i] = regex_range(w, l->data[i], &lo, &hi))) {
            a[na++] = (Ranged){NULL, lo, hi};
            mim_ptrmap_put(&ranges, l->data[i], NULL);
        }
    }
    /* every test needs a `not_` operand (after the ranges were read as
     * before: reading a range may build projections) */
    bool hit = false;
    for (size_t i = 0; !hit && negations.len && i < l->len; ++i) {
        MimDef *c0 = l->data[i], *inner = negated(c0);
        hit = (is_range[i] && mim_ptrmap_has(&negations, c0)) || (inner && mim_ptrmap_has(&ranges, inner)) ||
              covers_negated_disj(w, c0, a, na);
    }
    mim_ptrmap_free(&ranges);
    mim_ptrmap_free(&negations);
    free(is_range);
    free(a);
    return hit;
}

/* Steps 2–5 on the flattened operand list l: true with *any set if the
 * list denotes "anything" (the result is then `%regex.any`), else with l
 * made the operands of the result (steps 3 and 4); false on error. */
static bool normalize_disj_list(MimWorld *w, RegexList *l, bool *any) {
    *any = false;
    for (size_t i = 0; i < l->len; ++i) *any |= mim_match(l->data[i], MIM_regex_any) != NULL; /* never: §2.2 */
    if (*any) return true;
    make_unique(w, l);
    uint64_t lo, hi;
    bool has_range = l->len && regex_range(w, l->data[l->len - 1], &lo, &hi);
    if (has_range && !merge_ranges(w, l)) return false;
    if (has_range) make_unique(w, l);
    *any = complements(w, l);
    return true;
}

/* The normalized disjunction of the list (its `normalize_disj_list`ed form). */
static MimDef *disj_result(MimWorld *w, MimDef *type, const RegexList *l, bool any) {
    return any ? mim_world_annex(w, MIM_regex_any) : binary_tree(w, type, MIM_regex_disj, l);
}

static bool rewrite_disj_chain(MimRewriter *rw, MimDef *old, MimDef **res);

MimDef *normalize_disj(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    mim_world_set_app_rule(w, MIM_regex_disj, rewrite_disj_chain);
    uint64_t n;
    if (!mim_def_lit(mim_app_nth_arg(callee, 0), &n) || n > REGEX_MAX_OPERANDS) return mim_raw_app(w, type, callee, arg);
    if (n <= 1) return arg;
    RegexList l = {0};
    for (uint64_t i = 0; i < n; ++i) regex_flatten(w, mim_proj(w, arg, n, i), MIM_regex_disj, &l);
    bool any;
    MimDef *res = normalize_disj_list(w, &l, &any) ? disj_result(w, type, &l, any) : NULL;
    mim_vec_free(&l);
    return res;
}

/* ---- rewriting a chain of binary disjunctions (mim/rewrite.h) ------------------------- */

/* A fully applied `disj 2 (a, b)` whose operands are a tuple: a and b. */
static bool binary_disj(MimDef *d, MimDef **a, MimDef **b) {
    uint64_t n;
    MimDef *ops;
    if (!regex_nary(d, MIM_regex_disj, &n, &ops) || n != 2 || mim_def_node(ops) != MIM_TUPLE ||
        mim_def_is_mut(ops) || mim_def_num_ops(ops) != 2)
        return false;
    *a = mim_def_op(ops, 0);
    *b = mim_def_op(ops, 1);
    return true;
}

/* Does d take part in the steps of normalize_disj_list beyond "non-ranges
 * reversed, consecutive repeats once": a range, a `not_` (only those make
 * complements), a recognized `%regex.any` (never, §2.2)? */
static bool is_special(MimWorld *w, MimDef *d) {
    uint64_t lo, hi;
    return mim_match(d, MIM_regex_any) || negated(d) || regex_range(w, d, &lo, &hi);
}

static size_t count_special(MimWorld *w, const RegexList *l, size_t from) {
    size_t k = 0;
    for (size_t i = from; i < l->len; ++i) k += is_special(w, l->data[i]);
    return k;
}

/* normalize_disj_list of a list without special operands: make_unique
 * reverses it and keeps consecutive repeats once; nothing to merge, no
 * complement. */
static void reverse_unique(RegexList *l) {
    for (size_t i = 0, j = l->len; i + 1 < j; ++i, --j) {
        MimDef *t = l->data[i];
        l->data[i] = l->data[j - 1];
        l->data[j - 1] = t;
    }
    size_t k = 0;
    for (size_t i = 0; i < l->len; ++i)
        if (i == 0 || l->data[i] != l->data[k - 1]) l->data[k++] = l->data[i];
    l->len = k;
}

/* The rewrite rule of disj. A normalized disjunction is the left-nested
 * chain `disj 2 (disj 2 (… (o₀, o₁) …), oₖ)`; the generic rewrite rebuilds
 * it bottom-up, each level normalizing `disj 2 (level below, oᵢ)` into a
 * new tree of all operands so far (whose order changes from one level to
 * the next, regex.md §3.3 step 3), about k²/2 nodes for nothing but the
 * last level. Here the levels are replayed on operand lists: the level
 * below, flattened, is exactly its list (a tree of raw calls whose leaves
 * are no disj calls), or [`%regex.any`]; only the top level's tree is
 * built. The leaves and callees are rewritten in the generic rewrite's
 * order. */
static bool rewrite_disj_chain(MimRewriter *rw, MimDef *old, MimDef **res) {
    RegexList spine = {0}; /* old, then each level below it */
    MimDef *d = old, *a, *b;
    while (binary_disj(d, &a, &b)) {
        mim_vec_push(&spine, d);
        d = a;
    }
    if (spine.len < 2) { /* one level: nothing to save */
        mim_vec_free(&spine);
        return false;
    }
    MimWorld *w = mim_rewriter_world(rw);
    RegexList l = {0};
    bool any = false, ok = mim_rewrite(rw, mim_def_type(old)) != NULL;
    /* what the generic rewrite meets on its way down: each level's callee
     * and operand type (the same nodes at every level) */
    for (size_t i = 0; ok && i < spine.len; ++i) {
        MimDef *callee = mim_def_op(spine.data[i], 0), *ops = mim_def_op(spine.data[i], 1);
        ok = mim_rewrite(rw, callee) && mim_rewrite(rw, mim_def_type(ops));
    }
    MimDef *base = ok ? mim_rewrite(rw, d) : NULL;
    if (!base) ok = false;
    else regex_flatten(w, base, MIM_regex_disj, &l);
    size_t specials = count_special(w, &l, 0); /* in l */
    for (size_t i = spine.len; ok && i-- > 0;) {
        binary_disj(spine.data[i], &a, &b);
        MimDef *leaf = mim_rewrite(rw, b);
        if (!leaf) {
            ok = false;
            break;
        }
        size_t before = l.len;
        regex_flatten(w, leaf, MIM_regex_disj, &l);
        specials += count_special(w, &l, before);
        if (!specials) { /* a list of words, say: linear per level, no lookups */
            reverse_unique(&l);
            any = false;
            continue;
        }
        ok = normalize_disj_list(w, &l, &any);
        if (ok && any && i > 0) { /* the level is `%regex.any`: the next one flattens it */
            MimDef *top = mim_world_annex(w, MIM_regex_any);
            l.len = 0;
            if (top) mim_vec_push(&l, top);
            ok = top != NULL;
        }
        specials = count_special(w, &l, 0);
    }
    *res = ok ? disj_result(w, mim_rewrite(rw, mim_def_type(old)), &l, any) : NULL;
    mim_vec_free(&l);
    mim_vec_free(&spine);
    return true;
}
