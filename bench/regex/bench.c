/* The e-mail benchmark of bench/regex/run (protocol: the README next to
 * emails.txt): all lines are loaded first; one pass full-matches every line
 * and counts the matches, which must equal the expected count. Per round,
 * every engine runs `passes` passes (best one kept), engines in turn
 * (interleaved, so that they share the machine's state); the median over
 * the rounds of the best pass is reported, with each engine's pattern
 * compile time.
 *
 * Engines: the mim matchers linked in (match_mail from email.mim, and
 * match_mail_pattern from email-pattern.mim if that was built: a weak
 * symbol), PCRE2 (interpreter and JIT), RE2, Hyperscan, glibc regex. */
#define _POSIX_C_SOURCE 200809L
#include <hs/hs.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the generated matchers: whole-line match of a NUL-terminated line */
bool match_mail(const char *line);
bool match_mail_pattern(const char *line) __attribute__((weak));
/* the same matcher with each lowering forced (MIM_REGEX_LOWERING), if built */
bool match_mail_cf(const char *line) __attribute__((weak));
bool match_mail_table(const char *line) __attribute__((weak));
bool match_mail_table2(const char *line) __attribute__((weak));
bool match_mail_table3(const char *line) __attribute__((weak));

void *re2_shim_compile(const char *pattern);
int re2_shim_full_match(void *re, const char *s, size_t len);
void re2_shim_free(void *re);

#define PCRE_PATTERN                                                                                    \
    "^[a-zA-Z0-9](?:[a-zA-Z0-9]*[._\\-]+[a-zA-Z0-9])*[a-zA-Z0-9]*@[a-zA-Z0-9](?:[a-zA-Z0-9]*[_\\-]+[a-zA-Z0-9])*" \
    "[a-zA-Z0-9]*\\.(?:(?:[a-zA-Z0-9]*[_\\-]+[a-zA-Z0-9])*[a-zA-Z0-9]+\\.)*[a-zA-Z][a-zA-Z]+$"
/* POSIX ERE has no (?:…) and no escapes inside brackets */
#define ERE_PATTERN                                                                                   \
    "^[a-zA-Z0-9]([a-zA-Z0-9]*[._-]+[a-zA-Z0-9])*[a-zA-Z0-9]*@[a-zA-Z0-9]([a-zA-Z0-9]*[_-]+[a-zA-Z0-9])*" \
    "[a-zA-Z0-9]*\\.(([a-zA-Z0-9]*[_-]+[a-zA-Z0-9])*[a-zA-Z0-9]+\\.)*[a-zA-Z][a-zA-Z]+$"

typedef struct Lines {
    char **s;
    size_t *len;
    size_t n;
} Lines;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static Lines load(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    Lines l = {0};
    size_t cap = 0;
    char *line = NULL;
    size_t lcap = 0;
    ssize_t got;
    while ((got = getline(&line, &lcap, f)) >= 0) {
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r')) line[--got] = 0;
        if (l.n == cap) {
            cap = cap ? 2 * cap : 1024;
            l.s = realloc(l.s, cap * sizeof *l.s);
            l.len = realloc(l.len, cap * sizeof *l.len);
        }
        l.s[l.n] = strdup(line);
        l.len[l.n++] = (size_t)got;
    }
    free(line);
    fclose(f);
    return l;
}

/* ---- engines ---------------------------------------------------------------- */
typedef struct Engine Engine;
struct Engine {
    const char *name;
    size_t (*pass)(Engine *e, const Lines *l); /* number of matching lines */
    void *re, *aux;
    double compile_ms;
    double best[16];
};

static size_t pass_mim(Engine *e, const Lines *l) {
    bool (*m)(const char *) = (bool (*)(const char *))e->re;
    size_t k = 0;
    for (size_t i = 0; i < l->n; ++i) k += m(l->s[i]);
    return k;
}

static size_t pass_pcre2(Engine *e, const Lines *l) {
    size_t k = 0;
    for (size_t i = 0; i < l->n; ++i)
        k += pcre2_match(e->re, (PCRE2_SPTR)l->s[i], l->len[i], 0, 0, e->aux, NULL) >= 0;
    return k;
}

static size_t pass_pcre2_jit(Engine *e, const Lines *l) {
    size_t k = 0;
    for (size_t i = 0; i < l->n; ++i)
        k += pcre2_jit_match(e->re, (PCRE2_SPTR)l->s[i], l->len[i], 0, 0, e->aux, NULL) >= 0;
    return k;
}

static size_t pass_re2(Engine *e, const Lines *l) {
    size_t k = 0;
    for (size_t i = 0; i < l->n; ++i) k += (size_t)re2_shim_full_match(e->re, l->s[i], l->len[i]);
    return k;
}

static int hs_on_match(unsigned id, unsigned long long from, unsigned long long to, unsigned flags, void *ctx) {
    (void)id, (void)from, (void)to, (void)flags;
    *(int *)ctx = 1;
    return 1; /* stop: one match decides */
}

static size_t pass_hs(Engine *e, const Lines *l) {
    size_t k = 0;
    for (size_t i = 0; i < l->n; ++i) {
        int hit = 0;
        hs_scan(e->re, l->s[i], (unsigned)l->len[i], 0, e->aux, hs_on_match, &hit);
        k += (size_t)hit;
    }
    return k;
}

static size_t pass_glibc(Engine *e, const Lines *l) {
    size_t k = 0;
    for (size_t i = 0; i < l->n; ++i) k += regexec(e->re, l->s[i], 0, NULL, 0) == 0;
    return k;
}

static void die(const char *what) {
    fprintf(stderr, "bench: %s\n", what);
    exit(2);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 3) die("usage: bench EMAILS EXPECTED [PASSES [ROUNDS]]");
    Lines lines = load(argv[1]);
    size_t expected = (size_t)strtoul(argv[2], NULL, 10);
    int passes = argc > 3 ? atoi(argv[3]) : 200, rounds = argc > 4 ? atoi(argv[4]) : 3;
    if (rounds < 1 || rounds > 16 || passes < 1) die("bad PASSES or ROUNDS");

    Engine eng[12];
    size_t ne = 0;
    double t;
    eng[ne++] = (Engine){"mim (axioms)", pass_mim, (void *)match_mail, NULL, 0, {0}};
    if (match_mail_pattern) eng[ne++] = (Engine){"mim (pattern)", pass_mim, (void *)match_mail_pattern, NULL, 0, {0}};
    if (match_mail_cf) eng[ne++] = (Engine){"mim cf", pass_mim, (void *)match_mail_cf, NULL, 0, {0}};
    if (match_mail_table) eng[ne++] = (Engine){"mim table", pass_mim, (void *)match_mail_table, NULL, 0, {0}};
    if (match_mail_table2) eng[ne++] = (Engine){"mim table2", pass_mim, (void *)match_mail_table2, NULL, 0, {0}};
    if (match_mail_table3) eng[ne++] = (Engine){"mim table3", pass_mim, (void *)match_mail_table3, NULL, 0, {0}};

    int err;
    PCRE2_SIZE off;
    t = now();
    pcre2_code *pc = pcre2_compile((PCRE2_SPTR)PCRE_PATTERN, PCRE2_ZERO_TERMINATED, PCRE2_DOLLAR_ENDONLY, &err, &off, NULL);
    if (!pc) die("pcre2_compile");
    double pc_ms = 1e3 * (now() - t);
    eng[ne++] = (Engine){"PCRE2", pass_pcre2, pc, pcre2_match_data_create_from_pattern(pc, NULL), pc_ms, {0}};
    t = now();
    pcre2_code *pj = pcre2_compile((PCRE2_SPTR)PCRE_PATTERN, PCRE2_ZERO_TERMINATED, PCRE2_DOLLAR_ENDONLY, &err, &off, NULL);
    if (!pj || pcre2_jit_compile(pj, PCRE2_JIT_COMPLETE) != 0) die("pcre2_jit_compile");
    eng[ne++] = (Engine){"PCRE2-JIT", pass_pcre2_jit, pj, pcre2_match_data_create_from_pattern(pj, NULL),
                         1e3 * (now() - t), {0}};
    t = now();
    void *re2 = re2_shim_compile(PCRE_PATTERN);
    if (!re2) die("RE2 compile");
    eng[ne++] = (Engine){"RE2", pass_re2, re2, NULL, 1e3 * (now() - t), {0}};
    hs_database_t *db;
    hs_compile_error_t *hs_err;
    hs_scratch_t *scratch = NULL;
    t = now();
    if (hs_compile(PCRE_PATTERN, HS_FLAG_SINGLEMATCH, HS_MODE_BLOCK, NULL, &db, &hs_err) != HS_SUCCESS)
        die("hs_compile");
    double hs_ms = 1e3 * (now() - t);
    if (hs_alloc_scratch(db, &scratch) != HS_SUCCESS) die("hs_alloc_scratch");
    eng[ne++] = (Engine){"Hyperscan", pass_hs, db, scratch, hs_ms, {0}};
    regex_t ere;
    t = now();
    if (regcomp(&ere, ERE_PATTERN, REG_EXTENDED | REG_NOSUB) != 0) die("regcomp");
    eng[ne++] = (Engine){"glibc regex", pass_glibc, &ere, NULL, 1e3 * (now() - t), {0}};

    bool ok = true;
    for (int r = 0; r < rounds; ++r)
        for (size_t k = 0; k < ne; ++k) {
            Engine *e = &eng[(k + (size_t)r) % ne]; /* rotate the order between rounds */
            double best = 1e30;
            for (int p = 0; p < passes; ++p) {
                double t0 = now();
                size_t got = e->pass(e, &lines);
                double dt = now() - t0;
                if (got != expected) {
                    fprintf(stderr, "bench: %s matched %zu lines, expected %zu\n", e->name, got, expected);
                    ok = false;
                    break;
                }
                if (dt < best) best = dt;
            }
            e->best[r] = best;
        }
    size_t bytes = 0;
    for (size_t i = 0; i < lines.n; ++i) bytes += lines.len[i];
    printf("%zu lines, %zu bytes, %zu expected matches; best of %d passes, median of %d rounds\n\n", lines.n, bytes,
           expected, passes, rounds);
    printf("| engine        | match time [µs] | ns/byte | rounds [µs]          | pattern compile [ms] |\n");
    printf("|---------------|----------------:|--------:|----------------------|---------------------:|\n");
    for (size_t k = 0; k < ne; ++k) {
        Engine *e = &eng[k];
        double sorted[16];
        memcpy(sorted, e->best, sizeof sorted);
        qsort(sorted, (size_t)rounds, sizeof *sorted, cmp_double);
        double med = sorted[rounds / 2];
        char rs[64] = "";
        size_t used = 0;
        for (int r = 0; r < rounds && used < sizeof rs - 12; ++r)
            used += (size_t)snprintf(rs + used, sizeof rs - used, "%s%.0f", r ? " " : "", 1e6 * e->best[r]);
        printf("| %-13s | %15.0f | %7.2f | %-20s | ", e->name, 1e6 * med, 1e9 * med / (double)bytes, rs);
        if (e->pass == pass_mim)
            printf("%20s |\n", "(see below)");
        else
            printf("%20.2f |\n", e->compile_ms);
    }
    for (size_t k = 0; k < ne; ++k)
        if (eng[k].pass == pass_pcre2 || eng[k].pass == pass_pcre2_jit) pcre2_match_data_free(eng[k].aux);
    pcre2_code_free(pc), pcre2_code_free(pj);
    re2_shim_free(re2);
    hs_free_scratch(scratch), hs_free_database(db);
    regfree(&ere);
    for (size_t i = 0; i < lines.n; ++i) free(lines.s[i]);
    free(lines.s), free(lines.len);
    return ok ? 0 : 1;
}
