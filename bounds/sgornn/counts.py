"""Parameter counts of the four models of sgornn.md Sec. 3 (Tables 1–3), recomputed from the paper's
text, and the case family of the table claims.

From the text: VPRNN (eq. 2, Taylor-Melanson et al.) is h_t = σ(Wx_t + φ(Θ)h_{t−1} + b) with Θ of
h/2 × k rotation angles (k sublayers, "the maximum number allowed", 2⌈log₂h⌉); SGORNN adds the two
scalar gates α, β (eq. 1); FastRNN has a dense U (h²) and the same gates; the LSTM is Keras's
(4 gates, one bias each: the paper's code is Keras, footnotes 1–2). Tables 1–2 count a readout of one
output neuron with a bias (width + 1: regression on h_T in Sec. 3.1, binary HAR-2 in Sec. 3.2);
Table 3 counts "only the size of the RNN cells".
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
import torch
from torch import Tensor, nn

from rnnaudit.bounds.core import CaseSpace, ExactVerdict
from rnnaudit.cells import LSTM, SGORNN, VPRNN, FastRNN, parameter_count, vprnn_max_sublayers

__all__ = ["MODELS", "COUNT_TOL", "count_formulas", "cell_counts", "CountCase", "COUNT_CASES", "count_parts",
           "exact_table_counts", "t64", "ratio_part"]

#: The rows of Tables 1–3, in the tables' order.
MODELS = ("VPRNN", "SGORNN", "FastRNN", "LSTM")

#: Integer identities: |difference| ≤ 1/2 ⇔ equal.
COUNT_TOL = 0.5


def t64(x: float) -> Tensor:
    """A float64 0-d tensor."""
    return torch.tensor(float(x), dtype=torch.float64)


def count_formulas(n: int, h: int, k: int, units: int, readout: bool):
    """Parameter counts from the text (module docstring), model → count. Works on ints and on sympy
    symbols (the exact verdicts evaluate the same expressions)."""
    out = {"VPRNN": h * n + h + h * k / 2 if isinstance(h, sp.Basic) else h * n + h + (h // 2) * k}
    out["SGORNN"] = out["VPRNN"] + 2
    out["FastRNN"] = h * h + h * n + h + 2
    out["LSTM"] = 4 * (units * n + units * units + units)
    if readout:
        for name in MODELS:
            out[name] = out[name] + (units if name == "LSTM" else h) + 1
    return out


def cell_counts(n: int, h: int, k: int, units: int, readout: bool) -> dict[str, int]:
    """The same counts from rnnaudit's cells (:func:`rnnaudit.cells.parameter_count`) and an
    ``nn.Linear(width, 1)`` readout, on the meta device (no memory is allocated)."""
    extra = (lambda width: parameter_count(nn.Linear(width, 1, device="meta"))) if readout else (lambda width: 0)
    return {"VPRNN": parameter_count(VPRNN(n, h, k=k, device="meta")) + extra(h),
            "SGORNN": parameter_count(SGORNN(n, h, k=k, device="meta")) + extra(h),
            "FastRNN": parameter_count(FastRNN(n, h, device="meta")) + extra(h),
            "LSTM": parameter_count(LSTM(n, units, device="meta")) + extra(units)}


@dataclass
class CountCase:
    """Sizes at which the count formulas are compared with rnnaudit's cells: input width n, hidden width h
    (even), k sublayers, LSTM units, and whether a one-neuron readout is counted."""

    n: int
    h: int
    k: int
    units: int
    readout: bool

    def size(self) -> tuple[int, int]:
        """(h, 1): no sequence is involved."""
        return self.h, 1


def _sample(gen, h, T, device, dtype) -> CountCase:
    """n, units uniform in [1, 300], h even in [2, 300], k in [1, 2⌈log₂h⌉], readout or not."""
    draw = lambda lo, hi: int(torch.randint(lo, hi + 1, (), generator=gen))  # noqa: E731
    width = 2 * draw(1, 150)
    return CountCase(draw(1, 300), width, draw(1, vprnn_max_sublayers(width)), draw(1, 300), bool(draw(0, 1)))


#: Random sizes for the formula-versus-cells parts (one "size" only: the tables' own parts are constant).
COUNT_CASES = CaseSpace(case_type=CountCase, sample=_sample, sizes={"quick": [(2, 1)], "full": [(2, 1)]})


def count_parts(case: CountCase, table: str, printed: dict[str, int], n: int, h: int, units: int,
                readout: bool) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    """Identity parts: each printed row against the text's formula at the table's sizes (k = 2⌈log₂h⌉),
    and the formulas against rnnaudit's cells at the case's random sizes."""
    k = vprnn_max_sublayers(h)
    formula = count_formulas(n, h, k, units, readout)
    parts = {f"{table}, {name}: printed {printed[name]:,} = text's count {formula[name]:,}": (
        t64(abs(printed[name] - formula[name])), t64(COUNT_TOL), t64(formula[name])) for name in MODELS}
    mine = count_formulas(case.n, case.h, case.k, case.units, case.readout)
    cells = cell_counts(case.n, case.h, case.k, case.units, case.readout)
    parts.update({f"{name}: text's count = rnnaudit cell's parameters": (
        t64(abs(mine[name] - cells[name])), t64(COUNT_TOL), t64(cells[name])) for name in MODELS})
    return parts


def exact_table_counts(table: str, printed: dict[str, int], n: int, h: int, units: int,
                       readout: bool) -> ExactVerdict:
    """The text's formulas as sympy expressions in n, h, k, H (LSTM units), evaluated exactly at the table's
    sizes with k = 2⌈log₂h⌉ computed by sympy, against the printed counts."""
    sn, sh, sk, su = sp.symbols("n h k H", positive=True, integer=True)
    k = 2 * sp.ceiling(sp.log(sp.Integer(h), 2))
    exprs = count_formulas(sn, sh, sk, su, readout)
    values = {name: sp.Integer(exprs[name].subs({sn: n, sh: h, sk: k, su: units})) for name in MODELS}
    wrong = {name: (printed[name], int(values[name])) for name in MODELS if values[name] != printed[name]}
    shown = ", ".join(f"{name} {sp.simplify(exprs[name])} = {int(values[name])}" for name in MODELS)
    if wrong:
        return ExactVerdict("violated", f"{table} at n = {n}, h = {h}, k = {k}, H = {units}: " + "; ".join(
            f"{name} printed {p}, text gives {v}" for name, (p, v) in wrong.items()) + f" ({shown})")
    return ExactVerdict("proved", f"{table} at n = {n}, h = {h}, k = 2⌈log₂{h}⌉ = {k}, H = {units}: {shown}, "
                                  "each equal to the printed count")


def ratio_part(measured: float, bound: float) -> tuple[Tensor, Tensor]:
    """A (measured, bound) pair of float64 0-d tensors, for the comparison sentences."""
    return t64(measured), t64(bound)

