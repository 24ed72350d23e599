#!/usr/bin/env python3
"""Generates a normalizer-heavy Mim program for the core plugin benchmark.

N functions, each a chain of %core operations on run-time values mixed with
literals, so that every application goes through a normalizer: constant
folding (literal operands), identities (x + 0, x * 1), canonical operand
order (literal moved right), comparisons and bit operations, at widths
I8/I32/I64. Deterministic for a given N and seed. Usage: gen_normalize.py N [SEED]
"""
import random
import sys

n = int(sys.argv[1])
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
types = [("I8", 8), ("I32", 32), ("I64", 64)]
print("plugin core;")
for i in range(n):
    ty, w = rng.choice(types)
    lines = [f"fun extern f{i} (a b: {ty}): {ty} ="]
    cur = "a"
    for k in range(12):
        lit = rng.randrange(0, 1 << min(w, 16))
        op = rng.choice(["wrap.add", "wrap.mul", "wrap.sub", "bit2.and_", "bit2.or_", "bit2.xor_", "fold", "ident"])
        name = f"v{k}"
        if op == "fold":
            expr = f"%core.wrap.add 0 ({lit}:{ty}, {rng.randrange(0, 100)}:{ty})"
        elif op == "ident":
            expr = f"%core.wrap.add 0 (0:{ty}, {cur})"
        elif op.startswith("bit2"):
            expr = f"%core.{op} 0 ({lit}:{ty}, {cur})"
        else:
            other = rng.choice(["b", f"{lit}:{ty}"])
            expr = f"%core.{op} 0 ({other}, {cur})"
        lines.append(f"    let {name} = {expr};")
        cur = name
    lines.append(f"    let c = %core.icmp.ul ({cur}, b);")
    lines.append(f"    return ((a, {cur})#c);")
    print("\n".join(lines))
