"""A copy of a user's module for the float64 probes that never fails on what a trained module holds.

``copy.deepcopy`` refuses a tensor that is not a graph leaf, and a module holds such tensors after a
forward pass or from its construction: ``torch.nn.RNN`` keeps its weights as used in ``_flat_weights``,
which under ``torch.nn.utils.parametrize`` (``parametrizations.orthogonal``, geotorch constraints) are
the parametrization's outputs, not leaves. Those are caches the module recomputes (``_apply``, which
``.double()`` calls, rebuilds ``_flat_weights``; a parametrization recomputes its output on access), so
the copy takes detached clones of them and deep copies of everything else.
"""

from __future__ import annotations

import copy

import torch
from torch import Tensor, nn

__all__ = ["probe_copy"]


def _non_leaf_tensors(value, found: dict[int, Tensor]) -> None:
    if isinstance(value, Tensor):
        if not value.is_leaf:
            found[id(value)] = value
    elif isinstance(value, (list, tuple)):
        for item in value:
            _non_leaf_tensors(item, found)
    elif isinstance(value, dict):
        for item in value.values():
            _non_leaf_tensors(item, found)


def probe_copy(module: nn.Module, dtype: torch.dtype | None = torch.float64) -> nn.Module:
    """A deep copy of ``module`` (in ``dtype``; None keeps each tensor's own), parametrizations kept. Complex
    parameters and buffers go to the complex counterpart of ``dtype`` (complex128 for float64), never to ``dtype``
    itself, which would drop their imaginary parts.

    Non-leaf tensors held as plain attributes (caches of a forward pass or of a parametrization) are
    copied detached; parameters and buffers are copied as ``copy.deepcopy`` copies them.

    Args:
        module: any ``nn.Module``. dtype: of the copy's floating tensors (float64 for the probes).

    Returns:
        The copy, in evaluation mode if ``module`` was.

    Raises:
        TypeError: ``module`` not an ``nn.Module``.
        RuntimeError: the module holds something else ``copy.deepcopy`` cannot copy (torch's message).
    """
    if not isinstance(module, nn.Module):
        raise TypeError(f"module must be a torch.nn.Module, got {type(module).__name__}")
    found: dict[int, Tensor] = {}
    for sub in module.modules():
        for key, value in vars(sub).items():
            if key not in ("_parameters", "_buffers", "_modules"):
                _non_leaf_tensors(value, found)
    memo = {key: tensor.detach().clone() for key, tensor in found.items()}
    memo[id(memo)] = list(found.values())  # keeps the originals alive while the memo is in use, as deepcopy does
    twin = copy.deepcopy(module, memo)
    if dtype is None:
        return twin
    from rnnaudit.cells.base import complex_dtype

    cdtype = complex_dtype(dtype)
    # Module.to(float64) casts complex tensors to float64 too (dropping the imaginary part): one rule per kind
    return twin._apply(lambda t: t.to(cdtype) if t.is_complex() else t.to(dtype) if t.is_floating_point() else t)
