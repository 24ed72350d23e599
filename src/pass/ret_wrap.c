/* ret_wrap (opt.md §4.7): on entering a returning lambda f with return
 * continuation r, a new continuation w = λx. r x takes r's place in f's
 * filter and body, so that r is called from exactly one place (what the
 * LLVM back end expects of the returning block). */
#include "pass/std.h"

static void ret_wrap_enter(MimPass *p, MimDef *f) {
    MimWorld *w = mim_pass_world(p);
    MimDef *r = mim_ret_var(w, f);
    if (!r || !f->ops[1]) return;
    MimDef *wrap = mim_mut_lam(w, mim_type_of(w, r));
    if (!wrap) return;
    mim_def_set_name(wrap, r->name ? r->name : mim_world_sym(w, "ret"));
    mim_lam_set(w, wrap, mim_lit_bool(w, false), mim_app(w, r, mim_var(w, wrap)));
    /* f's variable becomes (its projections…, wrap) in filter and body. */
    uint64_t n = mim_dom_arity(w, f);
    MimDef **vars = mim_xmalloc(n * sizeof *vars);
    for (uint64_t i = 0; i + 1 < n; ++i) vars[i] = mim_var_proj(w, f, n, i);
    vars[n - 1] = wrap;
    MimDef *pi = mim_res(w, f->type);
    MimDef *arg = mim_tuple_typed(w, pi->ops[0], vars, n);
    free(vars);
    MimDef *filter, *body;
    if (arg && mim_lam_instantiate(w, f, arg, &filter, &body)) mim_lam_set(w, f, filter, body);
}

const MimPassClass mim_ret_wrap_pass = {
    .name = "ret_wrap", .size = sizeof(StdPass), .on_lams = true, .enter = ret_wrap_enter};
