"""``rnnaudit heatmap``, ``spectrum``, ``lyapunov``, ``fixed-points`` and ``compare``: one figure each."""

from __future__ import annotations

import math

import torch

__all__ = ["run"]


def source_of(args, n_sequences: int = 1, *, with_inputs: bool = True):
    """The model and inputs the flags name: SOURCE, or --model/--arch with --weights and --inputs.
    ``with_inputs=False`` (``spectrum``, which reads only the weights): the model alone, ``x`` None."""
    from rnnaudit.sources import load_source, load_user_source
    from rnnaudit.untrusted import InputError

    inputs, task, T = (getattr(args, name, None) for name in ("inputs", "task", "T"))
    if getattr(args, "direction", None) and args.source is not None:  # rnnaudit's cells and Monitor runs: one way
        raise InputError("--direction picks one direction of a bidirectional torch module: it goes with --model, "
                         "--arch or --weights, not with SOURCE")
    if args.model and args.source is not None:  # the factory of a Monitor run, passed by the user, never read from it
        if args.weights is not None or inputs is not None or args.arch:
            raise InputError("with SOURCE, --model names the factory of its model; --weights, --inputs and --arch "
                             "go with --model alone")
        return load_source(args.source, T=T, hidden=args.hidden, seed=args.seed, step=args.step, task=task,
                           n_sequences=n_sequences, allow_large=args.allow_large, with_inputs=with_inputs,
                           factory=args.model)
    if args.model or args.arch or (args.weights is not None and args.source is None):
        if args.source is not None:
            raise InputError("give either SOURCE or --arch, not both")
        src = load_user_source(args.model, args.weights, args.arch, inputs=inputs, task=task, T=T,
                               seed=args.seed, nonlinearity=args.nonlinearity, n_sequences=n_sequences,
                               allow_large=args.allow_large, with_inputs=with_inputs,
                               submodule=getattr(args, "submodule", None), direction=getattr(args, "direction", None),
                               layer=getattr(args, "layer", None))
        for note in src.notes:  # how the file was read (a prefix chosen for the user) is said, never silent
            print(f"note: {note}")
        return src
    if getattr(args, "submodule", None):
        raise InputError("--submodule goes with --model, --arch or --weights")
    if args.weights is not None or inputs is not None:
        raise InputError("--weights and --inputs go with --model or --arch")
    return load_source(args.source, T=T, hidden=args.hidden, seed=args.seed, step=args.step, task=task,
                       n_sequences=n_sequences, allow_large=args.allow_large, with_inputs=with_inputs)


def _layer(args, src):
    """--layer for the state block, unless it already chose the recurrence (one direction of a bidirectional
    module is one layer: its cell has that layer alone)."""
    return None if src.part is not None else args.layer


#: Task sequences whose visited states seed ``rnnaudit fixed-points`` when no --inputs file is given.
FIXED_POINT_SEQUENCES = 8

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
        rows, _ = state_block(src.cell, args.block, _layer(args, src))
    except ValueError as err:
        raise InputError(f"--block/--layer: {err}") from None
    limit = None if args.memory_limit is None else max(1, int(args.memory_limit * 2 ** 30))  # 1e-12 GiB: 1 byte
    if args.method == "sketch" and grid is None:
        raise InputError("--method sketch samples the map on a grid: give --resolution, or drop --certified/a finer "
                         "--rtol")
    batch = src.x.shape[0] if getattr(args, "sequence", None) is None else 1
    common = {"kind": args.kind, "grid": grid, "rows": rows, "cols": rows, "dtype": src.x.dtype, "memory_limit": limit,
              "calibrate": True, "batch": batch}
    est = estimate_cost(src.cell, src.x.shape[1], method="sketch" if args.method == "sketch" else "auto",
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

    from rnnaudit.figures.escaping import mpl_text
    from rnnaudit.figures.heatmap import plot_jacobian_heatmaps

    from rnnaudit.cli.budget import check_budget

    pick = _sequence(args, src)
    x = src.x if pick is None else src.x[pick]
    rtol, grid, method, est = heatmap_plan(args, src)
    which = (f"sequence {pick} of {src.x.shape[0]}" if pick is not None else "the one sequence" if x.shape[0] == 1
             else f"the mean of the per-sequence norms over all {x.shape[0]} sequences")
    print(f"estimate: {est.describe()}")
    print(f"heatmap of {which}")
    check_budget("heatmap", est.seconds, args.max_minutes)
    # the bar's total is the estimate's work in GEMM units (what the maps report as done), so its ETA follows the
    # model, corrected by the rate measured as the bar advances
    with tqdm(total=est.work, unit="GEMM", unit_scale=True, desc="heatmap", file=sys.stderr, dynamic_ncols=True,
              disable=not sys.stderr.isatty(), leave=False) as bar:
        return plot_jacobian_heatmaps(src.cell, x, kind=args.kind, log=not args.linear,
                                      title=mpl_text(src.label), rtol=rtol, grid=grid, block=args.block,
                                      layer=_layer(args, src), memory_limit=est.memory_limit, work=bar.update,
                                      method=method)


def _spectra(args, src):
    """One figure, one row per square recurrent matrix (a GRU's W_hr, W_hz, W_hn), or that of --role."""
    from rnnaudit.figures.escaping import mpl_text
    from rnnaudit.figures.spectrum import default_grid, plot_spectra
    from rnnaudit.progress import progress_bar
    from rnnaudit.untrusted import InputError

    matrices = {role: W.detach() for role, W in src.cell.recurrent_matrices().items()}
    if not matrices and type(src.cell) in _transitions():
        return _transition_spectrum(args, src)
    given = [flag for flag, value in (("--inputs", args.inputs), ("--task", args.task), ("--T", args.T))
             if value is not None]
    if given:  # read only for an input-dependent transition; never accepted and then ignored
        raise InputError(f"spectrum {' '.join(given)}: {src.label} has fixed recurrent matrices, drawn from its weights "
                         "alone; inputs go with spectrum only for an input-dependent transition (a selective SSM's "
                         "Ā_t, a minGRU's 1 − z_t, an mLSTM's f′_t)")
    module = src.module
    if src.part is not None and module.num_layers > 1:  # one direction: every layer of it, as for a stack
        from rnnaudit.cells.adapters import wrap

        matrices = {f"l{k}.{role}": W.detach() for k in range(module.num_layers)
                    for role, W in wrap(module, direction=args.direction, layer=k).recurrent_matrices().items()}
    if not matrices:
        raise InputError(no_recurrent_matrix_message(src))
    if args.role is not None:
        if args.role not in matrices:
            raise InputError(f"--role {args.role!r}: the model's recurrent matrices are {sorted(matrices)}")
        matrices = {args.role: matrices[args.role]}
    square = {r: W for r, W in matrices.items() if W.dim() == 2 and W.shape[0] == W.shape[1]}
    if not square:
        raise InputError(f"{src.label} has no square recurrent matrix (roles {sorted(matrices)})")
    from rnnaudit.cli.budget import announce_and_check
    from rnnaudit.figures.spectrum import spectrum_cost

    announce_and_check("spectrum", spectrum_cost(square), args.max_minutes)
    grids = {r: default_grid(W) for r, W in square.items()}  # a Schur form each: after the budget check
    rings = {}
    if getattr(src.cell, "ring_recorded", True) and isinstance(getattr(src.cell, "r_min", None), float) \
            and isinstance(getattr(src.cell, "r_max", None), float):  # an LRU's ring, when the cell records it
        rings = {mpl_text(src.cell.recurrent_role): (src.cell.r_min, src.cell.r_max)}
    with progress_bar(sum(g * g for g in grids.values()), "spectrum", unit="point") as bar:
        # the roles may come from a run.json (a Monitor's wrap_kwargs): plain text, never mathtext
        return plot_spectra({mpl_text(r): W for r, W in square.items()}, role=mpl_text(src.label),
                            progress=bar.update, rings=rings)


def _transitions() -> dict:
    """Cell class → (name, data key) of its input-dependent diagonal transition diag(∂h_t/∂h_{t−1}) =
    ``cell.transitions(x)``: Mamba's Ā_t = exp(Δ_t A), minGRU's 1 − z_t, minLSTM's f′_t."""
    from rnnaudit.cells import MLSTM, MinGRU, MinLSTM, SelectiveSSM

    return {SelectiveSSM: ("Ā_t = exp(Δ_t A)", "Abar_t"), MinGRU: ("1 − z_t", "one_minus_z_t"),
            MinLSTM: ("f′_t = f_t/(f_t + i_t)", "f_prime_t"),
            # (C, n) decay by the scalar f′_t; with the state ordered [m, (C, n)] the step Jacobian is block
            # triangular, so f′_t (multiplicity d² + d) and ∂m_t/∂m_(t−1) ∈ {0, 1} are its eigenvalues
            MLSTM: ("f′_t, the (C, n) memory's factor", "f_prime_t")}


def _transition_spectrum(args, src):
    """The eigenvalues of an input-dependent diagonal transition (a selective SSM's Ā_t = exp(Δ_t A)) on the unit
    disk, for every step of the inputs (--inputs, or sequences of --task of length --T): the cell has no fixed
    recurrent matrix, so the inputs are read here."""
    from rnnaudit.figures.escaping import mpl_text
    import torch

    from rnnaudit.figures.transition_spectrum import plot_transition_spectrum

    if src.x is None:
        src = source_of(args, 1)
    name, key = _transitions()[type(src.cell)]
    with torch.no_grad():
        a = src.cell.transitions(src.x)  # (m, T, K), the diagonal of ∂h_t/∂h_{t−1} (an mLSTM runs its state)
    print(f"spectrum: {name} at every step of {src.x.shape[0]} sequence(s) of T = {src.x.shape[1]}, "
          f"{a.shape[-1]} modes; modulus in [{float(a.abs().min()):.4g}, {float(a.abs().max()):.4g}]")
    return plot_transition_spectrum(a, name=mpl_text(name), key=key, title=mpl_text(f"{name} of {src.label}"))


def no_recurrent_matrix_message(src) -> str:
    """The one line for a model whose recurrent matrices rnnaudit cannot find (a custom step): what to pass, with the
    model's square parameters of the state's width as the likely candidates."""
    module = getattr(src.cell, "module", None)
    params = dict((module if module is not None else src.cell).named_parameters())
    square = [name for name, p in params.items() if p.dim() == 2 and p.shape[0] == p.shape[1]]
    fitting = [name for name in square if params[name].shape[0] == src.cell.hidden_size] or square
    path = fitting[0] if fitting else "rec.weight"
    found = (f" (its square parameters: {', '.join(repr(n) for n in fitting[:4])})" if fitting
             else " (it has no square parameter)")
    return (f"spectrum: {src.label} declares no recurrent matrix rnnaudit can find{found}; name it: have --model's "
            f"factory return rnnaudit.wrap(model, recurrent={{'W': {path!r}}}) or give the module a method "
            "recurrent_matrices() -> {name: (h, h) tensor}; in Python, rnnaudit.wrap(step, recurrent={'W': tensor}) "
            "(docs/your-model.md, 'Figures of your own model')")


def _sequence(args, src):
    """--sequence as a 0-based index of the inputs' sequences, or None (all of them)."""
    from rnnaudit.untrusted import InputError

    pick = getattr(args, "sequence", None)
    if pick is not None and not pick < src.x.shape[0]:
        raise InputError(f"--sequence {pick}: the inputs hold {src.x.shape[0]} sequence(s), 0-based indices "
                         f"0..{src.x.shape[0] - 1}")
    return pick


def _lyapunov(args, src):
    from rnnaudit.analysis.lyapunov import CONVERGENCE_TOL, lyapunov_estimate
    from rnnaudit.figures.escaping import mpl_text
    from rnnaudit.figures.lyapunov import plot_lyapunov
    from rnnaudit.progress import progress_bar

    from dataclasses import replace

    from rnnaudit.analysis.lyapunov import lyapunov_cost
    from rnnaudit.cli.budget import announce_and_check

    pick = _sequence(args, src)
    m = src.x.shape[0] if pick is None else 1
    with torch.enable_grad():
        one = lyapunov_cost(src.cell, src.x.shape[1], args.k)
    # every sequence repeats the same work units: m times the estimate of one
    cost = replace(one, what=f"{one.what}, {m} sequence(s)", parts=tuple((u, m * c, s) for u, c, s in one.parts))
    announce_and_check("lyapunov", cost, args.max_minutes)
    with torch.enable_grad(), progress_bar(m * src.x.shape[1], "lyapunov") as bar:
        est = lyapunov_estimate(src.cell, src.x, k=args.k, sequence=pick, progress=bar.update)
    values = est.exponents.tolist()
    which = f"sequence {pick} of {src.x.shape[0]}" if pick is not None else \
        ("the one sequence" if m == 1 else f"the mean over all {m} sequences")
    shown = ", ".join(f"{v:.4g}" for v in values[:10]) + (" ..." if len(values) > 10 else "")
    print(f"{src.label}: {len(values)} Lyapunov exponent(s), nats per step, largest first, {which}: {shown}")
    print(f"largest: {values[0]:.6g} ± {float(est.halfwidth[0]):.2g} ({est.method}); converged at "
          f"{CONVERGENCE_TOL:g}: {est.converged(CONVERGENCE_TOL)}")
    if not est.converged(CONVERGENCE_TOL):
        print(f"warning: not converged: some exponent's stated error exceeds {CONVERGENCE_TOL:g} nats per step; "
              "these are finite-time rates, lengthen --T or give longer --inputs")
    return plot_lyapunov(est, title=mpl_text(src.label))


def _fixed_points(args, src):
    from rnnaudit.analysis.fixed_points import find_fixed_points
    from rnnaudit.figures.escaping import mpl_text
    from rnnaudit.figures.fixed_points import plot_fixed_points

    with torch.enable_grad():
        fp = find_fixed_points(src.cell, src.x, args.input, n_starts=args.starts, seed=args.seed or 0)
    fixed = int(fp.is_fixed.sum())
    print(f"{src.label}: {fixed} fixed point(s) and {len(fp) - fixed} slow point(s) under the {args.input} input, from "
          f"{fp.n_starts} starts on {src.x.shape[0]} sequence(s) ({fp.discarded} ended faster than {fp.slow_tol:.3g})")
    for i in range(len(fp)):
        top = fp.eigenvalues[i, 0]
        print(f"  {fp.kinds[i]} point {i + 1}: {fp.stability[i]}, {int(fp.n_unstable[i])} unstable direction(s), "
              f"max |λ| = {float(top.abs()):.6g}, ‖F(h) − h‖ = {float(fp.speed[i]):.3g}")
    return plot_fixed_points(fp, title=mpl_text(src.label))


def _compare(args):
    from rnnaudit.figures.trajectory import plot_comparison
    from rnnaudit.training import read_trajectory

    from rnnaudit.provenance import command_text

    # labels as valid text: a directory name that is not UTF-8 (lone surrogates) cannot be drawn
    runs = {command_text(p): read_trajectory(p) for p in args.runs}
    return plot_comparison(runs, args.key, baselines=_baselines(args.runs) if "loss" in args.key else None)


def _baselines(run_dirs) -> dict[str, float]:
    """label → the loss of the task's trivial predictor at the run's T (from its run.json).

    Raises:
        InputError: a run.json whose task is unknown, or whose T and task_kwargs the task's baseline cannot take
            (names the file and the field).
    """
    from pathlib import Path

    from rnnaudit.training.runs import read_run_config
    from rnnaudit.provenance import command_text
    from rnnaudit.training.task_specs import TASK_SPECS
    from rnnaudit.untrusted import InputError

    out = {}
    for p in run_dirs:
        try:
            config = read_run_config(p)
        except InputError:  # a trajectory without its run.json: plotted without a baseline
            continue
        where = Path(p) / "run.json"
        if not isinstance(config.task, str) or config.task not in TASK_SPECS:
            raise InputError(f"{where}: field 'task' is {str(config.task)[:60]!r}, not one of {sorted(TASK_SPECS)}")
        try:
            value = TASK_SPECS[config.task].baseline(config.T, **config.task_kwargs)
        except (TypeError, ValueError, KeyError, ZeroDivisionError, OverflowError) as err:
            raise InputError(f"{where}: fields 'T' and 'task_kwargs' do not fit the task {config.task!r}: "
                             f"{' '.join(str(err).split())[:200]}") from None
        if isinstance(value, (int, float)) and math.isfinite(value):
            out[command_text(p)] = float(value)
    return out


def run(args) -> int:
    from rnnaudit.figures.style import drawn_when_saved

    with drawn_when_saved():  # each figure is saved at once: laid out and drawn once, by its save
        return _draw_and_save(args)


def _draw_and_save(args) -> int:
    from rnnaudit.figures.saving import data_path, figure_data, save_figure

    if args.command == "compare":
        fig = _compare(args)
    else:
        # the fixed-point search starts from the states of every sequence; the other figures read the first
        # spectrum reads the weights alone, but for an input-dependent transition (read there)
        src = source_of(args, FIXED_POINT_SEQUENCES if args.command == "fixed-points" else 1,
                        with_inputs=args.command != "spectrum")
        if src.cell is None:
            from rnnaudit.untrusted import InputError

            raise InputError(f"{src.label}: a bidirectional module is two recurrences: pass --direction forward or "
                             "--direction reverse (`rnnaudit audit` reports both)")
        with torch.no_grad():
            fig = {"heatmap": _heatmap, "spectrum": _spectra, "lyapunov": _lyapunov,
                   "fixed-points": _fixed_points}[args.command](args, src)
    data = figure_data(fig)
    save_figure(fig, args.out)
    print(f"wrote {args.out}" + (f" and its data {data_path(args.out, data)}" if data is not None else ""))
    return 0
