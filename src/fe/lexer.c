/* The Mim lexer (see lexer.h). Characters are decoded one code point at a
 * time by `next`, which also tracks positions and echoes consumed text to
 * the Markdown stream; token scanners are built on `peek`/`next`/`accept`. */
#include "fe/lexer.h"

#include "mim/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CP_EOF (-1)
#define CP_INVALID (-2)

static const char *const tok_names[] = {
#define X(k, s) s,
    MIM_TOK_SPECIAL(X) MIM_TOK_PUNCT(X) MIM_TOK_KEYWORDS(X)
#undef X
};

const char *mim_tok_kind_str(MimTokKind k) {
    return (unsigned)k < MIM_TOK_NUM_KINDS ? tok_names[k] : "<?>";
}

/* ---- characters ---------------------------------------------------------- */

/* Decodes the code point at `p`; *n receives its length in bytes (>= 1 for
 * invalid sequences, which are skipped as a whole maximal prefix). */
static int32_t decode(const unsigned char *p, const unsigned char *end, size_t *n) {
    if (p >= end) {
        *n = 0;
        return CP_EOF;
    }
    unsigned c = p[0];
    *n = 1;
    if (c < 0x80) return (int32_t)c;
    size_t len;
    uint32_t cp, min;
    if ((c & 0xe0) == 0xc0) len = 2, cp = c & 0x1f, min = 0x80;
    else if ((c & 0xf0) == 0xe0) len = 3, cp = c & 0x0f, min = 0x800;
    else if ((c & 0xf8) == 0xf0) len = 4, cp = c & 0x07, min = 0x10000;
    else return CP_INVALID;
    for (size_t i = 1; i < len; ++i) {
        if (p + i >= end || (p[i] & 0xc0) != 0x80) {
            *n = i;
            return CP_INVALID;
        }
        cp = cp << 6 | (p[i] & 0x3f);
    }
    *n = len;
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return CP_INVALID;
    return (int32_t)cp;
}

static int32_t peek(const MimLexer *lx) {
    if (lx->p < lx->end && *lx->p < 0x80) return *lx->p; /* ASCII: nothing to decode */
    size_t n;
    return decode(lx->p, lx->end, &n);
}

/* Byte at offset i from the current position (0 past the end). */
static unsigned char byte_at(const MimLexer *lx, size_t i) {
    return lx->p + i < lx->end ? lx->p[i] : 0;
}

static MimPos cur_pos(const MimLexer *lx) { return (MimPos){lx->row, lx->col}; }

static MimLoc loc_at(const MimLexer *lx, MimPos b, MimPos e) {
    return (MimLoc){lx->file, b, e};
}

static bool md_echo_on(const MimLexer *lx, bool prose) { return lx->md && (lx->md_code || prose); }

/* Consumes one code point; reports invalid UTF-8. Returns it (CP_EOF at end). */
static int32_t next_(MimLexer *lx, bool prose, MimPos *last) {
    if (!lx->md && lx->p < lx->end && *lx->p < 0x80 && *lx->p != '\n') { /* plain ASCII */
        int32_t c = *lx->p++;
        if (last) *last = cur_pos(lx);
        lx->col++;
        lx->first_char = false;
        return c;
    }
    size_t n;
    int32_t c = decode(lx->p, lx->end, &n);
    if (c == CP_EOF) return c;
    MimPos pos = cur_pos(lx);
    if (md_echo_on(lx, prose)) fwrite(lx->p, 1, n, lx->md);
    lx->p += n;
    if (c == CP_INVALID) mim_diag_report(lx->diag, MIM_ERROR, loc_at(lx, pos, pos), "invalid UTF-8 character");
    if (c == '\n') {
        if (!lx->first_char) lx->row++; /* reference quirk: a leading newline is not counted */
        lx->col = 1;
    } else {
        lx->col++;
    }
    lx->first_char = false;
    if (last) *last = pos;
    return c;
}

static int32_t next(MimLexer *lx, MimPos *last) { return next_(lx, false, last); }

static bool accept(MimLexer *lx, int32_t c, MimPos *last) {
    if (peek(lx) != c) return false;
    next(lx, last);
    return true;
}

/* ---- fast paths ----------------------------------------------------------- */

/* Without a Markdown echo, runs of ASCII characters are consumed bytewise:
 * the same positions as `next` one code point at a time, without decoding.
 * Each stops at the first byte it does not handle; `next` takes it from
 * there (non-ASCII characters, invalid UTF-8, the echo). */

/* Consumes n ASCII characters other than newlines. */
static void skip_ascii(MimLexer *lx, size_t n, MimPos *last) {
    if (!n) return;
    lx->p += n;
    lx->col += (uint32_t)n;
    lx->first_char = false;
    if (last) *last = (MimPos){lx->row, lx->col - 1};
}

/* Whitespace (including newlines). The position is kept in locals: stores
 * through `lx` would be redone per byte (the bytes may alias it). */
static void skip_ws_fast(MimLexer *lx) {
    if (lx->md) return;
    const unsigned char *p = lx->p, *end = lx->end;
    uint32_t row = lx->row, col = lx->col;
    bool first = lx->first_char;
    while (p < end) {
        unsigned char c = *p;
        if (c == ' ') {
            col++;
        } else if (c == '\n') {
            if (!first) row++;
            col = 1;
        } else if (c == '\t' || c == '\v' || c == '\f' || c == '\r') {
            col++;
        } else {
            break;
        }
        first = false;
        ++p;
    }
    lx->p = p;
    lx->row = row;
    lx->col = col;
    lx->first_char = first;
}

/* ASCII characters up to (not including) a newline. */
static void skip_line_fast(MimLexer *lx) {
    if (lx->md) return;
    const unsigned char *p = lx->p, *end = lx->end;
    while (p < end && *p != '\n' && *p < 0x80) ++p;
    skip_ascii(lx, (size_t)(p - lx->p), NULL);
}

static bool is_ws(int32_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }
static bool is_digit(int32_t c) { return c >= '0' && c <= '9'; }
static bool is_alpha(int32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_id_start(int32_t c) { return c == '_' || is_alpha(c); }
static bool is_id_char(int32_t c) { return is_id_start(c) || is_digit(c) || c == '.'; }

/* is_id_char of a byte, by table: the identifier loop's test. */
static const bool id_byte[256] = {
    ['.'] = 1, ['_'] = 1,
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
    ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1,
    ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1,
    ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
    ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1,
    ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1,
    ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
};
static bool is_sub_digit(int32_t c) { return c >= 0x2080 && c <= 0x2089; }

static bool is_base_digit(int32_t c, int base) {
    switch (base) {
    case 2: return c == '0' || c == '1';
    case 8: return c >= '0' && c <= '7';
    case 16: return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    default: return is_digit(c);
    }
}

/* ---- scratch buffer -------------------------------------------------------- */

static void buf_clear(MimLexer *lx) { lx->buf_len = 0; }

static void buf_push(MimLexer *lx, char c) {
    if (lx->buf_len + 2 > lx->buf_cap) {
        lx->buf_cap = lx->buf_cap ? lx->buf_cap * 2 : 64;
        lx->buf = mim_xrealloc(lx->buf, lx->buf_cap);
    }
    lx->buf[lx->buf_len++] = c;
    lx->buf[lx->buf_len] = '\0';
}

static void buf_push_utf8(MimLexer *lx, int32_t c) {
    if (c < 0) return;
    if (c < 0x80) {
        buf_push(lx, (char)c);
    } else if (c < 0x800) {
        buf_push(lx, (char)(0xc0 | (c >> 6)));
        buf_push(lx, (char)(0x80 | (c & 0x3f)));
    } else if (c < 0x10000) {
        buf_push(lx, (char)(0xe0 | (c >> 12)));
        buf_push(lx, (char)(0x80 | ((c >> 6) & 0x3f)));
        buf_push(lx, (char)(0x80 | (c & 0x3f)));
    } else {
        buf_push(lx, (char)(0xf0 | (c >> 18)));
        buf_push(lx, (char)(0x80 | ((c >> 12) & 0x3f)));
        buf_push(lx, (char)(0x80 | ((c >> 6) & 0x3f)));
        buf_push(lx, (char)(0x80 | (c & 0x3f)));
    }
}

static const char *buf_str(MimLexer *lx) {
    if (!lx->buf) buf_push(lx, 'x'), buf_clear(lx);
    lx->buf[lx->buf_len] = '\0';
    return lx->buf;
}

/* A printable rendering of a code point for messages (control bytes escaped). */
static const char *show_char(int32_t c, char out[16]) {
    if (c == CP_INVALID || c < 0) {
        snprintf(out, 16, "\\ufffd");
    } else if (c < 0x20 || c == 0x7f) {
        snprintf(out, 16, "\\x%02x", (unsigned)c);
    } else if (c < 0x80) {
        out[0] = (char)c, out[1] = '\0';
    } else {
        unsigned char *o = (unsigned char *)out;
        if (c < 0x800) {
            o[0] = (unsigned char)(0xc0 | (c >> 6)), o[1] = (unsigned char)(0x80 | (c & 0x3f)), o[2] = 0;
        } else if (c < 0x10000) {
            o[0] = (unsigned char)(0xe0 | (c >> 12)), o[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
            o[2] = (unsigned char)(0x80 | (c & 0x3f)), o[3] = 0;
        } else {
            o[0] = (unsigned char)(0xf0 | (c >> 18)), o[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
            o[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3f)), o[3] = (unsigned char)(0x80 | (c & 0x3f));
            o[4] = 0;
        }
    }
    return out;
}

/* ---- set-up ---------------------------------------------------------------- */

static bool starts_md(const MimLexer *lx) {
    return byte_at(lx, 0) == '/' && byte_at(lx, 1) == '/' && byte_at(lx, 2) == '/';
}

static void init_keywords(MimLexer *lx);

void mim_lexer_init(MimLexer *lx, MimWorld *w, MimArena *arena, MimDiag *diag, const char *file,
                    const char *src, size_t len, FILE *md) {
    memset(lx, 0, sizeof *lx);
    lx->world = w;
    lx->arena = arena;
    lx->diag = diag;
    lx->file = file;
    lx->p = (const unsigned char *)src;
    lx->end = lx->p + len;
    lx->row = lx->col = 1;
    lx->first_char = true;
    lx->md = md;
    init_keywords(lx);
    if (len >= 3 && memcmp(src, "\xef\xbb\xbf", 3) == 0) lx->p += 3; /* byte order mark */
    if (md && !starts_md(lx)) {
        fputs("```\n", md);
        lx->md_code = true;
    }
}

void mim_lexer_fini(MimLexer *lx) {
    free(lx->buf);
    lx->buf = NULL;
}

/* ---- comments ---------------------------------------------------------------- */

/* A run of `///` lines: prose for the Markdown stream, a comment otherwise. */
static void lex_md_lines(MimLexer *lx) {
    if (lx->md && lx->md_code) fputs("```\n", lx->md);
    lx->md_code = false;
    while (starts_md(lx)) {
        for (int i = 0; i < 3; ++i) next(lx, NULL);
        if (peek(lx) == ' ') next(lx, NULL);
        for (int32_t c; (skip_line_fast(lx), c = peek(lx)) != CP_EOF;) {
            next_(lx, true, NULL);
            if (c == '\n') break;
        }
    }
    if (lx->md && lx->p < lx->end) {
        fputs("```\n", lx->md);
        lx->md_code = true;
    }
}

static void lex_line_comment(MimLexer *lx) {
    for (;;) {
        skip_line_fast(lx);
        int32_t c = peek(lx);
        if (c == CP_EOF || c == '\n') return;
        next(lx, NULL);
    }
}

static void lex_block_comment(MimLexer *lx, MimPos begin) {
    MimPos last = begin;
    for (int32_t c; (c = peek(lx)) != CP_EOF;) {
        next(lx, &last);
        if (c == '*' && peek(lx) == '/') {
            next(lx, NULL);
            return;
        }
    }
    mim_diag_report(lx->diag, MIM_ERROR, loc_at(lx, begin, last), "non-terminated multiline comment");
}

/* ---- literals ---------------------------------------------------------------- */

static void parse_digits(MimLexer *lx, int base, MimPos *last) {
    for (int32_t c; is_base_digit(c = peek(lx), base);) {
        buf_push(lx, (char)c);
        next(lx, last);
    }
}

static uint64_t parse_decimal(MimLexer *lx, MimPos *last) {
    buf_clear(lx);
    parse_digits(lx, 10, last);
    errno = 0;
    return strtoull(buf_str(lx), NULL, 10);
}

static MimTok make_tok(MimLexer *lx, MimTokKind k, MimPos b, MimPos e) {
    MimTok t;
    memset(&t, 0, sizeof t);
    t.kind = k;
    t.loc = loc_at(lx, b, e);
    return t;
}

static MimTok index_tok(MimLexer *lx, MimPos b, MimPos e, uint64_t value, uint64_t size) {
    MimTok t = make_tok(lx, MIM_TOK_INDEX, b, e);
    t.v.idx.value = value;
    t.v.idx.size = size;
    return t;
}

/* Exponent of a floating literal; false if there is none. */
static bool parse_exp(MimLexer *lx, int base, MimPos *last) {
    int32_t c = peek(lx);
    bool is_exp = base == 10 ? (c == 'e' || c == 'E') : (c == 'p' || c == 'P');
    if (!is_exp) return false;
    buf_push(lx, (char)c);
    next(lx, last);
    c = peek(lx);
    if (c == '+' || c == '-') {
        buf_push(lx, (char)c);
        next(lx, last);
    }
    if (!is_digit(peek(lx))) {
        MimPos p = cur_pos(lx);
        mim_diag_report(lx->diag, MIM_ERROR, loc_at(lx, p, p), "exponent has no digits");
    }
    parse_digits(lx, 10, last);
    return true;
}

/* Width suffix `i`/`I` (§2.6 step 4): an Idx 2^w literal; out of range is fatal. */
static MimTok lex_width_lit(MimLexer *lx, MimPos begin, MimPos *last, int base, bool neg) {
    char *digits = mim_xstrdup(buf_str(lx));
    size_t n = strlen(digits);
    char *num = mim_xmalloc(n + 2);
    snprintf(num, n + 2, "%s%s", neg ? "-" : "", digits);
    errno = 0;
    uint64_t value = strtoull(num, NULL, base);
    free(num);
    free(digits);
    next(lx, last); /* i or I */
    uint64_t width = parse_decimal(lx, last);
    uint64_t size = width >= 64 ? 0 : (uint64_t)1 << width;
    if (size != 0 && value >= size) {
        mim_diag_report(lx->diag, MIM_ERROR, loc_at(lx, begin, *last),
                        "index '%llu' does not fit within arity '%llu'", (unsigned long long)size,
                        (unsigned long long)value);
        lx->fatal = true;
    }
    return index_tok(lx, begin, *last, value, size);
}

static MimTok lex_number(MimLexer *lx) {
    MimPos begin = cur_pos(lx), last = begin;
    buf_clear(lx);
    bool has_sign = false, neg = false;
    int32_t c = peek(lx);
    if (c == '+' || c == '-') {
        has_sign = true;
        neg = c == '-';
        next(lx, &last);
    }
    int base = 10;
    if (peek(lx) == '0') {
        unsigned char b = byte_at(lx, 1);
        int nb = (b == 'b' || b == 'B') ? 2 : (b == 'o' || b == 'O') ? 8 : (b == 'x' || b == 'X') ? 16 : 0;
        if (nb) {
            next(lx, &last);
            next(lx, &last);
            base = nb;
        }
    }
    parse_digits(lx, base, &last);

    c = peek(lx);
    if (c == 'i' || c == 'I') return lex_width_lit(lx, begin, &last, base, neg);

    if (!has_sign && base == 10) {
        if (is_sub_digit(c)) {
            errno = 0;
            uint64_t value = strtoull(buf_str(lx), NULL, 10);
            buf_clear(lx);
            while (is_sub_digit(peek(lx))) buf_push(lx, (char)('0' + (next(lx, &last) - 0x2080)));
            uint64_t size = strtoull(buf_str(lx), NULL, 10);
            return index_tok(lx, begin, last, size ? value % size : value, size);
        }
        if (c == '_') {
            errno = 0;
            uint64_t value = strtoull(buf_str(lx), NULL, 10);
            next(lx, &last);
            if (is_digit(peek(lx))) {
                uint64_t size = parse_decimal(lx, &last);
                return index_tok(lx, begin, last, size ? value % size : value, size);
            }
            mim_diag_report(lx->diag, MIM_ERROR, loc_at(lx, begin, last),
                            "stray underscore in Idx literal; size is missing");
            MimTok t = make_tok(lx, MIM_TOK_INT, begin, last);
            t.v.u = 0;
            return t;
        }
    }

    bool is_float = false;
    if (base == 10 || base == 16) {
        if (peek(lx) == '.') {
            is_float = true;
            buf_push(lx, '.');
            next(lx, &last);
            parse_digits(lx, base, &last);
        }
        bool has_exp = parse_exp(lx, base, &last);
        if (base == 16 && is_float && !has_exp)
            mim_diag_report(lx->diag, MIM_ERROR, loc_at(lx, begin, last),
                            "hexadecimal floating constants require an exponent");
        is_float |= has_exp;
    }

    const char *digits = buf_str(lx);
    if (!is_float && !has_sign) { /* the digits alone are the number's text */
        MimTok t = make_tok(lx, MIM_TOK_INT, begin, last);
        errno = 0;
        t.v.u = strtoull(digits, NULL, base);
        return t;
    }
    size_t n = strlen(digits);
    char *num = mim_xmalloc(n + 4);
    snprintf(num, n + 4, "%s%s%s", neg ? "-" : "", is_float && base == 16 ? "0x" : "", digits);
    MimTok t;
    errno = 0;
    if (is_float) {
        t = make_tok(lx, MIM_TOK_FLOAT, begin, last);
        t.v.f = strtod(num, NULL);
    } else {
        t = make_tok(lx, MIM_TOK_INT, begin, last);
        t.v.u = has_sign ? (uint64_t)strtoll(num, NULL, base) : strtoull(num, NULL, base);
    }
    t.is_signed = has_sign;
    free(num);
    return t;
}

/* One character of a char/string literal, escapes processed. `*bad` is set
 * if it was not a valid ASCII character (already reported). */
static int32_t lex_char(MimLexer *lx, MimPos *last) {
    MimPos pos = cur_pos(lx);
    int32_t c = next(lx, last);
    buf_push_utf8(lx, c);
    if (c == '\\') {
        int32_t e = peek(lx);
        int32_t v;
        switch (e) {
        case '\'': v = '\''; break;
        case '\\': v = '\\'; break;
        case '"': v = '"'; break;
        case '0': v = 0; break;
        case 'a': v = '\a'; break;
        case 'b': v = '\b'; break;
        case 'f': v = '\f'; break;
        case 'n': v = '\n'; break;
        case 'r': v = '\r'; break;
        case 't': v = '\t'; break;
        case 'v': v = '\v'; break;
        default: {
            if (e == CP_EOF) return CP_EOF;
            char s[16];
            MimPos ep = cur_pos(lx);
            mim_diag_report(lx->diag, MIM_ERROR, loc_at(lx, pos, ep), "invalid escape character '\\%s'",
                            show_char(e, s));
            v = e;
        }
        }
        next(lx, last);
        buf_push_utf8(lx, e);
        return v;
    }
    if (c >= 0x80) {
        char s[16];
        mim_diag_report(lx->diag, MIM_ERROR, loc_at(lx, pos, pos), "invalid character '%s'", show_char(c, s));
    }
    return c;
}

static MimTok lex_char_lit(MimLexer *lx) {
    MimPos begin = cur_pos(lx), last = begin;
    buf_clear(lx);
    next(lx, &last);
    buf_push(lx, '\'');
    int32_t c = peek(lx) == CP_EOF ? CP_EOF : lex_char(lx, &last);
    if (c != CP_EOF && accept(lx, '\'', &last)) {
        MimTok t = make_tok(lx, MIM_TOK_CHAR, begin, last);
        t.v.idx.value = c >= 0 && c < 0x80 ? (uint64_t)c : 0;
        t.v.idx.size = 256;
        return t;
    }
    mim_diag_report(lx->diag, MIM_ERROR, loc_at(lx, begin, last), "invalid character literal %s", buf_str(lx));
    MimTok none = make_tok(lx, MIM_TOK_EOF, begin, last); /* no token: the caller goes on lexing */
    return none;
}

/* Strings end at the first `"` produced, escaped or not (the `\"` quirk). */
static MimTok lex_string(MimLexer *lx) {
    MimPos begin = cur_pos(lx), last = begin;
    next(lx, &last);
    size_t cap = 16, len = 0;
    char *bytes = mim_xmalloc(cap);
    bool closed = false;
    while (peek(lx) != CP_EOF) {
        buf_clear(lx);
        int32_t c = lex_char(lx, &last);
        if (c == CP_EOF) break;
        if (c == '"') {
            closed = true;
            break;
        }
        if (len == cap) bytes = mim_xrealloc(bytes, cap *= 2);
        bytes[len++] = c >= 0 && c < 0x80 ? (char)c : '?';
    }
    if (!closed)
        mim_diag_report(lx->diag, MIM_ERROR, loc_at(lx, begin, last), "unterminated string literal");
    MimTok t = make_tok(lx, MIM_TOK_STRING, begin, last);
    char *copy = mim_arena_alloc(lx->arena, len + 1);
    memcpy(copy, bytes, len);
    free(bytes);
    t.v.bytes = copy;
    t.len = (uint32_t)len;
    return t;
}

/* ---- identifiers and keywords ------------------------------------------------------ */

typedef struct Keyword {
    const char *s;
    size_t n; /* strlen(s) */
    MimTokKind k;
} Keyword;

static const Keyword keywords[] = {
#define X(k, s) {s, sizeof(s) - 1, MIM_TOK_##k},
    MIM_TOK_KEYWORDS(X)
#undef X
    {"lm", 2, MIM_TOK_LAMBDA}, {"bot", 3, MIM_TOK_BOT}, {"top", 3, MIM_TOK_TOP}, {"insert", 6, MIM_TOK_INS},
};

enum { NUM_KEYWORDS = sizeof keywords / sizeof *keywords };
_Static_assert(NUM_KEYWORDS < 64, "MimLexer.kw_next holds the keyword chains");

/* Chains the keywords by first byte, in table order. */
static void init_keywords(MimLexer *lx) {
    for (size_t i = NUM_KEYWORDS; i-- > 0;) {
        unsigned char c = (unsigned char)keywords[i].s[0];
        lx->kw_next[i] = lx->kw_head[c];
        lx->kw_head[c] = (uint8_t)(i + 1);
    }
}

static MimTokKind keyword(const MimLexer *lx, const char *s, size_t n) {
    if (n > 6 || (unsigned char)s[0] >= 128) return MIM_TOK_ID;
    for (unsigned i = lx->kw_head[(unsigned char)s[0]]; i; i = lx->kw_next[i - 1]) {
        const Keyword *kw = &keywords[i - 1];
        if (kw->n != n) continue;
        size_t j = 1; /* the first byte matched; at most 6 bytes: no memcmp call */
        while (j < n && kw->s[j] == s[j]) ++j;
        if (j == n) return kw->k;
    }
    return MIM_TOK_ID;
}

/* Scans [_a-zA-Z][_.a-zA-Z0-9]* (the caller checked the first character). */
static void lex_id_chars(MimLexer *lx, MimPos *last) {
    if (!lx->md) { /* identifier characters are ASCII */
        const unsigned char *p = lx->p, *end = lx->end;
        while (p < end && id_byte[*p]) ++p;
        skip_ascii(lx, (size_t)(p - lx->p), last);
        return;
    }
    while (is_id_char(peek(lx))) next(lx, last);
}

static MimTok lex_id(MimLexer *lx) {
    MimPos begin = cur_pos(lx), last = begin;
    const unsigned char *start = lx->p;
    lex_id_chars(lx, &last);
    size_t n = (size_t)(lx->p - start);
    MimTokKind k = keyword(lx, (const char *)start, n);
    MimTok t = make_tok(lx, k, begin, last);
    if (k == MIM_TOK_ID) t.v.sym = mim_world_sym_n(lx->world, (const char *)start, n);
    return t;
}

/* ---- the main loop --------------------------------------------------------------------- */

static MimTokKind punct(int32_t c) {
    switch (c) {
    case '(': return MIM_TOK_LPAREN;
    case ')': return MIM_TOK_RPAREN;
    case '[': return MIM_TOK_LBRACKET;
    case ']': return MIM_TOK_RBRACKET;
    case '{': return MIM_TOK_LBRACE;
    case '}': return MIM_TOK_RBRACE;
    case 0x2039: case 0x27e8: return MIM_TOK_LPACK;
    case 0x203a: case 0x27e9: return MIM_TOK_RPACK;
    case 0x00ab: case 0x27ea: return MIM_TOK_LARR;
    case 0x00bb: case 0x27eb: return MIM_TOK_RARR;
    case 0x2192: return MIM_TOK_ARROW;
    case 0x22a5: return MIM_TOK_BOT;
    case 0x22a4: return MIM_TOK_TOP;
    case '*': case 0x2605: return MIM_TOK_STAR;
    case 0x25a1: return MIM_TOK_BOX;
    case 0x03bb: return MIM_TOK_LAMBDA;
    case '=': return MIM_TOK_ASSIGN;
    case ',': return MIM_TOK_COMMA;
    case ';': return MIM_TOK_SEMI;
    case ':': return MIM_TOK_COLON;
    case '#': return MIM_TOK_HASH;
    case '@': return MIM_TOK_AT;
    case '$': return MIM_TOK_DOLLAR;
    default: return MIM_TOK_EOF; /* none */
    }
}

static MimTok lex_tok(MimLexer *lx) {
    for (;;) {
        if (lx->fatal) return make_tok(lx, MIM_TOK_EOF, cur_pos(lx), cur_pos(lx));
        skip_ws_fast(lx);
        if (lx->md) /* skip_ws_fast left it all */
            while (is_ws(peek(lx))) next(lx, NULL);
        MimPos begin = cur_pos(lx), last = begin;
        int32_t c = peek(lx);
        if (c == CP_EOF) {
            if (lx->md && lx->md_code) fputs("\n```\n", lx->md);
            lx->md_code = false;
            lx->md = NULL;
            return make_tok(lx, MIM_TOK_EOF, begin, begin);
        }
        if (c == CP_INVALID) {
            next(lx, NULL); /* reports */
            continue;
        }
        if (c == '/') {
            if (starts_md(lx)) {
                lex_md_lines(lx);
            } else if (byte_at(lx, 1) == '/') {
                lex_line_comment(lx);
            } else if (byte_at(lx, 1) == '*') {
                next(lx, NULL);
                next(lx, NULL);
                lex_block_comment(lx, begin);
            } else {
                next(lx, NULL);
                mim_diag_report(lx->diag, MIM_ERROR, loc_at(lx, begin, begin),
                                "invalid input char '/'; maybe you wanted to start a comment?");
            }
            continue;
        }
        unsigned char b1 = byte_at(lx, 1);
        if (c == '<' || c == '>') {
            next(lx, &last);
            bool twice = accept(lx, c, &last);
            MimTokKind k = c == '<' ? (twice ? MIM_TOK_LARR : MIM_TOK_LPACK) : (twice ? MIM_TOK_RARR : MIM_TOK_RPACK);
            return make_tok(lx, k, begin, last);
        }
        if (c == '-' && b1 == '>') {
            next(lx, NULL);
            next(lx, &last);
            return make_tok(lx, MIM_TOK_ARROW, begin, last);
        }
        if (c == '+' || c == '-') {
            if (is_digit(b1) || b1 == '.') return lex_number(lx);
            next(lx, NULL);
            mim_diag_report(lx->diag, MIM_ERROR, loc_at(lx, begin, begin), "stray '%c'", (char)c);
            continue;
        }
        if (is_digit(c) || (c == '.' && is_digit(b1))) return lex_number(lx);
        if (c == '.') {
            next(lx, &last);
            return make_tok(lx, MIM_TOK_DOT, begin, last);
        }
        if (c == '%') {
            const unsigned char *start = lx->p;
            next(lx, &last);
            if (is_id_start(peek(lx))) {
                lex_id_chars(lx, &last);
                MimTok t = make_tok(lx, MIM_TOK_ANNEX, begin, last);
                t.v.sym = mim_world_sym_n(lx->world, (const char *)start, (size_t)(lx->p - start));
                return t;
            }
            mim_diag_report(lx->diag, MIM_ERROR, loc_at(lx, begin, begin), "invalid axiom name '%%'");
            continue;
        }
        if (is_id_start(c)) return lex_id(lx);
        if (c == '\'') {
            MimTok t = lex_char_lit(lx);
            if (t.kind == MIM_TOK_CHAR) return t;
            continue;
        }
        if (c == '"') return lex_string(lx);
        MimTokKind k = punct(c);
        if (k != MIM_TOK_EOF && c < 0x80 && !lx->md) { /* one ASCII byte: no decoding, no echo */
            skip_ascii(lx, 1, &last);
            return make_tok(lx, k, begin, last);
        }
        next(lx, &last);
        if (k != MIM_TOK_EOF) return make_tok(lx, k, begin, last);
        char s[16];
        mim_diag_report(lx->diag, MIM_ERROR, loc_at(lx, begin, begin), "invalid input char '%s'", show_char(c, s));
    }
}

/* ---- the fast path ------------------------------------------------------------------- */

/* Kinds of the bytes that begin the most frequent tokens: identifiers and
 * keywords, one-byte punctuation, decimal integers. */
enum { FAST_NONE, FAST_ID, FAST_PUNCT, FAST_DIGIT };

static const uint8_t fast_class[256] = {
    ['_'] = FAST_ID,
    ['a'] = FAST_ID, ['b'] = FAST_ID, ['c'] = FAST_ID, ['d'] = FAST_ID, ['e'] = FAST_ID, ['f'] = FAST_ID,
    ['g'] = FAST_ID, ['h'] = FAST_ID, ['i'] = FAST_ID, ['j'] = FAST_ID, ['k'] = FAST_ID, ['l'] = FAST_ID,
    ['m'] = FAST_ID, ['n'] = FAST_ID, ['o'] = FAST_ID, ['p'] = FAST_ID, ['q'] = FAST_ID, ['r'] = FAST_ID,
    ['s'] = FAST_ID, ['t'] = FAST_ID, ['u'] = FAST_ID, ['v'] = FAST_ID, ['w'] = FAST_ID, ['x'] = FAST_ID,
    ['y'] = FAST_ID, ['z'] = FAST_ID,
    ['A'] = FAST_ID, ['B'] = FAST_ID, ['C'] = FAST_ID, ['D'] = FAST_ID, ['E'] = FAST_ID, ['F'] = FAST_ID,
    ['G'] = FAST_ID, ['H'] = FAST_ID, ['I'] = FAST_ID, ['J'] = FAST_ID, ['K'] = FAST_ID, ['L'] = FAST_ID,
    ['M'] = FAST_ID, ['N'] = FAST_ID, ['O'] = FAST_ID, ['P'] = FAST_ID, ['Q'] = FAST_ID, ['R'] = FAST_ID,
    ['S'] = FAST_ID, ['T'] = FAST_ID, ['U'] = FAST_ID, ['V'] = FAST_ID, ['W'] = FAST_ID, ['X'] = FAST_ID,
    ['Y'] = FAST_ID, ['Z'] = FAST_ID,
    ['('] = FAST_PUNCT, [')'] = FAST_PUNCT, ['['] = FAST_PUNCT, [']'] = FAST_PUNCT, ['{'] = FAST_PUNCT,
    ['}'] = FAST_PUNCT, ['*'] = FAST_PUNCT, ['='] = FAST_PUNCT, [','] = FAST_PUNCT, [';'] = FAST_PUNCT,
    [':'] = FAST_PUNCT, ['#'] = FAST_PUNCT, ['@'] = FAST_PUNCT, ['$'] = FAST_PUNCT,
    ['0'] = FAST_DIGIT, ['1'] = FAST_DIGIT, ['2'] = FAST_DIGIT, ['3'] = FAST_DIGIT, ['4'] = FAST_DIGIT,
    ['5'] = FAST_DIGIT, ['6'] = FAST_DIGIT, ['7'] = FAST_DIGIT, ['8'] = FAST_DIGIT, ['9'] = FAST_DIGIT,
};

/* punct() of the FAST_PUNCT bytes, by table. */
static const uint8_t fast_punct[128] = {
    ['('] = MIM_TOK_LPAREN, [')'] = MIM_TOK_RPAREN, ['['] = MIM_TOK_LBRACKET, [']'] = MIM_TOK_RBRACKET,
    ['{'] = MIM_TOK_LBRACE, ['}'] = MIM_TOK_RBRACE, ['*'] = MIM_TOK_STAR, ['='] = MIM_TOK_ASSIGN,
    [','] = MIM_TOK_COMMA, [';'] = MIM_TOK_SEMI, [':'] = MIM_TOK_COLON, ['#'] = MIM_TOK_HASH,
    ['@'] = MIM_TOK_AT, ['$'] = MIM_TOK_DOLLAR,
};
_Static_assert(MIM_TOK_NUM_KINDS <= 256, "fast_punct holds token kinds in bytes");

/* Bytes after the digits of a decimal integer that make it something else
 * (a float, an index literal, a width suffix, a based literal) or need the
 * general scanner (non-ASCII: subscript digits). */
static bool ends_plain_int(unsigned char c) {
    return c < 0x80 && c != '.' && c != '_' && c != 'e' && c != 'E' && c != 'i' && c != 'I' &&
           c != 'b' && c != 'B' && c != 'o' && c != 'O' && c != 'x' && c != 'X';
}

/* The token at the current position if it is an identifier, a keyword,
 * one-byte punctuation or a plain decimal integer (below 10^19) after
 * whitespace, scanned bytewise into *t: the same token and positions as
 * lex_tok, which does everything else (false: nothing consumed beyond the
 * whitespace, which lex_tok would skip the same way). */
static bool lex_fast(MimLexer *lx, MimTok *restrict t) {
    if (lx->md || lx->fatal) return false;
    skip_ws_fast(lx);
    const unsigned char *p = lx->p, *end = lx->end, *q = p + 1;
    if (p == end) return false;
    uint32_t row = lx->row, col = lx->col;
    MimTokKind k;
    memset(&t->v, 0, sizeof t->v);
    switch (fast_class[*p]) {
    case FAST_ID:
        while (q < end && id_byte[*q]) ++q;
        k = keyword(lx, (const char *)p, (size_t)(q - p));
        if (k == MIM_TOK_ID) t->v.sym = mim_world_sym_n(lx->world, (const char *)p, (size_t)(q - p));
        break;
    case FAST_PUNCT: k = fast_punct[*p]; break;
    case FAST_DIGIT: {
        uint64_t v = (uint64_t)(*p - '0');
        while (q < end && is_digit(*q)) v = v * 10 + (uint64_t)(*q++ - '0');
        if ((q < end && !ends_plain_int(*q)) || q - p > 19) return false;
        k = MIM_TOK_INT;
        t->v.u = v;
        break;
    }
    default: return false;
    }
    uint32_t n = (uint32_t)(q - p);
    t->kind = k;
    t->loc = (MimLoc){lx->file, {row, col}, {row, col + n - 1}};
    t->len = 0;
    t->is_signed = false;
    lx->p = q;
    lx->col = col + n;
    lx->first_char = false;
    return true;
}

MimTok mim_lex(MimLexer *lx) {
    MimTok t;
    if (lex_fast(lx, &t)) return t;
    return lex_tok(lx);
}

/* `out` does not alias the lexer: the token is built in place. */
void mim_lex_to(MimLexer *lx, MimTok *restrict out) {
    if (!lex_fast(lx, out)) *out = lex_tok(lx);
}
