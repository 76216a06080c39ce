"""The figures ``rnnaudit check`` puts in the report, one function per paper.

Each builds the paper's own experimental cell at its initialisation (seeded), measures it with
the probes in float64 and saves PNGs atomically into ``fig_dir``. Returns (caption, path) pairs.
:data:`PAPER_FIGURES` maps a paper to a :class:`PaperFigures`, which also says how many progress
units its function reports, so the caller can size a progress bar before it starts.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch
from matplotlib.figure import Figure

from rnnaudit.analysis import HEATMAP_RTOL, hidden_jacobian_norms
from rnnaudit.cells import SGORNN, FastRNN
from rnnaudit.figures.heatmap import plot_jacobian_heatmap
from rnnaudit.figures.saving import attach_data, save_figure
from rnnaudit.figures.spectrum import plot_spectrum
from rnnaudit.figures.style import style_context
from rnnaudit.tasks.synthetic import addition_problem

__all__ = ["save_figure", "sgornn_figures", "PaperFigures", "PAPER_FIGURES"]


def _tick(progress) -> None:
    if progress is not None:
        progress(1)


def sgornn_figures(fig_dir: str | os.PathLike, *, seed: int, device: str, profile: str,
                   progress: Callable[[int], None] | None = None) -> list[tuple[str, Path]]:
    """sgornn.md Sec. 3.1 addition-problem setting (n = 2, h = 128, k = 14, ReLU, FastRNN's
    initial gates): ∂h_t/∂h_s heatmaps of SGORNN and FastRNN side by side, and the spectrum of
    U = φ(Θ): eigenvalues on the unit circle, ε-pseudospectra (exact: U is orthogonal, hence
    normal), singular values. T = 100 (quick) or 300 (full).

    Args:
        fig_dir: directory for the PNGs (``str`` or path; created if missing).
        seed: initialisation and input seed. device: ``"cpu"`` or ``"cuda"`` for the Jacobians.
        profile: ``"quick"`` or ``"full"``.
        progress: called with 1 after each of the 4 steps (two Jacobian maps, two figures).

    Returns:
        (caption, path) per figure.
    """
    fig_dir = Path(fig_dir)
    T = 100 if profile == "quick" else 300
    gen = torch.Generator().manual_seed(seed)
    kw = dict(generator=gen, dtype=torch.float64)
    sg = SGORNN(2, 128, k=14, **kw).to(device)
    fast = FastRNN(2, 128, **kw).to(device)
    x = addition_problem(1, T, generator=gen)[0][0].to(device)
    panels = {"SGORNN (VPRNN φ, β ≤ 1 − 2α)": sg, "FastRNN": fast}
    norms = {}
    with torch.no_grad():
        for name, cell in panels.items():
            # a figure: heatmap grade (a relative error below a ninth of one colour level), not the claims' 1e-10
            norms[name] = hidden_jacobian_norms(cell, x, rtol=HEATMAP_RTOL)
            _tick(progress)
    positive = torch.cat([m[m > 0] for m in norms.values()])
    with style_context():
        fig = Figure(figsize=(10, 4), layout="constrained")
        axes = fig.subplots(1, 2)
        for ax, (name, m) in zip(axes, norms.items()):
            plot_jacobian_heatmap(m, title=f"{name}, h = 128, T = {T}", ax=ax, vmin=float(positive.min()),
                                  vmax=float(positive.max()))
    keys = dict(zip(norms, ("sgornn", "fastrnn")))
    label = r"$\|\partial h_t/\partial h_s\|_2$"
    attach_data(fig, {keys[name]: m.detach().cpu().numpy() for name, m in norms.items()},
                labels={keys[name]: f"{label} of {name}, h = 128, T = {T}" for name in norms})
    out = [(f"‖∂h_t/∂h_s‖₂ on one addition-problem sequence (T = {T}) at initialisation",
            save_figure(fig, fig_dir / "sgornn_jacobian_heatmap.png"))]
    _tick(progress)
    with torch.no_grad():
        fig = plot_spectrum(sg.recurrent_matrix(), name=r"$U = \varphi(\Theta)$",
                            role="recurrent matrix of SGORNN (VPRNN φ, h = 128, k = 14) at initialisation")
    out.append(("Eigenvalues of the VPRNN recurrent matrix U = φ(Θ) (sgornn.md eq. 2) on the unit circle, its "
                "ε-pseudospectra (filled log₁₀ ε contours; exact distances to the spectrum, as U is normal) and "
                "its singular values (all 1)",
                save_figure(fig, fig_dir / "sgornn_eigenvalues.png")))
    _tick(progress)
    return out


@dataclass(frozen=True)
class PaperFigures:
    """A paper's figure function and the number of progress units it reports.

    Calling it calls ``make(fig_dir, seed=..., device=..., profile=..., progress=...)``; progress
    is called with 1 after each of ``steps`` steps, e.g. ``tqdm(total=figures.steps).update``.
    """

    make: Callable[..., list[tuple[str, Path]]]
    steps: int

    def __call__(self, fig_dir: str | os.PathLike, *, seed: int, device: str, profile: str,
                 progress: Callable[[int], None] | None = None) -> list[tuple[str, Path]]:
        return self.make(fig_dir, seed=seed, device=device, profile=profile, progress=progress)


#: paper → its figures; papers without one get no figures yet.
PAPER_FIGURES = {"sgornn": PaperFigures(sgornn_figures, steps=4)}
