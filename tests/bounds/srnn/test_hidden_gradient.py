"""srnn.hidden_gradient: ∂h_T/∂h_t does not grow but decays at a per-step rate below 1 with tanh (ReLU keeps norm 1
while a path lives); the corrected exact form diag(π) W_p^{T−t} holds, reaches its supremum 1, and catches a misplaced
σ' factor."""

import math

import pytest
import torch

from rnnaudit.bounds import check_claim, measure_case
from rnnaudit.bounds.srnn import hidden_gradient, hidden_gradient_corrected
from rnnaudit.bounds.srnn.cases import affine_case
from rnnaudit.bounds.srnn.hidden_gradient import hidden_jacobians, path_products
from tests.bounds.helpers import (TINY, assert_has_power, assert_reaches_supremum, assert_reproducible_violation,
                                  with_sizes)
from tests.bounds.srnn.cases import assert_exact_agrees, with_evaluate

SIZES = [(1, 1), (2, 3), (4, 5)]
RATE = "no exponential decay: per-step rate ‖∂h_T/∂h_0‖₂^{1/T} ≥ 1"


def test_no_decay_is_violated_by_tanh_and_sympy_agrees(tmp_path):
    case = assert_reproducible_violation(with_sizes(hidden_gradient, SIZES), TINY, tmp_path)
    assert case.cell.activation == "tanh"
    result = check_claim(with_sizes(hidden_gradient, SIZES), TINY, seed=0)
    assert_exact_agrees(result)
    assert result.worst_parts()["no growth: ‖∂h_T/∂h_t‖₂ ≤ 1"] <= 1 + 1e-12
    assert set(result.worst_parts()) == {"no growth: ‖∂h_T/∂h_t‖₂ ≤ 1", RATE}  # the rate decides the decay half


def test_tanh_one_step_known_answer():
    """d_h = 1, T = 1, σ = tanh, b ≡ 1, h_0 = 0: ∂h_1/∂h_0 = sech²(1), so the per-step-rate ratio is cosh²(1)."""
    case = affine_case([0.0], [1.0], [0.0], activation="tanh")
    assert measure_case(hidden_gradient, case)[1][RATE] == pytest.approx(math.cosh(1) ** 2, rel=1e-12)


def test_tanh_steady_state_decays_at_a_fixed_rate_per_step():
    """b ≡ 1 − tanh(1), h_0 = tanh(1): z_t = 1 at every step, so ‖∂h_T/∂h_0‖₂ = sech²(1)^T and the per-step rate is
    sech²(1) = 0.42 at every T — exponential decay, the part the verdict rests on."""
    t1 = math.tanh(1.0)
    for d_h, T in ((1, 10), (3, 40)):
        case = affine_case([0.0] * d_h, [1.0 - t1] * d_h, [0.0] * T, activation="tanh", h0=[t1] * d_h)
        norm = float(torch.linalg.matrix_norm(hidden_jacobians(case)[0], ord=2))
        assert norm == pytest.approx((1 - t1 ** 2) ** T, rel=1e-12, abs=0)
        assert measure_case(hidden_gradient, case)[1][RATE] == pytest.approx(1 / (1 - t1 ** 2), rel=1e-12)


def test_relu_with_every_unit_active_keeps_norm_one():
    """The all-active ReLU case (the σ of every experiment): ‖∂h_T/∂h_t‖₂ = 1 exactly, both parts at ratio 1."""
    case = affine_case([1.0] * 4, [1.0] * 4, [1.0] * 30)
    parts = measure_case(hidden_gradient, case)[1]
    assert parts[RATE] == 1.0 and parts["no growth: ‖∂h_T/∂h_t‖₂ ≤ 1"] == 1.0


def test_corrected_form_holds_reaches_one_and_has_power():
    result = check_claim(with_sizes(hidden_gradient_corrected, SIZES), TINY, seed=1)
    assert result.verdict == "holds" and result.errors == []
    assert_exact_agrees(result)
    assert_reaches_supremum(hidden_gradient_corrected)
    assert_has_power(with_sizes(hidden_gradient_corrected, SIZES), 2)


def test_corrected_form_catches_the_path_products_of_printed_eq9():
    """π built from σ'(z_1..z_{T−t}) (the steps *before*, as eq. 9 prints its product) instead of the steps after."""
    def wrong(case):
        J = hidden_jacobians(case)
        d_h, T = case.size()
        with torch.no_grad():
            z, _ = case.cell.preactivations(case.x, case.h0)
        D = (1 - torch.tanh(z[0]) ** 2) if case.cell.activation == "tanh" else (z[0] > 0).double()
        pi = path_products(D.flip(0))
        formula = torch.stack([torch.diag(pi[t]) @ torch.linalg.matrix_power(
            torch.roll(torch.eye(d_h, dtype=J.dtype), -1, 0), T - t) for t in range(T)])
        return {"wrong path": ((J - formula).abs().max(), 1e-12 * J.abs().max().clamp(min=1), J.abs().max())}
    case = affine_case([0.5, -0.3, 0.2], [0.1, 0.2, 0.3], [1.0, -1.0, 2.0, 0.5], activation="tanh")
    assert measure_case(with_evaluate(hidden_gradient_corrected, wrong), case)[0] > 1
    assert measure_case(hidden_gradient_corrected, case)[0] <= 1 + 1e-12


def test_notes_tanh_decays_relu_keeps_one_with_normal_b():
    """The notes' numbers: eq. 3 with the shift, b(x_t) ~ N(0, 1) per unit and step, d_h = 64, median over 5 draws of
    ‖∂h_T/∂h_0‖₂: tanh (h_0 = 0) 0.50 at T = 5, 1.5e-4 at T = 20, 3.2e-32 at T = 100 (per-step rate 0.48); ReLU
    (h_0 ~ U(0, 1)) 1.0 at T = 100."""
    from rnnaudit.cells import shift

    def median_norm(sigma, T, relu):
        norms = []
        for seed in range(5):
            gen = torch.Generator().manual_seed(seed)
            B = torch.randn(T, 64, generator=gen, dtype=torch.float64)
            h0 = torch.rand(64, generator=gen, dtype=torch.float64) if relu else torch.zeros(64, dtype=torch.float64)

            def run(h):
                for t in range(T):
                    h = sigma(shift(h) + B[t])
                return h
            norms.append(float(torch.linalg.matrix_norm(torch.func.jacrev(run)(h0), ord=2)))
        return sorted(norms)[2]

    assert median_norm(torch.tanh, 5, False) == pytest.approx(0.50, abs=0.005)
    assert median_norm(torch.tanh, 20, False) == pytest.approx(1.5e-4, rel=0.03)
    n100 = median_norm(torch.tanh, 100, False)
    assert n100 == pytest.approx(3.2e-32, rel=0.02, abs=0) and n100 ** (1 / 100) == pytest.approx(0.48, abs=0.005)
    assert median_norm(torch.relu, 100, True) == 1.0
