"""pascanu2013 (Pascanu, Mikolov & Bengio 2013, "On the difficulty of training recurrent neural networks",
arXiv 1211.5063), Sec. 2.1: the sufficient condition for vanishing gradients, and its extension to any cell.

For the vanilla RNN of the paper's eq. (11), x_t = W_rec σ(x_{t−1}) + W_in u_t + b, one step's Jacobian is
W_rec diag(σ'(x_{t−1})), so with γ = sup|σ'| and λ₁ the largest singular value of W_rec,

    ‖∂x_{k+1}/∂x_k‖₂ ≤ ‖W_rec‖₂ ‖diag(σ'(x_k))‖₂ ≤ λ₁ γ =: η,   ‖∂x_t/∂x_k‖₂ ≤ η^(t−k),

and λ₁ < 1/γ makes η < 1: the long-term components vanish exponentially. The argument uses only that the
step Jacobian is a diagonal matrix of norm ≤ γ times W (or W times one), so it carries over unchanged to
torch's nn.RNN (σ inside: J = diag(σ'(a_t)) W_hh, γ = 1 for tanh and relu), to IndRNN (W = diag(u)) and to
every layer of a stacked nn.RNN (layer l is such a recurrence driven by layer l − 1's states):
``pascanu2013.vanishing`` checks all of them.

Its last step, ‖∏ J_j‖₂ ≤ ∏ ‖J_j‖₂ ≤ η^(t−k), needs nothing of the architecture at all: for any cell (GRU,
LSTM on its (h, c) state, a user's step), η measured on the data as max_t ‖∂h_t/∂h_{t−1}‖₂ < 1 gives the same
exponential decay. ``pascanu2013.vanishing.general`` states that; it is what the audit can say about an
LSTM, a stacked GRU or a hand-written IndRNN whose weights it cannot read.

Read from: the arXiv-vanity rendering of 1211.5063 (abstract, Sec. 1, eq. (1)-(2) setting, via the search
tool's excerpts) and the paper's eq. (5) as quoted in a mathematics Q&A thread; the exact wording of Sec.
2.1's statement was not readable there: the statement is the issue's paraphrase, checked here.
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.architectures import GAMMA, VANILLA, ArchCase, arch_cases_from_model, product_norms, step_jacobians
from rnnaudit.bounds.core import CaseSpace, Claim, Supremum, worst_pair
from rnnaudit.bounds.pascanu2013.cases import (
    A_LAMBDA,
    linear_regime_case,
    per_layer,
    project_lambda,
    sample_contractive_vanilla,
    vanilla_free,
)

__all__ = ["vanishing", "SIZES"]

SIZES = {"quick": [(1, 3), (2, 5), (4, 8)], "full": [(1, 3), (2, 5), (4, 8), (8, 12), (16, 20)]}


def _measure(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    parts = []
    for layer in per_layer(case):
        J, _ = step_jacobians(layer)
        prods, _, taus = product_norms(J)
        lam = GAMMA[case.kind] * torch.linalg.matrix_norm(layer.recurrent_matrix(0), ord=2)
        parts.append((prods, lam ** taus))
    prods, bounds = torch.cat([p for p, _ in parts]), torch.cat([b for _, b in parts])
    if not prods.numel():
        zero = case.x.new_zeros(())
        return {"‖∂x_t/∂x_k‖₂ ≤ (γλ₁)^(t−k)": (zero, zero + 1)}
    return {"‖∂x_t/∂x_k‖₂ ≤ (γλ₁)^(t−k)": worst_pair(prods, bounds)}


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[ArchCase]:
    """Equality: W = 0.9·I at the zero state of a tanh RNN (J_t = W, ‖W^τ‖₂ = ‖W‖₂^τ)."""
    return [linear_regime_case(h, T, 0.9, device, dtype)]


def _from_model(view) -> list[ArchCase]:
    return arch_cases_from_model(view, VANILLA, what="Pascanu et al.'s vanishing condition (a diagonal-times-W step "
                                                     "Jacobian)")


vanishing = Claim(
    id="pascanu2013.vanishing",
    source="pascanu2013 (arXiv 1211.5063), Sec. 2.1 (sufficient condition for vanishing gradients, eq. (11) model); "
           "extended by rnnaudit to torch's nn.RNN (tanh, relu, every layer) and IndRNN",
    statement="If λ₁ < 1/γ (λ₁ the largest singular value of W_rec, γ = sup|σ'|), then ‖∂x_{k+1}/∂x_k‖ ≤ η < 1 and "
              "‖∂x_t/∂x_k‖ ≤ η^(t−k): the long-term components vanish",
    assumptions=(A_LAMBDA,),
    measure="‖∂x_t/∂x_k‖₂ by products of autograd step Jacobians, each layer's own recurrence; worst over "
            "0 ≤ k < t ≤ T",
    bound="(γλ₁)^(t−k)",
    evaluate=_measure,
    cases=CaseSpace(case_type=ArchCase, sample=sample_contractive_vanilla, sizes=SIZES, free=vanilla_free,
                    project=project_lambda, starts=_starts, from_model=_from_model),
    explanation="Would mean a step Jacobian of a vanilla RNN is not a diagonal of norm ≤ γ times W.",
    notes="Holds; attained (ratio 1) by a symmetric W in the linear regime of tanh. γ = 1 for tanh and relu, 1/4 for "
          "the logistic sigmoid (pascanu2013.gamma). The bound holds for any λ₁; the assumption is what makes it "
          "decay, and it fails on a trained RNN with ‖W_hh‖₂ ≥ 1, where the theorem says nothing.",
    supremum=Supremum(1.0, "‖∏ D_j W‖₂ ≤ ∏ ‖D_j‖₂‖W‖₂ ≤ (γλ₁)^τ; equality for symmetric W with every σ' = γ "
                           "(zero state of tanh): a structured start", at=(2, 5)),
)
