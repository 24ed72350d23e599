/* Runtime of tests/lit/ll/clos-sjlj.mim: the size of a C jmp_buf. */
#include <setjmp.h>
#include <stddef.h>
size_t jmpbuf_size(void) { return sizeof(jmp_buf); }
