/* Progress log and time table of a run (trace.h). */
#include "driver/trace.h"

#include "mim/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void mim_trace_init(MimTrace *t, FILE *out, int verbose, bool table) {
    memset(t, 0, sizeof *t);
    t->out = out;
    t->verbose = verbose;
    t->table = table;
    if (mim_trace_on(t)) t->t0 = now();
}

void mim_trace_begin(MimTrace *t, const char *name) {
    if (!mim_trace_on(t)) return;
    if (t->verbose >= 1) fprintf(t->out, "I:<unknown location>: %s\n", name);
    if (t->depth == MIM_TRACE_DEPTH) return; /* deeper steps are not timed */
    if (t->len == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 32;
        t->entries = mim_xrealloc(t->entries, t->cap * sizeof *t->entries);
    }
    t->entries[t->len] = (MimTraceEntry){mim_xstrdup(name), t->depth, -1};
    t->open[t->depth] = t->len++;
    t->started[t->depth++] = now();
}

void mim_trace_end(MimTrace *t) {
    if (!mim_trace_on(t) || t->depth == 0) return;
    MimTraceEntry *e = &t->entries[t->open[--t->depth]];
    e->secs = now() - t->started[t->depth];
    if (t->verbose >= 2) fprintf(t->out, "I:<unknown location>: %s: %.3f ms\n", e->name, e->secs * 1e3);
}

void mim_trace_finish(MimTrace *t) {
    while (t->depth) mim_trace_end(t);
    if (!t->table) return;
    double total = now() - t->t0;
    fprintf(t->out, "===-- mim: time per phase and pass --===\n");
    fprintf(t->out, "%12s %7s  %s\n", "time (ms)", "share", "phase or pass");
    for (size_t i = 0; i < t->len; ++i) {
        const MimTraceEntry *e = &t->entries[i];
        fprintf(t->out, "%12.3f %6.1f%%  %*s%s\n", e->secs * 1e3, total > 0 ? 100 * e->secs / total : 0.0,
                2 * e->depth, "", e->name);
    }
    fprintf(t->out, "%12.3f %6.1f%%  %s\n", total * 1e3, 100.0, "total");
}

void mim_trace_free(MimTrace *t) {
    for (size_t i = 0; i < t->len; ++i) free(t->entries[i].name);
    free(t->entries);
    memset(t, 0, sizeof *t);
}
