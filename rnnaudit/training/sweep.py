"""Sweeps: a run-spec file lists runs (cells × T × learning rates × seeds, like sgornn.md's
learning-rate search, Sec. 3.1); they run one after another here, or go to an existing
scheduler (SLURM through ``submitit``) when the user has a cluster. No home-made distributed
runner.

Spec (JSON, or TOML with the same structure)::

    {"out": "runs/lr-search",
     "base": {"task": "adding", "steps": 20000, "preset": "sgornn-addition"},
     "grid": {"cell": ["sgornn", "fastrnn"], "T": [500, 1000], "lr": [1e-2, 1e-3, 1e-4], "seed": [1]}}

Each run's directory is ``out/<key>=<value>_...`` in grid order; a run whose directory already
holds a final checkpoint is skipped, one with a partial run is resumed.
"""

from __future__ import annotations

import itertools
import json
import tomllib
from dataclasses import fields
from pathlib import Path

from rnnaudit.training import PRESETS, TrainConfig, load_checkpoint, preset_config, train

__all__ = ["load_spec", "expand", "run_sweep", "submit_sweep"]


def load_spec(path: str | Path) -> dict:
    """Read a sweep spec from .json or .toml.

    Raises:
        ValueError: other suffix, missing ``out``/``grid``, or an empty grid axis.
    """
    path = Path(path)
    if path.suffix == ".json":
        spec = json.loads(path.read_text())
    elif path.suffix == ".toml":
        spec = tomllib.loads(path.read_text())
    else:
        raise ValueError(f"sweep spec must be .json or .toml, got {path.name}")
    if not isinstance(spec, dict) or "out" not in spec or "grid" not in spec:
        raise ValueError(f"{path.name}: a sweep spec needs 'out' and 'grid' (and optionally 'base')")
    for key, values in spec["grid"].items():
        if not isinstance(values, list) or not values:
            raise ValueError(f"{path.name}: grid axis {key!r} must be a non-empty list, got {values!r}")
    return spec


def expand(spec: dict) -> list[tuple[Path, TrainConfig]]:
    """The (run directory, config) of every point of the grid, in grid order.

    With ``base["preset"]``, each run is :func:`rnnaudit.training.preset_config` of that preset
    with ``base`` and then the grid point as overrides (so a grid over ``cell`` drops the preset's
    cell arguments and ``param_lr``, as ``rnnaudit train --preset ... --cell ...`` does); without
    one, the :class:`TrainConfig` defaults with those overrides.

    Raises:
        ValueError: unknown preset or config field (names the field).
    """
    known = {f.name for f in fields(TrainConfig)}
    base = dict(spec.get("base", {}))
    preset = base.pop("preset", None)
    if preset is not None and preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; known: {sorted(PRESETS)}")
    keys = list(spec["grid"])
    for name in list(base) + keys:
        if name not in known:
            raise ValueError(f"unknown run field {name!r}; TrainConfig fields are {sorted(known)}")
    runs = []
    for values in itertools.product(*(spec["grid"][k] for k in keys)):
        overrides = {**base, **dict(zip(keys, values))}
        # preset_config applies the CLI's rule: a grid value that changes the preset's cell (task,
        # optimizer) drops the preset's cell_kwargs and param_lr (task_kwargs, optimizer_kwargs).
        config = preset_config(preset, **overrides) if preset is not None else TrainConfig(**overrides)
        name = "_".join(f"{k}={v}" for k, v in zip(keys, values))
        runs.append((Path(spec["out"]) / name, config))
    return runs


def _finished(run_dir: Path, config: TrainConfig) -> bool:
    try:
        return int(load_checkpoint(run_dir)["step"]) >= config.steps
    except (ValueError, FileNotFoundError):
        return False


def run_sweep(spec: dict, *, progress: bool = True) -> list[dict]:
    """Run every point of the grid here, one after another; finished runs are skipped and partial
    ones resumed. Returns one summary per run (with its directory)."""
    out = []
    for run_dir, config in expand(spec):
        if _finished(run_dir, config):
            out.append({"run": str(run_dir), "skipped": True})
            continue
        resume = (run_dir / "checkpoints" / "latest.txt").exists()
        out.append({"run": str(run_dir), **train(config, run_dir, resume=resume, progress=progress)})
    return out


def submit_sweep(spec: dict, *, folder: str | Path, slurm: dict | None = None):
    """Hand every run to SLURM through ``submitit`` (one job per run); returns the jobs.

    Raises:
        RuntimeError: submitit is not installed (``pip install submitit``).
    """
    try:
        import submitit
    except ImportError as err:
        raise RuntimeError("submitting a sweep needs submitit: pip install submitit") from err
    executor = submitit.AutoExecutor(folder=str(folder))
    executor.update_parameters(**(slurm or {}))
    jobs = []
    for run_dir, config in expand(spec):
        if not _finished(run_dir, config):
            resume = (run_dir / "checkpoints" / "latest.txt").exists()
            jobs.append(executor.submit(train, config, run_dir, resume=resume, progress=False))
    return jobs
