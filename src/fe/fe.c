/* Front-end driver (see fe.h): file lookup on the search paths (language.md
 * §1, cli.md §2), parse-at-most-once by file identity, the list of opened
 * files, and the entry points for plugins, the input and binding. */
#include "fe/fe_impl.h"

#include "util/suggest.h"
#include "util/sym.h"
#include "mim/xalloc.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#if defined(__linux__)
#include <sys/vfs.h>
#endif

MimFe *mim_fe_new(MimWorld *w, MimDiag *diag, const char *const *search_paths, size_t num_paths,
                  bool bootstrap) {
    MimFe *fe = mim_xcalloc(1, sizeof *fe);
    fe->world = w;
    fe->diag = diag;
    mim_arena_init(&fe->arena);
    mim_arena_init(&fe->scratch);
    mim_diag_init(&fe->held);
    fe->num_paths = num_paths;
    fe->paths = mim_arena_alloc(&fe->arena, (num_paths ? num_paths : 1) * sizeof *fe->paths);
    for (size_t i = 0; i < num_paths; ++i)
        fe->paths[i] = mim_arena_strndup(&fe->arena, search_paths[i], strlen(search_paths[i]));
    fe->bootstrap = bootstrap;
    fe->max_depth = 2000;
    return fe;
}

void mim_fe_free(MimFe *fe) {
    if (!fe) return;
    for (size_t i = 0; i < fe->files.len; ++i) {
        free(fe->files.data[i]->text);
        free(fe->files.data[i]);
    }
    mim_vec_free(&fe->skel_order);
    /* Binding hands the skeleton's annexes to the binder's tables (freed by
     * mim_bind_free_); a front end stopped before (e.g. by a fatal lexer
     * error) still owns them. */
    if (!fe->bound) mim_fe_drop_skel_annexes_(fe);
    mim_vec_free(&fe->skel_annexes);
    mim_vec_free(&fe->files);
    mim_vec_free(&fe->roots);
    mim_vec_free(&fe->root_names);
    mim_vec_free(&fe->missing);
    mim_vec_free(&fe->order);
    mim_bind_free_(fe);
    mim_vec_free(&fe->stream_binders);
    mim_diag_free(&fe->held);
    mim_arena_free(&fe->scratch);
    mim_arena_free(&fe->arena);
    free(fe);
}

void mim_fe_set_md(MimFe *fe, FILE *md) { fe->md = md; }
void mim_fe_set_max_depth(MimFe *fe, unsigned depth) { fe->max_depth = depth ? depth : 1; }

/* ---- plugin ids (semantics.md §12.1) ----------------------------------------- */

static unsigned plugin_char_code(char c) {
    if (c == '_') return 1;
    if (c >= 'a' && c <= 'z') return 2 + (unsigned)(c - 'a');
    if (c >= 'A' && c <= 'Z') return 28 + (unsigned)(c - 'A');
    if (c >= '0' && c <= '9') return 54 + (unsigned)(c - '0');
    return 0;
}

uint64_t mim_plugin_id(const char *name, size_t len) {
    if (len == 0 || len > 8) return 0;
    uint64_t id = 0;
    for (size_t k = 0; k < 8; ++k) {
        unsigned code = 0;
        if (k < len) {
            code = plugin_char_code(name[k]);
            if (!code) return 0;
        }
        id = id << 6 | code;
    }
    return id << 16;
}

/* ---- files --------------------------------------------------------------------- */

static bool has_extension(const char *name) {
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (strcmp(base, ".") == 0 || strcmp(base, "..") == 0) return false;
    const char *dot = strrchr(base, '.');
    return dot && dot != base;
}

static char *join(const char *dir, const char *file) {
    if (!*dir || file[0] == '/') return mim_xstrdup(file);
    size_t d = strlen(dir), f = strlen(file);
    bool slash = dir[d - 1] == '/';
    char *r = mim_xmalloc(d + f + 2);
    memcpy(r, dir, d);
    if (!slash) r[d++] = '/';
    memcpy(r + d, file, f + 1);
    return r;
}

static bool is_regular(const char *path, struct stat *st) {
    return stat(path, st) == 0 && S_ISREG(st->st_mode);
}

/* D/<file>, then D/N/<file> for each search path D; the first regular file
 * wins, else the last candidate tried. *found tells which. Heap result. */
char *mim_fe_lookup_(const MimFe *fe, const char *name, struct stat *st, bool *found) {
    char *file;
    if (has_extension(name)) {
        file = mim_xstrdup(name);
    } else {
        size_t n = strlen(name);
        file = mim_xmalloc(n + 5);
        memcpy(file, name, n);
        memcpy(file + n, ".mim", 5);
    }
    char *last = NULL;
    *found = false;
    size_t np = fe->num_paths ? fe->num_paths : 1;
    for (size_t i = 0; i < np && !*found; ++i) {
        const char *dir = fe->num_paths ? fe->paths[i] : "";
        free(last);
        last = join(dir, file);
        if (is_regular(last, st)) {
            *found = true;
            break;
        }
        char *sub = join(dir, name);
        free(last);
        last = join(sub, file);
        free(sub);
        if (is_regular(last, st)) *found = true;
    }
    free(file);
    return last;
}

MimFeFileRec *mim_fe_find_file_(const MimFe *fe, const struct stat *st) {
    for (size_t i = 0; i < fe->files.len; ++i) {
        MimFeFileRec *r = fe->files.data[i];
        if (r->has_id && r->dev == st->st_dev && r->ino == st->st_ino) return r;
    }
    return NULL;
}

uint64_t mim_fe_stat_signature_(const struct stat *st) {
    uint64_t h = mim_hash_mix(0, (uint64_t)st->st_dev);
    h = mim_hash_mix(h, (uint64_t)st->st_ino);
    h = mim_hash_mix(h, (uint64_t)st->st_size);
    h = mim_hash_mix(h, (uint64_t)st->st_mtim.tv_sec);
    h = mim_hash_mix(h, (uint64_t)st->st_mtim.tv_nsec);
    h = mim_hash_mix(h, (uint64_t)st->st_ctim.tv_sec);
    h = mim_hash_mix(h, (uint64_t)st->st_ctim.tv_nsec);
    return h | 1;
}

struct timespec mim_fe_now_(void) {
    struct timespec t = {0, 0};
    if (timespec_get(&t, TIME_UTC) != TIME_UTC) t.tv_sec = 0, t.tv_nsec = 0;
    return t;
}

/* Local file systems stamp changes with a coarse clock (a scheduler tick,
 * up to 10 ms behind the real-time clock): a change is "before t" only if
 * it is stamped well before. A change time with no nanoseconds is taken
 * for a file system that stores whole seconds (ext4 with small inodes,
 * HFS+, ...), where no slack below a second would do: never settled. */
#define STAMP_SLACK_NS 100000000 /* 100 ms */

bool mim_fe_stamp_settled_(const struct stat *st, struct timespec read_at) {
    struct timespec c = st->st_ctim;
    if (read_at.tv_sec <= 1 || c.tv_nsec == 0 || c.tv_sec > read_at.tv_sec) return false;
    if (c.tv_sec < read_at.tv_sec - 1) return true; /* more than a second before */
    /* read_at.tv_sec - c.tv_sec is 0 or 1: no overflow */
    int64_t gap = (int64_t)(read_at.tv_sec - c.tv_sec) * 1000000000 + (read_at.tv_nsec - c.tv_nsec);
    return gap > STAMP_SLACK_NS;
}

/* File systems whose change times are local, in nanoseconds, and set by
 * every write: network and FUSE file systems (server clocks, attribute
 * caches) and FAT (its "ctime" is the creation time) are not among them. */
bool mim_fe_local_fs_(const char *path) {
#if defined(__linux__)
    struct statfs fs;
    if (statfs(path, &fs) != 0) return false;
    switch ((unsigned long)fs.f_type) {
    case 0xEF53ul:     /* ext2/3/4 */
    case 0x01021994ul: /* tmpfs */
    case 0x58465342ul: /* xfs */
    case 0x9123683Eul: /* btrfs */
    case 0x794C7630ul: /* overlayfs */
    case 0xF2F52010ul: /* f2fs */
        return true;
    default: return false;
    }
#else
    (void)path;
    return false;
#endif
}

static const MimLoc no_loc = {0};


static void request_plugin(MimFe *fe, MimFeFileRec *r, MimTokKind kw) {
    if (kw != MIM_TOK_PLUGIN || fe->bootstrap) return;
    r->pub.plugin_requested = true;
    if (r->pub.module) r->pub.module->plugin_requested = true;
}

static MimAstModule *parse_rec(MimFe *fe, MimFeFileRec *r, const char *text, size_t len, FILE *md) {
    mim_vec_push(&fe->files, r); /* pre-order: listed before its imports */
    bool stream = r->pub.is_input && fe->stream.decl;
    MimAstModule *m = mim_parse_module_(fe, r->pub.path, text, len, md, stream);
    m->name = r->pub.name;
    m->plugin_requested = r->pub.plugin_requested;
    /* Only modules before the input can be covered by a prelude image; the
     * input (possibly megabytes) is not hashed. */
    m->text_hash = r->pub.is_input ? 0 : mim_hash_bytes(text, len);
    m->text_len = len;
    r->pub.module = m;
    return m;
}

/* A skeleton module met while materializing (mim_fe_materialize): parsed
 * now into the same module object, so every link to it stays valid; its
 * own imports are opened (and materialized) as in the first parse. */
MimAstModule *mim_fe_materialize_rec_(MimFe *fe, MimFeFileRec *r) {
    MimAstModule *m = r->pub.module;
    char *text = r->text;
    size_t len = r->len;
    r->text = NULL;
    m->skeleton = false;
    if (!text) { /* vouched for by its stat signature, never read: read now */
        text = mim_read_file(r->pub.path, &len);
        /* Parsed is what was vouched for, or nothing: the run's image key
         * and module order were computed from that text. */
        if (!text || mim_hash_bytes(text, len) != m->text_hash) {
            mim_diag_report(fe->diag, MIM_ERROR, no_loc, "file \"%s\" %s while mim was running", r->pub.path,
                            text ? "changed" : "became unreadable");
            free(text);
            text = mim_xcalloc(1, 1), len = 0;
        }
    }
    MimAstModule *parsed = mim_parse_module_(fe, r->pub.path, text, len, NULL, false);
    free(text);
    m->imports = parsed->imports;
    m->num_imports = parsed->num_imports;
    m->decls = parsed->decls;
    m->num_decls = parsed->num_decls;
    m->top_binders = NULL;
    m->num_top_binders = 0;
    return m;
}

/* An existing record: its module if it is a skeleton to materialize now
 * (the first parse returned the module at this point), else NULL. */
static MimAstModule *existing_module(MimFe *fe, MimFeFileRec *r) {
    return fe->materializing && r->pub.module && r->pub.module->skeleton ? mim_fe_materialize_rec_(fe, r) : NULL;
}

/* The name of a .mim file in a search directory closest to `name` (for
 * "did you mean"), copied into best; false if none is close. */
static bool suggest_module(const MimFe *fe, const char *name, char *best, size_t size) {
    MimSuggest sug;
    mim_suggest_init(&sug, name);
    for (size_t i = 0; i < fe->num_paths; ++i) {
        DIR *dir = opendir(*fe->paths[i] ? fe->paths[i] : ".");
        for (struct dirent *de; dir && (de = readdir(dir));) {
            size_t len = strlen(de->d_name);
            if (len < 5 || len - 4 >= size || strcmp(de->d_name + len - 4, ".mim") != 0) continue;
            char cand[256];
            if (len - 4 >= sizeof cand) continue;
            memcpy(cand, de->d_name, len - 4);
            cand[len - 4] = '\0';
            mim_suggest_offer(&sug, cand);
            if (sug.best == cand) {
                memcpy(best, cand, len - 3);
                sug.best = best;
            }
        }
        if (dir) closedir(dir);
    }
    return sug.best != NULL;
}

/* Opens `name` like an import directive. loc.begin.row == 0: unlocated. */
static MimAstModule *open_module(MimFe *fe, MimTokKind kw, const char *name, MimLoc loc, bool is_input,
                                 MimFeFileRec **existing) {
    *existing = NULL;
    /* The same name was looked up before and found: lookup would find the
     * same file again (it depends only on the name and the search paths), so
     * the file system is not asked again (imports repeat a lot). */
    MimSym sym = mim_world_sym(fe->world, name);
    for (size_t i = 0; i < fe->files.len; ++i) {
        MimFeFileRec *r = fe->files.data[i];
        if (r->has_id && r->pub.name == sym) {
            request_plugin(fe, r, kw);
            *existing = r;
            return existing_module(fe, r);
        }
    }
    struct stat st;
    bool found;
    char *path = mim_fe_lookup_(fe, name, &st, &found);
    if (found) {
        MimFeFileRec *r = mim_fe_find_file_(fe, &st);
        if (r) {
            free(path);
            request_plugin(fe, r, kw);
            *existing = r;
            return existing_module(fe, r);
        }
    }
    size_t len = 0;
    struct timespec read_at = mim_fe_now_();
    char *text = mim_read_file(path, &len);
    if (!text) {
        char best[256];
        bool hint = !is_input && !found && suggest_module(fe, name, best, sizeof best);
        /* A plugin that is nowhere: its name is what the user can act on. */
        if (kw == MIM_TOK_PLUGIN && loc.begin.row) {
            if (hint) mim_diag_report(fe->diag, MIM_ERROR, loc, "cannot open plugin '%s'; did you mean '%s'?", name, best);
            else mim_diag_report(fe->diag, MIM_ERROR, loc, "cannot open plugin '%s'", name);
        } else if (hint) {
            mim_diag_report(fe->diag, MIM_ERROR, loc, "cannot read file \"%s\"; did you mean '%s'?", path, best);
        } else {
            mim_diag_report(fe->diag, MIM_ERROR, loc, "cannot read file \"%s\"", path);
        }
        mim_vec_push(&fe->missing, sym);
        free(path);
        return NULL;
    }
    MimFeFileRec *r = mim_xcalloc(1, sizeof *r);
    r->pub.name = sym;
    r->pub.path = mim_world_sym(fe->world, path);
    r->pub.is_input = is_input;
    r->has_id = found;
    r->dev = st.st_dev;
    r->ino = st.st_ino;
    r->read_at = read_at;
    r->pre_read_sig = found ? mim_fe_stat_signature_(&st) : 0;
    free(path);
    request_plugin(fe, r, kw);
    MimAstModule *m = parse_rec(fe, r, text, len, is_input ? fe->md : NULL);
    free(text);
    return m;
}

MimAstModule *mim_fe_import_(MimFe *fe, MimTokKind kw, MimSym name, MimLoc loc) {
    MimFeFileRec *existing;
    return open_module(fe, kw, name, loc, false, &existing);
}

MimAstModule *mim_fe_parse_plugin(MimFe *fe, const char *name) {
    if (fe->fatal) return NULL;
    mim_vec_push(&fe->root_names, mim_world_sym(fe->world, name));
    MimFeFileRec *existing;
    MimAstModule *m = open_module(fe, MIM_TOK_PLUGIN, name, no_loc, false, &existing);
    if (m) mim_vec_push(&fe->roots, m);
    return m;
}

MimAstModule *mim_fe_parse_input(MimFe *fe, const char *name) {
    if (fe->fatal) return NULL;
    MimFeFileRec *existing;
    MimAstModule *m = open_module(fe, MIM_TOK_IMPORT, name, no_loc, true, &existing);
    if (!m && existing) { /* already parsed as a plugin: it is still the input */
        existing->pub.is_input = true;
        m = existing->pub.module;
        if (m && m->skeleton) mim_fe_materialize(fe); /* the input is emitted from its AST */
    }
    if (m) {
        fe->input = m;
        mim_vec_push(&fe->roots, m);
    }
    return m;
}

MimAstModule *mim_fe_parse_text(MimFe *fe, const char *path, const char *text, size_t len) {
    if (fe->fatal) return NULL;
    MimFeFileRec *r = mim_xcalloc(1, sizeof *r);
    r->pub.name = mim_world_sym(fe->world, path);
    r->pub.path = r->pub.name;
    r->pub.is_input = true;
    MimAstModule *m = parse_rec(fe, r, text, len, fe->md);
    fe->input = m;
    mim_vec_push(&fe->roots, m);
    return m;
}

void mim_fe_stream_input(MimFe *fe, const MimFeStream *s) { fe->stream = *s; }

static bool stream_clean(const MimFe *fe) { return !fe->fatal && !fe->diag->num_errors && !fe->held.num_errors; }

static void stream_decl(MimFe *fe, MimAstModule *m, MimAstDecl *d) {
    bool first = !fe->prefix_bound;
    if (!fe->fatal) { /* else binding does not happen */
        MimDiag *diag = fe->diag;
        fe->diag = &fe->held;
        if (first) mim_bind_prefix_(fe, m);
        mim_bind_top_decl_(fe, d);
        fe->diag = diag;
    }
    if (stream_clean(fe) && (first || fe->stream_began)) {
        if (first) {
            fe->stream_began = true;
            if (fe->stream.begin) fe->stream.begin(fe->stream.user, m);
        }
        fe->stream.decl(fe->stream.user, m, d);
    }
}

void mim_fe_stream_decls_(MimFe *fe, MimAstModule *m, MimAstDecl **decls, size_t n) {
    for (size_t i = 0; i < n; ++i) stream_decl(fe, m, decls[i]);
    /* the declarations' nodes go: the binders that stay must not point to
     * them (emit_ptrn.c compares these links with patterns' addresses) */
    for (size_t i = 0; i < fe->stream_binders.len; ++i) fe->stream_binders.data[i]->node = NULL;
    fe->stream_binders.len = 0;
}

bool mim_fe_bind(MimFe *fe) {
    if (!fe->fatal && !fe->bound) {
        fe->bound = true;
        mim_diag_append(fe->diag, &fe->held);
        mim_bind_modules_(fe);
    }
    return !fe->fatal && fe->diag->num_errors == 0;
}

unsigned mim_fe_num_errors(const MimFe *fe) { return fe->diag->num_errors; }

size_t mim_fe_num_files(const MimFe *fe) { return fe->files.len; }
size_t mim_fe_num_roots(const MimFe *fe) { return fe->root_names.len; }
const char *mim_fe_root_name(const MimFe *fe, size_t i) { return fe->root_names.data[i]; }
const MimFeFile *mim_fe_file(const MimFe *fe, size_t i) { return &fe->files.data[i]->pub; }
size_t mim_fe_num_modules(const MimFe *fe) { return fe->order.len; }
MimAstModule *mim_fe_module(const MimFe *fe, size_t i) { return fe->order.data[i]; }
MimAstModule *mim_fe_input(const MimFe *fe) { return fe->input; }
size_t mim_fe_num_annexes(const MimFe *fe) { return fe->annexes.len; }
MimAnnex *mim_fe_annex(const MimFe *fe, size_t i) { return fe->annexes.data[i]; }

void mim_fe_print_ast(const MimFe *fe, FILE *out) {
    if (fe->input) mim_ast_print_module(fe->input, out);
}
