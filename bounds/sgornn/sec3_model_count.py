"""sgornn.md, Sec. 3: the sentences that count the models compared ("the three RNN models") against the
four models of Tables 1 and 2."""

from __future__ import annotations

from torch import Tensor

from rnnaudit.bounds.core import Claim, ExactVerdict, Reading
from rnnaudit.bounds.sgornn.counts import COUNT_CASES, COUNT_TOL, MODELS, CountCase, t64
from rnnaudit.bounds.sgornn.table1 import TABLE1
from rnnaudit.bounds.sgornn.table2 import TABLE2, TABLE2_ACCURACY

__all__ = ["sec3_model_count", "THREE"]

#: Where the text says "three" models, and the table it describes.
THREE = {
    "Table 1 caption: 'the three RNN models tested on the addition problem'": TABLE1,
    "Table 2 caption: 'the three RNN models tested on the HAR-2 classification problem'": TABLE2,
    "Sec. 3.2, second paragraph: 'the highest mean test accuracy among the three models trained'": TABLE2,
}


def _measure(case: CountCase, count: int = 3) -> dict[str, tuple[Tensor, ...]]:
    """|count − models the table lists| against 1/2 for each sentence of :data:`THREE`; with ``count`` = 4 (the
    reading) also Sec. 3.2's 'highest mean test accuracy' among the four rows of Table 2 (best other / SGORNN)."""
    parts = {label: (t64(abs(count - len(table))), t64(COUNT_TOL), t64(len(table))) for label, table in THREE.items()}
    if count != 3:
        acc = {k: float(m) for k, (m, _) in TABLE2_ACCURACY.items()}
        parts[f"Sec. 3.2: SGORNN's mean test accuracy is the highest of the {count} (best other / SGORNN)"] = (
            t64(max(v for k, v in acc.items() if k != "SGORNN")), t64(acc["SGORNN"]))
    return parts


def _exact(count: int = 3) -> ExactVerdict:
    from fractions import Fraction

    counts = sorted({len(t) for t in THREE.values()})
    if counts != [count]:
        return ExactVerdict("violated", "Tables 1 and 2 each list 4 models (" + ", ".join(MODELS) + "); the captions "
                            f"and Sec. 3.1–3.2 say {count}: {count} ≠ {counts[-1]}")
    acc = {k: Fraction(m) for k, (m, _) in TABLE2_ACCURACY.items()}
    best = max(acc, key=acc.get)
    return ExactVerdict("proved" if best == "SGORNN" else "violated",
                        f"Tables 1 and 2 each list {count} models; Table 2's highest mean accuracy is {best}'s "
                        f"({float(acc[best])}%, the others " + ", ".join(f"{k} {float(v)}%" for k, v in acc.items()
                                                                  if k != best) + ")")


sec3_model_count = Claim(
    id="sgornn.sec3.model_count",
    source="sgornn.md, Sec. 3.1–3.2, captions of Tables 1 and 2",
    statement="'the three RNN models' (Table 1 and Table 2 captions) and 'the highest mean test accuracy among the "
              "three models trained' (Sec. 3.2), where the tables and Sec. 3.2's own list name four",
    assumptions=(),
    measure="|3 − number of models the table lists|",
    bound="1/2 (an integer identity)",
    evaluate=_measure,
    cases=COUNT_CASES,
    explanation="Sec. 3.1 compares SGORNN 'with VPRNN, FastRNN, and LSTM' and Tables 1–2 list all four, but the "
                "captions and two sentences still say three (the LSTM rows appear to have been added later). "
                "Corrected: 'the four RNN models'; at T = 500 all four converged (Table 1: LSTM's maximum length is "
                "500).",
    notes="An editorial inconsistency, no effect on any result. Reading: 'three' counts the models the sentence "
          "refers to, and each checked sentence names its models in the text: the captions describe their tables "
          "(four rows each), and Sec. 3.2 says 'We used this dataset to train and evaluate SGORNN, FastRNN, VPRNN, "
          "and LSTM models' before 'among the three models trained'. Under the reading 'three RNNs besides the "
          "LSTM baseline' the checked sentences would also be consistent, but the captions call all rows 'RNN "
          "models' and Sec. 3.2 calls all four 'single-layer RNNs', so that reading contradicts the text. "
          "Decision: Sec. 3.1's 'all three models were able to converge' at T = 500 and the captions of Fig. 1, 2 "
          "and 4 ('the three models') get no verdict of their own: they describe figures whose content is not in "
          "the transcription, so rnnaudit cannot count their models; if the figures plot four, these sentences "
          "carry the same three-for-four slip this claim's misprinted verdict shows for the table captions and "
          "Sec. 3.2, and if they plot three they are consistent (at T = 500 all four of Table 1 converged, so the "
          "substance holds either way).",
    exact=_exact,
    readings=(Reading("'three' read as 'four'", "'the four RNN models' (Table 1 and Table 2 captions) and 'the "
                      "highest mean test accuracy among the four models trained' (Sec. 3.2)",
                      "Sec. 3.1: 'We compared the proposed SGORNN with VPRNN, FastRNN, and LSTM'; Sec. 3.2: 'We used "
                      "this dataset to train and evaluate SGORNN, FastRNN, VPRNN, and LSTM models'; Tables 1 and 2 "
                      "have the four rows VPRNN, SGORNN, FastRNN, LSTM: the models the sentences count are four, so "
                      "'three' is a typo for 'four'",
                      lambda c: _measure(c, 4), exact=lambda: _exact(4)),),
)
