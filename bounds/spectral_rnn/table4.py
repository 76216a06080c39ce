"""spectral_rnn.md, App. C.1 and Table 4 (UCR time series): the depth/input-size rule of the text against the
table's depth column, and the caption's "the highest precision is in bold" against the bold marks.

App. C.1: "Given sequence length L, since t n_i = L, we choose n_i to be the maximum divisor of L that satisfies
depth ≤ √L." Read literally (depth = L/n_i ≤ √L, n_i the largest such divisor) this gives n_i = L, depth 1, for
every data set; the table's depths are all > 1 and ≥ √L, i.e. the opposite inequality: a slip. The headline uses
the reading the table fits; the printed rule and its 'minimum' variant are Readings (both false). The reading that fits
20 of 21 rows is "n_i the largest divisor of L with n_i ≤ √L" (depth the smallest divisor ≥ √L); 50words
(L = 270) has depth 27 in the table, 18 by that rule. The caption's bold marks (as transcribed in
papers/spectral_rnn.md) mark Adiac's LSTM 0.706 although Spectral-RNN's 0.726 is higher. The parameter columns
are checked by spectral_rnn.param_count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, Reading
from rnnaudit.bounds.spectral_rnn.cases import F64, t64

__all__ = ["table4", "TABLE4_ROWS", "table4_case", "depth_literal", "depth_smallest_ni", "depth_fitted"]

#: Table 4: (data set, length L, depth, accuracies (RNN, LSTM, oRNN, Spectral-RNN), bold flags, #params
#: (RNN, LSTM, oRNN, Spectral-RNN)), as transcribed in papers/spectral_rnn.md.
TABLE4_ROWS = (
    ("50words", 270, 27, (0.492, 0.598, 0.642, 0.651), (0, 0, 0, 1), (3058, 7218, 2426, 2850)),
    ("Adiac", 176, 16, (0.552, 0.706, 0.668, 0.726), (0, 1, 0, 1), (2694, 6950, 2062, 2486)),
    ("ArrowHead", 251, 251, (0.509, 0.537, 0.669, 0.800), (0, 0, 0, 1), (1219, 4515, 587, 1011)),
    ("Beef", 470, 47, (0.600, 0.700, 0.733, 0.733), (0, 0, 1, 1), (1606, 5766, 974, 1398)),
    ("BeetleFly", 512, 32, (0.950, 0.850, 0.900, 0.950), (1, 0, 0, 1), (1699, 6435, 1067, 1491)),
    ("CBF", 128, 16, (0.702, 0.967, 0.881, 0.948), (0, 1, 0, 0), (1476, 5444, 844, 1268)),
    ("Coffee", 286, 22, (1.000, 1.000, 1.000, 1.000), (1, 1, 1, 1), (1570, 6018, 938, 1362)),
    ("Cricket X", 300, 20, (0.310, 0.456, 0.495, 0.500), (0, 0, 0, 1), (1997, 6637, 1365, 1789)),
    ("DistalPhalanxOutlineCorrect", 80, 10, (0.790, 0.798, 0.830, 0.840), (0, 0, 0, 1), (1410, 5378, 778, 1202)),
    ("DistalPhalanxTW", 80, 10, (0.815, 0.795, 0.807, 0.815), (1, 0, 0, 1), (1641, 5609, 1009, 1433)),
    ("ECG200", 96, 12, (0.640, 0.640, 0.640, 0.640), (1, 1, 1, 1), (1410, 5378, 778, 1202)),
    ("ECG5000", 140, 14, (0.941, 0.936, 0.940, 0.945), (0, 0, 0, 1), (1606, 5766, 974, 1398)),
    ("ECGFiveDays", 136, 17, (0.947, 0.790, 0.976, 0.948), (0, 0, 1, 0), (1443, 5411, 811, 1235)),
    ("FaceAll", 131, 131, (0.549, 0.455, 0.714, 0.714), (0, 0, 1, 1), (1615, 4911, 983, 1407)),
    ("FaceFour", 350, 25, (0.625, 0.477, 0.511, 0.716), (0, 0, 0, 1), (1701, 6245, 1069, 1493)),
    ("FacesUCR", 131, 131, (0.449, 0.629, 0.710, 0.727), (0, 0, 0, 1), (1615, 4911, 983, 1407)),
    ("Gun Point", 150, 15, (0.947, 0.920, 0.953, 0.960), (0, 0, 0, 1), (1507, 5667, 875, 1299)),
    ("InsectWingbeatSound", 256, 16, (0.534, 0.515, 0.598, 0.586), (0, 0, 1, 0), (1996, 6732, 1364, 1788)),
    ("ItalyPowerDemand", 24, 6, (0.970, 0.969, 0.972, 0.973), (0, 0, 0, 1), (1315, 4899, 683, 1107)),
    ("Lighting2", 637, 49, (0.541, 0.541, 0.541, 0.541), (1, 1, 1, 1), (1570, 6018, 938, 1362)),
    ("MiddlePhalanxOutlineCorrect", 80, 10, (0.793, 0.783, 0.712, 0.820), (0, 0, 0, 1), (1410, 5378, 778, 1202)),
)


@dataclass
class Table4Case:
    """Table 4 as tensors (the whole table is one case, so a saved counterexample shows every mismatch).

    Attributes: L, depth: (R,) int64. acc: (R, 4) accuracies. bold: (R, 4) 0/1. params: (R, 4) counts
    (RNN, LSTM, oRNN, Spectral-RNN).
    """

    L: Tensor
    depth: Tensor
    acc: Tensor
    bold: Tensor
    params: Tensor

    def size(self) -> tuple[int, int]:
        """(32, 1): App. C.1's hidden size."""
        return 32, 1


def table4_case(device="cpu", dtype=F64) -> Table4Case:
    """The printed Table 4."""
    col = lambda i, dt: torch.tensor([r[i] for r in TABLE4_ROWS], dtype=dt, device=device)  # noqa: E731
    return Table4Case(col(1, torch.int64), col(2, torch.int64), col(3, dtype), col(4, torch.int64), col(5, dtype))


def _divisors(L: int) -> list[int]:
    return [d for d in range(1, L + 1) if L % d == 0]


def depth_literal(L: int) -> int:
    """App. C.1 as printed: n_i the maximum divisor of L with depth = L/n_i ≤ √L (n_i = L), depth L/n_i."""
    n_i = max(d for d in _divisors(L) if L // d <= math.sqrt(L))
    return L // n_i


def depth_smallest_ni(L: int) -> int:
    """The literal rule with 'maximum' read as 'minimum': n_i the smallest divisor with depth ≤ √L, i.e. depth the
    largest divisor of L that is ≤ √L."""
    n_i = min(d for d in _divisors(L) if L // d <= math.sqrt(L))
    return L // n_i


def depth_fitted(L: int) -> int:
    """The reading most rows fit: n_i the largest divisor of L with n_i ≤ √L, depth = L/n_i (≥ √L)."""
    n_i = max(d for d in _divisors(L) if d <= math.sqrt(L))
    return L // n_i


def _mismatch(table: Tensor, rule: Tensor) -> tuple[Tensor, Tensor]:
    """(measured, bound) with ratio max(table/rule, rule/table) over rows: 1 where they agree."""
    ratio = torch.maximum(table / rule, rule / table)
    k = int(ratio.argmax())
    hi, lo = torch.maximum(table[k], rule[k]), torch.minimum(table[k], rule[k])
    return hi, lo


def _measure(case: Table4Case) -> dict[str, tuple[Tensor, Tensor]]:
    L, depth = case.L.tolist(), case.depth.to(case.acc.dtype)
    fit = torch.tensor([depth_fitted(x) for x in L], dtype=depth.dtype)
    divides = torch.tensor([float(x % int(d)) for x, d in zip(L, case.depth.tolist())], dtype=depth.dtype)
    best = case.acc.max(1).values
    bold_min = torch.where(case.bold.bool(), case.acc, torch.full_like(case.acc, math.inf)).min(1).values
    k = int((best / bold_min).argmax())
    lstm, small = case.params[:, 1], torch.maximum(case.params[:, 2], case.params[:, 3])
    j = int((small / lstm).argmax())
    return {
        "depth × n_i = L (depth divides L)": (divides.max(), t64(0.5)),
        "depth = the rule most rows fit (n_i the largest divisor ≤ √L)": _mismatch(depth, fit),
        "every bold accuracy is the highest of its row (caption)": (best[k], bold_min[k]),
        "oRNN and Spectral-RNN have fewer parameters than LSTM (App. C.1)": (small[j], lstm[j]),
    }


def measure_rule(case: Table4Case, rule) -> dict[str, tuple[Tensor, Tensor]]:
    """A printed form of the depth rule against the table's depth column: ``rule`` L → depth (:func:`depth_literal`
    or :func:`depth_smallest_ni`), ratio max(table/rule, rule/table) over rows, 1 where every row agrees."""
    depth = case.depth.to(case.acc.dtype)
    want = torch.tensor([rule(x) for x in case.L.tolist()], dtype=depth.dtype)
    return {f"depth = {rule.__name__}(L)": _mismatch(depth, want)}


def exact_rule(rule) -> ExactVerdict:
    """``rule`` against the printed depth column, row by row in integers."""
    bad = [f"{name}: L = {L}, table depth {d}, rule {rule(L)}" for name, L, d, *_ in TABLE4_ROWS if rule(L) != d]
    return ExactVerdict("violated" if bad else "proved",
                        f"{len(bad)} of {len(TABLE4_ROWS)} rows differ: " + "; ".join(bad[:3]) if bad
                        else "every row follows the rule")


def _exact() -> ExactVerdict:
    from fractions import Fraction as F

    bad = []
    fit = [(r[0], r[1], r[2], depth_fitted(r[1])) for r in TABLE4_ROWS if depth_fitted(r[1]) != r[2]]
    bad += [f"{name}: L = {L}, table depth {d} (n_i = {L // d}), the fitted rule {f} (n_i = {L // f})"
            for name, L, d, f in fit]
    for name, _, _, acc, bold, _ in TABLE4_ROWS:
        a = [F(str(x)) for x in acc]
        marked = [x for x, b in zip(a, bold) if b]
        if min(marked) < max(a):
            bad.append(f"{name}: {float(min(marked))} is bold, {float(max(a))} is higher")
    return ExactVerdict("violated" if bad else "proved", "; ".join(bad) if bad else "the table agrees with the text")


A_PRINTED = Assumption("Table 4 as printed (21 UCR data sets)", lambda c: (
    c.L.shape[0] == len(TABLE4_ROWS), f"{c.L.shape[0]} rows"))

_TABLE = CaseSpace(case_type=Table4Case, sample=lambda gen, h, T, device, dtype: table4_case(device, dtype),
                   sizes={"quick": [(32, 1)], "full": [(32, 1)]})

table4 = Claim(
    id="spectral_rnn.table4",
    source="spectral_rnn.md, App. C.1 (depth rule, parameter remark) and Table 4 (depth column, bold marks)",
    statement="t n_i = L with n_i the maximum divisor of L satisfying depth ≤ √L; the highest accuracy of each row is "
              "in bold; oRNN and Spectral-RNN have substantially fewer parameters than LSTM",
    assumptions=(A_PRINTED,),
    measure="each row's depth against the rule in the reading 20 of 21 rows fit, L mod depth, the largest accuracy "
            "against the smallest bold one, max(oRNN, Spectral-RNN) against LSTM's count",
    bound="agreement (ratio max(a/b, b/a) = 1); 1/2 for the integer remainder; the compared value",
    evaluate=_measure,
    cases=_TABLE,
    explanation="In the only reading that fits the table (n_i the largest divisor of L with n_i ≤ √L), 20 of 21 rows "
                "fit but 50words (L = 270) would have depth 18 (n_i = 15), not 27 (ratio 1.5); and Adiac's bold LSTM "
                "0.706 is below Spectral-RNN's 0.726, against the caption (ratio 1.028). The parameter remark holds.",
    notes="Reading of the depth rule: the printed 'maximum divisor of L that satisfies depth ≤ √L' gives n_i = L and "
          "depth 1 for every data set (ArrowHead: 251 in the table), and 'minimum' for 'maximum' gives depths "
          "≤ √L, while the table's are all ≥ √L: an inequality slip, shown by the two Readings of the printed "
          "rule (both false, exact: 21 of 21 rows differ under the literal rule, 20 of 21 under 'minimum'); "
          "the headline verdict rests on the fitted reading. The whole table is one case, so the saved "
          "counterexample shows "
          "every mismatch (parts). Table 4's absolute parameter counts need each data set's label encoding (n_y); "
          "the model differences are checked by spectral_rnn.param_count (they fit m1 = m2 = 16, not App. C.1's "
          "8). The gray marks of the caption are not in the transcription.",
    exact=_exact,
    readings=(Reading("the depth rule as printed", "depth = L/n_i with n_i the maximum divisor of L satisfying "
                      "L/n_i ≤ √L", "App. C.1's sentence, word for word",
                      evaluate=lambda c: measure_rule(c, depth_literal), exact=lambda: exact_rule(depth_literal)),
              Reading("'maximum' read as 'minimum'", "depth = L/n_i with n_i the minimum divisor of L satisfying "
                      "L/n_i ≤ √L", "App. C.1's 'depth ≤ √L' kept, its 'maximum' changed",
                      evaluate=lambda c: measure_rule(c, depth_smallest_ni),
                      exact=lambda: exact_rule(depth_smallest_ni))),
)
