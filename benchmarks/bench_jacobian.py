"""Time the all-pairs Jacobian maps against the naive method, in one run on one machine.

    python benchmarks/bench_jacobian.py                 # T = 1000 and 2000, SGORNN and FastRNN, h = 128
    python benchmarks/bench_jacobian.py --T 1000 --cells sgornn --pairs 8

Fast: :func:`analysis.jacobian.hidden_jacobian_maps` (spectral + Frobenius, certified rtol) on one
addition-problem sequence (sgornn.md Sec. 3.1 setting: n = 2, h = 128, ReLU, k = 14, FastRNN's
initial gates), CPU, float64.
Naive: one ``torch.autograd.functional.jacobian`` call per (s, t) pair (vectorized backward, which
only makes the baseline faster) plus ``svdvals``, timed on one pair per gap level spread over
1..T (after a warm-up call), fitted as c₀ + c₁·(t − s) with c₀, c₁ ≥ 0 and extrapolated to all
(T + 1)(T + 2)/2 pairs. The sampled naive values are also compared with the fast map.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

# as the CLI does (figures/__init__.py): OpenMP spin-waits make small ops crawl on a loaded machine
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch

from rnnaudit.analysis.jacobian import hidden_jacobian_maps
from rnnaudit.tasks.synthetic import addition_problem
from rnnaudit.cells import SGORNN, FastRNN

CELLS = {
    "sgornn": lambda gen: SGORNN(2, 128, k=14, generator=gen, dtype=torch.float64),
    "fastrnn": lambda gen: FastRNN(2, 128, generator=gen, dtype=torch.float64),
}


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            names = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
        if names:
            cpu = f"{names[0]} × {len(names)} logical CPUs"
    except OSError:
        pass
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    return (f"{platform.system()} {platform.release()}, {cpu}; torch {torch.__version__}, "
            f"{torch.get_num_threads()} intra-op threads; load average {load}")


def naive_pair(cell, x, s: int, t: int) -> tuple[float, float, float]:
    """(seconds, ‖∂h_t/∂h_s‖₂, ‖·‖_F) by one autograd jacobian call and an SVD."""
    t0 = time.perf_counter()
    J = pair_jacobian_vectorized(cell, x, s, t)
    sv = torch.linalg.svdvals(J)
    return time.perf_counter() - t0, float(sv[0]), float(sv.square().sum().sqrt())


def pair_jacobian_vectorized(cell, x, s, t):
    """As ``analysis.jacobian.pair_jacobian``, with ``vectorize=True`` (one batched backward)."""
    with torch.no_grad():
        states = torch.cat([x.new_zeros(1, cell.hidden_size), cell(x[None])[0]])

    def h_t_from_h_s(hs):
        h = hs[None]
        for k in range(s, t):
            h = cell.step(x[k][None], h)
        return h[0]

    return torch.autograd.functional.jacobian(h_t_from_h_s, states[s].clone(), vectorize=True)


def bench(name: str, T: int, n_pairs: int, seed: int) -> dict:
    gen = torch.Generator().manual_seed(seed)
    cell = CELLS[name](gen)
    x = addition_problem(1, T, generator=gen)[0][0]
    t0 = time.perf_counter()
    maps = hidden_jacobian_maps(cell, x, norms=("spectral", "frobenius"))
    fast = time.perf_counter() - t0
    # naive: one pair per gap level spread over 1..T (a warm-up call first), fitted c0 + c1·gap with
    # c0, c1 ≥ 0 (timings on a shared machine are noisy; a negative coefficient would be noise)
    naive_pair(cell, x, 0, 1)
    gaps = torch.linspace(1, T, n_pairs).round().long().tolist()
    rows, worst = [], 0.0
    for m in gaps:
        s = int(torch.randint(0, T - m + 1, (1,), generator=gen))
        sec, two, fro = naive_pair(cell, x, s, s + m)
        rows.append((m, sec))
        worst = max(worst, abs(float(maps.spectral[s + m, s]) - two) / two,
                    abs(float(maps.frobenius[s + m, s]) - fro) / fro)
    A = torch.tensor([[1.0, m] for m, _ in rows], dtype=torch.float64)
    y = torch.tensor([sec for _, sec in rows], dtype=torch.float64)
    c0, c1 = torch.linalg.lstsq(A, y[:, None]).solution[:, 0].tolist()
    if c1 < 0:
        c0, c1 = float(y.mean()), 0.0
    elif c0 < 0:
        c0, c1 = 0.0, float((A[:, 1] * y).sum() / A[:, 1].square().sum())
    gap = torch.arange(T + 1, dtype=torch.float64)
    n_all = (T + 1) * (T + 2) // 2
    naive_total = c0 * n_all + c1 * float((gap * (T + 1 - gap)).sum())
    return {"cell": name, "T": T, "fast_s": fast, "naive_s": naive_total, "ratio": naive_total / fast,
            "sampled_pairs": len(rows), "sampled_naive_s": float(y.sum()), "c0": c0, "c1": c1, "samples": rows,
            "max_rel_diff": worst, "stats": maps.stats}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--T", type=int, nargs="+", default=[1000, 2000])
    ap.add_argument("--cells", nargs="+", default=["sgornn", "fastrnn"], choices=sorted(CELLS))
    ap.add_argument("--pairs", type=int, default=6, help="naive pairs sampled per run (one per gap level)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print("machine:", machine())
    for T in args.T:
        for name in args.cells:
            r = bench(name, T, args.pairs, args.seed)
            print(f"{r['cell']:8s} T={r['T']:5d} h=128 float64 CPU: fast {r['fast_s']:7.1f} s | naive "
                  f"{r['naive_s']:10.0f} s extrapolated from {r['sampled_pairs']} pairs "
                  f"({r['sampled_naive_s']:.1f} s measured; {r['c0'] * 1e3:.1f} ms + {r['c1'] * 1e3:.2f} ms/step) | "
                  f"ratio {r['ratio']:7.0f}x | max rel diff on sampled pairs {r['max_rel_diff']:.1e}")
            print(f"         naive samples (gap, s): {[(m, round(sec, 2)) for m, sec in r['samples']]}")
            print(f"         spectral paths: {r['stats']}")
    print("machine after:", machine())


if __name__ == "__main__":
    main()
