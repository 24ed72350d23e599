/* Driver of tests/lit/ll/values.mim: checks each extern Mim function that
 * builds a constant, a bit cast, a ⊥ value or a run-time-indexed constant
 * against the value C computes. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int32_t zero_sigma(int32_t), bot_i(void);
double zero_f64(void);
uint64_t zero_arr(int32_t), max_nat(void), iota(int32_t), dbl(uint64_t);
uint8_t max_i8(void);
int32_t f2i(float);
float f32_snan(void), f32_nnan(void), f32_negzero(void), f32_inf(void), f32_denorm(void);
double i2d(uint64_t);
uint64_t p2i(int32_t *);
char *i2p(uint64_t);
double sel_f(bool, double, double);
int32_t call_sel(bool, int32_t), call_dyn(int32_t, int32_t);

static int checks, failures;

static uint64_t bits32(float f) {
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static void check(const char *name, int arg, uint64_t got, uint64_t want) {
    ++checks;
    if (got != want) {
        ++failures;
        printf("FAIL %s(%d): got %" PRIu64 ", want %" PRIu64 "\n", name, arg, got, want);
    }
}

int main(void) {
    check("zero_sigma", 5, (uint64_t)zero_sigma(5), 5);
    check("zero_f64", 0, zero_f64() == 0.0, 1);
    for (int i = 0; i < 3; ++i) check("zero_arr", i, zero_arr(i), 0);
    (void)bot_i(); /* undef: any value */
    check("max_nat", 0, max_nat(), UINT64_MAX);
    check("max_i8", 0, max_i8(), 255);
    float f = -1.5f;
    int32_t fbits;
    memcpy(&fbits, &f, sizeof fbits);
    check("f2i", 0, (uint64_t)f2i(f), (uint64_t)fbits);
    double d = 0.1;
    uint64_t dbits;
    memcpy(&dbits, &d, sizeof dbits);
    check("i2d", 0, i2d(dbits) == d, 1);
    int32_t cell;
    check("p2i", 0, p2i(&cell), (uint64_t)(uintptr_t)&cell);
    check("i2p", 0, (uint64_t)(uintptr_t)i2p((uint64_t)(uintptr_t)&cell), (uint64_t)(uintptr_t)&cell);
    check("sel_f", 0, sel_f(false, 1.25, 2.5) == 1.25, 1);
    check("sel_f", 1, sel_f(true, 1.25, 2.5) == 2.5, 1);
    for (int i = 0; i < 4; ++i) check("iota", i, iota(i), (uint64_t)i);
    check("dbl", 21, dbl(21), 42);
    check("f32_snan", 0, bits32(f32_snan()), 0x7f800001u);
    check("f32_nnan", 0, bits32(f32_nnan()), 0xffc00811u);
    check("f32_negzero", 0, bits32(f32_negzero()), 0x80000000u);
    check("f32_inf", 0, bits32(f32_inf()), 0x7f800000u);
    check("f32_denorm", 0, bits32(f32_denorm()), 1);
    check("call_sel", 0, (uint64_t)call_sel(false, 7), 21);
    check("call_sel", 1, (uint64_t)call_sel(true, 7), 10);
    for (int i = 0; i < 3; ++i) check("call_dyn", i, (uint64_t)call_dyn(i, 7), i == 1 ? 10 : 21);
    printf("values: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
