"""``rnnaudit check`` as a library function: every claim of the chosen papers, the figures and the
report, with the CLI only parsing arguments and printing."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import torch

from rnnaudit.bounds import (CLAIMS_BY_PAPER, PAPERS, PROFILES, ClaimResult, Profile, check_claim, claim_by_id,
                             coverage)
from rnnaudit.claim_costs import estimated_seconds
from rnnaudit.claim_workers import Job, check_in_workers, usable_cores
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
          device: str = "cpu", out_dir: str | Path | None = None, progress: bool = True,
          jobs: int | None = None) -> CheckRun:
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
        jobs: worker processes checking claims side by side, slowest first, and drawing the report's figures beside
            them (:mod:`rnnaudit.claim_workers`); None: one per usable CPU core; 1 (and every check on ``cuda``):
            every claim and figure in this process. The results are the same for
            every ``jobs``: each claim is seeded from (seed, its id) alone and runs on one thread.

    Returns:
        :class:`CheckRun`.

    Raises:
        ValueError: unknown paper or profile name; ``cuda`` without a CUDA device; ``jobs`` not a positive int;
            ``out_dir`` exists and is not a directory, or is a non-empty directory rnnaudit did not write.
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
    if jobs is None:
        jobs = usable_cores()
    elif isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive int or None, got {jobs!r}")
    if out_dir is None:
        results, skipped, _ = _check_claims(papers, profile, seed, device, None, progress, jobs, None)
        return CheckRun(results, None, None, skipped)
    out = Path(out_dir)
    from rnnaudit.provenance import recorded_seed

    with replaced_directory(out, "check") as staging, recorded_seed(seed):
        results, skipped, drawn = _check_claims(papers, profile, seed, device, staging / "counterexamples", progress,
                                                jobs, staging / "figures")
        doc = _write_report(results, papers, staging, profile=profile, seed=seed, device=device, skipped=skipped,
                            progress=progress, drawn=drawn)
    return CheckRun(results, doc, out, skipped)


def _check_claims(papers, profile: Profile, seed: int, device: str, counterexamples: Path | None,
                  progress: bool, jobs: int, fig_dir: Path | None) -> tuple[list[ClaimResult], list[str], dict]:
    """The claims' results, the papers without claims, and the report's figures the workers drew beside the claims
    (``(kind, paper)`` → [(caption, path)], kind ``"tightness"`` or ``"paper_figures"``; {} in one process or
    without ``fig_dir``)."""
    skipped = [p for p in papers if not CLAIMS_BY_PAPER[p]]
    claims = [c for p in papers for c in CLAIMS_BY_PAPER[p]]
    bars = _PaperBars(claims, profile, progress)
    # a claim the workers cannot find again by its id (one put in CLAIMS_BY_PAPER by hand) is checked here
    registered = all(_registered(c) for c in claims)
    drawn: dict = {}
    try:
        if jobs > 1 and len(claims) > 1 and device == "cpu" and registered:
            figures = _FigureJobs(claims, papers, skipped, fig_dir, profile, seed, device) if fig_dir else None
            # longest first: the last claims handed out are short, so neither worker ends long after the other
            order = sorted(range(len(claims)), key=lambda i: -estimated_seconds(claims[i].id))
            results = check_in_workers(claims, profile, seed=seed, device=device, out_dir=counterexamples, jobs=jobs,
                                       on_start=bars.start, on_progress=bars.update, on_done=bars.done, order=order,
                                       extra_jobs=figures.ready() if figures else (),
                                       follow_up=figures.after_claim if figures else None,
                                       on_job_done=lambda job, out: drawn.__setitem__(job.key, out))
        else:
            results = []
            for i, claim in enumerate(claims):
                bars.start(i)
                results.append(check_claim(claim, profile, seed=seed, device=device, out_dir=counterexamples,
                                           progress=lambda n, i=i: bars.update(i, n)))
                bars.done(i)
    finally:
        bars.close()
    return results, skipped, drawn


class _FigureJobs:
    """The report's figures as worker jobs: each paper's own figures at the start (they read no result), its
    tightness plot as soon as its last claim is checked."""

    def __init__(self, claims, papers, skipped, fig_dir: Path, profile: Profile, seed: int, device: str):
        self.claims, self.fig_dir, self.profile, self.seed, self.device = claims, fig_dir, profile, seed, device
        self.papers = [p for p in papers if p not in skipped]
        self.left = {p: sum(c.paper == p for c in claims) for p in self.papers}
        self.results: dict = {}
        fig_dir.mkdir(parents=True, exist_ok=True)

    def ready(self) -> list[Job]:
        from rnnaudit.figures.paper_figures import PAPER_FIGURES

        return [Job("paper_figures", dict(paper=p, fig_dir=str(self.fig_dir), seed=self.seed, device=self.device,
                                          profile=self.profile.name, argv=list(sys.argv)), ("paper_figures", p))
                for p in self.papers if p in PAPER_FIGURES]

    def after_claim(self, index: int, result: ClaimResult) -> list[Job]:
        paper = self.claims[index].paper
        self.results[index] = result
        self.left[paper] -= 1
        if self.left[paper]:
            return []
        entries = [self.results[i].to_json() for i in range(len(self.claims)) if self.claims[i].paper == paper]
        return [Job("tightness", dict(paper=paper, claims=entries, fig_dir=str(self.fig_dir), seed=self.seed,
                                      argv=list(sys.argv)), ("tightness", paper))]


def _registered(claim) -> bool:
    try:
        return claim_by_id(claim.id) is claim
    except (KeyError, ValueError):
        return False


class _PaperBars:
    """One tqdm bar per paper, drawn one after another in report order as in a one-process check: progress of a
    later paper's claims (checked early by another worker) is held until its bar is drawn."""

    def __init__(self, claims, profile: Profile, enabled: bool):
        self.claims, self.enabled = claims, enabled
        self.papers = list(dict.fromkeys(c.paper for c in claims))
        self.remaining = {p: sum(c.paper == p for c in claims) for p in self.papers}
        self.held = dict.fromkeys(self.papers, 0)
        self.per_claim = profile.n_random + profile.restarts
        self.current, self.bar = -1, None
        self._next()

    def _next(self) -> None:
        from tqdm import tqdm

        if self.bar is not None:
            self.bar.close()
            self.bar = None
        self.current += 1
        if self.current < len(self.papers):
            paper = self.papers[self.current]
            self.bar = tqdm(total=self.per_claim * sum(c.paper == paper for c in self.claims), desc=paper,
                            unit="case", file=sys.stderr, dynamic_ncols=True, disable=not self.enabled)
            self.bar.update(self.held[paper])

    def _paper(self, i: int) -> str:
        return self.claims[i].paper

    def start(self, i: int) -> None:
        if self.bar is not None and self._paper(i) == self.papers[self.current]:
            self.bar.set_postfix_str(self.claims[i].id)

    def update(self, i: int, n: int) -> None:
        paper = self._paper(i)
        if self.bar is not None and paper == self.papers[self.current]:
            self.bar.update(n)
        else:
            self.held[paper] += n

    def done(self, i: int) -> None:
        self.remaining[self._paper(i)] -= 1
        while self.current < len(self.papers) and self.remaining[self.papers[self.current]] == 0:
            self._next()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _write_report(results: list[ClaimResult], papers: list[str], out: Path, *, profile: Profile, seed: int,
                  device: str, skipped: list[str], progress: bool, drawn: dict) -> dict:
    """The figures (those the workers have not drawn, ``drawn``: see :func:`_check_claims`) and the reports."""
    from rnnaudit.check_figures import paper_figures, tightness_figure
    from rnnaudit.figures.paper_figures import PAPER_FIGURES

    from tqdm import tqdm

    fig_dir = out / "figures"
    fig_dir.mkdir(parents=True, exist_ok=True)
    figures = []
    papers_drawn = [p for p in papers if p not in skipped]
    # one step per tightness plot, each paper figure's own steps, and one for writing the report
    steps = {p: 1 + (PAPER_FIGURES[p].steps if p in PAPER_FIGURES else 0) for p in papers_drawn}
    with tqdm(total=sum(steps.values()) + 1, desc="figures", unit="step", file=sys.stderr, dynamic_ncols=True,
              disable=not progress) as bar:
        for paper in papers_drawn:
            bar.set_postfix_str(paper)
            if ("tightness", paper) in drawn:
                figures += drawn[("tightness", paper)]
            else:
                figures += tightness_figure(paper, [r.to_json() for r in results if r.claim.paper == paper], fig_dir,
                                            seed=seed)
            bar.update(1)
            if ("paper_figures", paper) in drawn:
                figures += drawn[("paper_figures", paper)]
                bar.update(steps[paper] - 1)
            else:
                figures += paper_figures(paper, fig_dir, seed=seed, device=device, profile=profile.name,
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
