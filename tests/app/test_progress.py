"""Progress bars: drawn on a terminal only, with an ETA, for the commands that can take seconds."""

import io

import pytest
import torch

from rnnaudit.progress import advance, progress_bar, reporting_to, shows_progress
from tests.conftest import cli_status


class _Terminal(io.StringIO):
    """A stream that says it is a terminal, as stderr is in an interactive shell."""

    def isatty(self) -> bool:
        return True


def test_a_bar_draws_nothing_where_stderr_is_not_a_terminal():
    log = io.StringIO()
    with progress_bar(10, "audit", unit="claim", file=log) as bar:
        assert bar.disable
        bar.update(10)
    assert log.getvalue() == "" and not shows_progress(log)


def test_a_bar_on_a_terminal_shows_the_rate_and_an_eta():
    tty = _Terminal()
    with progress_bar(4, "lyapunov", file=tty) as bar:
        assert not bar.disable and shows_progress(tty)
        bar.update(2)
        bar.refresh()
        shown = tty.getvalue()
    # tqdm's "[elapsed<remaining, rate]": the remaining time is the ETA
    assert "lyapunov" in shown and "2/4" in shown and "<" in shown and "step/s" in shown


def test_advance_ticks_only_the_bar_made_current():
    ticks = []
    advance(3)  # no current bar: nothing happens
    with reporting_to(ticks.append):
        advance(1)
        advance(2)
        with reporting_to(None):
            advance(5)
    advance(7)
    assert ticks == [1, 2]


def test_lyapunov_command_draws_a_bar_on_a_terminal_and_none_in_a_log(tmp_path, monkeypatch, capsys):
    argv = ["lyapunov", "sgornn", "--hidden", "4", "--T", "30", "--out", str(tmp_path / "l.png")]
    assert cli_status(argv) == 0
    assert "lyapunov" not in capsys.readouterr().err  # pytest's captured stderr is no terminal
    tty = _Terminal()
    monkeypatch.setattr("sys.stderr", tty)
    assert cli_status(argv) == 0
    assert "lyapunov:" in tty.getvalue() and "/30 [" in tty.getvalue()  # drawn, with the total the ETA needs


def test_audit_command_counts_every_claim_and_stage_on_a_terminal(tmp_path, monkeypatch):
    """Every claim, then the diagnostics and the fixed points (one unit each)."""
    from rnnaudit.bounds import all_claims

    torch.save(torch.nn.RNN(2, 4, batch_first=True).state_dict(), tmp_path / "w.pt")
    tty = _Terminal()
    monkeypatch.setattr("sys.stderr", tty)
    assert cli_status(["audit", "--arch", "rnn", "--weights", str(tmp_path / "w.pt"), "--T", "8",
                       "--out", str(tmp_path / "a")]) == 0
    n = len(all_claims()) + 2
    assert f"/{n} [" in tty.getvalue() and "claim" in tty.getvalue()


@pytest.mark.slow
def test_spectrum_bar_counts_the_grid_points_of_every_matrix(tmp_path, monkeypatch):
    from rnnaudit.figures.spectrum import default_grid

    gru = torch.nn.GRU(3, 6, batch_first=True)
    torch.save(gru.state_dict(), tmp_path / "w.pt")
    total = sum(default_grid(W.detach().double()) ** 2 for W in gru.weight_hh_l0.chunk(3))
    tty = _Terminal()
    monkeypatch.setattr("sys.stderr", tty)
    assert cli_status(["spectrum", "--arch", "gru", "--weights", str(tmp_path / "w.pt"), "--out",
                       str(tmp_path / "s.png")]) == 0
    assert f"/{total} [" in tty.getvalue() and "point" in tty.getvalue()


def test_check_and_train_draw_no_bar_into_a_log(tmp_path, capsys):
    assert cli_status(["train", "--cell", "fastrnn", "--hidden", "4", "--T", "5", "--steps", "3", "--record-every", "1",
                       "--out", str(tmp_path / "run")]) == 0
    assert "fastrnn/adding" not in capsys.readouterr().err  # the trainer's bar, were it drawn
