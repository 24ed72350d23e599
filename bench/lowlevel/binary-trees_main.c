/* Driver shared by the Mim and the C version of binary-trees: maximum
 * depth 16; prints the total node count. */
#include <stdio.h>
long run(int n);
int main(int argc, char **argv) {
    (void)argv;
    printf("%ld\n", run(15 + argc));
    return 0;
}
