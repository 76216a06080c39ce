"""report.html and report.md of ``rnnaudit check``, and the audit report: summary first, violated
claims worst first with what breaks, corrected form and reproduce command, a sortable full table,
anchors for every claim and paper, statement and assumptions for every claim, no ratio for vacuous
or inconclusive claims, readable formulas, optional results.json fields shown when present and
never required, a viewport tag, nothing loaded from outside the file."""

import html as html_lib
import math
import re
from html.parser import HTMLParser

import pytest

from rnnaudit.figures.html import number_html, rich
from rnnaudit.figures.report import render_audit_html, render_audit_markdown, render_html, render_markdown
from rnnaudit.figures.report_data import gist
from tests.figures.conftest import READINGS, VERDICTS, synthetic_document


class _Page(HTMLParser):
    """ids in order, internal links, the elements with an id and their text, <code>-free text."""

    def __init__(self):
        super().__init__()
        self.ids, self.hrefs, self.text, self.plain = [], [], {}, []
        self._open: list[tuple[str, str | None]] = []
        self._in_code = 0
        self.meta = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "meta":
            self.meta.append(attrs)
        if "id" in attrs:
            self.ids.append(attrs["id"])
            self.text[attrs["id"]] = ""
        if tag == "a" and attrs.get("href", "").startswith("#"):
            self.hrefs.append(attrs["href"][1:])
        if tag == "code":
            self._in_code += 1
        if tag not in ("meta", "wbr", "img", "br"):
            self._open.append((tag, attrs.get("id")))

    def handle_endtag(self, tag):
        if tag == "code":
            self._in_code -= 1
        while self._open:
            t, _ = self._open.pop()
            if t == tag:
                break

    def handle_data(self, data):
        for _, element_id in self._open:
            if element_id is not None:
                self.text[element_id] += data
        if not self._in_code and not any(t in ("script", "style") for t, _ in self._open):
            self.plain.append(data)


def _parse(page: str) -> _Page:
    p = _Page()
    p.feed(page)
    return p


@pytest.fixture
def page(full_document):
    doc, out = full_document
    return doc, render_html(doc, out)


def test_summary_then_violations_then_full_table_then_claims(page):
    doc, html = page
    ids = _parse(html).ids
    order = [ids.index(x) for x in ("summary", "failing", "all-claims", "paper-sgornn", "claim-sgornn.eq3", "figures")]
    assert order == sorted(order)
    assert html.index("<table class='summary'>") < html.index("id='failing'")  # the counts table opens the page


def test_verdict_counts_per_paper_and_in_total(page):
    doc, html = page
    summary = html[html.index("id='summary'"):html.index("id='failing'")]
    for paper in ("sgornn", "spectral_rnn", "nc_gru", "srnn", "enrnn"):
        mine = [c for c in doc["claims"] if c["paper"] == paper]
        n_false = sum(c["verdict"] == "false" for c in mine)
        n_misprinted = sum(c["verdict"] == "misprinted" for c in mine)
        row = re.search(rf"<tr><td><a href='#paper-{paper}'>{paper}</a></td>(.*?)</tr>", summary).group(1)
        cells = re.findall(r"<td class='num'>([^<]*)</td>", row)
        assert cells[0] == str(len(mine)) and cells[1] == (str(n_false) if n_false else "·")
        assert cells[2] == (str(n_misprinted) if n_misprinted else "·")
    n = len(doc["claims"])
    assert (f"{n} claims checked:</strong> 11 false, 2 misprinted, 1 inconclusive, 1 vacuous, {n - 15} holds"
            in summary)


def test_violated_claims_come_worst_first_with_what_breaks_corrected_form_and_reproduce(page):
    doc, html = page
    ids = [i for i in _parse(html).ids if i.startswith("failing-")]
    ratios = [VERDICTS[i.removeprefix("failing-")][1] for i in ids]
    assert ratios[0] == "inf" and ratios[1:] == sorted(ratios[1:], reverse=True) and len(ids) == 13
    section = html[html.index("id='failing'"):html.index("id='all-claims'")]
    items = section.split("<li class='violation'")[1:]
    for item, cid in zip(items, (i.removeprefix("failing-") for i in ids)):
        assert "What breaks:" in item
        assert f"rnnaudit reproduce counterexamples/{cid}.pt" in item
        if any(c["id"] == f"{cid}.corrected" for c in doc["claims"]):
            assert f"href='#claim-{cid}.corrected'" in item and "Corrected form:" in item
    # the claim's own explanation, not the notes: nothing of the counterexample line or other notes
    eq31 = next(it for it in items if "claim-sgornn.eq31'" in it)
    assert rich("Cauchy–Schwarz gives ‖X‖₁,₁ ≤ h‖X‖_F") in eq31


def test_misprinted_claims_show_every_reading_with_its_verdict_and_ratio(page, tmp_path):
    doc, html = page

    section = html[html.index("id='failing'"):html.index("id='all-claims'")]
    item = next(it for it in section.split("<li class='violation'")[1:] if "claim-srnn.gamblers_ruin'" in it)
    assert "v-misprinted" in item and "table class='readings'" in item
    for reading in READINGS:
        assert rich(reading["name"]) in item and rich(reading["support"]) in item
    table = item[item.index("table class='readings'"):item.index("</table>")]
    assert "0.61" in table and table.count("v-holds") == 1 and table.count("v-false") == 1
    md = render_markdown(doc)
    assert "### `srnn.gamblers_ruin` (misprinted)" in md
    # brackets escaped: report.md never opens a link from a statement's text
    assert r"| T as the game's duration | E\[steps until absorption at 0 or T + 1\] = T | holds | 0.61 |" in md
    # a claim without readings has no readings table (the negative control of the test above)
    assert "table class='readings'" not in html[html.index("id='claim-sgornn.eq31'"):][:4000]


def test_every_claim_and_paper_has_an_anchor_and_every_link_resolves(page):
    doc, html = page
    parsed = _parse(html)
    assert len(parsed.ids) == len(set(parsed.ids)), "duplicate ids"
    for c in doc["claims"]:
        assert f"claim-{c['id']}" in parsed.ids
    for paper in {c["paper"] for c in doc["claims"]}:
        assert f"paper-{paper}" in parsed.ids
    assert set(parsed.hrefs) <= set(parsed.ids)
    assert {"summary", "failing", "all-claims", "figures"} <= set(parsed.hrefs)  # the table of contents


def test_every_claim_shows_statement_and_assumptions(page):
    doc, html = page
    parsed = _parse(html)
    for c in doc["claims"]:
        text = parsed.text[f"claim-{c['id']}"]
        assert "Statement" in text and "Assumptions" in text
        statement = html_lib.unescape(re.sub(r"<[^>]+>", "", rich(c["statement"])))
        assert " ".join(statement.split())[:60] in " ".join(text.split())
        for a in c["assumptions"]:
            assert html_lib.unescape(re.sub(r"<[^>]+>", "", rich(a))) in text


def test_vacuous_and_inconclusive_claims_have_no_ratio(page):
    doc, html = page
    parsed = _parse(html)
    for cid in ("spectral_rnn.theorem5", "sgornn.theorem1"):  # vacuous with worst ratio 1, inconclusive
        assert "worst ratio" not in parsed.text[f"claim-{cid}"]
        row = re.search(rf"<tr [^>]*>(?:(?!</tr>).)*claim-{re.escape(cid)}'(?:(?!</tr>).)*</tr>", html).group(0)
        assert "data-ratio='-1'" in row and "<td class='num'><span class='muted'" in row
    assert "worst ratio 8" in parsed.text["claim-sgornn.eq31"]


def test_full_table_sorts_by_verdict_and_ratio(page):
    doc, html = page
    table = html[html.index("id='all-claims'"):]
    assert "class='sortable claims'" in table
    assert "data-sort='verdict'" in table and "data-sort='ratio'" in table
    assert "<th>what breaks</th>" in table
    assert re.search(r"data-verdict='\d' data-ratio='Infinity'>", table)  # nc_gru.theorem1's ∞
    assert "<script>" in html and "dataset[key]" in html


def test_formulas_read_as_text_not_tex_source(page):
    doc, html = page
    plain = "".join(_parse(html).plain)
    for tex in ("_{", "^{", "^(", "\\frac", "\\|", "$"):
        assert tex not in plain, tex
    assert "h<sub>t−1</sub>" in html and "U<sup>(S)</sup>" in html
    assert rich("‖∂h_t/∂h_{t−1}‖₂ and spectral_rnn.eq7") == ("‖∂h<sub>t</sub>/∂h<sub>t−1</sub>‖₂ and "
                                                           "spectral_rnn.eq7")
    assert rich("`x_t`") == "<code>x_t</code>"
    assert number_html(3.8e10) == "3.8 × 10<sup>10</sup>" and number_html(math.inf) == "∞"


def test_page_is_responsive_and_self_contained(page):
    doc, html = page
    assert {"name": "viewport", "content": "width=device-width, initial-scale=1"} in _parse(html).meta
    assert "@media (max-width:900px)" in html
    assert not re.search(r"""(src|href)=['"](?!data:|#)""", html)  # nothing but data: URIs and anchors
    assert "<link" not in html and "http" not in html.replace("http-equiv", "")


def test_optional_fields_are_shown_when_present(page):
    doc, html = page
    parsed = _parse(html)
    eq31 = parsed.text["claim-sgornn.eq31"]
    assert "rnnaudit reproduce counterexamples/sgornn.eq31.worst.pt" in eq31
    assert "Relative error" in eq31 and "2.5 × 10" in html
    assert "Exact check" in eq31 and "Supremum of the ratio" in eq31 and "not known" in eq31
    assert "exact: proved" in parsed.text["claim-sgornn.eq3"]
    assert "no: a timing claim" in parsed.text["claim-srnn.table1"]
    sgornn = parsed.text["paper-sgornn"]
    assert "Coverage of the paper's stated results" in sgornn and "not checked" in sgornn
    assert "1 checked, 1 not checked" in parsed.text["summary"]


def test_a_document_without_the_optional_fields_still_renders(tmp_path):
    doc = synthetic_document(tmp_path, optional=False)
    html = render_html(doc, str(tmp_path))  # a str directory
    parsed = _parse(html)
    assert "Coverage" not in html and "Exact check" not in html and "coverage</th>" not in html
    # without "explanation", what breaks falls back to the notes, which begin with it
    assert "What breaks:" in parsed.text["failing-sgornn.eq31"]
    md = render_markdown(doc)
    assert md.index("## Summary") < md.index("## Claims that fail as printed") < md.index("## All claims")


def test_markdown_report_is_summary_first(page):
    doc, _ = page
    md = render_markdown(doc)
    assert md.index("## Summary") < md.index("## Claims that fail as printed (false, misprinted), worst first") < md.index("## All claims")
    assert "### `nc_gru.theorem1` (false): measured/bound = ∞" in md
    assert md.index("### `nc_gru.theorem1`") < md.index("### `spectral_rnn.eq13`") < md.index("### `sgornn.eq31`")
    assert "| `spectral_rnn.theorem5` | " in md and "| **vacuous** | – |" in md


def test_gist_keeps_formulas_whole_and_says_when_it_cut():
    text = "Step eq. 31 is false: it needs h_{t−1} ≤ 1 for every t, as Sec. 2 states. Another sentence. " + "x " * 200
    head, cut = gist(text)
    assert head.startswith("Step eq. 31 is false") and cut and "Another" not in head
    long = "A " + "‖∂h_{t−1}/∂h_{s}‖₂ " * 30
    head, cut = gist(long, at_most=100)
    assert head.endswith("…") and head.count("{") == head.count("}")
    assert gist("Short.") == ("Short.", False)


AUDIT = {"source": "runs/x", "first_failure": {"sgornn.theorem2: U = φ(Θ) orthogonal": 5, "other: β ≤ 1": None},
         "latest": {"step": 30, "config": {"cell": "fastrnn", "task": "adding", "T": 10, "hidden_size": 8},
                    "claims": [
                        {"id": "sgornn.theorem2", "applies": True, "reason": None, "verdict": "holds",
                         "reading": "assumptions fail: the theorem says nothing here", "worst_ratio": 0.5,
                         "assumptions_hold": False,
                         "assumptions": [{"name": "U = φ(Θ) orthogonal", "holds": False,
                                          "detail": "‖UᵀU − I‖₂ = 0.3"}]},
                        {"id": "sgornn.eq3", "applies": True, "reason": None, "verdict": "violated",
                         "reading": "violated on this model, inside the assumptions", "worst_ratio": 1.5,
                         "assumptions_hold": True,
                         "assumptions": [{"name": "α_t ∈ (0, 1)", "holds": True, "detail": "α = 0.05"}]},
                        {"id": "nc_gru.theorem1", "applies": False, "reason": "not an NC-GRU", "verdict": None,
                         "reading": "not applicable", "worst_ratio": None, "assumptions_hold": None,
                         "assumptions": []}]}}


def test_audit_report_is_summary_first_and_responsive(tmp_path):
    html = render_audit_html(AUDIT, tmp_path)
    parsed = _parse(html)
    assert parsed.ids.index("summary") < parsed.ids.index("applies") < parsed.ids.index("not-applicable")
    summary = html[html.index("id='summary'"):html.index("id='applies'")]
    for label, n in (("apply to this model", 2), ("an assumption fails", 1), ("bound exceeded, assumptions holding", 1),
                     ("do not apply", 1)):
        assert f"<td>{label}</td><td class='num'>{n}</td>" in summary
    assert "sgornn.eq3" in summary and "U = φ(Θ) orthogonal" in summary
    assert "<h2>Claims that apply to this model</h2>" in html
    assert "α<sub>t</sub> ∈ (0, 1)" in html
    assert {"name": "viewport", "content": "width=device-width, initial-scale=1"} in parsed.meta
    assert set(parsed.hrefs) <= set(parsed.ids)
    md = render_audit_markdown(AUDIT)
    assert md.index("## Summary") < md.index("## Claims that apply to this model") < md.index("## Claims that do not")
    assert "| bound exceeded, assumptions holding | 1 |" in md
    # the model's wording, never the papers' verdict words
    assert "exceeded, worst ratio 1.5" in md and "| `sgornn.eq3` | " in md
    assert "violated" not in md.split("## Claims that apply")[0]
