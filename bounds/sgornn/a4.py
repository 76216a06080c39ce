"""sgornn.md, Appendix A.4: the public VPRNN code adds permutations, φ̃ = Q̃₁φQ̃₂, and
‖φ̃(Θ + ΔΘ) − φ̃(Θ)‖₂ = ‖Q̃₁(φ(Θ + ΔΘ) − φ(Θ))Q̃₂‖₂ ≤ ‖φ(Θ + ΔΘ) − φ(Θ)‖₂ ≤ k‖ΔΘ‖₂, so eq. 34 and
Corollary 1 carry over to the implementation."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import CaseSpace, Claim, Supremum
from rnnaudit.bounds.sgornn.eq34 import A_SUBLAYERS, eq34_supremum, routed_perturbation
from rnnaudit.cells import vprnn_max_sublayers
from rnnaudit.cells.orthogonal import VPRNNRotations

__all__ = ["ImplementationCase", "a4", "A4_BOUND"]

A4_BOUND = "‖φ̃(Θ + ΔΘ) − φ̃(Θ)‖₂ ≤ k‖ΔΘ‖₂"
#: The permutation step is an equality; |difference| allowed: two spectral norms of the same matrix up to
#: the order of its rows and columns, equal to a few ulps of ‖ΔU‖ (1e-12 relative leaves a wide margin).
_RTOL = 1e-12


@dataclass
class ImplementationCase:
    """A VPRNN map φ, angles Θ, a perturbation ΔΘ, and the implementation's extra permutations Q̃₁, Q̃₂ as
    index maps (h,): (Q̃y)_i = y[q_i]."""

    phi: VPRNNRotations
    theta: Tensor
    delta: Tensor
    q1: Tensor
    q2: Tensor

    def size(self) -> tuple[int, int]:
        """(h, 1)."""
        return self.phi.hidden_size, 1


def _sample(gen, h, T, device, dtype) -> ImplementationCase:
    """Random φ, Θ, extra permutations; ΔΘ Gaussian of scale 10^U(−5, 0)."""
    phi = VPRNNRotations(h, generator=gen, dtype=dtype, device=device)
    delta = torch.randn(h // 2, phi.k, generator=gen, dtype=torch.float64) * 10 ** float(
        torch.empty(()).uniform_(-5, 0, generator=gen))
    q1, q2 = torch.randperm(h, generator=gen), torch.randperm(h, generator=gen)
    return ImplementationCase(phi, phi.theta.detach().clone(), delta.to(device=device, dtype=dtype), q1, q2)


def _starts(h, T, device, dtype) -> list[ImplementationCase]:
    """eq. 34's routed perturbation (its supremum) between two reversing permutations."""
    p = routed_perturbation(h, device=device, dtype=dtype)
    rev = torch.arange(h - 1, -1, -1)
    return [ImplementationCase(p.phi, p.theta, p.delta, rev, rev.roll(1))]


def _measure(case: ImplementationCase) -> dict[str, tuple[Tensor, ...]]:
    h = case.phi.hidden_size
    diff = case.phi.matrix(case.theta + case.delta) - case.phi.matrix(case.theta)
    implemented = diff[case.q1][:, case.q2]                            # Q̃₁ (φ(Θ + ΔΘ) − φ(Θ)) Q̃₂
    spec = lambda m: torch.linalg.matrix_norm(m, ord=2)  # noqa: E731
    k = vprnn_max_sublayers(h)
    return {"‖Q̃₁ΔφQ̃₂‖₂ = ‖Δφ‖₂ (permutations are orthogonal)": (
                (spec(implemented) - spec(diff)).abs(), _RTOL * spec(diff), spec(diff)),
            A4_BOUND: (spec(implemented), k * spec(case.delta))}


a4 = Claim(
    id="sgornn.a4",
    source="sgornn.md, Appendix A.4",
    statement="For φ̃ = Q̃₁φQ̃₂ with permutations Q̃₁, Q̃₂: ‖φ̃(Θ + ΔΘ) − φ̃(Θ)‖₂ ≤ ‖φ(Θ + ΔΘ) − φ(Θ)‖₂ ≤ k‖ΔΘ‖₂",
    assumptions=(A_SUBLAYERS,),
    measure="spectral norms of the implemented and the plain differences",
    bound="equality for the permutation step; 2⌈log₂h⌉‖ΔΘ‖₂ (eq. 34)",
    evaluate=_measure,
    cases=CaseSpace(case_type=ImplementationCase, sample=_sample, starts=_starts,
                    sizes={"quick": [(2, 1), (16, 1)], "full": [(2, 1), (16, 1), (64, 1)]}),
    explanation="Would mean the extra permutations change the Lipschitz constant, or eq. 34 fails.",
    notes="The first step holds with equality (the paper writes ≤); any permutations inserted between the "
          "factors R_jQ_j merge into the Q_j, and those outside into Q̃₁, Q̃₂, as A.4 says. The bound part has "
          "eq. 34's supremum, reached by the same routed perturbation.",
    supremum=Supremum(eq34_supremum, "As sgornn.eq34 (the permutations change no spectral norm).", at=(16, 1),
                      part=A4_BOUND),
)
