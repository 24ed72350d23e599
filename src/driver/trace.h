/* What a run tells about its progress (docs/cli.md): -V logs each phase and
 * pass as it starts, -VV also its time when it ends, and --time-passes
 * prints a table of the time of every phase and pass at the end. Log lines
 * have the form of spec/cli.md §7: `I:<unknown location>: <text>`. */
#ifndef MIM_DRIVER_TRACE_H
#define MIM_DRIVER_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define MIM_TRACE_DEPTH 8

typedef struct MimTraceEntry {
    char *name;
    int depth;   /* nesting: pipeline steps lie inside "optimize" */
    double secs; /* < 0 while running */
} MimTraceEntry;

typedef struct MimTrace {
    FILE *out;
    int verbose;
    bool table;
    MimTraceEntry *entries;
    size_t len, cap;
    size_t open[MIM_TRACE_DEPTH]; /* entries begun and not ended, innermost last */
    double started[MIM_TRACE_DEPTH];
    int depth;
    double t0;
} MimTrace;

void mim_trace_init(MimTrace *t, FILE *out, int verbose, bool table);
/* Nothing is measured or logged unless -V or --time-passes asked for it. */
static inline bool mim_trace_on(const MimTrace *t) { return t->verbose > 0 || t->table; }
void mim_trace_begin(MimTrace *t, const char *name);
void mim_trace_end(MimTrace *t);
/* The --time-passes table (if asked for); ends what is still open. */
void mim_trace_finish(MimTrace *t);
void mim_trace_free(MimTrace *t);

#endif
