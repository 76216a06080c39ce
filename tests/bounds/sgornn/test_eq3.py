"""sgornn.eq3: the clip enforces β ≤ 1 − 2α; without it the check says violated."""

import pytest

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.sgornn import eq3
from tests.bounds.helpers import TINY
from tests.bounds.sgornn.cases import aligned_case


def test_eq3_holds_with_clipping_and_is_violated_without(tmp_path):
    result = check_claim(eq3, TINY, seed=0)
    assert result.verdict == "holds" and result.worst_ratio == pytest.approx(1.0, abs=1e-12)
    case = aligned_case(0.2, 0.9)  # clip_beta=False: β = 0.9 > 1 − 2α = 0.6
    out = evaluate_cases(eq3, [case], out_dir=tmp_path)
    assert out.verdict == "false" and out.records[0].ratio == pytest.approx(0.9 / 0.6)
    assert any("clip" in f for f in out.records[0].failed_assumptions)
