"""enrnn.md, Sec. 2: with the spectrum inside the unit disc, "the dynamics exhibit transient
amplification ... as determined by the pseudo spectrum", checked as sup_k ‖A^k‖₂ ≥ (ρ_ε(A) − 1)/ε
(Trefethen & Embree, Thm. 16.4) on eigenvalue-normalised short-term matrices W^(S)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.analysis import pseudospectrum, sigma_min, transient_growth
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, NotApplicable, Supremum
from rnnaudit.bounds.enrnn.cases import draw, enrnn_cases_from_model
from rnnaudit.cells import eigenvalue_normalize, spectral_radius
from rnnaudit.cells.linalg import eigvals

__all__ = ["TransientCase", "sample_transient_case", "pseudospectral_lower_bound", "transient",
           "TRANSIENT_HORIZON", "TRANSIENT_EPS"]


@dataclass
class TransientCase:
    """A short-term matrix W^(S) (p, p): a non-normal T, eigenvalue-normalised (Sec. 3) so ρ < 1."""

    A: Tensor

    def size(self) -> tuple[int, int]:
        """(p, 1): no sequence is involved."""
        return self.A.shape[0], 1


#: Powers computed for sup_k ‖A^k‖₂; the sampled matrices have ρ ≤ 0.97, whose transients have
#: peaked and decayed well before k = 400 (the test checks the curve ends below its peak).
TRANSIENT_HORIZON = 400
#: log₁₀ ε of the pseudospectral radii used in the lower bound.
TRANSIENT_EPS = tuple(10.0 ** e for e in (-3, -2.5, -2, -1.5, -1, -0.5))
_TRANSIENT_GRID = 81


def sample_transient_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> TransientCase:
    """W^(S) = T/(ρ(T) + ε) with T = Q(D + sN)Qᵀ: D block-diagonal with eigenvalues in the unit disc,
    N strictly upper triangular Gaussian with s ∈ {0, 1, 4} (normal to strongly non-normal), Q a
    random orthogonal matrix, ε ∈ (0.03, 1) so that ρ(W^(S)) = ρ/(ρ + ε) ≤ 0.97."""
    p = h
    D = torch.diag(torch.rand(p, generator=gen, dtype=torch.float64) * 2 - 1)
    s = [0.0, 1.0, 4.0][int(torch.randint(0, 3, (), generator=gen))]
    N = torch.triu(torch.randn(p, p, generator=gen, dtype=torch.float64), diagonal=1) * s / math.sqrt(p)
    Q, _ = torch.linalg.qr(torch.randn(p, p, generator=gen, dtype=torch.float64))
    raw = Q @ (D + N) @ Q.mT
    eps = 0.03 + 0.97 * draw(gen)
    A = eigenvalue_normalize(raw, eps)
    return TransientCase(A.to(device=device, dtype=dtype))


def pseudospectral_lower_bound(A: Tensor) -> Tensor:
    """max over ε of (ρ_ε(A) − 1)/ε, with ρ_ε the ε-pseudospectral radius, 0-d.

    ρ_ε is read off σ_min(zI − A) (:func:`rnnaudit.analysis.sigma_min`) on a square grid and, finely,
    on the rays through the eigenvalues of largest modulus, where a grid is too coarse to see small ε.
    Any sampling can only miss points of Λ_ε, so this is a lower estimate of the true maximum, which
    keeps the check honest.
    """
    A64 = A.detach().cpu().double()
    lim = float(torch.linalg.matrix_norm(A64, ord=2)) + max(TRANSIENT_EPS)
    axis = torch.linspace(-lim, lim, _TRANSIENT_GRID, dtype=torch.float64)
    grid = pseudospectrum(A64, axis, axis)
    z = torch.complex(grid.x[None, :].expand_as(grid.sigma), grid.y[:, None].expand_as(grid.sigma)).flatten()
    sig = grid.sigma.flatten()
    lam = eigvals(A64)
    for l in lam[lam.abs().argsort(descending=True)[:4]]:
        direction = l / l.abs() if l.abs() > 0 else torch.tensor(1 + 0j, dtype=torch.complex128)
        # offsets clustered around each ε, where the boundary of Λ_ε crosses the ray for near-normal A; the points
        # just inside ε (1 − 10^−j) reach the boundary of a normal A's Λ_ε, the disc of radius ε
        just_inside = 1 - torch.logspace(-9, -3, 7, dtype=torch.float64)
        offsets = torch.cat([e * torch.cat([torch.linspace(0.5, 3.0, 101, dtype=torch.float64), just_inside])
                             for e in TRANSIENT_EPS])
        r = l.abs() + offsets
        ray = r * direction
        z, sig = torch.cat([z, ray]), torch.cat([sig, sigma_min(A64, ray.numpy())])
    best = torch.tensor(-math.inf, dtype=torch.float64)
    for eps in TRANSIENT_EPS:
        inside = sig < eps
        if inside.any():
            best = torch.maximum(best, (z[inside].abs().max() - 1) / eps)
    return best.to(A.device)


def _measure(case: TransientCase) -> dict[str, tuple[Tensor, Tensor]]:
    growth = transient_growth(case.A, TRANSIENT_HORIZON)
    peak = torch.as_tensor(growth.peak, dtype=case.A.dtype, device=case.A.device)
    return {"(ρ_ε(A) − 1)/ε ≤ sup_k ‖A^k‖₂": (pseudospectral_lower_bound(case.A).clamp_min(0), peak)}


A_RHO_BELOW_ONE = Assumption("ρ(W^(S)) < 1 (after eigenvalue normalization with ε > 0)", lambda c: (
    float(spectral_radius(c.A.detach())) < 1, f"ρ = {float(spectral_radius(c.A.detach())):.6g}"))

def _from_model(view) -> list[TransientCase]:
    """The trained short-term matrix W^(S) of an ENRNN model (float64, eval mode: no latching)."""
    (case, *_) = enrnn_cases_from_model(view)
    if case.cell.short_size == 0:
        raise NotApplicable("the model's ENRNN has no short-term block (h^(S) of size 0)")
    return [TransientCase(case.cell.short_term_matrix().detach())]


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[TransientCase]:
    """A = 0.999 I at the smallest size (2): ρ_ε = 0.999 + ε and max_k ‖A^k‖₂ = 1 (k = 0), so the ratio is
    1 − 0.001/ε_max = 0.9968, the supremum's construction; a Jordan-like non-normal W^(S) with ρ = 0.9 and a
    transient peak above 1 beside it."""
    if h != 2:
        return []
    jordan = torch.tensor([[0.9, 2.0], [0.0, 0.9]], dtype=torch.float64)
    return [TransientCase((0.999 * torch.eye(2, dtype=torch.float64)).to(device=device, dtype=dtype)),
            TransientCase(jordan.to(device=device, dtype=dtype))]


_TRANSIENT_CASES = CaseSpace(case_type=TransientCase, sample=sample_transient_case, starts=_starts,
                             sizes={"quick": [(2, 1), (8, 1), (16, 1)],
                                    "full": [(2, 1), (8, 1), (16, 1), (32, 1), (64, 1)]},
                             from_model=_from_model)

transient = Claim(
    id="enrnn.transient",
    source="enrnn.md, Sec. 2 (transient amplification via the pseudospectrum)",
    statement="with the spectrum inside the unit disc, the dynamics show transient amplification as determined "
              "by the pseudospectrum: sup_k ‖A^k‖₂ ≥ (ρ_ε(A) − 1)/ε for every ε > 0 (Trefethen & Embree, "
              "Thm. 16.4), so a pseudospectrum reaching outside the disc forces ‖A^k‖₂ > 1 for some k",
    assumptions=(A_RHO_BELOW_ONE,),
    measure="(ρ_ε − 1)/ε maximised over ε ∈ {1e-3, …, 10^-0.5} from a σ_min(zI − A) grid (Schur + inverse "
            "Lanczos)",
    bound=f"max_k ‖A^k‖₂ for k ≤ {TRANSIENT_HORIZON} (transient_growth)",
    evaluate=_measure,
    cases=_TRANSIENT_CASES,
    explanation="Only possible if ρ(A) ≥ 1, where sup_k ‖A^k‖ is infinite and a finite horizon underestimates it.",
    notes="A measurement more than a verdict: the worst ratio says how much of the actual amplification the "
          "pseudospectrum accounts for; normal W^(S) (s = 0) have no amplification (ratio ≤ 1 − (1 − ρ)/ε_max), "
          "non-normal ones do.",
    supremum=Supremum(1.0, "(ρ_ε(A) − 1)/ε ≤ sup_k ‖A^k‖₂ for every ε > 0 (Trefethen & Embree, Thm. 16.4) and the "
                           "measure is a lower estimate of the left side, so the ratio is ≤ 1; for A = rI, ρ_ε = r + ε "
                           "and sup_k ‖A^k‖₂ = 1 (k = 0), so the ratio is 1 − (1 − r)/ε_max → 1 as r → 1 "
                           "(structured start r = 0.999: 0.9968)", at=(2, 1)),
)
