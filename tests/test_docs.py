"""The documentation site builds with every warning an error (``mkdocs build --strict``): a broken link, a
page missing from the files, or a docstring the API reference cannot render fails the suite."""

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

needs_mkdocs = pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings_handlers") is None,
    reason="mkdocs and mkdocstrings are not installed (pip install -e '.[test]')")


def _build(config: Path, site: Path) -> subprocess.CompletedProcess:
    # not --quiet: it hides the warnings from the counter that --strict reads, and the build passes
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config),
                           "-d", str(site)], cwd=config.parent, capture_output=True, text=True, timeout=300)


@needs_mkdocs
@pytest.mark.slow
def test_the_docs_site_builds_strictly_with_the_api_reference(tmp_path):
    done = _build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert done.returncode == 0, done.stderr[-3000:]
    api = (tmp_path / "site" / "api" / "index.html").read_text()
    # generated from the docstrings, not written by hand
    for name in ("check_claim", "wrap", "audit", "Monitor", "save_figure", "progress_bar"):
        assert re.search(rf'id="[\w.]*\b{name}"', api), name
    assert "Tensor shapes" in api or "Raises" in api


@needs_mkdocs
def test_a_broken_link_fails_the_strict_build(tmp_path):
    """The negative control: the same site with one link to a page that does not exist."""
    import shutil

    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    (tmp_path / "docs" / "figures.md").write_text("# Figures\n\nSee [nothing](no-such-page.md).\n")
    (tmp_path / "docs" / "api.md").write_text("# Python API\n")  # the reference is not what this test is about
    config = tmp_path / "mkdocs.yml"
    # the API reference reads the sources from the checkout
    config.write_text(config.read_text().replace("paths: [.]", f"paths: [{ROOT}]"))
    done = _build(config, tmp_path / "site")
    assert done.returncode != 0 and "no-such-page.md" in done.stderr


def test_every_docs_page_is_in_the_nav_or_named_as_coming():
    """A page nobody links from the nav is lost; pages of other branches are listed in a comment until merged."""
    config = (ROOT / "mkdocs.yml").read_text()
    nav = set(re.findall(r"^\s+- [^:#]+: ([\w-]+\.md)$", config, flags=re.M))
    coming = set(re.findall(r"^\s+#\s+- [^:]+: ([\w-]+\.md)", config, flags=re.M))
    pages = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert pages <= nav | coming, sorted(pages - nav - coming)
    assert nav <= pages, sorted(nav - pages)  # mkdocs --strict would fail on these too
