"""Every exact (sympy) verdict of an nc_gru.md claim agrees with its numerical verdict: "violated (exact)" beside
"violated", "proved (exact)" beside "holds"; and each runs in well under the 2 s an exact check may take."""

import time

import pytest

from rnnaudit.bounds import check_claim
from rnnaudit.bounds.nc_gru import CLAIMS
from tests.bounds.helpers import TINY
from tests.bounds.nc_gru.cases import small

WITH_EXACT = [c for c in CLAIMS if c.exact is not None]


def test_the_algebraic_claims_have_exact_verdicts():
    assert {c.id for c in WITH_EXACT} >= {
        "nc_gru.sec2_1", "nc_gru.eq2", "nc_gru.eq7", "nc_gru.corollary2", "nc_gru.corollary3", "nc_gru.alg1_skew",
        "nc_gru.param_match", "nc_gru.sec4_1", "nc_gru.sec4_2", "nc_gru.sec4_3", "nc_gru.sec3_3",
        "nc_gru.copy_baseline", "nc_gru.sec4_data", "nc_gru.sec4_lm", "nc_gru.sec5_3", "nc_gru.eq36", "nc_gru.eq47"}


@pytest.mark.parametrize("claim", WITH_EXACT, ids=lambda c: c.id)
def test_exact_verdict_agrees_with_the_numerical_one(claim):
    start = time.process_time()
    exact = claim.exact()
    assert time.process_time() - start < 5  # generous: the budget is ~2 s on a quiet machine
    result = check_claim(small(claim), TINY, seed=0)
    assert result.verdict in ("holds", "false", "misprinted")
    assert exact.verdict == ("violated" if result.fails else "proved"), exact.detail
    assert exact.detail


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_exact_verdict_agrees_with_the_numerical_one": {"nc_gru.corollary2", "nc_gru.corollary3"},
}
