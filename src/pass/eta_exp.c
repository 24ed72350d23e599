/* η-expansion (opt.md §4.3). Decision (docs/decisions.md): the reference
 * uses η-expansion to split non-callee uses of lambdas so that speculative
 * signature changes (scalarize, SSA φ-parameters) can be undone per use.
 * Our passes only change call sites whose callee they own (scalarize keeps
 * the original for other uses), so the pass keeps the bookkeeping other
 * passes call into (derived → original) but creates no wrappers. */
#include "pass/std.h"

typedef struct EtaExp {
    StdPass std;
    MimPtrMap derived; /* derived lambda -> original */
} EtaExp;

void mim_eta_exp_derive(MimPass *p, MimDef *derived, MimDef *original) {
    if (p && p->cls == &mim_eta_exp_pass) mim_ptrmap_put(&((EtaExp *)p)->derived, derived, original);
}

static void eta_exp_fini(MimPass *p) { mim_ptrmap_free(&((EtaExp *)p)->derived); }

const MimPassClass mim_eta_exp_pass = {.name = "eta_exp", .size = sizeof(EtaExp),
                                       .on_lams = true, .fini = eta_exp_fini};
