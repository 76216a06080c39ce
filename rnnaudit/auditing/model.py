"""The audit of one model: which theorems' assumptions it satisfies, and whether their bounds hold on
its parameters.

Every claim of the five papers is put to the model through its own case family
(:func:`rnnaudit.bounds.on_model.assess`): a claim about another architecture is reported as not
applicable, with the reason; for the others, the claim's own assumption predicates are evaluated on
the model's parameters (float32 parameters with :data:`rnnaudit.bounds.FLOAT32_TRAINED` slack) and
its bound is measured on sequences of the run's own task (:func:`model_view`) or on the user's own
inputs (:func:`audit`). The audit of run directories, checkpoint by checkpoint, is
:mod:`rnnaudit.auditing.runs`.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from rnnaudit.bounds import all_claims
from rnnaudit.bounds.core import NotApplicable, tolerances
from rnnaudit.bounds.on_model import ClaimOnModel, ModelView, assess, tolerances_for
from rnnaudit.bounds.sgornn.cases import gated_cases_from_model
from rnnaudit.bounds.sgornn.eq4 import fastrnn_eq4_assumption
from rnnaudit.cells import FastRNN
from rnnaudit.auditing.summary import model_summary
from rnnaudit.limits import check_sizes, check_tensor_sizes
from rnnaudit.training import TASK_SPECS

__all__ = ["task_inputs", "model_view", "audit_model", "audit"]


def _readout_weight(readout, cell) -> Tensor | None:
    """The readout weight (k, h) as float64, checked against the model's width (a wrong one would measure
    the bounds on a different output and still say "holds")."""
    if readout is None:
        return None
    if isinstance(readout, torch.nn.Module) and isinstance(getattr(readout, "weight", None), Tensor):
        readout = readout.weight
    if not isinstance(readout, Tensor):
        raise TypeError(f"readout must be the readout's weight, a tensor (k, h) (or an nn.Linear), got "
                        f"{type(readout).__name__}")
    widths = {cell.hidden_size} | {w for w in (getattr(cell, "h_size", None), getattr(cell, "units", None))
                                   if isinstance(w, int)}
    if readout.dim() != 2 or readout.shape[1] not in widths or readout.shape[0] == 0:
        raise ValueError(f"readout must be a weight of shape (k, {cell.hidden_size}) (k outputs of the state), got "
                         f"{tuple(readout.shape)}")
    if not readout.is_floating_point() or not torch.isfinite(readout).all():
        raise ValueError(f"readout must be a finite real floating tensor, got {readout.dtype}")
    return readout.detach().double()


def task_inputs(config, n_sequences: int, seed: int = 0, T: int | None = None) -> Tensor:
    """Inputs x of ``n_sequences`` fresh sequences of the run's own task, with the run's
    ``task_kwargs`` (the adding variant of enrnn.md Sec. 5.1 / nc_gru.md Sec. 4.3 among them: the
    nc_gru variant swaps the two input channels, so the default variant's inputs would audit a
    different map than the one trained).

    Args:
        config: a :class:`rnnaudit.training.TrainConfig` (one without ``task_kwargs``, as read from
            an older checkpoint, means the task's defaults). n_sequences: ≥ 1. seed: of a fresh
            CPU generator. T: sequence length (default ``config.T``).

    Returns:
        x (n_sequences, L, input_size), float32, as the trainer draws it (L = T for adding).

    Raises:
        ValueError: from the task generator (bad sizes or task_kwargs).
    """
    gen = torch.Generator().manual_seed(seed)
    kwargs = getattr(config, "task_kwargs", None) or {}
    x, _ = TASK_SPECS[config.task].generate(n_sequences, config.T if T is None else T, gen, **kwargs)
    return x


def model_view(model, config, n_sequences: int = 4, seed: int = 0) -> ModelView:
    """A trained :class:`rnnaudit.training.SequenceModel` as the claims see it: its cell, its
    readout weight and ``n_sequences`` sequences of the run's task (:func:`task_inputs`)."""
    return ModelView(model.cell, task_inputs(config, n_sequences, seed), model.readout.weight.detach(), config.T)


def _model_constraints(view: ModelView) -> list[dict]:
    """Conditions a model is audited against that no claim of the papers states as an inequality of
    its own: FastRNN's eq. 4 (sgornn.md Sec. 2.1, quoted from FastRNN) at the run's T."""
    if not isinstance(view.cell, FastRNN) or view.T is None:
        return []
    try:
        case = gated_cases_from_model(view)[0]
    except NotApplicable:
        return []
    assumption = fastrnn_eq4_assumption(view.T)
    with tolerances(tolerances_for(view.parameter_dtype)):
        holds, detail = assumption.check(case)
    entry = ClaimOnModel("sgornn.eq4", True, None, [{"name": assumption.name, "holds": bool(holds), "detail": detail}])
    return [entry.to_json()]


def audit_model(view: ModelView, *, measure_bounds: bool = True) -> list[dict]:
    """Every claim of the five papers, and FastRNN's eq. 4, put to the model (see the module
    docstring); one dict per claim (:meth:`rnnaudit.bounds.on_model.ClaimOnModel.to_json`)."""
    from rnnaudit.progress import advance

    claims = []
    for c in all_claims():
        claims.append(assess(c, view, measure_bound=measure_bounds).to_json())
        advance(1)  # one claim done, for the bar of `rnnaudit audit` (rnnaudit.progress)
    return claims + _model_constraints(view)


def audit(model, inputs: Tensor, *, readout: Tensor | None = None, T: int | None = None,
          trained_dtype: torch.dtype | None = None, measure_bounds: bool = True, allow_large: bool = False) -> dict:
    """``rnnaudit.audit(model, inputs)``: every claim of the five papers put to any recurrent model.

    Args:
        model: one of ours, a ``torch.nn.RNN``/``GRU``/``LSTM``/``*Cell`` (parametrized or geotorch
            weights included), or anything :func:`rnnaudit.wrap` accepts; probed on a float64 copy.
        inputs: sequences to measure the bounds on, (T, n) or (m, T, n).
        readout: the linear readout weight (k, h), when the model has one (a single row is the
            single-neuron output of the gradient and capacity theorems).
        T: the sequence length the model is meant for (default: the inputs').
        trained_dtype: the dtype the parameters were trained in (default: the model's own), which
            sets the slack of the assumption predicates (float32 training: :data:`rnnaudit.bounds.FLOAT32_TRAINED`).
        measure_bounds: also measure every applicable bound on the inputs.
        allow_large: lift the size limits on the inputs and T (:mod:`rnnaudit.limits`, as ``--allow-large``).

    Returns:
        {"model": :func:`rnnaudit.auditing.summary.model_summary` (type, sizes, parameter count, trained dtype,
        ‖W‖₂, ρ(W), σ_min and ‖WᵀW − I‖₂ per recurrent matrix), "claims": [per claim: id,
        applies, reason, reading, assumptions (name, holds, detail), verdict, worst_ratio]}.

    Raises:
        TypeError / ValueError: a model :func:`rnnaudit.wrap` cannot wrap, inputs of the wrong shape or not
            finite, a readout that is not a tensor (k, h) of the model's width, T not a positive int,
            trained_dtype not a floating torch dtype.
        rnnaudit.limits.TooLargeError: inputs or T above the limits.
    """
    import copy

    from rnnaudit.cells.adapters import wrap

    if trained_dtype is not None and not (isinstance(trained_dtype, torch.dtype) and trained_dtype.is_floating_point):
        raise TypeError(f"trained_dtype must be a floating torch dtype (e.g. torch.float32), got {trained_dtype!r}")
    if not isinstance(inputs, Tensor):
        raise TypeError(f"inputs must be a tensor (T, n) or (m, T, n), got {type(inputs).__name__}")
    trained = trained_dtype or next((p.dtype for p in model.parameters() if p.is_floating_point()), torch.float64) \
        if isinstance(model, torch.nn.Module) else (trained_dtype or torch.float64)
    if isinstance(model, torch.nn.Module):  # from the shapes, before the float64 copy allocates them
        check_tensor_sizes(dict(model.named_parameters()), "model", allow_large=allow_large)
    probe = copy.deepcopy(model).double() if isinstance(model, torch.nn.Module) else model
    try:
        cell = wrap(probe)
    except (TypeError, ValueError) as err:
        raise type(err)(f"model: {err}") from None
    if not isinstance(inputs, Tensor) or inputs.dim() not in (2, 3) or inputs.shape[-1] != cell.input_size:
        shape = tuple(inputs.shape) if isinstance(inputs, Tensor) else type(inputs).__name__
        raise ValueError(f"inputs must be (T, {cell.input_size}) or (m, T, {cell.input_size}), got {shape}")
    check_sizes("inputs", allow_large=allow_large, T=inputs.shape[-2] or None, batch=inputs.shape[0] if
                inputs.dim() == 3 and inputs.shape[0] else None, elements=max(1, math.prod(inputs.shape)))
    if not inputs.is_floating_point() or 0 in inputs.shape:
        raise ValueError(f"inputs must be a non-empty real floating tensor, got {inputs.dtype} {tuple(inputs.shape)}")
    if T is not None:
        if isinstance(T, bool) or not isinstance(T, int):
            raise TypeError(f"T must be a positive int (the sequence length the model is meant for), got "
                            f"{type(T).__name__} {T!r}")
        check_sizes("T", allow_large=allow_large, T=T)
    x = (inputs[None] if inputs.dim() == 2 else inputs).detach().double()
    if not torch.isfinite(x).all():
        raise ValueError("inputs hold NaN or Inf entries")
    view = ModelView(cell, x, _readout_weight(readout, cell), T or x.shape[1], trained)
    summary = model_summary(model, cell, trained) if isinstance(model, torch.nn.Module) else \
        {"type": type(model).__name__, "hidden_size": cell.hidden_size, "input_size": cell.input_size,
         "trained_dtype": str(trained).replace("torch.", "")}
    return {"model": summary, "claims": audit_model(view, measure_bounds=measure_bounds)}
