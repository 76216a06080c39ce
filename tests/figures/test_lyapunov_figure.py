"""The Lyapunov figure: two panels (exponents with their stated errors, finite-time convergence), styled
without touching the caller's rcParams."""

import matplotlib
import pytest
import torch

from rnnaudit.analysis.lyapunov import lyapunov_spectrum
from rnnaudit.cells import FastRNN
from rnnaudit.figures.lyapunov import plot_lyapunov


@pytest.fixture(scope="module")
def spectrum():
    torch.manual_seed(0)
    cell = FastRNN(2, 4, activation="tanh", dtype=torch.float64)
    return lyapunov_spectrum(cell, torch.randn(60, 2, dtype=torch.float64), k=3, warmup=10, window=10)


def test_two_panels_with_every_finite_exponent_and_the_zero_line(spectrum):
    before = dict(matplotlib.rcParams)
    fig = plot_lyapunov(spectrum, title="FastRNN h = 4")
    exponents, convergence = fig.axes
    assert fig._suptitle.get_text() == "FastRNN h = 4"
    (bars,) = exponents.containers
    assert len(bars.lines[0].get_xdata()) == 3
    assert [line.get_ydata()[0] for line in exponents.get_lines() if line.get_linestyle() == "--"] == [0.0]
    assert len([line for line in convergence.get_lines() if line.get_label().startswith("$")]) == 3
    assert dict(matplotlib.rcParams) == before


def test_an_axes_is_refused(spectrum):
    with pytest.raises(ValueError, match="ax must be None"):
        plot_lyapunov(spectrum, ax=object())


def test_minus_infinite_exponents_are_drawn_on_the_lower_edge_and_labelled():
    from torch import nn
    rnn = nn.RNN(1, 3, batch_first=True, dtype=torch.float64, nonlinearity="relu", bias=False).eval()
    with torch.no_grad():
        rnn.weight_hh_l0.copy_(torch.diag(torch.tensor([-1.0, 0.5, 0.9], dtype=torch.float64)))
    res = lyapunov_spectrum(rnn, torch.zeros(40, 1, dtype=torch.float64), h0=torch.ones(3, dtype=torch.float64),
                            window=10)
    assert res.exponents[-1] == -float("inf")
    fig = plot_lyapunov(res)
    exponents, convergence = fig.axes
    (marks,) = exponents.collections[-1:]
    assert marks.get_offsets().shape[0] == 1 and marks.get_offsets()[0][0] == 3  # at i = 3, the −∞ one
    assert [t.get_text() for t in exponents.texts] == ["$-\\infty$"]
    assert "singular product" in marks.get_label()
    assert convergence.collections[-1].get_offsets().shape[0] == 4  # λ_3 is −∞ in all 4 windows
