/* %mem.reshape_pass (mem.md §5.5), Flat mode: every lambda whose domain is
 * not already flat gets a stub whose domain is flattened completely (nested
 * Σ opened, two-element arrays of functions opened, all %mem.M removed and a
 * single one put first; function types inside are reshaped recursively), and
 * calls are rewritten to pass flattened arguments.
 *
 * How it fits the pass manager: the body of a stub is the old body
 * instantiated with the stub's parameters regrouped into the old shape. A
 * function-typed parameter has the *new* type, so its old-shaped stand-in is
 * a small adapter lambda of the old type calling the parameter; calls of an
 * adapter are rewritten to calls of the parameter, so adapters vanish once
 * the body is rebuilt. A function value of an old type that is neither a
 * lambda nor an adapter (rare: e.g. read from memory) is wrapped the other
 * way ("reverse adapter", which calls the old value with regrouped arguments
 * and is never rewritten itself).
 *
 * Limitations (documented in docs/mem-passes.md): Arg mode is not
 * implemented; codomains of direct-style functions and Σ types outside
 * domains are kept; lambdas without a body and dependent/implicit function
 * types keep their signature. All externals, `main` included, keep their
 * name; `main` is replaced by a new external lambda of the same name when its
 * type changes (there is no in-place retyping in the public API). */
#include "mem_passes.h"
#include "mem_util.h"
#include "mim/plugin/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Reshape {
    MimPass base;
    MemMap types;    /* old type -> reshaped type */
    MemMap lams;     /* old lambda -> stub */
    MemMap adapters; /* adapter (old type) -> new-typed function it calls */
    MemMap reverse;  /* reverse adapters and stubs-in-construction: never rewritten */
} Reshape;

static MimDef *reshape_type(Reshape *r, MimDef *T);

/* An immutable, non-implicit Pi with an immutable domain (mutable Pis from
 * the front end are immutabilized), or NULL. */
static MimDef *plain_pi(MimWorld *w, MimDef *T) {
    T = T ? mim_resolve(w, T) : NULL;
    if (T && mim_def_is_mut(T) && mim_def_node(T) == MIM_PI) T = mim_immutabilize(w, T);
    if (!T || mim_def_node(T) != MIM_PI || mim_def_is_mut(T) || mim_pi_is_implicit(T)) return NULL;
    MimDef *dom = mim_resolve(w, mim_pi_dom(T));
    return dom && !mim_def_is_mut(dom) ? T : NULL;
}

/* Is the domain component type T opened up by flattening? Sets *n. */
static bool opens(MimWorld *w, MimDef *T, uint64_t *n) {
    T = mim_resolve(w, T);
    if (mim_def_is_mut(T)) return false;
    if (mim_def_node(T) == MIM_SIGMA) return *n = mim_def_num_ops(T), true;
    if (mim_def_node(T) == MIM_ARR) {
        uint64_t s;
        MimDef *body = mim_def_op(T, 1);
        return mem_lit(w, mim_def_op(T, 0), &s) && s == 2 && plain_pi(w, body) && (*n = 2, true);
    }
    return false;
}

static MimDef *comp(MimWorld *w, MimDef *T, uint64_t i) {
    T = mim_resolve(w, T);
    return mim_def_node(T) == MIM_SIGMA ? mim_def_op(T, i) : mim_def_op(T, 1);
}

/* Collect the reshaped leaf types of T (memories only counted). */
static void leaf_types(Reshape *r, MimDef *T, MemVec *out, MimDef **mem) {
    MimWorld *w = mim_pass_world(&r->base);
    uint64_t n;
    if (opens(w, T, &n)) {
        for (uint64_t i = 0; i < n; i++) leaf_types(r, comp(w, T, i), out, mem);
    } else if (mem_is_M(w, T)) {
        if (!*mem) *mem = T;
    } else {
        mem_vec_push(out, reshape_type(r, T));
    }
}

static MimDef *flat_dom(Reshape *r, MimDef *dom) {
    MimWorld *w = mim_pass_world(&r->base);
    MemVec v = {0}, all = {0};
    MimDef *mem = NULL; /* the first memory type found */
    leaf_types(r, dom, &v, &mem);
    if (mem) mem_vec_push(&all, mem);
    for (size_t i = 0; i < v.len; i++) mem_vec_push(&all, v.data[i]);
    MimDef *res = all.len == 1 ? all.data[0] : mim_sigma(w, (MimDef *const *)all.data, all.len);
    mem_vec_free(&v);
    mem_vec_free(&all);
    return res;
}

static MimDef *reshape_type(Reshape *r, MimDef *T) {
    MimWorld *w = mim_pass_world(&r->base);
    MimDef *pi = plain_pi(w, T);
    if (!pi) return T;
    MimDef *done = mem_map_get(&r->types, pi);
    if (done) return done;
    MimDef *res = mim_pi(w, flat_dom(r, mim_pi_dom(pi)), mim_pi_codom(pi), false);
    if (!res) return NULL;
    mem_map_put(&r->types, pi, res);
    return res;
}

static bool changes(Reshape *r, MimDef *T) {
    MimWorld *w = mim_pass_world(&r->base);
    MimDef *pi = plain_pi(w, T);
    if (!pi) return false;
    MimDef *res = reshape_type(r, pi);
    return res != pi && !mim_alpha(w, res, pi, false);
}

static MimDef *reshape_lam(Reshape *r, MimDef *lam);
static MimDef *reverse_adapter(Reshape *r, MimDef *f, MimDef *old_pi);

/* A function value of old type T as a value of the reshaped type. */
static MimDef *convert_fn(Reshape *r, MimDef *f, MimDef *T) {
    MimWorld *w = mim_pass_world(&r->base);
    f = mim_resolve(w, f);
    if (!changes(r, T)) return f;
    MimDef *inner = mem_map_get(&r->adapters, f);
    if (inner) return inner;
    if (mim_def_node(f) == MIM_LAM && mim_def_is_mut(f) && mim_lam_body(f)) return reshape_lam(r, f);
    if (mim_def_node(f) == MIM_EXTRACT) { /* branches: (f, g)#c */
        MimDef *tup = mim_resolve(w, mim_def_op(f, 0));
        if (mim_def_node(tup) == MIM_TUPLE && !mim_def_is_mut(tup)) {
            size_t n = mim_def_num_ops(tup);
            MimDef **ops = mem_xcalloc(n ? n : 1, sizeof *ops);
            bool ok = true;
            for (size_t i = 0; i < n && ok; i++)
                ok = (ops[i] = convert_fn(r, mim_def_op(tup, i), T)) != NULL;
            MimDef *res = ok ? mim_tuple(w, ops, n) : NULL;
            free(ops);
            return res ? mim_extract(w, res, mim_def_op(f, 1)) : NULL;
        }
    }
    return reverse_adapter(r, f, plain_pi(w, T));
}

/* Flatten value v of old domain type T: memories go to *mem (first wins). */
static bool flatten(Reshape *r, MimDef *v, MimDef *T, MemVec *out, MimDef **mem) {
    MimWorld *w = mim_pass_world(&r->base);
    uint64_t n;
    if (opens(w, T, &n)) {
        for (uint64_t i = 0; i < n; i++) {
            MimDef *x = mim_extract_lit(w, v, n, i);
            if (!x || !flatten(r, x, comp(w, T, i), out, mem)) return false;
        }
        return true;
    }
    if (mem_is_M(w, T)) {
        if (!*mem) *mem = v;
        return true;
    }
    MimDef *x = convert_fn(r, v, T);
    if (!x) return false;
    mem_vec_push(out, x);
    return true;
}

/* The argument for a callee of reshaped type: the flattened old argument. */
static MimDef *flat_arg(Reshape *r, MimDef *arg, MimDef *old_dom) {
    MimWorld *w = mim_pass_world(&r->base);
    MemVec v = {0}, all = {0};
    MimDef *mem = NULL, *res = NULL;
    if (flatten(r, arg, old_dom, &v, &mem)) {
        if (mem) mem_vec_push(&all, mem);
        for (size_t i = 0; i < v.len; i++) mem_vec_push(&all, v.data[i]);
        res = all.len == 1 ? all.data[0] : mim_tuple(w, (MimDef *const *)all.data, all.len);
    }
    mem_vec_free(&v);
    mem_vec_free(&all);
    return res;
}

/* An adapter of old function type T standing for new-typed value f. */
static MimDef *adapter(Reshape *r, MimDef *f, MimDef *T) {
    MimWorld *w = mim_pass_world(&r->base);
    MimDef *pi = plain_pi(w, T);
    MimDef *a = mim_mut_lam(w, pi);
    mim_def_set_name(a, mim_world_sym(w, "reshape_adapter"));
    mem_map_put(&r->adapters, a, f);
    MimDef *arg = flat_arg(r, mim_var(w, a), mim_pi_dom(pi));
    MimDef *body = arg ? mim_app(w, f, arg) : NULL;
    return body && mim_lam_set(w, a, mim_lit_bool(w, false), body) ? a : NULL;
}

/* Regroup the new parameters params[*i..] into a value of old type T. */
static MimDef *regroup(Reshape *r, MimDef *T, MimDef *const *params, size_t *i, MimDef *mem) {
    MimWorld *w = mim_pass_world(&r->base);
    uint64_t n;
    if (opens(w, T, &n)) {
        MimDef **ops = mem_xcalloc(n ? n : 1, sizeof *ops);
        bool ok = true;
        for (uint64_t k = 0; k < n && ok; k++) ok = (ops[k] = regroup(r, comp(w, T, k), params, i, mem)) != NULL;
        MimDef *res = ok ? mim_tuple_typed(w, mim_resolve(w, T), ops, n) : NULL;
        free(ops);
        return res;
    }
    if (mem_is_M(w, T)) return mem;
    MimDef *p = params[(*i)++];
    return changes(r, T) ? adapter(r, p, T) : p;
}

/* The old-shaped value of the domain of old_pi made from the parameters of lam. */
static MimDef *regroup_params(Reshape *r, MimDef *lam, MimDef *old_pi) {
    MimWorld *w = mim_pass_world(&r->base);
    MimDef *new_dom = mim_pi_dom(plain_pi(w, mim_def_type(lam)));
    uint64_t n = mem_num_comps(w, new_dom);
    MimDef **params = mem_xcalloc(n ? n : 1, sizeof *params);
    for (uint64_t k = 0; k < n; k++) params[k] = mim_var_proj(w, lam, n, k);
    bool has_mem = n > 0 && mem_is_M(w, mem_comp_type(w, new_dom, n, 0));
    size_t i = has_mem ? 1 : 0;
    MimDef *res = regroup(r, mim_pi_dom(old_pi), params, &i, has_mem ? params[0] : NULL);
    free(params);
    return res;
}

static MimDef *reverse_adapter(Reshape *r, MimDef *f, MimDef *old_pi) {
    MimWorld *w = mim_pass_world(&r->base);
    MimDef *a = mim_mut_lam(w, reshape_type(r, old_pi));
    mim_def_set_name(a, mim_world_sym(w, "reshape_reverse"));
    mem_map_put(&r->reverse, a, a);
    MimDef *arg = regroup_params(r, a, old_pi);
    MimDef *body = arg ? mim_app(w, f, arg) : NULL;
    return body && mim_lam_set(w, a, mim_lit_bool(w, false), body) ? a : NULL;
}

/* The stub of lam (memoized); lam itself if its type does not change. */
static MimDef *reshape_lam(Reshape *r, MimDef *lam) {
    MimWorld *w = mim_pass_world(&r->base);
    MimDef *done = mem_map_get(&r->lams, lam);
    if (done) return done;
    MimDef *old_pi = plain_pi(w, mim_def_type(lam));
    if (!old_pi || !mim_lam_body(lam) || mem_map_has(&r->adapters, lam) || mem_map_has(&r->reverse, lam) ||
        !changes(r, old_pi))
        return lam;
    MimDef *stub = mim_mut_lam(w, reshape_type(r, old_pi));
    if (!stub) return NULL;
    mem_map_put(&r->lams, lam, stub); /* before the body: recursion */
    MimSym name = mim_def_name(lam);
    if (mim_def_is_external(lam)) {
        mim_make_internal(w, lam);
        mim_def_set_name(stub, name);
        mim_make_external(w, stub);
    } else if (name) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s_reshape", name);
        mim_def_set_name(stub, mim_world_sym(w, buf));
    }
    MimDef *arg = regroup_params(r, stub, old_pi);
    MimDef *out[2];
    if (!arg || !mim_reduce(w, lam, arg, out) || !mim_lam_set(w, stub, out[0], out[1])) return NULL;
    return stub;
}

static void reshape_prepare(MimPass *p) {
    Reshape *r = (Reshape *)p;
    MimWorld *w = mim_pass_world(p);
    /* maps refer to the previous World (a cleanup ran in between) */
    mem_map_clear(&r->types);
    mem_map_clear(&r->lams);
    mem_map_clear(&r->adapters);
    mem_map_clear(&r->reverse);
    /* externals get their stubs up front (reshape_lam transfers them) */
    MemVec ext = {0};
    for (size_t i = 0, n = mim_world_num_externals(w); i < n; i++) mem_vec_push(&ext, mim_world_external(w, i));
    for (size_t i = 0; i < ext.len; i++) {
        MimDef *e = ext.data[i];
        if (mim_def_node(e) == MIM_LAM && mim_lam_body(e)) reshape_lam(r, e);
    }
    mem_vec_free(&ext);
}

static MimDef *reshape_rewrite(MimPass *p, MimDef *d) {
    Reshape *r = (Reshape *)p;
    MimWorld *w = mim_pass_world(p);
    MimDef *cur = mim_pass_cur(p);
    if (mim_def_node(d) != MIM_APP || mim_app_axiom(d)) return d;
    if (cur && (mem_map_has(&r->reverse, cur) || mem_map_has(&r->adapters, cur))) return d;
    MimDef *callee = mim_app_callee(d);
    MimDef *T = mim_def_type(callee);
    if (!changes(r, T)) return d;
    MimDef *f = convert_fn(r, callee, T);
    MimDef *arg = f ? flat_arg(r, mim_app_arg(d), mim_pi_dom(plain_pi(w, T))) : NULL;
    return arg ? mim_app(w, f, arg) : NULL;
}

static void reshape_fini(MimPass *p) {
    Reshape *r = (Reshape *)p;
    mem_map_free(&r->types);
    mem_map_free(&r->lams);
    mem_map_free(&r->adapters);
    mem_map_free(&r->reverse);
}

static const MimPassClass reshape_class = {.name = "reshape",
                                           .size = sizeof(Reshape),
                                           .on_lams = true,
                                           .prepare = reshape_prepare,
                                           .rewrite = reshape_rewrite,
                                           .fini = reshape_fini};

bool mem_handle_reshape(MimPipeline *pb, MimDef *app) {
    MimDef *mode = mim_app_arg(app);
    if (!mim_match(mode, MIM_mem_reshape_flat)) {
        mim_pipeline_error(pb, app, "%mem.reshape_pass %mem.reshape_arg is not implemented yet");
        return false;
    }
    bool fresh;
    return mim_pipeline_add_pass(pb, app, &reshape_class, &fresh) != NULL;
}

bool mem_handle_add_mem(MimPipeline *pb, MimDef *app) {
    mim_pipeline_error(pb, app, "%mem.add_mem_phase is not implemented yet");
    return false;
}
