/* Harness of tests/lit/autodiff/float-ops.mim: calls the derivatives that
 * Mim computed for the %math operations and compares each with the
 * analytic derivative (libm, written here independently) and with a central
 * finite difference of the C function; prints one line per operation and
 * point: "ok NAME" if the relative error is below 1e-9 (analytic) and 1e-6
 * (finite difference), else the values. */
#include <math.h>
#include <stdio.h>

#define UN(n) double d_##n(double);
#define BI(n) double da_##n(double, double); double db_##n(double, double);
UN(sin) UN(cos) UN(tan) UN(asin) UN(acos) UN(atan) UN(sinh) UN(cosh) UN(tanh) UN(asinh) UN(acosh) UN(atanh)
UN(exp) UN(exp2) UN(exp10) UN(log) UN(log2) UN(log10) UN(sqrt) UN(cbrt) UN(erf) UN(erfc) UN(fabs) UN(floor)
BI(add) BI(sub) BI(mul) BI(div) BI(fmod) BI(pow) BI(fmin) BI(fmax)
double exp10(double);

static double rel(double got, double want) { return fabs(got - want) / fmax(1.0, fabs(want)); }

static void check(const char *name, double x, double got, double want, double fd) {
    if (rel(got, want) < 1e-9 && rel(got, fd) < 1e-6) printf("ok %s(%g)\n", name, x);
    else printf("FAIL %s(%g): got %.17g, analytic %.17g, finite difference %.17g\n", name, x, got, want, fd);
}

#define FD1(f, x) (((f)((x) + 1e-6) - (f)((x) - 1e-6)) / 2e-6)
#define CHECK1(n, x, want) check(#n, x, d_##n(x), want, FD1(n, x))

static double add(double a, double b) { return a + b; }
static double sub(double a, double b) { return a - b; }
static double mul(double a, double b) { return a * b; }
static double dvd(double a, double b) { return a / b; }

static void check2(const char *name, double (*f)(double, double), double (*da)(double, double),
                   double (*db)(double, double), double a, double b, double wa, double wb) {
    char n[64];
    snprintf(n, sizeof n, "d%s/da", name);
    check(n, a, da(a, b), wa, (f(a + 1e-6, b) - f(a - 1e-6, b)) / 2e-6);
    snprintf(n, sizeof n, "d%s/db", name);
    check(n, b, db(a, b), wb, (f(a, b + 1e-6) - f(a, b - 1e-6)) / 2e-6);
}

int main(void) {
    const double pi = acos(-1.0);
    for (int i = 0; i < 2; ++i) {
        double x = i ? -0.3 : 0.7; /* in every domain below except acosh, log*, sqrt, cbrt */
        double y = i ? 2.5 : 1.25; /* positive, > 1 */
        CHECK1(sin, x, cos(x));
        CHECK1(cos, x, -sin(x));
        CHECK1(tan, x, 1.0 / (cos(x) * cos(x)));
        CHECK1(asin, x, 1.0 / sqrt(1.0 - x * x));
        CHECK1(acos, x, -1.0 / sqrt(1.0 - x * x));
        CHECK1(atan, x, 1.0 / (1.0 + x * x));
        CHECK1(sinh, x, cosh(x));
        CHECK1(cosh, x, sinh(x));
        CHECK1(tanh, x, 1.0 / (cosh(x) * cosh(x)));
        CHECK1(asinh, x, 1.0 / sqrt(x * x + 1.0));
        CHECK1(acosh, y, 1.0 / sqrt(y * y - 1.0));
        CHECK1(atanh, x, 1.0 / (1.0 - x * x));
        CHECK1(exp, x, exp(x));
        CHECK1(exp2, x, exp2(x) * log(2.0));
        CHECK1(exp10, x, exp10(x) * log(10.0));
        CHECK1(log, y, 1.0 / y);
        CHECK1(log2, y, 1.0 / (y * log(2.0)));
        CHECK1(log10, y, 1.0 / (y * log(10.0)));
        CHECK1(sqrt, y, 0.5 / sqrt(y));
        CHECK1(cbrt, y, 1.0 / (3.0 * cbrt(y) * cbrt(y)));
        CHECK1(erf, x, 2.0 / sqrt(pi) * exp(-x * x));
        CHECK1(erfc, x, -2.0 / sqrt(pi) * exp(-x * x));
        CHECK1(fabs, x, x < 0 ? -1.0 : 1.0);
        CHECK1(floor, x, 0.0);
        check2("add", add, da_add, db_add, x, y, 1.0, 1.0);
        check2("sub", sub, da_sub, db_sub, x, y, 1.0, -1.0);
        check2("mul", mul, da_mul, db_mul, x, y, y, x);
        check2("div", dvd, da_div, db_div, x, y, 1.0 / y, -x / (y * y));
        check2("fmod", fmod, da_fmod, db_fmod, y + 3.0, y, 1.0, -trunc((y + 3.0) / y));
        check2("pow", pow, da_pow, db_pow, y, x, x * pow(y, x - 1.0), pow(y, x) * log(y));
        check2("fmin", fmin, da_fmin, db_fmin, x, y, 1.0, 0.0);
        check2("fmax", fmax, da_fmax, db_fmax, x, y, 0.0, 1.0);
    }
    /* at zero: |x| has the subgradient 0; pow(0, b) with b > 1 has ∂b = 0 */
    /* (+ 0.0: a zero derivative may be −0.0) */
    printf("fabs'(0) = %g, dpow/db(0, 2) = %g, dpow/da(0, 2) = %g\n", d_fabs(0.0) + 0.0, db_pow(0.0, 2.0) + 0.0,
           da_pow(0.0, 2.0) + 0.0);
    return 0;
}
