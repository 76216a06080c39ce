"""nc_gru.md, SM 7, proof of Corollary 1 (eq. 47–52): the premise "0 ≤ [u_t]_i, [c_t]_i ≤ 1 for all i and t from
the definition of GRU cell in (1)" is false for c_t = tanh(·) ∈ (−1, 1); the induction still gives [h_t]_i ≤ 1 (it
needs only [c_t]_i ≤ 1), and with |[c_t]_i| ≤ 1 it gives |[h_t]_i| ≤ 1, the bound Theorem 1's |·| reading needs."""

from __future__ import annotations

from dataclasses import replace

import torch
from torch import Tensor

from rnnaudit.bounds.core import Claim, ExactVerdict, Supremum, nothing_free
from rnnaudit.bounds.nc_gru.cases import TRAJECTORY_ASSUMPTIONS, GRUCase
from rnnaudit.bounds.nc_gru.spaces import TRAJECTORIES

__all__ = ["eq47", "eq47_corrected", "PREMISE_C_NONNEGATIVE"]

PREMISE_C_NONNEGATIVE = "premise of eq. 47–52: 0 ≤ [c_t]_i, measured as 1 − min c_t ≤ 1"


def _states(case: GRUCase):
    cell = case.cell
    hs = cell(case.x, case.h0[None])[0]
    prev = torch.cat([case.h0[None], hs[:-1]])
    g = cell.gates(case.x[0], prev)
    return hs, g["u"], g["c"]


def _measure(case: GRUCase) -> dict[str, tuple[Tensor, Tensor]]:
    hs, u, c = _states(case)
    one = hs.new_ones(())
    return {PREMISE_C_NONNEGATIVE: (1 - c.min(), one),
            "premise of eq. 47–52: [c_t]_i ≤ 1": (c.max(), one),
            "premise of eq. 47–52: 0 ≤ [u_t]_i ≤ 1, measured as max(max u, 1 − min u) ≤ 1": (
                (u.max()).maximum(1 - u.min()), one)}


def _measure_corrected(case: GRUCase) -> dict[str, tuple[Tensor, Tensor]]:
    hs, u, c = _states(case)
    one = hs.new_ones(())
    return {"|[c_t]_i| ≤ 1 (tanh)": (c.abs().max(), one),
            "0 ≤ [u_t]_i ≤ 1 (σ)": ((u.max()).maximum(1 - u.min()), one),
            "eq. 47–52 with |·|: |[h_t]_i| ≤ 1 for all i, t": (hs.abs().max(), one)}


def _exact() -> ExactVerdict:
    import sympy

    c = sympy.tanh(-1)
    return ExactVerdict("violated" if bool(c.is_negative) else "proved",
                        f"Φ = tanh: at the pre-activation −1 (e.g. b_c = −1, all weights 0, h_0 = 0), c_1 = tanh(−1) = "
                        f"{sympy.N(c, 8)} < 0, against the premise 0 ≤ [c_t]_i")


_SEQUENCES = replace(TRAJECTORIES, free=nothing_free)

eq47 = Claim(
    id="nc_gru.eq47",
    source="nc_gru.md, SM 7, proof of Corollary 1, the premise of eq. 47–52",
    statement="'0 ≤ [u_t]_i, [c_t]_i ≤ 1 for all i and t from the definition of GRU cell in (1)'",
    assumptions=TRAJECTORY_ASSUMPTIONS,
    measure="1 − min_{i,t} [c_t]_i, max [c_t]_i and the range of u_t along a sequence of eq. 1 from h_0 = 0",
    bound="1 (each)",
    evaluate=_measure,
    cases=_SEQUENCES,
    explanation="c_t = tanh(W_c x_t + U_c(r_t ⊙ h_{t−1}) + b_c) takes every value in (−1, 1); the premise 0 ≤ [c_t]_i "
                "holds only for a nonnegative activation. The induction eq. 50–52 needs only [c_t]_i ≤ 1, so "
                "Corollary 1's [h_t]_i ≤ 1 survives (nc_gru.corollary1 holds); the lower bound [h_t]_i ≥ −1, which "
                "the |·| form of Theorem 1 needs, follows from |[c_t]_i| ≤ 1 (nc_gru.eq47.corrected).",
    notes="A proof-step check. The ratio 1 − min c_t reaches 2 as c_t → −1 (b_c = −40: c_t = −1 in float64).",
    supremum=Supremum(2.0, "1 − min c_t < 2 since c_t > −1; c_t = tanh(−40) = −1 in float64 (structured start)",
                      at=(2, 1), part=PREMISE_C_NONNEGATIVE),
    exact=_exact,
)

eq47_corrected = Claim(
    id="nc_gru.eq47.corrected",
    source="nc_gru.md, SM 7, eq. 47–52, corrected by rnnaudit (|c_t| ≤ 1 in the premise, |h_t| ≤ 1 in the conclusion)",
    statement="For Φ = tanh and h_0 = 0: |[c_t]_i| ≤ 1 and 0 ≤ [u_t]_i ≤ 1, hence by eq. 47–52 with |·|, "
              "|[h_t]_i| ≤ (1 − [u_t]_i)|[h_{t−1}]_i| + [u_t]_i|[c_t]_i| ≤ 1",
    assumptions=TRAJECTORY_ASSUMPTIONS,
    measure="max |c_t|, the range of u_t and max |h_t| along a sequence from h_0 = 0",
    bound="1 (each)",
    evaluate=_measure_corrected,
    cases=_SEQUENCES,
    explanation="Would mean tanh or σ leaves its range, or h_t is not a convex combination of h_{t−1} and c_t.",
    notes="Supremum 1, attained: c_t = ±1 in float64 at b_c = ±40 (structured starts).",
    supremum=Supremum(1.0, "|tanh| < 1, attained as ±1 in float64 (structured start)", at=(2, 1)),
)
