/* Capturing matchers (docs/regex.md, "Capture groups"; an extension beyond
 * the specification): `%regex.capture r` applied to the string size n and
 * the capture array length k becomes a direct-style view of a generated
 * function match_capture that runs a tagged DFA (Laurikari's TDFA, in the
 * leftmost-greedy form of Trafimovich's TDFA(0)) over the string:
 *
 *     r --(tconvert)--> tagged NFA (ordered ε-edges, group tags on ε-edges)
 *       --(determinize)--> TDFA: states are *ordered* lists of (NFA state,
 *          register per tag); a transition carries register operations
 *       --(gen_capture)--> one continuation per TDFA state whose registers
 *          are its parameters, so a register operation is an argument
 *
 * Disambiguation: among the parses of the consumed text, the first in
 * PCRE's backtracking order (quantifiers greedy; the first alternative
 * first), found as in a Pike VM: the ε-closure is a depth-first search in
 * priority order and the first path that reaches an NFA state wins. The
 * operands of a disjunction are reordered by its normalizer (regex.md
 * §3.3), so "first" among alternatives is a fixed order of the operands:
 * by the smallest group number they contain, which is the written order
 * when each alternative has a group, then by structure (alt_before).
 *
 * The run itself (where it stops, matched or not) is exactly the plain
 * matcher's (regex.md §4.4): the TDFA's states refine the subset states of
 * the same NFA language. Registers are numbered canonically (in order of
 * first use in a state), so a TDFA state is its list of NFA states with
 * the pattern of which entries share a register, and there are finitely
 * many. No minimization. */
#include "mim/plugin/core.h"
#include "mim/plugin/direct.h"
#include "mim/plugin/mem.h"
#include "mim/ptrmap.h"
#include "regex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NUM_CHARS 256
/* The most TDFA states a capturing matcher may have (a robustness bound:
 * every state is a continuation with one parameter per register). */
#define MAX_TSTATES 2048
#define NO_STATE ((size_t)-1)
/* register sources in a closure: NIL = never set (0), CUR = the current
 * position, else an old register r ≥ 1 */
#define NIL 0u
#define CUR UINT32_MAX

MimDef *normalize_group(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    return mim_raw_app(w, type, callee, arg);
}

MimDef *normalize_capture(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    return mim_raw_app(w, type, callee, arg);
}

/* ---- the tagged NFA ------------------------------------------------------------ */

typedef struct TEdge {
    int lo, hi; /* characters lo…hi; lo = -1: ε */
    int tag;    /* ε only: the tag it sets, or -1 */
    size_t to;
} TEdge;

typedef struct TNState {
    MIM_VEC(TEdge) edges; /* in priority order */
    bool chars;           /* has a character edge */
} TNState;

typedef struct Tnfa {
    MimWorld *w;
    MIM_VEC(TNState) st;
    unsigned tags;           /* 2 · the largest group number */
    bool bound[NUM_CHARS + 1]; /* a character class starts here */
    MimPtrMap min_group;     /* operand ↦ its smallest group number + 1 (0: none) */
    MimDef *bad;             /* a part that cannot be lowered, or NULL */
    const char *why;
} Tnfa;

static size_t tn_state(Tnfa *a) {
    mim_vec_push(&a->st, ((TNState){0}));
    return a->st.len - 1;
}

static void tn_eps(Tnfa *a, size_t from, int tag, size_t to) {
    mim_vec_push(&a->st.data[from].edges, ((TEdge){-1, -1, tag, to}));
}

static void tn_chars(Tnfa *a, size_t from, int lo, int hi, size_t to) {
    mim_vec_push(&a->st.data[from].edges, ((TEdge){lo, hi, -1, to}));
    a->st.data[from].chars = true;
    a->bound[lo] = a->bound[hi + 1] = true;
}

static void tn_free(Tnfa *a) {
    for (size_t i = 0; i < a->st.len; ++i) mim_vec_free(&a->st.data[i].edges);
    mim_vec_free(&a->st);
    mim_ptrmap_free(&a->min_group);
}

static void tn_bad(Tnfa *a, MimDef *r, const char *why) {
    if (!a->bad) a->bad = r, a->why = why;
}

enum { Q_OPTIONAL, Q_STAR, Q_PLUS };

/* The group number of a fully applied `%regex.group i x`, 0 if i is not a
 * literal in 1…REGEX_MAX_GROUPS. */
static unsigned group_number(MimDef *call) {
    uint64_t i;
    if (!mim_def_lit(mim_app_nth_arg(call, 0), &i) || i < 1 || i > REGEX_MAX_GROUPS) return 0;
    return (unsigned)i;
}

/* The operand of a fully applied group, quantifier or not_; NULL for
 * anything else (conj and disj are walked through regex_nary). */
static MimDef *unary_operand(MimDef *r) {
    MimDef *call;
    if ((call = mim_match(r, MIM_regex_group)) && mim_app_num_args(call) == 2) return mim_app_nth_arg(call, 1);
    if ((call = mim_match_annex(r, MIM_regex_quant)) && mim_app_num_args(call) == 1) return mim_app_nth_arg(call, 0);
    if ((call = mim_match(r, MIM_regex_not_)) && mim_app_num_args(call) == 1) return mim_app_nth_arg(call, 0);
    return NULL;
}

/* The smallest group number in r, UINT32_MAX if none (memoized: terms
 * share operands, e.g. the copies of r{m,n}). */
static unsigned min_group(Tnfa *a, MimDef *r) {
    void *known = mim_ptrmap_get(&a->min_group, r);
    if (known) return (unsigned)((uintptr_t)known - 1);
    unsigned best = UINT32_MAX;
    MimDef *call = mim_match(r, MIM_regex_group);
    if (call && mim_app_num_args(call) == 2 && group_number(call)) best = group_number(call);
    uint64_t n;
    MimDef *ops;
    if ((regex_nary(r, MIM_regex_conj, &n, &ops) || regex_nary(r, MIM_regex_disj, &n, &ops)) && n <= REGEX_MAX_OPERANDS) {
        for (uint64_t i = 0; i < n; ++i) {
            unsigned g = min_group(a, mim_proj(a->w, ops, n, i));
            if (g < best) best = g;
        }
    } else if (unary_operand(r)) {
        unsigned g = min_group(a, unary_operand(r));
        if (g < best) best = g;
    }
    mim_ptrmap_put(&a->min_group, r, (void *)((uintptr_t)best + 1));
    return best;
}

/* The kind of a term for structural_cmp (range, conj, quant, group, disj,
 * not_, other) with its range bounds, operand count, quantifier or group
 * number in *x, *y. */
static int kind_of(MimWorld *w, MimDef *r, uint64_t *x, uint64_t *y) {
    MimDef *call;
    if (regex_range(w, r, x, y)) return 0;
    *x = *y = 0;
    if (regex_nary(r, MIM_regex_conj, x, &call)) return 1;
    if ((call = mim_match_annex(r, MIM_regex_quant)) && mim_app_num_args(call) == 1) return *x = mim_callee_sub(call), 2;
    if ((call = mim_match(r, MIM_regex_group)) && mim_app_num_args(call) == 2) return *x = group_number(call), 3;
    if (regex_nary(r, MIM_regex_disj, x, &call)) return 4;
    if (mim_match(r, MIM_regex_not_)) return 5;
    return 6;
}

/* A total order on terms by structure alone (not by construction order,
 * which the normalizers change): kind, then range bounds, operand count,
 * quantifier or group number, then the operands. */
static int structural_cmp(MimWorld *w, MimDef *a, MimDef *b) {
    if (a == b) return 0;
    uint64_t ax, ay, bx, by;
    int ka = kind_of(w, a, &ax, &ay), kb = kind_of(w, b, &bx, &by);
    if (ka != kb) return ka < kb ? -1 : 1;
    if (ax != bx) return ax < bx ? -1 : 1;
    if (ay != by) return ay < by ? -1 : 1;
    if (ka == 6) return mim_def_gid(a) < mim_def_gid(b) ? -1 : 1; /* not a regex term: left alone anyway */
    uint64_t n;
    MimDef *oa, *ob;
    if ((ka == 1 || ka == 4) && ax <= REGEX_MAX_OPERANDS) { /* conj, disj of ax operands */
        uint64_t id = ka == 1 ? MIM_regex_conj : MIM_regex_disj;
        regex_nary(a, id, &n, &oa);
        regex_nary(b, id, &n, &ob);
        for (uint64_t i = 0; i < n; ++i) {
            MimDef *x = mim_proj(w, oa, n, i); /* one node per statement: gids must not depend on the compiler */
            MimDef *y = mim_proj(w, ob, n, i);
            int c = structural_cmp(w, x, y);
            if (c) return c;
        }
        return 0;
    }
    oa = unary_operand(a), ob = unary_operand(b);
    return oa && ob ? structural_cmp(w, oa, ob) : (oa != NULL) - (ob != NULL);
}

/* The priority of alternatives: smaller group number first (groups are
 * numbered in written order), alternatives without a group last, then by
 * structure. */
static bool alt_before(Tnfa *a, MimDef *x, MimDef *y) {
    unsigned gx = min_group(a, x), gy = min_group(a, y);
    if (gx != gy) return gx < gy;
    return structural_cmp(a->w, x, y) < 0;
}

/* Adds r between from and to. Every construct gets its own entry state
 * where priorities matter, so the edges of a state come from one construct
 * and are in its priority order. */
static void tconvert(Tnfa *a, MimDef *r, size_t from, size_t to) {
    MimWorld *w = a->w;
    uint64_t n, lo, hi;
    MimDef *ops, *call;
    if (regex_nary(r, MIM_regex_conj, &n, &ops) && n <= REGEX_MAX_OPERANDS) {
        if (n == 0) tn_eps(a, from, -1, to);
        size_t cur = from;
        for (uint64_t i = 0; i < n; ++i) {
            size_t next = i + 1 == n ? to : tn_state(a);
            tconvert(a, mim_proj(w, ops, n, i), cur, next);
            cur = next;
        }
    } else if (regex_nary(r, MIM_regex_disj, &n, &ops) && n <= REGEX_MAX_OPERANDS) {
        RegexList l = {0};
        regex_flatten(w, r, MIM_regex_disj, &l);
        for (size_t i = 1; i < l.len; ++i) /* insertion sort: stable, lists are short */
            for (size_t j = i; j > 0 && alt_before(a, l.data[j], l.data[j - 1]); --j) {
                MimDef *t = l.data[j];
                l.data[j] = l.data[j - 1];
                l.data[j - 1] = t;
            }
        for (size_t i = 0; i < l.len; ++i) {
            size_t s = tn_state(a);
            tn_eps(a, from, -1, s);
            tconvert(a, l.data[i], s, to);
        }
        mim_vec_free(&l);
    } else if (mim_match(r, MIM_regex_conj) || mim_match(r, MIM_regex_disj) ||
               (mim_match(r, MIM_regex_range) && !regex_range(w, r, &lo, &hi))) {
        tn_bad(a, r, "its bounds or operand count are not literals");
    } else if (regex_range(w, r, &lo, &hi)) {
        if (lo < NUM_CHARS) tn_chars(a, from, (int)lo, (int)(hi < NUM_CHARS ? hi : NUM_CHARS - 1), to);
    } else if (mim_match(r, MIM_regex_not_)) {
        tn_bad(a, r, "%regex.not_ is not supported in a capturing matcher");
    } else if ((call = mim_match(r, MIM_regex_group)) && mim_app_num_args(call) == 2) {
        unsigned g = group_number(call);
        if (!g) {
            tn_bad(a, r, "the group number must be a literal from 1 to 255");
            return;
        }
        if (2 * g > a->tags) a->tags = 2 * g;
        size_t s = tn_state(a), e = tn_state(a);
        tn_eps(a, from, (int)(2 * g - 2), s);
        tconvert(a, mim_app_nth_arg(call, 1), s, e);
        tn_eps(a, e, (int)(2 * g - 1), to);
    } else if ((call = mim_match_annex(r, MIM_regex_quant)) && mim_app_num_args(call) == 1) {
        MimDef *x = mim_app_nth_arg(call, 0);
        size_t s, m1, m2;
        switch (mim_callee_sub(call)) {
        case Q_OPTIONAL: /* greedy: x first, then skip */
            s = tn_state(a);
            tn_eps(a, from, -1, s);
            tn_eps(a, from, -1, to);
            tconvert(a, x, s, to);
            break;
        case Q_PLUS: /* x, then x* */
            s = tn_state(a);
            tconvert(a, x, from, s);
            from = s;
            /* fall through */
        case Q_STAR: /* greedy: another iteration first, then leave */
            m1 = tn_state(a), m2 = tn_state(a);
            tn_eps(a, from, -1, m1);
            tn_eps(a, from, -1, to);
            tconvert(a, x, m1, m2);
            tn_eps(a, m2, -1, m1);
            tn_eps(a, m2, -1, to);
            break;
        default: break;
        }
    }
    /* anything else, %regex.any included (regex.md §2.2): nothing */
}

/* ---- determinization ------------------------------------------------------------ */

/* A TDFA state: an ordered list of configurations (NFA state, register of
 * each tag; 0 = never set), stored as one key [num, q…, rows…] in keys. */
typedef struct Det {
    const Tnfa *a;
    size_t final, tags;
    MIM_VEC(uint32_t) keys;
    MIM_VEC(size_t) key_at; /* state → offset of its key */
    MIM_VEC(uint32_t) num_regs;
    size_t *slots, num_slots; /* hash index: state + 1, 0 = empty */
    /* transitions: per state and class, an edge index into edges (or NO_STATE) */
    MIM_VEC(size_t) trans;
    /* edges: target state and the source of each of its registers */
    MIM_VEC(size_t) edge_to;
    MIM_VEC(size_t) edge_ops_at; /* offset into ops */
    MIM_VEC(uint32_t) ops;
    uint8_t cls[NUM_CHARS]; /* class of each character (0: NUL) */
    int rep[NUM_CHARS];
    size_t num_classes;
    uint64_t *live;  /* per NFA state, live_words words: the tags whose value may still be reported */
    size_t live_words;
    /* scratch of a step */
    uint64_t *visited;
    MIM_VEC(uint32_t) out_q, out_rows, stack_q, stack_rows;
} Det;

static const uint32_t *key_of(const Det *d, size_t s) { return d->keys.data + d->key_at.data[s]; }
static size_t key_len(const uint32_t *key, size_t tags) { return 1 + key[0] + (size_t)key[0] * tags; }
static size_t num_states(const Det *d) { return d->key_at.len; }

static uint64_t key_hash(const uint32_t *key, size_t len) {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < len; ++i) h = (h ^ key[i]) * 0xbf58476d1ce4e5b9ull;
    return h ^ h >> 31;
}

static void det_index(Det *d, size_t s) {
    size_t mask = d->num_slots - 1;
    const uint32_t *k = key_of(d, s);
    size_t i = (size_t)key_hash(k, key_len(k, d->tags)) & mask;
    while (d->slots[i]) i = (i + 1) & mask;
    d->slots[i] = s + 1;
}

/* The state with this key, added if new. */
static size_t det_find_or_add(Det *d, const uint32_t *key, uint32_t regs) {
    size_t len = key_len(key, d->tags);
    if (2 * (num_states(d) + 1) > d->num_slots) {
        free(d->slots);
        d->num_slots = d->num_slots ? 2 * d->num_slots : 64;
        d->slots = mim_xcalloc(d->num_slots, sizeof *d->slots);
        for (size_t s = 0; s < num_states(d); ++s) det_index(d, s);
    }
    size_t mask = d->num_slots - 1;
    for (size_t i = (size_t)key_hash(key, len) & mask; d->slots[i]; i = (i + 1) & mask) {
        const uint32_t *k = key_of(d, d->slots[i] - 1);
        if (key_len(k, d->tags) == len && !memcmp(k, key, len * sizeof *key)) return d->slots[i] - 1;
    }
    mim_vec_push(&d->key_at, d->keys.len);
    for (size_t i = 0; i < len; ++i) mim_vec_push(&d->keys, key[i]);
    mim_vec_push(&d->num_regs, regs);
    det_index(d, num_states(d) - 1);
    return num_states(d) - 1;
}

static bool is_kernel(const Det *d, size_t q) { return d->a->st.data[q].chars || q == d->final; }

static void push_frame(Det *d, size_t q, const uint32_t *row) {
    mim_vec_push(&d->stack_q, (uint32_t)q);
    for (size_t t = 0; t < d->tags; ++t) mim_vec_push(&d->stack_rows, row[t]);
}

/* The ε-closure from the frames on the stack, depth first in priority
 * order (the stack holds them in reverse); the first path to reach a state
 * wins. Kernel states are appended to out in visiting order with their row
 * (a tag crossed on the way is CUR). */
static void closure(Det *d) {
    const Tnfa *a = d->a;
    uint32_t *row = mim_xmalloc((d->tags + 1) * sizeof *row);
    while (d->stack_q.len) {
        size_t q = d->stack_q.data[--d->stack_q.len];
        d->stack_rows.len -= d->tags;
        if (d->tags) memcpy(row, d->stack_rows.data + d->stack_rows.len, d->tags * sizeof *row); /* data NULL without tags */
        if (d->visited[q / 64] >> (q % 64) & 1) continue;
        d->visited[q / 64] |= (uint64_t)1 << (q % 64);
        if (is_kernel(d, q)) {
            const uint64_t *live = d->live + q * d->live_words;
            mim_vec_push(&d->out_q, (uint32_t)q);
            for (size_t t = 0; t < d->tags; ++t) mim_vec_push(&d->out_rows, live[t / 64] >> (t % 64) & 1 ? row[t] : NIL);
        }
        const TNState *st = &a->st.data[q];
        for (size_t e = st->edges.len; e-- > 0;) {
            const TEdge *ed = &st->edges.data[e];
            if (ed->lo >= 0 || d->visited[ed->to / 64] >> (ed->to % 64) & 1) continue;
            uint32_t saved = ed->tag >= 0 ? row[ed->tag] : 0;
            if (ed->tag >= 0) row[ed->tag] = CUR;
            push_frame(d, ed->to, row);
            if (ed->tag >= 0) row[ed->tag] = saved;
        }
    }
    free(row);
}

/* The target of a step whose closure is in out: registers renumbered in
 * order of first use, their sources appended to d->ops; returns the state. */
static size_t canonical_target(Det *d, size_t *ops_at, size_t old_regs) {
    size_t num = d->out_q.len;
    uint32_t *map = mim_xcalloc(old_regs + 2, sizeof *map); /* old register r (or CUR at old_regs + 1) ↦ new */
    uint32_t *key = mim_xmalloc((1 + num + num * d->tags) * sizeof *key);
    uint32_t regs = 0;
    *ops_at = d->ops.len;
    key[0] = (uint32_t)num;
    for (size_t j = 0; j < num; ++j) key[1 + j] = d->out_q.data[j];
    for (size_t t = 0; t < d->tags; ++t) {
        /* registers hold one tag each: sharing a register between tags
         * would make states differ by which tags happen to share one */
        memset(map, 0, (old_regs + 2) * sizeof *map);
        for (size_t j = 0; j < num; ++j) {
            size_t at = j * d->tags + t;
            uint32_t src = d->out_rows.data[at];
            if (src == NIL) {
                key[1 + num + at] = NIL;
                continue;
            }
            size_t slot = src == CUR ? old_regs + 1 : src;
            if (!map[slot]) {
                map[slot] = ++regs;
                mim_vec_push(&d->ops, src);
            }
            key[1 + num + at] = map[slot];
        }
    }
    size_t s = det_find_or_add(d, key, regs);
    free(map);
    free(key);
    return s;
}

/* An edge (target, ops) of state s, shared by the classes that agree. */
static size_t add_edge(Det *d, size_t to, size_t ops_at, size_t first_edge) {
    uint32_t regs = d->num_regs.data[to];
    for (size_t e = first_edge; e < d->edge_to.len; ++e)
        if (d->edge_to.data[e] == to &&
            (!regs || !memcmp(d->ops.data + d->edge_ops_at.data[e], d->ops.data + ops_at, regs * sizeof(uint32_t)))) {
            d->ops.len = ops_at; /* the same operations again */
            return e;
        }
    mim_vec_push(&d->edge_to, to);
    mim_vec_push(&d->edge_ops_at, ops_at);
    return d->edge_to.len - 1;
}

/* Character classes: characters in exactly the same ranges of the NFA are
 * equivalent; NUL is class 0 (the run stops there). */
static void det_classes(Det *d) {
    d->num_classes = 1;
    d->rep[0] = 0;
    d->cls[0] = 0;
    for (int c = 1; c < NUM_CHARS; ++c) {
        if (c == 1 || d->a->bound[c]) d->rep[d->num_classes++] = c;
        d->cls[c] = (uint8_t)(d->num_classes - 1);
    }
}

/* Tag liveness: t is live at q if some path from q to the final state
 * does not set t, i.e. the value t has at q may be reported. A dead tag's
 * register is dropped from the configuration (NIL), so that states that
 * differ only in values that will be overwritten are one state: without
 * this, patterns with a dozen groups needed thousands of states. */
static void det_liveness(Det *d) {
    const Tnfa *a = d->a;
    size_t words = d->live_words = (d->tags + 63) / 64 ? (d->tags + 63) / 64 : 1;
    d->live = mim_xcalloc(a->st.len * words, sizeof *d->live);
    for (size_t t = 0; t < d->tags; ++t) d->live[d->final * words + t / 64] |= (uint64_t)1 << (t % 64);
    for (bool changed = true; changed;) { /* to a fixed point; states are mostly numbered forwards */
        changed = false;
        for (size_t q = a->st.len; q-- > 0;) {
            uint64_t *lq = d->live + q * words;
            const TNState *st = &a->st.data[q];
            for (size_t e = 0; e < st->edges.len; ++e) {
                const TEdge *ed = &st->edges.data[e];
                const uint64_t *lt = d->live + ed->to * words;
                for (size_t i = 0; i < words; ++i) {
                    uint64_t bits = lt[i];
                    if (ed->tag >= 0 && (size_t)ed->tag / 64 == i) bits &= ~((uint64_t)1 << (ed->tag % 64));
                    if (bits & ~lq[i]) lq[i] |= bits, changed = true;
                }
            }
        }
    }
}

/* The TDFA of a from start (final: the accepting NFA state); false if it
 * needs more than MAX_TSTATES states. Edge ops of the start: d->ops[0…). */
static bool determinize(Det *d, size_t start) {
    size_t words = (d->a->st.len + 63) / 64;
    d->visited = mim_xcalloc(words, sizeof *d->visited);
    det_classes(d);
    det_liveness(d);
    uint32_t *nil_row = mim_xcalloc(d->tags + 1, sizeof *nil_row);
    push_frame(d, start, nil_row);
    free(nil_row);
    closure(d);
    size_t ops_at;
    canonical_target(d, &ops_at, 0); /* state 0; its initial registers are d->ops[0…) (all CUR) */
    bool ok = true;
    for (size_t s = 0; ok && s < num_states(d); ++s) {
        size_t first_edge = d->edge_to.len;
        for (size_t k = 0; k < d->num_classes; ++k) {
            size_t edge = NO_STATE;
            const uint32_t *key = key_of(d, s); /* re-read: keys may move */
            size_t num = key[0];
            int c = d->rep[k];
            memset(d->visited, 0, words * sizeof *d->visited);
            d->out_q.len = d->out_rows.len = 0;
            bool moved = false;
            /* configurations in priority order; each pushes its targets (in
             * edge order) and closes them before the next */
            for (size_t j = 0; c != 0 && j < num; ++j) {
                key = key_of(d, s);
                const TNState *st = &d->a->st.data[key[1 + j]];
                const uint32_t *row = key + 1 + num + j * d->tags;
                uint32_t *copy = mim_xmalloc((d->tags + 1) * sizeof *copy);
                memcpy(copy, row, d->tags * sizeof *copy);
                for (size_t e = st->edges.len; e-- > 0;) {
                    const TEdge *ed = &st->edges.data[e];
                    if (ed->lo < 0 || c < ed->lo || c > ed->hi) continue;
                    push_frame(d, ed->to, copy);
                    moved = true;
                }
                free(copy);
                closure(d);
            }
            if (moved) {
                size_t to = canonical_target(d, &ops_at, d->num_regs.data[s]);
                edge = add_edge(d, to, ops_at, first_edge);
                if (num_states(d) > MAX_TSTATES) ok = false;
            }
            mim_vec_push(&d->trans, edge);
        }
    }
    return ok;
}

static void det_free(Det *d) {
    mim_vec_free(&d->keys), mim_vec_free(&d->key_at), mim_vec_free(&d->num_regs);
    mim_vec_free(&d->trans), mim_vec_free(&d->edge_to), mim_vec_free(&d->edge_ops_at), mim_vec_free(&d->ops);
    mim_vec_free(&d->out_q), mim_vec_free(&d->out_rows), mim_vec_free(&d->stack_q), mim_vec_free(&d->stack_rows);
    free(d->slots);
    free(d->visited);
    free(d->live);
}

/* The configuration of the final NFA state in s (the parse that wins), or
 * NO_STATE if s does not accept. */
static size_t final_conf(const Det *d, size_t s) {
    const uint32_t *key = key_of(d, s);
    for (size_t j = 0; j < key[0]; ++j)
        if (key[1 + j] == d->final) return j;
    return NO_STATE;
}

/* ---- the matcher ------------------------------------------------------------------ */

typedef struct CGen {
    MimWorld *w;
    const Det *d;
    MimDef *n, *k, *string, *caps, *pos, *exit;
    MimDef *I, *none; /* Idx n, and ⊤ of it */
    MimDef **state;   /* per TDFA state: Cn [M, Idx n, Idx n …(registers)] */
    MimDef *fail;     /* Cn [M, Idx n] */
    size_t entries;   /* 2 · (groups + 1) */
} CGen;

static MimDef *annex(MimWorld *w, uint64_t id) { return mim_world_annex(w, id); }

/* `(a, b)#k args`: b if k holds, else a. */
static MimDef *branch(MimWorld *w, MimDef *a, MimDef *b, MimDef *k, MimDef *args) {
    return mim_app(w, mim_extract(w, mim_pair(w, a, b), k), args);
}

/* i + 1 on Idx n */
static MimDef *next_pos(CGen *g, MimDef *i) {
    MimWorld *w = g->w;
    MimDef *conv = mim_app(w, mim_app(w, annex(w, MIM_core_conv_u), mim_lit_nat(w, 0)), g->n);
    MimDef *one = mim_app(w, conv, mim_lit_int(w, 64, 1));
    MimDef *add = mim_app(w, annex(w, MIM_core_wrap_add), g->n);
    add = mim_app(w, add, mim_lit_nat(w, 3));
    return mim_app(w, add, mim_pair(w, i, one));
}

/* `%mem.load (m, %mem.lea (n, ‹n; I8›, 0) (string, i))`: (m', c) */
static MimDef *load_char(CGen *g, MimDef *m, MimDef *i) {
    MimWorld *w = g->w;
    MimDef *I8 = mim_type_int(w, 8);
    MimDef *elems = mim_pack(w, g->n, I8);
    MimDef *lea_ops[3] = {g->n, elems, mim_lit_nat(w, 0)};
    MimDef *ptr = mim_app(w, annex(w, MIM_mem_lea), mim_tuple(w, lea_ops, 3));
    ptr = mim_app(w, ptr, mim_pair(w, g->string, i));
    MimDef *load = mim_app(w, annex(w, MIM_mem_load), mim_pair(w, I8, mim_lit_nat(w, 0)));
    return mim_app(w, load, mim_pair(w, m, ptr));
}

/* m' = `%mem.store (m, %mem.lea (k, ‹k; Idx n›, 0) (caps, j), v)` */
static MimDef *store_entry(CGen *g, MimDef *m, size_t j, MimDef *v) {
    MimWorld *w = g->w;
    MimDef *elems = mim_pack(w, g->k, g->I);
    MimDef *lea_ops[3] = {g->k, elems, mim_lit_nat(w, 0)};
    MimDef *ptr = mim_app(w, annex(w, MIM_mem_lea), mim_tuple(w, lea_ops, 3));
    /* j of Idx k as `%core.conv.u k j:I64`: a literal for a literal k, and
     * well-typed for k = ⊤:Nat, whose literals other than 0 cannot be built */
    MimDef *conv = mim_app(w, annex(w, MIM_core_conv_u), mim_lit_nat(w, 0));
    conv = mim_app(w, conv, g->k);
    MimDef *at = mim_app(w, conv, mim_lit_int(w, 64, j));
    ptr = ptr && at ? mim_app(w, ptr, mim_pair(w, g->caps, at)) : NULL;
    if (!ptr) return NULL;
    MimDef *st_ops[3] = {m, ptr, v};
    return mim_iapp(w, annex(w, MIM_mem_store), mim_tuple(w, st_ops, 3));
}

/* The parameter type of state s: [M, Idx n, Idx n × registers]. */
static MimDef *state_type(CGen *g, size_t s) {
    size_t regs = g->d->num_regs.data[s];
    MimDef **ops = mim_xmalloc((2 + regs) * sizeof *ops);
    ops[0] = annex(g->w, MIM_mem_M);
    for (size_t r = 0; r <= regs; ++r) ops[1 + r] = g->I;
    MimDef *sig = mim_sigma(g->w, ops, 2 + regs);
    free(ops);
    return mim_cn(g->w, sig);
}

static MimDef *named_lam(MimWorld *w, MimDef *type, const char *name) {
    MimDef *lam = mim_mut_lam(w, type);
    if (lam) mim_def_set_name(lam, mim_world_sym(w, name));
    return lam;
}

/* The parameters of a continuation of state s's type: m, i, registers. */
static MimDef **state_vars(CGen *g, MimDef *lam, size_t s) {
    size_t num = 2 + g->d->num_regs.data[s];
    MimDef **v = mim_xmalloc(num * sizeof *v);
    for (size_t j = 0; j < num; ++j) v[j] = mim_var_proj(g->w, lam, num, j);
    return v;
}

/* The body of `final_s (m, i, regs)`: the positions of the winning parse
 * written to caps and `exit (m', tt, i)`, or `fail (m, i)`. */
static bool gen_final(CGen *g, MimDef *lam, size_t s) {
    MimWorld *w = g->w;
    MimDef **v = state_vars(g, lam, s);
    size_t conf = final_conf(g->d, s);
    MimDef *body;
    if (conf == NO_STATE) {
        body = mim_app(w, g->fail, mim_pair(w, v[0], v[1]));
    } else {
        const uint32_t *key = key_of(g->d, s);
        const uint32_t *row = key + 1 + key[0] + conf * g->d->tags;
        MimDef *m = store_entry(g, v[0], 0, g->pos);
        if (m) m = store_entry(g, m, 1, v[1]);
        for (size_t t = 0; m && t < g->d->tags; ++t) m = store_entry(g, m, 2 + t, row[t] == NIL ? g->none : v[1 + row[t]]);
        MimDef *res[3] = {m, mim_lit_bool(w, true), v[1]};
        body = m ? mim_app(w, g->exit, mim_tuple(w, res, 3)) : NULL;
    }
    free(v);
    return body && mim_lam_set(w, lam, mim_lit_bool(w, false), body);
}

/* `fail (m, i)`: every entry ⊤, `exit (m', ff, i)`. */
static bool gen_fail(CGen *g) {
    MimWorld *w = g->w;
    MimDef *m = mim_var_proj(w, g->fail, 2, 0), *i = mim_var_proj(w, g->fail, 2, 1);
    for (size_t j = 0; m && j < g->entries; ++j) m = store_entry(g, m, j, g->none);
    if (!m) return false;
    MimDef *ff = mim_lit_bool(w, false);
    MimDef *res[3] = {m, ff, i};
    MimDef *body = mim_app(w, g->exit, mim_tuple(w, res, 3));
    return mim_lam_set(w, g->fail, ff, body) != NULL;
}

/* An edge of a state in the generated code: its index and how many
 * characters take it. */
typedef struct COut {
    size_t edge, count;
    bool self;
} COut;

/* Self-loop first, larger character sets first, then edge order (as
 * lower.c's control-flow form). */
static int cmp_cout(const void *x, const void *y) {
    const COut *a = x, *b = y;
    if (a->self != b->self) return a->self ? -1 : 1;
    if (a->count != b->count) return a->count > b->count ? -1 : 1;
    return (a->edge > b->edge) - (a->edge < b->edge);
}

/* `go (m, i, regs) = state_t (m, i + 1, regs')`, regs' from the edge's
 * sources: an old register or the new position. */
static MimDef *gen_go(CGen *g, size_t s, size_t e) {
    MimWorld *w = g->w;
    const Det *d = g->d;
    size_t to = d->edge_to.data[e], regs = d->num_regs.data[to];
    char name[64];
    snprintf(name, sizeof name, "go_%zu_%zu", s, to);
    MimDef *lam = named_lam(w, state_type(g, s), name);
    if (!lam) return NULL;
    MimDef **v = state_vars(g, lam, s);
    MimDef **args = mim_xmalloc((2 + regs) * sizeof *args);
    args[0] = v[0];
    args[1] = next_pos(g, v[1]);
    const uint32_t *src = regs ? d->ops.data + d->edge_ops_at.data[e] : NULL; /* data NULL without registers */
    for (size_t r = 0; r < regs; ++r) args[2 + r] = src[r] == CUR ? args[1] : v[1 + src[r]];
    MimDef *body = mim_app(w, g->state[to], mim_tuple(w, args, 2 + regs));
    free(args);
    free(v);
    return mim_lam_set(w, lam, mim_lit_bool(w, false), body) ? lam : NULL;
}

/* The body of state_s: load c; at NUL final_s, else the checks of its
 * edges, the last falling back to final_s. */
static bool gen_state(CGen *g, size_t s) {
    MimWorld *w = g->w;
    const Det *d = g->d;
    char name[64];
    MimDef *type = state_type(g, s);
    snprintf(name, sizeof name, "final_%zu", s);
    MimDef *fin = named_lam(w, type, name);
    if (!fin || !gen_final(g, fin, s)) return false;

    size_t first = NO_STATE, last = 0;
    for (size_t k = 0; k < d->num_classes; ++k) {
        size_t e = d->trans.data[s * d->num_classes + k];
        if (e == NO_STATE) continue;
        if (first == NO_STATE || e < first) first = e;
        if (e > last) last = e;
    }
    size_t num_edges = first == NO_STATE ? 0 : last - first + 1;
    COut *outs = mim_xcalloc(num_edges ? num_edges : 1, sizeof *outs);
    for (size_t j = 0; j < num_edges; ++j) outs[j] = (COut){first + j, 0, d->edge_to.data[first + j] == s};
    for (int c = 1; c < NUM_CHARS; ++c) {
        size_t e = d->trans.data[s * d->num_classes + d->cls[c]];
        if (e != NO_STATE) ++outs[e - first].count;
    }
    qsort(outs, num_edges, sizeof *outs, cmp_cout);

    /* c is loaded once, in state_s; the checks use it (as lower.c's) */
    MimDef *lam = g->state[s];
    MimDef **sv = state_vars(g, lam, s);
    MimDef *loaded = load_char(g, sv[0], sv[1]);
    sv[0] = mim_proj(w, loaded, 2, 0);
    MimDef *c = mim_proj(w, loaded, 2, 1);
    MimDef *next = fin;
    bool chars[NUM_CHARS];
    bool ok = true;
    for (size_t j = num_edges; ok && j-- > 0;) {
        size_t e = outs[j].edge;
        if (!outs[j].count) continue;
        snprintf(name, sizeof name, "check_%zu_%zu", s, e - first);
        MimDef *check = named_lam(w, type, name);
        MimDef *go = check ? gen_go(g, s, e) : NULL;
        if (!go) {
            ok = false;
            break;
        }
        MimDef **v = state_vars(g, check, s);
        for (int ch = 0; ch < NUM_CHARS; ++ch)
            chars[ch] = ch != 0 && d->trans.data[s * d->num_classes + d->cls[ch]] == e;
        MimDef *k = regex_char_check(w, chars, c);
        MimDef *args = mim_tuple(w, v, 2 + d->num_regs.data[s]);
        MimDef *body = branch(w, next, go, k, args);
        free(v);
        ok = mim_lam_set(w, check, mim_lit_bool(w, false), body) != NULL;
        next = check;
    }
    free(outs);
    MimDef *args = ok ? mim_tuple(w, sv, 2 + d->num_regs.data[s]) : NULL;
    free(sv);
    if (!ok) return false;
    MimDef *is_nul = regex_cmp_char(w, MIM_core_icmp_e, c, 0);
    MimDef *body = branch(w, next, fin, is_nul, args);
    return mim_lam_set(w, lam, mim_lit_bool(w, false), body) != NULL;
}

/* match_capture for the TDFA d, size n and capture array length k, viewed
 * in direct style. */
static MimDef *gen_capture(MimWorld *w, const Det *d, MimDef *n, MimDef *k) {
    MimDef *M = annex(w, MIM_mem_M), *I = mim_type_idx(w, n);
    MimDef *arr = mim_arr(w, n, mim_type_int(w, 8));
    MimDef *str = mim_app(w, annex(w, MIM_mem_Ptr), mim_pair(w, arr, mim_lit_nat(w, 0)));
    MimDef *caps_arr = mim_arr(w, k, I);
    MimDef *caps = mim_app(w, annex(w, MIM_mem_Ptr), mim_pair(w, caps_arr, mim_lit_nat(w, 0)));
    MimDef *dom_ops[4] = {M, str, I, caps};
    MimDef *sig_dom = mim_sigma(w, dom_ops, 4);
    MimDef *cod_ops[3] = {M, mim_type_bool(w), I};
    MimDef *sig_cod = mim_sigma(w, cod_ops, 3);
    MimDef *match = named_lam(w, mim_fn(w, sig_dom, sig_cod), "match_capture");
    if (!match) return NULL;
    MimDef *args = mim_var_proj(w, match, 2, 0);
    CGen g = {w, d, n, k, NULL, NULL, NULL, NULL, I, NULL, NULL, NULL, 2 + d->tags};
    g.string = mim_proj(w, args, 4, 1);
    g.pos = mim_proj(w, args, 4, 2);
    g.caps = mim_proj(w, args, 4, 3);
    g.exit = mim_var_proj(w, match, 2, 1);
    mim_def_set_name(g.exit, mim_world_sym(w, "exit"));
    /* ⊤ of Idx n: all ones, -1 as a signed integer */
    MimDef *conv = mim_app(w, mim_app(w, annex(w, MIM_core_conv_u), mim_lit_nat(w, 0)), n);
    g.none = mim_app(w, conv, mim_lit_int(w, 64, UINT64_MAX));
    MimDef *mi_ops[2] = {M, I};
    g.fail = named_lam(w, mim_cn(w, mim_sigma(w, mi_ops, 2)), "fail");
    if (!g.fail || !gen_fail(&g)) return NULL;
    size_t num = num_states(d);
    g.state = mim_xcalloc(num, sizeof *g.state);
    MimDef *res = NULL;
    char name[32];
    for (size_t s = 0; s < num; ++s) {
        snprintf(name, sizeof name, "tstate_%zu", s);
        if (!(g.state[s] = named_lam(w, state_type(&g, s), name))) goto out;
    }
    for (size_t s = 0; s < num; ++s)
        if (!gen_state(&g, s)) goto out;
    /* state 0 with its initial registers: all the start position */
    size_t regs = d->num_regs.data[0];
    MimDef **start = mim_xmalloc((2 + regs) * sizeof *start);
    start[0] = mim_proj(w, args, 4, 0);
    for (size_t r = 0; r <= regs; ++r) start[1 + r] = g.pos;
    MimDef *body = mim_app(w, g.state[0], mim_tuple(w, start, 2 + regs));
    free(start);
    if (!mim_lam_set(w, match, mim_lit_bool(w, false), body)) goto out;
    MimDef *cps2ds = mim_app(w, annex(w, MIM_direct_cps2ds), mim_pair(w, sig_dom, sig_cod));
    res = mim_app(w, cps2ds, match);
out:
    free(g.state);
    return res;
}

/* ---- the lowering --------------------------------------------------------------- */

static MimLoc where(MimDef *app, MimDef *r) {
    MimLoc loc = mim_def_loc(app);
    return loc.begin.row ? loc : mim_def_loc(r);
}

MimDef *regex_lower_capture(MimPass *p, MimDef *app, MimDef *r, MimDef *n, MimDef *k) {
    MimWorld *w = mim_pass_world(p);
    Tnfa a = {.w = w};
    size_t start = tn_state(&a), final = tn_state(&a);
    tconvert(&a, r, start, final);
    MimDef *res = NULL;
    uint64_t len;
    if (a.bad) {
        char *s = mim_def_to_str(w, a.bad);
        mim_pass_error(p, mim_def_loc(a.bad).begin.row ? mim_def_loc(a.bad) : where(app, r),
                       "regex: cannot lower '%s' in a capturing matcher: %s", s, a.why);
        free(s);
    } else if (mim_def_lit(k, &len) && len != 0 && len < 2 + (uint64_t)a.tags) {
        mim_pass_error(p, where(app, r), "regex: the capture array has %llu entries, the matcher writes %u (2 per group and 2 for the whole match)",
                       (unsigned long long)len, 2 + a.tags);
    } else {
        Det d = {.a = &a, .final = final, .tags = a.tags};
        if (!determinize(&d, start))
            mim_pass_error(p, where(app, r), "regex: the capturing matcher needs more than %d states", MAX_TSTATES);
        else
            res = gen_capture(w, &d, n, k);
        det_free(&d);
    }
    tn_free(&a);
    return res;
}
