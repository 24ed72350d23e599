/* The matrix plugin (plugins/matrix.md): normalizers (§4), the high-level
 * pass that turns %matrix.prod/transpose/sum into calls of the interface's
 * internal_mapRed_* functions (§5.1), and internal_map_reduce_cleanup
 * (§5: internal_cleanup with the prefix internal_mapRed_).
 *
 * the medium-level pass that lowers map_reduce to %affine.For loops (§5.2),
 * and the low-level phase that turns tensors into pointers to nested arrays
 * and their operations into %mem ones (§5.3). */
#include "mim/pass.h"
#include "mim/plugin.h"
#include "mim/plugin/affine.h"
#include "mim/plugin/core.h"
#include "mim/plugin/direct.h"
#include "mim/plugin/matrix.h"
#include "mim/plugin/mem.h"
#include "mim/ptrmap.h"
#include "mim/rewrite.h"
#include "mim/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- normalizers (§4) ------------------------------------------------------------ */

/* shape (mat, i) → S#i, S from mat's type %matrix.Mat (n, S, T). */
MimDef *normalize_shape(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    MimDef *mat = mim_proj(w, arg, 2, 0), *i = mim_proj(w, arg, 2, 1);
    MimDef *mat_type = mat ? mim_resolve(w, mim_def_type(mat)) : NULL;
    MimDef *Mat = mat_type ? mim_match(mat_type, MIM_matrix_Mat) : NULL;
    if (!Mat || !i) return mim_raw_app(w, type, callee, arg);
    MimDef *S = mim_proj(w, mim_app_nth_arg(Mat, 0), 3, 1);
    return S ? mim_extract(w, S, i) : NULL;
}

/* read (mem, constMat (m₀, v)#1, idx) → (mem, v). */
MimDef *normalize_read(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    MimDef *mem = mim_proj(w, arg, 3, 0), *mat = mim_proj(w, arg, 3, 1);
    uint64_t k;
    if (mem && mat && mim_def_node(mat) == MIM_EXTRACT && mim_def_lit(mim_def_op(mat, 1), &k) && k == 1) {
        MimDef *made = mim_match(mim_def_op(mat, 0), MIM_matrix_constMat);
        if (made) {
            MimDef *v = mim_proj(w, mim_app_nth_arg(made, 1), 2, 1);
            MimDef *ops[2] = {mem, v};
            return v ? mim_tuple(w, ops, 2) : NULL;
        }
    }
    return mim_raw_app(w, type, callee, arg);
}

MimDef *normalize_insert(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    return mim_raw_app(w, type, callee, arg);
}
MimDef *normalize_map_reduce(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    return mim_raw_app(w, type, callee, arg);
}
MimDef *normalize_prod(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    return mim_raw_app(w, type, callee, arg);
}
MimDef *normalize_transpose(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    return mim_raw_app(w, type, callee, arg);
}

/* ---- high level (§5.1) ------------------------------------------------------------ */

/* The direct-style view of a CPS function f : Cn [T, Cn U] (direct.md §3.2),
 * or NULL if f has another type. */
static MimDef *cps2ds(MimWorld *w, MimDef *f) {
    MimDef *T, *U;
    if (!mim_cps_fn_parts(w, mim_def_type(f), &T, &U)) return NULL;
    return mim_app(w, mim_app(w, mim_world_annex(w, MIM_direct_cps2ds), mim_pair(w, T, U)), f);
}

typedef struct HighLevel {
    MimPass base;
    MimPtrMap done; /* node ↦ replacement */
} HighLevel;

static MimDef *high_level_rewrite(MimPass *p, MimDef *def) {
    HighLevel *hl = (HighLevel *)p;
    if (mim_def_node(def) != MIM_APP) return def;
    MimDef *inner = mim_app_callee(def);
    if (mim_def_node(inner) != MIM_APP || mim_def_node(mim_app_callee(inner)) != MIM_AXIOM) return def;
    MimDef *known = mim_ptrmap_get(&hl->done, def);
    if (known) return known;
    MimWorld *w = mim_pass_world(p);
    MimDef *impl = mim_annex_external(w, mim_app_callee(inner), "internal_mapRed_");
    if (!impl) return def;
    MimDef *fn = mim_app(w, impl, mim_app_arg(inner));
    MimDef *ds = fn ? cps2ds(w, fn) : NULL;
    MimDef *res = ds ? mim_app(w, ds, mim_app_arg(def)) : NULL;
    if (res) mim_ptrmap_put(&hl->done, def, res);
    return res;
}

static void high_level_fini(MimPass *p) { mim_ptrmap_free(&((HighLevel *)p)->done); }

static const MimPassClass high_level_class = {
    .name = "lower_matrix_high_level_map_reduce",
    .size = sizeof(HighLevel),
    .on_lams = true,
    .rewrite = high_level_rewrite,
    .fini = high_level_fini,
};


/* ---- medium level (§5.2) -------------------------------------------------------------- */

static MimDef *sigma2(MimWorld *w, MimDef *a, MimDef *b) {
    MimDef *ops[2] = {a, b};
    return mim_sigma(w, ops, 2);
}

/* `%core.bitcast D x` */
static MimDef *bitcast(MimWorld *w, MimDef *D, MimDef *x) {
    MimDef *bc = mim_app(w, mim_world_annex(w, MIM_core_bitcast), mim_def_type(x));
    return mim_app(w, mim_app(w, bc, D), x);
}

/* The loop index v as an index of `extent`: itself if its type is Idx
 * extent already, else converted (§5.2 lets a literal extent stand for a
 * non-literal one of the same index, so a read or the write-back may expect
 * another Idx type than the loop's). */
static MimDef *index_for(MimWorld *w, MimDef *v, MimDef *extent) {
    MimDef *want = mim_type_idx(w, extent);
    return !v || mim_def_type(v) == want ? v : bitcast(w, want, v);
}

/* A loop body `forIn_<index>` : Cn [I32, [%mem.M, A], Cn [%mem.M, A]]
 * (filter tt), and the For call that runs it from 0 to extent with the
 * accumulator (mem, x), leaving through exit. */
typedef struct Loop {
    MimDef *body, *call;
    MimDef *index; /* the iteration variable as an Idx extent */
    MimDef *mem, *x, *yield;
} Loop;

static bool make_loop(MimWorld *w, uint64_t index, MimDef *extent, MimDef *A, MimDef *mem, MimDef *x,
                      MimDef *exit, Loop *l) {
    MimDef *M = mim_world_annex(w, MIM_mem_M), *I32 = mim_type_int(w, 32);
    MimDef *acc_t = sigma2(w, M, A);
    MimDef *dom[3] = {I32, acc_t, mim_cn(w, acc_t)};
    l->body = mim_mut_lam(w, mim_cn(w, mim_sigma(w, dom, 3)));
    if (!l->body) return false;
    char name[32];
    snprintf(name, sizeof name, "forIn_%llu", (unsigned long long)index);
    mim_def_set_name(l->body, mim_world_sym(w, name));
    MimDef *iter = mim_var_proj(w, l->body, 3, 0), *acc = mim_var_proj(w, l->body, 3, 1);
    l->yield = mim_var_proj(w, l->body, 3, 2);
    l->mem = mim_proj(w, acc, 2, 0);
    l->x = mim_proj(w, acc, 2, 1);
    l->index = bitcast(w, mim_type_idx(w, extent), iter);
    MimDef *ts[2] = {M, A};
    /* built one by one, left to right: gids must not depend on the compiler */
    MimDef *head_args[3];
    head_args[0] = mim_lit_nat(w, (uint64_t)1 << 32);
    head_args[1] = mim_lit_nat(w, 2);
    head_args[2] = mim_tuple(w, ts, 2);
    MimDef *head = mim_app(w, mim_world_annex(w, MIM_affine_For), mim_tuple(w, head_args, 3));
    MimDef *args[6];
    args[0] = mim_lit_int(w, 32, 0);
    args[1] = bitcast(w, I32, extent);
    args[2] = mim_lit_int(w, 32, 1);
    args[3] = mim_pair(w, mem, x);
    args[4] = l->body, args[5] = exit;
    l->call = mim_app(w, head, mim_tuple(w, args, 6));
    return l->index && l->call;
}

/* One index number of a map_reduce: its extent and, once its loop exists,
 * the loop's index. Kept sorted by number. */
typedef struct Index {
    uint64_t num;
    MimDef *extent, *value;
} Index;

/* What one map_reduce call says, checked for literals (§5.2). */
typedef struct MapReduce {
    MimDef *n_, *S, *T, *NI, *TI, *SI;
    uint64_t n, m;
    MimDef *mem, *zero, *comb, *inputs;
    Index *idx;
    size_t num_idx, cap_idx;
} MapReduce;

static bool literal(MimDef *d, uint64_t *v) { return d && mim_def_lit(d, v); }

/* The entry of index number d, made (without extent) if new. */
static Index *index_entry(MapReduce *mr, uint64_t d) {
    size_t lo = 0, hi = mr->num_idx;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (mr->idx[mid].num < d) lo = mid + 1;
        else hi = mid;
    }
    if (lo < mr->num_idx && mr->idx[lo].num == d) return &mr->idx[lo];
    if (mr->num_idx == mr->cap_idx) {
        mr->cap_idx = mr->cap_idx ? 2 * mr->cap_idx : 8;
        mr->idx = mim_xrealloc(mr->idx, mr->cap_idx * sizeof *mr->idx);
    }
    memmove(mr->idx + lo + 1, mr->idx + lo, (mr->num_idx - lo) * sizeof *mr->idx);
    mr->num_idx++;
    mr->idx[lo] = (Index){d, NULL, NULL};
    return &mr->idx[lo];
}

/* Step 1: the extent of every index number. false when the call is to
 * stay (a count or index number that is not a literal) or, with *err set,
 * when it is an error (two different literal extents for one index). */
static bool extents(MimWorld *w, MapReduce *mr, MimLoc loc, MimPass *p, bool *err) {
    for (uint64_t i = 0; i < mr->n; ++i) index_entry(mr, i)->extent = mim_proj(w, mr->S, mr->n, i);
    for (uint64_t i = 0; i < mr->m; ++i) {
        uint64_t ni, d;
        MimDef *input = mim_proj(w, mr->inputs, mr->m, i);
        MimDef *idx = mim_proj(w, input, 2, 0), *SIi = mim_proj(w, mr->SI, mr->m, i);
        if (!literal(mim_proj(w, mr->NI, mr->m, i), &ni)) return false;
        for (uint64_t j = 0; j < ni; ++j) {
            if (!literal(mim_proj(w, idx, ni, j), &d)) return false;
            Index *x = index_entry(mr, d);
            MimDef *e = mim_proj(w, SIi, ni, j);
            uint64_t a, b;
            if (!x->extent || (!literal(x->extent, &a) && literal(e, &b))) {
                x->extent = e;
            } else if (literal(x->extent, &a) && literal(e, &b) && a != b) {
                mim_pass_error(p, loc, "map_reduce: index %llu has extents %llu and %llu", (unsigned long long)d,
                               (unsigned long long)a, (unsigned long long)b);
                *err = true;
                return false;
            }
        }
    }
    return true;
}

/* mapRed's body (lam = mapRed, mem and out from %matrix.init, exit its
 * return continuation): the output loops, the write-back, the
 * reduction loops, the reads and the call of comb (steps 3–5). */
static bool map_reduce_body(MimWorld *w, MapReduce *mr, MimDef *lam, MimDef *mem, MimDef *out, MimDef *exit) {
    MimDef *M = mim_world_annex(w, MIM_mem_M);
    MimDef *nST[3] = {mr->n_, mr->S, mr->T};
    MimDef *mat_t = mim_app(w, mim_world_annex(w, MIM_matrix_Mat), mim_tuple(w, nST, 3));
    MimDef **at = mim_xcalloc(mr->num_idx + 1, sizeof *at);
    bool ok = false, in_loop = false; /* loop bodies have filter tt */
    Loop l;
    /* output loops (index numbers 0 … n−1, the first n entries), accumulator (mem, out) */
    for (uint64_t k = 0; k < mr->n; ++k) {
        if (!make_loop(w, k, mr->idx[k].extent, mat_t, mem, out, exit, &l) ||
            !mim_lam_set(w, lam, mim_lit_bool(w, in_loop), l.call))
            goto out;
        in_loop = true;
        mr->idx[k].value = l.index;
        lam = l.body, mem = l.mem, out = l.x, exit = l.yield;
    }
    /* matrixWriteBack (mem, v) = exit (insert (n, S, T) (mem, out, (i₀, …), v)) */
    MimDef *wb = mim_mut_lam(w, mim_cn(w, sigma2(w, M, mr->T)));
    if (!wb) goto out;
    mim_def_set_name(wb, mim_world_sym(w, "matrixWriteBack"));
    for (uint64_t k = 0; k < mr->n; ++k) at[k] = index_for(w, mr->idx[k].value, mim_proj(w, mr->S, mr->n, k));
    MimDef *ins_args[4];
    ins_args[0] = mim_var_proj(w, wb, 2, 0);
    ins_args[1] = out;
    ins_args[2] = mim_tuple(w, at, (size_t)mr->n);
    ins_args[3] = mim_var_proj(w, wb, 2, 1);
    MimDef *ins = mim_app(w, mim_world_annex(w, MIM_matrix_insert), mim_tuple(w, nST, 3));
    ins = mim_app(w, ins, mim_tuple(w, ins_args, 4));
    if (!mim_lam_set(w, wb, mim_lit_bool(w, false), mim_app(w, exit, ins))) goto out;
    /* reduction loops in ascending order, accumulator (mem, element), from (mem, zero) */
    MimDef *acc = mr->zero;
    exit = wb;
    for (size_t k = (size_t)mr->n; k < mr->num_idx; ++k) {
        if (!make_loop(w, mr->idx[k].num, mr->idx[k].extent, mr->T, mem, acc, exit, &l) ||
            !mim_lam_set(w, lam, mim_lit_bool(w, in_loop), l.call))
            goto out;
        in_loop = true;
        mr->idx[k].value = l.index;
        lam = l.body, mem = l.mem, acc = l.x, exit = l.yield;
    }
    /* the reads, threading memory, and comb ((mem, acc, elements), exit) */
    MimDef **elems = mim_xcalloc(mr->m + 1, sizeof *elems);
    for (uint64_t i = 0; i < mr->m; ++i) {
        uint64_t ni;
        MimDef *input = mim_proj(w, mr->inputs, mr->m, i), *idx = mim_proj(w, input, 2, 0);
        MimDef *SIi = mim_proj(w, mr->SI, mr->m, i);
        literal(mim_proj(w, mr->NI, mr->m, i), &ni);
        MimDef **pos = mim_xcalloc(ni + 1, sizeof *pos);
        for (uint64_t j = 0; j < ni; ++j) {
            uint64_t d;
            literal(mim_proj(w, idx, ni, j), &d);
            pos[j] = index_for(w, index_entry(mr, d)->value, mim_proj(w, SIi, ni, j));
        }
        MimDef *targs[3], *rargs[3];
        targs[0] = mim_proj(w, mr->NI, mr->m, i);
        targs[1] = SIi;
        targs[2] = mim_proj(w, mr->TI, mr->m, i);
        rargs[0] = mem;
        rargs[1] = mim_proj(w, input, 2, 1);
        rargs[2] = mim_tuple(w, pos, (size_t)ni);
        MimDef *read = mim_app(w, mim_world_annex(w, MIM_matrix_read), mim_tuple(w, targs, 3));
        read = mim_app(w, read, mim_tuple(w, rargs, 3));
        free(pos);
        mem = mim_proj(w, read, 2, 0);
        elems[i] = mim_proj(w, read, 2, 1);
    }
    MimDef *cargs[3] = {mem, acc, mim_tuple(w, elems, (size_t)mr->m)};
    free(elems);
    ok = mim_lam_set(w, lam, mim_lit_bool(w, in_loop), mim_app(w, mr->comb, mim_pair(w, mim_tuple(w, cargs, 3), exit))) != NULL;
out:
    free(at);
    return ok;
}

/* (cps2ds mapRed) mem for a map_reduce call with literal n, m, NI and index
 * numbers; the call itself otherwise; NULL after an error. */
static MimDef *lower_map_reduce(MimPass *p, MimDef *call) {
    MimWorld *w = mim_pass_world(p);
    MapReduce mr = {0};
    MimDef *targs = mim_app_nth_arg(call, 0), *args = mim_app_nth_arg(call, 1), *res = call;
    mr.n_ = mim_proj(w, targs, 7, 0), mr.S = mim_proj(w, targs, 7, 1), mr.T = mim_proj(w, targs, 7, 2);
    mr.NI = mim_proj(w, targs, 7, 4), mr.TI = mim_proj(w, targs, 7, 5), mr.SI = mim_proj(w, targs, 7, 6);
    mr.mem = mim_proj(w, args, 4, 0), mr.zero = mim_proj(w, args, 4, 1);
    mr.comb = mim_proj(w, args, 4, 2), mr.inputs = mim_proj(w, args, 4, 3);
    bool err = false;
    if (!literal(mr.n_, &mr.n) || !literal(mim_proj(w, targs, 7, 3), &mr.m) ||
        !extents(w, &mr, mim_def_loc(call), p, &err)) {
        res = err ? NULL : call;
        goto out;
    }
    MimDef *M = mim_world_annex(w, MIM_mem_M);
    MimDef *nST[3] = {mr.n_, mr.S, mr.T};
    MimDef *mat_t = mim_app(w, mim_world_annex(w, MIM_matrix_Mat), mim_tuple(w, nST, 3));
    MimDef *map_red = mim_mut_lam(w, mim_cn(w, sigma2(w, M, mim_cn(w, sigma2(w, M, mat_t)))));
    if (!map_red) {
        res = NULL;
        goto out;
    }
    mim_def_set_name(map_red, mim_world_sym(w, "mapRed"));
    MimDef *init_args[4] = {mr.n_, mr.S, mr.T, mim_var_proj(w, map_red, 2, 0)};
    MimDef *init = mim_app(w, mim_world_annex(w, MIM_matrix_init), mim_tuple(w, init_args, 4));
    MimDef *mem1 = mim_proj(w, init, 2, 0);
    MimDef *out1 = mim_proj(w, init, 2, 1);
    MimDef *ret = mim_var_proj(w, map_red, 2, 1);
    if (!map_reduce_body(w, &mr, map_red, mem1, out1, ret)) {
        res = NULL;
        goto out;
    }
    MimDef *ds = cps2ds(w, map_red);
    res = ds ? mim_app(w, ds, mr.mem) : NULL;
out:
    free(mr.idx);
    return res;
}

typedef struct MediumLevel {
    MimPass base;
    MimPtrMap done; /* call ↦ replacement */
} MediumLevel;

static MimDef *medium_level_rewrite(MimPass *p, MimDef *def) {
    MediumLevel *ml = (MediumLevel *)p;
    MimDef *call = mim_match(def, MIM_matrix_map_reduce);
    if (!call) return def;
    MimDef *known = mim_ptrmap_get(&ml->done, call);
    if (known) return known;
    MimDef *res = lower_map_reduce(p, call);
    if (res) mim_ptrmap_put(&ml->done, call, res);
    return res;
}

static void medium_level_fini(MimPass *p) { mim_ptrmap_free(&((MediumLevel *)p)->done); }

static const MimPassClass medium_level_class = {
    .name = "lower_matrix_medium_level",
    .size = sizeof(MediumLevel),
    .on_lams = true,
    .rewrite = medium_level_rewrite,
    .fini = medium_level_fini,
};


/* ---- low level (§5.3) ------------------------------------------------------------------ */

/* «S#k; «S#k+1; … T»» of the (already rewritten) S. */
static MimDef *nested_array(MimWorld *w, MimDef *S, uint64_t n, uint64_t k, MimDef *T) {
    if (k == n) return T;
    MimDef *inner = nested_array(w, S, n, k + 1, T);
    return inner ? mim_arr(w, mim_proj(w, S, n, k), inner) : NULL;
}

static MimDef *nested_pack(MimWorld *w, MimDef *S, uint64_t n, uint64_t k, MimDef *v) {
    if (k == n) return v;
    MimDef *inner = nested_pack(w, S, n, k + 1, v);
    return inner ? mim_pack(w, mim_proj(w, S, n, k), inner) : NULL;
}

/* The rewritten (n, S, T) of a tensor operation, with literal n. */
static bool tensor_args(MimRewriter *rw, MimDef *nST, uint64_t *n, MimDef **S, MimDef **T) {
    MimWorld *w = mim_rewriter_world(rw);
    MimDef *x = mim_rewrite(rw, nST);
    if (!x || !literal(mim_proj(w, x, 3, 0), n)) return false;
    *S = mim_proj(w, x, 3, 1), *T = mim_proj(w, x, 3, 2);
    return *S && *T;
}

/* An annex in the new World: its copy of the old World's (the new World's
 * annex table fills in id order while the rewrite runs, so %mem's annexes
 * are not there yet when %matrix's are rewritten). */
static MimDef *annex_in(MimRewriter *rw, uint64_t id) {
    return mim_rewrite(rw, mim_world_annex(mim_rewriter_user(rw), id));
}

static MimDef *ptr_to(MimRewriter *rw, MimDef *pointee) {
    MimWorld *w = mim_rewriter_world(rw);
    MimDef *ptr = annex_in(rw, MIM_mem_Ptr);
    return mim_app(w, ptr, mim_pair(w, pointee, mim_lit_nat(w, 0)));
}

/* `%mem.alloc (A, 0) mem` */
static MimDef *alloc(MimRewriter *rw, MimDef *A, MimDef *mem) {
    MimWorld *w = mim_rewriter_world(rw);
    MimDef *alloc = annex_in(rw, MIM_mem_alloc);
    return mim_app(w, mim_app(w, alloc, mim_pair(w, A, mim_lit_nat(w, 0))), mem);
}

/* The element pointer: %mem.lea applied once per index component. */
static MimDef *element(MimRewriter *rw, MimDef *p, MimDef *S, uint64_t n, MimDef *T, MimDef *idx) {
    MimWorld *w = mim_rewriter_world(rw);
    for (uint64_t k = 0; p && k < n; ++k) {
        MimDef *extent = mim_proj(w, S, n, k), *elem = nested_array(w, S, n, k + 1, T);
        MimDef *lea_t[3];
        lea_t[0] = extent;
        lea_t[1] = mim_pack(w, extent, elem);
        lea_t[2] = mim_lit_nat(w, 0);
        MimDef *lea = annex_in(rw, MIM_mem_lea);
        lea = mim_app(w, lea, mim_tuple(w, lea_t, 3));
        p = mim_app(w, lea, mim_pair(w, p, n == 1 ? idx : mim_proj(w, idx, n, k)));
    }
    return p;
}

static MimDef *typed_op(MimRewriter *rw, uint64_t id, MimDef *T, MimDef *args) {
    MimWorld *w = mim_rewriter_world(rw);
    MimDef *Ta = mim_pair(w, T, mim_lit_nat(w, 0));
    return mim_app(w, mim_app(w, annex_in(rw, id), Ta), args);
}

static MimDef *low_level_hook(MimRewriter *rw, MimDef *old) {
    MimWorld *w = mim_rewriter_world(rw), *src = mim_rewriter_user(rw);
    uint64_t n;
    MimDef *S, *T, *call;
    /* A map_reduce the medium level left (a count or index number that is
     * not a literal) yields a tensor this phase would make a pointer in its
     * users but not in its own result type: an error here, instead of an
     * ill-typed program. With a non-literal rank nothing is converted. */
    if ((call = mim_match(old, MIM_matrix_map_reduce)) && literal(mim_proj(src, mim_app_nth_arg(call, 0), 7, 0), &n)) {
        mim_diag_report(mim_world_diag(w), MIM_ERROR, mim_def_loc(call),
                        "%%matrix.map_reduce with a count, input rank or index number that is not a literal "
                        "cannot be lowered");
        return NULL;
    }
    if ((call = mim_match(old, MIM_matrix_Mat)) && tensor_args(rw, mim_app_nth_arg(call, 0), &n, &S, &T))
        return ptr_to(rw, nested_array(w, S, n, 0, T));
    if ((call = mim_match(old, MIM_matrix_init))) {
        MimDef *args = mim_rewrite(rw, mim_app_nth_arg(call, 0));
        if (args && literal(mim_proj(w, args, 4, 0), &n)) {
            MimDef *S4 = mim_proj(w, args, 4, 1);
            MimDef *A = nested_array(w, S4, n, 0, mim_proj(w, args, 4, 2));
            return alloc(rw, A, mim_proj(w, args, 4, 3));
        }
    }
    if ((call = mim_match(old, MIM_matrix_read)) && tensor_args(rw, mim_app_nth_arg(call, 0), &n, &S, &T)) {
        MimDef *args = mim_rewrite(rw, mim_app_nth_arg(call, 1));
        MimDef *p = args ? mim_proj(w, args, 3, 1) : NULL;
        MimDef *q = p ? element(rw, p, S, n, T, mim_proj(w, args, 3, 2)) : NULL;
        return q ? typed_op(rw, MIM_mem_load, T, mim_pair(w, mim_proj(w, args, 3, 0), q)) : NULL;
    }
    if ((call = mim_match(old, MIM_matrix_insert)) && tensor_args(rw, mim_app_nth_arg(call, 0), &n, &S, &T)) {
        MimDef *args = mim_rewrite(rw, mim_app_nth_arg(call, 1));
        MimDef *p = args ? mim_proj(w, args, 4, 1) : NULL;
        MimDef *q = p ? element(rw, p, S, n, T, mim_proj(w, args, 4, 2)) : NULL;
        if (!q) return NULL;
        MimDef *st[3];
        st[0] = mim_proj(w, args, 4, 0);
        st[1] = q;
        st[2] = mim_proj(w, args, 4, 3);
        return mim_pair(w, typed_op(rw, MIM_mem_store, T, mim_tuple(w, st, 3)), p);
    }
    if ((call = mim_match(old, MIM_matrix_constMat)) && tensor_args(rw, mim_app_nth_arg(call, 0), &n, &S, &T)) {
        MimDef *args = mim_rewrite(rw, mim_app_nth_arg(call, 1));
        if (!args) return NULL;
        MimDef *A = nested_array(w, S, n, 0, T);
        MimDef *made = alloc(rw, A, mim_proj(w, args, 2, 0));
        MimDef *p = mim_proj(w, made, 2, 1);
        MimDef *st[3];
        st[0] = mim_proj(w, made, 2, 0);
        st[1] = p;
        st[2] = nested_pack(w, S, n, 0, mim_proj(w, args, 2, 1));
        return mim_pair(w, typed_op(rw, MIM_mem_store, A, mim_tuple(w, st, 3)), p);
    }
    return mim_rewrite_default(rw, old);
}

static bool low_level_run(MimPhase *ph, MimWorld **w) {
    (void)ph;
    MimWorld *next = mim_world_rewrite(*w, low_level_hook, *w);
    if (!next) return false;
    *w = next;
    return true;
}

static const MimPhaseClass low_level_class = {
    .name = "lower_matrix_low_level",
    .size = sizeof(MimPhase),
    .dirty = true,
    .run = low_level_run,
};

static bool handle_low_level(MimPipeline *pb, MimDef *app) {
    (void)app;
    return mim_pipeline_add_phase(pb, &low_level_class) != NULL;
}

/* ---- internal_map_reduce_cleanup (§5) ------------------------------------------------ */

static void map_reduce_cleanup_enter(MimPass *p, MimDef *lam) {
    if (mim_is_prefixed_external(lam, "internal_mapRed_")) mim_make_internal(mim_pass_world(p), lam);
}

static const MimPassClass map_reduce_cleanup_class = {
    .name = "internal_map_reduce_cleanup",
    .size = sizeof(MimPass),
    .on_lams = true,
    .enter = map_reduce_cleanup_enter,
};

static bool handle_high_level(MimPipeline *pb, MimDef *app) {
    return mim_pipeline_add_pass(pb, app, &high_level_class, NULL) != NULL;
}

static bool handle_medium_level(MimPipeline *pb, MimDef *app) {
    return mim_pipeline_add_pass(pb, app, &medium_level_class, NULL) != NULL;
}

static bool handle_cleanup(MimPipeline *pb, MimDef *app) {
    return mim_pipeline_add_pass(pb, app, &map_reduce_cleanup_class, NULL) != NULL;
}

static const MimNormalizerReg normalizers[] = {MIM_matrix_NORMALIZERS};
static const MimPassReg passes[] = {
    {MIM_matrix_lower_matrix_high_level_map_reduce, handle_high_level},
    {MIM_matrix_lower_matrix_medium_level, handle_medium_level},
    {MIM_matrix_internal_map_reduce_cleanup, handle_cleanup},
    {MIM_matrix_lower_matrix_low_level, handle_low_level},
};
MIM_PLUGIN_DEFINE("matrix", MIM_PLUGIN_TABLE(normalizers), MIM_PLUGIN_TABLE(passes), MIM_PLUGIN_NO_TABLE);
