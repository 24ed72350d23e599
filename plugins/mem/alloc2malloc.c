/* %mem.alloc2malloc_pass (mem.md §5.2): heap and stack allocations get an
 * explicit byte size, as the LLVM back end only knows malloc/mslot:
 *     %mem.alloc (T, a) m        → %mem.malloc (T, a) (m, %core.trait.size T)
 *     %mem.slot  (T, a) (m, id)  → %mem.mslot  (T, a) (m, %core.trait.size T, id)
 * The size is core's trait (normalized to a literal for sized types), so the
 * core plugin must be loaded (it always is under -O2).
 * Decision (docs/mem-passes.md): the reference resets the address space to 0;
 * we keep `a`, so the result has the type of the original and every user
 * stays well-typed whatever the address space was. */
#include "mem_passes.h"
#include "mim/plugin/core.h"
#include "mim/plugin/mem.h"

static MimDef *sized(MimWorld *w, uint64_t to, MimDef *Ta, MimDef *const *args, size_t n) {
    MimDef *ax = mim_annex(w, to);
    return ax ? mim_app(w, mim_app(w, ax, Ta), mim_tuple(w, args, n)) : NULL;
}

static MimDef *alloc2malloc_rewrite(MimPass *p, MimDef *d) {
    MimWorld *w = mim_pass_world(p);
    MimDef *alloc = mim_match(d, MIM_mem_alloc), *slot = alloc ? NULL : mim_match(d, MIM_mem_slot);
    MimDef *app = alloc ? alloc : slot;
    if (!app || mim_app_num_args(app) != 2) return d;
    MimDef *Ta = mim_app_nth_arg(app, 0), *arg = mim_app_nth_arg(app, 1);
    MimDef *size_ax = mim_annex(w, MIM_core_trait_size); /* error recorded if core is absent */
    MimDef *size = size_ax ? mim_app(w, size_ax, mim_proj(w, Ta, 2, 0)) : NULL;
    if (!size) return NULL;
    if (alloc) {
        MimDef *args[2] = {arg, size};
        return sized(w, MIM_mem_malloc, Ta, args, 2);
    }
    MimDef *mem = mim_proj(w, arg, 2, 0); /* left to right: gids */
    MimDef *args[3] = {mem, size, mim_proj(w, arg, 2, 1)};
    return sized(w, MIM_mem_mslot, Ta, args, 3);
}

static const MimPassClass alloc2malloc_class = {.name = "alloc2malloc", .size = sizeof(MimPass),
                                                .on_lams = true, .rewrite = alloc2malloc_rewrite};

bool mem_handle_alloc2malloc(MimPipeline *pb, MimDef *app) {
    bool fresh;
    return mim_pipeline_add_pass(pb, app, &alloc2malloc_class, &fresh) != NULL;
}
