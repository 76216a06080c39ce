"""The pair classes of benchmarks/bench_flat_band.py on products whose spectra are known."""

import pytest
import torch

from tests.conftest import load_benchmark


@pytest.fixture(scope="module")
def flat_band():
    return load_benchmark("bench_flat_band")


def test_decaying_spectrum_is_left_to_krylov(flat_band):
    # σ = (1, 0.5^g, …): the 16 values beyond K = 32 sum to 16·0.25^g, ≤ σ_1² from gap 2 on, and the exact
    # warm start closes the engine's Krylov bound; gap 1 leaves 4σ_1² beyond K, so Krylov is not tried and,
    # with no previous step, the pair counts as an eigensolve
    h = 48
    J = torch.diag(torch.cat([torch.ones(1), torch.full((h - 1,), 0.5)])).double().expand(5, h, h)
    counts = flat_band.classify(J, [0], (1e-10,))["counts"][1e-10]
    assert counts == {"krylov": 4, "warm": 0, "eigensolve": 1}


def test_a_tail_small_enough_is_not_taken_for_a_krylov_certificate(flat_band):
    # 30 distinct singular values within 3e-3 of 1, 18 near 0.01: the tail beyond K = 32 is 18e-4·σ_1², but
    # from the engine's random start 4 blocks of 8 (no invariant subspace: 48 distinct values) capture too
    # little of the cluster to certify: the condition on the tail is necessary, not sufficient
    s = torch.cat([1 - 1e-4 * torch.arange(30.0), 0.01 * (1 - 0.01 * torch.arange(18.0))]).double()
    J = torch.diag(s)[None]
    assert float(s[32:].square().sum()) <= 1
    counts = flat_band.classify(J, [0], (1e-10, 1e-2))["counts"]
    assert counts[1e-10] == counts[1e-2] == {"krylov": 0, "warm": 0, "eigensolve": 1}


def test_flat_spectrum_with_an_exact_warm_start_needs_only_cholesky(flat_band):
    # an orthogonal product: every σ_i = 1, so any vector's Rayleigh quotient is exact
    h = 48
    Q = torch.linalg.qr(torch.randn(h, h, generator=torch.Generator().manual_seed(0), dtype=torch.float64))[0]
    counts = flat_band.classify(Q.expand(6, h, h), [0, 3], (1e-10,))["counts"][1e-10]
    assert counts == {"krylov": 0, "warm": 7, "eigensolve": 2}


def test_rotating_flat_spectrum_needs_an_eigensolve(flat_band):
    # D_t Q_t with spread D_t: the top right singular vector moves, and the warm start's Rayleigh quotient
    # falls short of σ_1² by far more than (1 + 1e-10)² − 1, while d ≥ 0.9 keeps every σ_i(P) ≥ 0.9^6 > 0.53:
    # the 16 values beyond K = 32 sum to more than 4σ_1²
    h, T = 48, 6
    g = torch.Generator().manual_seed(1)
    J = torch.stack([torch.diag(0.9 + 0.1 * torch.rand(h, generator=g, dtype=torch.float64))
                     @ torch.linalg.qr(torch.randn(h, h, generator=g, dtype=torch.float64))[0] for _ in range(T)])
    counts = flat_band.classify(J, [0], (1e-10,))["counts"][1e-10]
    assert counts == {"krylov": 0, "warm": 0, "eigensolve": T}


def test_warm_start_error_is_compared_with_the_tolerance(flat_band):
    # P(0, 1) = diag(1, 0.99 ×7, 0.98, …): the warm block is e_1..e_8. J_1 raises e_9 by 3%, so P(0, 2) has
    # σ_1² = (0.98·1.03)² = 1.0189 along e_9 while the block's Rayleigh–Ritz value stays 1: an error of
    # 1 − 1/1.0189 = 0.0186, outside 1 − (1 + 1e-3)⁻² = 0.0020 and inside 1 − (1 + 1e-2)⁻² = 0.0197
    h = 48
    s = torch.full((h,), 0.98, dtype=torch.float64)
    s[0], s[1:8] = 1.0, 0.99
    a = torch.ones(h, dtype=torch.float64)
    a[8] = 1.03
    J = torch.stack([torch.diag(s), torch.diag(a)])
    counts = flat_band.classify(J, [0], (1e-3, 1e-2))["counts"]
    assert counts[1e-3] == {"krylov": 0, "warm": 0, "eigensolve": 2}
    assert counts[1e-2] == {"krylov": 0, "warm": 1, "eigensolve": 1}
