"""sgornn.md, Sec. 2.1, eq. 4: FastRNN's generalization constraint on α, quoted from Kusupati et al.

Eq. 4 is an assumption that FastRNN's generalization bound needs, so it is a predicate
(:func:`fastrnn_eq4_assumption`) that the audit applies to trained FastRNN models at their sequence
length. The sentence after it, "α = O(1/T)", is the claim ``sgornn.eq4.order`` (module ``eq4_order``).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, within

__all__ = ["fastrnn_eq4_limit", "fastrnn_eq4_assumption"]


def fastrnn_eq4_limit(U: Tensor, T: int, R_U: float, D: float = 1.0) -> float:
    """Right side of FastRNN's constraint, sgornn.md eq. 4:

        α ≤ min( 1/(4T|D‖U‖₂ − 1|), 1/(4T R_U), 1/(T|‖U‖₂ − 1|) )

    Args:
        U: recurrent matrix (h, h). T: sequence length ≥ 1. R_U: the bound assumed on ‖U‖_F.
        D: the constant of eq. 4 "derived from the parameters and activation"; for ReLU, whose
            derivative is at most 1, D = 1 (the reading used here; the paper does not define D
            further).

    Returns:
        The largest α eq. 4 allows (``inf`` where a denominator is 0).

    Raises:
        ValueError: T < 1, R_U ≤ 0, or ‖U‖_F > R_U (then R_U is not a bound on ‖U‖_F).
    """
    if T < 1 or R_U <= 0:
        raise ValueError(f"T must be >= 1 and R_U > 0, got T={T}, R_U={R_U}")
    U = U.detach()
    if not within(float(torch.linalg.matrix_norm(U)), R_U):
        raise ValueError(f"R_U = {R_U} is below ‖U‖_F = {float(torch.linalg.matrix_norm(U)):.6g}")
    spectral = float(torch.linalg.matrix_norm(U, ord=2))
    terms = [abs(D * spectral - 1) * 4 * T, 4 * T * R_U, T * abs(spectral - 1)]
    return min(math.inf if t == 0 else 1 / t for t in terms)


def fastrnn_eq4_assumption(T: int, R_U: float | None = None, D: float = 1.0) -> Assumption:
    """Assumption predicate "α satisfies eq. 4" for a case with ``.cell`` (a FastRNN) and ``.alpha``,
    at sequence length T; R_U defaults to the cell's own ‖U‖_F.

    Raises:
        ValueError: T < 1 (when the predicate is evaluated, from :func:`fastrnn_eq4_limit`).
    """
    def check(c):
        U = c.cell.recurrent_matrix()
        r_u = float(torch.linalg.matrix_norm(U.detach())) if R_U is None else R_U
        limit = fastrnn_eq4_limit(U, T, r_u, D)
        return c.alpha <= limit, f"α = {c.alpha:.4g}, eq. 4 allows α ≤ {limit:.4g} at T = {T}"
    return Assumption(f"FastRNN eq. 4 at T = {T}", check)

