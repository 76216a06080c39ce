"""Jacobian maps: efficiency against torch's GEMM rate, and speed against the naive method, in one run.

    python benchmarks/bench_jacobian.py                      # efficiency table, T = 300 and 1000
    python benchmarks/bench_jacobian.py --quick              # T = 300 only
    python benchmarks/bench_jacobian.py --grid               # ratio to the naive method, h × T grid
    python benchmarks/bench_jacobian.py --quick --grid --repeats 3 --device cuda

**Efficiency** (default mode). An all-pairs map of h × h Jacobians forms (T + 1)(T + 2)/2 products by one
GEMM each, T²h³ flops in all: that work is the floor of any method that forms the products. The table
gives efficiency = (T²h³ / map time) / GEMM rate, where the GEMM rate is torch's float64 ``mm`` on the
shape the engine multiplies, (chunk·h × h)·(h × h), with torch's threads, measured before every map in
the same run (the median is used). 1.0 means the map costs no more than its products. Cells (h = 128,
n = 2, float64, one addition-problem sequence, sgornn.md Sec. 3.1): SGORNN (k = 14), FastRNN, a vanilla
RNN with orthogonal recurrence (VPRNN with tanh: h_t = tanh(Wx_t + Uh_{t−1} + b), U orthogonal, as
``torch.nn.RNN`` with an orthogonal ``weight_hh``) and the GRU of nc_gru.md eq. 1; where
``rnnaudit.cells.adapters.wrap`` exists, also ``torch.nn.RNN`` (orthogonal ``weight_hh``) and
``torch.nn.GRU`` through it (every weight drawn from ``--seed``). Spectral and Frobenius maps at rtol 1e-10, 1e-6 and 1e-3; every spectral
value is certified to rtol. A few pairs are checked against products of the per-step Jacobians.

**Grid** (``--grid``): time of :func:`analysis.jacobian.hidden_jacobian_maps` (``method="auto"``, rtol
1e-10) against the naive method, :func:`analysis.jacobian.naive_hidden_jacobian_maps` (one
``torch.func.jacrev`` per step, the products, a batched ``torch.linalg.matrix_norm(ord=2)`` per t), for
h ∈ {8, 16, 32, 64, 128, 256} and T ∈ {30, 100, 300}, GRU of nc_gru.md eq. 1 (or a wrapped
``torch.nn.GRU``). Runs are interleaved (naive, fast, naive, fast, …) and the minimum of ``--repeats``
is kept. Where one naive run would exceed ``--naive-limit`` seconds, it is timed at two shorter lengths
T₁ < T₂ and extrapolated by its cost structure a·T + b·T² (jacrev per step; products and norms of t
blocks at step t), which the table marks "extrapolated".

Absolute times depend on the machine and its load; the efficiencies and ratios are the result. The
header prints the load average before and after.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import time

# as the CLI does (rnnaudit/__init__.py): OpenMP spin-waits make small ops crawl on a loaded machine
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402

from rnnaudit.analysis.jacobian import hidden_jacobian_maps, naive_hidden_jacobian_maps, step_jacobians  # noqa: E402
from rnnaudit.analysis.map_methods import choose_method  # noqa: E402
from rnnaudit.cells import GRU, SGORNN, VPRNN, FastRNN  # noqa: E402
from rnnaudit.tasks.synthetic import addition_problem  # noqa: E402
from rnnaudit.cli.argtypes import count, positive_float  # noqa: E402
from rnnaudit.cli.argtypes import rtol as rtol_option  # noqa: E402

try:  # the adapter for torch.nn modules, where this checkout has it
    from rnnaudit.cells.adapters import wrap
except ImportError:  # pragma: no cover - depends on the checkout
    wrap = None

F64 = torch.float64
RTOLS = (1e-10, 1e-6, 1e-3)
GRID_H = (8, 16, 32, 64, 128, 256)
GRID_T = (30, 100, 300)


def _seeded(module: torch.nn.Module, gen: torch.Generator) -> torch.nn.Module:
    """``module`` with every parameter drawn again from torch's default RNN initialisation U(−1/√h, 1/√h),
    h = hidden_size, but from ``gen``: torch's own initialisation uses the global generator, so the wrapped
    cells would otherwise change with whatever ran before them."""
    k = module.hidden_size ** -0.5
    with torch.no_grad():
        for p in module.parameters():
            p.copy_((2 * torch.rand(p.shape, generator=gen, dtype=p.dtype) - 1) * k)
    return module


def _orthogonal_torch_rnn(n: int, h: int, gen: torch.Generator):
    rnn = _seeded(torch.nn.RNN(n, h, batch_first=True, dtype=F64), gen)
    with torch.no_grad():
        rnn.weight_hh_l0.copy_(torch.linalg.qr(torch.randn(h, h, generator=gen, dtype=F64))[0])
    return wrap(rnn)


def cells(h: int = 128, n: int = 2) -> dict:
    """name → builder(generator) of the benchmarked cells (float64)."""
    out = {
        "SGORNN": lambda g: SGORNN(n, h, k=14, generator=g, dtype=F64),
        "FastRNN": lambda g: FastRNN(n, h, generator=g, dtype=F64),
        "orthogonal RNN (VPRNN, tanh)": lambda g: VPRNN(n, h, activation="tanh", generator=g, dtype=F64),
        "GRU (nc_gru eq. 1)": lambda g: GRU(n, h, generator=g, dtype=F64),
    }
    if wrap is not None:
        out["torch.nn.RNN orthogonal (wrapped)"] = lambda g: _orthogonal_torch_rnn(n, h, g)
        out["torch.nn.GRU (wrapped)"] = lambda g: wrap(_seeded(torch.nn.GRU(n, h, batch_first=True, dtype=F64), g))
    return out


def machine(device: str) -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            names = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
        if names:
            cpu = f"{names[0]} × {len(names)} logical CPUs"
    except OSError:
        pass
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    gpu = f", {torch.cuda.get_device_name()}" if device == "cuda" else ""
    return (f"{platform.system()} {platform.release()}, {cpu}{gpu}; torch {torch.__version__}, "
            f"{torch.get_num_threads()} intra-op threads; load average {load}")


def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def gemm_rate(h: int, device: str, rows: int = 96, repeats: int = 5) -> float:
    """torch's float64 GEMM rate (flop/s) on the engine's shape (rows·h × h)·(h × h), best of ``repeats``."""
    A = torch.randn(rows * h, h, dtype=F64, device=device)
    M = torch.randn(h, h, dtype=F64, device=device)
    out = torch.empty_like(A)
    for _ in range(2):
        torch.mm(A, M, out=out)
    best = math.inf
    for _ in range(repeats):
        _sync(device)
        t0 = time.perf_counter()
        for _ in range(5):
            torch.mm(A, M, out=out)
        _sync(device)
        best = min(best, (time.perf_counter() - t0) / 5)
    return 2 * rows * h * h * h / best


def _sequence(T: int, gen: torch.Generator, device: str) -> torch.Tensor:
    return addition_problem(1, T, generator=gen)[0][0].to(device=device, dtype=F64)


def _spot_check(cell, x, maps, gen: torch.Generator, pairs: int = 4) -> float:
    """Largest relative difference of the map's spectral values on a few pairs against the 2-norm of
    the product of the per-step Jacobians (svdvals)."""
    J, _ = step_jacobians(cell, x)
    T = J.shape[0]
    worst = 0.0
    for _ in range(pairs):
        s = int(torch.randint(0, T, (1,), generator=gen))
        t = int(torch.randint(s + 1, T + 1, (1,), generator=gen))
        P = torch.eye(J.shape[1], dtype=F64, device=J.device)
        for k in range(s, t):
            P = J[k] @ P
        exact = float(torch.linalg.matrix_norm(P, 2))
        worst = max(worst, abs(float(maps.spectral[t, s]) - exact) / exact)
    return worst


def efficiency_table(Ts, rtols, repeats: int, device: str, seed: int, only=None) -> None:
    h = 128
    print("\n| cell | T | rtol | map s | GEMM GFLOP/s | efficiency | time vs rtol 1e-10 | max rel diff (4 pairs) | "
          "paths |\n|---|---|---|---|---|---|---|---|---|", flush=True)
    for T in Ts:
        for name, build in cells(h).items():
            if only and not any(o.lower() in name.lower() for o in only):
                continue
            gen = torch.Generator().manual_seed(seed)
            try:
                cell = build(gen).to(device)
            except Exception as err:  # a wrapped module whose adapter takes other arguments
                print(f"| {name} | {T} | – | skipped: {type(err).__name__}: {err} | | | | | |", flush=True)
                continue
            x = _sequence(T, gen, device)
            times, rates, maps = {r: [] for r in rtols}, [], {}
            for _ in range(repeats):
                for rtol in rtols:  # interleaved: each repetition runs every tolerance once
                    rates.append(gemm_rate(h, device))
                    _sync(device)
                    t0 = time.perf_counter()
                    maps[rtol] = hidden_jacobian_maps(cell, x, norms=("spectral", "frobenius"), rtol=rtol)
                    _sync(device)
                    times[rtol].append(time.perf_counter() - t0)
            rate = statistics.median(rates)
            base = min(times[rtols[0]])
            for rtol in rtols:
                sec = min(times[rtol])
                eff = T * T * h ** 3 / sec / rate
                st = {k: v for k, v in maps[rtol].stats.items() if v}
                diff = _spot_check(cell, x, maps[rtol], torch.Generator().manual_seed(seed + 1))
                print(f"| {name} | {T} | {rtol:.0e} | {sec:.2f} | {rate / 1e9:.1f} | {eff:.2f} | {base / sec:.2f}× | "
                      f"{diff:.1e} | {st} |", flush=True)


def _time(fn, device: str) -> float:
    _sync(device)
    t0 = time.perf_counter()
    fn()
    _sync(device)
    return time.perf_counter() - t0


def naive_time(cell, x, limit: float, device: str) -> tuple[float, bool]:
    """Seconds of one naive run on x (T, n), or an extrapolation a·T + b·T² from runs at T/8 and T/4
    where the full run is predicted to exceed ``limit`` seconds (flag True)."""
    T = x.shape[0]
    T1, T2 = max(4, T // 8), max(8, T // 4)
    t1 = _time(lambda: naive_hidden_jacobian_maps(cell, x[:T1]), device)
    t2 = _time(lambda: naive_hidden_jacobian_maps(cell, x[:T2]), device)
    # a·T + b·T² through both points (b, a ≥ 0: noise cannot make the cost shrink with T)
    b = max(0.0, (t2 / T2 - t1 / T1) / (T2 - T1))
    a = max(0.0, t1 / T1 - b * T1)
    predicted = a * T + b * T * T
    if predicted > limit:
        return predicted, True
    return _time(lambda: naive_hidden_jacobian_maps(cell, x), device), False


def grid(hs, Ts, repeats: int, limit: float, device: str, seed: int, rtol: float) -> None:
    build = ((lambda n, h, g: wrap(_seeded(torch.nn.GRU(n, h, batch_first=True, dtype=F64), g))) if wrap is not None
             else (lambda n, h, g: GRU(n, h, generator=g, dtype=F64)))
    label = "torch.nn.GRU (wrapped)" if wrap is not None else "GRU (nc_gru eq. 1)"
    print(f"\nRatio naive / fast for {label}, rtol {rtol:.0e}, float64, {device}; min of {repeats} interleaved runs"
          f"\n| h | T | naive s | fast s | ratio | method | note |\n|---|---|---|---|---|---|---|", flush=True)
    for h in hs:
        for T in Ts:
            gen = torch.Generator().manual_seed(seed)
            cell = build(2, h, gen).to(device)
            x = _sequence(T, gen, device)
            hidden_jacobian_maps(cell, x[:3], rtol=rtol)  # warm-up (first-call costs of torch.func, LAPACK)
            naive, fast, extrapolated = [], [], False
            for _ in range(repeats):
                sec, ex = naive_time(cell, x, limit, device)
                naive.append(sec)
                extrapolated |= ex
                fast.append(_time(lambda: hidden_jacobian_maps(cell, x, rtol=rtol), device))
            method = choose_method("auto", T, h, h, h)
            print(f"| {h} | {T} | {min(naive):.3f} | {min(fast):.3f} | {min(naive) / min(fast):.1f} | {method} | "
                  f"{'extrapolated' if extrapolated else ''} |", flush=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="T = 300 only (efficiency) / T ∈ {30, 100} (grid)")
    ap.add_argument("--T", type=count, nargs="+", default=None, help="override the lengths of the efficiency table")
    ap.add_argument("--rtol", type=rtol_option, nargs="+", default=list(RTOLS))
    ap.add_argument("--cells", nargs="+", default=None, help="only cells whose name contains one of these words")
    ap.add_argument("--grid", action="store_true", help="the h × T grid against the naive method instead")
    ap.add_argument("--grid-h", type=count, nargs="+", default=list(GRID_H))
    ap.add_argument("--grid-T", type=count, nargs="+", default=None)
    ap.add_argument("--grid-rtol", type=rtol_option, default=1e-10)
    ap.add_argument("--naive-limit", type=positive_float, default=60.0, help="seconds; longer naive runs are extrapolated")
    ap.add_argument("--repeats", type=count, default=1)
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        ap.error("--device cuda: no CUDA device")
    if args.cells and not any(w in name for name in cells(8) for w in args.cells):
        ap.error(f"--cells: no cell name contains any of {args.cells}")
    print("machine:", machine(args.device))
    if args.grid:
        Ts = args.grid_T or ([30, 100] if args.quick else list(GRID_T))
        grid(args.grid_h, Ts, args.repeats, args.naive_limit, args.device, args.seed, args.grid_rtol)
    else:
        Ts = args.T or ([300] if args.quick else [300, 1000])
        efficiency_table(Ts, tuple(args.rtol), args.repeats, args.device, args.seed, args.cells)
    print("machine after:", machine(args.device))


if __name__ == "__main__":
    main()
