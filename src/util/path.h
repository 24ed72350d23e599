/* The stem of a path: its file name without directory and extension, as a
 * slice of the path itself (a name that only starts with a dot keeps it). */
#ifndef MIM_UTIL_PATH_H
#define MIM_UTIL_PATH_H

#include <stddef.h>
#include <string.h>

/* Start of path's stem; its length in *len. */
static inline const char *mim_path_stem(const char *path, size_t *len) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    *len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    return base;
}

#endif
