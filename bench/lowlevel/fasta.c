/* fasta in C, the same algorithm as fasta.mim: the three sequences of the
 * Benchmarks Game program written into a buffer in lines of 60. */
static int put(char *out, int pos, int *col, char c) {
    out[pos++] = c;
    if (++*col == 60) {
        out[pos++] = '\n';
        *col = 0;
    }
    return pos;
}

static int finish(char *out, int pos, int col) {
    if (col != 0) out[pos++] = '\n';
    return pos;
}

static int repeat(char *out, int pos, int count, const char *alu, int alulen) {
    int col = 0, a = 0;
    for (int j = 0; j < count; ++j) {
        pos = put(out, pos, &col, alu[a]);
        if (++a == alulen) a = 0;
    }
    return finish(out, pos, col);
}

static int random_seq(char *out, int pos, int count, unsigned *seed, const double *cum, const char *sym, int k) {
    int col = 0;
    for (int j = 0; j < count; ++j) {
        *seed = (*seed * 3877u + 29573u) % 139968u;
        double r = (double)*seed / 139968.0;
        int i = 0;
        while (!(r < cum[i] || i + 1 == k)) ++i;
        pos = put(out, pos, &col, sym[i]);
    }
    return finish(out, pos, col);
}

int run(char *out, int n, const char *alu, int alulen, const double *cum1, const char *sym1, int k1,
        const double *cum2, const char *sym2, int k2) {
    unsigned seed = 42;
    int pos = repeat(out, 0, 2 * n, alu, alulen);
    pos = random_seq(out, pos, 3 * n, &seed, cum1, sym1, k1);
    return random_seq(out, pos, 5 * n, &seed, cum2, sym2, k2);
}
