"""Gradient heatmaps: ‖∂h_t/∂h_s‖₂ over (s, t) (sgornn.md Sec. 2.2; the layout of enrnn.md Fig. 4–5)."""

from __future__ import annotations

import numpy as np
import torch
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure
from torch import Tensor

from rnnaudit.figures.saving import attach_data
from rnnaudit.figures.style import SEQUENTIAL_CMAP, styled

__all__ = ["plot_jacobian_heatmap", "plot_jacobian_heatmaps", "jacobian_panels", "jacobian_panel_maps"]


def jacobian_panel_maps(cell, x: Tensor, kind: str = "hidden", rtol: float | None = None, *, grid=None,
                        block: str = "h", layer: int | None = None, memory_limit: float | None = None,
                        progress=None, method: str = "auto") -> dict:
    """The maps a heatmap shows, with their grids: the chosen block of the state, or for ENRNN its long-term
    block h^(L) and short-term block h^(S) separately (enrnn.md Fig. 4–5).

    Args:
        cell: any :class:`cells.base.RecurrentCell` or a model :func:`rnnaudit.cells.wrap` accepts.
            x: one sequence (T, n), or m sequences (m, T, n): the map is then the mean over them of the
            per-sequence norms (the map functions' ``reduce="mean"``), as the figure's titles and data say.
        kind: ``"hidden"`` (‖∂h_t/∂h_s‖₂, :func:`analysis.hidden_jacobian_maps`) or ``"input"``
            (‖∂h_τ/∂x_t‖₂, :func:`analysis.input_jacobian_maps`).
        rtol: relative tolerance of the certified norms; None (default) is
            :data:`analysis.jacobian.HEATMAP_RTOL` (below a ninth of one colour level),
            :data:`analysis.jacobian.CERTIFIED_RTOL` gives the maps the claims use.
        grid: None (every pair) or the grid of :func:`analysis.grid_maps.grid_steps` (heatmap grade).
        block, layer: which part of the state (:func:`analysis.grid_maps.state_block`): by default the last
            layer's h, what a user means by ∂h_t/∂h_s; ``"state"`` for the whole packed state.
        memory_limit, progress: passed to the map functions.
        method: ``"auto"`` (the certified engine) or, with a grid, ``"sketch"`` (randomized sweeps with a
            stated factor, :func:`analysis.grid_maps.sketch_maps`; for wide states).

    Returns:
        colour-bar label (the norm in matplotlib mathtext, then the block: ``"$\\|\\partial h_t/\\partial h_s\\|_2$,
        layer 1 h block"``) → :class:`analysis.JacobianMaps` (``spectral`` only).

    Raises:
        ValueError: unknown ``kind``; a bad block/layer; as the map functions.
    """
    from rnnaudit.analysis import HEATMAP_RTOL, hidden_jacobian_maps, input_jacobian_maps, state_block
    from rnnaudit.cells import ENRNN

    rtol = HEATMAP_RTOL if rtol is None else rtol
    if kind not in ("hidden", "input"):
        raise ValueError(f"kind must be 'hidden' or 'input', got {kind!r}")
    if isinstance(cell, ENRNN) and cell.long_size and cell.short_size:
        q, n = cell.long_size, cell.hidden_size
        blocks = {"h^(L) (long-term)": list(range(q)), "h^(S) (short-term)": list(range(q, n))}
        named = {name: (rows, name.split()[0], name) for name, rows in blocks.items()}
    else:
        rows, where = state_block(cell, block, layer)
        v = {"h": "h", "c": "c", "state": "h"}[block]
        named = {where: (rows, v, where)}
    kw = {"rtol": rtol, "grid": grid, "memory_limit": memory_limit, "progress": progress, "norms": ("spectral",),
          "method": method}
    panels = {}
    for rows, v, where in named.values():
        v = v.replace("^(", "^{(").replace(")", ")}")  # mathtext: h^{(L)}
        if kind == "hidden":
            maps = hidden_jacobian_maps(cell, x, rows=rows, cols=rows, **kw)
            label = rf"$\|\partial {v}_t/\partial {v}_s\|_2$, {where}"
        else:
            maps = input_jacobian_maps(cell, x, rows=rows, **kw)
            label = rf"$\|\partial {v}_\tau/\partial x_t\|_2$, {where}"
        panels[label] = maps
    return panels


def jacobian_panels(cell, x: Tensor, kind: str = "hidden", rtol: float | None = None, *, block: str = "h",
                    layer: int | None = None) -> dict[str, Tensor]:
    """The all-pairs maps of :func:`jacobian_panel_maps`: colour-bar label → (T + 1, T + 1) map.

    Raises:
        ValueError: as :func:`jacobian_panel_maps`.
    """
    return {label: m.spectral for label, m in jacobian_panel_maps(cell, x, kind, rtol, block=block,
                                                                  layer=layer).items()}


@styled
def plot_jacobian_heatmaps(cell, x: Tensor, *, kind: str = "hidden", log: bool = True, title: str = "",
                           progress=None, rtol: float | None = None, grid=None, block: str = "h",
                           layer: int | None = None, memory_limit: float | None = None, work=None,
                           method: str = "auto"):
    """Heatmaps of :func:`jacobian_panel_maps`, side by side on one colour scale; each colour bar names the
    norm and the block it shows (e.g. "‖∂h_t/∂h_s‖₂, layer 1 h block", "‖∂h_t/∂h_s‖₂, (h, c) state").

    Args:
        cell, x, kind, grid, block, layer, memory_limit, method: see :func:`jacobian_panel_maps`. log:
            logarithmic colour scale. title: figure title. Each panel's title states the grid and the stated
            error (rtol, or the sketch's largest factor and its confidence).
        progress: called with 1 when the maps are computed and 1 when the figure is drawn (sum 2).
        rtol: tolerance of the certified norms, as :func:`jacobian_panels` (heatmap-grade by default).
        work: called with GEMM units of the maps' work as it is done (the ``progress`` of the map functions).

    Returns:
        The matplotlib Figure. Its data (:func:`rnnaudit.figures.saving.save_figure` writes them as .npz): the map
        ``jacobian_norm`` (T' × T', lower-triangular) with the steps of its rows and columns, ``t`` and ``s``
        (``tau`` and ``t`` for ``kind="input"``; 0..T, or the grid's steps); with two panels (ENRNN) each name
        ends in the block, ``jacobian_norm_h_L``, ``t_h_L``, …; ``sequences``, how many sequences the map
        aggregates (the title and every label say how: one sequence, or the mean of the norms); the colour bar's
        label of each in ``labels``.

    Raises:
        ValueError: see :func:`jacobian_panel_maps`.
    """
    panels = jacobian_panel_maps(cell, x, kind, rtol, grid=grid, block=block, layer=layer,
                                 memory_limit=memory_limit, progress=work, method=method)
    n_seq = x.shape[0] if x.dim() == 3 else 1
    aggregate = "one sequence" if n_seq == 1 else f"mean of the norms over {n_seq} sequences"
    if progress is not None:
        progress(1)
    positive = torch.cat([m.spectral[m.spectral > 0] for m in panels.values()])
    fig = Figure(figsize=(5.0 * len(panels), 4.0), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)
    for ax, (label, m) in zip(axes[0], panels.items()):
        where = label.split(", ", 1)[1]
        sampled = "" if m.steps is None else f", {m.steps.numel()}-point grid"
        if m.factor is not None and m.confidence == 1.0:
            stated = ", exact (the probes span every direction)"
        elif m.factor is not None:
            stated = f"\nwithin ×{float(m.factor.max()):.3g} per cell at confidence {m.confidence:g} (randomized)"
        else:
            stated = f", certified to rtol {m.rtol:g}"
        plot_jacobian_heatmap(m.spectral, ax=ax, log=log, title=f"{where}{sampled}{stated}", vmin=float(positive.min()),
                              vmax=float(positive.max()), kind=kind, steps=m.steps, label=label)
    fig.suptitle(f"{title} ({aggregate})" if title else aggregate)
    # the maps themselves go beside the figure (.npz), one array per panel, with the steps of its rows and columns
    data, labels = {}, {}
    row, col = ("t", "s") if kind == "hidden" else ("tau", "t")
    for label, m in panels.items():
        suffix = "" if len(panels) == 1 else "_" + _identifier(label.split(", ", 1)[1].split()[0])
        steps = (np.arange(m.spectral.shape[0]) if m.steps is None else m.steps.detach().cpu().numpy())
        data[f"jacobian_norm{suffix}"] = m.spectral.detach().cpu().numpy()
        data[f"{row}{suffix}"], data[f"{col}{suffix}"] = steps, steps.copy()
        labels[f"jacobian_norm{suffix}"] = (f"{label}, {aggregate}; [i, j] at {row} = {row}{suffix}[i], "
                                            f"{col} = {col}{suffix}[j]")
        labels[f"{row}{suffix}"] = "target step t (rows)" if kind == "hidden" else "state step τ (rows)"
        labels[f"{col}{suffix}"] = "source step s (columns)" if kind == "hidden" else "input step t (columns)"
    data["sequences"] = np.asarray(n_seq, dtype=np.int64)
    labels["sequences"] = f"sequences aggregated: {aggregate}"
    certified = [p.rtol for p in panels.values() if p.factor is None]
    if certified:  # the stated relative error of every certified value (a randomized sketch states its factor)
        data["rtol"] = np.asarray(max(certified), dtype=np.float64)
        labels["rtol"] = "relative error bound of every certified value"
    attach_data(fig, data, labels=labels)
    if progress is not None:
        progress(1)
    return fig


def _identifier(text: str) -> str:
    """A panel's block as a plain ASCII identifier for the data file: ``h^(L)`` → ``h_L``."""
    parts = "".join(c if c.isascii() and c.isalnum() else " " for c in text).split()
    return "_".join(parts) or "panel"


@styled
def plot_jacobian_heatmap(norms: Tensor | np.ndarray, *, title: str = "", log: bool = True, ax=None,
                          vmin: float | None = None, vmax: float | None = None, kind: str = "hidden",
                          steps=None, label: str | None = None):
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
        steps: the grid's steps (R,) when ``norms`` is a map on a grid (:attr:`analysis.JacobianMaps.steps`):
            the cells are drawn at those steps (edges halfway between them); None: steps 0..T.
        label: the colour bar's label (default: the norm, for the whole state).

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
    scale = {} if log else {"vmin": lo, "vmax": hi}
    if steps is None:
        image = ax.imshow(shown, origin="upper", cmap=SEQUENTIAL_CMAP, norm=norm, interpolation="nearest",
                          aspect="auto", **scale)
    else:
        g = np.asarray(steps.cpu() if isinstance(steps, Tensor) else steps, dtype=float)
        if g.ndim != 1 or g.size != data.shape[0] or (np.diff(g) <= 0).any():
            raise ValueError(f"steps must be {data.shape[0]} increasing grid steps, got {g.tolist()}")
        mid = (g[1:] + g[:-1]) / 2
        if mid.size:
            edges = np.concatenate([[g[0] - (mid[0] - g[0])], mid, [g[-1] + (g[-1] - mid[-1])]])
        else:  # one grid step (an input map of T = 1): a cell one step wide around it
            edges = np.array([g[0] - 0.5, g[0] + 0.5])
        image = ax.pcolormesh(edges, edges, shown, cmap=SEQUENTIAL_CMAP, norm=norm, **scale)
        ax.set_xlim(edges[0], edges[-1])
        ax.set_ylim(edges[-1], edges[0])
    if kind == "input":
        fig.colorbar(image, ax=ax, label=label or r"$\|\partial h_\tau / \partial x_t\|_2$")
        ax.set_xlabel("input step $t$")
        ax.set_ylabel(r"state step $\tau$")
    else:
        fig.colorbar(image, ax=ax, label=label or r"$\|\partial h_t / \partial h_s\|_2$")
        ax.set_xlabel("source step $s$")
        ax.set_ylabel("target step $t$")
    ax.grid(False)
    if title:
        ax.set_title(title)
    return fig
