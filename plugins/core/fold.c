/* Constant folding of core's integer operations (see fold.h). Everything is
 * computed on uint64_t bit patterns, so no C overflow can occur; the signed
 * view is an explicit sign extension. */
#include "fold.h"

#include "core_util.h"

static uint64_t mask(unsigned w) { return w >= 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1; }

/* Sign bit of a w-bit pattern (w = 1: the single bit). */
static bool sign_bit(uint64_t v, unsigned w) { return (v >> (w - 1)) & 1; }

/* Signed view as a 64-bit pattern. Width 1 is signed like LLVM's i1 (tt is
 * -1), so folded values equal the generated code's (docs/decisions.md). */
static uint64_t sext(uint64_t v, unsigned w) {
    if (w >= 64 || !sign_bit(v, w)) return v;
    return v | ~mask(w);
}

static bool negative(uint64_t v, unsigned w) { return sign_bit(v, w); }

/* Result of a w-bit operation: truncated to w bits on the standard path,
 * then reduced modulo s (the non-standard 64-bit path, and sizes such as
 * Idx 200 whose width is standard but which are no power of two). */
static uint64_t finish(uint64_t r, uint64_t s, unsigned w) {
    if (core_width(s) == w) r &= mask(w);
    return s ? r % s : r; /* no-op for s = 2^w; keeps odd sizes in range */
}

bool core_fold_shr(unsigned sub, uint64_t s, uint64_t a, uint64_t b, uint64_t *r) {
    unsigned w = core_fold_width(s);
    if (b >= w) return false;
    if (sub == 0 && negative(a, w)) /* arithmetic: shift the complement in */
        *r = finish(~(~sext(a, w) >> b), s, w);
    else
        *r = finish(a >> b, s, w);
    return true;
}

bool core_fold_wrap(unsigned sub, uint64_t s, uint64_t a, uint64_t b, uint64_t *r) {
    unsigned w = core_fold_width(s);
    uint64_t x;
    switch (sub) {
    case 0: x = a + b; break;
    case 1: x = a - b; break;
    case 2: x = a * b; break;
    default:
        if (b >= w) return false;
        x = a << b;
        break;
    }
    *r = finish(x, s, w);
    return true;
}

bool core_fold_div(unsigned sub, uint64_t s, uint64_t a, uint64_t b, uint64_t *r) {
    unsigned w = core_fold_width(s);
    if (b == 0) return false;
    bool is_signed = sub == 0 || sub == 2, rem = sub >= 2;
    if (!is_signed || (!negative(a, w) && !negative(b, w))) {
        *r = finish(rem ? a % b : a / b, s, w);
        return true;
    }
    /* C semantics on magnitudes: truncate toward zero, remainder takes the
     * dividend's sign. MIN / -1 wraps to MIN (remainder 0). */
    bool na = negative(a, w), nb = negative(b, w);
    uint64_t ma = na ? (0 - sext(a, w)) & mask(w) : a;
    uint64_t mb = nb ? (0 - sext(b, w)) & mask(w) : b;
    uint64_t q = rem ? ma % mb : ma / mb;
    bool neg = rem ? na : na != nb;
    *r = finish(neg ? 0 - q : q, s, w);
    return true;
}

unsigned core_icmp_relation(uint64_t s, uint64_t a, uint64_t b) {
    unsigned w = core_fold_width(s);
    bool sa = sign_bit(a, w), sb = sign_bit(b, w);
    if (!sa && sb) return 16;
    if (sa && !sb) return 8;
    return a > b ? 4 : a < b ? 2 : 1;
}

uint64_t core_fold_extrema(unsigned sub, uint64_t s, uint64_t a, uint64_t b) {
    unsigned w = core_fold_width(s);
    bool max = sub & 1, is_signed = sub & 2;
    bool less = is_signed ? (int64_t)sext(a, w) < (int64_t)sext(b, w) : a < b;
    uint64_t r = (less != max) ? a : b;
    return finish(r, s, w);
}

uint64_t core_fold_abs(uint64_t s, uint64_t a) {
    unsigned w = core_fold_width(s);
    return finish(negative(a, w) ? 0 - sext(a, w) : a, s, w);
}
