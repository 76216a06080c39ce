"""Trajectory and comparison plots: recorded quantities with their constraint lines, β visible on the
1 − α line it may sit on, readable labels instead of raw keys, run names instead of paths, and the
task's baseline on loss plots."""

import numpy as np
import pytest

from rnnaudit.figures.trajectory import plot_comparison, plot_trajectory, quantity_label, run_names

STEP = np.array([10.0, 20.0, 30.0])


def _trajectory(**extra):
    t = {"step": STEP, "loss": np.array([0.2, 0.1, 0.05]), "val_loss": np.array([0.3, 0.2, 0.1]),
         "grad/W/max": np.array([1.0, 2.0, 3.0]), "alpha": np.array([0.1, 0.1, 0.1]),
         "beta": np.array([0.8, 0.85, 0.9]), "neumann_condition": np.array([0.1, 0.5, 2.0])}
    t.update(extra)
    return t


def _by_label(ax, start):
    return next(line for line in ax.get_lines() if line.get_label().startswith(start))


def test_trajectory_plot_draws_recorded_quantities_and_constraint_lines():
    t = _trajectory()
    original = {k: v.copy() for k, v in t.items()}
    fig = plot_trajectory(t)
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible()]
    assert "loss" in titles and "Neumann condition (eq. 18)" in titles
    gates = next(ax for ax in fig.axes if ax.get_title().startswith("gates"))
    np.testing.assert_allclose(_by_label(gates, r"$1-\alpha$").get_ydata(), 1 - t["alpha"])  # Theorem 2
    np.testing.assert_allclose(_by_label(gates, r"$1-2\alpha$").get_ydata(), 1 - 2 * t["alpha"])  # eq. 3
    assert all(np.array_equal(t[k], original[k]) for k in t)
    with pytest.raises(ValueError, match="step"):
        plot_trajectory({"loss": np.ones(2)})


def test_beta_stays_visible_where_it_sits_on_the_one_minus_alpha_line():
    """FastRNN-style β = 1 − α exactly: β is drawn above the constraint, thinner and with markers,
    and the constraint is a wider dashed band beneath it, so both can be seen (the old plot drew
    the dashed 1 − α line over β in the same width)."""
    t = _trajectory(beta=np.array([0.9, 0.9, 0.9]))
    gates = next(ax for ax in plot_trajectory(t).axes if ax.get_title().startswith("gates"))
    beta, bound = _by_label(gates, r"$\beta$"), _by_label(gates, r"$1-\alpha$")
    np.testing.assert_allclose(beta.get_ydata(), bound.get_ydata())
    assert beta.get_zorder() > bound.get_zorder()
    assert bound.get_linewidth() >= 2 * beta.get_linewidth()
    assert bound.get_linestyle() != beta.get_linestyle() and beta.get_marker() not in (None, "None", "")
    assert beta.get_color() != bound.get_color()


def test_comparison_has_readable_labels_run_names_and_a_baseline():
    runs = {"runs/sgornn-T1000": _trajectory(), "/home/me/runs/fastrnn-T1000": _trajectory()}
    ax = plot_comparison(runs, "grad/W/max").axes[0]
    assert ax.get_ylabel() == r"$\max\,|\partial L/\partial W|$"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["sgornn-T1000", "fastrnn-T1000"]
    ax = plot_comparison(runs, "val_loss", baselines=1 / 6).axes[0]
    assert ax.get_ylabel() == "validation loss"
    baseline = _by_label(ax, "baseline")
    assert list(baseline.get_ydata()) == [1 / 6, 1 / 6]
    per_run = plot_comparison(runs, "val_loss", baselines={"runs/sgornn-T1000": 0.16,
                                                           "/home/me/runs/fastrnn-T1000": 0.2}).axes[0]
    assert {line.get_label() for line in per_run.get_lines()} >= {"baseline of sgornn-T1000",
                                                                  "baseline of fastrnn-T1000"}
    fig = plot_comparison({"a": _trajectory(), "b": {"step": STEP, "val_loss": np.ones(3)}}, "val_loss")
    assert len(fig.axes[0].get_lines()) == 2
    with pytest.raises(ValueError, match="no run"):
        plot_comparison({"a": _trajectory()}, "nosuchkey")
    with pytest.raises(ValueError, match="baselines"):
        plot_comparison(runs, "val_loss", baselines=float("nan"))


def test_quantity_labels_and_run_names():
    assert quantity_label("grad/U/fro") == r"$\|\partial L/\partial U\|_F$"
    assert quantity_label("grad/Θ/max") == r"$\max\,|\partial L/\partial \Theta|$"
    assert quantity_label("grad/U_u/max") == r"$\max\,|\partial L/\partial U_{u}|$"
    assert quantity_label("loss") == "training loss" and quantity_label("custom/key") == "custom/key"
    assert run_names(["a/run", "b/run", "c/other"]) == {"a/run": "a/run", "b/run": "b/run", "c/other": "other"}
    assert run_names(["SGORNN"]) == {"SGORNN": "SGORNN"}
