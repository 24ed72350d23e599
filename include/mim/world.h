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

#include "mim/def.h"
#include "mim/loc.h"

/* A normalizer of an axiom (semantics.md §11): called with the result type,
 * the callee (axiom applied to the earlier curried args) and the last arg,
 * when an application brings the curry counter to 0. Returns the replacement,
 * or mim_raw_app(w, type, callee, arg) for "no change", or NULL on error. */
typedef MimDef *(*MimNormalizer)(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg);

/* ---- lifetime, configuration, errors ---------------------------------- */
MimWorld *mim_world_new(void);
void mim_world_free(MimWorld *w);
/* A fresh World with the configuration of `old` whose gids continue after
 * old's counter: the target of whole-program rewrites (semantics.md §10.2).
 * It starts in the unused end of old's memory, so old is changed (where its
 * later nodes go, not what it holds): not from two threads at once. Either
 * World may be freed first. */
MimWorld *mim_world_inherit(MimWorld *old);
size_t mim_world_num_annexes(MimWorld *w);
/* The i-th registered annex in id order; its id in *id. */
MimDef *mim_world_annex_at(MimWorld *w, size_t i, uint64_t *id);
MimSym mim_world_sym(MimWorld *w, const char *s);
MimSym mim_world_sym_n(MimWorld *w, const char *s, size_t n);
void mim_world_set_name(MimWorld *w, MimSym name); /* the module name (stem of the input) */
MimSym mim_world_name(const MimWorld *w);

/* Location given to newly created nodes and to diagnostics. */
void mim_world_set_loc(MimWorld *w, MimLoc loc);
MimLoc mim_world_loc(const MimWorld *w);
void mim_world_set_scalarize_threshold(MimWorld *w, uint64_t n); /* default 32 */
uint64_t mim_world_scalarize_threshold(const MimWorld *w);
/* --aggr-lam-spec: lam_spec also specializes recursive functions. */
void mim_world_set_aggr_lam_spec(MimWorld *w, bool on);
bool mim_world_aggr_lam_spec(const MimWorld *w);
/* Stack bytes that nested β-reductions (partial evaluation of recursive
 * functions) may use before "partial evaluation nested too deeply" is
 * reported. The default suits the usual 8 MiB main-thread stack; raise it when
 * building on a thread with a bigger stack (the `mim` executable does). */
#define MIM_DEFAULT_STACK_BUDGET ((size_t)3 << 20)
void mim_world_set_stack_budget(MimWorld *w, size_t bytes);

/* Errors and warnings recorded by constructors (in production order). */
MimDiag *mim_world_diag(MimWorld *w);
bool mim_world_has_error(const MimWorld *w);

/* A frozen World creates no node: constructors return an existing equal node
 * or NULL (without a diagnostic); the gid counter is not advanced. Returns
 * the previous state. Printing runs frozen. */
bool mim_world_freeze(MimWorld *w, bool frozen);
bool mim_world_is_frozen(const MimWorld *w);
uint32_t mim_world_gid_counter(const MimWorld *w);
size_t mim_world_num_nodes(const MimWorld *w); /* live immutables in the hash table */

/* ---- universes, builtins, literals ------------------------------------ */
MimDef *mim_univ(MimWorld *w);
MimDef *mim_type(MimWorld *w, MimDef *level);   /* Type l; l : Univ */
MimDef *mim_type_lvl(MimWorld *w, uint64_t l); /* Type l with a literal level */
MimDef *mim_star(MimWorld *w);                   /* Type 0 */
MimDef *mim_box(MimWorld *w);                    /* Type 1 */
MimDef *mim_umax(MimWorld *w, MimDef *const *levels, size_t n);
MimDef *mim_uinc(MimWorld *w, MimDef *level, uint64_t offset);
MimDef *mim_nat(MimWorld *w);
MimDef *mim_idx(MimWorld *w);                       /* the builtin Idx : Nat → * */
MimDef *mim_type_idx(MimWorld *w, MimDef *size);    /* Idx s */
MimDef *mim_type_idx_n(MimWorld *w, uint64_t size); /* Idx s, s literal (0 = 2^64) */
MimDef *mim_type_int(MimWorld *w, unsigned width);  /* Idx 2^width (64 → Idx 0) */
MimDef *mim_type_bool(MimWorld *w);                 /* Idx 2 */
MimDef *mim_lit(MimWorld *w, MimDef *type, uint64_t value); /* checked for Idx types */
MimDef *mim_lit_nat(MimWorld *w, uint64_t value);
MimDef *mim_lit_univ(MimWorld *w, uint64_t level);
MimDef *mim_lit_idx(MimWorld *w, uint64_t size, uint64_t value);
MimDef *mim_lit_idx_mod(MimWorld *w, uint64_t size, uint64_t value);
MimDef *mim_lit_int(MimWorld *w, unsigned width, uint64_t value);
MimDef *mim_lit_bool(MimWorld *w, bool value);
MimDef *mim_bot(MimWorld *w, MimDef *type); /* expanded element-wise for sigma/array */
MimDef *mim_top(MimWorld *w, MimDef *type);

/* ---- functions -------------------------------------------------------- */
MimDef *mim_pi(MimWorld *w, MimDef *dom, MimDef *codom, bool implicit);
MimDef *mim_cn(MimWorld *w, MimDef *dom);              /* Π dom → ⊥ */
MimDef *mim_fn(MimWorld *w, MimDef *dom, MimDef *ret); /* Cn [dom, Cn ret] */
MimDef *mim_mut_pi(MimWorld *w, MimDef *type, bool implicit);
MimDef *mim_pi_dom(const MimDef *pi);
MimDef *mim_pi_codom(const MimDef *pi);

MimDef *mim_mut_lam(MimWorld *w, MimDef *pi);
MimDef *mim_lam(MimWorld *w, MimDef *pi, MimDef *filter, MimDef *body); /* immutable */
MimDef *mim_lam_filter(const MimDef *lam);
MimDef *mim_lam_body(const MimDef *lam);
/* Set filter then body of a mutable Lam; checks run when the body is set
 * (filter : Bool, body assignable to the codomain). Returns lam or NULL. */
MimDef *mim_lam_set(MimWorld *w, MimDef *lam, MimDef *filter, MimDef *body);

MimDef *mim_app(MimWorld *w, MimDef *callee, MimDef *arg);  /* checked, β, normalizers */
MimDef *mim_iapp(MimWorld *w, MimDef *callee, MimDef *arg); /* + implicit-arg insertion */
/* Build the App node itself (hash-consed, counters recorded) without type
 * check, β-reduction or normalizer: what a normalizer returns for "no change". */
MimDef *mim_raw_app(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg);
/* Rebuild the immutable d with a new type and operands (as many as d has)
 * through the normalizing constructors: what rewriting passes use for node
 * kinds they do not handle specially. type is ignored for kinds whose type
 * is inferred. */
MimDef *mim_rebuild(MimWorld *w, MimDef *d, MimDef *type, MimDef *const *ops);
/* The operands of d mapped in order by f, each resolved first:
 * ops[i] = f(ctx, d's operand i) (ops has room for d's operands). False as
 * soon as an operand is missing or f returns NULL; *changed is set when a
 * result differs from d's operand. The loop of a rewrite that rebuilds d
 * from converted operands (then mim_rebuild, or d itself if unchanged). */
bool mim_map_ops(MimWorld *w, MimDef *d, MimDef *(*f)(void *ctx, MimDef *op), void *ctx, MimDef **ops,
                 bool *changed);
MimDef *mim_app_callee(const MimDef *app);
MimDef *mim_app_arg(const MimDef *app);
MimDef *mim_app_axiom(const MimDef *app); /* head axiom of a curried app chain, or NULL */
unsigned mim_app_curry(const MimDef *app); /* counter recorded for this app */

/* ---- tuples, sigmas, arrays, packs ------------------------------------ */
MimDef *mim_sigma(MimWorld *w, MimDef *const *ops, size_t n);
MimDef *mim_mut_sigma(MimWorld *w, MimDef *type, size_t n);
MimDef *mim_tuple(MimWorld *w, MimDef *const *ops, size_t n);
MimDef *mim_tuple_typed(MimWorld *w, MimDef *type, MimDef *const *ops, size_t n);
MimDef *mim_unit_type(MimWorld *w); /* [] */
MimDef *mim_unit(MimWorld *w);      /* () */
MimDef *mim_arr(MimWorld *w, MimDef *shape, MimDef *body);
MimDef *mim_pack(MimWorld *w, MimDef *shape, MimDef *body);
MimDef *mim_mut_arr(MimWorld *w, MimDef *type); /* ops: shape, body */
MimDef *mim_mut_pack(MimWorld *w, MimDef *type); /* type = «shape; ?»; op: body */
MimDef *mim_extract(MimWorld *w, MimDef *tuple, MimDef *index);
MimDef *mim_extract_lit(MimWorld *w, MimDef *tuple, uint64_t arity, uint64_t index);
MimDef *mim_insert(MimWorld *w, MimDef *tuple, MimDef *index, MimDef *value);
/* Projection proj(v, a, i) of semantics.md §2. */
MimDef *mim_proj(MimWorld *w, MimDef *v, uint64_t arity, uint64_t index);
MimDef *mim_arity(MimWorld *w, MimDef *d);
bool mim_literal_arity(MimWorld *w, MimDef *d, uint64_t *n);

/* ---- mutables, variables, holes --------------------------------------- */
/* Set operand i of a mutable (left to right); the node's check runs when the
 * last operand is set. Returns the mutable, or NULL on a type error. */
MimDef *mim_mut_set(MimWorld *w, MimDef *mut, size_t i, MimDef *op);
void mim_mut_unset(MimWorld *w, MimDef *mut);
void mim_mut_set_type(MimWorld *w, MimDef *mut, MimDef *type);
/* The binder's variable, created on first request (semantics.md §2); a binder
 * whose variable type is Idx 1 yields 0₁. Frozen: NULL if never created. */
MimDef *mim_var(MimWorld *w, MimDef *mut);
MimDef *mim_immutabilize(MimWorld *w, MimDef *mut); /* equivalent immutable, or mut */
MimDef *mim_hole(MimWorld *w, MimDef *type);
MimDef *mim_resolve(MimWorld *w, MimDef *d); /* follow solved holes */
void mim_def_set_name(MimDef *d, MimSym name); /* first name wins */
void mim_def_set_loc(MimDef *d, MimLoc loc);   /* first location wins */
/* d takes the name and location of `from` (a node of the same World that d
 * replaces in a rewrite), each only where d has none yet. */
void mim_def_keep_dbg(MimDef *d, const MimDef *from);

/* Externals: roots of the program, iterated in byte-wise name order. */
void mim_make_external(MimWorld *w, MimDef *mut);
void mim_make_internal(MimWorld *w, MimDef *mut);
/* A counter of changes to mutables (operands, types, external or not):
 * equal values before and after some work mean it changed no mutable. */
uint64_t mim_world_mutations(const MimWorld *w);
size_t mim_world_num_externals(MimWorld *w);
MimDef *mim_world_external(MimWorld *w, size_t i); /* sorted by name */
MimDef *mim_world_lookup_external(MimWorld *w, MimSym name);

/* ---- axioms and annexes ----------------------------------------------- */
/* Hash-consed on (type, id); curry/trip inferred from the type when 0 is
 * passed as curry (see mim_axiom_infer_curry). */
MimDef *mim_axiom(MimWorld *w, MimDef *type, uint64_t id, MimNormalizer norm,
                  unsigned curry, unsigned trip);
/* Curry and trip counters inferred from an axiom type (semantics.md §11). */
void mim_axiom_infer_curry(MimWorld *w, MimDef *type, unsigned *curry, unsigned *trip);
MimNormalizer mim_axiom_normalizer(const MimDef *axiom);
unsigned mim_axiom_curry(const MimDef *axiom);
unsigned mim_axiom_trip(const MimDef *axiom);
void mim_world_register_annex(MimWorld *w, uint64_t id, MimDef *def);
MimDef *mim_world_annex(MimWorld *w, uint64_t id); /* NULL if not registered */

/* ---- logging (cli.md §7: -V) ------------------------------------------ */
/* Log lines `<L>:<location>: <message>` with L = E, W, I, V, D for levels
 * 0 (error) … 4 (debug). A World logs the levels up to `level` to `out`; a
 * new World logs nothing (out NULL), an heir (mim_world_inherit) logs like
 * its parent. The `mim` command logs to stderr at its -V count. */
void mim_world_set_log(MimWorld *w, FILE *out, int level);
bool mim_world_logs(const MimWorld *w, int level);
void mim_world_log(MimWorld *w, int level, MimLoc loc, const char *fmt, ...) MIM_PRINTF(4, 5);

/* ---- plugin state ------------------------------------------------------ */
/* Per-World data of a plugin (e.g. refly's table of reified nodes), keyed by
 * its plugin id (mim_annex_plugin of any of its annex ids): `size` zeroed
 * bytes made by the first call, the same block after that; freed with the
 * World, after `fini` (may be NULL) has released what it points to. An heir
 * starts without any: node pointers do not survive a cleanup. NULL only if
 * the first call gives size 0. */
void *mim_world_plugin_state(MimWorld *w, uint64_t plugin_id, size_t size, void (*fini)(void *state));

/* ---- checking, equivalence, substitution ------------------------------ */
bool mim_alpha(MimWorld *w, MimDef *a, MimDef *b, bool infer);
bool mim_assignable(MimWorld *w, MimDef *type, MimDef *value);
/* e[arg/var(mut)]: rebuilds through the World functions (renormalizes). */
MimDef *mim_subst(MimWorld *w, MimDef *e, MimDef *mut, MimDef *arg);
/* Substitute the variable of `mut` by `arg` in all of mut's operands; the
 * results are written to out[0..num_ops). Cached per (mut, arg). Returns
 * false on error. */
bool mim_reduce(MimWorld *w, MimDef *mut, MimDef *arg, MimDef **out);

#endif
