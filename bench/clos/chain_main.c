/* Driver shared by the Mim and the C version: 20000 chains (+ extra arguments). */
#include <stdio.h>
int run(int reps);
int main(int argc, char **argv) {
    (void)argv;
    printf("%d\n", run(20000 + argc - 1));
    return 0;
}
