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


def test_the_walkthrough_in_the_readme_is_examples_walkthrough_py():
    """The README's walk-through code is examples/walkthrough.py verbatim, which
    tests/app/test_walkthrough.py runs at a small size."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Your own model and training loop", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert blocks == [(ROOT / "examples" / "walkthrough.py").read_text()]
