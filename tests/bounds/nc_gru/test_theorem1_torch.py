"""nc_gru.theorem1_torch: Theorem 1's argument in torch.nn.GRU's form holds, is attained by its structured start,
has power, and is what the audit applies to a user's single-layer torch.nn.GRU."""

import pytest
import torch

from rnnaudit.bounds import evaluate_cases, measure_case
from rnnaudit.bounds.nc_gru import theorem1, theorem1_torch
from rnnaudit.bounds.nc_gru.theorem1_torch import TorchGRUCase, _sample, _starts
from rnnaudit.bounds.on_model import ModelView, assess
from rnnaudit.cells.adapters import wrap
from tests.bounds.helpers import TINY, assert_has_power, assert_reaches_supremum, with_sizes

F64 = torch.float64


def test_holds_on_random_torch_grus():
    gen = torch.Generator().manual_seed(0)
    cases = [_sample(gen, h, T) for h, T in [(1, 3), (3, 5), (8, 6)] for _ in range(15)]
    result = evaluate_cases(theorem1_torch, cases)
    assert result.verdict == "holds" and result.errors == []
    assert 0.0 < result.worst_ratio <= 1.0


def test_the_jacobian_is_torchs_own_cell():
    """The measured norm is the autograd Jacobian of torch.nn.GRUCell, cross-checked by finite differences."""
    case = _sample(torch.Generator().manual_seed(3), 3, 1)
    cell = torch.nn.GRUCell(case.x.shape[1], 3, dtype=F64)
    with torch.no_grad():
        for name, t in case.params().items():
            getattr(cell, name).copy_(t)
    h, eps = case.h0.clone(), 1e-6
    fd = torch.stack([(cell(case.x[:1], (h + eps * e)[None])[0] - cell(case.x[:1], (h - eps * e)[None])[0]) / (2 * eps)
                      for e in torch.eye(3, dtype=F64)], dim=1)
    ((measured, _),) = theorem1_torch.evaluate(case).values()
    # central differences of a smooth map at step 1e-6 in float64: truncation ~1e-12, rounding ~1e-10
    assert abs(float(measured) - torch.linalg.matrix_norm(fd, 2).item()) < 1e-8


def test_structured_start_attains_the_bound():
    (case,) = _starts(2, 1)
    ratio, _ = measure_case(theorem1_torch, case)
    assert abs(ratio - 1.0) < 1e-12


@pytest.mark.slow
def test_quick_search_reaches_the_supremum():
    assert_reaches_supremum(with_sizes(theorem1_torch, [(2, 1)]))


def test_has_power():
    """The supremum is 1, so the bound divided by 1.02 is false and the search must say so."""
    assert_has_power(with_sizes(theorem1_torch, [(2, 1), (2, 3)]), 1.02, TINY)


def test_applies_to_a_wrapped_torch_gru_and_not_to_eq1():
    torch.manual_seed(0)
    gru = torch.nn.GRU(2, 5, batch_first=True).double()
    view = ModelView(wrap(gru), torch.randn(2, 7, 2, dtype=F64))
    on_model = assess(theorem1_torch, view)
    assert on_model.applies and on_model.assumptions_hold and on_model.verdict == "holds"
    assert 0 < on_model.worst_ratio <= 1
    other = assess(theorem1, view)
    assert not other.applies and "nc_gru.theorem1_torch" in other.reason


def test_refuses_a_stacked_gru():
    view = ModelView(wrap(torch.nn.GRU(2, 4, num_layers=2, batch_first=True).double()), torch.zeros(1, 3, 2,
                                                                                                    dtype=F64))
    on_model = assess(theorem1_torch, view)
    assert not on_model.applies and "2 layers" in on_model.reason


def test_case_size():
    (case,) = _starts(4, 6)
    assert isinstance(case, TorchGRUCase) and case.size() == (4, 6)
