/* The C math library as the math plugin uses it: opened on the first fold
 * that needs one of its functions, not when the plugin is loaded.
 *
 * Loading libm costs a run about 0.7 ms on the 2-core VM (mapping, relocating
 * and resolving ~60 symbols; docs/startup.md), while most programs fold no
 * transcendental function. So the plugin is not linked against libm: the
 * functions below are looked up in it (dlopen/dlsym) once per process. */
#ifndef MIM_MATH_LIBM_H
#define MIM_MATH_LIBM_H

#include <stdbool.h>

/* The unary functions, each in double and float: X(name) for name and namef. */
#define MATH_LIBM_UNARY(X)                                                                       \
    X(sin) X(cos) X(tan) X(sinh) X(cosh) X(tanh) X(asin) X(acos) X(atan) X(asinh) X(acosh) X(atanh) \
    X(sqrt) X(cbrt) X(exp) X(exp2) X(log) X(log2) X(log10) X(erf) X(erfc) X(tgamma) X(lgamma)     \
    X(fabs) X(floor) X(ceil) X(round) X(trunc)

typedef enum MathUnary {
#define MATH_LIBM_ENUM(name) MATH_##name,
    MATH_LIBM_UNARY(MATH_LIBM_ENUM)
#undef MATH_LIBM_ENUM
    MATH_NUM_UNARY
} MathUnary;

typedef struct MathLibm {
    double (*d[MATH_NUM_UNARY])(double);
    float (*f[MATH_NUM_UNARY])(float);
    double (*pow_d)(double, double);
    float (*pow_f)(float, float);
    double (*fmod_d)(double, double);
    double (*fmin_d)(double, double);
    double (*fmax_d)(double, double);
} MathLibm;

/* The functions, or NULL if the library or one of them cannot be found (the
 * callers then leave the operation unfolded). Thread-safe; the table is
 * filled once per process and never changes afterwards. */
const MathLibm *math_libm(void);

#endif
