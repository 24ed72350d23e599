/* Source locations and diagnostics: every error the library reports carries a
 * location and is printed as `file:row:col[-row:col]: severity: message`. */
#ifndef MIM_LOC_H
#define MIM_LOC_H

#include "mim/api.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1-based row and column (columns count Unicode code points). row 0 = unknown. */
typedef struct MimPos {
    uint32_t row, col;
} MimPos;

/* A range from the first to the last character. file NULL = "<unknown file>";
 * begin.row 0 = no location at all ("<unknown location>"). */
typedef struct MimLoc {
    const char *file;
    MimPos begin, end;
} MimLoc;

typedef enum MimSeverity { MIM_ERROR, MIM_WARNING, MIM_NOTE } MimSeverity;

typedef struct MimDiagMsg {
    MimSeverity sev;
    MimLoc loc; /* its file name is a copy owned by the MimDiag */
    char *text; /* heap-owned by the MimDiag */
} MimDiagMsg;

/* A collector of messages in production order. */
typedef struct MimDiag {
    MimDiagMsg *msgs;
    size_t len, cap;
    unsigned num_errors, num_warnings;
} MimDiag;

MIM_API void mim_diag_init(MimDiag *d);
MIM_API void mim_diag_free(MimDiag *d);
MIM_API void mim_diag_clear(MimDiag *d);
#if defined(__GNUC__)
#define MIM_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define MIM_PRINTF(f, a)
#endif
MIM_API void mim_diag_report(MimDiag *d, MimSeverity sev, MimLoc loc, const char *fmt, ...) MIM_PRINTF(4, 5);
MIM_API void mim_diag_vreport(MimDiag *d, MimSeverity sev, MimLoc loc, const char *fmt, va_list ap)
    MIM_PRINTF(4, 0);
/* Append all messages of src to dst (src is left unchanged). */
MIM_API void mim_diag_append(MimDiag *dst, const MimDiag *src);
/* Print `loc: severity: text` lines; colors only if `color`. */
MIM_API void mim_diag_print(const MimDiag *d, FILE *out, bool color);
/* The text of a file named in a location, or NULL: lets a printer show
 * source lines of files that cannot be read again (stdin). */
typedef const char *(*MimSourceFn)(void *ctx, const char *file, size_t *len);
/* As mim_diag_print, and after each located message the source line with a
 * caret under the first character of the range and `~` under the rest
 * (clang's style; once for consecutive messages at the same location). The
 * text comes from source(ctx, file) if that gives one, else from the file
 * itself; a line that cannot be found is left out. */
MIM_API void mim_diag_print_source(const MimDiag *d, FILE *out, bool color, MimSourceFn source, void *ctx);
MIM_API void mim_loc_print(MimLoc loc, FILE *out);
/* Location spanning from a's begin to b's end. */
MIM_API MimLoc mim_loc_span(MimLoc a, MimLoc b);

#ifdef __cplusplus
}
#endif

#endif
