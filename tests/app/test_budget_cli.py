"""``rnnaudit lyapunov`` and ``rnnaudit spectrum`` print their estimate before any work and refuse a job over
--max-minutes in one line (exit 2, nothing written), as ``heatmap`` does; and the small leftovers of the hostile
passes: a complex safetensors file, a complex recurrent matrix given to wrap(), a refused --out's parents."""

import json
import struct

import pytest
import torch

from tests.conftest import cli_status

F64 = torch.float64


@pytest.fixture(scope="module")
def rnn_files(tmp_path_factory):
    torch.manual_seed(0)
    d = tmp_path_factory.mktemp("w")
    torch.save(torch.nn.RNN(3, 6, batch_first=True).state_dict(), d / "w.pt")
    torch.save(torch.randn(40, 3, dtype=F64), d / "x.pt")
    return d


@pytest.mark.parametrize("command", ["lyapunov", "spectrum"])
def test_a_job_over_its_time_budget_is_refused_in_one_line_after_its_estimate(command, rnn_files, tmp_path, capsys):
    """A budget below any estimate refuses (exit 2) in one line naming --max-minutes, writing nothing; the same job
    under a generous budget runs and writes its figure."""
    base = [command, "--weights", str(rnn_files / "w.pt")]
    if command == "lyapunov":
        base += ["--inputs", str(rnn_files / "x.pt")]
    assert cli_status([*base, "--max-minutes", "1e-9", "--out", str(tmp_path / "a.png")]) == 2
    out, err = capsys.readouterr()
    assert out.startswith("estimate: ") and "about" in out and out.count("\n") == 1, out
    assert err.count("\n") == 1 and f"{command}: estimated about" in err, err
    assert "above the budget of 1e-09 minutes; pass --max-minutes 1 to run it" in err, err
    assert not list(tmp_path.iterdir())
    assert cli_status([*base, "--max-minutes", "60", "--out", str(tmp_path / "b.png")]) == 0
    assert capsys.readouterr().out.startswith("estimate: ")
    assert (tmp_path / "b.png").exists()


def test_the_budget_refuses_an_estimate_that_is_not_finite():
    from rnnaudit.cli.budget import check_budget
    from rnnaudit.untrusted import InputError

    for seconds in (float("inf"), float("nan")):
        with pytest.raises(InputError, match="pass a larger --max-minutes"):
            check_budget("spectrum", seconds, 10.0)
    check_budget("spectrum", 599.0, None)  # within the default 10 minutes
    with pytest.raises(InputError, match="--max-minutes 11 .*--role"):
        check_budget("spectrum", 601.0, None)


def _safetensors(path, dtype: str, shape, nbytes: int) -> None:
    header = json.dumps({"weight_hh_l0": {"dtype": dtype, "shape": shape, "data_offsets": [0, nbytes]}}).encode()
    path.write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * nbytes)


def test_a_complex_safetensors_file_gets_the_complex_line_not_an_unknown_dtype(tmp_path, capsys):
    path = tmp_path / "w.safetensors"
    _safetensors(path, "C64", [2, 2], 32)
    assert cli_status(["spectrum", "--weights", str(path), "--out", str(tmp_path / "s.png")]) == 2
    err = capsys.readouterr().err
    assert "tensor 'weight_hh_l0' is complex (complex64)" in err and "not supported yet in weights files" in err, err
    assert "'C64'" not in err and ".to(" not in err
    _safetensors(path, "X9", [2, 2], 32)  # an unknown dtype is still named as one
    assert cli_status(["spectrum", "--weights", str(path), "--out", str(tmp_path / "s.png")]) == 2
    assert "has dtype 'X9', not one of" in capsys.readouterr().err


def test_wrap_refuses_a_complex_recurrent_matrix_however_it_is_given():
    from rnnaudit import wrap

    W = torch.eye(2, dtype=torch.complex128)
    with pytest.raises(ValueError, match=r"recurrent\['W'\] is complex \(complex128\).*not supported yet in wrap"):
        wrap(lambda x_t, h: h, input_size=2, state_size=2, recurrent={"W": W})
    cell = wrap(lambda x_t, h: h, input_size=2, state_size=2, recurrent={"W": lambda: W})
    with pytest.raises(ValueError, match=r"recurrent\['W'\] is complex"):
        cell.recurrent_matrices()
    real = wrap(lambda x_t, h: h, input_size=2, state_size=2, recurrent={"W": torch.eye(2, dtype=F64)})
    assert set(real.recurrent_matrices()) == {"W"}


def test_a_refused_write_leaves_no_directory_it_created(tmp_path):
    from rnnaudit.atomic import atomic_path

    with pytest.raises(ValueError):
        with atomic_path(tmp_path / "a<b" / "c" / "f.png"):
            raise ValueError("refused")
    assert not list(tmp_path.iterdir())
    (tmp_path / "kept").mkdir()  # a directory that existed before stays
    with pytest.raises(ValueError):
        with atomic_path(tmp_path / "kept" / "new" / "f.png"):
            raise ValueError("refused")
    assert [p.name for p in tmp_path.iterdir()] == ["kept"] and not list((tmp_path / "kept").iterdir())
    with atomic_path(tmp_path / "made" / "f.txt") as tmp:  # a successful write keeps its new directory
        tmp.write_text("x")
    assert (tmp_path / "made" / "f.txt").read_text() == "x"


def test_a_budget_refusal_names_what_makes_the_job_smaller_once_and_a_tiny_memory_limit_is_not_shown_as_zero(
        tmp_path, monkeypatch, capsys):
    """The audit's hint read "choose smaller sizes (smaller sizes)", and --memory-limit 1e-12 was shown as "the
    memory limit of 0 GiB" (and would reach the estimate as 0 bytes)."""
    from rnnaudit.cli.budget import check_budget
    from rnnaudit.untrusted import InputError

    with pytest.raises(InputError) as raised:
        check_budget("audit", 1e6, 1e-9)
    assert str(raised.value).endswith("or choose smaller sizes (a shorter --T, fewer or shorter --inputs)")
    with pytest.raises(InputError) as raised:
        check_budget("train", 1e6, 1e-9)
    assert str(raised.value).endswith("or choose smaller sizes")
    monkeypatch.chdir(tmp_path)
    argv = ["heatmap", "gru", "--hidden", "4", "--T", "5", "--memory-limit", "1e-12", "--out", "h.png"]
    assert cli_status(argv) == 2
    err = capsys.readouterr().err
    assert "above the memory limit of 9.31e-10 GiB" in err and "of 0 GiB" not in err, err
