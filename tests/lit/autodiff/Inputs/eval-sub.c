/* Harness of tests/lit/autodiff/eval-sub.mim: prints the partials at (5, 7). */
#include <stdio.h>
int dfa(int, int), dfb(int, int), dga(int, int), dgb(int, int);
int main(void) {
    printf("%d %d\n", dfa(5, 7), dfb(5, 7));
    printf("%d %d\n", dga(5, 7), dgb(5, 7));
    return 0;
}
