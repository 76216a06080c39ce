"""spectral_rnn.eq13: eq. 12 and eq. 13 are the gradients of a reflector (against autograd), to float64's
tolerance, and a sign slip in eq. 13 would be caught."""

import importlib

import pytest
import torch

from rnnaudit.bounds import check_claim, evaluate_cases
from rnnaudit.bounds.spectral_rnn import eq13
from tests.bounds.helpers import TINY, with_sizes
from tests.bounds.spectral_rnn.cases import F64, assert_holds_inside, failed, gen

eq13_module = importlib.import_module("rnnaudit.bounds.spectral_rnn.eq13")  # the package's `eq13` is the claim


def test_eq13_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside(eq13, [(2, 1), (3, 1), (6, 1)], tmp_path)


def test_eq13_reports_a_relative_error_on_its_worst_case():
    result = check_claim(with_sizes(eq13, [(3, 1), (5, 1)]), TINY, seed=2)
    rel = result.to_json()["relative_error"]
    assert rel is not None and 0 <= rel < 1e-12


def _eq13_with_a_sign_slip(h, u_hat, g):
    """eq. 13 with −4 for +4 on the ûûᵀ term (the slip a hand derivation makes)."""
    q = u_hat @ u_hat
    uh, ug = (h @ u_hat)[..., None], (g @ u_hat)[..., None]
    return (-2 * uh / q * g - 2 * ug / q * h - 4 * uh * ug / q ** 2 * u_hat).reshape(-1, u_hat.shape[0]).sum(0)


def test_eq13_check_has_power_against_a_sign_slip(monkeypatch):
    monkeypatch.setattr(eq13_module, "eq13_formula", _eq13_with_a_sign_slip)
    result = check_claim(with_sizes(eq13, [(3, 1)]), TINY, seed=0)
    assert result.verdict == "false" and result.errors == []


@pytest.mark.parametrize("scale", [1e-3, 1e3])
def test_eq13_holds_whatever_the_reflector_norm(scale):
    case = eq13.cases.sample(gen(5), 4, 1, "cpu", F64)
    with torch.no_grad():
        case.cell.U.mul_(scale)
    assert evaluate_cases(eq13, [case]).verdict == "holds"


def test_eq13_violated_in_float32():
    """The 1e-10 tolerance is float64's; in float32 the same correct formulas miss it by ~1e3."""
    case = eq13.cases.sample(gen(6), 4, 1, "cpu", torch.float32)
    result = evaluate_cases(eq13, [case])
    assert result.verdict == "false" and failed(result, "float64")
