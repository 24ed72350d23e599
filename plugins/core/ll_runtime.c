/* The LLVM back end's runtime functions (docs/ll-backend.md §2, "Runtime
 * functions"): a body-less C declaration whose name is one of the table
 * below is not declared but defined in the module, as linkonce_odr code in
 * its own comdat, so that several modules linked together keep one copy
 * (and one copy of the state it uses). They serve code that plugins
 * generate and that a C library would otherwise have to provide: the
 * autodiff plugin's tape of reverse mode keeps its memory between gradient
 * calls through them (docs/autodiff.md, "The tape's memory"). */
#include "ll_impl.h"

#include <string.h>

/* The tape runtime. A block is 16 bytes of header (the size of what follows
 * it, in bytes) and then the tape's words; the generated code sees the
 * words. mim_rt_tape_cache holds at most one block between calls (an
 * address, 0 for none), exchanged atomically: a gradient owns the block it
 * took, so threads never share one.
 *   grow(p, bytes): a block with room for `bytes` holding p's words (p null:
 *     the cached block if it is large enough, else a new one of at least
 *     64 KiB; otherwise p itself while it is large enough, else p realloc'd
 *     to max(bytes, twice its size));
 *   free(p): p becomes the cached block, unless the cache holds a larger
 *     one; the smaller of the two is freed;
 *   release(): frees the cached block (a program may call it: weak_odr, so
 *     that it stays when nothing in the module calls it).
 * grow and free are noinline (inlined at every push site, grow made clang
 * stop inlining other functions into a gradient: GMM's beta, +1.2 % of
 * instructions) and grow is cold (its call sites are the rare path of a
 * push: without it, GMM's gradient ran 0.8 % more instructions). */
static const char tape_runtime[] =
    "$mim_rt_tape_cache = comdat any\n"
    "$mim_rt_tape_grow = comdat any\n"
    "$mim_rt_tape_free = comdat any\n"
    "$mim_rt_tape_release = comdat any\n"
    "@mim_rt_tape_cache = linkonce_odr global i64 0, comdat, align 8\n"
    "\n"
    "define linkonce_odr [0 x i64]* @mim_rt_tape_grow([0 x i64]* %p, i64 %bytes) noinline cold comdat {\n"
    "entry:\n"
    "  %none = icmp eq [0 x i64]* %p, null\n"
    "  br i1 %none, label %take, label %have\n"
    "take:\n"
    "  %c = atomicrmw xchg i64* @mim_rt_tape_cache, i64 0 acq_rel\n"
    "  %empty = icmp eq i64 %c, 0\n"
    "  br i1 %empty, label %fresh, label %cached\n"
    "cached:\n"
    "  %cb = inttoptr i64 %c to i64*\n"
    "  %csize = load i64, i64* %cb, align 8\n"
    "  %cfits = icmp uge i64 %csize, %bytes\n"
    "  br i1 %cfits, label %done, label %drop\n"
    "drop:\n"
    "  %craw = bitcast i64* %cb to i8*\n"
    "  call void @free(i8* %craw)\n"
    "  br label %fresh\n"
    "fresh:\n"
    "  %small = icmp ult i64 %bytes, 65536\n"
    "  %fsize = select i1 %small, i64 65536, i64 %bytes\n"
    "  %ftotal = add i64 %fsize, 16\n"
    "  %fraw = call i8* @malloc(i64 %ftotal)\n"
    "  br label %set\n"
    "have:\n"
    "  %hw = bitcast [0 x i64]* %p to i64*\n"
    "  %hb = getelementptr inbounds i64, i64* %hw, i64 -2\n"
    "  %hsize = load i64, i64* %hb, align 8\n"
    "  %hfits = icmp uge i64 %hsize, %bytes\n"
    "  br i1 %hfits, label %done, label %grow\n"
    "grow:\n"
    "  %twice = shl i64 %hsize, 1\n"
    "  %less = icmp ult i64 %twice, %bytes\n"
    "  %gsize = select i1 %less, i64 %bytes, i64 %twice\n"
    "  %gtotal = add i64 %gsize, 16\n"
    "  %hraw = bitcast i64* %hb to i8*\n"
    "  %graw = call i8* @realloc(i8* %hraw, i64 %gtotal)\n"
    "  br label %set\n"
    "set:\n"
    "  %raw = phi i8* [ %fraw, %fresh ], [ %graw, %grow ]\n"
    "  %size = phi i64 [ %fsize, %fresh ], [ %gsize, %grow ]\n"
    "  %failed = icmp eq i8* %raw, null\n"
    "  br i1 %failed, label %oom, label %header\n"
    "oom:\n"
    "  call void @abort()\n"
    "  unreachable\n"
    "header:\n"
    "  %nb = bitcast i8* %raw to i64*\n"
    "  store i64 %size, i64* %nb, align 8\n"
    "  br label %done\n"
    "done:\n"
    "  %blk = phi i64* [ %cb, %cached ], [ %hb, %have ], [ %nb, %header ]\n"
    "  %words = getelementptr inbounds i64, i64* %blk, i64 2\n"
    "  %r = bitcast i64* %words to [0 x i64]*\n"
    "  ret [0 x i64]* %r\n"
    "}\n"
    "\n"
    "define linkonce_odr void @mim_rt_tape_free([0 x i64]* %p) noinline comdat {\n"
    "entry:\n"
    "  %none = icmp eq [0 x i64]* %p, null\n"
    "  br i1 %none, label %out, label %keep\n"
    "keep:\n"
    "  %w = bitcast [0 x i64]* %p to i64*\n"
    "  %b = getelementptr inbounds i64, i64* %w, i64 -2\n"
    "  %size = load i64, i64* %b, align 8\n"
    "  %bi = ptrtoint i64* %b to i64\n"
    "  %old = atomicrmw xchg i64* @mim_rt_tape_cache, i64 %bi acq_rel\n"
    "  %noold = icmp eq i64 %old, 0\n"
    "  br i1 %noold, label %out, label %compare\n"
    "compare:\n"
    "  %ob = inttoptr i64 %old to i64*\n"
    "  %osize = load i64, i64* %ob, align 8\n"
    "  %larger = icmp ugt i64 %osize, %size\n"
    "  br i1 %larger, label %back, label %drop\n"
    "back:\n"
    "  %q = atomicrmw xchg i64* @mim_rt_tape_cache, i64 %old acq_rel\n"
    "  br label %drop\n"
    "drop:\n"
    "  %d = phi i64 [ %old, %compare ], [ %q, %back ]\n"
    "  %dnone = icmp eq i64 %d, 0\n"
    "  br i1 %dnone, label %out, label %release\n"
    "release:\n"
    "  %draw = inttoptr i64 %d to i8*\n"
    "  call void @free(i8* %draw)\n"
    "  br label %out\n"
    "out:\n"
    "  ret void\n"
    "}\n"
    "\n"
    "define weak_odr void @mim_rt_tape_release() comdat {\n"
    "entry:\n"
    "  %old = atomicrmw xchg i64* @mim_rt_tape_cache, i64 0 acq_rel\n"
    "  %none = icmp eq i64 %old, 0\n"
    "  br i1 %none, label %out, label %release\n"
    "release:\n"
    "  %raw = inttoptr i64 %old to i8*\n"
    "  call void @free(i8* %raw)\n"
    "  br label %out\n"
    "out:\n"
    "  ret void\n"
    "}\n";

typedef struct {
    const char *name; /* "@name" */
    const char *decl; /* the declaration the import must have */
} Runtime;

static const Runtime runtimes[] = {
    {"@mim_rt_tape_grow", "declare [0 x i64]* @mim_rt_tape_grow([0 x i64]*, i64)"},
    {"@mim_rt_tape_free", "declare void @mim_rt_tape_free([0 x i64]*)"},
    {"@mim_rt_tape_release", "declare void @mim_rt_tape_release()"},
};

bool ll_runtime(LL *ll, LLBuf *out, MimDef *lam, const char *name, const char *decl) {
    const Runtime *rt = NULL;
    for (size_t i = 0; i < sizeof runtimes / sizeof *runtimes && !rt; ++i)
        if (strcmp(name, runtimes[i].name) == 0) rt = &runtimes[i];
    if (!rt) return false;
    if (strcmp(decl, rt->decl) != 0) {
        ll_error(ll, lam, "a declaration of a runtime function of the LLVM back end with another type (docs/ll-backend.md)");
        return true;
    }
    if (ll->runtime_tape) return true;
    ll->runtime_tape = true;
    /* the C functions it calls, once (emit_import declares an import of the
     * same name only if no declaration of it exists) */
    const char *libc[] = {"declare i8* @malloc(i64)", "declare i8* @realloc(i8*, i64)",
                          "declare void @free(i8*)", "declare void @abort() noreturn"};
    const char *names[] = {"@malloc", "@realloc", "@free", "@abort"};
    for (size_t i = 0; i < sizeof libc / sizeof *libc; ++i)
        if (!ll_declared(ll, out, names[i])) ll_declare(ll, libc[i]);
    ll_buf_puts(out, tape_runtime);
    return true;
}
