"""``rnnaudit check``: every claim of the chosen papers, with a report."""

from __future__ import annotations

import sys

from rnnaudit.cli.style import verdict

__all__ = ["run"]


def _worker_count(jobs: int | None) -> int:
    """The worker processes the check will start: ``--jobs``, else the usable cores as :func:`rnnaudit.checking.check`
    counts them (its module's ``usable_cores``, which a test suite may override, once it is imported)."""
    from rnnaudit import claim_workers

    return jobs if jobs is not None else sys.modules.get("rnnaudit.checking", claim_workers).usable_cores()


def run(args) -> int:
    if args.device == "cpu" and _worker_count(args.jobs) > 1:
        from rnnaudit.claim_workers import start_workers_early

        start_workers_early()  # the workers' imports overlap this process's
    from rnnaudit.bounds.core import VERDICTS
    from rnnaudit.checking import check

    from rnnaudit.progress import shows_progress

    result = check(args.paper, profile=args.profile, seed=args.seed, device=args.device, out_dir=args.out,
                   progress=shows_progress(), jobs=args.jobs)  # bars on a terminal only: a log gets the claim lines alone
    for paper in result.skipped_papers:
        print(f"{paper}: no claims implemented yet", file=sys.stderr)
    width = max((len(r.claim.id) for r in result.results), default=10)
    for r in result.results:
        worst = r.worst_ratio
        # the exact (sympy) verdict in words that cannot be mistaken for the claim's own verdict
        exact = {"proved": "  (proved exactly)", "violated": "  (exact counterexample)"}.get(
            r.exact.verdict, "") if r.exact is not None else ""
        found = "" if worst is None or r.worst_found_by is None else f" ({r.worst_found_by})"
        print(f"{r.claim.id:<{width}}  {verdict(r.verdict, 12)}  worst ratio "
              f"{'–' if worst is None else f'{worst:.4g}'}{found}{exact}")
        for rd in r.readings:
            ratio = "–" if rd.worst_ratio is None else f"{rd.worst_ratio:.4g}"
            print(f"{'':<{width}}    reading {rd.reading.name}: {verdict(rd.verdict)} (worst ratio {ratio})")
    counts = {v: sum(r.verdict == v for r in result.results) for v in VERDICTS}
    print(", ".join(f"{n} {v}" for v, n in counts.items() if n) + f"; wrote {args.out / 'results.json'}, "
          f"{args.out / 'report.md'} and {args.out / 'report.html'}")
    return 1 if args.strict and any(r.verdict in args.strict for r in result.results) else 0
