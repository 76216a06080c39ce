"""Progress bars: drawn on a terminal only, with an ETA, for the commands that can take seconds."""

import io

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


def test_audit_command_counts_every_claim_on_a_terminal(tmp_path, monkeypatch):
    from rnnaudit.bounds import all_claims

    torch.save(torch.nn.RNN(2, 4, batch_first=True).state_dict(), tmp_path / "w.pt")
    tty = _Terminal()
    monkeypatch.setattr("sys.stderr", tty)
    assert cli_status(["audit", "--arch", "rnn", "--weights", str(tmp_path / "w.pt"), "--T", "8",
                       "--out", str(tmp_path / "a")]) == 0
    n = len(all_claims())
    assert f"/{n} [" in tty.getvalue() and "claim" in tty.getvalue()
