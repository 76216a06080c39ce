"""``rnnaudit check`` as a library function: every claim of the chosen papers, the figures and the
report, with the CLI only parsing arguments and printing."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import torch

from rnnaudit.bounds import CLAIMS_BY_PAPER, PAPERS, PROFILES, ClaimResult, Profile, check_claim, coverage
from rnnaudit.outputs import replaced_directory
from rnnaudit.provenance import provenance

__all__ = ["CheckRun", "check"]


@dataclass
class CheckRun:
    """What :func:`check` produced.

    Attributes:
        results: one :class:`rnnaudit.bounds.ClaimResult` per claim, papers in the order asked.
        document: the results.json object (:func:`rnnaudit.figures.report.results_document`);
            ``None`` when nothing was written (``out_dir=None``).
        out_dir: where the report went, or None.
        skipped_papers: papers asked for that have no claims.
    """

    results: list[ClaimResult]
    document: dict | None
    out_dir: Path | None
    skipped_papers: list[str]

    @property
    def failing(self) -> list[ClaimResult]:
        """The results that fail as printed: verdict ``false`` or ``misprinted`` (docs/verdicts.md)."""
        return [r for r in self.results if r.fails]

    @property
    def violated(self) -> list[ClaimResult]:
        """:attr:`failing`, under the name it had before ``violated`` split into ``false`` and ``misprinted``."""
        return self.failing

    def with_verdict(self, *verdicts: str) -> list[ClaimResult]:
        """The results whose verdict is one of ``verdicts``, e.g. ``run.with_verdict("false")``."""
        return [r for r in self.results if r.verdict in verdicts]


def check(papers: list[str] | tuple[str, ...] | None = None, *, profile: str | Profile = "quick", seed: int = 0,
          device: str = "cpu", out_dir: str | Path | None = None, progress: bool = True) -> CheckRun:
    """Check every claim of ``papers`` in float64 and, with ``out_dir``, write the report.

    Args:
        papers: paper stems (:data:`rnnaudit.bounds.PAPERS`); None means all five.
        profile: ``"quick"``, ``"full"`` or a :class:`rnnaudit.bounds.Profile` (search effort).
        seed: base seed (each claim derives its own generator from it and its id).
        device: ``"cpu"`` or ``"cuda"``.
        out_dir: directory for results.json, report.md, report.html, figures/ and
            counterexamples/; None checks without writing anything (no figures). The report is
            built beside it and swapped in whole at the end (:func:`rnnaudit.outputs.replaced_directory`):
            a killed check leaves the previous report or none, and one writer at a time holds it.
        progress: a tqdm bar per paper on stderr.

    Returns:
        :class:`CheckRun`.

    Raises:
        ValueError: unknown paper or profile name; ``cuda`` without a CUDA device; ``out_dir``
            exists and is not a directory, or is a non-empty directory rnnaudit did not write.
        rnnaudit.outputs.LockedError: another process is writing ``out_dir``.
    """
    papers = list(PAPERS) if papers is None else list(papers)
    unknown = [p for p in papers if p not in CLAIMS_BY_PAPER]
    if unknown:
        raise ValueError(f"papers must be among {', '.join(PAPERS)}, got {', '.join(unknown)}")
    if isinstance(profile, str):
        if profile not in PROFILES:
            raise ValueError(f"profile must be one of {sorted(PROFILES)} or a Profile, got {profile!r}")
        profile = PROFILES[profile]
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device 'cuda' requested but no CUDA device is available (torch.cuda.is_available() is "
                         "False)")
    if device not in ("cpu", "cuda"):
        raise ValueError(f"device must be 'cpu' or 'cuda', got {device!r}")
    if out_dir is None:
        results, skipped = _check_claims(papers, profile, seed, device, None, progress)
        return CheckRun(results, None, None, skipped)
    out = Path(out_dir)
    from rnnaudit.provenance import recorded_seed

    with replaced_directory(out, "check") as staging, recorded_seed(seed):
        results, skipped = _check_claims(papers, profile, seed, device, staging / "counterexamples", progress)
        doc = _write_report(results, papers, staging, profile=profile, seed=seed, device=device, skipped=skipped,
                            progress=progress)
    return CheckRun(results, doc, out, skipped)


def _check_claims(papers, profile: Profile, seed: int, device: str, counterexamples: Path | None,
                  progress: bool) -> tuple[list[ClaimResult], list[str]]:
    from tqdm import tqdm

    results: list[ClaimResult] = []
    skipped: list[str] = []
    for paper in papers:
        claims = CLAIMS_BY_PAPER[paper]
        if not claims:
            skipped.append(paper)
            continue
        total = len(claims) * (profile.n_random + profile.restarts)
        with tqdm(total=total, desc=paper, unit="case", file=sys.stderr, dynamic_ncols=True,
                  disable=not progress) as bar:
            for claim in claims:
                bar.set_postfix_str(claim.id)
                results.append(check_claim(claim, profile, seed=seed, device=device, out_dir=counterexamples,
                                           progress=bar.update))
    return results, skipped


def _write_report(results: list[ClaimResult], papers: list[str], out: Path, *, profile: Profile, seed: int,
                  device: str, skipped: list[str], progress: bool) -> dict:
    from rnnaudit.figures import save_figure
    from rnnaudit.figures.paper_figures import PAPER_FIGURES
    from rnnaudit.figures.tightness import plot_tightness

    from tqdm import tqdm

    fig_dir = out / "figures"
    fig_dir.mkdir(parents=True, exist_ok=True)
    figures = []
    drawn = [p for p in papers if p not in skipped]
    # one step per tightness plot, each paper figure's own steps, and one for writing the report
    steps = sum(1 + (PAPER_FIGURES[p].steps if p in PAPER_FIGURES else 0) for p in drawn) + 1
    with tqdm(total=steps, desc="figures", unit="step", file=sys.stderr, dynamic_ncols=True,
              disable=not progress) as bar:
        for paper in drawn:
            bar.set_postfix_str(paper)
            paper_results = [r.to_json() for r in results if r.claim.paper == paper]
            png = save_figure(plot_tightness(paper_results), fig_dir / f"{paper}_tightness.png")
            figures.append((f"{paper}: worst measured/bound against T for each claim (above the dashed line = "
                            "the statement fails as printed)", png))
            bar.update(1)
            if paper in PAPER_FIGURES:
                figures += PAPER_FIGURES[paper](fig_dir, seed=seed, device=device, profile=profile.name,
                                                progress=bar.update)
        bar.set_postfix_str("report")
        doc = _document(results, papers, out, figures, profile=profile, seed=seed, device=device, skipped=skipped)
        bar.update(1)
    return doc


def _document(results: list[ClaimResult], papers: list[str], out: Path, figures: list, *, profile: Profile, seed: int,
              device: str, skipped: list[str]) -> dict:
    """results.json (with provenance) and the reports written into ``out``."""
    from rnnaudit.figures.report import results_document, write_results

    doc = results_document(results, device=device, dtype="float64", seed=seed, profile=profile.name,
                           figures=figures, out_dir=out, skipped_papers=skipped, coverage=coverage(papers))
    doc["provenance"] = provenance(seed=seed)
    write_results(doc, out)
    return doc
