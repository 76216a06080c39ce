"""CI must run exactly the README's commands, and the code the README and docs/ show must run as printed."""

import re
import shlex
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: A newcomer reads the README to the end: what it is, the two commands, one example per use, the links.
README_MAX_CHARS = 8000


def _section(path: Path, heading: str) -> str:
    """The text under ``heading`` (a ``#`` or ``##`` heading line) up to the next heading of level 1 or 2."""
    text = path.read_text()
    body = re.split(rf"^#{{1,2}} {re.escape(heading)}\n", text, maxsplit=1, flags=re.M)[1]
    return re.split(r"^#{1,2} ", body, maxsplit=1, flags=re.M)[0]


def _blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)\n```", text, flags=re.S)


def test_ci_runs_exactly_the_readme_commands():
    quick_start = _section(ROOT / "README.md", "Quick start")
    commands = _blocks(quick_start, "bash")
    assert commands == ['python -m pip install "torch==2.13.0" -e ".[test]" && rnnaudit check --out audit-report',
                        "python -m pytest"]
    ci = (ROOT / ".ci" / "run").read_text()
    ci_lines = [line for line in ci.splitlines() if line.startswith("python ")]
    # CI runs the full suite: the README's test command with --full, which the README names beside it
    assert ci_lines == [commands[0], commands[1] + " --full"]
    assert "`python -m pytest --full`" in quick_start
    assert ci.rstrip().endswith(commands[-1] + " --full")  # pytest's status is the script's


def test_ci_makes_its_virtual_environment_as_the_readme_says():
    """The README's venv line, with a temporary directory for .venv, comes before the two commands in .ci/run."""
    (venv,) = re.findall(r"`(python3 -m venv \.venv && \. \.venv/bin/activate)`", _section(ROOT / "README.md",
                                                                                            "Quick start"))
    ci = (ROOT / ".ci" / "run").read_text()
    as_in_ci = venv.replace(".venv/bin/activate", '"$VENV/bin/activate"').replace(".venv", '"$VENV"')
    assert as_in_ci in ci.splitlines()
    assert ci.index(as_in_ci) < ci.index("python -m pip install")
    assert 'VENV="$(mktemp -d)/venv"' in ci  # never the checkout's own .venv


def test_the_readme_is_short_and_its_links_lead_somewhere():
    readme = (ROOT / "README.md").read_text()
    assert len(readme) <= README_MAX_CHARS
    links = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert len(set(links)) >= 8 and all((ROOT / link).is_file() for link in links), links
    for heading in ("Quick start", "Check a paper", "Audit your model", "Heatmap and spectrum", "Monitor your loop"):
        assert f"\n## {heading}\n" in readme


def test_the_own_model_python_example_runs_as_printed(tmp_path, monkeypatch):
    import torch

    monkeypatch.chdir(tmp_path)
    (code,) = _blocks(_section(ROOT / "README.md", "Audit your model"), "python")
    assert code in (DOCS / "your-model.md").read_text()  # the docs page shows the same code
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    T = namespace["x"].shape[1]
    assert next(namespace["model"].parameters()).dtype == torch.float32  # the user's model is not converted
    assert namespace["maps"].spectral.shape == (T + 1, T + 1)
    claims = namespace["report"]["claims"]
    assert any(c["applies"] for c in claims) and all(c["applies"] or c["reason"] for c in claims)


@pytest.mark.slow
def test_the_own_model_commands_run_as_printed(tmp_path):
    import subprocess
    import sys

    import torch

    torch.save(torch.nn.GRU(2, 16, batch_first=True).state_dict(), tmp_path / "w.pt")
    (block,) = _blocks(_section(ROOT / "README.md", "Audit your model"), "bash")
    assert block in (DOCS / "your-model.md").read_text()
    for line in block.splitlines():
        argv = line.split("#", 1)[0].split()
        assert argv[0] == "rnnaudit"
        done = subprocess.run([sys.executable, "-m", "rnnaudit.cli", *argv[1:]], cwd=tmp_path, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, (line, done.stderr[-2000:])
    assert (tmp_path / "my-audit" / "audit.json").is_file() and (tmp_path / "heat.png").stat().st_size > 0


def test_every_rnnaudit_command_the_readme_shows_parses():
    """The commands of "Check a paper", "Heatmap and spectrum" and "Monitor your loop" take minutes as printed
    (the audit examples above run whole): their flags and choices must still be the CLI's."""
    from rnnaudit.cli.parser import build_parser

    lines = [line.split("#", 1)[0] for block in _blocks((ROOT / "README.md").read_text(), "bash")
             for line in block.splitlines() if line.startswith("rnnaudit ")]
    assert len(lines) >= 7
    for line in lines:
        build_parser().parse_args(shlex.split(line)[1:])  # argparse exits 2 on a flag it does not know


def test_every_claim_the_findings_table_names_is_registered():
    from rnnaudit.bounds import claim_by_id

    findings = (DOCS / "findings.md").read_text()
    named = set()
    for row in re.findall(r"^\| `([^|]+)", findings, flags=re.M):
        ids = re.findall(r"`([a-z_0-9.]+)`", "`" + row)
        paper = ids[0].split(".", 1)[0]
        named |= {i if i.startswith(paper + ".") else f"{paper}.{i}" for i in ids}
    assert len(named) >= 40
    for claim_id in named:
        claim_by_id(claim_id)  # raises for an id the registry does not have


TOTALS = re.compile(r"(\d+) claims over (?:[a-z]+|\d+) papers: (\d+) hold, (\d+) are false, (\d+) are misprinted, (\d+) is vacuous")


def _published_totals(path) -> tuple[int, ...]:
    found = TOTALS.search(" ".join(path.read_text().split()))
    assert found, f"{path.name} states no totals in the form '{TOTALS.pattern}'"
    return tuple(map(int, found.groups()))


def test_the_readme_and_the_findings_page_give_the_same_totals():
    readme, findings = _published_totals(ROOT / "README.md"), _published_totals(DOCS / "findings.md")
    assert readme == findings
    n, *verdicts = findings
    assert sum(verdicts) == n


def test_the_published_totals_are_those_of_a_real_check_run():
    """The totals in the README and docs/findings.md are the verdict counts of the check `.ci/run` runs first
    (audit-report/results.json, the README's first command): published numbers come from a run, not by hand.
    Skipped where no such run is beside the checkout, except in CI, where that run must be there."""
    import json
    import os
    from collections import Counter

    results = ROOT / "audit-report" / "results.json"
    if not results.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail("CI runs `rnnaudit check --out audit-report` before the tests; its results.json is missing")
        pytest.skip("no audit-report/results.json beside the checkout (run the README's first command)")
    doc = json.loads(results.read_text())
    from rnnaudit.bounds import PAPERS

    if doc.get("profile") != "quick" or {c["paper"] for c in doc["claims"]} != set(PAPERS):
        pytest.skip("audit-report/ holds a run of another profile or of some papers only")
    counts = Counter(c["verdict"] for c in doc["claims"])
    n, holds, false, misprinted, vacuous = _published_totals(DOCS / "findings.md")
    assert (len(doc["claims"]), counts["holds"], counts["false"], counts["misprinted"], counts["vacuous"]) == \
        (n, holds, false, misprinted, vacuous)


def test_the_walkthrough_in_the_docs_is_examples_walkthrough_py():
    """docs/monitoring.md's walk-through code is examples/walkthrough.py verbatim, which
    tests/app/test_walkthrough.py runs at a small size."""
    blocks = re.findall(r"```python\n(.*?)```", (DOCS / "monitoring.md").read_text(), flags=re.S)
    assert blocks == [(ROOT / "examples" / "walkthrough.py").read_text()]


def test_the_readme_monitor_excerpt_is_a_piece_of_examples_walkthrough_py():
    (excerpt,) = _blocks(_section(ROOT / "README.md", "Monitor your loop"), "python")
    lines = (ROOT / "examples" / "walkthrough.py").read_text().splitlines()
    n = len(excerpt.splitlines())
    windows = [textwrap.dedent("\n".join(lines[i:i + n])) for i in range(len(lines) - n + 1)]
    assert excerpt in windows
