"""Parameter-gradient norms per role (sgornn.md Theorem 2 studies ‖∂L/∂Θ‖_max and
‖∂L/∂W‖_max; spectral_rnn.md Fig. 4 the gradient norms over training)."""

from __future__ import annotations

from typing import Callable

import torch
from torch import Tensor

from rnnaudit.cells.adapters import wrap
from rnnaudit.cells.base import RecurrentCell

__all__ = ["parameter_gradients", "gradient_norms", "max_norm", "euclidean_norm"]


def euclidean_norm(x: Tensor) -> float:
    """‖x‖₂ over all entries of x (any shape, any real float dtype), accurate at any magnitude.

    ``torch.linalg.vector_norm`` sums unscaled squares: it returns 0 for entries below about 1e-154 and inf
    above 1e154 in float64 (1e-19 and 1.8e19 in float32). Gradients reach those sizes: ‖∂L/∂h_0‖ of a
    default-initialised ``torch.nn.GRU`` (h = 128) at T = 1000 is about 6e-195 (sgornn.md Sec. 2.2's
    vanishing side), and float32 gradients of a chaotic tanh RNN at T = 300 have entries of 3e35 (the
    exploding side). Here the entries are divided by the largest |entry|, in float64, before squaring:
    relative error a few units of float64 roundoff, wherever the result is a normal float64.

    Returns:
        A Python float: 0.0 for an empty or all-zero x, inf if an entry is ±inf, NaN if one is NaN.
    """
    x = x.detach().reshape(-1).to(torch.float64)
    if not x.numel():
        return 0.0
    big = x.abs().amax()  # NaN if an entry is NaN
    if not (torch.isfinite(big) and big > 0):
        return float(big)
    return float(big * torch.linalg.vector_norm(x / big))


def max_norm(a: Tensor) -> Tensor:
    """‖A‖_max = max |A_ij| (0-d tensor; differentiable almost everywhere)."""
    return a.abs().amax()


def _view_of_gradient(role_tensor: Tensor, base: Tensor, grad: Tensor) -> Tensor:
    """The entries of ``grad`` (∂L/∂base) that ``role_tensor``, a view of the contiguous ``base``,
    covers, in the view's shape (an index into the flattened gradient: differentiable, any layout)."""
    if not base.is_contiguous():
        raise ValueError("a role tensor that is a view must view a contiguous parameter")
    flat = torch.arange(base.numel(), device=grad.device)
    offset = role_tensor.storage_offset() - base.storage_offset()
    index = flat.as_strided(role_tensor.shape, role_tensor.stride(), offset)
    return grad.reshape(-1)[index]


def parameter_gradients(cell: RecurrentCell, x: Tensor, loss_fn: Callable[[Tensor], Tensor], *,
                        h0: Tensor | None = None, roles: tuple[str, ...] | None = None,
                        create_graph: bool = False) -> dict[str, Tensor]:
    """∂L/∂P for each parameter role P of the cell.

    A role may be a view of a parameter (a gate block of torch's stacked ``weight_hh_l0``, see
    :meth:`rnnaudit.cells.adapters.TorchRecurrent.parameters_by_role`): its gradient is the same
    view of the parameter's gradient, since its entries are the parameter's entries.

    Args:
        cell: any :class:`cells.base.RecurrentCell`, or a model :func:`rnnaudit.cells.wrap` accepts.
        x: inputs (batch, T, n).
        loss_fn: maps the hidden states (batch, T, h) to a scalar loss L.
        h0: optional (batch, h) initial state.
        roles: subset of ``cell.parameters_by_role()`` keys; all by default.
        create_graph: keep the graph so the gradients can themselves be differentiated
            (used by the bounds' adversarial ascent).

    Returns:
        dict role → gradient, same shape and dtype as the parameter (block).

    Raises:
        ValueError: unknown role, or a non-scalar loss.
    """
    cell = wrap(cell)
    params = cell.parameters_by_role()
    roles = tuple(params) if roles is None else roles
    unknown = [r for r in roles if r not in params]
    if unknown:
        raise ValueError(f"roles {unknown} not among the cell's roles {sorted(params)}")
    loss = loss_fn(cell(x, h0))
    if loss.dim() != 0:
        raise ValueError(f"loss_fn must return a scalar, got shape {tuple(loss.shape)}")
    # views are differentiated through their base parameter: a view made before the forward pass is
    # not itself in the graph
    sources = [params[r] if params[r]._base is None else params[r]._base for r in roles]
    unique = list({id(t): t for t in sources}.values())
    grads = dict(zip(map(id, unique), torch.autograd.grad(loss, unique, create_graph=create_graph, allow_unused=True)))
    out = {}
    for r, src in zip(roles, sources):
        g = grads[id(src)]
        g = torch.zeros_like(src) if g is None else g
        out[r] = g if src is params[r] else _view_of_gradient(params[r], src, g)
    return out


def gradient_norms(grads: dict[str, Tensor]) -> dict[str, dict[str, float]]:
    """Max-entry, Frobenius and spectral norms of each gradient (spectral for 2-D ones only).

    Returns:
        role → {"max": ‖·‖_max, "fro": ‖·‖_F, "spectral": ‖·‖₂ (matrices) or ‖·‖₂ of the vector}.
    """
    out = {}
    for role, g in grads.items():
        g = g.detach()
        fro = euclidean_norm(g)
        spectral = torch.linalg.matrix_norm(g, ord=2).item() if g.dim() == 2 else fro  # SVD: scaled by LAPACK
        out[role] = {"max": max_norm(g).item(), "fro": fro, "spectral": spectral}
    return out
