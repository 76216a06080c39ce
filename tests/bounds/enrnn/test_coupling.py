"""enrnn.coupling: the spectrum of W is the union of its blocks' inside eq. 2, and a lower block breaks it."""

import pytest
import torch

from rnnaudit.bounds import check_claim, evaluate_cases, measure_case
from rnnaudit.bounds.enrnn import coupling
from tests.bounds.enrnn.cases import assert_holds_inside_its_assumptions, case_of, hand_cell, small
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum


def test_coupling_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside_its_assumptions(coupling, tmp_path)


def test_coupling_violated_with_a_lower_block():
    """A block W[q:, :q] (coupling h^(L) into h^(S), excluded by eq. 2) moves the eigenvalues: with W^(L) = I,
    W^(S) = 0.5 I and W^(C) = I, a lower block 2I makes W's eigenvalues 0.75 ± √(1/16 + 2)."""
    cell = hand_cell(2, 2, 0.5 * torch.eye(2), W_C=torch.eye(2), activation="modrelu")
    result = evaluate_cases(coupling, [case_of(cell, T=1, W_lower=2 * torch.eye(2))])
    assert result.verdict == "false"
    assert any(f.startswith("W block upper triangular") for f in result.records[0].failed_assumptions)


def test_coupling_holds_with_eps_zero_and_a_shared_eigenvalue():
    """Sec. 5's ε = 0: normalised W^(S) has ρ = 1 exactly, and W^(C) couples it to W^(L)'s eigenvalue 1, so W
    has a defective double eigenvalue 1; the spectrum is still the union of the blocks' (to the stated
    eigenvalue accuracy) and ρ(W) = 1."""
    cell = hand_cell(2, 2, torch.tensor([[2.0, 1.0], [0.0, 0.5]]), W_C=5 * torch.ones(2, 2), activation="modrelu")
    case = case_of(cell, T=1)
    ratio, parts = measure_case(coupling, case)
    assert ratio <= 1 + coupling.tolerance and parts["ρ(W) ≤ 1"] == pytest.approx(1, abs=1e-5)


def test_coupling_reaches_rho_one_and_has_power():
    """ρ(W) = 1 whenever q ≥ 1 (W^(L) orthogonal), the supremum of 'ρ(W) ≤ 1'; halving the bound fails."""
    assert_reaches_supremum(coupling)
    assert_has_power(small(coupling), 2, TINY)


def test_coupling_identity_parts_report_relative_errors():
    result = check_claim(small(coupling), TINY, seed=0)
    assert result.to_json()["relative_error"] is not None and result.to_json()["relative_error"] < 1e-6


def test_coupling_keeps_the_eigenvalues_while_the_powers_of_w_grow():
    """The decision in the notes, measured: on the structured start (W^(L) = W^(S) = I, W^(C) = 5·(all ones)) every
    eigenvalue is 1, yet ‖W^32‖₂ = 1280 + O(1/k) at h = 16 (q = p = 8: ‖W^(C)‖₂ = 40), against 1 for the uncoupled
    powers; the paper's Sec. 2 calls such transient growth intended (decision, not a failing verdict)."""
    from rnnaudit.bounds.enrnn.cases import recurrent_matrix
    from rnnaudit.bounds.enrnn.coupling import _starts

    (case,) = _starts(16, 1)
    with torch.no_grad():
        W = recurrent_matrix(case)
    assert torch.allclose(torch.linalg.eigvals(W), torch.ones(16, dtype=torch.complex128))
    q = 16 - case.cell.short_size
    uncoupled = W.clone()
    uncoupled[:q, q:] = 0
    grown = float(torch.linalg.matrix_norm(torch.linalg.matrix_power(W, 32), ord=2))
    kept = float(torch.linalg.matrix_norm(torch.linalg.matrix_power(uncoupled, 32), ord=2))
    assert kept == pytest.approx(1.0) and grown == pytest.approx(1280, rel=1e-3)
