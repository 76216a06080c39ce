"""sgornn.md, Appendix A.3, eq. 34 (quoted from Taylor-Melanson et al., 2021): the VPRNN map is
k-Lipschitz, ‖φ(Θ) − φ(Θ + ΔΘ)‖₂ ≤ k‖ΔΘ‖₂ with k = 2⌈log₂ h⌉."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim
from rnnaudit.cells import vprnn_max_sublayers
from rnnaudit.cells.orthogonal import VPRNNRotations

__all__ = ["PerturbationCase", "eq34"]


@dataclass
class PerturbationCase:
    """A VPRNN map φ with parameters Θ and a perturbation ΔΘ, both (h/2, k)."""

    phi: VPRNNRotations
    theta: Tensor
    delta: Tensor

    def size(self) -> tuple[int, int]:
        """(h, 1): no sequence is involved."""
        return self.phi.hidden_size, 1


def _sample(gen, h, T, device, dtype) -> PerturbationCase:
    """Random Θ (uniform angles) and ΔΘ of a log-uniform scale in [1e-6, 1]; in a third of the cases
    ΔΘ moves one row only (the same coordinate pair in every sublayer), the aligned direction."""
    phi = VPRNNRotations(h, generator=gen, dtype=dtype, device=device)
    delta = torch.randn(h // 2, phi.k, generator=gen, dtype=torch.float64)
    if torch.rand((), generator=gen) < 1 / 3:
        delta = torch.zeros_like(delta).index_fill_(0, torch.tensor([0]), 1.0)
    delta *= 10 ** float(torch.empty(()).uniform_(-6, 0, generator=gen))
    return PerturbationCase(phi, phi.theta.detach().clone(), delta.to(device=device, dtype=dtype))


def _measure(case: PerturbationCase) -> dict[str, tuple[Tensor, Tensor]]:
    h = case.phi.hidden_size
    diff = case.phi.matrix(case.theta) - case.phi.matrix(case.theta + case.delta)
    k = vprnn_max_sublayers(h)
    return {"‖φ(Θ) − φ(Θ + ΔΘ)‖₂ ≤ k‖ΔΘ‖₂, k = 2⌈log₂h⌉": (
        torch.linalg.matrix_norm(diff, ord=2), k * torch.linalg.matrix_norm(case.delta, ord=2))}


A_SUBLAYERS = Assumption("number of rotation sublayers ≤ 2⌈log₂ h⌉ (VPRNN's maximum)", lambda c: (
    c.phi.k <= vprnn_max_sublayers(c.phi.hidden_size),
    f"{c.phi.k} sublayers, maximum {vprnn_max_sublayers(c.phi.hidden_size)}"))

_PERTURBATIONS = CaseSpace(case_type=PerturbationCase, sample=_sample, free=lambda c: [c.theta, c.delta],
                           sizes={"quick": [(2, 1), (4, 1), (16, 1), (32, 1)],
                                  "full": [(2, 1), (4, 1), (16, 1), (64, 1), (128, 1)]})

eq34 = Claim(
    id="sgornn.eq34",
    source="sgornn.md, Appendix A.3, eq. 34 (quoted from Taylor-Melanson et al., 2021)",
    statement="‖φ(Θ) − φ(Θ + ΔΘ)‖₂ ≤ k‖ΔΘ‖₂ with k = 2⌈log₂ h⌉, for the VPRNN map",
    assumptions=(A_SUBLAYERS,),
    measure="spectral norm of the difference of the two dense VPRNN matrices",
    bound="2⌈log₂ h⌉ · ‖ΔΘ‖₂ (spectral norm of the h/2 × k perturbation)",
    evaluate=_measure,
    cases=_PERTURBATIONS,
    explanation="The telescoping argument gives (number of sublayers)·max_j ‖ΔΘ e_j‖_∞, so eq. 34's k must be at "
                "least the number of sublayers used; with more sublayers than 2⌈log₂h⌉ aligned perturbations add up.",
    notes="Each sublayer moves U by at most max_i |ΔΘ_ij| ≤ ‖ΔΘ‖₂, and aligned perturbations of one coordinate pair "
          "reach only √k·‖ΔΘ‖₂, so expect ratios well below 1.",
)
