"""sgornn.md, Table 2 (HAR-2, Sec. 3.2): the parameter counts, recomputed from the text, and the
sentences that compare the table's numbers (Sec. 3.2, the abstract, Sec. 4)."""

from __future__ import annotations

import sympy as sp
from torch import Tensor

from rnnaudit.bounds.core import Claim, ExactVerdict
from rnnaudit.bounds.sgornn.counts import COUNT_CASES, CountCase, count_parts, exact_table_counts, ratio_part

__all__ = ["table2", "TABLE2", "TABLE2_ACCURACY"]

#: Table 2's parameter counts (n = 9, h = 128, k = 14, LSTM with 64 units, one output neuron).
TABLE2 = {"VPRNN": 2305, "SGORNN": 2307, "FastRNN": 17795, "LSTM": 19009}
#: Table 2's test accuracies (mean, standard deviation over 10 runs), percent.
TABLE2_ACCURACY = {"VPRNN": ("92.29", "0.96"), "SGORNN": ("94.07", "0.2"), "FastRNN": ("93.77", "0.49"),
                   "LSTM": ("93.45", "1.22")}
_SIZES = {"n": 9, "h": 128, "units": 64, "readout": True}
#: Readings of the qualitative words: "roughly match" within 10 %, "far fewer" at most half.
ROUGHLY, FAR = 0.1, 0.5


def _comparisons() -> dict[str, tuple[float, float]]:
    acc = {k: float(m) for k, (m, _) in TABLE2_ACCURACY.items()}
    sd = {k: float(s) for k, (_, s) in TABLE2_ACCURACY.items()}
    others = [k for k in acc if k != "SGORNN"]
    return {
        "Sec. 3.2: SGORNN 'achieved the highest mean test accuracy' (best other / SGORNN)": (
            max(acc[k] for k in others), acc["SGORNN"]),
        "Sec. 3.2: SGORNN's standard deviation 'was the lowest' (SGORNN / lowest other)": (
            sd["SGORNN"], min(sd[k] for k in others)),
        "Sec. 3.2, abstract: 'far fewer parameters than FastRNN or LSTM' (reading: at most half)": (
            TABLE2["SGORNN"], FAR * min(TABLE2["FastRNN"], TABLE2["LSTM"])),
        "Sec. 3.2: the 64-unit LSTM's count 'roughly match[es]' FastRNN's (reading: within 10 %)": (
            abs(TABLE2["LSTM"] - TABLE2["FastRNN"]) / TABLE2["FastRNN"], ROUGHLY),
    }


def _measure(case: CountCase) -> dict[str, tuple[Tensor, ...]]:
    parts = count_parts(case, "Table 2", TABLE2, **_SIZES)
    parts.update({k: ratio_part(*v) for k, v in _comparisons().items()})
    return parts


def _exact() -> ExactVerdict:
    counts = exact_table_counts("Table 2", TABLE2, **_SIZES)
    acc = {k: (sp.Rational(m), sp.Rational(s)) for k, (m, s) in TABLE2_ACCURACY.items()}
    others = [k for k in acc if k != "SGORNN"]
    checks = {"highest mean": all(acc["SGORNN"][0] > acc[k][0] for k in others),
              "lowest sd": all(acc["SGORNN"][1] < acc[k][1] for k in others),
              "far fewer": 2 * TABLE2["SGORNN"] <= min(TABLE2["FastRNN"], TABLE2["LSTM"]),
              "roughly match": sp.Abs(sp.Rational(TABLE2["LSTM"] - TABLE2["FastRNN"], TABLE2["FastRNN"])) <= ROUGHLY}
    failed = [k for k, ok in checks.items() if not ok]
    if counts.verdict == "violated" or failed:
        return ExactVerdict("violated", f"{counts.detail}; sentences contradicted: {failed}")
    return ExactVerdict("proved", counts.detail + "; in exact rationals SGORNN's 94.07 is the highest mean, 0.2 "
                        "the lowest sd, 2·2,307 ≤ 17,795, |19,009 − 17,795|/17,795 = 1214/17795 ≤ 1/10")


table2 = Claim(
    id="sgornn.table2",
    source="sgornn.md, Table 2 (Sec. 3.2), with the abstract and Sec. 4",
    statement="Parameter counts VPRNN 2,305, SGORNN 2,307, FastRNN 17,795, LSTM 19,009 (n = 9, h = 128, k = 14, "
              "LSTM 64 units); SGORNN has the highest mean accuracy and the lowest standard deviation, far fewer "
              "parameters than FastRNN or LSTM, and the 64-unit LSTM roughly matches FastRNN's count",
    assumptions=(),
    measure="|printed − count from the text| per row; rnnaudit's cells against the same formulas at random sizes; "
            "the compared quantities of each sentence, from the table's own numbers",
    bound="1/2 (integer identities); the sentence's threshold",
    evaluate=_measure,
    cases=COUNT_CASES,
    explanation="A row whose count the text's architecture does not give, or a sentence the table contradicts.",
    notes="Counts as for Table 1 (sgornn.table1) with n = 9 and a 64-unit LSTM. Readings: 'far fewer' = at most "
          "half, 'roughly match' = within 10 %; the accuracy comparisons use the printed means and standard "
          "deviations (no test of significance: 94.07 ± 0.2 against 93.77 ± 0.49 over 10 runs). Sec. 3.2 says "
          "'among the three models trained' for four: sgornn.sec3.model_count. The accuracies themselves and the "
          "overfitting sentences (Fig. 4) are results of training runs.",
    exact=_exact,
)
