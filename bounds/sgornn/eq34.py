"""sgornn.md, Appendix A.3, eq. 34 (quoted from Taylor-Melanson et al., 2021): the VPRNN map is
k-Lipschitz, ‖φ(Θ) − φ(Θ + ΔΘ)‖₂ ≤ k‖ΔΘ‖₂ with k = 2⌈log₂ h⌉."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, Supremum
from rnnaudit.cells import vprnn_max_sublayers
from rnnaudit.cells.orthogonal import VPRNNRotations

__all__ = ["PerturbationCase", "eq34", "eq34_supremum", "routed_perturbation", "MIN_PERTURBATION"]

#: Smallest ‖ΔΘ‖₂ the search keeps (the projection scales ΔΘ up to it): ‖φ(Θ) − φ(Θ + ΔΘ)‖ is a difference
#: of two matrices with entries of order 1 computed to ~kh·2⁻⁵³ ≈ 1e-14, so its relative error stays below
#: 1e-9 (the verdict's tolerance) only while the difference is above ~1e-5.
MIN_PERTURBATION = 1e-5


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


def _row_sizes(h: int) -> list[int]:
    """How many of the k = 2⌈log₂h⌉ columns of ΔΘ go to each of its h/2 rows in the balanced split."""
    k, r = vprnn_max_sublayers(h), h // 2
    q, rem = divmod(k, r)
    return [s for s in [q + 1] * rem + [q] * (r - rem) if s > 0]


def eq34_supremum(h: int, T: int = 1) -> float:
    """sup over Θ, ΔΘ of ‖φ(Θ) − φ(Θ + ΔΘ)‖₂/(k‖ΔΘ‖₂), k = 2⌈log₂h⌉: Σ_i √|S_i|/k for the balanced split
    of the k columns over the h/2 rows (1 once h/2 ≥ k); derivation in ``sgornn.eq34``'s supremum."""
    return sum(math.sqrt(s) for s in _row_sizes(h)) / vprnn_max_sublayers(h)


def routed_perturbation(h: int, scale: float = 1e-3, device="cpu", dtype=torch.float64) -> PerturbationCase:
    """Θ = 0 and permutations that carry one coordinate pair through every sublayer, on row j mod (h/2)
    at sublayer j; ΔΘ has one entry per column, on that row, of size scale/√|S_i| for a row of |S_i|
    entries, so ‖ΔΘ‖₂ = scale while φ(ΔΘ) rotates the carried plane by scale·Σ_i √|S_i|. The ratio is
    2 sin(scale Σ_i √|S_i| / 2)/(k scale), within (k scale)²/24 of :func:`eq34_supremum`."""
    k, r = vprnn_max_sublayers(h), h // 2
    rows = [j % r for j in range(k)]
    counts = {i: rows.count(i) for i in set(rows)}
    perms = torch.arange(h).repeat(k, 1)
    # sublayer j applies Q_j, then R_j (j = k−1 first): Q_j carries pair rows[j+1] to pair rows[j]
    for j in range(k - 1):
        a, b = rows[j], rows[j + 1]
        if a != b:
            perms[j, [2 * a, 2 * a + 1, 2 * b, 2 * b + 1]] = torch.tensor([2 * b, 2 * b + 1, 2 * a, 2 * a + 1])
    phi = VPRNNRotations(h, k, dtype=torch.float64)
    with torch.no_grad():
        phi.permutations.copy_(perms)
        phi.theta.zero_()
    delta = torch.zeros(r, k, dtype=torch.float64)
    for j, i in enumerate(rows):
        delta[i, j] = scale / math.sqrt(counts[i])
    phi = phi.to(device=device, dtype=dtype)
    return PerturbationCase(phi, phi.theta.detach().clone(), delta.to(device=device, dtype=dtype))


def _starts(h, T, device, dtype) -> list[PerturbationCase]:
    return [routed_perturbation(h, device=device, dtype=dtype)]


def _project(case: PerturbationCase) -> None:
    """Scale ΔΘ up to ‖ΔΘ‖₂ ≥ :data:`MIN_PERTURBATION` (the statement is for every ΔΘ; this keeps the
    measured difference above rounding)."""
    norm = float(torch.linalg.matrix_norm(case.delta, ord=2))
    if 0 < norm < MIN_PERTURBATION:
        case.delta.mul_(MIN_PERTURBATION / norm)


A_SUBLAYERS = Assumption("number of rotation sublayers ≤ 2⌈log₂ h⌉ (VPRNN's maximum)", lambda c: (
    c.phi.k <= vprnn_max_sublayers(c.phi.hidden_size),
    f"{c.phi.k} sublayers, maximum {vprnn_max_sublayers(c.phi.hidden_size)}"))

_PERTURBATIONS = CaseSpace(case_type=PerturbationCase, sample=_sample, free=lambda c: [c.theta, c.delta],
                           project=_project, starts=_starts,
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
    notes="Each sublayer moves U by at most max_i |ΔΘ_ij| ≤ ‖ΔΘ‖₂. Perturbations of one coordinate pair in every "
          "sublayer reach only √k·‖ΔΘ‖₂ (ratio 1/√k), but perturbations spread over different rows and carried "
          "into one plane by the permutations reach the bound itself once h/2 ≥ k (h ≥ 16): the inequality is "
          "tight there, with no slack for an error in k.",
    supremum=Supremum(
        eq34_supremum,
        "Cap: telescoping over the sublayers (all other factors orthogonal), ‖φ(Θ) − φ(Θ + ΔΘ)‖₂ ≤ Σ_j ‖R_j(Θ) − "
        "R_j(Θ + ΔΘ)‖₂ = Σ_j max_i 2|sin(ΔΘ_ij/2)| ≤ Σ_j max_i |ΔΘ_ij|. Grouping the columns j by the row i "
        "of their largest entry (sets S_i), Σ_{j∈S_i} |ΔΘ_ij| ≤ √|S_i| ‖ΔΘ_i·‖₂ ≤ √|S_i| ‖ΔΘ‖₂, so the ratio "
        "is at most max over splits of the k columns over the h/2 rows of Σ_i √|S_i|/k, the balanced split "
        "(Σ√ is concave); fewer sublayers than k only lower it. Values: 1/√2 at h = 2 and h = 4, "
        "(2√2 + 2)/6 at h = 8, 1 for h ≥ 16. Approached as ‖ΔΘ‖ → 0 by routed_perturbation: Θ = 0, "
        "permutations that carry one coordinate pair through every sublayer along the rows of a balanced "
        "split, entries scale/√|S_i|; the carried plane turns by scale·Σ_i√|S_i| while ‖ΔΘ‖₂ = scale "
        "(ratio within (k·scale)²/24 of the cap, 6e-6 at scale 10⁻³).",
        at=(16, 1)),
)
