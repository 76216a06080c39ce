"""laurent2017 (arXiv 1612.06212) with pascanu2013: chaos makes gradients explode, for any cell on the user's data.

Σ_t log ‖J_t q_(t−1)‖₂ = log ‖J_T ⋯ J_1 q_0‖₂ ≤ log ‖∂h_T/∂h_0‖₂ (Benettin's normalised tangent vector, q_0 = 1/√S),
so a positive finite-time top exponent λ₁ gives ‖∂h_T/∂h_0‖₂ ≥ e^(Tλ₁) > 1. rnnaudit's extension (see
laurent2017.no_chaos.general for the converse direction); its content on a model is the assumption λ₁ > 0.

This λ₁ is λ₁(T; q₀) = (1/T) log ‖J_T ⋯ J_1 q₀‖₂, the growth rate of one tangent vector over all T steps of one
sequence, with no warm-up, because that is the number the inequality is about (it holds for this q₀ at this T). It
is not the Lyapunov exponent the diagnostics report (:func:`rnnaudit.analysis.lyapunov_estimate`: warm-up T/10
discarded, the mean over the sequences, ± an error that covers the finite-T bias), which estimates the asymptotic
rate; the two differ by the transient of the first steps and by sequence, and the assumption's line says which
one it prints.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from rnnaudit.bounds.architectures import ArchCase, arch_cases_from_model, step_map
from rnnaudit.bounds.scaled_products import log2_pair
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim
from rnnaudit.bounds.laurent2017.chaos import example, finite_time_exponent
from rnnaudit.bounds.pascanu2013.cases import draw, linear_regime_case

__all__ = ["chaos_explodes_general"]


def _chaotic(case: ArchCase) -> tuple[bool, str]:
    J = step_map(case).J
    lam = float(finite_time_exponent(J).detach())
    return lam > 0, (f"λ₁(T; q₀) = {lam:.6g} per step: (1/T) log‖J_T⋯J_1 q₀‖, q₀ = 1/√S, all T = {J.shape[0]} steps, "
                     "no warm-up (not the diagnostics' asymptotic estimate λ₁ ± error)")


A_CHAOTIC = Assumption("the sequence is chaotic: finite-time top Lyapunov exponent λ₁ > 0", _chaotic)


def _explodes(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    shared = step_map(case)
    lam = finite_time_exponent(shared.J)
    # ∂h_T/∂h_0 = J_T ⋯ J_1 is the pair (0, T) of the map's product schedule, formed once for every claim
    # compared as log₂ values: over a long chaotic sequence both sides overflow float64 (inf/inf would read as NaN)
    log2_measured = shared.J.shape[0] * lam / math.log(2)
    return {"e^(Tλ₁) ≤ ‖∂h_T/∂h_0‖₂": log2_pair(log2_measured, shared.end_to_end_log2())}


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
