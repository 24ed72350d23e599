/* %mem.reshape_pass (mem.md §5.5): every lambda whose domain changes shape
 * gets a stub with the reshaped domain, and calls are rewritten to pass the
 * flattened, regrouped arguments. The domain is flattened completely (nested
 * Σ opened, two-element arrays of functions opened, all %mem.M removed, the
 * first kept; function types inside are reshaped recursively); then the Flat
 * mode lays it out as [mem, leaves…] and the Arg mode as [[mem, [args…]], ret]
 * (ret: the last leaf if it is a function; see `Layout`).
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
 * Limitations (documented in docs/mem-passes.md): codomains of direct-style
 * functions and Σ types outside domains are kept; lambdas without a body and
 * dependent/implicit function types keep their signature. All externals,
 * `main` included, keep their name; `main` is replaced by a new external
 * lambda of the same name when its type changes (there is no in-place
 * retyping in the public API). */
#include "mem_passes.h"
#include "mem_util.h"
#include "mim/plugin/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Reshape {
    MimPass base;
    MimPtrMap types;    /* old type -> reshaped type */
    MimPtrMap lams;     /* old lambda -> stub */
    MimPtrMap adapters; /* adapter (old type) -> new-typed function it calls */
    MimPtrMap reverse;  /* reverse adapters and stubs-in-construction: never rewritten */
    bool arg_mode;   /* Arg layout instead of Flat */
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
        mim_vec_push(out, reshape_type(r, T));
    }
}

/* Where the flat components (a memory, then the other "leaves") go in a
 * reshaped domain. Flat: [mem, leaves…]. Arg: [[mem, [args…]], ret] where ret
 * is the last leaf if it is a function; mem/ret are omitted when absent and a
 * single arg is not wrapped. In both modes a domain with a single component
 * in total is that component. */
typedef struct Layout {
    bool arg;  /* Arg mode */
    bool mem;  /* there is a memory */
    size_t n;  /* leaves */
    bool ret;  /* Arg mode: the last leaf is the return continuation */
} Layout;

static bool is_fn_type(MimWorld *w, MimDef *T) {
    T = T ? mim_resolve(w, T) : NULL;
    return T && mim_def_node(T) == MIM_PI;
}

/* last_leaf: the type of the last leaf (if n > 0). */
static Layout layout_of(Reshape *r, bool mem, size_t n, MimDef *last_leaf) {
    MimWorld *w = mim_pass_world(&r->base);
    Layout l = {r->arg_mode, mem, n, false};
    l.ret = l.arg && n > 0 && (mem ? 1 : 0) + n > 1 && is_fn_type(w, last_leaf);
    return l;
}

/* Build the reshaped domain (types = true: mim_sigma) or argument (mim_tuple). */
static MimDef *assemble(MimWorld *w, const Layout *l, MimDef *mem, MimDef *const *leaves, bool types) {
    MimDef *(*mk)(MimWorld *, MimDef *const *, size_t) = types ? mim_sigma : mim_tuple;
    static MimDef *const none[1] = {NULL};
    if (!leaves) leaves = none; /* no leaves: never read */
    size_t total = (l->mem ? 1 : 0) + l->n;
    if (total == 1) return l->mem ? mem : leaves[0];
    if (!l->arg) {
        MimDef **all = mim_xcalloc(total, sizeof *all);
        size_t k = 0;
        if (l->mem) all[k++] = mem;
        for (size_t i = 0; i < l->n; i++) all[k++] = leaves[i];
        MimDef *res = mk(w, (MimDef *const *)all, total);
        free(all);
        return res;
    }
    size_t nargs = l->n - (l->ret ? 1 : 0);
    MimDef *res = nargs == 1 ? leaves[0] : mk(w, leaves, nargs);
    if (res && l->mem) res = mk(w, (MimDef *const[]){mem, res}, 2);
    if (res && l->ret) res = mk(w, (MimDef *const[]){res, leaves[l->n - 1]}, 2);
    return res;
}

/* The inverse of assemble for a value v of the reshaped domain: its memory
 * (if l->mem) and its leaves (l->n entries). */
static bool disassemble(MimWorld *w, const Layout *l, MimDef *v, MimDef **mem, MimDef **leaves) {
    size_t total = (l->mem ? 1 : 0) + l->n;
    if (total == 1) return *(l->mem ? mem : &leaves[0]) = v, true;
    if (!l->arg) {
        size_t k = 0;
        if (l->mem && !(*mem = mim_extract_lit(w, v, total, k++))) return false;
        for (size_t i = 0; i < l->n; i++)
            if (!(leaves[i] = mim_extract_lit(w, v, total, k++))) return false;
        return true;
    }
    if (l->ret) {
        if (!(leaves[l->n - 1] = mim_extract_lit(w, v, 2, 1)) || !(v = mim_extract_lit(w, v, 2, 0))) return false;
    }
    if (l->mem) {
        if (!(*mem = mim_extract_lit(w, v, 2, 0)) || !(v = mim_extract_lit(w, v, 2, 1))) return false;
    }
    size_t nargs = l->n - (l->ret ? 1 : 0);
    if (nargs == 1) return (leaves[0] = v) != NULL;
    for (size_t i = 0; i < nargs; i++)
        if (!(leaves[i] = mim_extract_lit(w, v, nargs, i))) return false;
    return true;
}

static MimDef *flat_dom(Reshape *r, MimDef *dom) {
    MimWorld *w = mim_pass_world(&r->base);
    MemVec v = {0};
    MimDef *mem = NULL; /* the first memory type found */
    leaf_types(r, dom, &v, &mem);
    Layout l = layout_of(r, mem != NULL, v.len, v.len ? v.data[v.len - 1] : NULL);
    MimDef *res = assemble(w, &l, mem, (MimDef *const *)v.data, true);
    mim_vec_free(&v);
    return res;
}

static MimDef *reshape_type(Reshape *r, MimDef *T) {
    MimWorld *w = mim_pass_world(&r->base);
    MimDef *pi = plain_pi(w, T);
    if (!pi) return T;
    MimDef *done = mim_ptrmap_get(&r->types, pi);
    if (done) return done;
    MimDef *res = mim_pi(w, flat_dom(r, mim_pi_dom(pi)), mim_pi_codom(pi), false);
    if (!res) return NULL;
    mim_ptrmap_put(&r->types, pi, res);
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
    MimDef *inner = mim_ptrmap_get(&r->adapters, f);
    if (inner) return inner;
    if (mim_def_node(f) == MIM_LAM && mim_def_is_mut(f) && mim_lam_body(f)) return reshape_lam(r, f);
    if (mim_def_node(f) == MIM_EXTRACT) { /* branches: (f, g)#c */
        MimDef *tup = mim_resolve(w, mim_def_op(f, 0));
        if (mim_def_node(tup) == MIM_TUPLE && !mim_def_is_mut(tup)) {
            size_t n = mim_def_num_ops(tup);
            MimDef **ops = mim_xcalloc(n ? n : 1, sizeof *ops);
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
    mim_vec_push(out, x);
    return true;
}

/* The argument for a callee of reshaped type: the old argument flattened and
 * assembled like the reshaped domain. */
static MimDef *flat_arg(Reshape *r, MimDef *arg, MimDef *old_dom) {
    MimWorld *w = mim_pass_world(&r->base);
    MemVec v = {0};
    MimDef *mem = NULL, *res = NULL;
    if (flatten(r, arg, old_dom, &v, &mem)) {
        /* the leaves have the reshaped leaf types, so their types decide the layout */
        Layout l = layout_of(r, mem != NULL, v.len, v.len ? mim_def_type(v.data[v.len - 1]) : NULL);
        res = assemble(w, &l, mem, (MimDef *const *)v.data, false);
    }
    mim_vec_free(&v);
    return res;
}

/* An adapter of old function type T standing for new-typed value f. */
static MimDef *adapter(Reshape *r, MimDef *f, MimDef *T) {
    MimWorld *w = mim_pass_world(&r->base);
    MimDef *pi = plain_pi(w, T);
    MimDef *a = mim_mut_lam(w, pi);
    mim_def_set_name(a, mim_world_sym(w, "reshape_adapter"));
    mim_ptrmap_put(&r->adapters, a, f);
    MimDef *arg = flat_arg(r, mim_var(w, a), mim_pi_dom(pi));
    MimDef *body = arg ? mim_app(w, f, arg) : NULL;
    return body && mim_lam_set(w, a, mim_lit_bool(w, false), body) ? a : NULL;
}

/* Regroup the new parameters params[*i..] into a value of old type T. */
static MimDef *regroup(Reshape *r, MimDef *T, MimDef *const *params, size_t *i, MimDef *mem) {
    MimWorld *w = mim_pass_world(&r->base);
    uint64_t n;
    if (opens(w, T, &n)) {
        MimDef **ops = mim_xcalloc(n ? n : 1, sizeof *ops);
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
    MemVec v = {0};
    MimDef *mem_type = NULL, *mem = NULL, *res = NULL;
    leaf_types(r, mim_pi_dom(old_pi), &v, &mem_type);
    Layout l = layout_of(r, mem_type != NULL, v.len, v.len ? v.data[v.len - 1] : NULL);
    MimDef **params = mim_xcalloc(v.len ? v.len : 1, sizeof *params);
    size_t i = 0;
    if (disassemble(w, &l, mim_var(w, lam), &mem, params))
        res = regroup(r, mim_pi_dom(old_pi), params, &i, mem);
    free(params);
    mim_vec_free(&v);
    return res;
}

static MimDef *reverse_adapter(Reshape *r, MimDef *f, MimDef *old_pi) {
    MimWorld *w = mim_pass_world(&r->base);
    MimDef *a = mim_mut_lam(w, reshape_type(r, old_pi));
    mim_def_set_name(a, mim_world_sym(w, "reshape_reverse"));
    mim_ptrmap_put(&r->reverse, a, a);
    MimDef *arg = regroup_params(r, a, old_pi);
    MimDef *body = arg ? mim_app(w, f, arg) : NULL;
    return body && mim_lam_set(w, a, mim_lit_bool(w, false), body) ? a : NULL;
}

/* The stub of lam (memoized); lam itself if its type does not change. */
static MimDef *reshape_lam(Reshape *r, MimDef *lam) {
    MimWorld *w = mim_pass_world(&r->base);
    MimDef *done = mim_ptrmap_get(&r->lams, lam);
    if (done) return done;
    MimDef *old_pi = plain_pi(w, mim_def_type(lam));
    if (!old_pi || !mim_lam_body(lam) || mim_ptrmap_has(&r->adapters, lam) || mim_ptrmap_has(&r->reverse, lam) ||
        !changes(r, old_pi))
        return lam;
    MimDef *stub = mim_mut_lam(w, reshape_type(r, old_pi));
    if (!stub) return NULL;
    mim_ptrmap_put(&r->lams, lam, stub); /* before the body: recursion */
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
    mim_ptrmap_clear(&r->types);
    mim_ptrmap_clear(&r->lams);
    mim_ptrmap_clear(&r->adapters);
    mim_ptrmap_clear(&r->reverse);
    /* externals get their stubs up front (reshape_lam transfers them) */
    MemVec ext = {0};
    for (size_t i = 0, n = mim_world_num_externals(w); i < n; i++) mim_vec_push(&ext, mim_world_external(w, i));
    for (size_t i = 0; i < ext.len; i++) {
        MimDef *e = ext.data[i];
        if (mim_def_node(e) == MIM_LAM && mim_lam_body(e)) reshape_lam(r, e);
    }
    mim_vec_free(&ext);
}

static MimDef *reshape_rewrite(MimPass *p, MimDef *d) {
    Reshape *r = (Reshape *)p;
    MimWorld *w = mim_pass_world(p);
    MimDef *cur = mim_pass_cur(p);
    if (mim_def_node(d) != MIM_APP || mim_app_axiom(d)) return d;
    if (cur && (mim_ptrmap_has(&r->reverse, cur) || mim_ptrmap_has(&r->adapters, cur))) return d;
    MimDef *callee = mim_app_callee(d);
    MimDef *T = mim_def_type(callee);
    if (!changes(r, T)) return d;
    MimDef *f = convert_fn(r, callee, T);
    MimDef *arg = f ? flat_arg(r, mim_app_arg(d), mim_pi_dom(plain_pi(w, T))) : NULL;
    return arg ? mim_app(w, f, arg) : NULL;
}

static void reshape_fini(MimPass *p) {
    Reshape *r = (Reshape *)p;
    mim_ptrmap_free(&r->types);
    mim_ptrmap_free(&r->lams);
    mim_ptrmap_free(&r->adapters);
    mim_ptrmap_free(&r->reverse);
}

/* Two classes so that a pipeline may hold both modes (the pipeline reuses an
 * instance per class); the mode is set when the instance is created. */
static const MimPassClass reshape_class = {.name = "reshape",
                                           .size = sizeof(Reshape),
                                           .on_lams = true,
                                           .prepare = reshape_prepare,
                                           .rewrite = reshape_rewrite,
                                           .fini = reshape_fini};
static const MimPassClass reshape_arg_class = {.name = "reshape_arg",
                                               .size = sizeof(Reshape),
                                               .on_lams = true,
                                               .prepare = reshape_prepare,
                                               .rewrite = reshape_rewrite,
                                               .fini = reshape_fini};

bool mem_handle_reshape(MimPipeline *pb, MimDef *app) {
    MimDef *mode = mim_app_arg(app);
    bool arg = mim_match(mode, MIM_mem_reshape_arg) != NULL;
    if (!arg && !mim_match(mode, MIM_mem_reshape_flat)) {
        mim_pipeline_error(pb, app, "%mem.reshape_pass expects %mem.reshape_flat or %mem.reshape_arg");
        return false;
    }
    bool fresh;
    MimPass *p = mim_pipeline_add_pass(pb, app, arg ? &reshape_arg_class : &reshape_class, &fresh);
    if (p && fresh) ((Reshape *)p)->arg_mode = arg;
    return p != NULL;
}
