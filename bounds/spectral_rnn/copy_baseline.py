"""spectral_rnn.md, Sec. 7.1 (Copy task): x_{1:10} "are sampled uniformly from {a_i}_{i=0}^7", and "a baseline
strategy is to predict a_8 for T + 10 entries and randomly sample from {a_i}_{i=1}^7 for the last 10 digits", which
the paragraph then calls the "memoryless strategy".

A memoryless strategy for the last 10 digits draws from the distribution of x_{1:10}, uniform on the 8 symbols
a_0, …, a_7; the printed baseline draws from 7 of them and never outputs a_0, which is 1/8 of the digits to copy.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, Reading

__all__ = ["CopyAlphabets", "copy_baseline", "INPUT_SYMBOLS", "BASELINE_SYMBOLS"]

#: The symbols x_{1:10} are drawn from (indices i of a_i), and those the printed baseline samples, as in Sec. 7.1.
INPUT_SYMBOLS = tuple(range(0, 8))
BASELINE_SYMBOLS = tuple(range(1, 8))


@dataclass
class CopyAlphabets:
    """The copy task's two alphabets: ``inputs`` (x_{1:10} uniform on them) and ``baseline`` (the baseline's last
    10 outputs uniform on them), as tuples of symbol indices."""

    inputs: tuple[int, ...] = INPUT_SYMBOLS
    baseline: tuple[int, ...] = BASELINE_SYMBOLS

    def size(self) -> tuple[int, int]:
        """(number of input symbols, 1)."""
        return len(self.inputs), 1


def _uniform(symbols: tuple[int, ...], n: int) -> Tensor:
    p = torch.zeros(n, dtype=torch.float64)
    p[list(symbols)] = 1.0 / len(symbols)
    return p


def _measure(case: CopyAlphabets, baseline: tuple[int, ...] | None = None) -> dict[str, tuple[Tensor, Tensor]]:
    """The total-variation distance between the baseline's output distribution and the inputs' distribution, and the
    probability that a digit to copy is a symbol the baseline never outputs, each against 0. ``baseline``: the
    baseline's symbols in place of ``case.baseline`` (a reading of the printed index set)."""
    baseline = case.baseline if baseline is None else baseline
    n = max(case.inputs + baseline) + 1
    p_in, p_base = _uniform(case.inputs, n), _uniform(baseline, n)
    zero = torch.zeros((), dtype=torch.float64)
    return {"the baseline samples the inputs' distribution: TV distance = 0": (0.5 * (p_in - p_base).abs().sum(), zero),
            "no digit to copy is a symbol the baseline never outputs": (p_in[p_base == 0].sum(), zero)}


def _exact(baseline: tuple[int, ...] = BASELINE_SYMBOLS) -> ExactVerdict:
    from fractions import Fraction

    missing = sorted(set(INPUT_SYMBOLS) - set(baseline))
    share = Fraction(len(missing), len(INPUT_SYMBOLS))
    if not missing:
        return ExactVerdict("proved", "the baseline samples every symbol x_{1:10} is drawn from, uniformly: total "
                                      "variation distance 0")
    return ExactVerdict("violated", f"x_{{1:10}} ~ U{{a_0, …, a_7}} but the baseline samples U{{a_1, …, a_7}}: "
                                    f"a_{missing[0]} (probability {share} per digit) is never output; total variation "
                                    f"distance {share}")


A_AS_PRINTED = Assumption("the alphabets as printed in Sec. 7.1", lambda c: (
    (c.inputs, c.baseline) == (INPUT_SYMBOLS, BASELINE_SYMBOLS), f"inputs {c.inputs}, baseline {c.baseline}"))

copy_baseline = Claim(
    id="spectral_rnn.copy_baseline",
    source="spectral_rnn.md, Sec. 7.1 (Copy task paragraph)",
    statement="x_{1:10} are sampled uniformly from {a_0, …, a_7}; the baseline, the 'memoryless strategy', predicts "
              "a_8 for T + 10 entries and samples the last 10 digits from {a_1, …, a_7}",
    assumptions=(A_AS_PRINTED,),
    measure="the total-variation distance between the baseline's and the inputs' symbol distributions, and the "
            "share of digits to copy that the baseline never outputs",
    bound="0 (a memoryless strategy draws from the inputs' own distribution)",
    evaluate=_measure,
    cases=CaseSpace(case_type=CopyAlphabets, sample=lambda gen, h, T, device="cpu", dtype=None: CopyAlphabets(),
                    sizes={"quick": [(8, 1)], "full": [(8, 1)]}),
    explanation="The baseline samples from the 7 symbols a_1, …, a_7 while the digits to copy are drawn from the 8 "
                "symbols a_0, …, a_7: it never outputs a_0, which is 1/8 of the digits (total variation 1/8), so it "
                "is not the memoryless strategy (uniform on a_0, …, a_7) the paragraph compares RNN/LSTM with. "
                "Arjovsky et al. (2016), whose settings the section follows, draw and sample from the same 8 symbols.",
    notes="No baseline value is printed (Figure 2 draws it), so only the alphabets can be compared. Sampling from 7 "
          "symbols happens to give the same expected accuracy (1/8) as from 8, but a worse expected loss: with a_0 "
          "never predicted the cross-entropy is infinite, and the squared error of the predicted distribution is "
          "1 − 2/8 + 1/7 = 0.893 against 0.875.",
    exact=_exact,
    readings=(Reading("{a_i}_{i=1}^7 read as {a_i}_{i=0}^7", "the baseline samples the last 10 digits uniformly from "
                      "{a_0, …, a_7}, the alphabet of x_{1:10}",
                      "Sec. 7.1: 'x_{1:10} are sampled uniformly from {a_i}_{i=0}^7' two lines above, and the same "
                      "paragraph calls the baseline the 'memoryless strategy' ('the test MSE for RNN/LSTM is very close "
                      "to the baseline (memoryless strategy)'), which samples the inputs' own distribution: the "
                      "index's lower limit 1 is read as the 0 of the inputs' alphabet",
                      lambda c: _measure(c, INPUT_SYMBOLS), exact=lambda: _exact(INPUT_SYMBOLS)),),
)
