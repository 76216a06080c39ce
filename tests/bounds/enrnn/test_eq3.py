"""enrnn.eq3 (eq. 1 and 3): the blockwise forward pass equals the basic RNN with W of eq. 2; the sentence's
h^(S)_t (instead of h^(S)_{t−1}) in h^(L)'s update is caught."""

import dataclasses

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.enrnn import eq3
from rnnaudit.bounds.enrnn.eq3 import _measure
from tests.bounds.enrnn.cases import assert_exact_agrees, assert_holds_inside_its_assumptions, case_of, hand_cell, small
from tests.bounds.helpers import TINY


def test_eq3_holds_and_its_exact_proof_agrees(tmp_path):
    result = assert_holds_inside_its_assumptions(eq3, tmp_path)
    assert_exact_agrees(eq3, result)
    assert result.to_json()["relative_error"] < 1e-12


def test_eq3_catches_the_current_short_state_in_the_long_update():
    wrong = dataclasses.replace(eq3, evaluate=lambda c: _measure(c, current_short=True), exact=None)
    result = check_claim(small(wrong), TINY, seed=0)
    assert result.verdict == "false"
    assert result.worst_parts()["eq. (3), first line: h^(L)_t"] > 1


def test_eq3_without_coupling_is_eq1():
    cell = hand_cell(2, 2, [[0.5, 0.1], [0.0, 0.3]], activation="modrelu")
    result = evaluate_cases(eq3, [case_of(cell, T=5)])
    assert result.verdict == "holds" and cell.W_C is None
