"""The new violations of sgornn.md reproduce from their saved counterexamples, and their evidence shows the
failure they are listed for."""

import math

import pytest

from rnnaudit.bounds import check_claim, load_counterexample, measure_case
from rnnaudit.bounds.sgornn import eq2_domain, eq3_clip, eq24, sec3_model_count
from rnnaudit.bounds.sgornn.eq2_domain import _starts
from tests.bounds.helpers import TINY, assert_reproducible_violation


@pytest.mark.parametrize("claim", [eq2_domain, eq3_clip, eq24, sec3_model_count], ids=lambda c: c.id)
def test_violation_reproduces_from_its_counterexamples(claim, tmp_path):
    assert_reproducible_violation(claim, TINY, tmp_path)
    result = check_claim(claim, TINY, out_dir=tmp_path)
    _, case, recorded = load_counterexample(result.worst_counterexample)
    assert measure_case(claim, case)[0] == pytest.approx(recorded, rel=1e-12) and recorded > 1


def test_eq2_domain_at_the_papers_own_sizes():
    """n = 2, h = 128, k = 14 (Sec. 3.1): 14 angles stated, 896 needed; Table 1's count would be 527."""
    case = _starts(128, 1, "cpu", None)[0]
    assert case.n == 2 and case.phi.k == 14
    parts = measure_case(eq2_domain, case)[1]
    assert parts["|dom φ| = (n/2)·k equals the angles of R_1..R_k"] == pytest.approx((896 - 14) / 0.5)
    assert "527" in eq2_domain.exact().detail and eq2_domain.exact().verdict == "violated"


def test_eq24_relative_error_is_at_most_one_minus_one_over_root_two():
    """The right sides differ only in the confidence term, by the factor √2."""
    result = check_claim(eq24, TINY)
    worst = result.worst_record.relative_error
    assert 0 < worst <= 1 - 1 / math.sqrt(2) + 1e-12


def test_eq3_clip_holds_below_one_half_and_fails_above():
    from rnnaudit.bounds import evaluate_cases
    from rnnaudit.bounds.sgornn.eq3_clip import LogitCase
    import torch
    t = lambda x: torch.tensor(x, dtype=torch.float64)  # noqa: E731
    out = evaluate_cases(eq3_clip, [LogitCase(t(-0.1), t(0.0)), LogitCase(t(0.1), t(0.0))])
    assert [r.ratio < 1 for r in out.records] == [True, False]


def test_model_count_reads_three_as_four():
    """Printed 'three': |3 − 4| > 1/2, exactly violated; read 'four' (Sec. 3.1–3.2 and the tables name four): every
    count matches and SGORNN's 94.07 % is the highest of the four means (93.77, 93.45, 92.29), so misprinted."""
    result = check_claim(sec3_model_count, TINY, seed=0)
    assert result.verdict == "misprinted" and result.exact.verdict == "violated"
    (reading,) = result.readings
    assert reading.verdict == "holds" and reading.exact.verdict == "proved"
    assert reading.worst_ratio == pytest.approx(93.77 / 94.07, rel=1e-12)


def test_model_count_reading_given_the_printed_count_is_false():
    """The negative control: the reading measured with the printed count 3 (and without its exact test) fails."""
    import dataclasses

    (reading,) = sec3_model_count.readings
    as_printed = dataclasses.replace(reading, evaluate=sec3_model_count.evaluate, exact=None)
    assert check_claim(dataclasses.replace(sec3_model_count, readings=(as_printed,)), TINY).verdict == "false"
