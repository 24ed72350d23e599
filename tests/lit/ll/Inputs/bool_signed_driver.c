/* Driver of tests/lit/ll/bool-signed.mim: every signed Bool operation on
 * run-time operands against its folded version (literal operands). */
#include <stdint.h>
#include <stdio.h>

uint8_t run_smin(uint8_t, uint8_t), fold_smin_00(uint8_t), fold_smin_01(uint8_t), fold_smin_10(uint8_t), fold_smin_11(uint8_t);
uint8_t run_smax(uint8_t, uint8_t), fold_smax_00(uint8_t), fold_smax_01(uint8_t), fold_smax_10(uint8_t), fold_smax_11(uint8_t);
uint8_t run_sl(uint8_t, uint8_t), fold_sl_00(uint8_t), fold_sl_01(uint8_t), fold_sl_10(uint8_t), fold_sl_11(uint8_t);
uint8_t run_sle(uint8_t, uint8_t), fold_sle_00(uint8_t), fold_sle_01(uint8_t), fold_sle_10(uint8_t), fold_sle_11(uint8_t);
uint8_t run_sg(uint8_t, uint8_t), fold_sg_00(uint8_t), fold_sg_01(uint8_t), fold_sg_10(uint8_t), fold_sg_11(uint8_t);
uint8_t run_sge(uint8_t, uint8_t), fold_sge_00(uint8_t), fold_sge_01(uint8_t), fold_sge_10(uint8_t), fold_sge_11(uint8_t);
uint8_t run_convs(uint8_t), fold_convs_0(uint8_t), fold_convs_1(uint8_t);

static int checks, failures;

static void check(const char *op, unsigned a, int b, unsigned run, unsigned folded) {
    ++checks;
    if (b < 0) printf("%s %u = %u\n", op, a, run);
    else printf("%s %u %d = %u\n", op, a, b, run);
    if (run != folded) {
        ++failures;
        printf("FAIL %s %u %d: run-time %u, folded %u\n", op, a, b, run, folded);
    }
}

int main(void) {
    {
        uint8_t (*const f[4])(uint8_t) = {fold_smin_00, fold_smin_01, fold_smin_10, fold_smin_11};
        for (unsigned i = 0; i < 4; ++i) check("smin", i >> 1, (int)(i & 1), run_smin((uint8_t)(i >> 1), (uint8_t)(i & 1)), f[i](0));
    }
    {
        uint8_t (*const f[4])(uint8_t) = {fold_smax_00, fold_smax_01, fold_smax_10, fold_smax_11};
        for (unsigned i = 0; i < 4; ++i) check("smax", i >> 1, (int)(i & 1), run_smax((uint8_t)(i >> 1), (uint8_t)(i & 1)), f[i](0));
    }
    {
        uint8_t (*const f[4])(uint8_t) = {fold_sl_00, fold_sl_01, fold_sl_10, fold_sl_11};
        for (unsigned i = 0; i < 4; ++i) check("sl", i >> 1, (int)(i & 1), run_sl((uint8_t)(i >> 1), (uint8_t)(i & 1)), f[i](0));
    }
    {
        uint8_t (*const f[4])(uint8_t) = {fold_sle_00, fold_sle_01, fold_sle_10, fold_sle_11};
        for (unsigned i = 0; i < 4; ++i) check("sle", i >> 1, (int)(i & 1), run_sle((uint8_t)(i >> 1), (uint8_t)(i & 1)), f[i](0));
    }
    {
        uint8_t (*const f[4])(uint8_t) = {fold_sg_00, fold_sg_01, fold_sg_10, fold_sg_11};
        for (unsigned i = 0; i < 4; ++i) check("sg", i >> 1, (int)(i & 1), run_sg((uint8_t)(i >> 1), (uint8_t)(i & 1)), f[i](0));
    }
    {
        uint8_t (*const f[4])(uint8_t) = {fold_sge_00, fold_sge_01, fold_sge_10, fold_sge_11};
        for (unsigned i = 0; i < 4; ++i) check("sge", i >> 1, (int)(i & 1), run_sge((uint8_t)(i >> 1), (uint8_t)(i & 1)), f[i](0));
    }
    check("convs", 0, -1, run_convs(0), fold_convs_0(0));
    check("convs", 1, -1, run_convs(1), fold_convs_1(0));
    printf("bool-signed: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
