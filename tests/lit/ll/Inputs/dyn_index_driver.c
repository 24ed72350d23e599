/* Driver of tests/lit/ll/dyn-index.mim: calls every extern Mim function
 * that inserts into or extracts from an array value at run-time indices,
 * for every pair of indices, and compares with the same computation on C
 * arrays. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

typedef struct { int32_t x; double y; } XY;

int32_t ins_ext(int32_t, int32_t, int32_t, int32_t, int32_t, int32_t);
double f64_ie(double, double, int32_t, int32_t, double);
float f32_ie(float, int32_t, int32_t, float);
int16_t nested(int32_t, int32_t, int32_t, int32_t, int16_t);
uint8_t bools(bool, int32_t, int32_t);
int8_t bytes(int8_t, int32_t, int32_t);
int32_t *ptrs(int32_t *, int32_t *, int32_t, int32_t);
double structs(int32_t, double, int32_t, int32_t);
int32_t tup_arr(int32_t, int32_t, int32_t);
uint64_t tops(uint64_t, int32_t, int32_t);
uint64_t nats(uint64_t, int32_t, int32_t);
int32_t sel_agg(bool, int32_t, int32_t);
int32_t sel_ins(bool, int32_t, bool);
int32_t squares(int32_t, int32_t);
int32_t blocks(bool, int32_t, int32_t, int32_t);
int32_t big(int32_t, int32_t);
int32_t via_call(int32_t, int32_t, int32_t);
int32_t tup_loop(int32_t, int32_t);

static int checks, failures;

static void check(const char *name, int i, int j, double got, double want) {
    ++checks;
    if (got != want) {
        ++failures;
        printf("FAIL %s(i=%d, j=%d): got %g, want %g\n", name, i, j, got, want);
    }
}

int main(void) {
    int32_t cell = 0, other = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            int32_t a[3] = {11, -22, 33};
            a[i] = 44;
            check("ins_ext", i, j, ins_ext(11, -22, 33, i, j, 44), a[j]);
            float f[3] = {1.5f, 1.5f, 1.5f};
            f[i] = -2.25f;
            check("f32_ie", i, j, f32_ie(1.5f, i, j, -2.25f), f[j]);
            int32_t *p[3] = {&cell, &cell, &cell};
            p[i] = &other;
            ++checks;
            if (ptrs(&cell, &other, i, j) != p[j]) ++failures, printf("FAIL ptrs(%d, %d)\n", i, j);
            XY s[3] = {{7, 0.5}, {7, 0.5}, {7, 0.5}};
            s[i] = (XY){-3, 0.25};
            check("structs", i, j, structs(-3, 0.25, i, j), s[j].x + s[j].y);
            int32_t t[3] = {1, 2, 3};
            t[i] = 9;
            check("tup_arr", i, j, tup_arr(9, i, j), t[j] + 100);
            uint64_t n[3] = {UINT64_MAX - 1, 5, UINT64_MAX - 1};
            n[i] = UINT64_MAX;
            check("nats", i, j, (double)(nats(UINT64_MAX - 1, i, j) == n[j]), 1);
            for (int c = 0; c < 2; ++c) {
                int32_t agg[2][3] = {{-1, 1, 2}, {9, 9, 9}};
                check("sel_agg", c, j, sel_agg(c, -1, j), agg[c][j]);
                int32_t b[3] = {1, 2, 3};
                b[i] = 50;
                if (c) b[j] += 1000;
                check("blocks", i, j, blocks(c, i, j, 50), b[j]);
            }
            int32_t v[3] = {4, 5, 6};
            v[i] = -8;
            check("via_call", i, j, via_call(i, j, -8), v[j]);
        }
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            double d[4] = {0.5, -1, -1, 0.5};
            d[i] = 3.75;
            check("f64_ie", i, j, f64_ie(0.5, -1, i, j, 3.75), d[j]);
            uint64_t t[4] = {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX};
            t[i] = 0;
            check("tops", i, j, (double)(tops(UINT64_MAX, i, j) == t[j]), 1);
        }
    /* a[i][j] = -7 in a 3×4 array, then a[k][l] for every k, l */
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j)
            for (int k = 0; k < 3; ++k)
                for (int l = 0; l < 4; ++l) {
                    int16_t a[3][4] = {{1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4}};
                    a[i][j] = -7;
                    check("nested", i * 4 + j, k * 4 + l, nested(i, j, k, l, -7), a[k][l]);
                }
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j)
            for (int x = 0; x < 2; ++x) {
                bool b[5] = {0, x, 0, 1, x};
                b[i] = !x;
                check("bools", i, j, bools(x, i, j), b[j]);
            }
    for (int i = 0; i < 7; ++i)
        for (int j = 0; j < 7; ++j) check("bytes", i, j, bytes(-128, i, j), i == j ? -127 : -128);
    for (int c = 0; c < 2; ++c)
        for (int d = 0; d < 2; ++d) {
            int32_t b[2] = {10, 20};
            b[c] = 77;
            check("sel_ins", c, d, sel_ins(c, 77, d), b[d]);
        }
    for (int n = 0; n <= 8; ++n)
        for (int j = 0; j < 8; ++j) {
            int32_t a[8] = {0}, sum = 0;
            for (int k = 0; k < n; ++k) a[k] = k * k;
            for (int k = 0; k < 8; ++k) sum += a[k];
            check("squares", n, j, squares(n, j), sum * 1000 + a[j]);
        }
    for (int n = 0; n <= 100; n += 33)
        for (int j = 0; j < 100; j += 7) check("big", n, j, big(n, j), 5 + (j < n ? j : 0));
    for (int n = 0; n <= 4; ++n)
        for (int j = 0; j < 4; ++j) check("tup_loop", n, j, tup_loop(n, j), j < n ? j : 77);
    printf("dyn-index: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
