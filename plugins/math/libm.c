/* Lazy access to the C math library (libm.h). */
#define _GNU_SOURCE /* LIBM_SO */
#include "libm.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#if defined(__has_include)
#if __has_include(<gnu/lib-names.h>)
#include <gnu/lib-names.h>
#endif
#endif
#ifndef LIBM_SO
#define LIBM_SO "libm.so.6"
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;
static MathLibm table;
static bool found;

/* dlsym into a function pointer (POSIX guarantees the conversion). */
static bool lookup(void *h, const char *name, void *fn, size_t size) {
    void *sym = dlsym(h, name);
    if (!sym) return false;
    memcpy(fn, &sym, size);
    return true;
}

static void open_libm(void) {
    /* Stays loaded until the process exits: it is a system library and the
     * table points into it. */
    void *h = dlopen(LIBM_SO, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!h) return;
    bool ok = true;
#define MATH_LIBM_LOOKUP(name)                                                    \
    ok = ok && lookup(h, #name, &table.d[MATH_##name], sizeof table.d[0]) &&      \
         lookup(h, #name "f", &table.f[MATH_##name], sizeof table.f[0]);
    MATH_LIBM_UNARY(MATH_LIBM_LOOKUP)
#undef MATH_LIBM_LOOKUP
    ok = ok && lookup(h, "pow", &table.pow_d, sizeof table.pow_d) &&
         lookup(h, "powf", &table.pow_f, sizeof table.pow_f) &&
         lookup(h, "fmod", &table.fmod_d, sizeof table.fmod_d) &&
         lookup(h, "fmin", &table.fmin_d, sizeof table.fmin_d) &&
         lookup(h, "fmax", &table.fmax_d, sizeof table.fmax_d);
    found = ok;
}

const MathLibm *math_libm(void) {
    pthread_once(&once, open_libm);
    return found ? &table : NULL;
}
