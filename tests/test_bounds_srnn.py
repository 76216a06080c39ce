"""The srnn.md claim checks: those that hold do so inside their assumptions, the printed eq. 8–11 and the
literal Gambler's-ruin sentence are violated inside theirs (with reloadable counterexamples), and every
check reports "violated" for a hand-made case outside its assumptions."""

import dataclasses
import math

import pytest
import torch
from hypothesis import given, settings, strategies as st

from tests.claim_asserts import assert_reproducible_violation
from rnnaudit.bounds import Profile, check_claim, evaluate_cases, measure_case
from rnnaudit.bounds.srnn import (CLAIMS, PermutationCase, ShuffleCase, TimingCase, WalkCase, eq4, eq8_recursion, eq9,
                         eq9_as_printed, eq9_corrected, eq10, eq10_corrected, eq11, eq11_corrected, fit_exponent,
                         gamblers_ruin, gamblers_ruin_corrected, sample_shuffle_case, simulate_gamblers_ruin, table1)
from rnnaudit.cells import SRNN, shift_matrix

F64 = torch.float64
TINY = Profile("quick", n_random=6, restarts=2, ascent_steps=8)
SMALL = {eq4.id: [(1, 1), (3, 4), (8, 9)],
         table1.id: [(16384, 4)],
         gamblers_ruin.id: [(16, 1), (32, 2), (64, 4)]}
GRAD_SMALL = [(1, 2), (2, 4), (4, 6)]


def small(claim):
    sizes = SMALL.get(claim.id.removesuffix(".corrected"), GRAD_SMALL)
    return dataclasses.replace(claim, sizes={"quick": sizes})


def tiny_srnn(w, c, x, *, h0=None, x0=None, g=None, activation="relu"):
    """d_h = d_i = 1, b(x) = w x + c (f_r a single affine map, no gate)."""
    cell = SRNN(1, 1, fr_hidden=(), gating=False, activation=activation, dtype=F64)
    with torch.no_grad():
        cell.b.f_r[0].weight.fill_(w)
        cell.b.f_r[0].bias.fill_(c)
    x = torch.tensor(x, dtype=F64).reshape(1, -1, 1)
    T = x.shape[1]
    h0 = torch.zeros(1, 1, dtype=F64) if h0 is None else torch.tensor([[h0]], dtype=F64)
    g = torch.ones(T, 1, dtype=F64) if g is None else torch.tensor(g, dtype=F64).reshape(T, 1)
    x0 = None if x0 is None else torch.tensor([[x0]], dtype=F64)
    return ShuffleCase(cell, x, h0, g, x0)


@pytest.mark.parametrize("claim", [eq4, eq9_corrected, eq10_corrected, eq11_corrected, table1,
                                   gamblers_ruin_corrected], ids=lambda c: c.id)
def test_claim_holds_inside_its_assumptions(claim, tmp_path):
    result = check_claim(small(claim), TINY, seed=1, out_dir=tmp_path)
    assert result.verdict == "holds", result.notes_text()
    assert result.errors == []
    assert result.worst_ratio <= 1 + claim.tolerance


@pytest.mark.parametrize("claim", [eq9, eq10, eq11, gamblers_ruin], ids=lambda c: c.id)
def test_printed_claim_is_violated_inside_its_assumptions(claim, tmp_path):
    """The printed eq. 8–11 and the literal 'steps until this happens is T' fail on cases drawn inside
    the assumptions; the smallest counterexample reloads and reproduces its ratio."""
    assert_reproducible_violation(small(claim), TINY, tmp_path, seed=0, rel=1e-12)


# ------------------------------------------------------------------------------------------ eq. 4
def test_eq4_violated_for_a_matrix_that_is_not_a_permutation():
    """The shift with one extra 1 (row 0 maps two units): not orthogonal, and its powers grow ‖y‖."""
    W = shift_matrix(5, dtype=F64)
    W[0, 3] = 1
    result = evaluate_cases(eq4, [PermutationCase(W, torch.ones(5, dtype=F64), 4)])
    assert result.verdict == "violated"
    assert any(f.startswith("W_p is a permutation") for f in result.records[0].failed_assumptions)


# ------------------------------------------------------------------------------------- eq. 8–9
def test_eq8_eq9_printed_agree_with_the_correction_at_t1_only():
    """Known structure: at t = 1 both printed forms reduce to σ'(z_1) ∂b(x_1); from t = 2 on they differ."""
    g = torch.Generator().manual_seed(3)
    D, db = torch.rand(4, 5, generator=g, dtype=F64), torch.randn(4, 5, 2, generator=g, dtype=F64)
    corrected = eq8_recursion(D, db, as_printed=False)
    for printed in (eq8_recursion(D, db, as_printed=True), eq9_as_printed(D, db)):
        torch.testing.assert_close(printed[0], corrected[0], rtol=0, atol=0)
        assert (printed[1:] - corrected[1:]).abs().max() > 1e-2


@pytest.mark.parametrize("claim", [eq9_corrected, eq10_corrected, eq11_corrected], ids=lambda c: c.id)
def test_gradient_claims_violated_when_h0_depends_on_b(claim):
    """h_0 = b(x_0) with a large x_0 and tiny x_t: ∂h_t/∂b_k carries ∂h_0/∂b_k = x_0, which eq. 9 leaves
    out and which Σ_i ‖∂b(x_i)/∂b_k‖ (≈ 0.01 per step) cannot cover."""
    case = tiny_srnn(1.0, 0.1, [0.01, 0.01, 0.01], x0=10.0)
    result = evaluate_cases(claim, [case])
    assert result.verdict == "violated"
    assert any(f.startswith("h_0 does not depend") for f in result.records[0].failed_assumptions)


# ------------------------------------------------------------------------------------- eq. 10–11
def test_eq10_and_eq11_fail_on_the_one_unit_counterexample():
    """d_h = 1, b(x) = −x, x = (1, −1), h_0 = 0: z_1 = −1 (σ'(z_1) = 0), z_2 = 1, so ∂h_2/∂w = x_2 = −1 while
    Σ_i ∂b(x_i)/∂w = x_1 + x_2 = 0. The corrected bounds give |−1| ≤ |1| + |−1| = 2."""
    case = tiny_srnn(-1.0, 0.0, [1.0, -1.0], g=[0.0, 1.0])
    assert math.isinf(measure_case(eq10, case)[0])
    assert math.isinf(measure_case(eq11, case)[0])
    # both parameters (w and the bias c, ∂h_2/∂c = 1 against 1 + 1) sit at half the corrected bounds
    assert measure_case(eq10_corrected, case)[0] == pytest.approx(0.5, rel=1e-14)
    assert measure_case(eq11_corrected, case)[0] == pytest.approx(0.5, rel=1e-14)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), h=st.sampled_from([1, 2, 3, 5]), T=st.integers(1, 7))
def test_corrected_eq9_to_eq11_hold_on_random_cells(seed, h, T):
    case = sample_shuffle_case(torch.Generator().manual_seed(seed), h, T)
    for claim in (eq9_corrected, eq10_corrected, eq11_corrected):
        assert measure_case(claim, case)[0] <= 1 + claim.tolerance, claim.id


def test_shuffle_case_state_round_trip():
    case = sample_shuffle_case(torch.Generator().manual_seed(0), 3, 4)
    again = ShuffleCase.from_state(case.state())
    assert measure_case(eq10_corrected, again) == measure_case(eq10_corrected, case)


# --------------------------------------------------------------------------------------- Table 1
def test_fit_exponent_known_answers():
    assert fit_exponent({d: 3e-6 * d for d in (8, 32, 128)}) == pytest.approx(1.0)
    assert fit_exponent({d: 1e-9 * d**2 for d in (8, 32, 128)}) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="two distinct"):
        fit_exponent({8: 1.0})


def test_table1_violated_for_a_dense_recurrent_matrix():
    """W_p as a dense d_h×d_h product (a learned recurrent matrix, the O(T d_h²) rows of Table 1): the matrix
    outgrows every cache at d_h = 4096 (128 MB), and the measured exponent is ≈ 2 > 1.5."""
    case = TimingCase((1024, 2048, 4096), T=4, d_i=2, fr_hidden=(8,), seed=0, recurrence="dense", reps=2, batch=1)
    result = evaluate_cases(table1, [case])
    assert result.verdict == "violated", result.records[0].parts
    assert any(f.startswith("W_p applied as a permutation") for f in result.records[0].failed_assumptions)


# ---------------------------------------------------------------------------------- Gambler's ruin
def test_gamblers_ruin_T1_is_exact():
    """T = 1: every walk stops after one step, at 0 or at 2 with probability ½ each."""
    tau, vanished = simulate_gamblers_ruin(WalkCase(8, 500, 1, 0.5, 0))
    assert torch.equal(tau, torch.ones_like(tau))
    assert abs(vanished.double().mean().item() - 0.5) < 4.5 * math.sqrt(0.25 / 4000)


@pytest.mark.parametrize("claim", [gamblers_ruin, gamblers_ruin_corrected], ids=lambda c: c.id)
def test_gamblers_ruin_violated_for_biased_contributions(claim):
    """P(b = +1) = 0.6: the walk drifts up, P(vanish) = ((2/3) − (2/3)⁶)/(1 − (2/3)⁶) ≈ 0.63 ≠ 5/6 at T = 5."""
    result = evaluate_cases(claim, [WalkCase(64, 313, 5, 0.6, 0)])
    assert result.verdict == "violated"
    assert any(f.startswith("P(b(x_t) = +1)") for f in result.records[0].failed_assumptions)


def test_all_srnn_claims_have_the_issue_ids_and_sources():
    ids = [c.id for c in CLAIMS]
    assert ids == ["srnn.eq4", "srnn.eq9", "srnn.eq9.corrected", "srnn.eq10", "srnn.eq10.corrected", "srnn.eq11",
                   "srnn.eq11.corrected", "srnn.table1", "srnn.gamblers_ruin", "srnn.gamblers_ruin.corrected"]
    for c in CLAIMS:
        assert c.paper == "srnn" and c.source.startswith("srnn.md")
        assert c.statement and c.assumptions and c.explanation
