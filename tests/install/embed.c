/* An embedder of the installed libmim (tests/install/run builds it through
 * pkg-config and through find_package): a session compiles a program at
 * -O2 to LLVM IR, and a node built from C is folded by core's normalizer
 * (annex id from the installed generated header). Prints what it got. */
#include <mim/plugin.h>
#include <mim/plugin/core.h>
#include <mim/session.h>
#include <mim/world.h>

#include <stdio.h>
#include <string.h>

static const char program[] =
    "plugin core;\n"
    "con extern main(mem: %mem.M, argc: I32, argv: %mem.Ptr0 (%mem.Ptr0 I8), return: Cn [%mem.M, I32]) =\n"
    "    let (mem, ptr) = %mem.slot (I32, 0) (mem, 0);\n"
    "    let mem = %mem.store (mem, ptr, argc);\n"
    "    let (mem, val) = %mem.load (mem, ptr);\n"
    "    return (mem, %core.wrap.add 0 (val, 40:I32));\n";

int main(void) {
    printf("libmim %s\n", mim_version());
    MimSession *s = mim_session_new(NULL, 0);
    if (!mim_session_source(s, "embedded.mim", program, strlen(program)) || !mim_session_build(s)) {
        mim_session_print_diag(s, stderr);
        mim_session_free(s);
        return 1;
    }
    MimWorld *w = mim_session_world(s);
    MimDef *minus = mim_annex(w, MIM_core_minus);
    MimDef *minus0 = mim_iapp(w, minus, mim_lit_nat(w, 0));
    MimDef *res = mim_iapp(w, minus0, mim_lit_idx(w, 256, 42));
    uint64_t v = 0;
    printf("minus 42 = %llu\n", res && mim_def_lit(res, &v) ? (unsigned long long)v : 0ull);
    /* A fresh session for the optimizer: nodes were built into this one. */
    mim_session_free(s);
    s = mim_session_new(NULL, 0);
    bool ok = mim_session_source(s, "embedded.mim", program, strlen(program)) && mim_session_build(s) &&
              mim_session_optimize(s, 2) && mim_session_emit(s, "ll", stdout);
    if (!ok) mim_session_print_diag(s, stderr);
    mim_session_free(s);
    return ok ? 0 : 1;
}
