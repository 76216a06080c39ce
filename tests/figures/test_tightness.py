"""The tightness plot: every claim drawn, ∞ ratios shown on the top edge (results.json writes them
"inf"; nc_gru.theorem1 has them at T = 4, 8, 10), T-independent claims (parameter and flop counts,
every record at T = 1) in their own panel, and ≥ 20 claims in distinct colour–marker pairs."""

import numpy as np
import pytest
from matplotlib.colors import to_hex

from rnnaudit.figures import plot_tightness
from rnnaudit.figures.tightness import is_T_independent, ratio_value

CLAIMS = [{"id": "a.x", "verdict": "holds", "tightness": {"by_T": {"1": 0.5, "10": 0.9}, "by_h": {"4": 0.9}}},
          {"id": "nc_gru.theorem1", "verdict": "false",
           "tightness": {"by_T": {"2": 0.5, "4": "inf", "8": "inf", "10": "inf"}, "by_h": {"4": "inf"}}},
          {"id": "a.z", "verdict": "holds", "tightness": {"by_T": {}, "by_h": {}}},
          {"id": "spectral_rnn.param_count", "verdict": "false", "tightness": {"by_T": {"1": 1312.0},
                                                                                   "by_h": {"8": 1312.0}}}]


def _lines(ax, gid=None):
    return [line for line in ax.get_lines() if gid is None or line.get_gid() == gid]


def test_infinite_ratios_sit_on_the_top_edge_labelled_infinity():
    fig = plot_tightness(CLAIMS)
    ax = fig.axes[0]
    (inf,) = _lines(ax, "ratio-infinite")
    assert list(inf.get_xdata()) == [4, 8, 10]
    top = ax.get_window_extent().y1
    ys = inf.get_transform().transform(np.column_stack([inf.get_xdata(), inf.get_ydata()]))[:, 1]
    np.testing.assert_allclose(ys, top, atol=1.0)  # on the top edge of the axes, whatever the y limits
    assert not inf.get_clip_on()
    assert any(t.get_text() == "∞" for t in ax.texts)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "nc_gru.theorem1 (false)" in legend and any("ratio = ∞" in t for t in legend)
    # the finite point of the same claim, in the same colour and marker as its ∞ points
    finite = next(line for line in _lines(ax) if line.get_label() == "nc_gru.theorem1 (false)")
    assert list(finite.get_xdata()) == [2]
    assert (finite.get_color(), finite.get_marker()) == (inf.get_color(), inf.get_marker())
    assert CLAIMS[1]["tightness"]["by_T"]["4"] == "inf"  # the input is not modified


def test_T_independent_claims_get_their_own_panel():
    fig = plot_tightness(CLAIMS)
    main, flat = fig.axes
    assert main.get_xlabel() == "sequence length $T$"
    assert "do not depend on $T$" in flat.get_title()
    assert [t.get_text() for t in flat.get_yticklabels()] == ["param_count"]
    (point,) = [line for line in _lines(flat) if line.get_linestyle() == "None" and len(line.get_xdata())]
    assert list(point.get_xdata()) == [1312.0]
    # nothing of it on the T axis
    assert all("param_count" not in line.get_label() for line in _lines(main))
    assert is_T_independent(CLAIMS[3]) and not is_T_independent(CLAIMS[0])
    # by h there is no such split: one panel
    assert len(plot_tightness(CLAIMS, by="h").axes) == 1


def test_each_claim_is_drawn_with_the_ratio_one_line():
    fig = plot_tightness(CLAIMS)
    ax = fig.axes[0]
    ax_x = next(line for line in _lines(ax) if line.get_label() == "a.x (holds)")
    assert list(ax_x.get_xdata()) == [1, 10] and list(ax_x.get_ydata()) == [0.5, 0.9]
    one = next(line for line in _lines(ax) if line.get_label() == "measured = bound")
    assert list(one.get_ydata()) == [1.0, 1.0]
    lo, hi = ax.get_ylim()
    assert lo < 0.5 and hi > 1.0


def test_twenty_claims_get_twenty_distinct_colour_marker_pairs():
    """With more than 10 claims the old palette and marker list both repeated after 10, so claims
    10 apart (spectral_rnn.theorem1 and eq13.corrected) were both blue circles."""
    claims = [{"id": f"p.c{i}", "verdict": "holds", "tightness": {"by_T": {"5": 0.1 + 0.01 * i, "50": 0.2}}}
              for i in range(24)]
    ax = plot_tightness(claims).axes[0]
    pairs = {(to_hex(line.get_color()), line.get_marker()) for line in _lines(ax) if line.get_label().startswith("p.")}
    assert len(pairs) == 24


def test_ratio_values_and_bad_input():
    assert ratio_value("inf") == np.inf and ratio_value(2) == 2.0
    assert ratio_value(None) is None and ratio_value(float("nan")) is None and ratio_value("x") is None
    with pytest.raises(ValueError, match="by"):
        plot_tightness(CLAIMS, by="m")
    with pytest.raises(ValueError, match="tightness"):
        plot_tightness([{"id": "q", "verdict": "holds"}])


def test_the_names_of_many_T_independent_claims_do_not_overlap():
    """26 claims in a narrow panel with rotated names ran into each other (spectral_rnn's report)."""
    claims = [{"id": f"spectral_rnn.claim_with_a_long_name_{i}", "verdict": "holds",
               "tightness": {"by_T": {"1": 10.0 ** (i % 7 - 3)}}} for i in range(26)]
    fig = plot_tightness(claims + [CLAIMS[0]])
    fig.canvas.draw()
    flat = fig.axes[1]
    boxes = [t.get_window_extent() for t in flat.get_yticklabels() if t.get_text()]
    assert len(boxes) == 26
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    # nor do they run into the curves' panel or its legend
    main = fig.axes[0]
    right_of_main = max(main.get_window_extent().x1, main.get_legend().get_window_extent().x1)
    assert min(b.x0 for b in boxes) > right_of_main


def test_the_tightness_figure_keeps_every_ratio_for_the_csv():
    from rnnaudit.figures.saving import figure_data

    data = figure_data(plot_tightness(CLAIMS))
    assert list(data) == ["claim", "T", "worst_measured_over_bound"]
    rows = list(zip(data["claim"], data["T"], data["worst_measured_over_bound"]))
    assert ("nc_gru.theorem1", 4, np.inf) in rows and ("a.x", 10, 0.9) in rows
