"""A sweep through submitit's local executor (separate processes, the code path SLURM takes): one job is
SIGKILLed mid-run, the sweep is submitted again, and every run ends where an uninterrupted sweep ends."""

import os
import signal
import time

import pytest

from rnnaudit.training import load_checkpoint, read_trajectory
from rnnaudit.training.sweep import expand, run_sweep, submit_sweep

submitit = pytest.importorskip("submitit")

# Small enough for CI (a few seconds of training per run), long enough (300 steps, a record every 5) that
# the kill lands inside the training loop rather than after it; checkpoints every 40 steps so the resume
# starts from a checkpoint and replays the records written after it.
BASE = {"task": "adding", "T": 12, "hidden_size": 8, "batch": 8, "steps": 300, "lr": 1e-2,
        "record_every": 5, "checkpoint_every": 40, "val_batches": 1}


def _spec(out) -> dict:
    return {"out": str(out), "base": BASE, "grid": {"cell": ["fastrnn", "sgornn"]}}


def _records(run_dir) -> int:
    path = run_dir / "trajectory.jsonl"
    return sum(1 for _ in path.open()) if path.exists() else 0


def _checkpoint_step(run_dir) -> int:
    try:
        return int(load_checkpoint(run_dir)["step"])
    except (ValueError, FileNotFoundError):
        return -1


def _wait(predicate, what: str, limit: float = 240.0) -> None:
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.02)


def _failure(outcome: dict) -> str:
    """The resumed job's outcome and the tail of its log, so that a failure under load can be diagnosed."""
    log = outcome.get("log")
    tail = open(log, errors="replace").read()[-3000:] if log and os.path.exists(log) else "(no log)"
    return f"{outcome}\n{tail}"


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(((a[k] == b[k]) | ((a[k] != a[k]) & (b[k] != b[k]))).all() for k in a)


@pytest.mark.slow  # two sweeps with a kill and a resume: 20-30 s
def test_a_local_executor_sweep_killed_mid_job_resumes_to_the_uninterrupted_results(tmp_path):
    reference = run_sweep(_spec(tmp_path / "reference"), progress=False)
    assert [r["steps"] for r in reference] == [300, 300]

    spec = _spec(tmp_path / "killed")
    folder = tmp_path / "submitit-logs"
    first = submit_sweep(spec, executor="local", folder=folder, wait=False)
    assert [set(r) for r in first] == [{"run", "job_id"}] * 2  # both submitted, nothing skipped
    victim_dir, _ = expand(spec)[1]
    # Kill once the victim has records past its first checkpoint and before its last step, so that both
    # the checkpoint and the records written after it are exercised by the resume.
    _wait(lambda: _records(victim_dir) >= 10, "the second job's records")
    os.kill(int(first[1]["job_id"]), signal.SIGKILL)  # LocalExecutor's job id is the job's process id
    killed_at = _records(victim_dir)
    assert killed_at < 60, "the job finished before the kill landed: the test proved nothing"
    survivor_dir, _ = expand(spec)[0]
    _wait(lambda: _checkpoint_step(survivor_dir) == 300, "the first job to finish", limit=300)  # its last write

    second = submit_sweep(spec, executor="local", folder=folder)  # waits for the local jobs
    assert second[0] == {"run": str(survivor_dir), "skipped": True}
    assert second[1]["run"] == str(victim_dir)
    assert second[1].get("steps") == 300, _failure(second[1])
    for (done_dir, _), (ref_dir, _) in zip(expand(spec), expand(_spec(tmp_path / "reference"))):
        assert _same(read_trajectory(done_dir), read_trajectory(ref_dir)), done_dir.name
    assert second[1]["final_val_loss"] == reference[1]["final_val_loss"]
