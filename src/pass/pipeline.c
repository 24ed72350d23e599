/* Pipelines (compile.md §3): choosing the compilation function, the pipeline
 * builder the plugins' handlers fill, and running the resulting phases. */
#include "pass/optimize.h"

#include "ir/check.h"
#include "mim/pass.h"
#include "pass/cleanup.h"
#include "pass/pm.h"
#include "mim/ptrmap.h"
#include "mim/xalloc.h"

#include <stdlib.h>
#include <string.h>

typedef enum StepKind { STEP_PM, STEP_PHASE, STEP_CLEANUP } StepKind;

typedef struct Step {
    StepKind kind;
    MimPassMan *pm;
    MimPhase *phase;
} Step;

struct MimPipeline {
    MimWorld *w; /* the World holding the pipeline value */
    const MimOptHost *host;
    Step *steps;
    size_t num_steps, cap;
    MimPassMan *open; /* between begin and end pass phase */
    MimPtrMap pass_of; /* pipeline node -> instance (NULL = none) */
    bool failed;
    unsigned depth; /* nesting of handle (malformed recursive pipelines) */
    MimPmScratch *scratch; /* working memory of the pass managers, one at a time */
};

/* ---- the builder ------------------------------------------------------------ */

static void add_step(MimPipeline *pb, Step s) {
    if (pb->num_steps == pb->cap) {
        pb->cap = pb->cap ? 2 * pb->cap : 16;
        pb->steps = mim_xrealloc(pb->steps, pb->cap * sizeof *pb->steps);
    }
    pb->steps[pb->num_steps++] = s;
}

void mim_pipeline_begin_pass_phase(MimPipeline *pb) {
    if (pb->open) mim_pipeline_end_pass_phase(pb);
    pb->open = mim_pm_new();
}

void mim_pipeline_end_pass_phase(MimPipeline *pb) {
    if (!pb->open) return;
    add_step(pb, (Step){STEP_PM, pb->open, NULL});
    pb->open = NULL;
}

MimPass *mim_pipeline_add_pass(MimPipeline *pb, MimDef *app, const MimPassClass *cls,
                               bool *fresh) {
    bool single = !pb->open;
    if (single) mim_pipeline_begin_pass_phase(pb);
    MimPass *p = mim_pm_add(pb->open, cls, fresh);
    if (app) mim_ptrmap_put(&pb->pass_of, app, p);
    if (single) mim_pipeline_end_pass_phase(pb);
    return p;
}

void mim_pipeline_add_none(MimPipeline *pb, MimDef *app) {
    if (app) mim_ptrmap_put(&pb->pass_of, app, NULL);
}

MimPass *mim_pipeline_pass_of(MimPipeline *pb, MimDef *node) {
    return node ? mim_ptrmap_get(&pb->pass_of, mim_resolve(pb->w, node)) : NULL;
}

MimPhase *mim_pipeline_add_phase(MimPipeline *pb, const MimPhaseClass *cls) {
    size_t size = cls->size < sizeof(MimPhase) ? sizeof(MimPhase) : cls->size;
    MimPhase *ph = mim_xcalloc(1, size);
    ph->cls = cls;
    ph->pipeline = pb;
    add_step(pb, (Step){STEP_PHASE, NULL, ph});
    if (cls->dirty) add_step(pb, (Step){STEP_CLEANUP, NULL, NULL});
    return ph;
}

bool mim_pipeline_plugin_loaded(const MimPipeline *pb, const char *name) {
    return pb->host && pb->host->loaded && pb->host->loaded(pb->host->ctx, name);
}

MimWorld *mim_pipeline_world(const MimPipeline *pb) { return pb->w; }

static void report(MimPipeline *pb, MimSeverity sev, MimDef *part, const char *msg) {
    MimLoc loc = part ? mim_def_loc(part) : mim_world_loc(pb->w);
    mim_diag_report(mim_world_diag(pb->w), sev, loc, "%s%s%s", msg, part ? ": " : "",
                    part ? mim_str(pb->w, part) : "");
}

void mim_pipeline_error(MimPipeline *pb, MimDef *part, const char *msg) {
    report(pb, MIM_ERROR, part, msg);
    pb->failed = true;
}

void mim_pipeline_warn(MimPipeline *pb, MimDef *part, const char *msg) {
    report(pb, MIM_WARNING, part, msg);
}

/* ---- interpretation (§3.3) -------------------------------------------------- */

static bool is_lam_with_body(MimDef *d) {
    return d && mim_def_node(d) == MIM_LAM && mim_def_is_mut(d) && mim_lam_body(d);
}

bool mim_pipeline_handle(MimPipeline *pb, MimDef *part) {
    MimWorld *w = pb->w;
    part = mim_resolve(w, part);
    if (!part || pb->failed) return false;
    if (++pb->depth > 10000) {
        mim_pipeline_error(pb, NULL, "pipeline nested too deeply");
        return false;
    }
    /* 1. A call of a Mim function (e.g. plugin_cond_phase (…)): one β-step. */
    if (mim_def_node(part) == MIM_APP && is_lam_with_body(mim_app_callee(part))) {
        MimDef *lam = mim_app_callee(part);
        MimDef *body = mim_subst(w, mim_lam_body(lam), lam, mim_app_arg(part));
        bool ok = body && mim_pipeline_handle(pb, body);
        --pb->depth;
        return ok;
    }
    /* 2./3. The head axiom and its handler. */
    MimDef *head = part;
    while (mim_def_node(head) == MIM_APP) head = mim_resolve(w, mim_app_callee(head));
    bool ok = false;
    if (mim_def_node(head) == MIM_AXIOM) {
        uint64_t base = mim_annex_base(mim_axiom_id(head));
        MimPassHandler fn = pb->host && pb->host->handler ? pb->host->handler(pb->host->ctx, base) : NULL;
        if (fn) ok = fn(pb, part) && !pb->failed;
        else {
            mim_pipeline_warn(pb, part, "pass/phase not found (its plugin is not loaded); skipped");
            ok = true;
        }
    } else if (mim_def_node(head) == MIM_LAM) {
        mim_pipeline_error(pb, part, "curried lambdas are not supported in pipelines");
    } else {
        mim_pipeline_error(pb, part, "not a pass or phase");
    }
    --pb->depth;
    return ok;
}

/* ---- selecting the compilation function (§3.1) ----------------------------- */

static bool is_pipeline_fn(MimDef *ext) {
    MimDef *type = mim_def_type(ext);
    if (mim_def_node(ext) != MIM_LAM || !type || mim_def_node(type) != MIM_PI) return false;
    MimDef *dom = mim_pi_dom(type), *codom = mim_pi_codom(type);
    MimSym name = codom ? mim_def_name(codom) : NULL;
    return dom && mim_def_node(dom) == MIM_SIGMA && mim_def_num_ops(dom) == 0 && name &&
           strcmp(name, "%compile.Pipeline") == 0;
}

/* Steps 1–3; the chosen function and all candidates become internal. */
static MimDef *compilation_function(MimWorld *w) {
    static const char *const names[] = {"_compile", "_default_compile", "_core_compile",
                                        "_fallback_compile"};
    MimDef *chosen = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        MimDef *f = mim_world_lookup_external(w, mim_world_sym(w, names[i]));
        if (!f) continue;
        if (!chosen) chosen = f;
        mim_make_internal(w, f);
    }
    for (size_t i = 0; i < mim_world_num_externals(w);) {
        MimDef *ext = mim_world_external(w, i);
        if (!is_pipeline_fn(ext)) {
            ++i;
            continue;
        }
        if (!chosen) chosen = ext;
        mim_make_internal(w, ext); /* shifts the next external to i */
    }
    return chosen;
}

/* ---- running ------------------------------------------------------------------ */

bool mim_swap_cleanup(MimWorld **w, const MimWorld *keep) {
    MimWorld *clean = mim_cleanup(*w);
    if (!clean) return false;
    if (*w != keep) mim_world_free(*w);
    *w = clean;
    return true;
}

/* Hands the input World to the host once the current World is another one
 * (the interpretation's nodes, pass_of, were dropped before the steps ran). */
static void release_input(MimPipeline *pb, MimWorld *cur, MimWorld **keep) {
    if (!*keep || cur == *keep || !pb->host || !pb->host->release) return;
    pb->w = NULL;
    pb->host->release(pb->host->ctx, *keep);
    *keep = NULL;
}

/* The name of a step for the host's step callback (optimize.h). */
static void step_name(const Step *s, char *buf, size_t size) {
    switch (s->kind) {
    case STEP_PM: {
        size_t len = (size_t)snprintf(buf, size, "pass phase%s", mim_pm_num_passes(s->pm) ? "" : " (no passes)");
        for (size_t i = 0, n = mim_pm_num_passes(s->pm); i < n && len < size; ++i)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : " ", mim_pm_pass_name(s->pm, i));
        break;
    }
    case STEP_PHASE: snprintf(buf, size, "phase %s", s->phase->cls->name ? s->phase->cls->name : "?"); break;
    case STEP_CLEANUP: snprintf(buf, size, "cleanup"); break;
    }
}

static void tell(const MimPipeline *pb, const char *name, bool done) {
    if (pb->host && pb->host->step) pb->host->step(pb->host->ctx, name, done);
}

/* A cleanup the host is told about. */
static bool traced_cleanup(MimPipeline *pb, MimWorld **w, const MimWorld *keep) {
    tell(pb, "cleanup", false);
    bool ok = mim_swap_cleanup(w, keep);
    tell(pb, "cleanup", true);
    return ok;
}

/* One step; the host is told its start and end, and separately about the
 * cleanup that follows a pass phase, so that no time is counted twice. */
static bool run_step(MimPipeline *pb, Step *s, MimWorld **w, MimWorld *keep) {
    char name[512];
    step_name(s, name, sizeof name);
    tell(pb, name, false);
    switch (s->kind) {
    case STEP_PM: {
        /* A traversal that changed no mutable leaves the program as the
         * previous cleanup made it: another cleanup would only renumber
         * (decision, docs/optimizer.md). The front end's World is always
         * cleaned up once. */
        uint64_t before = mim_world_mutations(*w);
        if (!pb->scratch) pb->scratch = mim_pm_scratch_new();
        /* Without passes a traversal would only rebuild nodes with their
         * holes resolved, which the cleanup does anyway. */
        bool ok = mim_pm_num_passes(s->pm) == 0 || mim_pm_run(s->pm, *w, pb->scratch);
        tell(pb, name, true);
        return ok && (!(*w == keep || mim_world_mutations(*w) != before) || traced_cleanup(pb, w, keep));
    }
    case STEP_PHASE: {
        MimWorld *before = *w;
        bool ok = s->phase->cls->run(s->phase, w);
        if (ok && *w != before && before != keep) mim_world_free(before);
        tell(pb, name, true);
        return ok;
    }
    case STEP_CLEANUP: {
        bool ok = mim_swap_cleanup(w, keep);
        tell(pb, name, true);
        return ok;
    }
    }
    return false;
}

static bool run_steps(MimPipeline *pb, MimWorld **w, MimWorld *keep) {
    for (size_t i = 0; i < pb->num_steps; ++i) {
        Step *s = &pb->steps[i];
        /* A phase without passes (e.g. of a nullptr_pass) would only walk
         * the whole program and change nothing. */
        if (s->kind == STEP_PM && *w != keep && mim_pm_num_passes(s->pm) == 0) continue;
        if (!run_step(pb, s, w, keep)) return false;
        release_input(pb, *w, &keep);
    }
    return true;
}

static void free_pipeline(MimPipeline *pb) {
    if (pb->open) mim_pm_free(pb->open);
    for (size_t i = 0; i < pb->num_steps; ++i) {
        Step *s = &pb->steps[i];
        if (s->pm) mim_pm_free(s->pm);
        if (s->phase) {
            if (s->phase->cls->fini) s->phase->cls->fini(s->phase);
            free(s->phase);
        }
    }
    free(pb->steps);
    mim_pm_scratch_free(pb->scratch);
    mim_ptrmap_free(&pb->pass_of);
}

/* Does a step make the interface helpers internal (compile.md §6)? Only then
 * may unused ones leave before the first step (helpers.c). */
static bool has_internal_cleanup(const MimPipeline *pb) {
    for (size_t i = 0; i < pb->num_steps; ++i)
        if (pb->steps[i].kind == STEP_PM && mim_pm_has_pass(pb->steps[i].pm, &mim_internal_cleanup_pass))
            return true;
    return false;
}

bool mim_optimize(MimWorld **w, const MimOptHost *host) {
    MimWorld *orig = *w;
    MimPipeline pb = {.w = orig, .host = host};
    MimDef *fn = compilation_function(orig);
    if (!fn) {
        mim_diag_report(mim_world_diag(orig), MIM_ERROR, mim_world_loc(orig),
                        "no compilation function found (is the 'compile' plugin loaded?)");
        return false;
    }
    MimDef *body = mim_lam_body(fn);
    bool ok = body && mim_pipeline_handle(&pb, body) && !pb.failed;
    mim_pipeline_end_pass_phase(&pb);
    mim_ptrmap_free(&pb.pass_of); /* keyed by nodes of orig, only for the interpretation */
    if (ok && host && !host->keep_helpers && has_internal_cleanup(&pb)) mim_retire_unused_helpers(orig);
    if (ok) ok = run_steps(&pb, w, orig);
    free_pipeline(&pb);
    return ok;
}
