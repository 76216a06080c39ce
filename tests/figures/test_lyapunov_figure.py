"""The Lyapunov figure: two panels (exponents with ±2 standard errors, finite-time convergence), styled
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
