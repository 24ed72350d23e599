/* From LLVM IR to running code (docs/cli.md): --output-obj and --output-exe
 * run the C compiler (-c/--clang, default clang-14) on the `ll` back end's
 * output; --run compiles it in process with LLVM's ORC JIT, which lives in
 * the optional module libmim-jit.so (built when LLVM's C API is found),
 * opened only by runs that use it. */
#ifndef MIM_DRIVER_NATIVE_H
#define MIM_DRIVER_NATIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The C compiler when -c/--clang is not given. */
#define MIM_DEFAULT_CC "clang-14"

/* Compiles the LLVM IR `ir` (len bytes) with the C compiler `cc` at -O<opt>
 * into `out`: an object file if `object`, else an executable linked with
 * the extra arguments `links` (C sources, objects, -l options). False with
 * a message on err if the compiler cannot be run or fails. */
bool mim_native_compile(const char *cc, const char *ir, size_t len, const char *out, bool object, long opt,
                        const char *const *links, size_t num_links, FILE *err);

/* The JIT module's entry point (src/jit/jit.c): compiles the LLVM IR in
 * process and calls its `int main(int, char **)` with argc/argv; true with
 * main's result in *exit_code, or false with a message in msg. */
typedef bool (*MimJitRunFn)(const char *ir, size_t len, int argc, char **argv, int *exit_code, char *msg,
                            size_t msg_size);
#define MIM_JIT_ENTRY "mim_jit_run"
#define MIM_JIT_LIBRARY "libmim-jit.so"

/* Finds libmim-jit.so along the search paths (not the current directory,
 * paths[0]) and runs the IR as mim_jit_run does; without it, the C compiler
 * `cc` builds a temporary executable at -O<opt> that runs as a child
 * process. False with a message on err if that fails before main runs. */
bool mim_native_run(const char *ir, size_t len, int argc, char **argv, const char *const *paths,
                    size_t num_paths, const char *cc, long opt, int *exit_code, FILE *err);

#endif
