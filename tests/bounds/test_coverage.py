"""The statement index of each paper against the paper's own numbering: every numbered equation, theorem,
lemma, proposition, corollary, definition, assumption, algorithm and table of the markdown has an
entry, every entry is checked by registered claims or says why it cannot be, and every claim is
indexed."""

import re
from pathlib import Path

import pytest

from rnnaudit.bounds import CLAIMS_BY_PAPER, COVERAGE_BY_PAPER, PAPERS, all_claims
from rnnaudit.names import SEED_PAPERS

ROOT = Path(__file__).resolve().parents[2]
#: The specification, vendored so that the index is checked in every clone.
PAPERS_DIR = ROOT / "papers"
#: Where the project's shared copy lives beside a checkout, when it does.
SHARED_PAPERS = ROOT.parent / "shared" / "papers"
NAMED = ("Theorem", "Lemma", "Proposition", "Corollary", "Definition", "Assumption", "Algorithm", "Table")

#: Strings the extraction below reads as labels but the papers do not use as labels: page numbers
#: glued to a sentence's last word by the PDF conversion ("Table 1." followed by page 310).
EXTRACTION_ARTEFACTS = {
    "nc_gru": {"Algorithm 1.247", "Table 1.310", "Table 5.424"},
}


def paper_labels(text: str) -> set[str]:
    """Every label the paper numbers: ``eq. (N)`` for display equations (``\\tag{N}`` or a line ending
    in ``(N)``), ``Theorem 3.1``, ``Table 4``, ... for the named statements."""
    eqs = set(re.findall(r"\\tag\{(\d+)\}", text))
    for line in text.splitlines():
        m = re.search(r"\((\d{1,3})\)\s*(\$\$)?\s*$", line.strip())
        if m and int(m.group(1)) > 0:  # "A(0)" at a line's end is a superscript, not a label
            eqs.add(m.group(1))
    named = {f"{kind} {num}" for kind, num in
             re.findall(r"\b(" + "|".join(NAMED) + r")\s+(\d+(?:\.\d+)?)(?![\d.]*\d)", text)}
    return {f"eq. ({n})" for n in eqs} | named


def index_labels(paper: str) -> set[str]:
    """The labels an index covers; an entry ``eq. (16)–(18)`` covers eq. (16), (17) and (18), an entry
    ``Table 2, row 3`` covers Table 2."""
    out = set()
    for entry in COVERAGE_BY_PAPER[paper]:
        label = entry.label
        for a, b in re.findall(r"\((\d+)\)\s*[–-]\s*\((\d+)\)", label):
            out |= {f"eq. ({n})" for n in range(int(a), int(b) + 1)}
        out |= {f"eq. ({n})" for n in re.findall(r"\((\d+)\)", label)}
        out |= {f"{k} {n}" for k, n in re.findall(r"\b(" + "|".join(NAMED) + r")\s+(\d+(?:\.\d+)?)", label)}
    return out


@pytest.mark.parametrize("paper", SEED_PAPERS)  # the classic papers have no markdown copy to read labels from
def test_every_numbered_statement_of_the_paper_is_indexed(paper):
    found = paper_labels((PAPERS_DIR / f"{paper}.md").read_text()) - EXTRACTION_ARTEFACTS.get(paper, set())
    missing = sorted(found - index_labels(paper), key=lambda s: (s.split()[0], float(re.sub(r"[^\d.]", "", s) or 0)))
    assert missing == []


@pytest.mark.parametrize("paper", PAPERS)
def test_index_entries_name_registered_claims_or_a_reason(paper):
    ids = {c.id for c in CLAIMS_BY_PAPER[paper]}
    entries = COVERAGE_BY_PAPER[paper]
    assert len(entries) >= (10 if paper in SEED_PAPERS else 5)
    for e in entries:
        assert set(e.claims) <= ids, (e.label, set(e.claims) - ids)
        assert e.claims or e.reason
    assert len({e.label for e in entries}) == len(entries)


def test_every_claim_is_indexed():
    indexed = {cid for entries in COVERAGE_BY_PAPER.values() for e in entries for cid in e.claims}
    assert {c.id for c in all_claims()} - indexed == set()


@pytest.mark.skipif(not SHARED_PAPERS.is_dir(), reason="no shared copy of the papers beside this checkout")
def test_the_vendored_papers_are_the_shared_ones():
    for path in SHARED_PAPERS.glob("*.md"):
        assert (PAPERS_DIR / path.name).read_text() == path.read_text(), path.name


def test_the_extraction_finds_what_it_should():
    """The label reader itself: tags, trailing (N), named statements with dotted numbers."""
    text = "$$ a = b \\tag{3} $$\nwhere x (7)\nBy Theorem 3.1 and Table 2, A(0)\nsee Lemma 4."
    assert paper_labels(text) == {"eq. (3)", "eq. (7)", "Theorem 3.1", "Table 2", "Lemma 4"}


# --------------------------------------------------------------------------------------------------- findings
def test_a_finding_that_no_verdict_shows_is_reported():
    """The rule itself, on the real index: every finding shown passes; one claim's verdict changed is reported."""
    from rnnaudit.bounds.registry import findings, findings_not_shown

    shown = {s.finding.claim: s.finding.verdict for _, s in findings()}
    assert findings_not_shown(shown) == []
    paper, entry = findings()[0]
    assert findings_not_shown({**shown, entry.finding.claim: "holds"}) != []  # the negative control
    assert any(entry.label in line for line in findings_not_shown({}))


def test_every_reason_that_records_a_finding_has_one():
    """An entry whose reason says the paper is wrong carries a structured finding (not only words)."""
    words = re.compile(r"\b(is false|fails|index slip|should be|refuted|contradicts|never outputs|impossible)\b")
    loose = [(p, e.label) for p in PAPERS for e in COVERAGE_BY_PAPER[p]
             if words.search(e.reason) and e.finding is None and "holds" not in e.reason.split(";")[0]]
    assert loose == []


@pytest.mark.slow
def test_every_finding_is_shown_by_its_claims_verdict():
    """Each claim a finding names is checked (quick profile, seed 0) and must show the finding's verdict."""
    from rnnaudit.bounds import PROFILES, check_claim, claim_by_id
    from rnnaudit.bounds.registry import findings, findings_not_shown

    ids = sorted({s.finding.claim for _, s in findings()})
    verdicts = {cid: check_claim(claim_by_id(cid), PROFILES["quick"], seed=0).verdict for cid in ids}
    assert findings_not_shown(verdicts) == []


# ------------------------------------------------------------------------------------ labels against statements
#: A term of an inequality: a norm ‖…‖ with its subscript, or a symbol with its argument, e.g. ρ(W), λ₁, 1/γ.
_TERM = r"(?:‖[^‖]+‖(?:[₂∞]|_F|_∞|_2|₁,₁)?|[^\s,;:()'‘’‖]+(?:\([^()]*\))?)"
_RELATION = re.compile(rf"({_TERM})\s*(<|>|≤|≥)\s*({_TERM})")
_FLIP = {"<": ">", ">": "<", "≤": "≥", "≥": "≤"}

#: The quantities a label can name, each with the words and symbols that name it.
QUANTITIES = {
    "spectral radius": re.compile(r"ρ\(|spectral radius|eigenvalue"),
    "largest singular value": re.compile(r"σ_max|singular value|λ₁|spectral norm|‖[^‖]+‖₂"),
    "Frobenius norm": re.compile(r"‖[^‖]+‖_F|Frobenius"),
}


def relations(text: str) -> set[tuple[str, str, str]]:
    """The inequalities written in ``text`` as (left, relation, right), each also flipped (a < b is b > a)."""
    out = set()
    for left, op, right in _RELATION.findall(text):
        right = right.rstrip(".")
        out |= {(left, op, right), (right, _FLIP[op], left)}
    return out


def label_disagreements(label: str, statements: list[str]) -> list[str]:
    """What ``label`` says that none of ``statements`` (the statements of its claims and their readings) does: every
    inequality of the label, with the same terms, direction and strictness, and every quantity it names (spectral
    radius, largest singular value, Frobenius norm) must be in one of them."""
    text = " ".join(statements)
    checked = relations(text)
    out = [f"'{a} {op} {b.rstrip('.')}'" for a, op, b in _RELATION.findall(label) if (a, op, b.rstrip(".")) not in checked]
    out += [name for name, pattern in QUANTITIES.items() if pattern.search(label) and not pattern.search(text)]
    return sorted(set(out))


def _statements(entry) -> list[str]:
    from rnnaudit.bounds import claim_by_id

    claims = [claim_by_id(cid) for cid in entry.claims]
    return [c.statement for c in claims] + [r.statement for c in claims for r in c.readings]


def test_every_label_says_what_its_claims_check():
    """The index is truthful: a label's inequalities (terms, direction, strictness) and the quantities it names are
    those its claims' statements (or readings) check."""
    wrong = [(p, e.label, label_disagreements(e.label, _statements(e))) for p in PAPERS for e in COVERAGE_BY_PAPER[p]
             if e.claims and label_disagreements(e.label, _statements(e))]
    assert wrong == []


def test_a_label_that_says_more_than_its_claims_is_reported():
    """The negative controls: the two disagreements the rule was written for. Jaeger's necessary condition
    labelled 'ρ(W) < 1' against a claim of 'ρ(W) > 1 rules out the ESP' (they differ at ρ = 1), and Pascanu's
    spectral-radius statement mapped to a claim about the largest singular value."""
    echo = "For zero input and tanh units, ρ(W) > 1 rules out the echo state property"
    assert label_disagreements("necessary condition ρ(W) < 1 (zero input)", [echo]) == ["'ρ(W) < 1'"]
    assert label_disagreements("necessary condition: ρ(W) > 1 rules out the ESP", [echo]) == []
    singular = "If λ₁ < 1/γ (λ₁ the largest singular value of W_rec), then ‖∂x_t/∂x_k‖ ≤ η^(t−k)"
    assert label_disagreements("the linear model: eigenvalues of W_rec below 1", [singular]) == ["spectral radius"]
    assert label_disagreements("λ₁ ≤ 1/γ", [singular]) == ["'λ₁ ≤ 1/γ'"]  # strictness
    assert label_disagreements("‖W‖_F < 1", ["‖W‖₂ < 1"]) == ["'‖W‖_F < 1'", "Frobenius norm"]
