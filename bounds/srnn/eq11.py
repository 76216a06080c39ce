"""srnn.md, Sec. 3, eq. 11 (eq. 7 combined with eq. 10): the bound on ∂L/∂b_k as printed (false,
inheriting eq. 10's cancellation) and its Cauchy–Schwarz form.
"""

from __future__ import annotations

from dataclasses import replace

import torch
from torch import Tensor
from torch.func import functional_call, jacrev

from rnnaudit.bounds.core import Claim, ExactVerdict, Supremum, worst_pair
from rnnaudit.bounds.srnn.cases import (A_H0_CONSTANT, A_SIGMA_PRIME, SHUFFLE, ShuffleCase, b_params, cell_params,
                                        flatten_jacobian, hidden_states)

__all__ = ["loss_gradient", "eq11", "eq11_corrected"]


def loss_gradient(case: ShuffleCase) -> tuple[Tensor, Tensor]:
    """∂L/∂θ (P,) by autograd (graph kept for the ascent) and ∂b(x_t)/∂θ (T, d_h, P)."""
    d_h, T = case.size()
    params = cell_params(case, detach=False)
    loss = (hidden_states(case, params)[0] * case.g).sum()
    grads = torch.autograd.grad(loss, list(params.values()), create_graph=torch.is_grad_enabled())
    J_b = flatten_jacobian(jacrev(lambda p: functional_call(case.cell.b, b_params(p), (case.x,)))(params),
                           list(params), T, d_h)
    return torch.cat([g.reshape(-1) for g in grads]), J_b


def _measure_eq11(case: ShuffleCase) -> dict[str, tuple[Tensor, Tensor]]:
    grad, J_b = loss_gradient(case)
    bound = torch.einsum("td,tdk->k", case.g, J_b.cumsum(0)).abs()
    return {"|∂L/∂b_k| ≤ |Σ_t ∂L/∂h_t Σ_{i≤t} ∂b(x_i)/∂b_k|": worst_pair(grad.abs(), bound)}


def _measure_eq11_corrected(case: ShuffleCase) -> dict[str, tuple[Tensor, Tensor]]:
    grad, J_b = loss_gradient(case)
    inner = torch.linalg.vector_norm(J_b, dim=1).cumsum(0)  # (T, P): Σ_{i≤t} ‖∂b(x_i)/∂b_k‖₂
    bound = (torch.linalg.vector_norm(case.g, dim=1)[:, None] * inner).sum(0)
    return {"|∂L/∂b_k| ≤ Σ_t ‖∂L/∂h_t‖₂ Σ_{i≤t} ‖∂b(x_i)/∂b_k‖₂": worst_pair(grad.abs(), bound)}


def _exact_eq11() -> ExactVerdict:
    """Eq. 10's exact one-unit counterexample with L = h_2 (g = (0, 1)): ∂L/∂w = ∂h_2/∂w."""
    from rnnaudit.bounds.srnn.eq10 import one_unit_counterexample

    dh, total, z = one_unit_counterexample()
    verdict = "violated" if abs(dh) > abs(total) else "proved"
    return ExactVerdict(verdict, f"d_h = 1, σ = ReLU, b(x) = w x + c at w = −1, c = 0, x = (1, −1), h_0 = 0, L = h_2 "
                                 f"(g = (0, 1)): z = {z}, |∂L/∂w| = |{dh}| against |Σ_t g_t Σ_{{i≤t}} ∂b(x_i)/∂w| = "
                                 f"|{total}| (sympy, exact).")


def _free_eq11(case: ShuffleCase) -> list[Tensor]:
    return [case.x, case.g, *case.cell.parameters()]


eq11 = Claim(
    id="srnn.eq11",
    source="srnn.md, Sec. 3, eq. 11 (eq. 7 combined with eq. 10)",
    statement="|∂L/∂b_k| ≤ |Σ_{t=1}^{T} ∂L/∂h_t Σ_{i=1}^{t} ∂b(x_i)/∂b_k|",
    assumptions=(A_H0_CONSTANT, A_SIGMA_PRIME),
    measure="|∂L/∂b_k| by autograd for L = Σ_t ⟨g_t, h_t⟩, worst over every scalar parameter b_k of b",
    bound="|Σ_t g_tᵀ Σ_{i≤t} ∂b(x_i)/∂b_k| with g_t = ∂L/∂h_t (explicit)",
    evaluate=_measure_eq11,
    cases=SHUFFLE,
    exact=_exact_eq11,
    explanation="Inherits eq. 10's error (|Σ| in place of Σ|·|) and adds another one: the sum over t can cancel "
                "too. With the eq. 10 counterexample and g = (0, 1): |∂L/∂b_k| = 1 > 0. See srnn.eq11.corrected.",
    notes="∂L/∂h_t in eq. 7 must be the explicit partial derivative (L = Σ_t ℓ_t(h_t)); read as the total "
          "(back-propagated) derivative, eq. 7 would count every path several times. L = Σ_t ⟨g_t, h_t⟩ makes "
          "it g_t exactly; a third of the cases put all of g at t = T. Random cases violate it by orders of "
          "magnitude, so no adversarial ascent is run (srnn.eq11.corrected gets one).",
)

eq11_corrected = Claim(
    id="srnn.eq11.corrected",
    source="srnn.md, Sec. 3, eq. 11, corrected by rnnaudit",
    statement="|∂L/∂b_k| ≤ Σ_{t=1}^{T} ‖∂L/∂h_t‖₂ Σ_{i=1}^{t} ‖∂b(x_i)/∂b_k‖₂",
    assumptions=(A_H0_CONSTANT, A_SIGMA_PRIME),
    measure="|∂L/∂b_k| by autograd for L = Σ_t ⟨g_t, h_t⟩, worst over every scalar parameter b_k of b",
    bound="Σ_t ‖g_t‖₂ Σ_{i≤t} ‖∂b(x_i)/∂b_k‖₂",
    evaluate=_measure_eq11_corrected,
    cases=replace(SHUFFLE, free=_free_eq11),
    explanation="Would break Cauchy–Schwarz on eq. 7 combined with srnn.eq10.corrected.",
    notes="Linear in the contributions of b, so 'it cannot explode' holds in this form: the bound grows at most "
          "like T² max_i ‖∂b(x_i)/∂b_k‖ max_t ‖∂L/∂h_t‖.",
    supremum=Supremum(1.0, "eq. 7 with Cauchy–Schwarz, |⟨g_t, ∂h_t/∂b_k⟩| ≤ ‖g_t‖₂ ‖∂h_t/∂b_k‖₂, and "
                           "srnn.eq10.corrected cap the ratio at 1; at d_h = 1 with every ReLU unit active (the "
                           "'all active' start: b(x_t) = 2 > 0, σ' ≡ 1), g_t = 1 and ∂b(x_i)/∂b_k = x_i = 1 "
                           "every inequality is an equality and the ratio is exactly 1.", at=(1, 2)),
)
