"""The spectrum figure: filled log₁₀ ε pseudospectrum contours with a colourbar and labelled levels on
a fine grid, eigenvalues on top, the unit circle, a legend off the data, a title naming the matrix
and its role; singular values without axis-offset artefacts (an orthogonal matrix reads σ = 1)."""

import re

import numpy as np
import pytest
import torch
from matplotlib.contour import ContourSet

from rnnaudit.cells import VPRNNRotations
from rnnaudit.figures import plot_spectrum
from rnnaudit.figures.spectrum import GRID_NORMAL, pseudospectrum_levels, spectrum_grid

F64 = torch.float64


def _orthogonal128():
    return VPRNNRotations(128, generator=torch.Generator().manual_seed(0), dtype=F64).matrix().detach()


def _axes(fig, title_start):
    return next(ax for ax in fig.axes if ax.get_title().startswith(title_start))


def _numbers(labels):
    """Tick or contour labels as numbers ("$\\mathdefault{1.0}$" and "−2" included)."""
    texts = [re.sub(r"^\$\\mathdefault\{(.*)\}\$$", r"\1", t.get_text()) for t in labels]
    return [float(s.replace("−", "-")) for s in texts if s]


@pytest.mark.slow
def test_orthogonal_singular_values_read_one_without_an_offset_label():
    """σ_i = 1 ± 1e-15 for φ(Θ): the old panel autoscaled to the rounding noise and printed every
    tick as 0.00 under an offset label 1e−12+1; the axis must start at 0 and read 1.0."""
    U = _orthogonal128()
    fig = plot_spectrum(U)
    fig.draw_without_rendering()
    ax = _axes(fig, "singular values")
    assert ax.yaxis.get_offset_text().get_text() == ""
    ticks = _numbers(ax.get_yticklabels())
    assert 1.0 in ticks and max(ticks) - min(ticks) >= 0.5
    lo, hi = ax.get_ylim()
    assert lo <= 0 and hi >= 1.1
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), 1.0, atol=1e-12)


def test_pseudospectrum_is_filled_log10_contours_with_colourbar_and_labelled_levels():
    J = torch.diag(torch.ones(7, dtype=F64), 1) * 0.9 + 0.3 * torch.eye(8, dtype=F64)
    fig = plot_spectrum(J, name="J", role="shifted Jordan block")
    ax = _axes(fig, "ε-pseudospectra")
    contour_sets = [c for c in ax.collections if isinstance(c, ContourSet)]
    filled = [c for c in contour_sets if c.filled]
    assert filled, "no filled contours"
    levels = filled[0].levels
    assert len(levels) >= 5 and np.allclose(np.diff(levels), np.diff(levels)[0])  # evenly spaced log₁₀ ε
    assert filled[0].colorbar is not None and "log" in filled[0].colorbar.ax.get_ylabel()
    assert _numbers(filled[0].colorbar.ax.get_yticklabels()) == pytest.approx(list(levels))
    # labelled contour lines read as log₁₀ ε values ("−2"), not "ε=1e-1.5"
    labels = [t.get_text() for t in ax.texts]
    assert labels and all("e" not in s and "=" not in s for s in labels)
    assert set(_numbers(ax.texts)) <= set(np.round(levels, 6))
    # eigenvalues drawn above the contours, the unit circle present
    scatter = next(c for c in ax.collections if not isinstance(c, ContourSet))
    assert scatter.get_zorder() > max(c.get_zorder() for c in contour_sets)
    np.testing.assert_allclose(scatter.get_offsets()[:, 0], 0.3, atol=1e-12)
    circle = next(line for line in ax.get_lines() if line.get_label() == "unit circle")
    np.testing.assert_allclose(np.hypot(circle.get_xdata(), circle.get_ydata()), 1.0, atol=1e-12)


@pytest.mark.slow
def test_the_legend_sits_off_the_eigenvalues():
    fig = plot_spectrum(_orthogonal128())
    ax = _axes(fig, "ε-pseudospectra")
    legend = ax.get_legend()
    assert legend is not None
    assert not legend.get_window_extent().overlaps(ax.get_window_extent())


@pytest.mark.slow
def test_the_title_names_the_matrix_and_its_role():
    fig = plot_spectrum(torch.eye(3, dtype=F64), name="W_hn", role="torch.nn.GRU layer 0", grid=20)
    assert fig.get_suptitle() == "W_hn: torch.nn.GRU layer 0"
    assert "W_hn" in _axes(fig, "ε-pseudospectra").get_title()
    assert plot_spectrum(torch.eye(3, dtype=F64), title="custom", grid=20).get_suptitle() == "custom"


def test_a_normal_matrix_gets_a_fine_grid_by_the_exact_distance_formula():
    """The default grid of an orthogonal 128×128 matrix is fine (≥ 200 points per axis) and costs no
    Lanczos step: σ_min is the distance to the spectrum."""
    grid = spectrum_grid(_orthogonal128())
    assert grid.sigma.shape == (GRID_NORMAL, GRID_NORMAL) and GRID_NORMAL >= 200
    assert grid.method == "normal" and int(grid.lanczos_steps.max()) == 0
    seen = []
    spectrum_grid(torch.diag(torch.ones(3, dtype=F64), 1), grid=20, progress=seen.append)
    assert sum(seen) == 400


def test_levels_and_bad_input():
    levels = pseudospectrum_levels(np.array([1e-5, 1e-2, 0.5]))
    assert levels[-1] <= np.log10(0.5) and levels[0] >= np.log10(0.5) - 4 and np.allclose(np.diff(levels), 0.5)
    with pytest.raises(ValueError, match="positive"):
        pseudospectrum_levels(np.zeros(3))
    with pytest.raises(ValueError, match="square"):
        plot_spectrum(torch.ones(2, 3, dtype=F64))
    with pytest.raises(ValueError, match="finite"):
        plot_spectrum(torch.full((2, 2), float("nan"), dtype=F64))
    with pytest.raises(TypeError, match="torch.Tensor"):
        plot_spectrum(np.eye(2))
    with pytest.raises(ValueError, match="grid"):
        spectrum_grid(torch.eye(2, dtype=F64), grid=3)
    with pytest.raises(ValueError, match="eps_decades"):
        plot_spectrum(torch.eye(2, dtype=F64), eps_decades=[-1], grid=20)
