"""results.json and report.md for ``rnnaudit check`` (later versions add keys, never
remove or rename them)."""

from __future__ import annotations

import base64
import datetime as dt
import html
import os
from importlib import metadata
from pathlib import Path

from rnnaudit.atomic import write_json_atomic, write_text_atomic
from rnnaudit.bounds.results import ClaimResult

__all__ = ["version", "results_document", "write_results", "render_markdown", "render_html", "render_audit_markdown",
           "render_audit_html"]


def version() -> str:
    """Installed rnnaudit version ("unknown" when run from a source tree that is not installed)."""
    try:
        return metadata.version("rnnaudit")
    except metadata.PackageNotFoundError:
        return "unknown"


def results_document(results: list[ClaimResult], *, device: str, dtype: str, seed: int, profile: str,
                     figures: list[tuple[str, Path]], out_dir: Path, skipped_papers: list[str],
                     coverage: list[dict] | None = None) -> dict:
    """The results.json object: run metadata, one entry per claim (:meth:`ClaimResult.to_json`) and
    the statement index of the papers checked (``coverage``)."""
    claims = []
    for r in results:
        entry = r.to_json()
        for key in ("counterexample", "worst_counterexample"):
            if entry.get(key):
                entry[key] = os.path.relpath(entry[key], out_dir)
        claims.append(entry)
    return {
        "rnnaudit_version": version(),
        "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "device": device, "dtype": dtype, "seed": seed, "profile": profile,
        "papers_without_claims": skipped_papers,
        "figures": [{"caption": c, "path": os.path.relpath(p, out_dir)} for c, p in figures],
        "claims": claims,
        "coverage": coverage or [],
    }


def _fmt(x) -> str:
    if x is None:
        return "–"
    if isinstance(x, str):
        return x
    return f"{x:.4g}"


def render_markdown(doc: dict) -> str:
    """report.md: a claims table, then each claim's statement, assumptions, tightness and notes
    (with its counterexample when violated), then the figures."""
    lines = [
        "# rnnaudit report", "",
        f"rnnaudit {doc['rnnaudit_version']}, created {doc['created']}, device `{doc['device']}`, "
        f"dtype `{doc['dtype']}`, seed {doc['seed']}, profile `{doc['profile']}`.", "",
        "Ratios are measured/bound: above 1 means the stated bound is violated. `worst` is the largest ratio over "
        "random and adversarial cases that satisfy the claim's assumptions.", "",
        "| claim | source | verdict | worst ratio | median ratio | cases |",
        "|---|---|---|---|---|---|",
    ]
    for c in doc["claims"]:
        lines.append(f"| `{c['id']}` | {c['source']} | **{c['verdict']}** | {_fmt(c['worst_ratio'])} | "
                     f"{_fmt(c['median_ratio'])} | {c['n_cases']} |")
    if doc["papers_without_claims"]:
        lines += ["", "Papers selected with no claims implemented yet: " + ", ".join(doc["papers_without_claims"])
                  + "."]
    for c in doc["claims"]:
        lines += ["", f"## `{c['id']}`: {c['verdict']}", "", f"*Source:* {c['source']}", "",
                  f"*Statement:* {c['statement']}", "", f"*Measured:* {c['measure']}. *Bound:* {c['bound']}.", "",
                  "*Assumptions:* " + "; ".join(c["assumptions"]) + ".", ""]
        lines.append("| part | worst ratio |")
        lines.append("|---|---|")
        for part, ratio in c["worst_parts"].items():
            lines.append(f"| {part} | {_fmt(ratio)} |")
        by_T = c["tightness"]["by_T"]
        if by_T:
            lines += ["", "Worst ratio by T: " + ", ".join(f"T = {t}: {_fmt(v)}" for t, v in by_T.items()) + "."]
        if c["notes"]:
            lines += ["", c["notes"]]
        if c["counterexample"]:
            lines += ["", f"Counterexample: `{c['counterexample']}` (reproduce with "
                          f"`rnnaudit reproduce {c['counterexample']}` from this directory)."]
    if doc["figures"]:
        lines += ["", "## Figures"]
        for f in doc["figures"]:
            lines += ["", f"![{f['caption']}]({f['path']})", "", f"*{f['caption']}*"]
    return "\n".join(lines) + "\n"


_CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #bbb;padding:4px 8px;text-align:left;font-size:14px}
th{background:#eee}.violated{color:#b00;font-weight:bold}.holds{color:#060}.vacuous{color:#a60}
img{max-width:100%;border:1px solid #ddd}figure{margin:1.5em 0}code{background:#f4f4f4;padding:0 3px}"""


def _embedded_figures(figures: list[dict], out_dir: Path) -> str:
    out = []
    for f in figures:
        data = base64.b64encode((out_dir / f["path"]).read_bytes()).decode("ascii")
        out.append(f"<figure><img alt='{html.escape(f['caption'])}' src='data:image/png;base64,{data}'>"
                   f"<figcaption>{html.escape(f['caption'])}</figcaption></figure>")
    return "".join(out)


def _page(title: str, body: str) -> str:
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{_CSS}</style></head><body>{body}</body></html>\n")


def render_html(doc: dict, out_dir: Path) -> str:
    """A self-contained report.html: the claims table, each violated claim's counterexample and
    explanation, and every figure embedded as base64 PNG (one file to send to a colleague)."""
    esc = html.escape
    rows = "".join(
        f"<tr><td><code>{esc(c['id'])}</code></td><td>{esc(c['source'])}</td>"
        f"<td class='{esc(c['verdict'])}'>{esc(c['verdict'])}</td><td>{esc(_fmt(c['worst_ratio']))}</td>"
        f"<td>{esc(_fmt(c['median_ratio']))}</td><td>{c['n_cases']}</td></tr>" for c in doc["claims"])
    parts = ["<h1>rnnaudit report</h1>",
             f"<p>rnnaudit {esc(doc['rnnaudit_version'])}, created {esc(doc['created'])}, device "
             f"<code>{esc(doc['device'])}</code>, dtype <code>{esc(doc['dtype'])}</code>, seed {doc['seed']}, "
             f"profile <code>{esc(doc['profile'])}</code>. Ratios are measured/bound; above 1 the bound is "
             "violated.</p>",
             "<table><tr><th>claim</th><th>source</th><th>verdict</th><th>worst ratio</th><th>median ratio</th>"
             f"<th>cases</th></tr>{rows}</table>"]
    violated = [c for c in doc["claims"] if c["verdict"] == "violated"]
    if violated:
        parts.append("<h2>Violated claims</h2>")
        for c in violated:
            parts.append(f"<h3><code>{esc(c['id'])}</code></h3><p><em>{esc(c['statement'])}</em> "
                         f"({esc(c['source'])})</p><p>{esc(c['notes'])}</p>"
                         f"<p>Counterexample: <code>{esc(c['counterexample'] or '–')}</code> (reproduce with "
                         f"<code>rnnaudit reproduce {esc(c['counterexample'] or '')}</code>)</p>")
    if doc["figures"]:
        parts += ["<h2>Figures</h2>", _embedded_figures(doc["figures"], out_dir)]
    return _page("rnnaudit report", "".join(parts))


def write_results(doc: dict, out_dir: Path) -> None:
    """Write results.json, report.md and the self-contained report.html into ``out_dir``, each
    atomically."""
    write_json_atomic(out_dir / "results.json", doc)
    write_text_atomic(out_dir / "report.md", render_markdown(doc))
    write_text_atomic(out_dir / "report.html", render_html(doc, out_dir))


def _audit_rows(latest: dict) -> tuple[list[dict], list[dict]]:
    """The claims that apply to the audited model, and those that do not."""
    return ([c for c in latest["claims"] if c["applies"]], [c for c in latest["claims"] if not c["applies"]])


def _assumption_text(c: dict) -> str:
    return "; ".join(f"{'holds' if a['holds'] else 'FAILS'}: {a['name']} ({a['detail']})"
                     for a in c["assumptions"]) or "–"


def render_audit_markdown(doc: dict) -> str:
    """report.md of ``rnnaudit audit``: the model, then every claim that applies to it (its
    assumptions on the model's parameters, the bound measured on its task's sequences, and what
    that means), the claims that do not apply with the reason, and (for a run directory) the first
    step at which each assumption failed."""
    latest = doc["latest"]
    cfg = latest["config"]
    applies, other = _audit_rows(latest)
    lines = ["# rnnaudit audit", "", f"Source: `{doc['source']}`, step {latest['step']}, cell `{cfg['cell']}`, "
             f"task `{cfg['task']}`, T = {cfg['T']}, h = {cfg['hidden_size']}.", "",
             "Assumptions are evaluated on the trained parameters; bounds are measured on sequences of the run's own "
             "task, with any bias absorbed into W as sgornn.md eq. 5 allows. A bound measured where its "
             "assumptions fail is not a guarantee of the theorem.", "",
             "## Claims that apply to this model", "",
             "| claim | reading | bound on the model | assumptions |", "|---|---|---|---|"]
    for c in applies:
        bound = "–" if c["verdict"] is None else f"{c['verdict']}, worst ratio {_fmt(c['worst_ratio'])}"
        lines.append(f"| `{c['id']}` | {c['reading']} | {bound} | {_assumption_text(c)} |")
    if other:
        lines += ["", "## Claims that do not apply", "", "| claim | why |", "|---|---|"]
        lines += [f"| `{c['id']}` | {c['reason']} |" for c in other]
    for f in doc.get("figures", []):
        lines += ["", f"![{f['caption']}]({f['path']})"]
    if "first_failure" in doc:
        lines += ["", "## When each assumption first failed", "", "| assumption | first failing step |", "|---|---|"]
        for name, step in doc["first_failure"].items():
            lines.append(f"| {name} | {'never' if step is None else step} |")
    return "\n".join(lines) + "\n"


def render_audit_html(doc: dict, out_dir: Path) -> str:
    """Self-contained report.html of ``rnnaudit audit``: the same tables as
    :func:`render_audit_markdown`, with the trajectory figure embedded."""
    esc = html.escape
    latest = doc["latest"]
    cfg = latest["config"]
    applies, other = _audit_rows(latest)

    def bound(c):
        return "–" if c["verdict"] is None else f"{c['verdict']}, worst ratio {_fmt(c['worst_ratio'])}"

    rows = "".join(f"<tr><td><code>{esc(c['id'])}</code></td>"
                   f"<td class='{'holds' if c['assumptions_hold'] else 'violated'}'>{esc(c['reading'])}</td>"
                   f"<td>{esc(bound(c))}</td><td>{esc(_assumption_text(c))}</td></tr>" for c in applies)
    parts = ["<h1>rnnaudit audit</h1>",
             f"<p>Source <code>{esc(doc['source'])}</code>, step {latest['step']}, cell <code>{esc(cfg['cell'])}</code>, "
             f"task <code>{esc(cfg['task'])}</code>, T = {cfg['T']}, h = {cfg['hidden_size']}.</p>",
             "<h2>Claims that apply to this model</h2><table><tr><th>claim</th><th>reading</th><th>bound on the model"
             f"</th><th>assumptions</th></tr>{rows}</table>"]
    if other:
        orows = "".join(f"<tr><td><code>{esc(c['id'])}</code></td><td>{esc(c['reason'])}</td></tr>" for c in other)
        parts.append(f"<h2>Claims that do not apply</h2><table><tr><th>claim</th><th>why</th></tr>{orows}</table>")
    if "first_failure" in doc:
        frows = "".join(f"<tr><td>{esc(k)}</td><td>{'never' if v is None else v}</td></tr>"
                        for k, v in doc["first_failure"].items())
        parts.append("<h2>When each assumption first failed</h2><table><tr><th>assumption</th>"
                     f"<th>first failing step</th></tr>{frows}</table>")
    parts.append(_embedded_figures(doc.get("figures", []), out_dir))
    return _page("rnnaudit audit", "".join(parts))
