"""Benchmark: the figure stage of ``rnnaudit check --paper sgornn`` and the pseudospectrum of its
128×128 orthogonal U = φ(Θ).

1. The pseudospectrum of U on the spectrum figure's default grid, by the exact distance formula for
   normal matrices (analysis.pseudospectra, the default) and by the EigTool/Lanczos route forced with
   normal_tol = 0, in the same run; their speed ratio and largest disagreement.
2. plot_spectrum of U end to end (grid, contours, saved PNG).
3. The figure stage of ``check --paper sgornn`` without the checks: the tightness plot of the
   claims in a results.json, the sgornn paper figures (Jacobian heatmaps, spectrum) and writing
   results.json/report.md/report.html. Only APIs the previous versions had too are used for this
   part (``--stage-only``), so the same command times an older checkout.

Wall-clock and CPU (process) times are printed: on a shared, loaded machine the CPU time is the
steadier of the two. BLAS and torch use ``--threads`` threads (default 1).

Usage: python benchmarks/bench_figures.py [--results DIR/results.json] [--threads 1] [--stage-only]
Not a test.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from rnnaudit.cli.argtypes import count


def _parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--results", type=Path, default=None, help="results.json of a check (default: none, the tightness plot "
                                                   "and report of a results.json are skipped)")
    p.add_argument("--threads", type=count, default=1, help="BLAS/torch threads (default 1)")
    p.add_argument("--stage-only", action="store_true", help="only part 3 (runs on older versions too)")
    args = p.parse_args(argv)
    if args.results is not None and not args.results.is_file():
        p.error(f"--results: {str(args.results)!r} is not a file")
    return args


def _timed(fn):
    import time

    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def main(argv=None) -> int:
    args = _parse(argv)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)

    import json
    import platform
    import tempfile
    from pathlib import Path

    import torch

    torch.set_num_threads(args.threads)
    from rnnaudit.cells import SGORNN

    print(f"machine: {platform.platform()} | usable CPUs={len(os.sched_getaffinity(0))} | load average="
          f"{tuple(round(v, 2) for v in os.getloadavg())} | threads={args.threads}")
    cell = SGORNN(2, 128, k=14, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    U = cell.recurrent_matrix().detach()
    out = Path(tempfile.mkdtemp(prefix="bench_figures_"))

    if not args.stage_only:
        from rnnaudit.analysis import pseudospectrum
        from rnnaudit.figures import plot_spectrum, save_figure
        from rnnaudit.figures.spectrum import GRID_NORMAL, spectrum_grid

        axis = spectrum_grid(U).x.numpy()
        exact, t_exact, c_exact = _timed(lambda: pseudospectrum(U, axis, axis))
        lanczos, t_lz, c_lz = _timed(lambda: pseudospectrum(U, axis, axis, normal_tol=0))
        diff = float((exact.sigma - lanczos.sigma).abs().max())
        print(f"pseudospectrum of the 128x128 orthogonal U on {GRID_NORMAL}x{GRID_NORMAL}: exact distance "
              f"formula {t_exact:.3f} s wall / {c_exact:.3f} s CPU ({exact.method}); Lanczos {t_lz:.1f} s wall / "
              f"{c_lz:.1f} s CPU; ratio {t_lz / t_exact:.0f}x wall, {c_lz / c_exact:.0f}x CPU; "
              f"max |difference| {diff:.1e}")
        _, t_plot, c_plot = _timed(lambda: save_figure(plot_spectrum(U, name="U", role="SGORNN"), out / "spec.png"))
        print(f"plot_spectrum(U) with the saved PNG: {t_plot:.2f} s wall / {c_plot:.2f} s CPU")

    from rnnaudit.figures.paper_figures import PAPER_FIGURES, save_figure as save
    from rnnaudit.figures.report import write_results
    from rnnaudit.figures.tightness import plot_tightness

    total_t = total_c = 0.0
    if args.results:
        doc = json.loads(Path(args.results).read_text())
        claims = [c for c in doc["claims"] if c["id"].startswith("sgornn.")]
        (out / "figures").mkdir()
        _, t, c = _timed(lambda: save(plot_tightness(claims), out / "figures" / "sgornn_tightness.png"))
        print(f"stage: tightness plot {t:.2f} s wall / {c:.2f} s CPU")
        total_t, total_c = total_t + t, total_c + c
    figures, t, c = _timed(lambda: PAPER_FIGURES["sgornn"](out / "figures", seed=0, device="cpu", profile="quick"))
    print(f"stage: sgornn paper figures {t:.2f} s wall / {c:.2f} s CPU")
    total_t, total_c = total_t + t, total_c + c
    if args.results:
        doc = {**doc, "claims": claims, "figures": [{"caption": cap, "path": os.path.relpath(p, out)}
                                                    for cap, p in figures]}
        _, t, c = _timed(lambda: write_results(doc, out))
        print(f"stage: results.json, report.md, report.html {t:.2f} s wall / {c:.2f} s CPU")
        total_t, total_c = total_t + t, total_c + c
    print(f"figure stage total: {total_t:.2f} s wall / {total_c:.2f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
