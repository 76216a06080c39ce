"""The certified tiers of the spectral-norm engine: Cholesky tests of c²I − MᵀM and power-iteration lower bounds
bracket every exact norm, and PairNorms answers with them the same maximum and worst pair as factorising every
matrix, while factorising only the leaders."""

import math

import pytest
import torch
from torch import nn

from rnnaudit.analysis.contraction import spectral_upper
from rnnaudit.analysis.norms import (PairNorms, cholesky_upper_bounds, power_lower_bounds, power_of_two_scale, spectral,
                                     vector_norm)
from rnnaudit.bounds.core import safe_ratio, worst_pair


def _lstm_step_jacobians(T: int = 40, seed: int = 0) -> torch.Tensor:
    from rnnaudit.bounds.architectures import arch_cases_from_model, step_jacobians
    from rnnaudit.bounds.on_model import ModelView
    from rnnaudit.cells.adapters import wrap

    torch.manual_seed(seed)
    model = nn.LSTM(12, 12, num_layers=2, batch_first=True).double()
    x = torch.randn(1, T, 12, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    case = arch_cases_from_model(ModelView(wrap(model), x))[0]
    return step_jacobians(case)[0]


@pytest.mark.parametrize("shape", [(30, 9, 9), (30, 11, 6), (30, 5, 13)])
def test_a_passed_cholesky_test_bounds_the_norm_from_above_and_a_level_below_the_norm_fails(shape):
    g = torch.Generator().manual_seed(1)
    M = torch.randn(*shape, generator=g, dtype=torch.float64) * torch.exp(torch.randn(shape[0], 1, 1, generator=g))
    exact = spectral(M)
    above = cholesky_upper_bounds(M, exact * (1 + 1e-9))
    assert bool(torch.isfinite(above).all()) and bool((above >= exact).all())
    assert float((above / exact).max()) < 1 + 1e-8  # the certificate costs only rounding: 1e-9 level plus ~1e-13
    # negative control: at a level below the exact norm no matrix is certified (the test can fail)
    assert bool(torch.isinf(cholesky_upper_bounds(M, exact * (1 - 1e-9))).all())


def test_the_cholesky_test_certifies_nothing_for_a_non_finite_matrix_or_level():
    M = torch.eye(4, dtype=torch.float64).repeat(3, 1, 1)
    M[1, 0, 0] = float("nan")
    bounds = cholesky_upper_bounds(M, torch.tensor([2.0, 2.0, float("inf")], dtype=torch.float64))
    assert torch.isfinite(bounds[0]) and torch.isinf(bounds[1]) and torch.isinf(bounds[2])


def test_power_iteration_bounds_lie_below_every_exact_norm_and_close_to_it_on_step_jacobians():
    J = _lstm_step_jacobians()
    exact = spectral(J)
    low = power_lower_bounds(J, steps=30)
    assert bool((low <= exact).all()) and float((low / exact).min()) > 0.9


@pytest.mark.parametrize("seed", range(3))
def test_on_lstm_step_jacobians_pair_norms_give_every_exact_norms_maximum_and_worst_pair_factorising_few(seed):
    J = _lstm_step_jacobians(seed=seed)
    exact = spectral(J)
    norms = PairNorms(J)
    value, i = norms.max()
    assert value == exact.max() and i == int(exact.argmax())  # the same bits: the leader's own factorisation
    assert int(norms.known.sum()) <= 4 < J.shape[0]
    bound = 0.5 + torch.rand(J.shape[0], generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    m, b = PairNorms(J).worst(bound, safe_ratio)
    m0, b0 = worst_pair(exact, bound)
    assert m == m0 and b == b0
    assert bool((norms.lower <= exact).all()) and bool((exact <= norms.upper).all())


def test_a_tie_with_the_leader_is_factorised_and_the_first_index_is_returned():
    J = _lstm_step_jacobians()
    k = int(spectral(J).argmax())
    J = torch.cat([J[:3], J[k:k + 1], J[3:]])  # the maximum twice: at 3 and at k + 1
    value, i = PairNorms(J).max()
    assert i == 3 and value == spectral(J[3])


@pytest.mark.parametrize("big", [5e-324, 3e-300, 0.7, 1.0, 6.0, 1e200, 1.7e308])
def test_the_power_of_two_scale_brings_the_largest_entry_to_one_or_two_and_is_always_finite(big):
    x = torch.tensor([[big, -big / 3], [0.0, big / 7]], dtype=torch.float64)
    s = power_of_two_scale(x)
    assert torch.isfinite(s) and s > 0 and float(torch.frexp(s)[0]) == 0.5  # an exact power of two
    assert 1.0 <= float((x / s).abs().max()) < 2.0
    rows = power_of_two_scale(torch.tensor([[big], [0.0], [math.inf]], dtype=torch.float64), dim=-1)
    assert rows.shape == (3, 1) and rows[1, 0] == 1.0 and rows[2, 0] == 1.0  # 0 and inf are left alone


def test_norms_of_matrices_with_entries_beyond_two_to_the_1023_read_inf_not_nan_or_an_overflow_error():
    # ‖A‖₂ = 4.5e308 overflows: the right answer is inf. Scaling by 2^e with e from frexp (2^1024 = inf) gave NaN
    # brackets in PairNorms and OverflowError in spectral_upper
    A = torch.full((3, 3), 1.5e308, dtype=torch.float64)
    p = PairNorms(A[None])
    assert p.lower[0] == math.inf and p.upper[0] == math.inf
    assert spectral_upper(A) == math.inf
    assert vector_norm(A[0]) == math.inf and vector_norm(torch.tensor([1e308, 1e308], dtype=torch.float64)) == \
        pytest.approx(math.sqrt(2) * 1e308, rel=1e-15)
    B = torch.full((3, 3), 1.5e307, dtype=torch.float64)  # ‖B‖₂ = 4.5e307: finite, and the brackets hold it
    assert float(PairNorms(B[None]).lower[0]) <= 4.5e307 * (1 + 1e-14) and \
        float(PairNorms(B[None]).upper[0]) >= 4.5e307 * (1 - 1e-14)


def test_a_nested_one_thread_block_keeps_the_pools_at_one_thread_and_the_outer_block_restores_them():
    """The inner block sets nothing (the pools already run one thread); leaving the outer one restores the count the
    process had, and an exception inside still unwinds both."""
    from threadpoolctl import threadpool_info

    from rnnaudit.analysis.norms import one_thread

    before = [pool["num_threads"] for pool in threadpool_info()]
    with one_thread():
        with one_thread():
            assert all(pool["num_threads"] == 1 for pool in threadpool_info())
        assert all(pool["num_threads"] == 1 for pool in threadpool_info())
    assert [pool["num_threads"] for pool in threadpool_info()] == before
    with pytest.raises(RuntimeError):
        with one_thread():
            with one_thread():
                raise RuntimeError("unwind")
    assert [pool["num_threads"] for pool in threadpool_info()] == before
    with one_thread():  # and a fresh block after the exception limits again
        assert all(pool["num_threads"] == 1 for pool in threadpool_info())


def test_pair_norms_bounds_written_chunk_by_chunk_are_each_matrix_own_bounds_in_its_own_place(monkeypatch):
    """PairNorms writes each chunk's bounds into its place (a last chunk shorter than the others included): every
    matrix's bracket is that of norm_bounds on the matrix alone, widened by the slack, and holds its exact norm (the
    matrices are scaled by 2^i, so a bound written one place off is off by a factor 2)."""
    import rnnaudit.analysis.norms as norms
    from rnnaudit.analysis.diagnostics import norm_bounds

    monkeypatch.setattr(norms, "BOUNDS_NUMBERS", 4 * 7 * 7)  # 4 matrices a chunk: three chunks of 4, one of 1
    gen = torch.Generator().manual_seed(5)
    M = torch.randn(13, 7, 7, dtype=torch.float64, generator=gen) * 2.0 ** torch.arange(13, dtype=torch.float64)[
        :, None, None]
    pn = PairNorms(M)
    slack = 4 * (7 * 7 + 1) * torch.finfo(torch.float64).eps
    lo, hi = zip(*(norm_bounds(M[i:i + 1]) for i in range(13)))
    assert torch.allclose(pn.lower, torch.cat(lo) * (1 - slack), rtol=1e-15, atol=0)
    assert torch.allclose(pn.upper, torch.cat(hi) * (1 + slack), rtol=1e-15, atol=0)
    exact = spectral(M)
    assert bool((pn.lower <= exact).all() and (exact <= pn.upper).all())


@pytest.mark.parametrize("entry", [9.9e-163, 1e-300, 3e160], ids=["squares-underflow", "subnormal-scale", "overflow"])
def test_the_cholesky_test_of_a_matrix_outside_the_squares_range_is_taken_at_its_scale(entry):
    """A 64 × 64 matrix of equal entries m has ‖M‖₂ = 64m; where m² under- or overflows, the test runs on M and c
    divided by a power of two: it certifies nothing below 64m and certifies 65m (before, m = 9.9e−163 was
    "certified" below 20m: its Gram matrix had rounded to 0)."""
    from rnnaudit.analysis.norms import cholesky_upper_bounds

    M = torch.full((1, 64, 64), entry, dtype=torch.float64)
    for k in (20, 63.9):
        assert cholesky_upper_bounds(M, torch.tensor([k * entry], dtype=torch.float64)).isinf().all()
    bound = cholesky_upper_bounds(M, torch.tensor([65 * entry], dtype=torch.float64))
    assert 64 * entry < float(bound[0]) < 65 * entry * (1 + 1e-9)
    norms = PairNorms(torch.cat([M, 20 * entry * torch.eye(64, dtype=torch.float64)[None]]))
    assert norms.max()[1] == 0 and not bool(norms.below(63.9 * entry)[0])


def test_the_worst_pair_is_found_where_a_bound_is_too_small_to_invert():
    """A bound below ~5.6e−309 has no finite weight 1/b: its pair is still a candidate, and a finite-weight pair is
    not hidden by it (before, the worst pair of ratio 2 was dropped for one of ratio 1.01)."""
    torch.manual_seed(0)
    M = torch.stack([torch.eye(40, dtype=torch.float64) * v for v in (1.0, 2.0, 1e-311, 3.0)])
    bound = torch.tensor([1.0, 1.0, 1e-310, 3.0], dtype=torch.float64)
    i = PairNorms(M).worst_index(bound, lambda m, b: m / b)
    assert i == 1  # ratios 1, 2, 0.1, 1


def test_an_exact_norm_within_rounding_of_the_level_certifies_no_side():
    """below(level) reads an exact (LAPACK) norm equal to the level up to rounding as not certified below it: a
    computed 1 − 2^−52 may be a true norm of 1 (before, it counted as below 1)."""
    D = torch.diag(torch.linspace(0.5, 1 - 2.0 ** -52, 40, dtype=torch.float64))
    norms = PairNorms(D[None])
    norms.solve(torch.tensor([0]))
    assert not bool(norms.below(1.0)[0]) and bool(norms.below(1.0 + 1e-9)[0])


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.complex128], ids=str)
def test_the_power_of_two_scale_is_that_of_the_infinity_norms_largest_entry_over_any_dimensions(dtype):
    """The largest |entry| is read from one aminmax pass for a real tensor: the scale equals, bit for bit, the one
    torch's ∞-norm reduction gives (NaN and inf entries, zero slices, subnormal and huge magnitudes, transposed
    layouts, one or two reduced dimensions), and rnnaudit.bounds.scaled_products.rescaled leaves or rescales a
    product exactly as that scale says."""
    from rnnaudit.bounds.scaled_products import RESCALE_BITS, rescaled

    def reference(x, dim=None):
        big = torch.linalg.vector_norm(x, math.inf, dim=dim, keepdim=dim is not None)
        ok = (big > 0) & torch.isfinite(big)
        e = torch.frexp(torch.where(ok, big, torch.ones_like(big)))[1] - 1
        return torch.where(ok, torch.ldexp(torch.ones_like(big), e), torch.ones_like(big))

    g = torch.Generator().manual_seed(0)
    for trial in range(400):
        shape = tuple(int(k) for k in torch.randint(1, 5, (int(torch.randint(1, 4, (1,), generator=g)),), generator=g))
        scale = math.ldexp(1.0, int(torch.randint(-1070, 1020, (1,), generator=g)))
        x = (torch.randn(shape, generator=g, dtype=torch.float64) * scale).to(dtype)
        r = torch.rand(shape, generator=g)
        x = torch.where(r < 0.05, torch.full_like(x, math.nan), torch.where(r < 0.08, torch.full_like(x, -math.inf), x))
        x = torch.where((r > 0.1) & (r < 0.4), torch.zeros_like(x), x)
        x = x.mT if x.dim() > 1 and trial % 2 else x
        for dim in [None, -1, 0] + ([(-2, -1), (0, -1)] if x.dim() > 1 else []):
            want, got = reference(x, dim), power_of_two_scale(x, dim)
            assert got.shape == want.shape and torch.equal(got, want), (trial, dim)
        if x.dim() == 2 and not x.is_complex():
            k = int(torch.frexp(reference(x))[1]) - 1
            P, e = rescaled(x, 5)
            assert (P is x and e == 5) if abs(k) <= RESCALE_BITS else (e == 5 + k and torch.equal(P, x / 2.0 ** k))
