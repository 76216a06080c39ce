"""minGRU/minLSTM (Feng et al. 2024, arXiv 2410.01201): boundedness of the state, rnnaudit's own
derivation (the paper states no theorem on it that was read; labelled so in bounds/min_rnn/__init__.py).

h_t = (1 − z_t) ⊙ h_{t−1} + z_t ⊙ h̃_t with z_t ∈ (0, 1) (minGRU), h_t = f'_t ⊙ h_{t−1} + i'_t ⊙ h̃_t with
f'_t + i'_t = 1, f'_t, i'_t ∈ (0, 1) (minLSTM): each entry of h_t is a convex combination of h_{t−1} and h̃_t, so by
induction m_t ≤ h_t ≤ M_t entrywise, with m_t, M_t the running min and max of h_0 and h̃_1..h̃_t. With the g
candidate h̃ > 0, so the states stay positive from a positive h_0 (the log-space mode needs it).

Checked as |h_t − c_t| ≤ r_t, c_t and r_t the centre and half-width of [m_t, M_t], plus the rounding of t convex
combinations (each within 2 roundings of its exact value, relative to max(|m_t|, |M_t|)): 4·2⁻⁵³·t.
"""

from __future__ import annotations

import torch

from rnnaudit.bounds.cell_case import CellCase, from_model_of
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, Supremum, worst_pair
from rnnaudit.bounds.min_rnn.cases import sample_min_rnn
from rnnaudit.cells import MinGRU, MinLSTM

__all__ = ["bounded", "candidates", "A_CONVEX"]


def candidates(case: CellCase) -> torch.Tensor:
    """h̃_1..h̃_T, (T, h)."""
    return case.cell.gates(case.x[0])[-1]


def _measure(case: CellCase):
    hs = case.states()
    cand = candidates(case)
    first = case.h0.expand_as(cand[:1])
    M = torch.cummax(torch.cat([first, cand]), 0).values[1:]
    m = torch.cummin(torch.cat([first, cand]), 0).values[1:]
    centre, radius = (M + m) / 2, (M - m) / 2
    t = torch.arange(1, hs.shape[0] + 1, dtype=hs.dtype, device=hs.device)[:, None]
    slack = 4 * 2.0 ** -53 * t * torch.maximum(M.abs(), m.abs())
    return {"min(h_0, h̃_1..t) ≤ h_t ≤ max(h_0, h̃_1..t) entrywise": worst_pair((hs - centre).abs(), radius + slack)}


def _convex(case: CellCase) -> tuple[bool, str]:
    """The mixing weights lie in [0, 1] and sum to 1 at every step (the sigmoid gates; minLSTM's normalisation)."""
    c = case.cell
    if not isinstance(c, (MinGRU, MinLSTM)):
        return False, type(c).__name__
    with torch.no_grad():
        gates = c.gates(case.x[0])
        keep, take = (1 - gates[0], gates[0]) if isinstance(c, MinGRU) else (gates[0], gates[1])
    lo = float(torch.minimum(keep, take).min())
    off = float((keep + take - 1).abs().max())
    return lo >= 0 and off <= 4 * 2.0 ** -53, f"min weight {lo:.3g}, max|weights' sum − 1| = {off:.3g}"


A_CONVEX = Assumption("the weights of h_(t−1) and h̃_t lie in [0, 1] and sum to 1 (σ gates; f' + i' = 1)", _convex)


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[CellCase]:
    """Saturated gates (bias +30): h_t = h̃_t to rounding, on the edge of the interval."""
    case = sample_min_rnn(torch.Generator().manual_seed(0), h, T, device, dtype)
    with torch.no_grad():
        cell = case.cell
        cell.b.fill_(0.0)
        if isinstance(cell, MinGRU):
            cell.b[h:].fill_(30.0)
        else:
            cell.b[h:2 * h].fill_(-30.0)
            cell.b[2 * h:].fill_(30.0)
    return [case]


#: The claim on a user's model: one case per input sequence, from a float64 copy of its cell.
_FROM_MODEL = from_model_of(MinGRU, MinLSTM, what="minGRU/minLSTM boundedness (arXiv 2410.01201)")


bounded = Claim(
    id="min_rnn.bounded",
    source="Feng et al. 2024 (arXiv 2410.01201), the update equations; the bound "
           "is rnnaudit's derivation (no theorem of the paper read)",
    statement="h_t is a convex combination of h_(t−1) and h̃_t, so min(h_0, h̃_1..h̃_t) ≤ h_t ≤ max(h_0, h̃_1..h̃_t) "
              "entrywise",
    assumptions=(A_CONVEX,),
    measure="|h_t − c_t| entrywise, c_t the centre of the running [min, max] of h_0, h̃_1..h̃_t",
    bound="the half-width of that interval plus 4·2⁻⁵³·t·max|ends|",
    evaluate=_measure,
    cases=CaseSpace(case_type=CellCase, from_model=_FROM_MODEL, sample=sample_min_rnn, starts=_starts,
                    free=lambda c: [c.cell.W, c.cell.b, c.x, c.h0],
                    sizes={"quick": [(2, 5), (6, 20)], "full": [(2, 5), (6, 20), (32, 100)]}),
    explanation="A mixing weight outside [0, 1] (an extrapolating gate) would let h_t leave the interval.",
    notes="Holds (rnnaudit's derivation); attained when a gate saturates at 1 and h_t = h̃_t = the running max.",
    supremum=Supremum(1.0, "h_t at an end of the interval: a saturated gate copies h̃_t, the running max (structured "
                           "start)", at=(2, 5)),
)
