/* Which mutables are recursive: the strongly connected components of the
 * "refers to" graph between the mutables reachable from the externals
 * (Tarjan's algorithm, iterative so that long call chains need no deep C
 * stack). A mutable is recursive if its component has more than one member
 * or it refers to itself. Linear in the size of the program; passes compute
 * it once per traversal instead of walking from every call site. */
#include "pass/std.h"

#include "mim/vec.h"

#include <stdlib.h>

typedef MIM_VEC(size_t) IdxVec;

typedef struct Graph {
    MimWorld *w;
    MimPtrMap index;          /* mutable -> 1 + index */
    MimDefVec muts;           /* index -> mutable */
    MIM_VEC(IdxVec) succ;     /* index -> successor indices */
    MimDefVec walk;
    MimPtrMap seen;
} Graph;

static size_t node_of(Graph *g, MimDef *m) {
    void **slot = mim_ptrmap_find(&g->index, m);
    if (slot) return (size_t)(uintptr_t)*slot - 1;
    size_t i = g->muts.len;
    mim_ptrmap_put(&g->index, m, (void *)(uintptr_t)(i + 1));
    mim_vec_push(&g->muts, m);
    IdxVec none = {0};
    mim_vec_push(&g->succ, none);
    return i;
}

/* Successors of mutable i: the mutables reached from its operands and type
 * without passing through another mutable. */
static void collect_succ(Graph *g, size_t i) {
    MimDef *m = g->muts.data[i];
    /* Clearing costs the capacity: start small again after a big mutable. */
    if (g->seen.cap > 256) mim_ptrmap_free(&g->seen);
    else mim_ptrmap_clear(&g->seen);
    g->walk.len = 0;
    for (uint32_t k = 0; k < m->num_ops; ++k)
        if (m->ops[k]) mim_vec_push(&g->walk, m->ops[k]);
    while (g->walk.len) {
        MimDef *d = mim_res(g->w, mim_vec_pop(&g->walk));
        if (!d || !(d->dep & MIM_DEP_MUT) || d->node == MIM_VAR) continue;
        if (!mim_ptrmap_add(&g->seen, d, NULL, NULL)) continue;
        if (d->is_mut) {
            size_t j = node_of(g, d);
            mim_vec_push(&g->succ.data[i], j);
            continue;
        }
        if (d->type) mim_vec_push(&g->walk, d->type);
        for (uint32_t k = 0; k < d->num_ops; ++k) mim_vec_push(&g->walk, d->ops[k]);
    }
}

typedef struct Frame {
    size_t v, next; /* node, position in its successor list */
} Frame;

void mim_find_recursive(MimWorld *w, MimPtrMap *out) {
    Graph g = {.w = w};
    mim_ptrmap_clear(out);
    for (size_t i = 0, n = mim_world_num_externals(w); i < n; ++i) node_of(&g, mim_world_external(w, i));
    for (size_t i = 0; i < g.muts.len; ++i) collect_succ(&g, i); /* grows g.muts */

    size_t n = g.muts.len, counter = 0;
    size_t *num = calloc(n, sizeof *num), *low = calloc(n, sizeof *low);
    bool *on_stack = calloc(n, sizeof *on_stack);
    IdxVec stack = {0};
    MIM_VEC(Frame) calls = {0};
    if (!num || !low || !on_stack) abort();
    for (size_t root = 0; root < n; ++root) {
        if (num[root]) continue;
        mim_vec_push(&calls, ((Frame){root, 0}));
        num[root] = low[root] = ++counter;
        mim_vec_push(&stack, root);
        on_stack[root] = true;
        while (calls.len) {
            Frame *f = &calls.data[calls.len - 1];
            IdxVec *s = &g.succ.data[f->v];
            if (f->next < s->len) {
                size_t u = s->data[f->next++];
                if (!num[u]) {
                    num[u] = low[u] = ++counter;
                    mim_vec_push(&stack, u);
                    on_stack[u] = true;
                    mim_vec_push(&calls, ((Frame){u, 0}));
                } else if (on_stack[u] && num[u] < low[f->v]) {
                    low[f->v] = num[u];
                }
                continue;
            }
            size_t v = f->v;
            --calls.len;
            if (calls.len) {
                size_t p = calls.data[calls.len - 1].v;
                if (low[v] < low[p]) low[p] = low[v];
            }
            if (low[v] != num[v]) continue;
            /* v is the root of a component: pop it. */
            size_t start = stack.len;
            while (stack.data[start - 1] != v) --start;
            --start;
            bool self = false;
            for (size_t k = 0; k < s->len; ++k) self |= s->data[k] == v;
            void *rec = (void *)(uintptr_t)(stack.len - start > 1 || self);
            for (size_t k = start; k < stack.len; ++k) mim_ptrmap_put(out, g.muts.data[stack.data[k]], rec);
            for (size_t k = start; k < stack.len; ++k) on_stack[stack.data[k]] = false;
            stack.len = start;
        }
    }
    free(num), free(low), free(on_stack);
    mim_vec_free(&stack);
    mim_vec_free(&calls);
    for (size_t i = 0; i < g.succ.len; ++i) mim_vec_free(&g.succ.data[i]);
    mim_vec_free(&g.succ);
    mim_vec_free(&g.muts);
    mim_vec_free(&g.walk);
    mim_ptrmap_free(&g.seen);
    mim_ptrmap_free(&g.index);
}
