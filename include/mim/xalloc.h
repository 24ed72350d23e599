/* Checked heap allocation: out of memory is the one failure we do not recover
 * from (there is nothing sensible left to do), so these abort with a message.
 * Public so that plugins allocate the same way as libmim. */
#ifndef MIM_XALLOC_H
#define MIM_XALLOC_H

#include "mim/api.h"

#include <stddef.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

MIM_API void *mim_xmalloc(size_t n);
MIM_API void *mim_xcalloc(size_t n, size_t size);
MIM_API void *mim_xrealloc(void *p, size_t n);
MIM_API char *mim_xstrdup(const char *s);
/* A whole file in a heap buffer (*len bytes, not NUL-terminated; free it),
 * or NULL if it cannot be opened or read. */
MIM_API char *mim_read_file(const char *path, size_t *len);
/* Reports running out of memory and aborts: for sizes that cannot be represented. */
MIM_API MIM_NORETURN void mim_xalloc_fail(void);

#ifdef __cplusplus
}
#endif

#endif
