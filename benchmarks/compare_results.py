"""Compare two ``rnnaudit check`` results.json files claim by claim.

    python benchmarks/compare_results.py BEFORE/results.json AFTER/results.json [--timing srnn.table1]

Verdicts, case counts and worst ratios (overall and per part) must be identical, bit for bit,
except the worst ratios of claims measured from wall-clock timings (``--timing``, default
``srnn.table1``), whose verdicts must still agree. Claims present in one file only are listed.
Exit status 0 when nothing differs, 1 otherwise (each difference printed on one line).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def compare(before: dict, after: dict, timing: set[str]) -> list[str]:
    """Differences between two results.json documents, one line each (empty when none)."""
    old = {c["id"]: c for c in before["claims"]}
    new = {c["id"]: c for c in after["claims"]}
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
    args = parser.parse_args(argv)
    docs = []
    for path in (args.before, args.after):
        try:
            docs.append(json.loads(path.read_text()))
        except (OSError, ValueError) as err:
            parser.exit(2, f"compare_results: {path}: {err}\n")
    diffs = compare(*docs, set(args.timing))
    for line in diffs:
        print(line)
    print(f"{len(docs[1]['claims'])} claims compared, {len(diffs)} difference(s)")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
