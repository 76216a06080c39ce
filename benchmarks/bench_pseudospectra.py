"""Benchmark: EigTool-style pseudospectra (analysis.pseudospectra) against one dense SVD per grid point.

Times σ_min(zI − A) on a grid×grid grid for an n×n random non-normal matrix
(A = G/√n, G with i.i.d. N(0, 1) entries: eigenvalues fill the unit disc, ‖A‖_F² ≈ n but
Σ|λ|² ≈ n/2, so Henrici's departure from normality is ≈ √(n/2)). The dense baseline
(scipy.linalg.svdvals(zI − A) per point) is timed on a random sample of grid points in the
same run and extrapolated to the whole grid. Prints the speed ratio (target ≥ 20×), the
largest relative σ_min disagreement on the sample (target ≤ 1e-8) and the machine.

Both methods run with the same BLAS thread count (``--threads``, default 1): on a shared,
loaded machine multi-threaded OpenBLAS spin-waits and both timings become erratic.

Usage: python benchmarks/bench_pseudospectra.py [--n 256] [--grid 200] [--sample 400]
       [--threads 1] [--seed 0]
Exit status 0 if both targets are met, 1 otherwise. Not a test (it takes about a minute).
"""

from __future__ import annotations

import argparse
import os
import sys

from rnnaudit.cli.argtypes import count


def _parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=count, default=256, help="matrix size (default 256)")
    p.add_argument("--grid", type=count, default=200, help="grid points per axis (default 200)")
    p.add_argument("--sample", type=count, default=400, help="grid points for the dense baseline (default 400)")
    p.add_argument("--threads", type=count, default=1, help="BLAS/torch threads for both methods (default 1)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if min(args.n, args.grid) < 2:
        p.error(f"--n and --grid must be at least 2, got {args.n} and {args.grid}")
    return args


def main(argv=None) -> int:
    args = _parse(argv)
    # Thread counts must be fixed before NumPy/SciPy/torch load their BLAS.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)

    import platform
    import time

    import numpy as np
    import scipy
    import torch

    from rnnaudit.analysis.pseudospectra import pseudospectrum, sigma_min_dense
    from rnnaudit.analysis.spectra import schur_departure

    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    n, m = args.n, args.grid
    A = torch.as_tensor(rng.standard_normal((n, n)) / np.sqrt(n))
    x = np.linspace(-1.5, 1.5, m)
    y = np.linspace(-1.5, 1.5, m)

    t0, c0 = time.perf_counter(), time.process_time()
    grid = pseudospectrum(A, x, y, seed=args.seed)
    t_fast, c_fast = time.perf_counter() - t0, time.process_time() - c0

    flat = rng.choice(m * m, size=min(args.sample, m * m), replace=False)
    iy, ix = np.unravel_index(flat, (m, m))
    z = x[ix] + 1j * y[iy]
    t0, c0 = time.perf_counter(), time.process_time()
    dense = sigma_min_dense(A, z).numpy()
    t_sample, c_sample = time.perf_counter() - t0, time.process_time() - c0
    t_dense = t_sample * (m * m) / flat.size
    c_dense = c_sample * (m * m) / flat.size

    fast = grid.sigma.numpy()[iy, ix]
    rel = np.abs(fast - dense) / dense
    ratio = t_dense / t_fast
    steps = grid.lanczos_steps.numpy()

    print("== pseudospectra benchmark ==")
    print(f"machine   : {platform.platform()} | {platform.processor() or platform.machine()} | "
          f"os.cpu_count()={os.cpu_count()} | usable CPUs={len(os.sched_getaffinity(0))} | "
          f"load average={tuple(round(v, 2) for v in os.getloadavg())}")
    print(f"software  : python {platform.python_version()} | torch {torch.__version__} | "
          f"scipy {scipy.__version__} | numpy {np.__version__} | BLAS/torch threads={args.threads}")
    print(f"matrix    : n={n}, A = randn/sqrt(n), seed={args.seed}, rho(A)={float(grid.eigenvalues.abs().max()):.4f}, "
          f"dep_F(A)/||A||_F={float(schur_departure(A)) / float(torch.linalg.matrix_norm(A)):.3f}")
    print(f"grid      : {m}x{m} = {m * m} points on [-1.5, 1.5]^2; sigma_min range "
          f"[{float(grid.sigma.min()):.3e}, {float(grid.sigma.max()):.3e}]")
    print(f"fast      : {t_fast:.2f} s total ({1e3 * t_fast / (m * m):.3f} ms/point incl. Schur), "
          f"Lanczos steps median {np.median(steps):.0f}, max {steps.max()}")
    print(f"dense     : {t_sample:.2f} s for {flat.size} sampled points ({1e3 * t_sample / flat.size:.2f} ms/point) "
          f"-> {t_dense:.1f} s extrapolated to the grid")
    ok_speed, ok_acc = ratio >= 20, rel.max() <= 1e-8
    print(f"cpu time  : fast {c_fast:.2f} s, dense {c_sample:.2f} s for the sample -> {c_dense:.1f} s extrapolated; "
          f"ratio {c_dense / c_fast:.1f}x")
    print(f"speed     : {ratio:.1f}x wall clock  (target >= 20x: {'PASS' if ok_speed else 'FAIL'})")
    print(f"accuracy  : max relative |sigma_fast - sigma_dense|/sigma_dense = {rel.max():.2e} over {flat.size} points "
          f"(median {np.median(rel):.1e}; target <= 1e-8: {'PASS' if ok_acc else 'FAIL'})")
    return 0 if ok_speed and ok_acc else 1


if __name__ == "__main__":
    sys.exit(main())
