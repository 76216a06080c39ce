"""Plots of a training run's recorded trajectory (rnnaudit.training.read_trajectory) and
side-by-side comparisons across runs (as sgornn.md Fig. 1–3 compare SGORNN, FastRNN, VPRNN)."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np

from rnnaudit.figures.style import apply_style, palette

__all__ = ["plot_trajectory", "plot_comparison", "TRAJECTORY_PANELS"]

#: Panels drawn when their keys are present: (title, keys, y label, reference line or None, log y).
TRAJECTORY_PANELS = (
    ("loss", ("loss", "val_loss"), "loss", None, True),
    ("gradient max-norms by role", None, r"$\|\partial L/\partial P\|_{max}$", None, True),
    (r"$\|\partial L/\partial h_0\|$", ("grad_h0",), "norm", None, True),
    ("recurrent matrix", ("spectral_radius", "spectral_norm"), "value", 1.0, False),
    ("orthogonality defect", ("orthogonality_defect",), r"$\|U^\top U - I\|_2$", None, True),
    (r"gates: $\beta$ against $1-\alpha$ and $1-2\alpha$", ("alpha", "beta"), "value", None, False),
    ("σ range (eq. 7)", ("sigma_min", "sigma_max"), "σ", None, False),
    ("Neumann condition (eq. 18)", ("neumann_condition",), r"$\|(I+A)^{-1}\delta A\|_2$", 1.0, True),
    ("validation accuracy", ("val_accuracy",), "accuracy", None, False),
    (r"$\|\partial h_t/\partial h_s\|_2$ along the probe sequence", ("jacobian/max", "jacobian/end"), "norm", 1.0,
     True),
    ("growth rate (nats per step)", ("lyapunov_max", "jacobian/slope"), "rate", 0.0, False),
)


def _present(trajectory: dict, keys) -> list[str]:
    """The panel's keys the run recorded; a quantity recorded per recurrent matrix (``spectral_radius/W_hz``,
    a model with several) stands for its plain key when that is absent."""
    out = []
    for k in keys:
        found = [k] if k in trajectory else sorted(r for r in trajectory if r.startswith(k + "/"))
        out += [r for r in found if np.isfinite(trajectory[r]).any()]
    return out


def plot_trajectory(trajectory: dict, *, title: str = ""):
    """One panel per recorded quantity group, against the training step.

    Args:
        trajectory: key → 1-D array, with ``step`` (from :func:`rnnaudit.training.read_trajectory`).
        title: figure title.

    Returns:
        The matplotlib Figure; panels whose quantities the run did not record are omitted.

    Raises:
        ValueError: no ``step`` key, or arrays of different lengths.
    """
    if "step" not in trajectory:
        raise ValueError("trajectory must contain 'step' (use rnnaudit.training.read_trajectory)")
    n = len(trajectory["step"])
    if any(len(v) != n for v in trajectory.values()):
        raise ValueError("all trajectory arrays must have the length of 'step'")
    apply_style()
    grad_keys = sorted(k for k in trajectory if k.startswith("grad/") and k.endswith("/max"))
    panels = []
    for name, keys, ylabel, ref, logy in TRAJECTORY_PANELS:
        present = _present(trajectory, grad_keys if keys is None else keys)
        if present:
            panels.append((name, present, ylabel, ref, logy))
    cols = 2
    rows = max(1, math.ceil(len(panels) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(10, 2.8 * rows), layout="constrained", squeeze=False)
    step = trajectory["step"]
    for ax, (name, keys, ylabel, ref, logy) in zip(axes.flat, panels):
        colors = palette(len(keys) + 2)
        for color, key in zip(colors, keys):
            values = trajectory[key]
            if logy:
                values = np.where(values > 0, values, np.nan)
            ax.plot(step, values, marker=".", color=color, label=key.replace("grad/", "").replace("/max", ""))
        if "alpha" in keys:
            alpha = trajectory["alpha"]
            ax.plot(step, 1 - alpha, ls="--", color=colors[-2], label=r"$1-\alpha$ (Theorem 2)")
            ax.plot(step, 1 - 2 * alpha, ls=":", color=colors[-1], label=r"$1-2\alpha$ (eq. 3)")
        if ref is not None:
            ax.axhline(ref, color="crimson", lw=1, ls="--")
        if logy:
            ax.set_yscale("log")
        ax.set_title(name)
        ax.set_xlabel("training step")
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=6)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    if title:
        fig.suptitle(title)
    return fig


def plot_comparison(runs: dict, key: str, *, log: bool = True, ax=None):
    """One recorded quantity against the step for several runs (e.g. SGORNN vs FastRNN vs VPRNN).

    Args:
        runs: label → trajectory dict. key: e.g. ``"val_loss"`` or ``"grad/W/max"``.
        log: logarithmic y axis.

    Raises:
        ValueError: no run records ``key``.
    """
    with_key = {label: t for label, t in runs.items() if key in t}
    if not with_key:
        raise ValueError(f"no run records {key!r}")
    apply_style()
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 4.0), layout="constrained")
    else:
        fig = ax.figure
    for color, (label, t) in zip(palette(len(with_key)), with_key.items()):
        ax.plot(t["step"], t[key], marker=".", color=color, label=label)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel("training step")
    ax.set_ylabel(key)
    ax.legend(fontsize=7)
    return fig
