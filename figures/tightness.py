"""Tightness plots: measured/bound against T (and h) per claim, the line ratio = 1 marked, so a
violated claim's points above it are obvious at a glance."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from rnnaudit.figures.style import apply_style, palette

__all__ = ["plot_tightness"]


def plot_tightness(claims: list[dict], *, by: str = "T", ax=None):
    """Worst measured/bound ratio against T or h for each claim, on log–log axes.

    Args:
        claims: results.json claim entries (each with ``id`` and ``tightness[by_T|by_h]``).
        by: ``"T"`` or ``"h"``.
        ax: Axes to draw into; a new figure if None.

    Returns:
        The matplotlib Figure. Claims with no positive ratio are left out (nothing to show on
        a log axis); the input is not modified.

    Raises:
        ValueError: ``by`` not "T" or "h".
    """
    if by not in ("T", "h"):
        raise ValueError(f"by must be 'T' or 'h', got {by!r}")
    apply_style()
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 4.2), layout="constrained")
    else:
        fig = ax.figure
    shown = [c for c in claims if any(isinstance(v, (int, float)) and v > 0 for v in c["tightness"][f"by_{by}"].values())]
    colors = palette(max(len(shown), 1))
    markers = "osD^v<>pXh"
    for i, c in enumerate(shown):
        pairs = sorted((int(k), v) for k, v in c["tightness"][f"by_{by}"].items() if isinstance(v, (int, float)) and v > 0)
        xs, ys = np.array(pairs).T
        ax.plot(xs, ys, marker=markers[i % len(markers)], color=colors[i], lw=1,
                label=f"{c['id']} ({c['verdict']})")
    ax.axhline(1.0, color="crimson", lw=1.2, ls="--", label="measured = bound")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("sequence length $T$" if by == "T" else "width $h$")
    ax.set_ylabel("worst measured / bound")
    ax.legend(fontsize=6, loc="best")
    return fig
