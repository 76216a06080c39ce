"""Jacobian maps on a grid: certified products and randomized sweeps against exact maps (dense SVDs of
products formed by autograd, independent of the engine), state blocks and their labels, the cost
estimate and the memory refusal."""

import math

import pytest
import torch

from rnnaudit.analysis import (estimate_cost, hidden_jacobian_maps, input_jacobian_maps, pair_jacobian, state_block,
                               stated_error_ratio)
from rnnaudit.analysis.grid_maps import SKETCH_DELTA, grid_steps, sketch_bracket
from rnnaudit.cells import wrap

F64 = torch.float64
# rounding allowance of a certified value above the exact norm: the Gram arithmetic's h·u and the
# different order of the products (grid: aggregated factors; reference: autograd), both ≪ 1e-10 here
FLOOR = 1e-10


def _lstm(layers=1, n=3, h=12, seed=0):
    torch.manual_seed(seed)
    return torch.nn.LSTM(n, h, num_layers=layers, batch_first=True, dtype=F64)


def _exact(cell, x, steps, rows, cols, kind="hidden"):
    """‖block of ∂h_t/∂h_s‖₂ (or ∂h_τ/∂x_t) at the grid's steps by autograd products and a dense SVD."""
    R = steps.numel()
    out = torch.zeros(R, R, dtype=F64)
    cell = wrap(cell)
    for i, t in enumerate(steps.tolist()):
        for j, s in enumerate(steps.tolist()[:i + 1]):
            if kind == "hidden":
                P = pair_jacobian(cell, x, s, t)
                P = P[rows][:, cols] if rows is not None else P
            else:  # ∂h_τ/∂x_t = ∂h_τ/∂h_t · K_t, K_t by autograd through the one step
                hs = torch.cat([cell.initial_state(x[None], None), cell(x[None])[0]]).detach()
                K = torch.autograd.functional.jacobian(lambda xx: cell.step(xx[None], hs[s - 1][None])[0], x[s - 1])
                P = pair_jacobian(cell, x, s, t) @ K
                P = P[rows] if rows is not None else P
            out[i, j] = torch.linalg.matrix_norm(P, ord=2)
    return out


@pytest.mark.parametrize("block", ["h", "state"])
def test_certified_grid_maps_are_within_their_stated_error_of_exact_maps(block):
    m = _lstm()
    x = torch.randn(30, 3, dtype=F64, generator=torch.Generator().manual_seed(1))
    rows, _ = state_block(m, block)
    maps = hidden_jacobian_maps(m, x, norms=("spectral", "frobenius"), rows=rows, cols=rows, grid=7, rtol=1e-3)
    assert maps.steps.tolist() == [0, 5, 10, 15, 20, 25, 30] and maps.rtol == 1e-3 and maps.confidence == 1.0
    exact = _exact(m, x, maps.steps, rows, rows)
    assert stated_error_ratio(maps.spectral, exact, maps.rtol, floor=FLOOR) <= 1
    # negative controls: a value 1% low (beyond rtol 1e-3), or any value above the exact norm, must be caught
    low, high = maps.spectral.clone(), maps.spectral.clone()
    low[5, 2] *= 0.99
    high[6, 1] *= 1 + 1e-6
    assert stated_error_ratio(low, exact, maps.rtol, floor=FLOOR) > 1
    assert stated_error_ratio(high, exact, maps.rtol, floor=FLOOR) > 1
    # and a map certified to 1e-3 does not meet a stated 1e-12: the certificate stops early on purpose
    x2 = torch.randn(60, 3, dtype=F64, generator=torch.Generator().manual_seed(2))
    loose = hidden_jacobian_maps(_lstm(h=40), x2, norms=("spectral",), grid=31, rtol=1e-3, method="products")
    tight = hidden_jacobian_maps(_lstm(h=40), x2, norms=("spectral",), grid=31, rtol=1e-12, method="products")
    assert loose.stats["iterative"] > 0
    assert stated_error_ratio(loose.spectral, tight.spectral, 1e-3, floor=FLOOR) <= 1
    assert stated_error_ratio(loose.spectral, tight.spectral, 1e-12, floor=1e-13) > 1


def test_grid_maps_equal_the_all_pairs_map_at_the_grid_points_smallest_included():
    m = _lstm(h=6)
    x = torch.randn(25, 3, dtype=F64, generator=torch.Generator().manual_seed(3))
    full = hidden_jacobian_maps(m, x, norms=("spectral", "frobenius", "smallest"), rtol=1e-12)
    grid = hidden_jacobian_maps(m, x, norms=("spectral", "frobenius", "smallest"), grid=[0, 1, 7, 8, 20, 25], rtol=1e-12)
    g = grid.steps
    for name in ("spectral", "frobenius", "smallest"):
        torch.testing.assert_close(getattr(grid, name), getattr(full, name)[g][:, g], rtol=1e-9, atol=0)


def test_input_grid_maps_are_within_their_stated_error():
    m = _lstm(n=5, h=10)
    x = torch.randn(24, 5, dtype=F64, generator=torch.Generator().manual_seed(4))
    rows, _ = state_block(m)
    maps = input_jacobian_maps(m, x, rows=rows, grid=6, rtol=1e-3)
    assert maps.steps[0] == 1 and maps.steps[-1] == 24
    exact = _exact(m, x, maps.steps, rows, None, kind="input")
    assert stated_error_ratio(maps.spectral, exact, 1e-3, floor=FLOOR) <= 1


def test_sketch_values_are_within_their_stated_factor():
    """Every cell of several maps (wide blocks, 16 probes) lies within its stated factor of the exact norm;
    a factor claimed at f^0.6 (40% narrower on the log scale) is caught."""
    m = _lstm(h=40)
    rows, _ = state_block(m)
    total = violations = tighter = 0
    for seed in range(3):
        x = torch.randn(40, 3, dtype=F64, generator=torch.Generator().manual_seed(10 + seed))
        exact = hidden_jacobian_maps(m, x, norms=("spectral",), rows=rows, cols=rows, rtol=1e-12).spectral
        sk = hidden_jacobian_maps(m, x, norms=("spectral",), rows=rows, cols=rows, grid=9, method="sketch")
        ex = exact[sk.steps][:, sk.steps]
        cells = torch.ones_like(ex, dtype=torch.bool).tril(-1)
        r, f = sk.spectral[cells] / ex[cells], sk.factor[cells]
        assert bool((f > 1).all()) and sk.confidence == 1 - SKETCH_DELTA and sk.rtol is None
        total += int(cells.sum())
        violations += int(((r > f * (1 + 1e-12)) | (r < 1 / (f * (1 + 1e-12)))).sum())
        f_tight = f ** 0.6
        tighter += int(((r > f_tight) | (r < 1 / f_tight)).sum())
    assert total == 108 and violations == 0
    assert tighter > 0


def test_the_sketch_bound_fails_at_its_stated_rate_where_it_is_tight():
    """For a rank-one B the upper bound ‖BΩ‖₂/√F⁻¹_{χ²_k}(δ) is exactly σ₁·‖g‖/√F⁻¹(δ), so it fails with
    probability δ itself: at δ = 0.2 the empirical rate over 4,000 draws lies within 5 standard errors of 0.2
    (a quantile of the wrong law, e.g. χ²_{k−1}, would not), and ℓ never exceeds σ₁."""
    gen = torch.Generator().manual_seed(5)
    q, p, k, n = 30, 20, 4, 4000
    u, v = torch.randn(p, dtype=F64, generator=gen), torch.randn(q, dtype=F64, generator=gen)
    B = torch.outer(u, v)
    sigma = float(torch.linalg.matrix_norm(B, ord=2))
    Om = torch.randn(n, q, k, dtype=F64, generator=gen)
    Rf = torch.linalg.qr(Om)[1]
    Y = (B @ Om).mT
    low, up = sketch_bracket(Y, Rf, k, 0.2)
    rate = float((up < sigma).double().mean())
    assert abs(rate - 0.2) < 5 * (0.2 * 0.8 / n) ** 0.5
    assert bool((low <= sigma * (1 + 1e-12)).all())
    _, wrong = sketch_bracket(Y, Rf, k - 1, 0.2)  # the χ² law of one probe too few: fails less often than stated
    assert abs(float((wrong < sigma).double().mean()) - 0.2) > 5 * (0.2 * 0.8 / n) ** 0.5


def test_state_blocks_and_their_labels():
    one, two, gru = _lstm(), _lstm(layers=2), torch.nn.GRU(3, 5, dtype=F64)
    rows, label = state_block(one)
    assert rows == list(range(12)) and label == "h block"
    assert state_block(one, "c") == (list(range(12, 24)), "c block")
    assert state_block(one, "state") == (None, "(h, c) state")
    assert state_block(two) == (list(range(12, 24)), "layer 1 h block")
    assert state_block(two, "h", 0) == (list(range(12)), "layer 0 h block")
    assert state_block(two, "c") == (list(range(36, 48)), "layer 1 c block")
    assert state_block(two, "state") == (None, "(h, c) state of all 2 layers")
    assert state_block(gru) == (None, "state h")
    for kwargs, match in (({"block": "c"}, "needs an LSTM"), ({"block": "x"}, "block"), ({"layer": 1}, "layer"),
                          ({"layer": True}, "layer")):
        with pytest.raises(ValueError, match=match):
            state_block(gru if kwargs.get("block") == "c" else one, **kwargs)


def test_grid_steps_and_bad_grids():
    assert grid_steps(3, 0, 10).tolist() == [0, 5, 10]
    assert grid_steps(50, 0, 10).tolist() == list(range(11))
    assert grid_steps([7, 2, 0], 0, 10).tolist() == [0, 2, 7]
    for bad in (1, True, 2.5, [3], [1, 1, 4], [0, 11], [0.0, 1.0]):
        with pytest.raises(ValueError, match="grid"):
            grid_steps(bad, 0, 10)
    m = _lstm()
    with pytest.raises(ValueError, match="sketch.*grid"):
        hidden_jacobian_maps(m, torch.zeros(5, 3, dtype=F64), norms=("spectral",), method="sketch")
    with pytest.raises(ValueError, match="spectral"):
        hidden_jacobian_maps(m, torch.zeros(5, 3, dtype=F64), grid=3, method="sketch")


def test_memory_refusal_names_the_size_and_the_limit_before_allocating():
    m = _lstm(n=2)
    with pytest.raises(ValueError, match=r"x: the all-pairs map of T = 1000000 .* GiB, above memory_limit = "):
        hidden_jacobian_maps(m, torch.rand(1, 10 ** 6, 2, dtype=F64))
    with pytest.raises(ValueError, match="memory_limit"):
        input_jacobian_maps(m, torch.rand(1, 10 ** 6, 2, dtype=F64))
    # a grid holds R² cells and R − 1 factors, not T²: the same length fits
    assert estimate_cost(m, 10 ** 6, grid=256).fits and not estimate_cost(m, 10 ** 6).fits
    with pytest.raises(ValueError, match="memory_limit"):
        hidden_jacobian_maps(m, torch.rand(20, 2, dtype=F64), memory_limit=1000)
    with pytest.raises(ValueError, match="memory_limit"):
        hidden_jacobian_maps(m, torch.rand(20, 2, dtype=F64), memory_limit=-1)


@pytest.mark.parametrize("method", ["products", "sketch"])
def test_progress_adds_up_to_the_estimate(method):
    m = _lstm(h=20)
    rows, _ = state_block(m)
    x = torch.randn(40, 3, dtype=F64)
    done = []
    hidden_jacobian_maps(m, x, norms=("spectral",), rows=rows, cols=rows, grid=9, rtol=1e-3,
                         method="auto" if method == "products" else "sketch", progress=done.append)
    est = estimate_cost(m, 40, grid=9, rows=rows, cols=rows, method=method)
    assert sum(done) == pytest.approx(est.work, rel=1e-9) and est.work == est.gemms  # uncalibrated: equal
    assert est.method == ("grid" if method == "products" else "sketch") and est.ratio < 1


def test_estimate_cost_refuses_astronomical_T_and_integer_dtypes_naming_the_argument_and_takes_auto():
    """T = 10**100 raised OverflowError (grid steps as an int64 tensor), an int64 dtype TypeError (torch.finfo), and
    method="auto", the map functions' own default, ValueError. Control: T = 2**53 on a grid is estimated, and
    "auto" is the certified products' estimate."""
    m = torch.nn.RNN(2, 4).double()
    for grid in (None, 64):
        with pytest.raises(ValueError, match=r"^T = 1e\+100 is above 2\*\*53"):
            estimate_cost(m, 10 ** 100, grid=grid)
    with pytest.raises(ValueError, match="^batch = "):
        estimate_cost(m, 10, batch=2 ** 60)
    with pytest.raises(ValueError, match=r"^dtype must be a floating torch dtype .*int64"):
        estimate_cost(m, 10, dtype=torch.int64)
    assert estimate_cost(m, 2 ** 53, grid=64).gemms > 1e15
    assert estimate_cost(m, 40, grid=9, method="auto") == estimate_cost(m, 40, grid=9, method="products")
    assert estimate_cost(m, 40, method="auto") == estimate_cost(m, 40)


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_certified_grid_maps_are_within_their_stated_error_of_exact_maps": {"h"},
}


def test_estimate_cost_refuses_a_negative_or_nan_memory_limit_and_unknown_norms_naming_the_argument():
    """memory_limit=-1 was accepted (and recorded), NaN gave "cannot convert float NaN to integer", and
    norms=("bogus",) was accepted. Control: a positive limit and the known norms are estimated."""
    m = torch.nn.RNN(2, 4).double()
    for bad in (-1, 0, math.nan, math.inf, "1"):
        with pytest.raises(ValueError, match=r"^memory_limit must be a finite positive number of bytes"):
            estimate_cost(m, 10, memory_limit=bad)
    for bad in (("bogus",), "spectral", ()):
        with pytest.raises(ValueError, match=r"^norms must be a non-empty sequence of 'spectral'"):
            estimate_cost(m, 10, norms=bad)
    est = estimate_cost(m, 10, memory_limit=2 ** 30, norms=("spectral", "smallest"))
    assert est.memory_limit == 2 ** 30 and est.fits
