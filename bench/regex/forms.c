/* Times one generated matcher `int m(const char *)` (1 = matched) on the
 * lines of a file: best of PASSES passes, median of ROUNDS rounds, in µs,
 * and the number of matches (bench/regex/run compares the lowering forms
 * of lower_regex with it). Usage: forms LINES [PASSES [ROUNDS]] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int m(const char *s);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 2;
    char **lines = NULL, *line = NULL;
    size_t n = 0, cap = 0, lcap = 0;
    ssize_t got;
    while ((got = getline(&line, &lcap, f)) >= 0) {
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r')) line[--got] = 0;
        if (n == cap) lines = realloc(lines, (cap = cap ? 2 * cap : 1024) * sizeof *lines);
        lines[n++] = strdup(line);
    }
    free(line);
    fclose(f);
    int passes = argc > 2 ? atoi(argv[2]) : 200, rounds = argc > 3 ? atoi(argv[3]) : 3;
    double best[16];
    long hits = 0;
    if (rounds < 1 || rounds > 16) return 2;
    for (int r = 0; r < rounds; ++r) {
        best[r] = 1e30;
        for (int p = 0; p < passes; ++p) {
            double t0 = now();
            long k = 0;
            for (size_t i = 0; i < n; ++i) k += m(lines[i]);
            double dt = now() - t0;
            if (dt < best[r]) best[r] = dt;
            hits = k;
        }
    }
    qsort(best, (size_t)rounds, sizeof *best, cmp_double);
    printf("%.0f %ld\n", 1e6 * best[rounds / 2], hits);
    for (size_t i = 0; i < n; ++i) free(lines[i]);
    free(lines);
    return 0;
}
