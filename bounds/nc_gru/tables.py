"""nc_gru.md's result tables (Tables 1–9) as printed, and the comparison checks the sentences of Sec. 3.3, Sec. 4
and the abstract are measured by.

Every value is kept as the string the paper prints, so a comparison can be decided exactly (sympy ``Rational``)
as well as in floating point. A comparison sentence becomes a :class:`Comparison`: "model A is better than
models B, …" at one column of one table reads measured = A's loss (or error rate 100 − accuracy), bound = the
smallest of the others' (times a factor where the sentence allows a margin), so ratio > 1 means the table
contradicts the sentence. The claims are about printed numbers, not about anything the search could move: their
cases (:class:`TableCase`) carry nothing, and every case gives the same parts.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import CaseSpace, ExactVerdict

__all__ = ["TABLES", "LOWER_IS_BETTER", "Comparison", "TableCase", "TABLE_CASES", "value", "comparison_parts",
           "exact_comparisons", "NC_UC", "NC_URUC", "BASELINES"]

NC_UC = "NC-GRU(Uc)"
NC_URUC = "NC-GRU(Ur, Uc)"
#: The four baselines of the synthetic tasks (Sec. 4.1–4.4).
BASELINES = ("LSTM", "GRU", "scoRNN", "GORU")

#: Tables 1–9 as printed: table → model → column → "mean" (the ± standard deviations are not used: every sentence
#: compares means). Tables 2–4 and 8–9 print the second model as "NC-GRU(Uc, Ur)"; it is the NC-GRU(Ur, Uc) of the
#: text (Sec. 4.1). Table 6's GRU has two entries: 92.48 quoted from Bai et al. and 80.90 from the authors' runs.
TABLES: dict[str, dict[str, dict[str, str]]] = {
    "Table 1": {  # Parenthesis, loss ×10⁻³
        "LSTM": {"T = 100": "0.710", "T = 200": "14.706"}, "GRU": {"T = 100": "31.066", "T = 200": "23.794"},
        "scoRNN": {"T = 100": "20.381", "T = 200": "19.180"}, "GORU": {"T = 100": "1.065", "T = 200": "1.248"},
        NC_UC: {"T = 100": "0.267", "T = 200": "0.217"}, NC_URUC: {"T = 100": "0.188", "T = 200": "0.221"}},
    "Table 2": {  # Denoise, loss ×10⁻²
        "LSTM": {"T = 200": "10.367", "T = 400": "5.551"}, "GRU": {"T = 200": "9.852", "T = 400": "5.261"},
        "scoRNN": {"T = 200": "7.303", "T = 400": "4.023"}, "GORU": {"T = 200": "3.709", "T = 400": "2.131"},
        NC_UC: {"T = 200": "2.258", "T = 400": "0.952"}, NC_URUC: {"T = 200": "2.278", "T = 400": "1.294"}},
    "Table 3": {  # Adding, loss ×10⁻⁵
        "LSTM": {"T = 200": "22.302", "T = 400": "145.089"}, "GRU": {"T = 200": "3.137", "T = 400": "2.1927539"},
        "scoRNN": {"T = 200": "55.144", "T = 400": "16301.960"}, "GORU": {"T = 200": "4.829", "T = 400": "2.927"},
        NC_UC: {"T = 200": "0.918", "T = 400": "1.009"}, NC_URUC: {"T = 200": "4.086", "T = 400": "5.412"}},
    "Table 4": {  # Copying, loss ×10⁻²
        "LSTM": {"T = 1000": "2.039", "T = 2000": "1.030"}, "GRU": {"T = 1000": "1.278", "T = 2000": "0.896"},
        "scoRNN": {"T = 1000": "0.005", "T = 2000": "0.028"}, "GORU": {"T = 1000": "1.577", "T = 2000": "0.875"},
        NC_UC: {"T = 1000": "0.884", "T = 2000": "0.447"}, NC_URUC: {"T = 1000": "0.919", "T = 2000": "0.568"}},
    "Table 5": {"LSTM": {"bpc": "1.980"}, "GRU": {"bpc": "1.449"}, "scoRNN": {"bpc": "1.600"}, NC_UC: {"bpc": "1.385"}},
    "Table 6": {"LSTM": {"PPL": "78.93"}, "GRU": {"PPL": "92.48"}, "GRU (authors' runs)": {"PPL": "80.90"},
                "scoRNN": {"PPL": "123.48"}, NC_UC: {"PPL": "77.05"}},
    "Table 7": {"LSTM": {"PPL": "65.76"}, "GRU": {"PPL": "102.33"}, "scoRNN": {"PPL": "167.75"},
                NC_UC: {"PPL": "92.56"}},
    "Table 8": {  # Denoise T = 400, accuracy %
        "LSTM": {"T = 400": "96.01"}, "GRU": {"T = 400": "96.32"}, "scoRNN": {"T = 400": "97.56"},
        "GORU": {"T = 400": "99.08"}, NC_UC: {"T = 400": "99.46"}, NC_URUC: {"T = 400": "99.72"}},
    "Table 9": {  # Copying T = 2000, accuracy %
        "LSTM": {"T = 2000": "99.56"}, "GRU": {"T = 2000": "99.64"}, "scoRNN": {"T = 2000": "99.99"},
        "GORU": {"T = 2000": "99.57"}, NC_UC: {"T = 2000": "99.76"}, NC_URUC: {"T = 2000": "99.82"}},
}

#: Loss, bits per character and perplexity: smaller is better. Tables 8–9 are accuracies: larger is better, and a
#: comparison uses the error rate 100 − accuracy so that smaller is better throughout.
LOWER_IS_BETTER = {"Table 1": True, "Table 2": True, "Table 3": True, "Table 4": True, "Table 5": True,
                   "Table 6": True, "Table 7": True, "Table 8": False, "Table 9": False}


def value(table: str, model: str, column: str, *, exact: bool = False):
    """The printed entry as "smaller is better": the mean itself, or 100 − accuracy for Tables 8–9.

    Args:
        exact: return a sympy ``Rational`` (decided exactly) instead of a float.

    Raises:
        KeyError: no such table, model or column (the message names it).
    """
    if table not in TABLES or model not in TABLES[table] or column not in TABLES[table][model]:
        raise KeyError(f"no entry {table!r}, {model!r}, {column!r} in nc_gru.md's tables")
    text = TABLES[table][model][column]
    if exact:
        import sympy

        v = sympy.Rational(text)
        return v if LOWER_IS_BETTER[table] else 100 - v
    v = float(text)
    return v if LOWER_IS_BETTER[table] else 100.0 - v


@dataclass(frozen=True)
class Comparison:
    """One comparison a sentence makes: ``better`` beats every model of ``others`` at ``column`` of ``table``,
    read as value(better) ≤ factor · min value(others) (smaller is better, :func:`value`).

    Attributes:
        part: the part's name (the sentence, its reading, the table and column).
        table, column: where the numbers are. better: the model the sentence says is better.
        others: the models it is said to beat. factor: a margin the sentence allows (1: plainly better).
    """

    part: str
    table: str
    column: str
    better: str
    others: tuple[str, ...]
    factor: float = 1.0


def comparison_parts(comparisons: tuple[Comparison, ...]) -> dict[str, tuple[Tensor, Tensor]]:
    """{part: (value(better), factor · min value(others))} as 0-d float64 tensors."""
    out = {}
    for c in comparisons:
        best_other = min(value(c.table, m, c.column) for m in c.others)
        out[c.part] = (torch.tensor(value(c.table, c.better, c.column), dtype=torch.float64),
                       torch.tensor(c.factor * best_other, dtype=torch.float64))
    return out


def exact_comparisons(comparisons: tuple[Comparison, ...]) -> ExactVerdict:
    """The comparisons decided in exact rational arithmetic (sympy): ``violated`` with every failing comparison and
    both values, or ``proved`` (every comparison holds for the printed decimals)."""
    import sympy

    failed = []
    for c in comparisons:
        mine = value(c.table, c.better, c.column, exact=True)
        rival = min(value(c.table, m, c.column, exact=True) for m in c.others)
        bound = sympy.nsimplify(c.factor) * rival
        if mine > bound:
            failed.append(f"{c.part}: {float(mine):g} > {float(bound):g} (exactly {mine} > {bound}, ratio "
                          f"{float(mine / bound):.6g})")
    if failed:
        return ExactVerdict("violated", "; ".join(failed))
    return ExactVerdict("proved", f"all {len(comparisons)} comparisons hold for the printed decimals, exactly")


@dataclass
class TableCase:
    """A case of a claim about printed numbers: nothing to draw or move (every case gives the same parts)."""

    index: int = 0

    def size(self) -> tuple[int, int]:
        """(1, 1)."""
        return 1, 1


def _sample_table_case(gen, h, T, device="cpu", dtype=torch.float64) -> TableCase:
    return TableCase(int(torch.randint(0, 1000, (), generator=gen)))


#: The one (trivial) case family of the table claims.
TABLE_CASES = CaseSpace(case_type=TableCase, sample=_sample_table_case, sizes={"quick": [(1, 1)], "full": [(1, 1)]})
