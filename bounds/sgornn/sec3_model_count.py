"""sgornn.md, Sec. 3: the sentences that count the models compared ("the three RNN models") against the
four models of Tables 1 and 2."""

from __future__ import annotations

from torch import Tensor

from rnnaudit.bounds.core import Claim, ExactVerdict
from rnnaudit.bounds.sgornn.counts import COUNT_CASES, COUNT_TOL, MODELS, CountCase, t64
from rnnaudit.bounds.sgornn.table1 import TABLE1
from rnnaudit.bounds.sgornn.table2 import TABLE2

__all__ = ["sec3_model_count", "THREE"]

#: Where the text says "three" models, and the table it describes.
THREE = {
    "Table 1 caption: 'the three RNN models tested on the addition problem'": TABLE1,
    "Sec. 3.1, fifth paragraph: at T = 500 'all three models were able to converge' (Table 1: all four reach 500)":
        TABLE1,
    "Table 2 caption: 'the three RNN models tested on the HAR-2 classification problem'": TABLE2,
    "Sec. 3.2, second paragraph: 'the highest mean test accuracy among the three models trained'": TABLE2,
}


def _measure(case: CountCase) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    return {label: (t64(abs(3 - len(table))), t64(COUNT_TOL), t64(len(table))) for label, table in THREE.items()}


def _exact() -> ExactVerdict:
    return ExactVerdict("violated", "Tables 1 and 2 each list 4 models (" + ", ".join(MODELS) + "); the captions and "
                        "Sec. 3.1–3.2 say 3: 3 ≠ 4")


sec3_model_count = Claim(
    id="sgornn.sec3.model_count",
    source="sgornn.md, Sec. 3.1–3.2, captions of Tables 1 and 2",
    statement="'the three RNN models' (Table 1 and Table 2 captions, Sec. 3.2) and 'all three models' converged at "
              "T = 500 (Sec. 3.1)",
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
          "refers to (all models of the table); the figures themselves (Fig. 1–4) are not in the text.",
    exact=_exact,
)
