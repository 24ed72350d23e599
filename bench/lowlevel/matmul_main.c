/* Driver shared by the Mim and the C version: n = 1000 (+ extra arguments). */
#include <stdio.h>
#include <stdlib.h>
double run(const double *a, const double *b, double *c, int n);
int main(int argc, char **argv) {
    (void)argv;
    int n = 1000 + argc - 1;
    double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n), *c = malloc(sizeof(double) * n * n);
    for (int i = 0; i < n * n; ++i) a[i] = (i % 7) * 0.5, b[i] = (i % 5) - 1.5;
    printf("%.3f\n", run(a, b, c, n));
    free(a), free(b), free(c);
    return 0;
}
