"""sgornn.md, Sec. 3.1, eq. 10: the addition problem's target y = Σ_t u_t c_t = u_i + u_j, its marker
positions, and the baseline "MSE error of approximately 0.167 ... when the mean of the target (y = 1) is
always predicted", on the toolkit's generator (:func:`rnnaudit.tasks.synthetic.addition_problem`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import sympy as sp
from torch import Tensor

from rnnaudit.bounds.core import CaseSpace, Claim, ExactVerdict
from rnnaudit.tasks.synthetic import addition_problem

__all__ = ["AdditionCase", "eq10", "N_SEQUENCES", "Z_MARGIN"]

#: Sequences per case: the sample mean of y has standard error 0.41/64 ≈ 0.006.
N_SEQUENCES = 4096
#: The statistical parts allow 6 standard errors: a true statement fails one with probability ≈ 2e-9
#: (normal approximation; y and (y − 1)² are bounded, so it is accurate at N = 4096).
Z_MARGIN = 6.0


@dataclass
class AdditionCase:
    """A batch of addition-problem sequences: x (N, T, 2) with channels (u_t, c_t), targets y (N,)."""

    x: Tensor
    y: Tensor

    def size(self) -> tuple[int, int]:
        """(1, T)."""
        return 1, self.x.shape[1]


def _sample(gen, h, T, device, dtype) -> AdditionCase:
    x, y = addition_problem(N_SEQUENCES, T, generator=gen, dtype=dtype)
    return AdditionCase(x.to(device), y.to(device))


def _measure(case: AdditionCase) -> dict[str, tuple[Tensor, ...]]:
    u, c, y = case.x[..., 0], case.x[..., 1], case.y
    N, T = u.shape
    half = T // 2
    first, second = c[:, :half].sum(1), c[:, half:].sum(1)
    markers_ok = (first == 1) & (second == 1) & (c.sum(1) == 2)
    i, j = c[:, :half].argmax(1), half + c[:, half:].argmax(1)
    two = u.gather(1, i[:, None])[:, 0] + u.gather(1, j[:, None])[:, 0]
    sq = (y - 1) ** 2
    like = y.new_tensor
    return {
        "eq. 10: y = u_i + u_j at the two markers": ((y - two).abs().max(), like(1e-15), y.abs().max()),
        "one marker i ∈ [1, T/2] and one j ∈ (T/2, T]": ((~markers_ok).sum().to(y.dtype), like(0.5), like(N)),
        "E[y] = 1 (|mean − 1| within 6 standard errors)": (
            (y.mean() - 1).abs(), Z_MARGIN * y.std() / math.sqrt(N)),
        "MSE of predicting 1 = Var y = 1/6 (within 6 standard errors)": (
            (sq.mean() - 1 / 6).abs(), Z_MARGIN * sq.std() / math.sqrt(N)),
        "'approximately 0.167' = 1/6 to three decimals (|1/6 − 0.167| ≤ 0.0005)": (
            like(abs(1 / 6 - 0.167)), like(5e-4)),
    }


def _exact() -> ExactVerdict:
    t = sp.Symbol("u")
    mean = sp.integrate(t, (t, 0, 1))
    var = sp.integrate(t**2, (t, 0, 1)) - mean**2
    y_mean, y_var = 2 * mean, 2 * var  # u_i, u_j independent (i ≤ T/2 < j)
    gap = sp.Abs(y_var - sp.Rational(167, 1000))
    if y_mean != 1 or y_var != sp.Rational(1, 6) or gap > sp.Rational(1, 2000):
        return ExactVerdict("violated", f"E[y] = {y_mean}, Var y = {y_var}, |Var y − 0.167| = {gap}")
    return ExactVerdict("proved", f"u ~ U[0, 1]: E u = {mean}, Var u = {var}; y = u_i + u_j with i ≠ j: E y = 1, "
                                  f"baseline MSE = Var y = 1/6, |1/6 − 0.167| = {gap} ≤ 1/2000")


eq10 = Claim(
    id="sgornn.eq10",
    source="sgornn.md, Sec. 3.1, eq. 10 and the paragraph before it",
    statement="y = Σ_t u_t c_t = u_i + u_j with i uniform in [1, T/2] and j in (T/2, T]; predicting the mean y = 1 "
              "gives an MSE of approximately 0.167",
    assumptions=(),
    measure=f"on {N_SEQUENCES} sequences of rnnaudit's generator: |y − (u_i + u_j)|, misplaced markers, |mean(y) − 1| "
            "and |mean((y − 1)²) − 1/6|",
    bound="rounding; 1/2 (a count); 6 standard errors; 0.0005 (three decimals)",
    evaluate=_measure,
    cases=CaseSpace(case_type=AdditionCase, sample=_sample,
                    sizes={"quick": [(1, 2), (1, 7), (1, 100)], "full": [(1, 2), (1, 7), (1, 100), (1, 1000)]}),
    explanation="Would mean the generator departs from Sec. 3.1 or the baseline is not 1/6.",
    notes="Reading: [1, T/2] and (T/2, T] in 1-based steps (⌊T/2⌋ first-half positions for odd T). The baseline "
          "is exact: Var(u_i + u_j) = 2 · 1/12 = 1/6 = 0.1667, which the paper rounds to 0.167.",
    exact=_exact,
)
