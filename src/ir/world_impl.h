/* Internal state of a World, shared by the IR modules. Two sections: the
 * "construction" part (world.c, build/normalize code) and the "checking"
 * part (alpha-equivalence, holes, free variables, substitution). Each owner
 * adds fields only to its own section. */
#ifndef MIM_IR_WORLD_IMPL_H
#define MIM_IR_WORLD_IMPL_H

#include "ir/ir.h"
#include "util/arena.h"
#include "mim/ptrmap.h"
#include "util/sym.h"
#include "mim/vec.h"
#include "mim/rewrite.h"

#include <stddef.h>

/* Open addressing over immutables, keyed by MimDef.hash. A slot holds the
 * node's address with the top 16 bits of its hash in the address bits above
 * MIM_TABLE_ADDR_BITS, which user-space addresses leave zero: probing then
 * compares tags in the table and loads only nodes whose tag matches (in a
 * big World each load is a cache miss). An address that uses those bits
 * turns tagging off for the table (tag_mask 0). Read slots with
 * mim_table_at. */
#define MIM_TABLE_ADDR_BITS 48
#define MIM_TABLE_TAG_MASK (~UINT64_C(0) << MIM_TABLE_ADDR_BITS)

/* Size classes of recycled free-variable sets (fv.c: set_class): one per
 * size up to 16, then one per power of two up to 2^32 variables. */
#define MIM_FV_SET_CLASSES 45

typedef struct MimHashSet {
    uint64_t *slots;
    size_t cap, len;
    uint64_t tag_mask; /* MIM_TABLE_TAG_MASK, or 0 once untagged */
} MimHashSet;

/* Room for `nodes` more immutables without growing the table on the way. */
void mim_world_reserve(MimWorld *w, size_t nodes);
/* Lets w keep recently met immutables in a cache before its table (once
 * the table is big): for Worlds whose constructions mostly find nodes. */
void mim_world_cache_recent(MimWorld *w);
/* Creates the Idx types and literals of MimWorld.small_idx (lit.c). */
void mim_world_fill_small_idx(MimWorld *w);
/* Moves the nodes held back for the table into it: call before reading
 * MimWorld.table's slots. */
void mim_world_settle(MimWorld *w);
/* Stores plain addresses from now on (also used by tests). */
void mim_world_untag_table(MimWorld *w);
/* The rewrite rule registered for calls of axiom `id`, or NULL. */
MimAppRule mim_world_app_rule(const MimWorld *w, uint64_t id);

/* A slot's tag for `hash`: the hash's top 16 bits in the slot's top bits. */
static inline uint64_t mim_table_tag(const MimHashSet *t, uint32_t hash) {
    return ((uint64_t)hash << 32) & t->tag_mask;
}

static inline MimDef *mim_table_at(const MimHashSet *t, size_t i) {
    return (MimDef *)(uintptr_t)(t->slots[i] & ~t->tag_mask);
}

/* Slots a scan of the whole table (resize, printer's projection index)
 * looks ahead: its nodes come in hash order, each one a cache miss when it
 * is read, and asking for several at once overlaps the misses. */
#define MIM_TABLE_AHEAD 16

/* A hint to bring the header of the node in slot i (if any) into cache. */
static inline void mim_table_prefetch(const MimHashSet *t, size_t i) {
#if defined(__GNUC__) || defined(__clang__)
    if (i < t->cap) {
        const char *d = (const char *)mim_table_at(t, i);
        if (d) {
            __builtin_prefetch(d);
            __builtin_prefetch(d + offsetof(MimDef, node)); /* the header may cross a line */
        }
    }
#else
    (void)t, (void)i;
#endif
}

enum { MIM_SMALL_IDX = 16 };

typedef struct MimPluginState { /* mim_world_plugin_state */
    uint64_t plugin;
    void *state;
    void (*fini)(void *state);
} MimPluginState;

typedef struct MimAppRuleEntry { /* mim_world_set_app_rule */
    uint64_t id;
    MimAppRule rule;
} MimAppRuleEntry;

typedef struct MimAnnexEntry {
    uint64_t id;
    MimDef *def;
} MimAnnexEntry;

/* Slots of MimWorld.recent (a power of two; 128 KiB, within L2), made once
 * the table has MIM_RECENT_FROM slots (1 MiB, more than the cache keeps of
 * it; a smaller table stays in cache anyway). */
#define MIM_RECENT_SIZE 16384
#define MIM_RECENT_FROM ((size_t)1 << 17)

/* New immutables held back from MimWorld.table (world.c): their slots are
 * prefetched when they are made and filled in creation order when the list
 * is full, so the cache misses of insertions into a big table overlap. */
#define MIM_PENDING 32

struct MimWorld {
    /* ---- construction section (owner: world.c / build code) ---- */
    MimArena arena;       /* all nodes */
    MimSymTab syms;       /* all names */
    MimHashSet table;     /* hash-consed immutables */
    /* Immutables recently found or entered, by the low bits of their hash,
     * tagged as in `table` (world.c: mim_unify looks here before the
     * table); 0 = empty. NULL unless asked for (mim_world_cache_recent: the
     * emitter, whose constructions mostly find existing nodes; a cleanup
     * rebuilding into a fresh World mostly makes new ones) and the table
     * is big. */
    uint64_t *recent;
    bool recent_wanted;
    /* Immutables made but not yet in `table` (MIM_PENDING above), with their
     * hashes apart so that a look-up scans one small array. A look-up finds
     * them here; readers of the table's slots call mim_world_settle first. */
    MimDef *pending[MIM_PENDING];
    uint32_t pending_hash[MIM_PENDING];
    uint32_t num_pending;
    uint32_t gid;         /* last gid handed out */
    bool frozen;
    uint64_t mutations; /* operand/type/external changes of mutables (see mim_world_mutations) */
    uint64_t pass_rounds; /* rounds the pass managers started on this World (mim_pass_round_id) */
    MimSym name;
    MimLoc loc;           /* current location for new nodes and diagnostics */
    uint64_t scalarize_threshold;
    bool aggr_lam_spec; /* --aggr-lam-spec */
    MimDiag diag;
    MIM_VEC(MimDef *) externals;   /* kept sorted by name */
    MIM_VEC(MimAnnexEntry) annexes; /* kept sorted by id */
    struct MimBuiltins {  /* nodes that exist from creation (semantics.md §4.2) */
        MimDef *univ, *star, *box, *nat, *idx, *bool_, *bot_star, *top_star, *top_nat;
        MimDef *unit_type, *unit, *lit_0_1, *ff, *tt, *nat_0, *nat_1, *nat_max;
    } builtin;
    FILE *log_out;        /* mim_world_set_log; NULL = no log */
    int log_level;
    MIM_VEC(MimPluginState) plugin_states;
    MIM_VEC(MimAppRuleEntry) app_rules; /* few; inherited by heirs */
    char *strs[8];        /* ring of printed nodes for messages (mim_str) */
    unsigned str_next;
    /* `Idx n` and its literals for n < MIM_SMALL_IDX, made with the
     * builtins (mim_world_fill_small_idx), so that whether a later
     * construction consumes gids does not depend on what was built before
     * (a World read from an image numbers as one built from source): every
     * projection asks for one. Literal v of Idx n is at n(n-1)/2 + v. */
    MimDef *small_idx[MIM_SMALL_IDX];
    MimDef *small_idx_lit[MIM_SMALL_IDX * (MIM_SMALL_IDX - 1) / 2];

    /* ---- checking section (owner: check/infer/fv/subst code) ---- */
    /* Zero-initialised = valid; released by mim_check_world_fini. */
    MimArena check_arena;     /* reduce results, free-variable records */
    MimPairMap reduce_cache;  /* (binder, arg) -> MimReduct* (subst.c) */
    MimPtrMap reduce_gen;     /* binder -> generation, bumped on invalidation */
    MimFreeVars *fv_records;  /* all free-variable records (fv.c), for freeing */
    uint32_t fv_counter;      /* Tarjan DFS numbering (fv.c) */
    /* Free-variable sets and consumer entries given back by invalidations
     * and recomputations, for reuse (fv.c): a World mutated for long would
     * otherwise keep every replaced set in the check arena. Singly linked
     * through their first word; sets by size class (fv.c: set_class). */
    void *fv_free_sets[MIM_FV_SET_CLASSES];
    void *fv_free_consumers;
    uint32_t beta_depth;      /* nesting of β-reductions in progress (subst.c) */
    MimPairMap beta_active;   /* (lam, arg) of the β-reductions in progress (removed when done) */
    uintptr_t beta_stack_base; /* stack position of the outermost β-reduction */
    size_t stack_budget;      /* bytes of stack nested β-reductions may use */
    uint64_t mut_epoch;   /* bumped whenever a mutable's operands change */
    uint64_t hole_epoch;  /* bumped whenever a hole is solved, re-opened or retyped */
    struct MimElimClean { /* nodes whose hole elimination found nothing to do (infer.c) */
        const MimDef *def;
        uint64_t epoch;   /* hole_epoch + 1 at that time (0 = empty entry) */
    } elim_clean[256];
    /* Emptied heap maps of finished substitutions, for the next ones (subst.c):
     * most substitutions outgrow a map's first storage, and growing fresh
     * maps in every β-reduction was a fifth of its cost. */
    MimPtrMap spare_maps[16];
    unsigned num_spare_maps;
    /* Nodes the rewrite that made this World gave it (mim_world_rewrite:
     * every cleanup), 0 if no rewrite made it: how many the next one will
     * likely copy (pass/cleanup.c). */
    size_t rewritten_nodes;
};

#endif
