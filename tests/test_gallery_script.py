"""scripts/gallery.py: the docs page's tables are built from summary files, so every string from them is escaped
for Markdown and a damaged summary is one line naming the file, exit status 2; ``--T`` is a positive integer."""

import importlib.util
import json
import shutil
from pathlib import Path

import markdown
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def gallery(tmp_path, monkeypatch):
    """The script as a module, its OUT a copy of g2p-en's summary in tmp_path."""
    spec = importlib.util.spec_from_file_location("gallery_script", ROOT / "scripts" / "gallery.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    shutil.copy(ROOT / "docs" / "deployed-rnns" / "g2p-en.json", tmp_path / "g2p-en.json")
    monkeypatch.setattr(module, "OUT", tmp_path)
    return module


def _rewrite(path: Path, **fields):
    doc = json.loads(path.read_text())
    doc.update(fields)
    path.write_text(json.dumps(doc))


def test_summary_strings_reach_the_gallery_tables_as_inert_markdown(gallery, tmp_path):
    _rewrite(tmp_path / "g2p-en.json", version="<img src=x onerror=alert(1)>", licence="[x](javascript:alert(1))",
             compared="<script>alert(2)</script>", weight_file="a` <b>b</b>")
    html = markdown.markdown(gallery.tables(), extensions=["tables"])
    assert "<img" not in html and "<script" not in html and "<a " not in html and "<b>" not in html
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in html  # shown as text, not dropped


@pytest.mark.parametrize("damage, expected", [
    (lambda p: p.write_text("{not json"), "is not valid JSON"),
    (lambda p: p.write_bytes(b"\xff\xfe\x00garbage"), "is not UTF-8"),
    (lambda p: p.write_text(json.dumps({k: v for k, v in json.loads(p.read_text()).items()
                                        if k != "reference_error"})), "has no field 'reference_error'"),
    (lambda p: _rewrite(p, description="no recurrence named"), "names no nn.X(...) recurrence"),
    (lambda p: _rewrite(p, T="<b>x</b>", audit_seconds="fast"), "not a gallery summary"),
    (lambda p: _rewrite(p, claims_applying="abc"), "claims_applying must be a list"),
])
def test_a_damaged_summary_is_one_line_naming_the_file_and_exit_2(gallery, tmp_path, capsys, damage, expected):
    damage(tmp_path / "g2p-en.json")
    assert gallery.main(["--tables"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and str(tmp_path / "g2p-en.json") in err and expected in err, err


def test_the_real_summaries_give_the_tables_on_the_page(gallery, tmp_path):
    row = next(line for line in gallery.tables().splitlines() if line.startswith("| g2p-en | 2"))
    assert row in (ROOT / "docs" / "deployed-rnns.md").read_text()


@pytest.mark.parametrize("value", ["-1", "0", "1.5", "x"])
def test_gallery_T_must_be_a_positive_integer(gallery, capsys, value):
    with pytest.raises(SystemExit) as raised:
        gallery.main(["g2p-en", "--T", value])
    assert raised.value.code == 2 and "expected a positive integer" in capsys.readouterr().err


def test_gallery_T_help_names_each_models_default(gallery, capsys):
    with pytest.raises(SystemExit):
        gallery.main(["--help"])
    assert "g2p-en 46" in " ".join(capsys.readouterr().out.split())
