"""Forward+backward time per sequence of every reference cell, against torch.nn.GRU of the same
width measured in the same run, and SRNN's recurrence-time scaling in d_h.

    python benchmarks/bench_cells.py [--T 1000] [--batch 64] [--sizes 128 1024] [--device cpu|cuda]
    python benchmarks/bench_cells.py --srnn-slope [--T 1000] [--batch 64] [--slope-widths 128 256 ... 8192]

Default mode: one table per width, seconds per sequence and the ratio to torch.nn.GRU (< 1 is
faster; every cell timed once per round, ``--repeats`` interleaved rounds, best kept), then the fitted
exponent of SRNN's forward time ~ d_h^slope (skipped with ``--cells``). The gated cells (GRU of
nc_gru.md eq. 1, NC-GRU, LSTM (cells)) run their fused whole-sequence paths; the "step loop" rows run
the same cells through the step-by-step reference.

    python benchmarks/bench_cells.py --sizes 128 1024 --cells GRU LSTM --repeats 3   # the gated cells only

``--srnn-slope`` (SRNN's recurrence should scale linearly in d_h: the slope shows it): forward +
backward time of SRNN (srnn.md eq. 3–5, W_p applied by a roll) and of the same network with W_p
replaced by a dense trainable d_h × d_h matrix (one matmul per step; b, loop and checks identical),
at fixed T and batch, for d_h in a geometric range; a least-squares fit of log(time) against
log(d_h) gives the exponent of each, over all widths and over the larger half (where fixed per-step
costs no longer dominate). Expected: SRNN ≈ 1 (Sec. 3 "Time complexity", Table 1), dense ≈ 2.

Absolute times depend on the machine and its load; the ratios and slopes are the result.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time

# as the CLI does (figures/__init__.py): OpenMP spin-waits make small ops crawl on a loaded machine
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np
import torch
from torch import nn

import rnnaudit.cells as cells
from rnnaudit.cli.argtypes import count


class _TorchBaseline(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, x):
        return self.module(x)[0]


def builders(n: int, h: int) -> dict:
    """Cells by name at width h (state width h; ENRNN splits it evenly between long and short)."""
    return {
        "torch.nn.GRU": lambda: _TorchBaseline(nn.GRU(n, h, batch_first=True)),
        "torch.nn.LSTM": lambda: _TorchBaseline(nn.LSTM(n, h, batch_first=True)),
        "torch.nn.RNN (dense W)": lambda: _TorchBaseline(nn.RNN(n, h, batch_first=True, nonlinearity="relu")),
        "SGORNN (VPRNN φ)": lambda: cells.SGORNN(n, h),
        "FastRNN": lambda: cells.FastRNN(n, h),
        "VPRNN": lambda: cells.VPRNN(n, h),
        "SpectralRNN m1=m2=16": lambda: cells.SpectralRNN(n, h, 16, 16),
        "oRNN m=16": lambda: cells.ORNN(n, h, 16),
        "scoRNN": lambda: cells.ScoRNN(n, h),
        "GRU (nc_gru eq. 1)": lambda: cells.GRU(n, h),
        "NC-GRU": lambda: cells.NCGRU(n, h),
        "SRNN": lambda: cells.SRNN(n, h),
        "ENRNN": lambda: cells.ENRNN(n, h // 2, h - h // 2),
        "LSTM (cells)": lambda: cells.LSTM(n, h),
        # the same three cells through their step loops (fused=False): what the fused paths replace
        "GRU (nc_gru eq. 1), step loop": lambda: _StepLoop(cells.GRU(n, h)),
        "NC-GRU, step loop": lambda: _StepLoop(cells.NCGRU(n, h)),
        "LSTM (cells), step loop": lambda: _StepLoop(cells.LSTM(n, h)),
    }


class _StepLoop(nn.Module):
    """A gated cell run through its step-by-step reference loop (``forward(x, fused=False)``)."""

    def __init__(self, cell):
        super().__init__()
        self.cell = cell

    def forward(self, x):
        return self.cell(x, fused=False)


def time_forward_backward(model, x, repeats: int) -> float:
    """Best of ``repeats`` wall times of one forward+backward pass, in seconds per sequence."""
    best = math.inf
    for _ in range(repeats):
        model.zero_grad(set_to_none=True)
        if x.is_cuda:
            torch.cuda.synchronize()
        start = time.perf_counter()
        model(x).sum().backward()
        if x.is_cuda:
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - start)
    return best / x.shape[0]


def srnn_slope(device: str, T: int, batch: int, widths=(256, 512, 1024, 2048, 4096)) -> tuple[float, list]:
    """Fit log(time) = slope · log(d_h) + c for SRNN's forward pass alone (the recurrence)."""
    rows = []
    for d_h in widths:
        model = cells.SRNN(2, d_h).to(device)
        x = torch.randn(batch, T, 2, device=device)
        with torch.no_grad():
            model(x)  # warm-up
            best = math.inf
            for _ in range(5):
                start = time.perf_counter()
                model(x)
                if device == "cuda":
                    torch.cuda.synchronize()
                best = min(best, time.perf_counter() - start)
        rows.append((d_h, best))
    slope = float(np.polyfit(np.log([r[0] for r in rows]), np.log([r[1] for r in rows]), 1)[0])
    return slope, rows


class _DenseRecurrenceSRNN(nn.Module):
    """The SRNN ``srnn`` with its fixed shift W_p replaced by a dense trainable W (d_h, d_h):
    h_t = σ(W h_{t−1} + b(x_t)). Same b (run once on all steps), same input checks and loop, so the
    only difference to ``srnn(x)`` is one (batch × d_h)·(d_h × d_h) matmul per step instead of a roll."""

    def __init__(self, srnn: cells.SRNN):
        super().__init__()
        self.srnn = srnn
        d_h = srnn.hidden_size
        p = next(srnn.parameters())
        # scaled random orthogonal-ish init keeps states O(1) over T steps, as W_p does
        self.W = nn.Parameter(torch.randn(d_h, d_h, dtype=p.dtype, device=p.device) / math.sqrt(d_h))

    def forward(self, x):
        h = self.srnn.initial_state(x, None)
        sigma, bx, w_t = cells.get_activation(self.srnn.activation), self.srnn.b(x), self.W.mT
        states = []
        for b_t in bx.unbind(1):
            h = sigma(torch.addmm(b_t, h, w_t))
            states.append(h)
        return torch.stack(states, dim=1)


def _fit_slope(widths, times) -> float:
    """Least-squares slope of log(time) against log(width)."""
    return float(np.polyfit(np.log(widths), np.log(times), 1)[0])


def srnn_dense_slopes(device: str, T: int, batch: int, widths, repeats: int = 3) -> dict:
    """Forward+backward time per sequence of SRNN and of its dense-W counterpart for each d_h in ``widths``:
    best of at least ``repeats`` runs, and of more (up to 50) while they take under 0.5 s in all.

    Returns:
        {"widths", "srnn", "dense" (seconds per sequence, lists), "slope_all": {"srnn", "dense"},
        "slope_large": {"srnn", "dense"}} — slopes of log(time) vs log(d_h) over all widths and over the
        larger half (at least two widths).
    """
    times = {"srnn": [], "dense": []}
    for d_h in widths:
        torch.manual_seed(0)
        srnn = cells.SRNN(2, d_h).to(device)
        x = torch.randn(batch, T, 2, device=device)
        for key, model in (("srnn", srnn), ("dense", _DenseRecurrenceSRNN(srnn))):
            time_forward_backward(model, x[:, : min(T, 5)], 1)  # warm-up (allocations, lazy init, kernels)
            best, spent, runs = math.inf, 0.0, 0
            # cheap widths get more runs (best of up to 50 within ~0.5 s): a loaded machine's stalls are
            # large next to a sub-millisecond pass and would otherwise bend the fitted slope
            while runs < repeats or (spent < 0.5 and runs < 50):
                t = time_forward_backward(model, x, 1)
                best, spent, runs = min(best, t), spent + t * x.shape[0], runs + 1
            times[key].append(best)
            del model
        if device == "cuda":
            torch.cuda.empty_cache()
    widths = list(widths)
    large = widths[len(widths) // 2:] if len(widths) >= 4 else widths
    k = len(widths) - len(large)
    return {"widths": widths, **times,
            "slope_all": {key: _fit_slope(widths, t) for key, t in times.items()},
            "slope_large": {key: _fit_slope(large, t[k:]) for key, t in times.items()}}


def run_srnn_slope(args) -> None:
    """``--srnn-slope`` mode: print the per-width table and the fitted exponents."""
    res = srnn_dense_slopes(args.device, args.T, args.batch, args.slope_widths, args.repeats)
    print(f"\nSRNN recurrence scaling, forward + backward, T = {args.T}, batch = {args.batch}\n"
          f"| d_h | SRNN (roll W_p) ms / sequence | dense W ms / sequence | dense / SRNN |\n|---|---|---|---|")
    for d_h, ts, td in zip(res["widths"], res["srnn"], res["dense"]):
        print(f"| {d_h} | {1e3 * ts:.3f} | {1e3 * td:.3f} | {td / ts:.1f} |")
    large = res["widths"][len(res["widths"]) // 2:] if len(res["widths"]) >= 4 else res["widths"]
    for label, key, ws in (("all widths", "slope_all", res["widths"]), ("larger half", "slope_large", large)):
        print(f"fitted exponent, time ∝ d_h^slope, {label} ({ws[0]}..{ws[-1]}): "
              f"SRNN {res[key]['srnn']:.2f}, dense {res[key]['dense']:.2f} (linear is 1, matmul is 2)")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--T", type=count, default=1000)
    parser.add_argument("--batch", type=count, default=64)
    parser.add_argument("--sizes", type=count, nargs="+", default=[128, 1024])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--repeats", type=count, default=3, help="interleaved rounds over all cells; the best is kept")
    parser.add_argument("--cells", nargs="+", default=None,
                        help="only rows whose name contains one of these strings (torch.nn.GRU is always kept)")
    parser.add_argument("--srnn-slope", action="store_true",
                        help="only time SRNN against a dense-W RNN over --slope-widths and fit the exponents")
    parser.add_argument("--slope-widths", type=count, nargs="+", default=[128 * 2 ** k for k in range(7)],
                        help="d_h values for --srnn-slope (default 128, 256, ..., 8192)")
    parser.add_argument("--threads", type=count, default=None,
                        help="torch.set_num_threads for CPU runs (default: torch's own); 1 avoids the long "
                             "stalls of a thread pool on a machine whose cores are busy with other work")
    args = parser.parse_args(argv)
    if args.device.split(":")[0] not in ("cpu", "cuda") or (args.device != "cpu" and not torch.cuda.is_available()):
        parser.error(f"--device: {args.device!r} is not cpu or an available cuda device")
    if args.cells and not any(c in name for name in builders(2, 8) for c in args.cells):
        parser.error(f"--cells: no cell name contains any of {args.cells}")
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    print(f"machine: {platform.platform()}, {torch.get_num_threads()} threads, torch {torch.__version__}, "
          f"device {args.device}" + (f" ({torch.cuda.get_device_name()})" if args.device == "cuda" else ""))
    print(f"T = {args.T}, batch = {args.batch}, float32, forward + backward, best of {args.repeats}")
    if args.srnn_slope:
        run_srnn_slope(args)
        return
    for h in args.sizes:
        x = torch.randn(args.batch, args.T, 2, device=args.device)
        print(f"\nh = {h}\n| cell | ms / sequence | ratio to torch.nn.GRU |\n|---|---|---|", flush=True)
        chosen = {name: build for name, build in builders(2, h).items()
                  if name == "torch.nn.GRU" or not args.cells or any(c in name for c in args.cells)}
        models = {name: build().to(args.device) for name, build in chosen.items()}
        for model in models.values():
            time_forward_backward(model, x[:2, :10], 1)  # warm-up (allocations, lazy init)
        best = {name: math.inf for name in models}
        for _ in range(args.repeats):  # interleaved rounds: load on the machine hits every cell alike
            for name, model in models.items():
                best[name] = min(best[name], time_forward_backward(model, x, 1))
        for name, sec in best.items():
            print(f"| {name} | {1e3 * sec:.3f} | {sec / best['torch.nn.GRU']:.2f} |", flush=True)
        del models
    if args.cells:
        return
    slope, rows = srnn_slope(args.device, T=args.T, batch=args.batch)
    print("\nSRNN recurrence (forward) time vs d_h: " + ", ".join(f"{d}: {1e3 * t:.1f} ms" for d, t in rows))
    print(f"fitted exponent: time ∝ d_h^{slope:.2f} (linear is 1)")


if __name__ == "__main__":
    main()
