/* Normalizers of the bitwise operations %core.bit1 and %core.bit2
 * (plugins/core.md §5.4, §5.5): constant folding, the algebra of one known
 * operand, merging of two comparisons of the same operands, reassociation.
 * Where the reference reads the truth table transposed (iff/niff with one
 * literal operand, comparison merging), the logical table is used
 * (docs/core-plugin.md). */
#include "core_util.h"
#include "reassoc.h"

enum { BIT1_F, BIT1_NEG, BIT1_ID, BIT1_T };
enum {
    BIT2_F = 0, BIT2_NOR = 1, BIT2_NCIFF = 2, BIT2_NFST = 3, BIT2_NIFF = 4, BIT2_NSND = 5,
    BIT2_XOR = 6, BIT2_NAND = 7, BIT2_AND = 8, BIT2_NXOR = 9, BIT2_SND = 10, BIT2_IFF = 11,
    BIT2_FST = 12, BIT2_CIFF = 13, BIT2_OR = 14, BIT2_T = 15
};

MimDef *normalize_bit1(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    unsigned sub = mim_callee_sub(callee);
    if (sub == BIT1_ID) return arg;
    uint64_t s, a;
    if (core_lit(core_callee_arg(callee, 0), &s)) {
        if (sub == BIT1_F) return mim_lit(w, type, 0);
        if (sub == BIT1_T) return mim_lit(w, type, s - 1);
        if (sub == BIT1_NEG && core_lit(arg, &a)) return mim_lit(w, type, core_mod(~a, s));
    }
    return mim_raw_app(w, type, callee, arg);
}

/* Truth table of a bit2 sub-tag: result for input bits A (first operand)
 * and B (second), bit 2·A + B of the sub-tag number. */
static unsigned table(unsigned sub, unsigned A, unsigned B) { return (sub >> (2 * A + B)) & 1; }

static bool symmetric(unsigned sub) { return table(sub, 0, 1) == table(sub, 1, 0); }

typedef struct Bit2 {
    MimWorld *w;
    MimDef *type, *s; /* result type Idx s, the size argument */
    uint64_t ls;      /* literal size if has_ls */
    bool has_ls;
    unsigned sub;
} Bit2;

/* All-ones literal s − 1, only for sizes 2^k where it has all bits set. */
static bool has_ones(const Bit2 *op) { return op->has_ls && core_size_is_pow2(op->ls); }

static bool is_ones(const Bit2 *op, MimDef *d) { return has_ones(op) && core_is_lit_val(d, op->ls - 1); }

/* %core.bit1.neg s s v: the reference passes the size in the mode position. */
static MimDef *neg(const Bit2 *op, MimDef *v) {
    MimDef *args[3] = {op->s, op->s, v};
    return core_call(op->w, MIM_core_bit1_neg, args, 3);
}

/* The operation with one operand known: x = result bit for v's bit 0,
 * y = for bit 1 (core.md §5.5 step 5). NULL if no rule. */
static MimDef *unary(const Bit2 *op, unsigned x, unsigned y, MimDef *v) {
    if (!x && !y) return mim_lit(op->w, op->type, 0);
    if (x && y) return has_ones(op) ? mim_lit(op->w, op->type, op->ls - 1) : NULL;
    if (!x && y) return v;
    return op->sub == BIT2_XOR ? NULL : neg(op, v);
}

/* Both operands fully applied icmp calls on the same pair (x, y): the
 * relation bits combine bit by bit through the truth table. */
static MimDef *merge_icmp(const Bit2 *op, MimDef *a, MimDef *b, bool *done) {
    *done = false;
    if (!mim_match_annex(a, MIM_core_icmp) || !mim_match_annex(b, MIM_core_icmp) ||
        mim_app_arg(a) != mim_app_arg(b))
        return NULL;
    unsigned ra = mim_callee_sub(a), rb = mim_callee_sub(b), r = 0;
    for (unsigned i = 0; i < 5; ++i) r |= table(op->sub, (ra >> i) & 1, (rb >> i) & 1) << i;
    MimDef *args[2] = {mim_app_nth_arg(a, 0), mim_app_arg(a)};
    *done = true;
    return core_call(op->w, MIM_core_icmp | r, args, 2);
}

static MimDef *fold(const Bit2 *op, uint64_t a, uint64_t b) {
    uint64_t r = 0;
    if (table(op->sub, 0, 0)) r |= ~a & ~b;
    if (table(op->sub, 0, 1)) r |= ~a & b;
    if (table(op->sub, 1, 0)) r |= a & ~b;
    if (table(op->sub, 1, 1)) r |= a & b;
    return mim_lit(op->w, op->type, core_mod(r, op->ls));
}

/* Sub-tags that are resolved to another expression regardless of values. */
static MimDef *shortcut(const Bit2 *op, MimDef *a, MimDef *b) {
    MimWorld *w = op->w;
    switch (op->sub) {
    case BIT2_F: return mim_lit(w, op->type, 0);
    case BIT2_T: return op->has_ls ? mim_lit(w, op->type, op->ls - 1) : NULL;
    case BIT2_FST: return a;
    case BIT2_SND: return b;
    case BIT2_NFST: return neg(op, a);
    case BIT2_NSND: return neg(op, b);
    case BIT2_CIFF:
    case BIT2_NCIFF: {
        MimDef *args[3] = {op->s, op->s, core_pair(w, b, a)};
        uint64_t id = op->sub == BIT2_CIFF ? MIM_core_bit2_iff : MIM_core_bit2_niff;
        return args[2] ? core_call(w, id, args, 3) : NULL;
    }
    default: return NULL;
    }
}

/* Rules for one known operand (and x op x), in the order of §5.5 step 5. */
static MimDef *one_known(const Bit2 *op, MimDef *a, MimDef *b) {
    MimDef *r = NULL;
    unsigned t = op->sub;
    if (symmetric(t) && a == b && (r = unary(op, table(t, 0, 0), table(t, 1, 1), a))) return r;
    if (core_is_lit_val(a, 0)) r = unary(op, table(t, 0, 0), table(t, 0, 1), b);
    else if (is_ones(op, a)) r = unary(op, table(t, 1, 0), table(t, 1, 1), b);
    if (r) return r;
    if (core_is_lit_val(b, 0)) r = unary(op, table(t, 0, 0), table(t, 1, 0), a);
    else if (is_ones(op, b)) r = unary(op, table(t, 0, 1), table(t, 1, 1), a);
    return r;
}

MimDef *normalize_bit2(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    Bit2 op = {w, type, core_callee_arg(callee, 0), 0, false, mim_callee_sub(callee)};
    op.has_ls = core_lit(op.s, &op.ls);
    MimDef *a = core_op(w, arg, 0), *b = core_op(w, arg, 1), *r;
    if (!a || !b) return NULL;
    if (symmetric(op.sub)) core_commute(&a, &b);
    bool merged;
    if ((r = merge_icmp(&op, a, b, &merged)) || merged) return r;
    if (op.sub == BIT2_F || op.sub == BIT2_T || op.sub == BIT2_FST || op.sub == BIT2_SND ||
        op.sub == BIT2_NFST || op.sub == BIT2_NSND || op.sub == BIT2_CIFF || op.sub == BIT2_NCIFF) {
        if ((r = shortcut(&op, a, b))) return r;
        if (op.sub != BIT2_T) return NULL; /* building the shortcut failed */
    }
    uint64_t la, lb;
    if (op.has_ls && core_lit(a, &la) && core_lit(b, &lb)) return fold(&op, la, lb);
    if ((r = one_known(&op, a, b))) return r;
    if ((op.sub == BIT2_XOR || op.sub == BIT2_AND || op.sub == BIT2_NXOR || op.sub == BIT2_OR) &&
        core_reassoc(w, MIM_core_bit2 | op.sub, op.s, a, b, &r))
        return r;
    return core_raw_pair(w, type, callee, arg, a, b);
}
