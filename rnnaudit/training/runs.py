"""Run directories: checkpoints and the trajectory, written by the trainer and read by the audit,
the figures and ``compare``.

A run directory holds

- ``run.json``: the :class:`TrainConfig` (written once, atomically);
- ``trajectory.jsonl``: one JSON object per recorded step, appended and fsync'ed line by line.
  A kill can cut at most the line being written; :func:`read_trajectory` ignores a trailing
  partial line, so no flushed record is ever lost and the file never has to be repaired;
- ``checkpoints/step_XXXXXXXX.pt`` and ``checkpoints/latest.txt``: model, optimizer, scheduler
  and RNG states, written atomically, loadable with ``torch.load(..., weights_only=True)``;
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, fields
from pathlib import Path

import numpy as np
import torch

from rnnaudit.atomic import atomic_path, write_text_atomic
from rnnaudit.training.config import TrainConfig

__all__ = ["CHECKPOINT_FORMAT", "load_checkpoint", "read_trajectory"]

CHECKPOINT_FORMAT = "rnnaudit-checkpoint-1"


def _checkpoint_path(run_dir: Path, step: int) -> Path:
    return run_dir / "checkpoints" / f"step_{step:08d}.pt"


def _save_checkpoint(run_dir: Path, config: TrainConfig, step: int, model, optimizer, scheduler, data_gen,
                     updater) -> None:
    payload = {"format": CHECKPOINT_FORMAT, "config": asdict(config), "step": step,
               "model": model.state_dict(), "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
               "data_rng": data_gen.get_state(), "torch_rng": torch.get_rng_state(),
               "neumann_k": updater.k if updater is not None else 0}
    path = _checkpoint_path(run_dir, step)
    with atomic_path(path) as tmp:
        torch.save(payload, tmp)
    write_text_atomic(run_dir / "checkpoints" / "latest.txt", path.name + "\n")


def load_checkpoint(path: str | os.PathLike, map_location: str = "cpu") -> dict:
    """Load a checkpoint file (untrusted input: ``weights_only=True``) or the latest checkpoint of a
    run directory.

    Returns:
        the checkpoint dict, with ``config`` turned back into a :class:`TrainConfig`.

    Raises:
        ValueError: not an rnnaudit checkpoint, or a run directory without checkpoints.
    """
    path = Path(path)
    if path.is_dir():
        latest = path / "checkpoints" / "latest.txt"
        if not latest.is_file():
            raise ValueError(f"{path} has no checkpoints/latest.txt; is it an rnnaudit run directory?")
        path = path / "checkpoints" / latest.read_text().strip()
    payload = torch.load(path, map_location=map_location, weights_only=True)
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path} is not an rnnaudit checkpoint (format {CHECKPOINT_FORMAT})")
    known = {f.name for f in fields(TrainConfig)}
    payload["config"] = TrainConfig(**{k: v for k, v in payload["config"].items() if k in known})
    return payload


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
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.endswith("\n"):
                break  # the line a kill interrupted; everything before it was flushed whole
            out.append(json.loads(line))
    return out


def read_trajectory(run_dir: str | os.PathLike) -> dict[str, np.ndarray]:
    """All records of a run as numpy arrays, one per key (NaN where a record lacks the key).

    Keys include ``step``, ``loss``, ``val_loss``, ``grad/<role>/max|fro``, ``grad_h0``,
    ``spectral_radius``, ``spectral_norm``, ``orthogonality_defect``, ``alpha``, ``beta``,
    ``sigma_min``/``sigma_max`` and ``neumann_condition`` where they apply to the cell, and
    ``diverged`` (1 on the record of the step whose loss or gradients were NaN/Inf).

    Raises:
        ValueError: no trajectory.jsonl in ``run_dir``.
    """
    path = Path(run_dir) / "trajectory.jsonl"
    if not path.is_file():
        raise ValueError(f"{run_dir} has no trajectory.jsonl; is it an rnnaudit run directory?")
    records = _records(path)
    keys = sorted({k for r in records for k in r})
    return {k: np.array([r.get(k, np.nan) for r in records], dtype=float) for k in keys}
