/* Skeleton modules: the front end's state after parsing and binding the
 * standard plugin interfaces, saved by the build next to their prelude
 * image (driver/prelude.c) so that a run whose image covers those modules
 * does not parse them at all.
 *
 * What later stages see of a parsed interface is small: its file record
 * (name, path, identity, whether a `plugin` asked for its library), its
 * import directives (for loading libraries and `.import` lines), its
 * top-level binders (the input binds to them; their nodes come from the
 * image), its annex records (numbering of the input's annexes, emission's
 * checks) and what keys the image. The manifest holds exactly that. A run
 * uses it only if every file it names is found again by the usual lookup
 * with the same text (hash); otherwise, and whenever no image covering the
 * skeleton modules fits after all (a directive of the input changed which
 * libraries are loaded, a damaged image; decided by driver/prelude.c when
 * it loads), the skeleton modules are parsed after all and everything is
 * bound again (mim_fe_materialize), as if they had been parsed from the
 * start. Modules the input opens are parsed as usual, after them.
 *
 * Manifest layout (after the driver's key): records (name, text hash, stat
 * signature or 0, plugin requested), per record its imports (keyword, name, location,
 * record opened for it + 1 or 0), the roots, the binding order, per module
 * in binding order its top binders and annex plugins, the annexes, a final
 * magic. Locations refer to files by record index + 1 (0: no file). */
#include "fe/fe_impl.h"

#include "fe/emit.h"
#include "ir/image.h"
#include "mim/xalloc.h"
#include "util/sym.h"

#include <stdlib.h>
#include <string.h>

#define SKELETON_END 0x4e454c454b53ull /* "SKELEN" */

/* ---- annex plugins (the loaded bits of an image key) ------------------------ */

static MimAnnex *head_annex(const MimAstDecl *d) {
    return d->kind == MIM_DECL_AXM   ? d->u.axm.annex
           : d->kind == MIM_DECL_LET ? d->u.let.annex
           : d->kind == MIM_DECL_REC ? d->u.rec.annex
           : d->kind == MIM_DECL_FUN ? d->u.fun->annex
                                     : NULL;
}

size_t mim_fe_module_annex_plugins(const MimAstModule *m, MimSym *out) {
    if (m->skeleton) {
        if (out && m->num_annex_plugins) memcpy(out, m->annex_plugins, m->num_annex_plugins * sizeof *out);
        return m->num_annex_plugins;
    }
    size_t n = 0;
    for (size_t i = 0; i < m->num_decls; ++i) {
        MimAnnex *a = head_annex(m->decls[i]);
        if (!a) continue;
        if (out) out[n] = a->plugin;
        ++n;
    }
    return n;
}

/* ---- writing ------------------------------------------------------------------ */

typedef MIM_VEC(MimBinder *) BinderList;

static void add_binder(void *user, MimBinder *b) { mim_vec_push((BinderList *)user, b); }

static size_t record_of(const MimFe *fe, const MimAstModule *m) {
    for (size_t i = 0; i < fe->files.len; ++i)
        if (fe->files.data[i]->pub.module == m) return i;
    return (size_t)-1;
}

/* False if the location names a file that is not one of the records. */
static bool put_loc(MimBytes *b, const MimFe *fe, size_t num_recs, MimLoc loc) {
    uint32_t file = 0;
    if (loc.file) {
        size_t i = 0;
        while (i < num_recs && fe->files.data[i]->pub.path != loc.file) ++i;
        if (i == num_recs) return false;
        file = (uint32_t)i + 1;
    }
    mim_bytes_u32(b, file);
    mim_bytes_u32(b, loc.begin.row);
    mim_bytes_u32(b, loc.begin.col);
    mim_bytes_u32(b, loc.end.row);
    mim_bytes_u32(b, loc.end.col);
    return true;
}

/* Binding the walk's binders in order must give the scope binding gave. */
static bool scope_reproduced(const MimFe *fe, const BinderList *walk) {
    size_t live = 0, distinct = 0;
    for (size_t i = 0; i < fe->entries_cap; ++i) {
        const MimScopeEntry *e = &fe->entries[i];
        if (!e->sym || !e->binder) continue;
        ++live;
        const MimBinder *last = NULL;
        for (size_t k = 0; k < walk->len; ++k)
            if (walk->data[k] && !walk->data[k]->anon && walk->data[k]->sym == e->sym) last = walk->data[k];
        if (last != e->binder || e->depth != 0) return false;
    }
    for (size_t k = 0; k < walk->len; ++k) {
        const MimBinder *b = walk->data[k];
        if (!b || b->anon) continue;
        bool first = true;
        for (size_t j = 0; j < k && first; ++j)
            if (walk->data[j] && !walk->data[j]->anon && walk->data[j]->sym == b->sym) first = false;
        distinct += first;
    }
    return live == distinct;
}

/* The stat signature a run may trust instead of reading and hashing the
 * file again, or 0. The signature is the one taken just before the text
 * was read, and the file must be unchanged since (the same signature now),
 * last changed well before the read (a change made while or just after it
 * was read could carry the same time stamp: the "racy file" problem of
 * version control systems), on a file system whose change times can be
 * relied on. */
static uint64_t settled_signature(const MimFeFileRec *r) {
    struct stat st;
    /* the signature covers device and inode: a replaced file differs */
    if (!r->pre_read_sig || stat(r->pub.path, &st) != 0 || mim_fe_stat_signature_(&st) != r->pre_read_sig ||
        !mim_fe_stamp_settled_(&st, r->read_at) || !mim_fe_local_fs_(r->pub.path))
        return 0;
    return r->pre_read_sig;
}

bool mim_fe_write_skeleton(const MimFe *fe, size_t n, MimBytes *out) {
    const MimAstModule *input = fe->input;
    size_t num_recs = fe->files.len ? fe->files.len - 1 : 0;
    /* Only for an empty input that opened nothing: then everything else in
     * the front end came from the n modules. Without warnings: a run that
     * parses them late (mim_fe_materialize) would report them out of order. */
    if (!input || input->num_decls || input->num_imports || n == 0 || fe->order.len != n + 1 ||
        fe->diag->num_warnings ||
        fe->order.data[n] != input || num_recs != n || fe->files.data[num_recs]->pub.module != input)
        return false;
    bool ok = true;
    mim_bytes_u32(out, (uint32_t)num_recs);
    for (size_t i = 0; i < num_recs; ++i) {
        const MimFeFileRec *r = fe->files.data[i];
        if (!r->has_id || !r->pub.module) return false;
        mim_bytes_str(out, r->pub.name);
        mim_bytes_u64(out, r->pub.module->text_hash);
        mim_bytes_u64(out, settled_signature(r));
        mim_bytes_u32(out, r->pub.plugin_requested);
    }
    for (size_t i = 0; i < num_recs; ++i) {
        const MimAstModule *m = fe->files.data[i]->pub.module;
        mim_bytes_u32(out, (uint32_t)m->num_imports);
        for (size_t k = 0; k < m->num_imports; ++k) {
            const MimAstImport *imp = &m->imports[k];
            mim_bytes_u32(out, (uint32_t)imp->tok);
            mim_bytes_str(out, imp->name);
            ok = ok && put_loc(out, fe, num_recs, imp->loc);
            mim_bytes_u32(out, imp->module ? (uint32_t)(record_of(fe, imp->module) + 1) : 0);
        }
    }
    mim_bytes_u32(out, (uint32_t)(fe->roots.len - 1));
    for (size_t i = 0; i + 1 < fe->roots.len; ++i) mim_bytes_u32(out, (uint32_t)record_of(fe, fe->roots.data[i]));
    for (size_t i = 0; i < n; ++i) mim_bytes_u32(out, (uint32_t)record_of(fe, fe->order.data[i]));
    BinderList walk = {0};
    for (size_t i = 0; i < n; ++i) {
        MimAstModule *m = fe->order.data[i];
        size_t first = walk.len;
        mim_emit_top_binders(m, add_binder, &walk);
        mim_bytes_u32(out, (uint32_t)(walk.len - first));
        for (size_t k = first; k < walk.len; ++k) {
            const MimBinder *b = walk.data[k];
            mim_bytes_u32(out, b != NULL);
            if (!b) continue;
            mim_bytes_u32(out, (uint32_t)b->kind);
            mim_bytes_u32(out, b->anon);
            mim_bytes_str(out, b->sym);
            ok = ok && put_loc(out, fe, num_recs, b->loc);
        }
        size_t np = mim_fe_module_annex_plugins(m, NULL);
        MimSym *plugins = mim_xcalloc(np ? np : 1, sizeof *plugins);
        mim_fe_module_annex_plugins(m, plugins);
        mim_bytes_u32(out, (uint32_t)np);
        for (size_t k = 0; k < np; ++k) mim_bytes_str(out, plugins[k]);
        free(plugins);
    }
    ok = ok && scope_reproduced(fe, &walk);
    mim_vec_free(&walk);
    mim_bytes_u32(out, (uint32_t)fe->annexes.len);
    for (size_t i = 0; i < fe->annexes.len; ++i) {
        const MimAnnex *a = fe->annexes.data[i];
        mim_bytes_str(out, a->sym);
        mim_bytes_str(out, a->plugin);
        mim_bytes_str(out, a->tag);
        mim_bytes_u64(out, a->plugin_id);
        mim_bytes_u32(out, a->tag_num);
        mim_bytes_u64(out, a->base);
        mim_bytes_u32(out, a->next_sub);
        mim_bytes_str(out, a->normalizer);
        ok = ok && put_loc(out, fe, num_recs, a->normalizer_loc);
        mim_bytes_u32(out, (uint32_t)a->is_fn | (uint32_t)a->is_axiom << 1 | (uint32_t)a->subless_axiom << 2);
        ok = ok && put_loc(out, fe, num_recs, a->loc);
        mim_bytes_u32(out, (uint32_t)mim_emit_annex_mark(a));
        mim_bytes_u32(out, (uint32_t)a->num_subs);
        for (size_t k = 0; k < a->num_subs; ++k) {
            const MimAnnexSub *s = &a->subs[k];
            mim_bytes_str(out, s->name);
            mim_bytes_u32(out, s->sub);
            mim_bytes_u32(out, (uint32_t)s->num_aliases);
            for (size_t j = 0; j < s->num_aliases; ++j) mim_bytes_str(out, s->aliases[j]);
        }
    }
    mim_bytes_u64(out, SKELETON_END);
    return ok;
}

/* ---- reading ------------------------------------------------------------------ */

typedef struct Reading {
    MimFe *fe;
    MimByteReader *in;
    MimFeFileRec **recs;
    uint32_t num_recs;
} Reading;

/* A count of items of at least `min_bytes` each that the rest can hold. */
static uint32_t read_count(Reading *rd, size_t min_bytes) {
    uint32_t n = mim_read_u32(rd->in);
    if (rd->in->ok && n > (size_t)(rd->in->end - rd->in->p) / min_bytes) rd->in->ok = false;
    return rd->in->ok ? n : 0;
}

static MimLoc read_loc(Reading *rd) {
    MimLoc loc = {0};
    uint32_t file = mim_read_u32(rd->in);
    loc.begin.row = mim_read_u32(rd->in);
    loc.begin.col = mim_read_u32(rd->in);
    loc.end.row = mim_read_u32(rd->in);
    loc.end.col = mim_read_u32(rd->in);
    if (file > rd->num_recs) rd->in->ok = false;
    else if (file) loc.file = rd->recs[file - 1]->pub.path;
    return loc;
}

static MimSym read_sym(Reading *rd) { return mim_read_sym(rd->in, rd->fe->world); }

/* Record i of the manifest, found again where lookup finds it today, with
 * the same text; NULL if not. The same text: the file's stat signature is
 * the one the manifest noted (then it is not read unless it must be parsed
 * after all), or else its text hashes alike. */
static MimFeFileRec *find_record(Reading *rd, MimSym name, uint64_t text_hash, uint64_t signature) {
    MimFe *fe = rd->fe;
    struct stat st;
    bool found = false;
    char *path = name ? mim_fe_lookup_(fe, name, &st, &found) : NULL;
    MimFeFileRec *r = NULL;
    if (found && !mim_fe_find_file_(fe, &st)) {
        size_t len = 0;
        char *text = NULL;
        bool same = signature && mim_fe_stat_signature_(&st) == signature;
        if (!same) {
            text = mim_read_file(path, &len);
            same = text && mim_hash_bytes(text, len) == text_hash;
        }
        if (same) {
            r = mim_xcalloc(1, sizeof *r);
            r->pub.name = name;
            r->pub.path = mim_world_sym(fe->world, path);
            r->has_id = true;
            r->dev = st.st_dev;
            r->ino = st.st_ino;
            r->text = text;
            r->len = len;
        } else {
            free(text);
        }
    }
    free(path);
    return r;
}

static bool read_records(Reading *rd) {
    MimFe *fe = rd->fe;
    rd->num_recs = read_count(rd, 16);
    rd->recs = mim_xcalloc(rd->num_recs ? rd->num_recs : 1, sizeof *rd->recs);
    for (uint32_t i = 0; rd->in->ok && i < rd->num_recs; ++i) {
        MimSym name = read_sym(rd);
        uint64_t hash = mim_read_u64(rd->in), signature = mim_read_u64(rd->in);
        bool requested = mim_read_u32(rd->in) != 0;
        MimFeFileRec *r = rd->in->ok ? find_record(rd, name, hash, signature) : NULL;
        if (!r) return false;
        /* listed at once: a later record of the same file is not the same */
        mim_vec_push(&fe->files, r);
        rd->recs[i] = r;
        MimAstModule *m = mim_arena_alloc(&fe->arena, sizeof *m);
        m->name = name;
        m->path = r->pub.path;
        m->text_hash = hash;
        m->plugin_requested = r->pub.plugin_requested = requested;
        m->skeleton = true;
        r->pub.module = m;
    }
    return rd->in->ok;
}

static void read_imports(Reading *rd) {
    MimFe *fe = rd->fe;
    for (uint32_t i = 0; rd->in->ok && i < rd->num_recs; ++i) {
        MimAstModule *m = rd->recs[i]->pub.module;
        m->num_imports = read_count(rd, 28);
        m->imports = mim_arena_alloc(&fe->arena, (m->num_imports ? m->num_imports : 1) * sizeof *m->imports);
        for (size_t k = 0; rd->in->ok && k < m->num_imports; ++k) {
            MimAstImport *imp = &m->imports[k];
            uint32_t tok = mim_read_u32(rd->in);
            imp->tok = tok == MIM_TOK_PLUGIN ? MIM_TOK_PLUGIN : MIM_TOK_IMPORT;
            if (tok != MIM_TOK_PLUGIN && tok != MIM_TOK_IMPORT) rd->in->ok = false;
            imp->name = read_sym(rd);
            imp->loc = read_loc(rd);
            uint32_t child = mim_read_u32(rd->in);
            if (child > rd->num_recs) rd->in->ok = false;
            else if (child) imp->module = rd->recs[child - 1]->pub.module;
        }
    }
}

/* Record index < num_recs, each module used once in the binding order. */
static MimAstModule *read_module_ref(Reading *rd) {
    uint32_t i = mim_read_u32(rd->in);
    if (i >= rd->num_recs) {
        rd->in->ok = false;
        return NULL;
    }
    return rd->recs[i]->pub.module;
}

static void read_module_tail(Reading *rd, MimAstModule *m) {
    MimFe *fe = rd->fe;
    m->num_top_binders = read_count(rd, 4);
    m->top_binders = mim_arena_alloc(&fe->arena, (m->num_top_binders ? m->num_top_binders : 1) * sizeof *m->top_binders);
    for (size_t k = 0; rd->in->ok && k < m->num_top_binders; ++k) {
        if (!mim_read_u32(rd->in)) continue;
        MimBinder *b = mim_arena_alloc(&fe->arena, sizeof *b);
        uint32_t kind = mim_read_u32(rd->in);
        if (kind > MIM_BINDER_CDECL) rd->in->ok = false;
        b->kind = (MimBinderKind)kind;
        b->anon = mim_read_u32(rd->in) != 0;
        b->sym = read_sym(rd);
        b->loc = read_loc(rd);
        if (!b->sym) rd->in->ok = false;
        m->top_binders[k] = b;
    }
    m->num_annex_plugins = read_count(rd, 4);
    m->annex_plugins = mim_arena_alloc(&fe->arena, (m->num_annex_plugins ? m->num_annex_plugins : 1) * sizeof(MimSym));
    for (size_t k = 0; rd->in->ok && k < m->num_annex_plugins; ++k) m->annex_plugins[k] = read_sym(rd);
}

static void free_annex_subs(MimAnnex *a) {
    for (size_t j = 0; j < a->num_subs; ++j) free(a->subs[j].aliases);
    free(a->subs);
    a->subs = NULL;
    a->num_subs = 0;
}

static void read_annexes(Reading *rd) {
    MimFe *fe = rd->fe;
    uint32_t n = read_count(rd, 40);
    for (uint32_t i = 0; rd->in->ok && i < n; ++i) {
        MimAnnex *a = mim_arena_alloc(&fe->arena, sizeof *a);
        mim_vec_push(&fe->skel_annexes, a);
        a->sym = read_sym(rd);
        a->plugin = read_sym(rd);
        a->tag = read_sym(rd);
        a->plugin_id = mim_read_u64(rd->in);
        a->tag_num = mim_read_u32(rd->in);
        a->base = mim_read_u64(rd->in);
        a->next_sub = mim_read_u32(rd->in);
        a->normalizer = read_sym(rd);
        a->normalizer_loc = read_loc(rd);
        uint32_t flags = mim_read_u32(rd->in);
        a->is_fn = flags & 1, a->is_axiom = flags >> 1 & 1, a->subless_axiom = flags >> 2 & 1;
        a->loc = read_loc(rd);
        mim_emit_set_annex_mark(a, (int)mim_read_u32(rd->in));
        uint32_t num_subs = read_count(rd, 12);
        if (!a->sym || !a->plugin || !a->tag) rd->in->ok = false;
        a->subs = mim_xcalloc(num_subs ? num_subs : 1, sizeof *a->subs);
        for (uint32_t k = 0; rd->in->ok && k < num_subs; ++k) {
            MimAnnexSub *s = &a->subs[a->num_subs++];
            s->name = read_sym(rd);
            s->sub = mim_read_u32(rd->in);
            uint32_t num_aliases = read_count(rd, 4);
            s->aliases = mim_xcalloc(num_aliases ? num_aliases : 1, sizeof *s->aliases);
            for (uint32_t j = 0; rd->in->ok && j < num_aliases; ++j) s->aliases[s->num_aliases++] = read_sym(rd);
        }
    }
}

/* Forgets a skeleton that was not (or no longer is) wanted. */
static void drop_skeleton(MimFe *fe) {
    for (size_t i = 0; i < fe->files.len; ++i) {
        free(fe->files.data[i]->text);
        free(fe->files.data[i]);
    }
    fe->files.len = 0;
    fe->roots.len = 0;
    fe->skel_order.len = 0;
    mim_fe_drop_skel_annexes_(fe);
}

void mim_fe_drop_skel_annexes_(MimFe *fe) {
    for (size_t i = 0; i < fe->skel_annexes.len; ++i) free_annex_subs(fe->skel_annexes.data[i]);
    fe->skel_annexes.len = 0;
}

bool mim_fe_read_skeleton(MimFe *fe, MimByteReader *in, const char *const *roots, size_t num_roots) {
    if (fe->files.len || fe->roots.len || fe->fatal) return false;
    Reading rd = {fe, in, NULL, 0};
    bool ok = read_records(&rd);
    if (ok) read_imports(&rd);
    /* The roots that opened a file (a root opened before as an import of
     * another is no root); the key named all of them. */
    uint32_t nr = in->ok ? read_count(&rd, 4) : 0;
    ok = ok && in->ok && nr <= num_roots;
    for (uint32_t i = 0; ok && i < nr; ++i) {
        MimAstModule *m = read_module_ref(&rd);
        ok = in->ok;
        if (ok) mim_vec_push(&fe->roots, m);
    }
    for (uint32_t i = 0; ok && i < rd.num_recs; ++i) {
        MimAstModule *m = read_module_ref(&rd);
        ok = in->ok && !m->bound;
        if (ok) {
            m->bound = true; /* marks "listed" until the end of reading */
            mim_vec_push(&fe->skel_order, m);
        }
    }
    for (size_t i = 0; ok && i < fe->skel_order.len; ++i) {
        read_module_tail(&rd, fe->skel_order.data[i]);
        ok = in->ok;
    }
    if (ok) read_annexes(&rd);
    ok = ok && in->ok && mim_read_u64(in) == SKELETON_END && in->p == in->end;
    for (size_t i = 0; i < fe->skel_order.len; ++i) fe->skel_order.data[i]->bound = false;
    free(rd.recs);
    if (!ok) drop_skeleton(fe);
    for (size_t i = 0; ok && i < num_roots; ++i) mim_vec_push(&fe->root_names, mim_world_sym(fe->world, roots[i]));
    return ok;
}

/* ---- using it or not --------------------------------------------------------- */

char *mim_fe_lookup_path(const MimFe *fe, const char *name) {
    struct stat st;
    bool found = false;
    char *path = mim_fe_lookup_(fe, name, &st, &found);
    if (!found) {
        free(path);
        return NULL;
    }
    return path;
}

const char *mim_fe_first_root_path(const MimFe *fe) {
    return fe->roots.len ? fe->roots.data[0]->path : NULL;
}

bool mim_fe_has_skeleton(const MimFe *fe) {
    return fe->skel_order.len && fe->skel_order.data[0]->skeleton;
}

size_t mim_fe_num_skeleton_modules(const MimFe *fe) {
    return mim_fe_has_skeleton(fe) ? fe->skel_order.len : 0;
}

void mim_fe_materialize(MimFe *fe) {
    if (!mim_fe_has_skeleton(fe)) return;
    bool was_bound = fe->bound;
    if (was_bound) { /* bind everything again, from the parsed modules */
        mim_bind_free_(fe);
        fe->order.len = 0;
        fe->bound = false;
        for (size_t i = 0; i < fe->files.len; ++i)
            if (fe->files.data[i]->pub.module) fe->files.data[i]->pub.module->bound = false;
    } else {
        mim_fe_drop_skel_annexes_(fe);
    }
    fe->skel_annexes.len = 0;
    /* In the order of the first parse: roots first, each depth-first. */
    fe->materializing = true;
    size_t num_files = fe->files.len;
    for (size_t i = 0; i < num_files; ++i) {
        MimFeFileRec *r = fe->files.data[i];
        if (r->pub.module && r->pub.module->skeleton) mim_fe_materialize_rec_(fe, r);
    }
    fe->materializing = false;
    fe->skel_order.len = 0;
    if (was_bound) mim_fe_bind(fe);
}
