/* Driver of tests/lit/ll/no-wrap.mim: runs the loops whose increments get
 * nsw/nuw and those that must not, including inputs on which the unflagged
 * ones wrap around 2^31. */
#include <stdio.h>

int count(int n), step2(int n), down(int n), fields(const int *p), after(int s, int n), wraps(int s, int n),
    offset(const int *p, int s, int n), passon(int a, int n);

int main(void) {
    int p[35];
    for (int k = 0; k < 35; ++k) p[k] = k;
    printf("count %d %d %d\n", count(10), count(0), count(-5));
    printf("step2 %d %d\n", step2(9), step2(10));
    printf("down %d %d\n", down(4), down(-3));
    printf("fields %d\n", fields(p));
    printf("offset %d\n", offset(p, 2, 3));
    printf("passon %d %d %d\n", passon(5, 3), passon(2147483646, 2147483647), passon(-3, 0));
    printf("after %d %d %d\n", after(0, 5), after(2147483647, 0), after(2147483646, 2147483647));
    printf("wraps %d\n", wraps(2147483646, -2147483647));
    return 0;
}
