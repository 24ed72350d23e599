/* Driver of tests/lit/ll/region-loop.mim: p and q are distinct buffers,
 * as the regions promise. */
#include <stdio.h>
double roots(double *, double *);
int main(void) {
    double p[5] = {1, 4, 9, 16, 25}, q[5] = {0};
    double r = roots(p, q);
    printf("%.1f %.1f\n", r, q[4]);
    return 0;
}
