#!/usr/bin/env python3
"""Random patterns for the PCRE2 differential test (tests/lit/regex/pcre2.test).

pcre-gen.py --seed S --count N OUT writes
  OUT.mim      one extern matcher m_K per pattern, built by %regex.pattern:
               m_K(s) = matched + 2 * end (regex.md §4.4 run from position 0)
  OUT-table.c  the patterns as C strings and the table of the m_K
for pcre-harness.c, which compares the full-match results with PCRE2's.

Deterministic: the patterns depend only on the seed (Python's random.Random
is specified to give the same sequence for a seed on every platform). The
patterns use every construct of docs/regex.md "Pattern strings" over the
test alphabet a b 1 space newline (plus c, which no test string contains,
and the literals ] and }, which PCRE reads as characters outside a class);
none matches only the empty string (that is an error by design)."""
import random
import sys

LITERALS = ["a", "b", "1", " ", "c", "\\n", "\\x61", "\\x{62}", "\\ ", "]", "}"]
CLASS_ITEMS = ["a", "b", "1", " ", "c", "a-b", "0-9", " -a", "\\d", "\\s", "\\w", "\\n", "\\D", "-",
               "\\x31-\\x{61}", "\\]", "."]
ESCAPES = ["\\d", "\\w", "\\s", "\\D", "\\W", "\\S"]


# The bytes each class item stands for (PCRE2's ASCII tables; \s includes
# \v and \f): a negated class whose items cover all 256 bytes matches no
# character, a located error by design (docs/regex.md "Pattern strings").
DIGITS = set(range(0x30, 0x3A))
WORD = DIGITS | set(range(0x41, 0x5B)) | set(range(0x61, 0x7B)) | {0x5F}
ITEM_BYTES = {"\\d": DIGITS, "\\D": set(range(256)) - DIGITS, "\\w": WORD,
              "\\s": {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20}, "\\n": {0x0A}, "\\]": {0x5D},
              "a-b": {0x61, 0x62}, "0-9": DIGITS, " -a": set(range(0x20, 0x62)),
              "\\x31-\\x{61}": set(range(0x31, 0x62))}


def item_bytes(item):
    return ITEM_BYTES.get(item, {ord(item)} if len(item) == 1 else set())


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def char_class(self):
        r = self.r
        while True:
            items = []
            for _ in range(r.randint(1, 3)):
                item = r.choice(CLASS_ITEMS)
                if item not in items:
                    items.append(item)
            # a '-' elsewhere than at the end could form a range: keep it last;
            # '[.' would start PCRE's POSIX syntax '[.….]' with a second '.'
            # (there is none after dedupe, but keep '.' off the front anyway)
            items = [i for i in items if i not in ("-", ".")] + [i for i in (".", "-") if i in items]
            negated = r.random() < 0.3
            covered = set().union(*(item_bytes(i) for i in items))
            if not negated or len(covered) < 256:
                return "[" + ("^" if negated else "") + "".join(items) + "]"

    def atom(self, depth):
        r = self.r
        x = r.random()
        if x < 0.40:
            return r.choice(LITERALS)
        if x < 0.50:
            return "."
        if x < 0.65:
            return self.char_class()
        if x < 0.78:
            return r.choice(ESCAPES)
        if depth >= 2:
            return r.choice(LITERALS)
        inner = self.alt(depth + 1, allow_empty=True)
        return ("(" if r.random() < 0.5 else "(?:") + inner + ")"

    def quantifier(self):
        r = self.r
        x = r.random()
        if x < 0.55:
            return ""
        if x < 0.65:
            return "*"
        if x < 0.75:
            return "+"
        if x < 0.85:
            return "?"
        m = r.randint(0, 2)
        kind = r.randint(0, 2)
        if kind == 0:
            return "{%d}" % max(m, 1)
        if kind == 1:
            return "{%d,}" % m
        return "{%d,%d}" % (m, r.randint(max(m, 1), 3))

    def seq(self, depth):
        return "".join(self.atom(depth) + self.quantifier() for _ in range(self.r.randint(1, 3)))

    def alt(self, depth, allow_empty=False):
        r = self.r
        branches = [self.seq(depth) for _ in range(r.randint(1, 3) if r.random() < 0.4 else 1)]
        if allow_empty and r.random() < 0.1:
            branches.insert(r.randint(0, len(branches)), "")
        return "|".join(branches)

    def pattern(self):
        r = self.r
        p = self.alt(0)
        if r.random() < 0.1:
            p = "^" + p
        if r.random() < 0.1:
            p = p + "$"
        return p


def main():
    args = sys.argv[1:]
    seed = int(args[args.index("--seed") + 1])
    count = int(args[args.index("--count") + 1])
    out = args[-1]
    g = Gen(seed)
    pats = [g.pattern() for _ in range(count)]
    with open(out + ".mim", "w") as f:
        f.write("plugin core;\nplugin regex;\nlet S = %mem.Ptr0 «4294967296; I8»;\n")
        for k, p in enumerate(pats):
            mim = p.replace("\\", "\\\\")
            f.write("con extern m_%d(mem: %%mem.M, s: S, return: Cn [%%mem.M, I32]) =\n" % k)
            f.write("    let (m1, ok, stop) = %%regex.pattern \"%s\" (mem, s, 0I32);\n" % mim)
            f.write("    return (m1, %core.wrap.add 0 (%core.conv.u 4294967296 ok, %core.wrap.mul 0 (2I32, stop)));\n")
    with open(out + "-table.c", "w") as f:
        f.write("#include <stddef.h>\n")
        for k in range(count):
            f.write("int m_%d(const char *s);\n" % k)
        f.write("const char *const patterns[] = {\n")
        for p in pats:
            f.write('    "%s",\n' % p.replace("\\", "\\\\"))
        f.write("};\nint (*const matchers[])(const char *) = {\n")
        for k in range(count):
            f.write("    m_%d,\n" % k)
        f.write("};\nconst size_t num_patterns = %d;\n" % count)


if __name__ == "__main__":
    main()
