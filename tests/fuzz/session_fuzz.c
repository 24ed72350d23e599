/* libFuzzer harness over the session API (tests/fuzz/README.md): the input
 * is Mim source text; it is built, optimized at a level derived from the
 * input (-O0, -O1 or -O2) and, when the core plugin was loaded, emitted as
 * LLVM IR into /dev/null. Bad input must give located errors: a crash, a
 * sanitizer report, a leak or a hang is a finding, and so is an
 * `internal error` diagnostic, which aborts here. Built with -DMIM_FUZZ=ON
 * (clang: -fsanitize=fuzzer,address,undefined). The work runs on a thread
 * with a large stack, as in the `mim` executable, so that deep but legal
 * nesting is not reported as a stack overflow.
 *
 * Plugin libraries are opened once at start-up with RTLD_NODELETE: the
 * sessions then open and close them without unloading them, since libFuzzer
 * keeps reading the coverage counters of every library it has seen (an
 * unloaded one would make it crash). */
#define _GNU_SOURCE /* RTLD_NODELETE */
#include "mim/session.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct Job {
    const uint8_t *data;
    size_t size;
} Job;

/* Aborts when the diagnostics report an internal error (a bug). */
static void check_diag(MimSession *s) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return;
    mim_session_print_diag(s, f);
    fclose(f);
    bool internal = buf && strstr(buf, "internal error");
    if (internal) fprintf(stderr, "%s", buf);
    free(buf);
    if (internal) abort();
}

static void *run(void *p) {
    const Job *j = p;
    unsigned sum = 0;
    for (size_t i = 0; i < j->size; ++i) sum += j->data[i];
    int level = (int)(sum % 3);
    MimSession *s = mim_session_new(NULL, 0);
    if (!s) return NULL;
    if (mim_session_source(s, "fuzz.mim", (const char *)j->data, j->size) && mim_session_build(s) &&
        (level == 0 || mim_session_optimize(s, level)) && mim_session_is_loaded(s, "core")) {
        FILE *out = fopen("/dev/null", "w");
        if (out) {
            mim_session_emit(s, "ll", out);
            fclose(out);
        }
    }
    check_diag(s);
    mim_session_free(s);
    return NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Pins every plugin library of <exe dir>/../lib/mim in memory. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    char exe[PATH_MAX], dir[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return 0;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash) return 0;
    *slash = 0;
    snprintf(dir, sizeof dir, "%s/../lib/mim", exe);
    char real[PATH_MAX];
    if (!realpath(dir, real)) return 0;
    DIR *d = opendir(real);
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strncmp(e->d_name, "lib", 3) || strcmp(e->d_name + len - 3, ".so")) continue;
        char path[2 * PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", real, e->d_name);
        if (!dlopen(path, RTLD_NOW | RTLD_NODELETE)) fprintf(stderr, "mim-fuzz: %s\n", dlerror());
    }
    closedir(d);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Job j = {data, size};
    pthread_attr_t attr;
    pthread_t t;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, (size_t)256 << 20);
    if (pthread_create(&t, &attr, run, &j) == 0) pthread_join(t, NULL);
    else run(&j);
    pthread_attr_destroy(&attr);
    return 0;
}
