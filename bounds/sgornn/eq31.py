"""sgornn.md, Appendix A.2, eq. 31: the norm step of Theorem 2's proof, as printed and corrected.

The step passes from |∂L/∂Θ_ij| ≤ M_φ ‖∂L/∂U‖₁,₁ to M_φ h ‖∂L/∂U‖₂ through ‖X‖₁,₁ ≤ √h ‖X‖_F,
which is false for h×h matrices. The corrected step goes through the nuclear norm.
"""

from __future__ import annotations

import math

import sympy as sp
import torch
from torch import Tensor

from rnnaudit.bounds.core import Claim, ExactVerdict, Supremum
from rnnaudit.bounds.sgornn.cases import A_V, F_T_ASSUMPTIONS, R_NOTE, GatedCase, loss_and_states
from rnnaudit.bounds.sgornn.constructions import GATED_STRUCTURED

__all__ = ["eq31", "eq31_corrected", "EQ31_FROBENIUS"]

#: The printed step ‖X‖₁,₁ ≤ √h‖X‖_F, the part whose supremum is known.
EQ31_FROBENIUS = "‖G‖₁,₁ ≤ √h ‖G‖_F"


def _dL_dU(case: GatedCase) -> tuple[Tensor, Tensor]:
    """∂L/∂U (h, h), with U = φ(Θ) treated as the free matrix of eq. 25, and the states."""
    U = case.recurrent()
    loss, hs = loss_and_states(case, U)
    (G,) = torch.autograd.grad(loss, [U], create_graph=True)
    return G, hs


def _measure(case: GatedCase) -> dict[str, tuple[Tensor, Tensor]]:
    h, _ = case.size()
    G, _ = _dL_dU(case)
    l11 = G.abs().sum()
    return {
        EQ31_FROBENIUS: (l11, math.sqrt(h) * torch.linalg.matrix_norm(G)),
        "‖G‖₁,₁ ≤ h ‖G‖₂ (the chain as used)": (l11, h * torch.linalg.matrix_norm(G, ord=2)),
    }


def _measure_corrected(case: GatedCase) -> dict[str, tuple[Tensor, Tensor]]:
    h, _ = case.size()
    G, hs = _dL_dU(case)
    nuclear = torch.linalg.matrix_norm(G, ord="nuc")
    prev_norms = torch.linalg.vector_norm(hs[:-1], dim=-1).sum()  # Σ_{t=1}^{T} ‖h_{t−1}‖, h_0 = 0
    return {
        "‖G‖₁,₁ ≤ h ‖G‖_*": (G.abs().sum(), h * nuclear),
        "‖G‖_* ≤ α R_v Σ_t ‖h_{t−1}‖₂": (nuclear, case.cell.alpha * case.R_v * prev_norms),
    }


def _exact() -> ExactVerdict:
    """Exact integer counterexamples at h = 2 to the two facts eq. 31 uses 'for any h × h matrix X'."""
    ones = sp.ones(2, 2)
    hadamard = sp.Matrix([[1, 1], [1, -1]])
    l11 = lambda X: sum(abs(x) for x in X)  # noqa: E731
    frob = lambda X: sp.sqrt(sum(x**2 for x in X))  # noqa: E731
    spec = lambda X: sp.sqrt(max((X.T * X).eigenvals()))  # noqa: E731
    first = (l11(ones), sp.sqrt(2) * frob(ones))
    chain = (l11(hadamard), 2 * spec(hadamard))
    if first[0] > first[1] and chain[0] > chain[1]:
        return ExactVerdict("violated", f"X = 11ᵀ (2 × 2): ‖X‖₁,₁ = {first[0]} > √h‖X‖_F = {first[1]}; X = [[1, 1], "
                                        f"[1, −1]]: ‖X‖₁,₁ = {chain[0]} > h‖X‖₂ = {chain[1]}")
    return ExactVerdict("proved", f"no counterexample at h = 2: {first}, {chain}")


eq31 = Claim(
    id="sgornn.eq31",
    source="sgornn.md, Appendix A.2, eq. 31 (step of the proof of Theorem 2)",
    statement="‖X‖₁,₁ ≤ √h ‖X‖_F and ‖X‖_F ≤ √h ‖X‖₂ for any h×h X, applied to X = G = ∂L/∂U",
    assumptions=F_T_ASSUMPTIONS + (A_V,),
    measure="G = ∂L/∂U by autograd (U = φ(Θ) as the free matrix of eq. 25); entrywise ℓ1, Frobenius, spectral",
    bound="√h ‖G‖_F; and h ‖G‖₂ for the combined step M_φ‖G‖₁,₁ ≤ M_φ h ‖G‖₂",
    evaluate=_measure,
    cases=GATED_STRUCTURED,
    explanation="Step eq. 31 is false: Cauchy–Schwarz gives ‖X‖₁,₁ ≤ h‖X‖_F for h×h X (h² entries), not "
                "√h‖X‖_F; a flat rank-one X reaches ratio √h, and the combined ‖X‖₁,₁ ≤ h‖X‖₂ fails for "
                "Hadamard-like X (up to √h). Theorem 2 survives: G = Σ_t a_t h_{t−1}ᵀ is a sum of rank-one terms "
                "and the proof's own sum bounds the nuclear norm, so ‖G‖₁,₁ ≤ h‖G‖_* ≤ h α R_v Σ_t‖h_{t−1}‖ "
                "(checked as sgornn.eq31.corrected) gives eq. 7 unchanged.",
    notes="A proof-step check: its verdict concerns the step, not Theorem 2's conclusion. The exact verdict is "
          "for the facts as stated, 'for any h × h matrix X'.",
    exact=_exact,
    supremum=Supremum(lambda h, T: math.sqrt(h) if T > 1 else 0.0,
                      "Cap: Cauchy–Schwarz over the h² entries, ‖X‖₁,₁ ≤ h‖X‖_F, so the ratio is at most √h. "
                      "Attained by a flat rank-one G: constructions.aligned (U = I, u = v = 1/√h) gives "
                      "G = α Σ_t v h_{t−1}ᵀ ∝ 11ᵀ. At T = 1, h_0 = 0 makes G = 0 (ratio 0/0 = 0).",
                      at=(2, 7), part=EQ31_FROBENIUS),
)

eq31_corrected = Claim(
    id="sgornn.eq31.corrected",
    source="sgornn.md, Appendix A.2, eq. 31, corrected by rnnaudit",
    statement="‖G‖₁,₁ ≤ h ‖G‖_* and ‖G‖_* ≤ α R_v Σ_{t=1}^{T} ‖h_{t−1}‖₂ for G = ∂L/∂U (eq. 25)",
    assumptions=F_T_ASSUMPTIONS + (A_V,),
    measure="G = ∂L/∂U by autograd; entrywise ℓ1 and nuclear norms; hidden-state norms from the forward pass",
    bound="h ‖G‖_* and α R_v Σ_t ‖h_{t−1}‖₂",
    evaluate=_measure_corrected,
    cases=GATED_STRUCTURED,
    explanation="Would mean the repaired step is wrong too: the nuclear norm is subadditive over the rank-one "
                "terms a_t h_{t−1}ᵀ with ‖a_t‖ ≤ α R_v when α + β ≤ 1 and ‖U‖₂ = 1.",
    notes="With ‖h_{t−1}‖ ≤ α(t−1)R_W R_x this gives ‖∂L/∂Θ‖_max ≤ M_φ h C α² T(T−1)/2, within eq. 7. " + R_NOTE,
    supremum=Supremum(lambda h, T: 1.0 if T > 1 else 0.0,
                      "Caps: ‖G‖₁,₁ ≤ h‖G‖_F ≤ h‖G‖_*, and ‖G‖_* ≤ Σ_t ‖α a_t h_{t−1}ᵀ‖_* = α Σ_t ‖a_t‖‖h_{t−1}‖ "
                      "≤ αR_v Σ_t ‖h_{t−1}‖. Both attained by constructions.aligned: G = α Σ_t v h_{t−1}ᵀ is a "
                      "flat rank-one matrix (‖G‖₁,₁ = h‖G‖_*) and a_t = v, h_{t−1} ∥ u for every t (equality "
                      "in the nuclear-norm sum).", at=(2, 7)),
)
