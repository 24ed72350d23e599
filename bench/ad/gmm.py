#!/usr/bin/python3
"""bench/ad: the ADBench GMM objective in PyTorch (float64, one thread,
autograd), on the inputs that gmm.c wrote (gmm-in.bin); prints the objective
and the time of objective + gradient (best of 5), and checks the gradient
against the hand-written C gradient (gmm-grad-c.bin). Formula: gmm.c."""
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


best, f = 1e30, None
for _ in range(5):
    for t in (alpha, mu, q, l):
        t.grad = None
    t0 = time.perf_counter()
    f = objective()
    f.backward()
    best = min(best, time.perf_counter() - t0)
grad = torch.cat([alpha.grad.reshape(-1), mu.grad.reshape(-1), q.grad.reshape(-1), l.grad.reshape(-1)])
ref = read("gmm-grad-c.bin")
diff = ((grad - ref).abs() / ref.abs().clamp(min=1.0)).max().item()
print(f"PyTorch f={f.item():.12g}  gradient {best:.6f} s  gradient agrees with C: {'yes' if diff < 1e-9 else 'NO'} (max rel. difference {diff:.2e})")
sys.exit(0 if diff < 1e-9 else 1)
