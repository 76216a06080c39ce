"""Heatmaps at users' sizes: grid maps against forming all products, in one run.

    python benchmarks/bench_heatmap.py --speed               # nn.LSTM(128, 128), T = 100, 300, 1000
    python benchmarks/bench_heatmap.py --accuracy            # every method against exact maps (dense SVDs)
    python benchmarks/bench_heatmap.py --big                 # nn.LSTM(128, 1024), T = 1000, randomized sweep
    python benchmarks/bench_heatmap.py --speed --T 100 --device cuda

**Speed** (``--speed``). The last-layer h block of ``torch.nn.LSTM(128, 128)`` (state (h, c) of width 256,
float64, default initialisation from ``--seed``, one sequence of N(0, 1) inputs), heatmap grade (rtol 1e-3,
``--resolution`` 256 grid points, the certified grid method of :mod:`analysis.grid_maps`), against the
baseline: forming all T(T + 1)/2 products of the 256 × 256 per-step Jacobians by GEMM, as the all-pairs
engine does (one stacked (t·256 × 256)·(256 × 256) GEMM per t), timed in the same run. Where T exceeds
``--direct-max`` the baseline is timed up to that length and extrapolated by its flops (T(T + 1)/2
products, each the same GEMM shape; marked "extrapolated"). The estimate of :func:`analysis.estimate_cost`
(calibrated by a GEMM timed in the same run) is printed beside the measured time.

**Accuracy** (``--accuracy``). ``torch.nn.LSTM(16, 64)`` (state 128), T = ``--accuracy-T`` (≤ 300), the h block
and the whole state: every method (all-pairs certified at rtol 1e-3; grid certified at 1e-3 and 1e-6; the
randomized sketch) against exact norms: dense SVDs (``torch.linalg.svdvals``) of the products formed step by
step from the per-step Jacobians, at the grid's cells. Reported: the largest error per cell as a fraction of
its stated error (≤ 1: every value within it) and, for the sketch, the cells outside their stated factor.

**Big** (``--big``). ``torch.nn.LSTM(128, 1024)`` (state 2048), T = ``--big-T``, the last layer's h block, on a
``--big-resolution`` grid by ``--big-method`` (default: the randomized sketch): wall time, peak resident
memory of this process (``ru_maxrss``), and the ratio to forming all T(T + 1)/2 products of 2048 × 2048
matrices, extrapolated from ``--big-gemms`` GEMMs timed in the same run.

Absolute times depend on the machine and its load (printed before and after); the ratios are the result.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as the CLI does

import torch  # noqa: E402

from rnnaudit.analysis import estimate_cost, hidden_jacobian_maps, state_block, step_jacobians  # noqa: E402
from rnnaudit.analysis.grid_maps import grid_steps  # noqa: E402
from rnnaudit.cli.argtypes import count, grid_points, seed  # noqa: E402

F64 = torch.float64


def _load() -> str:
    return ", ".join(f"{v:.2f}" for v in os.getloadavg())


def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def _lstm(n: int, h: int, seed_: int, device: str) -> torch.nn.LSTM:
    torch.manual_seed(seed_)
    return torch.nn.LSTM(n, h, batch_first=True, dtype=F64).to(device).eval()


def baseline_products(J: torch.Tensor, T: int, device: str) -> float:
    """Seconds to form all T(T + 1)/2 products of the per-step Jacobians J (≥ T, h, h) by one stacked GEMM per
    t (X(t, ·) = X(t − 1, ·) J_tᵀ), the all-pairs engine's own shape."""
    h = J.shape[1]
    X = torch.empty(T * h, h, dtype=J.dtype, device=device)
    out = torch.empty_like(X)
    Jt = J[:T].mT.contiguous()
    _sync(device)
    t0 = time.perf_counter()
    for t in range(1, T + 1):
        X[(t - 1) * h:t * h] = torch.eye(h, dtype=J.dtype, device=device)
        torch.mm(X[:t * h], Jt[t - 1], out=out[:t * h])
        X, out = out, X
    _sync(device)
    return time.perf_counter() - t0


def speed(args) -> None:
    device = args.device
    model = _lstm(128, 128, args.seed, device)
    rows, label = state_block(model)
    gen = torch.Generator().manual_seed(args.seed)
    print(f"nn.LSTM(128, 128), {label}, rtol 1e-3, {args.resolution}-point grid, float64, {device}")
    print("| T | grid cells | heatmap s | estimate s | baseline s (all products by GEMM) | ratio |")
    print("|---|---|---|---|---|---|")
    for T in args.T:
        x = torch.randn(T, 128, generator=gen, dtype=F64).to(device)
        est = estimate_cost(model, T, grid=args.resolution, rows=rows, cols=rows, dtype=F64, device=device,
                            calibrate=True)
        _sync(device)
        t0 = time.perf_counter()
        maps = hidden_jacobian_maps(model, x, norms=("spectral",), rows=rows, cols=rows, rtol=1e-3,
                                    grid=args.resolution)
        _sync(device)
        took = time.perf_counter() - t0
        Tb = min(T, args.direct_max)
        J, _ = step_jacobians(model, x[:Tb])
        base = baseline_products(J, Tb, device)
        note = ""
        if Tb < T:
            base *= (T * (T + 1)) / (Tb * (Tb + 1))
            note = f" (extrapolated from T = {Tb})"
        R = maps.steps.numel()
        print(f"| {T} | {R * (R + 1) // 2:,} | {took:.2f} | {est.seconds:.2f} | {base:.1f}{note} | {took / base:.3f} |")
        sys.stdout.flush()


def _exact_at_grid(model, x, steps, rows) -> torch.Tensor:
    """‖block of ∂h_t/∂h_s‖₂ at the grid's cells by products of the per-step Jacobians and dense SVDs."""
    J, _ = step_jacobians(model, x)
    R = steps.numel()
    out = torch.zeros(R, R, dtype=F64)
    g = steps.tolist()
    h = J.shape[1]
    for j, s in enumerate(g):
        P = torch.eye(h, dtype=F64, device=J.device)
        t = s
        for i in range(j, R):
            while t < g[i]:
                P = J[t] @ P
                t += 1
            B = P if rows is None else P[rows][:, rows]
            out[i, j] = torch.linalg.svdvals(B)[0].cpu()
    return out


def accuracy(args) -> None:
    from rnnaudit.analysis import stated_error_ratio

    device = args.device
    T = args.accuracy_T
    model = _lstm(16, 64, args.seed, device)
    x = torch.randn(T, 16, generator=torch.Generator().manual_seed(args.seed), dtype=F64).to(device)
    R = args.accuracy_resolution
    steps = grid_steps(R, 0, T)
    print(f"nn.LSTM(16, 64) (state 128), T = {T}, {steps.numel()}-point grid, exact: dense SVDs of formed products")
    print("| block | method | stated error | largest error / stated | cells outside |")
    print("|---|---|---|---|---|")
    for block in ("h", "state"):
        rows, label = state_block(model, block)
        r_idx = None if rows is None else torch.tensor(rows)
        exact = _exact_at_grid(model, x, steps, r_idx)
        runs = [("all-pairs certified", {"rtol": 1e-3}), ("grid certified", {"rtol": 1e-3, "grid": steps}),
                ("grid certified", {"rtol": 1e-6, "grid": steps}), ("grid sketch", {"grid": steps, "method": "sketch"})]
        for name, kw in runs:
            m = hidden_jacobian_maps(model, x, norms=("spectral",), rows=rows, cols=rows, **kw)
            values = m.spectral if m.steps is not None else m.spectral[steps][:, steps]
            values = values.cpu()
            if m.factor is None:
                worst = stated_error_ratio(values, exact, m.rtol, floor=1e-10)
                stated, outside = f"rtol {m.rtol:g} (certified)", int(worst > 1)
            else:
                cells = exact > 0
                r, f = values[cells] / exact[cells], m.factor.cpu()[cells]
                worst = float((r.log().abs() / f.log().clamp_min(1e-300)).max())
                outside = int(((r > f) | (r < 1 / f)).sum())
                stated = f"factor {float(f.min()):.3g}–{float(f.max()):.3g}, confidence {m.confidence:g}/cell"
            print(f"| {label} | {name} | {stated} | {worst:.3g} | {outside} of {int((exact > 0).sum())} |")
            sys.stdout.flush()


def big(args) -> None:
    device = args.device
    T, R = args.big_T, args.big_resolution
    model = _lstm(128, 1024, args.seed, device)
    rows, label = state_block(model)
    x = torch.randn(T, 128, generator=torch.Generator().manual_seed(args.seed), dtype=F64).to(device)
    method = "sketch" if args.big_method == "sketch" else "products"
    est = estimate_cost(model, T, grid=R, rows=rows, cols=rows, dtype=F64, device=device, calibrate=True,
                        method=method)
    # baseline: one product of 2048 × 2048 matrices per pair, timed now
    h = model.hidden_size * 2
    A = torch.randn(h, h, dtype=F64, device=device)
    B = torch.randn(h, h, dtype=F64, device=device)
    A @ B
    _sync(device)
    t0 = time.perf_counter()
    for _ in range(args.big_gemms):
        A @ B
    _sync(device)
    per = (time.perf_counter() - t0) / args.big_gemms
    base = per * T * (T + 1) / 2
    print(f"nn.LSTM(128, 1024), {label}, T = {T}, {R}-point grid, method {est.method}, float64, {device}")
    print(f"estimate: {est.describe()}")
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
    _sync(device)
    t0 = time.perf_counter()
    m = hidden_jacobian_maps(model, x, norms=("spectral",), rows=rows, cols=rows, grid=R, rtol=1e-3,
                             method="sketch" if method == "sketch" else "auto")
    _sync(device)
    took = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    gpu = f", GPU peak {torch.cuda.max_memory_allocated() / 2 ** 30:.2f} GiB" if device == "cuda" else ""
    stated = (f"factor ≤ {float(m.factor.max()):.3g} at confidence {m.confidence:g} per cell"
              if m.factor is not None else f"rtol {m.rtol:g} (certified)")
    print(f"heatmap: {took:.1f} s; peak RSS {rss / 2 ** 30:.2f} GiB (before the map {rss0 / 2 ** 30:.2f} GiB){gpu}; "
          f"stated error: {stated}")
    print(f"baseline: {base:.0f} s ({T * (T + 1) // 2:,} products at {per * 1e3:.1f} ms, timed {args.big_gemms} GEMMs "
          f"of {h} × {h}); ratio {took / base:.2e}; estimate {est.seconds:.1f} s")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--speed", action="store_true", help="nn.LSTM(128, 128) against all products by GEMM")
    ap.add_argument("--accuracy", action="store_true", help="every method against exact maps")
    ap.add_argument("--big", action="store_true", help="nn.LSTM(128, 1024) at T = --big-T")
    ap.add_argument("--T", type=count, nargs="+", default=[100, 300, 1000], help="lengths of --speed")
    ap.add_argument("--resolution", type=grid_points, default=256, help="grid points of --speed (default: 256)")
    ap.add_argument("--direct-max", type=count, default=300,
                    help="longest T whose baseline is timed whole; longer ones are extrapolated (default: 300)")
    ap.add_argument("--accuracy-T", type=count, default=200, help="T of --accuracy (at most 300; default: 200)")
    ap.add_argument("--accuracy-resolution", type=grid_points, default=41, help="grid of --accuracy (default: 41)")
    ap.add_argument("--big-T", type=count, default=1000)
    ap.add_argument("--big-resolution", type=grid_points, default=64)
    ap.add_argument("--big-method", choices=("sketch", "certified"), default="sketch")
    ap.add_argument("--big-gemms", type=count, default=3, help="2048 × 2048 GEMMs timed for the baseline")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--seed", type=seed, default=0)
    args = ap.parse_args(argv)
    if args.accuracy_T > 300:
        ap.error(f"argument --accuracy-T: at most 300 (exact maps by dense SVD), got {args.accuracy_T}")
    if not (args.speed or args.accuracy or args.big):
        args.speed = True
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; load average {_load()}")
    if args.speed:
        speed(args)
    if args.accuracy:
        accuracy(args)
    if args.big:
        big(args)
    print(f"load average after: {_load()}")


if __name__ == "__main__":
    main()
