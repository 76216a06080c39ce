"""sgornn.md, Appendix A.2, eq. 25–26 (the gradient formulas quoted from Kusupati et al.) and eq. 29–30
(the chain rule through φ), against autograd.

    ∂L/∂U = α Σ_t D_t (∏_{k=t}^{T−1} (αUᵀD_{k+1} + βI)) (∇_{h_T}L) h_{t−1}ᵀ           (eq. 25)
    ∂L/∂W = α Σ_t D_t (∏_{k=t}^{T−1} (αUᵀD_{k+1} + βI)) (∇_{h_T}L) x_tᵀ               (eq. 26)
    ∂L/∂Θ_ij = Σ_{τ,μ} ∂L/∂U_τμ · ∂φ(Θ)_τμ/∂Θ_ij                                        (eq. 29–30)

with D_k = diag(σ'(Wx_k + Uh_{k−1})). The product is read with k increasing from left to right, the order
backpropagation produces (∂L/∂h_t = (αUᵀD_{t+1} + βI) ∂L/∂h_{t+1}).
"""

from __future__ import annotations

from dataclasses import replace

import sympy as sp
import torch
from torch import Tensor
from torch.func import jacfwd

from rnnaudit.bounds.core import Claim, ExactVerdict, nothing_free
from rnnaudit.bounds.sgornn.cases import GATED_1_ALPHA, GatedCase, loss_and_states
from rnnaudit.cells import SGORNN
from rnnaudit.cells.base import get_activation

__all__ = ["eq25", "formula_gradients", "IDENTITY_RTOL", "EQ25", "EQ26", "EQ30"]

#: Relative tolerance of the identities, on the scale of the summands (Σ_t of the norms of the rank-one
#: terms): both sides are float64 sums of O(T) terms of O(h²) products, rounding ≲ T h · 2⁻⁵³ ≈ 1e-13 at
#: T h ≤ 10³; 1e-9 is the toolkit's default slack (:data:`rnnaudit.bounds.core.DEFAULT_TOLERANCE`).
IDENTITY_RTOL = 1e-9

EQ25 = "eq. 25: ∂L/∂U = α Σ_t D_t ∏_{k=t}^{T−1}(αUᵀD_{k+1} + βI) ∇L h_{t−1}ᵀ"
EQ26 = "eq. 26: ∂L/∂W = α Σ_t D_t ∏_{k=t}^{T−1}(αUᵀD_{k+1} + βI) ∇L x_tᵀ"
EQ30 = "eq. 29–30: ∂L/∂Θ_ij = Σ_τμ ∂L/∂U_τμ ∂φ_τμ/∂Θ_ij"


def formula_gradients(case: GatedCase, *, order: str = "increasing", transpose: bool = True
                      ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Eq. 25 and 26 as printed, for L = vᵀh_T (∇_{h_T}L = v).

    Args:
        case: a :class:`GatedCase`.
        order: ``"increasing"`` (k = t leftmost, the reading checked) or ``"decreasing"`` (the reverse,
            a careless reading the tests use to show the check can fail).
        transpose: use Uᵀ as printed (False gives U, another careless variant).

    Returns:
        (∂L/∂U (h, h), ∂L/∂W (h, n), scale_U, scale_W): the formulas and the sums of the norms of their
        rank-one terms (the scale of their rounding error).

    Raises:
        ValueError: unknown ``order``.
    """
    if order not in ("increasing", "decreasing"):
        raise ValueError(f"order must be 'increasing' or 'decreasing', got {order!r}")
    cell = case.cell
    U = case.recurrent().detach()
    W = cell.W.detach()
    alpha, beta = cell.alpha.detach(), cell.beta.detach()
    x = case.x[0].detach()                                             # (T, n)
    _, hs = loss_and_states(case)
    hs = hs.detach()
    T, h = hs.shape
    prev = torch.cat((hs.new_zeros(1, h), hs[:-1]))                    # h_0 .. h_{T−1}
    z = (x @ W.mT + prev @ U.mT + (cell.b.detach() if cell.b is not None else 0)).requires_grad_(True)
    (D,) = torch.autograd.grad(get_activation(cell.activation)(z).sum(), z)   # rows: diagonals of D_1..D_T
    eye = torch.eye(h, dtype=U.dtype, device=U.device)
    Um = U.mT if transpose else U
    P = eye                                                            # ∏_{k=T}^{T−1} = I
    terms_U, terms_W = [], []
    for t in range(T, 0, -1):                                          # t = T, ..., 1
        if t < T:
            M = alpha * Um * D[t] + beta * eye                         # αUᵀD_{t+1} + βI (D[t] is D_{t+1})
            P = M @ P if order == "increasing" else P @ M
        a = alpha * D[t - 1] * (P @ case.v.detach())                   # α D_t ∏ ∇L
        terms_U.append((a, prev[t - 1]))
        terms_W.append((a, x[t - 1]))
    G = sum(torch.outer(a, p) for a, p in terms_U)
    GW = sum(torch.outer(a, p) for a, p in terms_W)
    scale_U = sum(torch.linalg.vector_norm(a) * torch.linalg.vector_norm(p) for a, p in terms_U)
    scale_W = sum(torch.linalg.vector_norm(a) * torch.linalg.vector_norm(p) for a, p in terms_W)
    return G, GW, scale_U, scale_W


def _autograd(case: GatedCase) -> tuple[Tensor, Tensor, Tensor]:
    """(∂L/∂U with U as the free matrix, ∂L/∂W, ∂L/∂Θ through φ) by autograd."""
    U = case.recurrent().detach().requires_grad_(True)
    loss, _ = loss_and_states(case, U)
    G, gW = torch.autograd.grad(loss, [U, case.cell.W])
    loss, _ = loss_and_states(case)
    (g_theta,) = torch.autograd.grad(loss, [case.theta()])
    return G, gW, g_theta


def _evaluate(case: GatedCase, **variant) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    G, gW, g_theta = _autograd(case)
    F_U, F_W, s_U, s_W = formula_gradients(case, **variant)
    norm = torch.linalg.matrix_norm
    parts = {EQ25: (norm(F_U - G), IDENTITY_RTOL * s_U, norm(G)),
             EQ26: (norm(F_W - gW), IDENTITY_RTOL * s_W, norm(gW))}
    if isinstance(case.cell, SGORNN):
        theta = case.theta().detach()
        J = jacfwd(case.cell.phi.matrix)(theta)                        # (h, h, h/2, k): ∂φ_τμ/∂Θ_ij
        chain = torch.einsum("tm,tmij->ij", G, J)
        scale = norm(G) * torch.linalg.vector_norm(J.flatten(0, 1), dim=0).max()
        parts[EQ30] = (torch.linalg.vector_norm(chain - g_theta), IDENTITY_RTOL * scale,
                       torch.linalg.vector_norm(g_theta))
    return parts


def _exact() -> ExactVerdict:
    """Eq. 25 and 26 symbolically at h = 2, n = 1, T = 4 (the first length at which the order of the product
    matters): U, W, x_t, v, α, β and the activation patterns d_t (D_t = diag(d_t), constant in U and W as
    ReLU's derivative is off its kink) are symbols; sympy differentiates L = vᵀh_T and compares."""
    h, n, T = 2, 1, 4
    a, b = sp.symbols("alpha beta")
    U = sp.Matrix(h, h, lambda i, j: sp.Symbol(f"U{i}{j}"))
    W = sp.Matrix(h, n, lambda i, j: sp.Symbol(f"W{i}{j}"))
    v = sp.Matrix(h, 1, lambda i, j: sp.Symbol(f"v{i}"))
    x = [sp.Matrix(n, 1, lambda i, j: sp.Symbol(f"x{t}_{i}")) for t in range(1, T + 1)]
    d = [sp.diag(*[sp.Symbol(f"d{t}_{i}") for i in range(h)]) for t in range(1, T + 1)]
    hs = [sp.zeros(h, 1)]
    for t in range(T):
        hs.append(a * d[t] * (W * x[t] + U * hs[-1]) + b * hs[-1])
    L = (v.T * hs[-1])[0]
    F_U, F_W = sp.zeros(h, h), sp.zeros(h, n)
    for t in range(1, T + 1):
        P = sp.eye(h)
        for k in range(t, T):
            P = P * (a * U.T * d[k] + b * sp.eye(h))                   # d[k] is D_{k+1}
        F_U += a * d[t - 1] * P * v * hs[t - 1].T
        F_W += a * d[t - 1] * P * v * x[t - 1].T
    diff_U = sp.expand(sp.Matrix(h, h, lambda i, j: sp.diff(L, U[i, j])) - F_U)
    diff_W = sp.expand(sp.Matrix(h, n, lambda i, j: sp.diff(L, W[i, j])) - F_W)
    if diff_U == sp.zeros(h, h) and diff_W == sp.zeros(h, n):
        return ExactVerdict("proved", "eq. 25 and eq. 26 equal sympy's derivatives of L = vᵀh_T identically in U, W, "
                                      "x_t, v, α, β and the activation patterns at h = 2, n = 1, T = 4 (product "
                                      "ordered k = t, ..., T − 1 from left to right)")
    return ExactVerdict("violated", f"∂L/∂U − eq. 25 = {diff_U}; ∂L/∂W − eq. 26 = {diff_W}")


eq25 = Claim(
    id="sgornn.eq25",
    source="sgornn.md, Appendix A.2, eq. 25–26 (quoted from Kusupati et al., 2019) and eq. 29–30",
    statement="∂L/∂U and ∂L/∂W are given by eq. 25 and 26, and ∂L/∂Θ_ij = Σ_τμ ∂L/∂U_τμ ∂φ(Θ)_τμ/∂Θ_ij",
    assumptions=(),
    measure="Frobenius norm of formula − autograd (U treated as a free matrix for eq. 25; φ's Jacobian by "
            "jacfwd for eq. 30); L = vᵀh_T, so ∇_{h_T}L = v",
    bound=f"{IDENTITY_RTOL:g} × the sum of the norms of the formula's rank-one terms (rounding)",
    evaluate=_evaluate,
    cases=replace(GATED_1_ALPHA, free=nothing_free,
                  sizes={"quick": [(2, 1), (2, 7), (4, 12), (8, 20)], "full": [(2, 1), (2, 7), (8, 10), (32, 100)]}),
    explanation="A formula that differs from the derivative it states.",
    notes="Reading: ∏_{k=t}^{T−1} ordered with k increasing from left to right (backpropagation's order); the "
          "reverse order differs from T = 4 on, and the tests show the check catches it, and catches U in place "
          "of Uᵀ. The identities hold for any α, β, σ (D from σ's derivative) and any U; the cases are "
          "Theorem 2's.",
    exact=_exact,
)
