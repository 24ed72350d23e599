/* `mim`: the command-line front of the driver. Parses the options of cli.md §1,
 * handles --help/--version/--list-search-paths, then runs the compiler on a
 * large stack (the IR is a graph whose depth grows with the program, and the
 * printer, checker and rewriter walk it recursively). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE, MAP_STACK, MADV_HUGEPAGE */
#include "mim/driver.h"
#include "mim/xalloc.h"
#include "util/arena.h"

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>

/* AddressSanitizer warns on stderr about swapcontext (and may report false
 * positives after it), so such a build runs the compiler on a thread; and it
 * reports what is not freed, so such a build frees everything before
 * exiting. */
#include "util/sanitizer.h"
#ifdef MIM_ASAN_BUILD
#include <pthread.h>
#else
#include <ucontext.h>
#endif
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h> /* mallopt */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { ARG_NONE, ARG_VALUE } ArgKind;

typedef struct OptSpec {
    const char *shorts[2]; /* without '-' */
    const char *longname;  /* without "--" */
    const char *hint;      /* value hint, NULL for flags */
    const char *help;
    int id;
} OptSpec;

enum {
    O_HELP, O_VERSION, O_LIST, O_CLANG, O_PLUGIN, O_PLUGIN_PATH, O_VERBOSE, O_OPT, O_AST, O_D,
    O_DOT, O_H, O_LL, O_MD, O_MIM, O_ASCII, O_BOOTSTRAP, O_DOT_TYPES, O_DOT_ANNEXES, O_DUMP_GID,
    O_DUMP_REC, O_AGGR, O_SCALARIZE, O_EXE, O_OBJ, O_LINK, O_RUN, O_COLOR, O_TIME
};

/* In the order of the help text (cli.md §8). */
static const OptSpec specs[] = {
    {{"?", "h"}, "help", NULL, "display usage information and exit", O_HELP},
    {{"v"}, "version", NULL, "display version info and exit", O_VERSION},
    {{"l"}, "list-search-paths", NULL, "list search paths in order and exit", O_LIST},
    {{"c"}, "clang", "clang", "C compiler of --output-exe/--output-obj (default clang-14)", O_CLANG},
    {{"p"}, "plugin", "plugin", "dynamically load plugin", O_PLUGIN},
    {{"P"}, "plugin-path", "path", "path to search for plugins", O_PLUGIN_PATH},
    {{"V"}, "verbose", NULL, "verbose (may be given up to 4 times)", O_VERBOSE},
    {{"O"}, "optimize", "level", "optimization level (0, 1 or 2; default 2)", O_OPT},
    {{NULL}, "output-ast", "file", "output AST of the input file", O_AST},
    {{NULL}, "output-d", "file", "emit dependencies of the --output-h file", O_D},
    {{NULL}, "output-dot", "file", "emit the program graph in Graphviz DOT", O_DOT},
    {{NULL}, "output-h", "file", "emit the plugin header (bootstrap mode)", O_H},
    {{NULL}, "output-ll", "file", "compile the program to LLVM IR", O_LL},
    {{NULL}, "output-md", "file", "emit the input file as Markdown", O_MD},
    {{"o"}, "output-mim", "file", "emit the program in Mim syntax", O_MIM},
    {{"a"}, "ascii", NULL, "use ASCII alternatives in output instead of UTF-8", O_ASCII},
    {{NULL}, "bootstrap", NULL, "bootstrap a plugin's interface", O_BOOTSTRAP},
    {{NULL}, "dot-follow-types", NULL, "follow type edges in DOT output", O_DOT_TYPES},
    {{NULL}, "dot-all-annexes", NULL, "include all registered annexes in DOT output", O_DOT_ANNEXES},
    {{NULL}, "dump-gid", "level", "print the gid of nodes (1: with operands; 2: all)", O_DUMP_GID},
    {{NULL}, "dump-recursive", NULL, "dump the program with the flat recursive algorithm", O_DUMP_REC},
    {{NULL}, "aggr-lam-spec", NULL, "let lambda specialization follow recursive calls", O_AGGR},
    {{NULL}, "scalarize-threshold", "threshold",
     "arity from which tuples, packs, sigmas and arrays are not scalarized (default 32)", O_SCALARIZE},
    /* Extensions (docs/cli.md). */
    {{NULL}, "output-exe", "file", "compile and link an executable with the C compiler (-c)", O_EXE},
    {{NULL}, "output-obj", "file", "compile an object file with the C compiler (-c)", O_OBJ},
    {{NULL}, "link", "arg", "extra argument of the --output-exe link (C file, -lNAME); repeatable", O_LINK},
    {{NULL}, "run", NULL, "JIT-compile and run main; arguments of the program follow --", O_RUN},
    {{NULL}, "color", "when", "colour diagnostics: auto (default; a terminal, no NO_COLOR), always, never", O_COLOR},
    {{NULL}, "time-passes", NULL, "print the time of every phase and pass", O_TIME},
};
#define NUM_SPECS (sizeof specs / sizeof specs[0])

static void spellings(const OptSpec *s, char *buf, size_t n, const char *sep, bool with_hint) {
    buf[0] = '\0';
    for (int i = 0; i < 2 && s->shorts[i]; ++i) {
        strncat(buf, "-", n - strlen(buf) - 1);
        strncat(buf, s->shorts[i], n - strlen(buf) - 1);
        strncat(buf, sep, n - strlen(buf) - 1);
    }
    strncat(buf, "--", n - strlen(buf) - 1);
    strncat(buf, s->longname, n - strlen(buf) - 1);
    if (with_hint && s->hint) {
        strncat(buf, " <", n - strlen(buf) - 1);
        strncat(buf, s->hint, n - strlen(buf) - 1);
        strncat(buf, ">", n - strlen(buf) - 1);
    }
}

static void print_help(const char *argv0) {
    char buf[128];
    printf("USAGE:\n  %s", argv0);
    size_t col = 2 + strlen(argv0);
    for (size_t i = 0; i <= NUM_SPECS; ++i) {
        char item[160];
        if (i == NUM_SPECS) {
            strcpy(item, "<file>");
        } else {
            spellings(&specs[i], buf, sizeof buf, "|", true);
            snprintf(item, sizeof item, "[%s]", buf);
        }
        if (col + 1 + strlen(item) > 100) {
            printf("\n   ");
            col = 3;
        }
        printf(" %s", item);
        col += 1 + strlen(item);
    }
    printf("\n\nOPTIONS, ARGUMENTS:\n");
    for (size_t i = 0; i <= NUM_SPECS; ++i) {
        const char *help = i == NUM_SPECS ? "input file" : specs[i].help;
        if (i == NUM_SPECS) strcpy(buf, "<file>");
        else spellings(&specs[i], buf, sizeof buf, ", ", true);
        if (strlen(buf) + 2 < 25) printf("  %-23s%s\n", buf, help);
        else printf("  %s\n%25s%s\n", buf, "", help);
    }
    printf("\nUse \"-\" as <file> of an --output-* or -o option to write to stdout, as the input <file> to read stdin.\n");
}

static const OptSpec *find_long(const char *name, size_t len) {
    for (size_t i = 0; i < NUM_SPECS; ++i)
        if (strlen(specs[i].longname) == len && strncmp(specs[i].longname, name, len) == 0)
            return &specs[i];
    return NULL;
}

static const OptSpec *find_short(char c) {
    for (size_t i = 0; i < NUM_SPECS; ++i)
        for (int k = 0; k < 2 && specs[i].shorts[k]; ++k)
            if (specs[i].shorts[k][0] == c) return &specs[i];
    return NULL;
}

static bool parse_uint(const char *s, uint64_t *out) {
    if (!*s) return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno || s[0] == '-') return false;
    *out = v;
    return true;
}

/* Applies one option; returns 0 to continue, 1 for an error, 2 to exit 0. */
static int apply(MimOptions *o, const OptSpec *s, const char *val, const char *spelled) {
    uint64_t n;
    switch (s->id) {
    case O_HELP: print_help(o->argv0); return 2;
    case O_VERSION: fprintf(stderr, "mim command-line utility version " MIM_VERSION "\n"); return 2;
    case O_LIST: {
        char *paths[MIM_MAX_PATHS + 16];
        size_t np = mim_search_paths(o, paths, sizeof paths / sizeof paths[0]);
        for (size_t i = 1; i < np; ++i) printf("\"%s\"\n", paths[i]);
        mim_search_paths_free(paths, np);
        return 2;
    }
    case O_CLANG: o->clang = val; return 0;
    case O_PLUGIN:
    case O_PLUGIN_PATH: {
        const char **list = s->id == O_PLUGIN ? o->plugins : o->plugin_paths;
        size_t *len = s->id == O_PLUGIN ? &o->num_plugins : &o->num_plugin_paths;
        if (*len == MIM_MAX_PATHS) {
            fprintf(stderr, "error: too many %s options\n", spelled);
            return 1;
        }
        list[(*len)++] = val;
        return 0;
    }
    case O_VERBOSE:
        if (++o->verbose > 4) {
            fprintf(stderr, "error: option %s given more than 4 times\n", spelled);
            return 1;
        }
        return 0;
    case O_OPT: {
        char *end;
        errno = 0;
        long v = strtol(val, &end, 10);
        if (!*val || *end || errno) {
            fprintf(stderr, "error: invalid value '%s' for option %s\n", val, spelled);
            return 1;
        }
        o->opt_level = v;
        return 0;
    }
    case O_AST: o->out_ast = val; return 0;
    case O_D: o->out_d = val; return 0;
    case O_DOT: o->out_dot = val; return 0;
    case O_H: o->out_h = val; return 0;
    case O_LL: o->out_ll = val; return 0;
    case O_MD: o->out_md = val; return 0;
    case O_MIM: o->out_mim = val; return 0;
    case O_ASCII: o->ascii = true; return 0;
    case O_BOOTSTRAP: o->bootstrap = true; return 0;
    case O_DOT_TYPES: o->dot_follow_types = true; return 0;
    case O_DOT_ANNEXES: o->dot_all_annexes = true; return 0;
    case O_DUMP_GID:
        if (!parse_uint(val, &n) || n > 2) {
            fprintf(stderr, "error: invalid value '%s' for option %s\n", val, spelled);
            return 1;
        }
        o->dump_gid = (int)n;
        return 0;
    case O_DUMP_REC: o->dump_recursive = true; return 0;
    case O_AGGR: o->aggr_lam_spec = true; return 0;
    case O_EXE: o->out_exe = val; return 0;
    case O_OBJ: o->out_obj = val; return 0;
    case O_LINK:
        if (o->num_links == MIM_MAX_PATHS) {
            fprintf(stderr, "error: too many %s options\n", spelled);
            return 1;
        }
        o->links[o->num_links++] = val;
        return 0;
    case O_RUN: o->run = true; return 0;
    case O_COLOR:
        if (strcmp(val, "auto") == 0) o->color = MIM_COLOR_AUTO;
        else if (strcmp(val, "always") == 0) o->color = MIM_COLOR_ALWAYS;
        else if (strcmp(val, "never") == 0) o->color = MIM_COLOR_NEVER;
        else {
            fprintf(stderr, "error: invalid value '%s' for option %s (auto, always or never)\n", val, spelled);
            return 1;
        }
        return 0;
    case O_TIME: o->time_passes = true; return 0;
    case O_SCALARIZE:
        if (!parse_uint(val, &n)) {
            fprintf(stderr, "error: invalid value '%s' for option %s\n", val, spelled);
            return 1;
        }
        o->scalarize_threshold = n;
        return 0;
    }
    return 1;
}

/* The arguments after `--`: the program's, for --run (its argv[0] is the
 * input's name). */
static int program_args(MimOptions *o, int argc, char **argv, int first) {
    if (!o->run) {
        fprintf(stderr, "error: arguments after -- are for the program of --run\n");
        return 1;
    }
    o->run_argc = 1 + argc - first;
    o->run_argv = mim_xcalloc((size_t)o->run_argc + 1, sizeof *o->run_argv);
    o->run_argv[0] = (char *)o->input;
    for (int i = first; i < argc; ++i) o->run_argv[1 + i - first] = argv[i];
    return 0;
}

/* Parses argv into o. Returns 0 to run, 1 on error, 2 to exit successfully.
 * Informational options (help, version, list) act once all options are read
 * so that -P given after -l still counts. */
static int parse_args(MimOptions *o, int argc, char **argv) {
    const OptSpec *info = NULL;
    int rest = argc; /* the first argument after `--` */
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            rest = i + 1;
            break;
        }
        if (a[0] != '-' || a[1] == '\0') { /* the input; "-" is stdin (docs/cli.md) */
            if (o->input) {
                fprintf(stderr, "error: more than one input file given: '%s' and '%s'\n", o->input, a);
                return 1;
            }
            o->input = a;
            continue;
        }
        if (a[1] == '-') { /* --name[=value] */
            const char *name = a + 2, *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            const OptSpec *s = find_long(name, len);
            if (!s) {
                fprintf(stderr, "error: unknown option %s\n", a);
                return 1;
            }
            const char *val = NULL;
            if (s->hint) {
                if (eq) val = eq + 1;
                else if (i + 1 < argc) val = argv[++i];
                else {
                    fprintf(stderr, "error: option --%s requires a value <%s>\n", s->longname, s->hint);
                    return 1;
                }
            } else if (eq) {
                fprintf(stderr, "error: option --%s takes no value\n", s->longname);
                return 1;
            }
            if (s->id == O_HELP || s->id == O_VERSION || s->id == O_LIST) {
                if (!info) info = s;
                continue;
            }
            int r = apply(o, s, val, a);
            if (r) return r;
            continue;
        }
        for (const char *c = a + 1; *c; ++c) { /* -x, -xy (flags), -xVALUE, -x=VALUE, -x VALUE */
            const OptSpec *s = find_short(*c);
            char spelled[3] = {'-', *c, '\0'};
            if (!s) {
                fprintf(stderr, "error: unknown option %s\n", a);
                return 1;
            }
            const char *val = NULL;
            if (s->hint) {
                if (c[1] == '=') val = c + 2;
                else if (c[1]) val = c + 1;
                else if (i + 1 < argc) val = argv[++i];
                else {
                    fprintf(stderr, "error: option %s requires a value <%s>\n", spelled, s->hint);
                    return 1;
                }
            }
            if (s->id == O_HELP || s->id == O_VERSION || s->id == O_LIST) {
                if (!info) info = s;
            } else {
                int r = apply(o, s, val, spelled);
                if (r) return r;
            }
            if (val) break;
        }
    }
    if (info) return apply(o, info, NULL, NULL);
    return rest < argc || o->run ? program_args(o, argc, argv, rest) : 0;
}

typedef struct Job {
    MimOptions *opts;
    int result;
} Job;

static void run_job(Job *job) { job->result = mim_run(job->opts, stderr); }

#ifdef MIM_ASAN_BUILD
static void *thread_entry(void *job) {
    run_job(job);
    return NULL;
}

/* Runs the job on a new thread whose stack is `stack`; false if impossible. */
static bool run_on_stack(Job *job, void *stack, size_t size) {
    pthread_attr_t attr;
    pthread_t th;
    if (pthread_attr_init(&attr) != 0) return false;
    bool ok = pthread_attr_setstack(&attr, stack, size) == 0 && pthread_create(&th, &attr, thread_entry, job) == 0;
    if (ok) pthread_join(th, NULL);
    pthread_attr_destroy(&attr);
    return ok;
}
#else
/* makecontext passes int arguments only: the Job's address in two halves. */
static void context_entry(unsigned hi, unsigned lo) {
    run_job((Job *)(uintptr_t)((uint64_t)hi << 32 | lo));
}

/* Runs the job on `stack` in this thread (swapcontext); false if impossible.
 * A switch rather than a new thread: on the 2-core VM a new thread often
 * waited ~1.5 ms for a CPU, and creating it cost ~0.4 ms more (docs/startup.md). */
static bool run_on_stack(Job *job, void *stack, size_t size) {
    ucontext_t caller, callee;
    if (getcontext(&callee) != 0) return false;
    callee.uc_stack.ss_sp = stack;
    callee.uc_stack.ss_size = size;
    callee.uc_link = &caller; /* context_entry returns here */
    uint64_t addr = (uint64_t)(uintptr_t)job;
    makecontext(&callee, (void (*)(void))context_entry, 2, (unsigned)(addr >> 32), (unsigned)addr);
    return swapcontext(&caller, &callee) == 0;
}
#endif

#define BIG_STACK ((size_t)1 << 30)
#define SMALL_PART ((size_t)8 << 20) /* the top of the stack: ordinary pages */

/* The big stack: a lazily faulted mapping with a guard page at its low end.
 * Beyond its top SMALL_PART, which every run uses, it is advised to be
 * backed by huge pages: a deep recursion over a big program (the rewriter
 * walks chains of thousands of functions) then faults 2 MiB at a time
 * instead of 4 KiB (measured: ~90 K faults, ~0.5 s, at 3·10^4 generated
 * functions). NULL if the mapping fails. */
static void *map_stack(void) {
#if defined(MAP_ANONYMOUS) && defined(MAP_NORESERVE)
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) return NULL;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
#if defined(MAP_STACK)
    flags |= MAP_STACK;
#endif
    char *base = mmap(NULL, BIG_STACK, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (base == MAP_FAILED) return NULL;
    if (mprotect(base, (size_t)page, PROT_NONE) != 0) {
        munmap(base, BIG_STACK);
        return NULL;
    }
#if defined(MADV_HUGEPAGE)
    madvise(base, BIG_STACK - SMALL_PART, MADV_HUGEPAGE); /* a hint */
#endif
    return base;
#else
    return NULL;
#endif
}

/* Runs the compiler on the big stack, of which partial evaluation may use
 * three quarters; falls back to this stack and the default budget. */
static int run_with_big_stack(MimOptions *o) {
    Job job = {o, 1};
    void *stack = map_stack();
    o->stack_budget = BIG_STACK / 4 * 3;
    bool ran = stack && run_on_stack(&job, stack, BIG_STACK);
    if (stack && !o->exiting) munmap(stack, BIG_STACK);
    if (!ran) {
        o->stack_budget = 0;
        run_job(&job);
    }
    return job.result;
}

/* The compiler allocates and frees its memory in big blocks (arena chunks
 * and tables). By default glibc maps blocks above 128 KiB one by one and
 * unmaps them on free, and returns freed heap tops to the system: each such
 * call is a system call with TLB flushes, and memory given back has to be
 * faulted in again by the next World. Keeping freed memory in the heap lets
 * later blocks reuse it, and the process exit returns it all at once. */
static void tune_malloc(void) {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_TOP_PAD, 1 << 20);
#endif
}

/* The part of the heap that every run of this kind touches is mapped in one
 * call: a block is allocated, populated and freed, and with the trim
 * threshold above it stays at the top of the heap for the allocations that
 * follow. Only what is surely used pays: on some days this VM maps a page
 * in advance 6x cheaper than it faults it (2026-11-22: ~1.6 vs ~10 us), on
 * others at the same cost (2026-11-26: ~2.2 us both), and then every page
 * populated but never used is lost time. An empty -O2 run touches ~700 KiB
 * of heap (the cleanups' tables and first chunks), an -O0 run ~120 KiB; so
 * -O2 warms 512 KiB and the other levels nothing (docs/startup.md). */
#define WARM_HEAP_O2 ((size_t)512 << 10)
static void warm_heap(long opt_level) {
#if defined(__GLIBC__)
    if (opt_level < 2) return;
    void *p = malloc(WARM_HEAP_O2);
    if (!p) return;
    mim_pages_populate(p, WARM_HEAP_O2);
    free(p);
#else
    (void)opt_level;
#endif
}

/* An environment switch: set, not empty and not "0". */
static bool env_flag(const char *name) {
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

int main(int argc, char **argv) {
    tune_malloc();
    MimOptions o;
    mim_options_init(&o);
    o.argv0 = argc > 0 ? argv[0] : "mim";
    /* MIM_NO_PRELUDE=1: emit the plugin interfaces instead of loading their
     * prelude images (docs/startup.md). MIM_KEEP_HELPERS=1: the optimizer
     * visits unused interface helpers too (docs/optimizer.md). The test
     * suite compares both ways of each. */
    o.no_prelude = env_flag("MIM_NO_PRELUDE");
    o.keep_helpers = env_flag("MIM_KEEP_HELPERS");
    int r = parse_args(&o, argc, argv);
    if (r != 0) {
        free(o.run_argv);
        return r == 2 ? 0 : 1;
    }
    warm_heap(o.opt_level);
    /* Like other compilers, the command leaves its memory to the process
     * exit; an ASan build frees it all for the leak checker. */
#if !defined(MIM_ASAN_BUILD)
    o.exiting = true;
#endif
    r = run_with_big_stack(&o);
    free(o.run_argv);
    return r;
}
