/* Driver shared by the Mim and the C version: n = 2000 (+ extra arguments). */
#include <stdio.h>
int run(int n);
int main(int argc, char **argv) {
    (void)argv;
    printf("%d\n", run(2000 + argc - 1));
    return 0;
}
