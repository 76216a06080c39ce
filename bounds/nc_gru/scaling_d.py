"""nc_gru.md, Sec. 2.2 (Kahan, 2006): with a suitable D the skew A that generates an orthogonal W is bounded: every
orthogonal W is (I + A)^{-1}(I − A)D for some ±1 diagonal D and a skew A with every |a_ij| ≤ 1."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, Supremum, assumption_tolerances
from rnnaudit.bounds.nc_gru.cases import draw

__all__ = ["OrthogonalCase", "sample_orthogonal_case", "best_generator", "scaling_d"]

#: I + WD counts as singular (that D cannot generate W) below this smallest singular value: A's entries would then
#: exceed 1/σ_min ≥ 10⁸, far above the bound, so such D never decide the minimum.
SINGULAR = 1e-8


@dataclass
class OrthogonalCase:
    """An orthogonal W (h, h)."""

    W: Tensor

    def size(self) -> tuple[int, int]:
        """(h, 1)."""
        return self.W.shape[0], 1


def _haar(gen, h):
    Q, R = torch.linalg.qr(torch.randn(h, h, generator=gen, dtype=torch.float64))
    return Q * torch.sign(torch.diagonal(R))


def _rotations(h: int, angle: float) -> Tensor:
    W = torch.eye(h, dtype=torch.float64)
    c, s = torch.cos(torch.tensor(angle, dtype=torch.float64)), torch.sin(torch.tensor(angle, dtype=torch.float64))
    for i in range(0, h - 1, 2):
        W[i, i], W[i, i + 1], W[i + 1, i], W[i + 1, i + 1] = c, -s, s, c
    return W


def sample_orthogonal_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> OrthogonalCase:
    """Haar-distributed W (half the cases), the same times a reflection (det W = −1), 2×2 rotation blocks with a
    uniform angle (W D may then have the eigenvalue −1 for the D of the wrong parity), or a signed permutation."""
    kind = int(torch.randint(0, 4, (), generator=gen))
    if kind <= 1:
        W = _haar(gen, h)
        if kind == 1:
            W[:, 0] = -W[:, 0]
    elif kind == 2:
        W = _rotations(h, 2 * torch.pi * draw(gen))
    else:
        P = torch.eye(h, dtype=torch.float64)[torch.randperm(h, generator=gen)]
        W = P * torch.where(torch.rand(h, generator=gen) < 0.5, -1.0, 1.0).to(torch.float64)
    return OrthogonalCase(W.to(device=device, dtype=dtype))


def best_generator(W: Tensor) -> tuple[Tensor, Tensor]:
    """min over the 2^h diagonals D = diag(±1) with I + WD invertible of max_ij |a_ij|, A = (I + WD)^{-1}(I − WD)
    (then W = (I + A)^{-1}(I − A)D), and the minimising D's diagonal. Differentiable in W almost everywhere.

    Raises:
        ValueError: h > 16 (2^h solves).
    """
    h = W.shape[0]
    if h > 16:
        raise ValueError(f"best_generator tries all 2^h diagonals; h must be ≤ 16, got {h}")
    signs = torch.tensor(list(itertools.product((1.0, -1.0), repeat=h)), dtype=W.dtype, device=W.device)
    eye = torch.eye(h, dtype=W.dtype, device=W.device)
    WD = W[None] * signs[:, None, :]
    with torch.no_grad():
        ok = torch.linalg.matrix_norm(eye + WD, ord=-2) > SINGULAR
    A = torch.linalg.solve(eye + WD[ok], eye - WD[ok])
    size = A.abs().amax((-2, -1))
    k = int(torch.argmin(size.detach()))
    return size[k], signs[ok][k]


def _measure(case: OrthogonalCase) -> dict[str, tuple]:
    size, _ = best_generator(case.W)
    return {"Kahan: some D gives W = (I + A)^(-1)(I − A)D with max_ij |a_ij| ≤ 1": (size, size.new_ones(()))}


def _project(case: OrthogonalCase) -> None:
    U, _, Vh = torch.linalg.svd(case.W)
    case.W.copy_(U @ Vh)  # the nearest orthogonal matrix (polar factor)


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[OrthogonalCase]:
    """Rotation blocks by π/2 (where min_D max|a_ij| = 1: D = ±I gives a_ij = ±tan(π/4), the mixed D make I + WD
    singular), −I and I."""
    eye = torch.eye(h, dtype=torch.float64)
    return [OrthogonalCase(W.to(device=device, dtype=dtype)) for W in (_rotations(h, torch.pi / 2), -eye, eye)]


A_ORTHOGONAL = Assumption("W orthogonal", lambda c: (
    float(torch.linalg.matrix_norm(c.W.detach().mT @ c.W.detach() - torch.eye(c.W.shape[0], dtype=c.W.dtype,
                                                                                device=c.W.device), ord=2))
    <= assumption_tolerances().orthogonality, "‖WᵀW − I‖₂ = {:.3g}".format(float(torch.linalg.matrix_norm(
        c.W.detach().mT @ c.W.detach() - torch.eye(c.W.shape[0], dtype=c.W.dtype, device=c.W.device), ord=2)))))

_SIZES = [(1, 1), (2, 1), (3, 1), (4, 1), (6, 1)]
_ORTHOGONAL = CaseSpace(case_type=OrthogonalCase, sample=sample_orthogonal_case, free=lambda c: [c.W],
                        project=_project, starts=_starts, sizes={"quick": _SIZES, "full": _SIZES + [(8, 1), (10, 1)]})

scaling_d = Claim(
    id="nc_gru.scaling_d",
    source="nc_gru.md, Sec. 2.2, paragraph after eq. 2 (Kahan, 2006): 'it guarantees that the skew-symmetric matrix "
           "A that generates the orthogonal matrix will be bounded'",
    statement="Every orthogonal W equals (I + A)^{-1}(I − A)D for a suitable diagonal D of ±1 and a skew A with "
              "max_ij |a_ij| ≤ 1",
    assumptions=(A_ORTHOGONAL,),
    measure="min over all 2^h diagonals D (with I + WD invertible) of max_ij |a_ij|, A = (I + WD)^{-1}(I − WD)",
    bound="1",
    evaluate=_measure,
    cases=_ORTHOGONAL,
    explanation="Would contradict Kahan's theorem (scoRNN's Theorem 3.1).",
    notes="'A suitable choice on the number of negative ones' is read as a suitable D: which entries are −1 depends "
          "on W, not only their number ρ (whose parity is det W, nc_gru.eq2). Supremum 1, attained at h = 2 by the "
          "rotation by π/2 (D = ±I give A = ±[[0, 1], [−1, 0]], the other two D leave I + WD singular).",
    supremum=Supremum(1.0, "Kahan's bound; the rotation by π/2 has min_D max|a_ij| = tan(π/4) = 1", at=(2, 1)),
)
