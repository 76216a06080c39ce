"""sgornn.eq31: the proof step ‖X‖₁,₁ ≤ √h‖X‖_F is false on SGORNN's own gradients."""

import math

import pytest

from rnnaudit.bounds import measure_case
from rnnaudit.bounds.sgornn import eq31
from tests.bounds.helpers import TINY, assert_reproducible_violation, with_sizes
from tests.bounds.sgornn.cases import SMALL_SIZES, aligned_case


def test_eq31_step_is_false_on_sgornn_gradients(tmp_path):
    """The step ‖X‖₁,₁ ≤ √h‖X‖_F of eq. 31 fails inside all of Theorem 2's assumptions."""
    assert_reproducible_violation(with_sizes(eq31, SMALL_SIZES), TINY, tmp_path)


def test_flat_rank_one_gradient_reaches_sqrt_h_in_eq31():
    """Known answer: for the aligned case ∂L/∂U is a flat rank-one matrix, ratio = √h exactly."""
    h = 16
    case = aligned_case(0.05, 0.95 - 1e-9, h=h, T=5)
    parts = measure_case(eq31, case)[1]
    assert parts["‖G‖₁,₁ ≤ √h ‖G‖_F"] == pytest.approx(math.sqrt(h), rel=1e-10)
