/* Reassociation of literal operands (see reassoc.h). Rules are tried in the
 * order of core.md §4.4; new calls use mode 0 and are normalized again,
 * which folds the literal pair they bring together. Nodes are built left to
 * right in separate statements: C leaves the order of argument and
 * initializer evaluation open, and gids (creation order) must not depend on
 * the compiler. */
#include "reassoc.h"

static MimDef *call(MimWorld *w, uint64_t id, MimDef *s, MimDef *x, MimDef *y) {
    if (!x || !y) return NULL;
    MimDef *mode = mim_lit_nat(w, 0);
    MimDef *pair = core_pair(w, x, y);
    MimDef *args[3] = {s, mode, pair};
    return pair ? core_call(w, id, args, 3) : NULL;
}

/* Operands of `d` if it is a fully applied call of the same operation. */
static bool split(MimWorld *w, MimDef *d, uint64_t id, MimDef **x, MimDef **y) {
    if (!mim_match(d, id)) return false;
    MimDef *arg = mim_app_arg(d);
    *x = core_op(w, arg, 0);
    *y = core_op(w, arg, 1);
    return *x && *y;
}

bool core_reassoc(MimWorld *w, uint64_t id, MimDef *s, MimDef *a, MimDef *b, MimDef **out) {
    MimDef *x, *y, *z, *v;
    uint64_t ls;
    /* Modulo a size that is no power of two (the w-bit or 64-bit result
     * reduced modulo s, core.md §4.1) these operations are not associative:
     * (150 + 150) + 100 is 144 in Idx 200, 150 + (150 + 100) is 0. */
    if (core_lit(s, &ls) && !core_size_is_pow2(ls)) return false;
    bool is_ca = split(w, a, id, &x, &y), is_cb = split(w, b, id, &z, &v);
    bool la = core_lit(a, NULL);
    bool lx = is_ca && core_lit(x, NULL), lz = is_cb && core_lit(z, NULL);
    if (la && lz) { /* a op (z op v) → (a op z) op v */
        *out = call(w, id, s, call(w, id, s, a, z), v);
    } else if (lx && lz) { /* (x op y) op (z op v) → (x op z) op (y op v) */
        MimDef *xz = call(w, id, s, x, z);
        MimDef *yv = call(w, id, s, y, v);
        *out = call(w, id, s, xz, yv);
    } else if (lz) { /* a op (z op v) → z op (a op v) */
        *out = call(w, id, s, z, call(w, id, s, a, v));
    } else if (lx) { /* (x op y) op b → x op (y op b) */
        *out = call(w, id, s, x, call(w, id, s, y, b));
    } else {
        return false;
    }
    return true;
}
