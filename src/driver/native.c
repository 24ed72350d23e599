/* From LLVM IR to running code (native.h): the C compiler as a child
 * process for object files and executables, the JIT module for --run. */
#include "driver/native.h"

#include "mim/xalloc.h"

#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Writes the IR to a fresh temporary directory as `<dir>/program.ll`: the
 * C compiler recognizes the language by the extension. Returns the path
 * (free it and rmdir its directory with remove_temp) or NULL. */
static char *write_temp_ir(const char *ir, size_t len, FILE *err) {
    const char *tmpdir = getenv("TMPDIR");
    if (!tmpdir || !*tmpdir) tmpdir = "/tmp";
    size_t cap = strlen(tmpdir) + 40;
    char *path = mim_xmalloc(cap);
    snprintf(path, cap, "%s/mim-XXXXXX", tmpdir);
    if (!mkdtemp(path)) {
        fprintf(err, "error: cannot create a temporary directory in '%s': %s\n", tmpdir, strerror(errno));
        free(path);
        return NULL;
    }
    size_t dir_len = strlen(path);
    strcat(path, "/program.ll");
    FILE *f = fopen(path, "w");
    bool ok = f && fwrite(ir, 1, len, f) == len;
    if (f && fclose(f) != 0) ok = false;
    if (!ok) {
        fprintf(err, "error: cannot write '%s': %s\n", path, strerror(errno));
        unlink(path);
        path[dir_len] = '\0';
        rmdir(path);
        free(path);
        return NULL;
    }
    return path;
}

static void remove_temp(char *path) {
    unlink(path);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    rmdir(path);
    free(path);
}

/* Runs argv[0] (looked up along PATH) and waits; true if it exited with 0. */
static bool spawn_wait(char **argv, FILE *err) {
    pid_t pid;
    fflush(NULL); /* the child must not repeat buffered output */
    int e = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
    if (e != 0) {
        fprintf(err, "error: cannot run the C compiler '%s': %s\n", argv[0], strerror(e));
        return false;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            fprintf(err, "error: waiting for the C compiler '%s': %s\n", argv[0], strerror(errno));
            return false;
        }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
    if (WIFEXITED(status))
        fprintf(err, "error: the C compiler '%s' failed (exit code %d)\n", argv[0], WEXITSTATUS(status));
    else fprintf(err, "error: the C compiler '%s' was killed by signal %d\n", argv[0], WTERMSIG(status));
    return false;
}

bool mim_native_compile(const char *cc, const char *ir, size_t len, const char *out, bool object, long opt,
                        const char *const *links, size_t num_links, FILE *err) {
    char *ll = write_temp_ir(ir, len, err);
    if (!ll) return false;
    char level[8];
    snprintf(level, sizeof level, "-O%ld", opt < 0 ? 0 : opt > 2 ? 2 : opt);
    char **argv = mim_xcalloc(num_links + 8, sizeof *argv);
    size_t n = 0;
    argv[n++] = (char *)cc;
    argv[n++] = level;
    if (object) argv[n++] = "-c";
    argv[n++] = ll;
    for (size_t i = 0; !object && i < num_links; ++i) argv[n++] = (char *)links[i];
    argv[n++] = "-o";
    argv[n++] = (char *)out;
    argv[n] = NULL;
    bool ok = spawn_wait(argv, err);
    free(argv);
    remove_temp(ll);
    return ok;
}

static bool is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* --run without the JIT: the C compiler builds the program into a
 * temporary directory, which is removed after the program ran as a child
 * process with argv; its exit status is the run's (128 + N if a signal N
 * ended it, as shells report it). */
static bool run_compiled(const char *cc, const char *ir, size_t len, long opt, int argc, char **argv,
                         int *exit_code, FILE *err) {
    char *ll = write_temp_ir(ir, len, err);
    if (!ll) return false;
    size_t n = strlen(ll);
    char *exe = mim_xmalloc(n + 1);
    memcpy(exe, ll, n - strlen("program.ll"));
    strcpy(exe + n - strlen("program.ll"), "program");
    bool ok = mim_native_compile(cc, ir, len, exe, false, opt, NULL, 0, err);
    if (ok) {
        char **args = mim_xcalloc((size_t)argc + 1, sizeof *args);
        args[0] = exe; /* the path that exists; the program sees its own name */
        for (int i = 1; i < argc; ++i) args[i] = argv[i];
        pid_t pid;
        fflush(NULL);
        int e = posix_spawn(&pid, exe, NULL, NULL, args, environ);
        if (e != 0) {
            fprintf(err, "error: --run: cannot start the compiled program: %s\n", strerror(e));
            ok = false;
        } else {
            int status;
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
            *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        }
        free(args);
        unlink(exe);
    }
    free(exe);
    remove_temp(ll);
    return ok;
}

bool mim_native_run(const char *ir, size_t len, int argc, char **argv, const char *const *paths,
                    size_t num_paths, const char *cc, long opt, int *exit_code, FILE *err) {
    void *h = NULL;
    const char *no_jit = getenv("MIM_NO_JIT"); /* docs/cli.md: the C compiler instead */
    if (no_jit && *no_jit) num_paths = 0;
    for (size_t i = 1; i < num_paths && !h; ++i) {
        char path[4096];
        int n = snprintf(path, sizeof path, "%s/%s", paths[i], MIM_JIT_LIBRARY);
        if (n > 0 && (size_t)n < sizeof path && is_file(path)) h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    if (!h) return run_compiled(cc, ir, len, opt, argc, argv, exit_code, err);
    void *sym = dlsym(h, MIM_JIT_ENTRY);
    MimJitRunFn run;
    if (!sym) {
        fprintf(err, "error: %s has no '%s'\n", MIM_JIT_LIBRARY, MIM_JIT_ENTRY);
        dlclose(h);
        return false;
    }
    memcpy(&run, &sym, sizeof run); /* POSIX: dlsym's object pointer holds a function */
    char msg[1024] = "";
    fflush(NULL); /* the program writes to the same stdout */
    bool ok = run(ir, len, argc, argv, exit_code, msg, sizeof msg);
    fflush(NULL);
    if (!ok) fprintf(err, "error: --run: %s\n", msg);
    /* The module stays loaded: LLVM registers atexit handlers and static
     * destructors that must still find its code at the process exit. */
    return ok;
}
