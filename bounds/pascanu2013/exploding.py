"""pascanu2013 (arXiv 1211.5063), Sec. 2.1: the necessary condition for exploding gradients, λ₁ > 1/γ, and
its extension to any cell.

The condition is the contrapositive of the vanishing argument (pascanu2013.vanishing): λ₁ ≤ 1/γ gives
‖∂x_t/∂x_k‖₂ ≤ (γλ₁)^(t−k) ≤ 1, so a gradient that grows (some ‖∂x_t/∂x_k‖₂ > 1) needs λ₁ > 1/γ. The same
holds layer by layer for torch's nn.RNN and IndRNN (J = diag(σ') W). For any cell the argument says: a growing
‖∂h_t/∂h_k‖₂ needs some step with ‖∂h_j/∂h_{j−1}‖₂ > 1 on the same sequence (pascanu2013.exploding.general).

Strictness: at λ₁ = 1/γ the bound is 1, so no gradient exceeds 1 and the strict ">" is right (if exploding
means exceeding 1; the paper's "explode" means growing without bound, for which the condition is also only
necessary). Read from: see pascanu2013.vanishing (the statement's wording was not readable; the issue's
paraphrase is checked).
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.architectures import GAMMA, VANILLA, ArchCase, arch_cases_from_model, sample_arch, step_map
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, Reading
from rnnaudit.bounds.pascanu2013.cases import draw, eigenvalue_counterexamples, linear_regime_case, per_layer, pick
from rnnaudit.bounds.pascanu2013.vanishing import SIZES, SOURCE_NOTE
from rnnaudit.cells.linalg import eigvals

__all__ = ["exploding"]


def _layer_growth(layer: ArchCase) -> Tensor:
    # the layer's shared step map: its products are rescaled by powers of two, so a growth past 1e308 reads as inf
    # (> 1), never as the NaN of inf·0 that an unscaled product held
    norms, _ = step_map(layer).products()
    return norms.max()[0] if len(norms) else layer.x.new_zeros(())


def _some_layer_grows(case: ArchCase) -> tuple[bool, str]:
    if case.kind not in VANILLA:
        return False, f"not a vanilla RNN ({case.kind})"
    g = [float(_layer_growth(layer).detach()) for layer in per_layer(case)]
    return max(g) > 1, "max_(k<t) ‖∂h_t/∂h_k‖₂ per layer = " + ", ".join(f"{v:.6g}" for v in g)


A_LAYER_GROWS = Assumption("the gradient grows in some layer: max_(k<t) ‖∂x_t/∂x_k‖₂ > 1", _some_layer_grows)


def _measure(case: ArchCase, radius: bool = False) -> dict[str, tuple[Tensor, Tensor]]:
    """Per growing layer, 1/γ against λ₁ (ratio > 1 iff λ₁ < 1/γ, i.e. the necessary condition fails); λ₁ the
    largest singular value, or with ``radius`` the spectral radius (detached: a defective W has no eigenvalue
    derivative)."""
    worst = None
    for layer in per_layer(case):
        if float(_layer_growth(layer).detach()) <= 1:
            continue
        W = layer.recurrent_matrix(0)
        lam = eigvals(W.detach()).abs().max() if radius else torch.linalg.matrix_norm(W, ord=2)
        pair = (lam.new_tensor(1 / GAMMA[case.kind]), lam)
        if worst is None or float(pair[0] / pair[1]) > float(worst[0] / worst[1]):
            worst = pair
    if worst is None:
        zero = case.x.new_zeros(())
        worst = (zero, zero + 1)
    return {("1/γ < ρ" if radius else "1/γ < λ₁") + " where the gradient grows": worst}


def _measure_radius(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    return _measure(case, radius=True)


def _sample(gen, h, T, device="cpu", dtype=torch.float64) -> ArchCase:
    """A vanilla case in the linear regime (small inputs and biases, zero state) with γλ₁ in [1.1, 3], which
    grows; a structured growing case when a draw does not."""
    kind = pick(gen, VANILLA)
    case = sample_arch(gen, kind, h, T, norm=(1.1 + 1.9 * draw(gen)) / GAMMA[kind], device=device, dtype=dtype)
    with torch.no_grad():
        case.x.mul_(0.01)
        case.h0.zero_()
        for w in case.weights:
            w[2].mul_(0.01)
            w[3].mul_(0.01)
    return case if _some_layer_grows(case)[0] else linear_regime_case(h, T, 2.0, device, dtype)


def _from_model(view) -> list[ArchCase]:
    return arch_cases_from_model(view, VANILLA, what="Pascanu et al.'s exploding condition")


def _radius_starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[ArchCase]:
    """The eigenvalue reading's counterexamples: both grow (‖∂h_1/∂h_0‖₂ = 3.08 and ≈ 1.27^t) with ρ(W) < 1/γ."""
    return eigenvalue_counterexamples(h, T, device, dtype)


_RADIUS_CASES = CaseSpace(case_type=ArchCase, sample=_sample, sizes=SIZES, starts=_radius_starts)


exploding = Claim(
    id="pascanu2013.exploding",
    source="pascanu2013, ICML 2013 version (λ₁ = largest singular value; the arXiv 1211.5063 preprint's "
           "'largest eigenvalue' is the reading below), Sec. 2.1 (necessary condition for exploding gradients); "
           "extended by rnnaudit to torch's nn.RNN (every layer) and IndRNN",
    statement="(ICML version) It is necessary for the largest singular value λ₁ of W_rec to exceed 1/γ (λ₁ > 1/γ) "
              "for gradients to explode",
    assumptions=(A_LAYER_GROWS,),
    measure="1/γ, in each layer whose ‖∂x_t/∂x_k‖₂ exceeds 1 somewhere on the sequence",
    bound="λ₁ = ‖W‖₂ of that layer (ratio > 1 would be a growing gradient with λ₁ < 1/γ)",
    evaluate=_measure,
    cases=CaseSpace(case_type=ArchCase, sample=_sample, sizes=SIZES, from_model=_from_model),
    explanation="Would contradict pascanu2013.vanishing (its contrapositive).",
    notes="Holds, by the contrapositive argument above; the search is no evidence here: its cases are drawn with "
          "γλ₁ ≥ 1.1 (so the ratio is at most 1/1.1) and a case with γλ₁ ≤ 1 never satisfies the assumption. An "
          "independent referee's ascent over W, x₀ and the inputs at γλ₁ = 1 exactly (tanh and sigmoid, h = 2 "
          "and 4) reached max ‖∂x_t/∂x_k‖₂ = 1 and never more. "
          "On a model the assumption is whether some gradient grows on the user's data; it fails on a "
          "trained RNN whose gradients only decay, where the condition says nothing. With λ₁ read as the "
          "largest eigenvalue (the arXiv preprint) it is false: W = [[0.5, 3], [0, 0.5]] (ρ = 0.5) has "
          "‖∂x_1/∂x_0‖₂ = 3.08 in tanh's linear regime, and W = 0.9·[[1, 2], [−1, −1]] (ρ = 0.9) with tanh units "
          "saturating in turn grows like 1.27^t. " + SOURCE_NOTE,
    readings=(Reading(
        "λ₁ read as |largest eigenvalue| (the arXiv preprint's wording)",
        "It is necessary for ρ(W_rec) (absolute value of the largest eigenvalue) to exceed 1/γ for gradients to "
        "explode",
        "the arXiv preprint of Sec. 2.1 defines λ₁ as 'the absolute value of the largest eigenvalue' of W_rec "
        "(as quoted in ai.stackexchange.com question 20378)",
        _measure_radius, cases=_RADIUS_CASES),),
)
