/* %regex.pattern (docs/regex.md, "Pattern strings"): a Mim string literal in
 * PCRE syntax becomes, at construction, exactly the %regex term that the
 * hand-written axioms give: the parser builds every sub-term through the
 * normalizing constructors (mim_app), in the order a hand-written term
 * would be built, so `%regex.pattern "a|b"` is the very node of
 * `%regex.disj 2 (%regex.lit 'a', %regex.lit 'b')`. Character sets (classes,
 * escapes like \d, `.`) are computed here as sets of bytes and built as the
 * disjunction of their maximal intervals: complements become ranges, never
 * `%regex.not_`, whose erroring state would make a whole disjunction fail
 * (regex.md §4.1). A malformed pattern is an error located at its character
 * inside the string literal (pattern_loc). */
#include "regex.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest count of a bounded repetition {m,n}: the expansion copies its
 * operand that many times (a robustness bound, as REGEX_MAX_OPERANDS). */
#define REGEX_MAX_REPEAT 1000
/* The deepest nesting of groups: the parser recurses once per group, and a
 * string of 100,000 '(' must not exhaust the stack (PCRE2's default limit). */
#define REGEX_MAX_NESTING 250
/* The most items (sets, counted with their copies) a pattern may expand to:
 * `(a{1000}){1000}` would build a million-item term and an automaton to
 * match. */
#define REGEX_MAX_ITEMS 100000

/* ---- parser state ------------------------------------------------------------------ */

typedef struct Parser {
    MimWorld *w;
    const unsigned char *s; /* the pattern's bytes */
    size_t n, pos;
    unsigned depth;     /* open groups */
    bool capturing;     /* %regex.capture_pattern: `(…)` is a %regex.group */
    unsigned groups;    /* capturing groups opened so far */
    bool failed;        /* an error was recorded (err_at, msg) or a constructor failed */
    size_t err_at;      /* offset of the offending character (n = end of the pattern) */
    char msg[160];
} Parser;

/* A parsed sub-pattern: re NULL with ok = the empty string (ε), which no
 * %regex term denotes; it disappears in sequences and makes alternatives
 * optional. */
typedef struct Term {
    bool ok;
    MimDef *re;
    uint64_t items; /* sets in the expanded term (≤ REGEX_MAX_ITEMS) */
} Term;

static const Term fail = {false, NULL, 0};
static const Term eps = {true, NULL, 0};

static Term term(MimDef *re, uint64_t items) { return (Term){re != NULL, re, items}; }

MIM_PRINTF(3, 4)
static Term error_at(Parser *p, size_t at, const char *fmt, ...) {
    if (!p->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->msg, sizeof p->msg, fmt, ap);
        va_end(ap);
        p->err_at = at;
    }
    p->failed = true;
    return fail;
}

static int peek(const Parser *p) { return p->pos < p->n ? p->s[p->pos] : -1; }

/* ---- building the %regex terms ----------------------------------------------------- */

/* `%regex.range (lo, hi)`, i.e. `%regex.lit c` for lo = hi = c. */
static MimDef *build_range(MimWorld *w, unsigned lo, unsigned hi) {
    MimDef *bounds[2];
    bounds[0] = mim_lit_int(w, 8, lo);
    bounds[1] = mim_lit_int(w, 8, hi);
    MimDef *tuple = mim_tuple(w, bounds, 2);
    return mim_app(w, mim_world_annex(w, MIM_regex_range), tuple);
}

/* `%regex.conj k ops` / `%regex.disj k ops` (id), k ≥ 2. */
static MimDef *build_nary(MimWorld *w, uint64_t id, MimDef *const *ops, size_t k) {
    MimDef *callee = mim_app(w, mim_world_annex(w, id), mim_lit_nat(w, k));
    MimDef *tuple = mim_tuple(w, ops, k);
    return mim_app(w, callee, tuple);
}

/* `%regex.quant.<sub> r` */
static MimDef *build_quant(MimWorld *w, uint64_t sub_id, MimDef *r) {
    return mim_app(w, mim_world_annex(w, sub_id), r);
}

/* `%regex.group i r` */
static MimDef *build_group(MimWorld *w, unsigned i, MimDef *r) {
    MimDef *group = mim_app(w, mim_world_annex(w, MIM_regex_group), mim_lit_nat(w, i));
    return group ? mim_app(w, group, r) : NULL;
}

/* ---- character sets ------------------------------------------------------------------ */

typedef struct CharSet {
    bool has[256];
} CharSet;

static void set_range(CharSet *cs, unsigned lo, unsigned hi) {
    for (unsigned c = lo; c <= hi; ++c) cs->has[c] = true;
}

static void set_union(CharSet *cs, const CharSet *other, bool negated) {
    for (unsigned c = 0; c < 256; ++c)
        if (other->has[c] != negated) cs->has[c] = true;
}

/* The classes \d, \w, \s of PCRE2 without Unicode support; false for any other letter. */
static bool class_escape(int letter, CharSet *cs) {
    memset(cs, 0, sizeof *cs);
    switch (letter) {
    case 'd': set_range(cs, '0', '9'); break;
    case 'w':
        set_range(cs, '0', '9');
        set_range(cs, 'A', 'Z');
        set_range(cs, 'a', 'z');
        cs->has['_'] = true;
        break;
    case 's': /* PCRE2: \t \n \v \f \r and space */
        set_range(cs, '\t', '\r');
        cs->has[' '] = true;
        break;
    default: return false;
    }
    return true;
}

/* The set as the disjunction of its maximal intervals in ascending order
 * (what disj's normalizer makes of any hand-written list of ranges); one
 * interval is its range. */
static Term build_set(Parser *p, const CharSet *cs, size_t at) {
    RegexList l = {0};
    for (unsigned c = 0; c < 256;) {
        if (!cs->has[c]) {
            ++c;
            continue;
        }
        unsigned lo = c;
        while (c < 256 && cs->has[c]) ++c;
        MimDef *r = build_range(p->w, lo, c - 1);
        if (!r) {
            mim_vec_free(&l);
            p->failed = true;
            return fail;
        }
        mim_vec_push(&l, r);
    }
    Term t;
    if (l.len == 0) t = error_at(p, at, "the character class matches no character");
    else t = term(l.len == 1 ? l.data[0] : build_nary(p->w, MIM_regex_disj, l.data, l.len), 1);
    if (!t.ok) p->failed = true;
    mim_vec_free(&l);
    return t;
}

/* ---- escapes ------------------------------------------------------------------------- */

static int hex_value(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* After `\x` (p->pos past the x): hh (one or two digits) or {h…}. */
static int hex_escape(Parser *p, size_t at) {
    unsigned v = 0;
    if (peek(p) == '{') {
        size_t digits = 0;
        for (++p->pos; peek(p) >= 0 && hex_value(peek(p)) >= 0; ++p->pos, ++digits) {
            v = v * 16 + (unsigned)hex_value(peek(p));
            if (v > 255) return error_at(p, at, "character code in '\\x{…}' is greater than 0xff"), -1;
        }
        if (!digits || peek(p) != '}') return error_at(p, p->pos, "'\\x{' must be followed by hex digits and '}'"), -1;
        ++p->pos;
        return (int)v;
    }
    size_t digits = 0;
    for (; digits < 2 && peek(p) >= 0 && hex_value(peek(p)) >= 0; ++p->pos, ++digits)
        v = v * 16 + (unsigned)hex_value(peek(p));
    if (!digits) return error_at(p, at, "'\\x' must be followed by hex digits"), -1;
    return (int)v;
}

/* One escape `\…` at p->pos (the backslash): a character code (≥ 0), or
 * the class letter of \d \w \s \D \W \S as -('d') etc. when classes are
 * allowed; -1 after an error. In a class, \b is the backspace (PCRE). */
static int escape(Parser *p, bool in_class) {
    size_t at = p->pos++;
    int c = peek(p);
    if (c < 0) return error_at(p, at, "'\\' at the end of the pattern"), -1;
    ++p->pos;
    switch (c) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case 'f': return '\f';
    case 'a': return '\a';
    case 'e': return 27;
    case 'x': return hex_escape(p, at);
    case '0': { /* \0 and up to two more octal digits */
        unsigned v = 0;
        for (int k = 0; k < 2 && peek(p) >= '0' && peek(p) <= '7'; ++k, ++p->pos) v = v * 8 + (unsigned)(peek(p) - '0');
        return (int)v;
    }
    case 'd':
    case 'w':
    case 's':
    case 'D':
    case 'W':
    case 'S': return -c;
    case 'b':
        if (in_class) return '\b';
        break;
    default:
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return c;
    }
    return error_at(p, at, "unsupported escape '\\%c'", c), -1;
}

/* ---- classes [...] ------------------------------------------------------------------- */

/* The class escape letter e (d, w, s or upper case) added to cs. */
static void add_class(CharSet *cs, int e) {
    CharSet k;
    bool negated = e >= 'A' && e <= 'Z';
    class_escape(negated ? e - 'A' + 'a' : e, &k);
    set_union(cs, &k, negated);
}

/* One member of a class at p->pos: a character (≥ 0), a class escape
 * (-letter), or -1 after an error. */
/* Does a POSIX class `[:…:]`, `[.….]` or `[=…=]` start at `at` (a '[')?
 * PCRE2's test (check_posix_syntax): the terminator before any ']' or
 * '[' + terminator, `\]` and `\\` skipped. Elsewhere '[' is a character. */
static bool posix_class_at(const Parser *p, size_t at) {
    if (at + 1 >= p->n) return false;
    unsigned char t = p->s[at + 1];
    if (t != ':' && t != '.' && t != '=') return false;
    for (size_t i = at + 2; i + 1 < p->n; ++i) {
        unsigned char c = p->s[i], next = p->s[i + 1];
        if (c == '\\' && (next == ']' || next == '\\')) ++i;
        else if ((c == '[' && next == t) || c == ']') return false;
        else if (c == t && next == ']') return true;
    }
    return false;
}

static int class_atom(Parser *p) {
    int c = peek(p);
    if (c == '\\') return escape(p, true);
    if (c == '[' && posix_class_at(p, p->pos))
        return error_at(p, p->pos, "POSIX character classes ('[:…:]') are not supported"), -1;
    ++p->pos;
    return c;
}

/* `[…]` at p->pos. */
static Term parse_class(Parser *p) {
    /* `[:…:]` outside a class is an error in PCRE2, not a class of ':' and '…' */
    if (posix_class_at(p, p->pos))
        return error_at(p, p->pos, "POSIX class syntax ('[:…:]') outside a character class");
    size_t open = p->pos++;
    bool negated = peek(p) == '^';
    if (negated) ++p->pos;
    CharSet cs;
    memset(&cs, 0, sizeof cs);
    bool first = true;
    for (;;) {
        if (peek(p) < 0) return error_at(p, open, "missing terminating ']' for the character class");
        if (peek(p) == ']' && !first) break;
        first = false;
        size_t at = p->pos;
        int lo = class_atom(p);
        if (lo == -1 && p->failed) return fail;
        if (lo < 0) { /* \d etc. */
            add_class(&cs, -lo);
            if (peek(p) == '-' && p->pos + 1 < p->n && p->s[p->pos + 1] != ']')
                return error_at(p, p->pos, "invalid range in the character class");
            continue;
        }
        if (peek(p) == '-' && p->pos + 1 < p->n && p->s[p->pos + 1] != ']') {
            ++p->pos;
            size_t hi_at = p->pos;
            int hi = class_atom(p);
            if (hi == -1 && p->failed) return fail;
            if (hi < 0) return error_at(p, hi_at, "invalid range in the character class");
            if (hi < lo) return error_at(p, at, "range out of order in the character class");
            set_range(&cs, (unsigned)lo, (unsigned)hi);
        } else {
            cs.has[lo] = true;
        }
    }
    ++p->pos; /* ] */
    if (negated) {
        CharSet all;
        memset(&all, 0, sizeof all);
        set_union(&all, &cs, true);
        cs = all;
    }
    return build_set(p, &cs, open);
}

/* ---- repetition ------------------------------------------------------------------------ */

static bool parse_count(Parser *p, unsigned *v) {
    if (peek(p) < '0' || peek(p) > '9') return false;
    unsigned x = 0;
    while (peek(p) >= '0' && peek(p) <= '9') {
        x = x * 10 + (unsigned)(peek(p) - '0');
        if (x > REGEX_MAX_REPEAT) x = REGEX_MAX_REPEAT + 1; /* saturate; reported by the caller */
        ++p->pos;
    }
    *v = x;
    return true;
}

/* `{m}`, `{m,}` or `{m,n}` at p->pos: true with the counts (max = UINT32_MAX
 * for none) and p->pos past it; false (p->pos unchanged) if the brace does
 * not start one: it is then a literal '{', as in PCRE. */
static bool bounded_quantifier(Parser *p, unsigned *min, unsigned *max) {
    size_t start = p->pos++;
    if (parse_count(p, min)) {
        *max = *min;
        if (peek(p) == ',') {
            ++p->pos;
            if (!parse_count(p, max)) *max = UINT32_MAX;
        }
        if (peek(p) == '}') {
            ++p->pos;
            return true;
        }
    }
    p->pos = start;
    return false;
}

/* k copies of r in sequence, then `last` if not NULL (k + (last != NULL) ≥ 1). */
static MimDef *sequence_of(Parser *p, MimDef *r, unsigned k, MimDef *last) {
    size_t len = k + (last != NULL);
    MimDef **ops = mim_xmalloc(len * sizeof *ops);
    for (unsigned i = 0; i < k; ++i) ops[i] = r;
    if (last) ops[k] = last;
    MimDef *res = len == 1 ? ops[0] : build_nary(p->w, MIM_regex_conj, ops, len);
    free(ops);
    return res;
}

/* r{min,max} expanded (docs/regex.md): r{m} = m copies; r{m,} = m-1 copies
 * then r+ (r* for m = 0); r{m,n} = m copies then n-m nested optionals
 * (r(r(r)?)?)?, so that the expansion stays unambiguous. */
static Term repeat(Parser *p, Term t, unsigned min, unsigned max, size_t at) {
    if (!t.re || max == 0) return t.ok ? eps : t;
    MimWorld *w = p->w;
    MimDef *r = t.re;
    uint64_t items = t.items * (max == UINT32_MAX ? (min ? min : 1) : max); /* ≤ 10^5 · 10^3 */
    if (items > REGEX_MAX_ITEMS)
        return error_at(p, at, "the pattern expands to more than %d items", REGEX_MAX_ITEMS);
    if (max == UINT32_MAX) {
        if (min == 0) return term(build_quant(w, MIM_regex_quant_star, r), items);
        MimDef *plus = build_quant(w, MIM_regex_quant_plus, r);
        return term(plus ? sequence_of(p, r, min - 1, plus) : NULL, items);
    }
    MimDef *tail = NULL;
    for (unsigned k = 0; k < max - min; ++k) {
        MimDef *body = r;
        if (tail) {
            MimDef *pair[2] = {r, tail};
            body = build_nary(w, MIM_regex_conj, pair, 2);
        }
        tail = body ? build_quant(w, MIM_regex_quant_optional, body) : NULL;
        if (!tail) return fail;
    }
    if (min == 0) return term(tail, items);
    return term(sequence_of(p, r, min, tail), items);
}

/* A quantifier after the item t, if there is one. */
static Term quantified(Parser *p, Term t) {
    int c = peek(p);
    size_t at = p->pos;
    unsigned min = 0, max = 0;
    if (c == '*' || c == '+' || c == '?') {
        ++p->pos;
        if (t.re) {
            uint64_t id = c == '*' ? MIM_regex_quant_star : c == '+' ? MIM_regex_quant_plus : MIM_regex_quant_optional;
            t = term(build_quant(p->w, id, t.re), t.items);
        }
    } else if (c == '{' && bounded_quantifier(p, &min, &max)) {
        if (min > REGEX_MAX_REPEAT || (max != UINT32_MAX && max > REGEX_MAX_REPEAT))
            return error_at(p, at, "a repetition count is greater than %d", REGEX_MAX_REPEAT);
        if (max < min) return error_at(p, at, "numbers out of order in the '{}' quantifier");
        t = repeat(p, t, min, max, at);
    } else {
        return t;
    }
    c = peek(p);
    if (c == '?' || c == '+')
        return error_at(p, p->pos, "lazy and possessive quantifiers are not supported");
    if (c == '*' || (c == '{' && bounded_quantifier(p, &min, &max)))
        return error_at(p, p->pos, "quantifier does not follow a repeatable item");
    return t;
}

/* ---- sequences and alternatives ------------------------------------------------------ */

static Term parse_alt(Parser *p);

/* `(…)` or `(?:…)` at p->pos. */
static Term parse_group(Parser *p) {
    size_t open = p->pos++;
    if (peek(p) == '?') {
        if (p->pos + 1 < p->n && p->s[p->pos + 1] == ':') p->pos += 2;
        else return error_at(p, open, "only the group forms '(…)' and '(?:…)' are supported");
    }
    if (p->depth >= REGEX_MAX_NESTING)
        return error_at(p, open, "groups are nested more than %d deep", REGEX_MAX_NESTING);
    /* a capturing group is numbered by its opening parenthesis (PCRE) */
    unsigned number = 0;
    if (p->capturing && p->s[open + 1] != '?') {
        if (p->groups >= REGEX_MAX_GROUPS)
            return error_at(p, open, "more than %d capturing groups", REGEX_MAX_GROUPS);
        number = ++p->groups;
    }
    ++p->depth;
    Term t = parse_alt(p);
    --p->depth;
    if (!t.ok) return t;
    if (peek(p) != ')') return error_at(p, open, "missing ')' for this '('");
    ++p->pos;
    if (!number) return t;
    if (!t.re) return error_at(p, open, "a capturing group that matches only the empty string is not supported");
    return term(build_group(p->w, number, t.re), t.items);
}

/* One item (an atom with its quantifier), or ε for an anchor. */
static Term parse_item(Parser *p, bool at_start) {
    size_t at = p->pos;
    int c = peek(p);
    Term t;
    CharSet cs;
    switch (c) {
    case '(': t = parse_group(p); break;
    case '[': t = parse_class(p); break;
    case '.':
        ++p->pos;
        memset(&cs, 0, sizeof cs);
        set_range(&cs, 0, 255);
        cs.has['\n'] = false; /* PCRE's default: any character but a newline */
        t = build_set(p, &cs, at);
        break;
    case '^':
        /* a matcher is applied at a position: it is anchored there */
        if (p->depth || !at_start)
            return error_at(p, at, "'^' is only supported at the start of the pattern or of a top-level alternative");
        ++p->pos;
        return eps;
    case '$':
        /* the matcher reports where it stopped; the caller compares that
         * with the string's end */
        ++p->pos;
        if (p->depth || (peek(p) >= 0 && peek(p) != '|'))
            return error_at(p, at, "'$' is only supported at the end of the pattern or of a top-level alternative");
        return eps;
    case '*':
    case '+':
    case '?': return error_at(p, at, "quantifier does not follow a repeatable item");
    case '\\': {
        int e = escape(p, false);
        if (e == -1 && p->failed) return fail;
        if (e >= 0) {
            t = term(build_range(p->w, (unsigned)e, (unsigned)e), 1);
            break;
        }
        memset(&cs, 0, sizeof cs);
        add_class(&cs, -e);
        t = build_set(p, &cs, at);
        break;
    }
    case '{': {
        unsigned min, max;
        if (bounded_quantifier(p, &min, &max)) return error_at(p, at, "quantifier does not follow a repeatable item");
        ++p->pos;
        t = term(build_range(p->w, '{', '{'), 1);
        break;
    }
    default:
        ++p->pos;
        t = term(build_range(p->w, (unsigned)c, (unsigned)c), 1);
    }
    if (!t.ok) {
        p->failed = true;
        return t;
    }
    return quantified(p, t);
}

/* Items up to `|`, `)` or the end: `%regex.conj k (…)` of the non-empty
 * ones. */
static Term parse_seq(Parser *p) {
    RegexList items = {0};
    bool at_start = true;
    Term res = eps;
    uint64_t count = 0;
    while (peek(p) >= 0 && peek(p) != '|' && peek(p) != ')') {
        size_t at = p->pos;
        Term t = parse_item(p, at_start);
        at_start = at_start && t.ok && !t.re && p->s[p->pos - 1] == '^';
        if (t.ok && (count += t.items) > REGEX_MAX_ITEMS)
            t = error_at(p, at, "the pattern expands to more than %d items", REGEX_MAX_ITEMS);
        if (!t.ok) {
            res = fail;
            break;
        }
        if (t.re) mim_vec_push(&items, t.re);
    }
    if (res.ok && items.len)
        res = term(items.len == 1 ? items.data[0] : build_nary(p->w, MIM_regex_conj, items.data, items.len), count);
    mim_vec_free(&items);
    return res;
}

/* Sequences separated by `|`: `%regex.disj k (…)` of the non-empty ones,
 * optional if one is empty. */
static Term parse_alt(Parser *p) {
    RegexList alts = {0};
    bool empty = false;
    Term res = eps;
    uint64_t count = 0;
    for (;;) {
        size_t at = p->pos;
        Term t = parse_seq(p);
        if (t.ok && (count += t.items) > REGEX_MAX_ITEMS)
            t = error_at(p, at, "the pattern expands to more than %d items", REGEX_MAX_ITEMS);
        if (!t.ok) {
            res = fail;
            break;
        }
        if (t.re) mim_vec_push(&alts, t.re);
        else empty = true;
        if (peek(p) != '|') break;
        ++p->pos;
    }
    if (res.ok && alts.len) {
        MimDef *d = alts.len == 1 ? alts.data[0] : build_nary(p->w, MIM_regex_disj, alts.data, alts.len);
        res = term(empty && d ? build_quant(p->w, MIM_regex_quant_optional, d) : d, count);
    }
    mim_vec_free(&alts);
    return res;
}

/* ---- locating an error inside the string literal ---------------------------------- */


/* A cursor through source text with the lexer's positions (rows and columns
 * from 1, columns count code points; a newline that is the file's first
 * character does not count, as in the lexer). */
typedef struct Cursor {
    const char *text;
    size_t len, off;
    MimPos pos;
} Cursor;

static void advance(Cursor *c) {
    unsigned char b = (unsigned char)c->text[c->off++];
    if (b == '\n') {
        if (c->off > 1) c->pos.row++;
        c->pos.col = 1;
    } else if ((b & 0xC0) != 0x80) {
        c->pos.col++;
    }
}

static bool before(MimPos a, MimPos b) { return a.row < b.row || (a.row == b.row && a.col <= b.col); }

/* The string literal whose opening quote is at c: true if its characters
 * are exactly pat[0..n), with the source span of character `at` (or of the
 * closing quote for at = n) in *loc. */
static bool literal_matches(Cursor c, const unsigned char *pat, size_t n, size_t at, MimLoc *loc) {
    static const char escapes[] = "'\\\"0abfnrtv", values[] = "'\\\"\0\a\b\f\n\r\t\v";
    advance(&c); /* " */
    for (size_t i = 0;; ++i) {
        if (c.off >= c.len) return false;
        MimPos begin = c.pos;
        int ch = (unsigned char)c.text[c.off];
        advance(&c);
        if (ch == '\\') {
            if (c.off >= c.len) return false;
            const char *e = strchr(escapes, c.text[c.off]);
            if (!e || !*e) return false;
            ch = (unsigned char)values[e - escapes];
            advance(&c);
        }
        if (ch >= 0x80) return false;
        if (i == at) {
            loc->begin = begin;
            loc->end = c.pos.col > 1 ? (MimPos){c.pos.row, c.pos.col - 1} : begin;
        }
        if (ch == '"') return i == n; /* the lexer's quirk: an escaped quote ends the string too */
        if (i >= n || pat[i] != ch) return false;
    }
}

/* Searches the source span `span` for a string literal spelling the
 * pattern; true with the location of character `at` in *out. */
static bool locate_in(MimLoc span, const unsigned char *pat, size_t n, size_t at, MimLoc *out) {
    if (!span.file || !span.begin.row) return false;
    size_t len;
    char *text = mim_read_file(span.file, &len);
    if (!text) return false;
    MimPos end = span.end.row ? span.end : span.begin;
    Cursor c = {text, len, 0, {1, 1}};
    bool found = false;
    while (!found && c.off < len && before(c.pos, end)) {
        if (text[c.off] == '"' && before(span.begin, c.pos)) {
            *out = span;
            found = literal_matches(c, pat, n, at, out);
        }
        advance(&c);
    }
    free(text);
    return found;
}

/* Where to report an error at offset `at` of the pattern: that character in
 * the string literal, looked up in the source of the expression being built
 * (the World's location, e.g. `%regex.pattern "…"`) or else of the string
 * node (a literal bound to a name before); the expression itself if neither
 * spells the pattern (e.g. it was computed). */
static MimLoc pattern_loc(MimWorld *w, MimDef *str, const unsigned char *pat, size_t n, size_t at) {
    MimLoc here = mim_world_loc(w), loc;
    if (locate_in(here, pat, n, at, &loc) || locate_in(mim_def_loc(str), pat, n, at, &loc)) return loc;
    return here.begin.row ? here : mim_def_loc(str);
}

/* ---- the normalizer -------------------------------------------------------------------- */

/* The bytes of a string literal (a tuple or pack of I8 literals, one I8
 * literal, or () for ""), n its length; false if it is not one (yet). */
static bool string_bytes(MimWorld *w, MimDef *callee, MimDef *arg, unsigned char **out, size_t *n) {
    uint64_t len, c;
    if (!mim_def_lit(mim_resolve(w, mim_app_nth_arg(callee, 0)), &len) || len > ((uint64_t)1 << 24)) return false;
    unsigned char *s = mim_xmalloc(len + 1);
    for (uint64_t i = 0; i < len; ++i) {
        MimDef *ch = mim_proj(w, arg, len, i);
        if (!ch || !mim_def_lit(ch, &c) || c > 255) {
            free(s);
            return false;
        }
        s[i] = (unsigned char)c;
    }
    s[len] = 0;
    *out = s;
    *n = (size_t)len;
    return true;
}

/* The term of the pattern string arg (callee `%regex.pattern n` or
 * `%regex.capture_pattern n`), with `(…)` as %regex.group if capturing;
 * NULL after a located error. *literal is false (and NULL returned) if arg
 * is not (yet) a string literal. */
static MimDef *pattern_term(MimWorld *w, MimDef *callee, MimDef *arg, bool capturing, bool *literal) {
    unsigned char *s;
    size_t n;
    *literal = string_bytes(w, callee, arg, &s, &n);
    if (!*literal) return NULL;
    Parser p = {.w = w, .s = s, .n = n, .capturing = capturing};
    Term t = parse_alt(&p);
    if (t.ok && p.pos < n) t = error_at(&p, p.pos, "unmatched ')'");
    if (t.ok && !t.re) t = error_at(&p, 0, "the pattern matches only the empty string, which no %%regex term denotes");
    if (!t.ok && p.err_at <= n && p.msg[0])
        mim_diag_report(mim_world_diag(w), MIM_ERROR, pattern_loc(w, arg, s, n, p.err_at),
                        "regex: %s (offset %zu of the pattern)", p.msg, p.err_at);
    free(s);
    return t.ok ? t.re : NULL;
}

MimDef *normalize_pattern(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    bool literal;
    MimDef *re = pattern_term(w, callee, arg, false, &literal);
    return literal ? re : mim_raw_app(w, type, callee, arg);
}

/* %regex.capture_pattern "…" = %regex.capture of the term with groups
 * (docs/regex.md, "Capture groups"). */
MimDef *normalize_capture_pattern(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg) {
    bool literal;
    MimDef *re = pattern_term(w, callee, arg, true, &literal);
    if (!literal) return mim_raw_app(w, type, callee, arg);
    return re ? mim_app(w, mim_world_annex(w, MIM_regex_capture), re) : NULL;
}
