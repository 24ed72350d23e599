/* The mem plugin (plugins/mem.md §4.4): normalizers of %mem.load,
 * %mem.store, %mem.remem and %mem.lea. Memory is a linearly threaded token
 * %mem.M; these rules only drop operations whose pointer or value is ⊥
 * (undefined) or that cannot observe anything, and index single-element
 * aggregates for free. The passes and phases of §5 live in their own files
 * (mem_passes.h); their pipeline handlers are registered here. */
#include "mim/plugin/mem.h"

#include "mem_passes.h"

static bool is_bot(MimWorld *w, MimDef *d) {
    d = mim_resolve(w, d);
    return d && mim_def_node(d) == MIM_BOT;
}

/* T of a pointer type %mem.Ptr (T, a), or NULL if ptr_type is none. */
static MimDef *pointee(MimWorld *w, MimDef *ptr_type) {
    MimDef *app = mim_match(ptr_type, MIM_mem_Ptr);
    return app ? mim_proj(w, mim_app_arg(app), 2, 0) : NULL;
}

static MimDef *pair(MimWorld *w, MimDef *a, MimDef *b) {
    MimDef *ops[2] = {a, b};
    return mim_tuple(w, ops, 2);
}

/* A store of this value writes nothing defined: ⊥ itself, a pack of ⊥, or a
 * tuple of ⊥ only (as mim_bot builds for Σ/array types; the empty tuple
 * vacuously counts, storing () changes nothing either). Nested aggregates are
 * not looked into (mem.md §4.4 rule 3 names the elements only). */
static bool is_undefined_value(MimWorld *w, MimDef *v) {
    v = mim_resolve(w, v);
    if (!v) return false;
    switch (mim_def_node(v)) {
    case MIM_BOT: return true;
    case MIM_PACK: return is_bot(w, mim_def_op(v, 0));
    case MIM_TUPLE:
        for (size_t i = 0, n = mim_def_num_ops(v); i < n; ++i)
            if (!is_bot(w, mim_def_op(v, i))) return false;
        return true;
    default: return false;
    }
}

/* %mem.lea (n, Ts, a) (p, i): indexing a pointer to a one-element aggregate
 * (pointee of literal arity 1) is p itself; its type Ptr (Ts#i, a) then
 * equals p's type, because «j: 1; Ts#j» and Ts#i both normalize to Ts. */
MimDef *normalize_lea(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    MimDef *ptr = mim_proj(w, arg, 2, 0);
    if (!ptr) return NULL;
    if (is_bot(w, ptr)) return mim_bot(w, type); /* an offset into nothing (docs/decisions.md) */
    MimDef *T = pointee(w, mim_resolve(w, mim_def_type(ptr)));
    uint64_t n;
    if (T && mim_literal_arity(w, T, &n) && n == 1) return ptr;
    return mim_raw_app(w, type, callee, arg);
}

/* %mem.load (m, p) : [%mem.M, T]. Reading through ⊥ yields ⊥; a [] holds
 * only (). The value type is taken from the result type by projection, which
 * also works when the result is the array «2; %mem.M» (T = %mem.M). */
MimDef *normalize_load(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    MimDef *mem = mim_proj(w, arg, 2, 0), *ptr = mim_proj(w, arg, 2, 1);
    MimDef *T = mim_resolve(w, mim_proj(w, type, 2, 1));
    if (!mem || !ptr || !T) return NULL;
    if (is_bot(w, ptr)) return pair(w, mem, mim_bot(w, T));
    MimDef *P = pointee(w, mim_resolve(w, mim_def_type(ptr)));
    if (P && mim_resolve(w, P) == mim_unit_type(w)) return pair(w, mem, mim_unit(w));
    return mim_raw_app(w, type, callee, arg);
}

/* %mem.store (m, p, v) : %mem.M. A store through ⊥ or of an undefined value
 * is removed: its memory is the incoming one. */
MimDef *normalize_store(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    MimDef *mem = mim_proj(w, arg, 3, 0), *ptr = mim_proj(w, arg, 3, 1);
    MimDef *val = mim_proj(w, arg, 3, 2);
    if (!mem || !ptr || !val) return NULL;
    if (is_bot(w, ptr) || is_undefined_value(w, val)) return mem;
    return mim_raw_app(w, type, callee, arg);
}

/* %mem.remem m stands for "some effect happened": never simplified, not even
 * remem (remem m), since SSA construction relies on each one being kept. */
MimDef *normalize_remem(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    return mim_raw_app(w, type, callee, arg);
}

/* %mem.region (r, p): ⊥ for p = ⊥ (a shadow that is not passed: the loads
 * and stores through it fold as through ⊥ itself), else kept. */
MimDef *normalize_region(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    MimDef *ptr = mim_proj(w, arg, 2, 1);
    if (!ptr) return NULL;
    if (is_bot(w, ptr)) return mim_bot(w, type);
    return mim_raw_app(w, type, callee, arg);
}

static const MimNormalizerReg normalizers[] = {MIM_mem_NORMALIZERS};
static const MimPassReg passes[] = {
    {MIM_mem_ssa_pass, mem_handle_ssa},
    {MIM_mem_copy_prop_pass, mem_handle_copy_prop},
    {MIM_mem_remem_elim_pass, mem_handle_remem_elim},
    {MIM_mem_alloc2malloc_pass, mem_handle_alloc2malloc},
    {MIM_mem_reshape_pass, mem_handle_reshape},
    {MIM_mem_add_mem_phase, mem_handle_add_mem},
};
MIM_PLUGIN_DEFINE("mem", MIM_PLUGIN_TABLE(normalizers), MIM_PLUGIN_TABLE(passes),
                  MIM_PLUGIN_NO_TABLE);
