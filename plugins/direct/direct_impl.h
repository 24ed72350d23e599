/* Shared between the files of the direct plugin (direct.md): the
 * direct-style wrapper of a CPS function and the two pass classes. */
#ifndef MIM_PLUGIN_DIRECT_IMPL_H
#define MIM_PLUGIN_DIRECT_IMPL_H

#include "mim/pass.h"
#include "mim/plugin/direct.h"

/* `%direct.cps2ds_dep (T', Uf) f` for a CPS function f : Cn [T', Cn U₀]
 * (direct.md §3.2), or NULL after recording an error. */
MimDef *direct_cps2ds_dep(MimWorld *w, MimDef *f);

/* Record an error at the World's current location; returns NULL. */
MimDef *direct_error(MimWorld *w, const char *msg);

/* "<name of d><suffix>" interned in w (d unnamed: just the suffix). */
MimSym direct_suffixed_name(MimWorld *w, const MimDef *d, const char *suffix);

extern const MimPassClass direct_ds2cps_class; /* §4.1 */
extern const MimPassClass direct_cps2ds_class; /* §4.2 */

#endif
