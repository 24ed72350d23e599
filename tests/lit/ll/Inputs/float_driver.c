/* Driver of tests/lit/ll/float.mim: calls the extern Mim floating-point
 * functions on special and ordinary values and compares bit-exactly (any NaN
 * equals any NaN) with C operators and libm. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int checks, failures;

static void checkd(const char *name, double a, double b, double got, double want) {
    ++checks;
    if (isnan(got) && isnan(want)) return;
    if (memcmp(&got, &want, sizeof got) != 0) {
        ++failures;
        printf("FAIL %s(%a, %a): got %a, want %a\n", name, a, b, got, want);
    }
}

static void checki(const char *name, double a, double b, long long got, long long want) {
    ++checks;
    if (got != want) {
        ++failures;
        printf("FAIL %s(%a, %a): got %lld, want %lld\n", name, a, b, got, want);
    }
}

static double minimum(double a, double b) {
    if (isnan(a) || isnan(b)) return NAN;
    if (a == 0 && b == 0) return signbit(a) ? a : b;
    return a < b ? a : b;
}
static double maximum(double a, double b) {
    if (isnan(a) || isnan(b)) return NAN;
    if (a == 0 && b == 0) return signbit(a) ? b : a;
    return a > b ? a : b;
}

#define BIN(T, s) T fadd##s(T, T), fsub##s(T, T), fmul##s(T, T), fdiv##s(T, T), frem##s(T, T), \
    mfmin##s(T, T), mfmax##s(T, T), mieee754min##s(T, T), mieee754max##s(T, T), mpow##s(T, T);
#define CMP(T, s) unsigned char ce##s(T, T), cl##s(T, T), cle##s(T, T), cg##s(T, T), cge##s(T, T), \
    cne##s(T, T), co##s(T, T), cu##s(T, T), cue##s(T, T), cul##s(T, T), cule##s(T, T), cug##s(T, T),   \
    cuge##s(T, T), cune##s(T, T);
#define UN(T, s) T usin##s(T), ucos##s(T), utan##s(T), usinh##s(T), ucosh##s(T), utanh##s(T),     \
    uasin##s(T), uacos##s(T), uatan##s(T), uasinh##s(T), uacosh##s(T), uatanh##s(T), uexp##s(T),       \
    uexp2##s(T), ulog##s(T), ulog2##s(T), ulog10##s(T), usqrt##s(T), ucbrt##s(T), uerf##s(T),          \
    uerfc##s(T), utgamma##s(T), ulgamma##s(T), ufabs##s(T), ufloor##s(T), uceil##s(T), uround##s(T),   \
    utrunc##s(T);
BIN(double, ) BIN(float, f) CMP(double, ) CMP(float, f) UN(double, ) UN(float, f)
double fast_add(double, double), flags_mul(double, double), f2d(float), i2d(int32_t), u2d(uint32_t), scale(double);
float d2f(double);
int32_t d2i(double);
uint64_t d2u(double);

#define TEST(T, s)                                                                                           \
    static void test##s(T a, T b) {                                                                          \
        checkd("fadd" #s, a, b, fadd##s(a, b), (T)(a + b));                                                  \
        checkd("fsub" #s, a, b, fsub##s(a, b), (T)(a - b));                                                  \
        checkd("fmul" #s, a, b, fmul##s(a, b), (T)(a * b));                                                  \
        checkd("fdiv" #s, a, b, fdiv##s(a, b), (T)(a / b));                                                  \
        checkd("frem" #s, a, b, frem##s(a, b), fmod##s(a, b));                                               \
        checkd("fmin" #s, a, b, mfmin##s(a, b), fmin##s(a, b));                                              \
        checkd("fmax" #s, a, b, mfmax##s(a, b), fmax##s(a, b));                                              \
        checkd("minimum" #s, a, b, mieee754min##s(a, b), (T)minimum(a, b));                                  \
        checkd("maximum" #s, a, b, mieee754max##s(a, b), (T)maximum(a, b));                                  \
        checkd("pow" #s, a, b, mpow##s(a, b), pow##s(a, b));                                                 \
        int un = isnan(a) || isnan(b);                                                                       \
        checki("ce" #s, a, b, ce##s(a, b), a == b);                                                          \
        checki("cl" #s, a, b, cl##s(a, b), a < b);                                                           \
        checki("cle" #s, a, b, cle##s(a, b), a <= b);                                                        \
        checki("cg" #s, a, b, cg##s(a, b), a > b);                                                           \
        checki("cge" #s, a, b, cge##s(a, b), a >= b);                                                        \
        checki("cne" #s, a, b, cne##s(a, b), a < b || a > b);                                                \
        checki("co" #s, a, b, co##s(a, b), !un);                                                             \
        checki("cu" #s, a, b, cu##s(a, b), un);                                                              \
        checki("cue" #s, a, b, cue##s(a, b), un || a == b);                                                  \
        checki("cul" #s, a, b, cul##s(a, b), un || a < b);                                                   \
        checki("cule" #s, a, b, cule##s(a, b), un || a <= b);                                                \
        checki("cug" #s, a, b, cug##s(a, b), un || a > b);                                                   \
        checki("cuge" #s, a, b, cuge##s(a, b), un || a >= b);                                                \
        checki("cune" #s, a, b, cune##s(a, b), a != b);                                                      \
    }                                                                                                        \
    static void test_un##s(T a) {                                                                            \
        checkd("sin" #s, a, 0, usin##s(a), sin##s(a));                                                       \
        checkd("cos" #s, a, 0, ucos##s(a), cos##s(a));                                                       \
        checkd("tan" #s, a, 0, utan##s(a), tan##s(a));                                                       \
        checkd("sinh" #s, a, 0, usinh##s(a), sinh##s(a));                                                    \
        checkd("cosh" #s, a, 0, ucosh##s(a), cosh##s(a));                                                    \
        checkd("tanh" #s, a, 0, utanh##s(a), tanh##s(a));                                                    \
        checkd("asin" #s, a, 0, uasin##s(a), asin##s(a));                                                    \
        checkd("acos" #s, a, 0, uacos##s(a), acos##s(a));                                                    \
        checkd("atan" #s, a, 0, uatan##s(a), atan##s(a));                                                    \
        checkd("asinh" #s, a, 0, uasinh##s(a), asinh##s(a));                                                 \
        checkd("acosh" #s, a, 0, uacosh##s(a), acosh##s(a));                                                 \
        checkd("atanh" #s, a, 0, uatanh##s(a), atanh##s(a));                                                 \
        checkd("exp" #s, a, 0, uexp##s(a), exp##s(a));                                                       \
        checkd("exp2" #s, a, 0, uexp2##s(a), exp2##s(a));                                                    \
        checkd("log" #s, a, 0, ulog##s(a), log##s(a));                                                       \
        checkd("log2" #s, a, 0, ulog2##s(a), log2##s(a));                                                    \
        checkd("log10" #s, a, 0, ulog10##s(a), log10##s(a));                                                 \
        checkd("sqrt" #s, a, 0, usqrt##s(a), sqrt##s(a));                                                    \
        checkd("cbrt" #s, a, 0, ucbrt##s(a), cbrt##s(a));                                                    \
        checkd("erf" #s, a, 0, uerf##s(a), erf##s(a));                                                       \
        checkd("erfc" #s, a, 0, uerfc##s(a), erfc##s(a));                                                    \
        checkd("tgamma" #s, a, 0, utgamma##s(a), tgamma##s(a));                                              \
        checkd("lgamma" #s, a, 0, ulgamma##s(a), lgamma##s(a));                                              \
        checkd("fabs" #s, a, 0, ufabs##s(a), fabs##s(a));                                                    \
        checkd("floor" #s, a, 0, ufloor##s(a), floor##s(a));                                                 \
        checkd("ceil" #s, a, 0, uceil##s(a), ceil##s(a));                                                    \
        checkd("round" #s, a, 0, uround##s(a), round##s(a));                                                 \
        checkd("trunc" #s, a, 0, utrunc##s(a), trunc##s(a));                                                 \
    }
TEST(double, )
TEST(float, f)

int main(void) {
    static const double vals[] = {0.0, -0.0, 1.0, -1.0, 0.5, -2.25, 0.1, 3.0, 2.5, 1e10, -7.75, 0.999,
                                  1e-300, INFINITY, -INFINITY, NAN};
    size_t n = sizeof vals / sizeof *vals;
    for (size_t i = 0; i < n; ++i) {
        test_un(vals[i]);
        test_unf((float)vals[i]);
        for (size_t j = 0; j < n; ++j) {
            test(vals[i], vals[j]);
            testf((float)vals[i], (float)vals[j]);
        }
        double a = vals[i];
        checkd("d2f", a, 0, d2f(a), (float)a);
        checkd("f2d", a, 0, f2d((float)a), (double)(float)a);
        checkd("scale", a, 0, scale(a), a * 2.5);
        if (!isnan(a) && !isinf(a)) {
            checkd("fast_add", a, 1, fast_add(a, 1.0), a + 1.0);
            checkd("flags_mul", a, 3, flags_mul(a, 3.0), a * 3.0);
        }
        if (fabs(a) < 1e9) checki("d2i", a, 0, d2i(a), (int32_t)a);
        if (a >= 0 && a < 1e18) checki("d2u", a, 0, (long long)d2u(a), (long long)(uint64_t)a);
    }
    static const int32_t ints[] = {0, 1, -1, 42, -100000, 2147483647, -2147483647 - 1};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; ++i) {
        checkd("i2d", ints[i], 0, i2d(ints[i]), (double)ints[i]);
        checkd("u2d", ints[i], 0, u2d((uint32_t)ints[i]), (double)(uint32_t)ints[i]);
    }
    printf("float: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
