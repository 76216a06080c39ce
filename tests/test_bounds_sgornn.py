"""The sgornn.md claim checks: they hold inside their assumptions, and each of them reports
"violated" when fed a case outside them (or, for the false proof step, inside them)."""

import dataclasses
import math

import pytest
import torch
from hypothesis import given, settings, strategies as st

from rnnaudit.bounds import Profile, check_claim, evaluate_cases, measure_case
from rnnaudit.bounds.sgornn import (CLAIMS, GatedCase, corollary1, eq31, eq31_corrected, hidden_state, local_M_phi,
                           sample_gated_case, theorem2)
from rnnaudit.cells import FastRNN, SGORNN
from tests.claim_asserts import assert_reproducible_violation

F64 = torch.float64
TINY = Profile("quick", n_random=6, restarts=2, ascent_steps=8)
SMALL_SIZES = {"quick": [(2, 1), (4, 8), (8, 20)]}


def small(claim):
    return dataclasses.replace(claim, sizes=SMALL_SIZES)


def _logit(p):
    return math.log(p / (1 - p))


def aligned_case(alpha, beta, *, h=4, T=30, bias=0.0, x_scale=1.0, kind="SGORNN", theta=0.0):
    """Θ = 0 (U a permutation fixing 1), W = 1uᵀ/√h, constant input x_t = x_scale·u: h_t grows like
    (α + β)^t once α + β > 1, the fastest the recurrence allows."""
    u = torch.tensor([1.0, 0.0], dtype=F64)
    # a seeded generator fixes VPRNN's permutations: a few draws of them make ∂L/∂Θ vanish by
    # symmetry, and the global RNG would make the case depend on which tests ran before
    gen = torch.Generator().manual_seed(0)
    if kind == "SGORNN":
        cell = SGORNN(2, h, bias=bias != 0.0, clip_beta=False, dtype=F64, generator=gen)
        with torch.no_grad():
            cell.phi.theta.fill_(theta)
    else:
        cell = FastRNN(2, h, bias=bias != 0.0, dtype=F64, generator=gen)
        with torch.no_grad():
            cell.U.copy_(2 * torch.eye(h, dtype=F64))  # ‖U‖₂ = 2: not orthogonal
    with torch.no_grad():
        cell.W.copy_(torch.ones(h, 1, dtype=F64) @ u[None] / math.sqrt(h))
        cell.alpha_logit.fill_(_logit(alpha))
        cell.beta_logit.fill_(_logit(beta))
        if bias:
            cell.b.fill_(bias)
    x = (x_scale * u).expand(1, T, 2).clone()
    return GatedCase(cell, x, torch.ones(h, dtype=F64) / math.sqrt(h), R_W=1.0, R_x=x_scale, R_v=1.0)


@pytest.mark.parametrize("claim", [hidden_state, theorem2, corollary1, eq31_corrected], ids=lambda c: c.id)
def test_claim_holds_inside_its_assumptions(claim, tmp_path):
    result = check_claim(small(claim), TINY, seed=1, out_dir=tmp_path)
    assert result.verdict == "holds", result.notes_text()
    assert result.errors == []  # every random and ascent case stayed inside the assumptions
    assert 0 < result.worst_ratio <= 1 + claim.tolerance


@pytest.mark.parametrize("claim", [hidden_state, theorem2, corollary1, eq31_corrected], ids=lambda c: c.id)
def test_claim_violated_when_beta_exceeds_one_minus_alpha(claim, tmp_path):
    """β = 0.9 > 1 − α = 0.5: the product ∏(αUᵀD + βI) grows like 1.4^T. (Θ = 0.1, not 0: at Θ = 0
    the symmetric aligned state makes ∂L/∂Θ vanish exactly.)"""
    result = evaluate_cases(claim, [aligned_case(0.5, 0.9, T=60, theta=0.1)], out_dir=tmp_path)
    assert result.verdict == "violated"
    assert any("β ≤ 1 − α" in f for f in result.records[0].failed_assumptions)
    assert result.counterexample and (tmp_path / f"{claim.id}.pt").is_file()


def test_hidden_state_violated_with_a_bias():
    """Eq. 5's class has no bias; b ≠ 0 with tiny inputs breaks ‖h_t‖ ≤ αT R_W R_x."""
    result = evaluate_cases(hidden_state, [aligned_case(0.1, 0.9, bias=5.0, x_scale=1e-3)])
    assert result.verdict == "violated"
    assert any(f.startswith("b = 0") for f in result.records[0].failed_assumptions)


def test_theorem2_violated_for_fastrnn_with_non_orthogonal_U():
    """FastRNN with ‖U‖₂ = 2 and α + β = 1 (so only orthogonality fails): gradients explode."""
    case = aligned_case(0.5, 0.5 - 1e-9, kind="FastRNN")
    assert local_M_phi(case).item() == 1.0
    result = evaluate_cases(theorem2, [case])
    assert result.verdict == "violated"
    assert [f for f in result.records[0].failed_assumptions if f.startswith("U = φ(Θ) orthogonal")]


def test_eq31_step_is_false_on_sgornn_gradients(tmp_path):
    """The step ‖X‖₁,₁ ≤ √h‖X‖_F of eq. 31 fails inside all of Theorem 2's assumptions."""
    assert_reproducible_violation(small(eq31), TINY, tmp_path)


def test_flat_rank_one_gradient_reaches_sqrt_h_in_eq31():
    """Known answer: for the aligned case ∂L/∂U is a flat rank-one matrix, ratio = √h exactly."""
    h = 16
    case = aligned_case(0.05, 0.95 - 1e-9, h=h, T=5)
    parts = measure_case(eq31, case)[1]
    assert parts["‖G‖₁,₁ ≤ √h ‖G‖_F"] == pytest.approx(math.sqrt(h), rel=1e-10)


def test_adversarial_search_breaks_a_deliberately_tightened_bound(tmp_path):
    """The search is strong enough to cross a bound set at 0.9 × the true supremum (which is attained)."""
    def tightened(case):
        return {k: (m, 0.9 * b) for k, (m, b) in hidden_state.evaluate(case).items()}
    claim = dataclasses.replace(small(hidden_state), id="test.hidden_state_0.9", evaluate=tightened)
    result = check_claim(claim, TINY, seed=3, out_dir=tmp_path)
    assert result.verdict == "violated" and result.counterexample_case.failed_assumptions == []


def test_all_sgornn_claims_have_source_statement_and_assumptions():
    ids = [c.id for c in CLAIMS]
    assert len(ids) == len(set(ids))
    for c in CLAIMS:
        assert c.id.startswith("sgornn.") and c.source.startswith("sgornn.md")
        assert c.statement and c.assumptions and c.explanation


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), alpha=st.floats(1e-3, 0.999), beta_frac=st.floats(1e-3, 1.0),
       h=st.sampled_from([2, 4, 8]), T=st.integers(1, 25))
def test_hidden_state_and_eq8_hold_for_all_gates_with_beta_le_one_minus_alpha(seed, alpha, beta_frac, h, T):
    case = sample_gated_case(torch.Generator().manual_seed(seed), h, T)
    with torch.no_grad():
        case.cell.alpha_logit.fill_(_logit(alpha))
        case.cell.beta_logit.fill_(_logit(max(beta_frac * (1 - alpha) * (1 - 1e-12), 1e-12)))
    assert measure_case(hidden_state, case)[0] <= 1 + hidden_state.tolerance
    assert measure_case(theorem2, case)[1]["eq. 8: ‖∂L/∂W‖_max ≤ C αT √h / R_W"] <= 1 + theorem2.tolerance


def test_eq3_holds_with_clipping_and_is_violated_without(tmp_path):
    from rnnaudit.bounds.sgornn import eq3

    result = check_claim(eq3, TINY, seed=0)
    assert result.verdict == "holds" and result.worst_ratio == pytest.approx(1.0, abs=1e-12)
    case = aligned_case(0.2, 0.9)  # clip_beta=False: β = 0.9 > 1 − 2α = 0.6
    out = evaluate_cases(eq3, [case], out_dir=tmp_path)
    assert out.verdict == "violated" and out.records[0].ratio == pytest.approx(0.9 / 0.6)
    assert any("clip" in f for f in out.records[0].failed_assumptions)


def test_eq34_holds_for_vprnn_and_fails_with_too_many_sublayers():
    """h = 2 allows k = 2 sublayers; with 16 sublayers whose rotations all act on the one pair,
    ΔΘ = δ·1ᵀ moves U by ≈ 16δ while the bound is 2·‖ΔΘ‖₂ = 2·4δ: ratio ≈ 2."""
    from rnnaudit.bounds.sgornn import PerturbationCase, eq34

    assert check_claim(eq34, TINY, seed=0).verdict == "holds"
    from rnnaudit.cells import VPRNNRotations

    phi = VPRNNRotations(2, 16, dtype=F64)
    phi.permutations.copy_(torch.arange(2).expand(16, 2))
    case = PerturbationCase(phi, torch.zeros(1, 16, dtype=F64), torch.full((1, 16), 1e-3, dtype=F64))
    result = evaluate_cases(eq34, [case])
    assert result.verdict == "violated" and result.records[0].ratio == pytest.approx(2.0, rel=1e-4)
    assert result.records[0].failed_assumptions


def test_fastrnn_eq4_limit_matches_the_formula():
    from rnnaudit.bounds.sgornn import fastrnn_eq4_assumption, fastrnn_eq4_limit

    U = torch.diag(torch.tensor([2.0, 0.5], dtype=F64))  # ‖U‖₂ = 2, ‖U‖_F = √4.25
    T, R_U = 10, 3.0
    expected = min(1 / (4 * T * 1.0), 1 / (4 * T * R_U), 1 / (T * 1.0))
    assert fastrnn_eq4_limit(U, T, R_U) == pytest.approx(expected)
    with pytest.raises(ValueError, match="R_U"):
        fastrnn_eq4_limit(U, T, 1.0)
    ok, detail = fastrnn_eq4_assumption(T=1000).check(aligned_case(0.5, 0.5 - 1e-9, kind="FastRNN"))
    assert not ok and "T = 1000" in detail


def test_theorem1_no_violation_found_inside_and_violated_outside_eq3():
    """Inside eq. 3 the capacity probe's lower estimate stays under 2αT R_W R_x R_v/√m; with
    α + β = 1.3 the states grow like 1.3^T and the estimate passes the bound."""
    from rnnaudit.bounds.sgornn import SampleCase, theorem1

    result = check_claim(dataclasses.replace(theorem1, sizes={"quick": [(2, 1), (4, 5)]}),
                         Profile("quick", n_random=4, restarts=0, ascent_steps=0), seed=0)
    assert result.verdict == "holds" and result.errors == []
    cell = SGORNN(2, 4, bias=False, clip_beta=False, dtype=F64, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        cell.alpha_logit.fill_(_logit(0.4))
        cell.beta_logit.fill_(_logit(0.9))
    X = torch.nn.functional.normalize(torch.randn(2, 20, 2, dtype=F64, generator=torch.Generator().manual_seed(1)),
                                      dim=-1)
    out = evaluate_cases(theorem1, [SampleCase(cell, X, 1.0, 1.0, 1.0, seed=0)])
    assert out.verdict == "violated"
    assert any(f.startswith("β ≤ 1 − 2α") for f in out.records[0].failed_assumptions)
