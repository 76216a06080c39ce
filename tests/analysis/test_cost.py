"""Work estimates (analysis/cost.py, lyapunov_cost, spectrum_cost): counts of work units that match the work the
engines do, and the single-threaded block the small kernels run in. No timing is asserted: the counts are exact
or checked against the work actually done; the seconds per unit are measured and only checked to be positive."""

import math

import pytest
import torch

from rnnaudit.analysis.cost import WorkEstimate, best_seconds, single_threaded
from rnnaudit.analysis.lyapunov import SINGLE_THREAD_WIDTH, lyapunov_cost, lyapunov_spectrum

F64 = torch.float64


def test_an_estimate_is_the_sum_of_its_parts_and_names_its_largest_in_one_line():
    est = WorkEstimate("job", (("QR steps", 1000.0, 2e-3), ("passes", 4.0, 0.1)))
    assert est.seconds == pytest.approx(2.4)
    line = est.describe()
    assert "\n" not in line and line.startswith("job: about 2.4 s") and "1e+03 QR steps at 2 ms each" in line
    assert "days" in WorkEstimate("huge", (("steps", 1e12, 1.0),)).describe()


def test_best_seconds_refuses_a_bad_repeat_count():
    with pytest.raises(ValueError, match="repeats"):
        best_seconds(lambda: None, repeats=0)
    assert best_seconds(lambda: None, repeats=1) >= 0


def test_single_threaded_restores_the_thread_count_even_after_an_error():
    old = torch.get_num_threads()
    with pytest.raises(RuntimeError):
        with single_threaded():
            assert torch.get_num_threads() == 1
            raise RuntimeError("inside")
    assert torch.get_num_threads() == old
    with single_threaded(False):
        assert torch.get_num_threads() == old


@pytest.mark.parametrize("T, chunk", [(1, 256), (300, 256), (700, 64)])
def test_the_lyapunov_estimate_counts_exactly_the_steps_and_passes_the_run_makes(T, chunk):
    """Every step of the recursion has the same shapes: T Jacobian steps, 2T QR steps (two start frames, for the
    error bars), ⌈T/chunk⌉ passes."""
    gru = torch.nn.GRU(3, 8, dtype=F64)
    est = lyapunov_cost(gru, T, chunk=chunk)
    counts = {name: count for name, count, _ in est.parts}
    assert counts == {"Jacobian steps": T, "Jacobian passes": math.ceil(T / chunk), "QR steps": 2 * T,
                      "trajectory steps": T}
    assert all(sec >= 0 and math.isfinite(sec) for _, _, sec in est.parts) and est.seconds > 0
    free = {name: count for name, count, _ in lyapunov_cost(gru, T, 1, matrix_free=True).parts}
    assert free == {"forward-mode steps": T, "QR steps": 2 * T, "trajectory steps": T}


def test_the_lyapunov_estimate_refuses_what_the_spectrum_refuses():
    gru = torch.nn.GRU(3, 8, dtype=F64)
    for bad in (0, 2.0, True):
        with pytest.raises(ValueError, match="T must be a positive int"):
            lyapunov_cost(gru, bad)
    with pytest.raises(ValueError, match="k must be at most"):
        lyapunov_cost(gru, 10, 9)


def test_the_small_qr_steps_on_one_thread_give_the_same_exponents(monkeypatch):
    """The single-threaded QR recursion changes where it runs, not what it computes: the exponents with the limit
    lifted (width threshold 0) agree to rounding."""
    import rnnaudit.analysis.lyapunov as lyap

    assert SINGLE_THREAD_WIDTH == 512
    torch.manual_seed(0)
    gru = torch.nn.GRU(2, 12, batch_first=True, dtype=F64)
    x = torch.randn(80, 2, dtype=F64)
    with torch.enable_grad():
        limited = lyapunov_spectrum(gru, x, warmup=8).exponents
        monkeypatch.setattr(lyap, "SINGLE_THREAD_WIDTH", 0)
        pooled = lyapunov_spectrum(gru, x, warmup=8).exponents
    torch.testing.assert_close(limited, pooled, rtol=0, atol=1e-12)


#: The stated factor of spectrum_cost's Lanczos count: its pilot's mean steps per point (32 of the grid's points)
#: against the mean over every point of the grid.
SPECTRUM_STEPS_FACTOR = 2.0


@pytest.mark.parametrize("case", ["gaussian", "gru", "jordan"])
def test_the_spectrum_estimate_counts_the_lanczos_steps_within_its_stated_factor(case):
    """The estimate's Lanczos point-steps (grid points × the pilot's mean steps) lie within SPECTRUM_STEPS_FACTOR of
    the steps the grid takes; a count off by 4× (as if the pilot had measured a quarter of the steps) is caught."""
    from rnnaudit.figures.spectrum import spectrum_cost, spectrum_grid

    g = torch.Generator().manual_seed(1)
    W = {"gaussian": torch.randn(24, 24, generator=g, dtype=F64) / 5,
         "gru": torch.nn.GRU(3, 16, dtype=F64).weight_hh_l0.detach()[:16],
         "jordan": torch.eye(20, dtype=F64) * 0.6 + torch.diag(torch.ones(19, dtype=F64) * 0.8, 1)}[case]
    est = {name: count for name, count, _ in spectrum_cost({"W": W}, grid=33).parts}
    grid = spectrum_grid(W, 33)
    distinct = grid.lanczos_steps[grid.y >= 0]  # a real matrix's rows y and −y are computed once
    actual = float(distinct.sum())
    predicted = est["Lanczos point-steps"]
    assert est["dense factorisation sets"] == 1.0
    assert 1 / SPECTRUM_STEPS_FACTOR <= predicted / actual <= SPECTRUM_STEPS_FACTOR, (predicted, actual)
    assert not 1 / SPECTRUM_STEPS_FACTOR <= (predicted / 4) / actual <= SPECTRUM_STEPS_FACTOR


def test_the_spectrum_estimate_scales_a_wide_matrix_from_its_leading_block():
    """A 256-wide matrix is timed on its 128-wide block: 8 dense sets (O(n³)) and 4 × the point-steps (O(n²))."""
    from rnnaudit.figures.spectrum import spectrum_cost

    W = torch.randn(256, 256, generator=torch.Generator().manual_seed(0), dtype=F64) / 16
    counts = {name: count for name, count, _ in spectrum_cost({"W": W}, grid=17).parts}
    assert counts["dense factorisation sets"] == 8.0
    assert counts["Lanczos point-steps"] > 0
