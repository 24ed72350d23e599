#!/usr/bin/env python3
"""Generates a Mim program of N functions for the optimizer benchmark.

Every function i is a CPS loop over a tuple-typed accumulator (scalarize,
tail-recursion elimination), with a local continuation called once
(β-reduction), a wrapper around its return continuation (η-reduction) and a
call of function i-1 (call graph of depth N, lam_spec). Usage: gen.py N
"""
import sys

n = int(sys.argv[1])
out = ["plugin core;"]
for i in range(n):
    callee = f"f{i - 1} (x, fwd)" if i > 0 else "return x"
    out.append(f"""fun f{i} (x: Nat): Nat =
    head (0, (x, 1))
    where
        con head (j: Nat, acc: [Nat, Nat]) =
            (body, done)#(%core.ncmp.ge (j, {i % 7 + 3})) ()
            where
                con body () = head (%core.nat.add (j, 1), (%core.nat.add (acc#0_2, j), %core.nat.mul (acc#1_2, 2)));
                con done () = tail (%core.nat.add acc);
            end;
        con tail (y: Nat) = {callee.replace('x', 'y') if i > 0 else 'return y'};
        con fwd (r: Nat) = return r;
    end;""")
out.append(f"fun extern main (x: Nat): Nat = f{n - 1} (x, return);")
print("\n".join(out))
