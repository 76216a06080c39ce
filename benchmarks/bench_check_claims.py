"""CPU time of each claim of the quick (or full) check, in one process, slowest first.

    python benchmarks/bench_check_claims.py                       # every claim, quick profile
    python benchmarks/bench_check_claims.py --paper sgornn --top 10 --json sgornn-cpu.json

Each claim is checked by ``check_claim`` exactly as ``rnnaudit check`` checks it (same profile, seed and one thread),
and timed by ``resource.getrusage``: user + system CPU of this process, which a loaded machine inflates far less
than wall time (both are printed, with the load average). The imports are timed apart: they are the fixed cost a
``--jobs`` worker pays once. Run the same script at two commits to compare them claim by claim (``--json``). A claim
whose global optimiser was stopped by its clock (``stopped: time``) did less work under load than it would idle.
``--costs`` prints the table the check hands claims out by, longest first (rnnaudit/claim_costs.py).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time


def _cpu() -> tuple[float, float]:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime, r.ru_stime


def main(argv: list[str] | None = None) -> int:
    from rnnaudit.names import PAPERS

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--paper", nargs="+", choices=PAPERS, metavar="PAPER",
                        help=f"papers whose claims are timed: {', '.join(PAPERS)} (default: all)")
    parser.add_argument("--profile", choices=("quick", "full"), default="quick", help="search effort (default: quick)")
    parser.add_argument("--seed", type=int, default=0, help="the check's base seed (default: 0)")
    parser.add_argument("--top", type=int, default=15, help="rows of the table (default: 15; 0: every claim)")
    parser.add_argument("--json", type=str, default=None, help="write every claim's times to this file")
    parser.add_argument("--costs", action="store_true",
                        help="print the table of rnnaudit/claim_costs.py (QUICK_CPU_SECONDS) from these times")
    args = parser.parse_args(argv)
    if args.top < 0:
        parser.error(f"--top must be 0 or more, got {args.top}")
    if args.seed < 0:
        parser.error(f"--seed must be 0 or more, got {args.seed}")
    u0, s0 = _cpu()
    w0 = time.perf_counter()
    from rnnaudit.bounds import CLAIMS_BY_PAPER, PROFILES, check_claim

    u1, s1 = _cpu()
    rows = []
    for paper in args.paper or PAPERS:
        for claim in CLAIMS_BY_PAPER[paper]:
            ua, sa = _cpu()
            wa = time.perf_counter()
            result = check_claim(claim, PROFILES[args.profile], seed=args.seed)
            ub, sb = _cpu()
            rows.append({"id": claim.id, "user": ub - ua, "sys": sb - sa, "wall": time.perf_counter() - wa,
                         "verdict": result.verdict, "worst_ratio": result.worst_ratio,
                         "stopped": (result.search or {}).get("stopped")})
            print(f"{claim.id}: {ub - ua + sb - sa:.2f} s CPU", file=sys.stderr, flush=True)
    load = os.getloadavg()
    doc = {"imports": {"user": u1 - u0, "sys": s1 - s0}, "claims": rows, "load_average": load,
           "wall": time.perf_counter() - w0}
    print(f"{'claim':<48} {'CPU s':>8} {'user':>8} {'sys':>6} {'wall s':>8}  stopped")
    for r in sorted(rows, key=lambda r: -(r["user"] + r["sys"]))[:args.top or None]:
        print(f"{r['id']:<48} {r['user'] + r['sys']:8.2f} {r['user']:8.2f} {r['sys']:6.2f} {r['wall']:8.2f}  "
              f"{r['stopped'] or ''}")
    total = sum(r["user"] + r["sys"] for r in rows)
    print(f"{len(rows)} claims: {total:.1f} s CPU ({sum(r['sys'] for r in rows):.1f} s system), imports "
          f"{u1 - u0 + s1 - s0:.1f} s CPU; {doc['wall']:.0f} s wall at a load average of {load[0]:.1f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
    if args.costs:
        from rnnaudit.claim_costs import DEFAULT_SECONDS

        print("QUICK_CPU_SECONDS = {")
        for r in sorted(rows, key=lambda r: -(r["user"] + r["sys"])):
            if r["user"] + r["sys"] >= DEFAULT_SECONDS:
                print(f'    "{r["id"]}": {r["user"] + r["sys"]:.1f},')
        print("}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
