/* Driver shared by the Mim and the C version: n = 10 (+ extra arguments). */
#include <stdio.h>
int run(int *perm, int *perm1, int *count, int *out, int n);
int main(int argc, char **argv) {
    (void)argv;
    int perm[16], perm1[16], count[16], checksum = 0;
    int flips = run(perm, perm1, count, &checksum, 10 + argc - 1);
    printf("%d\nPfannkuchen(%d) = %d\n", checksum, 10 + argc - 1, flips);
    return 0;
}
