# lit configuration for the Mim test suite: .mim files with RUN/CHECK lines.
import os
import lit.formats

config.name = "mim"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mim", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)

build = lit_config.params.get("build", os.path.join(config.test_source_root, "..", "..", "build"))
llvm_bin = lit_config.params.get("llvm_bin", "/usr/lib/llvm-14/bin")
config.test_exec_root = os.path.join(build, "lit")

config.substitutions.append(("%mim-prelude", os.path.join(build, "bin", "mim-prelude")))
config.substitutions.append(("%mim", os.path.join(build, "bin", "mim")))
config.substitutions.append(("%plugdir", os.path.join(build, "lib", "mim")))
config.substitutions.append(("%plugins", os.path.join(config.test_source_root, "..", "..", "plugins")))
config.environment["PATH"] = os.pathsep.join([llvm_bin, os.path.join(build, "bin"), config.environment.get("PATH", "/usr/bin:/bin")])
for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "HOME", "MIM_REGEX_LOWERING"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.environment.pop("MIM_PLUGIN_PATH", None)
# The LLVM back end's tests compile the emitted .ll with clang 14 and run it.
config.substitutions.append(("%clang", lit_config.params.get("clang", "clang-14")))
# The build directory itself (unit-test binaries, the install test).
config.substitutions.append(("%build", build))
# `mim --run` needs the JIT module, built when LLVM's C API was found.
if os.path.exists(os.path.join(build, "lib", "mim", "libmim-jit.so")):
    config.available_features.add("jit")
# regex/pcre2.test compares %regex.pattern with PCRE2: it needs libpcre2-dev
# (its pcre2-config), else lit reports it unsupported.
import shutil
if shutil.which("pcre2-config"):
    config.available_features.add("pcre2")
