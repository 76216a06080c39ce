"""CI must run exactly the README's commands."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ci_runs_exactly_the_readme_commands():
    readme = (ROOT / "README.md").read_text()
    quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)\n```", quick_start, flags=re.S)
    assert commands == ['python -m pip install "torch==2.13.0" -e ".[test]" && rnnaudit check --out audit-report',
                        "python -m pytest"]
    ci_lines = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.startswith("python")]
    assert ci_lines == commands
    assert (ROOT / ".ci" / "run").read_text().rstrip().endswith(commands[-1])  # pytest's status is the script's


def _own_model_section() -> str:
    return (ROOT / "README.md").read_text().split("## Your own model", 1)[1].split("\n## ", 1)[0]


def test_the_own_model_python_example_runs_as_printed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (code,) = re.findall(r"```python\n(.*?)\n```", _own_model_section(), flags=re.S)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    T = namespace["x"].shape[1]
    assert namespace["maps"].spectral.shape == (T + 1, T + 1)
    claims = namespace["report"]["claims"]
    assert any(c["applies"] for c in claims) and all(c["applies"] or c["reason"] for c in claims)


def test_the_own_model_commands_run_as_printed(tmp_path):
    import subprocess
    import sys

    import torch

    torch.save(torch.nn.GRU(2, 16, batch_first=True).state_dict(), tmp_path / "w.pt")
    (block,) = re.findall(r"```bash\n(.*?)\n```", _own_model_section(), flags=re.S)
    for line in block.splitlines():
        argv = line.split("#", 1)[0].split()
        assert argv[0] == "rnnaudit"
        done = subprocess.run([sys.executable, "-m", "rnnaudit.cli", *argv[1:]], cwd=tmp_path, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, (line, done.stderr[-2000:])
    assert (tmp_path / "my-audit" / "audit.json").is_file() and (tmp_path / "heat.png").stat().st_size > 0


def test_every_claim_the_findings_table_names_is_registered():
    from rnnaudit.bounds import claim_by_id

    findings = (ROOT / "README.md").read_text().split("## What the audit finds", 1)[1].split("\n## ", 1)[0]
    named = set()
    for row in re.findall(r"^\| `([^|]+)", findings, flags=re.M):
        ids = re.findall(r"`([a-z_0-9.]+)`", "`" + row)
        paper = ids[0].split(".", 1)[0]
        named |= {i if i.startswith(paper + ".") else f"{paper}.{i}" for i in ids}
    assert len(named) >= 40
    for claim_id in named:
        claim_by_id(claim_id)  # raises for an id the registry does not have


def test_the_walkthrough_in_the_readme_is_examples_walkthrough_py():
    """The README's walk-through code is examples/walkthrough.py verbatim, which
    tests/app/test_walkthrough.py runs at a small size."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Monitoring your own training loop", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert blocks == [(ROOT / "examples" / "walkthrough.py").read_text()]
