/* Instruction mapping of the `ll` back end for the axioms of core, math and
 * mem (ll-backend.md §5.2–§5.4; deviations in docs/ll-backend.md §2). Each
 * emitter receives the fully applied call and returns the LLVM value of the
 * result ("" for memory-only results). */
#include "ll_impl.h"
#include "mim/plugin/clos.h"
#include "mim/plugin/math.h"
#include "mim/plugin/mem.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct Op {
    LL *ll;
    MimDef *app;
    size_t nargs;
    unsigned sub;
    uint64_t base;
    const char *r;  /* %name of the result */
    const char *ty; /* LLVM type of the result */
} Op;

static MimDef *arg(const Op *o, size_t from_end) { return ll_arg(o->app, o->nargs - 1 - from_end); }

static const char *val(const Op *o, MimDef *d) { return ll_val(o->ll, d); }

static const char *comp(const Op *o, MimDef *d, size_t j) { return ll_comp(o->ll, d, j); }

/* Component k of component j of d (d a tuple node, e.g. (m, (a, b))). */
static const char *comp2(const Op *o, MimDef *d, size_t j, size_t k) {
    if (mim_def_node(d) == MIM_TUPLE && j < mim_def_num_ops(d)) return comp(o, ll_op(d, j), k);
    ll_error(o->ll, o->app, "operand is not a tuple");
    return NULL;
}

static const char *unsupported(const Op *o, const char *why) {
    ll_error(o->ll, o->app, why);
    return NULL;
}

static const char *bin(const Op *o, const char *inst, const char *a, const char *b) {
    if (!a || !b) return NULL;
    ll_inst(o->ll, "%s = %s %s %s, %s", o->r, inst, o->ty, a, b);
    return o->r;
}

/* A named temporary computed by `inst ty a, b` (for multi-instruction ops). */
static const char *tmp_bin(const Op *o, const char *inst, const char *a, const char *b) {
    if (!a || !b) return NULL;
    const char *t = ll_str(o->ll, "%%%s", ll_tmp(o->ll, "t"));
    ll_inst(o->ll, "%s = %s %s %s, %s", t, inst, o->ty, a, b);
    return t;
}

static bool lit_arg(const Op *o, MimDef *d, uint64_t *v) {
    if (mim_def_lit(d, v)) return true;
    ll_error(o->ll, o->app, "mode or size must be a literal");
    return false;
}

/* `tail call <t> @name(<t> a[, <t> b])` with its declaration. */
static const char *call_fn(const Op *o, const char *name, const char *a, const char *b) {
    ll_declare(o->ll, b ? ll_str(o->ll, "declare %s @%s(%s, %s)", o->ty, name, o->ty, o->ty)
                        : ll_str(o->ll, "declare %s @%s(%s)", o->ty, name, o->ty));
    if (b) ll_inst(o->ll, "%s = tail call %s @%s(%s %s, %s %s)", o->r, o->ty, name, o->ty, a, o->ty, b);
    else ll_inst(o->ll, "%s = tail call %s @%s(%s %s)", o->r, o->ty, name, o->ty, a);
    return o->r;
}

static const char *intrinsic(const Op *o, const char *name, const char *a, const char *b) {
    return a && b ? call_fn(o, name, a, b) : NULL;
}

static const char *intrinsic1(const Op *o, const char *name, const char *a) {
    return a ? call_fn(o, name, a, NULL) : NULL;
}

/* ---- core ------------------------------------------------------------------- */
/* Sizes of Idx that the LLVM integer type does not model by itself
 * (core.md §4.1, docs/ll-backend.md §2 item 15). `odd`: s is no power of
 * two, so results are reduced modulo s as folding does. `wide`: the width is
 * not 1, 8, 16, 32 or 64, so folding computes on 64-bit values that are
 * never negative: the operation is done in i64 on zero-extended operands
 * (signed operations are the unsigned ones) and truncated back. */
typedef struct IdxSize {
    uint64_t s;
    unsigned w; /* LLVM width */
    bool odd, wide;
} IdxSize;

static IdxSize idx_size(const Op *o, MimDef *type) {
    IdxSize z = {0, 0, false, false};
    if (!type || !core_idx_lit_size(o->ll->w, type, &z.s)) return z;
    z.w = ll_int_width(o->ll, type);
    z.odd = !core_size_is_pow2(z.s);
    z.wide = core_fold_width(z.s) != core_width(z.s);
    return z;
}

static const char *tmp(const Op *o) { return ll_str(o->ll, "%%%s", ll_tmp(o->ll, "t")); }

/* v : i<w> zero-extended to i64. */
static const char *to64(const Op *o, const char *v, unsigned w) {
    if (!v || w >= 64) return v;
    const char *t = tmp(o);
    ll_inst(o->ll, "%s = zext i%u %s to i64", t, w, v);
    return t;
}

/* x : i64 as a value of Idx s: reduced modulo s (odd sizes), truncated. */
static const char *from64(const Op *o, const char *x, const IdxSize *z) {
    if (!x) return NULL;
    if (z->odd) {
        const char *t = tmp(o);
        ll_inst(o->ll, "%s = urem i64 %s, %" PRIu64, t, x, z->s);
        x = t;
    }
    if (z->w >= 64) return x;
    ll_inst(o->ll, "%s = trunc i64 %s to i%u", o->r, x, z->w);
    return o->r;
}

/* a inst b computed in i64 on the zero-extended operands. */
static const char *op64(const Op *o, const char *inst, const char *a, const char *b, const IdxSize *z) {
    a = to64(o, a, z->w);
    b = to64(o, b, z->w);
    if (!a || !b) return NULL;
    const char *t = tmp(o);
    ll_inst(o->ll, "%s = %s i64 %s, %s", t, inst, a, b);
    return from64(o, t, z);
}

/* The w-bit result of `inst` reduced modulo an odd s. */
static const char *op_urem(const Op *o, const char *inst, const char *a, const char *b, const IdxSize *z) {
    return bin(o, "urem", tmp_bin(o, inst, a, b), ll_str(o->ll, "%" PRIu64, z->s));
}

/* The largest value of Idx s (bit1.t, bit2.t): s - 1, all ones for 2^w. */
static const char *all_ones(const Op *o) {
    IdxSize z = idx_size(o, ll_typeof(o->app));
    return z.odd ? ll_str(o->ll, "%" PRIu64, z.s - 1) : "-1";
}

/* sub-tag bit 2·A + B = result for operand bits A, B (core.md §5.5), in
 * o's type (all-ones complement mask: -1). */
static const char *bit2_ops(const Op *o, unsigned sub, const char *a, const char *b) {
    const char *m1 = "-1";
    switch (sub) {
    case 0: return "0";                                            /* f */
    case 12: return a;                                             /* fst */
    case 10: return b;                                             /* snd */
    case 3: return bin(o, "xor", a, m1);                           /* nfst */
    case 5: return bin(o, "xor", b, m1);                           /* nsnd */
    case 8: return bin(o, "and", a, b);                            /* and_ */
    case 14: return bin(o, "or", a, b);                            /* or_ */
    case 6: return bin(o, "xor", a, b);                            /* xor_ */
    case 7: return bin(o, "xor", tmp_bin(o, "and", a, b), m1);     /* nand */
    case 1: return bin(o, "xor", tmp_bin(o, "or", a, b), m1);      /* nor */
    case 9: return bin(o, "xor", tmp_bin(o, "xor", a, b), m1);     /* nxor */
    case 11: return bin(o, "or", tmp_bin(o, "xor", a, m1), b);     /* iff: ¬a ∨ b */
    case 4: return bin(o, "and", a, tmp_bin(o, "xor", b, m1));     /* niff: a ∧ ¬b */
    case 13: return bin(o, "or", a, tmp_bin(o, "xor", b, m1));     /* ciff: a ∨ ¬b */
    case 2: return bin(o, "and", tmp_bin(o, "xor", a, m1), b);     /* nciff: ¬a ∧ b */
    default: return unsupported(o, "bit2 sub-tag");
    }
}

/* Bitwise operations fold on the 64-bit patterns, reduced modulo s
 * (core.md §5.4, §5.5): for an odd s they are computed in i64. */
static const char *bitwise(const Op *o, unsigned sub, const char *a, const char *b) {
    if (!a || !b) return NULL;
    if (sub == 15) return all_ones(o);
    IdxSize z = idx_size(o, ll_typeof(o->app));
    if (!z.odd) return bit2_ops(o, sub, a, b);
    Op o64 = *o;
    o64.ty = "i64";
    o64.r = tmp(o);
    /* separate statements: the extensions emit instructions, whose order
     * must not depend on the C compiler's argument evaluation order */
    const char *a64 = to64(o, a, z.w);
    const char *b64 = to64(o, b, z.w);
    return from64(o, bit2_ops(&o64, sub, a64, b64), &z);
}

static const char *op_bit2(const Op *o) {
    MimDef *p = arg(o, 0);
    const char *a = comp(o, p, 0), *b = comp(o, p, 1); /* in order: comp may emit an extractvalue */
    return bitwise(o, o->sub, a, b);
}

/* An icmp sub-tag without a single LLVM predicate (core.md §5.9): the OR of
 * its disjoint relations X (x ≥s 0 > y: ult ∧ sgt), Y (x <s 0 ≤ y:
 * ugt ∧ slt), G (same sign, x > y: ugt ∧ sgt), L (same sign, x < y:
 * ult ∧ slt) and E (eq). */
static const char *icmp_relations(const Op *o, MimDef *pair, const char *ity, unsigned sub) {
    LL *ll = o->ll;
    const char *a = comp(o, pair, 0), *b = comp(o, pair, 1);
    if (!a || !b) return NULL;
    const char *p = ll_tmp(ll, "rel");
    static const char *preds[4] = {"ult", "ugt", "slt", "sgt"};
    for (int k = 0; k < 4; ++k) ll_inst(ll, "%%%s.%s = icmp %s %s %s, %s", p, preds[k], preds[k], ity, a, b);
    static const struct {
        unsigned bit;
        const char *u, *s;
    } rels[4] = {{16, "ult", "sgt"}, {8, "ugt", "slt"}, {4, "ugt", "sgt"}, {2, "ult", "slt"}};
    const char *acc = NULL;
    for (int k = 0; k < 4; ++k) {
        if (!(sub & rels[k].bit)) continue;
        const char *r = ll_str(ll, "%%%s.r%u", p, rels[k].bit);
        ll_inst(ll, "%s = and i1 %%%s.%s, %%%s.%s", r, p, rels[k].u, p, rels[k].s);
        if (acc) {
            const char *n = ll_str(ll, "%%%s.or%u", p, rels[k].bit);
            ll_inst(ll, "%s = or i1 %s, %s", n, acc, r);
            r = n;
        }
        acc = r;
    }
    if (sub & 1) {
        const char *e = ll_str(ll, "%%%s.eq", p);
        ll_inst(ll, "%s = icmp eq %s %s, %s", e, ity, a, b);
        if (acc) {
            const char *n = ll_str(ll, "%%%s.or1", p);
            ll_inst(ll, "%s = or i1 %s, %s", n, acc, e);
            e = n;
        }
        acc = e;
    }
    return acc ? acc : "0";
}

static const char *op_icmp(const Op *o, MimDef *pair, const char *ity) {
    static const struct {
        uint64_t id;
        const char *pred;
    } preds[] = {
        {MIM_core_icmp_e, "eq"},   {MIM_core_icmp_ne, "ne"},   {MIM_core_icmp_sg, "sgt"},
        {MIM_core_icmp_sge, "sge"}, {MIM_core_icmp_sl, "slt"},  {MIM_core_icmp_sle, "sle"},
        {MIM_core_icmp_ug, "ugt"},  {MIM_core_icmp_uge, "uge"}, {MIM_core_icmp_ul, "ult"},
        {MIM_core_icmp_ule, "ule"},
    };
    uint64_t id = o->base | o->sub;
    if (id == MIM_core_icmp_f) return "0";
    if (id == MIM_core_icmp_t) return "1";
    for (size_t i = 0; i < sizeof preds / sizeof *preds; ++i)
        if (preds[i].id == id) {
            const char *a = comp(o, pair, 0), *b = comp(o, pair, 1);
            if (!a || !b) return NULL;
            ll_inst(o->ll, "%s = icmp %s %s %s, %s", o->r, preds[i].pred, ity, a, b);
            return o->r;
        }
    return icmp_relations(o, pair, ity, (unsigned)(o->sub & 31));
}

/* icmp on a wide size: no value is negative, so X and Y never hold and the
 * relations G, L, E are the unsigned ones. */
static const char *icmp_unsigned(const Op *o, MimDef *pair, const char *ity) {
    static const char *preds[8] = {NULL, "eq", "ult", "ule", "ugt", "uge", "ne", NULL};
    unsigned sub = o->sub & 7;
    if (sub == 0) return "0";
    if (sub == 7) return "1";
    const char *a = comp(o, pair, 0), *b = comp(o, pair, 1);
    if (!a || !b) return NULL;
    ll_inst(o->ll, "%s = icmp %s %s %s, %s", o->r, preds[sub], ity, a, b);
    return o->r;
}

static const char *op_ncmp(const Op *o) {
    static const char *preds[8] = {NULL, "eq", "ult", "ule", "ugt", "uge", "ne", NULL};
    if (o->sub == 0) return "0";
    if (o->sub == 7) return "1";
    MimDef *p = arg(o, 0);
    const char *a = comp(o, p, 0), *b = comp(o, p, 1);
    if (!a || !b) return NULL;
    ll_inst(o->ll, "%s = icmp %s i64 %s, %s", o->r, preds[o->sub & 7], a, b);
    return o->r;
}

/* Integer conversion of value v from width sw to width dw. */
static const char *int_conv(const Op *o, const char *v, unsigned sw, unsigned dw, bool sign) {
    if (!v) return NULL;
    if (sw == dw) return v;
    const char *inst = dw < sw ? "trunc" : sign ? "sext" : "zext";
    ll_inst(o->ll, "%s = %s i%u %s to i%u", o->r, inst, sw, v, dw);
    return o->r;
}

/* Conversion of v (width sw) into Idx s, s no power of two (width dw):
 * folding gives the value modulo s. Narrowing reduces before truncating;
 * a zero-extended value is already below s; a sign-extended one is reduced
 * after the extension. */
static const char *conv_modulo(const Op *o, const char *v, unsigned sw, unsigned dw, bool sign, uint64_t s) {
    if (!v) return NULL;
    LL *ll = o->ll;
    const char *n = ll_str(ll, "%" PRIu64, s);
    if (sw == dw) {
        ll_inst(ll, "%s = urem i%u %s, %s", o->r, sw, v, n);
        return o->r;
    }
    if (sw > dw) {
        const char *t = ll_str(ll, "%%%s", ll_tmp(ll, "t"));
        ll_inst(ll, "%s = urem i%u %s, %s", t, sw, v, n);
        ll_inst(ll, "%s = trunc i%u %s to i%u", o->r, sw, t, dw);
        return o->r;
    }
    if (!sign) return int_conv(o, v, sw, dw, false);
    IdxSize z = idx_size(o, ll_typeof(o->app));
    if (z.wide) { /* the sign-extended 64-bit value modulo s, as folding */
        const char *x = v;
        if (sw < 64) {
            x = tmp(o);
            ll_inst(ll, "%s = sext i%u %s to i64", x, sw, v);
        }
        return from64(o, x, &z);
    }
    const char *t = ll_str(ll, "%%%s", ll_tmp(ll, "t"));
    ll_inst(ll, "%s = sext i%u %s to i%u", t, sw, v, dw);
    ll_inst(ll, "%s = urem i%u %s, %s", o->r, dw, t, n);
    return o->r;
}

static const char *op_bitcast(const Op *o) {
    LL *ll = o->ll;
    MimDef *x = arg(o, 0);
    MimDef *st = ll_typeof(x), *dt = ll_typeof(o->app);
    bool sp = mim_match(st, MIM_mem_Ptr) != NULL, dp = mim_match(dt, MIM_mem_Ptr) != NULL;
    unsigned si = ll_int_width(ll, st), di = ll_int_width(ll, dt);
    bool s_scalar = si || ll_float_width(st), d_scalar = di || dp || ll_float_width(dt);
    /* a literal 0 (of any type) cast to an aggregate, or a 0 of a non-scalar
     * type: the zero value (spec §5.2) */
    uint64_t lit;
    if (mim_def_lit(x, &lit) && lit == 0 && (!s_scalar || !d_scalar)) return "zeroinitializer";
    const char *v = val(o, x), *sty = ll_type(ll, st);
    if (!v || !sty) return NULL;
    const char *inst = "bitcast";
    if (sp && dp) inst = "bitcast";
    else if (sp && di) inst = "ptrtoint";
    else if (si && dp) inst = "inttoptr";
    else if (si && di) return int_conv(o, v, si, di, false);
    if (strcmp(sty, o->ty) == 0) return v;
    ll_inst(ll, "%s = %s %s %s to %s", o->r, inst, sty, v, o->ty);
    return o->r;
}

static const char *op_core(const Op *o) {
    LL *ll = o->ll;
    uint64_t id = o->base | o->sub, m;
    switch (o->base) {
    case MIM_core_nat: {
        MimDef *p = arg(o, 0);
        const char *a = comp(o, p, 0), *b = comp(o, p, 1);
        if (id == MIM_core_nat_add) return bin(o, "add", a, b);
        if (id == MIM_core_nat_mul) return bin(o, "mul", a, b);
        if (!a || !b) return NULL;
        return intrinsic(o, "llvm.usub.sat.i64", a, b); /* truncated subtraction (core.md §5.1) */
    }
    case MIM_core_ncmp: return op_ncmp(o);
    case MIM_core_idx: { /* n mod s (mode 0; any other mode: ⊥ if n ≥ s, core.md §5.3) */
        unsigned w = ll_int_width(ll, ll_typeof(o->app));
        IdxSize z = idx_size(o, ll_typeof(o->app));
        if (z.odd) return from64(o, val(o, arg(o, 0)), &z);
        return int_conv(o, val(o, arg(o, 0)), 64, w, false);
    }
    case MIM_core_bit1: {
        const char *a = val(o, arg(o, 0));
        switch (o->sub) {
        case 0: return "0";
        case 1: return bitwise(o, 3, a, a); /* nfst */
        case 2: return a;
        default: return all_ones(o);
        }
    }
    case MIM_core_bit2: return op_bit2(o);
    case MIM_core_shr: {
        MimDef *p = arg(o, 0);
        IdxSize z = idx_size(o, ll_typeof(o->app));
        const char *a = comp(o, p, 0), *b = comp(o, p, 1);
        if (z.wide) return op64(o, "lshr", a, b, &z); /* never negative; amounts up to 63 */
        if (z.odd && id == MIM_core_shr_a) return op_urem(o, "ashr", a, b, &z);
        return bin(o, id == MIM_core_shr_a ? "ashr" : "lshr", a, b);
    }
    case MIM_core_wrap: {
        if (!lit_arg(o, arg(o, 1), &m)) return NULL;
        m |= ll_no_wrap(ll, o->app); /* flags the operands' ranges prove (ll_range.c) */
        static const char *names[4] = {"add", "sub", "mul", "shl"};
        const char *inst = ll_str(ll, "%s%s%s", names[o->sub & 3], m & 2 ? " nuw" : "", m & 1 ? " nsw" : "");
        MimDef *p = arg(o, 0);
        IdxSize z = idx_size(o, ll_typeof(o->app));
        const char *a = comp(o, p, 0), *b = comp(o, p, 1);
        if (z.wide) return op64(o, names[o->sub & 3], a, b, &z);
        if (z.odd) return op_urem(o, inst, a, b, &z);
        MimDef *c, *x, *y;
        if (!m && ll_literal_outside(ll, o->app, &c, &x, &y)) {
            /* c op (x op y), the inner sum used only here (the normal form
             * puts literals outside, core.md §4.4): emitted as (c op x) op y,
             * so that y — e.g. a recursive call's result — is an operand of
             * the last operation, which LLVM's accumulator tail-recursion
             * elimination needs (`1 + check(l) + check(r)`). Same value:
             * wrap-around add and mul are associative. */
            const char *vc = val(o, c), *vx = val(o, x), *vy = val(o, y);
            const char *cx = tmp_bin(o, names[o->sub & 3], vc, vx);
            return bin(o, names[o->sub & 3], cx, vy);
        }
        return bin(o, inst, a, b);
    }
    case MIM_core_div: {
        static const char *names[4] = {"sdiv", "udiv", "srem", "urem"};
        MimDef *p = arg(o, 0);
        IdxSize z = idx_size(o, ll_typeof(o->app)); /* the Idx s of [M, Idx s]: below */
        MimDef *rt = mim_resolve(ll->w, ll_typeof(o->app));
        if (rt && mim_def_node(rt) == MIM_SIGMA && mim_def_num_ops(rt) == 2) z = idx_size(o, ll_op(rt, 1));
        unsigned sub = o->sub & 3;
        const char *a = comp2(o, p, 1, 0), *b = comp2(o, p, 1, 1);
        if (z.wide) sub |= 1; /* signed = unsigned */
        if (z.odd && !(sub & 1)) return op_urem(o, names[sub], a, b, &z);
        return bin(o, names[sub], a, b);
    }
    case MIM_core_icmp: {
        MimDef *p = arg(o, 0);
        const char *ity = ll_type(ll, ll_typeof(p));
        /* the pair's type is «2; Idx s»: its element type */
        MimDef *pt = mim_resolve(ll->w, ll_typeof(p));
        if (pt && mim_def_node(pt) == MIM_ARR) ity = ll_type(ll, ll_op(pt, 1));
        if (!ity) return NULL;
        if (pt && mim_def_node(pt) == MIM_ARR && idx_size(o, ll_op(pt, 1)).wide) return icmp_unsigned(o, p, ity);
        return op_icmp(o, p, ity);
    }
    case MIM_core_extrema: {
        static const char *names[4] = {"umin", "umax", "smin", "smax"};
        MimDef *p = arg(o, 0);
        unsigned sub = o->sub & 3;
        if (idx_size(o, ll_typeof(o->app)).wide) sub &= 1; /* signed = unsigned */
        const char *a = comp(o, p, 0), *b = comp(o, p, 1);
        return intrinsic(o, ll_str(ll, "llvm.%s.%s", names[sub], o->ty), a, b);
    }
    case MIM_core_abs: {
        const char *a = comp(o, arg(o, 0), 1);
        if (!a) return NULL;
        MimDef *at = mim_resolve(ll->w, ll_typeof(arg(o, 0)));
        if (at && mim_def_node(at) == MIM_SIGMA && mim_def_num_ops(at) == 2 && idx_size(o, ll_op(at, 1)).wide)
            return a; /* never negative */
        const char *name = ll_str(ll, "llvm.abs.%s", o->ty);
        ll_declare(ll, ll_str(ll, "declare %s @%s(%s, i1)", o->ty, name, o->ty));
        ll_inst(ll, "%s = tail call %s @%s(%s %s, i1 0)", o->r, o->ty, name, o->ty, a);
        return o->r;
    }
    case MIM_core_conv: {
        MimDef *x = arg(o, 0);
        unsigned sw = ll_int_width(ll, ll_typeof(x)), dw = ll_int_width(ll, ll_typeof(o->app));
        if (!sw || !dw) return unsupported(o, "conversion between non-literal sizes");
        bool sign = id == MIM_core_conv_s && !idx_size(o, ll_typeof(x)).wide; /* never negative */
        IdxSize z = idx_size(o, ll_typeof(o->app));
        if (z.odd) return conv_modulo(o, val(o, x), sw, dw, sign, z.s);
        return int_conv(o, val(o, x), sw, dw, sign);
    }
    case MIM_core_bitcast: return op_bitcast(o);
    default: return unsupported(o, "core operation that must be normalized away before code generation");
    }
}

/* ---- math -------------------------------------------------------------------- */
static const char *fsuffix(const Op *o, unsigned w) {
    (void)o;
    return w == 16 ? "f16" : w == 32 ? "f32" : "f64";
}

static const char *libm(const Op *o, unsigned w, const char *name, const char *a) {
    if (w == 16) return unsupported(o, "unsupported floating point type");
    return intrinsic1(o, ll_str(o->ll, "%s%s", name, w == 32 ? "f" : ""), a);
}

static const char *fast_flags(const Op *o) {
    uint64_t m;
    if (!mim_def_lit(arg(o, 1), &m)) return NULL;
    if (m == 127) return " fast";
    static const char *names[7] = {" nnan", " ninf", " nsz", " arcp", " contract", " afn", " reassoc"};
    LLBuf b = {0};
    for (unsigned i = 0; i < 7; ++i)
        if (m & (1u << i)) ll_buf_printf(&b, "%s", names[i]);
    const char *r = ll_str(o->ll, "%s", b.data ? b.data : "");
    mim_vec_free(&b);
    return r;
}

/* IEEE 754-2019 minimum/maximum (NaN-propagating, -0 < +0). LLVM 14's x86
 * back end cannot select llvm.minimum/llvm.maximum, so the operation is
 * expanded: equal operands combine their bit patterns (or: the negative zero
 * wins for minimum; and: the positive zero for maximum). */
static const char *ieee754_extremum(const Op *o, unsigned w, const char *a, const char *b, bool min) {
    LL *ll = o->ll;
    if (!a || !b) return NULL;
    const char *t = o->ty, *it = w == 16 ? "i16" : w == 32 ? "i32" : "i64";
    const char *nan = w == 16 ? "0xH7E00" : "0x7FF8000000000000";
    const char *p = ll_tmp(ll, "ieee");
    ll_inst(ll, "%%%s.uno = fcmp uno %s %s, %s", p, t, a, b);
    ll_inst(ll, "%%%s.lt = fcmp %s %s %s, %s", p, min ? "olt" : "ogt", t, a, b);
    ll_inst(ll, "%%%s.sel = select i1 %%%s.lt, %s %s, %s %s", p, p, t, a, t, b);
    ll_inst(ll, "%%%s.ai = bitcast %s %s to %s", p, t, a, it);
    ll_inst(ll, "%%%s.bi = bitcast %s %s to %s", p, t, b, it);
    ll_inst(ll, "%%%s.ci = %s %s %%%s.ai, %%%s.bi", p, min ? "or" : "and", it, p, p);
    ll_inst(ll, "%%%s.c = bitcast %s %%%s.ci to %s", p, it, p, t);
    ll_inst(ll, "%%%s.eq = fcmp oeq %s %s, %s", p, t, a, b);
    ll_inst(ll, "%%%s.num = select i1 %%%s.eq, %s %%%s.c, %s %%%s.sel", p, p, t, p, t, p);
    ll_inst(ll, "%s = select i1 %%%s.uno, %s %s, %s %%%s.num", o->r, p, t, nan, t, p);
    return o->r;
}

static const char *op_math(const Op *o) {
    LL *ll = o->ll;
    unsigned w = ll_float_width(ll_typeof(o->app));
    uint64_t id = o->base | o->sub;
    MimDef *x = arg(o, 0);
    if (o->base == MIM_math_cmp || o->base == MIM_math_conv) {
        w = ll_float_width(ll_typeof(x));
        if (!w && mim_def_node(mim_resolve(ll->w, ll_typeof(x))) == MIM_ARR)
            w = ll_float_width(ll_op(mim_resolve(ll->w, ll_typeof(x)), 1));
        if (id == MIM_math_conv_s2f || id == MIM_math_conv_u2f) w = ll_float_width(ll_typeof(o->app));
    }
    if (!w) return unsupported(o, "floating-point format without an LLVM type");
    const char *sfx = fsuffix(o, w);
    switch (o->base) {
    case MIM_math_arith: {
        static const char *names[5] = {"fadd", "fsub", "fmul", "fdiv", "frem"};
        const char *flags = fast_flags(o);
        if (!flags || o->sub > 4) return unsupported(o, "mode must be a literal");
        const char *a = comp(o, x, 0), *b = comp(o, x, 1);
        return bin(o, ll_str(ll, "%s%s", names[o->sub], flags), a, b);
    }
    case MIM_math_extrema: {
        const char *a = comp(o, x, 0), *b = comp(o, x, 1);
        if (o->sub >= 2) return ieee754_extremum(o, w, a, b, o->sub == 2);
        static const char *names[4] = {"minnum", "maxnum", "minimum", "maximum"};
        return intrinsic(o, ll_str(ll, "llvm.%s.%s", names[o->sub & 3], sfx), a, b);
    }
    case MIM_math_tri: {
        if (id == MIM_math_tri_sin || id == MIM_math_tri_cos)
            return intrinsic1(o, ll_str(ll, "llvm.%s.%s", id == MIM_math_tri_sin ? "sin" : "cos", sfx), val(o, x));
        static const char *fn[4] = {"sin", "cos", "tan", NULL};
        if (!fn[o->sub & 3]) return unsupported(o, "unused tri sub-tag");
        const char *name = ll_str(ll, "%s%s%s", o->sub & 8 ? "a" : "", fn[o->sub & 3], o->sub & 4 ? "h" : "");
        return libm(o, w, name, val(o, x));
    }
    case MIM_math_pow: {
        const char *a = comp(o, x, 0), *b = comp(o, x, 1);
        return intrinsic(o, ll_str(ll, "llvm.pow.%s", sfx), a, b);
    }
    case MIM_math_rt:
        if (id == MIM_math_rt_sq) return intrinsic1(o, ll_str(ll, "llvm.sqrt.%s", sfx), val(o, x));
        return libm(o, w, "cbrt", val(o, x));
    case MIM_math_exp: {
        if ((o->sub & 3) == 3) return unsupported(o, "unused exp sub-tag");
        static const char *base[3] = {"", "2", "10"};
        /* LLVM 14 has llvm.log10 but no llvm.exp10 (the reference's name
         * links nowhere): pow(10, x), which is how folding computes it
         * (math.md §4.5), so both give the same bits (glibc's exp10 may
         * differ from pow in the last place). */
        if (o->sub == 2) {
            if (w == 16) return unsupported(o, "unsupported floating point type");
            return intrinsic(o, ll_str(ll, "llvm.pow.%s", sfx), "1.000000e+01", val(o, x));
        }
        return intrinsic1(o, ll_str(ll, "llvm.%s%s.%s", o->sub & 4 ? "log" : "exp", base[o->sub & 3], sfx),
                         val(o, x));
    }
    case MIM_math_er: return libm(o, w, id == MIM_math_er_f ? "erf" : "erfc", val(o, x));
    case MIM_math_gamma: return libm(o, w, id == MIM_math_gamma_t ? "tgamma" : "lgamma", val(o, x));
    case MIM_math_abs: return intrinsic1(o, ll_str(ll, "llvm.fabs.%s", sfx), val(o, x));
    case MIM_math_round: {
        static const char *names[4] = {"floor", "ceil", "round", "trunc"};
        return intrinsic1(o, ll_str(ll, "llvm.%s.%s", names[o->sub & 3], sfx), val(o, x));
    }
    case MIM_math_cmp: {
        static const char *preds[16] = {"false", "oeq", "olt", "ole", "ogt", "oge", "one", "ord",
                                        "uno",   "ueq", "ult", "ule", "ugt", "uge", "une", "true"};
        const char *a = comp(o, x, 0), *b = comp(o, x, 1);
        const char *fty = w == 16 ? "half" : w == 32 ? "float" : "double";
        if (!a || !b) return NULL;
        ll_inst(ll, "%s = fcmp %s %s %s, %s", o->r, preds[o->sub & 15], fty, a, b);
        return o->r;
    }
    case MIM_math_conv: {
        const char *v = val(o, x), *sty = ll_type(ll, ll_typeof(x));
        if (!v || !sty) return NULL;
        const char *inst;
        if (id == MIM_math_conv_f2f) {
            unsigned dw = ll_float_width(ll_typeof(o->app));
            if (!dw) return unsupported(o, "floating-point format without an LLVM type");
            if (dw == w) return v;
            inst = w < dw ? "fpext" : "fptrunc";
        } else {
            static const char *names[4] = {"sitofp", "uitofp", "fptosi", "fptoui"};
            unsigned sub = o->sub & 3;
            if (sub == 0 && idx_size(o, ll_typeof(x)).wide) sub = 1; /* never negative */
            inst = names[sub];
        }
        ll_inst(ll, "%s = %s %s %s to %s", o->r, inst, sty, v, o->ty);
        return o->r;
    }
    default: return unsupported(o, "math operation");
    }
}

/* ---- mem ------------------------------------------------------------------------ */
/* The pointee type of pointer type pt. */
static MimDef *pointee(MimDef *pt) {
    MimDef *p = mim_match(pt, MIM_mem_Ptr);
    if (!p) return NULL;
    MimDef *ta = ll_app_arg(p);
    return mim_def_node(ta) == MIM_TUPLE ? ll_op(ta, 0) : NULL;
}

static const char *malloc_call(const Op *o, const char *size) {
    LL *ll = o->ll;
    if (!size) return NULL;
    ll_declare(ll, "declare i8* @malloc(i64)");
    const char *raw = ll_str(ll, "%si8", o->r);
    ll_inst(ll, "%s = call i8* @malloc(i64 %s)", raw, size);
    ll_inst(ll, "%s = bitcast i8* %s to %s", o->r, raw, o->ty);
    return o->r;
}

/* The pointer value p (of Mim pointer type pt) as a `ty*`: a bitcast if its
 * pointee's LLVM type differs. Mim equates a recursive named Σ with its
 * unfolding, which LLVM may write differently (`rec T = [Ptr0 T, Ptr0 T]`
 * is the struct %T, its unfolding the array [2 x %T*]); both have the same
 * layout. */
static const char *ptr_as(const Op *o, MimDef *pt, const char *p, const char *ty) {
    LL *ll = o->ll;
    MimDef *pe = pointee(pt);
    const char *pty = pe ? ll_type(ll, pe) : NULL;
    if (!pty) return NULL;
    if (!*pty || strcmp(pty, ty) == 0) return p;
    const char *c = ll_str(ll, "%%%s", ll_tmp(ll, "cast"));
    ll_inst(ll, "%s = bitcast %s* %s to %s*", c, pty, p, ty);
    return c;
}

/* The scoped alias metadata of a load or store with operand tuple x (§2
 * item 19): its pointer is %mem.region (r, p) with a literal 1 ≤ r < 64
 * (!0 is the domain; region r's scope !3r), or "". The metadata nodes are
 * written at the end of the module (ll_region_metadata), when every
 * region used is known. */
static const char *region_md(const Op *o, MimDef *x) {
    LL *ll = o->ll;
    if (mim_def_node(x) != MIM_TUPLE || mim_def_num_ops(x) < 2) return "";
    MimDef *rp = mim_match(mim_resolve(ll->w, ll_op(x, 1)), MIM_mem_region);
    MimDef *ra = rp ? ll_app_arg(rp) : NULL;
    uint64_t r;
    if (!ra || mim_def_node(ra) != MIM_TUPLE || !mim_def_lit(ll_op(ra, 0), &r) || r == 0 || r >= 64) return "";
    ll->regions |= UINT64_C(1) << r;
    return ll_str(ll, ", !alias.scope !%" PRIu64 ", !noalias !%" PRIu64, LL_MD_REGION + 3 * r + 1, LL_MD_REGION + 3 * r + 2);
}

void ll_region_metadata(LL *ll, FILE *out) {
    if (!ll->regions) return;
    fprintf(out, "\n!%d = distinct !{!%d, !\"mim.region\"}\n", LL_MD_REGION, LL_MD_REGION);
    for (uint64_t r = 0; r < 64; ++r) {
        if (!(ll->regions >> r & 1)) continue;
        uint64_t s = LL_MD_REGION + 3 * r;
        fprintf(out, "!%" PRIu64 " = distinct !{!%" PRIu64 ", !%d, !\"mim.region %" PRIu64 "\"}\n", s, s, LL_MD_REGION, r);
        fprintf(out, "!%" PRIu64 " = !{!%" PRIu64 "}\n!%" PRIu64 " = !{", s + 1, s, s + 2);
        const char *sep = "";
        for (uint64_t q = 0; q < 64; ++q)
            if (q != r && (ll->regions >> q & 1)) fprintf(out, "%s!%" PRIu64, sep, LL_MD_REGION + 3 * q), sep = ", ";
        fprintf(out, "}\n");
    }
}

static const char *op_mem(const Op *o) {
    LL *ll = o->ll;
    MimDef *x = arg(o, 0);
    switch (o->base) {
    case MIM_mem_load: {
        if (!*o->ty) return "";
        const char *p = comp(o, x, 1);
        if (p && mim_def_node(x) == MIM_TUPLE) p = ptr_as(o, ll_typeof(ll_op(x, 1)), p, o->ty);
        if (!p) return NULL;
        ll_inst(ll, "%s = load %s, %s* %s%s", o->r, o->ty, o->ty, p, region_md(o, x));
        return o->r;
    }
    case MIM_mem_store: {
        MimDef *v = mim_def_node(x) == MIM_TUPLE && mim_def_num_ops(x) == 3 ? ll_op(x, 2) : NULL;
        if (!v) return unsupported(o, "store operand is not a tuple");
        const char *vt = ll_type(ll, ll_typeof(v)), *p = comp(o, x, 1), *vv = val(o, v);
        if (p && vt && *vt) p = ptr_as(o, ll_typeof(ll_op(x, 1)), p, vt);
        if (!vt || !p || !vv) return NULL;
        if (*vt) ll_inst(ll, "store %s %s, %s* %s%s", vt, vv, vt, p, region_md(o, x));
        return "";
    }
    case MIM_mem_region: return comp(o, x, 1); /* p itself: the promise is on its loads and stores */
    case MIM_mem_lea: {
        MimDef *ptr = mim_def_node(x) == MIM_TUPLE ? ll_op(x, 0) : NULL;
        MimDef *index = mim_def_node(x) == MIM_TUPLE ? ll_op(x, 1) : NULL;
        MimDef *agg = ptr ? mim_resolve(ll->w, pointee(ll_typeof(ptr))) : NULL;
        if (!agg) return unsupported(o, "lea operand");
        const char *aty = ll_type(ll, agg), *p = val(o, ptr);
        if (!aty || !p) return NULL;
        uint64_t i;
        if (mim_def_node(agg) == MIM_SIGMA) {
            if (!mim_def_lit(index, &i)) return unsupported(o, "lea into a tuple with a dynamic index");
            ll_inst(ll, "%s = getelementptr inbounds %s, %s* %s, i64 0, i32 %" PRIu64, o->r, aty, aty, p, i);
            return o->r;
        }
        if (mim_def_lit(index, &i)) {
            ll_inst(ll, "%s = getelementptr inbounds %s, %s* %s, i64 0, i64 %" PRIu64, o->r, aty, aty, p, i);
            return o->r;
        }
        unsigned w = ll_int_width(ll, ll_typeof(index));
        const char *iv = val(o, index);
        if (!w || !iv) return NULL;
        if (w < 64 && ll_nonneg(ll, index, o->app)) {
            /* the index is below 2^(w-1) wherever the address is used
             * (ll_range.c): sign and zero extension agree there, and LLVM
             * widens a signed index with its loop counter as for C's int */
            const char *z = ll_str(ll, "%%%s", ll_tmp(ll, "idx"));
            ll_inst(ll, "%s = sext i%u %s to i64", z, w, iv);
            iv = z;
            w = 64;
        } else if (w < 64) {
            const char *z = ll_str(ll, "%%%s", ll_tmp(ll, "idx"));
            ll_inst(ll, "%s = zext i%u %s to i%u", z, w, iv, w + 1);
            iv = z;
            ++w;
        }
        ll_inst(ll, "%s = getelementptr inbounds %s, %s* %s, i64 0, i%u %s", o->r, aty, aty, p, w, iv);
        return o->r;
    }
    case MIM_mem_malloc: return malloc_call(o, comp(o, x, 1));
    case MIM_mem_alloc: {
        /* size of the pointee via the null-gep idiom (alloc is normally
         * lowered to malloc by alloc2malloc; accepted here as well) */
        size_t n = strlen(o->ty); /* o->ty is "<T>*" */
        if (n < 2 || o->ty[n - 1] != '*') return unsupported(o, "alloc of a type without LLVM counterpart");
        const char *pty = ll_str(ll, "%.*s", (int)(n - 1), o->ty);
        const char *g = ll_str(ll, "%%%s", ll_tmp(ll, "size"));
        ll_inst(ll, "%s = getelementptr %s, %s* null, i64 1", g, pty, pty);
        const char *s = ll_str(ll, "%%%s", ll_tmp(ll, "size"));
        ll_inst(ll, "%s = ptrtoint %s* %s to i64", s, pty, g);
        return malloc_call(o, s);
    }
    case MIM_mem_free: {
        const char *p = comp(o, x, 1), *pty = mim_def_node(x) == MIM_TUPLE ? ll_type(ll, ll_typeof(ll_op(x, 1))) : NULL;
        if (!p || !pty) return unsupported(o, "free operand");
        ll_declare(ll, "declare void @free(i8*)");
        const char *raw = ll_str(ll, "%%%s", ll_tmp(ll, "free"));
        ll_inst(ll, "%s = bitcast %s %s to i8*", raw, pty, p);
        ll_inst(ll, "call void @free(i8* %s)", raw);
        return "";
    }
    case MIM_mem_mslot:
    case MIM_mem_slot: {
        size_t n = strlen(o->ty); /* o->ty is "<T>*" */
        if (n < 2 || o->ty[n - 1] != '*') return unsupported(o, "slot of a type without LLVM counterpart");
        ll_inst(ll, "%s = alloca %.*s", o->r, (int)(n - 1), o->ty);
        return o->r;
    }
    case MIM_mem_remem: return ""; /* a fresh token: no code */
    default: return unsupported(o, "memory operation that must be lowered before code generation");
    }
}

/* ---- clos (setjmp/longjmp; the runtime provides jmpbuf_size) ------------------- */
static const char *op_clos(const Op *o) {
    LL *ll = o->ll;
    if (o->base == MIM_clos_alloc_jmpbuf) {
        ll_declare(ll, "declare i64 @jmpbuf_size()");
        ll_inst(ll, "%s.size = call i64 @jmpbuf_size()", o->r);
        ll_inst(ll, "%s = alloca i8, i64 %s.size", o->r, o->r);
        return o->r;
    }
    if (o->base == MIM_clos_setjmp) {
        const char *buf = comp(o, arg(o, 0), 1);
        if (!buf) return NULL;
        ll_declare(ll, "declare i32 @_setjmp(i8*) returns_twice");
        ll_inst(ll, "%s = call i32 @_setjmp(i8* %s)", o->r, buf);
        return o->r;
    }
    return unsupported(o, "closure annex that must be lowered before code generation");
}

const char *ll_emit_axiom(LL *ll, MimDef *app) {
    MimDef *ax = mim_app_axiom(app);
    if (!ax || mim_app_curry(app) != 0) {
        ll_error(ll, app, "a call in value position");
        return NULL;
    }
    uint64_t id = mim_axiom_id(ax);
    Op o = {ll, app, mim_app_num_args(app), mim_annex_sub(id), mim_annex_base(id), NULL, NULL};
    o.ty = ll_type(ll, ll_typeof(app));
    if (!o.ty) return NULL;
    o.r = ll_result(ll, app);
    uint64_t plugin = mim_annex_plugin(id);
    if (plugin == MIM_core_ID) return op_core(&o);
    if (plugin == MIM_math_ID) return op_math(&o);
    if (plugin == MIM_mem_ID) return op_mem(&o);
    if (plugin == MIM_clos_ID) return op_clos(&o);
    ll_error(ll, app, "axiom of a plugin without code generation");
    return NULL;
}
