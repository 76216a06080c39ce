"""spectral_rnn.theorem5_step and theorem5_cover: two steps of Theorem 5's proof need more than the theorem assumes
(Lemma 3's hypotheses for the proof's perturbation; ‖w‖ bounded below for the cover of β̃); their repairs hold."""

import math

import torch

from rnnaudit.bounds import measure_case
from rnnaudit.bounds.spectral_rnn import (theorem5_cover, theorem5_cover_corrected, theorem5_step,
                                          theorem5_step_corrected)
from rnnaudit.bounds.spectral_rnn.theorem5_cover import CoverCase, cover_numbers
from tests.bounds.helpers import TINY, assert_has_power, assert_reproducible_violation, with_sizes
from tests.bounds.spectral_rnn.cases import F64, assert_holds_inside


def test_theorem5_step_is_violated_for_small_weights_and_reloads(tmp_path):
    case = assert_reproducible_violation(with_sizes(theorem5_step, [(2, 1), (3, 4)]), TINY, tmp_path)
    parts = measure_case(theorem5_step, case)[1]
    assert max(v for k, v in parts.items() if k.startswith("Lemma 3's")) > 1


def test_theorem5_step_corrected_holds_and_has_power(tmp_path):
    assert_holds_inside(theorem5_step_corrected, [(2, 1), (3, 4)], tmp_path)
    assert_has_power(with_sizes(theorem5_step_corrected, [(2, 1)]), 4)  # probability parts: 0.5/P ≥ 0.5


def test_theorem5_cover_is_violated_and_reloads(tmp_path):
    assert_reproducible_violation(with_sizes(theorem5_cover, [(2, 1), (3, 2)]), TINY, tmp_path)
    assert theorem5_cover.exact().verdict == "violated"


def test_theorem5_cover_known_case():
    """T = 1, n = 2, ‖w‖² = 1, m = 100, γ = 2/√m: β = 1 on the boundary, second term √((50 ln 2 + ln 2000)/100)."""
    W, M, Y = torch.zeros(2, 2, dtype=F64), torch.zeros(2, 1, dtype=F64), torch.zeros(2, 2, dtype=F64)
    M[0, 0] = 1.0
    nums = cover_numbers(CoverCase(W, M, Y, 1.0, 1, 0.2, 100.0))
    assert nums["beta"] == 1.0
    assert math.isclose(nums["term_O1"], math.sqrt((50 * math.log(2) + math.log(2000)) / 100), rel_tol=1e-12)


def test_theorem5_cover_corrected_holds_and_has_power(tmp_path):
    assert_holds_inside(theorem5_cover_corrected, [(2, 1), (3, 2)], tmp_path)
    assert_has_power(with_sizes(theorem5_cover_corrected, [(2, 1), (3, 2)]), 2)
