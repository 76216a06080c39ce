"""enrnn.md, Sec. 4, eq. 5: the initialisation of T, as the paper describes its spectrum ("uniformly
distributed on the complex unit disc", false: |λ| is uniform on [0, 1]) and as eq. 5 itself draws it
(γ_j ~ U[−1, 1), t_j ~ U[0, π/2), so |λ| ~ U[0, 1] and arg λ ~ U[0, 2π)), by KS tests."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from scipy.stats import kstwo
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim
from rnnaudit.cells import eq5_init
from rnnaudit.cells.linalg import eigvals

__all__ = ["InitCase", "sample_init_case", "ks_statistic", "eq5", "eq5_corrected", "EQ5_ALPHA", "EQ5_STRUCTURE_TOL"]

#: KS significance level per test. The full profile runs ≤ 200 cases × 4 tests, so a correct
#: distribution is rejected somewhere with probability ≤ 800 α = 8e-4.
EQ5_ALPHA = 1e-6
#: Eq. 5 builds T from γ cos t and γ sin t directly: the block structure is exact in floating point,
#: and recomputing γR(t) from the recovered (γ, t) differs by a few ulps.
EQ5_STRUCTURE_TOL = 1e-13


@dataclass
class InitCase:
    """An initial T of the short-term block with the eigenvalue chosen from each conjugate pair.

    Attributes:
        T: (m, m). pick: (⌊m/2⌋,) of ±1: use the eigenvalue of block j with sign(Im λ) = pick_j (the
            two of a pair are not independent; one per block, chosen at random, is a sample from the
            spectrum). source: how T was drawn (``"eq5_init"`` = :func:`rnnaudit.cells.eq5_init`).
    """

    T: Tensor
    pick: Tensor
    source: str = "eq5_init"

    def size(self) -> tuple[int, int]:
        """(m, 1)."""
        return self.T.shape[0], 1


def sample_init_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> InitCase:
    """T = eq5_init(m) with m = h (even: eq. 5 defines ⌊n/2⌋ 2×2 blocks and nothing else), and a
    random choice of one eigenvalue per conjugate pair."""
    mat = eq5_init(h, generator=gen, dtype=torch.float64)
    pick = torch.where(torch.rand(h // 2, generator=gen) < 0.5, 1.0, -1.0).to(torch.float64)
    return InitCase(mat.to(device=device, dtype=dtype), pick.to(device=device, dtype=dtype))


A_EQ5 = Assumption("T drawn by eq. 5 (cells.enrnn.eq5_init: γ_j ~ U[−1, 1), t_j ~ U[0, π/2))",
                   lambda c: (c.source == "eq5_init", f"source = {c.source}"))


def ks_statistic(samples: Tensor, cdf) -> Tensor:
    """Kolmogorov–Smirnov statistic sup |F_n − F| of ``samples`` (1-D) against the CDF ``cdf``, 0-d."""
    u = cdf(samples.sort().values).clamp(0, 1)
    n = u.numel()
    i = torch.arange(1, n + 1, dtype=u.dtype, device=u.device)
    return torch.maximum((i / n - u).max(), (u - (i - 1) / n).max())


def _blocks(case: InitCase) -> tuple[Tensor, Tensor]:
    """The 2×2 diagonal blocks (k, 2, 2) and the largest entry outside them."""
    T = case.T
    k = T.shape[0] // 2
    idx = torch.arange(k, device=T.device) * 2
    B = torch.stack([T[idx, idx], T[idx, idx + 1], T[idx + 1, idx], T[idx + 1, idx + 1]], dim=-1).reshape(k, 2, 2)
    mask = torch.ones_like(T, dtype=torch.bool)
    mask[idx, idx] = mask[idx, idx + 1] = mask[idx + 1, idx] = mask[idx + 1, idx + 1] = False
    if T.shape[0] % 2:
        mask[-1, -1] = False  # eq5_init's extra 1×1 block for odd m
    off = T[mask].abs().max() if bool(mask.any()) else T.new_zeros(())
    return B, off


def _eigen_sample(case: InitCase) -> tuple[Tensor, Tensor]:
    """|λ| and arg λ ∈ [0, 2π) of one eigenvalue per block (the one with sign(Im λ) = pick)."""
    lam = eigvals(_blocks(case)[0])  # (k, 2)
    first = (case.pick * lam[:, 0].imag >= 0)
    chosen = torch.where(first, lam[:, 0], lam[:, 1])
    return chosen.abs(), torch.remainder(torch.angle(chosen), 2 * math.pi)


def _crit(n: int, like: Tensor) -> Tensor:
    return like.new_tensor(float(kstwo.ppf(1 - EQ5_ALPHA, n)))


def _measure(case: InitCase) -> dict[str, tuple[Tensor, Tensor]]:
    r, phi = _eigen_sample(case)
    crit = _crit(r.numel(), r)
    return {
        "|λ| as on the uniform disc, P(|λ| ≤ r) = r² (KS statistic ≤ critical value at α)": (
            ks_statistic(r, lambda s: s**2), crit),
        "arg λ ~ U[0, 2π) (KS statistic ≤ critical value at α)": (ks_statistic(phi, lambda s: s / (2 * math.pi)), crit),
    }


def _measure_corrected(case: InitCase) -> dict[str, tuple[Tensor, Tensor]]:
    B, off = _blocks(case)
    c, s = B[:, 0, 0], B[:, 1, 0]
    gamma = torch.sign(c) * torch.hypot(c, s)  # cos t_j > 0 on [0, π/2) fixes the sign of γ_j
    t = torch.atan2(s / gamma, c / gamma)
    rebuilt = gamma[:, None, None] * torch.stack([torch.stack([torch.cos(t), -torch.sin(t)], -1),
                                                  torch.stack([torch.sin(t), torch.cos(t)], -1)], -2)
    structure = torch.maximum((B - rebuilt).abs().max(), off)
    r, phi = _eigen_sample(case)
    crit = _crit(r.numel(), r)
    ks = "(KS statistic ≤ critical value at α)"
    return {
        "T = diag(γ_j R(t_j)) (eq. 5)": (structure, r.new_tensor(EQ5_STRUCTURE_TOL), case.T.abs().max()),
        f"γ_j ~ U[−1, 1) {ks}": (ks_statistic(gamma, lambda v: (v + 1) / 2), crit),
        f"t_j ~ U[0, π/2) {ks}": (ks_statistic(t, lambda v: v / (math.pi / 2)), crit),
        f"|λ| ~ U[0, 1] {ks}": (ks_statistic(r, lambda v: v), crit),
        f"arg λ ~ U[0, 2π) {ks}": (ks_statistic(phi, lambda v: v / (2 * math.pi)), crit),
    }


_INIT_CASES = CaseSpace(case_type=InitCase, sample=sample_init_case,
                        sizes={"quick": [(64, 1), (256, 1), (1024, 1)],
                               "full": [(64, 1), (256, 1), (1024, 1), (2048, 1)]})

eq5 = Claim(
    id="enrnn.eq5",
    source="enrnn.md, Sec. 4, eq. 5 and the sentences around it",
    statement="T = diag(B_1, …, B_⌊n/2⌋), B_j = γ_j R(t_j), t_j ~ U[0, π/2), γ_j ~ U[−1, 1), 'results in "
              "eigenvalues of the form γ_j e^{±it_j} which are uniformly distributed on the complex unit disc'",
    assumptions=(A_EQ5,),
    measure="one eigenvalue per 2×2 block (a random one of each conjugate pair): KS statistic of |λ| against "
            "P(|λ| ≤ r) = r² and of arg λ against U[0, 2π)",
    bound=f"the KS critical value at significance α = {EQ5_ALPHA:g} (statistic > critical value ⟺ p-value < α)",
    evaluate=_measure,
    cases=_INIT_CASES,
    explanation="|γ_j e^{±it_j}| = |γ_j| is uniform on [0, 1], so P(|λ| ≤ r) = r; uniform on the disc needs "
                "P(|λ| ≤ r) = r² (area πr²/π). The KS distance between the two is max_r (r − r²) = 1/4, detected "
                "once m/2 ≳ 250 blocks at α = 1e-6. The angle is uniform, as claimed. Uniform on the disc would "
                "need γ_j = ±√U. See enrnn.eq5.corrected.",
    notes="Counts one eigenvalue per conjugate pair, since the two are not independent. Small m has too little "
          "power to reject, so the verdict comes from m ≥ 256.",
)

eq5_corrected = Claim(
    id="enrnn.eq5.corrected",
    source="enrnn.md, Sec. 4, eq. 5, its own distribution (rnnaudit)",
    statement="eq. 5 gives T = diag(γ_j R(t_j)) with γ_j ~ U[−1, 1), t_j ~ U[0, π/2), hence eigenvalues "
              "γ_j e^{±it_j} with |λ| ~ U[0, 1] and arg λ ~ U[0, 2π)",
    assumptions=(A_EQ5,),
    measure="block structure max |T − diag(γ_j R(t_j))| with (γ_j, t_j) recovered from T; KS statistics of γ, t, "
            "|λ| and arg λ against those laws",
    bound=f"{EQ5_STRUCTURE_TOL:g} (structure); the KS critical value at α = {EQ5_ALPHA:g} (distributions)",
    evaluate=_measure_corrected,
    cases=_INIT_CASES,
    explanation="Would mean cells.enrnn.eq5_init does not implement eq. 5.",
    notes="The spectral radius of the initial T is max_j |γ_j| < 1, so training starts un-normalised (Sec. 4).",
)
