"""sgornn.md, Table 1 (addition problem, Sec. 3.1): the parameter counts, recomputed from the text, and
the sentences that compare them (Sec. 1, Sec. 4)."""

from __future__ import annotations

from torch import Tensor

from rnnaudit.bounds.core import Claim
from rnnaudit.bounds.sgornn.counts import COUNT_CASES, CountCase, count_parts, exact_table_counts, ratio_part

__all__ = ["table1", "TABLE1"]

#: Table 1's parameter counts (n = 2, h = 128, k = 14, LSTM with 128 units, one output neuron).
TABLE1 = {"VPRNN": 1409, "SGORNN": 1411, "FastRNN": 16899, "LSTM": 67201}
_SIZES = {"n": 2, "h": 128, "units": 128, "readout": True}


def _measure(case: CountCase) -> dict[str, tuple[Tensor, ...]]:
    parts = count_parts(case, "Table 1", TABLE1, **_SIZES)
    parts["Sec. 4: SGORNN converged at T = 5000 'using less than 1,500 parameters'"] = ratio_part(
        TABLE1["SGORNN"], 1500)
    parts["Sec. 1: 'far fewer parameters than FastRNN' (reading: at most half)"] = ratio_part(
        TABLE1["SGORNN"], TABLE1["FastRNN"] / 2)
    return parts


table1 = Claim(
    id="sgornn.table1",
    source="sgornn.md, Table 1 (Sec. 3.1), with Sec. 1 and Sec. 4",
    statement="Parameter counts VPRNN 1,409, SGORNN 1,411, FastRNN 16,899, LSTM 67,201 (n = 2, h = 128, k = 14); "
              "SGORNN uses 'less than 1,500 parameters' and 'far fewer parameters than FastRNN'",
    assumptions=(),
    measure="|printed − count from the text| per row; rnnaudit's cells against the same formulas at random sizes; "
            "the compared quantities of each sentence",
    bound="1/2 (integer identities); the sentence's threshold",
    evaluate=_measure,
    cases=COUNT_CASES,
    explanation="A row whose count the text's architecture does not give, or a sentence the counts contradict.",
    notes="Counts from the text: VPRNN hn + h + (h/2)k (W, b, Θ of eq. 2 with h/2 × k angles), SGORNN + 2 gates, "
          "FastRNN h² + hn + h + 2, Keras LSTM 4(Hn + H² + H), each plus a readout of width + 1 (one output "
          "neuron). All four rows match with k = 2⌈log₂128⌉ = 14, 'the maximum number allowed' (Sec. 3.1). Table 1's "
          "caption says 'the three RNN models' for four rows: sgornn.sec3.model_count. The columns 'Max Sequence "
          "Length' and 'Exploding Gradients' are results of training runs, not recomputable.",
    exact=lambda: exact_table_counts("Table 1", TABLE1, **_SIZES),
)
