"""spectral_rnn.eq7: the singular values stay in [σ* − r, σ* + r] (σ* ≥ r, and under the reading σ* ≥ 0); a negative
σ* breaks it."""

import dataclasses

import pytest
import torch

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.spectral_rnn import eq7
from rnnaudit.bounds.spectral_rnn.cases import A_F64
from rnnaudit.bounds.spectral_rnn.eq7 import A_R_NONNEG
from rnnaudit.bounds.spectral_rnn.cases import SpectralCellCase
from rnnaudit.cells import SpectralRNN
from tests.bounds.helpers import TINY
from tests.bounds.spectral_rnn.cases import F64, assert_holds_inside, failed, gen


def test_eq7_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside(eq7, [(1, 1), (3, 1), (6, 1)], tmp_path)


def test_eq7_violated_for_a_negative_range():
    """σ* = −1, r = 0.1: σ_i ∈ [−1.1, −0.9] but the singular values |σ_i| are near 1 > σ* + r."""
    cell = SpectralRNN(1, 4, 2, 2, r=0.1, sigma_star=-1.0, bias=False, generator=gen(5), dtype=F64)
    result = evaluate_cases(eq7, [SpectralCellCase(cell)])
    assert result.verdict == "false" and failed(result, "σ* ≥ r")


def test_eq7_reading_with_sigma_star_nonnegative_holds_without_sigma_star_at_least_r():
    """σ* ≥ 0 suffices (rnnaudit's σ* ≥ r is stronger): σ* = 0.3, r = 0.8 and σ* = 0, r = 0.5, saturated σ̂ = ±40,
    keep every singular value in [σ* − r, σ* + r]; the reading's random cases (σ* < r in most) hold too."""
    (reading,) = eq7.readings
    as_read = dataclasses.replace(eq7, evaluate=reading.evaluate, assumptions=reading.assumptions, readings=())
    for sigma_star, r in ((0.3, 0.8), (0.0, 0.5)):
        cell = SpectralRNN(1, 4, 2, 2, r=r, sigma_star=sigma_star, bias=False, generator=gen(6), dtype=F64)
        with torch.no_grad():
            cell.sigma_hat.copy_(torch.tensor([40.0, -40.0, 0.5, -3.0], dtype=F64))
        assert failed(evaluate_cases(eq7, [SpectralCellCase(cell)]), "σ* ≥ r")
        result = evaluate_cases(as_read, [SpectralCellCase(cell)])
        assert result.verdict == "holds" and result.worst_ratio == pytest.approx(1, abs=1e-9), (sigma_star, r)
    narrow = dataclasses.replace(eq7, cases=dataclasses.replace(eq7.cases, sizes={"quick": [(2, 1), (3, 1), (5, 1)]}))
    assert [r.verdict for r in check_claim(narrow, TINY, seed=0).readings] == ["holds"]


def test_eq7_reading_is_violated_for_a_negative_sigma_star():
    """The negative control: σ* = −0.2, r = 0.5 with σ̂ = −40 gives σ_i → −0.7, a singular value 0.7 = 2.33 (σ* + r);
    the reading's own check, without its σ* ≥ 0, says false."""
    cell = SpectralRNN(1, 3, 1, 1, r=0.5, sigma_star=-0.2, bias=False, generator=gen(7), dtype=F64)
    with torch.no_grad():
        cell.sigma_hat.copy_(torch.tensor([-40.0, 0.0, 1.0], dtype=F64))
    (reading,) = eq7.readings
    unrestricted = dataclasses.replace(eq7, evaluate=reading.evaluate, assumptions=(A_R_NONNEG, A_F64), readings=())
    result = evaluate_cases(unrestricted, [SpectralCellCase(cell)])
    assert result.verdict == "false" and result.worst_ratio == pytest.approx(0.7 / 0.3, rel=1e-6)
