"""nc_gru.md, Sec. 2.1, the gate semantics stated under eq. 1: "if the output of u_t is 1, then the forget gate is
open, implying that the input gate is closed. Similarly, if u_t is 0, the forget gate is closed and the input gate is
open." Eq. 1 says the opposite (h_t = c_t at u_t = 1, h_t = h_{t−1} at u_t = 0): the sentence describes Cho et al.'s
convention h_t = u_t ⊙ h_{t−1} + (1 − u_t) ⊙ c_t, not the paper's own eq. 1."""

from __future__ import annotations

import copy

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict
from rnnaudit.bounds.nc_gru.cases import A_GRU, A_ONE_STEP, GRUCase, log_uniform, preactivations
from rnnaudit.bounds.nc_gru.spaces import DEEP
from rnnaudit.cells import GRU

__all__ = ["sec2_1", "sec2_1_corrected", "with_update_gate", "sample_gate_case", "GATE_TOL"]

#: At |z| = 60, u_t is 1 exactly or 8.8e-27, so eq. 1 gives h_t = c_t, or h_{t−1} to within 1e-26·|c_t − h_{t−1}|;
#: 1e-12 relative to ‖h_{t−1}‖ + ‖c_t‖ + 1 leaves room for the few roundings of one step.
GATE_TOL = 1e-12


def with_update_gate(case: GRUCase, side: int) -> GRUCase:
    """A detached copy of the one-step case with every pre-activation of u_t moved to side·60 (u_t = 1 for side +1,
    ≈ 0 for side −1) through b_u; nothing else changes."""
    cell = copy.deepcopy(case.cell)
    with torch.no_grad():
        for p in cell.parameters():
            p.requires_grad_(False)
        out = GRUCase(cell, case.x.detach().clone(), case.h0.detach().clone())
        _, z_u = preactivations(out)
        cell.b_u.add_(side * DEEP - z_u)
    return out


def _state(case: GRUCase) -> tuple[Tensor, Tensor, Tensor]:
    """(h_{t−1}, c_t, h_t) of the case's step, each (h,)."""
    g = case.cell.gates(case.x[0, :1], case.h0[None])
    return case.h0, g["c"][0], case.cell.step(case.x[0, :1], case.h0[None])[0]


def _parts(case: GRUCase, *, printed: bool) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    parts = {}
    for side, text in ((1, "u_t = 1"), (-1, "u_t = 0")):
        h_prev, c, h_t = _state(with_update_gate(case, side))
        if printed:  # forget gate open ⇒ h_{t−1} kept, input gate closed ⇒ c_t not taken (and the reverse)
            claimed, name = (h_prev, "forget gate open, input gate closed: h_t = h_(t−1)") if side > 0 else \
                (c, "forget gate closed, input gate open: h_t = c_t")
        else:
            claimed, name = (c, "the candidate passes, h_(t−1) is dropped: h_t = c_t") if side > 0 else \
                (h_prev, "h_(t−1) passes, the candidate is blocked: h_t = h_(t−1)")
        tol = GATE_TOL * (torch.linalg.vector_norm(h_prev) + torch.linalg.vector_norm(c) + 1)
        parts[f"{text}: {name}"] = (torch.linalg.vector_norm(claimed - h_t), tol, torch.linalg.vector_norm(h_t))
    return parts


def sample_gate_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> GRUCase:
    """A GRU step (eq. 1): the default initialisation scaled by a log-uniform factor in [0.3, 10], x_t standard
    normal (n = 1 or 3), h_{t−1} uniform in [−1, 1]^h. The claims saturate u_t themselves (:func:`with_update_gate`).

    Raises:
        ValueError: T ≠ 1.
    """
    if T != 1:
        raise ValueError(f"T must be 1 (one step), got {T}")
    f64 = torch.float64
    n = 1 if torch.rand((), generator=gen) < 0.5 else 3
    cell = GRU(n, h, generator=gen, dtype=f64)
    with torch.no_grad():
        scale = log_uniform(gen, 0.3, 10.0)
        for p in cell.parameters():
            p.mul_(scale)
    x = torch.randn(1, 1, n, generator=gen, dtype=f64)
    h_prev = 2 * torch.rand(h, generator=gen, dtype=f64) - 1
    return GRUCase(cell.to(device=device, dtype=dtype), x.to(device=device, dtype=dtype),
                   h_prev.to(device=device, dtype=dtype))


def _exact(printed: bool) -> ExactVerdict:
    import sympy

    u, h, c = sympy.symbols("u h c", real=True)
    h_t = (1 - u) * h + u * c  # eq. 1, one coordinate
    at_one, at_zero = sympy.simplify(h_t.subs(u, 1)), sympy.simplify(h_t.subs(u, 0))
    if printed:
        witness = {h: 0, c: sympy.Rational(1, 2)}
        return ExactVerdict("violated", f"eq. 1 gives h_t = {at_one} at u_t = 1 and h_t = {at_zero} at u_t = 0; "
                                        f"the sentence's h_t = h_(t−1) (u_t = 1) fails at h_(t−1) = 0, c_t = 1/2: "
                                        f"h_t = {h_t.subs(u, 1).subs(witness)} ≠ 0")
    ok = sympy.simplify(at_one - c) == 0 and sympy.simplify(at_zero - h) == 0
    return ExactVerdict("proved" if ok else "violated",
                        f"eq. 1: h_t = {at_one} at u_t = 1 and h_t = {at_zero} at u_t = 0, symbolically")


_GATE_CASES = CaseSpace(case_type=GRUCase, sample=sample_gate_case,
                        sizes={"quick": [(1, 1), (2, 1), (8, 1)], "full": [(1, 1), (2, 1), (8, 1), (64, 1)]})

A_STEP_STATE = Assumption("‖h_{t−1}‖_∞ ≤ 1 (a state of eq. 1)", lambda c: (
    float(c.h0.abs().max()) <= 1, f"max|h_(t−1)| = {float(c.h0.abs().max()):.3g}"))

sec2_1 = Claim(
    id="nc_gru.sec2_1",
    source="nc_gru.md, Sec. 2.1, second paragraph (gate semantics under eq. 1)",
    statement="'if the output of u_t is 1, then the forget gate is open, implying that the input gate is closed. "
              "Similarly, if u_t is 0, the forget gate is closed and the input gate is open'",
    assumptions=(A_GRU, A_ONE_STEP, A_STEP_STATE),
    measure="‖claimed h_t − h_t‖₂ with h_t from the cell of eq. 1 at u_t = 1 and u_t ≈ 0 (pre-activations ±60); "
            "claimed: h_(t−1) where the forget gate is open and the input gate closed, c_t in the reverse case",
    bound=f"{GATE_TOL:g}·(‖h_(t−1)‖₂ + ‖c_t‖₂ + 1) (float allowance); reference ‖h_t‖₂",
    evaluate=lambda c: _parts(c, printed=True),
    cases=_GATE_CASES,
    explanation="Eq. 1, h_t = (1 − u_t) ⊙ h_(t−1) + u_t ⊙ c_t, gives h_t = c_t at u_t = 1: the previous state is "
                "dropped and the candidate, which carries x_t, is taken whole, so the input gate is open, not "
                "closed; at u_t = 0, h_t = h_(t−1): the input is blocked. The sentence describes Cho et al.'s "
                "h_t = u_t ⊙ h_(t−1) + (1 − u_t) ⊙ c_t. Corollary 2's proof (eq. 61–64) uses eq. 1's convention "
                "(u_t ≈ 0 ⇒ α ≈ 1). See nc_gru.sec2_1.corrected.",
    notes="Reading: 'forget gate open' as in an LSTM (f_t = 1 keeps the memory) and 'input gate closed' as i_t = 0 "
          "(the candidate does not enter). Under the other reading of 'forget gate open' (forgetting takes place), "
          "'input gate closed' at u_t = 1 still contradicts h_t = c_t.",
    exact=lambda: _exact(True),
)

sec2_1_corrected = Claim(
    id="nc_gru.sec2_1.corrected",
    source="nc_gru.md, Sec. 2.1 with eq. 1, corrected by rnnaudit",
    statement="Under eq. 1, u_t = 1 drops h_(t−1) and takes the candidate (h_t = c_t: 'forget' and 'input' both act); "
              "u_t = 0 keeps h_(t−1) and blocks the candidate (h_t = h_(t−1))",
    assumptions=(A_GRU, A_ONE_STEP, A_STEP_STATE),
    measure="as nc_gru.sec2_1, with the claimed states swapped",
    bound=f"{GATE_TOL:g}·(‖h_(t−1)‖₂ + ‖c_t‖₂ + 1)",
    evaluate=lambda c: _parts(c, printed=False),
    cases=_GATE_CASES,
    explanation="Would mean the cell does not implement eq. 1.",
    exact=lambda: _exact(False),
)
