"""The audit of a run directory written by :class:`rnnaudit.Monitor`: every checkpoint put to every claim
through :func:`rnnaudit.auditing.audit` on the monitor's own probe sequences (``inputs.pt``), and the
assumptions that read recorded scalars judged at every trajectory record, as for the trainer's runs
(:func:`rnnaudit.auditing.audit_run`, which dispatches here).
"""

from __future__ import annotations

import os
from pathlib import Path

import torch

from rnnaudit.auditing.failures import first_failures, recorded_failures
from rnnaudit.auditing.model import audit
from rnnaudit.auditing.summary import type_name
from rnnaudit.limits import check_sizes
from rnnaudit.monitoring.runs import (load_monitored_checkpoint, monitored_inputs, monitored_run_of, read_monitored_run,
                                     rebuild_model)
from rnnaudit.training.runs import checkpoint_steps, read_trajectory
from rnnaudit.untrusted import InputError

__all__ = ["audit_monitored_checkpoint", "audit_monitored_run"]


def _label(description: dict, factory: str | None) -> str:
    if description.get("torch_module"):
        return f"torch.nn.{description['type']}"
    return factory or description.get("class", description.get("type", "model"))


def audit_monitored_checkpoint(path: str | os.PathLike, *, step: int | None = None, measure_bounds: bool = True,
                               allow_large: bool = False) -> dict:
    """Every claim put to the model of one checkpoint of a monitored run (the run directory's latest, its
    checkpoint of ``step``, or a checkpoint file inside it), on the run's probe sequences.

    Returns:
        {"step", "config": {"cell", "task", "T", "hidden_size"}, "model": {"type", "hidden_size",
        "input_size", "trained_dtype"}, "claims": [per claim: id, applies, reason, reading,
        assumptions, verdict, worst_ratio]} (as :func:`rnnaudit.auditing.audit`).

    Raises:
        rnnaudit.untrusted.InputError: not a monitored run, no such checkpoint, a model that cannot be
            rebuilt (no factory for a module other than torch's), no stored inputs.
        rnnaudit.limits.TooLargeError: sizes above the limits (``allow_large`` lifts them).
    """
    from rnnaudit.cells.adapters import wrap

    run_dir = monitored_run_of(path)
    if run_dir is None:
        raise InputError(f"{path} is neither a run directory of rnnaudit.Monitor nor a checkpoint inside one")
    info = read_monitored_run(run_dir)
    ckpt = load_monitored_checkpoint(path, step)
    module, readout = rebuild_model(ckpt)
    model = wrap(module, **info.get("wrap_kwargs", {})) if info.get("wrap_kwargs") else module
    x = monitored_inputs(run_dir, wrap(model).input_size)
    check_sizes(f"{run_dir}", allow_large=allow_large, T=x.shape[1], batch=x.shape[0], hidden=wrap(model).hidden_size)
    trained = next((p.dtype for p in module.parameters() if p.is_floating_point()), None)
    result = audit(model, x, readout=readout, T=x.shape[1], trained_dtype=trained, measure_bounds=measure_bounds,
                   diagnostics=measure_bounds)
    # the rebuilt module holds the weights as used; the user's was parametrized as run.json says
    result["model"]["type"] = type_name(ckpt["model"].get("type", result["model"]["type"]),
                                        ckpt["model"].get("parametrized") or [])
    config = {"cell": _label(ckpt["model"], ckpt.get("factory")), "task": "the monitor's probe inputs (inputs.pt)",
              "T": int(x.shape[1]), "hidden_size": result["model"]["hidden_size"]}
    return {"step": int(ckpt["step"]), "config": config, **result}


def audit_monitored_run(run_dir: str | os.PathLike, *, allow_large: bool = False) -> dict:
    """Audit every checkpoint of a monitored run (bounds measured at the latest only) and judge the
    recorded assumptions at every trajectory record; report when each assumption first fails.

    Returns:
        {"checkpoints": [{"step", "claims"}], "first_failure": {"<claim id>: <assumption>": step or None},
        "latest": the full audit of the latest checkpoint, "model": its summary}, as
        :func:`rnnaudit.auditing.audit_run`.

    Raises:
        rnnaudit.untrusted.InputError: as :func:`audit_monitored_checkpoint`; a run without checkpoints.
    """
    run_dir = Path(run_dir)
    steps = checkpoint_steps(run_dir)
    if not steps:
        raise InputError(f"{run_dir} has no checkpoints/step_*.pt; the monitor writes one at its first record and one "
                         "at close()")
    audits = [audit_monitored_checkpoint(run_dir, step=s, measure_bounds=False, allow_large=allow_large)
              for s in steps[:-1]]
    latest = audit_monitored_checkpoint(run_dir, step=steps[-1], allow_large=allow_large)
    audits.append(latest)
    dtype = getattr(torch, latest["model"]["trained_dtype"])
    first = first_failures(audits, recorded_failures(latest["claims"], read_trajectory(run_dir), dtype))
    return {"checkpoints": [{"step": a["step"], "claims": a["claims"]} for a in audits], "first_failure": first,
            "latest": latest, "model": latest["model"]}
