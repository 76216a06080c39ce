"""The eigenvalues of the Jacobian at each fixed point and slow point, on the unit circle
(:func:`rnnaudit.analysis.fixed_points.find_fixed_points`; Sussillo & Barak 2013): outside the circle an unstable
direction, inside a decaying one, near it a slow mode. Drawn with the eigenvalue panel of
:mod:`rnnaudit.figures.spectrum`."""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure

from rnnaudit.figures.saving import attach_data
from rnnaudit.figures.spectrum import _draw_eigenvalues
from rnnaudit.figures.style import styled

__all__ = ["plot_fixed_points"]


def _panel_title(fp, i: int) -> str:
    kind = "fixed point" if bool(fp.is_fixed[i]) else "slow point"
    unstable = int(fp.n_unstable[i])
    what = fp.stability[i] + (f", {unstable} unstable direction{'s' * (unstable != 1)}" if unstable else "")
    return f"{kind} {i + 1}: {what}\n‖F(h) − h‖ = {float(fp.speed[i]):.2g}, reached from {int(fp.hits[i])} start(s)"


@styled
def plot_fixed_points(fp, *, title: str = "", max_points: int = 6, ax=None):
    """One panel per point (fixed points first, slowest first; at most ``max_points``): the eigenvalues of
    ∂F/∂h there and the unit circle, as :func:`rnnaudit.figures.spectrum.plot_eigenvalues` draws them.

    Args:
        fp: a :class:`rnnaudit.analysis.fixed_points.FixedPoints` (K ≥ 0 points).
        title: figure title (the model). max_points: panels drawn (≥ 1); the rest are counted in the title.
        ax: must be None (the figure lays out its own panels); accepted for a uniform signature.

    Returns:
        The matplotlib Figure; its data (each point's eigenvalues, (K, S) complex, the points' speeds and kinds)
        go beside it as .npz through :func:`rnnaudit.figures.saving.save_figure`.

    Raises:
        ValueError: an ``ax``; ``max_points`` not an int ≥ 1.

    Source: the linearisation around fixed and slow points of Sussillo & Barak (2013), Neural Computation 25(3).
    """
    if ax is not None:
        raise ValueError("plot_fixed_points draws its own panels; ax must be None")
    if isinstance(max_points, bool) or not isinstance(max_points, int) or max_points < 1:
        raise ValueError(f"max_points must be an int >= 1, got {max_points!r}")
    K = len(fp)
    shown = min(K, max_points)
    cols = max(1, min(3, shown))
    rows = max(1, math.ceil(shown / cols))
    fig = Figure(figsize=(4.2 * cols, 4.6 * rows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
    for i, a in enumerate(axes):
        if i >= shown:
            a.set_axis_off()
            continue
        eig = fp.eigenvalues[i].detach().cpu().numpy()
        _draw_eigenvalues(a, eig, circle_on_dark=False)
        lim = max(1.1, float(np.abs(eig).max()) * 1.1)
        a.set_xlim(-lim, lim)
        a.set_ylim(-lim, lim)
        a.set_title(_panel_title(fp, i), fontsize=9)
    if K == 0:
        axes[0].text(0.5, 0.5, f"no fixed or slow point found\nfrom {fp.n_starts} starts", ha="center",
                     va="center", transform=axes[0].transAxes)
    more = f" (first {shown} of {K} points)" if K > shown else ""
    counts = f"{int(fp.is_fixed.sum())} fixed, {K - int(fp.is_fixed.sum())} slow, ‖x*‖ = {float(fp.input.norm()):.3g}"
    fig.suptitle(f"{title + ': ' if title else ''}eigenvalues of ∂F/∂h at the fixed and slow points{more}\n{counts}")
    attach_data(fig, {"eigenvalues": fp.eigenvalues.detach().cpu().numpy(), "speed": fp.speed.detach().cpu().numpy(),
                      "is_fixed": fp.is_fixed.detach().cpu().numpy(), "points": fp.points.detach().cpu().numpy()})
    return fig
