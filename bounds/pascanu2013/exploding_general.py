"""pascanu2013 (arXiv 1211.5063), Sec. 2.1: the necessary condition for exploding gradients, for any cell.

The contrapositive of pascanu2013.vanishing.general: if every step contracts, no ‖∂h_t/∂h_k‖₂ exceeds 1, so a
gradient that grows along a sequence needs some step with ‖∂h_j/∂h_(j−1)‖₂ > 1 on that sequence. Read from: see
pascanu2013.vanishing.
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.architectures import ArchCase, arch_cases_from_model
from rnnaudit.bounds.core import CaseSpace, Claim
from rnnaudit.bounds.architectures import step_map
from rnnaudit.bounds.pascanu2013.cases import A_GROWS, sample_any
from rnnaudit.bounds.pascanu2013.vanishing import SIZES

__all__ = ["exploding_general"]


def _measure_general(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    """1 against η when some ‖∂h_t/∂h_k‖₂ > 1, else 0 against η (the statement says nothing then)."""
    shared = step_map(case)
    e = shared.eta()
    prods, _ = shared.products()
    grows = bool(len(prods)) and float(prods.max()[0].detach()) > 1
    return {"1 < η = max_t ‖∂h_t/∂h_(t−1)‖₂ where the gradient grows": (e.new_tensor(float(grows)), e)}


def _sample_general(gen, h, T, device="cpu", dtype=torch.float64):
    return sample_any(gen, h, T, device, dtype, contractive=False)


exploding_general = Claim(
    id="pascanu2013.exploding.general",
    source="pascanu2013 (arXiv 1211.5063), Sec. 2.1, the necessary condition's argument carried over by rnnaudit to "
           "any recurrent cell",
    statement="For any cell, a gradient that grows along a sequence (some ‖∂h_t/∂h_k‖₂ > 1) needs a step that "
              "expands: η = max_t ‖∂h_t/∂h_(t−1)‖₂ > 1",
    assumptions=(A_GROWS,),
    measure="1",
    bound="η along the same sequence (packed state; ratio > 1 would be growth with every step contracting)",
    evaluate=_measure_general,
    cases=CaseSpace(case_type=ArchCase, sample=_sample_general, sizes=SIZES,
                    from_model=lambda view: arch_cases_from_model(view, what="the exploding condition")),
    explanation="Would mean the spectral norm is not submultiplicative.",
    notes="Holds. On a model the assumption (a growing gradient on the data) fails when every Jacobian product "
          "decays, e.g. a trained contractive GRU; then the condition says nothing.",
)
