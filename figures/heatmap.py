"""Gradient heatmaps: ‖∂h_t/∂h_s‖₂ over (s, t) (sgornn.md Sec. 2.2; the layout of enrnn.md Fig. 4–5)."""

from __future__ import annotations

import numpy as np
import torch
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure
from torch import Tensor

from rnnaudit.figures.saving import attach_data
from rnnaudit.figures.style import SEQUENTIAL_CMAP, styled

__all__ = ["plot_jacobian_heatmap", "plot_jacobian_heatmaps", "jacobian_panels"]


def jacobian_panels(cell, x: Tensor, kind: str = "hidden", rtol: float | None = None) -> dict[str, Tensor]:
    """The norm maps a heatmap shows: the whole state, or for ENRNN its long-term block h^(L) and
    short-term block h^(S) separately (enrnn.md Fig. 4–5).

    Args:
        cell: any :class:`cells.base.RecurrentCell`. x: one sequence (T, n).
        kind: ``"hidden"`` (‖∂h_t/∂h_s‖₂, :func:`analysis.hidden_jacobian_maps`) or ``"input"``
            (‖∂h_τ/∂x_t‖₂, :func:`analysis.input_jacobian_maps`).
        rtol: relative tolerance of the certified norms; None (default) is
            :data:`analysis.jacobian.HEATMAP_RTOL` (below a ninth of one colour level),
            :data:`analysis.jacobian.CERTIFIED_RTOL` gives the maps the claims use.

    Returns:
        panel title → (T + 1, T + 1) map.

    Raises:
        ValueError: unknown ``kind``.
    """
    from rnnaudit.analysis import HEATMAP_RTOL, hidden_jacobian_maps, input_jacobian_maps
    from rnnaudit.cells import ENRNN

    rtol = HEATMAP_RTOL if rtol is None else rtol
    if kind not in ("hidden", "input"):
        raise ValueError(f"kind must be 'hidden' or 'input', got {kind!r}")
    blocks = {"h": None}
    if isinstance(cell, ENRNN) and cell.long_size and cell.short_size:
        q, n = cell.long_size, cell.hidden_size
        blocks = {"h^(L) (long-term)": list(range(q)), "h^(S) (short-term)": list(range(q, n))}
    panels = {}
    for name, rows in blocks.items():
        if kind == "hidden":
            maps = hidden_jacobian_maps(cell, x, norms=("spectral",), rows=rows, cols=rows, rtol=rtol)
            v = name.split()[0]
            label = r"$\|\partial h_t/\partial h_s\|_2$" if rows is None else f"‖∂{v}_t/∂{v}_s‖₂"
        else:
            maps = input_jacobian_maps(cell, x, norms=("spectral",), rows=rows, rtol=rtol)
            label = r"$\|\partial h_\tau/\partial x_t\|_2$" if rows is None else f"‖∂{name.split()[0]}_τ/∂x_t‖₂"
        panels[label] = maps.spectral
    return panels


@styled
def plot_jacobian_heatmaps(cell, x: Tensor, *, kind: str = "hidden", log: bool = True, title: str = "",
                           progress=None, rtol: float | None = None):
    """Heatmaps of :func:`jacobian_panels`, side by side on one colour scale.

    Args:
        cell, x, kind: see :func:`jacobian_panels`. log: logarithmic colour scale. title: figure title.
        progress: called with 1 when the maps are computed and 1 when the figure is drawn (sum 2).
        rtol: tolerance of the certified norms, as :func:`jacobian_panels` (heatmap-grade by default).

    Raises:
        ValueError: see :func:`jacobian_panels`.
    """
    panels = jacobian_panels(cell, x, kind, rtol)
    if progress is not None:
        progress(1)
    positive = torch.cat([m[m > 0] for m in panels.values()])
    fig = Figure(figsize=(5.0 * len(panels), 4.0), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)
    for ax, (label, m) in zip(axes[0], panels.items()):
        plot_jacobian_heatmap(m, ax=ax, log=log, title=label, vmin=float(positive.min()), vmax=float(positive.max()),
                              kind=kind)
    if title:
        fig.suptitle(title)
    # the maps themselves go beside the figure (.npz), one array per panel
    attach_data(fig, {label: m.detach().cpu().numpy() for label, m in panels.items()})
    if progress is not None:
        progress(1)
    return fig


@styled
def plot_jacobian_heatmap(norms: Tensor | np.ndarray, *, title: str = "", log: bool = True, ax=None,
                          vmin: float | None = None, vmax: float | None = None, kind: str = "hidden"):
    """Draw the lower-triangular map M[t, s] = ‖∂h_t/∂h_s‖₂ from
    :func:`analysis.hidden_jacobian_norms`.

    Args:
        norms: (T + 1, T + 1) array, 0 above the diagonal (those cells are left blank).
        title: axes title.
        log: logarithmic colour scale (default), needed to see vanishing and exploding
            gradients on one plot.
        ax: matplotlib Axes to draw into; a new figure if None.
        vmin, vmax: colour range (default: the data's positive range); pass the same
            values to panels that are meant to be compared.
        kind: ``"hidden"`` (axes s, t) or ``"input"`` (axes t, τ), for the labels.

    Returns:
        The matplotlib Figure. The input is not modified.

    Raises:
        ValueError: non-square input, or negative / non-finite entries.
    """
    data = np.array(norms.detach().cpu().numpy() if isinstance(norms, Tensor) else norms, dtype=float, copy=True)
    if data.ndim != 2 or data.shape[0] != data.shape[1]:
        raise ValueError(f"norms must be a square (T+1, T+1) matrix, got shape {data.shape}")
    if not np.isfinite(data).all() or (data < 0).any():
        raise ValueError("norms must be finite and non-negative")
    if ax is None:
        fig = Figure(figsize=(4.6, 3.8), layout="constrained")
        ax = fig.subplots()
    else:
        fig = ax.figure
    mask = np.triu(np.ones_like(data, dtype=bool), k=1) | (data == 0)
    shown = np.ma.masked_array(data, mask)
    positive = data[~mask]
    lo = positive.min() if vmin is None else vmin
    hi = max(positive.max() if vmax is None else vmax, lo * (1 + 1e-12))
    norm = LogNorm(vmin=lo, vmax=hi) if log else None
    image = ax.imshow(shown, origin="upper", cmap=SEQUENTIAL_CMAP, norm=norm, interpolation="nearest",
                      aspect="auto", **({} if log else {"vmin": lo, "vmax": hi}))
    if kind == "input":
        fig.colorbar(image, ax=ax, label=r"$\|\partial h_\tau / \partial x_t\|_2$")
        ax.set_xlabel("input step $t$")
        ax.set_ylabel(r"state step $\tau$")
    else:
        fig.colorbar(image, ax=ax, label=r"$\|\partial h_t / \partial h_s\|_2$")
        ax.set_xlabel("source step $s$")
        ax.set_ylabel("target step $t$")
    ax.grid(False)
    if title:
        ax.set_title(title)
    return fig
