"""When each assumption first fails over a training run: from the audits of its checkpoints and from the
scalars its trajectory records (the predicates that read only recorded quantities, such as α, β,
‖UᵀU − I‖₂ or the Neumann condition, are judged at every record)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import torch

from rnnaudit.bounds import all_claims
from rnnaudit.bounds.core import tolerances
from rnnaudit.bounds.on_model import tolerances_for

__all__ = ["first_failures", "recorded_failures"]


def first_failures(audits: list[dict], recorded: dict[str, int | None]) -> dict[str, int | None]:
    """The first training step at which each assumption fails, from the checkpoint audits (``{"step",
    "claims"}``, in step order) and the trajectory's recorded failures (:func:`recorded_failures`);
    ``None`` for one that never fails. Keys are ``"<claim id>: <assumption name>"``."""
    first: dict[str, int | None] = {}
    for a in audits:
        for c in a["claims"]:
            for check in c["assumptions"]:
                key = f"{c['id']}: {check['name']}"
                first.setdefault(key, None)
                if check["holds"] is False and first[key] is None:  # None: not evaluated
                    first[key] = a["step"]
    for key, step in recorded.items():
        if step is not None and (first.get(key) is None or step < first[key]):
            first[key] = step
        first.setdefault(key, None)
    return first


def recorded_failures(claims: list[dict], trajectory: dict[str, np.ndarray], dtype: torch.dtype) -> dict:
    """First trajectory step at which each recorded assumption of an applicable claim fails."""
    by_id = {c.id: c for c in all_claims()}
    first: dict[str, int | None] = {}
    steps = trajectory.get("step", np.array([]))
    with tolerances(tolerances_for(dtype)):
        for entry in claims:
            claim = by_id.get(entry["id"])
            if claim is None or not entry["applies"]:
                continue
            for a in claim.assumptions:
                if not a.recorded or not set(a.recorded) <= trajectory.keys():
                    continue
                key = f"{claim.id}: {a.name}"
                first.setdefault(key, None)
                for i, step in enumerate(steps):
                    values = {k: float(trajectory[k][i]) for k in a.recorded}
                    if any(np.isnan(v) for v in values.values()):
                        continue  # a record without this quantity
                    if not a.check(SimpleNamespace(**values))[0]:
                        first[key] = int(step)
                        break
    return first
