"""sgornn.md, Appendix A.1, eq. 24 and the sentence after it: the proof's final bound "is equivalent to the
original statement of the theorem" (eq. 6 = eq. 14), and how eq. 13 and eq. 23 combine into it.

Eq. 24 (= eq. 13 with eq. 23) has the confidence term 3B_L√(log(2/δ)/(2m)); eq. 6 and eq. 14 state
3B_L√(log(2/δ)/m), √2 larger. The two are not equivalent; eq. 24 implies eq. 6, so Theorem 1 stands.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import sympy as sp
import torch
from torch import Tensor

from rnnaudit.bounds.core import CaseSpace, Claim, ExactVerdict, Supremum

__all__ = ["GapCase", "eq24", "eq24_corrected", "statement_terms", "proof_terms"]


@dataclass
class GapCase:
    """The quantities of Theorem 1's right side: sample size m, confidence δ, loss bound B_L, C = R_xR_WR_v,
    gate α and length T."""

    m: int
    delta: float
    B_L: float
    C: float
    alpha: float
    T: int

    def size(self) -> tuple[int, int]:
        """(1, T)."""
        return 1, self.T


def _sample(gen, h, T, device, dtype) -> GapCase:
    """m log-uniform in [1, 10⁶], δ in [10⁻⁶, 0.999], B_L and C in [10⁻², 10²], α in [10⁻³, 0.5) (log-uniform)."""
    def lu(lo: float, hi: float) -> float:
        return math.exp(math.log(lo) + float(torch.rand((), generator=gen)) * (math.log(hi) - math.log(lo)))

    return GapCase(max(1, round(lu(1, 1e6))), lu(1e-6, 0.999), lu(1e-2, 1e2), lu(1e-2, 1e2), lu(1e-3, 0.499), T)


def statement_terms(c: GapCase) -> tuple[float, float]:
    """(gap, confidence) terms of eq. 6 / eq. 14: 4CαT/√m and 3B_L√(log(2/δ)/m)."""
    return 4 * c.C * c.alpha * c.T / math.sqrt(c.m), 3 * c.B_L * math.sqrt(math.log(2 / c.delta) / c.m)


def proof_terms(c: GapCase) -> tuple[float, float]:
    """(gap, confidence) terms of eq. 24 = eq. 13 with eq. 23: 2 · 2CαT/√m and 3B_L√(log(2/δ)/(2m))."""
    return 2 * (2 * c.C * c.alpha * c.T / math.sqrt(c.m)), 3 * c.B_L * math.sqrt(math.log(2 / c.delta) / (2 * c.m))


def _t(x: float) -> Tensor:
    return torch.tensor(x, dtype=torch.float64)


#: Relative tolerance of the identities: a handful of float64 operations.
_RTOL = 1e-12


def _measure(case: GapCase) -> dict[str, tuple[Tensor, ...]]:
    (g6, c6), (g24, c24) = statement_terms(case), proof_terms(case)
    rhs6, rhs24 = g6 + c6, g24 + c24
    return {"eq. 24 ≡ eq. 6: right sides equal (the empirical risk cancels)": (
        _t(abs(rhs6 - rhs24)), _t(_RTOL * rhs6), _t(rhs6))}


def _measure_corrected(case: GapCase) -> dict[str, tuple[Tensor, ...]]:
    (g6, c6), (g24, c24) = statement_terms(case), proof_terms(case)
    return {
        "eq. 13 + eq. 23: 2 · 2CαT/√m = eq. 6's 4CαT/√m": (_t(abs(g24 - g6)), _t(_RTOL * g6), _t(g6)),
        "eq. 24's confidence term ≤ eq. 6's (so eq. 24 implies eq. 6)": (_t(c24), _t(c6)),
    }


_SYM = sp.symbols("B_L delta m C alpha T", positive=True)


def _symbolic():
    B, d, m, C, a, T = _SYM
    log = sp.log(2 / d)
    return (4 * C * a * T / sp.sqrt(m), 3 * B * sp.sqrt(log / m)), (2 * (2 * C * a * T / sp.sqrt(m)),
                                                                      3 * B * sp.sqrt(log / (2 * m)))


def _exact() -> ExactVerdict:
    (g6, c6), (g24, c24) = _symbolic()
    B, d, m, C, a, T = _SYM
    ratio = sp.simplify(c6 / c24)
    point = {B: 1, d: sp.Rational(1, 2), m: 1, C: 1, a: sp.Rational(1, 4), T: 1}
    if sp.simplify(g6 + c6 - g24 - c24) == 0:
        return ExactVerdict("proved", "eq. 24 and eq. 6 have the same right side")
    return ExactVerdict("violated", f"eq. 6's confidence term / eq. 24's = {ratio} for all m, δ, B_L; at B_L = m = C = "
                                    f"T = 1, α = 1/4, δ = 1/2: eq. 6's right side − empirical risk = "
                                    f"{sp.nsimplify(g6 + c6).subs(point)}, eq. 24's = {(g24 + c24).subs(point)}")


def _exact_corrected() -> ExactVerdict:
    (g6, c6), (g24, c24) = _symbolic()
    gap_equal = sp.simplify(g24 - g6) == 0
    ratio = sp.simplify(c24 / c6)
    if gap_equal and ratio == sp.sqrt(2) / 2:
        return ExactVerdict("proved", "2 · 2CαT/√m = 4CαT/√m, and eq. 24's confidence term is √2/2 times eq. 6's for "
                                      "every m, δ ∈ (0, 1), B_L > 0 (log(2/δ) > 0), so eq. 24 ⇒ eq. 6")
    return ExactVerdict("violated", f"gap terms equal: {gap_equal}; confidence ratio {ratio}")


_GAPS = CaseSpace(case_type=GapCase, sample=_sample, sizes={"quick": [(1, 1), (1, 100)], "full": [(1, 1), (1, 100)]})

eq24 = Claim(
    id="sgornn.eq24",
    source="sgornn.md, Appendix A.1, eq. 24 and the sentence after it (with eq. 6 and eq. 14)",
    statement="eq. 24, E ℓ_f ≤ (1/m)Σℓ_f + 4CαT/√m + 3B_L√(log(2/δ)/(2m)), 'is equivalent to the original "
              "statement of the theorem' (eq. 6/14: ... + 3B_L√(log(2/δ)/m))",
    assumptions=(),
    measure="|right side of eq. 6 − right side of eq. 24| (the empirical risks are the same and cancel)",
    bound=f"{_RTOL:g} × eq. 6's right side (rounding)",
    evaluate=_measure,
    cases=_GAPS,
    explanation="Not equivalent: the proof's confidence term 3B_L√(log(2/δ)/(2m)) (from eq. 13, Bartlett & "
                "Mendelson) is 1/√2 of the stated 3B_L√(log(2/δ)/m). Eq. 24 is the stronger bound and implies eq. 6 "
                "(sgornn.eq24.corrected), so Theorem 1 holds as stated; the sentence should read 'implies'.",
    notes="Reading: 'log 2/δ' = log(2/δ) in both equations (the same symbol, so the comparison does not depend "
          "on it). The relative difference of the right sides is (1 − 1/√2)·confidence/(gap + confidence), up to "
          "0.293 when the confidence term dominates.",
    exact=_exact,
)

eq24_corrected = Claim(
    id="sgornn.eq24.corrected",
    source="sgornn.md, Appendix A.1, eq. 13, 23, 24 and eq. 6, corrected by rnnaudit",
    statement="eq. 13 with eq. 23 gives eq. 24 (2 · 2CαT/√m = 4CαT/√m), and eq. 24 implies eq. 6: "
              "3B_L√(log(2/δ)/(2m)) ≤ 3B_L√(log(2/δ)/m)",
    assumptions=(),
    measure="|2·(2CαT/√m) − 4CαT/√m|; eq. 24's confidence term",
    bound="rounding; eq. 6's confidence term",
    evaluate=_measure_corrected,
    cases=_GAPS,
    explanation="Would mean eq. 24 does not imply Theorem 1's statement.",
    notes="The ratio of the confidence terms is 1/√2 for every m, δ, B_L.",
    supremum=Supremum(1 / math.sqrt(2), "3B_L√(log(2/δ)/(2m)) / 3B_L√(log(2/δ)/m) = 1/√2 identically; the gap "
                                        "part is an identity (ratio 0).", at=(1, 1)),
    exact=_exact_corrected,
)
