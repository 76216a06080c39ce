"""sgornn.md, Table 3 (Penn Treebank, Sec. 3.3): the cell parameter counts, recomputed from the text, and
the sentences that compare the table's numbers (Sec. 3.3, the abstract, Sec. 4)."""

from __future__ import annotations

import sympy as sp
from torch import Tensor

from rnnaudit.bounds.core import Claim, ExactVerdict
from rnnaudit.bounds.sgornn.counts import COUNT_CASES, CountCase, count_parts, exact_table_counts, ratio_part

__all__ = ["table3", "TABLE3", "TABLE3_PERPLEXITY"]

#: Table 3's cell parameter counts (embedding n = h = 256, k = 16, LSTM with 256 units, cells only).
TABLE3 = {"VPRNN": 67840, "SGORNN": 67842, "FastRNN": 131330, "LSTM": 525312}
#: Table 3's test perplexities.
TABLE3_PERPLEXITY = {"VPRNN": "257.88", "SGORNN": "132.26", "FastRNN": "146.75", "LSTM": "126.78"}
_SIZES = {"n": 256, "h": 256, "units": 256, "readout": False}
#: Readings: "comparable performance" within 10 % of the perplexity, "a small fraction" at most a quarter.
COMPARABLE, SMALL_FRACTION = 0.1, 0.25


def _comparisons() -> dict[str, tuple[float, float]]:
    ppl = {k: float(v) for k, v in TABLE3_PERPLEXITY.items()}
    return {
        "Sec. 3.3, Sec. 4: SGORNN 'outperforms both of its predecessor models' (SGORNN / best predecessor)": (
            ppl["SGORNN"], min(ppl["VPRNN"], ppl["FastRNN"])),
        "Sec. 3.3, abstract: 'comparable performance to LSTM' (reading: perplexity within 10 %)": (
            abs(ppl["SGORNN"] - ppl["LSTM"]) / ppl["LSTM"], COMPARABLE),
        "Sec. 3.3: 'only a small fraction of the number of parameters' of the LSTM (reading: at most a quarter)": (
            TABLE3["SGORNN"] / TABLE3["LSTM"], SMALL_FRACTION),
    }


def _measure(case: CountCase) -> dict[str, tuple[Tensor, ...]]:
    parts = count_parts(case, "Table 3", TABLE3, **_SIZES)
    parts.update({k: ratio_part(*v) for k, v in _comparisons().items()})
    return parts


def _exact() -> ExactVerdict:
    counts = exact_table_counts("Table 3", TABLE3, **_SIZES)
    ppl = {k: sp.Rational(v) for k, v in TABLE3_PERPLEXITY.items()}
    checks = {"outperforms predecessors": ppl["SGORNN"] < min(ppl["VPRNN"], ppl["FastRNN"]),
              "comparable to LSTM": sp.Abs(ppl["SGORNN"] - ppl["LSTM"]) / ppl["LSTM"] <= COMPARABLE,
              "small fraction": sp.Rational(TABLE3["SGORNN"], TABLE3["LSTM"]) <= SMALL_FRACTION}
    failed = [k for k, ok in checks.items() if not ok]
    if counts.verdict == "violated" or failed:
        return ExactVerdict("violated", f"{counts.detail}; sentences contradicted: {failed}")
    return ExactVerdict("proved", counts.detail + "; in exact rationals 132.26 < 146.75, |132.26 − 126.78|/126.78 "
                        "= 274/6339 ≤ 1/10, 67,842/525,312 ≤ 1/4")


table3 = Claim(
    id="sgornn.table3",
    source="sgornn.md, Table 3 (Sec. 3.3), with the abstract and Sec. 4",
    statement="Cell parameter counts VPRNN 67,840, SGORNN 67,842, FastRNN 131,330, LSTM 525,312 (n = h = 256, "
              "k = 16); SGORNN outperforms VPRNN and FastRNN in perplexity and is comparable to the LSTM with a "
              "small fraction of its parameters",
    assumptions=(),
    measure="|printed − count from the text| per row; rnnaudit's cells against the same formulas at random sizes; "
            "the compared quantities of each sentence, from the table's own numbers",
    bound="1/2 (integer identities); the sentence's threshold",
    evaluate=_measure,
    cases=COUNT_CASES,
    explanation="A row whose count the text's architecture does not give, or a sentence the table contradicts.",
    notes="Counts as for Table 1 (sgornn.table1), cells only ('Parameter counts only include the size of the RNN "
          "cells'), embedding width = h = 256 ('fixing the dimension of the trainable embeddings ... to be the "
          "same as that of the hidden states'), k = 16 = 2⌈log₂256⌉. Readings: 'comparable' = within 10 %, 'a "
          "small fraction' = at most a quarter. The perplexities are results of training runs.",
    exact=_exact,
)
