"""The figures of ``rnnaudit check``'s report as independent jobs: a paper's tightness plot (from its claims' results)
and its own figures (:data:`rnnaudit.figures.paper_figures.PAPER_FIGURES`, independent of the results), so that the
check's worker processes can draw them beside the claims instead of one process drawing them all at the end.

Each job takes plain data (results.json entries, paths, the seed and the command line) and returns its
``(caption, path)`` pairs; the figure is the same whichever process draws it. :data:`JOBS` names the jobs a worker may
run; nothing else is called by name.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path

__all__ = ["tightness_figure", "paper_figures", "JOBS", "TIGHTNESS_CAPTION"]

#: The caption of a paper's tightness plot in the report ({paper} is its stem).
TIGHTNESS_CAPTION = ("{paper}: worst measured/bound against T for each claim (above the dashed line = the statement "
                     "fails as printed)")


@contextmanager
def _as_command(argv: list[str] | None, seed: int):
    """Within the block, figure metadata names ``argv`` (the check's command line; None: this process's) and ``seed``,
    as they do in the process that runs the check (:func:`rnnaudit.provenance.figure_provenance`)."""
    from rnnaudit.provenance import recorded_seed

    saved = sys.argv
    if argv is not None:
        sys.argv = list(argv)
    try:
        with recorded_seed(seed):
            yield
    finally:
        sys.argv = saved


def tightness_figure(paper: str, claims: list[dict], fig_dir: str | Path, *, seed: int,
                     argv: list[str] | None = None) -> list[tuple[str, Path]]:
    """``fig_dir/<paper>_tightness.png`` (and its .csv) from the paper's results.json entries ``claims``
    (:func:`rnnaudit.figures.tightness.plot_tightness`), drawn once, as it is saved.

    Returns:
        [(caption, path)].
    """
    from rnnaudit.figures.saving import save_figure
    from rnnaudit.figures.style import drawn_when_saved
    from rnnaudit.figures.tightness import plot_tightness

    with _as_command(argv, seed), drawn_when_saved():
        png = save_figure(plot_tightness(claims), Path(fig_dir) / f"{paper}_tightness.png")
    return [(TIGHTNESS_CAPTION.format(paper=paper), png)]


def paper_figures(paper: str, fig_dir: str | Path, *, seed: int, device: str, profile: str,
                  argv: list[str] | None = None, progress=None) -> list[tuple[str, Path]]:
    """The paper's own figures (:data:`rnnaudit.figures.paper_figures.PAPER_FIGURES`; [] for a paper without any).

    Returns:
        [(caption, path)] in the order the paper's function gives them.
    """
    from rnnaudit.figures.paper_figures import PAPER_FIGURES
    from rnnaudit.figures.style import drawn_when_saved

    if paper not in PAPER_FIGURES:
        return []
    with _as_command(argv, seed), drawn_when_saved():
        return PAPER_FIGURES[paper](Path(fig_dir), seed=seed, device=device, profile=profile, progress=progress)


#: job name → function, the jobs :mod:`rnnaudit.claim_workers` runs by name.
JOBS = {"tightness": tightness_figure, "paper_figures": paper_figures}
