"""sgornn.theorem2, sgornn.corollary1, sgornn.hidden_state and sgornn.eq31.corrected: they hold inside
their assumptions, and each reports "false" for a case outside them (β > 1 − α)."""

import pytest
import torch
from hypothesis import given, settings, strategies as st

from rnnaudit.bounds import check_claim, evaluate_cases, measure_case
from rnnaudit.bounds.sgornn import corollary1, eq31_corrected, hidden_state, theorem2
from rnnaudit.bounds.sgornn.cases import logit, sample_gated_case
from tests.bounds.helpers import TINY, with_sizes
from tests.bounds.sgornn.cases import SMALL_SIZES, aligned_case

CLAIMS = [hidden_state, theorem2, corollary1, eq31_corrected]


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_claim_holds_inside_its_assumptions(claim, tmp_path):
    result = check_claim(with_sizes(claim, SMALL_SIZES), TINY, seed=1, out_dir=tmp_path)
    assert result.verdict == "holds", result.notes_text()
    assert result.errors == []  # every random and ascent case stayed inside the assumptions
    assert 0 < result.worst_ratio <= 1 + claim.tolerance


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_claim_violated_when_beta_exceeds_one_minus_alpha(claim, tmp_path):
    """β = 0.9 > 1 − α = 0.5: the product ∏(αUᵀD + βI) grows like 1.4^T. (Θ = 0.1, not 0: at Θ = 0
    the symmetric aligned state makes ∂L/∂Θ vanish exactly.)"""
    result = evaluate_cases(claim, [aligned_case(0.5, 0.9, T=60, theta=0.1)], out_dir=tmp_path)
    assert result.verdict == "false"
    assert any("β ≤ 1 − α" in f for f in result.records[0].failed_assumptions)
    assert result.counterexample and (tmp_path / f"{claim.id}.pt").is_file()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), alpha=st.floats(1e-3, 0.999), beta_frac=st.floats(1e-3, 1.0),
       h=st.sampled_from([2, 4, 8]), T=st.integers(1, 25))
def test_hidden_state_and_eq8_hold_for_all_gates_with_beta_le_one_minus_alpha(seed, alpha, beta_frac, h, T):
    case = sample_gated_case(torch.Generator().manual_seed(seed), h, T)
    with torch.no_grad():
        case.cell.alpha_logit.fill_(logit(alpha))
        case.cell.beta_logit.fill_(logit(max(beta_frac * (1 - alpha) * (1 - 1e-12), 1e-12)))
    assert measure_case(hidden_state, case)[0] <= 1 + hidden_state.tolerance
    assert measure_case(theorem2, case)[1]["eq. 8: ‖∂L/∂W‖_max ≤ C αT √h / R_W"] <= 1 + theorem2.tolerance
