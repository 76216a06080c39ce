"""One writer per output directory, reports that are whole or absent, files that follow the umask, and
provenance in every output."""

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from rnnaudit.bounds import Profile
from rnnaudit.checking import check
from rnnaudit.outputs import REPORT_MARKER, DirectoryLock, LockedError, replaced_directory
from rnnaudit.training import TrainConfig, load_checkpoint, read_trajectory, train
from tests.conftest import cli_status

TINY_PROFILE = Profile("quick", n_random=2, restarts=0, ascent_steps=0)
SMALL = dict(T=6, hidden_size=4, batch=4, steps=8, lr=1e-2, record_every=2, checkpoint_every=4, val_batches=1)
HOLD = ("import sys, time; from rnnaudit.outputs import DirectoryLock\n"
        "with DirectoryLock(sys.argv[1], inside=sys.argv[2] == 'inside'):\n"
        "    print('locked', flush=True); time.sleep(60)\n")


def _holder(path: Path, inside: bool = False) -> subprocess.Popen:
    """A process holding the lock of ``path`` (inside it, as run directories are locked, with ``inside``)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path), "inside" if inside else "beside"],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "locked"
    return proc


def test_a_second_writer_is_refused_at_once_with_the_holders_pid(tmp_path):
    with DirectoryLock(tmp_path / "out"):
        with pytest.raises(LockedError, match=f"PID {os.getpid()}"):
            DirectoryLock(tmp_path / "out").__enter__()
    with DirectoryLock(tmp_path / "out"):  # released on exit
        pass


@pytest.mark.parametrize("command", [
    lambda out: ["train", "--cell", "fastrnn", "--T", "4", "--steps", "2", "--hidden", "4", "--batch", "2",
                 "--out", str(out)],
    lambda out: ["check", "--paper", "srnn", "--out", str(out)],
    lambda out: ["audit", str(out.parent / "run"), "--out", str(out)],
], ids=["train", "check", "audit"])
def test_simultaneous_writers_are_refused_every_time(tmp_path, command, capsys):
    out = tmp_path / "out"
    if command(out)[0] == "audit":  # the audit checks its run before it takes the lock
        train(TrainConfig(cell="fastrnn", **SMALL), tmp_path / "run", progress=False)
        capsys.readouterr()
    holder = _holder(out, inside=command(out)[0] == "train")
    try:
        for _ in range(3):
            assert cli_status(command(out)) == 2
            err = capsys.readouterr().err
            assert f"PID {holder.pid}" in err and len(err.strip().splitlines()) == 1
    finally:
        holder.kill()
        holder.wait()


def test_a_lock_left_by_a_killed_process_is_recovered(tmp_path):
    holder = _holder(tmp_path / "out")
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    with DirectoryLock(tmp_path / "out"):  # the kernel released the dead holder's lock
        pass


@pytest.mark.slow
def test_a_report_is_swapped_in_whole_and_replaces_the_old_one_entirely(tmp_path):
    out = tmp_path / "report"
    check(["srnn"], profile=TINY_PROFILE, out_dir=out, progress=False)
    (out / "stale-from-an-older-run.txt").write_text("x")
    first = json.loads((out / "results.json").read_text())
    check(["enrnn"], profile=TINY_PROFILE, seed=1, out_dir=out, progress=False)
    second = json.loads((out / "results.json").read_text())
    assert {c["paper"] for c in second["claims"]} == {"enrnn"} and first["seed"] == 0 and second["seed"] == 1
    assert not (out / "stale-from-an-older-run.txt").exists()  # nothing of the older run survives unlisted
    assert not any(p.name.startswith(".report.") and "lock" not in p.name for p in tmp_path.iterdir())


@pytest.mark.slow
def test_a_failed_run_leaves_the_previous_report_untouched(tmp_path):
    out = tmp_path / "report"
    check(["srnn"], profile=TINY_PROFILE, out_dir=out, progress=False)
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with pytest.raises(KeyboardInterrupt):
        with replaced_directory(out, "check") as staging:
            (staging / "results.json").write_text("{}")
            raise KeyboardInterrupt
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before
    assert [p.name for p in tmp_path.iterdir() if ".staging-" in p.name] == []


def test_a_directory_rnnaudit_did_not_write_is_never_replaced(tmp_path):
    mine = tmp_path / "my-notes"
    mine.mkdir()
    (mine / "thesis.tex").write_text("precious")
    with pytest.raises(ValueError, match="rnnaudit did not write"):
        with replaced_directory(mine, "check"):
            pass
    assert (mine / "thesis.tex").read_text() == "precious"
    with replaced_directory(tmp_path / "fresh", "check") as staging:
        (staging / "a.txt").write_text("a")
    assert (tmp_path / "fresh" / REPORT_MARKER).is_file()


@pytest.mark.slow
def test_leftovers_of_a_killed_run_are_removed_by_the_next(tmp_path):
    out = tmp_path / "report"
    leftover = tmp_path / ".report.staging-999999"
    leftover.mkdir()
    (leftover / "half.json").write_text("{")
    check(["srnn"], profile=TINY_PROFILE, out_dir=out, progress=False)
    assert not leftover.exists() and (out / "results.json").is_file()


@pytest.mark.slow
def test_outputs_follow_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        check(["srnn"], profile=TINY_PROFILE, out_dir=tmp_path / "r", progress=False)
        train(TrainConfig(cell="fastrnn", **SMALL), tmp_path / "run", progress=False)
    finally:
        os.umask(old)
    files = [p for p in (tmp_path / "r").rglob("*") if p.is_file()] + \
            [p for p in (tmp_path / "run").rglob("*") if p.is_file()]
    assert any(p.suffix == ".pt" for p in files) and any(p.name == "report.html" for p in files)
    modes = {str(p.relative_to(tmp_path)): oct(stat.S_IMODE(p.stat().st_mode)) for p in files}
    assert set(modes.values()) == {"0o644"}, modes


@pytest.mark.slow
def test_every_output_carries_its_provenance(tmp_path):
    check(["srnn"], profile=TINY_PROFILE, seed=3, out_dir=tmp_path / "r", progress=False)
    prov = json.loads((tmp_path / "r" / "results.json").read_text())["provenance"]
    assert prov["seed"] == 3 and prov["torch"] == str(torch.__version__) and prov["python"] and prov["command"]
    assert {"numpy", "scipy", "platform", "cpu", "gpu", "rnnaudit", "git_commit"} <= prov.keys()
    train(TrainConfig(cell="fastrnn", **SMALL), tmp_path / "run", progress=False)
    assert json.loads((tmp_path / "run" / "run.json").read_text())["provenance"]["seed"] == 0
    assert load_checkpoint(tmp_path / "run")["provenance"]["torch"] == str(torch.__version__)


# ------------------------------------------------------------------ runs: dead ends and resumes
def test_a_run_killed_before_its_first_checkpoint_resumes_to_the_uninterrupted_result(tmp_path):
    config = TrainConfig(cell="fastrnn", **SMALL)
    train(config, tmp_path / "straight", progress=False)
    killed = tmp_path / "killed"
    train(config, killed, progress=False)
    for p in (killed / "checkpoints").iterdir():  # as if killed after its first records, before any checkpoint
        p.unlink()
    summary = train(config, killed, resume=True, progress=False)
    assert summary["steps"] == 8
    a, b = read_trajectory(tmp_path / "straight"), read_trajectory(killed)
    assert a.keys() == b.keys() and all((a[k] == b[k]).all() or (a[k] != a[k]).all() for k in a)


def test_resuming_a_finished_run_reports_its_real_result(tmp_path):
    config = TrainConfig(cell="fastrnn", **SMALL)
    first = train(config, tmp_path, progress=False)
    again = train(config, tmp_path, resume=True, progress=False)
    assert again["final_val_loss"] == first["final_val_loss"] and again["beat_baseline"] == first["beat_baseline"]


def test_changing_steps_on_resume_is_refused_under_the_linear_schedule_and_recorded_otherwise(tmp_path):
    train(TrainConfig(cell="fastrnn", **SMALL), tmp_path / "lin", progress=False)
    with pytest.raises(ValueError, match="linear schedule"):
        train(TrainConfig(cell="fastrnn", **{**SMALL, "steps": 12}), tmp_path / "lin", resume=True, progress=False)
    constant = {**SMALL, "schedule": "constant"}
    train(TrainConfig(cell="fastrnn", **constant), tmp_path / "const", progress=False)
    train(TrainConfig(cell="fastrnn", **{**constant, "steps": 12}), tmp_path / "const", resume=True, progress=False)
    run = json.loads((tmp_path / "const" / "run.json").read_text())
    assert run["steps"] == 12 and run["steps_history"] == [8, 12]
    assert read_trajectory(tmp_path / "const")["step"].tolist() == [2, 4, 6, 8, 10, 12]


def test_overwrite_starts_again_but_never_deletes_a_directory_rnnaudit_did_not_write(tmp_path):
    config = TrainConfig(cell="fastrnn", **SMALL)
    train(config, tmp_path / "run", progress=False)
    with pytest.raises(ValueError, match="already holds a run"):
        train(config, tmp_path / "run", progress=False)
    train(config, tmp_path / "run", overwrite=True, progress=False)
    assert read_trajectory(tmp_path / "run")["step"].tolist() == [2, 4, 6, 8]
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "data.csv").write_text("1,2")
    with pytest.raises(ValueError, match="refusing to delete"):
        train(config, tmp_path / "other", overwrite=True, progress=False)
    assert (tmp_path / "other" / "data.csv").exists()


def _kill_at(argv: list[str], cwd: Path, delay: float, started: Path | None = None) -> int:
    """Run ``rnnaudit ARGV`` and SIGKILL it ``delay`` seconds after it started (after ``started`` appears,
    when given, so that the kill lands in the work rather than in the start-up of a busy machine)."""
    proc = subprocess.Popen([sys.executable, "-m", "rnnaudit.cli", *argv], cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while started is not None and not started.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    return proc.wait()


@pytest.mark.slow
def test_twenty_kills_of_check_and_train_leave_only_whole_and_resumable_runs(tmp_path):
    """SIGKILL at spread-out moments: a check leaves the previous complete report (or none); a training run
    resumes to exactly the uninterrupted trajectory."""
    out = tmp_path / "report"
    assert cli_status(["check", "--paper", "enrnn", "--out", str(out)]) == 0
    reference = (out / "results.json").read_bytes()
    for i in range(10):
        _kill_at(["check", "--paper", "enrnn", "--out", str(out)], tmp_path, 2.5 + 1.1 * i)
        assert (out / "results.json").read_bytes() == reference
        assert (out / "report.html").is_file() and (out / REPORT_MARKER).is_file()
    argv = ["train", "--cell", "fastrnn", "--T", "20", "--steps", "400", "--hidden", "16", "--batch", "8",
            "--record-every", "5", "--checkpoint-every", "20", "--out"]
    assert cli_status([*argv, str(tmp_path / "straight")]) == 0
    killed = tmp_path / "killed"
    for i in range(10):
        resume = ["--resume"] if (killed / "run.json").exists() else []
        _kill_at([*argv, str(killed), *resume], tmp_path, 0.3 * i, started=killed / "trajectory.jsonl")
    assert cli_status([*argv, str(killed), *(["--resume"] if (killed / "run.json").exists() else [])]) == 0
    a, b = read_trajectory(tmp_path / "straight"), read_trajectory(tmp_path / "killed")
    assert a["step"].tolist() == b["step"].tolist()
    assert all(((a[k] == b[k]) | ((a[k] != a[k]) & (b[k] != b[k]))).all() for k in a)
