"""enrnn.conjugate (note after Prop. 3.2, remark after its proof): λ̄ with its own eigenvectors gives S̄ and the
same C; the literal reading α Re(S̄) + β Im(S̄) with λ's β is told apart."""

import dataclasses

from rnnaudit.bounds import check_claim
from rnnaudit.bounds.enrnn import conjugate
from rnnaudit.bounds.enrnn.conjugate import conjugate_parts
from tests.bounds.enrnn.cases import assert_exact_agrees, assert_holds_inside_its_assumptions, small
from tests.bounds.helpers import TINY


def test_conjugate_holds_and_its_exact_proof_agrees(tmp_path):
    result = assert_holds_inside_its_assumptions(conjugate, tmp_path)
    assert_exact_agrees(conjugate, result)
    assert result.to_json()["relative_error"] < 1e-10


def test_conjugate_catches_the_literal_sign_of_beta():
    literal = dataclasses.replace(conjugate, evaluate=lambda c: conjugate_parts(c, literal=True), exact=None)
    result = check_claim(small(literal), TINY, seed=0)
    assert result.verdict == "false"
    assert result.worst_parts()["C from λ̄ = C from λ"] > 1
