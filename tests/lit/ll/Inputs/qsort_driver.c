/* Driver of tests/lit/ll/idx-top-qsort.mim: sorts pseudo-random arrays of
 * lengths 0 … 196 with the Mim quicksort and counts unsorted neighbours;
 * also checks that the multiset of elements is kept (sum). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void msort(int32_t *, uint64_t, uint64_t);

int main(void) {
    int bad = 0, arrays = 0;
    for (int n = 0; n < 200; n += 7, ++arrays) {
        int32_t *a = malloc(sizeof *a * (size_t)(n + 1));
        if (!a) return 1;
        long sum = 0, after = 0;
        srand((unsigned)n);
        for (int i = 0; i < n; ++i) sum += a[i] = rand() % 100 - 50;
        msort(a, 0, (uint64_t)n);
        for (int i = 0; i < n; ++i) after += a[i];
        for (int i = 1; i < n; ++i) bad += a[i - 1] > a[i];
        bad += sum != after;
        free(a);
    }
    printf("sorted %d arrays, %d unsorted pairs\n", arrays, bad);
    return bad != 0;
}
