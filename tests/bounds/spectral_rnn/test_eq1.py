"""spectral_rnn.eq1: the reflector of eq. 1 / eq. 8 is a symmetric orthogonal involution with one eigenvalue −1,
invariant to ‖u‖, and Hprod (Algorithm 2) computes H h; the projector misreading of eq. 1 is caught."""

import importlib

import torch

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.spectral_rnn import eq1
from rnnaudit.bounds.spectral_rnn.eq1 import ReflectorCase, householder
from tests.bounds.helpers import TINY, with_sizes
from tests.bounds.spectral_rnn.cases import F64, assert_holds_inside

eq1_module = importlib.import_module("rnnaudit.bounds.spectral_rnn.eq1")


def test_eq1_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside(eq1, [(1, 1), (3, 1), (8, 1)], tmp_path)


def test_eq1_exact_verdict_is_a_symbolic_proof():
    assert eq1.exact().verdict == "proved"


def test_householder_of_a_known_vector():
    """u = (1, 1) in ℝ³ (k = 2): H = diag(1, [[0, −1], [−1, 0]])."""
    H = householder(torch.tensor([1.0, 1.0], dtype=F64), 3)
    assert torch.equal(H, torch.tensor([[1.0, 0, 0], [0, 0, -1], [0, -1, 0]], dtype=F64))
    assert torch.equal(householder(torch.zeros(2, dtype=F64), 3), torch.eye(3, dtype=F64))


def _projector(u, n):
    """The misreading I − uuᵀ/‖u‖² of eq. 1's transcription: a projector, not a reflector."""
    k, out = u.shape[0], torch.eye(n, dtype=u.dtype)
    if bool((u @ u) > 0):
        out[n - k:, n - k:] -= torch.outer(u, u) / (u @ u)
    return out


def test_eq1_check_has_power_against_the_projector_reading(monkeypatch):
    monkeypatch.setattr(eq1_module, "householder", _projector)
    result = check_claim(with_sizes(eq1, [(3, 1)]), TINY, seed=0)
    assert result.verdict == "false" and result.errors == []
    assert result.worst_record.parts["H² = I (orthogonal)"] > 1


def test_eq1_violated_for_a_zero_rescaling():
    case = ReflectorCase(torch.ones(2, dtype=F64), 2, torch.ones(2, dtype=F64), 0.0)
    assert evaluate_cases(eq1, [case]).errors  # c = 0 is outside "c ≠ 0"
