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
    torch.manual_seed(0)  # the input weights and biases: one model per test, not one per run
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


def _linear(D: torch.Tensor):
    return wrap(lambda x_t, h: h @ D.mT + 0 * x_t[..., :1], input_size=1, state_size=D.shape[0])


def test_an_overflowing_trajectory_is_refused_naming_the_step():
    """h_t = diag(1.2, 0.5) h_{t−1}, h_0 = 1: 1.2^t passes 1.8e308 at t = ⌈log(1.8e308)/log 1.2⌉ = 3894. Up to
    T = 3800 the exponents are log 1.2, log 0.5 (after a warm-up that aligns Q: (0.5/1.2)^100 ≈ 1e-38); at
    T = 4000 the state is inf, and the spectrum would be NaN."""
    cell = _linear(torch.diag(torch.tensor([1.2, 0.5], dtype=F64)))
    ok = lyapunov_spectrum(cell, torch.zeros(3800, 1, dtype=F64), h0=torch.ones(2, dtype=F64), warmup=100)
    assert torch.allclose(ok.exponents, torch.tensor([1.2, 0.5], dtype=F64).log(), rtol=0, atol=1e-12)
    first = math.ceil(math.log(torch.finfo(F64).max) / math.log(1.2))
    with pytest.raises(ValueError, match=f"not finite from step t = {first} of T = 4000"):
        lyapunov_spectrum(cell, torch.zeros(4000, 1, dtype=F64), h0=torch.ones(2, dtype=F64))


def test_a_non_finite_jacobian_is_refused_naming_the_step():
    """A map whose state stays finite but whose derivative does not: h ↦ √|h| at h = 0, switched on at step 3."""
    cell = wrap(lambda x_t, h: torch.where(x_t[..., :1] > 0, h.abs().sqrt(), h), input_size=1, state_size=1)
    x = torch.tensor([[0.0], [0.0], [1.0]], dtype=F64)
    with pytest.raises(ValueError, match="J_t is not finite at step t = 3 of T = 3"):
        lyapunov_spectrum(cell, x)


def _half_dead_relu_rnn() -> nn.RNN:
    """ReLU RNN, dense W ≥ 0, no input: units 0–3 off at every step (bias −100), units 4–7 on (bias 1)."""
    g = torch.Generator().manual_seed(0)
    rnn = nn.RNN(2, 8, batch_first=True, dtype=F64, nonlinearity="relu").eval()
    with torch.no_grad():
        rnn.weight_hh_l0.copy_(0.2 * torch.rand(8, 8, generator=g, dtype=F64))
        rnn.weight_ih_l0.zero_()
        rnn.bias_ih_l0.zero_()
        rnn.bias_hh_l0.copy_(torch.tensor([-100.0] * 4 + [1.0] * 4, dtype=F64))
    return rnn


def test_products_that_lose_rank_give_minus_infinity_not_rounding_noise():
    """A ReLU RNN with a dense W ≥ 0 whose units 0–3 are off at every step (bias −100) and units 4–7 on (bias 1,
    h ≥ 0): J_t = diag(ReLU′(z_t)) W has rank 4, so λ_5 … λ_8 are −∞.
    QR of J_t Q returns those R_ii as rounding noise (≈ 1e-17), whose logs were
    reported as exponents of −12 … −95; the live exponents stay finite."""
    rnn = _half_dead_relu_rnn()
    res = lyapunov_spectrum(rnn, torch.zeros(300, 2, dtype=F64))
    assert torch.isfinite(res.exponents[:4]).all(), res.exponents
    assert (res.exponents[4:] == -math.inf).all(), res.exponents


def test_kaplan_yorke_dimension_known_answers():
    from rnnaudit.analysis.lyapunov import kaplan_yorke_dimension
    # Lorenz-like: 0.9, 0, −14.6 → 2 + 0.9/14.6
    assert kaplan_yorke_dimension([0.9, 0.0, -14.6]) == pytest.approx(2 + 0.9 / 14.6, rel=1e-15)
    shuffled = torch.tensor([-14.6, 0.9, 0.0], dtype=F64)
    assert kaplan_yorke_dimension(shuffled) == pytest.approx(2 + 0.9 / 14.6, rel=1e-15)
    assert kaplan_yorke_dimension([-0.1, -0.2]) == 0.0  # a stable fixed point
    assert kaplan_yorke_dimension([0.3, 0.1]) == 2.0  # volumes grow in every direction
    assert kaplan_yorke_dimension([0.5, -math.inf]) == 1.0  # a singular direction adds nothing
    assert kaplan_yorke_dimension([1.0, -0.5, -1.0]) == pytest.approx(2.5)
    for bad, message in [([], "non-empty 1-D"), ([[0.1]], "non-empty 1-D"), ([0.1, math.nan], "NaN or \\+inf"),
                         ([math.inf], "NaN or \\+inf")]:
        with pytest.raises(ValueError, match=message):
            kaplan_yorke_dimension(bad)


def test_matrix_free_exponents_equal_those_of_formed_jacobians():
    """Pushing Q's columns by forward mode computes the same J_t Q as forming J_t: the same QR recursion from
    the same seeded Q_0, so the exponents agree to rounding (1e-12 over 150 steps of an LSTM's (h, c) state),
    for k = 1 and k = 3; the automatic choice forms the Jacobians of a state this narrow."""
    torch.manual_seed(0)
    lstm = nn.LSTM(3, 24, dtype=F64).eval()
    x = torch.randn(150, 3, dtype=F64, generator=torch.Generator().manual_seed(5))
    for k in (1, 3):
        formed = lyapunov_spectrum(lstm, x, k=k, warmup=15, matrix_free=False)
        pushed = lyapunov_spectrum(lstm, x, k=k, warmup=15, matrix_free=True)
        assert torch.allclose(formed.exponents, pushed.exponents, rtol=0, atol=1e-12)
        assert torch.allclose(formed.finite_time, pushed.finite_time, rtol=0, atol=1e-12)
    auto = lyapunov_spectrum(lstm, x, k=1, warmup=15)
    assert torch.equal(auto.exponents, lyapunov_spectrum(lstm, x, k=1, warmup=15, matrix_free=False).exponents)
    with pytest.raises(ValueError, match="matrix_free"):
        lyapunov_spectrum(lstm, x, k=1, matrix_free="yes")


def test_matrix_free_rank_loss_gives_minus_infinity():
    """The dead-ReLU product of the formed path, matrix-free (its ‖J_t‖_F estimated from Gaussian probes):
    the exponents of the dead units are −∞, the live ones finite (negative control: the same model with its
    units alive has every exponent finite)."""
    rnn = _half_dead_relu_rnn()
    res = lyapunov_spectrum(rnn, torch.zeros(300, 2, dtype=F64), k=6, matrix_free=True)
    assert torch.isfinite(res.exponents[:4]).all() and (res.exponents[4:] == -math.inf).all(), res.exponents
    with torch.no_grad():
        rnn.bias_hh_l0.fill_(1.0)
    alive = lyapunov_spectrum(rnn, torch.zeros(300, 2, dtype=F64), k=6, matrix_free=True)
    assert torch.isfinite(alive.exponents).all(), alive.exponents


def test_matrix_free_progress_adds_up_to_T():
    cell = wrap(lambda x_t, h: 0.5 * h + x_t.sum(-1, keepdim=True), input_size=2, state_size=40)
    seen = []
    lyapunov_spectrum(cell, torch.randn(23, 2, dtype=F64), k=1, chunk=5, progress=seen.append)
    assert seen == [5, 5, 5, 5, 3]


def _rotation_scaling(log_moduli, angles) -> torch.Tensor:
    """Block-diagonal W of 2 × 2 blocks r_j R(θ_j): the real form of the diagonal complex recurrence
    h ← diag(r_j e^{iθ_j}) h. Each block is conformal, so both of its exponents are log r_j exactly."""
    W = torch.zeros(2 * len(log_moduli), 2 * len(log_moduli), dtype=F64)
    for j, (a, th) in enumerate(zip(log_moduli, angles)):
        W[2 * j:2 * j + 2, 2 * j:2 * j + 2] = math.exp(a) * torch.tensor(
            [[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]], dtype=F64)
    return W


def _linear_cell(W):
    return wrap(lambda x_t, h: h @ W.mT + x_t.sum(-1, keepdim=True), input_size=2, state_size=W.shape[0])


def test_rotation_scaling_lambda1_lies_inside_the_stated_interval_where_two_standard_errors_miss_it():
    """16 blocks with log-moduli spread over [−0.1, 0] (gaps ≈ 0.006, so the top direction separates from its
    neighbours only over ≈ 1/0.006 steps): at T = 100 the estimate of λ₁ is biased low by several standard
    errors, which the old ±2 SE did not cover; the stated interval (2 SE + drift + start-frame alignment)
    must, and the estimate must not be called converged at 1e-3."""
    g = torch.Generator().manual_seed(0)
    log_r = torch.sort(-0.1 * torch.rand(16, generator=g, dtype=F64), descending=True).values
    cell = _linear_cell(_rotation_scaling(log_r.tolist(), (math.pi * torch.rand(16, generator=g)).tolist()))
    x = torch.randn(100, 2, generator=g, dtype=F64)
    res = lyapunov_spectrum(cell, x, warmup=10)
    err = abs(float(res.exponents[0]) - float(log_r[0]))
    assert err > 2 * float(res.stderr[0])  # the old error bar misses the truth
    assert err <= float(res.halfwidth[0])
    assert not res.converged(1e-3)


def test_normal_map_with_separated_exponents_lies_inside_its_intervals():
    """W = Q diag(λ) Qᵀ (orthogonal Q): every exponent is log|λ_i|; with gaps ≥ 0.1 the estimates converge fast
    and every one lies in its interval, which is tight (≤ 0.02) and converged at that tolerance."""
    lam = torch.tensor([0.95, -0.85, 0.75, 0.6, -0.5, 0.4], dtype=F64)
    Q = torch.linalg.qr(torch.randn(6, 6, generator=torch.Generator().manual_seed(5), dtype=F64))[0]
    cell = _linear_cell(Q @ torch.diag(lam) @ Q.mT)
    res = lyapunov_spectrum(cell, torch.randn(400, 2, dtype=F64, generator=torch.Generator().manual_seed(6)),
                            warmup=40)
    truth = torch.sort(lam.abs().log(), descending=True).values
    assert torch.all((res.exponents - truth).abs() <= res.halfwidth)
    assert res.converged(0.02)


def test_one_unit_tanh_map_at_its_fixed_point_has_exponent_log_w_inside_the_interval():
    """h ← tanh(w h) with |w| < 1 has the fixed point h* = 0 with J = w: λ = log|w|. From h_0 = 1 the early steps
    contract faster (tanh′ < 1 away from 0): a transient the warm-up (10 %) does not remove at T = 60; the stated
    interval covers it, and a long run converges to log|w|."""
    w = 0.8
    cell = wrap(lambda x_t, h: torch.tanh(w * h + 0 * x_t), input_size=1, state_size=1)
    h0 = torch.ones(1, dtype=F64)
    short = lyapunov_spectrum(cell, torch.zeros(60, 1, dtype=F64), h0=h0, warmup=6)
    assert abs(float(short.exponents[0]) - math.log(w)) <= float(short.halfwidth[0])
    assert not short.converged(1e-3)
    long = lyapunov_spectrum(cell, torch.zeros(1000, 1, dtype=F64), h0=h0, warmup=100)
    assert abs(float(long.exponents[0]) - math.log(w)) <= float(long.halfwidth[0]) <= 1e-3


def test_a_short_run_is_flagged_not_converged_where_the_long_run_is():
    """The same driven contraction at T = 20 (2 steps per window) and T = 4000: the short run's half-width exceeds
    the tolerance, the long run's does not."""
    cell = wrap(lambda x_t, h: torch.tanh(0.9 * h + x_t), input_size=1, state_size=1)
    g = torch.Generator().manual_seed(7)
    short = lyapunov_spectrum(cell, torch.randn(20, 1, generator=g, dtype=F64), warmup=2)
    long = lyapunov_spectrum(cell, torch.randn(4000, 1, generator=g, dtype=F64), warmup=400)
    assert not short.converged(0.1) and long.converged(0.1)


def test_the_estimate_over_sequences_covers_the_spread_between_sequences():
    """A map whose rate depends on the sequence (h ← a(x) h with a = 0.9 on positive inputs, 0.5 otherwise): one
    sequence of mostly positive inputs and one of mostly negative give exponents far apart; the mean over both
    has an interval containing each, and one sequence alone is picked by ``sequence``."""
    from rnnaudit.analysis.lyapunov import lyapunov_estimate

    cell = wrap(lambda x_t, h: torch.where(x_t > 0, 0.9 * h, 0.5 * h), input_size=1, state_size=1)
    g = torch.Generator().manual_seed(8)
    x = torch.stack([torch.randn(200, 1, generator=g, dtype=F64).abs() * torch.where(
        torch.rand(200, 1, generator=g) < p, 1.0, -1.0).to(F64) for p in (0.8, 0.2)])
    est = lyapunov_estimate(cell, x, warmup=20)
    assert est.per_sequence.shape == (2, 1)
    lo, hi = est.exponents - est.halfwidth, est.exponents + est.halfwidth
    assert torch.all((lo <= est.per_sequence) & (est.per_sequence <= hi))
    one = lyapunov_estimate(cell, x, warmup=20, sequence=1)
    assert float(one.exponents[0]) == float(est.per_sequence[1, 0]) and "one sequence" in one.method
    assert "mean over 2 sequences" in est.method
    with pytest.raises(ValueError, match="sequence must be an index 0..1"):
        lyapunov_estimate(cell, x, sequence=2)


def test_lyapunov_estimate_from_held_step_jacobians_equals_forming_them():
    """Given the step Jacobians the caller holds (the audit's step map), the exponents and their half-widths are those
    of forming them again (to rounding, several seeds); a J of the wrong shape is refused."""
    import pytest
    from torch import nn

    from rnnaudit.analysis.jacobian import step_jacobians
    from rnnaudit.analysis.lyapunov import lyapunov_estimate
    from rnnaudit.cells import wrap

    for seed in range(3):
        torch.manual_seed(seed)
        cell = wrap(nn.LSTM(3, 5 + seed).double())
        x = torch.randn(2, 50, 3, dtype=torch.float64)
        J = torch.stack([step_jacobians(cell, xi)[0] for xi in x])
        a, b = lyapunov_estimate(cell, x, k=3), lyapunov_estimate(cell, x, k=3, step_jacobians=J)
        assert torch.allclose(a.exponents, b.exponents, rtol=0, atol=1e-12)
        assert torch.allclose(a.halfwidth, b.halfwidth, rtol=0, atol=1e-12)
        moved = lyapunov_estimate(cell, x, k=3, step_jacobians=J * 1.5)  # the held J is what is read
        assert not torch.allclose(a.exponents, moved.exponents, rtol=0, atol=1e-3)
    with pytest.raises(ValueError, match="step_jacobians must be"):
        lyapunov_estimate(cell, x, k=3, step_jacobians=J[:, :10])
