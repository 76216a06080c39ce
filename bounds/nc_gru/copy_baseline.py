"""nc_gru.md, Sec. 4.4: the copying problem's length T + 20 and its "expected cross-entropy baseline of
10 log(8)/(T + 20) which represents the random selection of digits 1-8 after the 9"."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict
from rnnaudit.tasks.synthetic import copy_task

__all__ = ["CopyCase", "sample_copy_case", "memoryless_cross_entropy", "copy_baseline", "printed_length",
           "printed_baseline"]

#: The per-step cross-entropy is an average of T + 20 terms, each 0 or ln 8, in float64: 1e-12 relative is ~10⁴ ulps.
BASELINE_RTOL = 1e-12


def printed_length(T: int) -> int:
    """The fed string of Sec. 4.4 as described: 10 digits, T zeros, the digit 9, then 9 zeros."""
    return 10 + T + 1 + 9


@dataclass
class CopyCase:
    """A batch of the copying task: targets y (batch, T + 20) of :func:`rnnaudit.tasks.synthetic.copy_task`."""

    y: Tensor

    def size(self) -> tuple[int, int]:
        """(1, T)."""
        return 1, self.y.shape[1] - 20


def memoryless_cross_entropy(y: Tensor) -> Tensor:
    """Mean per-step cross-entropy (nats) of the predictor that knows the position but remembers no digit: certain
    of the blank before the marker's 10 output steps, uniform over the digits 1–8 on them."""
    batch, length = y.shape
    logp = torch.full((length, 9), -math.inf, dtype=torch.float64)
    logp[: length - 10, 0] = 0.0
    logp[length - 10:, 1:] = -math.log(8)
    return F.nll_loss(logp.expand(batch, length, 9).reshape(-1, 9), y.reshape(-1))


def printed_baseline(T: int) -> float:
    """Sec. 4.4's 10 log(8)/(T + 20), log the natural logarithm."""
    return 10 * math.log(8) / (T + 20)


def _measure(case: CopyCase, baseline=printed_baseline) -> dict[str, tuple]:
    T = case.y.shape[1] - 20
    formula = torch.tensor(baseline(T), dtype=torch.float64)
    ce = memoryless_cross_entropy(case.y)
    t = lambda v: torch.tensor(float(v), dtype=torch.float64)  # noqa: E731
    return {"length: 10 + T + 1 + 9 = T + 20": (t(abs(printed_length(T) - (T + 20))), t(0.5), t(T + 20)),
            "baseline 10 ln 8/(T + 20) = cross-entropy per step of the memoryless predictor": (
                (ce - formula).abs(), BASELINE_RTOL * formula, ce)}


def sample_copy_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> CopyCase:
    """A batch of 8 sequences of the copying task at delay T."""
    _, y = copy_task(8, T, generator=gen)
    return CopyCase(y)


def _exact() -> ExactVerdict:
    import sympy

    T = sympy.symbols("T", positive=True, integer=True)
    total = (T + 10) * 0 + 10 * sympy.log(8)  # blanks are certain, the 10 digits are uniform over 8
    ok = sympy.simplify(total / (T + 20) - 10 * sympy.log(8) / (T + 20)) == 0 and \
        sympy.simplify((10 + T + 1 + 9) - (T + 20)) == 0
    return ExactVerdict("proved" if ok else "violated",
                        "10 + T + 1 + 9 = T + 20 and ((T + 10)·0 + 10 ln 8)/(T + 20) = 10 ln 8/(T + 20), symbolically "
                        "in T; at T = 1000 and 2000 the baseline is 2.0387e-2 and 1.0294e-2, Table 4's LSTM rows "
                        "(2.039, 1.030 ×10⁻²)")


A_TARGETS = Assumption("y from the copying task: blanks, then 10 digits in 1–8", lambda c: (
    bool((c.y[:, :-10] == 0).all() and (c.y[:, -10:] >= 1).all() and (c.y[:, -10:] <= 8).all()), "targets"))

_COPY = CaseSpace(case_type=CopyCase, sample=sample_copy_case,
                  sizes={"quick": [(1, 1), (1, 10), (1, 1000)], "full": [(1, 1), (1, 10), (1, 1000), (1, 2000)]})

copy_baseline = Claim(
    id="nc_gru.copy_baseline",
    source="nc_gru.md, Sec. 4.4, task description (length T + 20, baseline 10 log(8)/(T + 20))",
    statement="The fed string (10 digits, T zeros, the digit 9, 9 zeros) has length T + 20, and 10 log(8)/(T + 20) is "
              "the expected cross-entropy of selecting the digits 1–8 at random after the 9",
    assumptions=(A_TARGETS,),
    measure="the length of the described string; the mean per-step cross-entropy (nats) of the position-aware, "
            "memoryless predictor on batches of rnnaudit's copying task",
    bound="equality (integers: |difference| ≤ 1/2; the baseline to 1e-12 relative)",
    evaluate=_measure,
    cases=_COPY,
    explanation="Would mean the length or the baseline's arithmetic is off.",
    notes="log is the natural logarithm: Table 4's LSTM losses, 2.039 and 1.030 (×10⁻²), are the baseline itself "
          "(the LSTM learned nothing), which the log₂ reading (2.94 ×10⁻²) would not give.",
    exact=_exact,
)
