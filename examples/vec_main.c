/* Calls the Mim functions of examples/vec.mim from C and checks them
 * against the same computation in C. */
#include <math.h>
#include <stdio.h>

double dot(const double *a, const double *b, int n);
double norm(const double *a, int n);

int main(void) {
    double a[] = {1, 2, 3, 4}, b[] = {0.5, -1, 2, 0.25};
    double want = 0;
    for (int i = 0; i < 4; ++i) want += a[i] * b[i];
    printf("dot  = %g (C: %g)\n", dot(a, b, 4), want);
    printf("norm = %g (C: %g)\n", norm(a, 4), sqrt(30.0));
    return dot(a, b, 4) == want && norm(a, 4) == sqrt(30.0) ? 0 : 1;
}
