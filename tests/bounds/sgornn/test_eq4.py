"""FastRNN's eq. 4 as an assumption predicate."""

import pytest
import torch

from rnnaudit.bounds.sgornn import fastrnn_eq4_assumption, fastrnn_eq4_limit
from tests.bounds.sgornn.cases import aligned_case

F64 = torch.float64


def test_fastrnn_eq4_limit_matches_the_formula():
    U = torch.diag(torch.tensor([2.0, 0.5], dtype=F64))  # ‖U‖₂ = 2, ‖U‖_F = √4.25
    T, R_U = 10, 3.0
    expected = min(1 / (4 * T * 1.0), 1 / (4 * T * R_U), 1 / (T * 1.0))
    assert fastrnn_eq4_limit(U, T, R_U) == pytest.approx(expected)
    with pytest.raises(ValueError, match="R_U"):
        fastrnn_eq4_limit(U, T, 1.0)
    ok, detail = fastrnn_eq4_assumption(T=1000).check(aligned_case(0.5, 0.5 - 1e-9, kind="FastRNN"))
    assert not ok and "T = 1000" in detail
