"""srnn.md, Table 2 and the sentences that compare its entries: on pMNIST "SRNN is more effective than all other
methods", and on the bigger pMNIST "our method has an advantage" — recomputed from the printed accuracies.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict
from rnnaudit.bounds.srnn.cases import f64

__all__ = ["TableCase", "TABLE2", "table2", "best_other"]


@dataclass
class TableCase:
    """A table as printed: one row (method, hidden size or 0, value or None) per entry.

    Attributes:
        rows: tuple of (method, d_h, value) tuples; value None where the paper prints none (e.g. "out of memory").
        higher_is_better: accuracy (True) or error (False).
    """

    rows: tuple
    higher_is_better: bool = True

    def size(self) -> tuple[int, int]:
        """(number of rows, 1)."""
        return len(self.rows), 1


#: Table 2 as printed (test accuracy, %): (method, 0 = pMNIST / 1 = bigger pMNIST, accuracy or None).
TABLE2 = TableCase((("LSTM", 0, 89.50), ("GRU", 0, 91.87), ("URNN", 0, 91.74), ("NRU", 0, 91.64), ("SRNN", 0, 96.43),
                    ("LSTM", 1, 33.60), ("GRU", 1, 9.45), ("URNN", 1, None), ("NRU", 1, 11.01), ("SRNN", 1, 90.31)))


def best_other(case: TableCase, column: int, method: str = "SRNN") -> tuple[float, float]:
    """(``method``'s value, the best value of every other method) in ``column`` (rows with that second field)."""
    rows = [r for r in case.rows if r[1] == column and r[2] is not None]
    own = [v for m, _, v in rows if m == method]
    others = [v for m, _, v in rows if m != method]
    pick = max if case.higher_is_better else min
    return pick(own), pick(others)


def _measure(case: TableCase) -> dict[str, tuple[Tensor, Tensor]]:
    like = torch.zeros((), dtype=torch.float64)
    out = {}
    for column, name in ((0, "pMNIST"), (1, "bigger pMNIST")):
        srnn, other = best_other(case, column)
        out[f"{name}: every other method's accuracy < SRNN's ({srnn:g} %)"] = (f64(other, like), f64(srnn, like))
    return out


def _exact() -> ExactVerdict:
    from sympy import Rational

    lines, ok = [], True
    for column, name in ((0, "pMNIST"), (1, "bigger pMNIST")):
        srnn, other = best_other(TABLE2, column)
        margin = Rational(str(srnn)) - Rational(str(other))
        ok &= margin > 0
        lines.append(f"{name}: SRNN {srnn} % against the best other {other} % (margin {float(margin):g} points)")
    return ExactVerdict("proved" if ok else "violated", "; ".join(lines) + " (exact decimals).")


table2 = Claim(
    id="srnn.table2",
    source="srnn.md, Table 2 and Sec. 4 ('SRNN is more effective than all other methods'; the bigger pMNIST)",
    statement="In Table 2, SRNN's accuracy exceeds every other method's on pMNIST and on the bigger pMNIST",
    assumptions=(Assumption("Table 2 as printed", lambda c: (c.rows == TABLE2.rows, f"{len(c.rows)} rows")),),
    measure="the best accuracy among the other methods in each column",
    bound="SRNN's accuracy in that column",
    evaluate=_measure,
    cases=CaseSpace(case_type=TableCase, sample=lambda gen, h, T, device="cpu", dtype=torch.float64: TABLE2,
                    sizes={"quick": [(10, 1)], "full": [(10, 1)]}),
    explanation="Would mean a printed baseline accuracy reaches SRNN's.",
    notes="The accuracies themselves are results of training runs (not checkable); this checks only that the "
          "comparison sentences follow from the printed numbers. uRNN's bigger-pMNIST entry is 'out of memory'.",
    exact=_exact,
)
