/* Accessors of nodes (include/mim/def.h), node kind names and the
 * computation of dependency bits (semantics.md §6). */
#include "ir/build.h"

static const char *const node_names[MIM_NUM_NODES] = {
    "type", "univ", "umax", "uinc", "pi",    "lam",   "app",   "sigma", "tuple", "extract",
    "insert", "arr", "pack", "join", "vel",  "test",  "top",   "meet",  "ac",    "pick",
    "bot",  "proxy", "axiom", "lit", "nat",  "idx",   "var",   "infer", "global", "singleton",
};

const char *mim_node_name(MimNode n) {
    return (unsigned)n < MIM_NUM_NODES ? node_names[n] : "<invalid>";
}

/* Own bits of a kind plus, for immutables, those of type and operands.
 * A mutable carries only Mut (and Infer for holes): what it refers to is
 * reached through its free variables, not through its bits. */
unsigned mim_dep_compute(const MimDef *d) {
    if (d->is_mut) return MIM_DEP_MUT | (d->node == MIM_INFER ? MIM_DEP_INFER : 0);
    unsigned dep = 0;
    switch ((MimNode)d->node) {
    case MIM_AXIOM: dep = MIM_DEP_AXIOM; break;
    case MIM_VAR: dep = MIM_DEP_VAR; break;
    case MIM_PROXY: dep = MIM_DEP_PROXY; break;
    default: break;
    }
    if (d->type) dep |= d->type->dep;
    for (uint32_t i = 0; i < d->num_ops; ++i)
        if (d->ops[i]) dep |= d->ops[i]->dep;
    return dep;
}

/* Follow solved holes without a World (no path compression, no rebuild). */
static const MimDef *follow(const MimDef *d) {
    while (d && d->node == MIM_INFER && d->ops[0]) d = d->ops[0];
    return d;
}

MimNode mim_def_node(const MimDef *d) { return (MimNode)d->node; }
uint32_t mim_def_gid(const MimDef *d) { return d->gid; }
uint64_t mim_def_flags(const MimDef *d) { return d->flags; }
size_t mim_def_num_ops(const MimDef *d) { return d->num_ops; }
MimDef *mim_def_op(const MimDef *d, size_t i) { return i < d->num_ops ? d->ops[i] : NULL; }
MimSym mim_def_name(const MimDef *d) { return d->name; }
MimLoc mim_def_loc(const MimDef *d) { return d->loc; }
bool mim_def_is_mut(const MimDef *d) { return d->is_mut; }
bool mim_def_is_external(const MimDef *d) { return d->is_external; }
unsigned mim_def_dep(const MimDef *d) { return d->dep; }

MimDef *mim_def_type(const MimDef *d) {
    if (d->node == MIM_TYPE && !d->is_mut) return mim_type_of(d->u.ty.world, (MimDef *)d);
    return d->type;
}

bool mim_def_is_set(const MimDef *d) {
    return !d->is_mut || d->num_ops == 0 || d->ops[d->num_ops - 1] != NULL;
}

bool mim_def_is_const(const MimDef *d) { return !(d->dep & (MIM_DEP_MUT | MIM_DEP_VAR)); }

bool mim_def_lit(const MimDef *d, uint64_t *value) {
    d = follow(d);
    if (!d || d->node != MIM_LIT) return false;
    if (value) *value = d->flags;
    return true;
}

bool mim_pi_is_implicit(const MimDef *pi) {
    pi = follow(pi);
    return pi && pi->node == MIM_PI && (pi->flags & MIM_PI_IMPLICIT);
}

bool mim_pi_is_cn(const MimDef *pi) {
    pi = follow(pi);
    if (!pi || pi->node != MIM_PI) return false;
    const MimDef *codom = follow(pi->ops[1]);
    return codom && codom->node == MIM_BOT;
}

void mim_def_set_name(MimDef *d, MimSym name) {
    if (d && !d->name) d->name = name;
}

void mim_def_set_loc(MimDef *d, MimLoc loc) {
    if (d && d->loc.begin.row == 0) d->loc = loc;
}

void mim_def_keep_dbg(MimDef *d, const MimDef *from) {
    if (!d || !from || d == from) return;
    mim_def_set_name(d, from->name);
    mim_def_set_loc(d, from->loc);
}

/* ---- accessors of specific kinds --------------------------------------- */

static MimDef *op_of(const MimDef *d, MimNode node, size_t i) {
    return d && d->node == node && i < d->num_ops ? d->ops[i] : NULL;
}

MimDef *mim_pi_dom(const MimDef *pi) { return op_of(pi, MIM_PI, 0); }
MimDef *mim_pi_codom(const MimDef *pi) { return op_of(pi, MIM_PI, 1); }
MimDef *mim_lam_filter(const MimDef *lam) { return op_of(lam, MIM_LAM, 0); }
MimDef *mim_lam_body(const MimDef *lam) { return op_of(lam, MIM_LAM, 1); }
MimDef *mim_app_callee(const MimDef *app) { return op_of(app, MIM_APP, 0); }
MimDef *mim_app_arg(const MimDef *app) { return op_of(app, MIM_APP, 1); }
MimDef *mim_app_axiom(const MimDef *app) { return mim_is(app, MIM_APP) ? app->u.app.axiom : NULL; }
unsigned mim_app_curry(const MimDef *app) { return mim_is(app, MIM_APP) ? app->curry : 0; }

MimNormalizer mim_axiom_normalizer(const MimDef *axiom) {
    return mim_is(axiom, MIM_AXIOM) ? axiom->u.ax.norm : NULL;
}
unsigned mim_axiom_curry(const MimDef *axiom) { return mim_is(axiom, MIM_AXIOM) ? axiom->curry : 0; }
unsigned mim_axiom_trip(const MimDef *axiom) { return mim_is(axiom, MIM_AXIOM) ? axiom->trip : 0; }
