"""Compare two ``rnnaudit check`` results.json files claim by claim.

    python benchmarks/compare_results.py BEFORE/results.json AFTER/results.json [--paper P ...]
                                         [--timing srnn.table1]

Verdicts, case counts and worst ratios (overall and per part) must be identical, bit for bit,
except the worst ratios of claims measured from wall-clock timings (``--timing``, default
``srnn.table1``), whose verdicts must still agree; each claim's readings (docs/verdicts.md) are compared the
same way, by name. Claims present in one file only are listed. ``--paper`` compares only those papers' claims.
A file of ``format_version`` 1 (no key) wrote ``violated`` where version 2 writes ``false`` or ``misprinted``:
against a version-2 file those count as the same verdict, and the renamings are counted on their own line.
Exit status 0 when nothing differs, 1 otherwise (each difference printed on one line); 2 for a file that cannot
be read or is not a results.json (one line naming the file and what is wrong).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


#: Verdicts that format_version 1's ``violated`` split into (docs/verdicts.md).
FAILING = ("false", "misprinted")


def format_version(doc: dict) -> int:
    """The document's ``format_version`` (1 when absent: written before the key existed)."""
    return int(doc.get("format_version", 1))


def _same_verdict(a: str | None, b: str | None) -> bool:
    """Equal, or ``violated`` (format_version 1) against one of the verdicts it split into."""
    return a == b or (a == "violated" and b in FAILING) or (b == "violated" and a in FAILING)


def _reading_diffs(cid: str, a: dict, b: dict, ratios: bool) -> list[str]:
    old = {r["name"]: r for r in a.get("readings") or []}
    new = {r["name"]: r for r in b.get("readings") or []}
    out = [f"{cid}: reading {name!r} only in the first file" for name in old.keys() - new.keys()]
    out += [f"{cid}: reading {name!r} only in the second file" for name in new.keys() - old.keys()]
    for name in sorted(old.keys() & new.keys()):
        for key in ("verdict", "worst_ratio") if ratios else ("verdict",):
            if old[name].get(key) != new[name].get(key):
                out.append(f"{cid}: reading {name!r} {key} {old[name].get(key)!r} -> {new[name].get(key)!r}")
    return out


def renamed(before: dict, after: dict) -> int:
    """How many claims of both documents went from ``violated`` to ``false``/``misprinted`` or back."""
    old = {c["id"]: c.get("verdict") for c in before["claims"]}
    return sum(1 for c in after["claims"] if c["id"] in old and old[c["id"]] != c.get("verdict")
               and _same_verdict(old[c["id"]], c.get("verdict")))


def compare(before: dict, after: dict, timing: set[str], papers: set[str] | None = None) -> list[str]:
    """Differences between two results.json documents, one line each (empty when none); only the
    claims of ``papers`` when given. ``violated`` (format_version 1) equals ``false`` and ``misprinted``."""
    keep = lambda c: papers is None or c["paper"] in papers  # noqa: E731
    old = {c["id"]: c for c in before["claims"] if keep(c)}
    new = {c["id"]: c for c in after["claims"] if keep(c)}
    out = [f"{cid}: only in the first file" for cid in old.keys() - new.keys()]
    out += [f"{cid}: only in the second file" for cid in new.keys() - old.keys()]
    for cid in sorted(old.keys() & new.keys()):
        a, b = old[cid], new[cid]
        if not _same_verdict(a.get("verdict"), b.get("verdict")):
            out.append(f"{cid}: verdict {a.get('verdict')!r} -> {b.get('verdict')!r}")
        keys = () if cid in timing else ("n_cases", "worst_ratio", "worst_parts")
        for key in keys:
            if a.get(key) != b.get(key):
                out.append(f"{cid}: {key} {a.get(key)!r} -> {b.get(key)!r}")
        out += _reading_diffs(cid, a, b, ratios=cid not in timing)
    return out


def check_document(doc) -> None:
    """The shape :func:`compare` reads: an object with a ``claims`` list of objects, each with a string ``id`` and
    ``paper`` and, when present, a list of ``readings`` objects with a string ``name``; an integer
    ``format_version`` when present.

    Raises:
        ValueError: the first thing missing or of the wrong kind, named by its place in the document.
    """
    if not isinstance(doc, dict):
        raise ValueError(f"expected a JSON object, got {type(doc).__name__}")
    version = doc.get("format_version", 1)
    if isinstance(version, bool) or not isinstance(version, int):
        raise ValueError(f"format_version must be an integer, got {version!r:.60}")
    claims = doc.get("claims")
    if not isinstance(claims, list):
        raise ValueError(f"'claims' must be a list of claim objects, got {type(claims).__name__}")
    for i, claim in enumerate(claims):
        if not isinstance(claim, dict):
            raise ValueError(f"claims[{i}] must be an object, got {type(claim).__name__}")
        for key in ("id", "paper"):
            if not isinstance(claim.get(key), str):
                raise ValueError(f"claims[{i}] needs a string {key!r}, got {claim.get(key)!r:.60}")
        readings = claim.get("readings")
        if readings is not None and not (isinstance(readings, list) and all(
                isinstance(r, dict) and isinstance(r.get("name"), str) for r in readings)):
            raise ValueError(f"claims[{i}] ({claim['id']}): 'readings' must be a list of objects with a string "
                             "'name'")


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
            doc = json.loads(path.read_text(encoding="utf-8"))
            check_document(doc)
        except (OSError, ValueError, RecursionError) as err:  # a damaged file: one line naming it, exit 2
            parser.exit(2, f"compare_results: {path}: {' '.join(str(err).split())[:300] or type(err).__name__}\n")
        docs.append(doc)
    diffs = compare(*docs, set(args.timing), None if args.paper is None else set(args.paper))
    for line in diffs:
        print(line)
    n = sum(1 for c in docs[1]["claims"] if args.paper is None or c["paper"] in args.paper)
    if format_version(docs[0]) != format_version(docs[1]):
        print(f"format_version {format_version(docs[0])} -> {format_version(docs[1])}: {renamed(*docs)} verdict(s) "
              "'violated' renamed 'false' or 'misprinted' (not differences)")
    print(f"{n} claims compared, {len(diffs)} difference(s)")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
