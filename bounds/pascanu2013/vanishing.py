"""pascanu2013 (Pascanu, Mikolov & Bengio 2013, "On the difficulty of training recurrent neural networks",
arXiv 1211.5063), Sec. 2.1: the sufficient condition for vanishing gradients, and its extension to any cell.

For the vanilla RNN of Sec. 1.1 (eq. (11) in the arXiv numbering, as read in the arXiv-vanity rendering; the
ICML text's own number for it could not be read here), x_t = W_rec σ(x_{t−1}) + W_in u_t + b, one step's Jacobian is
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

Which version: the published ICML 2013 version defines λ₁ as the largest singular value of W_rec, and that is
the statement checked here. The arXiv preprint defined λ₁ as the absolute value of the largest eigenvalue; that
wording is recorded as a reading and is false (W = [[0.5, 3], [0, 0.5]]: ρ = 0.5, ‖W‖₂ = 3.08, gradients grow
for four steps; see the claim's notes).

Read from: the arXiv-vanity rendering of 1211.5063 (abstract, Sec. 1, eq. (1)-(2) setting, via the search
tool's excerpts); the sentence of Sec. 2.1 in each version as quoted in two Q&A threads (stats.stackexchange
293862, singular value; ai.stackexchange 20378, arXiv's eigenvalue and the answer's note that the final version
changed it). Neither version's own text was readable here.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from rnnaudit.bounds.architectures import (
    GAMMA,
    VANILLA,
    ArchCase,
    arch_cases_from_model,
    product_norms,
    step_jacobians,
    step_map,
)
from rnnaudit.bounds.core import CaseSpace, Claim, Reading, Supremum, worst_pair
from rnnaudit.bounds.pascanu2013.cases import (
    A_LAMBDA,
    A_RADIUS,
    eigenvalue_counterexamples,
    linear_regime_case,
    per_layer,
    project_lambda,
    project_radius,
    sample_contractive_vanilla,
    sample_radius_vanilla,
    vanilla_free,
)
from rnnaudit.bounds.scaled_products import log2_parts_of
from rnnaudit.cells.linalg import eigvals

__all__ = ["vanishing", "SIZES", "RADIUS_CASES", "SOURCE_NOTE"]

SIZES = {"quick": [(1, 3), (2, 5), (4, 8)], "full": [(1, 3), (2, 5), (4, 8), (8, 12), (16, 20)]}


def _singular(W: Tensor) -> Tensor:
    return torch.linalg.matrix_norm(W, ord=2)


def _radius(W: Tensor) -> Tensor:
    # detached: the eigenvalues of a defective W (the triangular counterexample) have no derivative; the ascent
    # moves the measured side only
    return eigvals(W.detach()).abs().max()


#: up to this T (every case the search builds) every pair 0 ≤ k < t ≤ T is measured; a model's longer sequence takes
#: the shared step map's schedule (MAX_STARTS starts, lags two per octave), compared as log₂ ratios: all T²/2
#: products would cost T²/2 matrix products, and (γλ₁)^(t−k) underflows as a number over thousands of steps
ALL_PAIRS_T = 64


def _in_normal_range(layer: ArchCase, lam: float) -> bool:
    """Whether the every-pair branch may compare numbers: λ^τ for τ = 1..T, and the steps, far from float64's
    underflow and overflow (2^±900). Else the bound (c·R(θ) with c = 1e−5 over T = 64 steps: λ^τ ≈ 1e−320) and the
    products are rounded on the subnormal grid, and a true theorem read 1.0005; the log₂ branch holds them exactly."""
    T = layer.x.shape[0]
    if not 0 < lam < math.inf or not -900 < T * math.log2(lam) < 900 or not -900 < math.log2(lam) < 900:
        return False
    return not step_map(layer).out_of_range()


def _products_against(case: ArchCase, lam_of, part: str) -> dict[str, tuple[Tensor, Tensor]]:
    pairs = []
    for layer in per_layer(case):
        lam = GAMMA[case.kind] * lam_of(layer.recurrent_matrix(0))
        if layer.x.shape[0] <= ALL_PAIRS_T and _in_normal_range(layer, float(lam.detach())):
            J, _ = step_jacobians(layer)
            prods, _, taus = product_norms(J)
            if prods.numel():
                pairs.append(worst_pair(prods, lam ** taus))
        else:
            norms, taus = step_map(layer).products()
            # τ·log₂ λ without rounding at its own size (scaled_products.log2_parts), λ at any magnitude
            whole, frac = log2_parts_of(lam_of, layer.recurrent_matrix(0))
            frac = frac + math.log2(GAMMA[case.kind])
            pairs.append(norms.worst_log2(taus * frac, whole=taus * whole))
    if not pairs:
        zero = case.x.new_zeros(())
        return {part: (zero, zero + 1)}
    return {part: worst_pair(torch.stack([m for m, _ in pairs]), torch.stack([b for _, b in pairs]))}


def _measure(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    return _products_against(case, _singular, "‖∂x_t/∂x_k‖₂ ≤ (γλ₁)^(t−k)")


def _measure_radius(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    return _products_against(case, _radius, "‖∂x_t/∂x_k‖₂ ≤ (γρ)^(t−k)")


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[ArchCase]:
    """Equality: W = 0.9·I at the zero state of a tanh RNN (J_t = W, ‖W^τ‖₂ = ‖W‖₂^τ)."""
    return [linear_regime_case(h, T, 0.9, device, dtype)]


def _radius_starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[ArchCase]:
    """The eigenvalue reading's counterexamples (pascanu2013.cases.eigenvalue_counterexamples) and its equality
    case W = 0.9·I (a normal W, where ρ = ‖W‖₂)."""
    return eigenvalue_counterexamples(h, T, device, dtype) + _starts(h, T, device, dtype)


#: the eigenvalue reading's cases: vanilla RNNs with γρ(W) < 1 (‖W‖₂ unrestricted), the counterexamples as starts.
RADIUS_CASES = CaseSpace(case_type=ArchCase, sample=sample_radius_vanilla, sizes=SIZES, free=vanilla_free,
                         project=project_radius, starts=_radius_starts)

#: which version of the paper says what, and what was read.
SOURCE_NOTE = ("Versions: the published ICML 2013 version (PMLR 28) defines λ₁ as the largest singular value of "
               "W_rec; the arXiv preprint 1211.5063 defined it as the absolute value of the largest eigenvalue. "
               "Neither version's own text was readable here: both wordings were read as quoted in two Q&A threads "
               "(stats.stackexchange.com question 293862 quotes the singular-value sentence and eq. (6); "
               "ai.stackexchange.com question 20378 quotes the eigenvalue sentence from arXiv, and its answer "
               "says the final version replaced it by the singular value); which arXiv revision carries which "
               "wording was not readable.")


def _from_model(view) -> list[ArchCase]:
    return arch_cases_from_model(view, VANILLA, what="Pascanu et al.'s vanishing condition (a diagonal-times-W step "
                                                     "Jacobian)")


vanishing = Claim(
    id="pascanu2013.vanishing",
    source="pascanu2013, ICML 2013 version (λ₁ = largest singular value; the arXiv 1211.5063 preprint's "
           "'largest eigenvalue' is the reading below), Sec. 2.1 (sufficient condition for vanishing gradients, "
           "the vanilla model x_t = W_rec σ(x_(t−1)) + W_in u_t + b, eq. (11) in the arXiv numbering; the ICML text's "
           "own number for it was not readable here); extended by rnnaudit to torch's nn.RNN (tanh, relu, every layer) and IndRNN",
    statement="(ICML version) If λ₁ < 1/γ (λ₁ the largest singular value of W_rec, γ = sup|σ'|), then "
              "‖∂x_{k+1}/∂x_k‖ ≤ η < 1 and ‖∂x_t/∂x_k‖ ≤ η^(t−k): the long-term components vanish",
    assumptions=(A_LAMBDA,),
    measure="‖∂x_t/∂x_k‖₂ by products of autograd step Jacobians, each layer's own recurrence; worst over "
            "0 ≤ k < t ≤ T (a model's sequence longer than 64 steps: 4 start times k and about two lags per octave, "
            "compared as log₂ ratios)",
    bound="(γλ₁)^(t−k)",
    evaluate=_measure,
    cases=CaseSpace(case_type=ArchCase, sample=sample_contractive_vanilla, sizes=SIZES, free=vanilla_free,
                    project=project_lambda, starts=_starts, from_model=_from_model),
    explanation="Would mean a step Jacobian of a vanilla RNN is not a diagonal of norm ≤ γ times W.",
    notes="Holds; attained (ratio 1) by a symmetric W in the linear regime of tanh. γ = 1 for tanh and relu, 1/4 for "
          "the logistic sigmoid (pascanu2013.gamma). The bound holds for any λ₁; the assumption is what makes it "
          "decay, and it fails on a trained RNN with ‖W_hh‖₂ ≥ 1, where the theorem says nothing. The arXiv "
          "preprint's λ₁ = |largest eigenvalue| (reading below) is false: W = [[0.5, 3], [0, 0.5]] has ρ = 0.5 < 1 "
          "but ‖W‖₂ = 3.08, so no step contracts (eq. (6)'s step fails) and in tanh's linear regime "
          "‖∂x_t/∂x_k‖₂ = ‖W^(t−k)‖₂ = 3.08, 3.02, 2.26, 1.50 for t − k = 1…4 against (γρ)^(t−k) = 0.5, 0.25, "
          "0.125, 0.0625; the ratio ≈ 6(t − k) is unbounded, though these gradients still vanish as t − k → ∞ "
          "(W is triangular with ρ = 0.5). With tanh units saturating in turn even the asymptotic statement "
          "fails: W = 0.9·[[1, 2], [−1, −1]] (ρ = 0.9) gives ‖∂x_t/∂x_0‖₂ ≈ 1.27^t (17,320 at t = 40). "
          + SOURCE_NOTE,
    readings=(Reading(
        "λ₁ read as |largest eigenvalue| (the arXiv preprint's wording)",
        "If ρ(W_rec) < 1/γ (ρ the absolute value of the largest eigenvalue), then ‖∂x_t/∂x_k‖₂ ≤ (γρ)^(t−k): the "
        "long-term components vanish",
        "the arXiv preprint of Sec. 2.1 defines λ₁ as 'the absolute value of the largest eigenvalue' of W_rec "
        "(as quoted in ai.stackexchange.com question 20378); its proof bounds ‖W_recᵀ‖ by λ₁, which holds only "
        "for the largest singular value",
        _measure_radius, cases=RADIUS_CASES, assumptions=(A_RADIUS,)),),
    supremum=Supremum(1.0, "‖∏ D_j W‖₂ ≤ ∏ ‖D_j‖₂‖W‖₂ ≤ (γλ₁)^τ; equality for symmetric W with every σ' = γ "
                           "(zero state of tanh): a structured start", at=(2, 5)),
)
