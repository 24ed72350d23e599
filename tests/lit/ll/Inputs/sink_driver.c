/* Driver of tests/lit/ll/sink.mim: the loops whose operations were moved
 * out of their headers compute what they computed before. */
#include <stdio.h>

int squares(int n), grid(int n);

int main(void) {
    printf("squares %d %d %d\n", squares(4), squares(0), squares(-2));
    printf("grid %d %d\n", grid(3), grid(0));
    return 0;
}
