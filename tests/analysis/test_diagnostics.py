"""analysis.diagnostics.max_step_norm: the one engine of the largest step-Jacobian norm of a block of the state."""

from __future__ import annotations

import pytest
import torch

from rnnaudit.analysis.diagnostics import max_step_norm


def _jacobians(m=4, T=7, S=6, seed=0):
    return torch.randn(m, T, S, S, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


@pytest.mark.parametrize("index", [None, [0, 1, 2], [1, 4, 5]], ids=["whole", "contiguous", "scattered"])
def test_the_largest_block_norm_over_every_sequence_is_the_brute_force_maximum(index):
    J = _jacobians()
    block = J if index is None else J[..., index, :][..., index]
    norms = torch.linalg.matrix_norm(block, 2)  # an SVD per step
    got = max_step_norm(J, index)
    # √λ_max of a 6 × 6 Gram matrix against an SVD: relative error of order S·eps (~1e-15); 1e-12 is the margin
    assert got.value == pytest.approx(float(norms.max()), rel=1e-12)
    flat = int(norms.argmax())
    assert got.at == (flat // J.shape[1], flat % J.shape[1] + 1) and got.sequences == J.shape[0]
    assert got.fraction_below_one <= float((norms < 1).double().mean())  # certified: a lower bound on the share
    lazy = max_step_norm(iter(J.unbind(0)), index)  # read one sequence at a time, the same number
    assert (lazy.value, lazy.at) == (got.value, got.at)


def test_a_larger_step_in_a_later_sequence_is_the_one_reported():
    J = _jacobians() * 0.1
    J[3, 5] = 3 * torch.eye(6, dtype=torch.float64)
    got = max_step_norm(J, [0, 1])
    assert got.value == pytest.approx(3.0, rel=1e-14) and got.at == (3, 6)
    assert got.fraction_below_one == pytest.approx(1 - 1 / J[:, :, 0, 0].numel())


@pytest.mark.parametrize("index, words", [([0, 6], r"\[0, 6\)"), ([1, 1], "distinct"), ([], "distinct")])
def test_a_block_outside_the_state_is_refused_by_name(index, words):
    with pytest.raises(ValueError, match=words):
        max_step_norm(_jacobians(), index)


def test_no_sequence_or_a_non_square_jacobian_is_refused():
    with pytest.raises(ValueError, match="no sequence"):
        max_step_norm([])
    with pytest.raises(ValueError, match=r"\(T, S, S\)"):
        max_step_norm([torch.zeros(3, 2, 4, dtype=torch.float64)])


def test_an_overflowing_median_or_step_norm_is_written_inf_and_only_an_unmeasured_one_null():
    import dataclasses
    import json
    import math

    from rnnaudit.analysis.diagnostics import StateDiagnostics

    d = StateDiagnostics(state_size=2, T=6000, sequences=1, contractivity=math.inf, contractivity_at=(0, 3),
                         contractive_fraction=0.0, horizon=None, horizon_medians=[2.0, math.inf], threshold=1e-3,
                         lyapunov_halfwidth=[math.nan])
    doc = json.loads(json.dumps(d.to_json(), allow_nan=False))
    assert doc["median_norm_at_horizon"] == "inf" and doc["contractivity"] == "inf"
    assert doc["lyapunov_halfwidth"] == [None]
    assert dataclasses.replace(d, horizon_medians=[]).to_json()["median_norm_at_horizon"] is None


@pytest.mark.parametrize("T, max_times", [(40, 128), (40, 7), (300, 20)])
def test_the_horizon_window_products_are_the_products_formed_one_factor_at_a_time(T, max_times):
    """J_t ⋯ J_{t−τ+1} from a block's prefix and the block before's suffix equals the product formed factor by
    factor, for every lag and end time (subsampled ones too), with its log scale, to rounding."""
    from rnnaudit.analysis.diagnostics import _times_step, _window_products

    J = 0.6 * torch.randn(2, T, 4, 4, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    every = torch.arange(1, T + 1) if T <= max_times else \
        torch.linspace(1, T, max_times, dtype=torch.float64).round().long().unique()
    for lag in [1, 2, 3, 7, 16, T // 2, T - 1, T]:
        times = every[every >= lag]
        P, log_scale = J[:, times - 1].clone(), torch.zeros(2, times.shape[0], dtype=torch.float64)
        for k in range(2, lag + 1):
            P, log_scale = _times_step(P, log_scale, J[:, times - k])
        got, got_scale = _window_products(J, times, lag)
        want = P * log_scale.exp()[..., None, None]
        have = got * got_scale.exp()[..., None, None]
        size = want.abs().amax((-2, -1), keepdim=True)
        assert float(((have - want).abs() / size).max()) < 1e-12


def test_the_horizon_lower_bound_median_decides_only_a_median_above_the_threshold_and_never_exceeds_it():
    """_median_above returns the median of certified lower bounds where fewer than half are below the threshold (a
    value between the threshold and the true median), and None where the true median is below the threshold."""
    from rnnaudit.analysis.diagnostics import _median_above
    from rnnaudit.analysis.norms import PairNorms

    P = torch.randn(1, 9, 12, 12, generator=torch.Generator().manual_seed(5), dtype=torch.float64)
    log_scale = torch.zeros(1, 9, dtype=torch.float64)
    true = float(torch.linalg.matrix_norm(P, 2).median())
    norms = lambda: PairNorms(P.reshape(-1, 12, 12))  # noqa: E731 - fresh bounds for each question
    low = _median_above(norms(), log_scale, 0.5 * true)
    assert low is not None and 0.5 * true <= low <= true * (1 + 1e-12)
    assert _median_above(norms(), log_scale, 1.01 * true) is None
    assert _median_above(norms(), log_scale + 50.0, 1.01 * true) is not None  # the scale counts: e^50 times larger


@pytest.mark.parametrize("S", [12, 40], ids=["solved", "cholesky"])
def test_the_horizon_median_below_the_threshold_is_decided_exactly_on_either_side(S):
    """_median_below counts the matrices below the threshold exactly (cheap bounds, then a Cholesky test for S ≥ 32,
    then exact norms): a threshold just above the true median says below, one just under it says not below, and the
    value returned is an upper bound on the median."""
    from rnnaudit.analysis.diagnostics import _median_below
    from rnnaudit.analysis.norms import PairNorms

    P = torch.randn(1, 9, S, S, generator=torch.Generator().manual_seed(6), dtype=torch.float64)
    log_scale = torch.full((1, 9), -3.0, dtype=torch.float64)
    true = float((torch.linalg.matrix_norm(P, 2) * log_scale.exp()).median())
    for factor, expected in ((1.001, True), (0.999, False)):
        value, below = _median_below(PairNorms(P.reshape(-1, S, S)), log_scale, factor * true)
        assert below is expected
        assert value >= true * (1 - 1e-12)


def test_the_held_norms_are_reused_only_for_the_very_tensor_and_a_wrong_kind_is_refused():
    """max_step_norm(norms={b: PairNorms}) reads the given norms where they are of the same tensor as sequence b (the
    audit's step map): the same value as computing afresh; norms of another tensor are ignored; anything else is
    refused by name."""
    from rnnaudit.analysis.norms import PairNorms

    J = _jacobians(m=1, T=5, S=40)
    held = PairNorms(J[0])
    assert max_step_norm(J, norms={0: held}).value == max_step_norm(J).value
    assert bool(held.known.any())  # the held object did the work
    other = PairNorms(J[0].clone())
    max_step_norm(J, norms={0: other})
    assert not bool(other.known.any())  # a copy is not the tensor: not read
    for bad in ({0: "x"}, [1]):
        with pytest.raises(TypeError, match="norms must be"):
            max_step_norm(J, norms=bad)


def _window_product(J, b, t, tau):
    P = torch.eye(J.shape[-1], dtype=J.dtype)
    for k in range(t - tau + 1, t + 1):
        P = J[b, k - 1] @ P
    return P


@pytest.mark.parametrize("rows", [True, False], ids=["rows", "columns"])
def test_a_window_sweep_is_every_windows_product_applied_to_its_vector(rows):
    """_window_sweep multiplies each window's vector through J_t ⋯ J_{t−τ+1} (as a row, or as a column from the
    right end) without forming the products: the unit results and log norms are those of xᵀP and Px formed
    explicitly, a window whose product is zero reads −inf."""
    from rnnaudit.analysis.diagnostics import _window_sweep

    J = torch.randn(2, 12, 5, 5, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    J[1, 6] = 0.0  # every window of sequence 1 holding step 7 is zero
    tau, ends = 4, torch.tensor([4, 5, 7, 9, 10, 12])
    X = torch.randn(2, 6, 5, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    X = X / X.norm(dim=-1, keepdim=True)
    Y, log_norm = _window_sweep(J, ends, tau, X, rows)
    for b in range(2):
        for i, t in enumerate(ends.tolist()):
            P = _window_product(J, b, t, tau)
            want = X[b, i] @ P if rows else P @ X[b, i]
            if b == 1 and t - tau + 1 <= 7 <= t:
                assert log_norm[b, i] == -float("inf")
                continue
            assert float(log_norm[b, i].exp()) == pytest.approx(float(want.norm()), rel=1e-12)
            assert torch.allclose(Y[b, i], want / want.norm(), rtol=0, atol=1e-12)


def test_the_matrix_free_power_bounds_stay_below_every_window_norm_and_decide_only_a_median_above():
    """Each pass of the windows' power iteration gives a norm below ‖J_t ⋯ J_{t−τ+1}‖₂ of its window; from them
    _median_above_free certifies a median above a threshold the rows alone leave open, and never one at or above
    the true median (where it must fail)."""
    from rnnaudit.analysis.diagnostics import _forward_directions, _median_above_free, _row_lower_bounds, _window_sweep

    J = 0.5 * torch.randn(2, 30, 8, 8, generator=torch.Generator().manual_seed(1), dtype=torch.float64) / 8 ** 0.5
    times = torch.arange(1, 31)
    rows = _row_lower_bounds(J, times)
    Q = _forward_directions(J, torch.Generator().manual_seed(0))
    tau = 6
    ends = times[times >= tau]
    norms = torch.stack([torch.stack([torch.linalg.matrix_norm(_window_product(J, b, t, tau), 2)
                                      for t in ends.tolist()]) for b in range(2)])
    X, as_rows = Q[:, ends - 1], True
    for _ in range(6):
        X, log_norm = _window_sweep(J, ends, tau, X, as_rows)
        assert bool((log_norm.exp() <= norms * (1 + 1e-12)).all())
        as_rows = not as_rows
    true = float(norms.reshape(-1).median())
    row_median = float(rows[:, ends - 1, tau].reshape(-1).median().exp())
    assert row_median < 0.8 * true  # the rows alone are not tight here
    above, low = _median_above_free(J, ends, tau, Q[:, ends - 1], rows[:, ends - 1, tau], 0.95 * true)
    assert above and 0.95 * true <= low <= true
    for level in (true, 1.01 * true):
        assert _median_above_free(J, ends, tau, Q[:, ends - 1], rows[:, ends - 1, tau], level)[0] is False


def test_the_horizon_decided_through_a_matrix_free_lag_is_the_brute_force_one(monkeypatch):
    """On GRU-like steps whose median crosses the threshold slowly, a lag the rows leave open is decided by the
    windows' power iteration without products, and the horizon is that of every product formed (brute force)."""
    from rnnaudit.analysis import diagnostics
    from rnnaudit.analysis.diagnostics import memory_horizon

    decided = []
    real = diagnostics._median_above_free

    def spy(*args):
        out = real(*args)
        decided.append(out[0])
        return out

    monkeypatch.setattr(diagnostics, "_median_above_free", spy)
    hits = 0
    for seed in range(6):
        gen = torch.Generator().manual_seed(seed)
        J = 0.75 * torch.randn(1, 40, 12, 12, generator=gen, dtype=torch.float64) / 12 ** 0.5
        decided.clear()
        horizon, medians = memory_horizon(J)
        expected = None
        for tau in range(1, 41):
            norms = torch.stack([torch.linalg.matrix_norm(_window_product(J, 0, t, tau), 2) for t in range(tau, 41)])
            if float(norms.median()) < 1e-3:
                expected = tau
                break
        assert horizon == expected, seed
        hits += sum(decided)
    assert hits > 0  # the matrix-free tier decided at least one lag
