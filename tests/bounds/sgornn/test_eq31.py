"""sgornn.eq31: the proof step ‖X‖₁,₁ ≤ √h‖X‖_F is false on SGORNN's own gradients, and the search reaches the
worst case of the chain ‖X‖₁,₁ ≤ h‖X‖₂ that a referee found."""

import math

import pytest

from rnnaudit.bounds import PROFILES, check_claim, measure_case
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


#: The chain part's name, and the best ratio an independent referee reached on it (h = 2: its supremum is √2).
CHAIN = "‖G‖₁,₁ ≤ h ‖G‖₂ (the chain as used)"
REFEREE_CHAIN = 1.3976


def test_quick_search_reaches_the_referees_hadamard_like_worst_case_of_the_chain():
    """The quick profile (seed 0) at its first two sizes, (2, 1) and (2, 7), reaches 99 % of the referee's 1.3976 on
    ‖G‖₁,₁ ≤ h‖G‖₂, where the flat rank-one starts give only 1; the Hadamard start finds it."""
    result = check_claim(with_sizes(eq31, eq31.cases.sizes["quick"][:2]), PROFILES["quick"],
                         seed=0)
    entry = result.to_json()
    assert entry["worst_parts"][CHAIN] >= 0.99 * REFEREE_CHAIN
    assert entry["worst_parts"][CHAIN] <= math.sqrt(2) * (1 + 1e-12)  # ‖X‖₁,₁ ≤ h^{3/2}‖X‖₂ at h = 2
    assert entry["worst_parts_found_by"][CHAIN] == "structured:hadamard"
