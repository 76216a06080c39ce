"""Benchmark: ``rnnaudit spectrum`` of one 64 × 64 recurrent matrix, against the import of torch in the same run.

No command of rnnaudit can start faster than ``python -c "import torch"``, so that is the baseline, timed here
beside the command (these machines differ several-fold in speed). Each matrix is the cell's only recurrent
matrix at width 64, built in float64 as the command builds it:

- ``sgornn``: U = φ(Θ) orthogonal, so normal (the exact distance formula on the default grid);
- ``fastrnn``: a random W, non-normal (inverse Lanczos on its Schur form, the slow route);
- ``sgornn-f32`` (in process only): U built in float32, as a float32 checkpoint holds it, read in float64: normal
  only to ~1e-7, so the non-normal grid, where the distance formula certified by Weyl's inequality replaces inverse
  Lanczos away from the eigenvalues.

For each: the command's wall time (median of ``--repeats`` fresh processes), the baseline's, their difference
(what the spectrum costs beyond starting Python and torch), and, in this process after imports, the stages of the
figure (the median of ``--repeats`` runs after one untimed run, so lazy imports are not counted): reading the cell,
the cost estimate, σ_min on the grid, drawing and saving the PNG with its data.

Usage: python benchmarks/bench_spectrum.py [--repeats 3] [--threads 1]
Not a test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rnnaudit.cli.argtypes import count


def _parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=count, default=3, help="fresh processes per command (default 3)")
    p.add_argument("--threads", type=count, default=1, help="BLAS/torch threads (default 1)")
    return p.parse_args(argv)


def _wall(cmd: list[str], env: dict, repeats: int) -> float:
    """Median wall time in seconds of ``cmd`` run ``repeats`` times; raises CalledProcessError if it fails."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _stages(cell: str, out: Path, dtype) -> dict[str, float]:
    """Seconds of each stage of the spectrum figure of ``cell`` at width 64 built in ``dtype``, in this process."""
    import torch

    from rnnaudit.cells.registry import build_cell
    from rnnaudit.figures.saving import save_figure
    from rnnaudit.figures.spectrum import plot_spectra, spectrum_cost, spectrum_grid
    from rnnaudit.figures.style import drawn_when_saved

    t = {}
    t0 = time.perf_counter()
    torch.manual_seed(0)
    matrices = {r: W.detach().double() for r, W in build_cell(cell, 1, 64, dtype=dtype).recurrent_matrices().items()}
    t["cell"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    spectrum_cost(matrices)
    t["estimate"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    grids = {r: spectrum_grid(W) for r, W in matrices.items()}
    t["grid"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    with drawn_when_saved():  # as the command: laid out and drawn once, by the save
        fig = plot_spectra(matrices)  # computes its own grid again: subtracted below
        t["draw"] = time.perf_counter() - t0 - t["grid"]
        t0 = time.perf_counter()
        save_figure(fig, out)
        t["save"] = time.perf_counter() - t0
    del grids
    return t


def main(argv=None) -> int:
    args = _parse(argv)
    env = {**os.environ, **{v: str(args.threads) for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                                             "MKL_NUM_THREADS")}}
    os.environ.update({k: env[k] for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")})
    print(f"load average at start: {os.getloadavg()[0]:.2f}; threads {args.threads}; repeats {args.repeats}")
    base = _wall([sys.executable, "-c", "import torch"], env, args.repeats)
    print(f"baseline  python -c 'import torch': {base:.2f} s (median)")
    import torch

    with tempfile.TemporaryDirectory() as tmp:
        for name, cell, dtype in (("sgornn", "sgornn", torch.float64), ("fastrnn", "fastrnn", torch.float64),
                                  ("sgornn-f32", "sgornn", torch.float32)):
            line = f"{name:10s} "
            if dtype == torch.float64:  # the command builds its cell in float64
                out = Path(tmp) / f"{name}.png"
                cli = _wall([sys.executable, "-m", "rnnaudit.cli", "spectrum", cell, "--hidden", "64", "--seed", "0",
                             "--out", str(out)], env, args.repeats)
                line += f"command {cli:.2f} s = baseline + {cli - base:.2f} s ({cli / base:.2f}x the baseline); "
            inproc = Path(tmp) / f"{name}-inproc.png"
            _stages(cell, inproc, dtype)  # first calls import lazily: not timed
            runs = [_stages(cell, inproc, dtype) for _ in range(args.repeats)]
            stages = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            work = statistics.median(sum(r.values()) for r in runs)
            print(line + f"in process after imports {work:.2f} s: "
                  + ", ".join(f"{k} {v:.2f}" for k, v in stages.items()))
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
