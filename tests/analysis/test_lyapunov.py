"""The Lyapunov spectrum by the QR method (analysis/lyapunov.py) against known answers."""

import math

import pytest
import torch
from torch import nn

from rnnaudit.analysis.jacobian import hidden_jacobian_maps
from rnnaudit.analysis.lyapunov import LyapunovSpectrum, lyapunov_spectrum
from rnnaudit.cells import wrap

F64 = torch.float64


def _rnn_with(W: torch.Tensor, n: int = 2, **kw) -> nn.RNN:
    rnn = nn.RNN(n, W.shape[0], batch_first=True, dtype=F64, **kw)
    with torch.no_grad():
        rnn.weight_hh_l0.copy_(W)
    return rnn.eval()


def _diagonalizable(moduli_signed, seed=0) -> torch.Tensor:
    """W = V diag(λ) V⁻¹ with the given real eigenvalues (distinct moduli) and a random V."""
    g = torch.Generator().manual_seed(seed)
    lam = torch.tensor(moduli_signed, dtype=F64)
    V = torch.randn(len(lam), len(lam), generator=g, dtype=F64) + 2 * torch.eye(len(lam), dtype=F64)
    return V @ torch.diag(lam) @ torch.linalg.inv(V)


def test_at_a_fixed_point_the_exponents_are_log_moduli_of_the_eigenvalues():
    """nn.RNN without bias, zero input, zero state stays at h = 0, where J = diag(1 − tanh²0) W = W:
    the exponents are log|λ_i(W)|. With warm-up 100 the QR columns have aligned with the Schur
    vectors up to (|λ_{i+1}/λ_i|)^100 ≤ (0.9/1.3)^100 ≈ 1e-16, after which every R_t has diagonal
    |λ_i| exactly up to rounding: agreement to 1e-10 is the floating-point level."""
    lam = [1.3, -0.9, 0.7, -0.5, 0.3, 0.1]
    rnn = _rnn_with(_diagonalizable(lam), bias=False)
    res = lyapunov_spectrum(rnn, torch.zeros(300, 2, dtype=F64), warmup=100)
    expected = torch.tensor([math.log(abs(v)) for v in lam], dtype=F64)
    assert torch.allclose(res.exponents, expected, rtol=0, atol=1e-10)
    assert torch.all(res.exponents[:-1] >= res.exponents[1:])
    assert res.converged(1e-9)


def test_top_k_are_the_k_largest_of_the_full_spectrum():
    lam = [1.3, -0.9, 0.7, -0.5, 0.3, 0.1]
    rnn = _rnn_with(_diagonalizable(lam), bias=False)
    x = torch.zeros(300, 2, dtype=F64)
    full = lyapunov_spectrum(rnn, x, warmup=100)
    top = lyapunov_spectrum(rnn, x, k=2, warmup=100)
    assert top.exponents.shape == (2,)
    assert torch.allclose(top.exponents, full.exponents[:2], rtol=0, atol=1e-10)


def test_a_wrong_answer_is_detected_at_the_fixed_point():
    """Negative control: a non-normal W whose singular values differ from its eigenvalue moduli. The
    exponents follow the eigenvalues (1.3, …), not the singular values (which the first-step growth
    would suggest), so checking them against log σ_i fails."""
    W = _diagonalizable([1.3, -0.9, 0.7, -0.5, 0.3, 0.1], seed=3)
    res = lyapunov_spectrum(_rnn_with(W, bias=False), torch.zeros(300, 2, dtype=F64), warmup=100)
    log_sv = torch.linalg.svdvals(W).log()
    assert (res.exponents - log_sv).abs().max() > 0.1


def test_an_orthogonal_linear_map_has_all_exponents_zero():
    """h ← Q h + W x with Q orthogonal: every J_t = Q, volumes are preserved, all exponents 0 up to
    the rounding of the QR steps (≈ u per step, averaged: ≤ 1e-13)."""
    g = torch.Generator().manual_seed(1)
    Q = torch.linalg.qr(torch.randn(10, 10, generator=g, dtype=F64))[0]
    cell = wrap(lambda x_t, h: h @ Q.mT + x_t.sum(-1, keepdim=True), input_size=3, state_size=10)
    res = lyapunov_spectrum(cell, torch.randn(200, 3, generator=g, dtype=F64))
    assert res.exponents.abs().max() <= 1e-13


def test_a_scalar_contraction_gives_log_a():
    for a in (0.5, 0.95, 2.0):
        cell = wrap(lambda x_t, h, a=a: a * h + x_t, input_size=1, state_size=1)
        res = lyapunov_spectrum(cell, torch.randn(50, 1, dtype=F64, generator=torch.Generator().manual_seed(2)))
        assert float(res.exponents[0]) == pytest.approx(math.log(a), abs=1e-14)


def test_the_largest_exponent_is_the_slope_of_the_jacobian_map_at_long_gaps():
    """λ_1 (QR, 500 counted steps after a 100-step warm-up) against the slope in g of
    c(g) = mean_s log‖∂h_{s+g}/∂h_s‖₂ for gaps g ∈ [100, 300], from the certified Jacobian map.

    Both estimate λ_1 of the same driven tanh RNN. log‖P(s+g, s)‖ = λ_1 g + (an O(1) offset that
    does not grow with g) + fluctuations, so the slope removes the offset (the tracked QR vector and
    the top singular vector differ by a fixed angle, Σ log R_11 = log‖P q‖ ≤ log‖P‖). What remains is
    finite-time sampling noise of the two averages over the same 500 steps, of the size of the QR
    estimate's batch-means standard error (10 windows of 50 steps): tolerance 4 standard errors.
    The negative control: the second exponent lies outside that tolerance."""
    g = torch.Generator().manual_seed(0)
    h, T, warmup = 8, 600, 100
    rnn = _rnn_with(torch.randn(h, h, generator=g, dtype=F64) * 1.5 / math.sqrt(h))
    x = torch.randn(T, 2, generator=g, dtype=F64)
    res = lyapunov_spectrum(rnn, x, k=2, warmup=warmup, window=50)
    M = hidden_jacobian_maps(rnn, x, norms=("spectral",)).spectral
    gaps = list(range(100, 301))
    c = torch.stack([M[torch.arange(warmup, T - gap + 1) + gap, torch.arange(warmup, T - gap + 1)].log().mean()
                     for gap in gaps])
    A = torch.stack([torch.ones(len(gaps), dtype=F64), torch.tensor(gaps, dtype=F64)], 1)
    slope = float(torch.linalg.lstsq(A, c[:, None]).solution[1, 0])
    tol = 4 * float(res.stderr[0])
    assert 0 < tol < 0.1
    assert abs(float(res.exponents[0]) - slope) <= tol
    assert abs(float(res.exponents[1]) - slope) > tol


def test_lstm_state_is_the_packed_h_c_system_and_finite_time_windows_are_reported():
    torch.manual_seed(0)
    lstm = nn.LSTM(2, 3, num_layers=2, dtype=F64).eval()
    x = torch.randn(120, 2, dtype=F64, generator=torch.Generator().manual_seed(4))
    res = lyapunov_spectrum(lstm, x, warmup=20, window=10)
    assert isinstance(res, LyapunovSpectrum) and res.exponents.shape == (12,)  # 2 layers × (h, c) × 3
    assert torch.all(res.exponents[:-1] >= res.exponents[1:])
    assert res.finite_time.shape == (10, 12) and res.steps == 100 and res.window == 10
    # the exponents are the mean of the windows (here the windows tile the counted steps exactly)
    assert torch.allclose(res.finite_time.mean(0), res.exponents, rtol=0, atol=1e-12)
    assert torch.all(res.stderr >= 0) and torch.all(res.drift >= 0)


def test_a_dead_relu_unit_gives_minus_infinity():
    """A ReLU unit that is off zeroes its row of J_t: the product is singular and its exponent is −∞;
    the live units of the diagonal W = diag(−1, 0.5, 0.7, 0.9) keep log 0.9, log 0.7, log 0.5 (the
    first unit goes to 0 at step 1 and stays there, where autograd's ReLU′(0) = 0)."""
    rnn = _rnn_with(torch.diag(torch.tensor([-1.0, 0.5, 0.7, 0.9], dtype=F64)), bias=False, nonlinearity="relu")
    res = lyapunov_spectrum(rnn, torch.zeros(400, 2, dtype=F64), h0=torch.ones(4, dtype=F64), warmup=200)
    # warm-up: the QR columns align with the axes up to (0.7/0.9)^200 ≈ 1e-22
    assert torch.allclose(res.exponents[:3], torch.tensor([0.9, 0.7, 0.5], dtype=F64).log(), rtol=0, atol=1e-12)
    assert res.exponents[3] == -math.inf
    assert res.converged(1e-12)


def test_convergence_diagnostic_needs_enough_windows_and_flags_a_drift():
    cell = wrap(lambda x_t, h: 0.5 * h + x_t, input_size=1, state_size=1)
    short = lyapunov_spectrum(cell, torch.randn(30, 1, dtype=F64), window=10)
    assert not short.converged(1.0)  # 3 windows
    assert math.isnan(float(lyapunov_spectrum(cell, torch.randn(5, 1, dtype=F64), window=5).stderr[0]))
    # a map whose contraction rate changes halfway: the drift sees it
    drifting = wrap(lambda x_t, h: torch.where(x_t > 0, 0.9 * h, 0.1 * h), input_size=1, state_size=1)
    x = torch.cat([-torch.ones(100, 1, dtype=F64), torch.ones(100, 1, dtype=F64)])
    res = lyapunov_spectrum(drifting, x, window=20)
    assert float(res.drift[0]) == pytest.approx(math.log(0.9) - math.log(0.1), rel=1e-12)
    assert not res.converged(0.1)
    with pytest.raises(ValueError, match="tol must be a number > 0"):
        res.converged(0)


def test_bad_arguments_are_named():
    cell = wrap(lambda x_t, h: 0.5 * h + x_t.sum(-1, keepdim=True).expand_as(h), input_size=2, state_size=3)
    x = torch.randn(10, 2, dtype=F64)
    for kwargs, message in [(dict(k=4), "at most the state width S = 3"), (dict(k=0), "k must be an int >= 1"),
                            (dict(warmup=10), "warmup must be < T = 10"), (dict(window=0), "window must be"),
                            (dict(chunk=0), "chunk must be")]:
        with pytest.raises(ValueError, match=message):
            lyapunov_spectrum(cell, x, **kwargs)
    with pytest.raises(ValueError, match="one sequence"):
        lyapunov_spectrum(cell, torch.randn(2, 10, 2, dtype=F64))
    with pytest.raises(ValueError, match="dtype"):
        lyapunov_spectrum(cell, torch.randn(10, 2))
