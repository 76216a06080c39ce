"""spectral_rnn.theorem5: vacuous at the sizes checked, Corollary 1 fails for σ* ≠ 1, and the bound's
closed form on a known case."""

import math

import pytest
import torch

from rnnaudit.bounds import case_from_state, case_state, evaluate_cases
from rnnaudit.bounds.spectral_rnn import theorem5
from rnnaudit.bounds.spectral_rnn.theorem5 import GeneralizationCase, theorem5_bounds
from tests.bounds.spectral_rnn.cases import F64, assert_holds_inside, failed, gen


def test_theorem5_vacuous_inside_its_assumptions(tmp_path):
    assert_holds_inside(theorem5, [(2, 1), (4, 5)], tmp_path, expected="vacuous")


def test_theorem5_corollary_violated_when_sigma_star_is_not_one():
    """σ* = 1.5: ‖W‖ reaches 1.5 + r > 1 + r, so G(w) > Corollary 1's G."""
    case = theorem5.cases.sample(gen(7), 4, 6, "cpu", F64)
    state = case_state(case)
    state["cell"]["config"]["sigma_star"] = 1.5
    state["cell"]["params"]["sigma_hat"] = torch.full((4,), 5.0, dtype=F64)
    result = evaluate_cases(theorem5, [case_from_state(GeneralizationCase, state)])
    assert result.verdict == "false" and failed(result, "Spectral-RNN with σ* = 1")


def test_theorem5_bounds_known_values_and_vacuity():
    """W = 0, M = Y = I₂, B = 1, T = 1, γ = 1, m = 100, δ = 0.05: β = 1, ‖w‖² = 4, h = 2,
    G = 1·1·2 ln 2 · 4 = 8 ln 2; the proof's bound exceeds 1 (vacuous) and the O-constant-1 bound."""
    I2 = torch.eye(2, dtype=F64)
    out = theorem5_bounds(torch.zeros(2, 2, dtype=F64), I2, I2, B=1.0, T=1, gamma=1.0, delta=0.05, m=100, r=0.1)
    assert out["beta"] == 1.0 and out["G"] == pytest.approx(8 * math.log(2), rel=1e-12)
    assert out["G_corollary"] == pytest.approx(out["G"], rel=1e-12)  # (1 + r)^0 = 1 at T = 1
    assert out["bound_O1"] == pytest.approx(math.sqrt((8 * math.log(2) + math.log(2000)) / 100), rel=1e-12)
    assert out["bound_proof"] > 1 > out["bound_O1"]
    with pytest.raises(ValueError, match="γ > 0"):
        theorem5_bounds(I2, I2, I2, B=1.0, T=1, gamma=0.0, delta=0.05, m=100)
