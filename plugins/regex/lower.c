/* The lower_regex pass (regex.md §4): every first application `r n` of a
 * matcher r (a fully applied conj, disj, not_, range or quant call) to its
 * size becomes a direct-style view (`%direct.cps2ds`) of a generated CPS
 * function match_regex that runs the matcher's minimal DFA over the string:
 *
 *     regex --(§4.1 convert)--> NFA --(§4.2 subsets)--> DFA
 *           --(§4.3 Moore refinement)--> minimal DFA --(§4.4)--> continuations
 *
 * Only %core and %mem operations are generated, so the LLVM back end takes
 * the result once direct's passes have removed the cps2ds call. */
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

typedef struct StateSets { /* the DFA states as bit sets of NFA states */
    uint64_t *bits;
    size_t words, num, cap;
    size_t *slots; /* hash index: state + 1, 0 = empty */
    size_t num_slots;
} StateSets;

static uint64_t set_hash(const uint64_t *s, size_t words) {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < words; ++i) h = (h ^ s[i]) * 0xbf58476d1ce4e5b9ull;
    return h ^ h >> 31;
}

static void sets_index(StateSets *ss, size_t k) {
    size_t mask = ss->num_slots - 1;
    size_t i = (size_t)set_hash(ss->bits + k * ss->words, ss->words) & mask;
    while (ss->slots[i]) i = (i + 1) & mask;
    ss->slots[i] = k + 1;
}

/* Grows the hash index to keep it at most half full with one more state. */
static void sets_reserve(StateSets *ss) {
    if (2 * (ss->num + 1) <= ss->num_slots) return;
    free(ss->slots);
    ss->num_slots = ss->num_slots ? 2 * ss->num_slots : 64;
    ss->slots = mim_xcalloc(ss->num_slots, sizeof *ss->slots);
    for (size_t k = 0; k < ss->num; ++k) sets_index(ss, k);
}

/* The state holding set s, added if new; *added tells which. */
static size_t sets_find_or_add(StateSets *ss, const uint64_t *s, bool *added) {
    sets_reserve(ss);
    size_t bytes = ss->words * sizeof *s, mask = ss->num_slots - 1;
    for (size_t i = (size_t)set_hash(s, ss->words) & mask; ss->slots[i]; i = (i + 1) & mask)
        if (!memcmp(ss->bits + (ss->slots[i] - 1) * ss->words, s, bytes)) {
            *added = false;
            return ss->slots[i] - 1;
        }
    if (ss->num == ss->cap) {
        ss->cap = ss->cap ? 2 * ss->cap : 16;
        ss->bits = mim_xrealloc(ss->bits, ss->cap * bytes);
    }
    memcpy(ss->bits + ss->num * ss->words, s, bytes);
    sets_index(ss, ss->num);
    *added = true;
    return ss->num++;
}

/* s := its ε-closure (stack: scratch of a->st.len entries). */
static void closure(const Nfa *a, uint64_t *s, size_t *stack) {
    size_t top = 0;
    for (size_t i = 0; i < (a->st.len + 63) / 64; ++i)
        for (uint64_t bits = s[i]; bits; bits &= bits - 1) stack[top++] = i * 64 + (size_t)__builtin_ctzll(bits);
    while (top) {
        const NState *st = &a->st.data[stack[--top]];
        for (size_t e = 0; e < st->edges.len; ++e) {
            size_t t = st->edges.data[e].to;
            if (st->edges.data[e].c < 0 && !(s[t / 64] >> (t % 64) & 1)) {
                s[t / 64] |= (uint64_t)1 << (t % 64);
                stack[top++] = t;
            }
        }
    }
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
    StateSets ss = {.words = (a->st.len + 63) / 64};
    Dfa d = {0};
    uint64_t *cur = mim_xcalloc(ss.words, sizeof *cur), *moved = mim_xcalloc(ss.words, sizeof *moved);
    size_t *stack = mim_xmalloc(a->st.len * sizeof *stack);
    size_t count[NUM_CHARS], *moves = NULL, moves_cap = 0; /* the character edges of a state */
    cur[start / 64] |= (uint64_t)1 << (start % 64);
    closure(a, cur, stack);
    bool added;
    sets_find_or_add(&ss, cur, &added);
    for (size_t k = 0; k < ss.num; ++k) {
        dfa_grow(&d, ss.num);
        memcpy(cur, ss.bits + k * ss.words, ss.words * sizeof *cur);
        /* the members of cur, and their character edges bucketed by
         * character (counting sort; ascending member order in a bucket) */
        size_t num_members = 0, num_moves = 0;
        for (size_t i = 0; i < ss.words; ++i)
            for (uint64_t bits = cur[i]; bits; bits &= bits - 1)
                stack[num_members++] = i * 64 + (size_t)__builtin_ctzll(bits);
        bool acc = false, err = false;
        memset(count, 0, sizeof count);
        for (size_t m = 0; m < num_members; ++m) {
            const NState *st = &a->st.data[stack[m]];
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
            const NState *st = &a->st.data[stack[m]];
            for (size_t e = 0; e < st->edges.len; ++e)
                if (st->edges.data[e].c >= 0) moves[fill[st->edges.data[e].c]++] = st->edges.data[e].to;
        }
        for (int c = 0; c < NUM_CHARS; ++c) {
            if (first[c] == first[c + 1]) continue;
            memset(moved, 0, ss.words * sizeof *moved);
            for (size_t j = first[c]; j < first[c + 1]; ++j) moved[moves[j] / 64] |= (uint64_t)1 << (moves[j] % 64);
            closure(a, moved, stack);
            d.next[k][c] = (int)sets_find_or_add(&ss, moved, &added);
        }
    }
    d.num = ss.num;
    free(cur), free(moved), free(stack), free(moves);
    free(ss.bits), free(ss.slots);
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
static MimDef *cmp_char(MimWorld *w, uint64_t id, MimDef *c, uint64_t v) {
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
static MimDef *check_of(MimWorld *w, const bool *chars, MimDef *c) {
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
            MimDef *le = cmp_char(w, MIM_core_icmp_ule, c, (uint64_t)hi);
            MimDef *ge = cmp_char(w, MIM_core_icmp_uge, c, (uint64_t)lo);
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
        MimDef *k = check_of(w, chars, c);
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
    MimDef *is_nul = cmp_char(w, MIM_core_icmp_e, c, 0);
    MimDef *body = branch(w, next, final(g, s), is_nul, mim_pair(w, m2, i));
    return mim_lam_set(w, lam, mim_lit_bool(w, false), body) != NULL;
}

/* ---- the table-driven matcher ------------------------------------------------------ */

/* The matcher as one loop over a constant transition table (docs/regex.md,
 * "Lowering"): `nx = T#(off + col c)`, where off is the premultiplied row of
 * the current state (row · width) and col c the character's column (c
 * itself, or its byte class from a 256-entry map). Every entry that ends the
 * run holds one of two exit codes above all rows, so one comparison per
 * character decides whether the loop goes on:
 *   STOP = rows · width  — NUL, or no transition: the run stops before c,
 *                          matched iff the current state accepts;
 *   ERR  = STOP + 1      — the target is erroring: ff, after c.
 * Accepting states get the first rows, so "accepts" is `off < accepting ·
 * width`. Entries are of type Idx size, size = the smallest power of two
 * above ERR (wrapping adds need no modulo), which is also the table's
 * length (the index type of an array is Idx of its length). */
typedef struct Table {
    size_t rows, accepting; /* non-erroring states; the accepting ones come first */
    size_t *row_of;         /* DFA state -> row (NO_STATE: erroring) */
    size_t *state_of;       /* row -> DFA state */
    uint8_t cls[NUM_CHARS]; /* the class of each character (class 0 = NUL) */
    size_t num_classes;
    int rep[NUM_CHARS];     /* a character of each class */
    size_t width;           /* columns per row: a power of two ≥ num_classes */
    uint64_t size;          /* entries: a power of two > ERR */
    bool has_err;
} Table;

#define CODE_STOP ((size_t)-1)
#define CODE_ERR ((size_t)-2)

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

/* Rows and byte classes of d (two characters are in one class iff every
 * state does the same on both; NUL is a class of its own). Returns false
 * if the start state is erroring (the run fails at once: no loop). */
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
    for (size_t s = 0; s < d->num; ++s)
        for (int c = 1; c < NUM_CHARS; ++c) t->has_err |= !d->erroring[s] && d->next[s][c] >= 0 && d->erroring[d->next[s][c]];
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

/* Fixes the row width and the entry count. */
static void table_shape(Table *t) {
    t->width = pow2_at_least(t->num_classes);
    /* at least 256 entries: byte-wide entries need no masking (an i7 table
     * costs an `and` per character on the loop's critical path) */
    for (t->size = 256; t->size < t->rows * t->width + 2;) t->size *= 2;
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

/* The table T (and the class map) as constant arrays. */
static MimDef *table_array(MimWorld *w, const Dfa *d, const Table *t) {
    size_t stop = t->rows * t->width;
    MimDef **ops = mim_xmalloc(t->size * sizeof *ops);
    for (uint64_t e = 0; e < t->size; ++e) {
        size_t r = (size_t)(e / t->width), col = (size_t)(e % t->width), code = CODE_STOP;
        if (r < t->rows && col < t->num_classes) code = table_code(d, t, t->state_of[r], t->rep[col]);
        uint64_t v = r >= t->rows ? 0 : code == CODE_STOP ? stop : code == CODE_ERR ? stop + 1 : code * t->width;
        ops[e] = mim_lit_idx(w, t->size, v);
    }
    MimDef *arr = mim_tuple(w, ops, t->size);
    free(ops);
    return arr;
}

/* The class map scaled by m: ‹c; cls c · m› as Idx size literals. */
static MimDef *class_array_scaled(MimWorld *w, const Table *t, uint64_t size, size_t m) {
    MimDef *ops[NUM_CHARS];
    for (int c = 0; c < NUM_CHARS; ++c) ops[c] = mim_lit_idx(w, size, t->cls[c] * m);
    return mim_tuple(w, ops, NUM_CHARS);
}

/* The body of match_regex as the table loop (see Table):
 *   loop (m, i, off)      = (step, leave)#(nx ≥ STOP) (m', i, off, nx)
 *                           where (m', c) = string[i], nx = T#(off + col c)
 *   step (m, i, off, nx)  = loop (m, i + 1, nx)
 *   leave (m, i, off, nx) = exit (m, off < accepting·width, i)   (STOP)
 *                           exit (m, ff, i + 1)                   (ERR) */
static MimDef *gen_table(Gen *g, const Table *t, MimDef *mem, MimDef *pos) {
    MimWorld *w = g->w;
    MimDef *M = annex(w, MIM_mem_M), *I = mim_type_idx(w, g->n), *O = mim_type_idx_n(w, t->size);
    MimDef *T = table_array(w, g->d, t);
    MimDef *cls = class_array_scaled(w, t, t->size, 1);
    MimDef *loop = mim_mut_lam(w, mim_cn(w, mim_sigma(w, (MimDef *[]){M, I, O}, 3)));
    MimDef *cn4 = mim_cn(w, mim_sigma(w, (MimDef *[]){M, I, O, O}, 4));
    MimDef *step = mim_mut_lam(w, cn4), *leave = mim_mut_lam(w, cn4);
    if (!loop || !step || !leave) return NULL;
    mim_def_set_name(loop, mim_world_sym(w, "table_loop"));
    mim_def_set_name(step, mim_world_sym(w, "table_step"));
    mim_def_set_name(leave, mim_world_sym(w, "table_leave"));
    size_t stop = t->rows * t->width;

    MimDef *m = mim_var_proj(w, loop, 3, 0), *i = mim_var_proj(w, loop, 3, 1), *off = mim_var_proj(w, loop, 3, 2);
    MimDef *loaded = load_char(g, m, i);
    MimDef *m2 = mim_proj(w, loaded, 2, 0), *c = mim_proj(w, loaded, 2, 1);
    MimDef *col = mim_extract(w, cls, c);
    MimDef *at = add_idx(w, mim_lit_nat(w, t->size), off, col);
    MimDef *nx = mim_extract(w, T, at);
    MimDef *out = cmp_idx(w, MIM_core_icmp_uge, t->size, nx, mim_lit_idx(w, t->size, stop));
    MimDef *args = mim_tuple(w, (MimDef *[]){m2, i, off, nx}, 4);
    MimDef *body = branch(w, step, leave, out, args);
    if (!mim_lam_set(w, loop, mim_lit_bool(w, false), body)) return NULL;

    MimDef *sm = mim_var_proj(w, step, 4, 0), *si = mim_var_proj(w, step, 4, 1), *snx = mim_var_proj(w, step, 4, 3);
    MimDef *next_i = advance(g, si);
    MimDef *again = mim_app(w, loop, triple(w, sm, next_i, snx));
    if (!mim_lam_set(w, step, mim_lit_bool(w, false), again)) return NULL;

    MimDef *lm = mim_var_proj(w, leave, 4, 0), *li = mim_var_proj(w, leave, 4, 1);
    MimDef *loff = mim_var_proj(w, leave, 4, 2), *lnx = mim_var_proj(w, leave, 4, 3);
    MimDef *ok = cmp_idx(w, MIM_core_icmp_ul, t->size, loff, mim_lit_idx(w, t->size, t->accepting * t->width));
    MimDef *p = li;
    if (t->has_err) {
        MimDef *err = cmp_idx(w, MIM_core_icmp_e, t->size, lnx, mim_lit_idx(w, t->size, stop + 1));
        ok = mim_extract(w, mim_pair(w, ok, mim_lit_bool(w, false)), err);
        MimDef *after = advance(g, li);
        p = mim_extract(w, mim_pair(w, li, after), err);
    }
    MimDef *done = mim_app(w, g->exit, triple(w, lm, ok, p));
    if (!mim_lam_set(w, leave, mim_lit_bool(w, false), done)) return NULL;

    MimDef *start = mim_lit_idx(w, t->size, t->row_of[0] * t->width);
    return mim_app(w, loop, triple(w, mem, pos, start));
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

/* ---- the two-character table ------------------------------------------------------ */

/* The table loop reads one entry per character, and each read waits for the
 * previous one (its row): the loop runs at the latency of a load. This
 * variant reads one entry per *two* characters, from a table indexed by the
 * row and the classes of both (T2#(off + pair c1 c2), pair = cls c1 · K +
 * cls c2, K = classes rounded up to a power of two, rows of K² entries).
 * c2 is read only when c1 is not NUL (it may lie past the string's end).
 * Exit codes above all rows say where the run ended:
 *   B+0 stop before c1 (matched iff the current state accepts)
 *   B+1 erroring after c1              B+2/B+3 stop before c2, rejecting/accepting
 *   B+4 erroring after c2 */
enum { X_STOP1, X_ERR1, X_STOP2_REJ, X_STOP2_ACC, X_ERR2, X_NUM };

static uint64_t table2_size(const Table *t, size_t k) {
    uint64_t size = 256;
    while (size < t->rows * k * k + X_NUM) size *= 2;
    return size;
}

static MimDef *table2_array(MimWorld *w, const Dfa *d, const Table *t, size_t k, uint64_t size) {
    size_t base = t->rows * k * k;
    MimDef **ops = mim_xmalloc(size * sizeof *ops);
    for (uint64_t e = 0; e < size; ++e) {
        size_t r = (size_t)(e / (k * k)), k1 = (size_t)(e / k % k), k2 = (size_t)(e % k);
        uint64_t v = 0;
        if (r < t->rows) {
            size_t first = k1 < t->num_classes ? table_code(d, t, t->state_of[r], t->rep[k1]) : CODE_STOP;
            if (first == CODE_STOP) v = base + X_STOP1;
            else if (first == CODE_ERR) v = base + X_ERR1;
            else {
                size_t s1 = t->state_of[first];
                size_t second = k2 < t->num_classes ? table_code(d, t, s1, t->rep[k2]) : CODE_STOP;
                if (second == CODE_STOP) v = base + (d->accepting[s1] ? X_STOP2_ACC : X_STOP2_REJ);
                else if (second == CODE_ERR) v = base + X_ERR2;
                else v = second * k * k;
            }
        }
        ops[e] = mim_lit_idx(w, size, v);
    }
    MimDef *arr = mim_tuple(w, ops, size);
    free(ops);
    return arr;
}

/* The body of match_regex as the two-character loop:
 *   loop (m, i, off)     = (pair, leave1)#(c1 = NUL) (m', i, off)
 *   pair (m, i, off)     = (step, leave2)#(nx ≥ B) (m', i, off, nx)
 *                          where nx = T2#(off + cls c1 · K + cls c2)
 *   step (m, i, off, nx) = loop (m, i + 2, nx)
 *   leave1 (m, i, off)   = exit (m, off < accepting · K², i)
 *   leave2 (m, i, off, nx) decodes the exit code (see above). */
static MimDef *gen_table2(Gen *g, const Table *t, MimDef *mem, MimDef *pos) {
    MimWorld *w = g->w;
    size_t k = pow2_at_least(t->num_classes);
    uint64_t size = table2_size(t, k);
    size_t base = t->rows * k * k;
    MimDef *M = annex(w, MIM_mem_M), *I = mim_type_idx(w, g->n), *O = mim_type_idx_n(w, size);
    MimDef *S = mim_lit_nat(w, size);
    MimDef *T = table2_array(w, g->d, t, k, size);
    MimDef *hi = class_array_scaled(w, t, size, k), *lo = class_array_scaled(w, t, size, 1);
    MimDef *cn3 = mim_cn(w, mim_sigma(w, (MimDef *[]){M, I, O}, 3));
    MimDef *cn4 = mim_cn(w, mim_sigma(w, (MimDef *[]){M, I, O, O}, 4));
    MimDef *loop = mim_mut_lam(w, cn3), *pair = mim_mut_lam(w, cn3), *leave1 = mim_mut_lam(w, cn3);
    MimDef *step = mim_mut_lam(w, cn4), *leave2 = mim_mut_lam(w, cn4);
    if (!loop || !pair || !leave1 || !step || !leave2) return NULL;
    mim_def_set_name(loop, mim_world_sym(w, "table2_loop"));
    mim_def_set_name(pair, mim_world_sym(w, "table2_pair"));
    mim_def_set_name(leave1, mim_world_sym(w, "table2_leave1"));
    mim_def_set_name(step, mim_world_sym(w, "table2_step"));
    mim_def_set_name(leave2, mim_world_sym(w, "table2_leave2"));
    MimDef *ff = mim_lit_bool(w, false);

    /* loop: c1 */
    MimDef *m = mim_var_proj(w, loop, 3, 0), *i = mim_var_proj(w, loop, 3, 1), *off = mim_var_proj(w, loop, 3, 2);
    MimDef *loaded = load_char(g, m, i);
    MimDef *m2 = mim_proj(w, loaded, 2, 0), *c1 = mim_proj(w, loaded, 2, 1);
    MimDef *nul = cmp_char(w, MIM_core_icmp_e, c1, 0);
    if (!mim_lam_set(w, loop, ff, branch(w, pair, leave1, nul, triple(w, m2, i, off)))) return NULL;

    /* pair: c1 again (same address: LLVM reuses the load), c2 */
    MimDef *pm = mim_var_proj(w, pair, 3, 0), *pi = mim_var_proj(w, pair, 3, 1), *poff = mim_var_proj(w, pair, 3, 2);
    MimDef *l1 = load_char(g, pm, pi);
    MimDef *pm1 = mim_proj(w, l1, 2, 0), *pc1 = mim_proj(w, l1, 2, 1);
    MimDef *pi1 = advance(g, pi);
    MimDef *l2 = load_char(g, pm1, pi1);
    MimDef *pm2 = mim_proj(w, l2, 2, 0), *pc2 = mim_proj(w, l2, 2, 1);
    MimDef *col1 = mim_extract(w, hi, pc1);
    MimDef *col2 = mim_extract(w, lo, pc2);
    /* col1 | col2 = col1 + col2 (col2 < K, col1 a multiple of K): an `or`,
     * so that LLVM does not reassociate off + col1 + col2 as (off + col1) +
     * col2, one more add on the loop's critical path (measured: 436 → 406
     * µs on the e-mail benchmark; `or` with off too is worse, 447 µs) */
    MimDef *or_ = mim_app(w, annex(w, MIM_core_bit2_or_), S);
    MimDef *mode = mim_lit_nat(w, 0);
    or_ = mim_app(w, or_, mode);
    MimDef *col = mim_app(w, or_, mim_pair(w, col1, col2));
    MimDef *at = add_idx(w, S, poff, col);
    MimDef *nx = mim_extract(w, T, at);
    MimDef *out = cmp_idx(w, MIM_core_icmp_uge, size, nx, mim_lit_idx(w, size, base));
    MimDef *args = mim_tuple(w, (MimDef *[]){pm2, pi, poff, nx}, 4);
    if (!mim_lam_set(w, pair, ff, branch(w, step, leave2, out, args))) return NULL;

    /* step */
    MimDef *sm = mim_var_proj(w, step, 4, 0), *si = mim_var_proj(w, step, 4, 1), *snx = mim_var_proj(w, step, 4, 3);
    MimDef *si1 = advance(g, si);
    MimDef *si2 = advance(g, si1);
    if (!mim_lam_set(w, step, ff, mim_app(w, loop, triple(w, sm, si2, snx)))) return NULL;

    /* leave1: NUL at c1 */
    MimDef *am = mim_var_proj(w, leave1, 3, 0), *ai = mim_var_proj(w, leave1, 3, 1), *aoff = mim_var_proj(w, leave1, 3, 2);
    MimDef *acc = cmp_idx(w, MIM_core_icmp_ul, size, aoff, mim_lit_idx(w, size, t->accepting * k * k));
    if (!mim_lam_set(w, leave1, ff, mim_app(w, g->exit, triple(w, am, acc, ai)))) return NULL;

    /* leave2 */
    MimDef *bm = mim_var_proj(w, leave2, 4, 0), *bi = mim_var_proj(w, leave2, 4, 1);
    MimDef *boff = mim_var_proj(w, leave2, 4, 2), *bnx = mim_var_proj(w, leave2, 4, 3);
    MimDef *is_stop1 = cmp_idx(w, MIM_core_icmp_e, size, bnx, mim_lit_idx(w, size, base + X_STOP1));
    MimDef *is_acc2 = cmp_idx(w, MIM_core_icmp_e, size, bnx, mim_lit_idx(w, size, base + X_STOP2_ACC));
    MimDef *is_err2 = cmp_idx(w, MIM_core_icmp_e, size, bnx, mim_lit_idx(w, size, base + X_ERR2));
    MimDef *bacc = cmp_idx(w, MIM_core_icmp_ul, size, boff, mim_lit_idx(w, size, t->accepting * k * k));
    MimDef *ok = mim_extract(w, mim_pair(w, is_acc2, bacc), is_stop1);
    MimDef *bi1 = advance(g, bi);
    MimDef *bi2 = advance(g, bi1);
    MimDef *p = mim_extract(w, mim_pair(w, bi1, bi2), is_err2);
    p = mim_extract(w, mim_pair(w, p, bi), is_stop1);
    if (!mim_lam_set(w, leave2, ff, mim_app(w, g->exit, triple(w, bm, ok, p)))) return NULL;

    MimDef *start = mim_lit_idx(w, size, t->row_of[0] * k * k);
    return mim_app(w, loop, triple(w, mem, pos, start));
}

/* Which lowering an automaton gets (docs/regex.md, "Choosing the form",
 * has the measurements behind the rules):
 *  - control flow if the start state is erroring (no loop: the run fails at
 *    once) or the automaton has at most CF_MAX_ROWS non-erroring states
 *    (`\w+`: a self-loop the branch predictor follows; 214 µs vs 242 for the
 *    two-character table);
 *  - else the two-character table while it has at most PAIRS_MAX_ENTRIES
 *    entries (e-mail, 12 states: 409 µs vs 676 table, 678 control flow;
 *    1,024 states: 397 vs 951 and 1,386);
 *  - else the one-character table (4,096 states: the pair table would have
 *    2^17 entries of 4 bytes).
 * MIM_REGEX_LOWERING = cf, table or table2 forces one (benchmarks, tests). */
enum { FORM_CF, FORM_TABLE, FORM_TABLE_PAIRS };
#define CF_MAX_ROWS 2
#define PAIRS_MAX_ENTRIES 32768

static int choose_form(const Table *t, bool table_ok) {
    const char *force = getenv("MIM_REGEX_LOWERING");
    if (force && !strcmp(force, "cf")) return FORM_CF;
    if (force && table_ok && !strcmp(force, "table")) return FORM_TABLE;
    if (force && table_ok && !strcmp(force, "table2")) return FORM_TABLE_PAIRS;
    if (!table_ok || t->rows <= CF_MAX_ROWS) return FORM_CF;
    size_t k = pow2_at_least(t->num_classes);
    return t->rows * k * k + X_NUM <= PAIRS_MAX_ENTRIES ? FORM_TABLE_PAIRS : FORM_TABLE;
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
    int form = choose_form(&t, table_ok);
    MimDef *res = NULL, *start = NULL;
    MimDef *mem = mim_proj(w, args, 3, 0);
    MimDef *pos = mim_proj(w, args, 3, 2);
    if (form == FORM_CF) {
        g.error = cont(&g, "error");
        g.accept = cont(&g, "accept");
        if (!g.error || !g.accept || !gen_exit(&g, g.error, false) || !gen_exit(&g, g.accept, true)) goto out;
        start = gen_control_flow(&g, mem, pos);
    } else if (form == FORM_TABLE_PAIRS) {
        start = gen_table2(&g, &t, mem, pos);
    } else {
        table_shape(&t);
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
 * range or quant call. */
static bool is_matcher(MimDef *r) {
    return mim_match(r, MIM_regex_conj) || mim_match(r, MIM_regex_disj) || mim_match(r, MIM_regex_not_) ||
           mim_match(r, MIM_regex_range) || mim_match_annex(r, MIM_regex_quant);
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
    MimDef *r = mim_app_callee(def), *n = mim_app_arg(def);
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
