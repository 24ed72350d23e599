/* Internal state of the front end shared by fe.c, parser.c, bind.c and
 * ast_print.c (not part of the public front-end API in fe.h). */
#ifndef MIM_FE_FE_IMPL_H
#define MIM_FE_FE_IMPL_H

#include "fe/fe.h"
#include "util/arena.h"
#include "mim/vec.h"

#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

typedef struct MimFeFileRec {
    MimFeFile pub;
    bool has_id; /* dev/ino are valid (not for in-memory text) */
    dev_t dev;
    ino_t ino;
    char *text; /* a skeleton module's source, kept until it is parsed after all
                 * (NULL: not read yet, its stat signature vouched for it) */
    size_t len;
    struct timespec read_at; /* the real-time clock just before the text was read */
    uint64_t pre_read_sig;   /* its stat signature just before that (0: none) */
} MimFeFileRec;

typedef struct MimScopeEntry {
    MimSym sym;
    MimBinder *binder; /* NULL = currently unbound */
    unsigned depth;    /* scope depth where binder was bound */
} MimScopeEntry;

typedef struct MimScopeUndo {
    MimSym sym;        /* the name (slots move when the table grows) */
    MimBinder *binder; /* previous binding */
    unsigned depth;
} MimScopeUndo;

typedef struct MimPluginTags {
    MimSym plugin;
    unsigned num_tags;
} MimPluginTags;

struct MimFe {
    MimWorld *world;
    MimDiag *diag;
    MimArena arena;
    char **paths;
    size_t num_paths;
    bool bootstrap;
    FILE *md;
    unsigned max_depth;
    bool fatal; /* a fatal lexical error happened: stop everything */

    MIM_VEC(MimFeFileRec *) files;  /* in opening order */
    MIM_VEC(MimAstModule *) roots;  /* plugins in order, then the input */
    MIM_VEC(MimSym) root_names;     /* the plugins as named (-p, implicit), opened or not */
    MIM_VEC(MimSym) missing;        /* import/plugin names whose file was not found */
    MIM_VEC(MimAstModule *) order;  /* binding order (after mim_fe_bind) */
    MimAstModule *input;
    bool bound;

    /* binder: one hash table sym -> current binder plus an undo log per scope */
    MimScopeEntry *entries;
    size_t entries_cap, entries_len;
    MIM_VEC(MimScopeUndo) undo;
    MIM_VEC(size_t) scope_marks;
    unsigned scope_depth;

    /* annexes */
    MIM_VEC(MimAnnex *) annexes;
    MIM_VEC(MimPluginTags) plugin_tags;
    MimAnnex **annex_slots; /* open addressing by sym "%p.t" */
    size_t annex_cap;
    /* skeleton (skeleton.c): modules in binding order and their annexes,
     * entered into the binder's tables by mim_bind_modules_ */
    MIM_VEC(MimAstModule *) skel_order;
    MIM_VEC(MimAnnex *) skel_annexes;
    bool materializing; /* opening a skeleton module parses it (mim_fe_materialize) */

    /* streaming the input (mim_fe_stream_input): its declarations' nodes go
     * to `scratch`, reset after each one; the top-level binders moved out
     * of it (parser.c) lose their node links once their declaration is
     * emitted; binding messages wait in `held` until parsing is over, after
     * the parse errors as without streaming */
    MimFeStream stream;
    MimArena scratch;
    MIM_VEC(MimBinder *) stream_binders;
    MimDiag held;
    bool prefix_bound; /* the modules before the input's declarations are bound */
    bool stream_began; /* stream.begin was called */
};

/* fe.c: process an import/plugin directive met while parsing (pre-order). */
MimAstModule *mim_fe_import_(MimFe *fe, MimTokKind kw, MimSym name, MimLoc loc);
/* parser.c: parse a whole module from text. */
MimAstModule *mim_parse_module_(MimFe *fe, const char *path, const char *text, size_t len, FILE *md, bool stream);
/* fe.c: top-level declarations of the streamed module m were parsed (their
 * top-level binders moved out of the scratch arena): bind them and hand
 * them on, in order; then nothing may point into their nodes. */
void mim_fe_stream_decls_(MimFe *fe, MimAstModule *m, MimAstDecl **decls, size_t n);
/* fe.c: file lookup and reading, shared with skeleton.c. */
char *mim_fe_lookup_(const MimFe *fe, const char *name, struct stat *st, bool *found);
MimFeFileRec *mim_fe_find_file_(const MimFe *fe, const struct stat *st);
/* fe.c, for skeleton.c: a file's identity, size and change times as one
 * number (never 0); whether its last change is stamped safely before
 * read_at (the real-time clock when its text was read); whether the file
 * system of path keeps local, nanosecond change times. */
uint64_t mim_fe_stat_signature_(const struct stat *st);
struct timespec mim_fe_now_(void);
bool mim_fe_stamp_settled_(const struct stat *st, struct timespec read_at);
bool mim_fe_local_fs_(const char *path);
/* skeleton.c: frees the sub tables of the skeleton's annexes while they
 * are its own (not yet entered into the binder's tables, which then own
 * them) and forgets them. */
void mim_fe_drop_skel_annexes_(MimFe *fe);
/* Parses skeleton record r now (its module object stays the same). */
MimAstModule *mim_fe_materialize_rec_(MimFe *fe, MimFeFileRec *r);

/* bind.c */
void mim_bind_modules_(MimFe *fe);
/* Streaming: everything parsed before the input's declarations (skeleton,
 * plugins, the input's imports), then one top-level declaration. */
void mim_bind_prefix_(MimFe *fe, MimAstModule *input);
void mim_bind_top_decl_(MimFe *fe, MimAstDecl *d);
void mim_bind_free_(MimFe *fe);
/* Enters an annex record made elsewhere (a skeleton's) into the tables. */
void mim_bind_add_annex_(MimFe *fe, MimAnnex *a);

#endif
