#!/usr/bin/env python3
"""Random capturing patterns for the PCRE2 differential test of capture
groups (tests/lit/regex/capture-pcre2.test).

pcre-capture-gen.py --seed S --count N OUT writes
  OUT.mim      one extern matcher c_K per pattern, built by
               %regex.capture_pattern: c_K(s, caps) = matched + 2 * end
               (run from position 0), the positions written to caps
  OUT-table.c  the patterns as C strings and the table of the c_K
for pcre-capture-harness.c, which compares the captures with PCRE2's.

The patterns stay where the documented semantics (docs/regex.md, "Capture
groups") are PCRE2's: every alternative of an alternation with two or more
non-empty alternatives is a capturing group (so the order of the
alternatives by their smallest group number is the written order), and an
empty alternative comes last (PCRE2 tries it last, as the optional `r?`
that it becomes), and `*`, `+` and `{m,}` repeat only items that cannot
match the empty string (PCRE2 records a last iteration that matches the
empty string, the tagged DFA does not). Quantifiers, nested and repeated
groups, optional groups that do not take part and bounded repetition are
all generated.
Deterministic: the patterns depend only on the seed."""
import random
import sys

LITERALS = ["a", "b", "c"]
CLASSES = ["[ab]", "[^a]", ".", "[a-c]", "\\w"]
MAX_GROUPS = 9


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.groups = 0

    # Each generator returns (text, nullable): can it match the empty string?
    def atom(self, depth):
        r = self.r
        x = r.random()
        if x < 0.45 or depth >= 2:
            return r.choice(LITERALS), False
        if x < 0.6:
            return r.choice(CLASSES), False
        return self.group(depth)

    def group(self, depth):
        r = self.r
        text, nullable = self.alt(depth + 1)
        if self.groups < MAX_GROUPS and r.random() < 0.75:
            self.groups += 1
            return "(" + text + ")", nullable
        return "(?:" + text + ")", nullable

    def quantifier(self, nullable):
        """A quantifier for an item, and whether the result is nullable."""
        r = self.r
        x = r.random()
        if x < 0.5:
            return "", nullable
        if x < 0.86 and nullable:
            return "?", True
        if x < 0.62:
            return "*", True
        if x < 0.74:
            return "+", False
        if x < 0.86:
            return "?", True
        m = r.randint(0, 2)
        kind = r.randint(0, 2)
        if kind == 0:
            return "{%d}" % max(m, 1), nullable
        if kind == 1 and not nullable:
            return "{%d,}" % m, m == 0
        n = r.randint(max(m, 1), 3)
        return "{%d,%d}" % (m, n), nullable or m == 0

    def seq(self, depth):
        text, nullable = "", True
        for _ in range(self.r.randint(1, 3)):
            a, an = self.atom(depth)
            q, qn = self.quantifier(an)
            text += a + q
            nullable = nullable and qn
        return text, nullable

    def alt(self, depth):
        r = self.r
        if depth >= 2 or r.random() < 0.65 or self.groups + 2 > MAX_GROUPS:
            return self.seq(depth)
        branches, nullable = [], False
        for _ in range(r.randint(2, 3)):
            if self.groups >= MAX_GROUPS:
                break
            text, n = self.seq(depth + 1)
            self.groups += 1
            branches.append("(" + text + ")")
            nullable = nullable or n
        if len(branches) < 2:
            return self.seq(depth) if not branches else (branches[0], nullable)
        if r.random() < 0.15:
            branches.append("")
            nullable = True
        return "|".join(branches), nullable

    def pattern(self):
        while True:  # at most MAX_GROUPS groups (the caps array of the test)
            self.groups = 0
            p, _ = self.alt(0)
            if self.groups <= MAX_GROUPS:
                return p, self.groups


def main():
    args = sys.argv[1:]
    seed = int(args[args.index("--seed") + 1])
    count = int(args[args.index("--count") + 1])
    out = args[-1]
    g = Gen(seed)
    pats = [g.pattern() for _ in range(count)]
    with open(out + ".mim", "w") as f:
        f.write("plugin core;\nplugin regex;\nlet S = %mem.Ptr0 «4294967296; I8»;\n")
        f.write("let Caps = %%mem.Ptr0 «%d; I32»;\n" % (2 * MAX_GROUPS + 2))
        for k, (p, _) in enumerate(pats):
            mim = p.replace("\\", "\\\\")
            f.write("con extern c_%d(mem: %%mem.M, s: S, caps: Caps, return: Cn [%%mem.M, I32]) =\n" % k)
            f.write("    let (m1, ok, stop) = %%regex.capture_pattern \"%s\" (mem, s, 0I32, caps);\n" % mim)
            f.write("    return (m1, %core.wrap.add 0 (%core.conv.u 4294967296 ok, %core.wrap.mul 0 (2I32, stop)));\n")
    with open(out + "-table.c", "w") as f:
        f.write("#include <stddef.h>\n#include <stdint.h>\n")
        for k in range(count):
            f.write("int c_%d(const char *s, int32_t *caps);\n" % k)
        f.write("const char *const patterns[] = {\n")
        for p, _ in pats:
            f.write('    "%s",\n' % p.replace("\\", "\\\\"))
        f.write("};\nconst int groups[] = {")
        f.write(", ".join(str(n) for _, n in pats))
        f.write("};\nint (*const matchers[])(const char *, int32_t *) = {\n")
        for k in range(count):
            f.write("    c_%d,\n" % k)
        f.write("};\nconst size_t num_patterns = %d;\n" % count)


if __name__ == "__main__":
    main()
