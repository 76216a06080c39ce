"""spectral_rnn.theorem3: the construction of eq. 18/20 reaches O(n) when k1 + k2 ≤ n + 2, fails beyond, and
the printed zero range drops H_1(a_1)."""

import pytest
import torch

from rnnaudit.bounds import evaluate_cases
from rnnaudit.bounds.spectral_rnn import theorem3
from rnnaudit.bounds.spectral_rnn.cases import MatrixCase
from rnnaudit.bounds.spectral_rnn.reflectors import proposition1_reflectors
from rnnaudit.bounds.spectral_rnn.theorem3 import theorem3_reflectors
from rnnaudit.cells import householder_matrix, reflector_product
from tests.bounds.spectral_rnn.cases import F64, assert_holds_inside, failed, gen, haar


def test_theorem3_holds_inside_its_assumptions(tmp_path):
    assert_holds_inside(theorem3, [(2, 1), (4, 1), (6, 1)], tmp_path)


def test_theorem3_violated_when_k1_plus_k2_exceeds_n_plus_2():
    """n = 4, k1 = 3, k2 = 4: three reflectors, while a generic rotation of ℝ⁴ (no eigenvalue 1, det +1)
    needs four (Cartan–Dieudonné), so no assignment can reach it."""
    A = haar(4, 3)
    if torch.linalg.det(A) < 0:
        A[:, 0] = -A[:, 0]
    result = evaluate_cases(theorem3, [MatrixCase(A, 2, 1)])
    assert result.verdict == "false" and failed(result, "k1 + k2 ≤ n + 2")


def test_theorem3_printed_zero_range_drops_a1():
    """Eq. 18/20 as printed zero v_t (u_t) from t = k1 + k2 − 2, the slot that holds a_1: the construction then
    misses H_1(a_1) and fails exactly when a_1 ≠ 0 (and the second chain receives some a_k, k1 ≥ 2); zeroing
    from k1 + k2 − 1 reconstructs A. Both branches (eq. 18: k2 ≥ k1 − 1, eq. 20: k2 < k1 − 1)."""
    n = 5
    A = haar(n, 9)
    if torch.linalg.det(A) > 0:  # generically all of a_2 … a_n are ≠ 0, so a_1 ≠ 0 ⇔ det A = (−1)^n
        A[:, 0] = -A[:, 0]
    a, _ = proposition1_reflectors(A)
    b, _ = proposition1_reflectors(A.mT)
    for k1, k2, c in ((3, 3, a), (2, 5, a), (5, 2, b)):
        assert float(c[:, n - 1].abs().sum()) > 0  # a_1 (or b_1) ≠ 0
        errors = {}
        for reading in ("corrected", "printed"):
            U_hat, V_hat = theorem3_reflectors(A, k1, k2, zero_from=reading)
            W = reflector_product(U_hat) @ reflector_product(V_hat).mT
            errors[reading] = float(torch.linalg.matrix_norm(A - W))
        assert errors["corrected"] < 1e-12 and errors["printed"] > 0.5, (k1, k2, errors)


def test_eq18_padding_leaves_the_reflector_unchanged():
    """The only typable reading of "v_{k1+k2−k−1} = a_k": H_t((0_{t−k}; a_k)) = H_k(a_k) as n × n matrices."""
    a = torch.randn(3, generator=gen(10), dtype=F64)
    assert torch.allclose(householder_matrix(torch.cat([torch.zeros(2, dtype=F64), a]), 6),
                          householder_matrix(a, 6), rtol=0, atol=1e-15)


def test_theorem3_reflectors_bad_arguments_raise_value_errors():
    with pytest.raises(ValueError, match="k2"):
        theorem3_reflectors(torch.eye(3, dtype=F64), 1, 5)
    with pytest.raises(ValueError, match="zero_from"):
        theorem3_reflectors(torch.eye(3, dtype=F64), 1, 1, zero_from="other")
