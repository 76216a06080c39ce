"""``rnnaudit heatmap``, ``spectrum``, ``lyapunov`` and ``compare``: one figure each."""

from __future__ import annotations

import math
from pathlib import Path

import torch

__all__ = ["run"]


def source_of(args, n_sequences: int = 1):
    """The model and inputs the flags name: SOURCE, or --model/--arch with --weights and --inputs."""
    from rnnaudit.sources import load_source, load_user_source
    from rnnaudit.untrusted import InputError

    if args.model or args.arch:
        if args.source is not None:
            raise InputError("give either SOURCE or --model/--arch, not both")
        return load_user_source(args.model, args.weights, args.arch, inputs=args.inputs, task=args.task, T=args.T,
                                seed=args.seed, nonlinearity=args.nonlinearity, n_sequences=n_sequences,
                                allow_large=args.allow_large)
    if args.weights is not None or args.inputs is not None:
        raise InputError("--weights and --inputs go with --model or --arch")
    return load_source(args.source, T=args.T, hidden=args.hidden, seed=args.seed, step=args.step, task=args.task,
                       n_sequences=n_sequences, allow_large=args.allow_large)


#: Predicted seconds above which ``--method auto`` takes the randomized sketch, where that is cheaper.
AUTO_SKETCH_SECONDS = 300.0


def heatmap_plan(args, src):
    """(rtol, grid, method, estimate) of ``rnnaudit heatmap``: the grid for the heatmap-grade default (rtol 1e-3)
    and anything coarser, or wherever --resolution is given; every pair for a finer --rtol or --certified.
    On a grid, --method auto takes the certified products unless their estimate (calibrated by a GEMM timed
    now) exceeds :data:`AUTO_SKETCH_SECONDS` and the randomized sketch is predicted cheaper.

    Raises:
        InputError: a bad --block/--layer for this model, or an estimated memory above the limit (one line).
    """
    from rnnaudit.analysis import CERTIFIED_RTOL, DEFAULT_RESOLUTION, HEATMAP_RTOL, estimate_cost, state_block
    from rnnaudit.untrusted import InputError

    # --certified: the claims' tolerance; --rtol: the user's; neither: the figure's heatmap-grade default
    rtol = CERTIFIED_RTOL if args.certified else args.rtol
    grid = args.resolution
    if grid is None and (rtol is None or rtol >= HEATMAP_RTOL):
        grid = DEFAULT_RESOLUTION
    try:
        rows, _ = state_block(src.cell, args.block, args.layer)
    except ValueError as err:
        raise InputError(f"--block/--layer: {err}") from None
    limit = None if args.memory_limit is None else int(args.memory_limit * 2 ** 30)
    if args.method == "sketch" and grid is None:
        raise InputError("--method sketch samples the map on a grid: give --resolution, or drop --certified/a finer "
                         "--rtol")
    common = {"kind": args.kind, "grid": grid, "rows": rows, "cols": rows, "dtype": src.x.dtype, "memory_limit": limit,
              "calibrate": True}
    est = estimate_cost(src.cell, src.x.shape[1], method="sketch" if args.method == "sketch" else "products",
                        **common)
    if args.method == "auto" and grid is not None and est.seconds > AUTO_SKETCH_SECONDS:
        sketch = estimate_cost(src.cell, src.x.shape[1], method="sketch", **common)
        if sketch.gemms < est.gemms:
            est = sketch
    if not est.fits:
        raise InputError(f"heatmap: the {est.method} map needs about {est.peak_bytes / 2 ** 30:.3g} GiB, above the "
                         f"memory limit of {est.memory_limit / 2 ** 30:.3g} GiB (lower --resolution, a shorter --T, "
                         "or raise --memory-limit)")
    return rtol, grid, ("sketch" if est.method == "sketch" else "auto"), est


def _heatmap(args, src):
    import sys

    from tqdm import tqdm

    from rnnaudit.figures.heatmap import plot_jacobian_heatmaps

    rtol, grid, method, est = heatmap_plan(args, src)
    print(f"estimate: {est.describe()}")
    # the bar's total is the estimate's work in GEMM units (what the maps report as done), so its ETA follows the
    # model, corrected by the rate measured as the bar advances
    with tqdm(total=est.work, unit="GEMM", unit_scale=True, desc="heatmap", file=sys.stderr, dynamic_ncols=True,
              disable=not sys.stderr.isatty(), leave=False) as bar:
        return plot_jacobian_heatmaps(src.cell, src.x[0], kind=args.kind, log=not args.linear, title=src.label,
                                      rtol=rtol, grid=grid, block=args.block, layer=args.layer,
                                      memory_limit=est.memory_limit, work=bar.update, method=method)


def _spectra(args, src) -> list:
    """(path, figure) for the recurrent matrix of --role, or for each one by role: a model with several
    (a GRU's W_hr, W_hz, W_hn) gets one file each, ``<out stem>-<role><suffix>``."""
    from rnnaudit.figures.spectrum import plot_spectrum
    from rnnaudit.untrusted import InputError

    matrices = {role: W.detach() for role, W in src.cell.recurrent_matrices().items()}
    if args.role is not None:
        if args.role not in matrices:
            raise InputError(f"--role {args.role!r}: the model's recurrent matrices are {sorted(matrices)}")
        matrices = {args.role: matrices[args.role]}
    square = {r: W for r, W in matrices.items() if W.dim() == 2 and W.shape[0] == W.shape[1]}
    if not square:
        raise InputError(f"{src.label} has no square recurrent matrix (roles {sorted(matrices)})")
    out = Path(args.out)
    if len(square) == 1:
        (role, W), = square.items()
        return [(out, plot_spectrum(W, name=role, role=src.label))]
    return [(out.with_name(f"{out.stem}-{role.replace('.', '_')}{out.suffix}"),
             plot_spectrum(W, name=role, role=src.label)) for role, W in square.items()]


def _lyapunov(args, src):
    from rnnaudit.analysis.lyapunov import lyapunov_spectrum
    from rnnaudit.figures.lyapunov import plot_lyapunov

    with torch.enable_grad():
        spectrum = lyapunov_spectrum(src.cell, src.x[0], k=args.k, warmup=src.x.shape[1] // 10)
    values = spectrum.exponents.tolist()
    shown = ", ".join(f"{v:.4g}" for v in values[:10]) + (" ..." if len(values) > 10 else "")
    print(f"{src.label}: {len(values)} Lyapunov exponent(s), nats per step, largest first: {shown}")
    print(f"largest: {values[0]:.6g} ± {2 * float(spectrum.stderr[0]):.2g} (2 standard errors over "
          f"{spectrum.finite_time.shape[0]} windows); converged at 1e-2: {spectrum.converged(1e-2)}")
    return plot_lyapunov(spectrum, title=src.label)


def _compare(args):
    from rnnaudit.figures.trajectory import plot_comparison
    from rnnaudit.training import read_trajectory

    runs = {str(p): read_trajectory(p) for p in args.runs}
    return plot_comparison(runs, args.key, baselines=_baselines(args.runs) if "loss" in args.key else None)


def _baselines(run_dirs) -> dict[str, float]:
    """label → the loss of the task's trivial predictor at the run's T (from its run.json)."""
    from rnnaudit.training.runs import read_run_config
    from rnnaudit.training.task_specs import TASK_SPECS

    from rnnaudit.untrusted import InputError

    out = {}
    for p in run_dirs:
        try:
            config = read_run_config(p)
        except InputError:  # a trajectory without its run.json: plotted without a baseline
            continue
        value = TASK_SPECS[config.task].baseline(config.T, **config.task_kwargs)
        if value is not None and math.isfinite(value):
            out[str(p)] = float(value)
    return out


def run(args) -> int:
    from rnnaudit.figures.paper_figures import save_figure

    if args.command == "compare":
        figures = [(args.out, _compare(args))]
    else:
        src = source_of(args)
        with torch.no_grad():
            if args.command == "spectrum":
                figures = _spectra(args, src)
            else:
                figures = [(args.out, {"heatmap": _heatmap, "lyapunov": _lyapunov}[args.command](args, src))]
    for path, fig in figures:
        save_figure(fig, path)
        print(f"wrote {path}")
    return 0
