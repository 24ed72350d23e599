/* Output files of a run that appear whole or not at all: the text is written
 * to a temporary file in the destination's directory and renamed onto the
 * destination only once the run has written it completely, so a failed
 * run leaves neither an empty nor a partial file (docs/cli.md). "-" is
 * stdout; a destination that exists and is no regular file (/dev/null,
 * /dev/full, a FIFO) is written directly. */
#ifndef MIM_DRIVER_OUTPUT_H
#define MIM_DRIVER_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

typedef struct MimOutput {
    const char *name; /* as given on the command line; NULL = not requested */
    char *dest;       /* the file the temporary is renamed onto (a symlink's target) */
    char *tmp;        /* the temporary file, NULL when written directly */
    FILE *f;          /* open stream, or NULL for a reserved path (mim_output_reserve) */
    bool done;        /* completely written: kept even if the run fails later */
} MimOutput;

/* Opens the output `name` for writing (a temporary beside it). False with
 * a message "cannot open output file '<name>': <reason>" on err. */
bool mim_output_open(MimOutput *out, const char *name, FILE *err);
/* Only reserves a temporary path beside `name` (out->tmp) for a file that
 * another program writes (the linker); "-" is refused. */
bool mim_output_reserve(MimOutput *out, const char *name, FILE *err);
/* Flushes and closes the stream; if out->done and every write succeeded,
 * renames the temporary onto the destination, else removes it. A failed
 * write is reported ("cannot write output file '<name>': <reason>"). */
bool mim_output_close(MimOutput *out, FILE *err);

#endif
