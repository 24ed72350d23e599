#!/usr/bin/env python3
"""Random disjunctions for tests/lit/regex/disj-rule.test.

disj-gen.py --seed S --count N writes a Mim program with N externals
`lam extern d_K (a b c: RE): RE`, each a random regex whose disjunctions
mix what the normalizer of %regex.disj treats differently (regex.md §3.3):
non-range operands (variables, quantifiers, conjunctions, `%regex.any`),
character ranges that overlap or touch (merged), negated ranges and negated
disjunctions (the complement test), nested disjunctions of any arity
(flattened), repeated operands (made unique) and pattern strings; plus a
few long chains of words. A cleanup rebuilds each normalized disjunction,
a left-nested chain of `disj 2`, through the rewrite rule of disj
(mim/rewrite.h) or, with MIM_APP_RULES=off, level by level.

Deterministic: the program depends only on the seed (Python's
random.Random gives the same sequence for a seed on every platform)."""
import argparse
import random

CHARS = "abcdefgh0123"


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def char(self):
        return "'%s'" % self.r.choice(CHARS)

    def range_(self):
        return "%%regex.range (%s, %s)" % (self.char(), self.char())

    def atom(self):
        r = self.r
        k = r.randrange(12)
        if k < 2:
            return r.choice("abc")
        if k < 4:
            return "%%regex.lit %s" % self.char()
        if k < 6:
            return self.range_()
        if k == 6:
            return r.choice(["%regex.cls.d", "%regex.cls.w", "%regex.cls.s", "%regex.cls.D",
                             "%regex.cls.W", "%regex.cls.S"])
        if k == 7:
            return "%regex.any"
        if k == 8:
            return "%%regex.not_ (%s)" % self.range_()
        if k == 9:
            return '%%regex.pattern "%s"' % r.choice(["ab|c", "[a-c]|d", "a|[^b]", "[0-3a]|e|f", "x|y|z"])
        if k == 10:
            return "%%regex.quant.%s %s" % (r.choice(["star", "plus", "optional"]), r.choice("abc"))
        return "%%regex.conj 2 (%s, %s)" % (r.choice("abc"), self.char_lit())

    def char_lit(self):
        return "%%regex.lit %s" % self.char()

    def expr(self, depth):
        r = self.r
        if depth == 0 or r.random() < 0.35:
            return self.atom()
        k = r.randrange(10)
        if k < 6:
            return self.disj(depth - 1, r.choice([2, 2, 3, 4, 6, 9, 14]))
        if k < 8:
            return "%%regex.not_ (%s)" % self.disj(depth - 1, r.randint(2, 5))
        if k == 8:
            return "%%regex.quant.star (%s)" % self.expr(depth - 1)
        return "%%regex.conj 2 (%s, %s)" % (self.expr(depth - 1), self.expr(depth - 1))

    def disj(self, depth, n):
        ops = []
        for _ in range(n):
            if ops and self.r.random() < 0.15:
                ops.append(self.r.choice(ops))  # a repeated operand
            else:
                ops.append(self.expr(depth))
        return "%%regex.disj %d (%s)" % (n, ", ".join(ops))

    def words(self, n):
        ops = []
        for _ in range(n):
            if self.r.random() < 0.2:
                ops.append(self.atom())
            else:
                w = [self.char_lit() for _ in range(self.r.randint(2, 4))]
                ops.append("%%regex.conj %d (%s)" % (len(w), ", ".join(w)))
        return "%%regex.disj %d (%s)" % (n, ", ".join(ops))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    args = ap.parse_args()
    g = Gen(args.seed)
    print("plugin core;\nplugin regex;\n")
    for k in range(args.count):
        if k % 20 == 19:
            body = g.words(g.r.randint(20, 60))
        else:
            body = g.disj(2, g.r.randint(2, 30))
        print("lam extern d_%d (a b c: RE): RE = %s;" % (k, body))


if __name__ == "__main__":
    main()
