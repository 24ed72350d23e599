/* Tokens of the Mim surface language (language.md §2): kinds, payloads and
 * their display names as used in syntax errors ("got '<token>'"). Every
 * alternative spelling of a token (`->`/`→`, `lm`/`λ`, `<`/`‹`/`⟨`, ...)
 * maps to one kind here, so the parser never sees spellings. */
#ifndef MIM_FE_TOKEN_H
#define MIM_FE_TOKEN_H

#include "mim/loc.h"

#include <stdbool.h>
#include <stdint.h>

typedef const char *MimSym;

/* X(kind, display name). Keywords are listed with their canonical spelling,
 * which is also how the lexer recognises them (see lexer.c for the extra
 * spellings lm/bot/top/insert). */
#define MIM_TOK_SPECIAL(X)                                                               \
    X(EOF, "<end of file>")                                                              \
    X(ID, "<identifier>")                                                                \
    X(ANNEX, "<annex name>")                                                             \
    X(INT, "<integer literal>")                                                          \
    X(FLOAT, "<floating-point literal>")                                                 \
    X(INDEX, "<index literal>")                                                          \
    X(CHAR, "<character literal>")                                                       \
    X(STRING, "<string literal>")

#define MIM_TOK_PUNCT(X)                                                                 \
    X(LPAREN, "(")                                                                       \
    X(RPAREN, ")")                                                                       \
    X(LBRACKET, "[")                                                                     \
    X(RBRACKET, "]")                                                                     \
    X(LBRACE, "{")                                                                       \
    X(RBRACE, "}")                                                                       \
    X(LPACK, "‹")                                                                        \
    X(RPACK, "›")                                                                        \
    X(LARR, "«")                                                                         \
    X(RARR, "»")                                                                         \
    X(ARROW, "→")                                                                        \
    X(BOT, "⊥")                                                                          \
    X(TOP, "⊤")                                                                          \
    X(STAR, "*")                                                                         \
    X(BOX, "□")                                                                          \
    X(LAMBDA, "λ")                                                                       \
    X(ASSIGN, "=")                                                                       \
    X(COMMA, ",")                                                                        \
    X(SEMI, ";")                                                                         \
    X(COLON, ":")                                                                        \
    X(HASH, "#")                                                                         \
    X(AT, "@")                                                                           \
    X(DOLLAR, "$")                                                                       \
    X(DOT, ".")

#define MIM_TOK_KEYWORDS(X)                                                              \
    X(MODULE, "module")                                                                  \
    X(IMPORT, "import")                                                                  \
    X(PLUGIN, "plugin")                                                                  \
    X(AND, "and")                                                                        \
    X(AS, "as")                                                                          \
    X(AXM, "axm")                                                                        \
    X(LET, "let")                                                                        \
    X(REC, "rec")                                                                        \
    X(RET, "ret")                                                                        \
    X(WHERE, "where")                                                                    \
    X(END, "end")                                                                        \
    X(NAT, "Nat")                                                                        \
    X(IDX, "Idx")                                                                        \
    X(EXTERN, "extern")                                                                  \
    X(TYPE, "Type")                                                                      \
    X(UNIV, "Univ")                                                                      \
    X(CN_TYPE, "Cn")                                                                     \
    X(FN_TYPE, "Fn")                                                                     \
    X(CON, "con")                                                                        \
    X(FUN, "fun")                                                                        \
    X(LAM, "lam")                                                                        \
    X(CCON, "ccon")                                                                      \
    X(CFUN, "cfun")                                                                      \
    X(CN, "cn")                                                                          \
    X(FN, "fn")                                                                          \
    X(FF, "ff")                                                                          \
    X(TT, "tt")                                                                          \
    X(INS, "ins")                                                                        \
    X(i1, "i1")                                                                          \
    X(i8, "i8")                                                                          \
    X(i16, "i16")                                                                        \
    X(i32, "i32")                                                                        \
    X(i64, "i64")                                                                        \
    X(BOOL, "Bool")                                                                      \
    X(I1, "I1")                                                                          \
    X(I8, "I8")                                                                          \
    X(I16, "I16")                                                                        \
    X(I32, "I32")                                                                        \
    X(I64, "I64")

#define MIM_TOK_ENUM_(k, s) MIM_TOK_##k,
typedef enum MimTokKind {
    MIM_TOK_SPECIAL(MIM_TOK_ENUM_) MIM_TOK_PUNCT(MIM_TOK_ENUM_) MIM_TOK_KEYWORDS(MIM_TOK_ENUM_)
    MIM_TOK_NUM_KINDS
} MimTokKind;
#undef MIM_TOK_ENUM_

#define MIM_TOK_FIRST_KEYWORD MIM_TOK_MODULE

typedef struct MimTok {
    MimTokKind kind;
    MimLoc loc; /* first to last character */
    union {
        MimSym sym;        /* ID, ANNEX (text includes the '%') */
        const char *bytes; /* STRING: arena-owned, `len` bytes (may contain NUL) */
        uint64_t u; /* INT: 64-bit payload (signed values two's complement) */
        double f;   /* FLOAT */
        struct {
            uint64_t value, size; /* INDEX and CHAR: value of type Idx size (0 = 2^64) */
        } idx;
    } v;
    uint32_t len;   /* STRING: number of bytes */
    bool is_signed; /* INT/FLOAT: had an explicit sign */
} MimTok;

/* Display name of a token kind: keyword/punctuation spelling or `<...>`. */
const char *mim_tok_kind_str(MimTokKind k);

#endif
