"""sgornn.md, Appendix A.3, eq. 35–36: the VPRNN map's M_φ = max_ij ‖∂φ(Θ)/∂Θ_ij‖_max ≤ k√h ≤ 4√h log₂h,
with "k ≤ 4 log₂ h for h ≥ 2" (k = 2⌈log₂h⌉), the constant Corollary 1 uses."""

from __future__ import annotations

import math

import sympy as sp
import torch
from torch import Tensor
from torch.func import jacfwd

from rnnaudit.bounds.core import CaseSpace, Claim, ExactVerdict, Supremum
from rnnaudit.bounds.sgornn.eq2 import PhiCase
from rnnaudit.cells import vprnn_max_sublayers
from rnnaudit.cells.orthogonal import VPRNNRotations

__all__ = ["eq36", "EQ36_STEP"]

EQ36_STEP = "eq. 36: M_φ ≤ k√h, k = 2⌈log₂h⌉"


def _sample(gen, h, T, device, dtype) -> PhiCase:
    """Random permutations, k = 2⌈log₂h⌉ sublayers, angles uniform in [−π, π)."""
    phi = VPRNNRotations(h, generator=gen, dtype=dtype, device=device)
    return PhiCase(phi, phi.theta.detach().clone())


def _starts(h, T, device, dtype) -> list[PhiCase]:
    """Θ = 0: U is a permutation and every ∂U/∂Θ_ij a permuted π/2 rotation of one pair, entries 0 and ±1."""
    phi = VPRNNRotations(h, generator=torch.Generator().manual_seed(0), dtype=dtype, device=device)
    return [PhiCase(phi, torch.zeros_like(phi.theta))]


def _measure(case: PhiCase) -> dict[str, tuple[Tensor, Tensor]]:
    h = case.phi.hidden_size
    k = vprnn_max_sublayers(h)
    M_phi = jacfwd(case.phi.matrix)(case.theta).abs().amax()
    like = M_phi.new_tensor
    return {EQ36_STEP: (M_phi, like(k * math.sqrt(h))),
            "A.3: k ≤ 4 log₂h (h ≥ 2)": (like(k), like(4 * math.log2(h))),
            "Corollary 1: M_φ ≤ 4√h log₂h": (M_phi, like(4 * math.sqrt(h) * math.log2(h)))}


def _exact() -> ExactVerdict:
    """k = 2⌈log₂h⌉ ≤ 4 log₂h for h ≥ 2: with c = ⌈log₂h⌉ ≥ 1, h > 2^{c−1} gives 4 log₂h > 4(c − 1) ≥ 2c when
    c ≥ 2; c = 1 is h = 2, where 2 ≤ 4. Sympy solves 4(c − 1) ≥ 2c."""
    c = sp.Symbol("c", integer=True, positive=True)
    solution = sp.solve_univariate_inequality(4 * (c - 1) >= 2 * c, c, relational=False)
    if not sp.Interval(2, sp.oo).is_subset(solution) or not 2 * 1 <= 4 * sp.log(2, 2):
        return ExactVerdict("violated", f"4(c − 1) ≥ 2c holds on {solution}")
    return ExactVerdict("proved", "for c = ⌈log₂h⌉ ≥ 2: 4 log₂h > 4(c − 1) ≥ 2c = k (sympy: 4(c − 1) ≥ 2c ⇔ c ≥ 2); "
                                  "for h = 2: k = 2 ≤ 4 = 4 log₂2")


eq36 = Claim(
    id="sgornn.eq36",
    source="sgornn.md, Appendix A.3, eq. 35–36 (with Corollary 1)",
    statement="|∂φ(Θ)_τμ/∂Θ_ij| ≤ sup √h‖φ(Θ) − φ(Θ + ΔΘ)‖₂/‖ΔΘ‖₂ ≤ k√h ≤ 4√h log₂h for the VPRNN map",
    assumptions=(),
    measure="M_φ = max_ij ‖∂φ/∂Θ_ij‖_max by jacfwd at the case's Θ; k = 2⌈log₂h⌉",
    bound="k√h; 4 log₂h; 4√h log₂h",
    evaluate=_measure,
    cases=CaseSpace(case_type=PhiCase, sample=_sample, starts=_starts,
                    sizes={"quick": [(2, 1), (4, 1), (10, 1), (16, 1)], "full": [(2, 1), (4, 1), (10, 1), (64, 1)]}),
    explanation="A step of A.3 that the VPRNN map does not satisfy.",
    notes="Decision: the chain of eq. 36 is valid, only loose, so its lost factor is not counted as an error. "
          "Each ∂φ/∂Θ_ij = A(∂R_j/∂Θ_ij)B with A, B orthogonal and ∂R_j/∂Θ_ij a π/2 rotation of one pair, so "
          "‖∂φ/∂Θ_ij‖₂ = 1 and M_φ ≤ 1: the chain of eq. 36 (entry ≤ Frobenius ≤ √h spectral, then eq. 34) loses "
          "a factor k√h ≥ 2√2, and Corollary 1's M_φ = 4√h log₂h a factor ≥ 4√2. The step k ≤ 4 log₂h is "
          "tightest at h = 10 (8 ≤ 13.3, ratio 0.60).",
    supremum=Supremum(lambda h, T: 1 / (vprnn_max_sublayers(h) * math.sqrt(h)),
                      "M_φ ≤ max_ij ‖∂φ/∂Θ_ij‖₂ = 1 (see the notes), with equality at Θ = 0, where every ∂φ/∂Θ_ij "
                      "has entries 0 and ±1; so the supremum of M_φ/(k√h) is 1/(k√h), attained by the start Θ = 0.",
                      at=(2, 1), part=EQ36_STEP),
    exact=_exact,
)
