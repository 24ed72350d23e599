// A C++ embedder: the public headers are usable from C++ (extern "C").
#include <mim/session.h>
#include <mim/world.h>

#include <cstdio>
#include <cstring>

int main() {
    const char *program = "plugin core;\nlam extern f (n: Nat): Nat = %core.nat.add (0, n);\n";
    MimSession *s = mim_session_new(nullptr, 0);
    bool ok = mim_session_source(s, "cpp.mim", program, std::strlen(program)) && mim_session_build(s);
    if (ok) mim_world_print(mim_session_world(s), stdout);
    else mim_session_print_diag(s, stderr);
    mim_session_free(s);
    std::printf("c++ embedder: %s\n", ok ? "ok" : "failed");
    return ok ? 0 : 1;
}
