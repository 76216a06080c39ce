"""Every sgornn.md claim: the search reaches its known supremum, and the check has power (a bound divided by a
factor the attained ratio justifies is reported violated; a deliberately wrong identity is caught; a violated
claim stays violated on cases inside its assumptions)."""

import dataclasses
import math

import pytest
import torch

from rnnaudit.bounds import check_claim
from rnnaudit.bounds.sgornn import CLAIMS
from rnnaudit.bounds.sgornn.constructions import corollary1_supremum
from rnnaudit.bounds.sgornn.eq2 import ORTHOGONALITY_TOL
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum, with_sizes
from tests.bounds.sgornn.cases import SMALL_SIZES

BY_ID = {c.id: c for c in CLAIMS}

#: Claims whose own quick sizes are too slow for a unit test, and the sizes used instead.
SHRINK = {"sgornn.corollary1": [(2, 7)], "sgornn.hidden_state": SMALL_SIZES, "sgornn.eq31.corrected": SMALL_SIZES,
          "sgornn.eq31": SMALL_SIZES}

#: Bound claims and the factor their check must see through: 2 where the attained supremum exceeds 1/2;
#: corollary1's supremum at h = 2, T = 7 is 0.0379, so a bound divided by 2/0.0379 is false by a factor 2.
DIVIDE = {"sgornn.eq3": 2, "sgornn.eq3.clip": 2, "sgornn.eq3.remarks": 2, "sgornn.eq4.order": 2,
          "sgornn.corollary1": 2 / corollary1_supremum(2, 7), "sgornn.eq10": 2, "sgornn.table1": 2,
          "sgornn.table2": 2, "sgornn.table3": 2, "sgornn.eq24.corrected": 2, "sgornn.eq31.corrected": 2,
          "sgornn.hidden_state": 2, "sgornn.eq34": 2, "sgornn.eq36": 2, "sgornn.a4": 2}

#: Claims that are violated as stated: their check already shows it (the reproducibility tests are in
#: test_violations.py and the claims' own files).
VIOLATED = ("sgornn.eq2.domain", "sgornn.eq3.clip", "sgornn.sec3.model_count", "sgornn.eq24", "sgornn.eq31")

#: Power tests that live in the claims' own test files.
ELSEWHERE = {"sgornn.theorem1": "test_theorem1.py", "sgornn.theorem2": "test_theorem2.py",
             "sgornn.eq25": "test_eq25.py", "sgornn.eq2": "below", "sgornn.eq2.domain.corrected": "below"}


def _small(claim):
    return with_sizes(claim, SHRINK[claim.id]) if claim.id in SHRINK else claim


def test_every_claim_has_a_power_test():
    assert {c.id for c in CLAIMS} == set(DIVIDE) | set(VIOLATED) | set(ELSEWHERE)


@pytest.mark.parametrize("cid", sorted(DIVIDE))
def test_check_sees_a_bound_divided_by_the_justified_factor(cid):
    assert_has_power(_small(BY_ID[cid]), DIVIDE[cid])


@pytest.mark.parametrize("cid", VIOLATED)
def test_violated_claims_are_violated_inside_their_assumptions(cid):
    result = check_claim(_small(BY_ID[cid]), TINY, seed=0)
    assert result.fails and result.errors == [], (cid, result.verdict)
    assert result.worst_counterexample_case.failed_assumptions == []


@pytest.mark.parametrize("cid", sorted(c.id for c in CLAIMS if c.supremum is not None and c.id != "sgornn.theorem2"))
def test_search_reaches_the_known_supremum(cid):
    assert_reaches_supremum(BY_ID[cid])


def test_eq2_catches_a_map_off_the_orthogonal_group_by_one_part_in_a_million():
    claim = BY_ID["sgornn.eq2"]

    def evaluate(case):
        U = case.phi.matrix(case.theta) * (1 + 1e-6)
        defect = torch.linalg.matrix_norm(U.mT @ U - torch.eye(U.shape[0], dtype=U.dtype), ord=2)
        return {"wrong": (defect, defect.new_tensor(ORTHOGONALITY_TOL), defect.new_tensor(1.0))}

    assert check_claim(claim, TINY).verdict == "holds"
    assert check_claim(dataclasses.replace(claim, evaluate=evaluate), TINY).verdict == "false"


def test_eq2_domain_corrected_catches_the_printed_n_over_2():
    """The corrected claim holds; fed the printed reading (n/2 rows) it is violated, at the paper's own n = 2."""
    corrected, printed = BY_ID["sgornn.eq2.domain.corrected"], BY_ID["sgornn.eq2.domain"]
    assert check_claim(corrected, TINY).verdict == "holds"
    wrong = dataclasses.replace(corrected, evaluate=printed.evaluate)
    result = check_claim(wrong, TINY)
    assert result.verdict == "false" and result.worst_record.relative_error > 0.5


def test_known_suprema_are_positive_and_finite_where_they_are_checked():
    for claim in CLAIMS:
        if claim.supremum is not None:
            value = claim.supremum.at_size(*claim.supremum.at)
            assert 0 < value < math.inf, claim.id


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_search_reaches_the_known_supremum": {"sgornn.corollary1", "sgornn.eq31", "sgornn.eq31.corrected",
                                               "sgornn.eq34"},
}
