"""``rnnaudit spectrum`` reads the weights alone and writes the one file --out names."""

import numpy as np
import pytest
import torch

from tests.conftest import cli_status


@pytest.mark.slow
def test_spectrum_of_a_width_3_gru_needs_no_inputs_and_writes_one_file(tmp_path, capsys):
    """No task draws inputs of width 3; spectrum does not use inputs, so none are asked for."""
    torch.save(torch.nn.GRU(3, 6, batch_first=True).state_dict(), tmp_path / "w.pt")
    out = tmp_path / "X.png"
    assert cli_status(["spectrum", "--arch", "gru", "--weights", str(tmp_path / "w.pt"), "--out", str(out)]) == 0
    assert "--inputs" not in capsys.readouterr().err
    # the figure and its data, nothing else: no X-W_hr.png, X-W_hz.png, X-W_hn.png
    assert sorted(p.name for p in tmp_path.iterdir()) == ["X.npz", "X.png", "w.pt"]
    data = np.load(tmp_path / "X.npz")
    # one cell of panels per recurrent matrix, all in the one figure; plain identifiers as names
    assert {k.split("__")[0] for k in data.files if k != "labels"} == {"W_hr", "W_hz", "W_hn"}
    assert all(k.isascii() and k.isidentifier() for k in data.files)
    assert data["W_hz__eigenvalues"].shape == (6,) and data["W_hn__sigma_min"].ndim == 2


def test_spectrum_of_fixed_recurrent_matrices_refuses_input_flags(tmp_path, capsys):
    """Inputs go with spectrum only for an input-dependent transition (tests/app/test_package_models.py)."""
    torch.save(torch.nn.GRU(3, 6, batch_first=True).state_dict(), tmp_path / "w.pt")
    assert cli_status(["spectrum", "--arch", "gru", "--weights", str(tmp_path / "w.pt"), "--task", "adding",
                       "--out", str(tmp_path / "s.png")]) == 2
    assert "--task" in capsys.readouterr().err


def test_heatmap_of_a_width_3_gru_still_asks_for_inputs(tmp_path, capsys):
    """The negative control: a command that does use inputs keeps refusing a task of the wrong width."""
    torch.save(torch.nn.GRU(3, 6, batch_first=True).state_dict(), tmp_path / "w.pt")
    assert cli_status(["heatmap", "--arch", "gru", "--weights", str(tmp_path / "w.pt"), "--out",
                       str(tmp_path / "h.png")]) == 2
    assert "pass --inputs" in capsys.readouterr().err


def test_completion_help_lists_exactly_the_shells_it_accepts(capsys):
    import shtab

    from rnnaudit.cli.parser import build_parser

    parser = build_parser()
    (action,) = [a for a in parser._actions if "--print-completion" in a.option_strings]
    assert list(action.choices) == list(shtab.SUPPORTED_SHELLS)
    assert all(shell in action.help for shell in action.choices)
    for shell in action.choices:
        assert cli_status(["--print-completion", shell]) == 0
        assert "rnnaudit" in capsys.readouterr().out


def test_a_completion_script_piped_into_a_reader_that_quits_ends_without_a_traceback():
    """``rnnaudit --print-completion bash | head -1``: the reader closes the pipe before the script is written; the
    command stops quietly with Python's status for EPIPE (1), and writes nothing to stderr."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "rnnaudit.cli", "--print-completion", "bash"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # before the interpreter has started: every write meets a closed pipe
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1 and err == "", err


def test_a_digits_source_draws_the_tasks_own_length_without_T():
    """The digits are 8 × 8 images read pixel by pixel: with no --T, a cell probed on ``--task digits`` gets
    sequences of 64 steps (the fixed length), where a task of any length gets the default 100."""
    from rnnaudit.sources import DEFAULT_T, load_source

    assert load_source("sgornn", task="digits", hidden=4).x.shape[1] == 64
    assert load_source("sgornn", task="adding", hidden=4).x.shape[1] == DEFAULT_T == 100
    assert load_source("sgornn", task="digits", hidden=4, T=64).x.shape[1] == 64
