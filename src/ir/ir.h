/* Internal layout of nodes, shared by the IR modules (world, normalization,
 * checking, substitution, printing). Code outside src/ir and the front end
 * uses the accessors of include/mim/def.h instead. */
#ifndef MIM_IR_IR_H
#define MIM_IR_IR_H

#include "mim/def.h"
#include "mim/world.h"
#include "util/sym.h"

#include <assert.h>
#include <stdint.h>

typedef struct MimFreeVars MimFreeVars; /* cached free-variable set of a mutable */

struct MimDef {
    MimDef *type;   /* NULL only for Univ; for mutables may be replaced */
    uint64_t flags; /* literal value, annex id, implicit bit, hole rank, ... */
    uint32_t hash;  /* immutables: structural hash (computed from gids) */
    /* Index of the node's record in the side table of the traversal running
     * over its World (pass manager, pm.c, or the cleanup's rewriter in
     * side-table mode, subst.c); meaningful only to that table, which checks
     * that the record it points to names this node. One such table at a time
     * per World. */
    uint32_t scratch;
    uint32_t gid;
    uint32_t num_ops;
    uint8_t node;     /* MimNode */
    uint8_t dep;      /* MIM_DEP_* */
    /* has_reduce_gen: a mutable with an entry in its World's reduce_gen
     * (subst.c), so that invalidations of all other mutables skip that
     * World-wide map. */
    /* has_user: the node is an operand or the type of an immutable in its
     * World's table (or waiting to enter it, world.c): a key with an operand
     * or type without it names no existing node, so its look-up is skipped.
     * Set on entering the table, never cleared (a stray 1 only costs a
     * look-up). */
    uint8_t is_mut : 1, is_external : 1, var_made : 1, in_check : 1, has_reduce_gen : 1, has_user : 1;
    uint8_t curry, trip; /* App: counter of this application; Axiom: initial counters */
    MimSym name;
    MimLoc loc;
    union {
        struct {
            MimDef *axiom; /* App: head axiom of the curried chain, or NULL */
        } app;
        struct {
            MimNormalizer norm; /* Axiom */
        } ax;
        struct {
            MimWorld *world; /* Type: its type Type (l+1) is built on demand */
        } ty;
    } u;
    MimDef *ops[]; /* num_ops operands; for mutables NULL while unset */
    /* A mutable continues with its MimMutExt (mim_mut_ext). */
};

/* What only mutables have, stored right after their operands: kept out of
 * MimDef, whose every byte is paid by the far more numerous immutables. */
typedef struct MimMutExt {
    MimDef *var;     /* the binder's variable (or 0₁), NULL until requested */
    MimFreeVars *fv; /* cache, NULL = not computed / invalidated */
    MimSym *fields;  /* Sigma: field names by element (front end), may be NULL */
} MimMutExt;

/* The extension follows operands of pointer size, so it is aligned if MimDef is. */
_Static_assert(sizeof(MimDef) % _Alignof(MimMutExt) == 0, "MimMutExt would be misaligned");

static inline MimMutExt *mim_mut_ext(const MimDef *m) {
    assert(m->is_mut);
    return (MimMutExt *)(void *)((char *)(uintptr_t)m + sizeof(MimDef) + m->num_ops * sizeof(MimDef *));
}

/* Implicit bit of a Pi lives in flags bit 0. */
#define MIM_PI_IMPLICIT 1u

static inline bool mim_is(const MimDef *d, MimNode n) { return d && d->node == n; }

#endif
