/* Nodes of the MimIR program graph (semantics.md §1–§2).
 * A MimDef is owned by its MimWorld; immutables are hash-consed (pointer
 * equality = structural equality), mutables are created empty and filled. */
#ifndef MIM_DEF_H
#define MIM_DEF_H

#include "mim/api.h"

#include "mim/loc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct MimDef MimDef;
typedef struct MimWorld MimWorld;
typedef const char *MimSym; /* interned name (see mim_world_sym), NULL = none */

/* Node kinds. The numeric values are the kind indices of output-format.md §8. */
typedef enum MimNode {
    MIM_TYPE = 0, MIM_UNIV = 1, MIM_UMAX = 2, MIM_UINC = 3, MIM_PI = 4, MIM_LAM = 5,
    MIM_APP = 6, MIM_SIGMA = 7, MIM_TUPLE = 8, MIM_EXTRACT = 9, MIM_INSERT = 10,
    MIM_ARR = 11, MIM_PACK = 12, MIM_JOIN = 13, MIM_VEL = 14, MIM_TEST = 15, MIM_TOP = 16,
    MIM_MEET = 17, MIM_AC = 18, MIM_PICK = 19, MIM_BOT = 20, MIM_PROXY = 21, MIM_AXIOM = 22,
    MIM_LIT = 23, MIM_NAT = 24, MIM_IDX = 25, MIM_VAR = 26, MIM_INFER = 27, MIM_GLOBAL = 28,
    MIM_SINGLETON = 29, MIM_NUM_NODES = 30
} MimNode;

/* Dependency bits (semantics.md §6). */
enum {
    MIM_DEP_AXIOM = 1 << 0,
    MIM_DEP_VAR = 1 << 1,
    MIM_DEP_MUT = 1 << 2,
    MIM_DEP_INFER = 1 << 3,
    MIM_DEP_PROXY = 1 << 4,
};

MIM_API const char *mim_node_name(MimNode n); /* lower case: "pi", "lam", "univ", ... */

MIM_API MimNode mim_def_node(const MimDef *d);
MIM_API uint32_t mim_def_gid(const MimDef *d);
MIM_API uint64_t mim_def_flags(const MimDef *d);
MIM_API MimDef *mim_def_type(const MimDef *d);   /* NULL only for Univ */
MIM_API size_t mim_def_num_ops(const MimDef *d);
MIM_API MimDef *mim_def_op(const MimDef *d, size_t i); /* NULL if a mutable's op is unset */
MIM_API MimSym mim_def_name(const MimDef *d);
MIM_API MimLoc mim_def_loc(const MimDef *d);
MIM_API bool mim_def_is_mut(const MimDef *d);
MIM_API bool mim_def_is_external(const MimDef *d);
MIM_API bool mim_def_is_set(const MimDef *d); /* mutable: no ops or last op set; immutable: true */
MIM_API unsigned mim_def_dep(const MimDef *d);
MIM_API bool mim_def_is_const(const MimDef *d); /* neither Mut nor Var dependency */

/* Literal payload; true iff d is a Lit (through hole resolution). */
MIM_API bool mim_def_lit(const MimDef *d, uint64_t *value);
/* Pi: implicit bit. */
MIM_API bool mim_pi_is_implicit(const MimDef *pi);
/* Pi whose codomain is a Bot node. */
MIM_API bool mim_pi_is_cn(const MimDef *pi);

/* Operand form of d as printed in error messages (no gids); heap string,
 * caller frees (defined in src/ir/print.c; used by back ends' diagnostics). */
MIM_API char *mim_def_to_str(MimWorld *w, const MimDef *d);

#ifdef __cplusplus
}
#endif

#endif
