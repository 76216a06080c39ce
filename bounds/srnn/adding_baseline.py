"""srnn.md, Sec. 4 "Adding Problem": "The baseline to this task is the model which predicts 1, no matter what the
input sequences are. The expected mean squared error (MSE) for this case is 0.167."
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict
from rnnaudit.bounds.srnn.cases import f64
from rnnaudit.bounds.srnn.gamblers_ruin import GAMBLER_Z
from rnnaudit.tasks.synthetic import addition_problem

__all__ = ["AddingCase", "sample_adding_case", "adding_part", "adding_baseline", "PRINTED_MSE", "ROUNDING"]

#: The printed value and the half-unit of its last printed digit (0.167 stands for [0.1665, 0.1675)).
PRINTED_MSE = 0.167
ROUNDING = 0.0005


@dataclass
class AddingCase:
    """A batch of adding-problem sequences (Sec. 4: two numbers marked, one in each half).

    Attributes:
        T: sequence length (≥ 2). batch: sequences. seed: seeds them.
    """

    T: int
    batch: int
    seed: int

    def size(self) -> tuple[int, int]:
        """(2 inputs per step, T)."""
        return 2, self.T


def sample_adding_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> AddingCase:
    """20000 sequences of length T."""
    return AddingCase(T, 20_000, int(torch.randint(0, 2**31 - 1, (), generator=gen)))


def adding_part(case: AddingCase, stated: float, half_unit: float) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    """|Monte Carlo MSE of predicting 1 − ``stated``| against GAMBLER_Z standard errors plus ``half_unit`` (a test
    passes a wrong value to see the check fail)."""
    _, y = addition_problem(case.batch, case.T, generator=torch.Generator().manual_seed(case.seed))
    sq = (y - 1) ** 2
    se = sq.std() / math.sqrt(sq.numel())
    return {f"E[(y − 1)²] = {stated:g} (to the printed digits)": ((sq.mean() - stated).abs(),
                                                                  GAMBLER_Z * se + half_unit, f64(stated, sq))}


def _exact() -> ExactVerdict:
    import sympy as sp

    u, v = sp.symbols("u v")
    mse = sp.integrate((u + v - 1) ** 2, (u, 0, 1), (v, 0, 1))
    printed = sp.Rational(167, 1000)
    ok = abs(mse - printed) <= sp.Rational(5, 10000)
    return ExactVerdict("proved" if ok else "violated",
                        f"y = u_i + u_j with u ~ U(0, 1) independent: E[(y − 1)²] = ∫∫(u + v − 1)² = {mse} = "
                        f"{sp.N(mse, 6)}, which rounds to {printed} at three decimals (sympy).")


adding_baseline = Claim(
    id="srnn.adding_baseline",
    source="srnn.md, Sec. 4 'Adding Problem'",
    statement="Predicting 1 for every sequence has expected MSE 0.167",
    assumptions=(Assumption("the task of Sec. 4 (T ≥ 2: one marker in each half)",
                            lambda c: (c.T >= 2, f"T = {c.T}")),),
    measure="Monte Carlo mean of (y − 1)² over 20000 sequences of rnnaudit.tasks.synthetic.addition_problem",
    bound=f"{GAMBLER_Z} standard errors + {ROUNDING} (the half-unit of the printed 0.167)",
    evaluate=lambda c: adding_part(c, PRINTED_MSE, ROUNDING),
    cases=CaseSpace(case_type=AddingCase, sample=sample_adding_case,
                    sizes={"quick": [(2, 2), (2, 100)], "full": [(2, 2), (2, 100), (2, 1500)]}),
    explanation="Would mean the target is not the sum of two independent U(0, 1) numbers (E = 1, Var = 2/12).",
    notes="Exactly 1/6 = 0.16667, rounded in the paper; the MSE of predicting 1 is the variance of y because E[y] = 1, "
          "so 1 is also the best constant prediction.",
    exact=_exact,
)
