/* Driver of tests/lit/ll/assoc-literal.mim: tri at a depth that only runs
 * as a loop (no 10^7 stack frames), and the shared-sum recursion. */
#include <stdio.h>

long tri(long n), shared(long n);

int main(void) {
    printf("tri %ld %ld\n", tri(10), tri(10000000));
    printf("shared %ld %ld\n", shared(1), shared(2));
    return 0;
}
