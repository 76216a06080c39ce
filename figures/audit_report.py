"""report.md and report.html of ``rnnaudit audit``, summary first: the model (type, sizes, parameter count,
and ‖W‖₂, ρ(W), σ_min, ‖WᵀW − I‖₂ of each recurrent matrix), then how many claims
apply to it, how many have an assumption failing on it and how many are violated inside their
assumptions; then the tables of claims that apply and do not apply, and when each assumption
first failed. The document is the one :func:`rnnaudit.auditing.audit_run` /
:func:`rnnaudit.auditing.audit_checkpoint` produce (with ``source`` and optional ``figures``)."""

from __future__ import annotations

import html
import os

from rnnaudit.figures.html import anchor, breakable_id, fmt_number, number_html, page, rich
from rnnaudit.figures.report_html import embedded_figures

__all__ = ["render_audit_markdown", "render_audit_html", "audit_counts"]

esc = html.escape


def _split(latest: dict) -> tuple[list[dict], list[dict]]:
    """The claims that apply to the audited model, and those that do not."""
    return ([c for c in latest["claims"] if c["applies"]], [c for c in latest["claims"] if not c["applies"]])


def _failing(c: dict) -> list[dict]:
    return [a for a in c.get("assumptions") or [] if a["holds"] is False]  # None: not evaluated


def audit_counts(latest: dict) -> dict[str, int]:
    """Counts for the summary: claims that apply, with every assumption holding, with an assumption
    failing, violated inside their assumptions, and not applicable."""
    applies, other = _split(latest)
    return {"apply to this model": len(applies),
            "assumptions hold": sum(bool(c.get("assumptions")) and not _failing(c) for c in applies),
            "an assumption fails": sum(bool(_failing(c)) for c in applies),
            "violated inside the assumptions": sum(c.get("verdict") == "violated" and not _failing(c)
                                                   for c in applies),
            "do not apply": len(other)}


def _bound_text(c: dict) -> str:
    if c.get("verdict") is None:
        return "–"
    if c["verdict"] in ("holds", "violated") and c.get("worst_ratio") is not None:
        return f"{c['verdict']}, worst ratio {fmt_number(c['worst_ratio'])}"
    return c["verdict"]


def _holds_word(holds, fails: str = "FAILS") -> str:
    return "not evaluated" if holds is None else "holds" if holds else fails


def _assumption_text(c: dict) -> str:
    return "; ".join(f"{_holds_word(a['holds'])}: {a['name']} ({a['detail']})"
                     for a in c.get("assumptions") or []) or "–"


def _model_line(doc: dict) -> tuple[str, dict]:
    latest = doc["latest"]
    cfg = latest.get("config") or {}
    return (f"cell `{cfg.get('cell', '?')}`, task `{cfg.get('task', '?')}`, T = {cfg.get('T', '?')}, "
            f"h = {cfg.get('hidden_size', '?')}, step {latest.get('step', '?')}"), cfg


def _model_of(doc: dict) -> dict | None:
    """The model summary (:func:`rnnaudit.auditing.summary.model_summary`) of the document, if it has one."""
    model = doc.get("model") or doc["latest"].get("model")
    return model if isinstance(model, dict) else None


def _model_facts(model: dict) -> list[tuple[str, str]]:
    names = (("type", "type"), ("input_size", "input size"), ("hidden_size", "hidden size"),
             ("parameters", "trainable parameters"), ("trained_dtype", "trained in"))
    return [(label, str(model[key])) for key, label in names if key in model]


_MATRIX_COLUMNS = (("spectral_norm", "‖W‖₂"), ("spectral_radius", "ρ(W)"), ("sigma_min", "σ_min(W)"),
                   ("orthogonality_defect", "‖WᵀW − I‖₂"))


def _matrix_cells(entry: dict, fmt=fmt_number) -> list[str]:
    if not entry.get("finite", True):
        return ["not finite"] * len(_MATRIX_COLUMNS)
    return [fmt(entry[key]) if key in entry else "–" for key, _ in _MATRIX_COLUMNS]


def _model_markdown(model: dict) -> list[str]:
    lines = ["## Model", "", "| | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in _model_facts(model)]
    recurrent = model.get("recurrent") or {}
    if recurrent:
        lines += ["", "| recurrent matrix | shape | " + " | ".join(h for _, h in _MATRIX_COLUMNS) + " |",
                  "|---|---|" + "---:|" * len(_MATRIX_COLUMNS)]
        lines += [f"| {role} | {' × '.join(map(str, e.get('shape', [])))} | " + " | ".join(_matrix_cells(e)) + " |"
                  for role, e in recurrent.items()]
    return lines + [""]


def _model_html(model: dict) -> str:
    facts = "".join(f"<tr><th scope='row'>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in _model_facts(model))
    out = [f"<table class='counts'><tbody>{facts}</tbody></table>"]
    recurrent = model.get("recurrent") or {}
    if recurrent:
        head = "".join(f"<th class='num'>{esc(h)}</th>" for _, h in _MATRIX_COLUMNS)
        rows = "".join(f"<tr><td>{rich(role)}</td><td>{esc(' × '.join(map(str, e.get('shape', []))))}</td>"
                       + "".join(f"<td class='num'>{v}</td>" for v in _matrix_cells(e, number_html)) + "</tr>"
                       for role, e in recurrent.items())
        out.append(f"<div class='table-wrap'><table><thead><tr><th>recurrent matrix</th><th>shape</th>{head}</tr>"
                   f"</thead><tbody>{rows}</tbody></table></div>")
    return f"<section id='model'><h2>Model</h2>{''.join(out)}</section>"


def render_audit_markdown(doc: dict) -> str:
    """report.md of ``rnnaudit audit``, summary first (see the module docstring)."""
    latest = doc["latest"]
    applies, other = _split(latest)
    model, _ = _model_line(doc)
    counts = audit_counts(latest)
    summary = _model_of(doc)
    lines = ["# rnnaudit audit", "", f"Source: `{doc['source']}`: {model}.", ""]
    lines += _model_markdown(summary) if summary else []
    lines += ["## Summary", "",
             "| claims | number |", "|---|---:|"] + [f"| {k} | {v} |" for k, v in counts.items()]
    violated = [c for c in applies if c.get("verdict") == "violated" and not _failing(c)]
    if violated:
        lines += ["", "Violated on this model, inside the assumptions: "
                  + ", ".join(f"`{c['id']}` (worst ratio {fmt_number(c['worst_ratio'])})" for c in violated) + "."]
    failing = [c for c in applies if _failing(c)]
    if failing:
        lines += ["", "Assumptions failing on this model (the theorem says nothing here): "
                  + "; ".join(f"`{c['id']}`: " + ", ".join(a["name"] for a in _failing(c)) for c in failing) + "."]
    if latest.get("bounds_not_measured"):
        lines += ["", f"**{latest['bounds_not_measured'][0].upper()}{latest['bounds_not_measured'][1:]}.**"]
    lines += ["", "Assumptions are evaluated on the trained parameters; bounds are measured on sequences of the run's "
              "own task, with any bias absorbed into W as sgornn.md eq. 5 allows. A bound measured where its "
              "assumptions fail is not a guarantee of the theorem.", "",
              "## Claims that apply to this model", "",
              "| claim | reading | bound on the model | assumptions |", "|---|---|---|---|"]
    for c in applies:
        lines.append(f"| `{c['id']}` | {c['reading']} | {_bound_text(c)} | {_assumption_text(c)} |")
    if other:
        lines += ["", "## Claims that do not apply", "", "| claim | why |", "|---|---|"]
        lines += [f"| `{c['id']}` | {c['reason']} |" for c in other]
    if "first_failure" in doc:
        lines += ["", "## When each assumption first failed", "", "| assumption | first failing step |", "|---|---|"]
        for name, step in doc["first_failure"].items():
            lines.append(f"| {name} | {'never' if step is None else step} |")
    for f in doc.get("figures", []):
        lines += ["", f"![{f['caption']}]({f['path']})"]
    return "\n".join(lines) + "\n"


def _reading_badge(c: dict) -> str:
    kind = ("violated" if c.get("verdict") == "violated" and not _failing(c) else
            "vacuous" if _failing(c) else "holds" if c.get("assumptions") else "not-measured")
    return f"<span class='verdict reading v-{kind}'>{esc(c['reading'])}</span>"


def _assumption_list(c: dict) -> str:
    items = "".join(f"<li>{_holds_word(a['holds'], '<strong>FAILS</strong>')}: {rich(a['name'])} "
                    f"<span class='muted'>({rich(a['detail'])})</span></li>" for a in c.get("assumptions") or [])
    return f"<ul>{items}</ul>" if items else "–"


def _unique_ids(claims: list[dict]) -> dict[int, str]:
    """An anchor per entry: ``claim-<id>``, with ``-2``, ``-3`` for an id listed twice (a model
    constraint such as FastRNN's eq. 4 beside the claim of the same id)."""
    seen: dict[str, int] = {}
    out = {}
    for c in claims:
        base = anchor("claim", c["id"])
        seen[base] = seen.get(base, 0) + 1
        out[id(c)] = base if seen[base] == 1 else f"{base}-{seen[base]}"
    return out


def render_audit_html(doc: dict, out_dir: str | os.PathLike) -> str:
    """Self-contained report.html of ``rnnaudit audit``, summary first, with the same tables as
    :func:`render_audit_markdown` and the trajectory figure embedded.

    Args:
        doc: the audit document (``source``, ``latest``, optional ``first_failure``, ``figures``).
        out_dir: the directory the figure paths are relative to (``str`` or path).
    """
    latest = doc["latest"]
    applies, other = _split(latest)
    _, cfg = _model_line(doc)
    counts = audit_counts(latest)
    count_rows = "".join(f"<tr><td>{esc(k)}</td><td class='num'>{v}</td></tr>" for k, v in counts.items())
    violated = [c for c in applies if c.get("verdict") == "violated" and not _failing(c)]
    failing = [c for c in applies if _failing(c)]
    model = _model_of(doc)
    toc = ["<li><a href='#model'>Model</a></li>"] if model else []
    toc += ["<li><a href='#summary'>Summary</a></li>", "<li><a href='#applies'>Claims that apply</a></li>"]
    if other:
        toc.append("<li><a href='#not-applicable'>Claims that do not apply</a></li>")
    if "first_failure" in doc:
        toc.append("<li><a href='#first-failure'>First failures</a></li>")
    if doc.get("figures"):
        toc.append("<li><a href='#figures'>Figures</a></li>")
    summary = [f"<table class='counts'><thead><tr><th>claims</th><th class='num'>number</th></tr></thead>"
               f"<tbody>{count_rows}</tbody></table>"]
    if violated:
        summary.append("<p><span class='label'>Violated on this model, inside the assumptions:</span> "
                       + ", ".join(f"<a href='#{anchor('claim', c['id'])}'><code>{esc(c['id'])}</code></a> "
                                   f"(worst ratio {number_html(c['worst_ratio'])})" for c in violated) + ".</p>")
    if failing:
        summary.append("<p><span class='label'>Assumptions failing on this model</span> (the theorem says nothing "
                       "here): " + "; ".join(f"<a href='#{anchor('claim', c['id'])}'><code>{esc(c['id'])}</code></a>: "
                                            + ", ".join(rich(a["name"]) for a in _failing(c)) for c in failing)
                       + ".</p>")
    ids = _unique_ids(latest["claims"])
    rows = "".join(f"<tr id='{ids[id(c)]}'><td>{breakable_id(c['id'])}</td><td>{_reading_badge(c)}</td>"
                   f"<td>{esc(_bound_text(c))}</td><td>{_assumption_list(c)}</td></tr>" for c in applies)
    parts = ["<header><h1>rnnaudit audit</h1>",
             f"<p class='meta'>Source <code>{esc(str(doc['source']))}</code> · cell <code>{esc(str(cfg.get('cell')))}"
             f"</code> · task <code>{esc(str(cfg.get('task')))}</code> · T = {esc(str(cfg.get('T')))} · h = "
             f"{esc(str(cfg.get('hidden_size')))} · step {esc(str(latest.get('step')))}</p>",
             f"<nav class='toc' aria-label='Contents'><ol>{''.join(toc)}</ol></nav></header>",
             _model_html(model) if model else "",
             f"<section id='summary'><h2>Summary</h2>{''.join(summary)}<p class='muted'>Assumptions are evaluated on "
             "the trained parameters; bounds are measured on sequences of the run's own task, with any bias absorbed "
             "into W as sgornn.md eq. 5 allows. A bound measured where its assumptions fail is not a guarantee of the "
             "theorem.</p></section>",
             "<section id='applies'><h2>Claims that apply to this model</h2><div class='table-wrap'><table><thead><tr>"
             "<th>claim</th><th>reading</th><th>bound on the model</th><th>assumptions</th></tr></thead>"
             f"<tbody>{rows}</tbody></table></div></section>"]
    if other:
        orows = "".join(f"<tr id='{ids[id(c)]}'><td>{breakable_id(c['id'])}</td>"
                        f"<td>{rich(c['reason'])}</td></tr>" for c in other)
        parts.append("<section id='not-applicable'><h2>Claims that do not apply</h2><div class='table-wrap'><table>"
                     f"<thead><tr><th>claim</th><th>why</th></tr></thead><tbody>{orows}</tbody></table></div>"
                     "</section>")
    if "first_failure" in doc:
        frows = "".join(f"<tr><td>{rich(k)}</td><td class='num'>{'never' if v is None else v}</td></tr>"
                        for k, v in doc["first_failure"].items())
        parts.append("<section id='first-failure'><h2>When each assumption first failed</h2><div class='table-wrap'>"
                     "<table><thead><tr><th>assumption</th><th class='num'>first failing step</th></tr></thead>"
                     f"<tbody>{frows}</tbody></table></div></section>")
    if doc.get("figures"):
        parts.append(f"<section id='figures'><h2>Figures</h2>{embedded_figures(doc['figures'], out_dir)}</section>")
    return page("rnnaudit audit", "".join(parts))
