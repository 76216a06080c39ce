"""The shared style is applied through a context: importing rnnaudit.figures and plotting leave a
user's matplotlib session (backend, rcParams) as it was; a figure looks the same whatever was
configured before; figures save from a str or a Path, with TrueType (Type 42) fonts in PDF."""

import os
import subprocess
import sys

import matplotlib as mpl
import numpy as np
import pytest
import torch

from rnnaudit.figures import plot_eigenvalues, plot_jacobian_heatmap, plot_spectrum, plot_tightness, save_figure
from rnnaudit.figures.style import COLORS, MARKERS, series_style, style_context
from rnnaudit.figures.trajectory import plot_comparison, plot_trajectory

F64 = torch.float64
TRAJ = {"step": np.array([1.0, 2.0, 3.0]), "loss": np.array([0.3, 0.2, 0.1]), "alpha": np.full(3, 0.1),
        "beta": np.full(3, 0.9), "grad/W/max": np.array([1.0, 2.0, 3.0])}
CLAIMS = [{"id": "p.a", "verdict": "holds", "tightness": {"by_T": {"2": 0.5, "8": 0.7}, "by_h": {"4": 0.7}}}]

PLOTS = {
    "spectrum": lambda: plot_spectrum(torch.eye(4, dtype=F64), grid=24),
    "eigenvalues": lambda: plot_eigenvalues(torch.eye(4, dtype=F64)),
    "heatmap": lambda: plot_jacobian_heatmap(np.tril(np.ones((5, 5)))),
    "tightness": lambda: plot_tightness(CLAIMS),
    "trajectory": lambda: plot_trajectory(TRAJ),
    "comparison": lambda: plot_comparison({"a": TRAJ}, "loss"),
}


@pytest.mark.parametrize("name", sorted(PLOTS))
def test_plot_functions_leave_the_global_rcparams_untouched(name, tmp_path):
    before = mpl.rcParams.copy()  # a copy: comparing copies never resolves the global backend
    fig = PLOTS[name]()
    assert mpl.rcParams.copy() == before
    save_figure(fig, tmp_path / f"{name}.png")
    assert mpl.rcParams.copy() == before


@pytest.mark.slow
def test_importing_and_plotting_keep_the_users_backend_and_rcparams(tmp_path):
    """In a fresh interpreter whose user chose the svg backend and a font size: importing
    rnnaudit.figures, plotting and saving change neither (the old style module called
    matplotlib.use("Agg") on import and updated ~40 rcParams on every plot)."""
    code = (
        "import sys, matplotlib as mpl\n"
        "mpl.use('svg'); mpl.rcParams['font.size'] = 17.0\n"
        "before = mpl.rcParams.copy()\n"
        "import rnnaudit.figures\n"
        "assert mpl.get_backend().lower() == 'svg', mpl.get_backend()\n"
        "assert mpl.rcParams.copy() == before, 'import changed rcParams'\n"
        "assert 'seaborn' not in sys.modules and 'matplotlib.pyplot' not in sys.modules\n"
        "import torch\n"
        "from rnnaudit.figures import plot_spectrum, plot_tightness, save_figure\n"
        "fig = plot_spectrum(torch.eye(3, dtype=torch.float64), grid=20)\n"
        "save_figure(fig, sys.argv[1])\n"
        "save_figure(plot_tightness([{'id': 'p.a', 'verdict': 'holds', 'tightness': {'by_T': {'1': 0.5}}}]), "
        "sys.argv[2])\n"
        "assert mpl.get_backend().lower() == 'svg', mpl.get_backend()\n"
        "assert mpl.rcParams.copy() == before, 'plotting changed rcParams'\n"
        "assert mpl.rcParams['font.size'] == 17.0\n"
        "print('ok')\n")
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path / "a.png"), str(tmp_path / "b.pdf")],
                            capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


@pytest.mark.slow
def test_a_figure_does_not_depend_on_the_users_rcparams(tmp_path):
    """The same plot, saved before and after the user changes rcParams (font size, grid, colour
    cycle, dpi), is byte-identical: the style starts from matplotlib's defaults every time."""
    U = torch.linalg.qr(torch.randn(6, 6, dtype=F64, generator=torch.Generator().manual_seed(0)))[0]
    first = save_figure(plot_spectrum(U, name="U", role="test", grid=40), tmp_path / "first.png").read_bytes()
    with mpl.rc_context({"font.size": 23, "axes.grid": False, "savefig.dpi": 50, "lines.linewidth": 5,
                         "axes.prop_cycle": mpl.cycler(color=["r"]), "axes.formatter.useoffset": True}):
        second = save_figure(plot_spectrum(U, name="U", role="test", grid=40), tmp_path / "second.png").read_bytes()
    assert first == second


@pytest.mark.slow
def test_save_figure_accepts_str_and_path_and_embeds_type42_fonts(tmp_path):
    fig = plot_tightness(CLAIMS)
    out = save_figure(fig, str(tmp_path / "t.pdf"))  # a str, as a user passes it
    assert out == tmp_path / "t.pdf"
    pdf = out.read_bytes()
    assert pdf.startswith(b"%PDF")
    assert b"/FontFile2" in pdf  # TrueType program embedded: Type 42
    assert b"/Type3" not in pdf  # no Type 3 (bitmap-like) fonts
    for suffix in (".png", ".svg"):
        assert save_figure(plot_tightness(CLAIMS), tmp_path / f"t{suffix}").stat().st_size > 1000
    with pytest.raises(ValueError, match="suffix|end in"):
        save_figure(plot_tightness(CLAIMS), tmp_path / "t.txt")
    with pytest.raises(TypeError, match="path"):
        save_figure(plot_tightness(CLAIMS), 3)


def test_at_least_twenty_series_get_distinct_colour_marker_pairs():
    pairs = [(s["color"], s["marker"]) for s in (series_style(i) for i in range(56))]
    assert len(set(pairs)) == 56
    assert len(set(COLORS)) == len(COLORS) and len(set(MARKERS)) == len(MARKERS)
    # colours distinct enough to tell apart: no two closer than 0.25 in RGB (unit cube)
    rgb = np.array([mpl.colors.to_rgb(c) for c in COLORS])
    dist = np.linalg.norm(rgb[:, None] - rgb[None], axis=-1) + np.eye(len(COLORS))
    assert dist.min() > 0.25
    with pytest.raises(ValueError, match="non-negative"):
        series_style(-1)


def test_style_context_restores_the_callers_settings():
    with mpl.rc_context({"font.size": 31.0}):
        with style_context():
            assert mpl.rcParams["pdf.fonttype"] == 42 and mpl.rcParams["font.size"] != 31.0
        assert mpl.rcParams["font.size"] == 31.0


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_plot_functions_leave_the_global_rcparams_untouched": {"trajectory", "spectrum"},
    "test_a_figure_made_to_be_saved_at_once_is_saved_with_the_styles_tick_sizes": {"trajectory", "spectrum"},
}


@pytest.mark.parametrize("name", sorted(PLOTS))
def test_a_figure_made_to_be_saved_at_once_is_saved_with_the_styles_tick_sizes(name, tmp_path):
    """Inside drawn_when_saved() a plot function skips its layout on return (save_figure lays the figure out, inside
    the style): every plot's saved tick labels still have the style's sizes, not matplotlib's defaults (10 pt), and
    its pixel size is that of the figure laid out on return to within 1 %."""
    from PIL import Image

    from rnnaudit.figures.style import STYLE, drawn_when_saved

    reference = save_figure(PLOTS[name](), tmp_path / "reference.png")
    with drawn_when_saved():
        fig = PLOTS[name]()
        save_figure(fig, tmp_path / "deferred.png")
    sizes = {t.get_fontsize() for ax in fig.axes for t in ax.get_xticklabels() + ax.get_yticklabels()}
    assert sizes and sizes <= {STYLE["xtick.labelsize"], STYLE["ytick.labelsize"]}, sizes
    w0, h0 = Image.open(reference).size
    w1, h1 = Image.open(tmp_path / "deferred.png").size
    assert abs(w1 - w0) <= 0.01 * w0 and abs(h1 - h0) <= 0.01 * h0, ((w0, h0), (w1, h1))


def test_a_figure_saved_at_once_is_laid_out_by_its_save_within_a_pixel_of_an_advance_layout_and_tight_box(tmp_path):
    from PIL import Image

    from rnnaudit.figures.style import drawn_when_saved, laid_out_when_saved

    claims = CLAIMS + [{"id": "p.b", "verdict": "false", "tightness": {"by_T": {"1": 3.0}, "by_h": {"2": 3.0}}}]
    advance = plot_tightness(claims)
    assert not advance.stale  # laid out in advance, as for a figure shown or returned to a user
    save_figure(advance, tmp_path / "advance.png")
    assert not laid_out_when_saved()
    with drawn_when_saved():
        assert laid_out_when_saved()
        at_save = plot_tightness(claims)
        assert at_save.stale  # not drawn yet: its save draws it, once
        save_figure(at_save, tmp_path / "at_save.png")
    assert not laid_out_when_saved()
    a, b = (np.asarray(Image.open(tmp_path / f"{n}.png").convert("L"), dtype=float) for n in ("advance", "at_save"))
    assert abs(a.shape[0] - b.shape[0]) <= 1 and abs(a.shape[1] - b.shape[1]) <= 1
    rows, cols = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
    # the same drawing: under 1% of the pixels differ by more than 32 grey levels (a layout shifted by a few pixels
    # moves every line and letter)
    assert np.mean(np.abs(a[:rows, :cols] - b[:rows, :cols]) > 32) < 0.01
