/* The steps shared by the command-line driver and sessions once parsing is
 * done: loading the libraries of `plugin x;` directives and emitting every
 * bound module with the normalizers of the loaded libraries. */
#ifndef MIM_DRIVER_PROGRAM_H
#define MIM_DRIVER_PROGRAM_H

#include "driver/load.h"
#include "fe/emit.h"
#include "fe/fe.h"

/* Calls load(user, name, loc) for every `plugin name;` directive of the
 * parsed files, in the order the files were opened (loc = the directive's). */
void mim_program_load_directives(MimFe *fe, bool (*load)(void *user, const char *name, MimLoc loc),
                                 void *user);

/* Emits all modules of fe in binding order into w, registering annexes and
 * normalizers of the libraries in reg. False at the first error (recorded in
 * the World's diagnostics). With load_prelude, the longest prelude image that
 * fits (driver/prelude.h) replaces the emission of the modules it covers;
 * with write_prelude, the image of all modules before the input is saved (a
 * failure to write is reported on err and fails the emission). */
bool mim_program_emit(MimWorld *w, MimFe *fe, MimRegistry *reg, bool load_prelude,
                      bool write_prelude, FILE *err);

/* Emission of the input as the front end parses it (mim_fe_stream_input),
 * for runs without prelude images: set up before the input is parsed; once
 * fe is bound, mim_program_stream_end stands for mim_program_emit if the
 * stream began (else nothing was emitted: call mim_program_emit). */
typedef struct MimProgramStream {
    MimWorld *w;
    MimFe *fe;
    MimEmitHooks hooks;
    MimEmitStream emit;
    bool began;  /* the modules before the input were emitted */
    bool failed; /* one of them failed */
} MimProgramStream;
void mim_program_stream(MimProgramStream *s, MimWorld *w, MimFe *fe, MimRegistry *reg);
bool mim_program_stream_end(MimProgramStream *s);

#endif
