#!/usr/bin/env python3
"""Generates the regex compile-time benchmark programs (bench/regex-compile/run).

gen.py nfa K      -> (a|b)*a(a|b){K}: its DFA has 2^(K+1) states
gen.py words N    -> a disjunction of N distinct words (deterministic)
The program has one extern function `m` that runs the matcher on a C string
and returns 1 if it matched."""
import sys

HEAD = """plugin core;
plugin regex;

let Chars = %mem.Ptr0 «4294967296; I8»;
"""
TAIL = """con extern m(mem: %mem.M, s: Chars, return: Cn [%mem.M, I32]) =
    let (m1, matched, _) = re (mem, s, 0I32);
    return (m1, (0I32, 1I32)#matched);
"""

def ab():
    return "%regex.disj 2 (%regex.lit 'a', %regex.lit 'b')"

def nfa(k):
    parts = ["%regex.quant.star (" + ab() + ")", "%regex.lit 'a'"] + [ab()] * k
    return "let re = %%regex.conj %d (%s);\n" % (len(parts), ", ".join(parts))

def words(n):
    # distinct words of length 6..9 over a-z from a fixed LCG
    x, seen, out = 12345, set(), []
    while len(out) < n:
        x = (x * 1103515245 + 12345) % (1 << 31)
        length = 6 + x % 4
        w = ""
        for _ in range(length):
            x = (x * 1103515245 + 12345) % (1 << 31)
            w += chr(ord('a') + (x >> 16) % 26)
        if w not in seen:
            seen.add(w)
            out.append(w)
    def word(w):
        return "%%regex.conj %d (%s)" % (len(w), ", ".join("%%regex.lit '%s'" % c for c in w))
    return "let re = %%regex.disj %d (%s);\n" % (n, ",\n    ".join(word(w) for w in out)), out

if __name__ == "__main__":
    kind, n = sys.argv[1], int(sys.argv[2])
    body = nfa(n) if kind == "nfa" else words(n)[0]
    sys.stdout.write(HEAD + body + TAIL)
