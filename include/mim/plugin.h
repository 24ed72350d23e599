/* The C plugin interface (paper §2.1–§2.4, cli.md §4, semantics.md §11–§12).
 *
 * A plugin NAME is `NAME.mim` (its interface: axioms, helpers) plus a shared
 * library `libmim_NAME.so` next to it that exports one function,
 *     const MimPlugin *mim_get_plugin(void);
 * (or mim_get_plugin_NAME, see MIM_PLUGIN_DEFINE)
 * returning static data: tables of normalizers (keyed by annex id), passes
 * (keyed by the annex id of the pass axiom) and back ends (keyed by name),
 * in the spirit of Lua's luaL_Reg tables. A plugin author writes normalizers
 * against the public API only (world.h, def.h and this file).
 *
 * Annex ids are generated: `mim --bootstrap NAME.mim --output-h NAME.h`
 * writes a header with, for every annex `%NAME.tag` and sub-tag `sub`:
 *     #define MIM_NAME_ID          0x...ull   plugin id (48 bits << 16)
 *     #define MIM_NAME_tag         0x...ull   base id of the annex (sub 0)
 *     #define MIM_NAME_tag_sub     0x...ull   full id of each sub-tag (aliases too)
 *     #define MIM_NAME_tag_NUM     n          number of sub-tags (0 if none)
 *     #define MIM_NAME_tag_IS_FN   0/1        the annex is an axiom of function type
 * the prototypes of the normalizers named in NAME.mim,
 *     MimDef *normalize_x(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg);
 * and a table initializer listing every (sub-)tag id with its normalizer
 * (the base id for an annex without sub-tags) and the number of entries:
 *     #define MIM_NAME_NORMALIZERS { MIM_NAME_tag_sub, normalize_x }, ...
 *     #define MIM_NAME_NUM_NORMALIZERS n
 * The build (plugins/CMakeLists.txt, mim_add_plugin) generates it as
 * <mim/plugin/NAME.h> and builds build/lib/mim/libmim_NAME.so against it;
 * a name that would be defined twice (`%p.a_b` vs `%p.a.b`) is an error.
 * so a plugin's registration is data (MIM_PLUGIN_DEFINE below):
 *     static const MimNormalizerReg normalizers[] = { MIM_core_NORMALIZERS };
 *     MIM_PLUGIN_DEFINE("core", MIM_PLUGIN_TABLE(normalizers), MIM_PLUGIN_NO_TABLE,
 *                       MIM_PLUGIN_NO_TABLE); */
#ifndef MIM_PLUGIN_H
#define MIM_PLUGIN_H

#include "mim/api.h"

#include "mim/def.h"
#include "mim/world.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MIM_PLUGIN_ABI 1
#define MIM_PLUGIN_ENTRY "mim_get_plugin"
#define MIM_PLUGIN_ENTRY_PREFIX "mim_get_plugin_" /* + NAME: one of several in a library */
#if defined(__GNUC__)
#define MIM_EXPORT __attribute__((visibility("default")))
#else
#define MIM_EXPORT
#endif

typedef struct MimNormalizerReg {
    uint64_t id; /* full annex id (with sub-tag) */
    MimNormalizer fn;
} MimNormalizerReg;

/* Passes and phases (compile.md §3.3, include/mim/pass.h): while a pipeline
 * value is interpreted, the handler registered for the head axiom of a part
 * is called with the whole application and adds passes/phases to the
 * pipeline builder. false = error (reported through the builder). */
typedef struct MimPipeline MimPipeline;
typedef bool (*MimPassHandler)(MimPipeline *pb, MimDef *app);
typedef struct MimPassReg {
    uint64_t id; /* base id of the pass/phase axiom */
    MimPassHandler fn;
} MimPassReg;

/* Back ends (e.g. "ll", registered by core): write the World to out. */
typedef bool (*MimBackendFn)(MimWorld *w, FILE *out);
typedef struct MimBackendReg {
    const char *name;
    MimBackendFn fn;
} MimBackendReg;

typedef struct MimPlugin {
    int abi; /* MIM_PLUGIN_ABI */
    const char *name;
    const MimNormalizerReg *normalizers;
    size_t num_normalizers;
    const MimPassReg *passes;
    size_t num_passes;
    const MimBackendReg *backends;
    size_t num_backends;
} MimPlugin;

typedef const MimPlugin *(*MimGetPlugin)(void);

/* The registration every plugin library ends with: the static MimPlugin and
 * the exported entry point returning it. Each table argument is
 * MIM_PLUGIN_TABLE(array) for a static array of MimNormalizerReg, MimPassReg
 * or MimBackendReg (in that order; its length is counted from its size, so it
 * must be an array, not a pointer), or MIM_PLUGIN_NO_TABLE for none. Used at
 * file scope and followed by ';' (the macro ends with a second declaration of
 * the entry point, so the ';' is not a stray one at file scope):
 *     static const MimPassReg passes[] = {{MIM_opt_x_pass, handle_x}};
 *     MIM_PLUGIN_DEFINE("opt", MIM_PLUGIN_NO_TABLE, MIM_PLUGIN_TABLE(passes),
 *                       MIM_PLUGIN_NO_TABLE);
 *
 * Several plugins in one library: compile each with
 * -DMIM_PLUGIN_ENTRY_NAME=mim_get_plugin_NAME, so that its entry point is
 * named after it, and make libmim_NAME.so a (symbolic) link to the library.
 * The loader asks a library for mim_get_plugin_NAME first, then for
 * mim_get_plugin; the dynamic loader maps a file only once, whatever name
 * it is opened by. The standard plugins are built that way
 * (plugins/CMakeLists.txt). */
#define MIM_PLUGIN_TABLE(array) (array), sizeof(array) / sizeof *(array)
#define MIM_PLUGIN_NO_TABLE NULL, 0
#ifndef MIM_PLUGIN_ENTRY_NAME
#define MIM_PLUGIN_ENTRY_NAME mim_get_plugin
#endif
#define MIM_PLUGIN_DEFINE(name, normalizers, passes, backends)                            \
    static const MimPlugin mim_plugin_ = {MIM_PLUGIN_ABI, (name), normalizers, passes,     \
                                          backends};                                     \
    MIM_EXPORT const MimPlugin *MIM_PLUGIN_ENTRY_NAME(void) { return &mim_plugin_; }       \
    MIM_EXPORT const MimPlugin *MIM_PLUGIN_ENTRY_NAME(void)

/* ---- annex ids ----------------------------------------------------------- */
static inline uint64_t mim_annex_base(uint64_t id) { return id & ~(uint64_t)0xff; }
static inline unsigned mim_annex_sub(uint64_t id) { return (unsigned)(id & 0xff); }
static inline uint64_t mim_annex_plugin(uint64_t id) { return id & ~(uint64_t)0xffff; }
MIM_API uint64_t mim_axiom_id(const MimDef *axiom);
/* The sub-tag of the axiom heading a normalizer's callee (the axiom itself or
 * a curried application of it), e.g. 1 for `%refly.dbg.perm T`; 0 if there is
 * no axiom. */
MIM_API unsigned mim_callee_sub(const MimDef *callee);

/* ---- matching (paper Listing 3) ----------------------------------------- */
/* d if it is a *fully applied* application (curry counter 0) whose head axiom
 * has exactly this id, or — for annexes that are not functions — the axiom
 * itself; else NULL. */
MIM_API MimDef *mim_match(MimDef *d, uint64_t id);
/* Like mim_match, for any sub-tag of the annex with this base id. */
MIM_API MimDef *mim_match_annex(MimDef *d, uint64_t base);
/* Arguments of a curried application chain f a₀ a₁ … aₖ (head = axiom):
 * mim_app_num_args(app) = k+1, mim_app_nth_arg(app, i) = aᵢ. */
MIM_API size_t mim_app_num_args(const MimDef *app);
MIM_API MimDef *mim_app_nth_arg(const MimDef *app, size_t i);
/* Canonical operand order of commutative operations (plugins/README.md
 * §3.6): true if the pair (a, b) must be swapped — b is a literal, or a is
 * not a literal and was created after b. */
MIM_API bool mim_commute_swap(const MimDef *a, const MimDef *b);
/* The tuple (a, b) (normalized: a pair of equal nodes is a pack). */
MIM_API MimDef *mim_pair(MimWorld *w, MimDef *a, MimDef *b);
/* The parts of a returning function type `Cn [X, Cn Y]` (a CPS function, as
 * `fun` declares them; the domain a Σ of two, possibly dependent): *dom = X,
 * *ret = Y; false for any other type. */
MIM_API bool mim_cps_fn_parts(MimWorld *w, MimDef *type, MimDef **dom, MimDef **ret);
/* The external function that implements an axiom in Mim, by the naming
 * convention of the interfaces: prefix + the axiom's name without its `%`,
 * dots as `_` (prefix "internal_diff_" and %core.wrap.add give
 * internal_diff_core_wrap_add); NULL if there is none. */
MIM_API MimDef *mim_annex_external(MimWorld *w, const MimDef *axiom, const char *prefix);
/* The annex registered under id in the World (only with its plugin loaded),
 * or NULL after recording "Axiom with ID '…' not found; demangled plugin name
 * is '…'" (semantics.md §12.3). */
MIM_API MimDef *mim_annex(MimWorld *w, uint64_t id);

#ifdef __cplusplus
}
#endif

#endif
