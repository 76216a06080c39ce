"""The figures ``rnnaudit check`` puts in the report, one function per paper.

Each builds the paper's own experimental cell at its initialisation (seeded), measures it with
the probes in float64 and saves PNGs atomically into ``fig_dir``. Returns (caption, path) pairs.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import torch

from rnnaudit.analysis import hidden_jacobian_norms
from rnnaudit.atomic import atomic_path
from rnnaudit.tasks.synthetic import addition_problem
from rnnaudit.cells import SGORNN, FastRNN
from rnnaudit.figures.heatmap import plot_jacobian_heatmap
from rnnaudit.figures.spectrum import plot_spectrum

__all__ = ["save_figure", "sgornn_figures", "PAPER_FIGURES"]


def save_figure(fig, path: Path) -> Path:
    """Save a matplotlib figure to ``path`` (format from its suffix) atomically, then close it."""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=path.suffix.lstrip("."))
    plt.close(fig)
    return path


def sgornn_figures(fig_dir: Path, *, seed: int, device: str, profile: str) -> list[tuple[str, Path]]:
    """sgornn.md Sec. 3.1 addition-problem setting (n = 2, h = 128, k = 14, ReLU, FastRNN's
    initial gates): ∂h_t/∂h_s heatmaps of SGORNN and FastRNN side by side, and the spectrum of
    φ(Θ): eigenvalues on the unit circle, ε-pseudospectra, singular values. T = 100 (quick) or 300 (full)."""
    T = 100 if profile == "quick" else 300
    gen = torch.Generator().manual_seed(seed)
    kw = dict(generator=gen, dtype=torch.float64)
    sg = SGORNN(2, 128, k=14, **kw).to(device)
    fast = FastRNN(2, 128, **kw).to(device)
    x = addition_problem(1, T, generator=gen)[0][0].to(device)
    panels = {"SGORNN (VPRNN φ, β ≤ 1 − 2α)": sg, "FastRNN": fast}
    with torch.no_grad():
        norms = {name: hidden_jacobian_norms(cell, x) for name, cell in panels.items()}
    positive = torch.cat([m[m > 0] for m in norms.values()])
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
    for ax, (name, m) in zip(axes, norms.items()):
        plot_jacobian_heatmap(m, title=f"{name}, h = 128, T = {T}", ax=ax, vmin=float(positive.min()),
                              vmax=float(positive.max()))
    out = [(f"‖∂h_t/∂h_s‖₂ on one addition-problem sequence (T = {T}) at initialisation",
            save_figure(fig, fig_dir / "sgornn_jacobian_heatmap.png"))]
    with torch.no_grad():
        fig = plot_spectrum(sg.recurrent_matrix(), title="U = φ(Θ), VPRNN, h = 128, k = 14")
    out.append(("Eigenvalues of the VPRNN recurrent matrix U = φ(Θ) (sgornn.md eq. 2) on the unit circle, its "
                "ε-pseudospectra (discs, as U is normal) and its singular values (all 1)",
                save_figure(fig, fig_dir / "sgornn_eigenvalues.png")))
    return out


#: paper → figure function; papers without one get no figures yet.
PAPER_FIGURES = {"sgornn": sgornn_figures}
