"""srnn.table1_count: Table 1's SRNN row fails uniformly (f_r's d_i² term) and holds as d_h → ∞; the exact count
and its bound O(T d_i (d_h + L d_i)) hold and are tight."""

import dataclasses

import pytest
import torch

from rnnaudit.bounds import check_claim, evaluate_cases, measure_case
from rnnaudit.bounds.srnn import table1_count, table1_count_corrected
from rnnaudit.bounds.srnn.cases import f64
from rnnaudit.bounds.srnn.table1_count import (ASYMPTOTIC, ASYMPTOTIC_SUPREMUM, UNIFORM, CountCase, srnn_flop_formula,
                                               srnn_flops, vanilla_flops)
from tests.bounds.helpers import (TINY, assert_has_power, assert_reaches_supremum, assert_reproducible_violation,
                                  with_sizes)
from tests.bounds.srnn.cases import assert_exact_agrees, with_evaluate

SIZES = [(1, 1), (4, 2)]


def _asymptotic(claim):
    """The claim as its reading 'O(·) as d_h → ∞' states it, with the reading's supremum."""
    (reading,) = claim.readings
    return dataclasses.replace(claim, evaluate=reading.evaluate, exact=reading.exact, readings=(),
                               supremum=ASYMPTOTIC_SUPREMUM)


@pytest.mark.slow
def test_printed_uniform_form_fails_and_the_asymptotic_reading_holds_and_sympy_agrees(tmp_path):
    case = assert_reproducible_violation(with_sizes(table1_count, SIZES), TINY, tmp_path)
    assert case.d_i > case.d_h  # the violation needs d_i ≫ d_h
    result = check_claim(with_sizes(table1_count, SIZES), TINY, seed=0)
    assert result.verdict == "misprinted" and ASYMPTOTIC not in result.worst_parts()
    assert result.worst_parts()[UNIFORM] > 1 and result.exact.verdict == "violated"
    (reading,) = result.readings
    assert reading.verdict == "holds" and reading.worst_ratio <= 1 and reading.exact.verdict == "proved"
    asymptotic = check_claim(with_sizes(_asymptotic(table1_count), SIZES), TINY, seed=0)
    assert_exact_agrees(asymptotic)
    assert_reaches_supremum(_asymptotic(table1_count))  # the reading's bound is tight


def test_the_asymptotic_reading_given_the_printed_evaluation_is_false():
    """The negative control: the reading measured as the printed (uniform) form holds nowhere, and a slope bound
    one unit of T d_i too small (3 T d_i) fails on the starts where the last width and the gate reach 4 T d_i."""
    (reading,) = table1_count.readings
    as_printed = dataclasses.replace(reading, evaluate=table1_count.evaluate, exact=None)
    claim = with_sizes(dataclasses.replace(table1_count, readings=(as_printed,)), SIZES)
    assert check_claim(claim, TINY, seed=0).verdict == "false"

    def too_tight(case):
        parts = reading.evaluate(case)
        slope, bound = parts[ASYMPTOTIC]
        return {ASYMPTOTIC: (slope, bound * 3 / 4)}
    alone = dataclasses.replace(with_evaluate(table1_count, too_tight), readings=())
    assert evaluate_cases(alone, [CountCase(4, 4, 2, (4,), True)]).verdict == "false"


def test_flop_counts_known_answers():
    """d_i = 3, d_h = 5, T = 2, f_r (4,), gate: 2·2·(3·4 + 4·5 + 3·5) = 188 FLOPs; eq. 1: 2·2·(25 + 15) = 160."""
    case = CountCase(3, 5, 2, (4,), True)
    assert srnn_flops(case) == srnn_flop_formula(case) == 188
    assert vanilla_flops(case) == 160


def test_balanced_sizes_satisfy_the_row():
    """d_i = d_h with widths d_i: the uniform ratio is exactly 1 (the constant was read off there)."""
    assert measure_case(table1_count, CountCase(8, 8, 3, (8, 8), True))[1][UNIFORM] == 1


def test_corrected_count_holds_is_tight_and_has_power():
    result = check_claim(with_sizes(table1_count_corrected, SIZES), TINY, seed=1)
    assert result.verdict == "holds" and result.errors == []
    assert_exact_agrees(result)
    assert_reaches_supremum(table1_count_corrected)
    assert_has_power(with_sizes(table1_count_corrected, SIZES), 2)


def test_corrected_count_catches_a_formula_without_the_gate():
    """The count compared with the formula that forgets W_s (d_i d_h multiply-adds per step) must fail."""
    def no_gate(case):
        counted, wrong = srnn_flops(case), srnn_flop_formula(dataclasses.replace(case, gating=False))
        like = torch.zeros((), dtype=torch.float64)
        return {"FLOPs = the formula without the gate": (f64(abs(counted - wrong), like), f64(0.5, like),
                                                         f64(counted, like))}
    case = CountCase(2, 3, 1, (), True)
    assert evaluate_cases(with_evaluate(table1_count_corrected, no_gate), [case]).verdict == "false"
    assert evaluate_cases(table1_count_corrected, [case]).verdict == "holds"


def test_notes_ratios_of_the_independent_count():
    """The notes' FLOPs/(T d_h d_i) at T = 3, widths d_i, gate on: 20, 260, 2052 at d_h = 1 (L = 2), 10 and 4.75 at
    d_i = 512 (L = 3), and FLOPs/(T d_i (d_h + L d_i)) within [2, 3.5] on all six."""
    sizes = [(1, 4, 2, 20.0), (1, 64, 2, 260.0), (1, 512, 2, 2052.0), (8, 512, 3, 388.0), (512, 512, 3, 10.0),
             (4096, 512, 3, 4.75)]
    for d_h, d_i, L, ratio in sizes:
        case = CountCase(d_i, d_h, 3, (d_i,) * L, True)
        F = srnn_flop_formula(case)
        assert F / (3 * d_h * d_i) == ratio
        assert 2.0 <= F / (3 * d_i * (d_h + L * d_i)) <= 3.5
    assert srnn_flops(CountCase(64, 1, 3, (64, 64), True)) == srnn_flop_formula(CountCase(64, 1, 3, (64, 64), True))
