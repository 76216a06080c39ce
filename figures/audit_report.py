"""report.md and report.html of ``rnnaudit audit``, summary first: the model (type, the module's own hidden
size, the state layout, parameter count, and ‖W‖₂, ρ(W), σ_min, ‖WᵀW − I‖₂ where it means something, of each
recurrent matrix), then how many claims apply to it, how many have an assumption failing on it and how many
have their bound exceeded inside their assumptions; the diagnostics every model gets, per layer, and one
line per failing assumption (what is measured instead, the remedy); then the tables of claims that apply
and do not apply, and when each assumption first failed. The document is the one :func:`rnnaudit.auditing.audit_run` /
:func:`rnnaudit.auditing.audit_checkpoint` produce (with ``source`` and optional ``figures``)."""

from __future__ import annotations

import html
import os

from rnnaudit.figures.escaping import md_code, md_text
from rnnaudit.figures.html import anchor, breakable_id, fmt_number, number_html, page, rich
from rnnaudit.figures.report_figures import embedded_figures, markdown_figures

__all__ = ["render_audit_markdown", "render_audit_html", "audit_counts"]

esc = html.escape


def _split(latest: dict) -> tuple[list[dict], list[dict]]:
    """The claims that apply to the audited model, and those that do not."""
    return ([c for c in latest["claims"] if c["applies"]], [c for c in latest["claims"] if not c["applies"]])


def _failing(c: dict) -> list[dict]:
    return [a for a in c.get("assumptions") or [] if a["holds"] is False]  # None: not evaluated


def _exceeded(c: dict) -> bool:
    """Assumptions hold and the bound is exceeded on the model: any measured verdict other than holds,
    vacuous and inconclusive (the papers' verdict words are never used for a model)."""
    if "exceeded" in c:
        return bool(c["exceeded"])
    return (bool(c.get("assumptions")) and not _failing(c)
            and c.get("verdict") not in (None, "holds", "vacuous", "inconclusive"))


def audit_counts(latest: dict) -> dict[str, int]:
    """Counts for the summary: claims that apply, with every assumption holding, with an assumption
    failing, with the bound exceeded inside their assumptions, and not applicable."""
    applies, other = _split(latest)
    return {"apply to this model": len(applies),
            "assumptions hold": sum(bool(c.get("assumptions")) and not _failing(c) for c in applies),
            "an assumption fails": sum(bool(_failing(c)) for c in applies),
            "bound exceeded, assumptions holding": sum(_exceeded(c) for c in applies),
            "do not apply": len(other)}


def _bound_text(c: dict) -> str:
    if c.get("verdict") is None:
        return "–"
    ratio = "" if c.get("worst_ratio") is None else f", worst ratio {fmt_number(c['worst_ratio'])}"
    if c["verdict"] in ("holds", "vacuous"):
        return f"holds{ratio}"
    if c["verdict"] == "inconclusive":
        return "inconclusive"
    return f"exceeded{ratio}"


def _claim_name(c: dict) -> str:
    return f"{c['id']} ({c['part']})" if c.get("part") else c["id"]


def _fmt_lyapunov(d: dict) -> str:
    out = []
    for v, u in zip(d.get("lyapunov") or [], d.get("lyapunov_halfwidth") or []):
        out.append(str(v) if isinstance(v, str) else fmt_number(v) + ("" if u is None else f" ± {fmt_number(u)}"))
    text = ", ".join(out) or "–"
    return text + (" (not converged)" if out and d.get("lyapunov_converged") is False else "")


_DIAG_COLUMNS = ("part", "state", "max step-Jacobian norm", "steps certified below 1", "memory horizon",
                 "top Lyapunov exponents (nats/step ± noise, finite-T bias and spread over sequences)", "‖∂L/∂h_0‖")


def _norm_label(d: dict) -> str:
    """The contractivity's one label without the part (the row names it): block and sequences."""
    from rnnaudit.analysis.diagnostics import contractivity_name

    return contractivity_name({**d, "part": None})


def _diag_columns(latest: dict) -> tuple:
    cols = _DIAG_COLUMNS if latest.get("initial_state_gradient") else _DIAG_COLUMNS[:-1]
    labels = {_norm_label(d) for d in latest.get("diagnostics") or []}
    if len(labels) == 1:  # every row the same quantity: its label heads the column, once
        cols = cols[:2] + (labels.pop(),) + cols[3:]
    return cols


def _diagnostic_rows(latest: dict) -> list[list[str]]:
    """One row per layer and direction: the diagnostics every model gets (‖∂L/∂h_0‖ with a loss)."""
    grads = {g["part"]: g["norm"] for g in (latest.get("initial_state_gradient") or {}).get("per_part", [])}
    width = len(_diag_columns(latest))
    one_label = len({_norm_label(d) for d in latest.get("diagnostics") or []}) == 1
    rows = []
    for d in latest.get("diagnostics") or []:
        horizon = (f"beyond T = {d['T']}" if d.get("horizon") is None else f"{d['horizon']} steps")
        norm = fmt_number(d["contractivity"]) if d.get("contractivity") is not None else "–"
        rows.append([d["part"], d["state"], norm if one_label else f"{norm}: {_norm_label(d)}",
                     f"{100 * d['contractive_fraction']:.0f}%", horizon, _fmt_lyapunov(d),
                     fmt_number(grads[d["part"]]) if d["part"] in grads else "–"][:width])
    return rows


def _diagnostics_markdown(latest: dict) -> list[str]:
    rows = _diagnostic_rows(latest)
    if not rows:
        return []
    d0 = latest["diagnostics"][0]
    block = str(d0.get("contractivity_block") or "")
    lines = ["## Diagnostics (every model, per layer)", "",
             f"Measured in float64 on the inputs (T = {md_text(d0.get('T'))}): the largest step-Jacobian norm over "
             "every sequence, of the state or block the column names"
             + (" (a block of the state, the rest held fixed: below 1 it is not yet a contraction of the step; "
                "a claim that assumes one reports the whole state's norm in its own line)"
                if block.endswith(" block") else " (< 1: a contraction where the data take it)")
             + f"; the smallest lag τ at which the median over t of ‖∂s_t/∂s_{{t−τ}}‖₂ of the whole state falls "
             f"below {d0['horizon_threshold']:g}, and its top Lyapunov exponents, on the first "
             f"{md_text(d0.get('sequences'))} sequence(s).", "",
             "| " + " | ".join(_diag_columns(latest)) + " |",
             "|---|---|" + "---:|" * (len(_diag_columns(latest)) - 2)]
    lines += ["| " + " | ".join(md_text(v) for v in r) + " |" for r in rows]
    return lines + [""]


# ------------------------------------------------------------------ fixed points (rnnaudit.auditing.attractors)

_FP_COLUMNS = ("part", "state", "starts", "fixed: stable / unstable / marginal", "slow points",
               "slowest stable mode: eigenvalue modulus (τ, steps)",
               "most unstable mode: eigenvalue modulus (unstable directions)")


def _fixed_point_rows(latest: dict) -> list[list[str]]:
    """One row per searched map: counts, the slowest stable mode and the most unstable one."""
    rows = []
    for f in latest.get("fixed_points") or []:
        slow, worst = f.get("slowest_stable_mode"), f.get("most_unstable_mode")
        rows.append([f["part"], str(f["state_size"]), f"{f['n_starts']} ({f['discarded']} discarded)",
                     f"{f['fixed']}: {f['stable']} / {f['unstable']} / {f['marginal']}", str(f["slow"]),
                     "–" if slow is None else f"{fmt_number(slow['modulus'])} ({fmt_number(slow['tau'])})",
                     "–" if worst is None else f"{fmt_number(worst['modulus'])} ({worst['unstable_directions']})"])
    return rows


_FP_TEXT = ("Fixed points and slow points of the step map h ↦ F(x*, h) under the data's mean input x* (Sussillo & "
            "Barak 2013), searched from states the data visit; a point is fixed when ‖F(h) − h‖ is at rounding level, "
            "slow when it is above that but under 1% of the data's own speed. Stable: every eigenvalue λ of ∂F/∂h "
            "inside the unit circle; a mode decays by a factor e in τ = −1/log(modulus of λ) steps.")


def _fixed_points_markdown(latest: dict) -> list[str]:
    rows = _fixed_point_rows(latest)
    if not rows:
        return []
    return (["## Fixed points", "", _FP_TEXT, "", "| " + " | ".join(_FP_COLUMNS) + " |",
             "|---|---:|---:|---:|---:|---:|---:|"] + ["| " + " | ".join(md_text(v) for v in r) + " |" for r in rows] + [""])


def _fixed_points_html(latest: dict) -> str:
    rows = _fixed_point_rows(latest)
    if not rows:
        return ""
    head = "".join(f"<th>{esc(h)}</th>" for h in _FP_COLUMNS)
    body = "".join("<tr>" + "".join(f"<td>{esc(str(v))}</td>" for v in r) + "</tr>" for r in rows)
    return (f"<section id='fixed-points'><h2>Fixed points</h2><p class='muted'>{esc(_FP_TEXT)}</p><div "
            f"class='table-wrap'><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div></section>")


def _notes_markdown(latest: dict) -> list[str]:
    notes = latest.get("notes") or []
    if not notes:
        return []
    return ["## Where an assumption fails", ""] + [f"- {md_text(n.get('line'))}" for n in notes] + [""]


def _holds_word(holds, fails: str = "FAILS") -> str:
    return "not evaluated" if holds is None else "holds" if holds else fails


def _assumption_text(c: dict) -> str:
    return "; ".join(f"{_holds_word(a['holds'])}: {a['name']} ({a['detail']})"
                     for a in c.get("assumptions") or []) or "–"


def _model_line(doc: dict) -> tuple[str, dict]:
    """The model's line in report.md (escaped: the cell may be a class name or a factory), and its config."""
    latest = doc["latest"]
    cfg = latest.get("config") or {}
    return (f"cell {md_code(cfg.get('cell', '?'))}, task {md_code(cfg.get('task', '?'))}, T = "
            f"{md_text(cfg.get('T', '?'))}, h = {md_text(cfg.get('hidden_size', '?'))}, step "
            f"{md_text(latest.get('step', '?'))}"), cfg


def _model_of(doc: dict) -> dict | None:
    """The model summary (:func:`rnnaudit.auditing.summary.model_summary`) of the document, if it has one."""
    model = doc.get("model") or doc["latest"].get("model")
    return model if isinstance(model, dict) else None


def _model_facts(model: dict) -> list[tuple[str, str]]:
    names = (("type", "type"), ("input_size", "input size"), ("hidden_size", "hidden size"),
             ("num_layers", "layers"), ("bidirectional", "bidirectional"), ("proj_size", "projection size"),
             ("state_layout", "state"), ("parameters", "trainable parameters"), ("trained_dtype", "trained in"))
    facts = [(label, str(model[key])) for key, label in names if key in model]
    mapping = model.get("mapping")
    if isinstance(mapping, dict):  # a pip implementation audited as a reference cell (rnnaudit.cells.packages)
        facts.append(("audited as", f"{mapping.get('reference')} (mapped from {mapping.get('module_class')}, "
                                    f"{mapping.get('package')})"))
        if mapping.get("max_abs_difference_float64") is not None:
            facts.append(("float64 max difference from the module's own forward",
                          f"{mapping['max_abs_difference_float64']:.3g} (tolerance {mapping['tolerance']:.3g})"))
    return facts


_MATRIX_COLUMNS = (("spectral_norm", "‖W‖₂"), ("spectral_radius", "ρ(W)"), ("sigma_min", "σ_min(W)"),
                   ("orthogonality_defect", "‖WᵀW − I‖₂"))


def _columns(recurrent: dict) -> tuple:
    """The matrix columns the summary measured for some matrix (‖WᵀW − I‖₂ is not shown for gate blocks)."""
    shown = tuple(c for c in _MATRIX_COLUMNS if any(c[0] in e for e in recurrent.values()))
    return shown or _MATRIX_COLUMNS


def _matrix_cells(entry: dict, fmt=fmt_number, columns=_MATRIX_COLUMNS) -> list[str]:
    if not entry.get("finite", True):
        return ["not finite"] * len(columns)
    return [fmt(entry[key]) if key in entry else "–" for key, _ in columns]


def _model_markdown(model: dict) -> list[str]:
    lines = ["## Model", "", "| | |", "|---|---|"] + [f"| {k} | {md_text(v)} |" for k, v in _model_facts(model)]
    recurrent = model.get("recurrent") or {}
    if recurrent:
        cols = _columns(recurrent)
        lines += ["", "| recurrent matrix | shape | " + " | ".join(h for _, h in cols) + " |",
                  "|---|---|" + "---:|" * len(cols)]
        lines += [f"| {md_text(role)} | {md_text(' × '.join(map(str, e.get('shape', []))))} | "
                  + " | ".join(_matrix_cells(e, columns=cols)) + " |" for role, e in recurrent.items()]
    return lines + [""]


def _model_html(model: dict) -> str:
    facts = "".join(f"<tr><th scope='row'>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in _model_facts(model))
    out = [f"<table class='counts'><tbody>{facts}</tbody></table>"]
    recurrent = model.get("recurrent") or {}
    if recurrent:
        cols = _columns(recurrent)
        head = "".join(f"<th class='num'>{esc(h)}</th>" for _, h in cols)
        rows = "".join(f"<tr><td>{rich(role)}</td><td>{esc(' × '.join(map(str, e.get('shape', []))))}</td>"
                       + "".join(f"<td class='num'>{v}</td>" for v in _matrix_cells(e, number_html, cols)) + "</tr>"
                       for role, e in recurrent.items())
        out.append(f"<div class='table-wrap'><table><thead><tr><th>recurrent matrix</th><th>shape</th>{head}</tr>"
                   f"</thead><tbody>{rows}</tbody></table></div>")
    return f"<section id='model'><h2>Model</h2>{''.join(out)}</section>"


def render_audit_markdown(doc: dict) -> str:
    """report.md of ``rnnaudit audit``, summary first (see the module docstring). The source path, the model's
    class name, roles, assumptions and every other string of ``doc`` enter as escaped text or code spans
    (:mod:`rnnaudit.figures.escaping`); a figure whose path leaves the report's directory is named, not shown."""
    latest = doc["latest"]
    applies, other = _split(latest)
    model, _ = _model_line(doc)
    counts = audit_counts(latest)
    summary = _model_of(doc)
    lines = ["# rnnaudit audit", "", f"Source: {md_code(doc['source'])}: {model}.", ""]
    lines += _model_markdown(summary) if summary else []
    lines += ["## Summary", "",
             "| claims | number |", "|---|---:|"] + [f"| {k} | {v} |" for k, v in counts.items()]
    exceeded = [c for c in applies if _exceeded(c)]
    if exceeded:
        lines += ["", "Assumptions hold and the bound is exceeded on this model: "
                  + ", ".join(f"{md_code(_claim_name(c))} (ratio {fmt_number(c['worst_ratio'])})" for c in exceeded)
                  + "."]
    failing = [c for c in applies if _failing(c)]
    if failing:
        lines += ["", "Assumptions failing on this model (the theorem says nothing here): "
                  + "; ".join(f"{md_code(_claim_name(c))}: " + ", ".join(md_text(a["name"]) for a in _failing(c))
                              for c in failing) + "."]
    if latest.get("bounds_not_measured"):
        why = str(latest["bounds_not_measured"])
        lines += ["", f"**{md_text(why[:1].upper() + why[1:])}.**"]
    lines += [""] + _diagnostics_markdown(latest) + _fixed_points_markdown(latest) + _notes_markdown(latest)
    lines += ["", "Assumptions are evaluated on the trained parameters; bounds are measured on sequences of the run's "
              "own task, with any bias absorbed into W as sgornn.md eq. 5 allows. A bound measured where its "
              "assumptions fail is not a guarantee of the theorem.", "",
              "## Claims that apply to this model", "",
              "| claim | reading | bound on the model | assumptions |", "|---|---|---|---|"]
    for c in applies:
        lines.append(f"| {md_code(_claim_name(c))} | {md_text(c.get('reading'))} | {md_text(_bound_text(c))} | "
                     f"{md_text(_assumption_text(c))} |")
    if other:
        lines += ["", "## Claims that do not apply", "", "| claim | why |", "|---|---|"]
        lines += [f"| {md_code(_claim_name(c))} | {md_text(c.get('reason'))} |" for c in other]
    if "first_failure" in doc:
        lines += ["", "## When each assumption first failed", "", "| assumption | first failing step |", "|---|---|"]
        for name, step in doc["first_failure"].items():
            lines.append(f"| {md_text(name)} | {'never' if step is None else md_text(step)} |")
    if doc.get("figures"):
        lines += markdown_figures(doc["figures"])
    return "\n".join(lines) + "\n"


def _reading_badge(c: dict) -> str:
    kind = ("violated" if _exceeded(c) else
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


def _diagnostics_html(latest: dict) -> str:
    rows = _diagnostic_rows(latest)
    notes = latest.get("notes") or []
    if not rows and not notes:
        return ""
    out = ["<section id='diagnostics'><h2>Diagnostics (every model, per layer)</h2>"]
    if rows:
        head = "".join(f"<th>{esc(h)}</th>" for h in _diag_columns(latest))
        body = "".join("<tr>" + "".join(f"<td>{esc(str(v))}</td>" for v in r) + "</tr>" for r in rows)
        out.append(f"<div class='table-wrap'><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")
    if notes:
        out.append("<h3>Where an assumption fails</h3><ul>" + "".join(f"<li>{esc(n['line'])}</li>" for n in notes)
                   + "</ul>")
    return "".join(out) + "</section>"


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
    exceeded = [c for c in applies if _exceeded(c)]
    failing = [c for c in applies if _failing(c)]
    model = _model_of(doc)
    toc = ["<li><a href='#model'>Model</a></li>"] if model else []
    toc += ["<li><a href='#summary'>Summary</a></li>"]
    if latest.get("diagnostics") or latest.get("notes"):
        toc.append("<li><a href='#diagnostics'>Diagnostics</a></li>")
    if latest.get("fixed_points"):
        toc.append("<li><a href='#fixed-points'>Fixed points</a></li>")
    toc.append("<li><a href='#applies'>Claims that apply</a></li>")
    if other:
        toc.append("<li><a href='#not-applicable'>Claims that do not apply</a></li>")
    if "first_failure" in doc:
        toc.append("<li><a href='#first-failure'>First failures</a></li>")
    if doc.get("figures"):
        toc.append("<li><a href='#figures'>Figures</a></li>")
    summary = [f"<table class='counts'><thead><tr><th>claims</th><th class='num'>number</th></tr></thead>"
               f"<tbody>{count_rows}</tbody></table>"]
    if exceeded:
        summary.append("<p><span class='label'>Assumptions hold and the bound is exceeded on this model:</span> "
                       + ", ".join(f"<a href='#{anchor('claim', c['id'])}'><code>{esc(_claim_name(c))}</code></a> "
                                   f"(ratio {number_html(c['worst_ratio'])})" for c in exceeded) + ".</p>")
    if failing:
        summary.append("<p><span class='label'>Assumptions failing on this model</span> (the theorem says nothing "
                       "here): " + "; ".join(f"<a href='#{anchor('claim', c['id'])}'>"
                                            f"<code>{esc(_claim_name(c))}</code></a>: "
                                            + ", ".join(rich(a["name"]) for a in _failing(c)) for c in failing)
                       + ".</p>")
    ids = _unique_ids(latest["claims"])
    rows = "".join(f"<tr id='{ids[id(c)]}'><td>{breakable_id(_claim_name(c))}</td><td>{_reading_badge(c)}</td>"
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
             _diagnostics_html(latest),
             _fixed_points_html(latest),
             "<section id='applies'><h2>Claims that apply to this model</h2><div class='table-wrap'><table><thead><tr>"
             "<th>claim</th><th>reading</th><th>bound on the model</th><th>assumptions</th></tr></thead>"
             f"<tbody>{rows}</tbody></table></div></section>"]
    if other:
        orows = "".join(f"<tr id='{ids[id(c)]}'><td>{breakable_id(_claim_name(c))}</td>"
                        f"<td>{rich(c['reason'])}</td></tr>" for c in other)
        parts.append("<section id='not-applicable'><h2>Claims that do not apply</h2><div class='table-wrap'><table>"
                     f"<thead><tr><th>claim</th><th>why</th></tr></thead><tbody>{orows}</tbody></table></div>"
                     "</section>")
    if "first_failure" in doc:
        frows = "".join(f"<tr><td>{rich(k)}</td><td class='num'>{'never' if v is None else esc(str(v))}</td></tr>"
                        for k, v in doc["first_failure"].items())
        parts.append("<section id='first-failure'><h2>When each assumption first failed</h2><div class='table-wrap'>"
                     "<table><thead><tr><th>assumption</th><th class='num'>first failing step</th></tr></thead>"
                     f"<tbody>{frows}</tbody></table></div></section>")
    if doc.get("figures"):
        parts.append(f"<section id='figures'><h2>Figures</h2>{embedded_figures(doc['figures'], out_dir)}</section>")
    return page("rnnaudit audit", "".join(parts))
