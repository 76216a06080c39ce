"""spectral_rnn.eq26: the Gaussian spectral-norm tail bound and the union bound after it hold; the ratio's
supremum 1/2 (t = 0, n = 1) is reached."""

import math

import pytest
import torch

from rnnaudit.bounds.spectral_rnn import eq26
from rnnaudit.bounds.spectral_rnn.eq26 import tail_probability
from tests.bounds.helpers import assert_has_power, assert_reaches_supremum, with_sizes
from tests.bounds.spectral_rnn.cases import assert_holds_inside


def test_eq26_holds_reaches_its_supremum_and_has_power(tmp_path):
    assert_holds_inside(eq26, [(1, 1), (3, 1)], tmp_path)
    assert_reaches_supremum(eq26)
    assert_has_power(with_sizes(eq26, [(1, 1)]), 4)


def test_vector_tail_is_exact():
    """1 × 1: P[|Z| > 1] = erfc(1/√2) = 0.3173."""
    p, se = tail_probability(1, 1, 1.0, 1.0, torch.Generator())
    assert se == 0 and p == pytest.approx(math.erfc(1 / math.sqrt(2)), rel=1e-12)


def test_union_bound_step_is_exact():
    assert eq26.exact().verdict == "proved"
