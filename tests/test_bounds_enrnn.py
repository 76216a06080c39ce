"""The enrnn.md claim checks: the coupling remark, Theorem 3.1, the corrected Proposition 3.2 and eq. 5's own
distribution hold inside their assumptions; the printed Proposition 3.2 (ε > 0) and the "uniform on the disc"
sentence are violated inside theirs, with reloadable counterexamples; every check reports "violated" for a
hand-made case outside its assumptions."""

import dataclasses
import math

import pytest
import torch
from scipy.stats import kstest

from tests.claim_asserts import assert_reproducible_violation
from rnnaudit.bounds import Profile, check_claim, evaluate_cases, measure_case
from rnnaudit.bounds.enrnn import (CLAIMS, ENRNNCase, InitCase, coupling, eq5, eq5_corrected, ks_statistic, proposition32,
                          proposition32_corrected, sample_coupling_case, sample_prop32_case, theorem31)
from rnnaudit.cells import ENRNN

F64 = torch.float64
TINY = Profile("quick", n_random=6, restarts=2, ascent_steps=8)
SMALL = {coupling.id: [(2, 1), (5, 1), (8, 1)], theorem31.id: [(1, 2), (3, 5), (5, 8)],
         proposition32.id: [(2, 1), (4, 4), (6, 6)], eq5.id: [(1024, 1)]}


def small(claim):
    return dataclasses.replace(claim, sizes={"quick": SMALL[claim.id.removesuffix(".corrected")]})


def hand_cell(q, p, T, *, activation="relu", eps=0.0, W_C=None, latched=False, b=0.0):
    """ENRNN with Θ = 0 (W^(L) = I), the given T (W^(S) by the Sec. 4 rule) and W^(C); m = 1."""
    cell = ENRNN(1, q, p, eps=eps, coupling=W_C is not None, activation=activation, dtype=F64).eval()
    with torch.no_grad():
        cell.phi.theta.zero_()
        cell.T.copy_(torch.as_tensor(T, dtype=F64))
        if W_C is not None:
            cell.W_C.copy_(torch.as_tensor(W_C, dtype=F64))
        cell.b_L.fill_(b)
        cell.b_S.fill_(b)
        cell.normalizing.fill_(latched)
    return cell


def case_of(cell, T=6, W_lower=None, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(1, T, cell.input_size, generator=g, dtype=F64)
    v = torch.randn(T, cell.hidden_size, generator=g, dtype=F64)
    return ENRNNCase(cell, x, v, None if W_lower is None else torch.as_tensor(W_lower, dtype=F64))


@pytest.mark.parametrize("claim", [coupling, theorem31, proposition32_corrected, eq5_corrected], ids=lambda c: c.id)
def test_claim_holds_inside_its_assumptions(claim, tmp_path):
    result = check_claim(small(claim), TINY, seed=1, out_dir=tmp_path)
    assert result.verdict == "holds", result.notes_text()
    assert result.errors == []
    assert result.worst_ratio <= 1 + claim.tolerance


@pytest.mark.parametrize("claim", [proposition32, eq5], ids=lambda c: c.id)
def test_printed_claim_is_violated_inside_its_assumptions(claim, tmp_path):
    """Prop. 3.2 with its printed inner 1/ρ̃ (ε > 0) and eq. 5's 'uniform on the disc' fail inside their
    assumptions; the smallest counterexample reloads and reproduces its ratio."""
    assert_reproducible_violation(small(claim), TINY, tmp_path, seed=0, rel=1e-9)


# --------------------------------------------------------------------------------------------- coupling
def test_coupling_violated_with_a_lower_block():
    """A block W[q:, :q] (coupling h^(L) into h^(S), excluded by eq. 2) moves the eigenvalues: with W^(L) = I,
    W^(S) = 0.5 I and W^(C) = I, a lower block 2I makes W's eigenvalues 0.75 ± √(1/16 + 2)."""
    cell = hand_cell(2, 2, 0.5 * torch.eye(2), W_C=torch.eye(2), activation="modrelu")
    result = evaluate_cases(coupling, [case_of(cell, T=1, W_lower=2 * torch.eye(2))])
    assert result.verdict == "violated"
    assert any(f.startswith("W block upper triangular") for f in result.records[0].failed_assumptions)


def test_coupling_holds_with_eps_zero_and_a_shared_eigenvalue():
    """Sec. 5's ε = 0: normalised W^(S) has ρ = 1 exactly, and W^(C) couples it to W^(L)'s eigenvalue 1, so W
    has a defective double eigenvalue 1; the spectrum is still the union of the blocks' (to the stated
    eigenvalue accuracy) and ρ(W) = 1."""
    cell = hand_cell(2, 2, torch.tensor([[2.0, 1.0], [0.0, 0.5]]), W_C=5 * torch.ones(2, 2), activation="modrelu")
    case = case_of(cell, T=1)
    ratio, parts = measure_case(coupling, case)
    assert ratio <= 1 + coupling.tolerance and parts["ρ(W) ≤ 1"] == pytest.approx(1, abs=1e-5)


# ------------------------------------------------------------------------------------------ Theorem 3.1
def test_theorem31_violated_when_h_long_feeds_h_short():
    """W^(L) = I, W^(S) = 0.5 I, W^(C) = 5I and a lower block 5I: ∂h^(S)_{t+2}/∂h^(S)_t picks up the path
    S → L → S of norm 25 ≫ ‖W^(S)‖₂² = 0.25 (every ReLU on: b = 1, x = 0)."""
    cell = hand_cell(2, 2, 0.5 * torch.eye(2), W_C=5 * torch.eye(2), b=1.0)
    case = case_of(cell, T=4, W_lower=5 * torch.eye(2))
    case.x.zero_()
    result = evaluate_cases(theorem31, [case])
    assert result.verdict == "violated"
    assert any(f.startswith("W block upper triangular") for f in result.records[0].failed_assumptions)


def test_theorem31_inequality_survives_without_its_norm_hypothesis():
    """‖W^(S)‖₂ = 2.06 > 1 (non-normal T, ρ(T) = 0.5, so W^(S) = T): the hypothesis fails, yet the bounds hold,
    since the proof only uses ‖G_k‖₂ ≤ 1 and submultiplicativity."""
    cell = hand_cell(1, 2, [[0.5, 2.0], [0.0, 0.5]], b=1.0)
    result = evaluate_cases(theorem31, [case_of(cell, T=8)])
    assert result.verdict == "holds"
    assert any(f.startswith("‖W^(S)‖₂ < 1") for f in result.records[0].failed_assumptions)


def test_theorem31_bound_is_attained_for_symmetric_W_with_all_units_on():
    cell = hand_cell(0, 3, [[0.3, 0.2, 0.0], [0.2, 0.3, 0.1], [0.0, 0.1, 0.3]], b=3.0)
    case = case_of(cell, T=6)
    case.x.mul_(0.1)
    ratio, parts = measure_case(theorem31, case)
    assert parts["‖∂h^(S)_{t+τ}/∂h^(S)_t‖₂ ≤ ‖W^(S)‖₂^τ"] == pytest.approx(1.0, abs=1e-12)


# -------------------------------------------------------------------------------------- Proposition 3.2
@pytest.mark.parametrize("claim", [proposition32, proposition32_corrected], ids=lambda c: c.id)
def test_prop32_violated_before_normalisation_starts(claim):
    """ρ(T) = 0.8 < 1 and not latched: Sec. 4 trains W^(S) = T itself, so ∂L/∂T = ∂L/∂W and the
    normalisation formula does not apply."""
    cell = hand_cell(1, 2, [[0.8, 0.3], [0.0, -0.4]], activation="tanh", eps=0.1, W_C=[[0.7, -0.2]])
    result = evaluate_cases(claim, [case_of(cell)])
    assert result.verdict == "violated"
    assert any(f.startswith("W^(S) = T/(ρ(T) + ε)") for f in result.records[0].failed_assumptions)


def test_prop32_printed_is_exact_at_eps_zero_outside_its_hypothesis():
    """Sec. 5 uses ε = 0, which the Proposition's 'ε > 0' excludes; there the printed formula equals the
    corrected one and matches autograd and central differences."""
    case = sample_prop32_case(torch.Generator().manual_seed(4), 6, 6)
    case.cell.eps = 0.0
    result = evaluate_cases(proposition32, [case])
    assert result.verdict == "holds"
    assert result.records[0].failed_assumptions and result.records[0].failed_assumptions[0].startswith("ε > 0")


def test_prop32_printed_error_grows_with_eps():
    """The printed formula's error is first order in ε/ρ: ten times the ε, about ten times the error."""
    case = sample_prop32_case(torch.Generator().manual_seed(2), 5, 5)
    errs = []
    for eps in (1e-4, 1e-3):
        case.cell.eps = eps
        errs.append(measure_case(proposition32, case)[1]["Prop. 3.2 printed (inner 1/ρ̃) = autograd"])
    assert 7 < errs[1] / errs[0] < 13


def test_enrnn_case_state_round_trip():
    case = sample_coupling_case(torch.Generator().manual_seed(1), 6, 3)
    again = ENRNNCase.from_state(case.state())
    assert measure_case(coupling, again) == measure_case(coupling, case)


# ------------------------------------------------------------------------------------------------- eq. 5
def _blocks_T(gamma, t):
    c, s = gamma * torch.cos(t), gamma * torch.sin(t)
    return torch.block_diag(*[torch.stack([torch.stack([ci, -si]), torch.stack([si, ci])]) for ci, si in zip(c, s)])


def _hand_init(kind, k=512, seed=0):
    g = torch.Generator().manual_seed(seed)
    t = torch.rand(k, generator=g, dtype=F64) * (math.pi / 2)
    sign = torch.where(torch.rand(k, generator=g) < 0.5, 1.0, -1.0).to(F64)
    u = torch.rand(k, generator=g, dtype=F64)
    gamma = sign * (u.sqrt() if kind == "disc" else 0.5 * u)
    pick = torch.where(torch.rand(k, generator=g) < 0.5, 1.0, -1.0).to(F64)
    return InitCase(_blocks_T(gamma, t), pick, source=kind)


def test_eq5_violated_for_an_init_with_the_wrong_moduli():
    """γ_j ~ U[−½, ½): |λ| ≤ ½, neither eq. 5's law nor the disc's."""
    for claim in (eq5, eq5_corrected):
        result = evaluate_cases(claim, [_hand_init("half")])
        assert result.verdict == "violated"
        assert any(f.startswith("T drawn by eq. 5") for f in result.records[0].failed_assumptions)


def test_eq5_checks_tell_the_disc_from_eq5():
    """γ_j = ±√U (what 'uniform on the disc' needs) passes the printed sentence's test and fails eq. 5's own."""
    case = _hand_init("disc")
    assert evaluate_cases(eq5, [case]).verdict == "holds"
    assert evaluate_cases(eq5_corrected, [case]).verdict == "violated"


def test_ks_statistic_matches_scipy():
    x = torch.rand(300, generator=torch.Generator().manual_seed(0), dtype=F64) ** 1.5
    assert ks_statistic(x, lambda s: s).item() == pytest.approx(kstest(x.numpy(), "uniform").statistic, rel=1e-12)


def test_all_enrnn_claims_have_the_issue_ids_and_sources():
    ids = [c.id for c in CLAIMS]
    assert ids == ["enrnn.coupling", "enrnn.theorem3.1", "enrnn.proposition3.2", "enrnn.proposition3.2.corrected",
                   "enrnn.eq5", "enrnn.eq5.corrected", "enrnn.transient"]
    for c in CLAIMS:
        assert c.paper == "enrnn" and c.source.startswith("enrnn.md")
        assert c.statement and c.assumptions and c.explanation


def test_transient_holds_and_shows_amplification_for_non_normal_matrices():
    from rnnaudit.bounds.enrnn import TRANSIENT_HORIZON, sample_transient_case, transient
    from rnnaudit.analysis import transient_growth

    result = check_claim(transient, Profile("quick", n_random=6, restarts=0, ascent_steps=0), seed=0)
    assert result.verdict == "holds" and result.errors == []
    # the horizon covers the transient: the curve has decayed below its peak by the end
    case = sample_transient_case(torch.Generator().manual_seed(5), 16, 1)
    growth = transient_growth(case.A, TRANSIENT_HORIZON)
    assert growth.peak > 1 and float(growth.curve[-1]) < 1e-6 * growth.peak


def test_transient_violated_when_rho_reaches_one():
    """ρ = 1.0001 > 1: (ρ_ε − 1)/ε ≈ 1.1 at ε = 1e-3, but the 400 computed powers only reach 1.04."""
    from rnnaudit.bounds.enrnn import TransientCase, transient

    result = evaluate_cases(transient, [TransientCase(1.0001 * torch.eye(3, dtype=torch.float64))])
    assert result.verdict == "violated"
    assert result.records[0].failed_assumptions[0].startswith("ρ(W^(S)) < 1")
