/* mim_world_rewrite (include/mim/rewrite.h): a plugin phase's whole-World
 * rewrite. The hook sees every node once and decides its replacement; what
 * it passes on is copied as the cleanup copies it; the result is a new
 * World whose gids continue the old counter, and the old World is left as
 * it was. */
#include "mim/rewrite.h"
#include "mim/world.h"
#include "unit.h"

typedef struct Seen {
    MimWorld *old;
    unsigned lits; /* Nat literals 1 the hook replaced */
} Seen;

/* Every Nat literal 1 becomes 2; everything else is copied. */
static MimDef *one_to_two(MimRewriter *rw, MimDef *old) {
    Seen *seen = mim_rewriter_user(rw);
    uint64_t v;
    if (mim_def_lit(old, &v) && v == 1 && mim_def_type(old) == mim_nat(seen->old)) {
        seen->lits++;
        return mim_lit_nat(mim_rewriter_world(rw), 2);
    }
    return mim_rewrite_default(rw, old);
}

static MimDef *body_of(MimWorld *w, const char *name) {
    MimDef *f = mim_world_lookup_external(w, mim_world_sym(w, name));
    return f ? mim_lam_body(f) : NULL;
}

/* An external `name (x: Nat): Nat = 1`. */
static void const_one(MimWorld *w, const char *name) {
    MimDef *f = mim_mut_lam(w, mim_pi(w, mim_nat(w), mim_nat(w), false));
    mim_def_set_name(f, mim_world_sym(w, name));
    mim_lam_set(w, f, mim_lit_bool(w, false), mim_lit_nat(w, 1));
    mim_make_external(w, f);
}

static void test_hook_replaces(void) {
    MimWorld *w = mim_world_new();
    const_one(w, "f");
    const_one(w, "h");
    uint32_t before = mim_world_gid_counter(w);

    Seen seen = {w, 0};
    MimWorld *next = mim_world_rewrite(w, one_to_two, &seen);
    CHECK(next != NULL && next != w);
    uint64_t v = 0;
    MimDef *nb = next ? body_of(next, "f") : NULL;
    CHECK(nb && mim_def_lit(nb, &v) && v == 2);
    CHECK(seen.lits == 1); /* memoized: once, though f and h both reach 1 */
    CHECK(next && body_of(next, "h") == nb);
    CHECK(next && mim_world_gid_counter(next) > before); /* gids continue */
    CHECK(mim_def_lit(body_of(w, "f"), &v) && v == 1);   /* the old World is untouched */
    mim_world_free(next);
    mim_world_free(w);
}

static void test_without_hook_is_the_cleanup(void) {
    MimWorld *w = mim_world_new();
    MimDef *f = mim_mut_lam(w, mim_pi(w, mim_nat(w), mim_nat(w), false));
    mim_def_set_name(f, mim_world_sym(w, "g"));
    mim_lam_set(w, f, mim_lit_bool(w, false), mim_var(w, f));
    mim_make_external(w, f);
    MimWorld *next = mim_world_rewrite(w, NULL, NULL);
    MimDef *g = next ? mim_world_lookup_external(next, mim_world_sym(next, "g")) : NULL;
    CHECK(g && mim_lam_body(g) == mim_var(next, g)); /* the identity, copied */
    mim_world_free(next);
    mim_world_free(w);
}

int main(void) {
    RUN(test_hook_replaces);
    RUN(test_without_hook_is_the_cleanup);
    return unit_summary();
}
