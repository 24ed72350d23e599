/* Driver of tests/lit/ll/idx-modulo.mim: each Idx n operation (n no power of
 * two) on run-time operands against its folded version (literal operands). */
#include <stdint.h>
#include <stdio.h>

uint8_t run_add_200(uint8_t, uint8_t);
uint8_t fold_add_200_0(uint8_t);
uint8_t fold_add_200_1(uint8_t);
uint8_t fold_add_200_2(uint8_t);
uint8_t fold_add_200_3(uint8_t);
uint8_t fold_add_200_4(uint8_t);
uint8_t run_sub_200(uint8_t, uint8_t);
uint8_t fold_sub_200_0(uint8_t);
uint8_t fold_sub_200_1(uint8_t);
uint8_t fold_sub_200_2(uint8_t);
uint8_t fold_sub_200_3(uint8_t);
uint8_t fold_sub_200_4(uint8_t);
uint8_t run_mul_200(uint8_t, uint8_t);
uint8_t fold_mul_200_0(uint8_t);
uint8_t fold_mul_200_1(uint8_t);
uint8_t fold_mul_200_2(uint8_t);
uint8_t fold_mul_200_3(uint8_t);
uint8_t fold_mul_200_4(uint8_t);
uint8_t run_shl_200(uint8_t, uint8_t);
uint8_t fold_shl_200_1(uint8_t);
uint8_t fold_shl_200_3(uint8_t);
uint8_t fold_shl_200_4(uint8_t);
uint8_t run_add_10(uint8_t, uint8_t);
uint8_t fold_add_10_0(uint8_t);
uint8_t fold_add_10_1(uint8_t);
uint8_t fold_add_10_2(uint8_t);
uint8_t fold_add_10_3(uint8_t);
uint8_t run_sub_10(uint8_t, uint8_t);
uint8_t fold_sub_10_0(uint8_t);
uint8_t fold_sub_10_1(uint8_t);
uint8_t fold_sub_10_2(uint8_t);
uint8_t fold_sub_10_3(uint8_t);
uint8_t run_mul_10(uint8_t, uint8_t);
uint8_t fold_mul_10_0(uint8_t);
uint8_t fold_mul_10_1(uint8_t);
uint8_t fold_mul_10_2(uint8_t);
uint8_t fold_mul_10_3(uint8_t);
uint8_t run_shl_10(uint8_t, uint8_t);
uint8_t fold_shl_10_0(uint8_t);
uint8_t fold_shl_10_1(uint8_t);
uint8_t fold_shl_10_2(uint8_t);
uint8_t fold_shl_10_3(uint8_t);
uint8_t run_add_5(uint8_t, uint8_t);
uint8_t fold_add_5_0(uint8_t);
uint8_t fold_add_5_1(uint8_t);
uint8_t fold_add_5_2(uint8_t);
uint8_t run_sub_5(uint8_t, uint8_t);
uint8_t fold_sub_5_0(uint8_t);
uint8_t fold_sub_5_1(uint8_t);
uint8_t fold_sub_5_2(uint8_t);
uint8_t run_mul_5(uint8_t, uint8_t);
uint8_t fold_mul_5_0(uint8_t);
uint8_t fold_mul_5_1(uint8_t);
uint8_t fold_mul_5_2(uint8_t);
uint8_t run_shl_5(uint8_t, uint8_t);
uint8_t fold_shl_5_0(uint8_t);
uint8_t fold_shl_5_1(uint8_t);
uint8_t fold_shl_5_2(uint8_t);
uint8_t run_add_256(uint8_t, uint8_t);
uint8_t run_conv_u_200_i8(uint8_t, uint8_t);
uint8_t fold_conv_u_200_i8_0(uint8_t);
uint8_t fold_conv_u_200_i8_1(uint8_t);
uint8_t fold_conv_u_200_i8_2(uint8_t);
uint8_t run_conv_u_10_i8(uint8_t, uint8_t);
uint8_t fold_conv_u_10_i8_0(uint8_t);
uint8_t fold_conv_u_10_i8_1(uint8_t);
uint8_t fold_conv_u_10_i8_2(uint8_t);
uint8_t run_conv_s_200_bool(uint8_t, uint8_t);
uint8_t fold_conv_s_200_bool_0(uint8_t);
uint8_t fold_conv_s_200_bool_1(uint8_t);
uint8_t run_conv_s_200_i8(uint8_t, uint8_t);
uint8_t fold_conv_s_200_i8_0(uint8_t);
uint8_t fold_conv_s_200_i8_1(uint8_t);
uint8_t fold_conv_s_200_i8_2(uint8_t);
uint8_t run_conv_u_200_i32(uint32_t), fold_conv_u_200_i32_0(uint8_t), fold_conv_u_200_i32_1(uint8_t),
    fold_conv_u_200_i32_2(uint8_t);

typedef struct Case {
    const char *name;
    uint8_t (*run)(uint8_t, uint8_t);
    unsigned a;
    int b; /* -1: unary */
    uint8_t (*fold)(uint8_t);
} Case;

static const Case cases[] = {
    {"add_200", run_add_200, 150, 100, fold_add_200_0},
    {"add_200", run_add_200, 0, 1, fold_add_200_1},
    {"add_200", run_add_200, 199, 199, fold_add_200_2},
    {"add_200", run_add_200, 7, 3, fold_add_200_3},
    {"add_200", run_add_200, 100, 2, fold_add_200_4},
    {"sub_200", run_sub_200, 150, 100, fold_sub_200_0},
    {"sub_200", run_sub_200, 0, 1, fold_sub_200_1},
    {"sub_200", run_sub_200, 199, 199, fold_sub_200_2},
    {"sub_200", run_sub_200, 7, 3, fold_sub_200_3},
    {"sub_200", run_sub_200, 100, 2, fold_sub_200_4},
    {"mul_200", run_mul_200, 150, 100, fold_mul_200_0},
    {"mul_200", run_mul_200, 0, 1, fold_mul_200_1},
    {"mul_200", run_mul_200, 199, 199, fold_mul_200_2},
    {"mul_200", run_mul_200, 7, 3, fold_mul_200_3},
    {"mul_200", run_mul_200, 100, 2, fold_mul_200_4},
    {"shl_200", run_shl_200, 0, 1, fold_shl_200_1},
    {"shl_200", run_shl_200, 7, 3, fold_shl_200_3},
    {"shl_200", run_shl_200, 100, 2, fold_shl_200_4},
    {"add_10", run_add_10, 9, 9, fold_add_10_0},
    {"add_10", run_add_10, 3, 5, fold_add_10_1},
    {"add_10", run_add_10, 7, 8, fold_add_10_2},
    {"add_10", run_add_10, 0, 1, fold_add_10_3},
    {"sub_10", run_sub_10, 9, 9, fold_sub_10_0},
    {"sub_10", run_sub_10, 3, 5, fold_sub_10_1},
    {"sub_10", run_sub_10, 7, 8, fold_sub_10_2},
    {"sub_10", run_sub_10, 0, 1, fold_sub_10_3},
    {"mul_10", run_mul_10, 9, 9, fold_mul_10_0},
    {"mul_10", run_mul_10, 3, 5, fold_mul_10_1},
    {"mul_10", run_mul_10, 7, 8, fold_mul_10_2},
    {"mul_10", run_mul_10, 0, 1, fold_mul_10_3},
    {"shl_10", run_shl_10, 9, 9, fold_shl_10_0},
    {"shl_10", run_shl_10, 3, 5, fold_shl_10_1},
    {"shl_10", run_shl_10, 7, 8, fold_shl_10_2},
    {"shl_10", run_shl_10, 0, 1, fold_shl_10_3},
    {"add_5", run_add_5, 4, 4, fold_add_5_0},
    {"add_5", run_add_5, 1, 3, fold_add_5_1},
    {"add_5", run_add_5, 3, 2, fold_add_5_2},
    {"sub_5", run_sub_5, 4, 4, fold_sub_5_0},
    {"sub_5", run_sub_5, 1, 3, fold_sub_5_1},
    {"sub_5", run_sub_5, 3, 2, fold_sub_5_2},
    {"mul_5", run_mul_5, 4, 4, fold_mul_5_0},
    {"mul_5", run_mul_5, 1, 3, fold_mul_5_1},
    {"mul_5", run_mul_5, 3, 2, fold_mul_5_2},
    {"shl_5", run_shl_5, 4, 4, fold_shl_5_0},
    {"shl_5", run_shl_5, 1, 3, fold_shl_5_1},
    {"shl_5", run_shl_5, 3, 2, fold_shl_5_2},
    {"conv_u_200_i8", run_conv_u_200_i8, 250, -1, fold_conv_u_200_i8_0},
    {"conv_u_200_i8", run_conv_u_200_i8, 199, -1, fold_conv_u_200_i8_1},
    {"conv_u_200_i8", run_conv_u_200_i8, 0, -1, fold_conv_u_200_i8_2},
    {"conv_u_10_i8", run_conv_u_10_i8, 250, -1, fold_conv_u_10_i8_0},
    {"conv_u_10_i8", run_conv_u_10_i8, 9, -1, fold_conv_u_10_i8_1},
    {"conv_u_10_i8", run_conv_u_10_i8, 16, -1, fold_conv_u_10_i8_2},
    {"conv_s_200_bool", run_conv_s_200_bool, 0, -1, fold_conv_s_200_bool_0},
    {"conv_s_200_bool", run_conv_s_200_bool, 1, -1, fold_conv_s_200_bool_1},
    {"conv_s_200_i8", run_conv_s_200_i8, 255, -1, fold_conv_s_200_i8_0},
    {"conv_s_200_i8", run_conv_s_200_i8, 128, -1, fold_conv_s_200_i8_1},
    {"conv_s_200_i8", run_conv_s_200_i8, 5, -1, fold_conv_s_200_i8_2}
};

static int checks, failures;

static void check(const char *name, unsigned a, int b, unsigned run, unsigned folded) {
    ++checks;
    if (b < 0) printf("%s %u = %u\n", name, a, run);
    else printf("%s %u %d = %u\n", name, a, b, run);
    if (run != folded) {
        ++failures;
        printf("FAIL %s %u %d: run-time %u, folded %u\n", name, a, b, run, folded);
    }
}

int main(void) {
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        const Case *k = &cases[i];
        check(k->name, k->a, k->b, k->run((uint8_t)k->a, (uint8_t)(k->b < 0 ? 0 : k->b)), k->fold(0));
    }
    check("conv_u_200_i32", 300, -1, run_conv_u_200_i32(300), fold_conv_u_200_i32_0(0));
    check("conv_u_200_i32", 70000, -1, run_conv_u_200_i32(70000), fold_conv_u_200_i32_1(0));
    check("conv_u_200_i32", 199, -1, run_conv_u_200_i32(199), fold_conv_u_200_i32_2(0));
    check("add_256", 200, 100, run_add_256(200, 100), 44);
    printf("idx-modulo: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
