"""enrnn.decay (Sec. 3 after eq. 1): the repeated multiplication by W^(S) decays with its eigenvalues, the ReLU
network does not (alternating gates make the input's effect grow although ρ(W^(S)) < 1); the corrected form, the
rate ‖W^(S)‖₂ (Theorem 3.1 without its hypothesis), holds for ReLU and modReLU."""

import pytest
import torch

from rnnaudit.bounds import check_claim, evaluate_cases, measure_case
from rnnaudit.bounds.enrnn import decay, decay_corrected
from rnnaudit.bounds.enrnn.decay import alternating_case, short_products, symmetric_case
from tests.bounds.enrnn.cases import assert_holds_inside_its_assumptions, case_of, hand_cell, small
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum, assert_reproducible_violation

LINEAR = "linear: ‖(W^(S))^τ‖₂ ≤ κ₂(V) ρ(W^(S))^τ"
UNIFORM = "network, uniform: ‖∂h^(S)_{t+τ}/∂h^(S)_t‖₂ ≤ κ₂(V) ρ(W^(S))^τ"
ASYMPTOTIC = "network, asymptotic: ρ(Π_k G_k W^(S))^{1/(T−1)} ≤ ρ(W^(S)) (the pattern repeated)"


def test_decay_is_violated_inside_its_assumptions_and_the_counterexample_reloads(tmp_path):
    case = assert_reproducible_violation(small(decay), TINY, tmp_path)
    _, parts = measure_case(decay, case)
    assert parts[LINEAR] <= 1 + 1e-9 and max(parts[UNIFORM], parts[ASYMPTOTIC]) > 1


def test_alternating_gates_make_the_input_effect_grow():
    """ρ(W^(S)) = 0.632, yet ‖∂h^(S)_8/∂h^(S)_1‖₂ ≈ 2.1⁷ ≫ 1: the input's effect grows instead of decaying."""
    case = alternating_case(2, 8)
    hh, _, taus, _, W = short_products(case)
    assert float(torch.linalg.eigvals(W[-2:, -2:].detach()).abs().max()) < 0.64
    assert float(hh[taus == 7].detach().max()) > 100
    ratio, parts = measure_case(decay, case)
    assert parts[UNIFORM] > 100 and parts[ASYMPTOTIC] > 3 and parts[LINEAR] <= 1 + 1e-9
    assert evaluate_cases(decay, [case]).records[0].failed_assumptions == []


def test_decay_holds_when_every_unit_stays_on():
    """b^(S) = 3 and small inputs keep every ReLU on: the network is the linear recurrence and the bound holds."""
    result = evaluate_cases(decay, [symmetric_case(3, 8)])
    assert result.verdict == "holds" and result.records[0].failed_assumptions == []


@pytest.mark.slow
def test_decay_linear_part_reaches_its_supremum():
    assert_reaches_supremum(decay)


@pytest.mark.slow
def test_decay_corrected_holds_reaches_its_supremum_and_has_power(tmp_path):
    assert_holds_inside_its_assumptions(decay_corrected, tmp_path)
    assert_reaches_supremum(decay_corrected)
    assert_has_power(small(decay_corrected), 2, TINY)


def test_decay_corrected_holds_on_the_alternating_case():
    """Its ‖W^(S)‖₂ = 4.10 ≥ the growth: the spectral norm, not the eigenvalues, bounds the gated products."""
    assert evaluate_cases(decay_corrected, [alternating_case(3, 10)]).verdict == "holds"


def test_decay_corrected_violated_when_h_long_feeds_h_short():
    cell = hand_cell(2, 2, 0.5 * torch.eye(2), W_C=5 * torch.eye(2), b=1.0)
    case = case_of(cell, T=4, W_lower=5 * torch.eye(2))
    case.x.zero_()
    result = evaluate_cases(decay_corrected, [case])
    assert result.verdict == "false"
    assert any(f.startswith("W block upper triangular") for f in result.records[0].failed_assumptions)


def test_decay_search_finds_violations_in_random_cases_too():
    result = check_claim(small(decay), TINY, seed=0)
    assert max(r.ratio for r in result.records if r.origin == "random") > 1
