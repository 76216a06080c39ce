"""Why the certified Jacobian maps stay below the GEMM rate: how many pairs need an eigensolve.

    python benchmarks/bench_flat_band.py                     # SGORNN and orthogonal torch.nn.RNN, T = 300
    python benchmarks/bench_flat_band.py --cells GRU --T 1000 --starts 16

For sampled pairs (s, t) of an all-pairs map (h = 128, the cells and sequence of ``bench_jacobian.py``)
the products P = ∂h_t/∂h_s are formed and decomposed by an SVD, and each pair is put in one of three
classes by what the engine of :mod:`analysis.products` must spend on it beyond the product's own GEMM:

* **Krylov**: the engine's own block Krylov certificate (:func:`analysis.certificate.krylov` and
  :func:`~analysis.certificate.krylov_top`, ``max_iter`` blocks of ``block`` rows) closes at rtol, started
  from the previous step's exact top ``block`` right singular vectors (at gap 1, from the engine's fixed
  random rows). It is counted as costing nothing. It is tried only where σ_{K+1}² + … + σ_h² ≤ σ_1²
  (K = block · max_iter = 32 rows), which it needs: a space of K rows leaves at least that much trace;
* **Gram, warm start within rtol**: otherwise, the Rayleigh–Ritz value of PᵀP on the previous step's top
  ``block`` right singular vectors (the engine's warm start, here exact, which favours the engine) is
  within (1 + rtol)² of ‖P‖₂²: the Gram matrix and one Cholesky factorisation certify it. Those vectors live in
  the space of h_s, as the engine's: its blocks are X = Pᵀ and it works with XXᵀ = PᵀP;
* **Gram, eigensolve**: otherwise: the Gram matrix and the top eigenvalue (``dsyevr``) or a refinement
  costing about as much.

With the per-matrix kernel times measured in the same run (one thread, h = 128: ``mm``, ``dpotrf``,
``dsyevr`` for the top eigenvalue; the Gram matrix charged half a GEMM), the classes give an optimistic model of the engine's
efficiency: GEMM / mean cost per pair, every other cost (Krylov steps, bookkeeping, threads) left out
and every warm start as good as the exact singular vectors of the step before. A pair at gap 1 has no
previous step; it is counted as an eigensolve unless Krylov settles it. The gap-0 pairs (identities,
0.7% of the pairs at T = 300) are left out. The model follows this
engine's paths; it is no bound on every method, nor a strict one on the engine (shift-invert refinement
can settle a pair for less than ``dsyevr``).

The result is the fractions and model efficiencies; absolute kernel times depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_jacobian import F64, _sequence, cells, machine  # noqa: E402

from rnnaudit.analysis import lapack  # noqa: E402
from rnnaudit.analysis.certificate import krylov, krylov_top  # noqa: E402
from rnnaudit.analysis.jacobian import step_jacobians  # noqa: E402
from rnnaudit.cli.argtypes import count, seed  # noqa: E402

BLOCK, MAX_ITER = 8, 4  # analysis.jacobian.hidden_jacobian_maps' defaults
RTOLS = (1e-10, 1e-6, 1e-3)


def kernel_times(h: int, repeats: int = 7, batch: int = 32) -> dict[str, float]:
    """Seconds per h × h matrix, one thread, the fastest of ``repeats`` batches: the product's GEMM, and the
    Cholesky factorisation and top eigenvalue as the engine calls them (scipy's LAPACK through
    :mod:`analysis.lapack` where available, else ``torch.linalg``). The Gram matrix is charged half a GEMM
    (``dsyrk``'s flops) rather than timed: timed as the engine calls it, a fresh (n, h, h) result costs
    page faults that vary several-fold between processes (86–210 µs against 70 µs for ``dsyrk`` alone)."""
    gen = torch.Generator().manual_seed(0)
    A = torch.randn(batch, h, h, generator=gen, dtype=F64)
    M = torch.randn(h, h, generator=gen, dtype=F64)
    fast = lapack.available(A)
    G = lapack.gram(A)[0] if fast else A @ A.mT
    shift = 2 * torch.linalg.matrix_norm(A, 2).square().amax()
    S = -G
    S.diagonal(dim1=1, dim2=2).add_(shift)
    kernels = {
        "gemm": lambda: [torch.mm(a, M) for a in A],
        "cholesky": (lambda: lapack.cholesky(S.clone())) if fast else (lambda: torch.linalg.cholesky_ex(S)),
        "eigenvalue": (lambda: lapack.top_eigenvalue(G)) if fast else (lambda: torch.linalg.eigvalsh(G)),
    }
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        out = {}
        for name, fn in kernels.items():
            fn()
            runs = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                fn()
                runs.append((time.perf_counter() - t0) / batch)
            out[name] = min(runs)
        out["gram"] = out["gemm"] / 2
        return out
    finally:
        torch.set_num_threads(old)


def classify(J: torch.Tensor, starts: list[int], rtols) -> dict:
    """Counts of the three classes per rtol over all pairs (s, t), s in ``starts``, t = s + 1..T, for
    per-step Jacobians J (T, h, h) with J[k] = ∂h_{k+1}/∂h_k (:func:`analysis.jacobian.step_jacobians`);
    with the warm-start error and stable rank of every pair per gap range.

    A pair is warm where the Ritz value θ satisfies ‖P‖₂² ≤ θ(1 + rtol)², i.e. 1 − θ/‖P‖₂² ≤ 1 − (1 + rtol)⁻²:
    what the engine's Cholesky certificate at θ(1 + rtol)² needs."""
    T, h = J.shape[0], J.shape[1]
    K = BLOCK * MAX_ITER
    counts = {r: {"krylov": 0, "warm": 0, "eigensolve": 0} for r in rtols}
    gen = torch.Generator().manual_seed(0)  # as analysis.products: the newborn blocks' start rows
    fill = torch.linalg.qr(torch.randn(h, BLOCK, generator=gen, dtype=J.dtype))[0].mT.contiguous()
    by_gap: dict[str, list[tuple[float, float]]] = {}
    for s in starts:
        P = torch.eye(h, dtype=J.dtype)
        V_prev = None
        for k in range(s, T):
            P = J[k] @ P  # ∂h_{k+1}/∂h_s: the pair (s, k + 1), gap k + 1 − s
            _, sv, Vh = torch.linalg.svd(P)
            lam = sv[0].square()
            stable = float(sv.square().sum() / lam)
            tail = float(sv[K:].square().sum() / lam)
            closes = dict.fromkeys(rtols, False)
            if tail <= 1:
                X = P.mT.contiguous()[None]  # the engine's block Pᵀ
                Q, Z = krylov(X, (fill if V_prev is None else V_prev)[None], MAX_ITER)
                fro2 = X.square().sum((1, 2))
                closes = {r: bool(krylov_top(X, Q, Z, fro2, r)[4][0]) for r in rtols}
            err = float("inf")
            if V_prev is not None:
                Y = P @ V_prev.mT  # (h, k): the block's images
                theta = torch.linalg.eigvalsh(Y.mT @ Y)[-1]
                err = float(1 - theta / lam)
            gap = k + 1 - s
            key = "1" if gap == 1 else "2–9" if gap < 10 else "10–99" if gap < 100 else "≥ 100"
            by_gap.setdefault(key, []).append((err, stable))
            for r in rtols:
                if closes[r]:
                    counts[r]["krylov"] += 1
                elif err <= 1 - (1 + r) ** -2:
                    counts[r]["warm"] += 1
                else:
                    counts[r]["eigensolve"] += 1
            V_prev = Vh[:BLOCK]
    return {"counts": counts, "by_gap": by_gap}


def main(argv=None) -> None:
    """Print, per cell, the classes' fractions and the model efficiencies they imply, and the warm starts'
    errors by gap."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--T", type=count, default=300)
    ap.add_argument("--starts", type=count, default=8, help="sampled start times s, evenly spaced (at most T)")
    ap.add_argument("--cells", nargs="+", default=["SGORNN", "torch.nn.RNN"],
                    help="cells whose name contains one of these words")
    ap.add_argument("--seed", type=seed, default=0)
    args = ap.parse_args(argv)
    if args.T < 2:
        ap.error(f"--T: at least 2 steps, got {args.T}")
    if args.starts > args.T:
        ap.error(f"--starts: at most --T = {args.T} start times, got {args.starts}")
    if not any(w in name for name in cells(8) for w in args.cells):
        ap.error(f"--cells: no cell name contains any of {args.cells}")
    h = 128
    print(f"# {machine('cpu')}; T = {args.T}, h = {h}, {args.starts} start times")
    times = kernel_times(h)
    print("kernel µs per matrix, one thread: " + ", ".join(f"{k} {1e6 * v:.0f}" for k, v in times.items()))
    step = max(1, args.T // args.starts)
    starts = list(range(0, args.T, step))[: args.starts]
    for name, build in cells(h).items():
        if not any(w in name for w in args.cells):
            continue
        gen = torch.Generator().manual_seed(args.seed)
        cell = build(gen)
        x = _sequence(args.T, gen, "cpu")
        J, _ = step_jacobians(cell, x)
        res = classify(J, starts, RTOLS)
        print(f"\n## {name}")
        print("| rtol | Krylov | Gram, warm start within rtol | Gram, eigensolve | model efficiency |")
        print("|---|---|---|---|---|")
        for r, c in res["counts"].items():
            n = sum(c.values())
            cost = (n * times["gemm"] + c["warm"] * (times["gram"] + times["cholesky"])
                    + c["eigensolve"] * (times["gram"] + times["eigenvalue"])) / n
            print(f"| {r:g} | {c['krylov'] / n:.0%} | {c['warm'] / n:.0%} | {c['eigensolve'] / n:.0%} "
                  f"| {times['gemm'] / cost:.2f} |")
        print("\n| gap | pairs | median warm-start error 1 − θ/‖P‖₂² | median stable rank |")
        print("|---|---|---|---|")
        for key in ("1", "2–9", "10–99", "≥ 100"):
            rows = res["by_gap"].get(key, [])
            if rows:
                errs = [e for e, _ in rows if e != float("inf")]
                err = f"{statistics.median(errs):.1e}" if errs else "no previous step"
                print(f"| {key} | {len(rows)} | {err} | {statistics.median(st for _, st in rows):.0f} |")


if __name__ == "__main__":
    main()
