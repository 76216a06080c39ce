"""spectral_rnn.md, App. A.6, eq. 26 and the step after it: for X ∈ ℝ^{n1×n2} with i.i.d. N(0, σ²) entries,
P[‖X‖₂ > t] ≤ 2n e^{−t²/(2nσ²)} for every n ≥ n1, n2; hence, with h = max{n, n_i, n_y}, "with probability ≥ 1/2,
‖δW‖₂, ‖δY‖₂, ‖δM‖₂ ≤ σ√(2h ln(12h))".

Probabilities: exact for vectors (‖X‖₂ = σχ_k, scipy's regularised incomplete gamma), Monte Carlo otherwise
with a 4-standard-error margin in the direction that protects against a false "violated".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from scipy.special import gammaincc
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, Supremum
from rnnaudit.bounds.spectral_rnn.cases import F64, draw, randint, t64

__all__ = ["eq26", "GaussianTailCase", "tail_probability", "N_DRAWS", "Z_MARGIN"]

#: Monte Carlo draws per matrix probability (SE ≤ 0.016); with Z_MARGIN standard errors it errs in the unsafe
#: direction with probability < 4e-5 per case.
N_DRAWS = 1000
Z_MARGIN = 4.0


@dataclass
class GaussianTailCase:
    """A Gaussian matrix shape and a threshold (eq. 26), and the three perturbation shapes of the step after it.

    Attributes: n1, n2: X's shape. n: the bound's n ≥ n1, n2. sigma: entry standard deviation. t: threshold ≥ 0.
        n_i, n_y: input and output sizes of the union-bound step (δW n×n, δM n×n_i, δY n_y×n). seed: MC draws.
    """

    n1: int
    n2: int
    n: int
    sigma: float
    t: float
    n_i: int
    n_y: int
    seed: int

    def size(self) -> tuple[int, int]:
        """(n, 1)."""
        return self.n, 1


def _norms(shape: tuple[int, int], sigma: float, gen: torch.Generator) -> Tensor:
    X = sigma * torch.randn(N_DRAWS, *shape, generator=gen, dtype=F64)
    return torch.linalg.matrix_norm(X, ord=2)


def tail_probability(n1: int, n2: int, sigma: float, t: float, gen: torch.Generator) -> tuple[float, float]:
    """(estimate, standard error) of P[‖X‖₂ > t], X ∈ ℝ^{n1×n2} i.i.d. N(0, σ²): exact (SE 0) when min(n1, n2) = 1,
    where ‖X‖₂ = ‖vec X‖ and P = Q(k/2, t²/(2σ²)) (regularised upper incomplete gamma, k = n1 n2)."""
    if min(n1, n2) == 1:
        return float(gammaincc((n1 * n2) / 2, t * t / (2 * sigma * sigma))), 0.0
    p = float((_norms((n1, n2), sigma, gen) > t).to(F64).mean())
    return p, math.sqrt(max(p * (1 - p), 1 / N_DRAWS) / N_DRAWS)


def _measure(case: GaussianTailCase) -> dict[str, tuple[Tensor, Tensor]]:
    gen = torch.Generator().manual_seed(case.seed)
    p, se = tail_probability(case.n1, case.n2, case.sigma, case.t, gen)
    bound = 2 * case.n * math.exp(-case.t ** 2 / (2 * case.n * case.sigma ** 2))
    h = max(case.n, case.n_i, case.n_y)
    t_star = case.sigma * math.sqrt(2 * h * math.log(12 * h))
    ok = torch.ones(N_DRAWS, dtype=torch.bool)
    for shape in ((case.n, case.n), (case.n, case.n_i), (case.n_y, case.n)):
        ok &= _norms(shape, case.sigma, gen) <= t_star
    q = float(ok.to(F64).mean())
    q_hi = q + Z_MARGIN * math.sqrt(max(q * (1 - q), 1 / N_DRAWS) / N_DRAWS)
    return {"eq. 26: P[‖X‖₂ > t] ≤ 2n e^{−t²/(2nσ²)} (lower confidence limit of P)": (
                t64(max(p - Z_MARGIN * se, 0.0)), t64(bound)),
            "P[‖δW‖, ‖δM‖, ‖δY‖ ≤ σ√(2h ln 12h)] ≥ 1/2 (upper confidence limit of P)": (t64(0.5), t64(min(q_hi, 1.0)))}


def _sample(gen, h, T, device, dtype) -> GaussianTailCase:
    """n = h; n1, n2 uniform in [1, n]; σ log-uniform in [0.01, 10]; t = σ s with s uniform in [0, 3√(2n ln 2n) + 1]
    (the bound falls below 1 at s = √(2n ln 2n)); n_i, n_y uniform in [1, 2n]."""
    n = h
    n1, n2 = randint(gen, 1, n), randint(gen, 1, n)
    sigma = 10 ** (-2 + 3 * draw(gen))
    s = draw(gen) * (3 * math.sqrt(2 * n * math.log(2 * n)) + 1) if n > 0 else 0.0
    return GaussianTailCase(n1, n2, n, sigma, sigma * s, randint(gen, 1, 2 * n), randint(gen, 1, 2 * n),
                            randint(gen, 0, 2**31 - 1))


def _starts(h, T, device, dtype) -> list[GaussianTailCase]:
    """t = 0 (P = 1 against 2n: ratio 1/(2n), 1/2 at n = 1, the supremum) and the threshold where the bound
    crosses 1, for a vector and a square matrix."""
    s = math.sqrt(2 * h * math.log(2 * h)) if h > 0 else 0.0
    return [GaussianTailCase(1, 1, h, 1.0, 0.0, 1, 1, 1), GaussianTailCase(h, 1, h, 1.0, s, h, h, 2),
            GaussianTailCase(h, h, h, 1.0, s, h, h, 3)]


def _exact() -> ExactVerdict:
    """The step after eq. 26 by sympy: 3 · 2h e^{−t²/(2hσ²)} = 1/2 at t = σ√(2h ln 12h) (a union bound over δW,
    δM, δY with eq. 26 at n = h)."""
    import sympy as sp

    h, sigma = sp.symbols("h sigma", positive=True)
    t = sigma * sp.sqrt(2 * h * sp.log(12 * h))
    value = sp.simplify(3 * 2 * h * sp.exp(-t ** 2 / (2 * h * sigma ** 2)))
    if value != sp.Rational(1, 2):
        return ExactVerdict("violated", f"3·2h·exp(−t²/(2hσ²)) at t = σ√(2h ln 12h) is {value}, not 1/2")
    return ExactVerdict("proved", "3 · 2h e^{−t²/(2hσ²)} = 1/2 exactly at t = σ√(2h ln 12h): with eq. 26 at n = h "
                                  "and a union bound over δW, δM, δY, all three are ≤ t with probability ≥ 1/2")


A_N = Assumption("n ≥ n1, n2; σ > 0; t ≥ 0", lambda c: (
    c.n >= max(c.n1, c.n2) and c.sigma > 0 and c.t >= 0, f"n = {c.n}, n1 = {c.n1}, n2 = {c.n2}, σ = {c.sigma}, "
                                                           f"t = {c.t}"))

_TAILS = CaseSpace(case_type=GaussianTailCase, sample=_sample, starts=_starts,
                   sizes={"quick": [(1, 1), (2, 1), (4, 1), (8, 1)], "full": [(1, 1), (2, 1), (4, 1), (8, 1), (32, 1)]})

eq26 = Claim(
    id="spectral_rnn.eq26",
    source="spectral_rnn.md, App. A.6, eq. 26 and the sentence after it (proof of Theorem 5)",
    statement="P_{X∼N(0,σ²I)}[‖X‖₂ > t] ≤ 2n e^{−t²/(2nσ²)} for all n ≥ n1, n2; so with probability ≥ 1/2, "
              "‖δW‖₂, ‖δY‖₂, ‖δM‖₂ ≤ σ√(2h ln(12h))",
    assumptions=(A_N,),
    measure="P[‖X‖₂ > t]: exact for vectors (χ distribution), else 1000 Monte Carlo draws minus 4 standard errors; "
            "the joint probability of the three perturbations plus 4 standard errors",
    bound="2n e^{−t²/(2nσ²)}; probability 1/2",
    evaluate=_measure,
    cases=_TAILS,
    explanation="Would mean the Gaussian matrix tail bound (matrix Gaussian series, Tropp 2012) or the union bound "
                "after it fails.",
    notes="Holds. The paper attributes eq. 26 to Tropp et al. (2005), a paper on tight frames; the bound is the "
          "rectangular Gaussian series inequality P[‖X‖ ≥ t] ≤ (n1 + n2) e^{−t²/(2σ² max(n1, n2))} (Tropp 2012, "
          "'User-friendly tail bounds'), which implies eq. 26. The step's union bound is exact (sympy). Supremum "
          "1/2 at t = 0, n = 1 (P = 1 against 2): Φ̄(s)e^{s²/2} decreases in s (Mills' ratio).",
    supremum=Supremum(0.5, "at n = n1 = n2 = 1 the ratio is P[|Z| > s]/(2e^{−s²/2}) = Φ̄(s)e^{s²/2}, decreasing "
                           "(Mills' ratio Φ̄(s) < φ(s)/s), so its supremum is the value 1/2 at t = 0; for n ≥ 2 "
                           "the t = 0 ratio is 1/(2n)", at=(1, 1),
                      part="eq. 26: P[‖X‖₂ > t] ≤ 2n e^{−t²/(2nσ²)} (lower confidence limit of P)"),
    exact=_exact,
)
