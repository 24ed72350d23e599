/* Default options and the plugin search path list of cli.md §4.1:
 * "", every -P directory, every MIM_PLUGIN_PATH entry, <exe dir>/../lib/mim,
 * <install prefix>/lib/mim (each directory only if it exists). */
#include "mim/driver.h"

#include "mim/xalloc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MIM_INSTALL_PREFIX
#define MIM_INSTALL_PREFIX "/usr/local"
#endif

void mim_options_init(MimOptions *o) {
    memset(o, 0, sizeof *o);
    o->opt_level = 2;
    o->scalarize_threshold = 32;
    o->argv0 = "mim";
}

static bool is_dir(const char *p) {
    struct stat st;
    return *p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void add(char **out, size_t *n, size_t max, const char *p, size_t len) {
    if (*n < max) {
        char *s = mim_xmalloc(len + 1);
        memcpy(s, p, len);
        s[len] = '\0';
        out[(*n)++] = s;
    }
}

/* Directory of the running executable (via /proc), or of argv0 as a fallback. */
static bool exe_dir(const char *argv0, char *buf, size_t size) {
    ssize_t len = readlink("/proc/self/exe", buf, size - 1);
    if (len <= 0) {
        if (!argv0 || !realpath(argv0, buf)) return false;
        len = (ssize_t)strlen(buf);
    }
    buf[len] = '\0';
    char *slash = strrchr(buf, '/');
    if (!slash) return false;
    *slash = '\0';
    return true;
}

size_t mim_search_paths(const MimOptions *o, char **out, size_t max) {
    size_t n = 0;
    add(out, &n, max, "", 0);
    for (size_t i = 0; i < o->num_plugin_paths; ++i)
        if (is_dir(o->plugin_paths[i])) add(out, &n, max, o->plugin_paths[i], strlen(o->plugin_paths[i]));
    const char *env = getenv("MIM_PLUGIN_PATH");
    for (const char *p = env; p && *p;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        char dir[PATH_MAX];
        if (len > 0 && len < sizeof dir) {
            memcpy(dir, p, len);
            dir[len] = '\0';
            if (is_dir(dir)) add(out, &n, max, dir, len);
        }
        p = colon ? colon + 1 : p + len;
    }
    char exe[PATH_MAX], lib[PATH_MAX + 16], canon_lib[PATH_MAX] = "", canon_pre[PATH_MAX];
    if (exe_dir(o->argv0, exe, sizeof exe)) {
        snprintf(lib, sizeof lib, "%s/../lib/mim", exe);
        if (is_dir(lib) && realpath(lib, canon_lib)) add(out, &n, max, canon_lib, strlen(canon_lib));
    }
    const char *prefix_lib = MIM_INSTALL_PREFIX "/lib/mim";
    if (is_dir(prefix_lib) && realpath(prefix_lib, canon_pre) && strcmp(canon_pre, canon_lib) != 0)
        add(out, &n, max, canon_pre, strlen(canon_pre));
    return n;
}

void mim_search_paths_free(char **paths, size_t n) {
    for (size_t i = 0; i < n; ++i) free(paths[i]);
}
