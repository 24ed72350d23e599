/* Axioms (semantics.md §11): hash-consed on (type, annex id), with curry
 * and trip counters inferred from the type or overridden, and a normalizer. */
#include "ir/build.h"

/* Walk the chain of Pi codomains counting Pis; a mutable Pi met again closes
 * a cycle (recursive type) whose length is the trip count. Counters are
 * 8-bit: the walk stops at 255 ("never"). */
void mim_axiom_infer_curry(MimWorld *w, MimDef *type, unsigned *curry, unsigned *trip) {
    enum { MAX = 255 };
    MimDef *seen[MAX];
    unsigned seen_at[MAX], num_seen = 0, c = 0, t = 0;
    for (type = mim_res(w, type); mim_is(type, MIM_PI) && c < MAX; type = mim_res(w, type->ops[1])) {
        if (type->is_mut) {
            unsigned i = 0;
            while (i < num_seen && seen[i] != type) ++i;
            if (i < num_seen) {
                t = c - seen_at[i];
                break;
            }
            seen[num_seen] = type;
            seen_at[num_seen++] = c;
        }
        ++c;
    }
    if (curry) *curry = c;
    if (trip) *trip = t;
}

MimDef *mim_axiom(MimWorld *w, MimDef *type, uint64_t id, MimNormalizer norm, unsigned curry,
                  unsigned trip) {
    type = mim_res(w, type);
    if (!type) return NULL;
    unsigned inferred_curry, inferred_trip;
    mim_axiom_infer_curry(w, type, &inferred_curry, &inferred_trip);
    if (curry == 0) {
        curry = inferred_curry;
        trip = inferred_trip;
    } else if (curry > inferred_curry) {
        mim_err(w, "curry counter cannot be greater than %u", inferred_curry);
        return NULL;
    } else if (trip > curry) {
        mim_err(w, "trip counter cannot be greater than curry counter '%u'", curry);
        return NULL;
    }
    MimDef *ax = mim_unify(w, MIM_AXIOM, type, id, NULL, 0);
    if (ax && !w->frozen && ax->gid == w->gid) { /* new: an existing axiom keeps its own */
        ax->u.ax.norm = norm;
        ax->curry = (uint8_t)curry;
        ax->trip = (uint8_t)trip;
    }
    return ax;
}
