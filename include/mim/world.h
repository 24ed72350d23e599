/* The World: owner of all nodes, and the only way to build them.
 *
 * Every constructor normalizes, type-checks and infers eagerly, exactly as the
 * front end does (semantics.md §4). Error convention: a constructor that finds
 * an ill-typed construction records a diagnostic (located at the World's
 * current location, see mim_world_set_loc) and returns NULL; every
 * constructor given a NULL operand returns NULL without a new diagnostic, so
 * errors propagate without checks at every step. Nothing ever aborts.
 * Two Worlds are completely independent (no global state). */
#ifndef MIM_WORLD_H
#define MIM_WORLD_H

#include "mim/api.h"

#include "mim/def.h"
#include "mim/loc.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A normalizer of an axiom (semantics.md §11): called with the result type,
 * the callee (axiom applied to the earlier curried args) and the last arg,
 * when an application brings the curry counter to 0. Returns the replacement,
 * or mim_raw_app(w, type, callee, arg) for "no change", or NULL on error. */
typedef MimDef *(*MimNormalizer)(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg);

/* ---- lifetime, configuration, errors ---------------------------------- */
MIM_API MimWorld *mim_world_new(void);
MIM_API void mim_world_free(MimWorld *w);
/* A fresh World with the configuration of `old` whose gids continue after
 * old's counter: the target of whole-program rewrites (semantics.md §10.2).
 * It starts in the unused end of old's memory, so old is changed (where its
 * later nodes go, not what it holds): not from two threads at once. Either
 * World may be freed first. */
MIM_API MimWorld *mim_world_inherit(MimWorld *old);
MIM_API size_t mim_world_num_annexes(MimWorld *w);
/* The i-th registered annex in id order; its id in *id. */
MIM_API MimDef *mim_world_annex_at(MimWorld *w, size_t i, uint64_t *id);
MIM_API MimSym mim_world_sym(MimWorld *w, const char *s);
MIM_API MimSym mim_world_sym_n(MimWorld *w, const char *s, size_t n);
MIM_API void mim_world_set_name(MimWorld *w, MimSym name); /* the module name (stem of the input) */
MIM_API MimSym mim_world_name(const MimWorld *w);

/* Location given to newly created nodes and to diagnostics. */
MIM_API void mim_world_set_loc(MimWorld *w, MimLoc loc);
MIM_API MimLoc mim_world_loc(const MimWorld *w);
MIM_API void mim_world_set_scalarize_threshold(MimWorld *w, uint64_t n); /* default 32 */
MIM_API uint64_t mim_world_scalarize_threshold(const MimWorld *w);
/* --aggr-lam-spec: lam_spec also specializes recursive functions. */
MIM_API void mim_world_set_aggr_lam_spec(MimWorld *w, bool on);
MIM_API bool mim_world_aggr_lam_spec(const MimWorld *w);
/* Stack bytes that nested β-reductions (partial evaluation of recursive
 * functions) may use before "partial evaluation nested too deeply" is
 * reported. The default suits the usual 8 MiB main-thread stack; raise it when
 * building on a thread with a bigger stack (the `mim` executable does). */
#define MIM_DEFAULT_STACK_BUDGET ((size_t)3 << 20)
MIM_API void mim_world_set_stack_budget(MimWorld *w, size_t bytes);

/* Errors and warnings recorded by constructors (in production order). */
MIM_API MimDiag *mim_world_diag(MimWorld *w);
MIM_API bool mim_world_has_error(const MimWorld *w);

/* A frozen World creates no node: constructors return an existing equal node
 * or NULL (without a diagnostic); the gid counter is not advanced. Returns
 * the previous state. Printing runs frozen. */
MIM_API bool mim_world_freeze(MimWorld *w, bool frozen);
MIM_API bool mim_world_is_frozen(const MimWorld *w);
MIM_API uint32_t mim_world_gid_counter(const MimWorld *w);
MIM_API size_t mim_world_num_nodes(const MimWorld *w); /* live immutables in the hash table */

/* ---- universes, builtins, literals ------------------------------------ */
MIM_API MimDef *mim_univ(MimWorld *w);
MIM_API MimDef *mim_type(MimWorld *w, MimDef *level);   /* Type l; l : Univ */
MIM_API MimDef *mim_type_lvl(MimWorld *w, uint64_t l); /* Type l with a literal level */
MIM_API MimDef *mim_star(MimWorld *w);                   /* Type 0 */
MIM_API MimDef *mim_box(MimWorld *w);                    /* Type 1 */
MIM_API MimDef *mim_umax(MimWorld *w, MimDef *const *levels, size_t n);
MIM_API MimDef *mim_uinc(MimWorld *w, MimDef *level, uint64_t offset);
MIM_API MimDef *mim_nat(MimWorld *w);
MIM_API MimDef *mim_idx(MimWorld *w);                       /* the builtin Idx : Nat → * */
MIM_API MimDef *mim_type_idx(MimWorld *w, MimDef *size);    /* Idx s */
MIM_API MimDef *mim_type_idx_n(MimWorld *w, uint64_t size); /* Idx s, s literal (0 = 2^64) */
MIM_API MimDef *mim_type_int(MimWorld *w, unsigned width);  /* Idx 2^width (64 → Idx 0) */
MIM_API MimDef *mim_type_bool(MimWorld *w);                 /* Idx 2 */
MIM_API MimDef *mim_lit(MimWorld *w, MimDef *type, uint64_t value); /* checked for Idx types */
MIM_API MimDef *mim_lit_nat(MimWorld *w, uint64_t value);
MIM_API MimDef *mim_lit_univ(MimWorld *w, uint64_t level);
MIM_API MimDef *mim_lit_idx(MimWorld *w, uint64_t size, uint64_t value);
MIM_API MimDef *mim_lit_idx_mod(MimWorld *w, uint64_t size, uint64_t value);
MIM_API MimDef *mim_lit_int(MimWorld *w, unsigned width, uint64_t value);
MIM_API MimDef *mim_lit_bool(MimWorld *w, bool value);
MIM_API MimDef *mim_bot(MimWorld *w, MimDef *type); /* expanded element-wise for sigma/array */
MIM_API MimDef *mim_top(MimWorld *w, MimDef *type);

/* ---- functions -------------------------------------------------------- */
MIM_API MimDef *mim_pi(MimWorld *w, MimDef *dom, MimDef *codom, bool implicit);
MIM_API MimDef *mim_cn(MimWorld *w, MimDef *dom);              /* Π dom → ⊥ */
MIM_API MimDef *mim_fn(MimWorld *w, MimDef *dom, MimDef *ret); /* Cn [dom, Cn ret] */
MIM_API MimDef *mim_mut_pi(MimWorld *w, MimDef *type, bool implicit);
MIM_API MimDef *mim_pi_dom(const MimDef *pi);
MIM_API MimDef *mim_pi_codom(const MimDef *pi);

MIM_API MimDef *mim_mut_lam(MimWorld *w, MimDef *pi);
MIM_API MimDef *mim_lam(MimWorld *w, MimDef *pi, MimDef *filter, MimDef *body); /* immutable */
MIM_API MimDef *mim_lam_filter(const MimDef *lam);
MIM_API MimDef *mim_lam_body(const MimDef *lam);
/* Set filter then body of a mutable Lam; checks run when the body is set
 * (filter : Bool, body assignable to the codomain). Returns lam or NULL. */
MIM_API MimDef *mim_lam_set(MimWorld *w, MimDef *lam, MimDef *filter, MimDef *body);

MIM_API MimDef *mim_app(MimWorld *w, MimDef *callee, MimDef *arg);  /* checked, β, normalizers */
MIM_API MimDef *mim_iapp(MimWorld *w, MimDef *callee, MimDef *arg); /* + implicit-arg insertion */
/* Build the App node itself (hash-consed, counters recorded) without type
 * check, β-reduction or normalizer: what a normalizer returns for "no change". */
MIM_API MimDef *mim_raw_app(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg);
/* Rebuild the immutable d with a new type and operands (as many as d has)
 * through the normalizing constructors: what rewriting passes use for node
 * kinds they do not handle specially. type is ignored for kinds whose type
 * is inferred. */
MIM_API MimDef *mim_rebuild(MimWorld *w, MimDef *d, MimDef *type, MimDef *const *ops);
/* The operands of d mapped in order by f, each resolved first:
 * ops[i] = f(ctx, d's operand i) (ops has room for d's operands). False as
 * soon as an operand is missing or f returns NULL; *changed is set when a
 * result differs from d's operand. The loop of a rewrite that rebuilds d
 * from converted operands (then mim_rebuild, or d itself if unchanged). */
MIM_API bool mim_map_ops(MimWorld *w, MimDef *d, MimDef *(*f)(void *ctx, MimDef *op), void *ctx, MimDef **ops,
                 bool *changed);
MIM_API MimDef *mim_app_callee(const MimDef *app);
MIM_API MimDef *mim_app_arg(const MimDef *app);
MIM_API MimDef *mim_app_axiom(const MimDef *app); /* head axiom of a curried app chain, or NULL */
MIM_API unsigned mim_app_curry(const MimDef *app); /* counter recorded for this app */

/* ---- tuples, sigmas, arrays, packs ------------------------------------ */
MIM_API MimDef *mim_sigma(MimWorld *w, MimDef *const *ops, size_t n);
MIM_API MimDef *mim_mut_sigma(MimWorld *w, MimDef *type, size_t n);
MIM_API MimDef *mim_tuple(MimWorld *w, MimDef *const *ops, size_t n);
MIM_API MimDef *mim_tuple_typed(MimWorld *w, MimDef *type, MimDef *const *ops, size_t n);
MIM_API MimDef *mim_unit_type(MimWorld *w); /* [] */
MIM_API MimDef *mim_unit(MimWorld *w);      /* () */
MIM_API MimDef *mim_arr(MimWorld *w, MimDef *shape, MimDef *body);
MIM_API MimDef *mim_pack(MimWorld *w, MimDef *shape, MimDef *body);
MIM_API MimDef *mim_mut_arr(MimWorld *w, MimDef *type); /* ops: shape, body */
MIM_API MimDef *mim_mut_pack(MimWorld *w, MimDef *type); /* type = «shape; ?»; op: body */
MIM_API MimDef *mim_extract(MimWorld *w, MimDef *tuple, MimDef *index);
MIM_API MimDef *mim_extract_lit(MimWorld *w, MimDef *tuple, uint64_t arity, uint64_t index);
MIM_API MimDef *mim_insert(MimWorld *w, MimDef *tuple, MimDef *index, MimDef *value);
/* Projection proj(v, a, i) of semantics.md §2. */
MIM_API MimDef *mim_proj(MimWorld *w, MimDef *v, uint64_t arity, uint64_t index);
MIM_API MimDef *mim_arity(MimWorld *w, MimDef *d);
MIM_API bool mim_literal_arity(MimWorld *w, MimDef *d, uint64_t *n);

/* ---- mutables, variables, holes --------------------------------------- */
/* Set operand i of a mutable (left to right); the node's check runs when the
 * last operand is set. Returns the mutable, or NULL on a type error. */
MIM_API MimDef *mim_mut_set(MimWorld *w, MimDef *mut, size_t i, MimDef *op);
MIM_API void mim_mut_unset(MimWorld *w, MimDef *mut);
MIM_API void mim_mut_set_type(MimWorld *w, MimDef *mut, MimDef *type);
/* The binder's variable, created on first request (semantics.md §2); a binder
 * whose variable type is Idx 1 yields 0₁. Frozen: NULL if never created. */
MIM_API MimDef *mim_var(MimWorld *w, MimDef *mut);
MIM_API MimDef *mim_immutabilize(MimWorld *w, MimDef *mut); /* equivalent immutable, or mut */
MIM_API MimDef *mim_hole(MimWorld *w, MimDef *type);
MIM_API MimDef *mim_resolve(MimWorld *w, MimDef *d); /* follow solved holes */
MIM_API void mim_def_set_name(MimDef *d, MimSym name); /* first name wins */
MIM_API void mim_def_set_loc(MimDef *d, MimLoc loc);   /* first location wins */
/* d takes the name and location of `from` (a node of the same World that d
 * replaces in a rewrite), each only where d has none yet. */
MIM_API void mim_def_keep_dbg(MimDef *d, const MimDef *from);

/* Externals: roots of the program, iterated in byte-wise name order. */
MIM_API void mim_make_external(MimWorld *w, MimDef *mut);
MIM_API void mim_make_internal(MimWorld *w, MimDef *mut);
/* A counter of changes to mutables (operands, types, external or not):
 * equal values before and after some work mean it changed no mutable. */
MIM_API uint64_t mim_world_mutations(const MimWorld *w);
MIM_API size_t mim_world_num_externals(MimWorld *w);
MIM_API MimDef *mim_world_external(MimWorld *w, size_t i); /* sorted by name */
MIM_API MimDef *mim_world_lookup_external(MimWorld *w, MimSym name);

/* ---- axioms and annexes ----------------------------------------------- */
/* Hash-consed on (type, id); curry/trip inferred from the type when 0 is
 * passed as curry (see mim_axiom_infer_curry). */
MIM_API MimDef *mim_axiom(MimWorld *w, MimDef *type, uint64_t id, MimNormalizer norm,
                  unsigned curry, unsigned trip);
/* Curry and trip counters inferred from an axiom type (semantics.md §11). */
MIM_API void mim_axiom_infer_curry(MimWorld *w, MimDef *type, unsigned *curry, unsigned *trip);
MIM_API MimNormalizer mim_axiom_normalizer(const MimDef *axiom);
MIM_API unsigned mim_axiom_curry(const MimDef *axiom);
MIM_API unsigned mim_axiom_trip(const MimDef *axiom);
MIM_API void mim_world_register_annex(MimWorld *w, uint64_t id, MimDef *def);
MIM_API MimDef *mim_world_annex(MimWorld *w, uint64_t id); /* NULL if not registered */

/* ---- logging (cli.md §7: -V) ------------------------------------------ */
/* Log lines `<L>:<location>: <message>` with L = E, W, I, V, D for levels
 * 0 (error) … 4 (debug). A World logs the levels up to `level` to `out`; a
 * new World logs nothing (out NULL), an heir (mim_world_inherit) logs like
 * its parent. The `mim` command logs to stderr at its -V count. */
MIM_API void mim_world_set_log(MimWorld *w, FILE *out, int level);
MIM_API bool mim_world_logs(const MimWorld *w, int level);
MIM_API void mim_world_log(MimWorld *w, int level, MimLoc loc, const char *fmt, ...) MIM_PRINTF(4, 5);

/* ---- plugin state ------------------------------------------------------ */
/* Per-World data of a plugin (e.g. refly's table of reified nodes), keyed by
 * its plugin id (mim_annex_plugin of any of its annex ids): `size` zeroed
 * bytes made by the first call, the same block after that; freed with the
 * World, after `fini` (may be NULL) has released what it points to. An heir
 * starts without any: node pointers do not survive a cleanup. NULL only if
 * the first call gives size 0. */
MIM_API void *mim_world_plugin_state(MimWorld *w, uint64_t plugin_id, size_t size, void (*fini)(void *state));

/* ---- checking, equivalence, substitution ------------------------------ */
MIM_API bool mim_alpha(MimWorld *w, MimDef *a, MimDef *b, bool infer);
MIM_API bool mim_assignable(MimWorld *w, MimDef *type, MimDef *value);
/* e[arg/var(mut)]: rebuilds through the World functions (renormalizes). */
MIM_API MimDef *mim_subst(MimWorld *w, MimDef *e, MimDef *mut, MimDef *arg);
/* Substitute the variable of `mut` by `arg` in all of mut's operands; the
 * results are written to out[0..num_ops). Cached per (mut, arg). Returns
 * false on error. */
MIM_API bool mim_reduce(MimWorld *w, MimDef *mut, MimDef *arg, MimDef **out);

/* ---- printing, version ------------------------------------------------- */
/* The World as Mim text, as `mim -o` prints it (output-format.md §1–§6):
 * everything reachable from the externals, without the `.import`/`.plugin`
 * lines of the run. Prints with the World frozen; creates no node. */
MIM_API void mim_world_print(MimWorld *w, FILE *out);
/* The World as a Graphviz DOT graph, as `mim --output-dot` prints it
 * (output-format.md §8): the externals and what they reach. */
MIM_API void mim_world_print_dot(MimWorld *w, FILE *out);
/* The version of the library ("0.1"); MIM_VERSION in mim/driver.h is the
 * version of the headers. */
MIM_API const char *mim_version(void);

#ifdef __cplusplus
}
#endif

#endif
