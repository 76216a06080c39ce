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
                               allow_large: bool = False, factory: str | None = None) -> dict:
    """Every claim put to the model of one checkpoint of a monitored run (the run directory's latest, its
    checkpoint of ``step``, or a checkpoint file inside it), on the run's probe sequences.

    ``factory`` (``"package.module:function"``, given by the caller) rebuilds a model that is not a torch
    recurrent module or one of rnnaudit's cells; the factory the run records is never imported
    (:func:`rnnaudit.monitoring.runs.rebuild_model`).

    Returns:
        {"step", "config": {"cell", "task", "T", "hidden_size"}, "model": {"type", "hidden_size",
        "input_size", "trained_dtype"}, "claims": [per claim: id, applies, reason, reading,
        assumptions, verdict, worst_ratio]} (as :func:`rnnaudit.auditing.audit`).

    A run recorded without ``inputs`` gets every assumption judged on the parameters (and the monitor's
    ``T``), each that needs the inputs (or T, when the monitor was given none) reported as not evaluated
    (``holds`` None) with the reason, and ``"bounds_not_measured"`` saying why no bound was measured.

    Raises:
        rnnaudit.untrusted.InputError: not a monitored run, no such checkpoint, a model that cannot be
            rebuilt (no factory for a module other than torch's, or a factory the run names but the
            caller did not pass).
        rnnaudit.limits.TooLargeError: sizes above the limits (``allow_large`` lifts them).
    """
    from rnnaudit.cells.adapters import wrap

    run_dir = monitored_run_of(path)
    if run_dir is None:
        raise InputError(f"{path} is neither a run directory of rnnaudit.Monitor nor a checkpoint inside one")
    info = read_monitored_run(run_dir, allow_large=allow_large)
    ckpt = load_monitored_checkpoint(path, step, allow_large=allow_large)
    module, readout = rebuild_model(ckpt, factory=factory, allow_large=allow_large)
    model = wrap(module, **info.get("wrap_kwargs", {})) if info.get("wrap_kwargs") else module
    trained = next((p.dtype for p in module.parameters() if p.is_floating_point()), None)
    if info.get("inputs") is None:  # the assumptions need only the parameters (and T); the bounds need inputs
        check_sizes(f"{run_dir}", allow_large=allow_large, T=info.get("T"), hidden=wrap(model).hidden_size)
        result = _audit_without_inputs(model, readout, trained, info.get("T"))
        T = info.get("T")
    else:
        x = monitored_inputs(run_dir, wrap(model).input_size, allow_large=allow_large)
        check_sizes(f"{run_dir}", allow_large=allow_large, T=x.shape[1], batch=x.shape[0],
                    hidden=wrap(model).hidden_size)
        result = audit(model, x, readout=readout, T=x.shape[1], trained_dtype=trained, measure_bounds=measure_bounds,
                       diagnostics=measure_bounds)
        T = int(x.shape[1])
    # the rebuilt module holds the weights as used; the user's was parametrized as run.json says
    result["model"]["type"] = type_name(ckpt["model"].get("type", result["model"]["type"]),
                                        ckpt["model"].get("parametrized") or [])
    task = "the monitor's probe inputs (inputs.pt)" if info.get("inputs") else "none (the monitor was given no inputs)"
    config = {"cell": _label(ckpt["model"], factory or ckpt.get("factory")), "task": task, "T": T,
              "hidden_size": result["model"]["hidden_size"]}
    return {"step": int(ckpt["step"]), "config": config, **result}


#: Why the bounds of a run without inputs are not measured (the audit says so beside its claims).
NO_INPUTS = ("the bounds were not measured: the monitor was given no inputs, so there are no sequences to measure "
             "them on (pass Monitor(..., inputs=x), a few of your sequences)")


def _audit_without_inputs(model, readout, trained, T: int | None) -> dict:
    """The assumptions of every claim, judged without the user's inputs.

    A claim's cases are built from sequences, so each is built from two draws of random sequences, and
    (without the monitor's ``T``) at two lengths: an assumption whose result or detail is the same on all
    of them reads only the parameters and is reported; one that changes with the draw depends on the
    inputs, and one that changes with the length depends on T: both are reported as not evaluated, with
    the reason. No bound is measured.
    """
    from rnnaudit.cells.adapters import wrap

    n = wrap(model).input_size
    lengths = [T] if T is not None else [7, 11]
    runs = {}
    for length in lengths:
        for seed in (0, 1):
            x = torch.randn(2, length, n, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
            runs[(length, seed)] = audit(model, x, readout=readout, T=length, trained_dtype=trained,
                                         measure_bounds=False)
    first = runs[(lengths[0], 0)]
    claims = []
    for i, claim in enumerate(first["claims"]):
        versions = [r["claims"][i] for r in runs.values()]
        if not all(v["applies"] == claim["applies"] and len(v["assumptions"]) == len(claim["assumptions"])
                   for v in versions):
            claims.append({**claim, "applies": True, "assumptions": [], "assumptions_hold": None,
                           "reading": "not evaluated: whether its cases can be built depends on the inputs",
                           "verdict": None, "worst_ratio": None})
            continue
        assumptions = []
        for j, a in enumerate(claim["assumptions"]):
            seen = {key: (r["claims"][i]["assumptions"][j]["holds"], r["claims"][i]["assumptions"][j]["detail"])
                    for key, r in runs.items()}
            if len(set(seen.values())) == 1:
                assumptions.append(a)
                continue
            by_draw = all(seen[(length, 0)] == seen[(length, 1)] for length in lengths)
            why = ("it depends on T and the monitor was given no T= (pass Monitor(..., T=...))" if by_draw
                   else "it depends on the inputs, and the monitor was given none")
            names = {r["claims"][i]["assumptions"][j]["name"] for r in runs.values()}
            name = a["name"] if len(names) == 1 else a["name"].replace(f"T = {lengths[0]}", "the run's T")
            assumptions.append({"name": name, "holds": None, "detail": f"not evaluated: {why}"})
        holds = [a["holds"] for a in assumptions]
        verdict_hold = False if False in holds else (None if None in holds else True)
        if not claim["applies"]:
            reading = claim["reading"]
        elif verdict_hold is False:
            reading = "assumptions fail: the theorem says nothing here"
        elif verdict_hold is None:
            reading = "some assumptions not evaluated (no inputs); the bound was not measured"
        elif not assumptions:
            reading = claim["reading"]
        else:
            reading = "assumptions hold; the bound was not measured (no inputs)"
        claims.append({**claim, "assumptions": assumptions, "reading": reading,
                       "assumptions_hold": verdict_hold if claim["applies"] else None, "verdict": None,
                       "worst_ratio": None})
    return {"model": first["model"], "claims": claims, "bounds_not_measured": NO_INPUTS}


def audit_monitored_run(run_dir: str | os.PathLike, *, allow_large: bool = False, factory: str | None = None) -> dict:
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
    audits = [audit_monitored_checkpoint(run_dir, step=s, measure_bounds=False, allow_large=allow_large,
                                         factory=factory) for s in steps[:-1]]
    latest = audit_monitored_checkpoint(run_dir, step=steps[-1], allow_large=allow_large, factory=factory)
    audits.append(latest)
    dtype = getattr(torch, latest["model"]["trained_dtype"])
    first = first_failures(audits, recorded_failures(latest["claims"], read_trajectory(run_dir), dtype))
    return {"checkpoints": [{"step": a["step"], "claims": a["claims"]} for a in audits], "first_failure": first,
            "latest": latest, "model": latest["model"]}
