/* The Graphviz DOT output of a World (`--output-dot`, output-format.md §8):
 * a depth-first walk from the externals (and, optionally, all annexes),
 * each node drawn once, with operand edges and optionally type edges.
 * Runs with the World frozen; nothing is built. */
#include "ir/print.h"

#include "ir/build.h"
#include "ir/check.h"
#include "ir/ir.h"
#include "ir/world_impl.h"
#include "mim/ptrmap.h"
#include "mim/vec.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct Dot {
    MimWorld *w;
    FILE *out;
    bool follow_types;
    MimPtrMap seen;
    MimPtrMap closed; /* immutable -> (void *)1 if closed, (void *)2 if not */
    MimPrinter *printer;
} Dot;

enum { TOOLTIP_LIMIT = 256 };

/* Follow solved holes (semantics.md §7.1): the graph shows their solutions. */
static MimDef *follow(MimDef *d) {
    while (d && d->node == MIM_INFER && d->ops[0]) d = d->ops[0];
    return d;
}

/* Text inside an HTML-like label or a quoted attribute. */
static void put_escaped(FILE *out, const char *s) {
    for (; *s; ++s) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\\': fputs("&#92;", out); break;
        default: fputc(*s, out); break;
        }
    }
}

static void put_unique_name(FILE *out, const MimDef *d) {
    put_escaped(out, d->name ? d->name : "");
    fprintf(out, "_%" PRIu32, d->gid);
}

/* No free variables (semantics.md §6). Memoized for immutables (fv.c
 * caches only mutables), so the whole graph costs linear time. */
static bool is_closed(Dot *g, MimDef *d) {
    if (!d || !(d->dep & (MIM_DEP_VAR | MIM_DEP_MUT))) return true;
    if (d->is_mut) return mim_is_closed(g->w, d);
    if (d->node == MIM_VAR) return false;
    void *memo = mim_ptrmap_get(&g->closed, d);
    if (memo) return memo == (void *)(uintptr_t)1;
    bool closed = is_closed(g, follow(d->type));
    for (size_t i = 0; closed && i < d->num_ops; ++i) closed = is_closed(g, follow(d->ops[i]));
    mim_ptrmap_put(&g->closed, d, (void *)(uintptr_t)(closed ? 1 : 2));
    return closed;
}

static const char *const sep = "&#13;&#10;";

/* Debug information; its content is not a compatibility requirement. */
static void put_tooltip(Dot *g, MimDef *d) {
    FILE *out = g->out;
    fputs("expr: ", out);
    put_escaped(out, mim_printer_inline(g->printer, d, TOOLTIP_LIMIT));
    fprintf(out, "%stype: ", sep);
    if (d->type) put_escaped(out, mim_printer_operand(g->printer, d->type, TOOLTIP_LIMIT));
    fprintf(out, "%sname: ", sep);
    put_escaped(out, d->name ? d->name : "");
    fprintf(out, "%sgid: %" PRIu32 "%sflags: 0x%" PRIx64, sep, d->gid, sep, d->flags);
    if (d->is_mut) {
        size_t n;
        MimDef *const *fv = mim_mut_free_vars(g->w, d, &n);
        fprintf(out, "%smutable%s%sfree_vars: {", sep, d->is_external ? ", external" : "", sep);
        for (size_t i = 0; i < n; ++i) {
            if (i) fputs(", ", out);
            put_unique_name(out, fv[i]);
        }
        fputs("}", out);
    }
    MimLoc loc = d->loc;
    if (loc.begin.row) {
        fprintf(out, "%sloc: ", sep);
        put_escaped(out, loc.file ? loc.file : "<unknown file>");
        fprintf(out, ":%" PRIu32 ":%" PRIu32, loc.begin.row, loc.begin.col);
    }
}

static void node_line(Dot *g, MimDef *d) {
    FILE *out = g->out;
    fprintf(out, "    _%" PRIu32 "[", d->gid);
    if (d->is_mut) fputs("style=\"filled,diagonals\"", out);
    fputs("label=<", out);
    put_unique_name(out, d);
    fputs("<br/>", out);
    if (d->node == MIM_LIT) {
        put_escaped(out, mim_printer_inline(g->printer, d, 0));
        fputs("\n", out);
    } else {
        fputs(mim_node_name((MimNode)d->node), out);
    }
    fprintf(out, ">,fillcolor=\"%g 0.5 0.75\",", (double)d->node / 30.0);
    if (is_closed(g, d)) fputs("rank=min,", out);
    fputs("tooltip=\"", out);
    put_tooltip(g, d);
    fputs("\"];\n", out);
}

static bool invisible_edge(const MimDef *d, const MimDef *op) {
    return op->node == MIM_LIT || op->node == MIM_AXIOM || d->node == MIM_VAR ||
           d->node == MIM_NAT || d->node == MIM_IDX;
}

/* Recursion follows the graph depth (the CLI runs on a large stack); the
 * seen set cuts cycles. */
static void dot_def(Dot *g, MimDef *d) {
    if (!d || !mim_ptrmap_add(&g->seen, d, NULL, NULL)) return;
    node_line(g, d);
    if (mim_def_is_set(d)) {
        for (size_t i = 0; i < d->num_ops; ++i) {
            MimDef *op = follow(d->ops[i]);
            if (!op) continue;
            dot_def(g, op);
            fprintf(g->out, "    _%" PRIu32 " -> _%" PRIu32 "[taillabel=\"%zu\",", d->gid, op->gid, i);
            if (invisible_edge(d, op)) fputs("fontcolor=\"#00000000\",color=\"#00000000\",constraint=false];\n", g->out);
            else fputs("];\n", g->out);
        }
    }
    if (g->follow_types) {
        MimDef *T = follow(mim_def_type(d));
        if (T) {
            dot_def(g, T);
            fprintf(g->out, "    _%" PRIu32 " -> _%" PRIu32 "[color=\"#00000000\",constraint=false,style=dashed];\n",
                    d->gid, T->gid);
        }
    }
}

void mim_print_dot(MimWorld *w, FILE *out, bool follow_types, bool all_annexes) {
    bool was_frozen = mim_world_freeze(w, true);
    Dot g = {w, out, follow_types, {0}, {0}, mim_printer_new(w, NULL)};
    fputs("digraph {\n    ordering=out;\n    splines=false;\n    node [shape=box,style=filled];\n", out);
    for (size_t i = 0; i < w->externals.len; ++i) dot_def(&g, w->externals.data[i]);
    if (all_annexes)
        for (size_t i = 0; i < w->annexes.len; ++i) dot_def(&g, follow(w->annexes.data[i].def));
    fputs("}\n", out);
    mim_ptrmap_free(&g.seen);
    mim_ptrmap_free(&g.closed);
    mim_printer_free(g.printer);
    mim_world_freeze(w, was_frozen);
}

void mim_world_print_dot(MimWorld *w, FILE *out) { mim_print_dot(w, out, false, false); }
