"""The sympy verdicts of sgornn.md's algebraic and combinatorial claims agree with the numerical ones."""

import pytest

from rnnaudit.bounds import check_claim
from rnnaudit.bounds.sgornn import CLAIMS
from tests.bounds.helpers import TINY, with_sizes
from tests.bounds.sgornn.cases import SMALL_SIZES

EXACT = [c for c in CLAIMS if c.exact is not None]


def test_the_algebraic_claims_have_exact_verdicts():
    assert {c.id for c in EXACT} >= {"sgornn.eq2", "sgornn.eq2.domain", "sgornn.eq3.clip", "sgornn.eq3.remarks",
                                     "sgornn.eq4.order", "sgornn.eq10", "sgornn.table1", "sgornn.table2",
                                     "sgornn.table3", "sgornn.sec3.model_count", "sgornn.eq24",
                                     "sgornn.eq24.corrected", "sgornn.eq25", "sgornn.eq31", "sgornn.eq36"}


@pytest.mark.parametrize("claim", EXACT, ids=lambda c: c.id)
def test_exact_verdict_agrees_with_the_numerical_verdict(claim):
    small = with_sizes(claim, SMALL_SIZES) if claim.id in ("sgornn.eq25", "sgornn.eq31") else claim
    result = check_claim(small, TINY, seed=0)
    assert result.exact is not None and result.exact.detail
    assert (result.exact.verdict == "violated") == result.fails, (result.exact, result.verdict)
    assert result.to_json()["exact"]["verdict"] == result.exact.verdict
