/* Annex ids and matching for plugin code (include/mim/plugin.h, paper
 * Listing 3, semantics.md §11–§12): is this node the fully applied axiom
 * with that id, what are its curried arguments, which node is registered
 * under an id. */
#include "mim/plugin.h"

#include "ir/ir.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Solved holes are transparent. */
static MimDef *follow(MimDef *d) {
    while (d && d->node == MIM_INFER && d->ops[0]) d = d->ops[0];
    return d;
}

uint64_t mim_axiom_id(const MimDef *axiom) {
    return mim_is(axiom, MIM_AXIOM) ? axiom->flags : 0;
}

bool mim_cps_fn_parts(MimWorld *w, MimDef *type, MimDef **dom, MimDef **ret) {
    MimDef *T = mim_resolve(w, type);
    if (!T || T->node != MIM_PI || !mim_pi_is_cn(T)) return false;
    MimDef *D = mim_resolve(w, mim_pi_dom(T));
    if (!D || D->node != MIM_SIGMA || D->num_ops != 2) return false;
    MimDef *k = mim_resolve(w, D->ops[1]);
    if (!k || k->node != MIM_PI || !mim_pi_is_cn(k)) return false;
    *dom = mim_resolve(w, D->ops[0]);
    *ret = mim_pi_dom(k);
    return true;
}

MimDef *mim_annex_external(MimWorld *w, const MimDef *axiom, const char *prefix) {
    MimSym name = axiom ? axiom->name : NULL;
    if (!name) return NULL;
    if (name[0] == '%') ++name;
    size_t a = strlen(prefix), b = strlen(name);
    char *buf = malloc(a + b + 1);
    if (!buf) abort();
    memcpy(buf, prefix, a);
    for (size_t i = 0; i <= b; ++i) buf[a + i] = name[i] == '.' ? '_' : name[i];
    MimDef *ext = mim_world_lookup_external(w, mim_world_sym(w, buf));
    free(buf);
    return ext;
}

unsigned mim_callee_sub(const MimDef *callee) {
    const MimDef *ax = mim_is(callee, MIM_AXIOM) ? callee : mim_app_axiom(callee);
    return ax ? mim_annex_sub(mim_axiom_id(ax)) : 0;
}

/* The axiom heading d if d is "fully applied" (semantics.md §11): an
 * application whose counter is 0, or an axiom that needs no argument at all
 * (curry 0, e.g. a non-function axiom). */
static MimDef *full_head(MimDef *d) {
    if (mim_is(d, MIM_APP)) return d->curry == 0 ? d->u.app.axiom : NULL;
    if (mim_is(d, MIM_AXIOM)) return d->curry == 0 ? d : NULL;
    return NULL;
}

MimDef *mim_match(MimDef *d, uint64_t id) {
    d = follow(d);
    MimDef *ax = full_head(d);
    return ax && ax->flags == id ? d : NULL;
}

MimDef *mim_match_annex(MimDef *d, uint64_t base) {
    d = follow(d);
    MimDef *ax = full_head(d);
    return ax && mim_annex_base(ax->flags) == mim_annex_base(base) ? d : NULL;
}

size_t mim_app_num_args(const MimDef *app) {
    size_t n = 0;
    for (const MimDef *d = app; mim_is(d, MIM_APP); d = d->ops[0]) ++n;
    return n;
}

/* Operands of App are (callee, arg); the chain is walked from the outside,
 * so argument i is num_args − 1 − i callees inwards. */
MimDef *mim_app_nth_arg(const MimDef *app, size_t i) {
    size_t n = mim_app_num_args(app);
    if (i >= n) return NULL;
    const MimDef *d = app;
    for (size_t k = n - 1 - i; k > 0; --k) d = d->ops[0];
    return d->ops[1];
}

/* The plugin name of an id: 6-bit groups from the top until a 0 group. */
static void demangle(uint64_t id, char out[9]) {
    static const char *const codes = "_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    size_t n = 0;
    for (int shift = 58; shift >= 16 && n < 8; shift -= 6) {
        unsigned c = (unsigned)(id >> shift) & 63;
        if (c == 0) break;
        out[n++] = codes[c - 1];
    }
    out[n] = '\0';
}

MimDef *mim_annex(MimWorld *w, uint64_t id) {
    MimDef *d = mim_world_annex(w, id);
    if (d) return d;
    char name[9];
    demangle(id, name);
    mim_diag_report(mim_world_diag(w), MIM_ERROR, mim_world_loc(w),
                    "Axiom with ID '%" PRIx64 "' not found; demangled plugin name is '%s'", id, name);
    return NULL;
}

bool mim_commute_swap(const MimDef *a, const MimDef *b) {
    uint64_t v;
    bool la = a && mim_def_lit(a, &v), lb = b && mim_def_lit(b, &v);
    return lb || (!la && mim_def_gid(a) > mim_def_gid(b));
}

MimDef *mim_pair(MimWorld *w, MimDef *a, MimDef *b) {
    MimDef *ops[2] = {a, b};
    return mim_tuple(w, ops, 2);
}
