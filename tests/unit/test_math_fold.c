/* Randomized constant-folding tests of the math plugin (plugins/math.md §4)
 * through the C API with the real plugin library (build/lib/mim/libmim_math.so):
 * for F32 and F64, thousands of operand pairs (fixed seed, including NaN,
 * infinities and subnormals) are folded by the normalizers and compared with
 * C's own arithmetic, comparisons and libm functions in float and double. */
#include "driver/load.h"
#include "fe/emit.h"
#include "fe/fe.h"
#include "mim/plugin.h"
#include "mim/world.h"
#include "unit.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* Ids of docs/plugin-interfaces.md, independent of the generated header. */
#define T_MATH 0x3825490000000000ull
#define T_F16 (T_MATH | 0x800)
#define T_F32 (T_MATH | 0x900)
#define T_F64 (T_MATH | 0xa00)
#define T_PE16 (T_MATH | 0x100)
#define T_PE32 (T_MATH | 0x200)
#define T_PE64 (T_MATH | 0x300)
#define T_ARITH (T_MATH | 0xf00)
#define T_EXTREMA (T_MATH | 0x1100)
#define T_TRI (T_MATH | 0x1200)
#define T_POW (T_MATH | 0x1300)
#define T_RT (T_MATH | 0x1400)
#define T_EXP (T_MATH | 0x1500)
#define T_ROUND (T_MATH | 0x1900)
#define T_CMP (T_MATH | 0x1a00)

enum { CASES = 3000 };

typedef struct Env {
    MimWorld *w;
    MimDiag diag;
    MimFe *fe;
    MimRegistry reg;
    bool ok;
} Env;

static Env env;
static uint64_t rng = 0x0123456789abcdefull;

static uint64_t next(void) { /* xorshift64* */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545F4914F6CDD1Dull;
}

static bool env_loaded(void *user, MimSym plugin) { return mim_registry_is_loaded(&((Env *)user)->reg, plugin); }
static MimNormalizer env_normalizer(void *user, uint64_t id) {
    return mim_registry_normalizer(&((Env *)user)->reg, id);
}

static bool env_open(void) {
    char exe[PATH_MAX], libdir[PATH_MAX + 16];
    memset(&env, 0, sizeof env);
    env.w = mim_world_new();
    mim_diag_init(&env.diag);
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) return false;
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return false;
    *slash = '\0';
    snprintf(libdir, sizeof libdir, "%s/../lib/mim", exe);
    const char *paths[] = {"", libdir};
    char msg[256];
    if (!mim_registry_load(&env.reg, "math", paths, 2, msg, sizeof msg)) {
        fprintf(stderr, "math env: %s\n", msg);
        return false;
    }
    env.fe = mim_fe_new(env.w, &env.diag, paths, 2, false);
    mim_fe_parse_plugin(env.fe, "math");
    env.ok = mim_fe_bind(env.fe);
    MimEmitHooks hooks = {env_loaded, env_normalizer, &env};
    for (size_t i = 0; env.ok && i < mim_fe_num_modules(env.fe); ++i)
        env.ok = mim_emit_module_with(env.w, mim_fe_module(env.fe, i), &hooks) && !mim_world_has_error(env.w);
    return env.ok;
}

static void env_close(void) {
    if (env.fe) mim_fe_free(env.fe);
    mim_diag_free(&env.diag);
    mim_world_free(env.w);
    mim_registry_free(&env.reg);
}

/* ---- values --------------------------------------------------------------- */

static uint32_t bits32(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}
static float float_of(uint64_t u) {
    uint32_t v = (uint32_t)u;
    float x;
    memcpy(&x, &v, sizeof x);
    return x;
}
static uint64_t bits64(double x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}
static double double_of(uint64_t u) {
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* Random patterns: mostly moderate exponents, sometimes anything. */
static uint64_t operand32(void) {
    uint64_t v = next();
    if ((v & 7) == 0) return v >> 32;
    return ((v >> 63) << 31) | ((uint64_t)(110 + (v >> 8) % 36) << 23) | ((v >> 20) & 0x7fffff);
}
static uint64_t operand64(void) {
    uint64_t v = next();
    if ((v & 7) == 0) return next();
    return ((v >> 63) << 63) | ((uint64_t)(1000 + (v >> 8) % 48) << 52) | (next() >> 12);
}

typedef struct Fmt {
    uint64_t type_id, pe_id;
    bool wide;
} Fmt;
static const Fmt F32 = {T_F32, T_PE32, false}, F64 = {T_F64, T_PE64, true};

static MimDef *flit(const Fmt *f, uint64_t bits) { return mim_lit(env.w, mim_world_annex(env.w, f->type_id), bits); }

static MimDef *call(uint64_t id, const Fmt *f, MimDef *arg) {
    MimDef *d = mim_world_annex(env.w, id);
    d = mim_app(env.w, d, mim_world_annex(env.w, f->pe_id));
    d = mim_app(env.w, d, mim_lit_nat(env.w, 0));
    return mim_app(env.w, d, arg);
}

static MimDef *call2(uint64_t id, const Fmt *f, uint64_t a, uint64_t b) {
    MimDef *ops[2] = {flit(f, a), flit(f, b)};
    return call(id, f, mim_tuple(env.w, ops, 2));
}

/* The folded literal's bits equal `want` (any NaN matches any NaN). */
static bool folded(MimDef *d, const Fmt *f, uint64_t want) {
    uint64_t v;
    if (!d || !mim_def_lit(d, &v)) return false;
    if (f->wide) return isnan(double_of(want)) ? isnan(double_of(v)) : v == want;
    return isnan(float_of(want)) ? isnan(float_of(v)) : v == want;
}

static void test_arith(void) {
    int bad = 0;
    for (int k = 0; k < CASES; ++k) {
        uint64_t a = operand32(), b = operand32();
        float x = float_of(a), y = float_of(b);
        bad += !folded(call2(T_ARITH | 0, &F32, a, b), &F32, bits32(x + y));
        bad += !folded(call2(T_ARITH | 1, &F32, a, b), &F32, bits32(x - y));
        bad += !folded(call2(T_ARITH | 2, &F32, a, b), &F32, bits32(x * y));
        bad += !folded(call2(T_ARITH | 3, &F32, a, b), &F32, bits32(x / y));
        bad += !folded(call2(T_ARITH | 4, &F32, a, b), &F32, bits32(fmodf(x, y)));
        uint64_t c = operand64(), d = operand64();
        double u = double_of(c), v = double_of(d);
        bad += !folded(call2(T_ARITH | 0, &F64, c, d), &F64, bits64(u + v));
        bad += !folded(call2(T_ARITH | 1, &F64, c, d), &F64, bits64(u - v));
        bad += !folded(call2(T_ARITH | 2, &F64, c, d), &F64, bits64(u * v));
        bad += !folded(call2(T_ARITH | 3, &F64, c, d), &F64, bits64(u / v));
        bad += !folded(call2(T_ARITH | 4, &F64, c, d), &F64, bits64(fmod(u, v)));
        bad += !folded(call2(T_POW, &F64, c, d), &F64, bits64(pow(u, v)));
        bad += !folded(call2(T_POW, &F32, a, b), &F32, bits32(powf(x, y)));
    }
    CHECK(bad == 0);
}

static unsigned relation(double x, double y) {
    return isunordered(x, y) ? 8 : x > y ? 4 : x < y ? 2 : 1;
}

static void test_cmp(void) {
    int bad = 0;
    for (int k = 0; k < CASES; ++k) {
        uint64_t a = operand32(), b = (k & 3) ? operand32() : a;
        unsigned rel = relation(float_of(a), float_of(b));
        for (unsigned sub = 0; sub < 16; ++sub) {
            uint64_t v;
            MimDef *r = call2(T_CMP | sub, &F32, a, b);
            bad += !(r && mim_def_lit(r, &v) && v == ((rel & sub) != 0));
        }
        uint64_t c = operand64(), d = (k & 3) ? operand64() : c;
        rel = relation(double_of(c), double_of(d));
        for (unsigned sub = 0; sub < 16; ++sub) {
            uint64_t v;
            MimDef *r = call2(T_CMP | sub, &F64, c, d);
            bad += !(r && mim_def_lit(r, &v) && v == ((rel & sub) != 0));
        }
    }
    CHECK(bad == 0);
}

static void test_extrema(void) {
    int bad = 0;
    for (int k = 0; k < CASES; ++k) {
        uint64_t c = operand64(), d = operand64();
        double u = double_of(c), v = double_of(d);
        if (u == 0 && v == 0) continue; /* signed zeros: known answers in lit tests */
        bad += !folded(call2(T_EXTREMA | 0, &F64, c, d), &F64, bits64(fmin(u, v)));
        bad += !folded(call2(T_EXTREMA | 1, &F64, c, d), &F64, bits64(fmax(u, v)));
        double imin = isnan(u) ? u : isnan(v) ? v : fmin(u, v);
        double imax = isnan(u) ? u : isnan(v) ? v : fmax(u, v);
        bad += !folded(call2(T_EXTREMA | 2, &F64, c, d), &F64, bits64(imin));
        bad += !folded(call2(T_EXTREMA | 3, &F64, c, d), &F64, bits64(imax));
    }
    CHECK(bad == 0);
}

static void test_unary(void) {
    static double (*const dfn[])(double) = {sin, cos, tan, sinh, exp, log, sqrt, floor, round};
    static float (*const ffn[])(float) = {sinf, cosf, tanf, sinhf, expf, logf, sqrtf, floorf, roundf};
    static const uint64_t ids[] = {T_TRI | 0, T_TRI | 1, T_TRI | 2, T_TRI | 4, T_EXP | 0,
                                   T_EXP | 4, T_RT | 0,  T_ROUND | 0, T_ROUND | 2};
    int bad = 0;
    for (int k = 0; k < CASES / 4; ++k) {
        uint64_t a = operand32(), c = operand64();
        for (size_t i = 0; i < sizeof ids / sizeof *ids; ++i) {
            bad += !folded(call(ids[i], &F32, flit(&F32, a)), &F32, bits32(ffn[i](float_of(a))));
            bad += !folded(call(ids[i], &F64, flit(&F64, c)), &F64, bits64(dfn[i](double_of(c))));
        }
    }
    CHECK(bad == 0);
}

/* F16 through the normalizer: 1 + 2^-11 rounds to even, 65504 + 16 overflows. */
static void test_f16(void) {
    static const Fmt F16 = {T_F16, T_PE16, false};
    uint64_t v = 1;
    MimDef *r = call2(T_ARITH | 0, &F16, 0x3C00, 0x1000);
    CHECK(r && mim_def_lit(r, &v) && v == 0x3C00);
    r = call2(T_ARITH | 0, &F16, 0x7BFF, 0x4C00);
    CHECK(r && mim_def_lit(r, &v) && v == 0x7C00);
    r = call2(T_CMP | 1, &F16, 0x8000, 0x0000); /* −0 == +0 */
    CHECK(r && mim_def_lit(r, &v) && v == 1);
}

int main(void) {
    if (!env_open()) {
        fprintf(stderr, "cannot set up the math plugin\n");
        env_close();
        return 1;
    }
    RUN(test_arith);
    RUN(test_cmp);
    RUN(test_extrema);
    RUN(test_unary);
    RUN(test_f16);
    CHECK(!mim_world_has_error(env.w));
    env_close();
    return unit_summary();
}
