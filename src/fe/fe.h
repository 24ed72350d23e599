/* The Mim front end driver: reads files (input, plugins, imports), parses
 * them into ASTs (ast.h), binds names and numbers annexes. It builds no IR
 * nodes; the emitter (emit.c) walks the bound modules afterwards.
 *
 * Typical use (cli.md §3):
 *     MimFe *fe = mim_fe_new(world, &diag, paths, num_paths, bootstrap);
 *     mim_fe_parse_plugin(fe, "compile");           // implicit / -p plugins
 *     mim_fe_set_md(fe, md_stream);                 // optional --output-md
 *     if (!mim_fe_parse_input(fe, argv_input)) ...  // cannot read: error recorded
 *     if (!mim_fe_bind(fe)) ... print diag, fail
 *     for (i < mim_fe_num_modules(fe)) emit(mim_fe_module(fe, i));
 *     mim_fe_free(fe);
 * All messages go to the MimDiag given at creation, in production order. */
#ifndef MIM_FE_FE_H
#define MIM_FE_FE_H

#include "fe/ast.h"
#include "ir/image.h"
#include "mim/world.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct MimFe MimFe;

/* One opened file, in the order files were first opened (plugins, then the
 * input, each followed by its imports, depth-first pre-order). */
typedef struct MimFeFile {
    const char *name;      /* name used in the directive / -p / command line */
    const char *path;      /* path as opened (for messages and --output-d) */
    bool plugin_requested; /* a non-bootstrap `plugin`/-p asked for its library */
    bool is_input;
    MimAstModule *module;
} MimFeFile;

/* search_paths[0] should be "" (current directory / absolute names); the
 * strings are copied. diag must outlive the MimFe. */
MimFe *mim_fe_new(MimWorld *w, MimDiag *diag, const char *const *search_paths,
                  size_t num_paths, bool bootstrap);
void mim_fe_free(MimFe *fe);

/* Markdown echo (output-format.md §7) of the input file to `md` (NULL = off).
 * Set it before mim_fe_parse_input. */
void mim_fe_set_md(MimFe *fe, FILE *md);

/* Maximum nesting depth of the parser (default 2000). */
void mim_fe_set_max_depth(MimFe *fe, unsigned depth);

/* `plugin name;` for an implicit or -p plugin (outside bootstrap mode this
 * requests the library). Returns the module, or NULL if it was parsed before
 * (then only the request flag is updated) or could not be read (error
 * `cannot read file "<path>"` without location). */
MimAstModule *mim_fe_parse_plugin(MimFe *fe, const char *name);

/* Parse the input file `name` (as given on the command line; looked up like
 * an import, cli.md §2). Returns NULL if it cannot be read (error recorded). */
MimAstModule *mim_fe_parse_input(MimFe *fe, const char *name);

/* Parse source text given in memory as the input (tests). `path` names it in
 * locations. Imports are looked up on the search paths as usual. */
MimAstModule *mim_fe_parse_text(MimFe *fe, const char *path, const char *text, size_t len);

/* Streaming the input (set before mim_fe_parse_input/_text): its top-level
 * declarations are bound as they are parsed and handed to s->decl one at a
 * time, in order, while no error was reported; they are parsed in batches
 * of about 256 KiB of syntax tree, whose memory is reused once s->decl has
 * returned for every declaration of the batch (only their top-level binders
 * stay), so the input's syntax tree costs about one batch plus the
 * declaration that crosses the limit. s->begin comes once
 * before the first s->decl: the modules before the input are parsed and
 * bound (mim_fe_module 0 .. mim_fe_num_modules - 1). Messages keep their
 * order: binding's are held until parsing is over. mim_fe_bind then
 * completes binding; the input module has no decls (and no AST to print).
 * An input without declarations is not streamed (s->begin never comes). */
typedef struct MimFeStream {
    void (*begin)(void *user, MimAstModule *input);
    void (*decl)(void *user, MimAstModule *input, MimAstDecl *d);
    void *user;
} MimFeStream;
void mim_fe_stream_input(MimFe *fe, const MimFeStream *s);

/* Bind all modules: plugins first, then the input's imports, then the input
 * (each module after its imports). Returns true iff no error was reported by
 * the front end so far (lexing, parsing, reading, binding). */
bool mim_fe_bind(MimFe *fe);

/* Errors reported by the front end so far. */
unsigned mim_fe_num_errors(const MimFe *fe);

/* Opened files (for `.import`/`.mim/plugin` lines and --output-d). */
size_t mim_fe_num_files(const MimFe *fe);
const MimFeFile *mim_fe_file(const MimFe *fe, size_t i);

/* Modules in binding (= emission) order, valid after mim_fe_bind. */
size_t mim_fe_num_modules(const MimFe *fe);
MimAstModule *mim_fe_module(const MimFe *fe, size_t i);
MimAstModule *mim_fe_input(const MimFe *fe); /* NULL if none was parsed */

/* Annexes declared in the run, in (plugin first-seen, tag number) order. */
size_t mim_fe_num_annexes(const MimFe *fe);
MimAnnex *mim_fe_annex(const MimFe *fe, size_t i);

/* The 48-bit plugin id << 16 of semantics.md §12.1, or 0 if `name` is not a
 * valid plugin name (1–8 characters of [_a-zA-Z0-9]). */
uint64_t mim_plugin_id(const char *name, size_t len);

/* ---- skeleton modules (skeleton.c, driver/prelude.c) ---- */

/* The plugins of the annexes m's declarations declare (one entry per
 * declaration that declares one; the plugin may be NULL), into out if not
 * NULL; returns their number. Keys prelude images. */
size_t mim_fe_module_annex_plugins(const MimAstModule *m, MimSym *out);
/* Appends the manifest of fe (after binding, n modules covered by a
 * prelude image, then an empty input): false if fe is not of that shape. */
bool mim_fe_write_skeleton(const MimFe *fe, size_t n, MimBytes *out);
/* Before anything was parsed: opens the manifest's files as skeleton
 * modules if every one is found again with the same text, else changes
 * nothing and returns false. num_roots: the implicit/-p plugins named. */
bool mim_fe_read_skeleton(MimFe *fe, MimByteReader *in, const char *const *roots, size_t num_roots);
/* The plugins named to mim_fe_parse_plugin (or a skeleton's), in order. */
size_t mim_fe_num_roots(const MimFe *fe);
const char *mim_fe_root_name(const MimFe *fe, size_t i);
bool mim_fe_has_skeleton(const MimFe *fe);
/* Where `name` is found on the search paths (heap), NULL if nowhere. */
char *mim_fe_lookup_path(const MimFe *fe, const char *name);
/* The path of the first plugin module opened, NULL if none. */
const char *mim_fe_first_root_path(const MimFe *fe);
/* How many modules are skeletons: the first ones in binding order. */
size_t mim_fe_num_skeleton_modules(const MimFe *fe);
/* Parses the skeleton modules after all, as the first parse would have
 * (binding again if fe was bound). */
void mim_fe_materialize(MimFe *fe);

/* --output-ast of the input module (output-format.md §9). */
void mim_fe_print_ast(const MimFe *fe, FILE *out);
void mim_ast_print_module(const MimAstModule *m, FILE *out);
void mim_ast_print_expr(const MimAstExpr *e, FILE *out);

#endif
