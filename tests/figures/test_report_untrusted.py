"""A results.json or audit document re-rendered from anywhere: every string in it (statement, verdict, notes,
source, a reading, a figure's caption and path, the device, a paper's name, a model's class name, a run
directory's name) reaches report.md and report.html as text. Rendered by Python-Markdown and parsed as HTML,
neither report holds an element or attribute that came from the document, and the text still appears; a
figure is embedded only from the report's own directory."""

import base64
import os
import re
from html.parser import HTMLParser

import markdown
import pytest
from PIL import Image

from rnnaudit.figures.audit_report import render_audit_html, render_audit_markdown
from rnnaudit.figures.report import render_html, render_markdown
from tests.figures.conftest import synthetic_document

IMG = "x<img src=x onerror=alert(1)>"
SCRIPT = "`a` <script>alert(2)</script>"
TICKS = "run``s`/a` <img src=y onerror=alert(3)>|b"  # a run directory's name: backticks, a tag, a pipe
ATTR = "holds {: onclick=alert(4) }"
LINK = "[click](javascript:alert(5))"
HOSTILE = (IMG, SCRIPT, TICKS, ATTR, LINK)


class _Tree(HTMLParser):
    """Every start tag with its attributes, the text, and the text of <script> elements."""

    def __init__(self, html: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text, self.scripts, self._in_script = "", [], False
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if tag == "script":
            self.scripts.append("")

    def handle_endtag(self, tag):
        self._in_script = False if tag == "script" else self._in_script

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data
        self.text += data

    def injected(self) -> list:
        """Elements or attributes that only the document's strings could have made: any image but an embedded PNG
        or report.md's link to the report's own figure, any on* attribute, a link out of the page, a script."""
        bad = [(t, a) for t, a in self.tags if t == "img" and not (a.get("src", "").startswith("data:image/png;base64,")
                                                                   or a.get("src") == "fig.png")]
        bad += [(t, a) for t, a in self.tags if any(k.startswith("on") for k in a)]
        bad += [(t, a) for t, a in self.tags if t == "a" and not a.get("href", "#").startswith("#")]
        return bad + [s for s in self.scripts if "alert" in s]


def _md_tree(text: str) -> _Tree:
    return _Tree(markdown.markdown(text, extensions=["tables", "attr_list"]))


def _hostile_results(out_dir) -> dict:
    doc = synthetic_document(out_dir)
    doc.update(device=SCRIPT, profile=TICKS, created=IMG, papers_without_claims=[IMG])
    doc["figures"].append({"caption": IMG + SCRIPT, "path": "fig.png"})
    for c in doc["claims"][:6]:
        c.update(statement=IMG, source=TICKS, notes=SCRIPT + " " + LINK, explanation=IMG, measure=ATTR, bound=LINK,
                 assumptions=[SCRIPT, TICKS], worst_parts={IMG: 2.0}, verdict=c["verdict"] + " " + ATTR,
                 counterexample=f"counterexamples/{TICKS}.pt", n_cases=IMG, median_ratio=IMG)
    c = next(c for c in doc["claims"] if c.get("readings"))
    c["readings"] = [{**r, "name": IMG, "statement": SCRIPT, "support": TICKS} for r in c["readings"]]
    c.update(statement=ATTR, source=LINK, paper=IMG)
    return doc


def test_a_hostile_results_json_injects_nothing_into_report_md(tmp_path):
    doc = _hostile_results(tmp_path)
    page = _md_tree(render_markdown(doc))
    assert page.injected() == []
    for text in ("x<img src=x onerror=alert(1)>", "<script>alert(2)</script>", "onclick=alert(4)",
                 "[click](javascript:alert(5))", "run``s`/a` <img src=y onerror=alert(3)>|b"):
        assert text in page.text, text


def test_the_same_document_raw_would_inject_into_report_md(tmp_path):
    """The negative control: the strings of the test above, placed as report.md placed them before, make
    live elements and attributes."""
    raw = "\n\n".join([f"*Statement:* {IMG}", f"Source: `{TICKS}`", f"## `claim`: {ATTR}", SCRIPT, LINK])
    page = _md_tree(raw)
    assert len(page.injected()) >= 4


def test_a_hostile_results_json_injects_nothing_into_report_html(tmp_path):
    doc = _hostile_results(tmp_path)
    page = _Tree(render_html(doc, tmp_path))
    assert page.injected() == []
    assert [s for s in page.scripts if s.strip()] and len(page.scripts) == 1  # the page's own sorting script
    for text in HOSTILE:
        assert text.replace("`", "") in page.text.replace("`", ""), text


def test_the_reproduce_command_quotes_its_path(tmp_path):
    """A counterexample path with ``$(...)`` shown as a command: copied into a shell, it is one argument."""
    doc = synthetic_document(tmp_path)
    c = next(c for c in doc["claims"] if c.get("counterexample"))
    c["counterexample"] = "counterexamples/$(touch pwned) x.pt"
    assert "rnnaudit reproduce 'counterexamples/$(touch pwned) x.pt'" in _md_tree(render_markdown(doc)).text
    assert "rnnaudit reproduce 'counterexamples/$(touch pwned) x.pt'" in _Tree(render_html(doc, tmp_path)).text


def _png(path):
    Image.new("RGB", (8, 8), (200, 30, 30)).save(path)
    return path


@pytest.mark.parametrize("where", ["absolute", "dotdot", "symlink", "etc", "not-png"])
def test_a_figure_outside_the_report_directory_is_not_embedded(tmp_path, where):
    """A re-rendered results.json names /etc/hostname, ../outside.png, a symlink inside pointing out, or a file
    inside that is not a PNG: none is embedded, a visible note names the path, and report.md links none; the
    report's own figure still is embedded (the control)."""
    report = tmp_path / "report"
    report.mkdir()
    doc = synthetic_document(report)
    outside = _png(tmp_path / "outside.png")
    path = {"absolute": str(outside), "dotdot": "../outside.png", "symlink": "link.png", "etc": "/etc/hostname",
            "not-png": "results.json"}[where]
    if where == "symlink":
        os.symlink(outside, report / "link.png")
    if where == "not-png":
        (report / "results.json").write_text('{"secret": 1}')
    doc["figures"].append({"caption": "planted", "path": path})
    page = _Tree(render_html(doc, report))
    images = [a["src"] for t, a in page.tags if t == "img"]
    assert len(images) == 1  # fig.png only
    assert images[0].endswith(base64.b64encode((report / "fig.png").read_bytes()).decode("ascii"))
    assert "Figure 2 is not embedded" in page.text and path in page.text
    md = _md_tree(render_markdown(doc))
    srcs = [a["src"] for t, a in md.tags if t == "img"]
    assert "fig.png" in srcs and not any("outside" in s or "etc" in s for s in srcs)


def test_report_md_links_no_symlink_that_resolves_outside_the_report(tmp_path):
    """report.md linked ``link.png``, a symlink to a file outside: served, the link returns that file. Given the
    report's directory (as write_results gives it), it is named, not linked; the report's own figure still is."""
    report = tmp_path / "report"
    report.mkdir()
    doc = synthetic_document(report)
    os.symlink(_png(tmp_path / "outside.png"), report / "link.png")
    doc["figures"].append({"caption": "planted", "path": "link.png"})
    md = render_markdown(doc, report)
    srcs = [a["src"] for t, a in _md_tree(md).tags if t == "img"]
    assert srcs == ["fig.png"]
    assert "*planted*: not shown, its path `link.png` is a symlink to a file outside this report's directory." in md


@pytest.mark.parametrize("damage, field", [
    (lambda doc: doc["claims"][0].update(readings=[IMG, {"name": IMG}]), "'readings' must be a list of objects"),
    (lambda doc: doc["claims"][0].update(readings="abc"), "'readings' must be a list, got str"),
    (lambda doc: doc.update(claims={"a": 1}), "'claims' must be a list, got dict"),
    (lambda doc: doc["claims"].append({"verdict": "holds"}), "has no 'id' string"),
    (lambda doc: doc["claims"].append("x"), "must be an object, got str"),
    (lambda doc: doc["claims"][0].update(worst_parts=[1]), "'worst_parts' must be an object, got list"),
])
def test_a_damaged_results_document_is_a_value_error_naming_the_field(tmp_path, damage, field):
    doc = synthetic_document(tmp_path)
    damage(doc)
    for render in (render_markdown, lambda d: render_html(d, tmp_path)):
        with pytest.raises(ValueError, match=re.escape(field)):
            render(doc)


# ------------------------------------------------------------------------------------------ the audit report

def _hostile_audit(tmp_path) -> dict:
    """An audit of a torch RNN subclass whose class name is hostile, with a hostile run directory, recorded
    model type (a Monitor run's run.json), role, assumption and reason."""
    import torch

    import rnnaudit

    cls = type(IMG, (torch.nn.RNN,), {})
    model = cls(2, 3, batch_first=True)
    result = rnnaudit.audit(model, torch.rand(1, 6, 2, dtype=torch.float64), measure_bounds=False,
                            diagnostics=False)
    assert IMG in result["model"]["type"]
    result["model"]["recurrent"][SCRIPT] = {"shape": [TICKS], "finite": False}
    claim = next(c for c in result["claims"] if c["applies"])
    claim["assumptions"] = [{"name": ATTR, "holds": False, "detail": LINK}]
    claim["reading"] = SCRIPT
    other = next(c for c in result["claims"] if not c["applies"])
    other["reason"] = IMG
    return {"source": f"runs/{TICKS}", "first_failure": {IMG: SCRIPT},
            "latest": {"step": IMG, "config": {"cell": TICKS, "task": SCRIPT, "T": IMG, "hidden_size": 3},
                       "claims": result["claims"], "notes": [{"line": "- " + IMG, "remedy": None}]},
            "model": result["model"], "figures": [{"caption": SCRIPT, "path": "/etc/hostname"}]}


def test_a_hostile_class_name_run_directory_and_recorded_type_inject_nothing_into_the_audit_reports(tmp_path):
    doc = _hostile_audit(tmp_path)
    md = _md_tree(render_audit_markdown(doc))
    assert md.injected() == []
    assert IMG in md.text and "runs/run``s`/a` <img src=y onerror=alert(3)>|b" in md.text
    page = _Tree(render_audit_html(doc, tmp_path))
    assert page.injected() == [] and not [t for t, _ in page.tags if t == "img"]
    assert IMG in page.text and "Figure 1 is not embedded" in page.text


def test_a_run_directory_whose_name_is_not_utf8_still_gives_both_reports(tmp_path):
    """A run directory named with bytes that are not UTF-8 (a lone surrogate in Python): both reports are
    written, the name shown with its escape; unescaped, writing report.md or report.html raised
    UnicodeEncodeError."""
    from rnnaudit.atomic import write_text_atomic

    doc = _hostile_audit(tmp_path)
    doc["source"] = "runs/caf\udce9"
    write_text_atomic(tmp_path / "report.md", render_audit_markdown(doc))
    write_text_atomic(tmp_path / "report.html", render_audit_html(doc, tmp_path))
    assert "runs/caf\\udce9" in (tmp_path / "report.md").read_text()
    assert "runs/caf\\udce9" in (tmp_path / "report.html").read_text()


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_a_figure_outside_the_report_directory_is_not_embedded": {"absolute", "not-png", "etc"},
}
