/* The pass manager (compile.md §4, include/mim/pass.h): runs a set of passes
 * simultaneously over the program, in rounds, in one World. */
#ifndef MIM_PASS_PM_H
#define MIM_PASS_PM_H

#include "mim/pass.h"

MimPassMan *mim_pm_new(void);
void mim_pm_free(MimPassMan *pm);
/* The instance of cls in this manager, created (zeroed) if absent. */
MimPass *mim_pm_add(MimPassMan *pm, const MimPassClass *cls, bool *fresh);
size_t mim_pm_num_passes(const MimPassMan *pm);
/* The class name of the i-th pass (registration order). */
const char *mim_pm_pass_name(const MimPassMan *pm, size_t i);
bool mim_pm_has_pass(const MimPassMan *pm, const MimPassClass *cls);
/* Working memory for runs, reusable by one run after another. */
typedef struct MimPmScratch MimPmScratch;
MimPmScratch *mim_pm_scratch_new(void);
void mim_pm_scratch_free(MimPmScratch *s);

/* Traverse the program of w (rounds until no pass asks for another), using
 * `scratch` as working memory. No cleanup. false = an error was recorded in
 * w. */
bool mim_pm_run(MimPassMan *pm, MimWorld *w, MimPmScratch *scratch);

#endif
