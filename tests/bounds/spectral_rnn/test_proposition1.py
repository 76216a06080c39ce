"""spectral_rnn.proposition1: Householder QR with a positive diagonal fails for singular B (exactly, B = 0 or
[[1, 1], [1, 1]]); with a non-negative diagonal and Π R_ii = |det B| it holds."""

import importlib

import torch

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.spectral_rnn import proposition1, proposition1_corrected
from rnnaudit.bounds.spectral_rnn.cases import MatrixCase
from rnnaudit.bounds.spectral_rnn.proposition1 import exact_rank
from rnnaudit.bounds.spectral_rnn.reflectors import proposition1_reflectors
from tests.bounds.helpers import TINY, assert_reproducible_violation, with_sizes
from tests.bounds.spectral_rnn.cases import F64, assert_holds_inside, haar

prop1_module = importlib.import_module("rnnaudit.bounds.spectral_rnn.proposition1")


def test_proposition1_corrected_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside(proposition1_corrected, [(1, 1), (3, 1), (5, 1)], tmp_path)


def test_printed_proposition1_is_violated_inside_its_assumptions_and_reloads(tmp_path):
    case = assert_reproducible_violation(with_sizes(proposition1, [(1, 1), (3, 1)]), TINY, tmp_path)
    assert exact_rank(case.A) < case.A.shape[0]  # the saved case is exactly singular


def test_proposition1_holds_for_nonsingular_matrices():
    """Orthogonal (Theorem 1's use) and ill-conditioned but nonsingular B: no zero pivot is forced."""
    ill = torch.diag(torch.tensor([1.0, 1e-12, 1.0], dtype=F64))
    result = evaluate_cases(proposition1, [MatrixCase(haar(4, 2), 4, 0), MatrixCase(ill, 3, 0)])
    assert result.verdict == "holds"


def test_exact_rank_is_exact():
    assert exact_rank(torch.tensor([[1.0, 1.0], [1.0, 1.0]], dtype=F64)) == 1
    assert exact_rank(torch.tensor([[1.0, 1.0], [1.0, 1.0 + 2**-52]], dtype=F64)) == 2
    assert exact_rank(torch.zeros(3, 3, dtype=F64)) == 0


def test_exact_counterexample():
    verdict = proposition1.exact()
    assert verdict.verdict == "violated" and "R_22 = 0" in verdict.detail


def _lapack_sign(B, **kw):
    """The other reflector sign (u = x + ‖x‖e_1, as LAPACK picks for x_1 > 0): R's diagonal comes out negative."""
    U_hat, R = proposition1_reflectors(-B, **kw)
    return U_hat, -R


def test_proposition1_corrected_check_has_power_against_the_other_sign(monkeypatch):
    monkeypatch.setattr(prop1_module, "proposition1_reflectors", _lapack_sign)
    result = check_claim(with_sizes(proposition1_corrected, [(3, 1)]), TINY, seed=0)
    assert result.verdict == "false" and result.worst_record.parts["R_ii ≥ 0"] > 1
