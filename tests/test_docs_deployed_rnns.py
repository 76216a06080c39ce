"""docs/deployed-rnns.md quotes what scripts/gallery.py measured: every audited model's summary and figures are in
docs/deployed-rnns/, its licence, extraction error and audit numbers appear on the page as written there, and
every extraction error is within the gallery tests' tolerance, and each certificate's row says what the audit found
(certified, or fails with the rate)."""

import json
import re
from pathlib import Path

from rnnaudit.analysis.diagnostics import contractivity_name
from rnnaudit.figures.escaping import md_text
from tests.app.test_gallery import REFERENCE_TOL

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "deployed-rnns.md"
DATA = ROOT / "docs" / "deployed-rnns"


#: the gallery's GRU and one LSTM of a package must be audited on the page (the others are added as they finish)
REQUIRED = {"g2p-en", "silero-vad"}


def _gallery():
    """scripts/gallery.py as a module (its table cells are what the page must quote)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("gallery_script", ROOT / "scripts" / "gallery.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _summaries() -> dict[str, dict]:
    from rnnaudit.gallery import GALLERY

    return {name: json.loads((DATA / f"{name}.json").read_text()) for name in GALLERY
            if (DATA / f"{name}.json").is_file()}


def test_every_audited_gallery_model_has_its_summary_and_both_figures_on_the_page():
    text = PAGE.read_text()
    assert REQUIRED <= set(_summaries())
    for name in _summaries():
        for suffix in ("-heat.png", "-spectrum.png"):
            assert (DATA / f"{name}{suffix}").stat().st_size > 0
            assert f"](deployed-rnns/{name}{suffix})" in text, (name, suffix)


def test_the_page_quotes_each_models_licence_extraction_error_and_audit_numbers_as_measured():
    text = PAGE.read_text()
    for name, s in _summaries().items():
        rows = [line for line in text.splitlines() if line.startswith(f"| {name} |")]
        expected = 3 if s.get("certificates") else 2
        assert len(rows) == expected, f"{name}: expected a row in the gallery table, the audit table and (where the " \
                                      "summary has them) the certificates table"
        row, audit_row = rows[:2]
        if s.get("certificates"):
            by_id = {c["id"]: c for c in s["certificates"]}
            cells = [cell.strip() for cell in rows[2].split("|")[2:-1]]
            assert cells == [_gallery().certificate_cell(by_id.get(c)) for c in _gallery().CERTIFICATES], name
        assert s["licence"].split(";")[0].split(" (")[0] in row, (name, s["licence"])
        if s["reference_error"] is not None:
            assert s["reference_error"] <= REFERENCE_TOL
            assert f"{s['reference_error']:.1e}" in row, name
        applying = len(s["claims_applying"])
        assert f"{applying} of {s['claims_total']}" in audit_row, name
        for d in s["diagnostics"]:
            assert f"{d['contractivity']:.3g}" in audit_row, (name, d["part"])
            assert f"{d['lyapunov'][0]:.3g}" in audit_row, (name, d["part"])
            # the number carries its one label: block (an LSTM's h, c_{t−1} held fixed) and sequences
            label = contractivity_name({**d, "part": None})
            assert md_text(label) in audit_row, (name, label)
            if "c (" in d["state"]:
                assert "h block" in label, (name, "an LSTM's number is its h block")


def test_the_pages_figures_are_the_ones_the_script_writes():
    script = (ROOT / "scripts" / "gallery.py").read_text()
    assert re.search(r'OUT / f"\{name\}-heat\.png"', script) and re.search(r'OUT / f"\{name\}-spectrum\.png"', script)
