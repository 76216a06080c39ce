"""The diagonal fast path against the general path, in one run: all-pairs ‖∂h_t/∂h_s‖₂ of a width-N diagonal layer.

    python benchmarks/bench_diagonal.py                  # N = 1024, T = 2000, and a T = 10⁴ heatmap on a grid
    python benchmarks/bench_diagonal.py --complex        # the same with a complex state (real view of width 2N)
    python benchmarks/bench_diagonal.py --N 256 --T 500 --general-T 6 12

The layer is an input-dependent diagonal recurrence, Mamba's selective scan for one channel (Gu & Dao 2023,
arXiv 2312.00752, Alg. 2: h_t = Ā_t ⊙ h_{t−1} + B̄_t x_t with Ā_t = exp(Δ_t A), Δ_t = softplus(G x_t)), which
declares its Jacobian diag(Ā_t) (``diagonal_jacobian``). Inputs: standard normal, n = 2, float64, ``--seed``.

Each time is the fastest of ``--repeats`` runs, after one untimed warm-up call of each path.

* **Fast path**: :func:`analysis.jacobian.hidden_jacobian_maps` with ``method="auto"`` (which takes
  :mod:`analysis.diagonal`: prefix products of |a|, one max over i per pair), all (T + 1)(T + 2)/2 pairs.
* **General path**: the same call with ``method="products"`` (the certified engine: the per-step N × N Jacobians
  by forward mode, one GEMM per t, a certified norm per pair). At N = 1024, T = 2000 it would form T²N³ ≈ 4·10¹⁵
  flops of products (hours), so it is timed at two short lengths T₁ < T₂ (``--general-T``) and extrapolated by its
  cost structure a·T + b·T² (the per-step Jacobians; products and norms of t blocks at step t), as
  ``bench_jacobian.py --grid`` extrapolates the naive method. The output says so. The lower extrapolation b·T² alone
  (dropping the linear term) gives a second, smaller ratio, also printed. Both paths' maps at T₁ are compared.

Absolute times depend on the machine and its load (printed before and after); the ratio is the result.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402
from torch import nn  # noqa: E402

from rnnaudit.analysis.jacobian import hidden_jacobian_maps  # noqa: E402
from rnnaudit.cli.argtypes import count, seed as seed_option  # noqa: E402

F64 = torch.float64


class SelectiveDiagonal(nn.Module):
    """h_t = exp(Δ_t A) ⊙ h_{t−1} + Δ_t B x_t, Δ_t = softplus(G x_t) (N,), A = −(1..N)/N (S4D-Real-like); with
    ``complex_state`` A gets the imaginary parts πk (S4D-Lin) and the state is complex."""

    def __init__(self, N: int, n: int, complex_state: bool, seed: int):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.input_size, self.hidden_size = n, N
        k = torch.arange(1, N + 1, dtype=F64)
        self.A_re = nn.Parameter(-k / N)
        self.A_im = nn.Parameter(torch.pi * k / N if complex_state else torch.zeros(N, dtype=F64))
        self.G = nn.Parameter(torch.randn(N, n, generator=g, dtype=F64) * 0.5)
        self.B = nn.Parameter(torch.randn(N, n, generator=g, dtype=F64).to(torch.complex128 if complex_state else F64))
        self.cplx = complex_state

    def a(self, x_t):
        delta = nn.functional.softplus(x_t @ self.G.T)
        if self.cplx:
            return torch.exp(delta * torch.complex(self.A_re, self.A_im))
        return torch.exp(delta * self.A_re)

    def step(self, x_t, h):
        delta = nn.functional.softplus(x_t @ self.G.T)
        return self.a(x_t) * h + delta * (x_t.to(self.B.dtype) @ self.B.T)

    def diagonal_jacobian(self, x_t, h):
        return self.a(x_t)


def _load() -> str:
    return ", ".join(f"{v:.2f}" for v in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"


def _timed(fn, repeats: int = 1):
    """(the smallest of ``repeats`` wall times, the last result)."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main(argv=None) -> None:
    """Run the benchmark (module docstring).

    Raises:
        SystemExit: bad options (argparse, status 2).
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--N", type=count, default=1024, help="state width (default 1024)")
    parser.add_argument("--T", type=count, default=2000, help="sequence length of the all-pairs map (default 2000)")
    parser.add_argument("--general-T", type=count, nargs=2, default=(4, 8), metavar=("T1", "T2"),
                        help="the two short lengths the general path is timed at (default 4 8)")
    parser.add_argument("--heatmap-T", type=count, default=10000,
                        help="length of the grid heatmap timed by the fast path (default 10000; 0 skips it)")
    parser.add_argument("--complex", action="store_true", help="a complex state (probed as (Re z, Im z))")
    parser.add_argument("--repeats", type=count, default=2, help="timed runs per measurement, the fastest kept")
    parser.add_argument("--seed", type=seed_option, default=0)
    args = parser.parse_args(argv)
    T1, T2 = sorted(args.general_T)
    if T1 == T2:
        parser.error("--general-T needs two different lengths")
    if T2 > args.T:
        parser.error(f"--general-T lengths must not exceed --T = {args.T}")
    torch.manual_seed(args.seed)
    layer = SelectiveDiagonal(args.N, 2, args.complex, args.seed)
    x = torch.randn(max(args.T, args.heatmap_T), 2, dtype=F64)
    state = f"complex width {args.N} (real view {2 * args.N})" if args.complex else f"width {args.N}"
    print(f"# bench_diagonal: {platform.node()}, torch {torch.__version__}, {torch.get_num_threads()} threads; "
          f"load average {_load()}")
    print(f"# selective diagonal layer, {state}, n = 2, float64")

    # warm-up of both paths (first calls of torch.func and of the kernels), untimed
    hidden_jacobian_maps(layer, x[:2], norms=("spectral",), method="products")
    hidden_jacobian_maps(layer, x[:2], norms=("spectral",))
    # the general path at two short lengths (and the agreement of both paths there)
    general = {}
    for Tk in (T1, T2):
        general[Tk], slow = _timed(lambda: hidden_jacobian_maps(layer, x[:Tk], norms=("spectral",), method="products"),
                                   args.repeats)
        if Tk == T1:
            fast_small = hidden_jacobian_maps(layer, x[:Tk], norms=("spectral",))
            low = slow.spectral > 0
            agree = float(((fast_small.spectral - slow.spectral).abs()[low] / slow.spectral[low]).max())
            print(f"agreement at T = {T1}: max relative difference {agree:.3g} (general path certified to "
                  f"rtol {slow.rtol:g}; fast path bound {fast_small.rtol:.3g})")
        print(f"general path, T = {Tk}: {general[Tk]:.3f} s")
    # a·T + b·T² through the two points
    b = (general[T2] / T2 - general[T1] / T1) / (T2 - T1)
    a = general[T1] / T1 - b * T1
    b = max(b, 0.0)
    extrapolated = max(a, 0.0) * args.T + b * args.T ** 2
    quadratic_only = b * args.T ** 2

    fast_time, fast = _timed(lambda: hidden_jacobian_maps(layer, x[:args.T], norms=("spectral",)), args.repeats)
    assert fast.stats.get("diagonal", 0) == (args.T + 1) * (args.T + 2) // 2, "the fast path was not taken"
    print(f"fast path, T = {args.T}, all {(args.T + 1) * (args.T + 2) // 2:,} pairs: {fast_time:.3f} s "
          f"(stated relative error bound {fast.rtol:.3g})")
    print(f"general path, T = {args.T}: EXTRAPOLATED (not run) from T = {T1}, {T2} by a·T + b·T² "
          f"(a = {a:.3g} s, b = {b:.3g} s): {extrapolated:.4g} s; b·T² alone: {quadratic_only:.4g} s")
    print(f"ratio general / fast at N = {args.N}, T = {args.T}: {extrapolated / fast_time:,.0f}x "
          f"(with b·T² alone: {quadratic_only / fast_time:,.0f}x; target >= 50x)")
    if args.heatmap_T:
        steps = 256
        heat_time, _ = _timed(lambda: hidden_jacobian_maps(layer, x[:args.heatmap_T], norms=("spectral",), grid=steps))
        print(f"fast path heatmap, T = {args.heatmap_T}, {steps}-step grid: {heat_time:.3f} s")
    print(f"# load average after: {_load()}")


if __name__ == "__main__":
    main()
