"""enrnn.proposition3.2 and its corrected form: the printed formula (ε > 0) is violated inside its
assumptions with a reloadable counterexample, the corrected one holds, and both fail before the
normalisation starts."""

import dataclasses

import pytest
import torch

from rnnaudit.bounds import check_claim, evaluate_cases, measure_case
from rnnaudit.bounds.enrnn import proposition3_2, proposition3_2_corrected
from rnnaudit.bounds.enrnn.proposition3_2 import _measure, sample_prop32_case
from tests.bounds.enrnn.cases import assert_holds_inside_its_assumptions, case_of, hand_cell, small
from tests.bounds.helpers import TINY, assert_reproducible_violation


def test_proposition3_2_corrected_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside_its_assumptions(proposition3_2_corrected, tmp_path)


def test_printed_proposition3_2_is_violated_inside_its_assumptions(tmp_path):
    """Prop. 3.2 with its printed inner 1/ρ̃ (ε > 0) fails inside its assumptions; the smallest
    counterexample reloads and reproduces its ratio."""
    assert_reproducible_violation(small(proposition3_2), TINY, tmp_path, seed=0, rel=1e-9)


@pytest.mark.parametrize("claim", [proposition3_2, proposition3_2_corrected], ids=lambda c: c.id)
def test_prop32_violated_before_normalisation_starts(claim):
    """ρ(T) = 0.8 < 1 and not latched: Sec. 4 trains W^(S) = T itself, so ∂L/∂T = ∂L/∂W and the
    normalisation formula does not apply."""
    cell = hand_cell(1, 2, [[0.8, 0.3], [0.0, -0.4]], activation="tanh", eps=0.1, W_C=[[0.7, -0.2]])
    result = evaluate_cases(claim, [case_of(cell)])
    assert result.verdict == "false"
    assert any(f.startswith("W^(S) = T/(ρ(T) + ε)") for f in result.records[0].failed_assumptions)


def test_prop32_printed_is_exact_at_eps_zero_outside_its_hypothesis():
    """Sec. 5 uses ε = 0, which the Proposition's 'ε > 0' excludes; there the printed formula equals the
    corrected one and matches autograd and central differences."""
    case = sample_prop32_case(torch.Generator().manual_seed(4), 6, 6)
    case.cell.eps = 0.0
    result = evaluate_cases(proposition3_2, [case])
    assert result.verdict == "holds"
    assert result.records[0].failed_assumptions and result.records[0].failed_assumptions[0].startswith("ε > 0")


def test_prop32_printed_error_grows_with_eps():
    """The printed formula's error is first order in ε/ρ: ten times the ε, about ten times the error."""
    case = sample_prop32_case(torch.Generator().manual_seed(2), 5, 5)
    errs = []
    for eps in (1e-4, 1e-3):
        case.cell.eps = eps
        errs.append(measure_case(proposition3_2, case)[1]["Prop. 3.2 printed (inner 1/ρ̃) = autograd"])
    assert 7 < errs[1] / errs[0] < 13


def test_prop32_printed_reports_its_relative_error_not_only_error_over_tolerance():
    """The verdict uses error/tolerance (≈ 1e10); the evidence is ‖printed − truth‖/‖truth‖ on the worst case,
    of order ε/ρ̃ (tens of percent for ε ~ ρ)."""
    result = check_claim(small(proposition3_2), TINY, seed=0)
    rel = result.to_json()["relative_error"]
    assert result.verdict == "misprinted" and 1e-4 < rel < 10
    worst = result.worst_counterexample_case
    assert worst.relative_error == pytest.approx(rel)


def test_prop32_corrected_sees_a_relative_error_of_one_in_a_million():
    wrong = dataclasses.replace(proposition3_2_corrected, evaluate=lambda c: _measure(c, as_stated=False,
                                                                                      perturb=1e-6))
    assert check_claim(small(wrong), TINY, seed=0).verdict == "false"
