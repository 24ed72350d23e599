/* Printers of a World (output-format.md): the `-o` Mim dump (§1–§6), the
 * Graphviz DOT graph (§8) and single-node strings for messages. All of them
 * run with the World frozen and never create nodes: a variable or projection
 * that was never built is printed as absent. */
#ifndef MIM_IR_PRINT_H
#define MIM_IR_PRINT_H

#include "mim/def.h"
#include "mim/world.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct MimPrintOptions {
    bool ascii;                   /* -a: ASCII alternatives of §5.2 */
    int dump_gid;                 /* --dump-gid level 0, 1 or 2 (§5.3) */
    bool recursive;               /* --dump-recursive (§6) */
    uint64_t scalarize_threshold; /* parameter patterns (§3.2); 0 = the World's */
} MimPrintOptions;

/* The Mim dump of everything reachable from the externals. import_lines are
 * written first, one per line, as given (e.g. ".import x.mim;"); they are
 * omitted in recursive mode. o may be NULL (defaults). */
void mim_print_world(MimWorld *w, FILE *out, const MimPrintOptions *o,
                     const char *const *import_lines, size_t n);

/* The DOT graph of the externals (and of all annexes if all_annexes). */
void mim_print_dot(MimWorld *w, FILE *out, bool follow_types, bool all_annexes);

/* Operand form of d (§5: inline form or identifier), UTF-8, no gids; heap
 * string, caller frees. Used in error messages. */
char *mim_def_to_str(MimWorld *w, const MimDef *d);

/* Full inline form of d (§5) with the given options (o may be NULL); heap
 * string, caller frees. */
char *mim_def_inline_str(MimWorld *w, const MimDef *d, const MimPrintOptions *o);

/* A reusable printer for many strings of one World (e.g. DOT labels): it
 * keeps its caches between calls. The World should be frozen while used.
 * The returned strings are owned by the printer and valid until its next
 * call; limit > 0 cuts the output (marked by `…`) once it exceeds about
 * limit bytes, so that each call costs O(limit). */
typedef struct MimPrinter MimPrinter;
MimPrinter *mim_printer_new(MimWorld *w, const MimPrintOptions *o);
void mim_printer_free(MimPrinter *pr);
const char *mim_printer_inline(MimPrinter *pr, const MimDef *d, size_t limit);
const char *mim_printer_operand(MimPrinter *pr, const MimDef *d, size_t limit);

#endif
