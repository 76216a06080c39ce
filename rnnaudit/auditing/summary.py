"""The model summary at the head of an audit: what was audited (type, sizes, parameter count, the dtype it
was trained in) and the spectral facts of each recurrent matrix that most claims' assumptions turn on."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils import parametrize

from rnnaudit.monitoring.probes import matrix_record

__all__ = ["model_summary", "type_name"]

_PER_MATRIX = ("spectral_norm", "spectral_radius", "sigma_min", "orthogonality_defect")


def type_name(name: str, parametrized: list[str] | tuple[str, ...] = ()) -> str:
    """How the summary names a model: its class name, and the tensors under ``torch.nn.utils.parametrize``
    when there are any ("RNN (parametrized: weight_hh_l0)")."""
    return f"{name} (parametrized: {', '.join(parametrized)})" if parametrized else name


def model_summary(model: nn.Module, cell, trained_dtype: torch.dtype) -> dict:
    """A JSON-ready summary of an audited model.

    Args:
        model: the module as the user handed it (its class name, the tensors under
            ``torch.nn.utils.parametrize`` and its trainable parameter count are reported).
        cell: the same model as a :class:`rnnaudit.cells.base.RecurrentCell` (:func:`rnnaudit.wrap` of
            it, or a cell of the toolkit), any floating dtype; its recurrent matrices are read in float64.
        trained_dtype: the dtype the parameters were trained in.

    Returns:
        {"type", "input_size", "hidden_size", "parameters" (number of trainable scalars),
        "trained_dtype", "recurrent": {role: {"shape": [rows, cols], "finite", "spectral_norm", "spectral_radius",
        "sigma_min", "orthogonality_defect"}}}; spectral radius and defect only for square matrices
        (‖WᵀW − I‖₂, :func:`rnnaudit.cells.orthogonality_defect`), none of the four for a matrix with
        NaN/Inf entries (``finite`` false); "recurrent" is {} for a cell that declares no recurrent matrix.

    Raises:
        TypeError: ``model`` not an ``nn.Module`` or ``trained_dtype`` not a ``torch.dtype``.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if not isinstance(trained_dtype, torch.dtype):
        raise TypeError(f"trained_dtype must be a torch.dtype, got {type(trained_dtype).__name__}")
    try:
        matrices = cell.recurrent_matrices()
    except (NotImplementedError, ValueError):
        matrices = {}  # a wrapped step function that declares no recurrent matrix
    matrices = {role: W.detach().double() for role, W in matrices.items()}
    # an SVD of a matrix with NaN/Inf entries fails or returns NaN: such a matrix is reported as not finite
    finite = {role: W for role, W in matrices.items() if bool(torch.isfinite(W).all())}
    with torch.no_grad():
        record = matrix_record(finite)
    recurrent = {role: {"shape": list(W.shape), "finite": role in finite,
                        **{k: record[f"{k}/{role}"] for k in _PER_MATRIX if f"{k}/{role}" in record}}
                 for role, W in matrices.items()}
    parametrized = list(model.parametrizations) if parametrize.is_parametrized(model) else []
    name = type_name(parametrize.type_before_parametrizations(model).__name__, parametrized)
    return {"type": name, "input_size": int(cell.input_size), "hidden_size": int(cell.hidden_size),
            "parameters": sum(p.numel() for p in model.parameters() if p.requires_grad),
            "trained_dtype": str(trained_dtype).replace("torch.", ""), "recurrent": recurrent}
