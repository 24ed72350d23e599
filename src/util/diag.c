/* Diagnostics collector and printer (see include/mim/loc.h). */
#include "mim/loc.h"

#include "mim/xalloc.h"

#include <stdarg.h>
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

void mim_diag_print(const MimDiag *d, FILE *out, bool color) {
    static const char *const names[] = {"error", "warning", "note"};
    static const char *const colors[] = {"\033[31m", "\033[35m", "\033[32m"};
    for (size_t i = 0; i < d->len; ++i) {
        const MimDiagMsg *m = &d->msgs[i];
        if (color) fputs("\033[33m", out);
        mim_loc_print(m->loc, out);
        if (color) fputs("\033[0m", out);
        fputs(": ", out);
        if (color) fputs(colors[m->sev], out);
        fputs(names[m->sev], out);
        if (color) fputs("\033[0m", out);
        fprintf(out, ": %s\n", m->text);
    }
}
