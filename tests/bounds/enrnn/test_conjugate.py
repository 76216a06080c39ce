"""enrnn.conjugate (note after Prop. 3.2, remark after its proof): as printed, α Re(S̄) + β Im(S̄) with λ's β (a sign
to flip) and v̄ūᵀ/(v̄*ū) are not C and S̄, so the claim is misprinted; read with λ̄'s own α, β and eigenvectors it
holds, exactly."""

import dataclasses

from rnnaudit.bounds import check_claim
from rnnaudit.bounds.enrnn import conjugate
from rnnaudit.bounds.enrnn.conjugate import conjugate_parts
from tests.bounds.enrnn.cases import assert_exact_agrees, assert_holds_inside_its_assumptions, small
from tests.bounds.helpers import TINY


def test_conjugate_read_with_lambda_bars_own_alpha_beta_holds_and_its_exact_proof_agrees(tmp_path):
    reading = conjugate.readings[0]
    as_read = dataclasses.replace(conjugate, evaluate=reading.evaluate, exact=reading.exact, readings=())
    result = assert_holds_inside_its_assumptions(as_read, tmp_path)
    assert_exact_agrees(as_read, result)
    assert result.to_json()["relative_error"] < 1e-10


def test_conjugate_as_printed_is_misprinted_by_the_sign_of_beta():
    result = check_claim(small(conjugate), TINY, seed=0)
    assert result.verdict == "misprinted" and result.readings[0].verdict == "holds"
    assert result.worst_parts()["C from λ̄ = C from λ"] > 1
    assert conjugate.exact().verdict == "violated" and conjugate.readings[0].exact().verdict == "proved"
    # the sign alone: the printed C with λ̄'s β (−β) is C, part by part
    assert all(v <= 1 for k, v in check_claim(small(dataclasses.replace(
        conjugate, evaluate=lambda c: conjugate_parts(c), exact=None, readings=())), TINY, seed=0).worst_parts().items())
