/* The lower_regex pass (regex.md §4): every first application `r n` of a
 * matcher r (a fully applied conj, disj, not_, range or quant call) to its
 * size becomes a direct-style view (`%direct.cps2ds`) of a generated CPS
 * function match_regex that runs the matcher's minimal DFA over the string:
 *
 *     regex --(§4.1 convert)--> NFA --(§4.2 subsets)--> DFA
 *           --(§4.3 Moore refinement)--> minimal DFA --(§4.4)--> matcher
 *
 * The matcher is a loop over a constant transition table reading 1 to 3
 * characters per lookup, or, for an automaton whose start state is
 * erroring, §4.4's continuations (one per state); both have §4.4's run
 * semantics (choose_form, docs/regex.md "Lowering").
 *
 * Only %core and %mem operations are generated, so the LLVM back end takes
 * the result once direct's passes have removed the cps2ds call. A
 * capturing matcher `%regex.capture r n k` is lowered by capture.c (a
 * tagged DFA); a plain matcher treats `%regex.group i r` as r. */
#include "mim/pass.h"
#include "mim/plugin/core.h"
#include "mim/plugin/direct.h"
#include "mim/plugin/mem.h"
#include "mim/ptrmap.h"
#include "mim/vec.h"
#include "regex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NUM_CHARS 256

/* ---- the NFA (§4.1) ------------------------------------------------------------ */

typedef struct Edge {
    int c; /* 0…255, or -1 for ε */
    size_t to;
} Edge;

typedef struct NState {
    MIM_VEC(Edge) edges;
    bool accepting, erroring;
} NState;

typedef struct Nfa {
    MIM_VEC(NState) st;
    MimDef *bad; /* a part that cannot be lowered (non-literal bounds or count), or NULL */
} Nfa;

static size_t nfa_state(Nfa *a) {
    mim_vec_push(&a->st, ((NState){0}));
    return a->st.len - 1;
}

static void nfa_edge(Nfa *a, size_t from, int c, size_t to) {
    mim_vec_push(&a->st.data[from].edges, ((Edge){c, to}));
}

static void nfa_free(Nfa *a) {
    for (size_t i = 0; i < a->st.len; ++i) mim_vec_free(&a->st.data[i].edges);
    mim_vec_free(&a->st);
}

#define NO_STATE ((size_t)-1)

enum { Q_OPTIONAL, Q_STAR, Q_PLUS };

/* convert(r, from, to, err) of §4.1; err NO_STATE = not given. */
static void convert(MimWorld *w, Nfa *a, MimDef *r, size_t from, size_t to, size_t err) {
    uint64_t n, lo, hi;
    MimDef *ops, *call;
    bool nary = regex_nary(r, MIM_regex_conj, &n, &ops) || regex_nary(r, MIM_regex_disj, &n, &ops);
    if (nary && n > REGEX_MAX_OPERANDS) return; /* left alone, like anything else unknown */
    if (!nary && (mim_match(r, MIM_regex_conj) || mim_match(r, MIM_regex_disj))) {
        if (!a->bad) a->bad = r; /* an operand count only known at run time */
        return;
    }
    if (regex_nary(r, MIM_regex_conj, &n, &ops)) {
        if (n == 0) nfa_edge(a, from, -1, to);
        size_t cur = from;
        for (uint64_t i = 0; i < n; ++i) {
            size_t next = i + 1 == n ? to : nfa_state(a);
            convert(w, a, mim_proj(w, ops, n, i), cur, next, err);
            cur = next;
        }
    } else if (regex_nary(r, MIM_regex_disj, &n, &ops)) {
        for (uint64_t i = 0; i < n; ++i) convert(w, a, mim_proj(w, ops, n, i), from, to, err);
    } else if (mim_match(r, MIM_regex_range) && !regex_range(w, r, &lo, &hi)) {
        if (!a->bad) a->bad = r; /* bounds only known at run time */
    } else if (regex_range(w, r, &lo, &hi)) {
        for (uint64_t c = lo; c <= hi && c < NUM_CHARS; ++c) nfa_edge(a, from, (int)c, to);
        if (err != NO_STATE)
            for (int c = 0; c < NUM_CHARS; ++c) nfa_edge(a, from, c, err);
    } else if ((call = mim_match(r, MIM_regex_not_))) {
        size_t first = nfa_state(a), e = nfa_state(a);
        a->st.data[e].erroring = true;
        nfa_edge(a, from, -1, first);
        convert(w, a, mim_app_nth_arg(call, 0), first, e, to);
    } else if ((call = mim_match(r, MIM_regex_group)) && mim_app_num_args(call) == 2) {
        convert(w, a, mim_app_nth_arg(call, 1), from, to, err); /* a plain matcher ignores groups */
    } else if ((call = mim_match_annex(r, MIM_regex_quant)) && mim_app_num_args(call) == 1) {
        MimDef *x = mim_app_nth_arg(call, 0);
        switch (mim_callee_sub(call)) {
        case Q_OPTIONAL:
            nfa_edge(a, from, -1, to);
            convert(w, a, x, from, to, NO_STATE);
            break;
        case Q_STAR: {
            size_t m1 = nfa_state(a), m2 = nfa_state(a);
            nfa_edge(a, from, -1, m1), nfa_edge(a, from, -1, to);
            nfa_edge(a, m2, -1, m1), nfa_edge(a, m2, -1, to);
            convert(w, a, x, m1, m2, NO_STATE);
            break;
        }
        case Q_PLUS: {
            size_t m0 = nfa_state(a), m1 = nfa_state(a), m2 = nfa_state(a);
            convert(w, a, x, from, m0, err);
            nfa_edge(a, m0, -1, m1), nfa_edge(a, m2, -1, m1);
            nfa_edge(a, m2, -1, to), nfa_edge(a, m0, -1, to);
            convert(w, a, x, m1, m2, NO_STATE);
            break;
        }
        default: break;
        }
    }
    /* anything else, %regex.any included (§2.2): nothing */
}

/* ---- the DFA (§4.2) -------------------------------------------------------------- */

typedef struct Dfa {
    int (*next)[NUM_CHARS]; /* next[s][c]: target state or -1 */
    bool *accepting, *erroring;
    size_t num;
} Dfa;

/* The DFA states as sets of NFA states: sorted member lists, one after the
 * other (a set has a handful of members while the NFA of a big automaton
 * has tens of thousands of states, so bit sets would make every step
 * linear in the NFA). */
typedef struct StateSets {
    MIM_VEC(size_t) members; /* the sets' members, set after set */
    MIM_VEC(size_t) start;   /* set k is members[start[k] .. start[k+1]) */
    size_t *slots;           /* hash index: set + 1, 0 = empty */
    size_t num_slots;
} StateSets;

static size_t sets_num(const StateSets *ss) { return ss->start.len - 1; }

static uint64_t set_hash(const size_t *s, size_t len) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
    for (size_t i = 0; i < len; ++i) h = (h ^ s[i]) * 0xbf58476d1ce4e5b9ull;
    return h ^ h >> 31;
}

static void sets_index(StateSets *ss, size_t k) {
    size_t mask = ss->num_slots - 1, from = ss->start.data[k];
    size_t i = (size_t)set_hash(ss->members.data + from, ss->start.data[k + 1] - from) & mask;
    while (ss->slots[i]) i = (i + 1) & mask;
    ss->slots[i] = k + 1;
}

/* Grows the hash index to keep it at most half full with one more set. */
static void sets_reserve(StateSets *ss) {
    if (2 * (sets_num(ss) + 1) <= ss->num_slots) return;
    free(ss->slots);
    ss->num_slots = ss->num_slots ? 2 * ss->num_slots : 64;
    ss->slots = mim_xcalloc(ss->num_slots, sizeof *ss->slots);
    for (size_t k = 0; k < sets_num(ss); ++k) sets_index(ss, k);
}

/* The state holding the sorted set s (len members), added if new; *added
 * tells which. */
static size_t sets_find_or_add(StateSets *ss, const size_t *s, size_t len, bool *added) {
    sets_reserve(ss);
    size_t mask = ss->num_slots - 1;
    for (size_t i = (size_t)set_hash(s, len) & mask; ss->slots[i]; i = (i + 1) & mask) {
        size_t k = ss->slots[i] - 1, from = ss->start.data[k];
        if (ss->start.data[k + 1] - from == len && !memcmp(ss->members.data + from, s, len * sizeof *s)) {
            *added = false;
            return k;
        }
    }
    for (size_t i = 0; i < len; ++i) mim_vec_push(&ss->members, s[i]);
    mim_vec_push(&ss->start, ss->members.len);
    sets_index(ss, sets_num(ss) - 1);
    *added = true;
    return sets_num(ss) - 1;
}

static int by_state(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* s (len members, each marked in `mark`) := its ε-closure, sorted; the
 * marks are cleared again. s has room for every NFA state. */
static size_t closure(const Nfa *a, size_t *s, size_t len, uint64_t *mark) {
    for (size_t i = 0; i < len; ++i) {
        const NState *st = &a->st.data[s[i]];
        for (size_t e = 0; e < st->edges.len; ++e) {
            size_t t = st->edges.data[e].to;
            if (st->edges.data[e].c < 0 && !(mark[t / 64] >> (t % 64) & 1)) {
                mark[t / 64] |= (uint64_t)1 << (t % 64);
                s[len++] = t;
            }
        }
    }
    qsort(s, len, sizeof *s, by_state);
    for (size_t i = 0; i < len; ++i) mark[s[i] / 64] &= ~((uint64_t)1 << (s[i] % 64));
    return len;
}

static void dfa_grow(Dfa *d, size_t num) {
    d->next = mim_xrealloc(d->next, num * sizeof *d->next);
    d->accepting = mim_xrealloc(d->accepting, num * sizeof *d->accepting);
    d->erroring = mim_xrealloc(d->erroring, num * sizeof *d->erroring);
}

static void dfa_free(Dfa *d) {
    free(d->next);
    free(d->accepting);
    free(d->erroring);
}

/* Subset construction from `start`; states are numbered in order of
 * discovery (0 = start), characters explored in ascending order. */
static Dfa subsets(const Nfa *a, size_t start) {
    StateSets ss = {0};
    mim_vec_push(&ss.start, 0);
    Dfa d = {0};
    size_t n = a->st.len;
    uint64_t *mark = mim_xcalloc((n + 63) / 64, sizeof *mark);
    size_t *cur = mim_xmalloc(n * sizeof *cur), *moved = mim_xmalloc(n * sizeof *moved);
    size_t count[NUM_CHARS], *moves = NULL, moves_cap = 0; /* the character edges of a state */
    cur[0] = start;
    mark[start / 64] |= (uint64_t)1 << (start % 64);
    size_t len = closure(a, cur, 1, mark);
    bool added;
    sets_find_or_add(&ss, cur, len, &added);
    for (size_t k = 0; k < sets_num(&ss); ++k) {
        dfa_grow(&d, sets_num(&ss));
        /* the members of state k (ascending), and their character edges
         * bucketed by character (counting sort; ascending member order in a
         * bucket) */
        size_t num_members = ss.start.data[k + 1] - ss.start.data[k], num_moves = 0;
        memcpy(cur, ss.members.data + ss.start.data[k], num_members * sizeof *cur);
        bool acc = false, err = false;
        memset(count, 0, sizeof count);
        for (size_t m = 0; m < num_members; ++m) {
            const NState *st = &a->st.data[cur[m]];
            acc |= st->accepting, err |= st->erroring;
            for (size_t e = 0; e < st->edges.len; ++e)
                if (st->edges.data[e].c >= 0) ++count[st->edges.data[e].c], ++num_moves;
        }
        d.erroring[k] = err;
        d.accepting[k] = acc && !err;
        for (int c = 0; c < NUM_CHARS; ++c) d.next[k][c] = -1;
        if (err) continue; /* erroring states have no transitions */
        if (num_moves > moves_cap) {
            moves_cap = 2 * num_moves;
            moves = mim_xrealloc(moves, moves_cap * sizeof *moves);
        }
        size_t first[NUM_CHARS + 1];
        first[0] = 0;
        for (int c = 0; c < NUM_CHARS; ++c) first[c + 1] = first[c] + count[c];
        size_t fill[NUM_CHARS];
        memcpy(fill, first, sizeof fill);
        for (size_t m = 0; m < num_members; ++m) {
            const NState *st = &a->st.data[cur[m]];
            for (size_t e = 0; e < st->edges.len; ++e)
                if (st->edges.data[e].c >= 0) moves[fill[st->edges.data[e].c]++] = st->edges.data[e].to;
        }
        for (int c = 0; c < NUM_CHARS; ++c) {
            if (first[c] == first[c + 1]) continue;
            size_t num_moved = 0;
            for (size_t j = first[c]; j < first[c + 1]; ++j) {
                size_t t = moves[j];
                if (!(mark[t / 64] >> (t % 64) & 1)) {
                    mark[t / 64] |= (uint64_t)1 << (t % 64);
                    moved[num_moved++] = t;
                }
            }
            num_moved = closure(a, moved, num_moved, mark);
            d.next[k][c] = (int)sets_find_or_add(&ss, moved, num_moved, &added);
        }
    }
    d.num = sets_num(&ss);
    free(cur), free(moved), free(mark), free(moves);
    mim_vec_free(&ss.members), mim_vec_free(&ss.start), free(ss.slots);
    return d;
}

/* ---- minimization (§4.3) ---------------------------------------------------------- */

/* Moore's partition refinement from {accepting, erroring, other}: two states
 * stay together while they have the same block and, for every character,
 * both no transition or transitions into the same block (a missing
 * transition ends the run there, so it is not a move to a dead state). The
 * result's states are the blocks, numbered in order of discovery from the
 * start (breadth first, characters ascending): the names of the generated
 * continuations do not depend on hashing. */
/* The signature of s in a round of refinement: its block and, per
 * character, the block of its target or none. */
static uint64_t signature_hash(const Dfa *d, const size_t *block, size_t s) {
    uint64_t h = (block[s] + 1) * 0x9e3779b97f4a7c15ull;
    for (int c = 0; c < NUM_CHARS; ++c) {
        int t = d->next[s][c];
        h = (h ^ (t < 0 ? 0 : block[t] + 1)) * 0xbf58476d1ce4e5b9ull;
    }
    return h ^ h >> 31;
}

static bool same_signature(const Dfa *d, const size_t *block, size_t s, size_t r) {
    if (block[r] != block[s]) return false;
    for (int c = 0; c < NUM_CHARS; ++c) {
        int x = d->next[s][c], y = d->next[r][c];
        if (!((x < 0 && y < 0) || (x >= 0 && y >= 0 && block[x] == block[y]))) return false;
    }
    return true;
}

/* States with the same signature (signature_hash, same_signature) stay
 * together; a hash of the signatures makes a round linear in the states. */
static Dfa minimize(const Dfa *d) {
    size_t n = d->num;
    size_t *block = mim_xmalloc(n * sizeof *block), *sig_block = mim_xmalloc(n * sizeof *sig_block);
    bool present[3] = {false, false, false};
    for (size_t s = 0; s < n; ++s) present[block[s] = d->accepting[s] ? 0 : d->erroring[s] ? 1 : 2] = true;
    size_t num_blocks = (size_t)present[0] + present[1] + present[2]; /* the non-empty ones */
    /* signatures seen in a round (state + 1, 0 = empty), at most half full */
    size_t num_slots = 64;
    while (num_slots < 2 * n) num_slots *= 2;
    size_t *slots = mim_xmalloc(num_slots * sizeof *slots);
    for (;;) {
        /* new block of s = the first state with the same signature */
        size_t fresh = 0;
        memset(slots, 0, num_slots * sizeof *slots);
        for (size_t s = 0; s < n; ++s) {
            size_t i = (size_t)signature_hash(d, block, s) & (num_slots - 1);
            while (slots[i] && !same_signature(d, block, s, slots[i] - 1)) i = (i + 1) & (num_slots - 1);
            if (slots[i]) {
                sig_block[s] = sig_block[slots[i] - 1];
            } else {
                slots[i] = s + 1;
                sig_block[s] = fresh++;
            }
        }
        memcpy(block, sig_block, n * sizeof *block);
        if (fresh == num_blocks) break; /* no block was split */
        num_blocks = fresh;
    }
    /* number the blocks from the start */
    size_t *order = mim_xmalloc(n * sizeof *order), *queue = mim_xmalloc(n * sizeof *queue);
    for (size_t b = 0; b < n; ++b) order[b] = NO_STATE;
    size_t head = 0, tail = 0, num = 0;
    order[block[0]] = num++;
    queue[tail++] = 0;
    Dfa m = {0};
    dfa_grow(&m, n);
    while (head < tail) {
        size_t s = queue[head++], b = order[block[s]];
        m.accepting[b] = d->accepting[s];
        m.erroring[b] = d->erroring[s];
        for (int c = 0; c < NUM_CHARS; ++c) {
            int t = d->next[s][c];
            if (t >= 0 && order[block[t]] == NO_STATE) {
                order[block[t]] = num++;
                queue[tail++] = (size_t)t;
            }
            m.next[b][c] = t < 0 ? -1 : (int)order[block[t]];
        }
    }
    m.num = num;
    free(block), free(sig_block), free(order), free(queue), free(slots);
    return m;
}

/* ---- the matcher (§4.4) -------------------------------------------------------------- */

typedef struct Gen {
    MimWorld *w;
    const Dfa *d;
    MimDef *n, *string, *exit;
    MimDef *cn_mi;               /* Cn [%mem.M, Idx n] */
    MimDef *error, *accept;
    MimDef **state;              /* one continuation per DFA state */
    MimDef **to_state;           /* to_state_t, made on first use (control-flow form) */
} Gen;

static MimDef *annex(MimWorld *w, uint64_t id) { return mim_world_annex(w, id); }

static MimDef *triple(MimWorld *w, MimDef *a, MimDef *b, MimDef *c) {
    MimDef *ops[3] = {a, b, c};
    return mim_tuple(w, ops, 3);
}

static MimDef *cont(Gen *g, const char *name) {
    MimDef *lam = mim_mut_lam(g->w, g->cn_mi);
    if (lam) mim_def_set_name(lam, mim_world_sym(g->w, name));
    return lam;
}

/* `(a, b)#k args`: b if k holds, else a. */
static MimDef *branch(MimWorld *w, MimDef *a, MimDef *b, MimDef *k, MimDef *args) {
    return mim_app(w, mim_extract(w, mim_pair(w, a, b), k), args);
}

/* `%core.icmp.X 256 (c, lit)` */
MimDef *regex_cmp_char(MimWorld *w, uint64_t id, MimDef *c, uint64_t v) {
    MimDef *op = mim_app(w, annex(w, id), mim_lit_nat(w, 256));
    return mim_app(w, op, mim_pair(w, c, mim_lit_int(w, 8, v)));
}

/* `%core.bit2.X 2 (a, b)` on Bool */
static MimDef *bool_op(MimWorld *w, uint64_t id, MimDef *a, MimDef *b) {
    MimDef *op = mim_app(w, annex(w, id), mim_lit_nat(w, 2)); /* s = 2 (Bool) */
    op = mim_app(w, op, mim_lit_nat(w, 2));                     /* the mode 2 */
    return mim_app(w, op, mim_pair(w, a, b));
}

/* The check that c lies in one of the intervals of chars (a 256-entry mask). */
MimDef *regex_char_check(MimWorld *w, const bool *chars, MimDef *c) {
    MimDef *k = NULL;
    for (int lo = 0; lo < NUM_CHARS;) {
        if (!chars[lo]) {
            ++lo;
            continue;
        }
        int hi = lo;
        while (hi + 1 < NUM_CHARS && chars[hi + 1]) ++hi;
        MimDef *one;
        if (lo == 0 && hi == NUM_CHARS - 1) {
            one = mim_lit_bool(w, true);
        } else {
            MimDef *le = regex_cmp_char(w, MIM_core_icmp_ule, c, (uint64_t)hi);
            MimDef *ge = regex_cmp_char(w, MIM_core_icmp_uge, c, (uint64_t)lo);
            one = bool_op(w, MIM_core_bit2_and_, le, ge);
        }
        k = k ? bool_op(w, MIM_core_bit2_or_, k, one) : one;
        lo = hi + 1;
    }
    return k;
}

/* `%mem.load (m, %mem.lea (n, ‹n; I8›, 0) (string, i))`: (m', c). Built
 * one by one, left to right: gids must not depend on the compiler. */
static MimDef *load_char(Gen *g, MimDef *m, MimDef *i) {
    MimWorld *w = g->w;
    MimDef *I8 = mim_type_int(w, 8);
    MimDef *elems = mim_pack(w, g->n, I8);
    MimDef *lea_args = triple(w, g->n, elems, mim_lit_nat(w, 0));
    MimDef *ptr = mim_app(w, annex(w, MIM_mem_lea), lea_args);
    ptr = mim_app(w, ptr, mim_pair(w, g->string, i));
    MimDef *load = mim_app(w, annex(w, MIM_mem_load), mim_pair(w, I8, mim_lit_nat(w, 0)));
    return mim_app(w, load, mim_pair(w, m, ptr));
}

/* `%core.wrap.add 3 (a, b)` on Idx s */
static MimDef *add_idx(MimWorld *w, MimDef *s, MimDef *a, MimDef *b) {
    MimDef *add = mim_app(w, annex(w, MIM_core_wrap_add), s);
    add = mim_app(w, add, mim_lit_nat(w, 3));
    return mim_app(w, add, mim_pair(w, a, b));
}

/* i' = %core.wrap.add 3 (i, %core.conv.u n 1:I64) */
static MimDef *advance(Gen *g, MimDef *i) {
    MimWorld *w = g->w;
    MimDef *conv = mim_app(w, mim_app(w, annex(w, MIM_core_conv_u), mim_lit_nat(w, 0)), g->n);
    MimDef *one = mim_app(w, conv, mim_lit_int(w, 64, 1));
    return add_idx(w, g->n, i, one);
}

static MimDef *final(Gen *g, size_t s) { return g->d->accepting[s] ? g->accept : g->error; }

/* A transition of a state in the control-flow form: its target and how
 * many characters lead there. */
typedef struct Out {
    size_t to, count;
    bool self;
} Out;

/* The order of the checks: the self-loop first (in the e-mail matcher, the
 * self-loops of two states take 70 % of all characters), then larger
 * character sets before smaller ones, then ascending target: fixed, so the
 * output does not depend on anything but the automaton. */
static int cmp_out(const void *a, const void *b) {
    const Out *x = a, *y = b;
    if (x->self != y->self) return x->self ? -1 : 1;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return (x->to > y->to) - (x->to < y->to);
}

/* `to_state_t (m, i) = state_t (m, i')`: a check branches to it or to the
 * next check with the same arguments, so its condition has no other use
 * (no select of the position) and LLVM can compute it where it is tested. */
static MimDef *to_state(Gen *g, size_t t) {
    if (g->to_state[t]) return g->to_state[t];
    char name[48];
    snprintf(name, sizeof name, "to_state_%zu", t);
    MimDef *lam = cont(g, name);
    if (!lam) return NULL;
    MimDef *m = mim_var_proj(g->w, lam, 2, 0), *i = mim_var_proj(g->w, lam, 2, 1);
    MimDef *next_i = advance(g, i);
    MimDef *body = mim_app(g->w, g->state[t], mim_pair(g->w, m, next_i));
    if (!mim_lam_set(g->w, lam, mim_lit_bool(g->w, false), body)) return NULL;
    return g->to_state[t] = lam;
}

/* The body of state_s (m, i). */
static bool gen_state(Gen *g, size_t s) {
    MimWorld *w = g->w;
    MimDef *lam = g->state[s];
    MimDef *m = mim_var_proj(w, lam, 2, 0), *i = mim_var_proj(w, lam, 2, 1);
    if (g->d->erroring[s])
        return mim_lam_set(w, lam, mim_lit_bool(w, true), mim_app(w, g->error, mim_pair(w, m, i))) != NULL;

    MimDef *loaded = load_char(g, m, i);
    MimDef *m2 = mim_proj(w, loaded, 2, 0), *c = mim_proj(w, loaded, 2, 1);

    /* The distinct targets of s: at most one per char, so found from the
     * 256 transitions, not by a scan of all states (that made generation
     * quadratic in the automaton). */
    size_t *count = mim_xcalloc(g->d->num, sizeof *count);
    Out outs[NUM_CHARS];
    size_t num_outs = 0;
    for (int ch = 0; ch < NUM_CHARS; ++ch) {
        int t = g->d->next[s][ch];
        if (t >= 0 && !count[t]++) outs[num_outs++] = (Out){(size_t)t, 0, (size_t)t == s};
    }
    for (size_t j = 0; j < num_outs; ++j) outs[j].count = count[outs[j].to];
    free(count);
    qsort(outs, num_outs, sizeof *outs, cmp_out);

    /* the chain is built from its end: the first check is created last */
    char name[96];
    MimDef *next = final(g, s);
    bool chars[NUM_CHARS];
    for (size_t j = num_outs; j-- > 0;) {
        size_t t = outs[j].to;
        for (int ch = 0; ch < NUM_CHARS; ++ch) chars[ch] = g->d->next[s][ch] == (int)t;
        MimDef *k = regex_char_check(w, chars, c);
        snprintf(name, sizeof name, "check_state_%zu_to_state_%zu", s, t);
        MimDef *check = cont(g, name);
        MimDef *go = check ? to_state(g, t) : NULL;
        if (!go) return false;
        MimDef *cm = mim_var_proj(w, check, 2, 0), *cp = mim_var_proj(w, check, 2, 1);
        MimDef *body = branch(w, next, go, k, mim_pair(w, cm, cp));
        if (!mim_lam_set(w, check, mim_lit_bool(w, false), body)) return false;
        next = check;
    }
    /* next directly, not a wrapper continuation around it: η-reduction would
     * remove such a wrapper, but deciding that it may costs a search of the
     * whole automaton per state (quadratic compile time). */
    MimDef *is_nul = regex_cmp_char(w, MIM_core_icmp_e, c, 0);
    MimDef *body = branch(w, next, final(g, s), is_nul, mim_pair(w, m2, i));
    return mim_lam_set(w, lam, mim_lit_bool(w, false), body) != NULL;
}

/* ---- the table-driven matcher ------------------------------------------------------ */

/* The matcher as one loop over a constant transition table (docs/regex.md,
 * "Lowering"), reading `stride` characters (1 to MAX_STRIDE) per lookup:
 *
 *     nx = T#(off + col (c_1, …, c_stride))
 *
 * off is the premultiplied row of the current state (row · width); col
 * combines the byte classes of the characters (two characters are in one
 * class iff every state does the same on both; NUL is class 0): col =
 * Σ cls c_j · k^(stride-j), k = the number of classes rounded up to a
 * power of two, width = k^stride. Each lookup waits for the previous one
 * (its row), so the loop runs at the latency of a load per lookup: more
 * characters per lookup, fewer waits. c_(j+1) is read only when c_j is not
 * NUL (it may lie past the string's end).
 *
 * An entry is the next premultiplied row or an exit code above all rows
 * (B = rows · width) telling where the run ended: B+0 stop before c_1
 * (matched iff the current state accepts); B+j erroring after c_j; for
 * j ≥ 2, B+code_stop(j, acc) stop before c_j in a rejecting or accepting
 * state. So one comparison per lookup decides whether the loop goes on.
 * Accepting states get the first rows ("accepts" is `off < accepting ·
 * width`). Entries are of type Idx size, size a power of two (a wrapping add
 * needs no modulo) and at least 256 (byte-wide entries need no masking),
 * which is also the table's length (an array is indexed by Idx of its
 * length). */
typedef struct Table {
    size_t rows, accepting; /* non-erroring states; the accepting ones come first */
    size_t *row_of;         /* DFA state -> row (NO_STATE: erroring) */
    size_t *state_of;       /* row -> DFA state */
    uint8_t cls[NUM_CHARS]; /* the class of each character (class 0 = NUL) */
    size_t num_classes;
    int rep[NUM_CHARS]; /* a character of each class */
    size_t stride, k, width;
    uint64_t size;
} Table;

#define MAX_STRIDE 3
#define CODE_STOP ((size_t)-1)
#define CODE_ERR ((size_t)-2)
#define NUM_CODES_MAX 8 /* 3 · MAX_STRIDE - 1 exit codes, rounded up to a power of two */

static size_t num_codes(size_t stride) { return 3 * stride - 1; }
/* the exit code (above B) of "stop before c_j" (j ≥ 2) in a rejecting / accepting state */
static size_t code_stop(size_t stride, size_t j, bool acc) { return stride + 2 * (j - 2) + 1 + acc; }

/* What state s does on character c: a row, CODE_STOP or CODE_ERR. */
static size_t table_code(const Dfa *d, const Table *t, size_t s, int c) {
    int to = d->next[s][c];
    if (c == 0 || to < 0) return CODE_STOP;
    return d->erroring[to] ? CODE_ERR : t->row_of[to];
}

static bool same_column(const Dfa *d, const Table *t, int a, int b) {
    for (size_t r = 0; r < t->rows; ++r)
        if (table_code(d, t, t->state_of[r], a) != table_code(d, t, t->state_of[r], b)) return false;
    return true;
}

/* Rows and byte classes of d. Returns false if the start state is erroring
 * (the run fails at once: no loop). */
static bool table_plan(const Dfa *d, Table *t) {
    memset(t, 0, sizeof *t);
    if (d->erroring[0]) return false;
    t->row_of = mim_xmalloc(d->num * sizeof *t->row_of);
    t->state_of = mim_xmalloc(d->num * sizeof *t->state_of);
    for (int pass = 0; pass < 2; ++pass) /* accepting states first, each in state order */
        for (size_t s = 0; s < d->num; ++s) {
            if (pass == 0) t->row_of[s] = NO_STATE;
            if (d->erroring[s] || d->accepting[s] != (pass == 0)) continue;
            t->row_of[s] = t->rows;
            t->state_of[t->rows++] = s;
            t->accepting += pass == 0;
        }
    /* classes: columns compared only when their hashes agree */
    uint64_t hash[NUM_CHARS];
    for (int c = 0; c < NUM_CHARS; ++c) {
        uint64_t h = 0x9e3779b97f4a7c15ull;
        for (size_t r = 0; r < t->rows; ++r) h = (h ^ table_code(d, t, t->state_of[r], c)) * 0xbf58476d1ce4e5b9ull;
        hash[c] = h ^ h >> 31;
    }
    t->num_classes = 1; /* NUL */
    t->rep[0] = 0;
    for (int c = 1; c < NUM_CHARS; ++c) {
        size_t k = 1;
        while (k < t->num_classes && !(hash[t->rep[k]] == hash[c] && same_column(d, t, t->rep[k], c))) ++k;
        if (k == t->num_classes) t->rep[t->num_classes++] = c;
        t->cls[c] = (uint8_t)k;
    }
    return true;
}

static size_t pow2_at_least(size_t n) {
    size_t k = 1;
    while (k < n) k *= 2;
    return k;
}

/* The entries a table of this stride needs (rows and exit codes). */
static uint64_t table_entries(const Table *t, size_t stride) {
    uint64_t k = pow2_at_least(t->num_classes), width = 1;
    for (size_t j = 0; j < stride; ++j) width *= k;
    return t->rows * width + num_codes(stride);
}

/* Fixes the stride, the row width and the entry count. */
static void table_shape(Table *t, size_t stride) {
    t->stride = stride;
    t->k = pow2_at_least(t->num_classes);
    t->width = 1;
    for (size_t j = 0; j < stride; ++j) t->width *= t->k;
    for (t->size = 256; t->size < table_entries(t, stride);) t->size *= 2;
}

static void table_free(Table *t) {
    free(t->row_of);
    free(t->state_of);
}

/* `%core.icmp.X s (a, b)` on Idx s */
static MimDef *cmp_idx(MimWorld *w, uint64_t id, uint64_t s, MimDef *a, MimDef *b) {
    MimDef *op = mim_app(w, annex(w, id), mim_lit_nat(w, s));
    return mim_app(w, op, mim_pair(w, a, b));
}

/* The entry for row r and column col (see Table). */
static uint64_t table_entry(const Dfa *d, const Table *t, size_t r, size_t col) {
    size_t base = t->rows * t->width, row = r, digit = t->width;
    for (size_t j = 1; j <= t->stride; ++j) {
        digit /= t->k;
        size_t kj = col / digit % t->k, s = t->state_of[row];
        size_t code = kj < t->num_classes ? table_code(d, t, s, t->rep[kj]) : CODE_STOP;
        if (code == CODE_STOP) return base + (j == 1 ? 0 : code_stop(t->stride, j, d->accepting[s]));
        if (code == CODE_ERR) return base + j;
        row = code;
    }
    return row * t->width;
}

static MimDef *table_array(MimWorld *w, const Dfa *d, const Table *t) {
    MimDef **ops = mim_xmalloc(t->size * sizeof *ops);
    MimDef *idx = mim_type_idx_n(w, t->size); /* built once, not per entry */
    for (uint64_t e = 0; e < t->size; ++e) {
        size_t r = (size_t)(e / t->width);
        ops[e] = mim_lit(w, idx, r < t->rows ? table_entry(d, t, r, (size_t)(e % t->width)) : 0);
    }
    MimDef *arr = mim_tuple(w, ops, t->size);
    free(ops);
    return arr;
}

/* The class map scaled by m: ‹c; cls c · m› as Idx size literals. */
static MimDef *class_array(MimWorld *w, const Table *t, uint64_t m) {
    MimDef *ops[NUM_CHARS];
    MimDef *idx = mim_type_idx_n(w, t->size);
    for (int c = 0; c < NUM_CHARS; ++c) ops[c] = mim_lit(w, idx, t->cls[c] * m);
    return mim_tuple(w, ops, NUM_CHARS);
}

typedef struct TableGen {
    Gen *g;
    const Table *t;
    MimDef *T, *cls[MAX_STRIDE]; /* cls[j]: the classes scaled by k^(stride-1-j) */
    MimDef *cn3;                 /* Cn [%mem.M, Idx n, Idx size] */
    MimDef *read1, *step, *leave;
} TableGen;

/* `string[i + j]` with the memory threaded through *m. */
static MimDef *char_at(TableGen *tg, MimDef **m, MimDef *i, size_t j) {
    for (size_t a = 0; a < j; ++a) i = advance(tg->g, i);
    MimDef *loaded = load_char(tg->g, *m, i);
    *m = mim_proj(tg->g->w, loaded, 2, 0);
    return mim_proj(tg->g->w, loaded, 2, 1);
}

/* `T#(off + col)`, col the column of c_1 … c_count (read at i, i+1, …; LLVM
 * merges repeated loads of one address) followed by NULs (class 0). The
 * scaled classes have disjoint bits and are combined with `or`: with
 * `add`, LLVM reassociates off + col so that one more add lies on the
 * loop's critical path (436 → 406 µs, e-mail, stride 2). */
static MimDef *table_lookup(TableGen *tg, MimDef **m, MimDef *i, MimDef *off, size_t count) {
    MimWorld *w = tg->g->w;
    MimDef *S = mim_lit_nat(w, tg->t->size), *col = NULL;
    for (size_t j = 0; j < count; ++j) {
        MimDef *c = char_at(tg, m, i, j);
        MimDef *part = mim_extract(w, tg->cls[j], c);
        if (col) {
            MimDef *or_ = mim_app(w, annex(w, MIM_core_bit2_or_), S);
            MimDef *mode = mim_lit_nat(w, 0);
            or_ = mim_app(w, or_, mode);
            part = mim_app(w, or_, mim_pair(w, col, part));
        }
        col = part;
    }
    MimDef *at = add_idx(w, S, off, col);
    return mim_extract(w, tg->T, at);
}

static MimDef *table_cont(TableGen *tg, MimDef *type, const char *name) {
    MimDef *lam = mim_mut_lam(tg->g->w, type);
    if (lam) mim_def_set_name(lam, mim_world_sym(tg->g->w, name));
    return lam;
}

/* The body of read_j (m, i, off); c_1 … c_(j-1) are not NUL. At j = stride
 * the lookup and (step, leave)#(nx ≥ B); else (read_(j+1), nul_j)#(c_j =
 * NUL), where nul_j (m, i, off) = leave (m, i, off, the exit code that the
 * lookup of c_1 … c_(j-1) gives). */
static bool gen_read(TableGen *tg, MimDef *lam, size_t j) {
    MimWorld *w = tg->g->w;
    const Table *t = tg->t;
    MimDef *ff = mim_lit_bool(w, false);
    MimDef *m = mim_var_proj(w, lam, 3, 0), *i = mim_var_proj(w, lam, 3, 1), *off = mim_var_proj(w, lam, 3, 2);
    MimDef *B = mim_lit_idx(w, t->size, t->rows * t->width);
    if (j == t->stride) {
        MimDef *nx = table_lookup(tg, &m, i, off, j);
        MimDef *out = cmp_idx(w, MIM_core_icmp_uge, t->size, nx, B);
        MimDef *args = mim_tuple(w, (MimDef *[]){m, i, off, nx}, 4);
        MimDef *body = branch(w, tg->step, tg->leave, out, args);
        return mim_lam_set(w, lam, ff, body) != NULL;
    }
    char name[32];
    snprintf(name, sizeof name, "table_read%zu", j + 1);
    MimDef *more = table_cont(tg, tg->cn3, name);
    snprintf(name, sizeof name, "table_nul%zu", j);
    MimDef *nul = more ? table_cont(tg, tg->cn3, name) : NULL;
    if (!nul) return false;
    MimDef *c = char_at(tg, &m, i, j - 1);
    MimDef *is_nul = regex_cmp_char(w, MIM_core_icmp_e, c, 0);
    MimDef *body = branch(w, more, nul, is_nul, triple(w, m, i, off));
    if (!mim_lam_set(w, lam, ff, body) || !gen_read(tg, more, j + 1)) return false;
    MimDef *nm = mim_var_proj(w, nul, 3, 0), *ni = mim_var_proj(w, nul, 3, 1), *noff = mim_var_proj(w, nul, 3, 2);
    MimDef *nx = j == 1 ? B : table_lookup(tg, &nm, ni, noff, j - 1);
    MimDef *exit_args = mim_tuple(w, (MimDef *[]){nm, ni, noff, nx}, 4);
    MimDef *nbody = mim_app(w, tg->leave, exit_args);
    return mim_lam_set(w, nul, ff, nbody) != NULL;
}

/* leave (m, i, off, nx): decodes the exit code e = nx - B through two small
 * constant tables (characters consumed, result), e = 0 taking the result
 * from the current state. */
static bool gen_leave(TableGen *tg) {
    Gen *g = tg->g;
    MimWorld *w = g->w;
    const Table *t = tg->t;
    MimDef *lam = tg->leave;
    MimDef *m = mim_var_proj(w, lam, 4, 0), *i = mim_var_proj(w, lam, 4, 1);
    MimDef *off = mim_var_proj(w, lam, 4, 2), *nx = mim_var_proj(w, lam, 4, 3);
    MimDef *adv[NUM_CODES_MAX], *acc[NUM_CODES_MAX];
    for (size_t e = 0; e < NUM_CODES_MAX; ++e) {
        size_t n = 0; /* characters consumed */
        bool a = false;
        if (e >= 1 && e <= t->stride) {
            n = e; /* erroring after c_e */
        } else if (e > t->stride && e < num_codes(t->stride)) {
            size_t j = (e - t->stride - 1) / 2 + 2;
            n = j - 1, a = (e - t->stride - 1) % 2; /* stop before c_j */
        }
        adv[e] = mim_lit_int(w, 64, n);
        acc[e] = mim_lit_bool(w, a);
    }
    MimDef *advs = mim_tuple(w, adv, NUM_CODES_MAX), *accs = mim_tuple(w, acc, NUM_CODES_MAX);
    MimDef *S = mim_lit_nat(w, t->size);
    MimDef *sub = mim_app(w, annex(w, MIM_core_wrap_sub), S);
    MimDef *mode = mim_lit_nat(w, 0);
    sub = mim_app(w, sub, mode);
    MimDef *B = mim_lit_idx(w, t->size, t->rows * t->width);
    MimDef *rel = mim_app(w, sub, mim_pair(w, nx, B));
    MimDef *to8 = mim_app(w, annex(w, MIM_core_conv_u), S);
    MimDef *eight = mim_lit_nat(w, NUM_CODES_MAX);
    to8 = mim_app(w, to8, eight);
    MimDef *e = mim_app(w, to8, rel);
    MimDef *n_chars = mim_extract(w, advs, e);
    MimDef *to_n = mim_app(w, annex(w, MIM_core_conv_u), mim_lit_nat(w, 0)); /* from I64 */
    to_n = mim_app(w, to_n, g->n);
    MimDef *delta = mim_app(w, to_n, n_chars);
    MimDef *pos = add_idx(w, g->n, i, delta);
    MimDef *here = cmp_idx(w, MIM_core_icmp_ul, t->size, off, mim_lit_idx(w, t->size, t->accepting * t->width));
    MimDef *coded = mim_extract(w, accs, e);
    MimDef *first = cmp_idx(w, MIM_core_icmp_e, NUM_CODES_MAX, e, mim_lit_idx(w, NUM_CODES_MAX, 0));
    MimDef *ok = mim_extract(w, mim_pair(w, coded, here), first);
    MimDef *body = mim_app(w, g->exit, triple(w, m, ok, pos));
    return mim_lam_set(w, lam, mim_lit_bool(w, false), body) != NULL;
}

/* The body of match_regex as the table loop (see Table):
 *   table_loop = read_1 (m, i, off)   (see gen_read)
 *   table_step (m, i, off, nx) = table_loop (m, i + stride, nx)
 *   table_leave (m, i, off, nx): see gen_leave. */
static MimDef *gen_table(Gen *g, const Table *t, MimDef *mem, MimDef *pos) {
    MimWorld *w = g->w;
    MimDef *M = annex(w, MIM_mem_M), *I = mim_type_idx(w, g->n), *O = mim_type_idx_n(w, t->size);
    TableGen tg = {g, t, NULL, {NULL}, NULL, NULL, NULL, NULL};
    tg.T = table_array(w, g->d, t);
    for (size_t j = 0; j < t->stride; ++j) {
        uint64_t scale = 1;
        for (size_t a = j + 1; a < t->stride; ++a) scale *= t->k;
        tg.cls[j] = class_array(w, t, scale);
    }
    tg.cn3 = mim_cn(w, mim_sigma(w, (MimDef *[]){M, I, O}, 3));
    MimDef *cn4 = mim_cn(w, mim_sigma(w, (MimDef *[]){M, I, O, O}, 4));
    tg.read1 = table_cont(&tg, tg.cn3, "table_loop");
    tg.step = table_cont(&tg, cn4, "table_step");
    tg.leave = table_cont(&tg, cn4, "table_leave");
    if (!tg.read1 || !tg.step || !tg.leave) return NULL;

    MimDef *sm = mim_var_proj(w, tg.step, 4, 0), *si = mim_var_proj(w, tg.step, 4, 1);
    MimDef *snx = mim_var_proj(w, tg.step, 4, 3);
    for (size_t j = 0; j < t->stride; ++j) si = advance(g, si);
    MimDef *again = mim_app(w, tg.read1, triple(w, sm, si, snx));
    if (!mim_lam_set(w, tg.step, mim_lit_bool(w, false), again)) return NULL;
    if (!gen_read(&tg, tg.read1, 1) || !gen_leave(&tg)) return NULL;

    MimDef *start = mim_lit_idx(w, t->size, t->row_of[0] * t->width);
    return mim_app(w, tg.read1, triple(w, mem, pos, start));
}

/* `exit (m, value, p)` as the body of the continuation `lam`. */
static bool gen_exit(Gen *g, MimDef *lam, bool value) {
    MimWorld *w = g->w;
    MimDef *m = mim_var_proj(w, lam, 2, 0), *p = mim_var_proj(w, lam, 2, 1);
    MimDef *body = mim_app(w, g->exit, triple(w, m, mim_lit_bool(w, value), p));
    return mim_lam_set(w, lam, mim_lit_bool(w, false), body) != NULL;
}

/* The body of match_regex as control flow: one continuation per state. */
static MimDef *gen_control_flow(Gen *g, MimDef *mem, MimDef *pos) {
    const Dfa *d = g->d;
    char name[32];
    for (size_t s = 0; s < d->num; ++s) {
        snprintf(name, sizeof name, "state_%zu", s);
        if (!(g->state[s] = cont(g, name))) return NULL;
    }
    for (size_t s = 0; s < d->num; ++s)
        if (!gen_state(g, s)) return NULL;
    return mim_app(g->w, g->state[0], mim_pair(g->w, mem, pos));
}

/* Which lowering an automaton gets (docs/regex.md, "Choosing the form",
 * has the measurements behind the rule): control flow only if the start
 * state is erroring (the run fails at once: there is no loop); else the
 * table with the largest stride whose table has at most TABLE_MAX_ENTRIES
 * entries (the tables were faster than control flow on every automaton
 * measured, the largest stride the fastest). MIM_REGEX_LOWERING = cf,
 * table, table2 or table3 forces a form (benchmarks, tests), a table only up
 * to FORCED_MAX_ENTRIES. Returns 0 for control flow, else the stride. */
#define TABLE_MAX_ENTRIES 32768
#define FORCED_MAX_ENTRIES (1u << 22)

static size_t choose_form(const Table *t, bool table_ok) {
    const char *force = getenv("MIM_REGEX_LOWERING");
    static const char *const forced[MAX_STRIDE + 1] = {"cf", "table", "table2", "table3"};
    for (size_t f = 0; force && f <= MAX_STRIDE; ++f)
        if (!strcmp(force, forced[f]) && (f == 0 || (table_ok && table_entries(t, f) <= FORCED_MAX_ENTRIES)))
            return f;
    if (!table_ok) return 0;
    for (size_t stride = MAX_STRIDE; stride > 1; --stride)
        if (table_entries(t, stride) <= TABLE_MAX_ENTRIES) return stride;
    return 1;
}

/* match_regex for the DFA d and size n, viewed in direct style. */
static MimDef *gen_matcher(MimWorld *w, const Dfa *d, MimDef *n) {
    MimDef *M = annex(w, MIM_mem_M), *I = mim_type_idx(w, n);
    MimDef *arr = mim_arr(w, n, mim_type_int(w, 8));
    MimDef *str = mim_app(w, annex(w, MIM_mem_Ptr), mim_pair(w, arr, mim_lit_nat(w, 0)));
    MimDef *sig_dom = mim_sigma(w, (MimDef *[]){M, str, I}, 3);
    MimDef *sig_cod = mim_sigma(w, (MimDef *[]){M, mim_type_bool(w), I}, 3);
    MimDef *match = mim_mut_lam(w, mim_fn(w, sig_dom, sig_cod));
    if (!match) return NULL;
    mim_def_set_name(match, mim_world_sym(w, "match_regex"));
    MimDef *args = mim_var_proj(w, match, 2, 0);
    Gen g = {w, d, n, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    g.string = mim_proj(w, args, 3, 1);
    g.exit = mim_var_proj(w, match, 2, 1);
    mim_def_set_name(g.exit, mim_world_sym(w, "exit"));
    g.cn_mi = mim_cn(w, mim_sigma(w, (MimDef *[]){M, I}, 2));
    g.state = mim_xcalloc(d->num ? d->num : 1, sizeof *g.state);
    g.to_state = mim_xcalloc(d->num ? d->num : 1, sizeof *g.to_state);
    Table t;
    bool table_ok = table_plan(d, &t);
    size_t stride = choose_form(&t, table_ok);
    MimDef *res = NULL, *start = NULL;
    MimDef *mem = mim_proj(w, args, 3, 0);
    MimDef *pos = mim_proj(w, args, 3, 2);
    if (stride == 0) {
        g.error = cont(&g, "error");
        g.accept = cont(&g, "accept");
        if (!g.error || !g.accept || !gen_exit(&g, g.error, false) || !gen_exit(&g, g.accept, true)) goto out;
        start = gen_control_flow(&g, mem, pos);
    } else {
        table_shape(&t, stride);
        start = gen_table(&g, &t, mem, pos);
    }
    if (!start || !mim_lam_set(w, match, mim_lit_bool(w, false), start)) goto out;
    MimDef *cps2ds = mim_app(w, annex(w, MIM_direct_cps2ds), mim_pair(w, sig_dom, sig_cod));
    res = mim_app(w, cps2ds, match);
out:
    if (table_ok) table_free(&t);
    free(g.state);
    free(g.to_state);
    return res;
}

/* ---- the pass -------------------------------------------------------------------------- */

typedef struct LowerRegex {
    MimPass base;
    MimPairMap lowered; /* (matcher, size) ↦ replacement */
} LowerRegex;

/* r is a matcher regex.md §4 lowers: a fully applied conj, disj, not_,
 * range or quant call, or a %regex.group (docs/regex.md, "Capture groups"). */
static bool is_matcher(MimDef *r) {
    return mim_match(r, MIM_regex_conj) || mim_match(r, MIM_regex_disj) || mim_match(r, MIM_regex_not_) ||
           mim_match(r, MIM_regex_range) || mim_match_annex(r, MIM_regex_quant) || mim_match(r, MIM_regex_group);
}

/* `%regex.capture r n k`: r, with n and k in *n and *k; else NULL. */
static MimDef *capture_of(MimDef *def, MimDef **n, MimDef **k) {
    MimDef *inner = mim_app_callee(def), *call;
    if (mim_def_node(inner) != MIM_APP || !(call = mim_match(mim_app_callee(inner), MIM_regex_capture)) ||
        mim_app_num_args(call) != 1)
        return NULL;
    *n = mim_app_arg(inner);
    *k = mim_app_arg(def);
    return mim_app_nth_arg(call, 0);
}

static MimDef *lower(MimPass *p, MimDef *r, MimDef *n) {
    MimWorld *w = mim_pass_world(p);
    Nfa a = {0};
    size_t start = nfa_state(&a), accept = nfa_state(&a);
    a.st.data[accept].accepting = true;
    convert(w, &a, r, start, accept, NO_STATE);
    if (a.bad) {
        /* The automaton is built at compile time: a part whose characters
         * or operands are only known at run time would silently match
         * nothing. */
        char *s = mim_def_to_str(w, a.bad);
        mim_pass_error(p, mim_def_loc(a.bad), "regex: cannot lower '%s': its bounds or operand count are not literals", s);
        free(s);
        nfa_free(&a);
        return NULL;
    }
    Dfa d = subsets(&a, start);
    Dfa m = minimize(&d);
    MimDef *res = gen_matcher(w, &m, n);
    dfa_free(&m);
    dfa_free(&d);
    nfa_free(&a);
    return res;
}

static MimDef *lower_regex_rewrite(MimPass *p, MimDef *def) {
    LowerRegex *lr = (LowerRegex *)p;
    if (mim_def_node(def) != MIM_APP) return def;
    MimDef *r = mim_app_callee(def), *n = mim_app_arg(def), *k, *cr = capture_of(def, &n, &k);
    if (cr) {
        void **known = mim_pairmap_find(&lr->lowered, def, k); /* def: (capture r n) k */
        if (known) return *known;
        MimDef *res = regex_lower_capture(p, def, cr, n, k);
        if (res) mim_pairmap_put(&lr->lowered, def, k, res);
        return res;
    }
    n = mim_app_arg(def);
    if (!is_matcher(r)) return def;
    void **known = mim_pairmap_find(&lr->lowered, r, n);
    if (known) return *known;
    MimDef *res = lower(p, r, n);
    if (res) mim_pairmap_put(&lr->lowered, r, n, res);
    return res;
}

static void lower_regex_prepare(MimPass *p) { mim_pairmap_clear(&((LowerRegex *)p)->lowered); }
static void lower_regex_fini(MimPass *p) { mim_pairmap_free(&((LowerRegex *)p)->lowered); }

static const MimPassClass lower_regex_class = {
    .name = "lower_regex",
    .size = sizeof(LowerRegex),
    .on_lams = true,
    .prepare = lower_regex_prepare,
    .rewrite = lower_regex_rewrite,
    .fini = lower_regex_fini,
};

static bool handle_lower_regex(MimPipeline *pb, MimDef *app) {
    return mim_pipeline_add_pass(pb, app, &lower_regex_class, NULL) != NULL;
}

static const MimNormalizerReg normalizers[] = {MIM_regex_NORMALIZERS};
static const MimPassReg passes[] = {{MIM_regex_lower_regex, handle_lower_regex}};
MIM_PLUGIN_DEFINE("regex", MIM_PLUGIN_TABLE(normalizers), MIM_PLUGIN_TABLE(passes), MIM_PLUGIN_NO_TABLE);
