"""sgornn.md, Sec. 2, eq. 2: the VPRNN map φ(Θ) = R_1Q_1⋯R_kQ_k is "a mapping from recurrent parameters
into the orthogonal matrices", for every Θ."""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
import torch
from torch import Tensor

from rnnaudit.bounds.core import CaseSpace, Claim, ExactVerdict
from rnnaudit.cells import vprnn_max_sublayers
from rnnaudit.cells.orthogonal import VPRNNRotations

__all__ = ["PhiCase", "eq2", "ORTHOGONALITY_TOL"]

#: ‖UᵀU − I‖₂ allowed: U is a product of k ≤ 2⌈log₂h⌉ rotation layers, each exact to a few ulps, so the
#: defect is ≲ 4k·2⁻⁵³ ≈ 1e-14 at k = 16; 1e-12 leaves a 100× margin.
ORTHOGONALITY_TOL = 1e-12


@dataclass
class PhiCase:
    """A VPRNN map φ (its permutations) and angles Θ (h/2, k)."""

    phi: VPRNNRotations
    theta: Tensor

    def size(self) -> tuple[int, int]:
        """(h, 1)."""
        return self.phi.hidden_size, 1


def _sample(gen, h, T, device, dtype) -> PhiCase:
    """Random permutations, k uniform in [1, 2⌈log₂h⌉], angles Gaussian of scale 10^U(−3, 3) radians."""
    k = int(torch.randint(1, vprnn_max_sublayers(h) + 1, (), generator=gen))
    phi = VPRNNRotations(h, k, generator=gen, dtype=dtype, device=device)
    scale = 10 ** float(torch.empty(()).uniform_(-3, 3, generator=gen))
    theta = scale * torch.randn(h // 2, k, generator=gen, dtype=torch.float64)
    return PhiCase(phi, theta.to(device=device, dtype=dtype))


def _measure(case: PhiCase) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    U = case.phi.matrix(case.theta)
    eye = torch.eye(U.shape[0], dtype=U.dtype, device=U.device)
    defect = torch.linalg.matrix_norm(U.mT @ U - eye, ord=2)
    return {"‖φ(Θ)ᵀφ(Θ) − I‖₂ = 0": (defect, defect.new_tensor(ORTHOGONALITY_TOL), defect.new_tensor(1.0))}


def _exact() -> ExactVerdict:
    th = sp.Symbol("theta", real=True)
    R = sp.Matrix([[sp.cos(th), -sp.sin(th)], [sp.sin(th), sp.cos(th)]])
    if sp.simplify(R.T * R - sp.eye(2)) != sp.zeros(2, 2):
        return ExactVerdict("violated", f"R(θ)ᵀR(θ) = {sp.simplify(R.T * R)}")
    return ExactVerdict("proved", "R(θ)ᵀR(θ) = I₂ symbolically, so each R_j (block-diagonal in 2 × 2 rotations) is "
                        "orthogonal, as is each permutation Q_j, and products of orthogonal matrices are orthogonal")


eq2 = Claim(
    id="sgornn.eq2",
    source="sgornn.md, Sec. 2, eq. 2 and the sentence before it",
    statement="φ(Θ) = R_1Q_1⋯R_kQ_k is orthogonal for every Θ",
    assumptions=(),
    measure="‖UᵀU − I‖₂ of the dense U = φ(Θ) (rnnaudit.cells.VPRNNRotations) at random Θ, permutations and k",
    bound=f"{ORTHOGONALITY_TOL:g} (float64 rounding of k rotation layers)",
    evaluate=_measure,
    cases=CaseSpace(case_type=PhiCase, sample=_sample,
                    sizes={"quick": [(2, 1), (16, 1), (64, 1)], "full": [(2, 1), (16, 1), (128, 1), (256, 1)]}),
    explanation="Would mean the implemented map leaves the orthogonal group, which every proof relies on.",
    notes="An identity up to rounding: there is nothing for an ascent to move toward, so the check draws random "
          "angles over six orders of magnitude of scale, random permutations and sublayer counts.",
    exact=_exact,
)
