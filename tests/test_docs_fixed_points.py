"""docs/fixed-points.md runs as printed: its Python block finds the tanh unit's three fixed points and prints the
lines the page shows, and its command writes the figure."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "fixed-points.md"


@pytest.mark.slow  # the page's searches from many starts: 20 s
def test_the_fixed_points_page_runs_as_printed(tmp_path, monkeypatch, capsys):
    text = PAGE.read_text()
    (code,) = re.findall(r"```python\n(.*?)\n```", text, flags=re.S)
    (shown,) = re.findall(r"```text\n(.*?)\n```", text, flags=re.S)
    (command,) = re.findall(r"```bash\n(.*?)\n```", text, flags=re.S)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(code, str(PAGE), "exec"), namespace)
    assert capsys.readouterr().out.strip() == shown.strip()
    assert (tmp_path / "fixed-points.png").stat().st_size > 0 and (tmp_path / "fixed-points.npz").exists()
    argv = command.split()
    assert argv[0] == "rnnaudit"
    done = subprocess.run([sys.executable, "-m", "rnnaudit.cli", *argv[1:]], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert re.search(r"\d+ fixed point\(s\) and \d+ slow point\(s\) under the mean input", done.stdout)
    assert (tmp_path / "fp.png").stat().st_size > 0 and (tmp_path / "fp.npz").exists()
