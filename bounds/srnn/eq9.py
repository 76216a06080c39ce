"""srnn.md, Sec. 3, eq. 8 (recursion) and eq. 9 (closed form) of ∂h_t/∂b_k, as printed and corrected.

Both are identities: measured = max |formula − autograd|, bound = a rounding allowance. The
printed forms put σ'(z_t) on the wrong side of W_p and run eq. 9's product over the wrong steps.
"""

from __future__ import annotations

from dataclasses import replace

import torch
from torch import Tensor

from rnnaudit.bounds.core import Claim
from rnnaudit.bounds.srnn.cases import A_H0_CONSTANT, SHUFFLE, ShuffleCase, jacobians
from rnnaudit.cells import eq9_closed_form, shift

__all__ = ["eq8_recursion", "eq9_as_printed", "eq9", "eq9_corrected", "IDENTITY_RTOL"]

#: Closed form vs autograd: both sum ≤ T terms per entry, each a product of ≤ T factors with
#: |σ'| ≤ 1 and 0/1 shifts, i.e. O(T²) roundings of magnitude ≤ scale = Σ_i ‖∂b(x_i)/∂θ‖_max.
#: With T ≤ 64 that is < 5e-12·scale; 1e-10 leaves a 20× margin, while the printed forms miss
#: by O(scale).
IDENTITY_RTOL = 1e-10


def eq8_recursion(sigma_prime: Tensor, db: Tensor, *, as_printed: bool) -> Tensor:
    """∂h_t/∂θ for t = 1..T from the recursion of srnn.md eq. 8, with ∂h_0/∂θ = 0.

    As printed: ∂h_t = W_p σ'(z_t) ∂h_{t−1} + σ'(z_t) ∂b(x_t). Corrected (the derivative of
    eq. 3): ∂h_t = σ'(z_t) (W_p ∂h_{t−1} + ∂b(x_t)). W_p is applied with :func:`cells.shift`.

    Args:
        sigma_prime: (T, d_h). db: ∂b(x_t)/∂θ, (T, d_h, P).

    Returns:
        (T, d_h, P), dtype/device of ``db``.
    """
    dh, out = torch.zeros_like(db[0]), []
    for t in range(db.shape[0]):
        D = sigma_prime[t, :, None]
        dh = shift(D * dh, dim=-2) + D * db[t] if as_printed else D * (shift(dh, dim=-2) + db[t])
        out.append(dh)
    return torch.stack(out)


def eq9_as_printed(sigma_prime: Tensor, db: Tensor) -> Tensor:
    r"""srnn.md eq. 9 read literally: ∂h_t/∂θ = Σ_{i=1}^{t} σ'(z_i) (∏_{j=1}^{i−1} [W_p σ'(z_j)]) ∂b(x_i)/∂θ,
    the product written left to right (j = 1 leftmost).

    Args:
        sigma_prime: (T, d_h). db: (T, d_h, P).

    Returns:
        (T, d_h, P). Note the i-th term does not depend on t: the printed sum is a running sum.
    """
    terms = []
    for i in range(db.shape[0]):
        term = db[i]
        for j in reversed(range(i)):  # the rightmost factor W_p σ'(z_{i−1}) acts first
            term = shift(sigma_prime[j, :, None] * term, dim=-2)
        terms.append(sigma_prime[i, :, None] * term)
    return torch.stack(terms).cumsum(0)


def _identity_bound(J_h: Tensor, J_b: Tensor) -> Tensor:
    scale = J_b.abs().amax(dim=(1, 2)).sum() + J_h.abs().max()
    return IDENTITY_RTOL * scale.clamp_min(torch.finfo(J_b.dtype).tiny)


def _measure_eq9(case: ShuffleCase) -> dict[str, tuple[Tensor, Tensor]]:
    D, J_h, J_b = jacobians(case, detach=True)
    bound = _identity_bound(J_h, J_b)
    return {
        "eq. 8 as printed (W_p σ'(z_t) ∂h_{t−1}) = autograd": (
            (eq8_recursion(D, J_b, as_printed=True) - J_h).abs().max(), bound),
        "eq. 9 as printed (∏_{j=1}^{i−1} W_p σ'(z_j)) = autograd": ((eq9_as_printed(D, J_b) - J_h).abs().max(), bound),
    }


def _measure_eq9_corrected(case: ShuffleCase) -> dict[str, tuple[Tensor, Tensor]]:
    D, J_h, J_b = jacobians(case, detach=True)
    bound = _identity_bound(J_h, J_b)
    return {
        "eq. 8 corrected (σ'(z_t) W_p ∂h_{t−1}) = autograd": (
            (eq8_recursion(D, J_b, as_printed=False) - J_h).abs().max(), bound),
        "eq. 9 corrected (∏_{j=t}^{i+1} σ'(z_j) W_p) = autograd": (
            (eq9_closed_form(D[None], J_b[None])[0] - J_h).abs().max(), bound),
    }


_EQ9_CASES = replace(SHUFFLE, sizes={"quick": [(1, 1), (1, 6), (2, 3), (4, 8), (8, 12)],
                                     "full": [(1, 1), (1, 6), (2, 3), (4, 8), (8, 12), (16, 24), (32, 40)]})

_EQ8_EQ9_EXPLANATION = (
    "Differentiating eq. 3, h_t = σ(W_p h_{t−1} + b(x_t)), gives ∂h_t/∂b_k = σ'(z_t)(W_p ∂h_{t−1}/∂b_k + "
    "∂b(x_t)/∂b_k): σ'(z_t) multiplies from the left. Eq. 8 prints W_p σ'(z_t), which differs unless σ'(z_t) "
    "is constant across units, and eq. 9 runs the product over j = 1..i−1, the steps *before* input i, where "
    "the expansion needs j = i+1..t, the steps after it (ordered σ'(z_t) W_p ⋯ σ'(z_{i+1}) W_p σ'(z_i)). "
    "Both printed forms agree with autograd only at t = 1 (or for d_h = 1 with constant σ'). "
    "See srnn.eq9.corrected.")

eq9 = Claim(
    id="srnn.eq9",
    source="srnn.md, Sec. 3, eq. 8 (recursion) and eq. 9 (closed form), as printed",
    statement="∂h_t/∂b_k = W_p σ'(z_t) ∂h_{t−1}/∂b_k + σ'(z_t) ∂b(x_t)/∂b_k (eq. 8) and "
              "∂h_t/∂b_k = Σ_{i=1}^{t} σ'(z_i) (∏_{j=1}^{i−1} [W_p σ'(z_j)]) ∂b(x_i)/∂b_k (eq. 9)",
    assumptions=(A_H0_CONSTANT,),
    measure="max |formula − autograd| over t, units and every scalar parameter b_k of network b",
    bound="IDENTITY_RTOL (1e-10) × (Σ_i ‖∂b(x_i)/∂θ‖_max + ‖∂h/∂θ‖_max)",
    evaluate=_measure_eq9,
    cases=_EQ9_CASES,
    explanation=_EQ8_EQ9_EXPLANATION,
    notes="σ'(z) as a diagonal matrix; ReLU's σ'(0) = 0 as autograd. The check covers all of b's parameters "
          "(f_r's layers, W_s, b_s). h_0 is a constant (0 or a random state), as eq. 9's missing ∂h_0 term needs.",
)

eq9_corrected = Claim(
    id="srnn.eq9.corrected",
    source="srnn.md, Sec. 3, eq. 8–9, corrected by rnnaudit (cells.srnn.eq9_closed_form)",
    statement="∂h_t/∂b_k = σ'(z_t)(W_p ∂h_{t−1}/∂b_k + ∂b(x_t)/∂b_k) and "
              "∂h_t/∂b_k = Σ_{i=1}^{t} (∏_{j=t}^{i+1} σ'(z_j) W_p) σ'(z_i) ∂b(x_i)/∂b_k",
    assumptions=(A_H0_CONSTANT,),
    measure="max |formula − autograd| over t, units and every scalar parameter b_k of network b",
    bound="IDENTITY_RTOL (1e-10) × (Σ_i ‖∂b(x_i)/∂θ‖_max + ‖∂h/∂θ‖_max)",
    evaluate=_measure_eq9_corrected,
    cases=_EQ9_CASES,
    explanation="Would mean the chain rule through eq. 3 is mis-implemented; the only hypothesis is that h_0 "
                "does not depend on b (otherwise a term (∏_{j=t}^{1} σ'(z_j) W_p) ∂h_0/∂b_k is missing).",
    notes="The closed form keeps every term of the sum separately (cost O(T² d_h P)), so it checks eq. 9 "
          "itself and not the recursion.",
)
