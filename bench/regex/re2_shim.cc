// RE2 behind a C interface for bench/regex/bench.c (RE2 has only a C++ API).
#include <re2/re2.h>

extern "C" void *re2_shim_compile(const char *pattern) {
    RE2::Options opt;
    opt.set_log_errors(false);
    RE2 *re = new RE2(pattern, opt);
    if (!re->ok()) {
        delete re;
        return nullptr;
    }
    return re;
}

extern "C" int re2_shim_full_match(void *re, const char *s, size_t len) {
    return RE2::FullMatch(re2::StringPiece(s, len), *static_cast<RE2 *>(re));
}

extern "C" void re2_shim_free(void *re) { delete static_cast<RE2 *>(re); }
