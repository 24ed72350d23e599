/* Instruction emission of the `ll` back end: values (ll-backend.md §5.1),
 * parameters and phis, terminators (§4.3) and the assembly of a function
 * definition (§4.1). Axiom applications are mapped in ll_ops.c. */
#include "ll_impl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void ll_inst(LL *ll, const char *fmt, ...) {
    LLBuf *b = &ll->blocks.data[ll->bb].body;
    ll_buf_printf(b, "    ");
    va_list ap;
    va_start(ap, fmt);
    ll_buf_vprintf(b, fmt, ap);
    va_end(ap);
    ll_buf_printf(b, "\n");
}

/* ---- parameters ------------------------------------------------------------- */
static const char *param_type(LL *ll, LLBlock *b, size_t j) { return ll_type(ll, b->comp[j]); }

/* The projection of block b's variable that stands for component j, if the
 * World has it (the World is frozen: nothing is built). The front end names
 * these projections after the source's parameters (`a` of `fun f(a: I32,
 * b: I32)` is var#0#0) whether or not the body uses them: a body that uses
 * the whole tuple (`%core.wrap.add 0 (a, b)` is `… var#0`) never reaches
 * them through its operands. */
static MimDef *param_proj(LL *ll, LLBlock *b, size_t j) {
    MimDef *var = mim_var(ll->w, b->lam);
    if (!var || mim_def_node(var) != MIM_VAR) return NULL;
    if (!b->split) return var;
    if (b->inner) {
        if (j == b->inner) return mim_extract_lit(ll->w, var, 2, 1); /* the return continuation */
        MimDef *tup = mim_extract_lit(ll->w, var, 2, 0);
        if (!tup) return NULL;
        return b->inner == 1 ? tup : mim_extract_lit(ll->w, tup, b->inner, j);
    }
    return mim_extract_lit(ll->w, var, b->ncomp, j);
}

/* Name of parameter j of block b (ll-backend.md §4.1: `%<name>_<gid>` of
 * the parameter): the name of the use that fixes it if that is the named
 * projection, else the projection's debug name, else `%<block>.<j>`. */
static const char *param_name(LL *ll, int blk, size_t j, MimDef *use) {
    LLBlock *b = &ll->blocks.data[blk];
    const char *t = param_type(ll, b, j);
    if (!t) return NULL;
    if (!*t) return "";
    if (!b->param[j]) {
        MimDef *proj = NULL;
        if (use && mim_def_name(use) && (mim_def_node(use) == MIM_EXTRACT || !b->split)) proj = use;
        if (!proj) proj = param_proj(ll, b, j);
        if (proj && mim_def_name(proj)) b->param[j] = ll_str(ll, "%%%s", ll_name(ll, proj));
        else b->param[j] = ll_str(ll, "%%%s.%zu", b->label, j);
    }
    return b->param[j];
}

/* The insertvalue chain building an aggregate of type ty from n values. */
static const char *aggregate(LL *ll, const char *ty, const char *hint, const char **types, const char **vals,
                             size_t n) {
    const char *cur = "undef";
    hint = ll_tmp(ll, hint);
    for (size_t i = 0, k = 0; i < n; ++i) {
        if (!types[i] || !*types[i]) continue;
        const char *nx = ll_str(ll, "%%%s.%zu", hint, k);
        ll_inst(ll, "%s = insertvalue %s %s, %s %s, %zu", nx, ty, cur, types[i], vals[i], k);
        cur = nx;
        ++k;
    }
    return cur;
}

/* ---- values ------------------------------------------------------------------ */
static const char *emit_node(LL *ll, MimDef *d);
static const char *whole_var(LL *ll, MimDef *var);
static bool is_inner_tuple(LL *ll, MimDef *d);
static const char *inner_tuple(LL *ll, MimDef *d);

/* A node of a dependent pack's body, for the element being emitted. */
static const char *frame_val(LL *ll, MimDef *d) {
    if (mim_def_node(d) == MIM_VAR) {
        for (size_t k = ll->frames.len; k-- > 0;)
            if (ll->frames.data[k].binder == ll_op(d, 0)) return ll->frames.data[k].value;
        ll_error(ll, d, "pack variable outside its pack");
        return NULL;
    }
    for (size_t k = ll->cache_keys.len; k-- > 0;)
        if (ll->cache_keys.data[k] == d) return ll->cache_vals.data[k];
    const char *v = emit_node(ll, d);
    if (v) {
        mim_vec_push(&ll->cache_keys, d);
        mim_vec_push(&ll->cache_vals, (void *)v);
    }
    return v;
}

/* Element j of a dependent pack ‹i: n; body›: body with i = j. */
static const char *pack_elem(LL *ll, MimDef *pack, size_t j) {
    LLFrame f = {pack, j, ll_str(ll, "%zu", j), ll->cache_keys.len};
    mim_vec_push(&ll->frames, f);
    const char *v = ll_val(ll, ll_op(pack, 0));
    --ll->frames.len;
    ll->cache_keys.len = ll->cache_vals.len = f.cache_mark;
    return v;
}

/* A node computed anew where it is used (ll_sink.c): the copy of a block
 * dominating the current one, or a new copy here. */
static const char *copy_val(LL *ll, MimDef *d);

/* The copies that d's instruction needs, emitted first and operand by
 * operand, so that no copy is emitted while the arguments of one C call are
 * evaluated (the order would be the C compiler's). */
static void pre_copies(LL *ll, MimDef *d, int depth) {
    for (size_t k = 0, n = mim_def_num_ops(d); k < n && ll->ok; ++k) {
        MimDef *o = ll_op(d, k);
        if (!o || ll_no_value(o)) continue;
        LLInfo *i = ll_info(ll, o);
        if (i->copies) copy_val(ll, o);
        else if (i->place < 0 && depth > 0) pre_copies(ll, o, depth - 1); /* looked through */
    }
}

static const char *copy_val(LL *ll, MimDef *d) {
    for (size_t k = ll->copy_keys.len; k-- > 0;)
        if (ll->copy_keys.data[k] == d && ll_dominates(ll, ll->copy_blocks.data[k], ll->bb))
            return ll->copy_vals.data[k];
    pre_copies(ll, d, 4);
    ++ll->fresh;
    const char *v = emit_node(ll, d);
    --ll->fresh;
    if (v) {
        mim_vec_push(&ll->copy_keys, d);
        mim_vec_push(&ll->copy_vals, (void *)v);
        mim_vec_push(&ll->copy_blocks, ll->bb);
    }
    return v;
}

const char *ll_val(LL *ll, MimDef *d) {
    if (!d || !ll->ok) return NULL;
    if (ll->frames.len && ll_pack_dep(ll, d)) return frame_val(ll, d);
    LLInfo *i = ll_info(ll, d);
    if (i->copies) return copy_val(ll, d);
    if (i->emitted) {
        if (!ll_dominates(ll, i->place, ll->bb)) {
            ll_error(ll, d, "value used in a block its definition does not dominate");
            return NULL;
        }
        return i->val;
    }
    const char *c = ll_const(ll, d);
    if (c) return c;
    if (!ll->ok) return NULL;
    int b;
    size_t j;
    if (ll_param_ref(ll, d, &b, &j)) {
        if (!ll_dominates(ll, b, ll->bb)) {
            ll_error(ll, d, "parameter used outside the blocks its block dominates");
            return NULL;
        }
        return param_name(ll, b, j, d);
    }
    if (mim_def_node(d) == MIM_TUPLE || mim_def_node(d) == MIM_PACK) return emit_node(ll, d); /* on demand */
    if (is_inner_tuple(ll, d)) return inner_tuple(ll, d);
    if (mim_def_node(d) == MIM_VAR) {
        if (!ll_dominates(ll, i->place, ll->bb)) {
            ll_error(ll, d, "variable used outside the blocks its block dominates");
            return NULL;
        }
        return whole_var(ll, d);
    }
    if (mim_def_node(d) == MIM_LAM) ll_error(ll, d, "a basic block used as a value");
    else ll_error(ll, d, i->place >= 0 ? "value used before its definition" : "unsupported value");
    return NULL;
}

/* Value types of the components of an aggregate type. */
static size_t type_comps(LL *ll, MimDef *type, MimDef ***comps) {
    size_t n;
    if (mim_def_node(type) == MIM_ARR) {
        uint64_t k;
        if (!mim_def_lit(ll_op(type, 0), &k) || k > 4096) {
            *comps = NULL;
            return 0;
        }
        n = (size_t)k;
        *comps = malloc((n ? n : 1) * sizeof **comps);
        if (!*comps) abort();
        for (size_t i = 0; i < n; ++i) (*comps)[i] = ll_op(type, 1);
        return n;
    }
    (void)ll;
    n = mim_def_node(type) == MIM_SIGMA ? mim_def_num_ops(type) : 1;
    *comps = malloc(n * sizeof **comps);
    if (!*comps) abort();
    if (mim_def_node(type) == MIM_SIGMA)
        for (size_t i = 0; i < n; ++i) (*comps)[i] = ll_op(type, i);
    else (*comps)[0] = type;
    return n;
}

/* LLVM index of component j among the value components (-1: j has none);
 * *count = number of value components. */
static long value_index(LL *ll, MimDef **comps, size_t n, size_t j, size_t *count) {
    long idx = -1;
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
        const char *t = ll_type(ll, comps[i]);
        if (!t || !*t) continue;
        if (i == j) idx = (long)k;
        ++k;
    }
    *count = k;
    return idx;
}

const char *ll_comp(LL *ll, MimDef *d, size_t j) {
    if (!d || !ll->ok) return NULL;
    if (mim_def_node(d) == MIM_TUPLE && j < mim_def_num_ops(d)) return ll_val(ll, ll_op(d, j));
    if (mim_def_node(d) == MIM_PACK && !mim_def_is_mut(d)) return ll_val(ll, ll_op(d, 0));
    if (mim_def_node(d) == MIM_PACK) return pack_elem(ll, d, j);
    if (mim_def_node(d) == MIM_VAR || is_inner_tuple(ll, d)) { /* parameters directly */
        MimDef *var = mim_def_node(d) == MIM_VAR ? d : ll_op(d, 0);
        int blk = ll_block_of(ll, ll_op(var, 0));
        LLBlock *b = blk >= 0 ? &ll->blocks.data[blk] : NULL;
        size_t n = !b ? 0 : mim_def_node(d) == MIM_VAR ? (b->split && !b->inner ? b->ncomp : 0) : b->inner;
        if (j < n) {
            if (!ll_dominates(ll, blk, ll->bb)) {
                ll_error(ll, d, "parameter used outside the blocks its block dominates");
                return NULL;
            }
            return param_name(ll, blk, j, NULL);
        }
    }
    MimDef *type = mim_resolve(ll->w, ll_typeof(d));
    uint64_t len;
    if (mim_def_node(type) == MIM_ARR && mim_def_lit(ll_op(type, 0), &len) && len > 4096) {
        /* a large array: its elements need not be enumerated */
        const char *ety = ll_type(ll, ll_op(type, 1)), *v = ety && *ety && j < len ? ll_val(ll, d) : NULL;
        if (!ety || !*ety) return ety;
        if (j >= len) ll_error(ll, d, "component out of range");
        if (!v) return NULL;
        const char *r = ll_str(ll, "%%%s", ll_tmp(ll, "ex"));
        ll_inst(ll, "%s = extractvalue %s %s, %zu", r, ll_type(ll, type), v, j);
        return r;
    }
    MimDef **comps;
    size_t n = type_comps(ll, type, &comps), count;
    if (j >= n) {
        free(comps);
        ll_error(ll, d, "component out of range");
        return NULL;
    }
    long idx = value_index(ll, comps, n, j, &count);
    free(comps);
    if (idx < 0) return "";
    const char *v = ll_val(ll, d);
    if (!v || count == 1) return v;
    const char *r = ll_str(ll, "%%%s", ll_tmp(ll, "ex"));
    ll_inst(ll, "%s = extractvalue %s %s, %ld", r, ll_type(ll, type), v, idx);
    return r;
}

/* The value of a whole split variable (an aggregate of its parameters). */
static const char *whole_var(LL *ll, MimDef *var) {
    int blk = ll_block_of(ll, ll_op(var, 0));
    LLBlock *b = &ll->blocks.data[blk];
    const char *ty = ll_type(ll, ll_typeof(var));
    if (!ty) return NULL;
    if (!*ty) return "";
    const char **types = calloc(b->ncomp, sizeof *types), **vals = calloc(b->ncomp, sizeof *vals);
    if (!types || !vals) abort();
    size_t k = 0, last = 0;
    for (size_t j = 0; j < b->ncomp; ++j) {
        types[j] = param_type(ll, b, j);
        vals[j] = param_name(ll, blk, j, NULL);
        if (types[j] && *types[j]) ++k, last = j;
    }
    const char *r = k == 1 ? vals[last] : aggregate(ll, ty, ll_name(ll, var), types, vals, b->ncomp);
    free(types), free(vals);
    return r;
}

/* The index operand of a getelementptr: zero-extended by one bit when
 * narrower than 64 (an Idx is unsigned, gep indices are signed); *w its
 * width. NULL after an error. */
static const char *gep_index(LL *ll, MimDef *index, unsigned *pw) {
    const char *iv = ll_val(ll, index);
    unsigned w = ll_int_width(ll, ll_typeof(index));
    if (!iv || !w) return NULL;
    if (w < 64) {
        const char *z = ll_str(ll, "%%%s", ll_tmp(ll, "idx"));
        ll_inst(ll, "%s = zext i%u %s to i%u", z, w, iv, w + 1);
        iv = z;
        ++w;
    }
    *pw = w;
    return iv;
}

/* Element pointer into the aggregate at `base` (an aty*). */
static const char *elem_ptr(LL *ll, const char *aty, const char *base, MimDef *index) {
    unsigned w;
    const char *iv = gep_index(ll, index, &w);
    if (!iv) return NULL;
    const char *p = ll_str(ll, "%%%s", ll_tmp(ll, "elem"));
    ll_inst(ll, "%s = getelementptr inbounds %s, %s* %s, i64 0, i%u %s", p, aty, aty, base, w, iv);
    return p;
}

/* Dynamic index into an aggregate in memory (ll-backend.md §5.1): an
 * entry-block alloca (*slot), a store and a gep; returns the element
 * pointer. */
static const char *dyn_elem_ptr(LL *ll, const char *aty, const char *agg, MimDef *index, const char **pslot) {
    const char *slot = ll_str(ll, "%%%s", ll_tmp(ll, "agg"));
    *pslot = slot;
    ll_buf_printf(&ll->allocas, "    %s = alloca %s\n", slot, aty);
    ll_inst(ll, "store %s %s, %s* %s", aty, agg, aty, slot);
    return elem_ptr(ll, aty, slot, index);
}

/* A literal index, or the variable of a pack whose element is being emitted. */
static bool index_lit(LL *ll, MimDef *index, uint64_t *j) {
    if (mim_def_lit(index, j)) return true;
    if (mim_def_node(index) != MIM_VAR) return false;
    for (size_t k = ll->frames.len; k-- > 0;)
        if (ll->frames.data[k].binder == ll_op(index, 0)) {
            *j = ll->frames.data[k].index;
            return true;
        }
    return false;
}

static const char *emit_extract(LL *ll, MimDef *d) {
    MimDef *tup = ll_op(d, 0), *index = ll_op(d, 1);
    uint64_t j;
    if (index_lit(ll, index, &j)) return ll_comp(ll, tup, (size_t)j);
    const char *ety = ll_type(ll, ll_typeof(d));
    if (!ety) return NULL;
    if (!*ety) return "";
    MimDef *tt = mim_resolve(ll->w, ll_typeof(tup));
    uint64_t n;
    if (mim_def_node(tt) == MIM_ARR && mim_def_lit(ll_op(tt, 0), &n) && n == 2 &&
        ll_int_width(ll, ll_typeof(index)) == 1) {
        const char *c = ll_val(ll, index), *a0 = ll_comp(ll, tup, 0), *a1 = ll_comp(ll, tup, 1);
        if (!c || !a0 || !a1) return NULL;
        const char *r = ll_result(ll, d);
        ll_inst(ll, "%s = select i1 %s, %s %s, %s %s", r, c, ety, a1, ety, a0);
        return r;
    }
    const char *aty = ll_type(ll, tt);
    if (!aty) return NULL;
    if (mim_def_node(tt) != MIM_ARR || aty[0] != '[') {
        ll_error(ll, d, "dynamic index into a non-array");
        return NULL;
    }
    const char *global = ll_const_global(ll, tup, aty);
    if (global) {
        const char *p = elem_ptr(ll, aty, global, index);
        if (!p) return NULL;
        const char *r = ll_result(ll, d);
        ll_inst(ll, "%s = load %s, %s* %s", r, ety, ety, p);
        return r;
    }
    const char *agg = ll_val(ll, tup);
    if (!agg) return NULL;
    const char *slot, *p = dyn_elem_ptr(ll, aty, agg, index, &slot);
    if (!p) return NULL;
    const char *r = ll_result(ll, d);
    ll_inst(ll, "%s = load %s, %s* %s", r, ety, ety, p);
    return r;
}

static const char *emit_insert(LL *ll, MimDef *d) {
    MimDef *tup = ll_op(d, 0), *index = ll_op(d, 1), *val = ll_op(d, 2);
    MimDef *tt = mim_resolve(ll->w, ll_typeof(tup));
    const char *aty = ll_type(ll, tt), *agg = ll_val(ll, tup), *v = ll_val(ll, val);
    const char *vty = ll_type(ll, ll_typeof(val));
    if (!aty || !agg || !v || !vty) return NULL;
    if (!*vty) return agg;
    uint64_t j;
    const char *r = ll_result(ll, d);
    uint64_t len;
    if (index_lit(ll, index, &j) && mim_def_node(tt) == MIM_ARR && mim_def_lit(ll_op(tt, 0), &len) && len > 4096) {
        ll_inst(ll, "%s = insertvalue %s %s, %s %s, %" PRIu64, r, aty, agg, vty, v, j);
        return r;
    }
    if (index_lit(ll, index, &j)) {
        MimDef **comps;
        size_t n = type_comps(ll, tt, &comps), count;
        long idx = j < n ? value_index(ll, comps, n, (size_t)j, &count) : -1;
        free(comps);
        if (idx < 0) return agg;
        if (count == 1) return v;
        ll_inst(ll, "%s = insertvalue %s %s, %s %s, %ld", r, aty, agg, vty, v, idx);
        return r;
    }
    if (mim_def_node(tt) != MIM_ARR || aty[0] != '[') {
        ll_error(ll, d, "dynamic index into a non-array");
        return NULL;
    }
    const char *slot, *p = dyn_elem_ptr(ll, aty, agg, index, &slot);
    if (!p) return NULL;
    ll_inst(ll, "store %s %s, %s* %s", vty, v, vty, p);
    ll_inst(ll, "%s = load %s, %s* %s", r, aty, aty, slot);
    return r;
}

static const char *emit_tuple(LL *ll, MimDef *d) {
    const char *ty = ll_type(ll, ll_typeof(d));
    if (!ty) return NULL;
    if (!*ty) return "";
    MimDef **comps;
    size_t n = type_comps(ll, mim_resolve(ll->w, ll_typeof(d)), &comps);
    if (!n && ty[0] == '[' && strncmp(ty, "[0 x", 4) != 0) {
        free(comps);
        ll_error(ll, d, "array value too large to build element by element");
        return NULL;
    }
    const char **types = calloc(n ? n : 1, sizeof *types), **vals = calloc(n ? n : 1, sizeof *vals);
    if (!types || !vals) abort();
    size_t k = 0, last = 0;
    bool ok = true;
    for (size_t j = 0; j < n && ok; ++j) {
        types[j] = ll_type(ll, comps[j]);
        vals[j] = types[j] && *types[j] ? ll_comp(ll, d, j) : "";
        ok = types[j] && vals[j];
        if (ok && *types[j]) ++k, last = j;
    }
    const char *r = !ok ? NULL : k == 1 ? vals[last] : aggregate(ll, ty, ll_name(ll, d), types, vals, n);
    free(types), free(vals), free(comps);
    return r;
}

/* var#0 of a function with a flattened domain: the tuple of its parameters. */
static const char *inner_tuple(LL *ll, MimDef *d) {
    LLBlock *f = &ll->blocks.data[0];
    const char *ty = ll_type(ll, ll_typeof(d));
    if (!ty) return NULL;
    if (!*ty) return "";
    const char **types = calloc(f->inner, sizeof *types), **vals = calloc(f->inner, sizeof *vals);
    if (!types || !vals) abort();
    size_t k = 0, last = 0;
    for (size_t j = 0; j < f->inner; ++j) {
        types[j] = param_type(ll, f, j);
        vals[j] = param_name(ll, 0, j, NULL);
        if (types[j] && *types[j]) ++k, last = j;
    }
    const char *r = k == 1 ? vals[last] : aggregate(ll, ty, ll_name(ll, d), types, vals, f->inner);
    free(types), free(vals);
    return r;
}

static bool is_inner_tuple(LL *ll, MimDef *d) {
    uint64_t i;
    return mim_def_node(d) == MIM_EXTRACT && mim_def_node(ll_op(d, 0)) == MIM_VAR &&
           ll_op(ll_op(d, 0), 0) == ll->cur && ll->blocks.data[0].inner && mim_def_lit(ll_op(d, 1), &i) &&
           i == 0;
}

static const char *emit_node(LL *ll, MimDef *d) {
    int b;
    size_t j;
    if (ll_param_ref(ll, d, &b, &j)) return param_name(ll, b, j, d);
    if (is_inner_tuple(ll, d)) return inner_tuple(ll, d);
    switch (mim_def_node(d)) {
    case MIM_VAR: return whole_var(ll, d);
    case MIM_EXTRACT: return emit_extract(ll, d);
    case MIM_INSERT: return emit_insert(ll, d);
    case MIM_TUPLE:
    case MIM_PACK: return emit_tuple(ll, d);
    case MIM_APP: return ll_emit_axiom(ll, d);
    default: {
        const char *c = ll_const(ll, d);
        if (!c && ll->ok) ll_error(ll, d, "unsupported node");
        return c;
    }
    }
}

/* ---- terminators --------------------------------------------------------------- */
/* Phi inputs of block `to` for the argument `arg` coming from ll->bb. */
static void jump_args(LL *ll, int to, MimDef *arg) {
    LLBlock *t = &ll->blocks.data[to];
    for (size_t j = 0; j < t->ncomp && ll->ok; ++j) {
        const char *ty = param_type(ll, t, j);
        if (!ty || !*ty) continue;
        const char *v = t->split ? ll_comp(ll, arg, j) : ll_val(ll, arg);
        if (!v) return;
        LLBuf *in = &t->incoming[j];
        ll_buf_printf(in, "%s[ %s, %%%s ]", in->len ? ", " : "", v, ll->blocks.data[ll->bb].label);
    }
}

/* The argument list of a call: every non-memory component but the last
 * (the return continuation) if `returning`. */
static const char *call_args(LL *ll, MimDef *pi, MimDef *arg, bool returning) {
    size_t n, inner;
    MimDef **comps;
    bool split = ll_fn_comps(ll_dom(pi), &n, &comps, &inner);
    /* the caller's own variable (same domain type, so the same components):
     * its parameters are the arguments */
    bool own = mim_def_node(arg) == MIM_VAR && ll_op(arg, 0) == ll->cur && ll_typeof(arg) == ll_dom(pi);
    MimDef *inner_arg = inner && mim_def_node(arg) == MIM_TUPLE ? ll_op(arg, 0) : NULL;
    if (inner && !inner_arg && !own) {
        ll_error(ll, arg, "call argument is not a tuple");
        free(comps);
        return NULL;
    }
    LLBuf b = {0};
    size_t k = 0, end = returning ? n - 1 : n;
    const char *r = NULL;
    for (size_t j = 0; j < end; ++j) {
        const char *ty = ll_type(ll, comps[j]);
        if (!ty) goto out;
        if (!*ty) continue;
        const char *v = own ? param_name(ll, 0, j, NULL)
                        : inner ? (inner == 1 ? ll_val(ll, inner_arg) : ll_comp(ll, inner_arg, j))
                        : split ? ll_comp(ll, arg, j) : ll_val(ll, arg);
        if (!v) goto out;
        ll_buf_printf(&b, "%s%s %s", k++ ? ", " : "", ty, v);
    }
    r = ll_str(ll, "%s", b.data ? b.data : "");
out:
    mim_vec_free(&b);
    free(comps);
    return r;
}

/* The returned value of `return arg` built in the current block ("" if
 * nothing is returned, NULL on error). */
static const char *ret_value(LL *ll, MimDef *arg) {
    LLBlock *f = &ll->blocks.data[0];
    MimDef *ret_pi = f->comp[f->ncomp - 1];
    size_t n;
    MimDef **comps;
    bool split = ll_domain_comps(ll_dom(ret_pi), &n, &comps);
    const char **types = calloc(n, sizeof *types), **vals = calloc(n, sizeof *vals);
    if (!types || !vals) abort();
    size_t k = 0, last = 0;
    for (size_t j = 0; j < n && ll->ok; ++j) {
        types[j] = ll_type(ll, comps[j]);
        if (!types[j] || !*types[j]) continue;
        vals[j] = split ? ll_comp(ll, arg, j) : ll_val(ll, arg);
        ++k, last = j;
    }
    const char *r = !ll->ok ? NULL : k == 0 ? "" : k == 1 ? vals[last]
                  : aggregate(ll, ll->ret_type, "ret_val", types, vals, n);
    free(types), free(vals), free(comps);
    return r;
}

static const char *ret_inst(LL *ll, const char *v) {
    return *v ? ll_str(ll, "ret %s %s", ll->ret_type, v) : "ret void";
}

static void emit_ret(LL *ll, MimDef *arg) {
    const char *v = ret_value(ll, arg);
    if (v) ll_inst(ll, "%s", ret_inst(ll, v));
}

static void emit_call(LL *ll, MimDef *body, const LLTerm *t) {
    MimDef *pi = ll_typeof(t->callee);
    const char *fn = mim_def_node(t->callee) == MIM_LAM ? ll_fn_name(ll, t->callee) : ll_val(ll, t->callee);
    const char *rt = ll_fn_ret_type(ll, pi);
    const char *args = fn && rt ? call_args(ll, pi, t->arg, true) : NULL;
    if (!args) return;
    const char *res = NULL;
    if (strcmp(rt, "void") == 0) {
        ll_inst(ll, "call void %s(%s)", fn, args);
    } else {
        res = ll_str(ll, "%%%sret", ll_name(ll, body));
        ll_inst(ll, "%s = call %s %s(%s)", res, rt, fn, args);
    }
    if (!t->own_args && mim_def_node(t->k) == MIM_BOT) {
        ll_inst(ll, "unreachable");
        return;
    }
    if (t->own_args || ll_is_ret(ll, t->k)) {
        if (strcmp(rt, ll->ret_type) != 0) {
            ll_error(ll, body, "tail call with a different return type");
            return;
        }
        if (res) ll_inst(ll, "ret %s %s", rt, res);
        else ll_inst(ll, "ret void");
        return;
    }
    int to = ll_block_of(ll, t->k);
    LLBlock *k = &ll->blocks.data[to];
    const char *kt = ll_values_type(ll, ll_dom(ll_typeof(t->k)));
    if (!kt) return;
    if (strcmp(kt, rt) != 0) { /* e.g. «n; T» returned to a block taking «3; T» */
        ll_error(ll, body, "the callee's return type differs from the return continuation's parameters");
        return;
    }
    size_t count = 0;
    for (size_t j = 0; j < k->ncomp; ++j) {
        const char *ty = param_type(ll, k, j);
        if (ty && *ty) ++count;
    }
    for (size_t j = 0, idx = 0; j < k->ncomp && res; ++j) {
        const char *ty = param_type(ll, k, j);
        if (!ty || !*ty) continue;
        const char *v = res;
        if (count > 1) {
            v = ll_str(ll, "%s.%zu", res, idx);
            ll_inst(ll, "%s = extractvalue %s %s, %zu", v, rt, res, idx);
        }
        ++idx;
        LLBuf *in = &k->incoming[j];
        ll_buf_printf(in, "%s[ %s, %%%s ]", in->len ? ", " : "", v, ll->blocks.data[ll->bb].label);
    }
    ll_inst(ll, "br label %%%s", k->label);
}

static void emit_terminator(LL *ll, int b) {
    MimDef *body = ll_body(ll->blocks.data[b].lam);
    pre_copies(ll, body, 4);
    LLTerm t;
    if (!ll_classify(ll, body, &t)) return;
    switch (t.kind) {
    case LL_T_RET: emit_ret(ll, t.arg); return;
    case LL_T_UNREACHABLE: ll_inst(ll, "unreachable ; bottom"); return;
    case LL_T_LONGJMP: { /* %clos.longjmp (m, buf, tag) */
        const char *buf = ll_comp(ll, t.arg, 1), *tag = ll_comp(ll, t.arg, 2);
        if (!buf || !tag) return;
        ll_declare(ll, "declare void @longjmp(i8*, i32) noreturn");
        ll_inst(ll, "call void @longjmp(i8* %s, i32 %s)", buf, tag);
        ll_inst(ll, "unreachable");
        return;
    }
    case LL_T_JUMP: {
        int to = ll_block_of(ll, t.callee);
        jump_args(ll, to, t.arg);
        ll_inst(ll, "br label %%%s%s", ll->blocks.data[to].label, ll_loop_md(ll, b, to));
        return;
    }
    case LL_T_BRANCH: {
        MimDef *tup = ll_op(t.callee, 0), *index = ll_op(t.callee, 1);
        size_t n = mim_def_num_ops(tup);
        const char **labels = calloc(n, sizeof *labels), *stub = NULL, *md = "";
        int loops = 0; /* back edges of marked loops: annotated if exactly one */
        if (!labels) abort();
        for (size_t k = 0; k < n && ll->ok; ++k) {
            MimDef *target = ll_op(tup, k);
            if (ll_is_ret(ll, target)) {
                /* returning on one edge: the value is built here and a stub
                 * block after the function's blocks returns it */
                if (!stub) {
                    const char *v = ret_value(ll, t.arg);
                    if (!v) break;
                    stub = ll_str(ll, "%s.ret", ll->blocks.data[b].label);
                    ll_buf_printf(&ll->stubs, "%s:\n    %s\n", stub, ret_inst(ll, v));
                }
                labels[k] = stub;
                continue;
            }
            int to = ll_block_of(ll, target);
            jump_args(ll, to, t.arg);
            labels[k] = ll->blocks.data[to].label;
            if (ll->blocks.data[to].unroll && ll_dominates(ll, to, b)) ++loops, md = ll_loop_md(ll, b, to);
        }
        if (loops != 1) md = "";
        const char *c = ll->ok ? ll_val(ll, index) : NULL;
        unsigned w = ll_int_width(ll, ll_typeof(index));
        if (c && w && n == 2) ll_inst(ll, "br i1 %s, label %%%s, label %%%s%s", c, labels[1], labels[0], md);
        if (c && w && n > 2) {
            LLBuf cases = {0};
            for (size_t k = 1; k < n; ++k) ll_buf_printf(&cases, " i%u %zu, label %%%s", w, k, labels[k]);
            ll_inst(ll, "switch i%u %s, label %%%s [%s ]%s", w, c, labels[0], cases.data, md);
            mim_vec_free(&cases);
        }
        free(labels);
        return;
    }
    case LL_T_CALL: emit_call(ll, body, &t); return;
    case LL_T_CCALL: {
        const char *args = call_args(ll, ll_typeof(t.callee), t.arg, false);
        if (!args) return;
        ll_inst(ll, "call void %s(%s)", ll_fn_name(ll, t.callee), args);
        ll_inst(ll, "unreachable");
        return;
    }
    }
}

/* ---- the function ---------------------------------------------------------------- */
bool ll_emit_function(LL *ll) {
    MimDef *pi = ll_typeof(ll->cur);
    ll->ret_type = ll_fn_ret_type(ll, pi);
    if (!ll->ret_type) return false;
    for (size_t k = 0; k < ll->norder && ll->ok; ++k) {
        int b = ll->order[k];
        ll->bb = b;
        LLVec *nodes = &ll->blocks.data[b].nodes;
        for (size_t i = 0; i < nodes->len && ll->ok; ++i) {
            MimDef *d = nodes->data[i];
            LLInfo *info = ll_info(ll, d);
            if (info->emitted) continue;
            pre_copies(ll, d, 4);
            const char *v = emit_node(ll, d);
            info = ll_info(ll, d);
            info->val = v;
            info->emitted = 1;
        }
        if (ll->ok) emit_terminator(ll, b);
    }
    if (!ll->ok) return false;

    LLBlock *f = &ll->blocks.data[0];
    LLBuf *out = &ll->funcs;
    /* A function that is not external is only reachable from this module
     * (its name carries a gid; docs/ll-backend.md §2): internal linkage lets
     * clang choose its calling convention, inline it and drop the copy. */
    ll_buf_printf(out, "define %s%s %s(", mim_def_is_external(ll->cur) ? "" : "internal ", ll->ret_type,
                  ll_fn_name(ll, ll->cur));
    for (size_t j = 0, k = 0; j + 1 < f->ncomp; ++j) {
        const char *ty = param_type(ll, f, j);
        if (!ty) return false;
        if (!*ty) continue;
        ll_buf_printf(out, "%s%s %s", k++ ? ", " : "", ty, param_name(ll, 0, j, NULL));
    }
    ll_buf_printf(out, ") {\n");
    for (size_t k = 0; k < ll->norder; ++k) {
        LLBlock *b = &ll->blocks.data[ll->order[k]];
        ll_buf_printf(out, "%s:\n", b->label);
        if (k == 0 && ll->allocas.len) ll_buf_printf(out, "%s", ll->allocas.data);
        for (size_t j = 0; k > 0 && j < b->ncomp; ++j) {
            const char *ty = param_type(ll, b, j);
            if (!ty || !*ty) continue;
            const char *name = param_name(ll, ll->order[k], j, NULL);
            if (!b->incoming[j].len) {
                ll_error(ll, b->lam, "block without incoming values");
                return false;
            }
            ll_buf_printf(out, "    %s = phi %s %s\n", name, ty, b->incoming[j].data);
        }
        if (b->body.len) ll_buf_printf(out, "%s", b->body.data);
    }
    if (ll->stubs.len) ll_buf_printf(out, "%s", ll->stubs.data);
    ll_buf_printf(out, "}\n\n");
    return ll->ok;
}
