"""Random program generator of the differential tests (tests/diff/README.md).

gen(seed, count) makes `count` random functions. Each is emitted twice:
as a Mim `con extern f_K(mem, x0, x1, x2, x3: I64, out, return)` that stores
every value it computes into out[j] (ints zero-extended to I64, floats as bit
patterns), and as C code `r_K(x, out, r)` over the reference semantics of
ref.h. The Mim file also holds the *folded* copies `g_K_J(mem, out, return)`
of each function, with the inputs written as literals (so the normalizers
fold at compile time); their inputs are listed in the C file. The C file has
the driver `main`, which calls everything and prints one line per mismatch.

Values: Idx s of many sizes (1, Bool, powers of two, and sizes that are no
power of two, standard width or not), Nat, F32 and F64. Operations: every
%core operation and mode (wrap modes on overflow give poison: such outputs
are skipped), guarded division and shifts, conversions, comparisons and
merged comparisons, selections from pairs and from n-tuples with an Idx n
index, loops, memory slots and arrays, and the %math operations.
"""
import random

SIZES_STD = [2, 256, 65536, 2**32, 0]
SIZES_ODD = [1, 3, 5, 10, 16, 100, 200, 1000, 4096, 65535, 65537, 2**31 + 11, 2**33 + 5, 2**40, 2**62 + 1, 2**63 + 3]
ICMP = ['xygle', 'xyglE', 'xygLe', 'xygLE', 'xyGle', 'xyGlE', 'xyGLe', 'xyGLE', 'xYgle', 'xYglE', 'xYgLe', 'xYgLE',
        'xYGle', 'xYGlE', 'xYGLe', 'xYGLE', 'Xygle', 'XyglE', 'XygLe', 'XygLE', 'XyGle', 'XyGlE', 'XyGLe', 'XyGLE',
        'XYgle', 'XYglE', 'XYgLe', 'XYgLE', 'XYGle', 'XYGlE', 'XYGLe', 'XYGLE']
BIT2 = ['f', 'nor', 'nciff', 'nfst', 'niff', 'nsnd', 'xor_', 'nand', 'and_', 'nxor', 'snd', 'iff', 'fst', 'ciff', 'or_', 't']
BIT1 = ['f', 'neg', 'id', 't']
WRAP = ['add', 'sub', 'mul', 'shl']
DIV = ['sdiv', 'udiv', 'srem', 'urem']
EXTREMA = ['umin', 'umax', 'smin', 'smax']
FCMP = ['ugle', 'uglE', 'ugLe', 'ugLE', 'uGle', 'uGlE', 'uGLe', 'uGLE', 'Ugle', 'UglE', 'UgLe', 'UgLE', 'UGle', 'UGlE',
        'UGLe', 'UGLE']
ARITH = ['add', 'sub', 'mul', 'div', 'rem']
FEXT = ['fmin', 'fmax', 'ieee754min', 'ieee754max']
UNARY = ['tri.sin', 'tri.cos', 'tri.tan', 'tri.sinh', 'tri.cosh', 'tri.tanh', 'tri.asin', 'tri.acos', 'tri.atan',
         'tri.asinh', 'tri.acosh', 'tri.atanh', 'rt.sq', 'rt.cb', 'exp.exp', 'exp.exp2', 'exp.exp10', 'exp.log',
         'exp.log2', 'exp.log10', 'er.f', 'er.fc', 'gamma.t', 'gamma.l', 'abs', 'round.f', 'round.c', 'round.r',
         'round.t']
NCMP = ['f', 'e', 'l', 'le', 'g', 'ge', 'ne', 't']

# input pools (shared with the C driver's edge values)
INT_EDGES = [0, 1, 2, 3, 5, 7, 8, 9, 10, 63, 64, 99, 100, 127, 128, 199, 200, 255, 256, 999, 1000, 4095, 32767, 32768,
             65535, 65536, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**33 + 4, 2**40 - 1, 2**62, 2**63 - 1, 2**63, 2**63 + 2,
             2**64 - 1, 2**64 - 2, 2**64 - 128, 2**64 - 2**31, 2**64 - 2**32]
F64_EDGES = [0x0000000000000000, 0x8000000000000000, 0x3FF0000000000000, 0xBFF0000000000000, 0x3FE0000000000000,
             0x4004000000000000, 0xC00E000000000000, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
             0x0000000000000001, 0x7FEFFFFFFFFFFFFF, 0x43E0000000000000, 0xC3E0000000000000, 0x4059000000000000,
             0x3FB999999999999A, 0x41DFFFFFFFC00000, 0xC1E0000000000000, 0x40F0000000000000, 0x4060000000000000]
F32_EDGES = [0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x3F000000, 0x40200000, 0xC0700000, 0x7F800000,
             0xFF800000, 0x7FC00000, 0x00000001, 0x7F7FFFFF, 0x5F000000, 0xDF000000, 0x42C80000, 0x3DCCCCCD,
             0x4F000000, 0xCF000000, 0x47800000, 0x43000000]


def ty_mim(t):
    k, s = t
    if k == 'I': return '(Idx %d)' % s
    if k == 'N': return 'Nat'
    return '%%math.F%d' % s


def pick_input(rng):
    r = rng.random()
    if r < 0.45: return rng.choice(INT_EDGES)
    if r < 0.6: return rng.choice(F64_EDGES)
    if r < 0.75: return rng.choice(F32_EDGES) | (rng.choice([0, 0, 2**32 - 1]) << 32)
    if r < 0.9: return rng.randrange(0, 300)
    return rng.getrandbits(64)


class Stmt:
    """One value: `mim` is a function of (params, mem) returning (lines, mem,
    closing) where closing is text appended after the rest (loops nest)."""

    def __init__(self, j, ty, deps):
        self.j, self.ty, self.deps = j, ty, deps
        self.float_zero_open = False


class Fn:
    def __init__(self, rng, k, nstmts):
        self.rng, self.k = rng, k
        self.stmts = []
        self.helpers = []
        for _ in range(nstmts):
            self.add()

    # ---- picking operands --------------------------------------------------
    def vals(self, pred):
        return [s for s in self.stmts if pred(s.ty)]

    def operand(self, ty):
        """An existing value of type ty (recent ones preferred) or a new leaf."""
        c = self.vals(lambda t: t == ty)
        if c and self.rng.random() < 0.75:
            return self.rng.choice(c[-6:] if self.rng.random() < 0.6 else c)
        return self.leaf(ty)

    def any_int(self):
        c = self.vals(lambda t: t[0] == 'I')
        if c and self.rng.random() < 0.8: return self.rng.choice(c)
        return self.leaf(('I', self.size()))

    def size(self):
        r = self.rng.random()
        return self.rng.choice(SIZES_STD) if r < 0.6 else self.rng.choice(SIZES_ODD)

    def new(self, ty, deps, mim, c, mem=False):
        st = Stmt(len(self.stmts), ty, deps)
        st.mim, st.c, st.mem = mim, c, mem
        self.stmts.append(st)
        return st

    def leaf(self, ty):
        rng = self.rng
        k, s = ty
        i = rng.randrange(4)
        if k == 'I':
            if rng.random() < 0.25:
                v = rng.choice([0, 1, 2, s - 1 if s else 2**64 - 1, (s // 2) if s else 2**63, rng.randrange(s) if s else rng.getrandbits(64)])
                v = v % s if s else v
                return self.new(ty, [], lambda P: '%d:(Idx %d)' % (v, s), 'lit(UINT64_C(%d))' % v)
            conv = rng.choice(['s', 'u'])
            c = 'r_convs(0, UINT64_C(%d), lit(x[%d]))' % (s, i) if conv == 's' else 'r_convu(UINT64_C(%d), lit(x[%d]))' % (s, i)
            return self.new(ty, [], lambda P: '%%core.conv.%s %d %s' % (conv, s, P[i]), c)
        if k == 'N':
            return self.new(ty, [], lambda P: '%%core.bitcast Nat %s' % P[i], 'lit(x[%d])' % i)
        if s == 64:
            return self.new(ty, [], lambda P: '%%core.bitcast %%math.F64 %s' % P[i], 'r_fin64(x[%d])' % i)
        return self.new(ty, [], lambda P: '%%core.bitcast %%math.F32 (%%core.conv.u 4294967296 %s)' % P[i],
                        'r_fin32(x[%d])' % i)

    # ---- statements ----------------------------------------------------------
    def add(self):
        rng = self.rng
        r = rng.random()
        if r < 0.10: return self.leaf(rng.choice([('I', self.size())] * 4 + [('F', 64), ('F', 32), ('N', 0)]))
        if r < 0.55: return self.int_op()
        if r < 0.63: return self.cmp_op()
        if r < 0.70: return self.select_op()
        if r < 0.74: return self.mem_op()
        if r < 0.77: return self.loop_op()
        if r < 0.785: return self.branch_op()
        if r < 0.80: return self.call_op()
        if r < 0.82: return self.nat_op()
        return self.float_op()

    def int_op(self):
        rng = self.rng
        a = self.any_int()
        s = a.ty[1]
        T = a.ty
        kind = rng.choice(['wrap'] * 4 + ['minus', 'shr', 'bit1', 'bit2', 'bit2', 'extrema', 'div', 'div', 'abs', 'conv', 'conv', 'f2i'])
        if kind == 'wrap':
            sub = rng.randrange(4)
            mode = rng.choice([0, 0, 0, 0, 1, 2, 3])
            b = self.operand(T) if sub != 3 else self.shift_amount(T)
            return self.new(T, [a, b], lambda P: '%%core.wrap.%s %d (v%d, v%d)' % (WRAP[sub], mode, a.j, b.j),
                            'r_wrap(%d, UINT64_C(%d), %d, v%d, v%d)' % (sub, s, mode, a.j, b.j))
        if kind == 'minus':
            mode = rng.choice([0, 0, 1, 2])
            return self.new(T, [a], lambda P: '%%core.minus %d v%d' % (mode, a.j),
                            'r_wrap(1, UINT64_C(%d), %d, lit(0), v%d)' % (s, mode, a.j))
        if kind == 'shr':
            sub = rng.randrange(2)
            b = self.shift_amount(T)
            return self.new(T, [a, b], lambda P: '%%core.shr.%s (v%d, v%d)' % ('al'[sub], a.j, b.j),
                            'r_shr(%d, UINT64_C(%d), v%d, v%d)' % (1 - sub, s, a.j, b.j))
        if kind == 'bit1':
            sub = rng.randrange(4)
            return self.new(T, [a], lambda P: '%%core.bit1.%s 0 v%d' % (BIT1[sub], a.j),
                            'r_bit1(%d, UINT64_C(%d), v%d)' % (sub, s, a.j))
        if kind == 'bit2':
            sub = rng.randrange(16)
            b = self.operand(T)
            return self.new(T, [a, b], lambda P: '%%core.bit2.%s 0 (v%d, v%d)' % (BIT2[sub], a.j, b.j),
                            'r_bit2(%d, UINT64_C(%d), v%d, v%d)' % (sub, s, a.j, b.j))
        if kind == 'extrema':
            sub = rng.randrange(4)
            b = self.operand(T)
            return self.new(T, [a, b], lambda P: '%%core.extrema.%s (v%d, v%d)' % (EXTREMA[sub], a.j, b.j),
                            'r_extrema(%d, UINT64_C(%d), v%d, v%d)' % (sub, s, a.j, b.j))
        if kind == 'div':
            if s == 1: return self.int_op()
            sub = rng.randrange(4)
            b = self.operand(T)
            # guard: divisor 0 -> 1; signed MIN / -1 -> dividend 0
            g = self.new(T, [b], lambda P: '(v%d, 1:(Idx %d))#(%%core.icmp.e (v%d, 0:(Idx %d)))' % (b.j, s, b.j, s),
                         '(v%d.v == 0 ? mk(1, v%d.p) : v%d)' % (b.j, b.j, b.j))
            d = a
            if sub in (0, 2) and (s == 0 or (s & (s - 1)) == 0):
                mn = 2**63 if s == 0 else s // 2
                ones = 2**64 - 1 if s == 0 else s - 1
                d = self.new(T, [a, g], lambda P: '(v%d, 0:(Idx %d))#(%%core.bit2.and_ 0 (%%core.icmp.e (v%d, %d:(Idx %d)), %%core.icmp.e (v%d, %d:(Idx %d))))'
                             % (a.j, s, a.j, mn, s, g.j, ones, s),
                             '(v%d.v == UINT64_C(%d) && v%d.v == UINT64_C(%d) ? mk(0, v%d.p | v%d.p) : v%d)' % (a.j, mn, g.j, ones, a.j, g.j, a.j))
            return self.new(T, [d, g], lambda P: ('%%core.div.%s' % DIV[sub], 'v%d' % d.j, 'v%d' % g.j),
                            'r_div(r, %d, UINT64_C(%d), v%d, v%d)' % (sub, s, d.j, g.j), mem='div')
        if kind == 'abs':
            return self.new(T, [a], lambda P: ('%core.abs', 'v%d' % a.j), 'r_abs(UINT64_C(%d), v%d)' % (s, a.j), mem='abs')
        if kind == 'conv':
            ds = self.size()
            sub = rng.randrange(2)
            if sub == 0:
                return self.new(('I', ds), [a], lambda P: '%%core.conv.s %d v%d' % (ds, a.j),
                                'r_convs(UINT64_C(%d), UINT64_C(%d), v%d)' % (s, ds, a.j))
            return self.new(('I', ds), [a], lambda P: '%%core.conv.u %d v%d' % (ds, a.j), 'r_convu(UINT64_C(%d), v%d)' % (ds, a.j))
        # float to int
        f = self.operand(rng.choice([('F', 64), ('F', 32)]))
        ds = rng.choice([2, 256, 65536, 2**32, 0])
        sg = rng.randrange(2)
        get = 'gd' if f.ty[1] == 64 else 'gf'
        return self.new(('I', ds), [f], lambda P: '%%math.conv.%s %d v%d' % ('f2s' if sg else 'f2u', ds, f.j),
                        'r_f2i(r, %d, UINT64_C(%d), %s(v%d), v%d.p)' % (sg, ds, get, f.j, f.j))

    def shift_amount(self, T):
        """A shift amount below the width the operation is computed in."""
        s = T[1]
        b = self.operand(T)
        w = 64 if s == 0 else (s - 1).bit_length()
        if w in (1, 8, 16, 32, 64):
            m = w - 1
        elif s <= 64:
            return b
        else:
            m = 63
        return self.new(T, [b], lambda P: '%%core.bit2.and_ 0 (v%d, %d:(Idx %d))' % (b.j, m, s),
                        'r_bit2(8, UINT64_C(%d), v%d, lit(%d))' % (s, b.j, m))

    def cmp_op(self):
        rng = self.rng
        a = self.any_int()
        T, s = a.ty, a.ty[1]
        b = self.operand(T)
        ra = rng.randrange(32)
        if rng.random() < 0.5:
            return self.new(('I', 2), [a, b], lambda P: '%%core.icmp.%s (v%d, v%d)' % (ICMP[ra], a.j, b.j),
                            'r_icmp(%d, UINT64_C(%d), v%d, v%d)' % (ra, s, a.j, b.j))
        rb = rng.randrange(32)
        op = rng.randrange(16)
        mim = lambda P: '%%core.bit2.%s 0 (%%core.icmp.%s (v%d, v%d), %%core.icmp.%s (v%d, v%d))' % (
            BIT2[op], ICMP[ra], a.j, b.j, ICMP[rb], a.j, b.j)
        c = 'r_bit2(%d, 2, r_icmp(%d, UINT64_C(%d), v%d, v%d), r_icmp(%d, UINT64_C(%d), v%d, v%d))' % (
            op, ra, s, a.j, b.j, rb, s, a.j, b.j)
        return self.new(('I', 2), [a, b], mim, c)

    def select_op(self):
        rng = self.rng
        T = rng.choice([t.ty for t in self.stmts] or [('I', 256)])
        if rng.random() < 0.5:
            c = self.operand(('I', 2))
            x, y = self.operand(T), self.operand(T)
            return self.new(T, [c, x, y], lambda P: '(v%d, v%d)#v%d' % (x.j, y.j, c.j),
                            'r_sel(r, v%d, (V[]){v%d, v%d})' % (c.j, x.j, y.j))
        n = rng.randrange(2, 6)
        xs = [self.operand(T) for _ in range(n)]
        k = self.any_int()
        ks = ', '.join('v%d' % x.j for x in xs)
        return self.new(T, xs + [k], lambda P: '(%s)#(%%core.conv.u %d v%d)' % (ks, n, k.j),
                        'r_sel(r, r_convu(%d, v%d), (V[]){%s})' % (n, k.j, ks))

    def mem_op(self):
        rng = self.rng
        T = rng.choice([t.ty for t in self.stmts] or [('I', 65536)])
        if rng.random() < 0.4:
            a = self.operand(T)
            return self.new(T, [a], lambda P: ('slot', T, 'v%d' % a.j), 'v%d' % a.j, mem='slot')
        n = rng.randrange(2, 6)
        xs = [self.operand(T) for _ in range(n)]
        k = self.any_int()
        ks = ', '.join('v%d' % x.j for x in xs)
        return self.new(T, xs + [k], lambda P: ('array', T, ['v%d' % x.j for x in xs], 'v%d' % k.j),
                        'r_sel(r, r_convu(%d, v%d), (V[]){%s})' % (n, k.j, ks), mem='array')

    def loop_op(self):
        rng = self.rng
        a = self.any_int()
        T, s = a.ty, a.ty[1]
        e = self.operand(T) if rng.random() < 0.5 else None
        op = rng.choice([0, 1, 2, 6])  # add, sub, mul, xor
        i = rng.randrange(4)
        st = self.new(T, [a] + ([e] if e else []), None, None, mem='loop')
        st.loop = (a, e, op, i, s)
        return st

    # binary operations used inside branches and helper functions: (Mim, C)
    def small_op(self, T, x, y):
        s = T[1]
        k = self.rng.randrange(4)
        if k == 0:
            sub = self.rng.randrange(3)
            return ('%%core.wrap.%s 0 (%s, %s)' % (WRAP[sub], x, y), 'r_wrap(%d, UINT64_C(%d), 0, %%s, %%s)' % (sub, s))
        if k == 1:
            sub = self.rng.randrange(16)
            return ('%%core.bit2.%s 0 (%s, %s)' % (BIT2[sub], x, y), 'r_bit2(%d, UINT64_C(%d), %%s, %%s)' % (sub, s))
        if k == 2:
            sub = self.rng.randrange(4)
            return ('%%core.extrema.%s (%s, %s)' % (EXTREMA[sub], x, y), 'r_extrema(%d, UINT64_C(%d), %%s, %%s)' % (sub, s))
        return ('(%s, %s)#(%%core.icmp.%s (%s, %s))' % (x, y, ICMP[self.rng.randrange(32)], x, y), None)

    def branch_op(self):
        """if c then x op1 y else x op2 y, through continuations and a join."""
        a = self.any_int()
        T = a.ty
        b = self.operand(T)
        c = self.operand(('I', 2))
        ops = []
        for _ in range(2):
            o = self.small_op(T, 'v%d' % a.j, 'v%d' % b.j)
            while o[1] is None: o = self.small_op(T, 'v%d' % a.j, 'v%d' % b.j)
            ops.append(o)
        st = self.new(T, [a, b, c], None, None, mem='branch')
        st.branch = (a, b, c, ops)
        return st

    def call_op(self):
        """A call of a helper function h(x, y) = x op y (a `lam` or a `fun`)."""
        a = self.any_int()
        T = a.ty
        b = self.operand(T)
        o = self.small_op(T, 'x', 'y')
        while o[1] is None: o = self.small_op(T, 'x', 'y')
        name = 'h_%d_%d' % (self.k, len(self.stmts))
        kind = self.rng.choice(['lam', 'fun'])
        if kind == 'lam':
            d = 'lam %s (x: %s, y: %s): %s = %s;' % (name, ty_mim(T), ty_mim(T), ty_mim(T), o[0])
        else:
            d = 'fun %s (x: %s, y: %s): %s = return (%s);' % (name, ty_mim(T), ty_mim(T), ty_mim(T), o[0])
        self.helpers.append(d)
        if kind == 'fun':  # a CPS call: ret v = h $ (a, b);
            return self.new(T, [a, b], lambda P: (name, 'v%d' % a.j, 'v%d' % b.j), o[1] % ('v%d' % a.j, 'v%d' % b.j), mem='ret')
        return self.new(T, [a, b], lambda P: '%s (v%d, v%d)' % (name, a.j, b.j), o[1] % ('v%d' % a.j, 'v%d' % b.j))

    def nat_op(self):
        rng = self.rng
        a, b = self.operand(('N', 0)), self.operand(('N', 0))
        if rng.random() < 0.3:  # %core.idx s m n: n mod s (mode 0), else ⊥ (poison) when n ≥ s
            s = self.size()
            m = rng.choice([0, 0, 1])
            return self.new(('I', s), [a], lambda P: '%%core.idx %d %d v%d' % (s, m, a.j),
                            'r_idx(UINT64_C(%d), %d, v%d)' % (s, m, a.j))
        if rng.random() < 0.6:
            sub = rng.randrange(3)
            return self.new(('N', 0), [a, b], lambda P: '%%core.nat.%s (v%d, v%d)' % (['add', 'sub', 'mul'][sub], a.j, b.j),
                            'r_nat(%d, v%d, v%d)' % (sub, a.j, b.j))
        sub = rng.randrange(8)
        return self.new(('I', 2), [a, b], lambda P: '%%core.ncmp.%s (v%d, v%d)' % (NCMP[sub], a.j, b.j),
                        'r_ncmp(%d, v%d, v%d)' % (sub, a.j, b.j))

    def float_op(self):
        rng = self.rng
        bits = rng.choice([64, 32])
        T = ('F', bits)
        a = self.operand(T)
        kind = rng.choice(['arith', 'arith', 'ext', 'pow', 'un', 'un', 'un', 'cmp', 'i2f', 'f2f', 'bits', 'helper'])
        sfx = '64' if bits == 64 else '32'
        # mode 4 = nsz: the sign of a zero result is open (ref.h r_nsz)
        mode = rng.choice([0, 0, 0, 4])
        if kind == 'arith':
            sub = rng.randrange(5)
            b = self.operand(T)
            return self.new(T, [a, b], lambda P: '%%math.arith.%s %d (v%d, v%d)' % (ARITH[sub], mode, a.j, b.j),
                            'r_nsz%s(%d, r_arith%s(%d, v%d, v%d))' % (sfx, mode, sfx, sub, a.j, b.j))
        if kind == 'ext':
            sub = rng.randrange(4)
            b = self.operand(T)
            return self.new(T, [a, b], lambda P: '%%math.extrema.%s %d (v%d, v%d)' % (FEXT[sub], mode, a.j, b.j),
                            'r_nsz%s(%d, r_fext%s(%d, v%d, v%d))' % (sfx, mode, sfx, sub, a.j, b.j))
        if kind == 'helper':  # the Mim-defined %math.minus, sgn, rrt, slf (math.md §2)
            k = rng.randrange(4)
            name = ['minus', 'sgn', 'rrt', 'slf'][k]
            return self.new(T, [a], lambda P: '%%math.%s 0 v%d' % (name, a.j), 'r_mhelp%s(%d, v%d)' % (sfx, k, a.j))
        if kind == 'pow':
            b = self.operand(T)
            return self.new(T, [a, b], lambda P: '%%math.pow 0 (v%d, v%d)' % (a.j, b.j), 'r_pow%s(v%d, v%d)' % (sfx, a.j, b.j))
        if kind == 'un':
            k = rng.randrange(len(UNARY))
            return self.new(T, [a], lambda P: '%%math.%s 0 v%d' % (UNARY[k], a.j), 'r_un%s(%d, v%d)' % (sfx, k, a.j))
        if kind == 'cmp':
            sub = rng.randrange(16)
            b = self.operand(T)
            return self.new(('I', 2), [a, b], lambda P: '%%math.cmp.%s 0 (v%d, v%d)' % (FCMP[sub], a.j, b.j),
                            'r_fcmp%s(%d, v%d, v%d)' % (sfx, sub, a.j, b.j))
        if kind == 'i2f':
            x = self.any_int()
            sg = rng.randrange(2)
            return self.new(T, [x], lambda P: '%%math.conv.%s %%math.f%d v%d' % ('s2f' if sg else 'u2f', bits, x.j),
                            'r_i2f(%d, UINT64_C(%d), %d, v%d)' % (sg, x.ty[1], bits, x.j))
        if kind == 'f2f':
            o = 32 if bits == 64 else 64
            return self.new(('F', o), [a], lambda P: '%%math.conv.f2f %%math.f%d v%d' % (o, a.j), 'r_f2f(%d, v%d)' % (o, a.j))
        ds = 0 if bits == 64 else 2**32
        return self.new(('I', ds), [a], lambda P: '%%core.bitcast (Idx %d) v%d' % (ds, a.j), 'r_f2bits(%d, v%d)' % (bits, a.j))


# ---- emission ----------------------------------------------------------------

def closure(stmts, roots):
    keep = set()
    todo = list(roots)
    while todo:
        s = todo.pop()
        if s.j in keep: continue
        keep.add(s.j)
        todo.extend(s.deps)
    return [s for s in stmts if s.j in keep]


def out_expr(st):
    k, s = st.ty
    v = 'v%d' % st.j
    if k == 'I': return '%%core.conv.u 0 %s' % v if s != 0 else v
    if k == 'N': return '%%core.bitcast (Idx 0) %s' % v
    if s == 64: return '%%core.bitcast (Idx 0) %s' % v
    return '%%core.conv.u 0 (%%core.bitcast (Idx 4294967296) %s)' % v


def emit_body(stmts, outs, P, ind='    '):
    """Mim body: lets, memory operations, nested loops, then the stores."""
    lines, closers = [], []
    mem = 'mem'
    n = len(outs)
    for st in stmts:
        if st.mem is False:
            lines.append('%slet v%d = %s;' % (ind, st.j, st.mim(P)))
        elif st.mem in ('div', 'abs'):
            name, a, b = st.mim(P) if st.mem == 'div' else st.mim(P) + (None,)
            arg = '(%s, %s)' % (a, b) if b else a
            lines.append('%slet (m%d, v%d) = %s (%s, %s);' % (ind, st.j, st.j, name, mem, arg))
            mem = 'm%d' % st.j
        elif st.mem == 'slot':
            _, T, a = st.mim(P)
            lines.append('%slet (ms%d, p%d) = %%mem.slot (%s, 0) (%s, %d);' % (ind, st.j, st.j, ty_mim(T), mem, st.j))
            lines.append('%slet mt%d = %%mem.store (ms%d, p%d, %s);' % (ind, st.j, st.j, st.j, a))
            lines.append('%slet (m%d, v%d) = %%mem.load (mt%d, p%d);' % (ind, st.j, st.j, st.j, st.j))
            mem = 'm%d' % st.j
        elif st.mem == 'array':
            _, T, xs, k = st.mim(P)
            nn = len(xs)
            A = '%%mem.lea (%d, ‹%d; %s›, 0)' % (nn, nn, ty_mim(T))
            lines.append('%slet (ms%d, p%d) = %%mem.slot («%d; %s», 0) (%s, %d);' % (ind, st.j, st.j, nn, ty_mim(T), mem, st.j))
            m = 'ms%d' % st.j
            for e, x in enumerate(xs):
                lines.append('%slet ms%d_%d = %%mem.store (%s, %s (p%d, %d:(Idx %d)), %s);' % (ind, st.j, e, m, A, st.j, e, nn, x))
                m = 'ms%d_%d' % (st.j, e)
            lines.append('%slet (m%d, v%d) = %%mem.load (%s, %s (p%d, %%core.conv.u %d %s));' % (ind, st.j, st.j, m, A, st.j, nn, k))
            mem = 'm%d' % st.j
        elif st.mem == 'ret':
            name, a, b = st.mim(P)
            lines.append('%sret v%d = %s $ (%s, %s);' % (ind, st.j, name, a, b))
        elif st.mem == 'branch':
            a, b, c, ops = st.branch
            j = st.j
            T = ty_mim(st.ty)
            lines.append('%s(else%d, then%d)#v%d %s' % (ind, j, j, c.j, mem))
            lines.append('%swhere' % ind)
            lines.append('%s    con then%d(tm%d: %%mem.M) = join%d (tm%d, %s);' % (ind, j, j, j, j, ops[0][0]))
            lines.append('%s    con else%d(em%d: %%mem.M) = join%d (em%d, %s);' % (ind, j, j, j, j, ops[1][0]))
            lines.append('%s    con join%d(m%d: %%mem.M, r%d: %s) =' % (ind, j, j, j, T))
            closers.append((ind, None))
            ind = ind + '        '
            lines.append('%slet v%d = r%d;' % (ind, j, j))
            mem = 'm%d' % j
        else:  # loop: acc = init; for i < (x_i mod 8): acc = acc op e (or op i)
            a, e, op, i, s = st.loop
            T = ty_mim(st.ty)
            j = st.j
            cnt = '%%core.conv.u 4294967296 (%%core.conv.u 8 %s)' % P[i]
            e_txt = 'v%d' % e.j if e else '%%core.conv.u %d ctr%d' % (s, j)
            opname = {0: '%core.wrap.add 0', 1: '%core.wrap.sub 0', 2: '%core.wrap.mul 0', 6: '%core.bit2.xor_ 0'}[op]
            lines.append('%sloop%d (%s, 0I32, v%d)' % (ind, j, mem, a.j))
            lines.append('%swhere' % ind)
            lines.append('%s    con loop%d(lm%d: %%mem.M, ctr%d: I32, acc%d: %s) =' % (ind, j, j, j, j, T))
            lines.append('%s        (exit%d, body%d)#(%%core.icmp.ul (ctr%d, %s)) lm%d' % (ind, j, j, j, cnt, j))
            lines.append('%s        where' % ind)
            lines.append('%s            con body%d(bm%d: %%mem.M) = loop%d (bm%d, %%core.wrap.add 0 (ctr%d, 1I32), %s (acc%d, %s));'
                         % (ind, j, j, j, j, j, opname, j, e_txt))
            lines.append('%s            con exit%d(m%d: %%mem.M) =' % (ind, j, j))
            closers.append((ind, j))
            ind = ind + '                '
            lines.append('%slet v%d = acc%d;' % (ind, j, j))
            mem = 'm%d' % j
    A = '%%mem.lea (%d, ‹%d; I64›, 0)' % (n, n)
    for e, st in enumerate(outs):
        lines.append('%slet mo%d = %%mem.store (%s, %s (out, %d:(Idx %d)), %s);' % (ind, e, mem, A, e, n, out_expr(st)))
        mem = 'mo%d' % e
    lines.append('%sreturn %s;' % (ind, mem))
    for cind, j in reversed(closers):
        if j is not None: lines.append('%s        end;' % cind)
        lines.append('%send;' % cind)
    return '\n'.join(lines)


def c_body(stmts, outs):
    lines = []
    for st in stmts:
        if st.mem == 'loop':
            a, e, op, i, s = st.loop
            j = st.j
            et = 'v%d' % e.j if e else 'r_convu(UINT64_C(%d), lit(ii))' % s
            fn = 'r_bit2(6, UINT64_C(%d), acc, %s)' % (s, et) if op == 6 else 'r_wrap(%d, UINT64_C(%d), 0, acc, %s)' % (op, s, et)
            lines.append('    V v%d; { V acc = v%d; for (uint64_t ii = 0; ii < x[%d] %% 8; ++ii) acc = %s; v%d = acc; }' % (j, a.j, i, fn, j))
        elif st.mem == 'branch':
            a, b, c, ops = st.branch
            x, y = 'v%d' % a.j, 'v%d' % b.j
            lines.append('    if (v%d.p) r->ub = 1;' % c.j)
            lines.append('    V v%d = v%d.v ? %s : %s;' % (st.j, c.j, ops[0][1] % (x, y), ops[1][1] % (x, y)))
        else:
            lines.append('    V v%d = %s;' % (st.j, st.c))
    for e, st in enumerate(outs):
        lines.append('    out[%d] = v%d;' % (e, st.j))
    return '\n'.join(lines)


def kind_code(st):
    """0 = integer (exact), 64/32 = float (NaNs equal)."""
    return 0 if st.ty[0] != 'F' else st.ty[1]


def mim_fn(name, stmts, outs, P, params):
    n = len(outs)
    head = 'con extern %s(mem: %%mem.M%s, out: %%mem.Ptr0 «%d; I64», return: Cn %%mem.M) =' % (name, params, n)
    return head + '\n' + emit_body(stmts, outs, P)


def gen(seed, count, nstmts=(6, 30), nfold=2):
    rng = random.Random(seed)
    fns = []
    for k in range(count):
        f = Fn(rng, k, rng.randint(*nstmts))
        f.fold_inputs = [[pick_input(rng) for _ in range(4)] for _ in range(nfold)]
        fns.append(f)
    return fns


RUN_PARAMS = ', x0: I64, x1: I64, x2: I64, x3: I64'
RUN_P = ['x0', 'x1', 'x2', 'x3']


def lit_params(xs):
    return ['(%d:I64)' % x for x in xs]


def write_mim(fns, path, fold=True):
    parts = ['plugin core;', 'plugin math;', '']
    for f in fns:
        parts.extend(f.helpers)
        parts.append(mim_fn('f_%d' % f.k, f.stmts, f.stmts, RUN_P, RUN_PARAMS))
        parts.append('')
        if fold:
            for jj, xs in enumerate(f.fold_inputs):
                parts.append(mim_fn('g_%d_%d' % (f.k, jj), f.stmts, f.stmts, lit_params(xs), ''))
                parts.append('')
    open(path, 'w').write('\n'.join(parts))


def write_c(fns, path, seed, nedge, nrand, fold=True):
    L = ['/* generated by tests/diff/gen.py (seed %d) */' % seed, '#include "ref.h"', '#include <stdio.h>', '']
    for f in fns:
        n = len(f.stmts)
        L.append('void f_%d(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t *);' % f.k)
        if fold:
            for jj in range(len(f.fold_inputs)):
                L.append('void g_%d_%d(uint64_t *);' % (f.k, jj))
        L.append('static void r_%d(const uint64_t *x, V *out, R *r) {' % f.k)
        L.append('    (void)x; (void)r;')
        L.append(c_body(f.stmts, f.stmts))
        L.append('}')
        L.append('static const unsigned char kind_%d[%d] = {%s};' % (f.k, n, ', '.join(str(kind_code(s)) for s in f.stmts)))
        if fold:
            L.append('static const uint64_t fold_%d[%d][4] = {%s};' % (f.k, len(f.fold_inputs), ', '.join(
                '{%s}' % ', '.join('UINT64_C(%d)' % x for x in xs) for xs in f.fold_inputs)))
            L.append('static void (*const gfold_%d[])(uint64_t *) = {%s};' % (f.k, ', '.join('g_%d_%d' % (f.k, jj) for jj in range(len(f.fold_inputs)))))
        L.append('')
    L.append(DRIVER)
    L.append('int main(void) {')
    L.append('    Stats st = {0, 0, 0, 0};')
    for f in fns:
        n = len(f.stmts)
        L.append('    { uint64_t seed = UINT64_C(%d); for (int t = 0; t < %d; ++t) { uint64_t x[4]; inputs(&seed, t < %d, x);'
                 ' uint64_t got[%d]; V want[%d]; R r = {0}; f_%d(x[0], x[1], x[2], x[3], got); r_%d(x, want, &r);'
                 ' check(&st, "run", %d, x, %d, got, want, kind_%d, r.ub); } }'
                 % (seed * 1000003 + f.k, nedge + nrand, nedge, n, n, f.k, f.k, f.k, n, f.k))
        if fold:
            L.append('    for (int t = 0; t < %d; ++t) { uint64_t got[%d]; V want[%d]; R r = {0}; gfold_%d[t](got); r_%d(fold_%d[t], want, &r);'
                     ' check(&st, t ? "fold1" : "fold0", %d, fold_%d[t], %d, got, want, kind_%d, r.ub); }'
                     % (len(f.fold_inputs), n, n, f.k, f.k, f.k, f.k, f.k, n, f.k))
    L.append('    printf("diff: %lu inputs, %lu outputs compared, %lu skipped (undefined), %lu mismatches\\n", st.inputs, st.compared, st.skipped, st.bad);')
    L.append('    return st.bad != 0;')
    L.append('}')
    open(path, 'w').write('\n'.join(L) + '\n')


DRIVER = r'''
typedef struct Stats {
    unsigned long inputs, compared, skipped, bad;
} Stats;

static uint64_t next(uint64_t *s) { /* splitmix64 */
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static const uint64_t edges[] = {
    0, 1, 2, 3, 5, 7, 8, 9, 10, 63, 64, 99, 100, 127, 128, 199, 200, 255, 256, 999, 1000, 4095, 32767, 32768, 65535,
    65536, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, UINT64_C(0x100000000), UINT64_C(0x200000004), UINT64_C(0xFFFFFFFFFF),
    UINT64_C(0x4000000000000000), UINT64_C(0x7FFFFFFFFFFFFFFF), UINT64_C(0x8000000000000000), UINT64_C(0x8000000000000002),
    UINT64_C(0xFFFFFFFFFFFFFFFF), UINT64_C(0xFFFFFFFFFFFFFFFE), UINT64_C(0xFFFFFFFFFFFFFF80), UINT64_C(0xFFFFFFFF80000000),
    UINT64_C(0xFFFFFFFF00000000),
    /* doubles: 0, -0, 1, -1, 0.5, 2.5, -3.75, inf, -inf, nan, denormal, max, 2^63, -2^63, 100, 0.1, 2^31-1, -2^31, 65536, 128 */
    UINT64_C(0x0000000000000000), UINT64_C(0x8000000000000000), UINT64_C(0x3FF0000000000000), UINT64_C(0xBFF0000000000000),
    UINT64_C(0x3FE0000000000000), UINT64_C(0x4004000000000000), UINT64_C(0xC00E000000000000), UINT64_C(0x7FF0000000000000),
    UINT64_C(0xFFF0000000000000), UINT64_C(0x7FF8000000000000), UINT64_C(0x0000000000000001), UINT64_C(0x7FEFFFFFFFFFFFFF),
    UINT64_C(0x43E0000000000000), UINT64_C(0xC3E0000000000000), UINT64_C(0x4059000000000000), UINT64_C(0x3FB999999999999A),
    UINT64_C(0x41DFFFFFFFC00000), UINT64_C(0xC1E0000000000000), UINT64_C(0x40F0000000000000), UINT64_C(0x4060000000000000),
    /* floats (low 32 bits), same values */
    0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x3F000000, 0x40200000, 0xC0700000, 0x7F800000, 0xFF800000,
    0x7FC00000, 0x00000001, 0x7F7FFFFF, 0x5F000000, 0xDF000000, 0x42C80000, 0x3DCCCCCD, 0x4F000000, 0xCF000000,
    0x47800000, 0x43000000,
};

/* Edge inputs: each parameter an edge value; random inputs: a mix of small
 * numbers, edges and 64 random bits. */
static void inputs(uint64_t *seed, int edge, uint64_t *x) {
    const unsigned n = sizeof edges / sizeof edges[0];
    for (int i = 0; i < 4; ++i) {
        uint64_t r = next(seed);
        if (edge) x[i] = edges[r % n];
        else switch (r % 4) {
            case 0: x[i] = next(seed) % 300; break;
            case 1: x[i] = edges[next(seed) % n] + (next(seed) % 5) - 2; break;
            default: x[i] = next(seed); break;
            }
    }
}

static int same(unsigned kind, uint64_t a, uint64_t b) {
    if (a == b) return 1;
    if (kind == 64) {
        double x, y;
        memcpy(&x, &a, 8);
        memcpy(&y, &b, 8);
        return isnan(x) && isnan(y);
    }
    if (kind == 32) {
        uint32_t u = (uint32_t)a, v = (uint32_t)b;
        float x, y;
        memcpy(&x, &u, 4);
        memcpy(&y, &v, 4);
        return (a >> 32) == 0 && isnan(x) && isnan(y);
    }
    return 0;
}

static void check(Stats *st, const char *what, int fn, const uint64_t *x, int n, const uint64_t *got, const V *want,
                  const unsigned char *kind, int ub) {
    ++st->inputs;
    if (ub) {
        st->skipped += (unsigned long)n;
        return;
    }
    for (int j = 0; j < n; ++j) {
        if (want[j].p) {
            ++st->skipped;
            continue;
        }
        ++st->compared;
        if (!same(kind[j], got[j], want[j].v)) {
            ++st->bad;
            if (st->bad <= 200)
                printf("MISMATCH %s f=%d x=%llu,%llu,%llu,%llu v=%d got=%llu want=%llu\n", what, fn, (unsigned long long)x[0],
                       (unsigned long long)x[1], (unsigned long long)x[2], (unsigned long long)x[3], j,
                       (unsigned long long)got[j], (unsigned long long)want[j].v);
        }
    }
}
'''
