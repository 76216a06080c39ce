"""spectral_rnn.eq7: the singular values stay in [σ* − r, σ* + r]; a negative range breaks it."""

from rnnaudit.bounds import evaluate_cases
from rnnaudit.bounds.spectral_rnn import eq7
from rnnaudit.bounds.spectral_rnn.cases import SpectralCellCase
from rnnaudit.cells import SpectralRNN
from tests.bounds.spectral_rnn.cases import F64, assert_holds_inside, failed, gen


def test_eq7_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside(eq7, [(1, 1), (3, 1), (6, 1)], tmp_path)


def test_eq7_violated_for_a_negative_range():
    """σ* = −1, r = 0.1: σ_i ∈ [−1.1, −0.9] but the singular values |σ_i| are near 1 > σ* + r."""
    cell = SpectralRNN(1, 4, 2, 2, r=0.1, sigma_star=-1.0, bias=False, generator=gen(5), dtype=F64)
    result = evaluate_cases(eq7, [SpectralCellCase(cell)])
    assert result.verdict == "false" and failed(result, "σ* ≥ r")
