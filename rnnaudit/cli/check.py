"""``rnnaudit check``: every claim of the chosen papers, with a report."""

from __future__ import annotations

import sys

from rnnaudit.cli.style import verdict

__all__ = ["run"]


def run(args) -> int:
    from rnnaudit.checking import check

    from rnnaudit.progress import shows_progress

    result = check(args.paper, profile=args.profile, seed=args.seed, device=args.device, out_dir=args.out,
                   progress=shows_progress())  # bars on a terminal only: a log gets the claim lines alone
    for paper in result.skipped_papers:
        print(f"{paper}: no claims implemented yet", file=sys.stderr)
    width = max((len(r.claim.id) for r in result.results), default=10)
    for r in result.results:
        worst = r.worst_ratio
        exact = f"  ({r.exact.verdict} exactly)" if r.exact is not None else ""
        print(f"{r.claim.id:<{width}}  {verdict(r.verdict, 12)}  worst ratio "
              f"{'–' if worst is None else f'{worst:.4g}'}{exact}")
    counts = {v: sum(r.verdict == v for r in result.results) for v in ("holds", "violated", "vacuous", "inconclusive")}
    print(", ".join(f"{n} {v}" for v, n in counts.items() if n) + f"; wrote {args.out / 'results.json'}, "
          f"{args.out / 'report.md'} and {args.out / 'report.html'}")
    return 1 if args.strict and result.violated else 0
