/* Driver of no-wrap-pack.mim: runs f and g on inputs where the values used
 * inside the packs wrap (f) or are read as unsigned (g). */
#include <limits.h>
#include <stdio.h>

int f(int a, unsigned char *p);
int g(int (*p)[100], signed char i, int **out);

static int rows[256][100];

int main(void) {
    unsigned char p[100] = {0};
    int r = f(INT_MAX, p); /* x wraps to INT_MIN: k < INT_MIN holds for no k */
    int n = 0;
    for (int k = 0; k < 100; ++k) n += p[k] & 1;
    printf("f(INT_MAX) = %d, true = %d\n", r, n);
    printf("f(5) = %d\n", f(5, p));
    int *out[100];
    g(rows, -1, out);
    printf("g(-1): row %td\n", (out[0] - &rows[0][0]) / 100);
    return 0;
}
