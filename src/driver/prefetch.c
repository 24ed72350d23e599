/* Warm-up of the plugin libraries of a run (prefetch.h).
 *
 * Opening the standard plugin libraries costs a run about 2 ms (measured on
 * the 2-core VM): file look-ups, mappings, relocations, page faults, and libm
 * for the math plugin. The run itself only knows which libraries it needs after
 * parsing, and then opens them one after the other. The CLI's main thread is
 * idle while the run goes on in its big-stack thread, so it opens the same
 * libraries beforehand, in parallel: when the run opens them, the dynamic
 * loader finds them loaded and only counts a reference.
 *
 * Which libraries: those of the implicit and -p plugins (the run parses
 * their interfaces before it opens them, so this thread is ahead), and of
 * the plugin
 * directives at the head of their interface files, of everything these
 * import, and of the input (the directives are read with a small scanner
 * of the directive syntax; a file it does not understand just ends the
 * scan). The files are found like the front end finds them (fe.c lookup)
 * and the libraries are opened by the loader's own lookup (load.c), so
 * nothing is opened that the run would not open itself, except a plugin of
 * a directive the run rejects later for another reason. */
#include "driver/prefetch.h"

#include "driver/load.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAME 64    /* longer module names are not prefetched */
#define MAX_MODULES 64 /* interface files scanned at most */

typedef struct Scan {
    const char *const *paths;
    size_t num_paths;
    char modules[MAX_MODULES][MAX_NAME + 1]; /* queue of module names, scanned in order */
    size_t num_modules, next_module;
    char libs[MIM_PREFETCH_MAX][MAX_NAME + 1]; /* plugin libraries to open, in order */
    size_t num_libs;
} Scan;

static bool listed(char (*list)[MAX_NAME + 1], size_t n, const char *name) {
    for (size_t i = 0; i < n; ++i)
        if (strcmp(list[i], name) == 0) return true;
    return false;
}

static void add_module(Scan *s, const char *name) {
    if (strlen(name) <= MAX_NAME && s->num_modules < MAX_MODULES &&
        !listed(s->modules, s->num_modules, name))
        strcpy(s->modules[s->num_modules++], name);
}

static void add_lib(Scan *s, const char *name) {
    if (strlen(name) <= MAX_NAME && s->num_libs < MIM_PREFETCH_MAX && !listed(s->libs, s->num_libs, name))
        strcpy(s->libs[s->num_libs++], name);
}

/* ---- reading interface files ------------------------------------------------ */

/* The whole file, NUL-terminated, or NULL. */
static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 8192, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        len += fread(buf + len, 1, cap - len - 1, f);
        if (len < cap - 1) break;
        char *bigger = realloc(buf, cap *= 2);
        if (!bigger) free(buf);
        buf = bigger;
    }
    fclose(f);
    if (buf) buf[len] = '\0';
    return buf;
}

/* The text of module `name` found as the front end finds an import: for
 * each search path D, D/<name>.mim, then D/<name>/<name>.mim. */
static char *read_module(const Scan *s, const char *name) {
    char path[4096];
    for (size_t i = 0; i < s->num_paths; ++i) {
        const char *dir = s->paths[i];
        const char *sep = *dir && dir[strlen(dir) - 1] != '/' ? "/" : "";
        int n = *dir ? snprintf(path, sizeof path, "%s%s%s.mim", dir, sep, name)
                     : snprintf(path, sizeof path, "%s.mim", name);
        char *text = n > 0 && (size_t)n < sizeof path ? slurp(path) : NULL;
        if (text) return text;
        n = *dir ? snprintf(path, sizeof path, "%s%s%s/%s.mim", dir, sep, name, name)
                 : snprintf(path, sizeof path, "%s/%s.mim", name, name);
        text = n > 0 && (size_t)n < sizeof path ? slurp(path) : NULL;
        if (text) return text;
    }
    return NULL;
}

/* ---- the directive scanner --------------------------------------------------- */

static const char *skip_blank(const char *p) {
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') ++p;
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n') ++p;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *end = strstr(p + 2, "*/");
            if (!end) return p + strlen(p);
            p = end + 2;
        } else {
            return p;
        }
    }
}

static bool is_id_start(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_id_char(char c) { return is_id_start(c) || (c >= '0' && c <= '9') || c == '.'; }

/* Keyword kw at p followed by a non-identifier character. */
static bool keyword(const char *p, const char *kw) {
    size_t n = strlen(kw);
    return strncmp(p, kw, n) == 0 && !is_id_char(p[n]);
}

/* `import N;` and `plugin N;` at the head of text, until anything else. */
static void scan_directives(Scan *s, const char *text) {
    const char *p = skip_blank(text);
    for (;;) {
        bool plugin = keyword(p, "plugin");
        if (!plugin && !keyword(p, "import")) return;
        p = skip_blank(p + 6);
        if (!is_id_start(*p)) return;
        char name[MAX_NAME + 1];
        size_t n = 0;
        while (is_id_char(p[n])) ++n;
        if (n > MAX_NAME) return;
        memcpy(name, p, n);
        name[n] = '\0';
        p = skip_blank(p + n);
        if (*p != ';') return;
        p = skip_blank(p + 1);
        if (plugin) add_lib(s, name);
        add_module(s, name);
    }
}

static void scan_modules(Scan *s) {
    while (s->next_module < s->num_modules) {
        char *text = read_module(s, s->modules[s->next_module++]);
        if (!text) continue;
        scan_directives(s, text);
        free(text);
    }
}

/* ---- entry points -------------------------------------------------------------- */

/* Opens the libraries from the from-th on; returns how many are listed. */
static size_t open_libs(MimPrefetch *pf, const Scan *s, size_t from) {
    for (size_t i = from; i < s->num_libs; ++i) {
        void *h = mim_plugin_library_open(s->libs[i], s->paths, s->num_paths);
        if (h) pf->handles[pf->num_handles++] = h;
    }
    return s->num_libs;
}

void mim_prefetch_plugins(MimPrefetch *pf, const MimOptions *o) {
    memset(pf, 0, sizeof *pf);
    if (o->bootstrap) return; /* no library is loaded then */
    char *paths[MIM_MAX_PATHS + 16];
    size_t num_paths = mim_search_paths(o, paths, sizeof paths / sizeof *paths);
    Scan *s = calloc(1, sizeof *s);
    if (!s) goto out;
    s->paths = (const char *const *)paths;
    s->num_paths = num_paths;

    /* The run's order: compile, the -p plugins, opt, then the input. These
     * libraries are opened first (the run needs them first), then those of
     * the directives found by scanning the interfaces. */
    add_lib(s, "compile");
    add_module(s, "compile");
    for (size_t i = 0; i < o->num_plugins; ++i) {
        add_lib(s, o->plugins[i]);
        add_module(s, o->plugins[i]);
    }
    if (o->opt_level >= 2) {
        add_lib(s, "opt");
        add_module(s, "opt");
    }
    size_t opened = open_libs(pf, s, 0);
    scan_modules(s);
    char *input = o->input ? slurp(o->input) : NULL;
    if (input) {
        scan_directives(s, input);
        free(input);
        scan_modules(s);
    }
    open_libs(pf, s, opened);
    free(s);
out:
    mim_search_paths_free(paths, num_paths);
}

void mim_prefetch_release(MimPrefetch *pf) {
    for (size_t i = pf->num_handles; i-- > 0;) dlclose(pf->handles[i]);
    pf->num_handles = 0;
}
