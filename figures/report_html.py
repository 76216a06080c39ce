"""report.html of ``rnnaudit check``, summary first.

Order: a table of contents; the verdict counts per paper; the claims that fail as printed (``false``,
``misprinted``), worst first, each with what breaks, its readings, its corrected form and the
``rnnaudit reproduce`` command; the full table (sortable by verdict and by ratio, with a "what
breaks" column); per paper its coverage and every claim with statement, assumptions and readings,
under an anchor ``#claim-<id>``; the figures, embedded (only from the report's own directory). One
self-contained file that works offline. Every string of the document is escaped (``html.escape``).
"""

from __future__ import annotations

import html
import os
import shlex

from rnnaudit.figures.html import VERDICT_ORDER, anchor, breakable_id, number_html, page, rich, verdict_badge
from rnnaudit.figures.report_data import (check_document, corrected_of, coverage_by_paper, gist, papers_of,
                                          shown_ratio, verdict_counts, failing_worst_first, fails, what_breaks)
from rnnaudit.figures.report_figures import embedded_figures

__all__ = ["render_html", "embedded_figures"]

esc = html.escape


def _link(claim_id: str) -> str:
    return f"<a href='#{anchor('claim', claim_id)}'>{breakable_id(claim_id)}</a>"


def _ratio_text(claim: dict) -> str:
    r = shown_ratio(claim)
    if r is None:
        return "<span class='muted' title='no ratio: see the verdict'>–</span>"
    return number_html(r)


def _exact_note(claim: dict) -> str:
    exact = claim.get("exact")
    if not isinstance(exact, dict) or not exact.get("verdict"):
        return ""
    return f" <span class='exact'>exact: {esc(exact['verdict'])}</span>"


def _reproduce(path: str) -> str:
    return f"<code>rnnaudit reproduce {esc(shlex.quote(str(path)))}</code>"


def _meta(doc: dict) -> str:
    return (f"<p class='meta'>rnnaudit {esc(str(doc.get('rnnaudit_version', '?')))} · created "
            f"{esc(str(doc.get('created', '?')))} · device <code>{esc(str(doc.get('device', '?')))}</code> · dtype "
            f"<code>{esc(str(doc.get('dtype', '?')))}</code> · seed {esc(str(doc.get('seed', '?')))} · profile "
            f"<code>{esc(str(doc.get('profile', '?')))}</code></p>")


def _toc(doc: dict, papers: list[str], n_failing: int) -> str:
    paper_links = "".join(f"<li><a href='#{anchor('paper', p)}'>{esc(p)}</a></li>" for p in papers)
    items = ["<li><a href='#summary'>Summary</a></li>",
             f"<li><a href='#failing'>Claims that fail as printed ({n_failing})</a></li>",
             "<li><a href='#all-claims'>All claims</a></li>",
             f"<li>Claims by paper:<ol>{paper_links}</ol></li>"]
    if doc.get("figures"):
        items.append("<li><a href='#figures'>Figures</a></li>")
    return f"<nav class='toc' aria-label='Contents'><ol>{''.join(items)}</ol></nav>"


def _coverage_cell(rows: list[dict]) -> str:
    counts: dict[str, int] = {}
    for r in rows:
        counts[str(r.get("status", "?"))] = counts.get(str(r.get("status", "?")), 0) + 1
    return esc(", ".join(f"{n} {status}" for status, n in counts.items())) or "–"


def _summary(doc: dict, papers: list[str]) -> str:
    claims = doc.get("claims", [])
    coverage = coverage_by_paper(doc)
    total = verdict_counts(claims)
    extra = [v for v in total if v not in VERDICT_ORDER]
    verdicts = [*VERDICT_ORDER, *extra]
    head = "".join(f"<th class='num'>{esc(v)}</th>" for v in verdicts)
    cov_head = "<th>coverage</th>" if coverage else ""
    rows = []
    for p in papers:
        mine = [c for c in claims if (c.get("paper") or c["id"].split(".", 1)[0]) == p]
        counts = verdict_counts(mine)
        cells = "".join(f"<td class='num'>{counts[v] or '·'}</td>" for v in verdicts)
        cov = f"<td>{_coverage_cell(coverage.get(p, []))}</td>" if coverage else ""
        rows.append(f"<tr><td><a href='#{anchor('paper', p)}'>{esc(p)}</a></td><td class='num'>{len(mine)}</td>"
                    f"{cells}{cov}</tr>")
    cells = "".join(f"<td class='num'>{total[v]}</td>" for v in verdicts)
    rows.append(f"<tr class='total'><td>all papers</td><td class='num'>{len(claims)}</td>{cells}"
                f"{'<td></td>' if coverage else ''}</tr>")
    sentence = ", ".join(f"{total[v]} {v}" for v in verdicts if total[v])
    skipped = doc.get("papers_without_claims") or []
    note = (f"<p class='muted'>Selected papers with no claims implemented yet: {esc(', '.join(skipped))}.</p>"
            if skipped else "")
    return (f"<section id='summary'><h2>Summary</h2><p class='lede'><strong>{len(claims)} claims checked:"
            f"</strong> {esc(sentence)}.</p><div class='table-wrap'><table class='summary'>"
            f"<thead><tr><th>paper</th><th class='num'>claims</th>{head}{cov_head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div>{note}"
            "<p class='muted'>Ratio: measured/bound, worst over the cases inside the assumptions (above 1: fails). "
            "<em>false</em>: fails as printed, no reading the text supports holds; <em>misprinted</em>: a "
            "supported reading holds.</p></section>")


def _violations(doc: dict, by_id: dict) -> str:
    items = []
    for c in failing_worst_first(doc.get("claims", [])):
        parts = [f"<div class='head'>{_link(c['id'])} {verdict_badge(c.get('verdict'))} "
                 "<span class='ratio'>measured/bound = "
                 f"{number_html(shown_ratio(c))}</span>{_exact_note(c)} <span class='src'>{rich(c.get('source'))}"
                 "</span></div>"]
        breaks = what_breaks(c)
        if breaks:
            parts.append(f"<p><span class='label'>What breaks:</span> {rich(breaks)}</p>")
        if c.get("readings"):
            parts.append(f"<p><span class='label'>Readings:</span></p>{_readings_table(c)}")
        fixed = corrected_of(c, by_id)
        if fixed is not None:
            parts.append(f"<p><span class='label'>Corrected form:</span> {_link(fixed['id'])} "
                         f"{verdict_badge(fixed.get('verdict'))} {rich(fixed.get('statement'))}</p>")
        if c.get("counterexample"):
            parts.append(f"<p><span class='label'>Reproduce:</span> {_reproduce(c['counterexample'])} "
                         "<span class='muted'>(from this report's directory)</span></p>")
        items.append(f"<li class='violation' id='{anchor('failing', c['id'])}'>{''.join(parts)}</li>")
    body = (f"<ol class='violations'>{''.join(items)}</ol>" if items
            else "<p>No claim fails as printed.</p>")
    return f"<section id='failing'><h2>Claims that fail as printed, worst first</h2>{body}</section>"


def _readings_table(c: dict) -> str:
    """The printed form and each reading: statement, verdict, worst ratio, the text that supports the reading."""
    printed = "fails" if fails(c) else c.get("verdict")
    rows = [f"<tr><td>printed</td><td>{rich(c.get('statement'))}</td><td>{verdict_badge(printed)}</td>"
            f"<td class='num'>{_ratio_text(c)}</td><td>–</td></tr>"]
    for r in c.get("readings") or []:
        ratio = r.get("worst_ratio")
        shown = (number_html(float("inf") if ratio == "inf" else ratio)
                 if ratio is not None and r.get("verdict") in ("holds", "false") else "–")
        rows.append(f"<tr><td>{rich(r.get('name'))}</td><td>{rich(r.get('statement'))}</td>"
                    f"<td>{verdict_badge(r.get('verdict'))}</td><td class='num'>{shown}</td>"
                    f"<td>{rich(r.get('support'))}</td></tr>")
    return ("<div class='table-wrap'><table class='readings'><thead><tr><th>reading</th><th>statement</th>"
            "<th>verdict</th><th class='num'>worst ratio</th><th>supported by</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _breaks_gist(claim: dict) -> str:
    text, cut = gist(what_breaks(claim))
    more = f" <a href='#{anchor('claim', claim['id'])}' class='more'>more</a>" if cut else ""
    return rich(text) + more


def _full_table(doc: dict) -> str:
    rank = {v: len(VERDICT_ORDER) - i for i, v in enumerate(VERDICT_ORDER)}
    rows = []
    for i, c in enumerate(doc.get("claims", [])):
        r = shown_ratio(c)
        data_ratio = "-1" if r is None else ("Infinity" if r == float("inf") else repr(r))
        rows.append(
            f"<tr data-order='{i}' data-verdict='{rank.get(c.get('verdict'), 0)}' data-ratio='{data_ratio}'>"
            f"<td>{_link(c['id'])}</td><td>{verdict_badge(c.get('verdict'))}{_exact_note(c)}</td>"
            f"<td class='num'>{_ratio_text(c)}</td><td>{_breaks_gist(c)}</td>"
            f"<td class='hide-narrow'>{rich(c.get('source'))}</td></tr>")
    return ("<section id='all-claims'><h2>All claims</h2><p class='muted'>Sort by verdict or by worst ratio with "
            "the column buttons.</p><div class='table-wrap'><table class='sortable claims'><thead><tr>"
            "<th>claim</th><th><button type='button' data-sort='verdict'>verdict</button></th>"
            "<th class='num'><button type='button' data-sort='ratio'>worst ratio</button></th>"
            "<th>what breaks</th><th class='hide-narrow'>source</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div></section>")


def _field(name: str, value: str) -> str:
    return f"<dt>{esc(name)}</dt><dd>{value}</dd>" if value else ""


def _claim_article(c: dict, by_id: dict) -> str:
    r = shown_ratio(c)
    ratio = f"<span class='ratio'>worst ratio {number_html(r)}</span>" if r is not None else ""
    assumptions = "".join(f"<li>{rich(a)}</li>" for a in c.get("assumptions") or [])
    fields = [
        _field("Source", rich(c.get("source"))),
        _field("Statement", rich(c.get("statement"))),
        _field("Assumptions", f"<ul>{assumptions}</ul>" if assumptions else "none stated"),
        _field("Measured", rich(c.get("measure"))),
        _field("Bound", rich(c.get("bound"))),
        _field("What breaks", rich(what_breaks(c))),
        _field("Readings", _readings_table(c) if c.get("readings") else ""),
    ]
    fixed = corrected_of(c, by_id)
    if fixed is not None:
        fields.append(_field("Corrected form", f"{_link(fixed['id'])} {verdict_badge(fixed.get('verdict'))}"))
    if c["id"].endswith(".corrected") and c["id"].removesuffix(".corrected") in by_id:
        fields.append(_field("Corrects", _link(c["id"].removesuffix(".corrected"))))
    if c.get("applies") is False:
        fields.append(_field("Applies", f"no: {rich(c.get('reason') or 'no reason given')}"))
    exact = c.get("exact")
    if isinstance(exact, dict) and exact.get("verdict"):
        fields.append(_field("Exact check", f"{verdict_badge(exact['verdict'])} {rich(exact.get('detail'))}"))
    if "supremum" in c:
        fields.append(_field("Supremum of the ratio", number_html(c["supremum"]) if c["supremum"] is not None
                             else "not known"))
    if c.get("relative_error") is not None:
        fields.append(_field("Relative error of the measurement", number_html(c["relative_error"], 2)))
    if c.get("counterexample"):
        fields.append(_field("Counterexample", f"<code>{esc(c['counterexample'])}</code>: "
                                               f"{_reproduce(c['counterexample'])}"))
    if c.get("worst_counterexample"):
        fields.append(_field("Worst counterexample", f"<code>{esc(c['worst_counterexample'])}</code>: "
                                                     f"{_reproduce(c['worst_counterexample'])}"))
    cases = f"{esc(str(c.get('n_cases', '?')))} cases"
    if r is not None and c.get("median_ratio") is not None:
        cases += f", median ratio {number_html(c['median_ratio'])}"
    fields.append(_field("Cases", cases))
    parts = c.get("worst_parts") or {}
    if parts and r is not None and len(parts) > 1:
        found = c.get("worst_parts_found_by") or {}  # absent from results.json files written before it
        fields.append(_field("Worst ratio by part", "; ".join(
            f"{rich(k)}: {number_html(v)}" + (f" ({esc(str(found[k]))})" if found.get(k) else "")
            for k, v in parts.items())))
    by_T = (c.get("tightness") or {}).get("by_T") or {}
    if by_T and r is not None:
        fields.append(_field("Worst ratio by T", ", ".join(f"T = {esc(t)}: {number_html(v)}"
                                                           for t, v in by_T.items())))
    notes = c.get("notes") or ""
    if notes and notes != what_breaks(c):
        fields.append(_field("Notes", rich(notes)))
    return (f"<article class='claim' id='{anchor('claim', c['id'])}'><h3><code>{esc(c['id'])}</code> "
            f"{verdict_badge(c.get('verdict'))}{_exact_note(c)} {ratio}</h3>"
            f"<dl class='fields'>{''.join(fields)}</dl></article>")


def _coverage_table(rows: list[dict]) -> str:
    body = "".join(
        f"<tr><td>{rich(r.get('label'))}</td><td>{esc(str(r.get('status', '')))}</td>"
        f"<td>{' '.join(_link(cid) for cid in r.get('claims') or []) or '–'}</td><td>{rich(r.get('reason'))}</td></tr>"
        for r in rows)
    return ("<h3>Coverage of the paper's stated results</h3><div class='table-wrap'><table class='coverage'><thead><tr>"
            f"<th>result</th><th>status</th><th>claims</th><th>reason</th></tr></thead><tbody>{body}</tbody></table>"
            "</div>")


def _papers(doc: dict, papers: list[str], by_id: dict) -> str:
    coverage = coverage_by_paper(doc)
    out = []
    for p in papers:
        mine = [c for c in doc.get("claims", []) if (c.get("paper") or c["id"].split(".", 1)[0]) == p]
        cov = _coverage_table(coverage[p]) if p in coverage else ""
        out.append(f"<section id='{anchor('paper', p)}'><h2>{esc(p)}: {len(mine)} claims</h2>{cov}"
                   f"{''.join(_claim_article(c, by_id) for c in mine)}</section>")
    return "".join(out)


def render_html(doc: dict, out_dir: str | os.PathLike) -> str:
    """The self-contained report.html of a results.json document (see the module docstring).

    Args:
        doc: the results.json object (:func:`rnnaudit.figures.report.results_document`); optional
            fields (``coverage``; per claim ``explanation``, ``worst_counterexample``,
            ``relative_error``, ``exact``, ``supremum``) are shown when present.
        out_dir: the directory the figure paths are relative to (``str`` or path).

    Returns:
        the HTML text.
    """
    check_document(doc)
    by_id = {c["id"]: c for c in doc.get("claims", [])}
    papers = papers_of(doc)
    n_failing = sum(fails(c) for c in doc.get("claims", []))
    parts = ["<header><h1>rnnaudit report</h1>", _meta(doc), _toc(doc, papers, n_failing), "</header>",
             _summary(doc, papers), _violations(doc, by_id), _full_table(doc), _papers(doc, papers, by_id)]
    if doc.get("figures"):
        parts.append(f"<section id='figures'><h2>Figures</h2>{embedded_figures(doc['figures'], out_dir)}</section>")
    return page("rnnaudit report", "".join(parts))
