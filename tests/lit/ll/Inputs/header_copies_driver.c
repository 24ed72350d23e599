/* Driver of tests/lit/ll/header-copies.mim: the loop whose test value is
 * computed in the body and again after the loop, on inputs where x·x stays
 * small, ends the loop, and wraps around 2^32. */
#include <stdio.h>

int grow(int x0);

int main(void) {
    printf("grow %d %d %d %d\n", grow(5), grow(30), grow(70000), grow(65536));
    return 0;
}
