/* Exact binary floating-point arithmetic for the formats %math.F (p, e):
 * p explicit mantissa bits, e exponent bits, one sign bit, IEEE-754 layout
 * (bias 2^(e-1) - 1, subnormals, infinities, NaNs), round to nearest, ties
 * to even. Values are bit patterns zero-extended to 64 bits.
 *
 * How exactness is achieved (docs/math-plugin.md §2): every supported format
 * embeds exactly in binary64, so decoding to `double` is exact and the only
 * rounding is the final, integer-only sf_round_* step into the target format.
 * binary64 itself uses the machine's double arithmetic. For the other
 * formats an operation is computed in double and then rounded once more;
 * this double rounding is innocuous for + − × ÷ √ whenever the target
 * precision P = p + 1 satisfies 53 ≥ 2P + 2 (Figueroa 1995), i.e. p ≤ 24,
 * and the exponent range is small enough (e ≤ 8) that no intermediate
 * result leaves double's normal range. fmod, fmin/fmax, floor/ceil/round/
 * trunc, fabs and comparisons are exact in double. sf_arith_ok() tells which
 * formats qualify; others are never evaluated. */
#ifndef MIM_MATH_SOFTFLOAT_H
#define MIM_MATH_SOFTFLOAT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct SfFormat {
    unsigned p; /* explicit mantissa bits */
    unsigned e; /* exponent bits */
} SfFormat;

#define SF_F16 ((SfFormat){10, 5})
#define SF_F32 ((SfFormat){23, 8})
#define SF_F64 ((SfFormat){52, 11})
#define SF_BF16 ((SfFormat){7, 8})

typedef enum SfOp { SF_ADD, SF_SUB, SF_MUL, SF_DIV, SF_REM } SfOp;

/* Relation bits of a comparison (the %math.cmp subtag encoding). */
enum { SF_REL_E = 1, SF_REL_L = 2, SF_REL_G = 4, SF_REL_U = 8 };

/* The format decodes exactly into a double (1 ≤ p ≤ 52, 2 ≤ e ≤ 11). */
bool sf_format_ok(SfFormat f);
/* The arithmetic below is exact (correctly rounded) for this format. */
bool sf_arith_ok(SfFormat f);
static inline unsigned sf_width(SfFormat f) { return f.p + f.e + 1; }
static inline bool sf_is_f64(SfFormat f) { return f.p == 52 && f.e == 11; }

/* Bits of the format (higher bits of `bits` are ignored). */
uint64_t sf_mask(SfFormat f, uint64_t bits);
bool sf_is_nan(SfFormat f, uint64_t bits);

/* Exact decoding; NaNs keep sign and the leading payload bits. */
double sf_to_double(SfFormat f, uint64_t bits);
/* x rounded to nearest-even in format f (overflow → ±inf, NaN → quiet NaN
 * with the leading payload bits, like the x86 conversions). */
uint64_t sf_from_double(SfFormat f, double x);
/* sign · m · 2^k rounded to nearest-even in format f (the one rounding
 * routine; m may use all 64 bits). */
uint64_t sf_round_pack(SfFormat f, bool negative, uint64_t m, int k);

/* Integer conversions: exact rounding from 64-bit integers; float → integer
 * truncates toward zero and returns false for NaN or out of range for an
 * integer of `width` bits (1..64). */
uint64_t sf_from_i64(SfFormat f, int64_t v);
uint64_t sf_from_u64(SfFormat f, uint64_t v);
bool sf_to_int(SfFormat f, uint64_t bits, bool is_signed, unsigned width, uint64_t *out);

/* Operations (require sf_arith_ok). rem is C fmod, fmin/fmax below C's too:
 * rem, sqrt, fmin and fmax take the function from libm.h and require
 * math_libm() != NULL. */
uint64_t sf_arith(SfFormat f, SfOp op, uint64_t a, uint64_t b);
uint64_t sf_sqrt(SfFormat f, uint64_t a);
uint64_t sf_convert(SfFormat to, SfFormat from, uint64_t bits); /* f2f */
/* The set of relations (SF_REL_*) that hold between a and b: exactly one. */
unsigned sf_relation(SfFormat f, uint64_t a, uint64_t b);
/* C fmin/fmax: a NaN operand is ignored. */
uint64_t sf_fmin(SfFormat f, uint64_t a, uint64_t b);
uint64_t sf_fmax(SfFormat f, uint64_t a, uint64_t b);

#endif
