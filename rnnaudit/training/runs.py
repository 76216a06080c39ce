"""Run directories: checkpoints and the trajectory, written by the trainer and read by the audit,
the figures and ``compare``.

A run directory holds

- ``run.json``: the :class:`TrainConfig`'s fields, plus ``provenance`` (versions, machine, command
  line) and ``steps_history`` (every ``steps`` the run was given, when a resume extended it);
- ``trajectory.jsonl``: one JSON object per recorded step, appended and fsync'ed line by line.
  A kill can cut at most the line being written; :func:`read_trajectory` ignores a trailing
  partial line, so no flushed record is ever lost and the file never has to be repaired;
- ``checkpoints/step_XXXXXXXX.pt`` and ``checkpoints/latest.txt``: model, optimizer, scheduler
  and RNG states and the provenance, written atomically, loadable with
  ``torch.load(..., weights_only=True)``;
- ``jacobian/step_XXXXXXXX.pt``: ‖∂h_t/∂h_s‖₂ maps at the steps listed in ``jacobian_steps``.

Everything read back is untrusted input: every reader raises
:class:`rnnaudit.untrusted.InputError` naming the file (and line or field) for anything it cannot use,
and sizes pass :func:`rnnaudit.limits.check_sizes` before a model is built.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import asdict, fields
from pathlib import Path

import numpy as np
import torch

from rnnaudit.atomic import atomic_path, write_text_atomic
from rnnaudit.limits import check_sizes
from rnnaudit.training.config import TrainConfig
from rnnaudit.untrusted import (InputError, load_torch_file, read_json_file, read_jsonl_records, read_text_file,
                               require_inside)

__all__ = ["CHECKPOINT_FORMAT", "load_checkpoint", "load_trained_model", "read_trajectory", "checkpoint_steps",
           "read_run_config"]

CHECKPOINT_FORMAT = "rnnaudit-checkpoint-1"
_CHECKPOINT_NAME = re.compile(r"step_(\d{8})\.pt")


def _checkpoint_path(run_dir: Path, step: int) -> Path:
    return run_dir / "checkpoints" / f"step_{step:08d}.pt"


def checkpoint_steps(run_dir: str | os.PathLike) -> list[int]:
    """The steps of the checkpoints a run directory holds, ascending."""
    return sorted(int(m.group(1)) for p in (Path(run_dir) / "checkpoints").glob("step_*.pt")
                  if (m := _CHECKPOINT_NAME.fullmatch(p.name)))


def _save_checkpoint(run_dir: Path, config: TrainConfig, step: int, model, optimizer, scheduler, data_gen,
                     updater, provenance: dict) -> None:
    payload = {"format": CHECKPOINT_FORMAT, "config": asdict(config), "step": step,
               "model": model.state_dict(), "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
               "data_rng": data_gen.get_state(), "torch_rng": torch.get_rng_state(),
               "neumann_k": updater.k if updater is not None else 0, "provenance": provenance}
    path = _checkpoint_path(run_dir, step)
    with atomic_path(path) as tmp:
        torch.save(payload, tmp)
    write_text_atomic(run_dir / "checkpoints" / "latest.txt", path.name + "\n")


def _latest(run_dir: Path) -> Path:
    latest = run_dir / "checkpoints" / "latest.txt"
    require_inside(latest, run_dir, "latest.txt")
    if not latest.is_file():
        raise InputError(f"{run_dir} has no checkpoints/latest.txt; is it an rnnaudit run directory with a "
                         "checkpoint?")
    name = read_text_file(latest, "latest.txt", max_bytes=4096).strip()
    if not _CHECKPOINT_NAME.fullmatch(name):  # a name, never a path: a tampered file cannot point elsewhere
        raise InputError(f"{latest}: expected a checkpoint name like step_00000100.pt, got {name[:80]!r}")
    return require_inside(run_dir / "checkpoints" / name, run_dir, "checkpoint")


def load_checkpoint(path: str | os.PathLike, map_location: str = "cpu", *, allow_large: bool = False) -> dict:
    """Load a checkpoint file (untrusted input: ``weights_only=True``) or the latest checkpoint of a
    run directory, and validate what the rest of rnnaudit relies on.

    Returns:
        the checkpoint dict, with ``config`` turned back into a :class:`TrainConfig` (fields of a
        newer version ignored, fields an older version lacked at their defaults).

    Raises:
        rnnaudit.untrusted.InputError: unreadable, not an rnnaudit checkpoint, a run directory without
            checkpoints, or a config whose fields are invalid (named).
        rnnaudit.limits.TooLargeError: T, hidden size or batch above the limits (``allow_large``).
    """
    path = Path(path)
    if path.is_dir():
        path = _latest(path)
    payload = load_torch_file(path, "checkpoint", map_location=map_location, allow_large=allow_large)
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise InputError(f"{path} is not an rnnaudit checkpoint (format {CHECKPOINT_FORMAT})")
    for key, kind in (("config", dict), ("model", dict), ("step", int)):
        if not isinstance(payload.get(key), kind) or isinstance(payload.get(key), bool):
            raise InputError(f"{path}: checkpoint field {key!r} must be a {kind.__name__}, got "
                             f"{type(payload.get(key)).__name__}")
    if payload["step"] < 0:
        raise InputError(f"{path}: checkpoint field 'step' must be ≥ 0, got {payload['step']}")
    known = {f.name for f in fields(TrainConfig)}
    try:
        config = TrainConfig(**{k: v for k, v in payload["config"].items() if k in known})
        check_sizes(f"{path}", allow_large=allow_large, T=config.T, hidden=config.hidden_size, batch=config.batch)
        config.validate(device_available=False)
    except TypeError as err:
        raise InputError(f"{path}: invalid config in the checkpoint: {err}") from None
    except ValueError as err:
        raise InputError(f"{path}: invalid config in the checkpoint: {err}") from None
    payload["config"] = config
    return payload


def load_trained_model(path: str | os.PathLike, *, step: int | None = None, allow_large: bool = False):
    """The model of a checkpoint file or run directory (its latest checkpoint, or the one of ``step``),
    on the CPU in the dtype it was trained in.

    Returns:
        ``(checkpoint dict, SequenceModel)``.

    Raises:
        rnnaudit.untrusted.InputError: see :func:`load_checkpoint`; a ``step`` with no checkpoint (the
            message lists the steps there are); a state dict that does not fit the config's model
            (missing or unexpected keys, shapes), or parameters the cell rejects (NaN, a permutation
            buffer that is not a permutation).
    """
    from rnnaudit.training.model import build_model

    path = Path(path)
    if step is not None:
        if not path.is_dir():
            raise InputError(f"--step needs a run directory, not a checkpoint file ({path})")
        candidate = require_inside(_checkpoint_path(path, step), path, "checkpoint")
        if not candidate.is_file():
            raise InputError(f"{path}: no checkpoint at step {step}; available steps: {checkpoint_steps(path)}")
        path = candidate
    ckpt = load_checkpoint(path, allow_large=allow_large)
    config = ckpt["config"]
    config.device = "cpu"
    try:
        model = build_model(config)
        model.load_state_dict(ckpt["model"])
        model.cell.check_finite()
    except (RuntimeError, ValueError, TypeError) as err:
        raise InputError(f"{path}: the saved parameters do not fit a {config.cell} of hidden size "
                         f"{config.hidden_size}: {' '.join(str(err).split())[:300]}") from None
    return ckpt, model


def read_run_config(run_dir: str | os.PathLike) -> TrainConfig:
    """The :class:`TrainConfig` of a run directory's run.json (fields of a newer version ignored, those
    an older one lacked at their defaults; not validated).

    Raises:
        rnnaudit.untrusted.InputError: no readable run.json, or fields of the wrong kind.
    """
    path = require_inside(Path(run_dir) / "run.json", run_dir, "run.json")
    saved = read_json_file(path, "run.json")
    known = {f.name for f in fields(TrainConfig)}
    try:
        return TrainConfig(**{k: v for k, v in saved.items() if k in known})
    except TypeError as err:
        raise InputError(f"{path}: {err}") from None


def _append_record(run_dir: Path, record: dict) -> None:
    with open(run_dir / "trajectory.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, allow_nan=True) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def _truncate_trajectory(run_dir: Path, last_step: int) -> None:
    """Keep only records with step ≤ last_step (those after the checkpoint will be recomputed)."""
    path = run_dir / "trajectory.jsonl"
    if not path.exists():
        return
    kept = [json.dumps(r, allow_nan=True) for r in _records(path) if r["step"] <= last_step]
    write_text_atomic(path, "".join(line + "\n" for line in kept))


def _records(path: Path) -> list[dict]:
    records = read_jsonl_records(path, "trajectory")
    for number, r in enumerate(records, start=1):
        step = r.get("step")
        if isinstance(step, bool) or not isinstance(step, int) or step < 0:
            raise InputError(f"{path}, record {number}: 'step' must be a non-negative integer, got {step!r}")
    return records


def read_trajectory(run_dir: str | os.PathLike) -> dict[str, np.ndarray]:
    """All records of a run as numpy arrays, one per key (NaN where a record lacks the key).

    Keys include ``step``, ``loss``, ``val_loss``, ``grad/<role>/max|fro``, ``grad_h0``,
    ``spectral_radius``, ``spectral_norm``, ``orthogonality_defect``, ``alpha``, ``beta``,
    ``sigma_min``/``sigma_max`` and ``neumann_condition`` where they apply to the cell, and
    ``diverged`` (1 on the record of the step whose loss or gradients were NaN/Inf).

    Raises:
        TypeError: ``run_dir`` not a path.
        rnnaudit.untrusted.InputError: no trajectory.jsonl in ``run_dir``; a line that is not a JSON
            object, or a value that is not a number (names the file, line and key).
    """
    if not isinstance(run_dir, (str, os.PathLike)):
        raise TypeError(f"run_dir must be a path (str or os.PathLike), got {type(run_dir).__name__}"
                        + (" (a bytes name: pass os.fsdecode(name), which keeps one that is not UTF-8)"
                           if isinstance(run_dir, bytes) else ""))
    path = require_inside(Path(run_dir) / "trajectory.jsonl", run_dir, "trajectory")
    if not path.is_file():
        raise InputError(f"{run_dir} has no trajectory.jsonl; is it an rnnaudit run directory?")
    records = _records(path)
    keys = sorted({k for r in records for k in r})
    out = {}
    for k in keys:
        values = []
        for number, r in enumerate(records, start=1):
            v = r.get(k, math.nan)
            if isinstance(v, bool):
                v = float(v)
            if not isinstance(v, (int, float)):
                raise InputError(f"{path}, line {number}: {k!r} must be a number, got {type(v).__name__}")
            values.append(v)
        out[k] = np.array(values, dtype=float)
    return out
