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

import torch
from torch import Tensor

from rnnaudit.bounds.architectures import ArchCase, arch_cases_from_model, step_map
from rnnaudit.bounds.core import CaseSpace, Claim
from rnnaudit.bounds.laurent2017.chaos import finite_time_exponent
from rnnaudit.bounds.pascanu2013.cases import A_ETA, linear_regime_case, sample_any
from rnnaudit.bounds.pascanu2013.vanishing import SIZES

__all__ = ["no_chaos_general"]


def _no_chaos(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    shared = step_map(case)
    return {"e^(λ₁) ≤ η": (torch.exp(finite_time_exponent(shared.J)), shared.eta())}


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
