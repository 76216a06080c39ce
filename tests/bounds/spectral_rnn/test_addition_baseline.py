"""spectral_rnn.addition_baseline: always answering 1 has MSE 1/6 ≈ 0.167 on the addition task; a baseline
mistaken for Var(u) = 1/12 is caught."""

import importlib

from rnnaudit.bounds import check_claim
from rnnaudit.bounds.spectral_rnn import addition_baseline
from tests.bounds.helpers import TINY
from tests.bounds.spectral_rnn.cases import assert_holds_inside

module = importlib.import_module("rnnaudit.bounds.spectral_rnn.addition_baseline")


def test_addition_baseline_holds_and_is_exactly_one_sixth(tmp_path):
    assert_holds_inside(addition_baseline, [(2, 30)], tmp_path)
    assert "1/6" in addition_baseline.exact().detail and addition_baseline.exact().verdict == "proved"


def test_addition_baseline_check_has_power(monkeypatch):
    monkeypatch.setattr(module, "BASELINE_PRINTED", 1 / 12)
    assert check_claim(addition_baseline, TINY).verdict == "false"
