"""Plots of a training run's recorded trajectory (rnnaudit.training.read_trajectory) and
side-by-side comparisons across runs (as sgornn.md Fig. 1–3 compare SGORNN, FastRNN, VPRNN)."""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Mapping
from pathlib import PurePath

import numpy as np
from matplotlib.figure import Figure

from rnnaudit.figures.escaping import mpl_text
from rnnaudit.figures.saving import attach_data
from rnnaudit.figures.style import COLORS, REFERENCE_COLOR, series_style, styled

__all__ = ["plot_trajectory", "plot_comparison", "quantity_label", "run_names", "gradient_groups", "TRAJECTORY_PANELS",
           "MAX_GRADIENT_CURVES"]

#: Above this many gradient roles (an LSTM has 16: four gates of W_h·, W_i·, b_h·, b_i·) the gradient panel
#: draws one curve per group of roles (:func:`gradient_groups`), with the group's range shaded around it.
MAX_GRADIENT_CURVES = 6

#: Panels drawn when their keys are present: (title, keys, y label, reference line or None, log y).
TRAJECTORY_PANELS = (
    ("loss", ("loss", "val_loss"), "loss", None, True),
    ("gradient max-norms by role", None, r"$\max\,|\partial L/\partial P|$", None, True),
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

#: Readable names of the recorded keys (rnnaudit.training.read_trajectory).
QUANTITY_LABELS = {
    "loss": "training loss",
    "val_loss": "validation loss",
    "grad_h0": r"$\|\partial L/\partial h_0\|_2$",
    "spectral_radius": r"spectral radius $\rho$",
    "spectral_norm": r"spectral norm $\|\cdot\|_2$",
    "orthogonality_defect": r"$\|U^\top U - I\|_2$",
    "alpha": r"$\alpha$",
    "beta": r"$\beta$",
    "sigma_min": r"$\sigma_{\min}$",
    "sigma_max": r"$\sigma_{\max}$",
    "neumann_condition": r"Neumann condition $\|(I+A)^{-1}\delta A\|_2$",
}

_GREEK = {"Θ": r"\Theta", "θ": r"\theta", "α": r"\alpha", "β": r"\beta", "φ": r"\varphi", "σ": r"\sigma",
          "Λ": r"\Lambda", "λ": r"\lambda"}


def _role_tex(role: str) -> str:
    """A parameter role (``W``, ``U_u``, ``Θ``, ``W^(S)``) as mathtext."""
    tex = "".join(_GREEK.get(ch, ch) for ch in role)
    tex = re.sub(r"_(\w+)", r"_{\1}", tex)
    tex = re.sub(r"\^\(([^)]*)\)", r"^{(\1)}", tex)
    return tex


def quantity_label(key: str) -> str:
    """Readable label of a recorded key: ``grad/W/max`` → "max |∂L/∂W|", ``grad/U/fro`` →
    "‖∂L/∂U‖_F", ``val_loss`` → "validation loss"; an unknown key is returned as it is."""
    m = re.fullmatch(r"grad/(.+)/(max|fro)", key)
    if m:
        role = _role_tex(m.group(1))
        return (rf"$\max\,|\partial L/\partial {role}|$" if m.group(2) == "max"
                else rf"$\|\partial L/\partial {role}\|_F$")
    return QUANTITY_LABELS.get(key, key)


def run_names(labels) -> dict[str, str]:
    """Short, distinct names for runs labelled by their directory paths: the last path component,
    or as many trailing components as it takes to tell two runs apart (``a/run`` and ``b/run``).
    Labels that are not paths are kept."""
    labels = [str(label) for label in labels]
    parts = {label: PurePath(label).parts or (label,) for label in labels}
    names = {}
    for label in labels:
        for k in range(1, len(parts[label]) + 1):
            name = "/".join(parts[label][-k:])
            clash = [o for o in labels if o != label and "/".join(parts[o][-k:]) == name]
            if not clash:
                break
        names[label] = name
    return names


def _present(trajectory: dict, keys) -> list[str]:
    """The panel's keys the run recorded; a quantity recorded per recurrent matrix (``spectral_radius/W_hz``,
    a model with several) stands for its plain key when that is absent."""
    out = []
    for k in keys:
        found = [k] if k in trajectory else sorted(r for r in trajectory if r.startswith(k + "/"))
        out += [r for r in found if np.isfinite(trajectory[r]).any()]
    return out


#: Line styles of the series in one panel, so that equal series (ρ = ‖U‖₂ = 1) stay distinguishable.
_LINESTYLES = ("-", "--", ":", "-.")


def _marks(n: int) -> dict:
    """Small markers on at most about 30 points, so a dense trajectory stays a line."""
    return {"markersize": 3.0, "markevery": max(1, n // 30)}


#: A sparse series with at most this many recorded points gets a marker on every one of them.
_ALL_MARKERS = 60


def _plot_series(ax, step, values, raw=None, **kwargs) -> None:
    """Plot one recorded series. A sparse one (the Jacobian summary and the Lyapunov exponent are recorded
    every ``summary_every`` steps, NaN in between) is drawn through its recorded points only, each with its
    own marker: thinning the markers of the full-length series (``markevery``) let them land on NaN and
    showed only step 0. ``raw`` is the series as recorded, when ``values`` was masked for a log axis."""
    recorded = np.isfinite(values if raw is None else raw)
    if recorded.all():
        ax.plot(step, values, **kwargs, **_marks(len(step)))
        return
    step, values = np.asarray(step)[recorded], np.asarray(values)[recorded]
    marks = {"markersize": 3.5, "markevery": 1} if len(step) <= _ALL_MARKERS else _marks(len(step))
    ax.plot(step, values, **kwargs, **marks)


def _role_group(role: str) -> str:
    """The group of a parameter role: torch's gate blocks by matrix (``W_hi``, ``W_hf`` → ``W_h·``; ``b_ii``
    → ``b_i·``), other subscripted roles by their letter (``U_r``, ``U_u``, ``U_c`` → ``U_·``), each layer
    apart (``l1.W_hg`` → ``l1.W_h·``); a role without a subscript is its own group."""
    layer, dot, name = role.rpartition(".")
    m = re.fullmatch(r"([Wb])_([hi])[a-z]", name)
    if m:
        group = f"{m.group(1)}_{m.group(2)}·"
    else:
        m = re.fullmatch(r"([^_]+)_.+", name)
        group = f"{m.group(1)}_·" if m else name
    return f"{layer}{dot}{group}"


def gradient_groups(keys) -> dict[str, list[str]]:
    """``grad/<role>/max`` keys grouped by role (:func:`_role_group`), groups and members in first-seen order.

    Args:
        keys: iterable of trajectory keys of the form ``grad/<role>/max``.

    Returns:
        group label (``"W_h·"``, ``"l1.b_i·"``, ``"U_·"``) → the keys in it.
    """
    groups: dict[str, list[str]] = {}
    for key in keys:
        groups.setdefault(_role_group(key[len("grad/"):-len("/max")]), []).append(key)
    return groups


def _draw_gradient_groups(ax, step, trajectory, keys) -> None:
    """One curve per group of roles, the largest member at each step, with the range of the members shaded."""
    for i, (group, members) in enumerate(gradient_groups(keys).items()):
        stack = np.vstack([trajectory[k] for k in members]).astype(float)
        stack = np.where(stack > 0, stack, np.nan)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns: steps no member recorded
            hi, lo = np.nanmax(stack, axis=0), np.nanmin(stack, axis=0)
        style = series_style(i)
        names = ", ".join(k[len("grad/"):-len("/max")] for k in members)
        label = (f"max over {_role_tex_label(group)} ({len(members)}: {names})" if len(members) > 1
                 else quantity_label(members[0]))
        _plot_series(ax, step, hi, lw=1.1, ls=_LINESTYLES[i % len(_LINESTYLES)], label=label, **style)
        if len(members) > 1:
            ok = np.isfinite(lo) & np.isfinite(hi)
            ax.fill_between(np.asarray(step)[ok], lo[ok], hi[ok], color=style["color"], alpha=0.15, lw=0, zorder=1)


def _role_tex_label(group: str) -> str:
    return rf"${_role_tex(group.replace('·', ''))}\cdot$" if "·" in group else f"${_role_tex(group)}$"


def _draw_gates(ax, step, trajectory) -> None:
    """β, with 1 − α (Theorem 2) and 1 − 2α (eq. 3), so that β on a constraint line stays visible:
    the constraints are wide, pale bands underneath; β is a thin solid line with markers on top."""
    alpha = trajectory["alpha"]
    band = dict(lw=5.0, alpha=0.45, zorder=2, solid_capstyle="butt")
    ax.plot(step, 1 - alpha, ls="-", color=COLORS[2], label=r"$1-\alpha$ (Theorem 2)", **band)
    ax.plot(step, 1 - 2 * alpha, ls=(0, (1.5, 1.0)), color=COLORS[4], label=r"$1-2\alpha$ (eq. 3)", **band)
    ax.plot(step, alpha, lw=1.0, zorder=3, label=r"$\alpha$", **series_style(0), **_marks(len(step)))
    if "beta" in trajectory:
        ax.plot(step, trajectory["beta"], lw=1.0, ls="--", zorder=4, label=r"$\beta$", **series_style(1),
                **_marks(len(step)))


@styled
def plot_trajectory(trajectory: dict, *, title: str = ""):
    """One panel per recorded quantity group, against the training step.

    Args:
        trajectory: key → 1-D array, with ``step`` (from :func:`rnnaudit.training.read_trajectory`).
        title: figure title.

    Returns:
        The matplotlib Figure; panels whose quantities the run did not record are omitted. In the
        gates panel β is drawn over the constraint lines 1 − α and 1 − 2α, which are wider and
        dashed, so β sitting on a constraint and β crossing it are both visible.

    Raises:
        ValueError: no ``step`` key, or arrays of different lengths.
    """
    if "step" not in trajectory:
        raise ValueError("trajectory must contain 'step' (use rnnaudit.training.read_trajectory)")
    n = len(trajectory["step"])
    if any(len(v) != n for v in trajectory.values()):
        raise ValueError("all trajectory arrays must have the length of 'step'")
    grad_keys = sorted(k for k in trajectory if k.startswith("grad/") and k.endswith("/max"))
    panels = []
    for name, keys, ylabel, ref, logy in TRAJECTORY_PANELS:
        present = _present(trajectory, grad_keys if keys is None else keys)
        if present:
            panels.append((name, present, ylabel, ref, logy))
    cols = 2
    rows = max(1, math.ceil(len(panels) / cols))
    fig = Figure(figsize=(10, 2.8 * rows), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False)
    step = trajectory["step"]
    for ax, (name, keys, ylabel, ref, logy) in zip(axes.flat, panels):
        if "alpha" in keys:
            _draw_gates(ax, step, trajectory)
        elif keys == grad_keys and len(keys) > MAX_GRADIENT_CURVES:
            _draw_gradient_groups(ax, step, trajectory, keys)
            name = "gradient max-norms, grouped by role (range shaded)"
        else:
            for i, key in enumerate(keys):
                values = trajectory[key]
                if logy:
                    values = np.where(values > 0, values, np.nan)
                _plot_series(ax, step, values, trajectory[key], lw=1.1, ls=_LINESTYLES[i % len(_LINESTYLES)],
                             label=quantity_label(key), **series_style(i))
        if ref is not None:
            ax.axhline(ref, color=REFERENCE_COLOR, lw=1, ls="--", zorder=1)
        if logy:
            ax.set_yscale("log")
        ax.set_title(name)
        ax.set_xlabel("training step")
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=6.5, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    if title:
        fig.suptitle(title)
    attach_data(fig, {k: np.asarray(v) for k, v in trajectory.items() if np.asarray(v).ndim == 1})
    return fig


@styled
def plot_comparison(runs: Mapping[str, dict], key: str, *, log: bool = True, baselines=None, ax=None):
    """One recorded quantity against the step for several runs (e.g. SGORNN vs FastRNN vs VPRNN).

    Args:
        runs: label → trajectory dict (:func:`rnnaudit.training.read_trajectory`); a label that is a
            run directory's path is shown as its name (:func:`run_names`).
        key: e.g. ``"val_loss"`` or ``"grad/W/max"``; the axis reads :func:`quantity_label`.
        log: logarithmic y axis.
        baselines: the loss of the trivial predictor, one number for all runs or label → number
            (rnnaudit.tasks.task_baseline; a run's ``run.json`` summary holds it), drawn as a dashed
            line in the run's colour; None for none.
        ax: Axes to draw into; a new figure if None.

    Returns:
        The matplotlib Figure.

    Raises:
        ValueError: no run records ``key``; a baseline that is not a finite number.
    """
    with_key = {label: t for label, t in runs.items() if key in t}
    if not with_key:
        raise ValueError(f"no run records {key!r}; recorded keys: {sorted({k for t in runs.values() for k in t})}")
    if baselines is None:
        baselines = {}
    elif not isinstance(baselines, Mapping):
        baselines = {label: baselines for label in with_key}
    for label, b in baselines.items():
        if isinstance(b, bool) or not isinstance(b, (int, float)) or not math.isfinite(b):
            raise ValueError(f"baselines must be finite numbers, got {b!r} for {label!r}")
    if ax is None:
        fig = Figure(figsize=(6.4, 4.0), layout="constrained")
        ax = fig.subplots()
    else:
        fig = ax.figure
    names = run_names(with_key)
    shown = {label: mpl_text(name) for label, name in names.items()}  # a run directory's name is never mathtext
    shared = len(set(baselines.values())) == 1 and set(baselines) >= set(with_key)
    for i, (label, t) in enumerate(with_key.items()):
        style = series_style(i)
        values = np.where(t[key] > 0, t[key], np.nan) if log else t[key]
        _plot_series(ax, t["step"], values, t[key], lw=1.1, ls=_LINESTYLES[i % len(_LINESTYLES)],
                     label=shown[label], **style)
        if label in baselines and not shared:
            ax.axhline(baselines[label], color=style["color"], ls="--", lw=1, zorder=1,
                       label=f"baseline of {shown[label]}")
    if shared:
        ax.axhline(next(iter(baselines.values())), color=REFERENCE_COLOR, ls="--", lw=1.1, zorder=1,
                   label="baseline (trivial predictor)")
    if log:
        ax.set_yscale("log")
    ax.set_xlabel("training step")
    ax.set_ylabel(quantity_label(key))
    ax.legend()
    data = {}
    for label, t in with_key.items():
        data[f"{names[label]}: step"], data[f"{names[label]}: {key}"] = np.asarray(t["step"]), np.asarray(t[key])
    attach_data(fig, data)
    return fig
