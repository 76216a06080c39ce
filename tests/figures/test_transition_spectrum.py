"""The unit-disk figure of an input-dependent diagonal transition (a selective SSM's Ā_t = exp(Δ_t A))."""

import numpy as np
import pytest
import torch

from rnnaudit.cells import SelectiveSSM
from rnnaudit.figures.saving import figure_data
from rnnaudit.figures.transition_spectrum import MAX_POINTS, plot_transition_spectrum


def test_the_figure_keeps_every_abar_t_and_its_per_step_moduli():
    cell = SelectiveSSM(3, 4, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    x = torch.randn(2, 9, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    Abar = cell.transition(x).detach()
    data = figure_data(plot_transition_spectrum(Abar))
    assert np.array_equal(data["Abar_t__eigenvalues"].real, Abar.numpy())
    assert np.allclose(data["Abar_t__max_modulus"], Abar.abs().amax(dim=(0, 2)).numpy(), rtol=0, atol=0)
    assert ((0 < data["Abar_t__min_modulus"]) & (data["Abar_t__max_modulus"] < 1)).all()  # Δ_t > 0, A < 0


def test_beyond_max_points_a_stated_subset_of_steps_is_drawn_and_all_are_kept():
    a = torch.rand(1, MAX_POINTS // 2 + 1, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    fig = plot_transition_spectrum(a)
    legend = [t.get_text() for ax in fig.axes for lg in [ax.get_legend()] if lg for t in lg.get_texts()]
    assert any("one step in 3" in t for t in legend), legend
    assert figure_data(fig)["Abar_t__eigenvalues"].shape == tuple(a.shape)


@pytest.mark.parametrize("bad", [torch.full((1, 3, 2), float("nan")), torch.ones(3, 2), torch.ones(0, 3, 2)])
def test_non_finite_or_misshapen_eigenvalues_are_refused(bad):
    with pytest.raises(ValueError, match=r"\(m, T, K\)"):
        plot_transition_spectrum(bad)
