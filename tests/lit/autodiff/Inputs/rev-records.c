/* Harness of tests/lit/autodiff/rev-records.mim: the reverse-mode gradient
 * of chain (into a zeroed shadow) against central finite differences of
 * every component, and its value against the plain function. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double rchain(double *, double *, long), vchain(double *, long);

static void run(long n) {
    const double h = 1e-6;
    double *a = malloc((size_t)(n + 1) * sizeof *a), *g = calloc((size_t)(n + 1), sizeof *g);
    for (long i = 0; i < n; ++i) a[i] = 0.9 * sin(1.3 * (double)i + 0.4);
    double r = rchain(a, g, n), v = vchain(a, n), worst = fabs(r - v) / fmax(1.0, fabs(v));
    for (long i = 0; i < n; ++i) {
        double ai = a[i];
        a[i] = ai + h;
        double fp = vchain(a, n);
        a[i] = ai - h;
        double fm = vchain(a, n);
        a[i] = ai;
        double fd = (fp - fm) / (2 * h);
        worst = fmax(worst, fabs(g[i] - fd) / fmax(1.0, fabs(fd)));
    }
    if (worst < 1e-6) printf("ok chain %ld\n", n);
    else printf("FAIL chain %ld: max rel. error %.3g\n", n, worst);
    free(a), free(g);
}

int main(void) {
    long ns[] = {0, 1, 2, 3, 7, 20, 40};
    for (size_t j = 0; j < sizeof ns / sizeof *ns; ++j) run(ns[j]);
    return 0;
}
