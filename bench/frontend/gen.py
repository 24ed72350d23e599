#!/usr/bin/env python3
"""Generate a large, valid, plugin-free Mim program for the front-end benchmark.

Usage:  gen.py N [--seed S] [--basic] [-o FILE]

N is the number of top-level declarations (axioms included; the result may
exceed N by a few because unreferenced declarations are finally collected by
extra externals).  The output is deterministic for a given (N, seed, --basic).
The first line is a comment `// decls: <count>`.

The program uses only builtins and its own axioms `%bench.*` (no `plugin` or
`import`), so it runs with `mim --bootstrap`.  It mixes:

* direct-style helpers (`lam`, inlined at every full application, hence they
  only ever call axioms or where-local lams: inlining depth stays <= 2),
* dependent and implicit lams (`xs: «n; Nat», i: Idx n`, `«n; «m; Nat»»`,
  `{T: *}` used at Nat, Bool, I8, strings and arrays),
* CPS workers (`fun`, `con`) with long `let` chains, `ret` calls of earlier
  functions, big tuples (20-100 elements; uniform ones fold to packs),
  binder packs, sigma/array parameters, branches and where-blocks,
* `rec` sigmas with field names, mutually recursive `con ... and con ...`,
  loops written as where-local continuations, top-level `let` tables.

Every declaration is reachable from an `extern`: each new function consumes
the oldest not-yet-referenced declarations, and a final extern collects the
rest.  Call depth is bounded (externs are forced when it grows), so the
programs are wide, not deep, and nothing β-reduces without bound.

`--basic` leaves out the rarer constructs (rec sigmas, mutual recursion,
implicit `fun`, binder packs, the Vec axioms) to help isolate a failure.
"""

import argparse
import random
import sys
from collections import deque

# Axioms declared at the top; each counts as one declaration.
AXIOMS = [
    "axm %bench.add: [Nat, Nat] → Nat;",
    "axm %bench.mul: [Nat, Nat] → Nat;",
    "axm %bench.op(plus, sub = minus, times): [Nat, Nat] → Nat;",
    "axm %bench.lt: [Nat, Nat] → Bool;",
    "axm %bench.cast: {T: *} → T → Nat;",
    "axm %bench.idx: [n: Nat, Nat] → Idx n;",
    "axm %bench.Vec: [Nat, *] → *;",
    "axm %bench.mkvec: {T: *} → [n: Nat, T] → %bench.Vec (n, T);",
    "axm %bench.get: {n: Nat} → {T: *} → [%bench.Vec (n, T), Idx n] → T;",
]
NAT_OPS = ["%bench.add", "%bench.mul", "%bench.op.plus", "%bench.op.sub",
           "%bench.op.minus", "%bench.op.times"]

# Callee kinds usable from a direct-style (lam) body; all others need CPS.
LAM_KINDS = {"lam2", "curried", "dep1", "dep2", "impl", "tab", "tab2"}

MAX_REF_DEPTH = 10   # only callees at most this deep are picked at random
MAX_DEPTH = 12       # a function deeper than this is made extern
WINDOW = 300         # random callees come from the most recent declarations
SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


class Callee:
    """A declaration that later code can use; `info` holds shape data."""

    def __init__(self, kind, name, depth, **info):
        self.kind, self.name, self.depth, self.info = kind, name, depth, info


class Chain:
    """A `let`/`ret` chain being written inside one function body."""

    def __init__(self, gen, nat_vars, indent):
        self.gen, self.rng = gen, gen.rng
        self.vars = list(nat_vars)     # names of Nat values in scope
        self.lines = []
        self.indent = indent
        self.next_id = 0

    def fresh(self, prefix="x"):
        self.next_id += 1
        return f"{prefix}{self.next_id}"

    def var(self):
        # Prefer recent values so chains form data dependencies.
        if self.rng.random() < 0.7:
            return self.vars[-1 - self.rng.randrange(min(3, len(self.vars)))]
        return self.rng.choice(self.vars)

    def operand(self):
        return str(self.rng.randrange(1000)) if self.rng.random() < 0.2 else self.var()

    def emit(self, text):
        self.lines.append(" " * self.indent + text)

    def let(self, expr):
        name = self.fresh()
        self.emit(f"let {name} = {expr};")
        self.vars.append(name)
        return name

    def ret(self, callee_expr, arg):
        name = self.fresh()
        self.emit(f"ret {name} = {callee_expr} $ {arg};")
        self.vars.append(name)
        return name

    # -- plain steps (axioms and data only) ---------------------------------

    def axiom_step(self):
        op = self.rng.choice(NAT_OPS)
        self.let(f"{op} ({self.operand()}, {self.operand()})")

    def tuple_of(self, n, uniform):
        if uniform:
            v = self.var()
            return "(" + ", ".join([v] * n) + ")"
        elems = [self.operand() for _ in range(n)]
        if len(set(elems)) == 1:
            elems[-1] = str(1000 + self.rng.randrange(1000))
        return "(" + ", ".join(elems) + ")"

    def big_tuple_step(self):
        g, r = self.gen, self.rng
        n = r.randint(20, 100)
        kind = r.random()
        t = self.fresh("t")
        if kind < 0.35:            # uniform: folds to ‹n; v›, any index gives v
            self.emit(f"let {t} = {self.tuple_of(n, True)};")
            self.let(f"%bench.add ({t}#{g.idx_lit(r.randrange(n), n)}, {self.var()})")
        elif kind < 0.8:           # Nat tuple, unknown index: stays an Extract
            self.emit(f"let {t} = {self.tuple_of(n, False)};")
            self.let(f"%bench.add ({t}#(%bench.idx ({n}, {self.var()})), {self.var()})")
        else:                      # heterogeneous sigma, literal index
            elems = []
            for _ in range(n):
                c = r.random()
                if c < 0.5:
                    elems.append(self.operand())
                elif c < 0.65:
                    elems.append(r.choice(["tt", "ff"]))
                elif c < 0.8:
                    elems.append(f"{r.randrange(256)}I8")
                elif c < 0.9:
                    elems.append(f"'{r.choice('abcxyz')}'")
                else:
                    elems.append(f"{r.randrange(7)}_7")
            self.emit(f"let {t} = ({', '.join(elems)});")
            self.let(f"%bench.cast ({t}#{g.idx_lit(r.randrange(n), n)})")

    def binder_pack_step(self):
        r = self.rng
        n = r.choice([4, 8, 16, 40])       # 40 >= scalarize threshold: stays a pack
        b = self.fresh("p")
        self.emit(f"let {b} = ‹j: {n}; %bench.add (%bench.cast j, {self.var()})›;")
        if n < 32:
            self.let(f"%bench.mul ({b}#{self.gen.idx_lit(r.randrange(n), n)}, {self.var()})")
        else:
            self.let(f"%bench.mul ({b}#(%bench.idx ({n}, {self.var()})), {self.var()})")

    def plain_step(self):
        c = self.rng.random()
        if c < 0.80:
            self.axiom_step()
        elif c < 0.93:
            self.big_tuple_step()
        elif self.gen.advanced:
            self.binder_pack_step()
        else:
            self.axiom_step()

    # -- uses of earlier declarations ---------------------------------------

    def use(self, c):
        g, r = self.gen, self.rng
        u, v = self.var(), self.var()
        k, nm = c.kind, c.name
        if k in ("lam2", "lamx"):
            self.let(f"{nm} ({u}, {v})")
        elif k == "curried":
            self.let(f"{nm} {u} {v}")
        elif k == "dep1":
            n = r.randint(3, 40)
            tup = self.tuple_of(n, r.random() < 0.3)
            idx = g.idx_lit(r.randrange(n), n) if r.random() < 0.6 else f"(%bench.idx ({n}, {u}))"
            self.let(f"{nm} ({n}, {tup}, {idx})")
        elif k == "dep2":
            n, m = r.randint(2, 5), r.randint(2, 5)
            if r.random() < 0.5:
                tbl = f"‹{n}; ‹{m}; {u}› ›"
            else:
                tbl = "(" + ", ".join(self.tuple_of(m, False) for _ in range(n)) + ")"
            self.let(f"{nm} ({n}, {m}, {tbl}, {g.idx_lit(r.randrange(n), n)}, "
                     f"{g.idx_lit(r.randrange(m), m)})")
        elif k == "impl":
            self.use_implicit(nm, u, v)
        elif k == "tab":
            n = c.info["n"]
            self.let(f"%bench.add ({nm}#(%bench.idx ({n}, {u})), {v})")
        elif k == "tab2":
            n, m = c.info["n"], c.info["m"]
            self.let(f"%bench.add ({nm}#(%bench.idx ({n}, {u}))#{g.idx_lit(r.randrange(m), m)}, {v})")
        elif k == "fun2":
            self.ret(nm, f"({u}, {v})")
        elif k == "con1":
            self.ret(nm, u)
        elif k == "dfun":
            n = r.randint(3, 30)
            self.ret(nm, f"({n}, {self.tuple_of(n, False)}, (%bench.idx ({n}, {u})))")
        elif k == "ifun":
            n = r.randint(2, 6)
            self.ret(f"{nm} @ Nat", f"({n}, {self.tuple_of(n, False)}, {g.idx_lit(r.randrange(n), n)})")
        elif k == "sig":
            self.ret(nm, f"({u}, {r.choice(['tt', 'ff'])}, ({u}, {v}, {r.randrange(99)}, {v}))")
        elif k == "sig2":
            self.ret(nm, f"({u}, (({u}, {v}, 1), (2, {v}, {u})))")
        elif k == "vec":
            n = c.info["n"]
            self.ret(nm, f"(%bench.mkvec ({n}, {u}), {g.idx_lit(r.randrange(n), n)})")
        elif k == "getter":
            self.ret(nm, f"({u}, {r.choice(['tt', 'ff'])})")
        else:
            raise AssertionError(k)

    def use_implicit(self, nm, u, v):
        """`first`-like lam `{T: *} (n: Nat, xs: «n; T», i: Idx n): T` at several types."""
        g, r = self.gen, self.rng
        c = r.randrange(6)
        if c == 0:
            self.let(f"{nm} (3, ({u}, {v}, 7), {g.idx_lit(r.randrange(3), 3)})")
        elif c == 1:
            self.let(f"%bench.cast ({nm} (4, (1I8, {r.randrange(256)}I8, 'a', 4I8), {g.idx_lit(r.randrange(4), 4)}))")
        elif c == 2:
            word = "".join(r.choice("abcdefgh") for _ in range(r.randint(2, 12)))
            self.let(f'%bench.cast ({nm} ({len(word)}, "{word}", {g.idx_lit(r.randrange(len(word)), len(word))}))')
        elif c == 3:
            self.let(f"%bench.cast ({nm} (2, (tt, ff), {g.idx_lit(r.randrange(2), 2)}))")
        elif c == 4:
            self.let(f"%bench.add (({nm} (2, (({u}, {v}), ({v}, {u})), 1_2))#0_2, {u})")
        else:
            self.let(f"{nm} @ Nat (3, ({u}, {v}, 9), {g.idx_lit(r.randrange(3), 3)})")

    def build(self, callees, length):
        """Interleave `length` plain steps with the uses of `callees`."""
        slots = sorted(self.rng.randrange(length + 1) for _ in callees)
        ci = 0
        for step in range(length + 1):
            while ci < len(callees) and slots[ci] == step:
                self.use(callees[ci])
                ci += 1
            if step < length:
                self.plain_step()

    def text(self):
        return "\n".join(self.lines)


class Gen:
    def __init__(self, n_decls, seed, advanced):
        self.rng = random.Random(seed)
        self.target = n_decls
        self.advanced = advanced
        self.out = []
        self.count = 0
        self.serial = 0
        self.pending = deque()   # declared but not yet referenced
        self.history = []        # referencable callees, for random extra uses

    # -- helpers --------------------------------------------------------------

    def idx_lit(self, value, size):
        """Index literal `value` of type `Idx size`, in one of its spellings."""
        if self.rng.random() < 0.25:
            return f"{value}{str(size).translate(SUBSCRIPTS)}"
        return f"{value}_{size}"

    def name(self, prefix):
        self.serial += 1
        return f"{prefix}{self.serial}"

    def decl(self, text, count=1):
        if self.rng.random() < 0.05:
            text = f"/// Declaration {self.count + 1}: generated.\n{text}"
        elif self.rng.random() < 0.05:
            text = f"// declaration {self.count + 1} /* not nested */\n{text}"
        self.out.append(text)
        self.count += count

    def chain_length(self):
        r = self.rng.random()
        if r < 0.05:
            return self.rng.randint(30, 80)
        if r < 0.3:
            return self.rng.randint(10, 25)
        return self.rng.randint(2, 9)

    def callees_for(self, cps):
        """Oldest pending declarations usable here, plus some random older ones."""
        chosen = []
        want = self.rng.randint(1, 3)
        skipped = []
        while self.pending and len(chosen) < want and len(skipped) < 16:
            c = self.pending.popleft()
            (chosen if cps or c.kind in LAM_KINDS else skipped).append(c)
        self.pending.extendleft(reversed(skipped))
        for _ in range(self.rng.randint(0, 2)):
            if not self.history:
                break
            c = self.history[-1 - self.rng.randrange(min(WINDOW, len(self.history)))]
            if c.depth <= MAX_REF_DEPTH and (cps or c.kind in LAM_KINDS):
                chosen.append(c)
        self.rng.shuffle(chosen)
        return chosen

    def register(self, c, extern):
        if c.depth <= MAX_REF_DEPTH:
            self.history.append(c)
        if not extern:
            self.pending.append(c)

    def want_extern(self, depth):
        return depth > MAX_DEPTH or len(self.pending) > 40 or self.rng.random() < 0.15

    @staticmethod
    def depth_of(callees):
        return 1 + max((c.depth for c in callees), default=0)

    # -- direct-style declarations -------------------------------------------

    def lam_helper(self):
        nm = self.name("h")
        ch = Chain(self, ["a", "b"], 4)
        for _ in range(self.rng.randint(1, 12)):
            ch.axiom_step()
        if self.rng.random() < 0.3:
            # where-local lams: w1 may use w2 because where-blocks bind in reverse.
            self.decl(f"lam {nm} (a b: Nat): Nat =\n{ch.text()}\n    w1 {ch.var()}\n"
                      f"    where\n"
                      f"        lam w1 (z: Nat): Nat = %bench.add (w2 z, b);\n"
                      f"        lam w2 (z: Nat): Nat = %bench.mul (z, a);\n"
                      f"    end;")
        else:
            self.decl(f"lam {nm} (a b: Nat): Nat =\n{ch.text()}\n    {ch.var()};")
        self.register(Callee("lam2", nm, 1), False)

    def lam_curried(self):
        nm = self.name("cu")
        op = self.rng.choice(NAT_OPS)
        self.decl(f"lam {nm} (a: Nat) (b: Nat): Nat = {op} (a, {op} (b, a));")
        self.register(Callee("curried", nm, 1), False)

    def lam_dep1(self):
        nm = self.name("d")
        self.decl(f"lam {nm} (n: Nat, xs: «n; Nat», i: Idx n): Nat =\n"
                  f"    let y = xs#i;\n    %bench.add (y, n);")
        self.register(Callee("dep1", nm, 1), False)

    def lam_dep2(self):
        nm = self.name("e")
        self.decl(f"lam {nm} (n m: Nat, xs: «n; «m; Nat»», i: Idx n, j: Idx m): Nat =\n"
                  f"    %bench.add (xs#i#j, %bench.mul (n, m));")
        self.register(Callee("dep2", nm, 1), False)

    def lam_implicit(self):
        nm = self.name("first")
        self.decl(f"lam {nm} {{T: *}} (n: Nat, xs: «n; T», i: Idx n): T = xs#i;")
        self.register(Callee("impl", nm, 1), False)

    def let_table(self):
        r = self.rng
        if r.random() < 0.6:
            nm, n = self.name("tb"), r.randint(10, 100)
            elems = [str(r.randrange(10000)) for _ in range(n)]
            elems[0], elems[1] = "1", "2"            # never uniform
            self.decl(f"let {nm} = ({', '.join(elems)});")
            self.register(Callee("tab", nm, 1, n=n), False)
        else:
            nm, n, m = self.name("gb"), r.randint(2, 8), r.randint(2, 8)
            rows = ["(" + ", ".join(str(r.randrange(100)) for _ in range(m)) + ")" for _ in range(n)]
            if r.random() < 0.3:
                rows = [rows[0]] * n                  # uniform rows fold to a pack
            self.decl(f"let {nm} = ({', '.join(rows)});")
            self.register(Callee("tab2", nm, 1, n=n, m=m), False)

    def lam_extern(self):
        callees = self.callees_for(cps=False)
        depth = self.depth_of(callees)
        nm = self.name("l")
        ch = Chain(self, ["a", "b"], 4)
        ch.build(callees, self.chain_length())
        self.decl(f"lam extern {nm} (a b: Nat): Nat =\n{ch.text()}\n    %bench.add ({ch.var()}, a);")
        # Kind "lamx": only CPS code may inline it, so lam inlining stays shallow.
        self.register(Callee("lamx", nm, depth), True)

    # -- CPS declarations -----------------------------------------------------

    def finish(self, ch, ret_call, p0):
        """Last expression of a CPS body: a return, maybe through a where-block."""
        r = self.rng.random()
        x = ch.vars[-1]
        ind = " " * ch.indent
        if r < 0.6:
            return f"{ind}{ret_call} {x}"
        if r < 0.8:
            return (f"{ind}{ret_call} (w1 {x})\n{ind}where\n"
                    f"{ind}    lam w1 (z: Nat): Nat = %bench.add (w2 z, {p0});\n"
                    f"{ind}    lam w2 (z: Nat): Nat = %bench.op.times (z, z);\n{ind}end")
        # A where-block wraps the whole let chain (the chain's final expression is
        # parsed at level Where), so its declarations see parameters, not lets.
        return (f"{ind}(lo, hi)#(%bench.lt ({x}, {p0})) {x}\n{ind}where\n"
                f"{ind}    con hi (r: Nat) = {ret_call} r;\n"
                f"{ind}    con lo (r: Nat) = {ret_call} (%bench.add (r, {p0}));\n{ind}end")

    def cps_worker(self):
        callees = self.callees_for(cps=True)
        depth = self.depth_of(callees)
        ext = self.want_extern(depth)
        ex = "extern " if ext else ""
        is_fun = self.rng.random() < 0.7
        ch = Chain(self, ["a", "b"] if is_fun else ["a"], 4)
        ch.build(callees, self.chain_length())
        if is_fun:
            nm = self.name("f")
            self.decl(f"fun {ex}{nm} (a b: Nat): Nat =\n{ch.text()}\n{self.finish(ch, 'return', 'a')};")
            self.register(Callee("fun2", nm, depth), ext)
        else:
            nm = self.name("c")
            self.decl(f"con {ex}{nm} (a: Nat, k: Cn Nat) =\n{ch.text()}\n{self.finish(ch, 'k', 'a')};")
            self.register(Callee("con1", nm, depth), ext)

    def cps_loop(self):
        """A counting loop as where-local continuations; always extern."""
        callees = self.callees_for(cps=True)
        depth = self.depth_of(callees)
        nm = self.name("loop")
        ch = Chain(self, ["n", "i", "acc"], 20)
        ch.build(callees, self.rng.randint(1, 8))
        self.decl(f"con extern {nm} (n: Nat, done: Cn Nat) =\n"
                  f"    head (0, n)\n"
                  f"    where\n"
                  f"        con head (i acc: Nat) =\n"
                  f"            let more = %bench.lt (i, n);\n"
                  f"            (exit, next)#more ()\n"
                  f"            where\n"
                  f"                con next () =\n{ch.text()}\n"
                  f"                    head (%bench.add (i, 1), {ch.var()});\n"
                  f"                con exit () = done acc;\n"
                  f"            end;\n"
                  f"    end;")
        self.register(Callee("con1", nm, depth), True)

    def fun_dependent(self):
        nm = self.name("df")
        self.decl(f"fun {nm} (n: Nat, xs: «n; Nat», i: Idx n): Nat =\n"
                  f"    let y = xs#i;\n    return (%bench.add (y, n));")
        self.register(Callee("dfun", nm, 1), False)

    def fun_implicit(self):
        nm = self.name("pick")
        self.decl(f"fun {nm} {{T: *}} (n: Nat, xs: «n; T», i: Idx n): T = return (xs#i);")
        self.register(Callee("ifun", nm, 1), False)

    def fun_sigma(self):
        if self.rng.random() < 0.6:
            nm = self.name("s")
            self.decl(f"fun {nm} (p: [Nat, Bool, «4; Nat»]): Nat =\n"
                      f"    let y = p#2_3#1_4;\n"
                      f"    return (%bench.add (p#0_3, %bench.add (y, %bench.cast (p#1_3))));")
            self.register(Callee("sig", nm, 1), False)
        else:
            nm = self.name("m")
            self.decl(f"fun {nm} (p: [Nat, «(2, 3); Nat»]): Nat =\n"
                      f"    return (%bench.mul (p#0_2, p#1_2#1_2#2_3));")
            self.register(Callee("sig2", nm, 1), False)

    def fun_vec(self):
        nm, n = self.name("v"), self.rng.randint(2, 64)
        self.decl(f"fun {nm} (v: %bench.Vec ({n}, Nat), i: Idx {n}): Nat =\n"
                  f"    return (%bench.add (%bench.get (v, i), {n}));")
        self.register(Callee("vec", nm, 1, n=n), False)

    def rec_getter(self):
        ty, nm = self.name("Pair"), self.name("get")
        self.decl(f"rec {ty} = [fst: Nat, snd: Bool];")
        self.decl(f"fun {nm} (p: {ty}): Nat = return (%bench.add (p#fst, %bench.cast (p#snd)));")
        self.register(Callee("getter", nm, 1), False)

    def mutual(self):
        ev, od = self.name("even"), self.name("odd")
        self.decl(f"con {ev} (a: Nat, k: Cn Nat) = {od} (%bench.add (a, 1), k)\n"
                  f"and con {od} (a: Nat, k: Cn Nat) =\n"
                  f"    let c = %bench.lt (a, 100);\n"
                  f"    (fin, again)#c ()\n"
                  f"    where\n"
                  f"        con again () = {ev} (%bench.mul (a, 2), k);\n"
                  f"        con fin () = k a;\n"
                  f"    end;", count=2)
        self.register(Callee("con1", ev, 1), False)

    # -- driver ---------------------------------------------------------------

    def step(self):
        r = self.rng.random()
        basic = [
            (0.14, self.lam_helper), (0.03, self.lam_curried), (0.05, self.lam_dep1),
            (0.03, self.lam_dep2), (0.04, self.lam_implicit), (0.04, self.let_table),
            (0.03, self.lam_extern), (0.04, self.fun_dependent), (0.03, self.fun_sigma),
            (0.04, self.cps_loop),
        ]
        advanced = [(0.02, self.fun_implicit), (0.02, self.fun_vec),
                    (0.02, self.rec_getter), (0.02, self.mutual)]
        for weight, make in basic + (advanced if self.advanced else []):
            if r < weight:
                return make()
            r -= weight
        self.cps_worker()

    def generate(self):
        for a in AXIOMS if self.advanced else AXIOMS[:6]:   # Vec axioms: advanced only
            self.decl(a)
        while self.count < self.target:
            self.step()
        # Collect whatever is still unreferenced into final externals.
        while self.pending:
            batch = [self.pending.popleft() for _ in range(min(8, len(self.pending)))]
            nm = self.name("final")
            ch = Chain(self, ["a", "b"], 4)
            ch.build(batch, 1)
            self.decl(f"fun extern {nm} (a b: Nat): Nat =\n{ch.text()}\n    return {ch.var()};")
        return f"// decls: {self.count}\n" + "\n\n".join(self.out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", type=int, help="number of top-level declarations")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--basic", action="store_true", help="omit the rarer constructs")
    ap.add_argument("-o", "--output", default="-", help="output file ('-' = stdout)")
    args = ap.parse_args()
    text = Gen(max(args.n, len(AXIOMS)), args.seed, not args.basic).generate()
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
