"""docs/auditing-an-lstm.md runs as printed: its Python block trains and audits the digits LSTM, its
command audits the saved weights (the full suite: about a minute). The fast suite checks that the page's code
compiles, imports only names rnnaudit has, and that its command is one the command line accepts."""

import ast
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "auditing-an-lstm.md"


def _blocks():
    text = PAGE.read_text()
    (code,) = re.findall(r"```python\n(.*?)\n```", text, flags=re.S)
    (commands,) = re.findall(r"```bash\n(.*?)\n```", text, flags=re.S)
    return code, commands


def test_the_lstm_walkthrough_imports_names_rnnaudit_has_and_its_command_parses():
    from rnnaudit.cli.parser import build_parser

    code, commands = _blocks()
    tree = ast.parse(compile(code, str(PAGE), "exec", flags=ast.PyCF_ONLY_AST))
    imported = [(node.module, alias.name) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                and node.module.split(".")[0] == "rnnaudit" for alias in node.names]
    assert imported
    missing = [f"{m}.{n}" for m, n in imported if not hasattr(importlib.import_module(m), n)]
    assert missing == []
    for line in commands.splitlines():
        argv = line.split()
        assert argv[0] == "rnnaudit" and build_parser().parse_args(argv[1:]).command == "audit"
        with pytest.raises(SystemExit):  # the control: a flag the command line lacks is refused
            build_parser().parse_args([*argv[1:], "--no-such-flag"])


@pytest.mark.slow
def test_the_lstm_walkthrough_runs_as_printed(tmp_path, monkeypatch, capsys):
    pytest.importorskip("sklearn")
    text = PAGE.read_text()
    (code,) = re.findall(r"```python\n(.*?)\n```", text, flags=re.S)
    (commands,) = re.findall(r"```bash\n(.*?)\n```", text, flags=re.S)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(code, str(PAGE), "exec"), namespace)
    report = namespace["report"]
    assert report["model"]["hidden_size"] == 32 and report["model"]["state_layout"] == "state = [h (32) | c (32)]"
    (d,) = report["diagnostics"]
    assert d["state"] == "h (32), c (32)" and len(d["lyapunov"]) == 3 and d["contractivity"] > 0
    assert report["initial_state_gradient"]["norm"] > 0
    assert "orthogonality_defect" not in json.dumps(report["model"])
    printed = capsys.readouterr().out
    assert "state = [h (32) | c (32)]" in printed and "test accuracy" in printed
    for line in commands.splitlines():
        argv = line.split()
        assert argv[0] == "rnnaudit"
        done = subprocess.run([sys.executable, "-m", "rnnaudit.cli", *argv[1:]], cwd=tmp_path, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, (line, done.stderr[-2000:])
        assert "LSTM: input size 1, hidden size 32, state = [h (32) | c (32)]" in done.stdout
    doc = json.loads((tmp_path / "lstm-audit" / "audit.json").read_text())
    assert doc["latest"]["diagnostics"][0]["contractivity"] == pytest.approx(d["contractivity"], rel=1e-9)
