"""Search methods side by side: the best ratio measured/bound each finds under the same evaluation budget.

    python benchmarks/bench_search.py                         # the representative claims, 120 evaluations each
    python benchmarks/bench_search.py --budget 400 --seed 1
    python benchmarks/bench_search.py --claims sgornn.eq31 spectral_rnn.lemma3 --parts

For each claim, at one size (h, T) (its own quick size listed in :data:`SIZES`, else its second quick size), every
method gets ``--budget`` evaluations of the claim (one evaluation = one case measured and re-checked against every
assumption by the check's own recorder):

- ``random``: that many cases drawn by the claim's sampler;
- ``ascent``: projected gradient ascent (Adam on log ratio, the check's ``lr``) for that many steps, from the best
  random case;
- ``differential_evolution`` and ``cma``: the global optimisers of ``bounds/global_search.py``, forced whatever the
  number of free scalars, from the best random case;
- ``structured``: the claim's named starts at that size (their count is shown; they cost no search).

The table gives the best ratio over the cases inside the assumptions (the largest part's; with ``--parts``, each
part on its own line) and the wall time of each method. Every method sees the same random cases first (their
evaluations are not charged to the ascent or the optimisers, which start from the best of them). Times depend on
the machine's load (printed); the ratios do not.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from dataclasses import replace

#: The representative set: the two known worst cases, claims where the optimiser beat the ascent before
#: (docs/search.md), and one claim of each family with more than 20 free scalars.
CLAIMS = ("sgornn.eq31", "spectral_rnn.lemma3", "spectral_rnn.eq24", "sgornn.theorem2", "sgornn.eq31.corrected",
          "enrnn.spectral_norm", "nc_gru.corollary3.corrected", "spectral_rnn.assumption1")

#: Sizes where a claim's interesting cases live (its smallest quick size is often degenerate, e.g. T = 1 gives
#: ∂L/∂U = 0 for the gated family).
SIZES = {"sgornn.eq31": (2, 7), "sgornn.theorem2": (2, 7), "sgornn.eq31.corrected": (2, 7),
         "spectral_rnn.lemma3": (2, 7), "spectral_rnn.eq24": (2, 7)}

METHODS = ("random", "structured", "ascent", "differential_evolution", "cma")


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def _best(records, part=None):
    vals = [(r.parts.get(part, math.nan) if part else r.ratio) for r in records if not r.failed_assumptions]
    vals = [v for v in vals if not math.isnan(v)]
    return max(vals) if vals else None


def bench_claim(claim, size, budget: int, seed: int) -> dict:
    """{method: (records, seconds)} for one claim at ``size``."""
    from rnnaudit.bounds.core import PROFILES
    from rnnaudit.bounds.global_search import global_search
    from rnnaudit.bounds.search import _ascent, _record, claim_generator, named_starts

    h, T = size
    out = {}
    gen = claim_generator(claim.id, seed)
    t0 = time.perf_counter()
    random = [_record(claim, claim.cases.sample(gen, h, T, "cpu", _F64()), "random") for _ in range(budget)]
    out["random"] = (random, time.perf_counter() - t0)
    t0 = time.perf_counter()
    starts = named_starts(claim.cases.starts(h, T, "cpu", _F64())) if claim.cases.starts else []
    out["structured"] = ([_record(claim, c, "structured", name) for name, c in starts], time.perf_counter() - t0)
    best = max((r for r in random if not r.failed_assumptions and math.isfinite(r.ratio)), key=lambda r: r.ratio,
               default=None)
    profile = replace(PROFILES["quick"], ascent_steps=budget)
    records = []
    t0 = time.perf_counter()
    if best is not None and claim.cases.free(best.case):
        from rnnaudit.bounds.cases import copy_case
        _ascent(claim, copy_case(best.case, "cpu", _F64()), profile, records, "cpu", _F64())
    out["ascent"] = (records, time.perf_counter() - t0)
    for method in ("differential_evolution", "cma"):
        records = [best] if best is not None else []
        t0 = time.perf_counter()
        global_search(claim, replace(profile, global_seconds=math.inf), seed=seed, records=records, record=_record,
                      method=method, budget=budget, size=size)
        out[method] = ([r for r in records if r.origin == "global"], time.perf_counter() - t0)
    return out


def _F64():
    import torch
    return torch.float64


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", nargs="+", default=list(CLAIMS), help="claim ids (default: the representative set)")
    parser.add_argument("--budget", type=_positive, default=120, help="evaluations per method (default: 120)")
    parser.add_argument("--seed", type=int, default=0, help="base seed (default: 0)")
    parser.add_argument("--parts", action="store_true", help="one line per claim part")
    args = parser.parse_args(argv)
    from rnnaudit.bounds import all_claims
    from rnnaudit.bounds.global_search import free_parameter_count

    by_id = {c.id: c for c in all_claims()}
    unknown = [c for c in args.claims if c not in by_id]
    if unknown:
        parser.error(f"--claims: unknown claim id(s) {', '.join(unknown)}")
    print(f"bench_search: budget {args.budget} evaluations per method, seed {args.seed}, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| claim | part | (h, T) | free | " + " | ".join(METHODS) + " |")
    print("|---|---|---|---:|" + "---:|" * len(METHODS))
    for cid in args.claims:
        claim = by_id[cid]
        sizes = claim.cases.sizes["quick"]
        size = SIZES.get(cid, sizes[min(1, len(sizes) - 1)])
        found = bench_claim(claim, size, args.budget, args.seed)
        sample = next((r.case for r in found["random"][0] if r.case is not None), None)
        free = free_parameter_count(claim, sample) if sample is not None else 0
        parts = [None] + (sorted({k for recs, _ in found.values() for r in recs for k in r.parts}) if args.parts
                          else [])
        for part in parts:
            cells = []
            for m in METHODS:
                recs, secs = found[m]
                best = _best(recs, part)
                shown = "–" if best is None else f"{best:.4g}"
                cells.append(f"{shown} ({len(recs)}, {secs:.1f} s)" if part is None else shown)
            print(f"| `{cid}` | {part or 'worst'} | {size} | {free} | " + " | ".join(cells) + " |")
    print("cells: best ratio inside the assumptions (evaluations, wall time) per method")
    return 0


if __name__ == "__main__":
    sys.exit(main())
