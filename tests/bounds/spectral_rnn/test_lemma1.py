"""spectral_rnn.lemma1: V^(k1) and V^(k2) share their first n − max(k1, k2) + 1 columns (one more than printed,
the one Theorem 4's proof needs), and not one more."""

import importlib

import torch

from rnnaudit.bounds import check_claim
from rnnaudit.bounds.spectral_rnn import lemma1
from tests.bounds.helpers import TINY, with_sizes
from tests.bounds.spectral_rnn.cases import assert_holds_inside

lemma1_module = importlib.import_module("rnnaudit.bounds.spectral_rnn.lemma1")


def test_lemma1_holds_in_both_readings(tmp_path):
    assert_holds_inside(lemma1, [(2, 1), (3, 1), (8, 1)], tmp_path)


def test_lemma1_check_has_power_one_column_further(monkeypatch):
    """Column n − max(k1, k2) + 2 is moved by H_{max − 1}: a range one longer is caught."""
    monkeypatch.setattr(lemma1_module, "READINGS",
                        (("one column too many", lambda n, k1, k2: n - max(k1, k2) + 2),))
    result = check_claim(with_sizes(lemma1, [(4, 1), (8, 1)]), TINY, seed=0)
    assert result.verdict == "false"
    assert torch.is_tensor(result.counterexample_case.case.A)
