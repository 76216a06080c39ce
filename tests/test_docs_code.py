"""The Python blocks of docs/ run as printed: each runs here, or in the test named for its page, or is named as an
excerpt that needs the reader's own files."""

import re
from pathlib import Path

import pytest
import torch

DOCS = Path(__file__).resolve().parents[1] / "docs"

#: Pages whose block another test runs as printed.
RUN_ELSEWHERE = {
    "monitoring.md": "tests/app/test_walkthrough.py runs examples/walkthrough.py, which tests/test_readme.py keeps "
                     "identical to the block",
    "auditing-an-lstm.md": "tests/test_docs_lstm.py",
    "your-model.md": "tests/test_readme.py runs the README's block, which it keeps identical to the page's; "
                     "tests/test_docs_figures.py runs the figures section's",
    "fixed-points.md": "tests/test_docs_fixed_points.py",
    "modern-recurrences.md": "tests/test_docs_modern.py",
}
#: Pages whose block reads the reader's own files, so it cannot run as printed.
EXCERPTS = {"untrusted-inputs.md": "audits the reader's run directory runs/mine with the factory mypkg.models:make"}


def _python_blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)\n```", page.read_text(), flags=re.S)


def _heatmaps(ns):
    T = ns["x"].shape[1]
    assert ns["label"] == "h block" and ns["maps"].spectral.shape == (T + 1, T + 1)
    assert ns["wide"].spectral.shape == (64, 64) and 0 < ns["wide"].confidence <= 1
    assert next(ns["lstm"].parameters()).dtype == torch.float32  # the probes read a float64 copy


def _api(ns):
    assert ns["result"].verdict in ("holds", "false", "misprinted", "vacuous", "inconclusive")
    assert (Path("audit-report") / "results.json").is_file() and ns["run"].failing is not None


#: Pages whose block runs here, with what it must have computed.
RUN_HERE = {"heatmaps.md": _heatmaps, "api.md": _api}


def test_every_python_block_of_the_docs_is_run_or_named_as_an_excerpt():
    pages = {page.name for page in DOCS.glob("*.md") if _python_blocks(page)}
    assert pages == set(RUN_HERE) | set(RUN_ELSEWHERE) | set(EXCERPTS)


@pytest.mark.parametrize("page", ["heatmaps.md", pytest.param("api.md", marks=pytest.mark.slow)])
def test_the_python_block_runs_as_printed(page, tmp_path, monkeypatch):
    """api.md's block checks a whole paper (the quick profile), so only the full suite runs it."""
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for code in _python_blocks(DOCS / page):
        exec(compile(code, str(DOCS / page), "exec"), namespace)
    RUN_HERE[page](namespace)
