"""Sweeps: a run-spec file lists runs (cells × T × learning rates × seeds, like sgornn.md's
learning-rate search, Sec. 3.1); they run one after another in this process, or through
``submitit``: its local executor (separate processes, the code path a cluster takes) or SLURM.
No home-made distributed runner.

Spec (JSON, or TOML with the same structure)::

    {"out": "runs/lr-search",
     "base": {"task": "adding", "steps": 20000, "preset": "sgornn-addition"},
     "grid": {"cell": ["sgornn", "fastrnn"], "T": [500, 1000], "lr": [1e-2, 1e-3, 1e-4], "seed": [1]}}

Each run's directory is ``out/<key>=<value>_...`` in grid order; a run whose directory already
holds a final checkpoint is skipped, one with a partial run (killed, at any moment) is resumed, so
running a sweep again after a kill completes it to the results of an uninterrupted one.
"""

from __future__ import annotations

import itertools
from dataclasses import fields
from pathlib import Path

from rnnaudit.limits import check_sizes
from rnnaudit.outputs import DirectoryLock
from rnnaudit.training import PRESETS, TrainConfig, load_checkpoint, preset_config, train
from rnnaudit.untrusted import InputError, read_json_file, read_text_file

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

__all__ = ["load_spec", "expand", "run_sweep", "submit_sweep", "MAX_RUNS"]

#: Largest grid a spec may expand to (a typo such as a 10⁶-long list should fail fast, not queue jobs).
MAX_RUNS = 10_000


def load_spec(path: str | Path) -> dict:
    """Read a sweep spec from .json or .toml.

    Raises:
        rnnaudit.untrusted.InputError: unreadable; other suffix; not JSON/TOML (with the position);
            missing ``out``/``grid``; ``base`` or ``grid`` not a table; an empty or non-list grid axis;
            more than :data:`MAX_RUNS` runs; a run :func:`expand` rejects.
    """
    path = Path(path)
    if path.suffix == ".json":
        spec = read_json_file(path, "sweep spec")
    elif path.suffix == ".toml":
        try:
            spec = tomllib.loads(read_text_file(path, "sweep spec"))
        except tomllib.TOMLDecodeError as err:
            raise InputError(f"{path}: the sweep spec is not valid TOML ({err})") from None
    else:
        raise InputError(f"{path}: a sweep spec must be .json or .toml")
    if not isinstance(spec.get("out"), str) or not spec["out"] or not isinstance(spec.get("grid"), dict):
        raise InputError(f"{path}: a sweep spec needs 'out' (a directory name) and 'grid' (a table of lists), and "
                         "optionally 'base'")
    if not isinstance(spec.get("base", {}), dict):
        raise InputError(f"{path}: 'base' must be a table of run fields")
    runs = 1
    for key, values in spec["grid"].items():
        if not isinstance(values, list) or not values:
            raise InputError(f"{path}: grid axis {key!r} must be a non-empty list, got {values!r}")
        runs *= len(values)
    if runs > MAX_RUNS:
        raise InputError(f"{path}: the grid has {runs} runs, more than {MAX_RUNS}")
    try:
        expand(spec)  # every run valid, with the file named in the message
    except ValueError as err:
        raise InputError(f"{path}: {err}") from None
    return spec


def expand(spec: dict) -> list[tuple[Path, TrainConfig]]:
    """The (run directory, config) of every point of the grid, in grid order.

    With ``base["preset"]``, each run is :func:`rnnaudit.training.preset_config` of that preset
    with ``base`` and then the grid point as overrides (so a grid over ``cell`` drops the preset's
    cell arguments and ``param_lr``, as ``rnnaudit train --preset ... --cell ...`` does); without
    one, the :class:`TrainConfig` defaults with those overrides.

    Raises:
        ValueError: unknown preset or config field (names the field); an invalid or too large run
            (names the run).
    """
    known = {f.name for f in fields(TrainConfig)}
    base = dict(spec.get("base", {}))
    preset = base.pop("preset", None)
    if preset is not None and preset not in PRESETS:
        raise InputError(f"unknown preset {preset!r}; known: {sorted(PRESETS)}")
    keys = list(spec["grid"])
    for name in list(base) + keys:
        if name not in known:
            raise InputError(f"unknown run field {name!r}; TrainConfig fields are {sorted(known)}")
    runs = []
    for values in itertools.product(*(spec["grid"][k] for k in keys)):
        overrides = {**base, **dict(zip(keys, values))}
        name = "_".join(f"{k}={v}" for k, v in zip(keys, values)) or "run"
        try:
            # preset_config applies the CLI's rule: a grid value that changes the preset's cell (task,
            # optimizer) drops the preset's cell_kwargs and param_lr (task_kwargs, optimizer_kwargs).
            config = preset_config(preset, **overrides) if preset is not None else TrainConfig(**overrides)
            check_sizes(f"run {name}", T=config.T, hidden=config.hidden_size, batch=config.batch, steps=config.steps)
            config.validate(device_available=False)
        except (TypeError, ValueError) as err:
            raise InputError(f"run {name}: {err}") from None
        if "/" in name or name.startswith("."):
            raise InputError(f"run {name!r}: grid values must not make directory names with '/' or a leading '.'")
        runs.append((Path(spec["out"]) / name, config))
    return runs


def _finished(run_dir: Path, config: TrainConfig) -> bool:
    try:
        return int(load_checkpoint(run_dir)["step"]) >= config.steps
    except (ValueError, FileNotFoundError):
        return False


def _resume(run_dir: Path) -> bool:
    """Continue what is there: a run directory with run.json is resumed (from its checkpoint, or from step
    0 when it was killed before its first one)."""
    return (run_dir / "run.json").is_file()


def run_sweep(spec: dict, *, progress: bool = True) -> list[dict]:
    """Run every point of the grid here, one after another; finished runs are skipped and partial
    ones resumed. Returns one summary per run (with its directory).

    Raises:
        rnnaudit.outputs.LockedError: another sweep is running the same ``out``.
    """
    out = []
    runs = expand(spec)  # every run valid before anything is written
    with DirectoryLock(spec["out"]):
        for run_dir, config in runs:
            if _finished(run_dir, config):
                out.append({"run": str(run_dir), "skipped": True})
                continue
            out.append({"run": str(run_dir), **train(config, run_dir, resume=_resume(run_dir), progress=progress)})
    return out


def _train_job(config: TrainConfig, run_dir: str) -> dict:
    """One run as a submitit job (a module-level function: the job process imports it by name)."""
    path = Path(run_dir)
    return {"run": run_dir, **train(config, path, resume=_resume(path), progress=False)}


def submit_sweep(spec: dict, *, executor: str = "local", folder: str | Path = "submitit-logs",
                 parameters: dict | None = None, wait: bool | None = None) -> list[dict]:
    """Hand every unfinished run to submitit, one job per run.

    Args:
        spec: a loaded spec. executor: ``"local"`` (submitit's LocalExecutor: separate processes on
            this machine, the code path SLURM takes) or ``"slurm"``. folder: submitit's log folder.
        parameters: passed to ``executor.update_parameters`` (e.g. ``{"timeout_min": 60}``, SLURM
            partition and resources).
        wait: wait for the jobs and return their results (default: for ``"local"`` only).

    Returns:
        one dict per run: ``{"run", "skipped": True}``, ``{"run", "job_id"}`` (not waited for), or the
        run's summary with its ``job_id``.

    Raises:
        ValueError: unknown executor; submitit is not installed (the ``cluster`` extra).
    """
    try:
        import submitit
    except ImportError:
        raise ValueError("--executor local|slurm needs submitit: pip install 'rnnaudit[cluster]'") from None
    if executor == "local":
        ex = submitit.LocalExecutor(folder=str(folder))
    elif executor == "slurm":
        ex = submitit.AutoExecutor(folder=str(folder), cluster="slurm")
    else:
        raise ValueError(f"executor must be 'local' or 'slurm', got {executor!r}")
    ex.update_parameters(**({"timeout_min": 24 * 60} | (parameters or {})))
    wait = executor == "local" if wait is None else wait
    out, jobs = [], []
    runs = expand(spec)
    with DirectoryLock(spec["out"]):
        for run_dir, config in runs:
            if _finished(run_dir, config):
                out.append({"run": str(run_dir), "skipped": True})
                continue
            job = ex.submit(_train_job, config, str(run_dir))
            jobs.append(job)
            out.append({"run": str(run_dir), "job_id": job.job_id})
        if wait:
            results = {r["run"]: r for r in (job.result() for job in jobs)}
            out = [{**s, **results.get(s["run"], {})} for s in out]
    return out
