/* Driver of linkage.mim: calls the Mim externs and, through the pointers
 * getf returns, Mim functions that are internal to the module. */
#include <stdio.h>
typedef int (*fn)(int);
fn getf(_Bool c);
int fact(int n);
int main(void) {
    printf("%d %d %d\n", getf(0)(40), getf(1)(40), fact(10));
    return 0;
}
