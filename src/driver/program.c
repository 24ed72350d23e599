/* Loading directive libraries and emitting a parsed program (program.h). */
#include "driver/program.h"

#include "driver/prelude.h"

void mim_program_load_directives(MimFe *fe, bool (*load)(void *user, const char *name, MimLoc loc),
                                 void *user) {
    for (size_t i = 0, n = mim_fe_num_files(fe); i < n; ++i) {
        const MimAstModule *m = mim_fe_file(fe, i)->module;
        for (size_t k = 0; m && k < m->num_imports; ++k) {
            const MimAstImport *imp = &m->imports[k];
            if (imp->tok == MIM_TOK_PLUGIN && imp->name) load(user, imp->name, imp->loc);
        }
    }
}

static bool hook_loaded(void *reg, MimSym plugin) { return mim_registry_is_loaded(reg, plugin); }

static MimNormalizer hook_normalizer(void *reg, uint64_t id) { return mim_registry_normalizer(reg, id); }

bool mim_program_emit(MimWorld *w, MimFe *fe, MimRegistry *reg, bool load_prelude,
                      bool write_prelude, FILE *err) {
    MimEmitHooks hooks = {hook_loaded, hook_normalizer, reg};
    size_t n = mim_fe_num_modules(fe);
    size_t first = load_prelude ? mim_prelude_load(w, fe, reg) : 0;
    if (first == MIM_PRELUDE_BROKEN) return false;
    for (size_t i = first; i < n; ++i) {
        if (write_prelude && i + 1 == n && !mim_prelude_write(w, fe, reg, i, err)) return false;
        if (!mim_emit_module_with(w, mim_fe_module(fe, i), &hooks) || mim_world_has_error(w)) return false;
    }
    return true;
}


static void stream_begin(void *user, MimAstModule *input) {
    MimProgramStream *s = user;
    s->began = true;
    for (size_t i = 0, n = mim_fe_num_modules(s->fe); i < n && !s->failed; ++i)
        s->failed = !mim_emit_module_with(s->w, mim_fe_module(s->fe, i), &s->hooks) || mim_world_has_error(s->w);
    mim_emit_stream_begin(&s->emit, s->w, input, &s->hooks, input->text_len);
}

static void stream_decl(void *user, MimAstModule *input, MimAstDecl *d) {
    (void)input;
    MimProgramStream *s = user;
    if (!s->failed) mim_emit_stream_decl(&s->emit, d);
}

void mim_program_stream(MimProgramStream *s, MimWorld *w, MimFe *fe, MimRegistry *reg) {
    *s = (MimProgramStream){.w = w, .fe = fe, .hooks = {hook_loaded, hook_normalizer, reg}};
    mim_fe_stream_input(fe, &(MimFeStream){stream_begin, stream_decl, s});
}

bool mim_program_stream_end(MimProgramStream *s) {
    return !s->failed && mim_emit_stream_end(&s->emit) && !mim_world_has_error(s->w);
}
