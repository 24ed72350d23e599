/* Harness of tests/lit/autodiff/call-and-diff.mim: the same function called
 * directly and differentiated; values and derivatives against the analytic
 * ones and a central finite difference of val_p. */
#include <math.h>
#include <stdio.h>

double val_sq(double), val_p(double), d_p(double), both(double);

static double rel(double got, double want) { return fabs(got - want) / fmax(1.0, fabs(want)); }

static void check(const char *what, double x, double got, double want) {
    if (rel(got, want) < 1e-9) printf("ok %s(%g)\n", what, x);
    else printf("FAIL %s(%g): got %.17g, want %.17g\n", what, x, got, want);
}

int main(void) {
    for (int i = 0; i < 2; ++i) {
        double x = i ? -2.25 : 1.5;
        double fd = (val_p(x + 1e-6) - val_p(x - 1e-6)) / 2e-6;
        check("sq", x, val_sq(x), x * x);
        check("p", x, val_p(x), x * x + 3 * x);
        if (rel(d_p(x), 2 * x + 3) < 1e-9 && rel(d_p(x), fd) < 1e-6) printf("ok p'(%g)\n", x);
        else printf("FAIL p'(%g): got %.17g, want %.17g, fd %.17g\n", x, d_p(x), 2 * x + 3, fd);
        (void)both;
    }
    check("both", 1.5, both(1.5), 6.75 + 6000.0);
    return 0;
}
