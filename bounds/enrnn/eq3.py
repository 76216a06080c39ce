"""enrnn.md, eq. 1 and eq. 3: the ENRNN forward pass written blockwise is the basic RNN of Sec. 2,
h_t = σ(Ux_t + Wh_{t−1} + b), y_t = Vh_t + c, with W of eq. 2 (eq. 1: W^(C) = 0), checked by running both."""

from __future__ import annotations

import sympy as sp
import torch
from torch import Tensor

from rnnaudit.bounds.core import CaseSpace, Claim, ExactVerdict
from rnnaudit.bounds.enrnn.cases import (A_UPPER, ENRNNCase, enrnn_cases_from_model, finish_case,
                                         input_weights_and_bias, new_cell, recurrent_matrix)
from rnnaudit.cells import enrnn_recurrence, get_activation

__all__ = ["sample_eq3_case", "eq3", "blockwise", "EQ3_RTOL"]

#: The blockwise and the dense recurrence add the same products in another order: each entry differs by
#: at most n·u·Σ|terms| per step, and the difference is carried through T ≤ 10 1-Lipschitz steps with
#: ‖W‖ ≤ 30: 1e-11 of (1 + the largest Σ|terms|) covers it with a wide margin at n ≤ 16.
EQ3_RTOL = 1e-11


def sample_eq3_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> ENRNNCase:
    """A random ENRNN (n = h, p ≥ 1, W^(C) present three times in four, modReLU, ReLU or tanh) with Gaussian inputs
    and a readout V = the case's v (T rows)."""
    activation = ["modrelu", "relu", "tanh"][int(torch.randint(0, 3, (), generator=gen))]
    return finish_case(new_cell(gen, h, activation=activation, eps=0.0), gen, T, device, dtype)


def _sigma(activation: str, b: Tensor):
    if activation == "modrelu":
        return lambda z: torch.sign(z) * torch.relu(z.abs() + b)
    act = get_activation(activation)
    return lambda z: act(z + b)


def blockwise(case: ENRNNCase, *, current_short: bool = False) -> tuple[Tensor, Tensor]:
    """h_t = [h^(L)_t; h^(S)_t] (T, n) and y_t (T, rows of V) by eq. 3 line by line.

    ``current_short`` feeds W^(C)h^(S)_t instead of W^(C)h^(S)_{t−1} into h^(L)_t (Sec. 3's sentence after eq. 3
    says "determined from ... the short-term hidden state h_t^(S)"); the tests use it as the wrong formula.
    """
    cell = case.cell
    q = cell.long_size
    W = recurrent_matrix(case)
    W_L, W_C, W_S = W[:q, :q], W[:q, q:], W[q:, q:]
    s_L, s_S = _sigma(cell.activation, cell.b_L), _sigma(cell.activation, cell.b_S)
    h_L = case.x.new_zeros(q)
    h_S = case.x.new_zeros(cell.short_size)
    out = []
    for x_t in case.x[0]:
        new_S = s_S(cell.U_S @ x_t + W_S @ h_S)
        h_L = s_L(cell.U_L @ x_t + W_L @ h_L + W_C @ (new_S if current_short else h_S))
        h_S = new_S
        out.append(torch.cat([h_L, h_S]))
    hs = torch.stack(out)
    V = case.v
    return hs, hs[:, :q] @ V[:, :q].mT + hs[:, q:] @ V[:, q:].mT


def _measure(case: ENRNNCase, *, current_short: bool = False) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    cell = case.cell
    q = cell.long_size
    U, b = input_weights_and_bias(cell)
    W = recurrent_matrix(case)
    ux = case.x @ U.mT
    dense = enrnn_recurrence(ux, W, b, case.x.new_zeros(1, cell.hidden_size), cell.activation)[0]
    y_dense = dense @ case.v.mT
    h_blk, y_blk = blockwise(case, current_short=current_short)
    h_prev = torch.cat([dense.new_zeros(1, dense.shape[1]), dense[:-1]])
    terms = (h_prev.abs() @ W.abs().mT + ux[0].abs() + b.abs()).max()
    tol_h = EQ3_RTOL * (1 + terms)
    tol_y = EQ3_RTOL * (1 + (dense.abs() @ case.v.abs().mT).max()) * (1 + terms)
    parts = {}
    for name, sl in (("eq. (3), first line: h^(L)_t", slice(0, q)), ("eq. (3), second line: h^(S)_t", slice(q, None))):
        ref = dense[:, sl].abs().max() if dense[:, sl].numel() else dense.new_zeros(())
        err = (h_blk[:, sl] - dense[:, sl]).abs().max() if dense[:, sl].numel() else dense.new_zeros(())
        parts[name] = (err, tol_h, ref)
    parts["eq. (3), third line: y_t = V^(L)h^(L)_t + V^(S)h^(S)_t"] = ((y_blk - y_dense).abs().max(), tol_y,
                                                                        y_dense.abs().max())
    return parts


def _exact() -> ExactVerdict:
    """Symbolic blocks (q = 2, p = 2): W h = [W^(L)h^(L) + W^(C)h^(S); W^(S)h^(S)] for W of eq. 2 and
    V h = V^(L)h^(L) + V^(S)h^(S); σ acts entrywise, so eq. 3 is the basic RNN with this W."""
    WL, WC, WS = (sp.Matrix(2, 2, sp.symbols(f"{n}0:4")) for n in ("l", "c", "s"))
    hL, hS = sp.Matrix(sp.symbols("a0:2")), sp.Matrix(sp.symbols("z0:2"))
    VL, VS = sp.Matrix(1, 2, sp.symbols("v0:2")), sp.Matrix(1, 2, sp.symbols("w0:2"))
    W = sp.Matrix(sp.BlockMatrix([[WL, WC], [sp.zeros(2, 2), WS]]))
    h = sp.Matrix.vstack(hL, hS)
    blocks = sp.Matrix.vstack(WL * hL + WC * hS, WS * hS)
    ok = sp.expand(W * h - blocks) == sp.zeros(4, 1) and sp.expand(sp.Matrix.hstack(VL, VS) * h - (VL * hL + VS * hS)) \
        == sp.zeros(1, 1)
    return ExactVerdict("proved" if ok else "violated", "W h with W of eq. 2 splits into W^(L)h^(L) + W^(C)h^(S) and "
                                                         "W^(S)h^(S) (symbolic 2 + 2 blocks); V h = V^(L)h^(L) + "
                                                         "V^(S)h^(S)")


_EQ3_CASES = CaseSpace(case_type=ENRNNCase, sample=sample_eq3_case,
                       sizes={"quick": [(1, 3), (2, 4), (5, 5), (8, 6)],
                              "full": [(1, 3), (2, 4), (5, 5), (8, 6), (16, 10), (32, 10)]},
                       from_model=enrnn_cases_from_model)

eq3 = Claim(
    id="enrnn.eq3",
    source="enrnn.md, eq. 1 and eq. 3 (Sec. 3), against the basic RNN of Sec. 2 with W of eq. 2",
    statement="Applying the recurrent matrix in (2) to a forward pass of the RNN, h^(L)_t = σ(U^(L)x_t + "
              "W^(L)h^(L)_{t−1} + W^(C)h^(S)_{t−1} + b^(L)), h^(S)_t = σ(U^(S)x_t + W^(S)h^(S)_{t−1} + b^(S)), "
              "y_t = V^(L)h^(L)_t + V^(S)h^(S)_t + c (eq. 1: W^(C) = 0)",
    assumptions=(A_UPPER,),
    measure="eq. 3 line by line against h_t = σ(Ux_t + Wh_{t−1} + b) with the dense W (cells.enrnn_recurrence) and "
            "y_t = Vh_t (V = the case's v)",
    bound="EQ3_RTOL·(1 + the largest sum of |terms|)",
    evaluate=_measure,
    cases=_EQ3_CASES,
    explanation="Would mean eq. 3 is not the basic RNN with W of eq. 2.",
    notes="c is omitted (it adds the same vector to both sides). Sec. 3's sentence after eq. 3 says h^(L)_t is "
          "determined from 'the short-term hidden state h^(S)_t and h^(L)_t'; eq. 3 uses h^(S)_{t−1} and "
          "h^(L)_{t−1}, and the check follows eq. 3 (the sentence's reading, an index slip, is enrnn.eq3_sentence, misprinted).",
    exact=_exact,
)
