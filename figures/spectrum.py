"""Eigenvalues of a recurrent matrix against the unit circle (an orthogonal U = φ(Θ) has all
its eigenvalues on it, sgornn.md Sec. 2)."""

from __future__ import annotations

import numpy as np
import matplotlib.pyplot as plt
import torch
from torch import Tensor

from rnnaudit.figures.style import apply_style, palette

__all__ = ["plot_eigenvalues", "plot_spectrum"]


def plot_eigenvalues(matrix: Tensor, *, title: str = "", ax=None):
    """Scatter the eigenvalues of a square matrix in the complex plane with the unit circle.

    Args:
        matrix: (h, h) real or complex tensor (not modified).
        title: axes title.
        ax: Axes to draw into; a new figure if None.

    Returns:
        The matplotlib Figure.

    Raises:
        ValueError: non-square or non-finite input.
    """
    if matrix.dim() != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"matrix must be square (h, h), got shape {tuple(matrix.shape)}")
    if not torch.isfinite(matrix).all():
        raise ValueError("matrix must be finite")
    eig = torch.linalg.eigvals(matrix.detach().cpu()).numpy()
    apply_style()
    if ax is None:
        fig, ax = plt.subplots(figsize=(4.0, 4.0))
    else:
        fig = ax.figure
    c_circle, c_eig = palette(2)
    phi = np.linspace(0, 2 * np.pi, 400)
    ax.plot(np.cos(phi), np.sin(phi), color=c_circle, lw=1, label="unit circle")
    ax.scatter(eig.real, eig.imag, s=12, color=c_eig, zorder=3, label=f"eigenvalues (n = {len(eig)})")
    ax.set_aspect("equal")
    ax.set_xlabel(r"Re $\lambda$")
    ax.set_ylabel(r"Im $\lambda$")
    lim = max(1.1, float(np.abs(eig).max()) * 1.1)
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.legend(loc="upper right", fontsize=7)
    if title:
        ax.set_title(title)
    return fig


def plot_spectrum(matrix: Tensor, *, title: str = "", grid: int = 80, eps_decades: tuple[float, ...] = (-2, -1.5, -1, -0.5),
                  pseudospectra=None):
    """Eigenvalues with the unit circle and ε-pseudospectra contours (left), singular values (right).

    Args:
        matrix: (h, h) recurrent matrix (not modified).
        title: figure title.
        grid: grid points per axis for σ_min(zI − A) (:func:`analysis.pseudospectrum`).
        eps_decades: log₁₀ ε of the contours drawn.
        pseudospectra: a precomputed :class:`analysis.PseudospectrumGrid` (skips the computation).

    Returns:
        The matplotlib Figure with two axes.

    Raises:
        ValueError: non-square or non-finite input, empty ``eps_decades``.

    Source: the ε-pseudospectrum argument of enrnn.md Sec. 2.
    """
    from rnnaudit.analysis import pseudospectrum

    if not eps_decades:
        raise ValueError("eps_decades must name at least one log10(ε)")
    fig, (ax_eig, ax_sv) = plt.subplots(1, 2, figsize=(9.0, 4.0), layout="constrained")
    plot_eigenvalues(matrix, ax=ax_eig)
    M = matrix.detach().cpu().double()
    if pseudospectra is None:
        lim = max(1.2, float(torch.linalg.matrix_norm(M, ord=2)) * 1.05)
        axis = np.linspace(-lim, lim, grid)
        pseudospectra = pseudospectrum(M, axis, axis)
    levels = sorted(10.0**e for e in eps_decades)
    contour = ax_eig.contour(pseudospectra.x.cpu().numpy(), pseudospectra.y.cpu().numpy(),
                             pseudospectra.sigma.cpu().numpy(), levels=levels, cmap="viridis", linewidths=1)
    ax_eig.clabel(contour, fmt=lambda v: f"ε=1e{np.log10(v):g}", fontsize=6)
    ax_eig.set_title(r"eigenvalues and $\epsilon$-pseudospectra")
    sv = torch.linalg.svdvals(M).numpy()
    ax_sv.plot(np.arange(1, len(sv) + 1), sv, marker=".", color=palette(2)[1])
    ax_sv.axhline(1.0, color="0.5", lw=0.8, ls="--")
    ax_sv.set_xlabel("index $i$")
    ax_sv.set_ylabel(r"singular value $\sigma_i$")
    ax_sv.set_title("singular values")
    if title:
        fig.suptitle(title)
    return fig
