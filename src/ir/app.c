/* Application (semantics.md §4.13): the checked `app` with β-reduction
 * driven by filters, `iapp` with implicit-argument insertion, and the raw
 * App node with its curry/trip counters and the normalizer hook (§11). */
#include "ir/build.h"
#include "ir/check.h"

/* Bound on consecutive implicit arguments: a recursive implicit Pi type
 * (`rec P = {x: Nat} → P`) would otherwise insert holes forever. */
#define MAX_IMPLICITS 4096

static MimDef *zonk(MimWorld *w, MimDef *d) {
    return d && (d->dep & MIM_DEP_INFER) ? mim_eliminate_holes(w, d) : d;
}

/* ---- counters and the raw node ----------------------------------------- */

typedef struct Head {
    MimDef *axiom;
    unsigned curry, trip;
} Head;

/* Counter of the application of callee to one more argument (§11). */
static Head next_head(MimDef *callee) {
    Head h = {NULL, 0, 0};
    if (callee->node == MIM_AXIOM) h = (Head){callee, callee->curry, callee->trip};
    else if (callee->node == MIM_APP) h = (Head){callee->u.app.axiom, callee->curry, callee->trip};
    if (h.axiom) {
        if (h.curry == 0) h.curry = h.trip;
        if (h.curry != 255) h.curry = (h.curry - 1) & 0xff; /* 8-bit: 0 - 1 = 255 */
    }
    return h;
}

MimDef *mim_raw_app(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    MimDef *ops[2] = {mim_res(w, callee), mim_res(w, arg)};
    type = mim_res(w, type);
    if (!type || !ops[0] || !ops[1]) return NULL;
    MimDef *app = mim_unify(w, MIM_APP, type, 0, ops, 2);
    if (app) { /* determined by the operands: rewriting a hit changes nothing */
        Head h = next_head(ops[0]);
        app->u.app.axiom = h.axiom;
        app->curry = (uint8_t)h.curry;
        app->trip = (uint8_t)h.trip;
    }
    return app;
}

MimDef *mim_app_normalize(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    callee = mim_res(w, callee);
    if (!type || !callee || !arg) return NULL;
    Head h = next_head(callee);
    if (h.axiom && h.curry == 0 && h.axiom->u.ax.norm)
        return h.axiom->u.ax.norm(w, type, callee, arg);
    return mim_raw_app(w, type, callee, arg);
}

/* ---- checked application --------------------------------------------------- */

static void report_mismatch(MimWorld *w, MimDef *callee, MimDef *arg, MimDef *dom) {
    mim_err(w, "cannot apply argument to callee");
    mim_note(w, "callee: '%s'", mim_str(w, callee));
    mim_note(w, "argument: '%s'", mim_str(w, arg));
    mim_note(w, "vvv domain type vvv\n'%s'\n'%s'", mim_str(w, dom), mim_str(w, mim_type_of(w, arg)));
    mim_note(w, "^^^ argument type ^^^");
}

/* Partial evaluation (§4.13 step 5, §10.3): 1 with *res set if lam applied
 * to arg reduces, 0 if not, -1 on error. */
static int try_beta(MimWorld *w, MimDef *lam, MimDef *arg, MimDef **res) {
    if (!lam->is_mut) {
        *res = lam->ops[1];
        return 1;
    }
    MimDef *filter = mim_res(w, lam->ops[0]);
    if (!lam->ops[1] || !filter || filter == w->builtin.ff) return 0;
    if (!mim_is(mim_mut_ext(lam)->var, MIM_VAR)) { /* nothing to substitute */
        if (filter != w->builtin.tt) return 0;
        *res = lam->ops[1];
        return 1;
    }
    return mim_beta(w, lam, arg, res);
}

/* Codomain of pi instantiated with arg. */
static MimDef *codom_at(MimWorld *w, MimDef *pi, MimDef *arg) {
    if (!pi->is_mut || !mim_is(mim_mut_ext(pi)->var, MIM_VAR)) return mim_res(w, pi->ops[1]);
    MimDef *out[2];
    if (!mim_reduce(w, pi, arg, out)) return NULL;
    return out[1];
}

MimDef *mim_app(MimWorld *w, MimDef *callee, MimDef *arg) {
    callee = zonk(w, mim_res(w, callee));
    arg = zonk(w, mim_res(w, arg));
    if (!callee || !arg) return NULL;
    MimDef *pi = mim_type_of(w, callee);
    if (!mim_is(pi, MIM_PI)) {
        mim_err(w, "called expression not of function type");
        mim_err(w, "'%s' <--- callee type", mim_str(w, pi));
        return NULL;
    }
    MimDef *dom = mim_res(w, pi->ops[0]);
    if (!dom) return NULL;
    if (!mim_assignable(w, dom, arg)) {
        /* shown with the holes solved so far (e.g. `A` of `{A B: *}`) */
        MimDef *shown = zonk(w, dom);
        report_mismatch(w, callee, arg, shown ? shown : dom);
        return NULL;
    }
    arg = zonk(w, arg); /* assignability may have solved holes */
    if (callee->node == MIM_LAM) {
        MimDef *res;
        int r = try_beta(w, callee, arg, &res);
        if (r < 0) return NULL;
        if (r > 0) return res;
    }
    MimDef *type = zonk(w, codom_at(w, pi, arg));
    return mim_app_normalize(w, type, zonk(w, callee), arg);
}

/* Re-apply the curried chain of app from its head with every argument's
 * solved holes eliminated, so the normalizer sees the solutions. */
static MimDef *rebuild_chain(MimWorld *w, MimDef *app) {
    size_t n = 0;
    for (MimDef *d = app; mim_is(d, MIM_APP); d = mim_res(w, d->ops[0])) ++n;
    MIM_SCRATCH(args, n);
    MimDef *head = app;
    for (size_t i = n; i-- > 0; head = mim_res(w, head->ops[0])) args[i] = head->ops[1];
    for (size_t i = 0; i < n && head; ++i) head = mim_app(w, head, zonk(w, args[i]));
    MIM_SCRATCH_FREE(args);
    return head;
}

MimDef *mim_iapp(MimWorld *w, MimDef *callee, MimDef *arg) {
    callee = mim_res(w, callee);
    arg = mim_res(w, arg);
    if (!callee || !arg) return NULL;
    for (unsigned k = 0;; ++k) {
        MimDef *pi = mim_type_of(w, callee);
        if (!mim_is(pi, MIM_PI) || !(pi->flags & MIM_PI_IMPLICIT)) break;
        if (k == MAX_IMPLICITS) {
            mim_err(w, "too many implicit arguments for '%s'", mim_str(w, callee));
            return NULL;
        }
        callee = mim_app(w, callee, mim_hole(w, mim_res(w, pi->ops[0])));
        if (!callee) return NULL;
    }
    if (callee->node == MIM_APP && callee->curry == 1) {
        MimDef *pi = mim_type_of(w, callee);
        if (mim_is(pi, MIM_PI) && pi->ops[0]) mim_assignable(w, mim_res(w, pi->ops[0]), arg);
        callee = rebuild_chain(w, callee);
    }
    return mim_app(w, callee, arg);
}
