/* Compiled by header.test against the generated header of Inputs/ex.mim:
 * the ids of semantics.md §12.2 as compile-time facts. */
#include "mim/plugin/ex.h"

_Static_assert(MIM_ex_ID == 0x1990000000000000ull, "plugin id of ex");
_Static_assert(MIM_ex_T == (MIM_ex_ID | 0u << 8), "tag 0");
_Static_assert(MIM_ex_op_add == (MIM_ex_ID | 1u << 8 | 0), "tag 1 sub 0");
_Static_assert(MIM_ex_op_sub == (MIM_ex_ID | 1u << 8 | 1), "tag 1 sub 1");
_Static_assert(MIM_ex_op_minus == MIM_ex_op_sub, "alias");
_Static_assert(MIM_ex_k == (MIM_ex_ID | 2u << 8), "tag 2");
_Static_assert(MIM_ex_op_NUM == 2 && MIM_ex_T_NUM == 0, "sub-tag counts");
_Static_assert(MIM_ex_op_IS_FN == 1 && MIM_ex_T_IS_FN == 0 && MIM_ex_k_IS_FN == 0, "IS_FN");

static const MimNormalizerReg normalizers[] = {MIM_ex_NORMALIZERS};
_Static_assert(sizeof normalizers / sizeof *normalizers == MIM_ex_NUM_NORMALIZERS, "table size");

MimDef *normalize_op(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    (void)w, (void)type, (void)callee;
    return arg;
}

MimDef *normalize_c(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    (void)w, (void)type, (void)callee;
    return normalizers[0].fn == normalize_op ? arg : NULL;
}
