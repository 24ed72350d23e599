/* Diagnostics collector and printer (see include/mim/loc.h). */
#include "mim/loc.h"

#include "mim/xalloc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void mim_diag_init(MimDiag *d) { memset(d, 0, sizeof *d); }

void mim_diag_clear(MimDiag *d) {
    for (size_t i = 0; i < d->len; ++i) {
        free(d->msgs[i].text);
        free((char *)d->msgs[i].loc.file);
    }
    d->len = 0;
    d->num_errors = d->num_warnings = 0;
}

void mim_diag_free(MimDiag *d) {
    mim_diag_clear(d);
    free(d->msgs);
    memset(d, 0, sizeof *d);
}

/* A message owns its file name: the World or front end that named the file
 * may be gone when the message is printed (the optimizer frees Worlds). */
static void push(MimDiag *d, MimSeverity sev, MimLoc loc, char *text) {
    if (loc.file) loc.file = mim_xstrdup(loc.file);
    if (d->len == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 16;
        d->msgs = mim_xrealloc(d->msgs, d->cap * sizeof *d->msgs);
    }
    d->msgs[d->len++] = (MimDiagMsg){sev, loc, text};
    if (sev == MIM_ERROR) d->num_errors++;
    if (sev == MIM_WARNING) d->num_warnings++;
}

void mim_diag_vreport(MimDiag *d, MimSeverity sev, MimLoc loc, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    size_t len = n < 0 ? 0 : (size_t)n;
    char *text = mim_xmalloc(len + 1);
    vsnprintf(text, len + 1, fmt, ap2);
    va_end(ap2);
    push(d, sev, loc, text);
}

void mim_diag_report(MimDiag *d, MimSeverity sev, MimLoc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    mim_diag_vreport(d, sev, loc, fmt, ap);
    va_end(ap);
}

void mim_diag_append(MimDiag *dst, const MimDiag *src) {
    for (size_t i = 0; i < src->len; ++i)
        push(dst, src->msgs[i].sev, src->msgs[i].loc, mim_xstrdup(src->msgs[i].text));
}

void mim_loc_print(MimLoc loc, FILE *out) {
    if (loc.begin.row == 0) {
        fputs("<unknown location>", out);
        return;
    }
    fputs(loc.file ? loc.file : "<unknown file>", out);
    fprintf(out, ":%u:%u", loc.begin.row, loc.begin.col);
    if (loc.end.row != 0 && (loc.end.row != loc.begin.row || loc.end.col != loc.begin.col))
        fprintf(out, "-%u:%u", loc.end.row, loc.end.col);
}

MimLoc mim_loc_span(MimLoc a, MimLoc b) {
    if (a.begin.row == 0) return b;
    if (b.begin.row == 0) return a;
    MimLoc r = a;
    r.end = b.end.row ? b.end : b.begin;
    return r;
}

static void print_msg(const MimDiagMsg *m, FILE *out, bool color) {
    static const char *const names[] = {"error", "warning", "note"};
    static const char *const colors[] = {"\033[31m", "\033[35m", "\033[32m"};
    if (color) fputs("\033[33m", out);
    mim_loc_print(m->loc, out);
    if (color) fputs("\033[0m", out);
    fputs(": ", out);
    if (color) fputs(colors[m->sev], out);
    fputs(names[m->sev], out);
    if (color) fputs("\033[0m", out);
    fprintf(out, ": %s\n", m->text);
}

void mim_diag_print(const MimDiag *d, FILE *out, bool color) {
    for (size_t i = 0; i < d->len; ++i) print_msg(&d->msgs[i], out, color);
}

/* ---- source lines under messages ------------------------------------------- */

/* The text of the file last shown (one file is usually shown many times in
 * a row); owned unless it came from the caller's source function. */
typedef struct SourceCache {
    MimSourceFn source;
    void *ctx;
    char *file;
    const char *text;
    char *owned;
    size_t len;
} SourceCache;


static const char *cached_text(SourceCache *c, const char *file, size_t *len) {
    if (!c->file || strcmp(c->file, file) != 0) {
        free(c->file), free(c->owned);
        c->file = mim_xstrdup(file);
        c->owned = NULL;
        c->len = 0;
        c->text = c->source ? c->source(c->ctx, file, &c->len) : NULL;
        if (!c->text) c->text = c->owned = mim_read_file(file, &c->len);
    }
    *len = c->len;
    return c->text;
}

/* Start and length of line `row` (1-based) of text, without its newline. */
static bool find_line(const char *text, size_t len, uint32_t row, const char **line, size_t *n) {
    const char *p = text, *end = text + len;
    for (uint32_t r = 1; r < row; ++r) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) return false;
        p = nl + 1;
    }
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    *line = p;
    *n = (size_t)((nl ? nl : end) - p);
    if (*n && p[*n - 1] == '\r') --*n;
    return true;
}

/* The line, then spaces (tabs where the line has tabs, to keep alignment)
 * up to the range, `^` under its first code point and `~` under the others
 * up to its end or the end of the line. */
static void print_snippet(const MimLoc *loc, const char *line, size_t n, FILE *out, bool color) {
    fwrite(line, 1, n, out);
    fputc('\n', out);
    uint32_t last = loc->end.row == loc->begin.row && loc->end.col >= loc->begin.col ? loc->end.col
                    : loc->end.row > loc->begin.row                                 ? UINT32_MAX
                                                                                      : loc->begin.col;
    uint32_t col = 0;
    bool marked = false;
    for (size_t i = 0; i < n; ++i) {
        if (((unsigned char)line[i] & 0xC0) == 0x80) continue; /* inside a code point */
        ++col;
        if (col < loc->begin.col) {
            fputc(line[i] == '\t' ? '\t' : ' ', out);
            continue;
        }
        if (col > last) break;
        if (!marked && color) fputs("\033[1;32m", out);
        fputc(marked ? '~' : '^', out);
        marked = true;
    }
    if (!marked) { /* the range starts at the end of the line (e.g. end of input) */
        if (color) fputs("\033[1;32m", out);
        fputc('^', out);
    }
    if (color) fputs("\033[0m", out);
    fputc('\n', out);
}

static bool same_loc(const MimLoc *a, const MimLoc *b) {
    return a->file && b->file && strcmp(a->file, b->file) == 0 && a->begin.row == b->begin.row &&
           a->begin.col == b->begin.col && a->end.row == b->end.row && a->end.col == b->end.col;
}

void mim_diag_print_source(const MimDiag *d, FILE *out, bool color, MimSourceFn source, void *ctx) {
    SourceCache cache = {source, ctx, NULL, NULL, NULL, 0};
    const MimLoc *shown = NULL;
    for (size_t i = 0; i < d->len; ++i) {
        const MimDiagMsg *m = &d->msgs[i];
        print_msg(m, out, color);
        if (!m->loc.file || m->loc.begin.row == 0 || m->loc.begin.col == 0) continue;
        if (shown && same_loc(shown, &m->loc)) continue;
        size_t len, n;
        const char *text = cached_text(&cache, m->loc.file, &len), *line;
        if (!text || !find_line(text, len, m->loc.begin.row, &line, &n)) continue;
        print_snippet(&m->loc, line, n, out, color);
        shown = &m->loc;
    }
    free(cache.file), free(cache.owned);
}
