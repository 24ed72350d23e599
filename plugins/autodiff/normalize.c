/* The autodiff plugin's normalizers (plugins/autodiff.md §3–§4): tangent
 * and augmented types, and the zero/add/sum algebra of tangents. */
#include "autodiff.h"

#include <stdlib.h>

/* ---- types (§3) ------------------------------------------------------------------ */

bool autodiff_is_idx(MimWorld *w, MimDef *T) {
    return mim_def_node(T) == MIM_APP && mim_app_callee(T) == mim_idx(w);
}

/* Cn [A, Cn R] with a domain that is not dependent: A and R, or false. */
static bool cps_fn(MimWorld *w, MimDef *T, MimDef **A, MimDef **R) {
    MimDef *dom = mim_def_node(T) == MIM_PI ? mim_resolve(w, mim_pi_dom(T)) : NULL;
    return dom && !mim_def_is_mut(dom) && mim_cps_fn_parts(w, T, A, R);
}

/* Cn [AD(A), Cn [AD(R), Cn [R*, Cn A*]]] (tangent types are the types). */
static MimDef *ad_cps(MimWorld *w, MimDef *A, MimDef *R) {
    MimDef *adA = autodiff_type(w, A), *adR = autodiff_type(w, R);
    if (!adA || !adR) return NULL;
    MimDef *pb = mim_cn(w, autodiff_pair_type(w, R, mim_cn(w, A)));
    return mim_cn(w, autodiff_pair_type(w, adA, mim_cn(w, autodiff_pair_type(w, adR, pb))));
}

MimDef *autodiff_pair_type(MimWorld *w, MimDef *a, MimDef *b) {
    MimDef *ops[2] = {a, b};
    return mim_sigma(w, ops, 2);
}

MimDef *autodiff_type(MimWorld *w, MimDef *T) {
    T = mim_resolve(w, T);
    if (!T) return NULL;
    MimDef *A, *R;
    if (T == mim_nat(w) || autodiff_is_idx(w, T) || mim_match(T, MIM_mem_M) || mim_match(T, MIM_math_F)) return T;
    switch (mim_def_node(T)) {
    case MIM_ARR: {
        if (mim_def_is_mut(T)) return NULL;
        MimDef *B = autodiff_type(w, mim_def_op(T, 1));
        return B ? mim_arr(w, mim_def_op(T, 0), B) : NULL;
    }
    case MIM_SIGMA: {
        if (mim_def_is_mut(T)) return NULL;
        size_t n = mim_def_num_ops(T);
        MimDef **ops = mim_xmalloc(n * sizeof *ops);
        bool ok = true;
        for (size_t i = 0; ok && i < n; ++i) ok = (ops[i] = autodiff_type(w, mim_def_op(T, i))) != NULL;
        MimDef *res = ok ? mim_sigma(w, ops, n) : NULL;
        free(ops);
        return res;
    }
    case MIM_PI: {
        if (cps_fn(w, T, &A, &R)) return ad_cps(w, A, R);
        if (mim_pi_is_cn(T) || mim_def_is_mut(T)) return NULL;
        MimDef *B = mim_resolve(w, mim_pi_codom(T));
        if (B && mim_def_node(B) == MIM_PI) {
            MimDef *adA = autodiff_type(w, mim_pi_dom(T)), *adB = autodiff_type(w, B);
            return adA && adB ? mim_pi(w, adA, adB, false) : NULL;
        }
        return ad_cps(w, mim_pi_dom(T), B);
    }
    default: return NULL;
    }
}

/* ---- normalizers (§4) ------------------------------------------------------------- */

MimDef *normalize_Tangent(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    (void)w, (void)type, (void)callee;
    return arg;
}

MimDef *normalize_AD(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    MimDef *res = autodiff_type(w, arg);
    if (res) return res;
    if (mim_world_logs(w, 1)) {
        char *s = mim_def_to_str(w, arg);
        mim_world_log(w, 1, mim_world_loc(w), "no-diff type: %s", s);
        free(s);
    }
    return mim_raw_app(w, type, callee, arg);
}

MimDef *normalize_ad(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    return mim_raw_app(w, type, callee, arg);
}

MimDef *normalize_zero(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    return mim_raw_app(w, type, callee, arg);
}

MimDef *autodiff_add(MimWorld *w, MimDef *T, MimDef *a, MimDef *b) {
    MimDef *add = mim_app(w, mim_world_annex(w, MIM_autodiff_add), T);
    return mim_app(w, add, mim_pair(w, a, b));
}

MimDef *normalize_add(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    MimDef *T = mim_resolve(w, mim_app_nth_arg(callee, 0));
    MimDef *a = mim_proj(w, arg, 2, 0), *b = mim_proj(w, arg, 2, 1);
    if (!T || !a || !b) return NULL;
    if (mim_match(a, MIM_autodiff_zero)) return b;
    if (mim_match(b, MIM_autodiff_zero)) return a;
    if (mim_def_node(T) == MIM_SIGMA && !mim_def_is_mut(T)) {
        size_t n = mim_def_num_ops(T);
        MimDef **ops = mim_xmalloc(n * sizeof *ops);
        bool ok = true;
        for (size_t i = 0; ok && i < n; ++i) {
            MimDef *ai = mim_proj(w, a, n, i);
            MimDef *bi = mim_proj(w, b, n, i);
            ok = (ops[i] = autodiff_add(w, mim_def_op(T, i), ai, bi)) != NULL;
        }
        MimDef *res = ok ? mim_tuple(w, ops, n) : NULL;
        free(ops);
        return res;
    }
    if (mim_def_node(T) == MIM_ARR && !mim_def_is_mut(T)) {
        /* ‹i: s; %autodiff.add B (a#i, b#i)› */
        MimDef *pack = mim_mut_pack(w, T);
        MimDef *i = pack ? mim_var(w, pack) : NULL;
        MimDef *ai = i ? mim_extract(w, a, i) : NULL;
        MimDef *bi = i ? mim_extract(w, b, i) : NULL;
        MimDef *sum = i ? autodiff_add(w, mim_def_op(T, 1), ai, bi) : NULL;
        return sum ? mim_immutabilize(w, mim_mut_set(w, pack, 0, sum)) : NULL;
    }
    if (autodiff_is_idx(w, mim_resolve(w, type))) {
        MimDef *wrap = mim_app(w, mim_world_annex(w, MIM_core_wrap_add), mim_app_arg(type));
        wrap = mim_app(w, wrap, mim_lit_nat(w, 0));
        return mim_app(w, wrap, arg);
    }
    if (mim_match(T, MIM_math_F)) {
        /* floats (an extension): %math.arith.add 0 (a, b) */
        MimDef *fadd = mim_app(w, mim_world_annex(w, MIM_math_arith_add), mim_app_arg(T));
        fadd = mim_app(w, fadd, mim_lit_nat(w, 0));
        return mim_app(w, fadd, arg);
    }
    /* other types: unsupported, an assertion in the reference */
    return mim_raw_app(w, type, callee, arg);
}

MimDef *normalize_sum(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    MimDef *nT = mim_app_nth_arg(callee, 0);
    MimDef *T = mim_proj(w, nT, 2, 1);
    uint64_t n;
    if (!T || !mim_def_lit(mim_proj(w, nT, 2, 0), &n)) return mim_raw_app(w, type, callee, arg);
    if (n == 0) return mim_app(w, mim_world_annex(w, MIM_autodiff_zero), T);
    MimDef *acc = mim_proj(w, arg, n, 0);
    for (uint64_t i = 1; acc && i < n; ++i) acc = autodiff_add(w, T, acc, mim_proj(w, arg, n, i));
    return acc;
}
