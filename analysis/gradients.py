"""Parameter-gradient norms per role (sgornn.md Theorem 2 studies ‖∂L/∂Θ‖_max and
‖∂L/∂W‖_max; spectral_rnn.md Fig. 4 the gradient norms over training)."""

from __future__ import annotations

from typing import Callable

import torch
from torch import Tensor

from rnnaudit.cells.base import RecurrentCell

__all__ = ["parameter_gradients", "gradient_norms", "max_norm"]


def max_norm(a: Tensor) -> Tensor:
    """‖A‖_max = max |A_ij| (0-d tensor; differentiable almost everywhere)."""
    return a.abs().amax()


def parameter_gradients(cell: RecurrentCell, x: Tensor, loss_fn: Callable[[Tensor], Tensor], *,
                        h0: Tensor | None = None, roles: tuple[str, ...] | None = None,
                        create_graph: bool = False) -> dict[str, Tensor]:
    """∂L/∂P for each parameter role P of the cell.

    Args:
        cell: any :class:`cells.base.RecurrentCell`.
        x: inputs (batch, T, n).
        loss_fn: maps the hidden states (batch, T, h) to a scalar loss L.
        h0: optional (batch, h) initial state.
        roles: subset of ``cell.parameters_by_role()`` keys; all by default.
        create_graph: keep the graph so the gradients can themselves be differentiated
            (used by the bounds' adversarial ascent).

    Returns:
        dict role → gradient, same shape and dtype as the parameter.

    Raises:
        ValueError: unknown role, or a non-scalar loss.
    """
    params = cell.parameters_by_role()
    roles = tuple(params) if roles is None else roles
    unknown = [r for r in roles if r not in params]
    if unknown:
        raise ValueError(f"roles {unknown} not among the cell's roles {sorted(params)}")
    loss = loss_fn(cell(x, h0))
    if loss.dim() != 0:
        raise ValueError(f"loss_fn must return a scalar, got shape {tuple(loss.shape)}")
    grads = torch.autograd.grad(loss, [params[r] for r in roles], create_graph=create_graph, allow_unused=True)
    return {r: torch.zeros_like(params[r]) if g is None else g for r, g in zip(roles, grads)}


def gradient_norms(grads: dict[str, Tensor]) -> dict[str, dict[str, float]]:
    """Max-entry, Frobenius and spectral norms of each gradient (spectral for 2-D ones only).

    Returns:
        role → {"max": ‖·‖_max, "fro": ‖·‖_F, "spectral": ‖·‖₂ (matrices) or ‖·‖₂ of the vector}.
    """
    out = {}
    for role, g in grads.items():
        g = g.detach()
        spectral = torch.linalg.matrix_norm(g, ord=2) if g.dim() == 2 else torch.linalg.vector_norm(g)
        out[role] = {"max": max_norm(g).item(), "fro": torch.linalg.vector_norm(g).item(),
                     "spectral": spectral.item()}
    return out
