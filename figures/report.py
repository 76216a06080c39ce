"""results.json, report.md and report.html for ``rnnaudit check`` (later versions add keys, never
remove or rename them). The HTML pages are built in :mod:`report_html` and :mod:`audit_report`."""

from __future__ import annotations

import datetime as dt
import os
import shlex
from importlib import metadata
from pathlib import Path

from rnnaudit.atomic import write_json_atomic, write_text_atomic
from rnnaudit.bounds.global_search import AGREEMENT_LOG_TOL, disagreements
from rnnaudit.bounds.results import RESULTS_FORMAT_VERSION, ClaimResult
from rnnaudit.figures.audit_report import render_audit_html, render_audit_markdown
from rnnaudit.figures.escaping import md_code, md_text
from rnnaudit.figures.html import VERDICT_ORDER, fmt_number
from rnnaudit.figures.report_data import (check_document, corrected_of, failing_worst_first, fails, papers_of,
                                          shown_ratio, verdict_counts, what_breaks)
from rnnaudit.figures.report_figures import markdown_figures
from rnnaudit.figures.report_html import render_html

__all__ = ["version", "results_document", "write_results", "render_markdown", "render_html", "render_audit_markdown",
           "render_audit_html"]


def version() -> str:
    """Installed rnnaudit version ("unknown" when run from a source tree that is not installed)."""
    try:
        return metadata.version("rnnaudit")
    except metadata.PackageNotFoundError:
        return "unknown"


def results_document(results: list[ClaimResult], *, device: str, dtype: str, seed: int, profile: str,
                     figures: list[tuple[str, Path]], out_dir: str | os.PathLike, skipped_papers: list[str],
                     coverage: list[dict] | None = None) -> dict:
    """The results.json object: run metadata, one entry per claim (:meth:`ClaimResult.to_json`, with the
    claim's ``explanation`` — what breaks when it fails as printed — added where absent), the statement index of
    the papers checked (``coverage``) and ``format_version`` (:data:`RESULTS_FORMAT_VERSION`)."""
    claims = []
    for r in results:
        entry = r.to_json()
        entry.setdefault("explanation", r.claim.explanation)
        for key in ("counterexample", "worst_counterexample"):
            if entry.get(key):
                entry[key] = os.path.relpath(entry[key], out_dir)
        claims.append(entry)
    return {
        "format_version": RESULTS_FORMAT_VERSION,
        "rnnaudit_version": version(),
        "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "device": device, "dtype": dtype, "seed": seed, "profile": profile,
        "papers_without_claims": skipped_papers,
        "figures": [{"caption": c, "path": os.path.relpath(p, out_dir)} for c, p in figures],
        "claims": claims,
        "coverage": coverage or [],
    }


def _md_ratio(c: dict) -> str:
    r = shown_ratio(c)
    return "–" if r is None else fmt_number(r)


def render_markdown(doc: dict, out_dir: str | os.PathLike | None = None) -> str:
    """report.md, summary first: verdict counts per paper, the claims that fail as printed worst first (what
    breaks, their readings, corrected form, reproduce command), the claims table, then each claim's statement,
    assumptions, tightness and notes, then the figures.

    Every string of ``doc`` is data (a results.json may come from anywhere): it enters as escaped text
    (:func:`rnnaudit.figures.escaping.md_text`) or as a code span (:func:`~rnnaudit.figures.escaping.md_code`),
    never as markup; a figure whose path leaves the report's directory (``out_dir``, where given: a symlink there
    resolving outside it too) is named, not shown.

    Raises:
        ValueError: a document whose structure the report cannot read (:func:`check_document`)."""
    check_document(doc)
    claims = doc.get("claims", [])
    by_id = {c["id"]: c for c in claims}
    papers = papers_of(doc)
    lines = [
        "# rnnaudit report", "",
        f"rnnaudit {md_text(doc.get('rnnaudit_version', '?'))}, created {md_text(doc.get('created', '?'))}, device "
        f"{md_code(doc.get('device', '?'))}, dtype {md_code(doc.get('dtype', '?'))}, seed "
        f"{md_text(doc.get('seed', '?'))}, profile {md_code(doc.get('profile', '?'))}.", "",
        "## Summary", "",
        "| paper | claims | " + " | ".join(VERDICT_ORDER) + " |",
        "|---|---:|" + "---:|" * len(VERDICT_ORDER),
    ]
    for p in papers:
        mine = [c for c in claims if (c.get("paper") or c["id"].split(".", 1)[0]) == p]
        counts = verdict_counts(mine)
        lines.append(f"| {md_text(p)} | {len(mine)} | " + " | ".join(str(counts[v]) for v in VERDICT_ORDER) + " |")
    total = verdict_counts(claims)
    lines.append(f"| **all** | {len(claims)} | " + " | ".join(str(total[v]) for v in VERDICT_ORDER) + " |")
    lines += ["", "Ratios are measured/bound: above 1 means the statement fails on that case. `worst` is the largest "
              "ratio over random and adversarial cases that satisfy the claim's assumptions; vacuous and inconclusive "
              "claims have none. `false`: the statement as printed fails and no reading the paper's text supports "
              "holds; `misprinted`: it fails as printed but a supported reading holds (docs/verdicts.md)."]
    if doc.get("papers_without_claims"):
        lines += ["", "Papers selected with no claims implemented yet: "
                  + ", ".join(md_text(p) for p in doc["papers_without_claims"]) + "."]
    failing = failing_worst_first(claims)
    if failing:
        lines += ["", "## Claims that fail as printed (false, misprinted), worst first"]
        for c in failing:
            lines += ["", f"### {md_code(c['id'])} ({md_text(c['verdict'])}): measured/bound = {_md_ratio(c)}", "",
                      f"*Source:* {md_text(c.get('source'))}"]
            if what_breaks(c):
                lines += ["", f"*What breaks:* {md_text(what_breaks(c))}"]
            lines += _md_readings(c)
            fixed = corrected_of(c, by_id)
            if fixed is not None:
                lines += ["", f"*Corrected form:* {md_code(fixed['id'])} ({md_text(fixed.get('verdict'))}): "
                              f"{md_text(fixed.get('statement'))}"]
            if c.get("counterexample"):
                lines += ["", f"*Reproduce* (from this directory): {md_code(_reproduce(c['counterexample']))}"]
    lines += _method_disagreements(claims)
    lines += ["", "## All claims", "", "| claim | source | verdict | worst ratio | what breaks |",
              "|---|---|---|---|---|"]
    for c in claims:
        lines.append(f"| {md_code(c['id'])} | {md_text(c.get('source'))} | **{md_text(c.get('verdict'))}** | "
                     f"{_md_ratio(c)} | {md_text(what_breaks(c))} |")
    for c in claims:
        lines += ["", f"## {md_code(c['id'])}: {md_text(c.get('verdict'))}", "",
                  f"*Source:* {md_text(c.get('source'))}", "", f"*Statement:* {md_text(c.get('statement'))}", "",
                  f"*Measured:* {md_text(c.get('measure', '–'))}. *Bound:* {md_text(c.get('bound', '–'))}.", "",
                  "*Assumptions:* " + ("; ".join(md_text(a) for a in c.get("assumptions") or []) or "none stated")
                  + "."]
        lines += _md_readings(c)
        if shown_ratio(c) is not None:
            found = c.get("worst_parts_found_by") or {}  # absent from results.json files written before it
            lines += ["", "| part | worst ratio | found by |", "|---|---|---|"]
            parts = (c.get("worst_parts") or {}).items()
            lines += [f"| {md_text(part)} | {fmt_number(ratio)} | {md_text(found.get(part) or '–')} |"
                      for part, ratio in parts]
            by_T = (c.get("tightness") or {}).get("by_T") or {}
            if by_T:
                lines += ["", "Worst ratio by T: " + ", ".join(f"T = {md_text(t)}: {fmt_number(v)}"
                                                             for t, v in by_T.items()) + "."]
        if c.get("notes"):
            lines += ["", md_text(c["notes"])]
        if c.get("counterexample"):
            lines += ["", f"Counterexample: {md_code(c['counterexample'])} (reproduce with "
                          f"{md_code(_reproduce(c['counterexample']))} from this directory)."]
    if doc.get("figures"):
        lines += ["", "## Figures"] + markdown_figures(doc["figures"], out_dir)
    return "\n".join(lines) + "\n"


def _reproduce(path) -> str:
    """The command that re-measures a saved counterexample, its path shell-quoted (a name with a space or ``$``)."""
    return f"rnnaudit reproduce {shlex.quote(str(path))}"



def _method_disagreements(claims: list[dict]) -> list[str]:
    """The claim parts where the gradient ascent and the global optimiser (results.json ``search.methods``)
    found best ratios more than AGREEMENT_LOG_TOL apart in log, the optimiser's worse (larger) finds first."""
    rows = [(c["id"], part, a, g) for c in claims for part, a, g in disagreements(c.get("search"))]
    searched = sum(1 for c in claims if (c.get("search") or {}).get("methods"))
    if not searched:
        return []
    out = ["", "## Search methods that disagree", "",
           f"{searched} claims were searched by both projected gradient ascent and a global optimiser at their "
           f"smallest size (differential evolution with the ascent's budget for at most 20 free parameters, CMA-ES "
           f"for more); listed: every part where "
           f"the best ratios differ by more than {AGREEMENT_LOG_TOL:g} in log. A larger ratio from the optimiser "
           "means the ascent missed a worse case; a smaller one may be the optimiser's single, smallest size."]
    if not rows:
        return out + ["", "None."]
    out += ["", "| claim | part | ascent | global optimiser |", "|---|---|---:|---:|"]
    rows.sort(key=lambda r: (not r[3] > r[2], r[0]))
    out += [f"| {md_code(i)} | {md_text(part)} | {fmt_number(a)} | {fmt_number(g)} |" for i, part, a, g in rows]
    return out


def _md_readings(c: dict) -> list[str]:
    """The claim's readings as a table (name, statement, verdict, worst ratio, the text that supports it)."""
    readings = c.get("readings") or []
    if not readings:
        return []
    printed = "fails" if fails(c) else c.get("verdict")
    rows = [f"| printed | {md_text(c.get('statement'))} | {md_text(printed)} | {_md_ratio(c)} | – |"]
    for r in readings:
        ratio = r.get("worst_ratio")
        shown = "–" if ratio is None or r.get("verdict") not in ("holds", "false") else fmt_number(
            float("inf") if ratio == "inf" else ratio)
        rows.append(f"| {md_text(r.get('name'))} | {md_text(r.get('statement'))} | {md_text(r.get('verdict'))} | "
                    f"{shown} | {md_text(r.get('support', ''))} |")
    return ["", "*Readings:*", "", "| reading | statement | verdict | worst ratio | supported by |",
            "|---|---|---|---|---|", *rows]


def write_results(doc: dict, out_dir: str | os.PathLike) -> None:
    """Write results.json, report.md and the self-contained report.html into ``out_dir`` (``str``
    or path), each atomically."""
    out_dir = Path(out_dir)
    write_json_atomic(out_dir / "results.json", doc)
    write_text_atomic(out_dir / "report.md", render_markdown(doc, out_dir))
    write_text_atomic(out_dir / "report.html", render_html(doc, out_dir))
