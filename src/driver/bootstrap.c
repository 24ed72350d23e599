/* The generated plugin header (cli.md §6.1, format of include/mim/plugin.h):
 * one #define per plugin id, annex base id, sub-tag and alias id, sub-tag
 * count and function-ness, the normalizer prototypes and the table
 * initializer MIM_<P>_NORMALIZERS. Ids follow semantics.md §12. */
#include "driver/bootstrap.h"

#include "mim/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TAGS 256

static bool is_c_ident(const char *s) {
    if (!s || !*s || (*s >= '0' && *s <= '9')) return false;
    for (; *s; ++s)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

/* The emitted node of the first spelling of an axm declaration. */
static MimDef *axm_node(const MimAstDecl *d) {
    if (d->u.axm.num_subs == 0) return d->u.axm.name ? d->u.axm.name->def : NULL;
    const MimAstSub *s = &d->u.axm.subs[0];
    return s->num_names ? s->names[0]->def : NULL;
}

/* IS_FN per tag number: an annex is a function iff it is an axiom whose
 * emitted type is a Pi (cli.md §6.1). `seen[t]` marks tags for which an
 * emitted axiom was found; for the others the syntactic record decides. */
static void collect_fn(const MimFe *fe, const char *plugin, bool *is_fn, bool *seen) {
    for (size_t i = 0, n = mim_fe_num_modules(fe); i < n; ++i) {
        const MimAstModule *m = mim_fe_module(fe, i);
        for (size_t k = 0; k < m->num_decls; ++k) {
            const MimAstDecl *d = m->decls[k];
            const MimAnnex *a = d->kind == MIM_DECL_AXM ? d->u.axm.annex : NULL;
            if (!a || !a->plugin || strcmp(a->plugin, plugin) != 0 || a->tag_num >= MAX_TAGS) continue;
            MimDef *ax = axm_node(d);
            MimDef *type = ax ? mim_def_type(ax) : NULL;
            if (!type) continue;
            seen[a->tag_num] = true;
            if (mim_def_node(type) == MIM_PI) is_fn[a->tag_num] = true;
        }
    }
}

static int by_tag(const void *x, const void *y) {
    const MimAnnex *a = *(const MimAnnex *const *)x, *b = *(const MimAnnex *const *)y;
    return (a->tag_num > b->tag_num) - (a->tag_num < b->tag_num);
}

/* Annexes of `plugin`, sorted by tag; NULL (and *n = 0) if there are none. */
static MimAnnex **plugin_annexes(const MimFe *fe, const char *plugin, size_t *n) {
    size_t total = mim_fe_num_annexes(fe), k = 0;
    MimAnnex **v = total ? mim_xcalloc(total, sizeof *v) : NULL;
    for (size_t i = 0; i < total; ++i) {
        MimAnnex *a = mim_fe_annex(fe, i);
        if (a->plugin && strcmp(a->plugin, plugin) == 0) v[k++] = a;
    }
    if (k) qsort(v, k, sizeof *v, by_tag);
    *n = k;
    return v;
}

static bool check_names(MimAnnex **as, size_t n, FILE *err) {
    for (size_t i = 0; i < n; ++i) {
        const MimAnnex *a = as[i];
        bool ok = is_c_ident(a->tag) && (!a->normalizer || is_c_ident(a->normalizer));
        for (size_t s = 0; ok && s < a->num_subs; ++s) {
            ok = is_c_ident(a->subs[s].name);
            for (size_t k = 0; ok && k < a->subs[s].num_aliases; ++k) ok = is_c_ident(a->subs[s].aliases[k]);
        }
        if (!ok) {
            fprintf(err, "error: annex '%s' has a name that is not a C identifier\n", a->sym);
            return false;
        }
    }
    return true;
}

/* ---- macro name collisions ------------------------------------------------ */

/* `%p.a_b` and `%p.a.b`, or a sub-tag called NUM, would define one macro
 * twice; the header must name every id unambiguously. */
typedef struct Names {
    char **v;
    size_t len, cap;
} Names;

static void add_name(Names *n, const char *a, const char *b) {
    if (n->len == n->cap) {
        n->cap = n->cap ? 2 * n->cap : 64;
        n->v = mim_xrealloc(n->v, n->cap * sizeof *n->v);
    }
    size_t len = strlen(a) + (b ? strlen(b) + 1 : 0) + 1;
    char *s = mim_xmalloc(len);
    snprintf(s, len, b ? "%s_%s" : "%s", a, b ? b : "");
    n->v[n->len++] = s;
}

static int by_str(const void *x, const void *y) {
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static bool check_collisions(MimAnnex **as, size_t n, const char *p, FILE *err) {
    Names names = {0};
    add_name(&names, "ID", NULL), add_name(&names, "NORMALIZERS", NULL);
    add_name(&names, "NUM_NORMALIZERS", NULL);
    for (size_t i = 0; i < n; ++i) {
        const MimAnnex *a = as[i];
        add_name(&names, a->tag, NULL), add_name(&names, a->tag, "NUM"), add_name(&names, a->tag, "IS_FN");
        for (size_t s = 0; s < a->num_subs; ++s) {
            add_name(&names, a->tag, a->subs[s].name);
            for (size_t k = 0; k < a->subs[s].num_aliases; ++k) add_name(&names, a->tag, a->subs[s].aliases[k]);
        }
    }
    qsort(names.v, names.len, sizeof *names.v, by_str);
    bool ok = true;
    for (size_t i = 1; i < names.len && ok; ++i)
        if (strcmp(names.v[i - 1], names.v[i]) == 0) {
            fprintf(err, "error: plugin header: the name MIM_%s_%s is defined twice\n", p, names.v[i]);
            ok = false;
        }
    for (size_t i = 0; i < names.len; ++i) free(names.v[i]);
    free(names.v);
    return ok;
}

/* ---- writing ----------------------------------------------------------------- */

static void write_ids(FILE *out, const char *p, const MimAnnex *a, bool is_fn) {
    fprintf(out, "/* %s */\n", a->sym);
    fprintf(out, "#define MIM_%s_%s 0x%016" PRIx64 "ull\n", p, a->tag, a->base);
    for (size_t s = 0; s < a->num_subs; ++s) {
        const MimAnnexSub *sub = &a->subs[s];
        uint64_t id = a->base | sub->sub;
        fprintf(out, "#define MIM_%s_%s_%s 0x%016" PRIx64 "ull\n", p, a->tag, sub->name, id);
        for (size_t k = 0; k < sub->num_aliases; ++k)
            fprintf(out, "#define MIM_%s_%s_%s 0x%016" PRIx64 "ull\n", p, a->tag, sub->aliases[k], id);
    }
    fprintf(out, "#define MIM_%s_%s_NUM %zu\n", p, a->tag, a->num_subs);
    fprintf(out, "#define MIM_%s_%s_IS_FN %d\n\n", p, a->tag, is_fn ? 1 : 0);
}

/* One prototype per distinct normalizer name, in first-use order. */
static void write_prototypes(FILE *out, MimAnnex **as, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        MimSym norm = as[i]->normalizer;
        if (!norm) continue;
        bool dup = false;
        for (size_t k = 0; k < i && !dup; ++k) dup = as[k]->normalizer && strcmp(as[k]->normalizer, norm) == 0;
        if (!dup) fprintf(out, "MimDef *%s(MimWorld *w, MimDef *type, MimDef *callee, MimDef *arg);\n", norm);
    }
}

/* Returns the number of table entries. */
static size_t write_table(FILE *out, const char *p, MimAnnex **as, size_t n) {
    size_t num = 0;
    fprintf(out, "#define MIM_%s_NORMALIZERS", p);
    for (size_t i = 0; i < n; ++i) {
        const MimAnnex *a = as[i];
        if (!a->normalizer) continue;
        if (a->num_subs == 0) {
            fprintf(out, "%s \\\n    { MIM_%s_%s, %s }", num ? "," : "", p, a->tag, a->normalizer);
            ++num;
        }
        for (size_t s = 0; s < a->num_subs; ++s, ++num)
            fprintf(out, "%s \\\n    { MIM_%s_%s_%s, %s }", num ? "," : "", p, a->tag, a->subs[s].name,
                    a->normalizer);
    }
    fputc('\n', out);
    return num;
}

bool mim_write_plugin_header(const MimFe *fe, const char *plugin, FILE *out, FILE *err) {
    uint64_t pid = mim_plugin_id(plugin, strlen(plugin));
    if (!pid || strcmp(plugin, "_error_") == 0) {
        fprintf(err, "error: '%s' is not a valid plugin name (1 to 8 characters of [_a-zA-Z0-9])\n", plugin);
        return false;
    }
    size_t n;
    MimAnnex **as = plugin_annexes(fe, plugin, &n);
    if (!check_names(as, n, err) || !check_collisions(as, n, plugin, err)) {
        free(as);
        return false;
    }
    bool is_fn[MAX_TAGS] = {false}, seen[MAX_TAGS] = {false};
    collect_fn(fe, plugin, is_fn, seen);

    fprintf(out, "/* Generated by `mim --bootstrap` from %s.mim: do not edit.\n"
                 " * Annex ids of plugin '%s' (semantics.md §12); see mim/plugin.h. */\n",
            plugin, plugin);
    fprintf(out, "#ifndef MIM_PLUGIN_%s_H\n#define MIM_PLUGIN_%s_H\n\n#include \"mim/plugin.h\"\n\n", plugin, plugin);
    fprintf(out, "#define MIM_%s_ID 0x%016" PRIx64 "ull\n\n", plugin, pid);
    for (size_t i = 0; i < n; ++i) {
        const MimAnnex *a = as[i];
        bool fn = a->tag_num < MAX_TAGS && seen[a->tag_num] ? is_fn[a->tag_num] : a->is_axiom && a->is_fn;
        write_ids(out, plugin, a, fn);
    }
    write_prototypes(out, as, n);
    fputc('\n', out);
    size_t num = write_table(out, plugin, as, n);
    fprintf(out, "#define MIM_%s_NUM_NORMALIZERS %zu\n\n#endif\n", plugin, num);
    free(as);
    return !ferror(out);
}
