"""Jacobian maps (analysis/jacobian.py) against cases with known answers.

Tolerances: spectral values are certified lower bounds within relative ``rtol`` of the 2-norm of
the formed product (module docstring); the references below form the same products in another
order (``torch.linalg.matrix_power`` squares), which adds rounding of order m·h·u relative to
‖A‖^m, a few 1e-13 here. Hence ``rel=1e-9`` against ``rtol=1e-10``.
"""

import math

import pytest
import torch

from rnnaudit.analysis.jacobian import (HEATMAP_RTOL, JacobianMaps, hidden_jacobian_maps, hidden_jacobian_norms,
                                        input_jacobian_maps, input_jacobians, naive_hidden_jacobian_maps, pair_jacobian,
                                        step_jacobians)
from rnnaudit.analysis.map_methods import choose_method
from rnnaudit.cells import ENRNN, GRU, SGORNN, FastRNN
from tests.conftest import DEVICES

F64 = torch.float64


def _linear_rnn(A: torch.Tensor, n: int = 2, seed: int = 0) -> FastRNN:
    """FastRNN with σ = identity: h_t = α(W x_t + U h_{t−1}) + βh_{t−1}, so J_t = αU + βI := A and
    K_t = ∂h_t/∂x_t = αW, for every t."""
    h = A.shape[0]
    cell = FastRNN(n, h, activation="identity", bias=False, dtype=F64, generator=torch.Generator().manual_seed(seed),
                   device=A.device)
    with torch.no_grad():
        eye = torch.eye(h, dtype=F64, device=A.device)
        cell.U.copy_((A - cell.beta * eye) / cell.alpha)
    return cell


def _graded_matrix(h: int, seed: int, device="cpu", largest: float = 1.1, smallest: float = 0.4) -> torch.Tensor:
    """Non-normal A = Q₁ diag(σ) Q₂ with singular values spread over [smallest, largest]; by default [0.4, 1.1],
    so that long products have a decaying spectrum (the cheap certificate applies) and short ones a flat one
    (it does not)."""
    g = torch.Generator().manual_seed(seed)
    Q1 = torch.linalg.qr(torch.randn(h, h, generator=g, dtype=F64))[0]
    Q2 = torch.linalg.qr(torch.randn(h, h, generator=g, dtype=F64))[0]
    return (Q1 @ torch.diag(torch.linspace(largest, smallest, h, dtype=F64)) @ Q2).to(device)


@pytest.mark.parametrize("device", DEVICES)
def test_linear_rnn_hidden_map_is_matrix_powers_on_both_paths(device):
    """∂h_t/∂h_s = A^{t−s} exactly for a linear RNN; h = 24 > block = 4 exercises the certified
    iteration (long gaps) and the Gram path (short gaps, flat spectra)."""
    A = _graded_matrix(24, 0, device)
    cell = _linear_rnn(A)
    T = 40
    x = torch.randn(T, 2, dtype=F64, generator=torch.Generator().manual_seed(1)).to(device)
    maps = hidden_jacobian_maps(cell, x, norms=("spectral", "frobenius"), block=4, rtol=1e-10, method="products")
    assert maps.stats["iterative"] > 0 and maps.stats["cholesky"] > 0
    for s in range(T + 1):
        for t in range(s, T + 1):
            P = torch.linalg.matrix_power(A, t - s)
            sv = torch.linalg.svdvals(P)
            assert float(maps.spectral[t, s]) == pytest.approx(float(sv[0]), rel=1e-9)
            assert float(maps.spectral[t, s]) <= float(sv[0]) * (1 + 1e-12)  # a Ritz value: from below
            assert float(maps.frobenius[t, s]) == pytest.approx(float(sv.square().sum().sqrt()), rel=1e-9)
    assert torch.all(maps.spectral.triu(1) == 0)


def test_flat_spectra_settle_by_the_exact_eigenvalue_after_the_gram_path():
    """Singular values flat at every gap (in [0.985, 1], as for orthogonal cells): no Krylov certificate can
    close, the Gram path needs refinement, and from the next step such pairs take the exact eigenvalue at
    once. The values must still be the 2-norms of the products to rounding, as by the dense method."""
    h, T = 48, 30
    A = _graded_matrix(h, 4, largest=1.0, smallest=0.985)
    cell = _linear_rnn(A)
    x = torch.randn(T, 2, dtype=F64, generator=torch.Generator().manual_seed(5))
    maps = hidden_jacobian_maps(cell, x, norms=("spectral",), block=4, rtol=1e-10, method="products")
    pairs = (T + 1) * (T + 2) // 2
    # every pair past its first step in the Gram path skips straight to the eigenvalue
    assert maps.stats["exact"] > pairs // 2 and maps.stats["iterative"] == 0
    assert maps.stats["exact"] + maps.stats["dense"] + maps.stats["cholesky"] + maps.stats["gram"] == pairs
    dense = hidden_jacobian_maps(cell, x, norms=("spectral",), method="dense")
    torch.testing.assert_close(maps.spectral, dense.spectral, rtol=1e-12, atol=0)
    for gap in (1, 7, T):
        sv = torch.linalg.svdvals(torch.linalg.matrix_power(A, gap))[0]
        assert float(maps.spectral[gap, 0]) == pytest.approx(float(sv), rel=1e-12)


def test_smallest_singular_value_far_below_rounding_of_the_product():
    """A = Q diag(d) Qᵀ: A^m = Q diag(d^m) Qᵀ, σ_min = min(d)^m = 0.3^40 ≈ 1.2e-21, far below
    u·σ_max ≈ 1e-16 where an SVD of the formed product would only see rounding. The inverse-product
    route is relatively accurate: each factor's inverse carries κ(A)·u ≈ 4e-16, 40 of them ≲ 2e-14."""
    h, T = 16, 40
    g = torch.Generator().manual_seed(3)
    Q = torch.linalg.qr(torch.randn(h, h, generator=g, dtype=F64))[0]
    d = torch.linspace(1.0, 0.3, h, dtype=F64)
    cell = _linear_rnn(Q @ torch.diag(d) @ Q.mT)
    maps = hidden_jacobian_maps(cell, torch.zeros(T, 2, dtype=F64), norms=("spectral", "smallest"), block=4,
                                method="products")
    for t in range(T + 1):
        for s in range(t + 1):
            assert float(maps.smallest[t, s]) == pytest.approx(0.3 ** (t - s), rel=1e-10, abs=0)
            assert float(maps.spectral[t, s]) == pytest.approx(1.0, rel=1e-10)


@pytest.mark.parametrize("method", ["products", "dense"])
@pytest.mark.parametrize("h", [16, 48])  # torch's batched kernels, and scipy's LAPACK from order 40
def test_norms_whose_squares_leave_the_float64_range(method, h):
    """A = Q diag(d) Qᵀ with d spread over [0.08, 0.1]: A^m has σ_max = 0.1^m, σ_min = 0.08^m and
    ‖A^m‖_F² = Σ d_i^{2m}. At m = 170, σ_max = 1e-170: its square λ = 1e-340 is below float64's normal range,
    and λ², ‖G‖_F², the squared residuals the certificate is built from and the squares of the entries
    underflow to zero; the inverse products behind σ_min have ‖(A^m)⁻¹‖₂ = 12.5^170 ≈ 3e186, whose square
    overflows. Every value must still be certified to rtol (the engine keeps each product scaled by an exact
    power of two)."""
    T = 170
    g = torch.Generator().manual_seed(5)
    Q = torch.linalg.qr(torch.randn(h, h, generator=g, dtype=F64))[0]
    d = torch.linspace(0.1, 0.08, h, dtype=F64)
    cell = _linear_rnn(Q @ torch.diag(d) @ Q.mT)
    maps = hidden_jacobian_maps(cell, torch.zeros(T, 2, dtype=F64), norms=("spectral", "frobenius", "smallest"),
                                block=4, rtol=1e-10, method=method)
    gap = (torch.arange(T + 1)[:, None] - torch.arange(T + 1)[None, :]).to(F64)
    lower = gap >= 0
    gap = gap.clamp_min(0)
    largest, smallest = torch.exp(gap * math.log(0.1)), torch.exp(gap * math.log(0.08))
    fro = largest * ((d / 0.1)[None, None, :] ** (2 * gap[:, :, None])).sum(-1).sqrt()
    for got, want in ((maps.spectral, largest), (maps.frobenius, fro), (maps.smallest, smallest)):
        rel = ((got - want) / want)[lower]
        assert torch.isfinite(rel).all() and float(rel.abs().max()) < 1e-9
    assert maps.spectral[T, 0] < 1e-169 and maps.smallest[T, 0] < 1e-186
    if h == 16 and method == "dense":  # the naive reference, once: its Frobenius norm must not underflow either
        naive = naive_hidden_jacobian_maps(cell, torch.zeros(T, 2, dtype=F64))
        for got, want in ((naive["spectral"], largest), (naive["frobenius"], fro)):
            rel = ((got - want) / want)[lower]
            assert torch.isfinite(rel).all() and float(rel.abs().max()) < 1e-9


def test_smallest_is_zero_through_a_singular_factor():
    """A singular factor makes every product through it singular: σ_min = 0 exactly there."""
    A = torch.diag(torch.tensor([1.0, 0.9, 0.8, 0.7, 0.6, 0.0], dtype=F64))
    maps = hidden_jacobian_maps(_linear_rnn(A), torch.zeros(5, 2, dtype=F64), norms=("smallest",))
    assert torch.all(maps.smallest.diagonal() == 1)
    assert torch.all(maps.smallest.tril(-1) == 0)


def test_input_map_of_linear_rnn_is_power_times_input_matrix():
    """enrnn.md Sec. 8.3 with σ = identity: ∂h_τ/∂x_t = A^{τ−t} K, K = αW (h × n); also for a block
    of rows (Fig. 4–5 plot the h^(S) and h^(L) rows)."""
    A = _graded_matrix(12, 5)
    cell = _linear_rnn(A, n=3)
    T = 20
    x = torch.randn(T, 3, dtype=F64, generator=torch.Generator().manual_seed(2))
    K = (cell.alpha * cell.W).detach()
    torch.testing.assert_close(input_jacobians(cell, x), K.expand(T, 12, 3), rtol=1e-14, atol=1e-15)
    rows = [1, 4, 7, 11]
    full = input_jacobian_maps(cell, x, norms=("spectral", "frobenius"))
    part = input_jacobian_maps(cell, x, rows=rows)
    for tau in range(1, T + 1):
        for t in range(1, tau + 1):
            D = torch.linalg.matrix_power(A, tau - t) @ K
            assert float(full.spectral[tau, t]) == pytest.approx(float(torch.linalg.matrix_norm(D, 2)), rel=1e-10)
            assert float(full.frobenius[tau, t]) == pytest.approx(float(torch.linalg.matrix_norm(D)), rel=1e-10)
            assert float(part.spectral[tau, t]) == pytest.approx(float(torch.linalg.matrix_norm(D[rows], 2)),
                                                                 rel=1e-10)
    assert torch.all(full.spectral[0] == 0) and torch.all(full.spectral[:, 0] == 0)


@pytest.mark.parametrize("method", ["products", "dense"])
@pytest.mark.parametrize("make", [lambda g: SGORNN(2, 20, generator=g, dtype=F64),
                                  lambda g: GRU(2, 20, generator=g, dtype=F64)], ids=["sgornn", "gru"])
def test_nonlinear_cells_match_one_autograd_call_per_pair(make, method):
    g = torch.Generator().manual_seed(4)
    cell = make(g)
    x = torch.randn(25, 2, dtype=F64, generator=g)
    maps = hidden_jacobian_maps(cell, x, norms=("spectral", "frobenius", "smallest"), block=4, method=method)
    for s, t in [(0, 25), (3, 17), (10, 11), (12, 12), (0, 6), (20, 25)]:
        sv = torch.linalg.svdvals(pair_jacobian(cell, x, s, t))
        assert float(maps.spectral[t, s]) == pytest.approx(float(sv[0]), rel=1e-9)
        assert float(maps.frobenius[t, s]) == pytest.approx(float(sv.square().sum().sqrt()), rel=1e-9)
        # σ_min of the autograd product is only good to ~u·σ_max absolutely; these are ≥ 1e-6 σ_max
        assert float(maps.smallest[t, s]) == pytest.approx(float(sv[-1]), rel=1e-8, abs=0)


def test_rtol_brackets_every_value_from_below():
    """The documented guarantee σ/(1 + rtol) ≤ σ̂ ≤ σ, with a loose rtol so that the bound is what
    stops the iteration."""
    g = torch.Generator().manual_seed(6)
    cell = SGORNN(2, 24, generator=g, dtype=F64, alpha_init=-1.0, beta_init=0.0)
    x = torch.randn(40, 2, dtype=F64, generator=g)
    rtol = 1e-4
    S = hidden_jacobian_maps(cell, x, norms=("spectral",), rtol=rtol, block=4, method="products").spectral
    J, _ = step_jacobians(cell, x)
    for s in range(41):
        P = torch.eye(24, dtype=F64)
        for t in range(s, 41):
            if t > s:
                P = J[t - 1] @ P
            exact = float(torch.linalg.matrix_norm(P, 2))
            assert exact / (1 + rtol) * (1 - 1e-12) <= float(S[t, s]) <= exact * (1 + 1e-12)


@pytest.mark.parametrize("rtol", [1e-10, 1e-6, HEATMAP_RTOL])
@pytest.mark.parametrize("make", [lambda g: SGORNN(2, 24, generator=g, dtype=F64),
                                  lambda g: GRU(2, 24, generator=g, dtype=F64)], ids=["sgornn", "gru"])
def test_certified_and_dense_methods_and_the_naive_reference_agree_within_rtol(make, rtol):
    """The cost model may pick either method; the maps must not depend on it beyond rtol. The dense
    method and the naive reference (per-step jacrev, products, matrix_norm(ord=2)) are exact to rounding,
    the certified one is a lower bound within rtol: σ/(1 + rtol) ≤ σ̂ ≤ σ (1 + 1e-12 for rounding)."""
    g = torch.Generator().manual_seed(11)
    cell = make(g)
    x = torch.randn(30, 2, dtype=F64, generator=g)
    fast = hidden_jacobian_maps(cell, x, rtol=rtol, block=4, method="products")
    dense = hidden_jacobian_maps(cell, x, rtol=rtol, method="dense")
    naive = naive_hidden_jacobian_maps(cell, x)
    lower = torch.ones(31, 31, dtype=torch.bool).tril()
    torch.testing.assert_close(dense.spectral, naive["spectral"], rtol=1e-12, atol=0)
    torch.testing.assert_close(dense.frobenius, naive["frobenius"], rtol=1e-12, atol=0)
    torch.testing.assert_close(fast.frobenius, dense.frobenius, rtol=1e-12, atol=0)
    exact, got = dense.spectral[lower], fast.spectral[lower]
    assert torch.all(got <= exact * (1 + 1e-12))
    assert torch.all(got >= exact / (1 + rtol) * (1 - 1e-12))
    assert torch.all(fast.spectral[~lower] == 0) and torch.all(naive["spectral"][~lower] == 0)


def test_cost_model_picks_dense_for_narrow_blocks_and_the_engine_for_wide_ones():
    assert choose_method("auto", T=300, p=8, q=8, h=8) == "dense"
    assert choose_method("auto", T=300, p=256, q=256, h=256) == "products"
    assert choose_method("products", T=30, p=8, q=8, h=8) == "products"  # an explicit choice is kept
    with pytest.raises(ValueError, match="method"):
        choose_method("svd", T=30, p=8, q=8, h=8)


def test_naive_reference_matches_one_autograd_call_per_pair():
    g = torch.Generator().manual_seed(12)
    cell = GRU(2, 6, generator=g, dtype=F64)
    x = torch.randn(9, 2, dtype=F64, generator=g)
    naive = naive_hidden_jacobian_maps(cell, x)
    for s, t in [(0, 9), (2, 5), (4, 4)]:
        J = pair_jacobian(cell, x, s, t)
        assert float(naive["spectral"][t, s]) == pytest.approx(float(torch.linalg.matrix_norm(J, 2)), rel=1e-12)
        assert float(naive["frobenius"][t, s]) == pytest.approx(float(torch.linalg.matrix_norm(J)), rel=1e-12)


def test_a_wrapped_torch_gru_gets_the_same_maps_from_the_engine_and_the_naive_reference():
    """A torch.nn.GRU goes through rnnaudit.cells.wrap in both (its state is h, batch 1 per step in the
    naive jacrev, rows of the trajectory in the engine's jvp; neither calls step with broadcast shapes).
    Width 12 > block = 4 exercises the certificates: σ/(1 + rtol) ≤ σ̂ ≤ σ (1 + 1e-12), σ from the naive
    reference (exact to rounding)."""
    torch.manual_seed(13)  # torch.nn initialisation
    gru = torch.nn.GRU(2, 12, batch_first=True, dtype=F64)
    x = torch.randn(20, 2, dtype=F64, generator=torch.Generator().manual_seed(14))
    fast = hidden_jacobian_maps(gru, x, rtol=1e-10, block=4, method="products")
    naive = naive_hidden_jacobian_maps(gru, x)
    lower = torch.ones(21, 21, dtype=torch.bool).tril()
    exact, got = naive["spectral"][lower], fast.spectral[lower]
    assert torch.all(got <= exact * (1 + 1e-12)) and torch.all(got >= exact / (1 + 1e-10) * (1 - 1e-12))
    torch.testing.assert_close(fast.frobenius, naive["frobenius"], rtol=1e-12, atol=0)


def test_batch_average_is_the_mean_of_the_sequences():
    g = torch.Generator().manual_seed(7)
    cell = GRU(3, 10, generator=g, dtype=F64)
    x = torch.randn(3, 15, 3, dtype=F64, generator=g)
    h0 = torch.randn(3, 10, dtype=F64, generator=g)
    each = [hidden_jacobian_maps(cell, x[i], h0[i]) for i in range(3)]
    mean = hidden_jacobian_maps(cell, x, h0)
    none = hidden_jacobian_maps(cell, x, h0, reduce="none")
    assert isinstance(mean, JacobianMaps) and none.spectral.shape == (3, 16, 16)
    for name in ("spectral", "frobenius"):
        stacked = torch.stack([getattr(m, name) for m in each])
        # the batch runs the cell on 3·15 rows instead of 15: BLAS may round differently (≲ 1e-15)
        torch.testing.assert_close(getattr(none, name), stacked, rtol=1e-13, atol=0)
        torch.testing.assert_close(getattr(mean, name), getattr(none, name).mean(0), rtol=1e-15, atol=0)
    inp = input_jacobian_maps(cell, x, h0, reduce="none").spectral
    torch.testing.assert_close(input_jacobian_maps(cell, x, h0).spectral, inp.mean(0), rtol=1e-15, atol=0)


def test_enrnn_short_term_block_obeys_sec_3_bound():
    """enrnn.md Sec. 3 (proof in Sec. 8.3): ‖∂h^(S)_{t+τ}/∂h^(S)_t‖ ≤ ‖W^(S)‖₂^τ and
    ‖∂h^(S)_{t+τ}/∂x_t‖ ≤ ‖W^(S)‖₂^τ ‖U^(S)‖₂ (modReLU has |σ′| ≤ 1); on the h^(S) rows/columns the
    block upper-triangular W makes ∂h^(S)/∂h^(S) the (S, S) block of the full Jacobian."""
    g = torch.Generator().manual_seed(8)
    q, p = 10, 6
    cell = ENRNN(2, q, p, generator=g, dtype=F64)
    x = torch.randn(2, 30, 2, dtype=F64, generator=g)
    S = range(q, q + p)
    with torch.no_grad():
        w_s = float(torch.linalg.matrix_norm(cell.short_term_matrix(), 2))
        u_s = float(torch.linalg.matrix_norm(cell.U_S, 2))
    hid = hidden_jacobian_maps(cell, x, rows=S, cols=S, reduce="none").spectral
    inp = input_jacobian_maps(cell, x, rows=S, reduce="none").spectral
    for t in range(31):
        for s in range(t + 1):
            assert torch.all(hid[:, t, s] <= w_s ** (t - s) * (1 + 1e-12))
            if s >= 1:
                assert torch.all(inp[:, t, s] <= w_s ** (t - s) * u_s * (1 + 1e-12))
    # the block is the (S, S) corner of the autograd Jacobian
    Jp = pair_jacobian(cell, x[0], 4, 19)
    assert float(hid[0, 19, 4]) == pytest.approx(float(torch.linalg.matrix_norm(Jp[q:, q:], 2)), rel=1e-10)


def test_hidden_jacobian_norms_keeps_its_contract():
    cell = SGORNN(2, 6, dtype=F64, generator=torch.Generator().manual_seed(9))
    x = torch.randn(7, 2, dtype=F64)
    M = hidden_jacobian_norms(cell, x)
    assert M.shape == (8, 8) and float(M[3, 3]) == pytest.approx(1.0, rel=1e-14)
    assert float(hidden_jacobian_norms(cell, x, ord="fro")[2, 2]) == pytest.approx(math.sqrt(6), rel=1e-14)


def test_bad_arguments_raise_value_errors():
    cell = SGORNN(2, 6, dtype=F64)
    x = torch.randn(5, 2, dtype=F64)
    with pytest.raises(ValueError, match="norms"):
        hidden_jacobian_maps(cell, x, norms=("spectral", "nuclear"))
    with pytest.raises(ValueError, match="rtol"):
        hidden_jacobian_maps(cell, x, rtol=0.0)
    with pytest.raises(ValueError, match="method"):
        hidden_jacobian_maps(cell, x, method="svd")
    with pytest.raises(ValueError, match="block"):
        hidden_jacobian_maps(cell, x, block=0)
    with pytest.raises(ValueError, match="reduce"):
        hidden_jacobian_maps(cell, x, reduce="sum")
    with pytest.raises(ValueError, match="rows"):
        hidden_jacobian_maps(cell, x, rows=[0, 0])
    with pytest.raises(ValueError, match="cols"):
        hidden_jacobian_maps(cell, x, cols=[6])
    with pytest.raises(ValueError, match="square"):
        hidden_jacobian_maps(cell, x, norms=("smallest",), rows=[0, 1])
    with pytest.raises(ValueError, match="smallest"):
        input_jacobian_maps(cell, x, norms=("smallest",))
    with pytest.raises(ValueError, match="one sequence"):
        hidden_jacobian_norms(cell, torch.randn(2, 5, 2, dtype=F64))
    with pytest.raises(ValueError):
        hidden_jacobian_maps(cell, torch.randn(0, 2, dtype=F64))  # T = 0
    with pytest.raises(ValueError, match="s <= t"):
        pair_jacobian(cell, x, 3, 2)


def test_smallest_is_represented_without_underflow_below_5_6e_309():
    """h_t = diag(0.1, 0.5) h_{t−1}: σ_min(∂h_t/∂h_s) = 0.1^(t−s) exactly. 1/‖P⁻¹‖ taken as a float was 0 from
    0.1^309 on (‖P⁻¹‖ = 1e309 overflows); the value is now a subnormal down to 4.9e-324, and log₁₀ σ_min is
    −(t − s) at any gap, −400 included."""
    from rnnaudit.cells import wrap
    F = torch.float64
    D = torch.diag(torch.tensor([0.1, 0.5], dtype=F))
    cell = wrap(lambda x_t, h: h @ D.mT + 0 * x_t[..., :1], input_size=1, state_size=2)
    m = hidden_jacobian_maps(cell, torch.zeros(400, 1, dtype=F), norms=("smallest",))
    assert float(m.smallest[308, 0]) == pytest.approx(1e-308, rel=1e-12)
    assert float(m.smallest[320, 0]) == pytest.approx(1e-320, rel=1e-3)  # a subnormal: 3 digits left
    assert float(m.smallest[400, 0]) == 0.0
    gaps = torch.tensor([1, 100, 309, 320, 400])
    assert torch.allclose(m.smallest_log10[gaps, 0], -gaps.double(), rtol=0, atol=1e-10)
    assert math.isnan(float(m.smallest_log10[0, 5]))  # above the diagonal


def test_smallest_log10_is_minus_infinity_for_a_singular_product_and_averages_in_log_space():
    from rnnaudit.cells import wrap
    F = torch.float64
    D = torch.diag(torch.tensor([0.0, 0.5], dtype=F))
    cell = wrap(lambda x_t, h: h @ D.mT + 0 * x_t[..., :1], input_size=1, state_size=2)
    m = hidden_jacobian_maps(cell, torch.zeros(2, 5, 1, dtype=F), norms=("smallest",))
    assert float(m.smallest_log10[3, 1]) == -math.inf and float(m.smallest[3, 1]) == 0.0
    E = torch.diag(torch.tensor([0.1, 0.5], dtype=F))
    both = wrap(lambda x_t, h: torch.where(x_t[..., :1] > 0, h @ E.mT, h @ (E / 10).mT), input_size=1, state_size=2)
    x = torch.stack([torch.ones(3, 1, dtype=F), -torch.ones(3, 1, dtype=F)])
    m = hidden_jacobian_maps(both, x, norms=("smallest",))
    assert float(m.smallest_log10[3, 0]) == pytest.approx(math.log10((1e-3 + 1e-6) / 2), rel=1e-12)
    assert float(m.smallest[3, 0]) == pytest.approx((1e-3 + 1e-6) / 2, rel=1e-12)


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_norms_whose_squares_leave_the_float64_range": {"16-products", "48-dense", "48-products"},
}


def test_finite_inputs_that_overflow_the_state_are_one_error_naming_the_step_not_an_eigensolver_failure():
    """An mLSTM on inputs of 1e300 (finite, so the input check passes): its state is NaN from step 1, and the maps
    used to fail inside eigh with a LinAlgError. Control: the same cell on inputs of scale 1 gives finite maps."""
    from rnnaudit.analysis.jacobian import step_jacobians
    from rnnaudit.cells import MLSTM

    cell = MLSTM(2, 4, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    big = torch.full((1, 8, 2), 1e300, dtype=torch.float64)
    expected = r"the MLSTM's state h_t is not finite \(NaN or inf\) from step t = 1 of sequence 0 on: the inputs x " \
               r"\(largest \|x\| = 1e\+300\)"
    for call in (lambda: hidden_jacobian_maps(cell, big), lambda: hidden_jacobian_maps(cell, big, grid=4),
                 lambda: step_jacobians(cell, big)):
        with pytest.raises(ValueError, match=expected):
            call()
    small = torch.randn(1, 8, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    maps = hidden_jacobian_maps(cell, small)
    assert torch.isfinite(maps.spectral).all()
