/* The World: lifetime, node allocation with gids, hash-consing of immutables
 * (open addressing keyed on a structural hash), frozen mode, symbols,
 * diagnostics, externals and the annex table (semantics.md §1, §5.3, §12.3).
 * The builtins of semantics.md §4.2 are created here, Univ first (gid 1). */
#include "ir/build.h"
#include "ir/check.h"
#include "util/sanitizer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- hash-consing ------------------------------------------------------- */

/* 32 bits: enough for any table, and MimDef keeps room for its scratch index.
 * A multiplicative chain over the words of the key (one add and one multiply
 * per operand: this is the hot path of construction and of reading images),
 * finished by one avalanche so that the low bits, which pick the slot, and
 * the top bits, which tag it, depend on every word. */
#define HASH_K1 0x9e3779b97f4a7c15ull
#define HASH_K2 0xbf58476d1ce4e5b9ull

static uint32_t structural_hash(MimNode node, const MimDef *type, uint64_t flags,
                                MimDef *const *ops, size_t n) {
    uint64_t h = ((uint64_t)node << 56 | (uint64_t)n << 32 | (type ? type->gid : 0)) * HASH_K1;
    h = (h ^ flags) * HASH_K2;
    for (size_t i = 0; i < n; ++i) h = (h + ops[i]->gid) * HASH_K1;
    h ^= h >> 31;
    h *= HASH_K2;
    return (uint32_t)(h ^ h >> 29 ^ h >> 32);
}

static bool same_node(const MimDef *d, uint32_t hash, MimNode node, const MimDef *type,
                      uint64_t flags, MimDef *const *ops, size_t n) {
    if (d->hash != hash || d->node != node || d->flags != flags || d->num_ops != n ||
        d->type != type)
        return false;
    for (size_t i = 0; i < n; ++i)
        if (d->ops[i] != ops[i]) return false;
    return true;
}

/* Slot holding the node equal to the key, or the empty slot where it goes. */
static uint64_t *table_find(MimHashSet *t, uint32_t hash, MimNode node, const MimDef *type,
                            uint64_t flags, MimDef *const *ops, size_t n) {
    size_t mask = t->cap - 1;
    uint64_t tag = mim_table_tag(t, hash);
    for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
        uint64_t *slot = &t->slots[i];
        if (!*slot) return slot;
        if ((*slot & t->tag_mask) == tag && same_node(mim_table_at(t, i), hash, node, type, flags, ops, n))
            return slot;
    }
}

/* Moves t into `cap` fresh slots with tags under `tag_mask`. */
static void table_resize(MimHashSet *t, size_t cap, uint64_t tag_mask) {
    MimHashSet old = *t;
    t->cap = cap;
    t->tag_mask = tag_mask;
    t->slots = mim_pages_zalloc(t->cap * sizeof *t->slots);
    size_t mask = t->cap - 1;
    for (size_t i = 0; i < old.cap; ++i) {
        mim_table_prefetch(&old, i + MIM_TABLE_AHEAD);
        MimDef *d = mim_table_at(&old, i);
        if (!d) continue;
        size_t j = (size_t)d->hash & mask;
        while (t->slots[j]) j = (j + 1) & mask;
        t->slots[j] = (uint64_t)(uintptr_t)d | mim_table_tag(t, d->hash);
    }
    mim_pages_free(old.slots, old.cap * sizeof *old.slots);
}

/* Gives w its cache of recent nodes if it asked for one and its table is
 * big (mim_world_cache_recent). */
static void recent_fit(MimWorld *w) {
    if (w->recent || !w->recent_wanted || w->table.cap < MIM_RECENT_FROM) return;
    w->recent = mim_xcalloc(MIM_RECENT_SIZE, sizeof *w->recent);
}

static void table_grow(MimHashSet *t) { table_resize(t, t->cap ? t->cap * 2 : 1024, t->tag_mask); }

/* Marks the operands and the type of d, which enters the table. */
static void note_users(MimDef *d) {
    if (d->type) d->type->has_user = 1;
    for (size_t i = 0; i < d->num_ops; ++i) d->ops[i]->has_user = 1;
}

/* Whether no node of the table can have this key: some operand, or the
 * type, is no table node's operand or type (MimDef.has_user). About four
 * in five new nodes of the front end are such (they use a node made just
 * before), and their look-up would be a cache miss in a big table. */
static bool key_is_new(const MimDef *type, MimDef *const *ops, size_t n) {
    if (type && !type->has_user) return true;
    for (size_t i = 0; i < n; ++i)
        if (!ops[i]->has_user) return true;
    return false;
}

/* The held-back node with this key, or NULL. */
static MimDef *pending_find(const MimWorld *w, uint32_t hash, MimNode node, const MimDef *type,
                            uint64_t flags, MimDef *const *ops, size_t n) {
    for (uint32_t i = 0; i < w->num_pending; ++i)
        if (w->pending_hash[i] == hash && same_node(w->pending[i], hash, node, type, flags, ops, n))
            return w->pending[i];
    return NULL;
}

void mim_world_settle(MimWorld *w) {
    MimHashSet *t = &w->table;
    size_t mask = t->cap - 1;
    /* In creation order, as if each had been stored when made: the table's
     * layout does not depend on when the list is emptied. */
    for (uint32_t k = 0; k < w->num_pending; ++k) {
        MimDef *d = w->pending[k];
        if ((uint64_t)(uintptr_t)d & t->tag_mask) {
            table_resize(t, t->cap, 0); /* an address that needs the tag bits */
            if (w->recent) memset(w->recent, 0, MIM_RECENT_SIZE * sizeof *w->recent);
        }
        size_t j = (size_t)d->hash & mask;
        while (t->slots[j]) j = (j + 1) & mask;
        t->slots[j] = (uint64_t)(uintptr_t)d | mim_table_tag(t, d->hash);
        t->len++;
    }
    w->num_pending = 0;
}

/* Grows the table if one more node would make it too full. */
static inline void table_make_room(MimWorld *w) {
    MimHashSet *t = &w->table;
    if (2 * (t->len + w->num_pending + 1) > t->cap) {
        mim_world_settle(w);
        table_grow(t);
        recent_fit(w);
    }
}

/* Holds back d (hash set, not in the table) for the table; its home slot
 * is fetched now so that it is in cache when the list is emptied. */
static void pending_add(MimWorld *w, MimDef *d) {
    table_make_room(w);
    if (w->num_pending == MIM_PENDING) mim_world_settle(w);
    note_users(d);
#if defined(__GNUC__) || defined(__clang__)
    MimHashSet *t = &w->table;
    __builtin_prefetch(&t->slots[(size_t)d->hash & (t->cap - 1)], 1);
#endif
    w->pending_hash[w->num_pending] = d->hash;
    w->pending[w->num_pending++] = d;
}

void mim_world_cache_recent(MimWorld *w) {
    w->recent_wanted = true;
    recent_fit(w);
}

void mim_world_reserve(MimWorld *w, size_t nodes) {
    mim_world_settle(w);
    MimHashSet *t = &w->table;
    size_t want = t->len + nodes, cap = t->cap ? t->cap : 1024;
    while (cap < 2 * (want + 1)) cap *= 2;
    if (cap > t->cap) table_resize(t, cap, t->tag_mask);
    recent_fit(w);
}

void mim_world_untag_table(MimWorld *w) {
    mim_world_settle(w);
    if (!w->table.tag_mask) return;
    table_resize(&w->table, w->table.cap, 0);
    if (w->recent) memset(w->recent, 0, MIM_RECENT_SIZE * sizeof *w->recent); /* tagged under the old mask */
}

/* `extra` bytes follow the operands (a mutable's MimMutExt). */
static MimDef *new_node(MimWorld *w, MimNode node, MimDef *type, uint64_t flags, size_t n,
                        size_t extra) {
    MimDef *d = mim_arena_alloc_aligned(&w->arena, sizeof *d + n * sizeof(MimDef *) + extra,
                                        _Alignof(MimDef));
    d->node = (uint8_t)node;
    d->type = type;
    d->flags = flags;
    d->num_ops = (uint32_t)n;
    d->gid = w->gid;
    d->loc = w->loc;
    return d;
}

/* Stores d (hash set) in `slot`, the empty slot table_find gave for it. */
static void table_put(MimWorld *w, uint64_t *slot, MimDef *d) {
    MimHashSet *t = &w->table;
    if ((uint64_t)(uintptr_t)d & t->tag_mask) {
        mim_world_untag_table(w); /* an address that needs the tag bits */
        slot = table_find(t, d->hash, (MimNode)d->node, d->type, d->flags, d->ops, d->num_ops);
    }
    *slot = (uint64_t)(uintptr_t)d | mim_table_tag(t, d->hash);
    t->len++;
    note_users(d);
}

/* The slot of the node with this key and hash, or the empty one where it
 * goes (the table grown first if it would be too full). */
static inline uint64_t *slot_for(MimWorld *w, uint32_t hash, MimNode node, const MimDef *type,
                                 uint64_t flags, MimDef *const *ops, size_t n) {
    table_make_room(w);
    return table_find(&w->table, hash, node, type, flags, ops, n);
}

/* The same, with the hash computed into *hash. */
static inline uint64_t *slot_of(MimWorld *w, MimNode node, const MimDef *type, uint64_t flags,
                                MimDef *const *ops, size_t n, uint32_t *hash) {
    *hash = structural_hash(node, type, flags, ops, n);
    return slot_for(w, *hash, node, type, flags, ops, n);
}

/* d (of this hash) is the latest node met for its entry of w's cache. */
static inline void recent_note(MimWorld *w, uint32_t hash, MimDef *d) {
    w->recent[hash & (MIM_RECENT_SIZE - 1)] = (uint64_t)(uintptr_t)d | mim_table_tag(&w->table, hash);
}

MimDef *mim_unify(MimWorld *w, MimNode node, MimDef *type, uint64_t flags,
                  MimDef *const *ops, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (!ops[i]) return NULL;
    if (!type && node != MIM_UNIV && node != MIM_TYPE) return NULL;

    /* Most constructions in the front end find a node that exists (about
     * 60 %: literals, types, repeated applications), and in a big World the
     * table's slot for it is a cache miss. The emitter's World keeps the
     * nodes met lately by hash in `recent`, which stays in cache; nodes
     * never leave the table, so an entry that matches the key is the
     * table's node. Tagged like the table's slots: a node of another hash
     * is not loaded. */
    uint32_t hash = structural_hash(node, type, flags, ops, n);
    bool is_new = key_is_new(type, ops, n);
    uint64_t *recent = NULL;
    if (w->recent && !is_new) {
        recent = &w->recent[hash & (MIM_RECENT_SIZE - 1)];
        uint64_t tag = mim_table_tag(&w->table, hash);
        MimDef *r = (*recent & w->table.tag_mask) == tag ? (MimDef *)(uintptr_t)(*recent & ~w->table.tag_mask) : NULL;
        if (r && same_node(r, hash, node, type, flags, ops, n)) {
            if (!w->frozen) ++w->gid; /* as on a hit in the table */
            return r;
        }
    }
    MimDef *found = NULL;
    if (!is_new) {
        found = pending_find(w, hash, node, type, flags, ops, n);
        if (!found) {
            uint64_t *slot = slot_for(w, hash, node, type, flags, ops, n);
            found = (MimDef *)(uintptr_t)(*slot & ~w->table.tag_mask);
        }
    }
    if (recent && found) recent_note(w, hash, found);
    if (w->frozen) return found; /* the gid counter is not advanced */
    ++w->gid; /* consumed even on a hit (semantics.md §1.2) */
    if (found) return found;

    MimDef *d = new_node(w, node, type, flags, n, 0);
    if (n) memcpy(d->ops, ops, n * sizeof *ops);
    d->hash = hash;
    d->dep = (uint8_t)mim_dep_compute(d);
    if (node == MIM_TYPE) d->u.ty.world = w;
    pending_add(w, d);
    if (w->recent) recent_note(w, hash, d);
    return d;
}

bool mim_world_enter(MimWorld *w, MimDef *d) {
    mim_world_settle(w);
    uint32_t hash;
    uint64_t *slot = slot_of(w, (MimNode)d->node, d->type, d->flags, d->ops, d->num_ops, &hash);
    if (*slot) return false;
    d->hash = hash;
    table_put(w, slot, d);
    return true;
}

MimDef *mim_alloc_mut(MimWorld *w, MimNode node, MimDef *type, uint64_t flags, size_t n) {
    if (w->frozen || !type) return NULL;
    ++w->gid;
    MimDef *d = new_node(w, node, type, flags, n, sizeof(MimMutExt));
    d->is_mut = 1;
    d->dep = (uint8_t)mim_dep_compute(d);
    return d;
}

/* ---- builtins ------------------------------------------------------------- */

/* Creation order follows the reference World: universe and the first two
 * levels, *, □, ⊥:*, ⊤:*, [], (), Nat, Idx, ⊤:Nat, literals. */
static void create_builtins(MimWorld *w) {
    struct MimBuiltins *b = &w->builtin;
    b->univ = mim_unify(w, MIM_UNIV, NULL, 0, NULL, 0);
    b->star = mim_type_lvl(w, 0);
    b->box = mim_type_lvl(w, 1);
    b->bot_star = mim_unify(w, MIM_BOT, b->star, 0, NULL, 0);
    b->top_star = mim_unify(w, MIM_TOP, b->star, 0, NULL, 0);
    b->unit_type = mim_unify(w, MIM_SIGMA, b->star, 0, NULL, 0);
    b->unit = mim_unify(w, MIM_TUPLE, b->unit_type, 0, NULL, 0);
    b->nat = mim_unify(w, MIM_NAT, b->star, 0, NULL, 0);
    b->idx = mim_unify(w, MIM_IDX, mim_pi(w, b->nat, b->star, false), 0, NULL, 0);
    b->top_nat = mim_unify(w, MIM_TOP, b->nat, 0, NULL, 0);
    b->nat_0 = mim_lit_nat(w, 0);
    b->nat_1 = mim_lit_nat(w, 1);
    b->lit_0_1 = mim_lit_idx(w, 1, 0);
    b->bool_ = mim_type_idx_n(w, 2);
    b->ff = mim_lit_idx(w, 2, 0);
    b->tt = mim_lit_idx(w, 2, 1);
    b->nat_max = mim_lit_nat(w, UINT64_MAX);
    mim_world_fill_small_idx(w); /* after the reference's builtins: their gids stay */
}

/* ---- lifetime and configuration --------------------------------------------- */

static MimWorld *world_alloc(void) {
    MimWorld *w = mim_xcalloc(1, sizeof *w);
    w->table.tag_mask = MIM_TABLE_TAG_MASK;
    mim_arena_init(&w->arena);
    mim_symtab_init(&w->syms);
    mim_diag_init(&w->diag);
    w->scalarize_threshold = 32;
    w->stack_budget = MIM_DEFAULT_STACK_BUDGET;
    return w;
}

MimWorld *mim_world_new(void) {
    MimWorld *w = world_alloc();
    create_builtins(w);
    return w;
}

MimWorld *mim_world_inherit(MimWorld *old) {
    MimWorld *w = world_alloc();
    /* The heir's nodes go where old's would have gone next (the end of its
     * current arena chunk, usually a huge page already faulted in): old only
     * changes where its own later nodes go, not what it holds. Not in a
     * sanitizer build: a node of a freed World used by mistake must be
     * reported there, not found in memory the heir keeps alive. */
#ifndef MIM_ASAN_BUILD
    mim_arena_hand_tail(&old->arena, &w->arena);
#endif
    w->gid = old->gid; /* gids continue (semantics.md §10.2) */
    w->scalarize_threshold = old->scalarize_threshold;
    w->aggr_lam_spec = old->aggr_lam_spec;
    w->stack_budget = old->stack_budget;
    w->log_out = old->log_out;
    w->log_level = old->log_level;
    for (size_t i = 0; i < old->app_rules.len; ++i) mim_vec_push(&w->app_rules, old->app_rules.data[i]);
    w->name = old->name ? mim_sym(&w->syms, old->name) : NULL;
    w->loc = old->loc;
    w->loc.file = old->loc.file ? mim_sym(&w->syms, old->loc.file) : NULL; /* old may be freed first */
    create_builtins(w);
    return w;
}

void mim_world_free(MimWorld *w) {
    if (!w) return;
    mim_check_world_fini(w);
    for (size_t i = 0; i < sizeof w->strs / sizeof *w->strs; ++i) free(w->strs[i]);
    for (size_t i = 0; i < w->plugin_states.len; ++i) {
        MimPluginState *ps = &w->plugin_states.data[i];
        if (ps->fini) ps->fini(ps->state);
        free(ps->state);
    }
    mim_vec_free(&w->plugin_states);
    mim_vec_free(&w->app_rules);
    mim_vec_free(&w->externals);
    mim_vec_free(&w->annexes);
    mim_diag_free(&w->diag);
    mim_pages_free(w->table.slots, w->table.cap * sizeof *w->table.slots);
    free(w->recent);
    mim_symtab_free(&w->syms);
    mim_arena_free(&w->arena);
    free(w);
}

MimSym mim_world_sym(MimWorld *w, const char *s) { return s ? mim_sym(&w->syms, s) : NULL; }
MimSym mim_world_sym_n(MimWorld *w, const char *s, size_t n) { return mim_sym_n(&w->syms, s, n); }
void mim_world_set_name(MimWorld *w, MimSym name) { w->name = name; }
MimSym mim_world_name(const MimWorld *w) { return w->name; }
void mim_world_set_loc(MimWorld *w, MimLoc loc) { w->loc = loc; }
MimLoc mim_world_loc(const MimWorld *w) { return w->loc; }
void mim_world_set_scalarize_threshold(MimWorld *w, uint64_t n) { w->scalarize_threshold = n; }
uint64_t mim_world_scalarize_threshold(const MimWorld *w) { return w->scalarize_threshold; }
void mim_world_set_aggr_lam_spec(MimWorld *w, bool on) { w->aggr_lam_spec = on; }
bool mim_world_aggr_lam_spec(const MimWorld *w) { return w->aggr_lam_spec; }
void mim_world_set_stack_budget(MimWorld *w, size_t bytes) { w->stack_budget = bytes; }
MimDiag *mim_world_diag(MimWorld *w) { return &w->diag; }
bool mim_world_has_error(const MimWorld *w) { return w->diag.num_errors != 0; }

void mim_world_set_log(MimWorld *w, FILE *out, int level) {
    w->log_out = out;
    w->log_level = level;
}

bool mim_world_logs(const MimWorld *w, int level) { return w->log_out && level <= w->log_level; }

void mim_world_log(MimWorld *w, int level, MimLoc loc, const char *fmt, ...) {
    if (!mim_world_logs(w, level)) return;
    static const char letters[] = "EWIVD";
    fprintf(w->log_out, "%c:", letters[level < 0 ? 0 : level > 4 ? 4 : level]);
    mim_loc_print(loc, w->log_out);
    fputs(": ", w->log_out);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(w->log_out, fmt, ap);
    va_end(ap);
    fputc('\n', w->log_out);
}

void *mim_world_plugin_state(MimWorld *w, uint64_t plugin_id, size_t size, void (*fini)(void *state)) {
    for (size_t i = 0; i < w->plugin_states.len; ++i)
        if (w->plugin_states.data[i].plugin == plugin_id) return w->plugin_states.data[i].state;
    if (!size) return NULL;
    MimPluginState ps = {plugin_id, mim_xcalloc(1, size), fini};
    mim_vec_push(&w->plugin_states, ps);
    return ps.state;
}

bool mim_world_freeze(MimWorld *w, bool frozen) {
    bool old = w->frozen;
    w->frozen = frozen;
    return old;
}

bool mim_world_is_frozen(const MimWorld *w) { return w->frozen; }
uint32_t mim_world_gid_counter(const MimWorld *w) { return w->gid; }
size_t mim_world_num_nodes(const MimWorld *w) { return w->table.len + w->num_pending; }

/* ---- messages --------------------------------------------------------------- */

const char *mim_str(MimWorld *w, const MimDef *d) {
    unsigned k = w->str_next++ % (sizeof w->strs / sizeof *w->strs);
    free(w->strs[k]);
    w->strs[k] = d ? mim_def_to_str(w, d) : mim_xstrdup("<nullptr>");
    return w->strs[k];
}

static void report(MimWorld *w, MimSeverity sev, const char *fmt, va_list ap) {
    if (w->frozen) return;
    mim_diag_vreport(&w->diag, sev, w->loc, fmt, ap);
}

void mim_err(MimWorld *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    report(w, MIM_ERROR, fmt, ap);
    va_end(ap);
}

void mim_note(MimWorld *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    report(w, MIM_NOTE, fmt, ap);
    va_end(ap);
}

/* ---- externals (sorted by name, byte-wise) ---------------------------------- */

static int cmp_name(MimSym a, MimSym b) { return strcmp(a ? a : "", b ? b : ""); }

/* Index of the first external whose name is not below name; *found if equal. */
static size_t external_pos(MimWorld *w, MimSym name, bool *found) {
    size_t lo = 0, hi = w->externals.len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_name(w->externals.data[mid]->name, name) < 0) lo = mid + 1;
        else hi = mid;
    }
    *found = lo < w->externals.len && cmp_name(w->externals.data[lo]->name, name) == 0;
    return lo;
}

/* Names are unique keys: a new external replaces one of the same name. */
void mim_make_external(MimWorld *w, MimDef *mut) {
    if (!mut || !mut->is_mut || mut->is_external) return;
    w->mutations++;
    bool found;
    size_t i = external_pos(w, mut->name, &found);
    if (found) {
        w->externals.data[i]->is_external = 0;
        w->externals.data[i] = mut;
    } else {
        mim_vec_push(&w->externals, NULL);
        memmove(&w->externals.data[i + 1], &w->externals.data[i],
                (w->externals.len - 1 - i) * sizeof *w->externals.data);
        w->externals.data[i] = mut;
    }
    mut->is_external = 1;
}

void mim_make_internal(MimWorld *w, MimDef *mut) {
    if (!mut || !mut->is_external) return;
    w->mutations++;
    bool found;
    size_t i = external_pos(w, mut->name, &found);
    if (found && w->externals.data[i] == mut) {
        memmove(&w->externals.data[i], &w->externals.data[i + 1],
                (w->externals.len - 1 - i) * sizeof *w->externals.data);
        w->externals.len--;
    }
    mut->is_external = 0;
}

size_t mim_world_num_externals(MimWorld *w) { return w->externals.len; }
uint64_t mim_world_mutations(const MimWorld *w) { return w->mutations; }

MimDef *mim_world_external(MimWorld *w, size_t i) {
    return i < w->externals.len ? w->externals.data[i] : NULL;
}

MimDef *mim_world_lookup_external(MimWorld *w, MimSym name) {
    bool found;
    size_t i = external_pos(w, name, &found);
    return found ? w->externals.data[i] : NULL;
}

/* ---- annexes (sorted by id) --------------------------------------------------- */

static size_t annex_pos(MimWorld *w, uint64_t id) {
    size_t lo = 0, hi = w->annexes.len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->annexes.data[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

void mim_world_register_annex(MimWorld *w, uint64_t id, MimDef *def) {
    if (!def) return;
    size_t i = annex_pos(w, id);
    if (i < w->annexes.len && w->annexes.data[i].id == id) {
        w->annexes.data[i].def = def;
        return;
    }
    mim_vec_push(&w->annexes, ((MimAnnexEntry){0, NULL}));
    memmove(&w->annexes.data[i + 1], &w->annexes.data[i],
            (w->annexes.len - 1 - i) * sizeof *w->annexes.data);
    w->annexes.data[i] = (MimAnnexEntry){id, def};
}

void mim_world_set_app_rule(MimWorld *w, uint64_t id, MimAppRule rule) {
    for (size_t i = 0; i < w->app_rules.len; ++i)
        if (w->app_rules.data[i].id == id) {
            w->app_rules.data[i].rule = rule;
            return;
        }
    mim_vec_push(&w->app_rules, ((MimAppRuleEntry){id, rule}));
}

MimAppRule mim_world_app_rule(const MimWorld *w, uint64_t id) {
    for (size_t i = 0; i < w->app_rules.len; ++i)
        if (w->app_rules.data[i].id == id) return w->app_rules.data[i].rule;
    return NULL;
}

size_t mim_world_num_annexes(MimWorld *w) { return w->annexes.len; }

MimDef *mim_world_annex_at(MimWorld *w, size_t i, uint64_t *id) {
    if (i >= w->annexes.len) return NULL;
    if (id) *id = w->annexes.data[i].id;
    return w->annexes.data[i].def;
}

MimDef *mim_world_annex(MimWorld *w, uint64_t id) {
    size_t i = annex_pos(w, id);
    return i < w->annexes.len && w->annexes.data[i].id == id ? w->annexes.data[i].def : NULL;
}
