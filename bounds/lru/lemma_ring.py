"""arXiv 2303.06349, the lemma on ring sampling: with u₁, u₂ ~ U[0, 1] independent and
0 ≤ r_min ≤ r_max ≤ 1, ν = −½ log(u₁(r_max² − r_min²) + r_min²) and θ = 2π u₂ make exp(−ν + iθ) uniformly
distributed on the ring {r_min ≤ |z| ≤ r_max} (paraphrased from the issue and the paper's initialisation; the
lemma's own wording was not read, see bounds/lru/__init__.py).

Uniform on the ring means |λ|² ~ U[r_min², r_max²] (the area element is r dr dθ = ½ d(r²) dθ) and θ ~ U[0, 2π),
independent; the cell's θ range is θ_max (2π in the lemma). Checked three ways: the exact verdict (sympy: the
radius' CDF under the lemma's map equals the ring's area fraction), the identity |λ|² = u₁(r_max² − r_min²) + r_min²
of :func:`rnnaudit.cells.ring_init`, and the cell's own draws against both uniform laws by the
Dvoretzky–Kiefer–Wolfowitz inequality P(sup|F_n − F| > ε) ≤ 2 exp(−2nε²) at a false-alarm rate of 1e-9.
"""

from __future__ import annotations

import math

import sympy as sp
import torch

from rnnaudit.bounds.cell_case import CellCase, from_model_of, uniform
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict
from rnnaudit.bounds.lru.cases import lru_case
from rnnaudit.cells import LRU, ring_init

__all__ = ["lemma_ring", "DRAWS", "FALSE_ALARM", "IDENTITY_RTOL", "dkw_radius"]

#: Eigenvalues per case: the DKW radius at 1e-9 is sqrt(ln(2e9)/(2·4000)) ≈ 0.052, small enough that the naive
#: sampler |λ| ~ U[r_min, r_max] (sup-distance up to 0.25 from the ring law) fails (tests).
DRAWS = 4000
#: Probability that a correct sampler's draws exceed the DKW radius in one case.
FALSE_ALARM = 1e-9
#: |λ|² against u₁(r_max² − r_min²) + r_min²: log, exp, exp, exp and the affine map, each within a few roundings of
#: values ≤ 1, amplified by at most the condition of exp(−e^ν) (|ν|·e^ν·... ≤ 40 at the ring's edges): 1e-13.
IDENTITY_RTOL = 1e-13


def dkw_radius(n: int, alpha: float = FALSE_ALARM) -> float:
    """ε with 2 exp(−2nε²) = α: the sup-distance an empirical CDF of n draws exceeds with probability ≤ α."""
    return math.sqrt(math.log(2 / alpha) / (2 * n))


def _sup_distance(samples, cdf) -> torch.Tensor:
    """sup_x |F_n(x) − F(x)| of the samples against a continuous CDF (evaluated at the order statistics)."""
    s, _ = torch.sort(samples)
    n = s.numel()
    F = cdf(s).clamp(0, 1)
    k = torch.arange(1, n + 1, dtype=s.dtype, device=s.device)
    return torch.maximum((k / n - F).abs().max(), (F - (k - 1) / n).abs().max())


def _sample(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> CellCase:
    """An LRU of DRAWS modes at a ring drawn as in :func:`bounds.lru.cases.sample_lru` (h, T unused beyond the
    recorded size)."""
    r_min = uniform(gen, 0.0, 0.9)
    return lru_case(gen, DRAWS, 1, r_min, uniform(gen, r_min + 1e-3, 1.0), uniform(gen, 0.1, 2 * math.pi),
                    device=device, dtype=dtype)


def _measure(case: CellCase):
    cell = case.cell
    lam = cell.lambdas().detach()
    a, b = cell.r_min ** 2, cell.r_max ** 2
    u = torch.linspace(0, 1, 257, dtype=lam.real.dtype, device=lam.device)[:-1]
    nu_log, _ = ring_init(u, u, cell.r_min, cell.r_max, cell.max_phase)
    mod2 = torch.exp(-2 * torch.exp(nu_log))
    target = u * (b - a) + a
    eps = lam.real.new_tensor(dkw_radius(lam.numel()))
    return {
        "ring_init: |λ|² = u₁(r_max² − r_min²) + r_min²": ((mod2 - target).abs().max(),
                                                           IDENTITY_RTOL * target.abs().max(), target.abs().max()),
        "sup|F_n − F| of |λ|² against U[r_min², r_max²]": (_sup_distance(lam.abs() ** 2, lambda s: (s - a) / (b - a)),
                                                          eps),
        "sup|F_n − F| of arg λ against U[0, θ_max]": (
            _sup_distance(torch.remainder(lam.angle(), 2 * math.pi), lambda s: s / cell.max_phase), eps),
    }


def _ring(case: CellCase) -> tuple[bool, str]:
    c = case.cell
    ok = isinstance(c, LRU) and 0 <= c.r_min < c.r_max <= 1 and 0 < c.max_phase <= 2 * math.pi
    return ok, f"r_min = {getattr(c, 'r_min', None)}, r_max = {getattr(c, 'r_max', None)}, " \
               f"θ_max = {getattr(c, 'max_phase', None)}"


def _fresh(case: CellCase) -> tuple[bool, str]:
    n = case.cell.state_size if isinstance(case.cell, LRU) else 0
    return n >= 1000, f"{n} eigenvalues drawn (the DKW check needs at least 1000)"


A_RING = Assumption("0 ≤ r_min < r_max ≤ 1 and 0 < θ_max ≤ 2π", _ring)
A_DRAWS = Assumption("λ as drawn by the initialisation (at least 1000 modes)", _fresh)


def _exact() -> ExactVerdict:
    u, r, a, b = sp.symbols("u r a b", positive=True)  # a = r_min², b = r_max²
    # P(|λ| ≤ r) under the map: |λ|² = u(b − a) + a ≤ r² ⇔ u ≤ (r² − a)/(b − a), u uniform
    lemma_cdf = sp.solve(sp.Eq(u * (b - a) + a, r ** 2), u)[0]
    ring_cdf = sp.integrate(sp.Symbol("s", positive=True), (sp.Symbol("s", positive=True), sp.sqrt(a), r)) \
        / sp.integrate(sp.Symbol("s", positive=True), (sp.Symbol("s", positive=True), sp.sqrt(a), sp.sqrt(b)))
    if sp.simplify(lemma_cdf - ring_cdf) == 0:
        return ExactVerdict("proved", "P(|λ| ≤ r) = (r² − r_min²)/(r_max² − r_min²) under the map and under the ring's "
                                      "area measure ∫ s ds; θ = 2πu₂ is uniform and independent of u₁")
    return ExactVerdict("violated", f"CDFs differ: {lemma_cdf} vs {sp.simplify(ring_cdf)}")


#: The claim on a user's model: one case per input sequence, from a float64 copy of its cell.
_FROM_MODEL = from_model_of(LRU, what="the LRU ring lemma (arXiv 2303.06349)")


lemma_ring = Claim(
    id="lru.lemma_ring",
    source="Orvieto et al. 2023 (arXiv 2303.06349), the lemma on uniform ring sampling (paraphrased from the "
           "issue; the lemma's wording was not read)",
    statement="u₁, u₂ ~ U[0, 1], ν = −½ log(u₁(r_max² − r_min²) + r_min²), θ = 2πu₂: exp(−ν + iθ) is uniformly "
              "distributed on the ring between the circles of radii r_min and r_max",
    assumptions=(A_RING, A_DRAWS),
    measure="the identity of cells.ring_init on a grid of u₁; the sup-distance of the cell's drawn |λ|² and arg λ "
            "from U[r_min², r_max²] and U[0, θ_max]",
    bound=f"IDENTITY_RTOL·max|λ|²; the DKW radius sqrt(ln(2/α)/(2n)) at α = {FALSE_ALARM:g}",
    evaluate=_measure,
    cases=CaseSpace(case_type=CellCase, from_model=_FROM_MODEL, sample=_sample, sizes={"quick": [(2, 1), (4, 1)],
                                                               "full": [(2, 1), (4, 1), (8, 1), (16, 1)]}),
    explanation="The radius would not follow the ring's area law (e.g. |λ| drawn uniform in [r_min, r_max], which "
                "crowds the inner circle), or the phases would not be uniform.",
    notes="Holds, proved in exact arithmetic. The statistical parts can fail by chance with probability ≤ 2e-9 per "
          "case (DKW); the tests show they catch the naive radius sampler |λ| ~ U[r_min, r_max].",
    exact=_exact,
)
