"""One plotting style for every rnnaudit figure, applied through a context so that a user's own
matplotlib session is untouched: importing :mod:`rnnaudit.figures` selects no backend and changes no
rcParams, and each plot function builds its figure inside :func:`style_context` on top of
matplotlib's defaults, so a figure looks the same whatever was plotted or configured before.

Figures are built as :class:`matplotlib.figure.Figure` objects, not through pyplot: they are not
registered with pyplot and open no window; Jupyter displays a returned figure all the same.
"""

from __future__ import annotations

import contextvars
import functools
from contextlib import contextmanager

import matplotlib
import matplotlib.style

__all__ = ["style_context", "styled", "drawn_when_saved", "laid_out_when_saved", "series_style", "SEQUENTIAL_CMAP",
           "COLORS", "MARKERS", "STYLE"]

#: Sequential colormap for magnitudes (perceptually uniform, colour-blind safe).
SEQUENTIAL_CMAP = "viridis"

#: Okabe & Ito's colour-blind-safe palette ("Color Universal Design", 2008) without its yellow, which is
#: too pale on white: 7 colours.
COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
#: 8 filled markers. With 7 colours and 8 markers (coprime), series i gets colour i mod 7 and marker
#: i mod 8, so the first 56 series all differ in their (colour, marker) pair, and two series with
#: the same colour always differ in marker.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<")

#: Reference lines (ratio = 1, baselines, the unit circle): neutral, so no series colour is reused.
REFERENCE_COLOR = "0.25"

#: rcParams of the style, applied over matplotlib's defaults by :func:`style_context`.
STYLE = {
    "figure.dpi": 100,
    "savefig.dpi": 200,
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.04,
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "figure.titlesize": 11,
    "legend.fontsize": 7.5,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.grid": True,
    "grid.linewidth": 0.5,
    "grid.alpha": 0.35,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": matplotlib.cycler(color=COLORS),
    # σ_i = 1 ± 1e-15 of an orthogonal matrix must read "1.00", not "0.00" under an offset label
    "axes.formatter.useoffset": False,
    "axes.formatter.use_mathtext": True,
    "lines.linewidth": 1.3,
    "lines.markersize": 4.5,
    "legend.frameon": False,
    "image.cmap": SEQUENTIAL_CMAP,
    # TrueType (Type 42) fonts in PDF and PostScript: text stays text, editable, and accepted by
    # publishers that reject Type 3 bitmaps
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
}


def style_context():
    """A context manager applying :data:`STYLE` over matplotlib's defaults and restoring the
    caller's rcParams on exit (:func:`matplotlib.style.context`; the backend is never touched).

    Save a figure inside it too (:func:`rnnaudit.figures.save_figure` does), since some settings,
    such as the PDF font type, are read when the figure is written.
    """
    return matplotlib.style.context(["default", STYLE])


#: False inside :func:`drawn_when_saved`: figures are laid out by the save that follows, not in advance.
_LAY_OUT_IN_ADVANCE = contextvars.ContextVar("rnnaudit_lay_out_in_advance", default=True)


@contextmanager
def drawn_when_saved():
    """Within the block, a plot function's new figure is not laid out in advance (:func:`styled`): for figures
    saved at once, as the report's are, the save lays it out (the advance layout at 100 dpi has text layouts the
    200 dpi save cannot reuse). The save still measures the style's tight bounding box, which trims the margins a
    constrained layout leaves; the saved figure has the same layout within a pixel. Not for a figure that is shown
    or returned to a user."""
    token = _LAY_OUT_IN_ADVANCE.set(False)
    try:
        yield
    finally:
        _LAY_OUT_IN_ADVANCE.reset(token)


def laid_out_when_saved() -> bool:
    """True inside :func:`drawn_when_saved`."""
    return not _LAY_OUT_IN_ADVANCE.get()


def styled(func):
    """Decorator: run a plot function inside :func:`style_context`. When the function created its
    own figure (no ``ax`` passed), the figure is laid out once inside the context, so its ticks are
    made with the style's sizes whether it is later saved, shown or displayed by Jupyter (not inside
    :func:`drawn_when_saved`, where the save lays it out)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with style_context():
            fig = func(*args, **kwargs)
            if kwargs.get("ax") is None and _LAY_OUT_IN_ADVANCE.get():
                fig.draw_without_rendering()
        return fig

    return wrapper


def series_style(i: int) -> dict:
    """Colour and marker of the i-th series (i ≥ 0): distinct pairs for the first 56 series.

    Raises:
        ValueError: i negative or not an integer.
    """
    if isinstance(i, bool) or not isinstance(i, int) or i < 0:
        raise ValueError(f"i must be a non-negative integer, got {i!r}")
    return {"color": COLORS[i % len(COLORS)], "marker": MARKERS[i % len(MARKERS)]}
