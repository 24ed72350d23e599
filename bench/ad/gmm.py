#!/usr/bin/python3
"""bench/ad: the ADBench GMM objective in PyTorch (float64, one thread,
autograd), on the inputs that gmm.c wrote (gmm-in.bin); prints the objective
and the time of objective + gradient (best of 5), and checks the gradient
against the hand-written C gradient (gmm-grad-c.bin). Formula: gmm.c. Two
formulations: "PyTorch", batched (one bmm for all points and components,
the faster of the two), and "PyTorch-ADBench", shaped like ADBench's PyTorch
GMM, the peer of the paper's §6 figures."""
import array
import sys
import time

import torch

torch.set_num_threads(1)


def read(path):
    a = array.array("d")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    return torch.tensor(a, dtype=torch.float64)


raw = read("gmm-in.bin")
d, k, n = (int(v) for v in raw[:3])
nl = d * (d - 1) // 2
off = 3


def take(m):
    global off
    v = raw[off:off + m].clone()
    off += m
    return v


alpha = take(k).requires_grad_()
mu = take(k * d).reshape(k, d).requires_grad_()
q = take(k * d).reshape(k, d).requires_grad_()
l = take(k * nl).reshape(k, nl).requires_grad_()
x = take(n * d).reshape(n, d)
rows, cols = torch.tril_indices(d, d, -1)  # row by row: (1,0), (2,0), (2,1), ...


def objective():
    L = torch.zeros(k, d, d, dtype=torch.float64)
    L = L.index_put((torch.arange(k).repeat_interleave(nl), rows.repeat(k), cols.repeat(k)), l.reshape(-1))
    Q = torch.diag_embed(torch.exp(q)) + L  # k×d×d
    v = x[None, :, :] - mu[:, None, :]  # k×n×d
    y = torch.bmm(v, Q.transpose(1, 2))  # k×n×d: a batched matrix product (einsum was 8× slower)
    beta = alpha[:, None] + q.sum(1)[:, None] - 0.5 * (y * y).sum(2)  # k×n
    return torch.logsumexp(beta, 0).sum() - n * torch.logsumexp(alpha, 0) + 0.5 * ((torch.exp(q) ** 2).sum() + (l * l).sum())


def objective_adbench():
    """The same objective in the shape of ADBench's PyTorch GMM (the peer the
    paper measured): Q_k assembled per component from slices of l, the points
    centred one at a time (x_i − μ for every component, stacked to n×k×d), the
    triangular product as an einsum, a hand-written log-sum-exp over the
    components."""
    qdiag = torch.exp(q)
    Ls = []
    for c in range(k):
        Lrows = [torch.zeros(d, dtype=torch.float64)]
        for r in range(1, d):
            start = c * nl + r * (r - 1) // 2
            Lrows.append(torch.cat([l.reshape(-1)[start:start + r], torch.zeros(d - r, dtype=torch.float64)]))
        Ls.append(torch.stack(Lrows))
    L = torch.stack(Ls)  # k×d×d
    xc = torch.stack(tuple(x[i] - mu for i in range(n)))  # n×k×d
    y = qdiag * xc + torch.einsum("krs,iks->ikr", L, xc)
    inner = alpha + q.sum(1) - 0.5 * (y * y).sum(2)  # n×k
    mx, _ = torch.max(inner, 1)
    lse = torch.log(torch.exp(inner - mx[:, None]).sum(1)) + mx
    ma = torch.max(alpha)
    lsea = torch.log(torch.exp(alpha - ma).sum()) + ma
    return lse.sum() - n * lsea + 0.5 * ((qdiag * qdiag).sum() + (l * l).sum())


ref = read("gmm-grad-c.bin")
status = 0
for name, fn in (("PyTorch", objective), ("PyTorch-ADBench", objective_adbench)):
    best, f = 1e30, None
    for _ in range(5):
        for t in (alpha, mu, q, l):
            t.grad = None
        t0 = time.perf_counter()
        f = fn()
        f.backward()
        best = min(best, time.perf_counter() - t0)
    grad = torch.cat([alpha.grad.reshape(-1), mu.grad.reshape(-1), q.grad.reshape(-1), l.grad.reshape(-1)])
    diff = ((grad - ref).abs() / ref.abs().clamp(min=1.0)).max().item()
    print(f"{name} f={f.item():.12g}  gradient {best:.6f} s  gradient agrees with C: {'yes' if diff < 1e-9 else 'NO'} (max rel. difference {diff:.2e})")
    status |= diff >= 1e-9
sys.exit(status)
