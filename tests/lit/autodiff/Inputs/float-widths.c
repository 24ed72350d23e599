/* Harness of tests/lit/autodiff/float-widths.mim: prints the derivatives. */
#include <stdio.h>
double dw32(double), dw16(double), dsel(double), dneg(double), dsr(double), dgx(double, double), dgy(double, double);
int main(void) {
    printf("%.6f %.6f\n", dw32(0.5), dw32(2.0));
    printf("%g %g\n", dw16(1.5), dw16(-0.25));
    printf("%g %g\n", dsel(0.5), dsel(3.0));
    printf("%g %g\n", dneg(0.5), dneg(-3.0));
    printf("%.9f\n", dsr(0.7));
    printf("%.8f %.8f\n", dgx(0.7, 1.3), dgy(0.7, 1.3));
}
