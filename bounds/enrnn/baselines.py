"""enrnn.md, Sec. 5.1 and 5.2: the baselines of the adding and copying problems and the copying sequence's
length. "The baseline is an MSE of 0.167 which is the expected MSE for a network that predicts one"; the copying
sequence is "the first 10 digits ... followed by the marker digit 9, a sequence of T zeros, and another marker
digit 9", the network outputs the 10 digits "once it sees the second marker", "the total sequence length is
T + 20" and the baseline is 10 log(8)/(T + 20).

The baselines hold; the length does not follow from the layout described: 10 + 1 + T + 1 symbols and 10
output steps after the second marker make T + 22 (T + 12 without the output steps). The standard task
(Arjovsky et al. 2016; rnnaudit.tasks.copy_task) has one marker after T − 1 blanks, hence T + 20.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
import torch
from torch import Tensor

from rnnaudit.bounds.core import CaseSpace, Claim, ExactVerdict, Reading
from rnnaudit.bounds.readings import select_parts
from rnnaudit.bounds.enrnn.cases import A_AS_PRINTED, PaperCase
from rnnaudit.tasks.synthetic import copy_task

__all__ = ["baselines", "adding_baseline", "copying_baseline", "BASELINE_RTOL"]

#: The baselines are exact expressions evaluated in float64: a Gauss–Legendre rule exact for the quadratic
#: integrand and a sum of T + 20 logs, ~1e-15 relative; 1e-12 leaves room.
BASELINE_RTOL = 1e-12


def adding_baseline(prediction: float = 1.0) -> float:
    """E[(a + b − prediction)²] for a, b ~ U[0, 1) independent (Sec. 5.1's marked entries), by a 2-point
    Gauss–Legendre rule per axis (exact for polynomials of degree ≤ 3 in each variable)."""
    nodes, weights = np.polynomial.legendre.leggauss(2)
    u, w = (nodes + 1) / 2, weights / 2
    a, b = np.meshgrid(u, u)
    return float(((a + b - prediction) ** 2 * np.outer(w, w)).sum())


def copying_baseline(T: int, *, n_symbols: int = 8, seed: int = 0) -> float:
    """Mean cross-entropy per step over a copying sequence of length T + 20 (rnnaudit.tasks.copy_task) of the
    predictor that outputs the blank with probability 1 until the last 10 steps and then each of the 8 digits
    with probability 1/8 (Sec. 5.2's 'randomly selecting digits 1–8 after the last marker')."""
    _, y = copy_task(1, T, generator=torch.Generator().manual_seed(seed), n_symbols=n_symbols)
    probs = torch.zeros(y.shape[1], n_symbols + 1, dtype=torch.float64)
    probs[:-10, 0] = 1.0
    probs[-10:, 1:] = 1.0 / n_symbols
    return float(-torch.log(probs[torch.arange(y.shape[1]), y[0]]).mean())


def _t(x: float) -> Tensor:
    return torch.tensor(float(x), dtype=torch.float64)


def _measure(c: PaperCase, *, prediction: float = 1.0) -> dict[str, tuple[Tensor, ...]]:
    """``prediction`` replaces the adding problem's constant prediction (the tests use 0.5 as a wrong formula)."""
    T = c.T
    stated_len = T + 20
    mse = adding_baseline(prediction)
    ce = copying_baseline(T)
    stated_ce = 10 * math.log(8) / (T + 20)
    return {
        "Sec. 5.1: predicting one has expected MSE ≈ 0.167": (_t(abs(mse - 0.167)), _t(0.0005), _t(0.167)),
        "Sec. 5.2: the random-digit baseline is 10 log(8)/(T + 20)": (_t(abs(ce - stated_ce)),
                                                                       _t(BASELINE_RTOL * stated_ce), _t(stated_ce)),
        "Sec. 5.2: length of the described layout, 10 + 1 + T + 1 + 10 output steps = T + 20": (
            _t(abs(10 + 1 + T + 1 + 10 - stated_len)), _t(0.5), _t(stated_len)),
        "Sec. 5.2: length of the described layout, the listed symbols 10 + 1 + T + 1 = T + 20": (
            _t(abs(10 + 1 + T + 1 - stated_len)), _t(0.5), _t(stated_len)),
    }


def _exact() -> ExactVerdict:
    a, b, T = sp.symbols("a b T", positive=True)
    mse = sp.integrate(sp.integrate((a + b - 1) ** 2, (a, 0, 1)), (b, 0, 1))
    layout = 10 + 1 + T + 1 + 10
    ok_mse = sp.Abs(mse - sp.Rational(167, 1000)) <= sp.Rational(1, 2000)
    bad_len = sp.simplify(layout - (T + 20)) != 0
    return ExactVerdict("violated" if (bad_len or not ok_mse) else "proved",
                        f"∫∫(a + b − 1)² = {mse} ≈ 0.167 (rounds to it); copying layout 10 + 1 + T + 1 + 10 = "
                        f"{sp.simplify(layout)} ≠ T + 20")


def _sample(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> PaperCase:
    """The paper at its copying length T = 2000 or at a random T in [1, 2000]."""
    return PaperCase(2000 if torch.rand((), generator=gen) < 0.5 else int(torch.randint(1, 2001, (), generator=gen)))


baselines = Claim(
    id="enrnn.baselines",
    source="enrnn.md, Sec. 5.1 (adding baseline) and Sec. 5.2 (copying layout, length and baseline)",
    statement="The baseline is an MSE of 0.167, the expected MSE of predicting one; the copying sequence (10 digits, "
              "marker 9, T zeros, marker 9, output after the second marker) has total length T + 20 and baseline "
              "10 log(8)/(T + 20)",
    assumptions=(A_AS_PRINTED,),
    measure="E[(a + b − 1)²] by Gauss–Legendre quadrature; the cross-entropy of the blank-then-uniform predictor on "
            "rnnaudit.tasks.copy_task; the length of the layout as described",
    bound="0.167 to its three decimals; 10 log(8)/(T + 20) to BASELINE_RTOL; T + 20 (integers)",
    # the total length read as the whole sequence, outputs included (ratio 4); the listed symbols alone are a reading
    evaluate=select_parts(_measure, lambda part: "the listed symbols" not in part),
    cases=CaseSpace(case_type=PaperCase, sample=_sample, sizes={"quick": [(1, 2000)], "full": [(1, 2000)]}),
    explanation="The layout Sec. 5.2 describes (10 digits, a marker, T zeros, a second marker, then the 10 outputs "
                "'once it sees the second marker') is T + 22 steps long (T + 12 symbols before the outputs), not "
                "the T + 20 it states and divides by in the baseline; T + 20 is the standard layout with a single "
                "marker after T − 1 blanks. The baselines hold: 1/6 = 0.1667 and 10 log 8/(T + 20) on a length "
                "T + 20 sequence.",
    notes="The copying baseline is computed on the project's task generator (single marker, length T + 20). With "
          "the described layout the baseline would be 10 log(8)/(T + 22). The slip is in the description of the "
          "task's layout (10 digits, a marker, T blanks, a marker: T + 12 inputs, T + 21 or T + 22 steps with the "
          "outputs; no reading gives T + 20); the baselines 0.167 and 10 log 8/(T + 20) are right for the standard "
          "T + 20 task. Low severity.",
    exact=_exact,
    readings=(Reading(
        "the listed symbols only, outputs not counted",
        "10 digits, marker 9, T zeros and marker 9 make the total length T + 20",
        "Sec. 5.2 lists these symbols and then says the network outputs the digits 'once it sees the second marker', "
        "which may be read as steps beyond the listed sequence",
        select_parts(_measure, lambda part: "output steps" not in part)),),
)
