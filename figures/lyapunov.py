"""The Lyapunov spectrum of a model along a trajectory: the exponents and how the finite-time estimates
settle (:func:`rnnaudit.analysis.lyapunov_spectrum`)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from rnnaudit.figures.style import apply_style

__all__ = ["plot_lyapunov"]


def plot_lyapunov(spectrum, *, title: str = "", top: int = 5):
    """Two panels: the exponents λ_i (nats per step) against i with ±2 standard errors and the line λ = 0,
    and the finite-time exponents of the ``top`` largest per window (convergence).

    Args:
        spectrum: a :class:`rnnaudit.analysis.lyapunov.LyapunovSpectrum`.
        title: figure title (the model). top: how many finite-time curves.

    Returns:
        the matplotlib Figure (the caller saves it).
    """
    apply_style()
    exps = spectrum.exponents.detach().cpu().double().numpy()
    err = spectrum.stderr.detach().cpu().double().numpy()
    windows = spectrum.finite_time.detach().cpu().double().numpy()
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
    index = np.arange(1, len(exps) + 1)
    finite = np.isfinite(exps)
    a.errorbar(index[finite], exps[finite], yerr=2 * np.nan_to_num(err[finite]), fmt="o", ms=3, capsize=2)
    a.axhline(0.0, color="0.3", lw=0.8, ls="--")
    a.set_xlabel("index i")
    a.set_ylabel("λ_i (nats per step)")
    a.set_title(f"Lyapunov spectrum ({spectrum.steps} steps after {spectrum.warmup} warm-up)")
    for i in range(min(top, windows.shape[1])):
        b.plot(np.arange(1, windows.shape[0] + 1) * spectrum.window, windows[:, i], marker=".", label=f"λ_{i + 1}")
    b.axhline(0.0, color="0.3", lw=0.8, ls="--")
    b.set_xlabel("counted steps (end of window)")
    b.set_ylabel(f"finite-time exponent over {spectrum.window} steps")
    b.set_title("convergence")
    if windows.shape[1]:
        b.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    return fig
