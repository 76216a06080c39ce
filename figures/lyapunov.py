"""The Lyapunov spectrum of a model along a trajectory: the exponents and how the finite-time estimates
settle (:func:`rnnaudit.analysis.lyapunov_spectrum`)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from rnnaudit.figures.saving import attach_data
from rnnaudit.figures.style import REFERENCE_COLOR, series_style, styled

__all__ = ["plot_lyapunov"]


@styled
def plot_lyapunov(spectrum, *, title: str = "", top: int = 5, ax=None):
    """Two panels: the exponents λ_i (nats per step) against i with their stated error (± halfwidth: noise,
    finite-T bias and, over several sequences, their spread; :mod:`rnnaudit.analysis.lyapunov`) and the line
    λ = 0, and the finite-time exponents of the ``top`` largest per window (convergence; over several sequences,
    the mean of the sequences' windows). The left title says how the sequences were aggregated. An exponent −inf (a
    product that lost rank) is drawn as a downward triangle at the bottom edge of the left panel, labelled
    "−∞"; a finite-time exponent −inf likewise at the bottom of the right panel.

    Args:
        spectrum: a :class:`rnnaudit.analysis.lyapunov.LyapunovSpectrum` (one sequence) or
            :class:`rnnaudit.analysis.lyapunov.LyapunovEstimate` (the mean over sequences).
        title: figure title (the model). top: how many finite-time curves.
        ax: must be None (the figure has two panels); accepted for a uniform signature.

    Returns:
        the matplotlib Figure (the caller saves it).

    Raises:
        ValueError: an ``ax``.

    Source: the Lyapunov exponents of a trajectory (Benettin et al.'s QR method), the probe of
    :mod:`rnnaudit.analysis.lyapunov`.
    """
    if ax is not None:
        raise ValueError("plot_lyapunov draws its own two-panel figure; ax must be None")
    exps = spectrum.exponents.detach().cpu().double().numpy()
    err = spectrum.halfwidth.detach().cpu().double().numpy()
    parts = getattr(spectrum, "spectra", (spectrum,))
    windows = np.mean([p.finite_time.detach().cpu().double().numpy() for p in parts], axis=0)
    window = parts[0].window
    how = "one sequence" if len(parts) == 1 else f"mean over {len(parts)} sequences"
    fig = Figure(figsize=(10, 3.8), layout="constrained")
    a, b = fig.subplots(1, 2)
    index = np.arange(1, len(exps) + 1)
    finite = np.isfinite(exps)
    a.errorbar(index[finite], exps[finite], yerr=np.nan_to_num(err[finite]), fmt="o", ms=3, capsize=2,
               color=series_style(0)["color"])
    a.axhline(0.0, color=REFERENCE_COLOR, lw=0.8, ls="--")
    _mark_minus_inf(a, index[~finite], np.isneginf(exps[~finite]))
    if not finite.all():
        a.legend(fontsize=8, loc="upper right")
    a.set_xlabel("index i")
    a.set_ylabel("$\\lambda_i$ (nats per step)")
    a.set_title(f"Lyapunov spectrum, {how} ({spectrum.steps} steps after {spectrum.warmup} warm-up)\n"
                "± noise, finite-T bias" + ("" if len(parts) == 1 else " and spread over sequences"), fontsize=9)
    ends = np.arange(1, windows.shape[0] + 1) * window
    for i in range(min(top, windows.shape[1])):
        b.plot(ends, windows[:, i], label=f"$\\lambda_{{{i + 1}}}$", **series_style(i))
    b.axhline(0.0, color=REFERENCE_COLOR, lw=0.8, ls="--")
    shown = windows[:, :min(top, windows.shape[1])]
    rows, cols = np.nonzero(np.isneginf(shown))
    _mark_minus_inf(b, ends[rows], np.ones(len(rows), dtype=bool), colors=[series_style(int(c))["color"] for c in cols],
                    annotate=False)
    b.set_xlabel("counted steps (end of window)")
    b.set_ylabel(f"finite-time exponent over {window} steps")
    b.set_title("convergence")
    if windows.shape[1]:
        b.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    attach_data(fig, {"index": index, "exponent": exps, "halfwidth": err, "sequences": np.asarray([len(parts)]),
                      **{f"finite_time/{i + 1}": windows[:, i] for i in range(windows.shape[1])}})
    return fig


def _mark_minus_inf(ax, xs, neg, colors=None, annotate: bool = True) -> None:
    """Values −inf at positions ``xs`` (``neg`` True) as triangles on the lower edge of ``ax`` (matplotlib would
    drop them silently), in the legend as "−∞ (singular product)" and, with ``annotate``, each labelled "−∞".
    Nothing is drawn when there are none."""
    xs = np.asarray(xs)[np.asarray(neg, dtype=bool)]
    if xs.size == 0:
        return
    colors = colors if colors is not None else [series_style(0)["color"]] * xs.size
    ax.scatter(xs, np.zeros(xs.size), transform=ax.get_xaxis_transform(), marker="v", s=30, c=colors,
               clip_on=False, zorder=3, label="$-\\infty$ (singular product)")
    for x in xs if annotate else ():
        ax.annotate("$-\\infty$", (x, 0), xycoords=ax.get_xaxis_transform(), xytext=(0, 6),
                    textcoords="offset points", ha="center", fontsize=7)
