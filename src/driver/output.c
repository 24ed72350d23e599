/* Output files that appear whole or not at all (output.h): a temporary in
 * the destination's directory, renamed on success. Created with mode 0666 so
 * that the umask applies as for any new file; a replaced file's mode is kept. */
#include "driver/output.h"

#include "mim/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file a rename has to replace: the target of a symlink (so the link
 * stays a link), else the name itself. NULL if the name is to be written
 * directly: an existing non-regular file, or a dangling symlink. */
static char *destination(const char *name) {
    struct stat st;
    if (lstat(name, &st) != 0) return mim_xstrdup(name); /* a new file */
    if (S_ISLNK(st.st_mode)) {
        char buf[PATH_MAX];
        if (stat(name, &st) != 0 || !S_ISREG(st.st_mode) || !realpath(name, buf)) return NULL;
        return mim_xstrdup(buf);
    }
    return S_ISREG(st.st_mode) ? mim_xstrdup(name) : NULL;
}

/* Creates (O_EXCL) a fresh temporary `<dir>/.<base>.tmp<pid>-<i>` beside
 * dest; returns its fd (and the path in *tmp) or -1 with errno set. */
static int create_temp(const char *dest, char **tmp) {
    const char *slash = strrchr(dest, '/');
    size_t dir_len = slash ? (size_t)(slash - dest) + 1 : 0;
    const char *base = slash ? slash + 1 : dest;
    size_t cap = strlen(dest) + 48;
    char *path = mim_xmalloc(cap);
    for (int i = 0; i < 100; ++i) {
        snprintf(path, cap, "%.*s.%s.tmp%ld-%d", (int)dir_len, dest, base, (long)getpid(), i);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd >= 0) {
            *tmp = path;
            return fd;
        }
        if (errno != EEXIST) break;
    }
    int e = errno;
    free(path);
    errno = e;
    return -1;
}

static bool open_as(MimOutput *out, const char *name, FILE *err, bool stream) {
    memset(out, 0, sizeof *out);
    out->name = name;
    if (!name) return true;
    if (strcmp(name, "-") == 0) {
        if (!stream) {
            fprintf(err, "error: output file '-': a binary file is not written to stdout\n");
            return false;
        }
        out->f = stdout;
        return true;
    }
    out->dest = destination(name);
    if (!out->dest) { /* written directly */
        out->f = stream ? fopen(name, "w") : NULL;
        if (stream && !out->f) {
            fprintf(err, "error: cannot open output file '%s': %s\n", name, strerror(errno));
            return false;
        }
        return true;
    }
    int fd = create_temp(out->dest, &out->tmp);
    if (fd < 0) {
        fprintf(err, "error: cannot open output file '%s': %s\n", name, strerror(errno));
        free(out->dest);
        out->dest = NULL;
        return false;
    }
    struct stat st; /* replacing a file keeps its permissions */
    if (stat(out->dest, &st) == 0 && fchmod(fd, st.st_mode & 07777) != 0) { /* a hint only */
    }
    if (!stream) {
        close(fd);
        return true;
    }
    out->f = fdopen(fd, "w");
    if (!out->f) {
        fprintf(err, "error: cannot open output file '%s': %s\n", name, strerror(errno));
        close(fd);
        unlink(out->tmp);
        free(out->tmp), free(out->dest);
        out->tmp = out->dest = NULL;
        return false;
    }
    return true;
}

bool mim_output_open(MimOutput *out, const char *name, FILE *err) { return open_as(out, name, err, true); }

bool mim_output_reserve(MimOutput *out, const char *name, FILE *err) { return open_as(out, name, err, false); }

/* The error flag of a stream is sticky, so checking it here covers every
 * earlier write: a failed write (disk full, closed pipe) is reported. */
bool mim_output_close(MimOutput *out, FILE *err) {
    bool ok = true;
    int e = 0;
    if (out->f) {
        if (fflush(out->f) != 0) e = errno;
        ok = e == 0 && !ferror(out->f);
        if (out->f != stdout && fclose(out->f) != 0 && ok) {
            e = errno;
            ok = false;
        }
        out->f = NULL;
        if (!ok)
            fprintf(err, "error: cannot write output file '%s': %s\n", out->name,
                    e ? strerror(e) : "write error");
    }
    if (out->tmp) {
        if (ok && out->done && rename(out->tmp, out->dest) != 0) {
            fprintf(err, "error: cannot write output file '%s': %s\n", out->name, strerror(errno));
            ok = false;
        }
        if (!ok || !out->done) unlink(out->tmp);
    }
    free(out->tmp), free(out->dest);
    out->tmp = out->dest = NULL;
    return ok;
}
