"""Tightness plots: the worst measured/bound ratio against T (or h) per claim, with the line
ratio = 1, so the points of a claim that fails as printed above it are obvious at a glance.

An infinite ratio (a positive measured value over a zero bound; results.json writes it "inf") is
drawn as a marker on the top edge of the axes, labelled ∞, never dropped. Claims that do not
depend on T (parameter and flop counts: every record has T = 1) get a panel of their own instead
of a point at T = 1 on a sequence-length axis.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure

from rnnaudit.figures.saving import attach_data
from rnnaudit.figures.style import REFERENCE_COLOR, series_style, styled

__all__ = ["plot_tightness", "ratio_value", "is_T_independent"]

#: Headroom above the largest finite ratio (a factor on the log axis) where the ∞ markers sit.
_INF_HEADROOM = 4.0


def ratio_value(v) -> float | None:
    """A results.json ratio as a float: numbers as they are, ``"inf"`` as math.inf; None for
    anything else (missing, None, NaN)."""
    if v == "inf":
        return math.inf
    if isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(v):
        return None
    return float(v)


def is_T_independent(claim: dict) -> bool:
    """True when every record of the claim has T = 1 (results.json ``tightness.by_T`` has the single
    key ``"1"``): parameter and flop counts, which do not depend on a sequence length."""
    return list(claim.get("tightness", {}).get("by_T", {})) == ["1"]


def _points(claim: dict, by: str) -> tuple[list[tuple[int, float]], list[int]]:
    """(x, finite positive ratio) pairs and the x values of infinite ratios, sorted by x."""
    finite, infinite = [], []
    for k, v in claim["tightness"][f"by_{by}"].items():
        r = ratio_value(v)
        if r is None or r <= 0:
            continue  # 0 (measured = 0) has no place on a log axis
        (infinite.append(int(k)) if math.isinf(r) else finite.append((int(k), r)))
    return sorted(finite), sorted(infinite)


def _label(claim: dict) -> str:
    return f"{claim['id']} ({claim['verdict']})"


def _draw_ratio_one(ax) -> None:
    ax.axhline(1.0, color=REFERENCE_COLOR, lw=1.1, ls="--", zorder=1, label="measured = bound")


def _draw_infinity(ax, xs_by_style: list[tuple[list, dict]]) -> None:
    """∞ markers on the top edge (x in data, y in axes coordinates, not clipped), an ∞ label at
    the left end of that edge, and a legend entry saying what the edge means."""
    if not xs_by_style:
        return
    for xs, style in xs_by_style:
        ax.plot(xs, [1.0] * len(xs), transform=ax.get_xaxis_transform(), clip_on=False, ls="none", zorder=6,
                markersize=7, markeredgecolor="white", markeredgewidth=0.6, gid="ratio-infinite", **style)
    # where the y tick labels are, so the edge reads as the value ∞
    ax.annotate("∞", xy=(0.0, 1.0), xycoords="axes fraction", xytext=(-5, 0), textcoords="offset points",
                va="center", ha="right", fontsize=11, annotation_clip=False, gid="ratio-infinite-label")
    ax.plot([], [], ls="none", marker="$\\infty$", markersize=8, color="0.2",
            label="on the top edge: ratio = ∞ (bound 0 < measured)")


def _set_log_limits(ax, finite: list[float], has_infinite: bool) -> None:
    values = finite + [1.0]
    lo, hi = min(values), max(values)
    top = hi * (_INF_HEADROOM if has_infinite else 2.0)
    ax.set_ylim(lo / 2.0, top)


@styled
def plot_tightness(claims: list[dict], *, by: str = "T", ax=None):
    """Worst measured/bound ratio against T or h for each claim, on log–log axes.

    Args:
        claims: results.json claim entries (each with ``id``, ``verdict`` and
            ``tightness[by_T|by_h]``, ratios as numbers or ``"inf"``); not modified.
        by: ``"T"`` or ``"h"``.
        ax: Axes to draw into (then T-independent claims share it); a new figure if None.

    Returns:
        The matplotlib Figure. With ``by="T"`` and a new figure, claims whose records all have
        T = 1 (:func:`is_T_independent`) are drawn in a second panel, one point per claim. Infinite
        ratios sit on the top edge, labelled ∞; zero ratios are left out (no place on a log axis).
        Colour–marker pairs are distinct for up to 56 claims (:func:`figures.style.series_style`).

    Raises:
        ValueError: ``by`` not "T" or "h"; a claim without ``tightness``.
    """
    if by not in ("T", "h"):
        raise ValueError(f"by must be 'T' or 'h', got {by!r}")
    for c in claims:
        if f"by_{by}" not in c.get("tightness", {}):
            raise ValueError(f"claims must carry tightness['by_{by}'] (results.json entries); {c.get('id')!r} does not")
    styles = {c["id"]: series_style(i) for i, c in enumerate(claims)}
    separate = by == "T" and ax is None
    flat = [c for c in claims if separate and is_T_independent(c)]
    curves = [c for c in claims if c not in flat]
    if ax is None:
        # one row of the T-independent panel per claim, about 0.2 inch each at 7 pt
        fig = Figure(figsize=(11.0 if flat else 7.2, max(4.4, 0.2 * len(flat) + 1.4)), layout="constrained")
        axes = fig.subplots(1, 2, width_ratios=[3, 1.6]) if flat else [fig.subplots()]
    else:
        fig, axes = ax.figure, [ax]
    ax = axes[0]
    finite_all, infinite = [], []
    for c in curves:
        finite, inf_x = _points(c, by)
        if not finite and not inf_x:
            continue
        style = styles[c["id"]]
        if finite:
            xs, ys = np.array(finite).T
            ax.plot(xs, ys, lw=1, label=_label(c), **style)
            finite_all += list(ys)
        else:  # only infinite ratios: still in the legend
            ax.plot([], [], lw=1, label=_label(c), **style)
        if inf_x:
            infinite.append((inf_x, style))
    _draw_ratio_one(ax)
    ax.set_xscale("log")
    ax.set_yscale("log")
    _set_log_limits(ax, finite_all, bool(infinite))
    _draw_infinity(ax, infinite)
    ax.set_xlabel("sequence length $T$" if by == "T" else "width $h$")
    ax.set_ylabel("worst measured / bound")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0, fontsize=6.5)
    if flat:
        _plot_T_independent(axes[1], flat, styles)
    rows = [(c["id"], int(k), ratio_value(v)) for c in claims for k, v in c["tightness"][f"by_{by}"].items()
            if ratio_value(v) is not None]
    attach_data(fig, {"claim": [r[0] for r in rows], by: [r[1] for r in rows],
                      "worst_measured_over_bound": [r[2] for r in rows]})
    return fig


def _plot_T_independent(ax, claims: list[dict], styles: dict) -> None:
    """One point per claim (its worst ratio), one row per claim: the names read horizontally on the y
    axis, one line each, so they cannot overlap however many claims a paper has (rotated names under a
    narrow panel ran into each other). Infinite ratios sit on the right edge, labelled ∞."""
    finite, infinite = [], []
    for i, c in enumerate(claims):
        r = ratio_value(c["tightness"]["by_T"]["1"])
        if r is None or r <= 0:
            continue
        if math.isinf(r):
            infinite.append((i, styles[c["id"]]))
        else:
            ax.plot([r], [i], ls="none", markersize=6, **styles[c["id"]])
            finite.append(r)
    ax.axvline(1.0, color=REFERENCE_COLOR, lw=1.1, ls="--", zorder=1, label="measured = bound")
    ax.set_xscale("log")
    values = finite + [1.0]
    ax.set_xlim(min(values) / 2.0, max(values) * (_INF_HEADROOM if infinite else 2.0))
    for i, style in infinite:
        ax.plot([1.0], [i], transform=ax.get_yaxis_transform(), clip_on=False, ls="none", zorder=6, markersize=7,
                markeredgecolor="white", markeredgewidth=0.6, gid="ratio-infinite", **style)
    if infinite:
        # where the x tick labels are, so the edge reads as the value ∞
        ax.annotate("∞", xy=(1.0, 0.0), xycoords="axes fraction", xytext=(0, -4), textcoords="offset points",
                    va="top", ha="center", fontsize=11, annotation_clip=False, gid="ratio-infinite-label")
    ax.set_yticks(range(len(claims)), [c["id"].split(".", 1)[1] for c in claims], fontsize=7)
    ax.set_ylim(len(claims) - 0.4, -0.6)  # paper order, top to bottom
    ax.grid(True, axis="y", lw=0.3, alpha=0.5)
    ax.set_title("claims that do not depend on $T$", fontsize=9)
    ax.set_xlabel("measured / bound")
