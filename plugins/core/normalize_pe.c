/* Normalizers of the partial-evaluation markers %core.pe.hlt/run/known and
 * of the element-wise tensor map %core.zip (plugins/core.md §5.15, §5.16). */
#include "core_util.h"

#include <stdlib.h>

enum { PE_HLT, PE_RUN, PE_KNOWN };

/* Bound on the extent zip unrolls into a tuple (a literal shape of 10^9
 * would otherwise build 10^9 nodes); larger extents stay unevaluated. */
#define ZIP_MAX_EXTENT 4096

MimDef *normalize_pe(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    if (mim_callee_sub(callee) == PE_KNOWN) {
        if (mim_match(arg, MIM_core_pe_hlt)) return mim_lit_bool(w, false);
        /* a closed expression: no variable, mutable or unsolved hole below */
        if (!(mim_def_dep(arg) & (MIM_DEP_VAR | MIM_DEP_MUT | MIM_DEP_INFER))) return mim_lit_bool(w, true);
    }
    return mim_raw_app(w, type, callee, arg);
}

typedef struct Zip {
    MimDef *r_s, *fn_args; /* the two curried argument groups */
    MimDef *f;
    uint64_t r, n_i;
} Zip;

/* Element j of every input, as the argument of f or of the inner zip. */
static MimDef *inner_arg(MimWorld *w, const Zip *z, MimDef *is, uint64_t m, uint64_t j) {
    MimDef *ops[8]; /* n_i ≤ 8, checked by the caller */
    for (uint64_t k = 0; k < z->n_i; ++k) {
        ops[k] = mim_proj(w, mim_proj(w, is, z->n_i, k), m, j);
        if (!ops[k]) return NULL;
    }
    return mim_tuple(w, ops, (size_t)z->n_i);
}

static bool all_inputs_tuples(MimWorld *w, const Zip *z, MimDef *is) {
    for (uint64_t k = 0; k < z->n_i; ++k) {
        MimDef *in = mim_resolve(w, mim_proj(w, is, z->n_i, k));
        if (!in || (mim_def_node(in) != MIM_TUPLE && mim_def_node(in) != MIM_PACK)) return false;
    }
    return true;
}

/* The zip of rank r − 1 over the remaining extents shapes#1… applied to the
 * inner argument. */
static MimDef *inner_zip(MimWorld *w, const Zip *z, MimDef *s, MimDef *arg) {
    MimDef *rest[8];
    for (uint64_t i = 1; i < z->r; ++i) rest[i - 1] = mim_proj(w, s, z->r, i);
    MimDef *shape = mim_tuple(w, rest, (size_t)(z->r - 1));
    MimDef *rs[2] = {mim_lit_nat(w, z->r - 1), shape};
    MimDef *args[3] = {shape ? mim_tuple(w, rs, 2) : NULL, z->fn_args, arg};
    return args[0] ? core_call(w, MIM_core_zip, args, 3) : NULL;
}

MimDef *normalize_zip(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    Zip z = {core_callee_arg(callee, 0), core_callee_arg(callee, 1), NULL, 0, 0};
    MimDef *r = core_op(w, z.r_s, 0), *s = core_op(w, z.r_s, 1);
    z.f = mim_proj(w, z.fn_args, 5, 4);
    if (!r || !s || !z.f) return NULL;
    uint64_t ls, m;
    bool has_r = core_lit(r, &z.r);
    if (has_r && z.r == 1 && core_lit(s, &ls) && ls == 1) return mim_app(w, z.f, arg);
    /* n_i ≤ 8 and r ≤ 9 keep the operand arrays on the stack */
    if (has_r && z.r >= 1 && z.r <= 9 && core_lit(mim_proj(w, z.fn_args, 5, 0), &z.n_i) && z.n_i <= 8 &&
        all_inputs_tuples(w, &z, arg) && core_lit(mim_proj(w, s, z.r, 0), &m) && m <= ZIP_MAX_EXTENT) {
        MimDef **elems = m ? (MimDef **)calloc((size_t)m, sizeof *elems) : NULL;
        bool ok = m == 0 || elems;
        for (uint64_t j = 0; ok && j < m; ++j) {
            MimDef *in = inner_arg(w, &z, arg, m, j);
            elems[j] = !in ? NULL : z.r == 1 ? mim_app(w, z.f, in) : inner_zip(w, &z, s, in);
            ok = elems[j] != NULL;
        }
        MimDef *res = ok ? mim_tuple(w, elems, (size_t)m) : NULL;
        free(elems);
        return res;
    }
    return mim_raw_app(w, type, callee, arg);
}
