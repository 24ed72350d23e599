/* Driver of tests/lit/ll/unroll.mim: the values of the loops marked for
 * complete unrolling and of those left alone. */
#include <stdio.h>

double roots(const double *p);
int pairs(const int *p), down(const int *p), cube(void), bounded(int n), hundred(void), stay(void), zigzag(void);

int main(void) {
    const double sq[5] = {1, 4, 9, 16, 25};
    const int p[5] = {1, 2, 3, 4, 5};
    printf("roots %.1f\n", roots(sq));
    printf("pairs %d\n", pairs(p));
    printf("down %d\n", down(p));
    printf("cube %d\n", cube());
    printf("bounded %d %d\n", bounded(10), bounded(-3));
    printf("hundred %d\n", hundred());
    printf("stay %d\n", stay());
    printf("zigzag %d\n", zigzag());
    return 0;
}
