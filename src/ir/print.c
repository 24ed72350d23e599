/* The Mim dump of a World (`mim -o`, output-format.md §1–§6) and the
 * single-node strings used in messages (mim_def_to_str).
 *
 * Structure: a Printer writes into a growable buffer (flushed to a FILE when
 * large). Inline forms (§5) recurse over operands; declaration mutables are
 * referenced by identifier, and a non-declaration mutable met again while its
 * own inline form is being printed is referenced by its unique name, so
 * cyclic graphs terminate. The dump arranges the mutables in the dependency
 * tree of §2.2 (with the required fix for self-reference) and prints
 * declaration blocks (§3) with let lines (§3.4) from a global visited set.
 *
 * Like every part of the IR, the printer sees nodes through hole resolution
 * (semantics.md §7.1): solved holes are followed, never printed.
 * The World is frozen while printing and nothing here calls a constructor:
 * whether a projection `t#k` "exists" is answered by an index of the
 * extraction nodes in the hash-consing table, built once on first need. */
#include "ir/print.h"

#include "ir/build.h"
#include "ir/ir.h"
#include "ir/world_impl.h"
#include "util/arena.h"
#include "mim/ptrmap.h"
#include "mim/vec.h"
#include "mim/xalloc.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

/* ---- per-print sets of nodes, indexed by gid ------------------------------ */

/* gids are unique within a World and at most its counter (world_impl.h), and
 * the printer builds nothing, so a set of nodes of one print is a bit array
 * indexed by gid: one load instead of hashing and probing a pointer map.
 * It grows on demand. Used for the dump's sets, which cover most nodes;
 * message strings (few small sets) keep pointer maps. */
typedef struct GidBits {
    uint64_t *word;
    size_t n; /* words */
} GidBits;

static void gidbits_fit(GidBits *b, size_t gid) {
    if (gid / 64 < b->n) return;
    size_t n = b->n ? b->n : 1;
    while (n <= gid / 64) n *= 2;
    b->word = mim_xrealloc(b->word, n * sizeof *b->word);
    memset(b->word + b->n, 0, (n - b->n) * sizeof *b->word);
    b->n = n;
}

/* Adds gid; false if it was already present. */
static bool gidbits_add(GidBits *b, uint32_t gid) {
    gidbits_fit(b, gid);
    uint64_t bit = (uint64_t)1 << (gid % 64), *w = &b->word[gid / 64];
    if (*w & bit) return false;
    *w |= bit;
    return true;
}

static void gidbits_free(GidBits *b) { free(b->word); }

/* ---- output buffer ------------------------------------------------------- */

typedef struct Buf {
    char *data;
    size_t len, cap;
    FILE *file; /* NULL: accumulate into a string */
} Buf;

enum { BUF_FLUSH_AT = 1 << 16 };

static void buf_flush(Buf *b) {
    if (b->file && b->len) fwrite(b->data, 1, b->len, b->file);
    if (b->file) b->len = 0;
}

static void buf_grow(Buf *b, size_t n) {
    size_t c = b->cap ? b->cap * 2 : 256;
    while (c < b->len + n + 1) c *= 2;
    b->data = mim_xrealloc(b->data, c);
    b->cap = c;
}

static void buf_put(Buf *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) buf_grow(b, n);
    /* Most pieces are a few bytes (punctuation, short names): copy those
     * inline rather than through a memcpy call. */
    char *o = b->data + b->len;
    if (n <= 8)
        for (size_t i = 0; i < n; ++i) o[i] = s[i];
    else
        memcpy(o, s, n);
    b->len += n;
    b->data[b->len] = '\0';
    if (b->len >= BUF_FLUSH_AT) buf_flush(b);
}

static void buf_puts(Buf *b, const char *s) { buf_put(b, s, strlen(s)); }

/* Decimal digits of v: the printer's most frequent format (gids of unique
 * names, literals), without the cost of a printf call. */
static void buf_u64(Buf *b, uint64_t v) {
    char digits[20];
    size_t i = sizeof digits;
    do digits[--i] = (char)('0' + v % 10);
    while (v /= 10);
    buf_put(b, digits + i, sizeof digits - i);
}

static void buf_printf(Buf *b, const char *fmt, ...) MIM_PRINTF(2, 3);
static void buf_printf(Buf *b, const char *fmt, ...) {
    char small[128];
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= 0 && (size_t)n < sizeof small) {
        buf_put(b, small, (size_t)n);
    } else if (n >= 0) {
        char *big = mim_xmalloc((size_t)n + 1);
        vsnprintf(big, (size_t)n + 1, fmt, ap2);
        buf_put(b, big, (size_t)n);
        free(big);
    }
    va_end(ap2);
    va_end(ap);
}

/* ---- printer state ------------------------------------------------------- */

typedef struct Printer {
    MimWorld *w;
    Buf out;
    size_t limit;       /* stop expanding inline forms beyond this length (0 = none) */
    bool truncated;
    bool ascii, recursive;
    int dump_gid;
    uint64_t threshold;
    bool projs_built;
    /* Messages (mim_def_to_str): a node the user named is printed by its
     * name alone, without the `_<gid>` of unique names (output-format.md §4
     * is for the dump); an unnamed variable whose projections all have names
     * is printed as the tuple of those names, as the user wrote it. */
    bool user_names;
    MimPairMap projs;   /* (tuple, literal index) -> extraction node */
    MimPtrMap inlining; /* mutables whose inline form is being printed */
    GidBits visited;    /* let walk (§3.4), global to the dump */
    MIM_VEC(MimDef *) queue; /* --dump-recursive (§6) */
    GidBits queued;
} Printer;

static void printer_init(Printer *p, MimWorld *w, const MimPrintOptions *o, FILE *file) {
    memset(p, 0, sizeof *p);
    p->w = w;
    p->out.file = file;
    if (o) {
        p->ascii = o->ascii;
        p->recursive = o->recursive;
        p->dump_gid = o->dump_gid;
        p->threshold = o->scalarize_threshold;
    }
    if (!p->threshold) p->threshold = w->scalarize_threshold;
}

static void printer_fini(Printer *p) {
    mim_pairmap_free(&p->projs);
    mim_ptrmap_free(&p->inlining);
    gidbits_free(&p->visited);
    gidbits_free(&p->queued);
    mim_vec_free(&p->queue);
    free(p->out.data);
}

/* ---- node queries (no construction) --------------------------------------- */

/* Follow solved holes. */
static MimDef *follow(const MimDef *d) {
    while (d && d->node == MIM_INFER && d->ops[0]) d = d->ops[0];
    return (MimDef *)d;
}

static bool is_set(const MimDef *d) {
    return !d->is_mut || d->num_ops == 0 || d->ops[d->num_ops - 1] != NULL;
}

static bool lit_of(const MimDef *d, uint64_t *v) { return mim_def_lit(d, v); }

/* The binder's Var node if it was ever created (0₁ "variables" do not count). */
static MimDef *existing_var(const MimDef *m) {
    return m->is_mut && mim_is(mim_mut_ext(m)->var, MIM_VAR) ? mim_mut_ext(m)->var : NULL;
}

/* §2.1: external, a function, or named (neither empty nor `_`). */
static bool is_decl(const MimDef *d) {
    if (!d->is_mut) return false;
    if (d->is_external || d->node == MIM_LAM) return true;
    return d->name && d->name[0] && strcmp(d->name, "_") != 0;
}

/* Literal arity (semantics.md §2), read off the nodes without building any. */
static bool literal_arity(const MimDef *d, uint64_t *n) {
    for (d = follow(d); d; d = follow(d->type)) {
        switch ((MimNode)d->node) {
        case MIM_SIGMA: *n = d->num_ops; return true;
        case MIM_ARR: return d->ops[0] && lit_of(d->ops[0], n);
        case MIM_TYPE:
        case MIM_UNIV: *n = 1; return true;
        default: break;
        }
    }
    return false;
}

/* Number of projections shown for a variable (3.2): the literal arity if it
 * is below the scalarize threshold, else 1. */
static uint64_t num_tprojs(Printer *p, const MimDef *v) {
    uint64_t n;
    return literal_arity(v, &n) && n < p->threshold ? n : 1;
}

/* Second key of the projection index: the index value, never NULL. */
static void *proj_key(uint64_t k) { return (void *)(uintptr_t)(k + 1); }

static void build_proj_index(Printer *p) {
    p->projs_built = true;
    mim_world_settle(p->w);
    MimHashSet *t = &p->w->table;
    for (size_t i = 0; i < t->cap; ++i) {
        mim_table_prefetch(t, i + MIM_TABLE_AHEAD);
        MimDef *d = mim_table_at(t, i);
        uint64_t k;
        if (!d || d->node != MIM_EXTRACT || !lit_of(d->ops[1], &k)) continue;
        void *key = proj_key(k);
        MimDef *tuple = follow(d->ops[0]);
        void **old = mim_pairmap_find(&p->projs, tuple, key);
        if (!old || ((MimDef *)*old)->gid > d->gid) mim_pairmap_put(&p->projs, tuple, key, d);
    }
}

/* The existing extraction t#k (any literal index of value k), or NULL. */
static MimDef *existing_proj(Printer *p, const MimDef *t, uint64_t k) {
    if (!p->projs_built) build_proj_index(p);
    void **slot = mim_pairmap_find(&p->projs, t, proj_key(k));
    return slot ? *slot : NULL;
}

/* Element k of a (parameter) type: raw element of a sigma, body of an array. */
static MimDef *type_elem(Printer *p, const MimDef *T, uint64_t k) {
    T = follow(T);
    if (!T) return NULL;
    switch ((MimNode)T->node) {
    case MIM_SIGMA:
    case MIM_TUPLE: return k < T->num_ops ? T->ops[k] : NULL;
    case MIM_ARR: return T->ops[1];
    case MIM_PACK: return T->ops[0];
    default: return existing_proj(p, T, k);
    }
}

/* Shape of a pack: the shape of its array type. */
static MimDef *pack_shape(const MimDef *pack) {
    MimDef *T = follow(pack->type);
    return mim_is(T, MIM_ARR) ? T->ops[0] : NULL;
}

/* §3.5 */
static bool is_inline(const MimDef *d) {
    if (!(d->dep & (MIM_DEP_MUT | MIM_DEP_VAR))) return true;
    if (d->is_mut) return !is_decl(d);
    if (d->node != MIM_APP) return true;
    MimDef *T = follow(d->type);
    if (T && (T->node == MIM_PI || T->node == MIM_TYPE)) return true;
    MimDef *callee = follow(d->ops[0]);
    if (callee->node == MIM_AXIOM) {
        MimDef *pi = follow(callee->type);
        uint64_t n = 1;
        if (mim_is(pi, MIM_PI) && pi->ops[0] && !literal_arity(pi->ops[0], &n)) n = 1;
        return n <= 1;
    }
    return false;
}

/* ---- identifiers (§4) --------------------------------------------------------- */

static bool print_user_name(Printer *p, const MimDef *d);

static void print_unique_name(Printer *p, const MimDef *d) {
    if (p->user_names && print_user_name(p, d)) return;
    if (d->name) buf_puts(&p->out, d->name);
    buf_put(&p->out, "_", 1);
    buf_u64(&p->out, d->gid);
}

/* The name the user wrote for d (see Printer.user_names); false if none. */
static bool print_user_name(Printer *p, const MimDef *d) {
    if (d->name && *d->name) {
        buf_puts(&p->out, d->name);
        return true;
    }
    uint64_t n = d->node == MIM_VAR || d->node == MIM_EXTRACT ? num_tprojs(p, d) : 1;
    if (n < 2) return false;
    for (uint64_t k = 0; k < n; ++k) {
        MimDef *vk = existing_proj(p, d, k);
        if (!vk || !vk->name || !*vk->name) return false;
    }
    buf_puts(&p->out, "(");
    for (uint64_t k = 0; k < n; ++k) buf_printf(&p->out, "%s%s", k ? ", " : "", existing_proj(p, d, k)->name);
    buf_puts(&p->out, ")");
    return true;
}

static void print_id(Printer *p, const MimDef *d) {
    if (d->is_external || (d->node == MIM_LAM && d->is_mut && !is_set(d)))
        buf_puts(&p->out, d->name ? d->name : "");
    else
        print_unique_name(p, d);
}

/* ---- inline forms (§5) ---------------------------------------------------------- */

static void print_inline(Printer *p, const MimDef *d, int gid_level);

static void print_op(Printer *p, const MimDef *d) {
    d = follow(d);
    if (!d) buf_puts(&p->out, "<nullptr>");
    else if (is_inline(d)) print_inline(p, d, p->dump_gid);
    else print_id(p, d);
}

static void print_ops(Printer *p, MimDef *const *ops, size_t n) {
    for (size_t i = 0; i < n && !p->truncated; ++i) {
        if (i) buf_puts(&p->out, ", ");
        print_op(p, ops[i]);
    }
}

static void print_subscript(Printer *p, uint64_t s) {
    if (p->ascii) {
        buf_put(&p->out, "_", 1);
        buf_u64(&p->out, s);
        return;
    }
    char digits[20];
    size_t i = sizeof digits;
    do digits[--i] = (char)(s % 10);
    while (s /= 10);
    for (; i < sizeof digits; ++i) {
        char sub[3] = {'\xE2', '\x82', (char)(0x80 + digits[i])}; /* U+2080 + d */
        buf_put(&p->out, sub, 3);
    }
}

static void print_lit(Printer *p, const MimDef *d) {
    uint64_t v = d->flags, s;
    MimDef *T = follow(d->type);
    if (mim_is(T, MIM_NAT)) {
        switch (v) {
        case UINT64_C(0x100): buf_puts(&p->out, "i8"); return;
        case UINT64_C(0x10000): buf_puts(&p->out, "i16"); return;
        case UINT64_C(0x100000000): buf_puts(&p->out, "i32"); return;
        default: buf_u64(&p->out, v); return;
        }
    }
    if (mim_is(T, MIM_APP) && mim_is(follow(T->ops[0]), MIM_IDX) && lit_of(T->ops[1], &s)) {
        switch (s) {
        case 2: buf_puts(&p->out, v ? "tt" : "ff"); return;
        case UINT64_C(0x100): buf_u64(&p->out, v), buf_puts(&p->out, "I8"); return;
        case UINT64_C(0x10000): buf_u64(&p->out, v), buf_puts(&p->out, "I16"); return;
        case UINT64_C(0x100000000): buf_u64(&p->out, v), buf_puts(&p->out, "I32"); return;
        case 0: buf_u64(&p->out, v), buf_puts(&p->out, "I64"); return;
        default:
            buf_u64(&p->out, v);
            print_subscript(p, s);
            return;
        }
    }
    buf_u64(&p->out, v);
    buf_put(&p->out, ":", 1);
    if (mim_is(T, MIM_APP)) {
        buf_puts(&p->out, "(");
        print_op(p, T);
        buf_puts(&p->out, ")");
    } else {
        print_op(p, T);
    }
}

static void print_type_node(Printer *p, const MimDef *d) {
    uint64_t l;
    if (!p->ascii && lit_of(d->ops[0], &l) && l <= 1) {
        buf_puts(&p->out, l == 0 ? "★" : "□");
        return;
    }
    buf_puts(&p->out, "(Type ");
    print_op(p, d->ops[0]);
    buf_puts(&p->out, ")");
}

static void print_ext(Printer *p, const MimDef *d) {
    bool bot = d->node == MIM_BOT;
    buf_puts(&p->out, p->ascii ? (bot ? ".bot" : ".top") : (bot ? "⊥" : "⊤"));
    if (mim_is(follow(d->type), MIM_NAT)) {
        buf_puts(&p->out, ":");
        print_op(p, d->type);
    } else {
        buf_puts(&p->out, ":(");
        print_op(p, d->type);
        buf_puts(&p->out, ")");
    }
}

static void print_pi(Printer *p, const MimDef *d) {
    if (mim_pi_is_cn(d)) {
        buf_puts(&p->out, "Cn ");
        print_op(p, d->ops[0]);
        return;
    }
    buf_puts(&p->out, "Π ");
    MimDef *var = existing_var(d);
    if (var) {
        print_op(p, var);
        buf_puts(&p->out, ": ");
    }
    print_op(p, d->ops[0]);
    buf_puts(&p->out, p->ascii ? " -> " : " → ");
    print_op(p, d->ops[1]);
}

static void print_app(Printer *p, const MimDef *d) {
    uint64_t s;
    if (mim_is(follow(d->ops[0]), MIM_IDX) && lit_of(d->ops[1], &s)) {
        const char *name = NULL;
        switch (s) {
        case 2: name = "Bool"; break;
        case UINT64_C(0x100): name = "I8"; break;
        case UINT64_C(0x10000): name = "I16"; break;
        case UINT64_C(0x100000000): name = "I32"; break;
        case 0: name = "I64"; break;
        default: break;
        }
        if (name) {
            buf_puts(&p->out, name);
            return;
        }
    }
    print_op(p, d->ops[0]);
    buf_puts(&p->out, " ");
    print_op(p, d->ops[1]);
}

static void print_sigma(Printer *p, const MimDef *d) {
    MimDef *var = existing_var(d);
    buf_puts(&p->out, "[");
    for (size_t k = 0; k < d->num_ops; ++k) {
        if (k) buf_puts(&p->out, ", ");
        MimDef *vk = var ? existing_proj(p, var, k) : NULL;
        if (vk) {
            print_op(p, vk);
            buf_puts(&p->out, ": ");
        }
        print_op(p, d->ops[k]);
    }
    buf_puts(&p->out, "]");
}

static void print_seq(Printer *p, const MimDef *d) {
    bool arr = d->node == MIM_ARR;
    const char *open = arr ? (p->ascii ? "<<" : "«") : (p->ascii ? "(<" : "‹");
    const char *close = arr ? (p->ascii ? ">>" : "»") : (p->ascii ? ">)" : "›");
    buf_puts(&p->out, open);
    MimDef *var = existing_var(d);
    if (var) {
        print_op(p, var);
        buf_puts(&p->out, ": ");
    }
    print_op(p, arr ? d->ops[0] : pack_shape(d));
    buf_puts(&p->out, "; ");
    print_op(p, arr ? d->ops[1] : d->ops[0]);
    buf_puts(&p->out, close);
}

static void print_generic(Printer *p, const MimDef *d) {
    switch ((MimNode)d->node) {
    case MIM_PROXY:
        buf_printf(&p->out, ".proxy#%" PRIu64 "#%" PRIu64 " ", d->flags >> 32,
                   d->flags & UINT64_C(0xffffffff));
        print_ops(p, d->ops, d->num_ops);
        return;
    case MIM_JOIN:
    case MIM_MEET: {
        const char *sym = d->node == MIM_JOIN ? "∪" : "∩";
        if (d->is_mut) {
            buf_puts(&p->out, sym);
            print_unique_name(p, d);
            buf_puts(&p->out, ": ");
            print_op(p, d->type);
        }
        buf_puts(&p->out, sym);
        buf_puts(&p->out, "(");
        print_ops(p, d->ops, d->num_ops);
        buf_puts(&p->out, ")");
        return;
    }
    default:
        buf_printf(&p->out, "(.%s", mim_node_name((MimNode)d->node));
        if (d->flags) buf_printf(&p->out, "#%" PRIu64, d->flags);
        buf_puts(&p->out, " ");
        print_ops(p, d->ops, d->num_ops);
        buf_puts(&p->out, ")");
        return;
    }
}

static void print_inline_form(Printer *p, const MimDef *d) {
    switch ((MimNode)d->node) {
    case MIM_TYPE: print_type_node(p, d); return;
    case MIM_NAT: buf_puts(&p->out, "Nat"); return;
    case MIM_IDX: buf_puts(&p->out, "Idx"); return;
    case MIM_BOT:
    case MIM_TOP: print_ext(p, d); return;
    case MIM_AXIOM:
        if (!d->name || d->name[0] != '%') buf_puts(&p->out, "%");
        buf_puts(&p->out, d->name ? d->name : "");
        return;
    case MIM_LIT: print_lit(p, d); return;
    case MIM_EXTRACT:
        if (mim_is(follow(d->ops[0]), MIM_VAR) && mim_is(follow(d->ops[1]), MIM_LIT)) {
            print_unique_name(p, d);
        } else {
            print_op(p, d->ops[0]);
            buf_puts(&p->out, "#");
            print_op(p, d->ops[1]);
        }
        return;
    case MIM_VAR: print_unique_name(p, d); return;
    case MIM_PI: print_pi(p, d); return;
    case MIM_LAM:
        print_op(p, d->ops[0]);
        buf_puts(&p->out, ", ");
        print_op(p, d->ops[1]);
        return;
    case MIM_APP: print_app(p, d); return;
    case MIM_SIGMA: print_sigma(p, d); return;
    case MIM_TUPLE:
        buf_puts(&p->out, "(");
        print_ops(p, d->ops, d->num_ops);
        buf_puts(&p->out, ")");
        if (d->type && follow(d->type)->is_mut) {
            buf_puts(&p->out, ":");
            print_op(p, d->type);
        }
        return;
    case MIM_ARR:
    case MIM_PACK: print_seq(p, d); return;
    default: print_generic(p, d); return;
    }
}

/* gid_level: the --dump-gid level applied to d itself (0 for let right-hand
 * sides); operands always use the printer's level. */
static void print_inline(Printer *p, const MimDef *d, int gid_level) {
    d = follow(d);
    if (p->limit && p->out.len > p->limit) {
        if (!p->truncated) buf_puts(&p->out, "…");
        p->truncated = true;
        return;
    }
    if (gid_level == 2 || (gid_level == 1 && d->node != MIM_VAR && d->num_ops != 0))
        buf_printf(&p->out, "/*%" PRIu32 "*/", d->gid);
    if (d->is_mut && !is_set(d)) {
        buf_puts(&p->out, "unset");
        return;
    }
    if (d->is_mut) {
        /* A cycle through non-declaration mutables: cut it by name. */
        if (!mim_ptrmap_add(&p->inlining, d, NULL, NULL)) {
            print_unique_name(p, d);
            return;
        }
        print_inline_form(p, d);
        mim_ptrmap_remove(&p->inlining, d);
        return;
    }
    print_inline_form(p, d);
}

/* ---- declaration blocks (§3) -------------------------------------------------- */

static void indent(Printer *p, int ind) {
    for (int i = 0; i < ind; ++i) buf_puts(&p->out, "    ");
}

/* §3.2 */
static void print_params(Printer *p, const MimDef *v, const MimDef *T) {
    if (!v) {
        print_op(p, T);
        return;
    }
    uint64_t n = num_tprojs(p, v);
    bool any = false;
    if (n != 1)
        for (uint64_t k = 0; k < n && !any; ++k) any = existing_proj(p, v, k) != NULL;
    print_unique_name(p, v);
    if (n == 1 || !any) {
        buf_puts(&p->out, ": ");
        print_op(p, T);
        return;
    }
    buf_puts(&p->out, "::[");
    for (uint64_t k = 0; k < n; ++k) {
        if (k) buf_puts(&p->out, ", ");
        print_params(p, existing_proj(p, v, k), type_elem(p, T, k));
    }
    buf_puts(&p->out, "]");
}

static void enqueue(Printer *p, MimDef *m) {
    if (gidbits_add(&p->queued, m->gid)) mim_vec_push(&p->queue, m);
}

/* §3.4 */
static void walk(Printer *p, MimDef *x, bool is_body, int ind) {
    x = follow(x);
    if (!x) return;
    if (is_decl(x)) {
        if (p->recursive) enqueue(p, x);
        return;
    }
    if (!gidbits_add(&p->visited, x->gid)) return;
    walk(p, x->type, false, ind);
    for (size_t i = 0; i < x->num_ops; ++i) walk(p, x->ops[i], false, ind);
    if (is_body || is_inline(x)) return;
    indent(p, ind);
    buf_puts(&p->out, "let ");
    print_unique_name(p, x);
    buf_puts(&p->out, ": ");
    print_op(p, x->type);
    buf_puts(&p->out, " = ");
    print_inline(p, x, 0);
    buf_puts(&p->out, ";\n");
}

typedef struct TNode TNode;
static void print_children(Printer *p, const TNode *n, int ind);

static void print_lam(Printer *p, MimDef *lam, const TNode *tn, int ind) {
    MimDef *pi = follow(lam->type);
    MimDef *dom = mim_is(pi, MIM_PI) ? pi->ops[0] : NULL;
    bool cn = mim_pi_is_cn(pi);
    indent(p, ind);
    buf_puts(&p->out, cn ? "con " : "lam ");
    if (lam->is_external) buf_puts(&p->out, "extern ");
    print_id(p, lam);
    buf_puts(&p->out, " ");
    print_params(p, existing_var(lam), dom);
    if (cn) {
        buf_puts(&p->out, "@(");
        print_op(p, lam->ops[0]);
        buf_puts(&p->out, ") = {\n");
    } else {
        buf_puts(&p->out, ": ");
        print_op(p, mim_is(pi, MIM_PI) ? pi->ops[1] : NULL);
        buf_puts(&p->out, " = {\n");
    }
    if (is_set(lam)) {
        print_children(p, tn, ind + 1);
        walk(p, lam->ops[0], false, ind + 1);
        walk(p, lam->ops[1], true, ind + 1);
        indent(p, ind + 1);
        MimDef *body = follow(lam->ops[1]);
        if (body->is_mut) print_op(p, body);
        else print_inline(p, body, p->dump_gid);
        buf_puts(&p->out, "\n");
    } else {
        indent(p, ind + 1);
        buf_puts(&p->out, " <unset>\n");
    }
    indent(p, ind);
    buf_puts(&p->out, "};\n");
}

/* §3.3: named sigma, array, pack or Pi (other kinds: `.kind` without info). */
static void print_mut_block(Printer *p, MimDef *m, const TNode *tn, int ind) {
    indent(p, ind);
    if (!is_set(m)) {
        print_id(p, m);
        buf_puts(&p->out, ": ");
        print_op(p, m->type);
        buf_puts(&p->out, " = { <unset> };");
        return;
    }
    switch ((MimNode)m->node) {
    case MIM_SIGMA: buf_puts(&p->out, "Sigma "); break;
    case MIM_ARR: buf_puts(&p->out, ".Arr "); break;
    case MIM_PACK: buf_puts(&p->out, ".pack "); break;
    case MIM_PI: buf_puts(&p->out, ".Pi "); break;
    default: buf_printf(&p->out, ".%s ", mim_node_name((MimNode)m->node)); break;
    }
    if (m->is_external) buf_puts(&p->out, "extern ");
    print_id(p, m);
    buf_puts(&p->out, ": ");
    print_op(p, m->type);
    switch ((MimNode)m->node) {
    case MIM_SIGMA: buf_printf(&p->out, ", %" PRIu32, m->num_ops); break;
    case MIM_ARR:
    case MIM_PI: buf_puts(&p->out, ", "); print_op(p, m->ops[0]); break;
    case MIM_PACK: buf_puts(&p->out, ", "); print_op(p, pack_shape(m)); break;
    default: break;
    }
    MimDef *var = existing_var(m);
    if (var) {
        uint64_t n = num_tprojs(p, var);
        if (n == 1) {
            buf_puts(&p->out, ", @");
            print_unique_name(p, var);
        } else {
            for (uint64_t k = 0; k < n; ++k) {
                if (k) buf_puts(&p->out, ", ");
                MimDef *vk = existing_proj(p, var, k);
                if (vk) print_unique_name(p, vk);
                else buf_puts(&p->out, "<TODO>");
            }
        }
    }
    buf_puts(&p->out, " = {\n");
    print_children(p, tn, ind + 1);
    indent(p, ind + 1);
    print_ops(p, m->ops, m->num_ops);
    buf_puts(&p->out, "\n");
    indent(p, ind);
    buf_puts(&p->out, "};\n");
}

static void print_block(Printer *p, MimDef *m, const TNode *tn, int ind) {
    if (m->node == MIM_LAM) print_lam(p, m, tn, ind);
    else print_mut_block(p, m, tn, ind);
}

/* ---- the dependency tree (§2.2) -------------------------------------------- */

/* A set of Var nodes sorted by gid; NULL is the empty set. Sets are shared
 * between nodes and never mutated once made. */
typedef struct VarSet {
    size_t n;
    MimDef *v[];
} VarSet;

struct TNode {
    MimDef *mut;
    size_t depth;
    TNode *first, *last, *next; /* children in insertion order */
};

/* What the tree walk knows about one node. */
typedef struct TEntry {
    VarSet *vars; /* free variables, if memo */
    TNode *node;  /* mutables: its tree node once visited */
    bool memo;
} TEntry;

typedef struct Tree {
    MimArena arena;     /* tree nodes and variable sets */
    /* Per-node entries, looked up by gid (unique in the World, at most its
     * counter; nothing is built while printing): slot[gid] is 1 + the index
     * in entries, 0 if the node has none. Cheaper than pointer maps, and
     * 4 bytes per gid. */
    uint32_t *slot;
    size_t nslots;
    MIM_VEC(TEntry) entries;
    TNode root;         /* depth 0 */
    size_t stack_len;   /* mutables being visited */
    MIM_VEC(MimDef *) scratch;
} Tree;

static VarSet *set_make(Tree *t, MimDef *const *v, size_t n) {
    if (!n) return NULL;
    VarSet *s = mim_arena_alloc(&t->arena, sizeof *s + n * sizeof(MimDef *));
    s->n = n;
    memcpy(s->v, v, n * sizeof *v);
    return s;
}

static VarSet *set_union(Tree *t, VarSet *a, VarSet *b) {
    if (!a || a == b) return b;
    if (!b) return a;
    t->scratch.len = 0;
    size_t i = 0, j = 0;
    while (i < a->n || j < b->n) {
        MimDef *x;
        if (j == b->n || (i < a->n && a->v[i]->gid < b->v[j]->gid)) x = a->v[i++];
        else if (i == a->n || b->v[j]->gid < a->v[i]->gid) x = b->v[j++];
        else { /* equal gids: the same Var */
            x = a->v[i++];
            j++;
        }
        mim_vec_push(&t->scratch, x);
    }
    if (t->scratch.len == a->n) return a;
    if (t->scratch.len == b->n) return b;
    return set_make(t, t->scratch.data, t->scratch.len);
}

static VarSet *set_remove(Tree *t, VarSet *s, const MimDef *x) {
    if (!s || !x) return s;
    for (size_t i = 0; i < s->n; ++i) {
        if (s->v[i] != x) continue;
        VarSet *r = set_make(t, s->v, s->n - 1);
        if (r) memcpy(r->v + i, s->v + i + 1, (s->n - 1 - i) * sizeof(MimDef *));
        return r;
    }
    return s;
}

/* The entry of d, made empty if absent. The pointer is valid until the next
 * call (entries grow). */
static TEntry *entry(Tree *t, const MimDef *d) {
    if (d->gid >= t->nslots) {
        size_t n = t->nslots ? t->nslots : 1024;
        while (n <= d->gid) n *= 2;
        t->slot = mim_xrealloc(t->slot, n * sizeof *t->slot);
        memset(t->slot + t->nslots, 0, (n - t->nslots) * sizeof *t->slot);
        t->nslots = n;
    }
    uint32_t *s = &t->slot[d->gid];
    if (!*s) {
        TEntry e = {NULL, NULL, false};
        mim_vec_push(&t->entries, e);
        *s = (uint32_t)t->entries.len;
    }
    return &t->entries.data[*s - 1];
}

/* The entry of d if it has one, else NULL; same validity as entry(). */
static TEntry *find_entry(const Tree *t, const MimDef *d) {
    uint32_t s = d->gid < t->nslots ? t->slot[d->gid] : 0;
    return s ? &t->entries.data[s - 1] : NULL;
}

static void set_memo(Tree *t, const MimDef *d, VarSet *s) {
    TEntry *e = entry(t, d);
    e->vars = s;
    e->memo = true;
}

static VarSet *visit(Tree *t, MimDef *m);

static VarSet *vars(Tree *t, MimDef *cur, MimDef *d) {
    d = follow(d);
    if (!d || !(d->dep & (MIM_DEP_MUT | MIM_DEP_VAR))) return NULL;
    const TEntry *e = find_entry(t, d);
    if (e && e->memo) return e->vars;
    if (d->is_mut && d != cur) return visit(t, d);
    VarSet *R = NULL;
    if (d->node == MIM_VAR) {
        R = set_make(t, &d, 1);
    } else {
        /* Required fix: re-entering cur contributes nothing. */
        if (d == cur) set_memo(t, d, NULL);
        R = vars(t, cur, d->type);
        if (is_set(d))
            for (size_t i = 0; i < d->num_ops; ++i) R = set_union(t, R, vars(t, cur, d->ops[i]));
        if (d == cur) R = set_remove(t, R, existing_var(cur));
    }
    set_memo(t, d, R);
    return R;
}

static VarSet *visit(Tree *t, MimDef *m) {
    const TEntry *e = find_entry(t, m);
    if (e && e->node) return e->memo ? e->vars : NULL;
    TNode *n = mim_arena_alloc(&t->arena, sizeof *n);
    n->mut = m;
    n->depth = t->stack_len + 1;
    entry(t, m)->node = n;
    t->stack_len++;
    VarSet *V = vars(t, m, m);
    TNode *parent = &t->root;
    for (size_t i = 0; V && i < V->n; ++i) {
        const TEntry *be = find_entry(t, V->v[i]->ops[0]);
        TNode *b = be ? be->node : NULL;
        if (b && b->depth > parent->depth) parent = b;
    }
    if (m->is_external) parent = &t->root; /* externals are closed (else a bug upstream) */
    if (parent->last) parent->last->next = n;
    else parent->first = n;
    parent->last = n;
    n->depth = parent->depth + 1;
    t->stack_len--;
    return V;
}

static void print_children(Printer *p, const TNode *n, int ind) {
    if (!n) return;
    for (const TNode *c = n->first; c; c = c->next)
        if (is_decl(c->mut)) print_block(p, c->mut, c, ind);
}

static void print_tree(Printer *p) {
    Tree t;
    memset(&t, 0, sizeof t);
    mim_arena_init(&t.arena);
    MimWorld *w = p->w;
    for (size_t i = 0; i < w->externals.len; ++i) visit(&t, w->externals.data[i]);
    print_children(p, &t.root, 0);
    mim_vec_free(&t.scratch);
    free(t.slot);
    mim_vec_free(&t.entries);
    mim_arena_free(&t.arena);
}

/* §6 */
static void print_recursive(Printer *p) {
    MimWorld *w = p->w;
    for (size_t i = 0; i < w->externals.len; ++i) enqueue(p, w->externals.data[i]);
    for (size_t head = 0; head < p->queue.len; ++head) print_block(p, p->queue.data[head], NULL, 0);
}

/* ---- entry points ---------------------------------------------------------------- */

void mim_print_world(MimWorld *w, FILE *out, const MimPrintOptions *o,
                     const char *const *import_lines, size_t n) {
    bool was_frozen = mim_world_freeze(w, true);
    Printer p;
    printer_init(&p, w, o, out);
    if (p.recursive) {
        print_recursive(&p);
    } else {
        for (size_t i = 0; i < n; ++i) {
            buf_puts(&p.out, import_lines[i]);
            buf_puts(&p.out, "\n");
        }
        print_tree(&p);
    }
    buf_flush(&p.out);
    printer_fini(&p);
    mim_world_freeze(w, was_frozen);
}

static void print_one(Printer *p, const MimDef *d, bool operand, size_t limit) {
    p->out.len = 0;
    p->limit = limit;
    p->truncated = false;
    buf_put(&p->out, "", 0); /* always a valid string */
    if (!d) buf_puts(&p->out, "<nullptr>");
    else if (operand) print_op(p, d);
    else print_inline(p, d, p->dump_gid);
}

static char *to_str(MimWorld *w, const MimDef *d, const MimPrintOptions *o, bool operand) {
    bool was_frozen = mim_world_freeze(w, true);
    Printer p;
    printer_init(&p, w, o, NULL);
    p.user_names = operand && !o;
    print_one(&p, d, operand, 0);
    char *s = p.out.data;
    p.out.data = NULL;
    printer_fini(&p);
    mim_world_freeze(w, was_frozen);
    return s;
}

char *mim_def_to_str(MimWorld *w, const MimDef *d) { return to_str(w, d, NULL, true); }

char *mim_def_inline_str(MimWorld *w, const MimDef *d, const MimPrintOptions *o) {
    return to_str(w, d, o, false);
}

/* ---- reusable printer (many strings of one World) -------------------------- */

struct MimPrinter {
    Printer p;
};

MimPrinter *mim_printer_new(MimWorld *w, const MimPrintOptions *o) {
    MimPrinter *pr = mim_xmalloc(sizeof *pr);
    printer_init(&pr->p, w, o, NULL);
    return pr;
}

void mim_printer_free(MimPrinter *pr) {
    if (!pr) return;
    printer_fini(&pr->p);
    free(pr);
}

const char *mim_printer_inline(MimPrinter *pr, const MimDef *d, size_t limit) {
    print_one(&pr->p, d, false, limit);
    return pr->p.out.data;
}

const char *mim_printer_operand(MimPrinter *pr, const MimDef *d, size_t limit) {
    print_one(&pr->p, d, true, limit);
    return pr->p.out.data;
}

void mim_world_print(MimWorld *w, FILE *out) { mim_print_world(w, out, NULL, NULL, 0); }
