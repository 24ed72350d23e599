#!/usr/bin/env python3
"""capture-vs-plain.py GEN: adds to GEN.mim and GEN-table.c (written by
pcre-gen.py) a capturing matcher k_K = %regex.capture_pattern of the same
pattern beside each m_K = %regex.pattern, and their table, for
capture-vs-plain.c (tests/lit/regex/capture-plain.test)."""
import sys

gen = sys.argv[1]
lines = open(gen + ".mim").read().split("\n")
out, count, i = lines[:3], 0, 3
while i < len(lines):
    if lines[i].startswith("con extern m_"):
        head, call, ret = lines[i:i + 3]
        out += [head, call, ret]
        out += [head.replace("con extern m_", "con extern k_").replace("return: Cn", "caps: %mem.Ptr0 «⊤:Nat; I32», return: Cn"),
                call.replace("%regex.pattern", "%regex.capture_pattern").replace("(mem, s, 0I32)", "(mem, s, 0I32, caps)"),
                ret]
        count += 1
        i += 3
    else:
        i += 1
open(gen + ".mim", "w").write("\n".join(out) + "\n")
with open(gen + "-table.c", "a") as f:
    f.write("".join("int k_%d(const char *s, int *caps);\n" % k for k in range(count)))
    f.write("int (*const cmatchers[])(const char *, int *) = {\n")
    f.write("".join("    k_%d,\n" % k for k in range(count)))
    f.write("};\n")
