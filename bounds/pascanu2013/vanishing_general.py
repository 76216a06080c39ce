"""pascanu2013 (arXiv 1211.5063), Sec. 2.1: the vanishing argument's last step for any cell.

‖∏ J_j‖₂ ≤ ∏ ‖J_j‖₂ ≤ η^(t−k) needs nothing of the architecture: for any cell (GRU, LSTM on its (h, c) state, a
user's step), η measured on the data as max_t ‖∂h_t/∂h_(t−1)‖₂ < 1 gives the exponential decay of
pascanu2013.vanishing. It is what the audit can say about an LSTM, a stacked GRU or a hand-written IndRNN whose
weights it cannot read. Read from: see pascanu2013.vanishing.
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.architectures import ArchCase, arch_cases_from_model
from rnnaudit.bounds.core import CaseSpace, Claim, Supremum
from rnnaudit.bounds.architectures import step_map
from rnnaudit.bounds.pascanu2013.cases import A_ETA, linear_regime_case, sample_any
from rnnaudit.bounds.pascanu2013.vanishing import SIZES

__all__ = ["vanishing_general"]


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[ArchCase]:
    """Equality: J_t = 0.9·I (a tanh RNN with W = 0.9·I at its zero state)."""
    return [linear_regime_case(h, T, 0.9, device, dtype)]


def _measure_general(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    shared = step_map(case)
    prods, taus = shared.products()
    if not len(prods):
        zero = case.x.new_zeros(())
        return {"‖∂h_t/∂h_k‖₂ ≤ η^(t−k)": (zero, zero + 1)}
    # compared as log₂ ratios: over thousands of steps η^(t−k) and the product underflow as numbers
    whole, frac = shared.eta_parts()  # τ·log₂ η as τ·k (exact) + τ·log₂ m: no rounding at the size of τ·|log₂ η|
    return {"‖∂h_t/∂h_k‖₂ ≤ η^(t−k)": prods.worst_log2(taus * frac, whole=taus * whole)}


def _sample_general(gen, h, T, device="cpu", dtype=torch.float64):
    return sample_any(gen, h, T, device, dtype, contractive=True)


def _from_model_general(view) -> list[ArchCase]:
    return arch_cases_from_model(view, what="the data-dependent vanishing condition")


vanishing_general = Claim(
    id="pascanu2013.vanishing.general",
    source="pascanu2013 (arXiv 1211.5063), Sec. 2.1, the product step of the vanishing argument, carried over by "
           "rnnaudit to any recurrent cell with η measured on the data",
    statement="For any cell, if η = max_t ‖∂h_t/∂h_{t−1}‖₂ < 1 along a sequence, then ‖∂h_t/∂h_k‖₂ ≤ η^(t−k)",
    assumptions=(A_ETA,),
    measure="‖∂h_t/∂h_k‖₂ of the packed state (all layers; h and c of an LSTM) by products of autograd step Jacobians; "
            "on a long sequence 4 start times k and about two lags per octave, every pair when T ≤ 12",
    bound="η^(t−k), η the largest step-Jacobian norm along the same sequence",
    evaluate=_measure_general,
    cases=CaseSpace(case_type=ArchCase, sample=_sample_general, sizes=SIZES, starts=_starts,
                    from_model=_from_model_general),
    explanation="Would mean the spectral norm is not submultiplicative.",
    notes="Holds (submultiplicativity); attained by J_t = 0.9·I. The content for a model is the assumption: whether "
          "every step contracts on the user's data (Miller & Hardt's data-dependent stability); it fails on a "
          "trained model with a step that expands some direction, e.g. an LSTM whose forget gates saturate at 1 or "
          "an IndRNN with |u_i| > 1 on an active unit.",
    supremum=Supremum(1.0, "‖∏ J_j‖₂ ≤ ∏ ‖J_j‖₂ ≤ η^τ; equality for J_t = 0.9·I (structured start)", at=(2, 5)),
)

