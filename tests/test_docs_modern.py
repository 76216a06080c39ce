"""docs/modern-recurrences.md runs as printed: its Python block trains an LRU and a Mamba selective SSM on the
bundled digits, audits both and draws their figures; what it prints is the page's output block, number for number,
every number the page's findings quote is in that output, and the figures the page shows are the ones the block
writes."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "modern-recurrences.md"
FINDINGS = "## What the audit finds"
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _block(kind: str) -> str:
    (code,) = re.findall(rf"```{kind}\n(.*?)\n```", PAGE.read_text(), flags=re.S)
    return code


def _figures_shown() -> set[str]:
    return set(re.findall(r"\]\(modern-recurrences/([\w-]+\.png)\)", PAGE.read_text()))


def _agree(printed: str, shown: str) -> list[str]:
    """The lines where printed and shown differ in their words, or in a number by more than one unit of the
    shown number's last printed digit (another torch build or thread count may round the other way)."""
    bad = []
    for p, s in zip(printed.splitlines(), shown.splitlines(), strict=False):
        if NUMBER.split(p) != NUMBER.split(s):
            bad.append(f"{p!r} != {s!r}")
            continue
        for a, b in zip(NUMBER.findall(p), NUMBER.findall(s)):
            digits = len(b.partition(".")[2])
            if abs(float(a) - float(b)) > 1.0001 * 10.0 ** -digits:
                bad.append(f"{a} != {b} in {s!r}")
    if len(printed.splitlines()) != len(shown.splitlines()):
        bad.append(f"{len(printed.splitlines())} lines printed, {len(shown.splitlines())} shown")
    return bad


@pytest.mark.slow  # trains two models and audits both: minutes of CPU
def test_the_modern_recurrences_walkthrough_prints_the_pages_output_and_draws_its_figures(tmp_path, monkeypatch,
                                                                                          capsys):
    pytest.importorskip("sklearn")
    monkeypatch.chdir(tmp_path)
    exec(compile(_block("python"), str(PAGE), "exec"), {})
    printed = capsys.readouterr().out.strip()
    assert _agree(printed, _block("text").strip()) == []
    for figure in _figures_shown():
        assert (tmp_path / "modern-recurrences" / figure).stat().st_size > 0, figure


def test_the_comparison_of_printed_and_shown_output_can_fail():
    """The negative control of the comparison above: a changed digit beyond the last one's rounding, or a changed
    word, is reported; a flip of the last digit is not."""
    assert _agree("accuracy 0.747", "accuracy 0.748") == []
    assert _agree("accuracy 0.745", "accuracy 0.748") != []
    assert _agree("lru.stability: holds", "lru.stability: fails") != []


def test_every_number_the_findings_quote_is_in_the_printed_output():
    findings = PAGE.read_text().split(FINDINGS, 1)[1].split("\n## ", 1)[0]
    decimal = re.compile(r"-?\d+\.\d+%?")
    quoted = decimal.findall(findings)
    assert quoted, "the findings quote no measured number"
    assert [n for n in quoted if n not in set(decimal.findall(_block("text")))] == []


def test_the_pages_figures_are_committed_and_written_by_its_block():
    shown = _figures_shown()
    assert {"lru-heat.png", "lru-lyapunov.png", "mamba-heat.png", "mamba-lyapunov.png"} <= shown
    committed = {p.name for p in (ROOT / "docs" / "modern-recurrences").glob("*.png")}
    assert committed == shown
    code = _block("python")
    assert 'out / f"{name}-heat.png"' in code and 'out / f"{name}-lyapunov.png"' in code
