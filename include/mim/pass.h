/* The optimizer interface (compile.md, opt.md): passes, phases and the
 * pipeline builder through which plugins register them.
 *
 * A *pass* is a set of callbacks (a MimPassClass, static data) plus an
 * instance (a struct that starts with MimPass). A *pass manager* runs all
 * its passes simultaneously in one traversal of the program: starting from
 * the externals it visits every reachable mutable once and rebuilds its
 * operands bottom-up; every rebuilt node is offered to each pass's
 * `rewrite` hook in registration order, the first replacement wins and is
 * rewritten again (compile.md §4.4). A traversal is followed by a cleanup
 * (a fresh World holding only what is reachable).
 *
 * Fixed points (decision, docs/decisions.md): the reference speculates and
 * undoes inside one traversal. Here a *fixed-point* pass instead reads the
 * analyses of the previous traversal (`prepare` runs before each one, with
 * use counts available through mim_pass_uses) and asks for another round by
 * calling mim_pass_changed; the manager repeats traversals (each followed by a
 * cleanup) until no pass asks, at most MIM_PM_MAX_ROUNDS times. Rewrite
 * passes run in every round but never ask for one.
 *
 * A *phase* transforms the whole World at once (a MimPhaseClass); a pipeline
 * is a list of phases built by interpreting a Mim pipeline value through the
 * handlers that plugins register by axiom (include/mim/plugin.h, MimPassReg). */
#ifndef MIM_PASS_H
#define MIM_PASS_H

#include "mim/api.h"

#include "mim/def.h"
#include "mim/ptrmap.h" /* passes keep their state in maps */
#include "mim/world.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MIM_PM_MAX_ROUNDS 16

typedef struct MimPass MimPass;
typedef struct MimPassMan MimPassMan;
typedef struct MimPipeline MimPipeline;
typedef struct MimPhase MimPhase;

typedef struct MimPassClass {
    const char *name;
    size_t size;      /* bytes of an instance (a struct starting with MimPass) */
    bool on_lams;     /* participates only while the current mutable is a Lam */
    /* All hooks are optional (NULL). */
    void (*prepare)(MimPass *p);            /* before each traversal */
    void (*enter)(MimPass *p, MimDef *mut); /* before the operands of mut are rebuilt */
    /* A rebuilt node (also Vars); return a replacement, the node itself, or
     * NULL after recording an error in the World. */
    MimDef *(*rewrite)(MimPass *p, MimDef *def);
    void (*finish)(MimPass *p); /* after each traversal, before the cleanup */
    void (*fini)(MimPass *p);   /* release what the instance owns */
} MimPassClass;

struct MimPass {
    const MimPassClass *cls;
    MimPassMan *pm;
    size_t index; /* registration order in its manager */
};

/* ---- what a pass may ask during a traversal ------------------------------ */
MIM_API MimWorld *mim_pass_world(const MimPass *p);
/* The mutable whose operands are being rebuilt (NULL in prepare/finish). */
MIM_API MimDef *mim_pass_cur(const MimPass *p);
/* Ask for one more traversal (fixed-point passes). */
MIM_API void mim_pass_changed(MimPass *p);
/* Report an error in the program (e.g. operands a lowering cannot take) at
 * loc; the hook then returns NULL and the run stops with this message alone
 * (without it, a NULL from a hook is reported as an internal error). */
MIM_API void mim_pass_error(MimPass *p, MimLoc loc, const char *fmt, ...) MIM_PRINTF(3, 4);
/* Uses of a mutable in the program as it was before this traversal (every
 * occurrence as an operand of a reachable node, counted once per distinct
 * node and operand position; externals count one extra use). *callee gets
 * the number of those uses that are operand 0 of an App. 0 for unknown or
 * newly created nodes. */
MIM_API unsigned mim_pass_uses(const MimPass *p, const MimDef *mut, unsigned *callee);
/* The round's side table (what it knows about a node, in the order the
 * round first met the nodes) as a dense index a pass may key its own
 * per-node arrays by, instead of a hash map: d's index, or UINT32_MAX if the
 * round has no record of d. When a pass of the manager asks for use counts,
 * every node reachable from the externals (types included) has one from
 * prepare on; nodes met later in the traversal get indices at or above the
 * number of records at prepare. Valid until the round ends. */
MIM_API uint32_t mim_pass_node_index(const MimPass *p, const MimDef *d);
MIM_API uint32_t mim_pass_num_records(const MimPass *p);
/* The node of the round's record i (i < mim_pass_num_records): with use
 * counts asked for, prepare can scan the whole program through these. */
MIM_API MimDef *mim_pass_record(const MimPass *p, uint32_t i);
/* Called from prepare: in this traversal the pass changes nothing (its
 * enter and rewrite hooks would leave every node as it is, as long as the
 * other passes change nothing either). When every pass of the manager says
 * so and the program holds no inference holes (which the traversal would
 * resolve), the manager skips the traversal: it could only rebuild every
 * node as it is. */
MIM_API void mim_pass_idle(MimPass *p);
/* Identifies the running round among all rounds of all pass managers on the
 * pass's World (e.g. to share per-round results between passes). */
MIM_API uint64_t mim_pass_round_id(const MimPass *p);
/* Rewrite a node with the running manager (e.g. the operands of a node a
 * pass builds itself). */
MIM_API MimDef *mim_pass_rewrite(MimPass *p, MimDef *def);

/* ---- helpers for passes -------------------------------------------------- */
/* An external lambda whose name starts with prefix: what internal_cleanup
 * makes internal (compile.md §6: prefix `internal_`); plugins' cleanup
 * passes use their own prefixes (`internal_mapRed_`, `internal_diff_`). */
MIM_API bool mim_is_prefixed_external(const MimDef *d, const char *prefix);
/* A mutable Lam with a body that is not external (opt.md §4). */
MIM_API bool mim_is_workable_lam(const MimDef *d);
/* The i-th variable projection of a binder with literal arity n. */
MIM_API MimDef *mim_var_proj(MimWorld *w, MimDef *mut, uint64_t n, uint64_t i);
/* Does `d` (transitively, not entering mutables other than through their
 * free variables) refer to the variable of mut? */
MIM_API bool mim_mentions_var(MimWorld *w, MimDef *d, MimDef *mut);
/* A pass that copies `lam` into a lambda with other parameters substitutes
 * lam's variable by a tuple of the new parameters: a projection of lam's
 * variable passes its name on, lam's variable itself (one parameter) does
 * not. This gives `param` (the new parameter standing for it) that name. */
MIM_API void mim_name_like_var(MimDef *param, const MimDef *lam);

/* ---- phases --------------------------------------------------------------- */
typedef struct MimPhaseClass {
    const char *name;
    size_t size;
    bool dirty; /* a cleanup follows automatically */
    /* Transform the World; it may replace *w by a new World (the old one is
     * then released by the caller). false = error recorded in the World. */
    bool (*run)(MimPhase *ph, MimWorld **w);
    void (*fini)(MimPhase *ph);
} MimPhaseClass;

struct MimPhase {
    const MimPhaseClass *cls;
    MimPipeline *pipeline;
};

/* ---- the pipeline builder (compile.md §3.2) ------------------------------- */
/* Interpret a pipeline part: one β-step for a Mim lambda callee, then the
 * handler registered for the head axiom. */
MIM_API bool mim_pipeline_handle(MimPipeline *pb, MimDef *part);
/* Add pass `cls` for the axiom application `app` to the open pass manager
 * (opening a single-pass phase if none is open). An instance of the same
 * class already in that manager is reused; *fresh tells whether the returned
 * instance is new (its fields beyond MimPass are zero-initialised then). */
MIM_API MimPass *mim_pipeline_add_pass(MimPipeline *pb, MimDef *app, const MimPassClass *cls,
                               bool *fresh);
/* Remember that `app` stands for no pass (%compile.nullptr_pass). */
MIM_API void mim_pipeline_add_none(MimPipeline *pb, MimDef *app);
/* The instance remembered for the node (NULL = none or never registered). */
MIM_API MimPass *mim_pipeline_pass_of(MimPipeline *pb, MimDef *node);
/* Append a phase instance of cls (zero-initialised beyond MimPhase). */
MIM_API MimPhase *mim_pipeline_add_phase(MimPipeline *pb, const MimPhaseClass *cls);
MIM_API void mim_pipeline_begin_pass_phase(MimPipeline *pb);
MIM_API void mim_pipeline_end_pass_phase(MimPipeline *pb);
MIM_API bool mim_pipeline_plugin_loaded(const MimPipeline *pb, const char *name);
MIM_API MimWorld *mim_pipeline_world(const MimPipeline *pb);
/* Report an error about a pipeline part at the World's location. */
MIM_API void mim_pipeline_error(MimPipeline *pb, MimDef *part, const char *msg);
MIM_API void mim_pipeline_warn(MimPipeline *pb, MimDef *part, const char *msg);

/* ---- the standard passes (implemented in libmim, registered by compile) --- */
MIM_API extern const MimPassClass mim_beta_red_pass;
MIM_API extern const MimPassClass mim_eta_red_pass;
MIM_API extern const MimPassClass mim_eta_exp_pass;       /* link: MimPass *eta_red */
MIM_API extern const MimPassClass mim_scalarize_pass;     /* link: MimPass *eta_exp */
MIM_API extern const MimPassClass mim_tail_rec_elim_pass; /* link: MimPass *eta_red */
MIM_API extern const MimPassClass mim_lam_spec_pass;
MIM_API extern const MimPassClass mim_ret_wrap_pass;
MIM_API extern const MimPassClass mim_internal_cleanup_pass;
MIM_API extern const MimPassClass mim_debug_print_pass;
/* Link a pass to another instance (NULL = none) after mim_pipeline_add_pass. */
MIM_API void mim_pass_link(MimPass *p, MimPass *other);
/* β-reduction: never inline this lambda (e.g. a specialized copy). */
MIM_API void mim_beta_red_keep(MimPass *beta_red, MimDef *lam);
/* η-expansion: `derived` counts as `original`. */
MIM_API void mim_eta_exp_derive(MimPass *eta_exp, MimDef *derived, MimDef *original);
/* η-reduction: never reduce this wrapper. */
MIM_API void mim_eta_red_irreducible(MimPass *eta_red, MimDef *lam);

#ifdef __cplusplus
}
#endif

#endif
