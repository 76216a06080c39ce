"""enrnn.md, Sec. 5.3 and 5.4: the sentences that compare the results of Tables 2 and 3, against the tables'
own numbers (the numbers themselves are results of training runs and are not checked)."""

from __future__ import annotations

import sympy as sp
import torch
from torch import Tensor

from rnnaudit.bounds.core import CaseSpace, Claim, ExactVerdict
from rnnaudit.bounds.enrnn.cases import A_AS_PRINTED, PaperCase, paper_case

__all__ = ["comparisons", "TABLE2", "TABLE3"]

#: Table 2 (TIMIT): model → (valid MSE, test MSE, SegSNR dB, STOI, PESQ).
TABLE2 = {"ENRNN 374/94": (0.13, 0.13, 4.84, 0.83, 2.75), "scoRNN 425": (1.56, 1.52, 4.55, 0.82, 2.72),
          "LSTM 158": (8.53, 8.27, 4.00, 0.79, 2.51), "LSTM 468": (5.60, 5.42, 4.82, 0.81, 2.75)}
#: Table 3 (character PTB): model → (valid BPC or None, test BPC).
TABLE3 = {"ENRNN 310/720": (1.475, 1.429), "LSTM 350": (1.506, 1.461), "GRU 415": (None, 1.601),
          "EURNN 2048": (None, 1.715), "GORU 512": (None, 1.623), "oRNN 512": (1.73, 1.68), "nnRNN 1024": (None, 1.47),
          "LSTM 1030": (1.447, 1.408)}
#: Half a unit of the tables' last printed digit: what "the same" allows.
PRINT_TOL = 0.005


def _t(x: float) -> Tensor:
    return torch.tensor(float(x), dtype=torch.float64)


def _measure(c: PaperCase, *, table2=None, table3=None) -> dict[str, tuple[Tensor, ...]]:
    """``table2``/``table3`` replace the tables (the tests swap two entries to show the checks can fail)."""
    t2, t3 = table2 or TABLE2, table3 or TABLE3
    en, big = t2["ENRNN 374/94"], t2["LSTM 468"]
    others2 = [v for k, v in t2.items() if k != "ENRNN 374/94"]
    en3 = t3["ENRNN 310/720"]
    rest3 = [v for k, v in t3.items() if k not in ("ENRNN 310/720", "LSTM 1030")]
    return {
        "Sec. 5.3: LSTM N = 468 has worse MSEs than ENRNN (ENRNN/LSTM ≤ 1)": (
            _t(max(en[0] / big[0], en[1] / big[1])), _t(1.0)),
        "Sec. 5.3: LSTM N = 468 has worse SegSNR and STOI than ENRNN (LSTM/ENRNN ≤ 1)": (
            _t(max(big[2] / en[2], big[3] / en[3])), _t(1.0)),
        "Sec. 5.3: LSTM N = 468's PESQ is the same as ENRNN's": (_t(abs(big[4] - en[4])), _t(PRINT_TOL), _t(en[4])),
        "Sec. 5.3: ENRNN outperforms scoRNN and LSTM in validation and test MSE": (
            _t(max(en[i] / o[i] for o in others2 for i in (0, 1))), _t(1.0)),
        "Sec. 5.3: ENRNN has the best SegSNR, STOI and PESQ (ties allowed)": (
            _t(max(o[i] / en[i] for o in others2 for i in (2, 3, 4))), _t(1.0)),
        "Sec. 5.3: PESQ ∈ [1.0, 4.5] and STOI ∈ [0, 1] in Table 2": (
            _t(max(max(v[4] for v in t2.values()) / 4.5, 1.0 / min(v[4] for v in t2.values()),
                   max(v[3] for v in t2.values()))), _t(1.0)),
        "Sec. 5.4: LSTM N = 1030 has a better score than ENRNN (LSTM/ENRNN ≤ 1)": (
            _t(max(t3["LSTM 1030"][i] / en3[i] for i in (0, 1))), _t(1.0)),
        "Sec. 5.4: ENRNN outperforms the LSTM of matched size and all other models (LSTM N = 1030 aside)": (
            _t(max(en3[i] / o[i] for o in rest3 for i in (0, 1) if o[i] is not None)), _t(1.0)),
    }


def _exact() -> ExactVerdict:
    """Every comparison as an exact rational inequality on the printed decimals."""
    R = lambda x: sp.Rational(str(x))  # noqa: E731
    en, big = [R(x) for x in TABLE2["ENRNN 374/94"]], [R(x) for x in TABLE2["LSTM 468"]]
    ok = all(en[i] < big[i] for i in (0, 1)) and all(big[i] < en[i] for i in (2, 3)) and big[4] == en[4]
    ok &= all(R(o[i]) <= en[i] for o in TABLE2.values() for i in (2, 3, 4))
    en3 = [R(x) for x in TABLE3["ENRNN 310/720"]]
    ok &= all(R(TABLE3["LSTM 1030"][i]) < en3[i] for i in (0, 1))
    ok &= all(en3[i] < R(o[i]) for k, o in TABLE3.items() if k not in ("ENRNN 310/720", "LSTM 1030")
              for i in (0, 1) if o[i] is not None)
    return ExactVerdict("proved" if ok else "violated",
                        "the comparisons of Sec. 5.3–5.4 hold as exact inequalities between the printed decimals")


comparisons = Claim(
    id="enrnn.comparisons",
    source="enrnn.md, Sec. 5.3 (Table 2) and Sec. 5.4 (Table 3), the sentences comparing the results",
    statement="LSTM N = 468 'achieves worse scores except for PESQ where it is the same'; 'ENRNN significantly "
              "outperforms scoRNN and LSTM in the validation and testing MSEs and produces the overall best scores "
              "in the perceptual metrics'; PESQ ∈ [1.0, 4.5], STOI ∈ [0, 1]; LSTM N = 1030 'results in a better "
              "score'; 'ENRNN slightly outperforms LSTM when matching the number of trainable parameters and all "
              "other models'",
    assumptions=(A_AS_PRINTED,),
    measure="ratios of the tables' entries (lower MSE and BPC, higher SegSNR, STOI, PESQ are better)",
    bound="1 (the comparison as stated); equality to half a unit of the last printed digit",
    evaluate=_measure,
    cases=CaseSpace(case_type=PaperCase, sample=paper_case, sizes={"quick": [(1, 1)], "full": [(1, 1)]}),
    explanation="Would mean a comparison sentence contradicts its table.",
    notes="'All other models' in Sec. 5.4 is read as the models other than the LSTM N = 1030 reference, which the "
          "sentence before says scores better. The comparisons hold with little room: ENRNN's SegSNR 4.84 against "
          "LSTM N = 468's 4.82, its test BPC 1.429 against nnRNN's 1.47 and LSTM N = 350's 1.461.",
    exact=_exact,
)
