/* Driver shared by the Mim and the C version: n = 2000 (+ extra arguments). */
#include <stdio.h>
#include <stdlib.h>
double run(double *u, double *v, double *tmp, int n);
int main(int argc, char **argv) {
    (void)argv;
    int n = 2000 + argc - 1;
    double *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v), *tmp = malloc(n * sizeof *tmp);
    for (int i = 0; i < n; ++i) u[i] = 1;
    printf("%.9f\n", run(u, v, tmp, n));
    free(u), free(v), free(tmp);
    return 0;
}
