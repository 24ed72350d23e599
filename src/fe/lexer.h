/* The Mim lexer (language.md §2): UTF-8 source text to tokens, with positions
 * in code points, comments, the `///` Markdown echo (output-format.md §7) and
 * the numeric literal algorithm of §2.6. Lexical errors are reported to the
 * diagnostics collector and lexing continues; the only fatal error is an
 * out-of-range width-suffixed literal (`256I8`), after which `fatal` is set
 * and only <end of file> tokens are produced. */
#ifndef MIM_FE_LEXER_H
#define MIM_FE_LEXER_H

#include "fe/token.h"
#include "mim/world.h"
#include "util/arena.h"

#include <stdio.h>

typedef struct MimLexer {
    MimWorld *world;  /* for interning names */
    MimArena *arena;  /* string literal payloads */
    MimDiag *diag;
    const char *file; /* interned path for locations */
    const unsigned char *p, *end;
    uint32_t row, col;  /* position of the character at p */
    bool first_char;    /* nothing consumed yet (for the leading-newline quirk) */
    bool fatal;
    FILE *md;           /* Markdown echo, or NULL */
    bool md_code;       /* a code fence is open */
    char *buf;          /* scratch for literal texts */
    size_t buf_len, buf_cap;
    /* Keywords by first byte (ASCII): 1 + index of the first in the keyword
     * table, chained through kw_next; 0 ends a chain. */
    uint8_t kw_head[128], kw_next[64];
} MimLexer;

void mim_lexer_init(MimLexer *lx, MimWorld *w, MimArena *arena, MimDiag *diag, const char *file,
                    const char *src, size_t len, FILE *md);
void mim_lexer_fini(MimLexer *lx);
MimTok mim_lex(MimLexer *lx);
/* The same, written to *out (e.g. a parser's lookahead slot). */
void mim_lex_to(MimLexer *lx, MimTok *restrict out);

#endif
