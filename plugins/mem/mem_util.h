/* Small shared pieces of the mem plugin's passes (maps: mim/ptrmap.h,
 * vectors: mim/vec.h): a pointer vector type, use lists of a whole program,
 * and helpers for memory tokens and lambda domains. The plugin only sees the public API
 * (mim/world.h, mim/pass.h), so these live here instead of src/util. */
#ifndef MEM_UTIL_H
#define MEM_UTIL_H

#include "mim/pass.h"
#include "mim/plugin.h"
#include "mim/ptrmap.h"
#include "mim/vec.h"
#include "mim/xalloc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- pointer vector (mim_vec_push, mim_vec_free) ---------------------------- */
typedef MIM_VEC(void *) MemVec;

/* ---- use lists of the program reachable from the externals ----------------- */
#define MEM_USE_TYPE UINT32_MAX /* the node is the type of the user */

typedef struct MemUse {
    MimDef *user;
    uint32_t op;   /* operand index, or MEM_USE_TYPE */
    uint32_t next; /* next use of the same node + 1 (0 = end) */
} MemUse;

typedef struct MemUses {
    /* Heads of the use lists, keyed by the round's node index
     * (mim_pass_node_index): 0 = not met, MEM_MET = met without uses, else
     * index of the first use + 1. A node without an index (not reached by
     * the round's use count) has its head in other_heads, at the index
     * `other` maps it to. */
    MIM_VEC(uint32_t) first;
    MimPtrMap other;
    MIM_VEC(uint32_t) other_heads;
    const MimPass *pass; /* whose round's indices `first` is keyed by */
    MIM_VEC(MemUse) uses;
    size_t num_nodes; /* reachable nodes */
    /* In discovery order, collected while the walk holds the node (a later
     * scan of all nodes would miss the cache on each): */
    MemVec lams;  /* the reachable mutable lambdas */
    MemVec slots; /* the reachable %mem.slot applications */
} MemUses;
#define MEM_MET UINT32_MAX

/* The use lists of the program the externals of p's World reach (Var ->
 * binder edges are not uses), built once per round of p's manager (and again
 * when a mutable changed since); valid until the round ends. */
const MemUses *mem_uses_of(MimPass *p);
void mem_uses_free(MemUses *u);
/* Iterate: for (uint32_t i = mem_uses_first(u, d); i; i = u->uses.data[i - 1].next) */
uint32_t mem_uses_first(const MemUses *u, const MimDef *d);
size_t mem_uses_count(const MemUses *u, const MimDef *d);

/* ---- helpers ------------------------------------------------------------------ */
bool mem_is_M(MimWorld *w, MimDef *type);
/* Number of top-level components of a (domain) type: the operands of an
 * immutable Σ, else 1. */
uint64_t mem_num_comps(MimWorld *w, MimDef *type);
MimDef *mem_comp_type(MimWorld *w, MimDef *type, uint64_t n, uint64_t i);
/* The index of the only %mem.M component of `type` (false if none or several). */
bool mem_unique_M(MimWorld *w, MimDef *type, uint64_t *index);
/* A mutable Lam with a body, not external, whose type is an immutable Pi
 * with an immutable domain (so the domain can be changed). */
bool mem_is_simple_lam(MimWorld *w, MimDef *d);
/* The type of lam as an immutable, non-implicit Pi with an immutable domain
 * (a mutable Pi whose codomain does not depend on it counts), or NULL. */
MimDef *mem_lam_pi(MimWorld *w, MimDef *lam);
/* Does a continuation lam have a return continuation (last component a Cn)? */
bool mem_has_ret(MimWorld *w, MimDef *lam);
/* d's literal value (through holes). */
bool mem_lit(MimWorld *w, MimDef *d, uint64_t *v);

#endif
