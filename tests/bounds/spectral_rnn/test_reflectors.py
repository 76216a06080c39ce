"""Proposition 1's Householder QR and the SVD reflectors shared by Theorems 1–4."""

import math

import pytest
import torch

from rnnaudit.bounds.spectral_rnn.reflectors import proposition1_reflectors, svd_reflectors
from rnnaudit.cells import reflector_product
from tests.bounds.spectral_rnn.cases import F64, gen


def test_proposition1_gives_positive_diagonal_r_and_its_u_zero_branch():
    """Prop. 1: B = H_n(u_n)…H_1(u_1) R with R upper triangular, diagonal ≥ 0; u = 0 when the column is
    already ‖B_1‖e_1 (so I has all u = 0), and diag(1, …, 1, −1) needs exactly u_1 ≠ 0 (H_1^1 = −1)."""
    B = torch.randn(6, 6, generator=gen(8), dtype=F64)
    U_hat, R = proposition1_reflectors(B)
    assert torch.allclose(reflector_product(U_hat) @ R, B, rtol=0, atol=1e-12)
    assert bool((torch.diagonal(R) >= 0).all()) and torch.linalg.matrix_norm(torch.tril(R, -1)) < 1e-12
    U_hat, R = proposition1_reflectors(torch.eye(4, dtype=F64))
    assert torch.equal(U_hat, torch.zeros(4, 4, dtype=F64)) and torch.equal(R, torch.eye(4, dtype=F64))
    D = torch.diag(torch.tensor([1.0, 1.0, 1.0, -1.0], dtype=F64))
    U_hat, R = proposition1_reflectors(D)
    assert torch.count_nonzero(U_hat) == 1 and U_hat[3, 3] != 0
    assert torch.allclose(R, torch.eye(4, dtype=F64), rtol=0, atol=1e-15)


def test_proposition1_literal_formula_loses_accuracy_near_the_identity():
    """u = B_1 − ‖B_1‖e_1 computed literally cancels when B_1 ≈ ‖B_1‖e_1: for A = exp(10⁻⁹ S) the rebuild error
    is ≈ √u, six orders above the cancellation-free evaluation the claims use (same u in exact arithmetic)."""
    Z = torch.randn(16, 16, generator=gen(15), dtype=F64)
    A = torch.linalg.matrix_exp(1e-9 * (Z - Z.mT))
    err = {s: float(torch.linalg.matrix_norm(A - reflector_product(proposition1_reflectors(A, stable=s)[0])))
           for s in (True, False)}
    assert err[True] < 1e-13 < 1e-10 < err[False]


def test_bad_arguments_raise_value_errors():
    with pytest.raises(ValueError, match="square"):
        proposition1_reflectors(torch.ones(2, 3, dtype=F64))
    with pytest.raises(ValueError, match="finite"):
        proposition1_reflectors(torch.full((2, 2), math.nan, dtype=F64))
    with pytest.raises(ValueError, match="m2 must lie"):
        svd_reflectors(torch.eye(3, dtype=F64), 3, 4)
