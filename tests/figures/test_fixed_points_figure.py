"""The fixed-point figure: one unit-circle panel per point with that point's Jacobian eigenvalues, its data
saved beside it, and the empty case said in words."""

import matplotlib
import numpy as np
import pytest
import torch

from rnnaudit.analysis.fixed_points import find_fixed_points
from rnnaudit.figures.fixed_points import plot_fixed_points
from rnnaudit.figures.saving import figure_data

F64 = torch.float64


def _tanh_unit(w: float) -> torch.nn.RNN:
    rnn = torch.nn.RNN(1, 1, bias=False, batch_first=True, dtype=F64)
    with torch.no_grad():
        rnn.weight_hh_l0.fill_(w)
        rnn.weight_ih_l0.fill_(1.0)
    return rnn


@pytest.fixture(scope="module")
def pitchfork():
    x = torch.randn(6, 40, 1, generator=torch.Generator().manual_seed(0), dtype=F64)
    return find_fixed_points(_tanh_unit(1.5), x, n_starts=24)


def test_one_panel_per_point_with_its_eigenvalues_and_the_unit_circle(pitchfork):
    before = dict(matplotlib.rcParams)
    fig = plot_fixed_points(pitchfork, title="tanh(1.5 h)")
    panels = [a for a in fig.axes if a.axison]
    assert len(panels) == len(pitchfork) == 3
    for i, a in enumerate(panels):
        (dots,) = a.collections
        assert np.allclose(dots.get_offsets()[:, 0], pitchfork.eigenvalues[i].real.numpy())
        circle = [line for line in a.get_lines() if line.get_label() == "unit circle"]
        assert len(circle) == 1 and np.allclose(np.hypot(*circle[0].get_data()), 1.0)
        assert pitchfork.stability[i] in a.get_title()
    assert "unstable, 1 unstable direction" in " ".join(a.get_title() for a in panels)
    assert np.array_equal(figure_data(fig)["eigenvalues"], pitchfork.eigenvalues.numpy())
    assert dict(matplotlib.rcParams) == before


def test_more_points_than_panels_are_counted_in_the_title(pitchfork):
    fig = plot_fixed_points(pitchfork, max_points=2)
    assert len([a for a in fig.axes if a.axison]) == 2 and "first 2 of 3 points" in fig._suptitle.get_text()


def test_no_point_found_is_said_on_the_figure():
    x = torch.randn(2, 10, 1, generator=torch.Generator().manual_seed(0), dtype=F64)
    empty = find_fixed_points(_tanh_unit(0.5), x, n_starts=4, max_iter=1, newton_steps=0, slow_fraction=1e-12)
    assert len(empty) == 0
    fig = plot_fixed_points(empty)
    assert any("no fixed or slow point found" in t.get_text() for a in fig.axes for t in a.texts)


@pytest.mark.parametrize("kwargs", [{"max_points": 0}, {"ax": object()}])
def test_bad_arguments_are_refused(pitchfork, kwargs):
    with pytest.raises(ValueError):
        plot_fixed_points(pitchfork, **kwargs)
