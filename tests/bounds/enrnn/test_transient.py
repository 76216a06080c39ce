"""enrnn.transient (Sec. 2): the pseudospectral lower bound on transient growth holds for ρ < 1 and fails at ρ > 1."""

import torch

from rnnaudit.analysis import transient_growth
from rnnaudit.bounds import Profile, check_claim, evaluate_cases
from rnnaudit.bounds.enrnn import transient
from rnnaudit.bounds.enrnn.transient import TRANSIENT_HORIZON, TransientCase, sample_transient_case
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum, with_sizes


def test_transient_holds_and_shows_amplification_for_non_normal_matrices():
    result = check_claim(transient, Profile("quick", n_random=6, restarts=0, ascent_steps=0), seed=0)
    assert result.verdict == "holds" and result.errors == []
    # the horizon covers the transient: the curve has decayed below its peak by the end
    case = sample_transient_case(torch.Generator().manual_seed(5), 16, 1)
    growth = transient_growth(case.A, TRANSIENT_HORIZON)
    assert growth.peak > 1 and float(growth.curve[-1]) < 1e-6 * growth.peak


def test_transient_violated_when_rho_reaches_one():
    """ρ = 1.0001 > 1: (ρ_ε − 1)/ε ≈ 1.1 at ε = 1e-3, but the 400 computed powers only reach 1.04."""
    result = evaluate_cases(transient, [TransientCase(1.0001 * torch.eye(3, dtype=torch.float64))])
    assert result.verdict == "false"
    assert result.records[0].failed_assumptions[0].startswith("ρ(W^(S)) < 1")


def test_transient_search_reaches_its_supremum_and_has_power():
    """A = 0.999 I: (ρ_ε − 1)/ε = 1 − 0.001/ε_max = 0.9968 of sup_k ‖A^k‖₂ = 1; halving the bound then fails."""
    assert_reaches_supremum(transient)
    assert_has_power(with_sizes(transient, [(2, 1)]), 2, TINY)
