/* Driver of tests/lit/ll/idx-top.mim: calls every extern Mim function on
 * `Idx ⊤:Nat` (i64) and `Nat` values with edge values and compares with C's
 * uint64_t arithmetic; prints the length of each command-line argument
 * computed by the Mim loop over string positions. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef uint64_t U;
typedef int64_t S;

U add_p(U, U), sub_p(U, U), mul_p(U, U), shl_p(U, U), add_nuw_p(U, U), shrl_p(U, U), shra_p(U, U);
U and_p(U, U), or_p(U, U), xor_p(U, U), neg_p(U), umax_p(U, U), smin_p(U, U);
U udiv_p(U, U), urem_p(U, U), sdiv_p(U, U);
uint8_t e_p(U, U), ul_p(U, U), uge_p(U, U), sl_p(U, U);
U zero_p(void), inc_p(U), from_i8(uint8_t), from_i32s(int32_t), from_i64(U);
uint32_t to_i32(U);
int8_t to_i8s(U);
U to_i64(U), to_nat(U), from_nat(U), idx_p(U);
uint8_t idx_8(U);
U nat_add(U, U), nat_sub(U, U), nat_mul(U, U);
uint8_t nat_l(U, U), nat_ge(U, U), nat_ne(U, U);
U str_len(const char *);
int32_t bump(int32_t *, U, int32_t);

static int checks, failures;

static void check(const char *name, U a, U b, U got, U want) {
    ++checks;
    if (got != want) {
        ++failures;
        printf("FAIL %s(%" PRIu64 ", %" PRIu64 "): got %" PRIu64 ", want %" PRIu64 "\n", name, a, b, got, want);
    }
}

#define C2(name, expr) check(#name, a, b, (U)name(a, b), (U)(expr))
#define C1(name, expr) check(#name, a, 0, (U)name(a), (U)(expr))

int main(int argc, char **argv) {
    static const U vals[] = {0, 1, 2, 3, 7, 100, 255, 256, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000,
                             (U)INT64_MAX, (U)INT64_MIN, UINT64_MAX - 1, UINT64_MAX};
    size_t n = sizeof vals / sizeof *vals;
    for (size_t i = 0; i < n; ++i) {
        U a = vals[i];
        C1(neg_p, ~a);
        C1(inc_p, a + 1);
        C1(from_i8, (uint8_t)a);
        C1(from_i32s, (U)(S)(int32_t)(uint32_t)a);
        C1(from_i64, a);
        C1(to_i32, (uint32_t)a);
        C1(to_i8s, (int8_t)(uint8_t)a);
        C1(to_i64, a);
        C1(to_nat, a);
        C1(from_nat, a);
        C1(idx_p, a);
        C1(idx_8, (uint8_t)a);
        for (size_t j = 0; j < n; ++j) {
            U b = vals[j];
            C2(add_p, a + b);
            C2(sub_p, a - b);
            C2(mul_p, a * b);
            C2(and_p, a & b);
            C2(or_p, a | b);
            C2(xor_p, a ^ b);
            C2(umax_p, a > b ? a : b);
            C2(smin_p, (S)a < (S)b ? a : b);
            C2(e_p, a == b);
            C2(ul_p, a < b);
            C2(uge_p, a >= b);
            C2(sl_p, (S)a < (S)b);
            C2(nat_add, a + b);
            C2(nat_sub, a >= b ? a - b : 0);
            C2(nat_mul, a * b);
            C2(nat_l, a < b);
            C2(nat_ge, a >= b);
            C2(nat_ne, a != b);
            if (a <= UINT64_MAX - b) C2(add_nuw_p, a + b);
            if (b != 0) {
                C2(udiv_p, a / b);
                C2(urem_p, a % b);
                if (!((S)a == INT64_MIN && (S)b == -1)) C2(sdiv_p, (U)((S)a / (S)b));
            }
            U s = b % 64;
            check("shl_p", a, s, shl_p(a, s), a << s);
            check("shrl_p", a, s, shrl_p(a, s), a >> s);
            check("shra_p", a, s, shra_p(a, s), (S)a < 0 ? ~(~a >> s) : a >> s);
        }
    }
    check("zero_p", 0, 0, zero_p(), 0);
    int32_t arr[5] = {10, 20, 30, 40, 50};
    check("bump", 3, 5, (U)(uint32_t)bump(arr, 3, 5), 45);
    check("bump'", 3, 5, (U)(uint32_t)arr[3], 45);
    check("bump0", 0, 7, (U)(uint32_t)bump(arr, 0, -7), 3);
    for (int i = 1; i < argc; ++i) {
        check("str_len", (U)i, 0, str_len(argv[i]), strlen(argv[i]));
        printf("strlen(%s) = %" PRIu64 "\n", argv[i], str_len(argv[i]));
    }
    printf("idx-top: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
