"""The model summary at the head of an audit: what was audited (type, sizes, parameter count, the dtype it
was trained in) and the spectral facts of each recurrent matrix that most claims' assumptions turn on."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils import parametrize

from rnnaudit.auditing.layers import state_layout, torch_sizes
from rnnaudit.monitoring.probes import matrix_record

__all__ = ["model_summary", "type_name"]

_PER_MATRIX = ("spectral_norm", "spectral_radius", "sigma_min", "orthogonality_defect")
#: per-matrix quantities that mean something for each gated torch architecture: no claim or remedy
#: asks a gate block of an LSTM or GRU to be orthogonal, so its ‖WᵀW − I‖₂ is not shown
_GATED_PER_MATRIX = ("spectral_norm", "spectral_radius", "sigma_min")


def type_name(name: str, parametrized: list[str] | tuple[str, ...] = ()) -> str:
    """How the summary names a model: its class name, and the tensors under ``torch.nn.utils.parametrize``
    when there are any ("RNN (parametrized: weight_hh_l0)")."""
    return f"{name} (parametrized: {', '.join(parametrized)})" if parametrized else name


def model_summary(model: nn.Module, cell, trained_dtype: torch.dtype, *, matrices: dict | None = None) -> dict:
    """A JSON-ready summary of an audited model.

    Args:
        model: the module as the user handed it (its class name, the tensors under
            ``torch.nn.utils.parametrize`` and its trainable parameter count are reported).
        cell: the same model as a :class:`rnnaudit.cells.base.RecurrentCell` (:func:`rnnaudit.wrap` of
            it, or a cell of the toolkit), any floating dtype; its recurrent matrices are read in float64.
        trained_dtype: the dtype the parameters were trained in.
        matrices: role → recurrent matrix, instead of ``cell.recurrent_matrices()`` (a bidirectional
            module's, "forward.W_hh", "reverse.W_hh", … where ``cell`` is one direction's).

    Returns:
        {"type", "input_size", "hidden_size" (the module's own: torch's ``hidden_size`` H for a torch
        module, never the packed state width), "state_size" (S, the width of the packed state the probes
        see), "state_layout" (e.g. "state = [l0.h (64) | l1.h (64) | l0.c (64) | l1.c (64)]"), for torch
        modules "num_layers", "bidirectional", "proj_size" and "batch_first", "parameters" (number of
        trainable scalars),
        "trained_dtype", "recurrent": {role: {"shape": [rows, cols], "finite", "spectral_norm", "spectral_radius",
        "sigma_min", "orthogonality_defect"}}}; spectral radius and defect only for square matrices
        (‖WᵀW − I‖₂, :func:`rnnaudit.cells.orthogonality_defect`; not for the gate blocks of a torch GRU or
        LSTM, of which no statement asks orthogonality), none of these for a matrix with
        NaN/Inf entries (``finite`` false); "recurrent" is {} for a cell that declares no recurrent matrix.

    Raises:
        TypeError: ``model`` not an ``nn.Module`` or ``trained_dtype`` not a ``torch.dtype``.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if not isinstance(trained_dtype, torch.dtype):
        raise TypeError(f"trained_dtype must be a torch.dtype, got {type(trained_dtype).__name__}")
    try:
        matrices = cell.recurrent_matrices() if matrices is None else matrices
    except (NotImplementedError, ValueError):
        matrices = {}  # a wrapped step function that declares no recurrent matrix
    # complex matrices (an LRU's diag(λ)) stay complex: .double() would drop their imaginary parts
    matrices = {role: W.detach().to(torch.complex128 if W.is_complex() else torch.float64) for role, W in matrices.items()}
    # an SVD of a matrix with NaN/Inf entries fails or returns NaN: such a matrix is reported as not finite
    finite = {role: W for role, W in matrices.items() if bool(torch.isfinite(W).all())}
    with torch.no_grad():
        record = matrix_record(finite)
    sizes = torch_sizes(model)
    shown = _GATED_PER_MATRIX if sizes and sizes["kind"] in ("gru", "lstm") else _PER_MATRIX
    recurrent = {role: {"shape": list(W.shape), "finite": role in finite,
                        **{k: record[f"{k}/{role}"] for k in shown if f"{k}/{role}" in record}}
                 for role, W in matrices.items()}
    parametrized = list(model.parametrizations) if parametrize.is_parametrized(model) else []
    name = type_name(parametrize.type_before_parametrizations(model).__name__, parametrized)
    out = {"type": name, "input_size": int(cell.input_size),
           "hidden_size": int(sizes["hidden_size"] if sizes else cell.hidden_size)}
    if sizes:
        out.update({k: sizes[k] for k in ("num_layers", "bidirectional", "proj_size", "batch_first")
                    if not sizes["cell"] or k == "num_layers"})
    directions = 2 if sizes and sizes["bidirectional"] else 1
    out["state_size"] = int(cell.hidden_size) * directions
    out["state_layout"] = state_layout(cell) + (" per layer and direction (forward, reverse)" if directions == 2
                                                else "")
    return {**out, "parameters": sum(p.numel() for p in model.parameters() if p.requires_grad),
            "trained_dtype": str(trained_dtype).replace("torch.", ""), "recurrent": recurrent}
