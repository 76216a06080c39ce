"""srnn.md, Table 3's comparison sentence ("our SRNN outperforms almost all of the baseline methods, including
EXPRNN, SCORNN, EURNN, and RGD. The only method that outperforms SRNN is NRU.") read at comparable hidden size —
Table 3's own axis, and the paper's next sentence's ("for a given hidden state size").
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.core import CaseSpace, Claim, ExactVerdict
from rnnaudit.bounds.srnn.cases import f64
from rnnaudit.bounds.srnn.table2 import TableCase
from rnnaudit.bounds.srnn.table3 import A_TABLE3, TABLE3

__all__ = ["dominating_rows", "table3_matched"]


def dominating_rows(case: TableCase, *, equal_size: bool) -> list[tuple[float, tuple, tuple]]:
    """(SRNN's MSE / the baseline's, SRNN row, baseline row) for every non-NRU baseline row at the same hidden size
    (``equal_size``) or at a hidden size no larger than an SRNN row's, worst first."""
    srnn = [r for r in case.rows if r[0] == "SRNN"]
    base = [r for r in case.rows if r[0] not in ("SRNN", "NRU")]
    pairs = [(s[2] / b[2], s, b) for s in srnn for b in base if (b[1] == s[1] if equal_size else b[1] <= s[1])]
    return sorted(pairs, key=lambda p: -p[0])


def _measure(case: TableCase) -> dict[str, tuple[Tensor, Tensor]]:
    like = torch.zeros((), dtype=torch.float64)
    out = {}
    for equal, name in ((True, "at equal d_h"), (False, "against every baseline with d_h no larger")):
        _, s, b = dominating_rows(case, equal_size=equal)[0]
        out[f"SRNN's MSE ≤ every non-NRU baseline's, {name}"] = (f64(s[2], like), f64(b[2], like))
    nru = [(s[2], n[2]) for s in case.rows if s[0] == "SRNN" for n in case.rows if n[0] == "NRU" and n[1] == s[1]]
    worst = min(nru, key=lambda p: p[0] / p[1])
    out["NRU outperforms SRNN at every shared d_h"] = (f64(worst[1], like), f64(worst[0], like))
    return out


def _exact() -> ExactVerdict:
    from sympy import Rational

    lines = []
    for equal in (True, False):
        found = [(s, b) for r, s, b in dominating_rows(TABLE3, equal_size=equal) if r > 1]
        lines += [f"{b[0]} at d_h = {b[1]} has MSE {b[2]} < SRNN's {s[2]} at d_h = {s[1]} (ratio "
                  f"{Rational(str(s[2])) / Rational(str(b[2]))})" for s, b in found]
    lines = sorted(set(lines))
    return ExactVerdict("violated" if lines else "proved", "; ".join(lines) + " (exact decimals)." if lines else
                        "At every hidden size SRNN's MSE is below every non-NRU baseline's.")


table3_matched = Claim(
    id="srnn.table3_matched",
    source="srnn.md, Table 3 and Sec. 4 'TIMIT', read at comparable hidden size",
    statement="At equal hidden size d_h, and against every baseline with a d_h no larger, SRNN's MSE in Table 3 is "
              "below every baseline's but NRU's, and NRU's is below SRNN's",
    assumptions=(A_TABLE3,),
    measure="SRNN's MSE at the worst pair (SRNN row, non-NRU baseline row) of each reading; NRU's MSE at each shared "
            "d_h",
    bound="the baseline's MSE; SRNN's MSE",
    evaluate=_measure,
    cases=CaseSpace(case_type=TableCase, sample=lambda gen, h, T, device="cpu", dtype=torch.float64: TABLE3,
                    sizes={"quick": [(36, 1)], "full": [(36, 1)]}),
    explanation="At equal hidden size uRNN (d_h = 128: 12.09) outperforms SRNN (12.69) as well as NRU (12.26); and "
                "with fewer hidden units EXPRNN outperforms SRNN at two sizes (d_h = 224: 5.30 against SRNN's 7.85 at "
                "256; d_h = 322: 4.38 against 4.73 at 512). 'The only method that outperforms SRNN is NRU' holds only "
                "comparing each method's best entry (srnn.table3), where SRNN's best comes from d_h = 2048, a size no "
                "baseline was run at. Corrected: 'at d_h ≥ 1024 only NRU outperforms SRNN; at smaller sizes EXPRNN "
                "(d_h = 224, 322) and uRNN (d_h = 128) also do'.",
    notes="Readings: equal d_h (the rows Table 3 shares), and 'no larger d_h' (a baseline with fewer hidden units and "
          "a lower MSE outperforms SRNN at that size). The printed MSEs themselves are training results.",
    exact=_exact,
)
