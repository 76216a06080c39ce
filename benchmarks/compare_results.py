"""Compare two ``rnnaudit check`` results.json files claim by claim.

    python benchmarks/compare_results.py BEFORE/results.json AFTER/results.json [--paper P ...]
                                         [--timing srnn.table1]

Verdicts, case counts and worst ratios (overall and per part) must be identical, bit for bit,
except the worst ratios of claims measured from wall-clock timings (``--timing``, default
``srnn.table1``), whose verdicts must still agree. Claims present in one file only are listed. ``--paper``
compares only those papers' claims.
Exit status 0 when nothing differs, 1 otherwise (each difference printed on one line).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def compare(before: dict, after: dict, timing: set[str], papers: set[str] | None = None) -> list[str]:
    """Differences between two results.json documents, one line each (empty when none); only the
    claims of ``papers`` when given."""
    keep = lambda c: papers is None or c["paper"] in papers  # noqa: E731
    old = {c["id"]: c for c in before["claims"] if keep(c)}
    new = {c["id"]: c for c in after["claims"] if keep(c)}
    out = [f"{cid}: only in the first file" for cid in old.keys() - new.keys()]
    out += [f"{cid}: only in the second file" for cid in new.keys() - old.keys()]
    for cid in sorted(old.keys() & new.keys()):
        a, b = old[cid], new[cid]
        keys = ("verdict",) if cid in timing else ("verdict", "n_cases", "worst_ratio", "worst_parts")
        for key in keys:
            if a.get(key) != b.get(key):
                out.append(f"{cid}: {key} {a.get(key)!r} -> {b.get(key)!r}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--timing", nargs="*", default=["srnn.table1"],
                        help="claims measured from timings: only their verdicts must agree")
    parser.add_argument("--paper", nargs="+", help="compare only these papers' claims")
    args = parser.parse_args(argv)
    docs = []
    for path in (args.before, args.after):
        try:
            docs.append(json.loads(path.read_text()))
        except (OSError, ValueError) as err:
            parser.exit(2, f"compare_results: {path}: {err}\n")
    diffs = compare(*docs, set(args.timing), None if args.paper is None else set(args.paper))
    for line in diffs:
        print(line)
    n = sum(1 for c in docs[1]["claims"] if args.paper is None or c["paper"] in args.paper)
    print(f"{n} claims compared, {len(diffs)} difference(s)")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
