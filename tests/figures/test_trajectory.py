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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


def _lstm_like_trajectory(n=100, every=20):
    """An LSTM monitor run: 16 gradient roles every step, the Jacobian summary every ``every`` steps (NaN between)."""
    rng = np.random.default_rng(0)
    t = {"step": np.arange(n) * 10.0, "loss": np.linspace(1.0, 0.2, n)}
    for gate in "ifgo":
        for matrix in ("W_h", "W_i", "b_h", "b_i"):
            t[f"grad/{matrix}{gate}/max"] = rng.random(n) + (10.0 if matrix == "W_h" else 0.1)
    jm = np.full(n, np.nan)
    jm[::every] = np.geomspace(0.84, 62.2, len(jm[::every]))
    t["jacobian/max"] = jm
    return t


@pytest.mark.slow
def test_a_sparse_series_shows_every_recorded_point_with_its_marker():
    """jacobian/max recorded every 20 steps, NaN between: markevery on the full series landed on NaN and showed
    only step 0; now every one of the 5 records is drawn, with a marker."""
    from rnnaudit.figures.trajectory import plot_trajectory

    t = _lstm_like_trajectory()
    fig = plot_trajectory(t)
    ax = next(a for a in fig.axes if "probe sequence" in a.get_title())
    (line,) = [ln for ln in ax.get_lines() if ln.get_label() == "jacobian/max"]
    np.testing.assert_array_equal(line.get_xdata(), t["step"][::20])
    np.testing.assert_allclose(line.get_ydata(), t["jacobian/max"][::20])
    assert line.get_marker() not in (None, "", "None") and line.get_markevery() == 1


@pytest.mark.slow
def test_sixteen_gradient_roles_are_drawn_as_four_groups():
    from rnnaudit.figures.trajectory import gradient_groups, plot_trajectory

    t = _lstm_like_trajectory()
    keys = sorted(k for k in t if k.startswith("grad/"))
    groups = gradient_groups(keys)
    assert sorted(groups) == ["W_h·", "W_i·", "b_h·", "b_i·"] and all(len(v) == 4 for v in groups.values())
    ax = next(a for a in plot_trajectory(t).axes if "grouped by role" in a.get_title())
    curves = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
    assert len(curves) == 4
    w_h = next(ln for ln in curves if "W_hf" in ln.get_label())
    np.testing.assert_allclose(w_h.get_ydata(), np.max([t[k] for k in groups["W_h·"]], axis=0))
    # layers stay apart, and a few roles of our own cells keep a curve each
    assert gradient_groups(["grad/l1.W_hg/max", "grad/W_hg/max"]) == {"l1.W_h·": ["grad/l1.W_hg/max"],
                                                                         "W_h·": ["grad/W_hg/max"]}
    few = {"step": t["step"], "grad/U/max": t["grad/W_hi/max"], "grad/W/max": t["grad/W_ii/max"]}
    assert len([ln for ln in plot_trajectory(few).axes[0].get_lines() if ln.get_label().startswith("$")]) == 2


def test_the_trajectory_figure_keeps_its_numbers_for_the_csv():
    from rnnaudit.figures.saving import figure_data
    from rnnaudit.figures.trajectory import plot_trajectory

    t = _lstm_like_trajectory()
    data = figure_data(plot_trajectory(t))
    assert set(data) == set(t) and np.array_equal(data["jacobian/max"], t["jacobian/max"], equal_nan=True)
