"""enrnn.eq5 and its corrected form: eq. 5's own distribution holds, the "uniform on the disc" sentence is
violated with a reloadable counterexample, and the two checks tell the disc from eq. 5."""

import math

import pytest
import torch
from scipy.stats import kstest

from rnnaudit.bounds import evaluate_cases
from rnnaudit.bounds.enrnn import eq5, eq5_corrected
from rnnaudit.bounds.enrnn.eq5 import InitCase, ks_statistic
from tests.bounds.enrnn.cases import F64, assert_holds_inside_its_assumptions, small
from tests.bounds.helpers import TINY, assert_reproducible_violation


def test_eq5_corrected_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside_its_assumptions(eq5_corrected, tmp_path)


def test_printed_eq5_is_violated_inside_its_assumptions(tmp_path):
    """Eq. 5's 'uniform on the disc' fails inside its assumptions; the smallest counterexample reloads and
    reproduces its ratio."""
    assert_reproducible_violation(small(eq5), TINY, tmp_path, seed=0, rel=1e-9)


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
        assert result.verdict == "false"
        assert any(f.startswith("T drawn by eq. 5") for f in result.records[0].failed_assumptions)


def test_eq5_checks_tell_the_disc_from_eq5():
    """γ_j = ±√U (what 'uniform on the disc' needs) passes the printed sentence's test and fails eq. 5's own."""
    case = _hand_init("disc")
    assert evaluate_cases(eq5, [case]).verdict == "holds"
    assert evaluate_cases(eq5_corrected, [case]).verdict == "false"


def test_ks_statistic_matches_scipy():
    x = torch.rand(300, generator=torch.Generator().manual_seed(0), dtype=F64) ** 1.5
    assert ks_statistic(x, lambda s: s).item() == pytest.approx(kstest(x.numpy(), "uniform").statistic, rel=1e-12)
