/* Rebuilding nodes for rewriting (semantics.md §5.5, §10): an immutable is
 * rebuilt from new type and operands through the normalizing constructors
 * (so substitution normalizes), a mutable is copied as an empty stub. The
 * source node may belong to another World. */
#include "ir/build.h"

MimDef *mim_def_rebuild(MimWorld *w, MimDef *d, MimDef *type, MimDef *const *ops) {
    if (!d) return NULL;
    for (uint32_t i = 0; i < d->num_ops; ++i)
        if (!ops[i]) return NULL;
    size_t n = d->num_ops;
    switch ((MimNode)d->node) {
    case MIM_UNIV: return w->builtin.univ;
    case MIM_NAT: return w->builtin.nat;
    case MIM_IDX: return w->builtin.idx;
    case MIM_TYPE: return mim_type(w, ops[0]);
    case MIM_UMAX: return mim_umax(w, ops, n);
    case MIM_UINC: return mim_uinc(w, ops[0], d->flags);
    case MIM_LIT: return mim_lit(w, type, d->flags);
    case MIM_BOT: return mim_bot(w, type);
    case MIM_TOP: return mim_top(w, type);
    case MIM_PI: return mim_pi(w, ops[0], ops[1], d->flags & MIM_PI_IMPLICIT);
    case MIM_LAM: return mim_lam(w, type, ops[0], ops[1]);
    case MIM_APP: return mim_app(w, ops[0], ops[1]);
    case MIM_SIGMA: return mim_sigma(w, ops, n);
    case MIM_TUPLE: return mim_tuple_typed(w, type, ops, n);
    case MIM_EXTRACT: return mim_extract(w, ops[0], ops[1]);
    case MIM_INSERT: return mim_insert(w, ops[0], ops[1], ops[2]);
    case MIM_ARR: return mim_arr(w, ops[0], ops[1]);
    case MIM_PACK: {
        /* The shape lives in the (rebuilt) type «shape; T». */
        MimDef *T = mim_res(w, type);
        if (!T) return NULL;
        MimDef *shape = mim_is(T, MIM_ARR) ? T->ops[0]
                        : T == w->builtin.unit_type ? w->builtin.nat_0 : w->builtin.nat_1;
        return mim_pack(w, shape, ops[0]);
    }
    case MIM_VAR: return mim_var(w, ops[0]);
    case MIM_AXIOM: return mim_axiom(w, type, d->flags, d->u.ax.norm, d->curry, d->trip);
    default: return mim_unify(w, (MimNode)d->node, mim_res(w, type), d->flags, ops, n);
    }
}

MimDef *mim_stub(MimWorld *w, MimDef *m, MimDef *type) {
    if (!m || !m->is_mut) return NULL;
    MimDef *s = mim_alloc_mut(w, (MimNode)m->node, mim_res(w, type), m->flags, m->num_ops);
    if (!s) return NULL;
    if (m->name) s->name = mim_world_sym(w, m->name);
    if (m->node == MIM_SIGMA && mim_mut_ext(m)->fields) {
        MimSym *fields = mim_arena_alloc(&w->arena, m->num_ops * sizeof *fields);
        for (uint32_t i = 0; i < m->num_ops; ++i) fields[i] = mim_world_sym(w, mim_mut_ext(m)->fields[i]);
        mim_mut_ext(s)->fields = fields;
    }
    return s;
}

MimDef *mim_rebuild(MimWorld *w, MimDef *d, MimDef *type, MimDef *const *ops) {
    return d && !d->is_mut ? mim_def_rebuild(w, d, type, ops) : NULL;
}

bool mim_map_ops(MimWorld *w, MimDef *d, MimDef *(*f)(void *ctx, MimDef *op), void *ctx, MimDef **ops,
                 bool *changed) {
    for (uint32_t i = 0; i < d->num_ops; ++i) {
        MimDef *op = d->ops[i];
        if (!op || !(ops[i] = f(ctx, mim_res(w, op)))) return false;
        *changed |= ops[i] != op;
    }
    return true;
}
