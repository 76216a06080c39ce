"""The eigenvalues of an input-dependent diagonal transition on the unit disk: Mamba's Ā_t = exp(Δ_t A)
(Gu & Dao 2023, arXiv 2312.00752, Algorithm 2), one set per step t of the given inputs.

A selective SSM has no fixed recurrent matrix: ∂h_t/∂h_{t−1} = diag(Ā_t) changes with x_t, so its spectrum is the
set {Ā_t[k]} over t and the D·N modes k. With A = −exp(A^log) real and Δ_t > 0 every Ā_t[k] lies in (0, 1) on the
real axis; the figure draws them all (coloured by t) in the unit disk, and beside it, per step, the largest and
smallest modulus over the sequences and modes.
"""

from __future__ import annotations

import numpy as np
import torch
from matplotlib.figure import Figure
from torch import Tensor

from rnnaudit.figures.saving import attach_data
from rnnaudit.figures.style import REFERENCE_COLOR, SEQUENTIAL_CMAP, series_style, styled

__all__ = ["plot_transition_spectrum", "MAX_POINTS"]

#: Points drawn at most: beyond this one step in k is drawn (k stated in the legend); the data file keeps all.
MAX_POINTS = 20000


@styled
def plot_transition_spectrum(eigenvalues: Tensor, *, name: str = "Ā_t", key: str = "Abar_t", title: str = ""):
    """Scatter the eigenvalues of the input-dependent transitions of every step on the unit disk, and their
    largest and smallest modulus per step.

    Args:
        eigenvalues: (m, T, K), real or complex, finite: the K eigenvalues of the transition at step t of
            sequence i (for a selective SSM, ``cell.transition(x)``: Ā_t flattened, K = D·N).
        name: of the transition, for the titles. key: its plain-identifier name in the data file. title: of the
            figure (default: ``name``).

    Returns:
        The matplotlib Figure, with its data (:func:`rnnaudit.figures.saving.attach_data`): ``<key>__eigenvalues``
        (m, T, K) complex, ``<key>__max_modulus`` and ``<key>__min_modulus`` (T,) over sequences and modes.

    Raises:
        TypeError: not a tensor. ValueError: not 3-D, empty, or not finite; ``key`` not an ASCII identifier.

    Source: arXiv 2312.00752, Algorithm 2 (Ā = exp(ΔA)).
    """
    if not isinstance(eigenvalues, Tensor):
        raise TypeError(f"eigenvalues must be a tensor (m, T, K), got {type(eigenvalues).__name__}")
    if eigenvalues.dim() != 3 or 0 in eigenvalues.shape or not bool(torch.isfinite(eigenvalues).all()):
        raise ValueError(f"eigenvalues must be a finite non-empty tensor (m, T, K), got shape "
                         f"{tuple(eigenvalues.shape)}")
    eig = eigenvalues.detach().to(torch.complex128).cpu().numpy()
    m, T, K = eig.shape
    mod = np.abs(eig)
    stride = max(1, -(-m * T * K // MAX_POINTS))
    shown = eig[:, ::stride]
    fig = Figure(figsize=(10.5, 4.6), layout="constrained")
    ax, ax_t = fig.subplots(1, 2, width_ratios=[1, 1.25])
    phi = np.linspace(0, 2 * np.pi, 721)
    ax.plot(np.cos(phi), np.sin(phi), color=REFERENCE_COLOR, lw=0.9, ls="--", label="unit circle", zorder=1)
    t_index = np.broadcast_to(np.arange(T)[::stride][None, :, None], shown.shape) + 1
    subset = "every step" if stride == 1 else f"one step in {stride}"
    points = ax.scatter(shown.real.ravel(), shown.imag.ravel(), c=t_index.ravel(), cmap=SEQUENTIAL_CMAP, s=8,
                        linewidths=0, zorder=3, label=f"{name}: {K} modes, {subset} of {m} sequence(s)")
    fig.colorbar(points, ax=ax, shrink=0.85, pad=0.02).set_label("step t")
    ax.set_aspect("equal")
    ax.set_xlim(-1.1, 1.1)
    ax.set_ylim(-1.1, 1.1)
    ax.set_xlabel(r"Re $z$")
    ax.set_ylabel(r"Im $z$")
    ax.set_title(f"eigenvalues of {name} on the unit disk")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1)
    top, low = mod.max(axis=(0, 2)), mod.min(axis=(0, 2))
    steps = np.arange(1, T + 1)
    ax_t.plot(steps, top, color=series_style(0)["color"], lw=1.0, label=r"max $|\lambda|$ over sequences and modes")
    ax_t.plot(steps, low, color=series_style(1)["color"], lw=1.0, label=r"min $|\lambda|$ over sequences and modes")
    ax_t.axhline(1.0, color=REFERENCE_COLOR, lw=0.8, ls="--", label=r"$|\lambda| = 1$", zorder=1)
    ax_t.set_ylim(0, 1.1 * max(1.0, float(top.max())))
    ax_t.set_xlabel("step t")
    ax_t.set_ylabel(r"modulus $|\lambda|$")
    ax_t.set_title(f"|eigenvalues| of {name} per step")
    ax_t.legend(loc="lower left")
    fig.suptitle(title or name)
    if not (isinstance(key, str) and key.isascii() and key.isidentifier()):
        raise ValueError(f"key must be a plain ASCII identifier, got {key!r}")
    attach_data(fig, {f"{key}__eigenvalues": eig, f"{key}__max_modulus": top, f"{key}__min_modulus": low},
                labels={f"{key}__eigenvalues": f"eigenvalues of {name}, [sequence, step t − 1, mode]",
                        f"{key}__max_modulus": f"max |eigenvalue| of {name} per step over sequences and modes",
                        f"{key}__min_modulus": f"min |eigenvalue| of {name} per step over sequences and modes"})
    return fig
