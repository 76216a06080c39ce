"""srnn.eq9 and srnn.eq9.corrected: the printed eq. 8–9 fail against autograd from t = 2 on, the
corrected forms agree with it."""

import torch

from rnnaudit.bounds import check_claim
from rnnaudit.bounds.srnn import eq9, eq9_corrected
from rnnaudit.bounds.srnn.eq9 import eq8_recursion, eq9_as_printed
from tests.bounds.helpers import TINY, assert_reproducible_violation
from tests.bounds.srnn.cases import F64, assert_exact_agrees, small, with_identity_error


def test_eq9_corrected_holds_inside_its_assumptions(tmp_path):
    result = check_claim(small(eq9_corrected), TINY, seed=1, out_dir=tmp_path)
    assert result.verdict == "holds", result.notes_text()
    assert result.errors == []
    assert result.worst_ratio <= 1 + eq9_corrected.tolerance


def test_printed_eq9_is_violated_inside_its_assumptions(tmp_path):
    """The printed eq. 8–9 fail on cases drawn inside the assumptions; the smallest counterexample
    reloads and reproduces its ratio."""
    assert_reproducible_violation(small(eq9), TINY, tmp_path, seed=0, rel=1e-12)


def test_eq8_eq9_printed_agree_with_the_correction_at_t1_only():
    """Known structure: at t = 1 both printed forms reduce to σ'(z_1) ∂b(x_1); from t = 2 on they differ."""
    g = torch.Generator().manual_seed(3)
    D, db = torch.rand(4, 5, generator=g, dtype=F64), torch.randn(4, 5, 2, generator=g, dtype=F64)
    corrected = eq8_recursion(D, db, as_printed=False)
    for printed in (eq8_recursion(D, db, as_printed=True), eq9_as_printed(D, db)):
        torch.testing.assert_close(printed[0], corrected[0], rtol=0, atol=0)
        assert (printed[1:] - corrected[1:]).abs().max() > 1e-2


def test_eq9_exact_verdicts_agree_and_relative_errors_are_reported():
    printed = check_claim(small(eq9), TINY, seed=0)
    corrected = check_claim(small(eq9_corrected), TINY, seed=0)
    assert_exact_agrees(printed)
    assert_exact_agrees(corrected)
    assert printed.worst_record.relative_error > 0.01  # the printed formulas are wrong by O(1), not by rounding
    assert corrected.worst_record.relative_error < 1e-12


def test_eq9_corrected_catches_a_formula_off_by_one_part_in_a_million():
    assert check_claim(small(with_identity_error(eq9_corrected, 1e-6)), TINY, seed=0).verdict == "false"
