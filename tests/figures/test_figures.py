"""Figures: non-empty images of the expected size, built from the data they are given, which they
do not modify."""

import numpy as np
import pytest
import torch
from PIL import Image

from rnnaudit.analysis import hidden_jacobian_norms
from rnnaudit.cells import FastRNN, VPRNNRotations
from rnnaudit.figures import plot_eigenvalues, plot_jacobian_heatmap
from rnnaudit.figures.paper_figures import save_figure
from tests.conftest import cli_status


@pytest.mark.slow
def test_heatmap_of_rho_identity_shows_rho_powers(tmp_path):
    """Linear RNN with A = ρI: the data behind the heatmap is exactly ρ^{t−s}."""
    rho, T = 0.8, 10
    cell = FastRNN(1, 3, activation="identity", beta_mode="one_minus_alpha", dtype=torch.float64)
    with torch.no_grad():
        cell.U.copy_(torch.eye(3, dtype=torch.float64) * (rho - (1 - cell.alpha)) / cell.alpha)
    norms = hidden_jacobian_norms(cell, torch.zeros(T, 1, dtype=torch.float64))
    t, s = np.tril_indices(T + 1)
    np.testing.assert_allclose(norms.numpy()[t, s], rho ** (t - s), rtol=1e-13)
    original = norms.clone()
    fig = plot_jacobian_heatmap(norms)
    assert torch.equal(norms, original)
    image = fig.axes[0].images[0].get_array()
    np.testing.assert_allclose(image.data[t, s], rho ** (t - s), rtol=1e-13)
    assert image.mask[0, T]  # s > t is blank, not drawn as 0
    path = save_figure(fig, tmp_path / "heat.png")
    with Image.open(path) as im:
        assert im.size[0] > 300 and im.size[1] > 300
        assert np.asarray(im.convert("L")).std() > 10  # not a blank canvas


def test_eigenvalue_plot_puts_orthogonal_spectrum_on_the_circle(tmp_path):
    U = VPRNNRotations(16, generator=torch.Generator().manual_seed(0), dtype=torch.float64).matrix().detach()
    original = U.clone()
    fig = plot_eigenvalues(U)
    assert torch.equal(U, original)
    points = fig.axes[0].collections[0].get_offsets()
    assert len(points) == 16
    np.testing.assert_allclose(np.hypot(points[:, 0], points[:, 1]), 1.0, atol=1e-12)
    save_figure(fig, tmp_path / "eig.png")
    assert (tmp_path / "eig.png").stat().st_size > 5_000


def test_plots_reject_bad_input():
    with pytest.raises(ValueError, match="square"):
        plot_jacobian_heatmap(np.ones((3, 4)))
    with pytest.raises(ValueError, match="finite"):
        plot_jacobian_heatmap(np.full((3, 3), np.nan))
    with pytest.raises(ValueError, match="square"):
        plot_eigenvalues(torch.ones(2, 3))


def test_spectrum_plot_has_pseudospectra_and_singular_values():
    from rnnaudit.figures import plot_spectrum

    J = torch.diag(torch.ones(5, dtype=torch.float64), 1) * 0.9  # nilpotent: non-trivial pseudospectra
    fig = plot_spectrum(J, grid=30)
    ax_eig, ax_sv = fig.axes[0], fig.axes[1]
    assert len(ax_eig.collections) >= 2  # eigenvalue scatter and at least one ε-contour
    np.testing.assert_allclose(sorted(ax_sv.get_lines()[0].get_ydata()), [0] + [0.9] * 5, atol=1e-12)


@pytest.mark.parametrize("argv", [["heatmap", "sgornn", "--T", "12", "--hidden", "8"],
                                  ["spectrum", "enrnn", "--hidden", "8"]])
def test_heatmap_and_spectrum_commands_write_the_file(argv, tmp_path):
    from rnnaudit import cli

    for suffix in (".png", ".svg"):
        out = tmp_path / f"fig{suffix}"
        assert cli.main([*argv, "--out", str(out)]) == 0 and out.stat().st_size > 1000


def test_figure_commands_reject_bad_sources_and_suffixes(tmp_path, capsys):

    for argv in (["heatmap", "nosuchcell", "--out", str(tmp_path / "a.png")],
                 ["spectrum", "sgornn", "--out", str(tmp_path / "a.txt")]):
        assert cli_status(argv) == 2
    assert "nosuchcell" in capsys.readouterr().err


def test_enrnn_heatmap_panels_split_long_and_short_term_blocks():
    from rnnaudit.cells import ENRNN, FastRNN
    from rnnaudit.figures.heatmap import jacobian_panels, plot_jacobian_heatmaps

    cell = ENRNN(2, 4, 4, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    x = torch.randn(12, 2, dtype=torch.float64)
    panels = jacobian_panels(cell, x, kind="input")
    assert len(panels) == 2
    long_map, short_map = panels.values()
    # the orthogonal long-term block keeps what it took in; the normalised short-term one forgets
    assert float(short_map[12, 1]) < 1e-2 * float(short_map[1, 1])
    assert len(plot_jacobian_heatmaps(cell, x, kind="hidden").axes) == 4  # two panels, two colour bars
    linear = FastRNN(1, 3, activation="identity", beta_mode="one_minus_alpha", dtype=torch.float64)
    (single,) = jacobian_panels(linear, torch.zeros(5, 1, dtype=torch.float64), kind="input").values()
    A = (linear.alpha * linear.U + linear.beta * torch.eye(3, dtype=torch.float64)).detach()
    B = (linear.alpha * linear.W).detach()
    expected = torch.linalg.matrix_norm(torch.linalg.matrix_power(A, 3) @ B, ord=2)  # ∂h_5/∂x_2 = A³ αW
    assert float(single[5, 2]) == pytest.approx(float(expected), rel=1e-10)
    with pytest.raises(ValueError, match="kind"):
        jacobian_panels(linear, torch.zeros(5, 1, dtype=torch.float64), kind="output")


def test_heatmap_grade_panels_are_within_their_tolerance_of_the_certified_ones():
    """Both maps are certified lower bounds: σ/(1 + rtol) ≤ σ̂ ≤ σ (1 + 1e-12, rounding of the Gram
    arithmetic; module docstring of analysis.jacobian). So σ̂_heatmap/σ̂_certified ∈
    [1/((1 + 1e-3)(1 + 1e-12)), (1 + 1e-10)(1 + 1e-12)]. h = 24 > block = 8 exercises the certificates;
    a tenfold perturbation of one entry must break the bracket."""
    from rnnaudit.analysis import CERTIFIED_RTOL, HEATMAP_RTOL
    from rnnaudit.cells import SGORNN
    from rnnaudit.figures.heatmap import jacobian_panels

    cell = SGORNN(2, 24, k=4, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    x = torch.randn(30, 2, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    (loose,) = jacobian_panels(cell, x).values()
    (tight,) = jacobian_panels(cell, x, rtol=CERTIFIED_RTOL).values()
    lower = torch.ones_like(tight, dtype=torch.bool).tril()

    def within(a):
        r = a[lower] / tight[lower]
        return bool(((r >= 1 / ((1 + HEATMAP_RTOL) * (1 + 1e-12))) & (r <= (1 + 1e-10) * (1 + 1e-12))).all())

    assert within(loose)
    bad = loose.clone()
    bad[20, 3] *= 10
    assert not within(bad)


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_heatmap_and_spectrum_commands_write_the_file": {"argv0", "argv1"},
}
