"""Reading a results.json document for the reports: verdict counts per paper, the claims that fail
as printed (``false`` and ``misprinted``) worst first, each claim's "what breaks", its corrected form,
and which ratio is shown.

Every optional field (``explanation``, ``coverage``, ``worst_counterexample``, ``relative_error``,
``exact``, ``supremum``, ``readings``) may be missing: a document written by an older version still renders
(format_version 1 wrote ``violated`` where version 2 writes ``false`` or ``misprinted``; it is shown as failing).
"""

from __future__ import annotations

import math
import re
from collections import Counter

from rnnaudit.figures.html import VERDICT_ORDER
from rnnaudit.figures.tightness import ratio_value

__all__ = ["check_document", "shown_ratio", "what_breaks", "gist", "verdict_counts", "failing_worst_first", "fails",
           "corrected_of",
           "papers_of", "ratio_sort_key", "coverage_by_paper"]

#: Verdicts whose worst ratio means something: a vacuous bound's ratio says nothing about the
#: claim, and an inconclusive search has none worth reading.
_RATIO_VERDICTS = ("holds", "false", "misprinted", "violated")

#: Verdicts of a statement that fails as printed; ``violated`` is format_version 1's word for both.
_FAILING = ("false", "misprinted", "violated")


#: per-claim fields the reports read as containers, with the type each must have where present (None allowed)
_CLAIM_CONTAINERS = {"readings": list, "assumptions": list, "worst_parts": dict, "worst_parts_found_by": dict,
                     "tightness": dict, "search": dict}


def check_document(doc) -> None:
    """The structure the reports read from a results document, checked before rendering: a results.json may come
    from anywhere, and a field of another type would otherwise fail deep inside a renderer.

    Raises:
        ValueError: ``doc`` not an object, ``claims`` not a list of objects each with a string ``id``, a container
            field of a claim (``readings``: a list of objects; ``assumptions``: a list; ``worst_parts``,
            ``worst_parts_found_by``, ``tightness``, ``search``: objects) of another type, or
            ``papers_without_claims`` not a list (names the claim and the field).
    """
    if not isinstance(doc, dict):
        raise ValueError(f"the results document must be a JSON object, got {type(doc).__name__}")
    for key in ("claims", "papers_without_claims"):
        if doc.get(key) is not None and not isinstance(doc[key], list):
            raise ValueError(f"the results document's {key!r} must be a list, got {type(doc[key]).__name__}")
    for i, c in enumerate(doc.get("claims") or []):
        if not isinstance(c, dict):
            raise ValueError(f"the results document's claims[{i}] must be an object, got {type(c).__name__}")
        if not isinstance(c.get("id"), str):
            raise ValueError(f"the results document's claims[{i}] has no 'id' string")
        for key, kind in _CLAIM_CONTAINERS.items():
            value = c.get(key)
            if value is not None and not isinstance(value, kind):
                raise ValueError(f"the results document's claim {c['id'][:80]!r}: {key!r} must be "
                                 f"{'a list' if kind is list else 'an object'}, got {type(value).__name__}")
        if any(not isinstance(r, dict) for r in c.get("readings") or []):
            raise ValueError(f"the results document's claim {c['id'][:80]!r}: 'readings' must be a list of objects")


def fails(claim: dict) -> bool:
    """Whether the claim fails as printed (``false``, ``misprinted``, or an older document's ``violated``)."""
    return claim.get("verdict") in _FAILING


def shown_ratio(claim: dict) -> float | None:
    """The worst measured/bound ratio to display (math.inf for "inf"), or None: vacuous and
    inconclusive claims are shown without one."""
    if claim.get("verdict") not in _RATIO_VERDICTS:
        return None
    return ratio_value(claim.get("worst_ratio"))


def ratio_sort_key(claim: dict) -> float:
    """Descending sort key: ∞ first, claims without a shown ratio last."""
    r = shown_ratio(claim)
    return -math.inf if r is None else r


def what_breaks(claim: dict) -> str:
    """Which step or assumption of the paper breaks, for a claim that fails as printed: its ``explanation``
    (older documents without the field: its notes, which begin with it); "" otherwise."""
    if not fails(claim):
        return ""
    return claim.get("explanation") or claim.get("notes") or ""


#: A sentence ends at ". " before a capital, except after the papers' abbreviations (eq. 3, Sec. 4, App. C).
_SENTENCE_END = re.compile(r"(?<!\beq)(?<!\bEq)(?<!\bSec)(?<!\bApp)(?<!\bFig)(?<!\bThm)(?<!\bAlg)(?<!e\.g)"
                           r"(?<!i\.e)(?<!\bcf)(?<!\bvs)(?<!\bal)\.\s+(?=[A-Z(|])")


def _balanced(text: str) -> bool:
    return all(text.count(a) == text.count(b) for a, b in ("{}", "()", "[]"))


def gist(text: str, *, at_least: int = 60, at_most: int = 260) -> tuple[str, bool]:
    """The first sentence(s) of ``text``, at least ``at_least`` characters when the text has them;
    cut at a word boundary (brackets balanced, so no formula is split) with "…" beyond ``at_most``.

    Returns:
        (gist, whether anything was left out).
    """
    text = " ".join(text.split())
    ends = [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]
    end = next(e for e in ends if e >= at_least or e == len(text))
    head = text[:end].rstrip()
    if len(head) > at_most:
        cuts = [m.start() for m in re.finditer(r"\s", head[:at_most]) if _balanced(head[:m.start()])]
        if cuts:
            head = head[:cuts[-1]].rstrip(" ,;:") + " …"
    return head, len(head.rstrip(" …")) < len(text)


def verdict_counts(claims: list[dict]) -> Counter:
    """verdict → number of claims (every verdict of :data:`VERDICT_ORDER` present, possibly 0)."""
    counts = Counter({v: 0 for v in VERDICT_ORDER})
    counts.update(c.get("verdict") or "not measured" for c in claims)
    return counts


def failing_worst_first(claims: list[dict]) -> list[dict]:
    """The claims that fail as printed (``false`` and ``misprinted``), largest ratio first (∞ first; file order
    among equals)."""
    return sorted([c for c in claims if fails(c)], key=ratio_sort_key, reverse=True)


def corrected_of(claim: dict, by_id: dict[str, dict]) -> dict | None:
    """The ``<id>.corrected`` claim of the same document, if it was checked."""
    return by_id.get(f"{claim['id']}.corrected")


def papers_of(doc: dict) -> list[str]:
    """Papers in the order their claims appear (then coverage-only papers)."""
    papers = list(dict.fromkeys(c.get("paper") or c["id"].split(".", 1)[0] for c in doc.get("claims", [])))
    for row in doc.get("coverage") or []:
        if row.get("paper") and row["paper"] not in papers:
            papers.append(row["paper"])
    return papers


def coverage_by_paper(doc: dict) -> dict[str, list[dict]]:
    """The optional top-level ``coverage`` list grouped by paper ({} when absent)."""
    out: dict[str, list[dict]] = {}
    for row in doc.get("coverage") or []:
        out.setdefault(row.get("paper", "?"), []).append(row)
    return out
