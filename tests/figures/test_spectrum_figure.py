"""The spectrum figure: filled log₁₀ ε pseudospectrum contours with a colourbar labelling the levels on
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


def test_pseudospectrum_is_filled_log10_contours_with_a_colourbar_that_labels_every_level():
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
    # the levels are read off the colour bar: no labels on the contours, which ran into each other and hid
    # under the eigenvalue markers
    assert not ax.texts
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


def _lstm_blocks(layers=2, h=4):
    """The 4·layers recurrent blocks of a torch LSTM (W_hi, W_hf, W_hg, W_ho per layer), float64."""
    from rnnaudit.cells import wrap

    torch.manual_seed(0)
    lstm = torch.nn.LSTM(2, h, num_layers=layers, batch_first=True, dtype=F64)
    return {k: v.detach() for k, v in wrap(lstm).recurrent_matrices().items()}


@pytest.mark.slow
def test_spectra_of_many_matrices_are_a_grid_no_taller_than_3_to_1_at_a_sane_size(tmp_path):
    """A 2-layer LSTM's 8 blocks were one column, 1762 × 7039 px (4:1). The grid adds columns until the figure is
    at most MAX_ASPECT (1.5) times taller than wide; the saved PNG's longest side is at most MAX_SIDE_PIXELS, and
    still at least 1000 px (the cap lowers the dpi of large figures only). Control: one column of 8 is over 3:1."""
    from PIL import Image

    from rnnaudit.figures.saving import MAX_SIDE_PIXELS, save_figure
    from rnnaudit.figures.spectrum import _CELL_HEIGHT, _CELL_WIDTH, MAX_ASPECT, plot_spectra, spectra_layout

    assert spectra_layout(3) == (3, 1) and spectra_layout(8) == (4, 2)
    assert 8 * _CELL_HEIGHT / _CELL_WIDTH > 3  # the old single column
    for count in (1, 3, 4, 8, 16, 40):
        rows, cols = spectra_layout(count)
        assert rows * cols >= count > (rows - 1) * cols and rows * _CELL_HEIGHT <= MAX_ASPECT * cols * _CELL_WIDTH
    blocks = _lstm_blocks()
    assert len(blocks) == 8
    save_figure(plot_spectra(blocks, role="torch.nn.LSTM, 2 layers", grid=24), tmp_path / "lstm.png")
    width, height = Image.open(tmp_path / "lstm.png").size
    assert height / width <= 3 and height <= MAX_ASPECT * width * 1.1
    assert 1000 <= max(width, height) <= MAX_SIDE_PIXELS
    many = {f"M{i}": torch.eye(3, dtype=F64) * (0.5 + i / 20) for i in range(10)}  # 19.2 × 22 in: capped
    save_figure(plot_spectra(many, grid=16), tmp_path / "many.png")
    width, height = Image.open(tmp_path / "many.png").size
    assert max(width, height) <= MAX_SIDE_PIXELS < 200 * 22 and height / width <= 3


def _overlapping_texts(fig):
    """Pairs of visible, non-empty texts of ``fig`` whose drawn bounding boxes intersect."""
    import itertools

    from matplotlib.text import Text

    from rnnaudit.figures.style import style_context

    with style_context():
        fig.draw_without_rendering()
        renderer = fig._get_renderer()
        boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in fig.findobj(Text)
                 if t.get_visible() and t.get_text().strip()]
    return [(a, b) for (a, ba), (b, bb) in itertools.combinations(boxes, 2) if ba.overlaps(bb)]


@pytest.mark.slow
def test_no_two_texts_of_the_spectrum_figure_overlap():
    """The contour labels '−1.5' and '−1' ran into each other where two levels closed in on an LSTM block's
    eigenvalue (and hid under the eigenvalue markers); the levels are read off the colour bar now. Every text of
    the figure (titles, tick labels, axis labels, legend, colour bar) is checked. Control: a text drawn on top of
    the title is found."""
    blocks = _lstm_blocks()
    fig = plot_spectrum(blocks["l0.W_hi"], name="l0.W_hi", role="torch.nn.LSTM")
    assert _overlapping_texts(fig) == []
    from rnnaudit.figures.spectrum import plot_spectra

    grid_fig = plot_spectra(blocks, role="torch.nn.LSTM, 2 layers", grid=24)
    assert _overlapping_texts(grid_fig) == []
    fig.text(0.5, 0.985, "a label on the title", ha="center", va="top", fontsize=11)
    assert _overlapping_texts(fig)


def test_the_spectrum_estimate_runs_no_schur_form_of_a_wide_matrix_and_the_cli_checks_it_first(monkeypatch, tmp_path,
                                                                                             capsys):
    """spectrum --hidden 6000 printed nothing for minutes: the default grid's normality test (a Schur form of each
    6000 × 6000 matrix) ran before the estimate, in spectrum_cost and in the command. Now the estimate forms only the
    leading 128 × 128 block's, and the command checks the budget before any full-width Schur form."""
    import rnnaudit.analysis as analysis
    from rnnaudit.figures import spectrum as spectrum_module
    from rnnaudit.figures.spectrum import spectrum_cost
    from tests.conftest import cli_status

    widths = []
    real = analysis.schur_departure
    monkeypatch.setattr(analysis, "schur_departure", lambda M: widths.append(M.shape[0]) or real(M))
    W = torch.randn(200, 200, dtype=torch.float64, generator=torch.Generator().manual_seed(0)) / 15
    assert spectrum_cost({"W": W}).seconds > 0
    assert widths and max(widths) <= 128, widths

    grid_of = spectrum_module.default_grid

    def no_full_schur(M):
        if M.shape[0] > 128:
            raise AssertionError("a full-width Schur form before the budget check")
        return grid_of(M)

    monkeypatch.setattr(spectrum_module, "default_grid", no_full_schur)
    monkeypatch.chdir(tmp_path)
    assert cli_status(["spectrum", "gru", "--hidden", "200", "--max-minutes", "1e-9", "--out", "s.png"]) == 2
    assert "above the budget of 1e-09 minutes" in capsys.readouterr().err


def _float32_orthogonal(n=32):
    """An orthogonal matrix as a float32 checkpoint holds it, read in float64: normal only to ~1e-7."""
    Q = VPRNNRotations(n, generator=torch.Generator().manual_seed(1), dtype=F64).matrix().detach()
    return Q.float().double()


def test_a_float32_orthogonal_matrix_is_drawn_from_the_certified_distance_and_the_figure_says_so():
    """A float32 orthogonal matrix missed NORMAL_TOL and took inverse Lanczos at all 101 × 51 points. Now the grid
    takes the distance formula where Weyl certifies it to DISTANCE_RTOL: its log₁₀ σ_min differs from the
    all-Lanczos grid's by at most log₁₀(1/(1 − rtol)) = 4.35e-4 decades (so no contour moves visibly), the legend
    and the data file's label say how σ_min was computed, and the data mark the points. Control: the all-Lanczos grid
    (distance_rtol=None) marks none and its figure has no such note."""
    from rnnaudit.figures.saving import figure_data, figure_labels
    from rnnaudit.figures.spectrum import DISTANCE_RTOL, GRID_NONNORMAL

    M = _float32_orthogonal()
    mixed = spectrum_grid(M)
    plain = spectrum_grid(M, distance_rtol=None)
    assert mixed.sigma.shape == plain.sigma.shape == (GRID_NONNORMAL, GRID_NONNORMAL)
    assert mixed.method == "mixed" and plain.method == "lanczos"
    assert int(mixed.from_distance.sum()) >= 0.99 * mixed.from_distance.numel()
    shift = (mixed.sigma.log10() - plain.sigma.log10()).abs().max()
    assert float(shift) <= -np.log10(1 - DISTANCE_RTOL) + 1e-12
    fig = plot_spectrum(M, name="U", pseudospectra=mixed)
    note = _axes(fig, "ε-pseudospectra").get_legend().get_title().get_text()
    assert "dist(z, Λ)" in note and "Weyl" in note and "Lanczos" in note
    assert "Weyl's inequality certifies it to relative error ≤ 0.001" in figure_labels(fig)["sigma_min"]
    np.testing.assert_array_equal(figure_data(fig)["from_distance"], mixed.from_distance.numpy())
    control = plot_spectrum(M, name="U", pseudospectra=plain)
    assert _axes(control, "ε-pseudospectra").get_legend().get_title().get_text() == ""
    assert not figure_data(control)["from_distance"].any()
    assert "inverse Lanczos on the Schur form at every point" in figure_labels(control)["sigma_min"]


def test_the_spectrum_estimate_counts_the_certified_points_as_distance_evaluations():
    """The estimate of a float32 orthogonal matrix's grid announces the certified path's work: the certified points
    as distance evaluations and Lanczos only for the rest (here ≤ 1 % of the points), not Lanczos at every point."""
    from rnnaudit.figures.spectrum import spectrum_cost

    M = _float32_orthogonal()
    parts = {name: count for name, count, _ in spectrum_cost({"U": M}).parts}
    assert parts["distance points"] == 101 * 51
    assert parts.get("Lanczos point-steps", 0) <= 0.01 * 101 * 51 * 200
    plain = spectrum_cost({"W": torch.diag(torch.ones(31, dtype=F64), 1)})  # a Jordan block: no point certified
    assert {name for name, _, _ in plain.parts} >= {"Lanczos point-steps"}
