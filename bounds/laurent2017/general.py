"""laurent2017 (arXiv 1612.06212): the dichotomy behind the paper, stated for any cell on the user's data.

Laurent & von Brecht contrast chaotic gated networks (a positive top Lyapunov exponent) with the CFN, whose
zero-input step is a contraction. Both directions are elementary for any step map, with the finite-time top
exponent of a sequence, λ₁ = (1/T) Σ_t log ‖J_t q_(t−1)‖₂ (q_0 = 1/√S, q_t = J_t q_(t−1)/‖J_t q_(t−1)‖₂,
Benettin's method for one exponent; J_t = ∂h_t/∂h_(t−1)):

* contraction excludes chaos: every factor is ≤ ‖J_t‖₂ ≤ η, so λ₁ ≤ log η, negative when η < 1
  (``laurent2017.no_chaos.general``);
* chaos makes gradients explode: Σ_t log ‖J_t q_(t−1)‖₂ = log ‖J_T ⋯ J_1 q_0‖₂ ≤ log ‖∂h_T/∂h_0‖₂, so
  λ₁ > 0 gives ‖∂h_T/∂h_0‖₂ ≥ e^(Tλ₁) > 1 (``laurent2017.chaos_explodes.general``).

Neither needs the architecture: both apply to every cell (GRU, LSTM on (h, c), a user's step). Their content on
a model is the assumption, measured on the data: whether every step contracts; whether the sequence is
chaotic. These are rnnaudit's extensions, not statements printed in the paper.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from rnnaudit.bounds.architectures import ArchCase, arch_cases_from_model, spectral, step_jacobians
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim
from rnnaudit.bounds.laurent2017.chaos import example
from rnnaudit.bounds.pascanu2013.cases import A_ETA, draw, linear_regime_case, sample_any
from rnnaudit.bounds.pascanu2013.vanishing import SIZES

__all__ = ["finite_time_exponent", "no_chaos_general", "chaos_explodes_general"]


def finite_time_exponent(J: Tensor) -> Tensor:
    """λ₁ over all T steps from q_0 = 1/√S (module docstring); −inf when some J_t q_(t−1) = 0."""
    q = torch.ones(J.shape[1], dtype=J.dtype, device=J.device) / math.sqrt(J.shape[1])
    total = J.new_zeros(())
    for t in range(J.shape[0]):
        q = J[t] @ q
        n = torch.linalg.vector_norm(q)
        if float(n.detach()) == 0:
            return J.new_tensor(-math.inf)
        total = total + torch.log(n)
        q = q / n
    return total / J.shape[0]


def _no_chaos(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    J, _ = step_jacobians(case)
    return {"e^(λ₁) ≤ η": (torch.exp(finite_time_exponent(J)), spectral(J).max())}


no_chaos_general = Claim(
    id="laurent2017.no_chaos.general",
    source="laurent2017 (arXiv 1612.06212), the contraction argument behind the CFN, carried over by rnnaudit to "
           "any cell with η measured on the data",
    statement="If every step contracts on a sequence, η = max_t ‖∂h_t/∂h_(t−1)‖₂ < 1, its finite-time top Lyapunov "
              "exponent is negative: λ₁ ≤ log η < 0 (no chaos there)",
    assumptions=(A_ETA,),
    measure="e^(λ₁), λ₁ the finite-time top exponent (one tangent vector from 1/√S, autograd Jacobians)",
    bound="η",
    evaluate=_no_chaos,
    cases=CaseSpace(case_type=ArchCase, sample=lambda g, h, T, device="cpu", dtype=torch.float64: sample_any(
        g, h, T, device, dtype, contractive=True), sizes=SIZES,
        starts=lambda h, T, device="cpu", dtype=torch.float64: [linear_regime_case(h, T, 0.9, device, dtype)],
        from_model=lambda view: arch_cases_from_model(view, what="the no-chaos argument")),
    explanation="Would mean ‖J q‖ > ‖J‖ for a unit q.",
    notes="Holds; equality for J_t = 0.9·I. On a model the assumption is the content: it fails where some step "
          "expands, and then a positive exponent (chaos) is possible.",
)


def _chaotic(case: ArchCase) -> tuple[bool, str]:
    J, _ = step_jacobians(case)
    lam = float(finite_time_exponent(J).detach())
    return lam > 0, f"finite-time λ₁ = {lam:.6g} per step"


A_CHAOTIC = Assumption("the sequence is chaotic: finite-time top Lyapunov exponent λ₁ > 0", _chaotic)


def _explodes(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    J, _ = step_jacobians(case)
    lam = finite_time_exponent(J)
    P = J[0]
    for t in range(1, J.shape[0]):
        P = J[t] @ P
    return {"e^(Tλ₁) ≤ ‖∂h_T/∂h_0‖₂": (torch.exp(J.shape[0] * lam), spectral(P))}


def _sample_chaotic(gen, h, T, device="cpu", dtype=torch.float64) -> ArchCase:
    """A chaotic example (laurent2017.chaotic_lstm/gru) run for T steps from a start 10⁻³ off its recipe, or an
    expanding linear regime (J_t = s·I, s in [1.1, 3]); the assumption decides."""
    u = draw(gen)
    if u < 2 / 3:
        case = example("lstm" if u < 1 / 3 else "gru", max(T, 2), device, dtype)
        case.h0.add_(1e-3 * torch.randn(case.h0.shape, generator=gen, dtype=torch.float64).to(case.h0))
        return case
    return linear_regime_case(h, T, 1.1 + 1.9 * draw(gen), device, dtype)


chaos_explodes_general = Claim(
    id="laurent2017.chaos_explodes.general",
    source="laurent2017 (arXiv 1612.06212), chaotic gated networks, with pascanu2013's exploding gradients: the link "
           "for any cell, rnnaudit's extension",
    statement="If a sequence is chaotic (finite-time λ₁ > 0), its gradient explodes: ‖∂h_T/∂h_0‖₂ ≥ e^(Tλ₁) > 1",
    assumptions=(A_CHAOTIC,),
    measure="e^(Tλ₁)",
    bound="‖∂h_T/∂h_0‖₂ by the product of autograd step Jacobians",
    evaluate=_explodes,
    cases=CaseSpace(case_type=ArchCase, sample=_sample_chaotic, sizes={"quick": [(2, 30)], "full": [(2, 30), (4, 200)]},
                    from_model=lambda view: arch_cases_from_model(view, what="the chaos-explodes argument")),
    explanation="Would mean ‖P q‖ > ‖P‖ for a unit q.",
    notes="Holds. On a model the assumption (λ₁ > 0 on the data) fails for every non-chaotic trained model, which is "
          "the common case; where it holds, the model's gradients explode on that sequence.",
)
