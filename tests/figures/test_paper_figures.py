"""The figures ``rnnaudit check`` draws per paper report their progress, as many units as they
announce, so the figure stage can have a progress bar; they accept a str directory."""

import torch

import rnnaudit.figures.paper_figures as paper_figures
from rnnaudit.figures.paper_figures import PAPER_FIGURES, PaperFigures


def test_sgornn_figures_report_as_many_steps_as_they_announce(tmp_path, monkeypatch):
    # the Jacobian maps are tested in tests/analysis; a small map keeps this test fast
    monkeypatch.setattr(paper_figures, "hidden_jacobian_norms",
                        lambda cell, x: torch.tril(torch.rand(6, 6, dtype=torch.float64)) + 0.1)
    seen = []
    figures = PAPER_FIGURES["sgornn"](str(tmp_path / "figs"), seed=0, device="cpu", profile="quick",
                                      progress=seen.append)
    assert isinstance(PAPER_FIGURES["sgornn"], PaperFigures)
    assert seen == [1] * PAPER_FIGURES["sgornn"].steps
    assert [p.name for _, p in figures] == ["sgornn_jacobian_heatmap.png", "sgornn_eigenvalues.png"]
    assert all(p.stat().st_size > 10_000 for _, p in figures)
    assert "exact distances" in figures[1][0]
    # without a callback nothing is reported and nothing fails
    assert len(PAPER_FIGURES["sgornn"](tmp_path, seed=0, device="cpu", profile="quick")) == 2
