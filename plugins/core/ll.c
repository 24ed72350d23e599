/* The `ll` back end: textual LLVM IR (LLVM 14, typed pointers) for a
 * first-order CPS World (plugins/ll-backend.md; decisions in
 * docs/ll-backend.md). This file holds the entry point and module layout
 * (§2), the type mapping (§3), constants (§5.1) and shared helpers. */
#include "ll.h"
#include "ll_impl.h"
#include "mim/plugin/compile.h"
#include "mim/plugin/math.h"
#include "mim/plugin/mem.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- buffers ---------------------------------------------------------------- */
void ll_buf_vprintf(LLBuf *b, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) return;
    mim_vec_reserve(b, b->len + (size_t)n + 1);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void ll_buf_puts(LLBuf *b, const char *s) {
    size_t n = strlen(s);
    mim_vec_reserve(b, b->len + n + 1);
    memcpy(b->data + b->len, s, n + 1);
    b->len += n;
}

/* A copy of s owned by ll (as ll_str's results). */
static const char *ll_strdup(LL *ll, const char *s) {
    LLBuf b = {0};
    ll_buf_puts(&b, s);
    mim_vec_push(&ll->strings, b.data);
    return b.data;
}

/* v in decimal, as "%" PRIu64 prints it: a constant table has one literal
 * per element, and vsnprintf dominated the time of printing big ones. */
/* v in decimal, written at the end of buf. */
static const char *u64_digits(char buf[21], uint64_t v) {
    char *p = buf + 20;
    *p = '\0';
    do *--p = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    return p;
}

static const char *ll_u64(LL *ll, uint64_t v) {
    char digits[21];
    return ll_strdup(ll, u64_digits(digits, v));
}

void ll_buf_printf(LLBuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ll_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

const char *ll_str(LL *ll, const char *fmt, ...) {
    LLBuf b = {0};
    va_list ap;
    va_start(ap, fmt);
    ll_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    if (!b.data) ll_buf_printf(&b, "%s", "");
    mim_vec_push(&ll->strings, b.data);
    return b.data;
}

/* ---- names, per-node data, errors ------------------------------------------- */
/* <name>_<gid> with every character outside [A-Za-z0-9_.] replaced by '_'
 * (valid as an unquoted LLVM identifier after % or @). */
const char *ll_name(LL *ll, const MimDef *d) {
    MimSym s = mim_def_name(d);
    char *out = (char *)ll_str(ll, "%s_%" PRIu32, s ? s : "", mim_def_gid(d));
    for (char *c = out; *c; ++c)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_' || *c == '.'))
            *c = '_';
    return out;
}

const char *ll_tmp(LL *ll, const char *hint) { return ll_str(ll, "%s.t%u", hint, ll->tmp++); }

const char *ll_result(LL *ll, const MimDef *d) {
    const char *n = ll_name(ll, d);
    return ll->frames.len || ll->fresh ? ll_str(ll, "%%%s.e%u", n, ll->tmp++) : ll_str(ll, "%%%s", n);
}

LLInfo *ll_info(LL *ll, const MimDef *d) {
    uint32_t gid = mim_def_gid(d);
    if (gid >= ll->num_gids) abort(); /* the World is frozen: no new node */
    LLInfo *i = &ll->info[gid];
    if (i->fn != ll->fn) {
        i->fn = ll->fn;
        i->place = LL_PLACE_UNSET;
        i->chain = -1;
        i->need = -1;
        i->block = -1;
        i->effect = i->visiting = i->emitted = i->seen = i->rvisit = 0;
        i->late = -1;
        i->sink = -1;
        i->copies = i->here = 0;
        i->nuses = 0;
        i->val = NULL;
        i->pdep_done = 0;
    }
    return i;
}

/* Union of the pack sets a and b (at most two packs each) into r. */
static void pdep_join(MimDef **r, MimDef *const *a) {
    if (r[0] == LL_PDEP_MANY) return;
    for (int k = 0; k < 2 && a[k]; ++k) {
        if (a[k] == LL_PDEP_MANY) {
            r[0] = LL_PDEP_MANY, r[1] = NULL;
            return;
        }
        if (r[0] == a[k] || r[1] == a[k]) continue;
        if (!r[0]) r[0] = a[k];
        else if (!r[1]) r[1] = a[k];
        else {
            r[0] = LL_PDEP_MANY, r[1] = NULL;
            return;
        }
    }
}

static MimDef *const *pack_deps(LL *ll, MimDef *d) {
    static MimDef *const none[2] = {NULL, NULL};
    /* a mutable (and what uses one) may hide a variable from the flags */
    if (!d || !(mim_def_dep(d) & (MIM_DEP_VAR | MIM_DEP_MUT))) return none;
    LLInfo *i = ll_info(ll, d);
    if (i->pdep_done) return i->pdep;
    i->pdep_done = 1; /* empty while in progress: a cycle runs through a mutable */
    i->pdep[0] = i->pdep[1] = NULL;
    MimDef *r[2] = {NULL, NULL};
    switch (mim_def_node(d)) {
    case MIM_VAR: {
        MimDef *b = ll_op(d, 0);
        if (b && mim_def_node(b) == MIM_PACK && mim_def_is_mut(b)) r[0] = b;
        break;
    }
    case MIM_LAM: break; /* blocks and functions bind their own variables */
    case MIM_PACK:
        if (mim_def_is_mut(d)) { /* its own variable is bound here */
            pdep_join(r, pack_deps(ll, ll_op(d, 0)));
            if (r[1] == d) r[1] = NULL;
            if (r[0] == d) r[0] = r[1], r[1] = NULL;
            break;
        }
        /* fall through */
    default:
        for (size_t k = 0, n = mim_def_num_ops(d); k < n && r[0] != LL_PDEP_MANY; ++k)
            pdep_join(r, pack_deps(ll, ll_op(d, k)));
        break;
    }
    i = ll_info(ll, d);
    i->pdep[0] = r[0], i->pdep[1] = r[1];
    return i->pdep;
}

MimDef *ll_pack_dep(LL *ll, MimDef *d) { return pack_deps(ll, d)[0]; }

void ll_error(LL *ll, const MimDef *d, const char *why) {
    if (!ll->ok) return; /* the first error is the useful one */
    ll->ok = false;
    char *def = d ? mim_def_to_str(ll->w, d) : NULL;
    MimDef *t = d ? ll_typeof(d) : NULL;
    char *type = t ? mim_def_to_str(ll->w, t) : NULL;
    MimLoc loc = d ? mim_def_loc(d) : mim_world_loc(ll->w);
    /* nodes without a location (variables, ⊥) are reported at the block or
     * function being emitted */
    if (!loc.file && ll->bb >= 0 && (size_t)ll->bb < ll->blocks.len && ll->blocks.data[ll->bb].lam)
        loc = mim_def_loc(ll->blocks.data[ll->bb].lam);
    if (!loc.file && ll->cur) loc = mim_def_loc(ll->cur);
    mim_diag_report(mim_world_diag(ll->w), MIM_ERROR, loc, "unhandled def in LLVM backend: %s : %s",
                    def ? def : "?", type ? type : "?");
    if (why) mim_diag_report(mim_world_diag(ll->w), MIM_NOTE, loc, "%s", why);
    free(def);
    free(type);
}

bool ll_declared(LL *ll, const LLBuf *out, const char *name) {
    const char *key = ll_str(ll, "%s(", name);
    if (out->data && strstr(out->data, ll_str(ll, " %s", key))) return true;
    for (size_t i = 0; i < ll->decls.len; ++i)
        if (strstr(ll->decls.data[i], key)) return true;
    return false;
}

void ll_declare(LL *ll, const char *decl) {
    for (size_t i = 0; i < ll->decls.len; ++i)
        if (strcmp(ll->decls.data[i], decl) == 0) return;
    mim_vec_push(&ll->decls, mim_xstrdup(decl));
}

/* ---- types (§3) -------------------------------------------------------------- */
bool ll_is_mem(const MimDef *type) { return type && mim_match((MimDef *)type, MIM_mem_M) != NULL; }

bool ll_has_mem(const MimDef *type) {
    if (!type) return false;
    if (ll_is_mem(type)) return true;
    if (mim_def_node(type) == MIM_SIGMA)
        for (size_t i = 0, n = mim_def_num_ops(type); i < n; ++i)
            if (ll_has_mem(ll_op(type, i))) return true;
    return false;
}

unsigned ll_float_width(MimDef *type) {
    MimDef *f = type ? mim_match(type, MIM_math_F) : NULL;
    if (!f) return 0;
    MimDef *pe = ll_app_arg(f);
    uint64_t p, e;
    if (mim_def_node(pe) != MIM_TUPLE || mim_def_num_ops(pe) != 2 || !mim_def_lit(ll_op(pe, 0), &p) ||
        !mim_def_lit(ll_op(pe, 1), &e))
        return 0;
    if (p == 10 && e == 5) return 16;
    if (p == 23 && e == 8) return 32;
    if (p == 52 && e == 11) return 64;
    return 0;
}

unsigned ll_int_width(LL *ll, MimDef *type) {
    type = mim_resolve(ll->w, type);
    if (!type) return 0;
    if (mim_def_node(type) == MIM_NAT) return 64;
    if (mim_def_node(type) != MIM_APP || ll_callee(type) != mim_idx(ll->w)) return 0;
    /* `Idx ⊤:Nat` (string positions, lea indices) and any other size that is
     * not a literal: 64 bits, like the reference's Idx::size2bitwidth */
    uint64_t s;
    if (!core_idx_lit_size(ll->w, type, &s)) return 64;
    unsigned w = core_width(s);
    return w ? w : 1;
}

/* semantics.md §4.4: the last domain element if it is a continuation
 * without a return continuation of its own — `Cn (Cn [I32, Cn I32])` (a
 * block receiving a function pointer) is not returning. */
static MimDef *ret_pi(const MimDef *pi, unsigned depth);

MimDef *ll_ret_pi(const MimDef *pi) { return ret_pi(pi, 0); }

static MimDef *ret_pi(const MimDef *pi, unsigned depth) {
    if (!pi || mim_def_node(pi) != MIM_PI || !mim_pi_is_cn(pi) || depth > 64) return NULL;
    MimDef *dom = ll_dom(pi);
    MimDef *last = dom;
    if (dom && mim_def_node(dom) == MIM_SIGMA) {
        size_t n = mim_def_num_ops(dom);
        if (n == 0) return NULL;
        last = ll_op(dom, n - 1);
    }
    if (last && mim_def_node(last) == MIM_PI && mim_pi_is_cn(last) && !ret_pi(last, depth + 1)) return last;
    return NULL;
}

bool ll_is_fn_lam(const MimDef *lam) {
    return lam && mim_def_node(lam) == MIM_LAM && ll_ret_pi(ll_typeof(lam)) != NULL;
}

bool ll_domain_comps(MimDef *dom, size_t *n, MimDef ***out) {
    if (dom && mim_def_node(dom) == MIM_SIGMA) {
        *n = mim_def_num_ops(dom);
        *out = malloc((*n ? *n : 1) * sizeof **out);
        if (!*out) abort();
        for (size_t i = 0; i < *n; ++i) (*out)[i] = ll_op(dom, i);
        return true;
    }
    uint64_t k;
    if (dom && mim_def_node(dom) == MIM_ARR && !mim_def_is_mut(dom) && mim_def_lit(ll_op(dom, 0), &k) &&
        k >= 2 && k <= 64) {
        *n = (size_t)k;
        *out = malloc(*n * sizeof **out);
        if (!*out) abort();
        for (size_t i = 0; i < *n; ++i) (*out)[i] = ll_op(dom, 1);
        return true;
    }
    *n = 1;
    *out = malloc(sizeof **out);
    if (!*out) abort();
    (*out)[0] = dom;
    return false;
}

bool ll_fn_comps(MimDef *dom, size_t *n, MimDef ***out, size_t *inner) {
    *inner = 0;
    if (dom && mim_def_node(dom) == MIM_SIGMA && mim_def_num_ops(dom) == 2) {
        MimDef *x = ll_op(dom, 0), **xc = NULL;
        size_t k;
        if (x && ll_domain_comps(x, &k, &xc) && k >= 1) {
            MimDef **all = realloc(xc, (k + 1) * sizeof *all);
            if (!all) abort();
            all[k] = ll_op(dom, 1);
            *out = all;
            *n = k + 1;
            *inner = k;
            return true;
        }
        free(xc);
    }
    return ll_domain_comps(dom, n, out);
}

/* A literal struct type, or the named type with that body if there is one:
 * LLVM tells a named struct from a literal one, while Mim equates a named Σ
 * with its unfolding (`rec Node = [I32, %mem.Ptr0 Node]`: a tuple
 * `(x, p)` of type [I32, %mem.Ptr0 Node] is stored through a pointer to
 * Node and passed where Node is expected). The components' types are
 * computed before the body is formed, so the named type is registered by
 * then. */
static const char *ll_named(LL *ll, const char *literal) {
    for (size_t i = 0; i < ll->named_body.len; ++i)
        if (strcmp(ll->named_body.data[i], literal) == 0) return ll->named_name.data[i];
    return literal;
}

/* The aggregate type of the non-memory types in comps: "" if none, the single
 * type if one, else a literal struct. */
static const char *ll_aggregate(LL *ll, MimDef **comps, size_t n, bool array_ok) {
    const char *first = NULL, *elem = NULL;
    size_t count = 0;
    LLBuf b = {0};
    bool same = true;
    for (size_t i = 0; i < n; ++i) {
        const char *t = ll_type(ll, comps[i]);
        if (!t) {
            mim_vec_free(&b);
            return NULL;
        }
        if (!*t) continue;
        if (!first) first = t;
        if (elem && strcmp(elem, t) != 0) same = false;
        elem = t;
        ll_buf_printf(&b, "%s%s", count ? ", " : "", t);
        ++count;
    }
    const char *r;
    if (count == 0) r = "";
    else if (count == 1) r = first;
    else if (array_ok && same) r = ll_str(ll, "[%zu x %s]", count, elem);
    else r = ll_named(ll, ll_str(ll, "{%s}", b.data));
    mim_vec_free(&b);
    return r;
}

const char *ll_values_type(LL *ll, MimDef *dom) {
    size_t n;
    MimDef **comps;
    ll_domain_comps(dom, &n, &comps);
    const char *t = ll_aggregate(ll, comps, n, false);
    free(comps);
    if (t && !*t) t = "void";
    return t;
}

const char *ll_fn_ret_type(LL *ll, MimDef *pi) {
    MimDef *ret = ll_ret_pi(pi);
    return ret ? ll_values_type(ll, ll_dom(ret)) : NULL;
}

const char *ll_fn_ptr_type(LL *ll, MimDef *pi) {
    const char *ret = ll_fn_ret_type(ll, pi);
    if (!ret) return NULL;
    size_t n;
    MimDef **comps;
    size_t inner;
    ll_fn_comps(ll_dom(pi), &n, &comps, &inner);
    LLBuf b = {0};
    size_t k = 0;
    const char *r = NULL;
    for (size_t i = 0; i + 1 < n; ++i) {
        const char *t = ll_type(ll, comps[i]);
        if (!t) goto out;
        if (*t) ll_buf_printf(&b, "%s%s", k++ ? ", " : "", t);
    }
    r = ll_str(ll, "%s(%s)*", ret, b.data ? b.data : "");
out:
    free(comps);
    mim_vec_free(&b);
    return r;
}

static const char *ll_type_uncached(LL *ll, MimDef *t) {
    unsigned width;
    if ((width = ll_int_width(ll, t))) return ll_str(ll, "i%u", width);
    if ((width = ll_float_width(t))) return width == 16 ? "half" : width == 32 ? "float" : "double";
    if (ll_is_mem(t)) return "";
    MimDef *ptr = mim_match(t, MIM_mem_Ptr);
    if (ptr) {
        MimDef *ta = ll_app_arg(ptr);
        MimDef *pointee = mim_def_node(ta) == MIM_TUPLE ? ll_op(ta, 0) : NULL;
        const char *p = pointee ? ll_type(ll, pointee) : NULL;
        if (!p) return NULL;
        return ll_str(ll, "%s*", *p ? p : "i8");
    }
    switch (mim_def_node(t)) {
    case MIM_ARR: {
        uint64_t n = 0;
        if (!mim_def_lit(ll_op(t, 0), &n)) n = 0;
        MimDef *body = ll_op(t, 1);
        if (mim_def_is_mut(t) && mim_def_num_ops(t) == 2 && body && mim_def_dep(body) & MIM_DEP_VAR) {
            ll_error(ll, t, "dependent array type");
            return NULL;
        }
        const char *e = body ? ll_type(ll, body) : NULL;
        if (!e) return NULL;
        if (!*e) return "";
        return ll_str(ll, "[%" PRIu64 " x %s]", n, e);
    }
    case MIM_SIGMA: {
        size_t n = mim_def_num_ops(t);
        MimDef **ops = malloc((n ? n : 1) * sizeof *ops);
        if (!ops) abort();
        for (size_t i = 0; i < n; ++i) ops[i] = ll_op(t, i);
        /* A named Σ (rec): a recursive reference (through a pointer) sees the
         * name while the body is computed; only a Σ whose name was so used
         * becomes a named LLVM type, any other is its literal body. */
        const char *name = NULL;
        if (mim_def_is_mut(t)) {
            name = ll_str(ll, "%%%s", ll_name(ll, t));
            ll->info[mim_def_gid(t)].type = name;
            mim_vec_push(&ll->naming, ((LLNaming){t, false}));
        }
        const char *r = ll_aggregate(ll, ops, n, false);
        bool recursive = name && ll->naming.data[--ll->naming.len].used;
        if (r && recursive && r[0] == '{') {
            ll_buf_printf(&ll->types, "%s = type %s\n", name, r);
            mim_vec_push(&ll->named_body, (void *)r);
            mim_vec_push(&ll->named_name, (void *)name);
            free(ops);
            return name;
        }
        if (recursive && r) {
            ll_error(ll, t, "recursive Σ without a struct body");
            free(ops);
            return NULL;
        }
        /* the structural Σ of equal components is an array («2; I32»): so is
         * the named one that equals it */
        bool uniform = n >= 2;
        for (size_t i = 1; i < n && uniform; ++i) uniform = ops[i] == ops[0];
        if (r && name && uniform) r = ll_aggregate(ll, ops, n, true);
        free(ops);
        return r;
    }
    case MIM_PI:
        if (ll_ret_pi(t)) return ll_fn_ptr_type(ll, t);
        break;
    default: break;
    }
    ll_error(ll, t, "type without LLVM counterpart");
    return NULL;
}

const char *ll_type(LL *ll, MimDef *t) {
    t = mim_resolve(ll->w, t);
    if (!t) return NULL;
    static const char in_progress[] = "<recursive>";
    LLInfo *i = &ll->info[mim_def_gid(t)];
    if (i->type == in_progress) {
        ll_error(ll, t, "recursive type other than through a named Σ");
        return NULL;
    }
    if (i->type) {
        for (size_t k = ll->naming.len; k-- > 0;) /* a use of a name being defined */
            if (ll->naming.data[k].sigma == t) ll->naming.data[k].used = true;
        return i->type;
    }
    /* a cycle runs through a mutable; a named Σ breaks it by its name */
    if (mim_def_is_mut(t) && mim_def_node(t) != MIM_SIGMA) i->type = in_progress;
    const char *r = ll_type_uncached(ll, t);
    ll->info[mim_def_gid(t)].type = r;
    return r;
}

/* ---- functions and constants ----------------------------------------------- */
const char *ll_fn_name(LL *ll, MimDef *lam) {
    MimSym s = mim_def_name(lam);
    if ((mim_def_is_external(lam) || !mim_def_is_set(lam) || !ll_body(lam)) && s && *s) {
        bool plain = !(*s >= '0' && *s <= '9');
        for (const char *c = s; *c && plain; ++c)
            plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                    *c == '_' || *c == '.' || *c == '$' || *c == '-';
        if (plain || strchr(s, '"') || strchr(s, '\\')) return ll_str(ll, "@%s", s);
        return ll_str(ll, "@\"%s\"", s); /* e.g. non-ASCII names: a quoted LLVM identifier */
    }
    return ll_str(ll, "@%s", ll_name(ll, lam));
}

void ll_enqueue_fn(LL *ll, MimDef *lam) {
    LLInfo *i = &ll->info[mim_def_gid(lam)];
    if (i->queued) return;
    i->queued = 1;
    if (mim_def_is_set(lam) && ll_body(lam)) mim_vec_push(&ll->queue, lam);
    else mim_vec_push(&ll->imports, lam);
}

static const char *float_lit(LL *ll, unsigned width, uint64_t v) {
    if (width == 16) return ll_str(ll, "0xH%04X", (unsigned)(v & 0xffff));
    if (width == 32) {
        uint32_t bits = (uint32_t)v;
        uint64_t db;
        if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x7fffffu)) {
            /* a NaN: widened by hand, since a conversion to double quiets a
             * signaling NaN (LLVM narrows this double pattern back exactly) */
            db = (uint64_t)(bits >> 31) << 63 | UINT64_C(0x7ff) << 52 | (uint64_t)(bits & 0x7fffffu) << 29;
        } else {
            float f;
            memcpy(&f, &bits, sizeof f);
            double d = f;
            memcpy(&db, &d, sizeof db);
        }
        return ll_str(ll, "0x%016" PRIX64, db);
    }
    return ll_str(ll, "0x%016" PRIX64, v);
}

static bool is_const_tree(LL *ll, MimDef *d, unsigned depth);

/* A constant array indexed at run time lives in a global (ll-backend.md
 * §5.1): storing it into a stack slot at every access would copy the whole
 * array per access (a regex transition table is read once per character). */
const char *ll_const_global(LL *ll, MimDef *d, const char *aty) {
    LLInfo *i = &ll->info[mim_def_gid(d)];
    if (i->global) return i->global;
    const char *c = ll_const(ll, d);
    if (!c || !*c) return NULL;
    i->global = ll_str(ll, "@%s", ll_name(ll, d));
    ll_buf_printf(&ll->globals, "%s = private unnamed_addr constant %s ", i->global, aty);
    ll_buf_puts(&ll->globals, c); /* a table: no printf over it */
    ll_buf_puts(&ll->globals, "\n");
    return i->global;
}

const char *ll_const(LL *ll, MimDef *d) {
    if (!is_const_tree(ll, d, 0)) return NULL;
    MimDef *t = ll_typeof(d);
    const char *ty = ll_type(ll, t);
    if (!ty) return NULL;
    if (!*ty) return "";
    switch (mim_def_node(d)) {
    case MIM_LIT: {
        uint64_t v;
        mim_def_lit(d, &v);
        unsigned fw = ll_float_width(t);
        if (fw) return float_lit(ll, fw, v);
        if (ll_int_width(ll, t)) return ll_u64(ll, v);
        if (v == 0) return "zeroinitializer";
        return NULL;
    }
    case MIM_BOT:
    case MIM_TOP: return "undef";
    case MIM_LAM: return ll_fn_name(ll, d);
    case MIM_PACK: {
        MimDef *body = ll_op(d, mim_def_num_ops(d) - 1);
        uint64_t v, n;
        if (mim_def_lit(body, &v) && v == 0 && !ll_float_width(ll_typeof(body)))
            return "zeroinitializer";
        if (!mim_def_lit(ll_op(ll_typeof(d), 0), &n)) return NULL;
        const char *bt = ll_type(ll, ll_typeof(body));
        const char *bv = ll_const(ll, body);
        if (!bt || !bv) return NULL;
        if (mim_def_lit(body, &v) && v == 0) return "zeroinitializer";
        LLBuf b = {0};
        ll_buf_puts(&b, "[");
        for (uint64_t i = 0; i < n; ++i) {
            ll_buf_puts(&b, i ? ", " : "");
            ll_buf_puts(&b, bt);
            ll_buf_puts(&b, " ");
            ll_buf_puts(&b, bv);
        }
        ll_buf_puts(&b, "]");
        const char *r = ll_strdup(ll, b.data);
        mim_vec_free(&b);
        return r;
    }
    case MIM_TUPLE: {
        size_t n = mim_def_num_ops(d), k = 0;
        const char *single = NULL;
        LLBuf b = {0};
        /* An array of integer literals (a regex transition table has
         * hundreds of thousands): each element's digits are written into
         * the buffer directly, its type looked up once. */
        MimDef *int_t = NULL;
        const char *int_ty = NULL;
        if (ty[0] == '[' && n >= 2) {
            MimDef *t0 = ll_typeof(ll_op(d, 0));
            int_ty = ll_type(ll, t0);
            if (int_ty && *int_ty && !ll_float_width(t0) && ll_int_width(ll, t0)) int_t = t0;
        }
        for (size_t i = 0; i < n; ++i) {
            MimDef *e = ll_op(d, i);
            uint64_t v;
            if (int_t && mim_def_node(e) == MIM_LIT && ll_typeof(e) == int_t && mim_def_lit(e, &v)) {
                char digits[21];
                ll_buf_puts(&b, k++ ? ", " : "");
                ll_buf_puts(&b, int_ty);
                ll_buf_puts(&b, " ");
                ll_buf_puts(&b, u64_digits(digits, v));
                continue;
            }
            const char *et = ll_type(ll, ll_typeof(e));
            const char *ev = ll_const(ll, e);
            if (!et || !ev) {
                mim_vec_free(&b);
                return NULL;
            }
            if (!*et) continue;
            single = ev;
            ll_buf_puts(&b, k++ ? ", " : "");
            ll_buf_puts(&b, et);
            ll_buf_puts(&b, " ");
            ll_buf_puts(&b, ev);
        }
        const char *r = single;
        if (k != 1) {
            LLBuf o = {0};
            ll_buf_puts(&o, ty[0] == '[' ? "[" : "{");
            ll_buf_puts(&o, b.data ? b.data : "");
            ll_buf_puts(&o, ty[0] == '[' ? "]" : "}");
            r = ll_strdup(ll, o.data);
            mim_vec_free(&o);
        }
        mim_vec_free(&b);
        return r;
    }
    default: return NULL;
    }
}

/* Literals, ⊥/⊤, function references and tuples/packs of those. */
static bool is_const_tree(LL *ll, MimDef *d, unsigned depth) {
    if (depth > 64) return false;
    switch (mim_def_node(d)) {
    case MIM_LIT:
    case MIM_BOT:
    case MIM_TOP: return true;
    case MIM_LAM: return ll_is_fn_lam(d);
    case MIM_TUPLE:
        for (size_t i = 0, n = mim_def_num_ops(d); i < n; ++i)
            if (!is_const_tree(ll, ll_op(d, i), depth + 1)) return false;
        return true;
    case MIM_PACK:
        return !mim_def_is_mut(d) && is_const_tree(ll, ll_op(d, mim_def_num_ops(d) - 1), depth + 1);
    default: return false;
    }
}

/* ---- the module (§2) -------------------------------------------------------- */
/* A pipeline definition of the compile plugin (e.g. `_fallback_compile` at
 * -O0/-O1, before internalization): no code, skipped (ll-backend.md §6). */
static bool is_pipeline_def(MimDef *lam) {
    MimDef *t = ll_typeof(lam);
    for (int i = 0; i < 8 && t; ++i) { /* the codomain chain of a curried direct-style function */
        MimDef *ax = mim_def_node(t) == MIM_AXIOM ? t : mim_def_node(t) == MIM_APP ? mim_app_axiom(t) : NULL;
        if (ax) return mim_annex_plugin(mim_axiom_id(ax)) == MIM_compile_ID;
        MimSym name = mim_def_name(t); /* a recursive annex type such as %compile.Pipeline */
        if (name && strncmp(name, "%compile.", 9) == 0) return true;
        if (mim_def_node(t) != MIM_PI || mim_pi_is_cn(t)) return false;
        t = mim_pi_codom(t);
    }
    return false;
}

/* A plugin's helper `internal_*` still external at -O0/-O1 (e.g. autodiff's
 * `internal_diff_core_wrap_add`, often polymorphic): the -O2 pipeline's
 * internal_cleanup makes every such external internal (spec compile.md §6),
 * so the back end leaves them out as well (docs/ll-backend.md). */
static bool is_internal_helper(MimDef *lam) {
    MimSym name = mim_def_name(lam);
    return name && strncmp(name, "internal_", 9) == 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void emit_import(LL *ll, LLBuf *out, MimDef *lam) {
    MimDef *pi = ll_typeof(lam);
    const char *ret = "void";
    size_t n, inner;
    MimDef **comps;
    ll_fn_comps(ll_dom(pi), &n, &comps, &inner);
    size_t nparams = n;
    if (ll_ret_pi(pi)) {
        ret = ll_fn_ret_type(ll, pi);
        nparams = n - 1;
    }
    LLBuf b = {0};
    size_t k = 0;
    for (size_t i = 0; i < nparams && ret; ++i) {
        const char *t = ll_type(ll, comps[i]);
        if (!t) break;
        if (*t) ll_buf_printf(&b, "%s%s", k++ ? ", " : "", t);
    }
    /* one declaration per name: C functions declared twice (or also used by
     * the back end itself, e.g. malloc) are declared once */
    const char *name = ll_fn_name(ll, lam);
    bool seen = ll_declared(ll, out, name);
    const char *decl = ret ? ll_str(ll, "declare %s %s(%s)", ret, name, b.data ? b.data : "") : NULL;
    if (decl && !ll_runtime(ll, out, lam, name, decl) && !seen) ll_buf_printf(out, "%s\n", decl);
    mim_vec_free(&b);
    free(comps);
}

static void ll_free(LL *ll) {
    for (size_t i = 0; i < ll->strings.len; ++i) free(ll->strings.data[i]);
    for (size_t i = 0; i < ll->decls.len; ++i) free(ll->decls.data[i]);
    mim_vec_free(&ll->strings), mim_vec_free(&ll->decls), mim_vec_free(&ll->imports);
    mim_vec_free(&ll->queue);
    mim_vec_free(&ll->naming), mim_vec_free(&ll->named_body), mim_vec_free(&ll->named_name);
    mim_vec_free(&ll->frames), mim_vec_free(&ll->cache_keys), mim_vec_free(&ll->cache_vals);
    mim_vec_free(&ll->copy_keys), mim_vec_free(&ll->copy_vals), mim_vec_free(&ll->copy_blocks);
    mim_vec_free(&ll->types), mim_vec_free(&ll->funcs), mim_vec_free(&ll->allocas);
    mim_vec_free(&ll->globals);
    ll_fn_free(ll);
    mim_vec_free(&ll->blocks);
    free(ll->info);
}

/* The host's target triple and data layout, as clang-14 writes them for
 * this machine: the module then matches what clang and LLVM's JIT compile
 * for by default, so clang does not warn that it overrides the module's
 * target (docs/ll-backend.md). The build may set MIM_LL_TRIPLE and
 * MIM_LL_DATALAYOUT (CMake cache variables of the same names) for another
 * target; an unknown host gets no target lines, as before. */
#if !defined(MIM_LL_TRIPLE)
#if defined(__x86_64__) && defined(__linux__)
#define MIM_LL_TRIPLE "x86_64-pc-linux-gnu"
#define MIM_LL_DATALAYOUT "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
#elif defined(__aarch64__) && defined(__linux__)
#define MIM_LL_TRIPLE "aarch64-unknown-linux-gnu"
#define MIM_LL_DATALAYOUT "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128"
#endif
#endif

static void emit_target(FILE *out) {
#if defined(MIM_LL_DATALAYOUT)
    fprintf(out, "target datalayout = \"%s\"\n", MIM_LL_DATALAYOUT);
#endif
#if defined(MIM_LL_TRIPLE)
    fprintf(out, "target triple = \"%s\"\n\n", MIM_LL_TRIPLE);
#else
    (void)out;
#endif
}

/* The loop annotations of the module (ll_loop_md): one distinct node per
 * marked loop, all asking for complete unrolling. */
static void emit_loop_mds(const LL *ll, FILE *out) {
    if (!ll->nloops) return;
    unsigned b = LL_MD_LOOP;
    for (unsigned k = 0; k < ll->nloops; ++k) fprintf(out, "!%u = distinct !{!%u, !%u}\n", b + k, b + k, b + ll->nloops);
    fprintf(out, "!%u = !{!\"llvm.loop.unroll.full\"}\n", b + ll->nloops);
}

bool mim_ll_emit(MimWorld *w, FILE *out) {
    bool was_frozen = mim_world_freeze(w, true);
    LL ll;
    memset(&ll, 0, sizeof ll);
    ll.w = w;
    ll.ok = true;
    ll.num_gids = mim_world_gid_counter(w) + 1;
    ll.info = calloc(ll.num_gids, sizeof *ll.info);
    if (!ll.info) abort();

    for (size_t i = 0, n = mim_world_num_externals(w); i < n && ll.ok; ++i) {
        MimDef *ext = mim_world_external(w, i);
        if (mim_def_node(ext) != MIM_LAM || is_pipeline_def(ext) || is_internal_helper(ext)) continue;
        if (!ll_is_fn_lam(ext) && mim_def_is_set(ext) && ll_body(ext)) {
            ll_error(&ll, ext, "an external must be a returning function (Cn [..., Cn R])");
            break;
        }
        ll_enqueue_fn(&ll, ext);
    }
    while (ll.ok && ll.queue_head < ll.queue.len) {
        ll.cur = ll.queue.data[ll.queue_head++];
        ++ll.fn;
        if (ll_schedule(&ll)) ll_emit_function(&ll);
        ll_fn_free(&ll);
    }
    LLBuf imports = {0};
    for (size_t i = 0; ll.ok && i < ll.imports.len; ++i) emit_import(&ll, &imports, ll.imports.data[i]);

    bool ok = ll.ok;
    if (ok) {
        emit_target(out);
        if (ll.types.len) fprintf(out, "%s\n", ll.types.data);
        if (ll.globals.len) fprintf(out, "%s\n", ll.globals.data);
        if (ll.decls.len) {
            qsort(ll.decls.data, ll.decls.len, sizeof *ll.decls.data, cmp_str);
            for (size_t i = 0; i < ll.decls.len; ++i) fprintf(out, "%s\n", (char *)ll.decls.data[i]);
            fputc('\n', out);
        }
        if (imports.len) fprintf(out, "%s\n", imports.data);
        if (ll.funcs.len) fputs(ll.funcs.data, out);
        ll_region_metadata(&ll, out);
        emit_loop_mds(&ll, out);
        fflush(out);
    }
    mim_vec_free(&imports);
    ll_free(&ll);
    mim_world_freeze(w, was_frozen);
    return ok;
}
