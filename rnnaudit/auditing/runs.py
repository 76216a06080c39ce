"""The audit of run directories and checkpoints: every checkpoint put to every claim, the latest with its
bounds measured, and the step at which each assumption first fails. Runs of the trainer
(:mod:`rnnaudit.training.runs`) are read here; runs of :class:`rnnaudit.Monitor` go to
:mod:`rnnaudit.auditing.monitored`.
"""

from __future__ import annotations

import os
from dataclasses import asdict
from pathlib import Path

from rnnaudit.auditing.failures import first_failures, recorded_failures
from rnnaudit.auditing.model import audit_model, model_view
from rnnaudit.auditing.monitored import audit_monitored_checkpoint, audit_monitored_run
from rnnaudit.auditing.summary import model_summary
from rnnaudit.bounds.on_model import ModelView
from rnnaudit.monitoring.runs import monitored_run_of
from rnnaudit.training import read_trajectory
from rnnaudit.training.runs import checkpoint_steps, load_trained_model
from rnnaudit.untrusted import InputError

__all__ = ["audit_checkpoint", "audit_run"]


def _audit(path, measure_bounds: bool, *, step: int | None = None, allow_large: bool = False
           ) -> tuple[dict, ModelView]:
    ckpt, model = load_trained_model(path, step=step, allow_large=allow_large)
    config = ckpt["config"]
    view = model_view(model, config)
    doc = {"step": int(ckpt["step"]), "config": asdict(config),
           "model": model_summary(model.cell, model.cell, view.parameter_dtype),
           "claims": audit_model(view, measure_bounds=measure_bounds)}
    if measure_bounds:  # the measured checkpoint (the latest of a run) gets the diagnostics every model gets
        from rnnaudit.analysis.diagnostics import state_diagnostics
        from rnnaudit.auditing.attractors import fixed_point_sections
        from rnnaudit.auditing.notes import assumption_notes
        from rnnaudit.cells.copying import probe_copy

        cell = probe_copy(model.cell)
        doc["diagnostics"] = [{"part": "state", "state": f"state ({cell.hidden_size})",
                               **state_diagnostics(cell, view.inputs.double()).to_json()}]
        doc["fixed_points"] = fixed_point_sections(cell, view.inputs.double())
        doc["notes"] = assumption_notes(doc)
    return doc, view


def audit_checkpoint(path: str | Path, *, measure_bounds: bool = True, step: int | None = None,
                     allow_large: bool = False, factory: str | None = None) -> dict:
    """The audit of one checkpoint (a file, or a run directory's latest, or its checkpoint of ``step``);
    a run of :class:`rnnaudit.Monitor` goes to :func:`rnnaudit.auditing.monitored.audit_monitored_checkpoint`.

    Args:
        factory: ``"package.module:function"`` rebuilding a monitored run's model (a module other than
            torch's recurrent ones and rnnaudit's cells); never read from the run itself.

    Returns:
        {"step", "config", "model" (:func:`rnnaudit.auditing.summary.model_summary`), "claims": [per claim: id,
        applies, reason, assumptions, verdict, ...]}.

    Raises:
        TypeError: ``path`` not a path; ``factory`` not a string; ``allow_large`` not a bool.
        rnnaudit.untrusted.InputError: not an rnnaudit checkpoint, or one whose parameters do not fit
            its config (see :func:`rnnaudit.training.runs.load_trained_model`); a ``factory`` for a
            run of the trainer (its cells are rnnaudit's own).
        rnnaudit.limits.TooLargeError: sizes above the limits (``allow_large`` lifts them).
    """
    _check_arguments(path, "path", factory, allow_large)
    if monitored_run_of(path) is not None:
        return audit_monitored_checkpoint(path, step=step, measure_bounds=measure_bounds, allow_large=allow_large,
                                          factory=factory)
    _no_factory(factory)
    return _audit(path, measure_bounds, step=step, allow_large=allow_large)[0]


def _check_arguments(path, name: str, factory, allow_large=False) -> None:
    if not isinstance(allow_large, bool):  # a truthy string would lift every limit
        raise TypeError(f"allow_large must be True or False, got {type(allow_large).__name__} {allow_large!r}")
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (str or os.PathLike), got {type(path).__name__}"
                        + (" (a bytes name: pass os.fsdecode(name), which keeps one that is not UTF-8)"
                           if isinstance(path, bytes) else ""))
    if factory is not None and not isinstance(factory, str):
        raise TypeError(f"factory must be an import string 'package.module:function', got {type(factory).__name__}")


def _no_factory(factory) -> None:
    if factory is not None:
        raise InputError("factory: a run of rnnaudit train holds one of rnnaudit's own cells, rebuilt without a "
                         "factory; factory= is for runs of rnnaudit.Monitor")


def audit_run(run_dir: str | Path, *, allow_large: bool = False, factory: str | None = None) -> dict:
    """Audit every checkpoint of a run and every trajectory record; report when each assumption
    first fails (those that need the parameters at every checkpoint, those that read recorded
    scalars at every record). A run of :class:`rnnaudit.Monitor` goes to
    :func:`rnnaudit.auditing.monitored.audit_monitored_run`.

    Returns:
        {"checkpoints": [{"step", "claims"} per checkpoint, assumptions only], "first_failure":
        {"<claim id>: <assumption>": step or None}, "latest": the full audit of the latest
        checkpoint (bounds measured), "model": its summary}.

    ``factory``: as in :func:`audit_checkpoint`.

    Raises:
        TypeError: ``run_dir`` not a path; ``factory`` not a string; ``allow_large`` not a bool.
        ValueError: not a run directory; a ``factory`` for a run of the trainer.
    """
    _check_arguments(run_dir, "run_dir", factory, allow_large)
    run_dir = Path(run_dir)
    if monitored_run_of(run_dir) is not None:
        return audit_monitored_run(run_dir, allow_large=allow_large, factory=factory)
    _no_factory(factory)
    steps = checkpoint_steps(run_dir)
    if not steps:
        raise InputError(f"{run_dir} has no checkpoints/step_*.pt; is it an rnnaudit run directory?")
    audits = [audit_checkpoint(run_dir, step=s, measure_bounds=False, allow_large=allow_large) for s in steps[:-1]]
    latest, view = _audit(run_dir, True, step=steps[-1], allow_large=allow_large)
    audits.append({"step": latest["step"], "claims": latest["claims"]})
    first = first_failures(audits, recorded_failures(latest["claims"], read_trajectory(run_dir),
                                                      view.parameter_dtype))
    return {"checkpoints": [{"step": a["step"], "claims": a["claims"]} for a in audits], "first_failure": first,
            "latest": latest, "model": latest["model"]}
