"""Sweeps on a real Slurm: the single-node cluster of scripts/slurm-single-node.sh (which .ci/run starts), or any
cluster this machine can submit to. Select them with ``-m slurm``.

Where Slurm is not up they skip with the reason, except in CI (``CI=true``, or ``RNNAUDIT_REQUIRE_SLURM=1``
as .ci/run sets): there they fail, so that a CI without its cluster cannot pass by skipping them.
"""

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from rnnaudit.training import load_checkpoint, read_trajectory, train
from rnnaudit.training.sweep import expand, run_sweep, slurm_states, submit_sweep, wait_for_jobs
from tests.conftest import cli_status

pytestmark = pytest.mark.slurm

submitit = pytest.importorskip("submitit")

# Tiny runs (a few seconds each): 300 steps so that a signal sent after the first checkpoint (step 40) lands
# inside the training loop, a record every 5 steps so that the resume replays records after its checkpoint.
BASE = {"task": "adding", "T": 12, "hidden_size": 8, "batch": 8, "steps": 300, "lr": 1e-2,
        "record_every": 5, "checkpoint_every": 40, "val_batches": 1}
SHORT = {**BASE, "steps": 20, "checkpoint_every": 10}


def _slurm_down_reason() -> str | None:
    """Why this machine cannot run Slurm jobs now, or None when a node is ready."""
    for command in ("sbatch", "srun", "squeue", "sinfo", "scontrol"):
        if shutil.which(command) is None:
            return f"{command} is not on PATH"
    try:
        done = subprocess.run(["sinfo", "--noheader", "--format=%t"], check=False, capture_output=True, text=True,
                              timeout=30)
    except subprocess.SubprocessError as err:
        return f"sinfo did not answer ({err})"
    states = done.stdout.split()
    if done.returncode != 0 or not any(s.rstrip("*~#!%$@^-") in ("idle", "mix", "alloc") for s in states):
        return f"no node is up (sinfo: {' '.join((done.stdout + done.stderr).split())[:200]!r})"
    return None


@pytest.fixture(scope="module")
def slurm():
    reason = _slurm_down_reason()
    if reason is not None:
        message = f"Slurm is not up: {reason}; start it with `scripts/slurm-single-node.sh start` (docs/sweeps.md)"
        if os.environ.get("CI") == "true" or os.environ.get("RNNAUDIT_REQUIRE_SLURM") == "1":
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture
def cancel_at_end():
    """Job ids a test submitted; whatever of them is still queued when it ends is cancelled."""
    ids: list[str] = []
    yield ids
    if ids:
        subprocess.run(["scancel", *sorted({i.split("_")[0] for i in ids})], check=False, capture_output=True,
                       timeout=60)


def _spec(out: Path, base: dict, **grid) -> dict:
    return {"out": str(out), "base": base, "grid": grid}


def _write(path: Path, spec: dict) -> Path:
    path.write_text(json.dumps(spec))
    return path


def _same(a: dict, b: dict) -> bool:
    """Equal trajectories, bit for bit (NaN equal to NaN: the accuracy of a task without one)."""
    return a.keys() == b.keys() and all(((a[k] == b[k]) | ((a[k] != a[k]) & (b[k] != b[k]))).all() for k in a)


def _wait(predicate, what: str, limit: float = 180.0) -> None:
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {limit:.0f} s waiting for {what}")
        time.sleep(0.05)


def _checkpoint_step(run_dir: Path) -> int:
    try:
        return int(load_checkpoint(run_dir)["step"])
    except (ValueError, FileNotFoundError):
        return -1


def _state(job_id: str) -> str:
    return slurm_states().get(job_id, "")


def _job_fields(job_id: str) -> dict:
    out = subprocess.run(["scontrol", "show", "job", job_id], check=False, capture_output=True, text=True,
                         timeout=60).stdout
    return dict(item.split("=", 1) for item in out.split() if "=" in item)


def test_a_grid_runs_to_completion_with_wait_and_compare_reads_both_runs(slurm, tmp_path, capsys, cancel_at_end):
    spec = _write(tmp_path / "spec.json", _spec(tmp_path / "runs", SHORT, cell=["sgornn", "fastrnn"]))
    status = cli_status(["sweep", str(spec), "--executor", "slurm", "--wait", "--folder", str(tmp_path / "logs"),
                         "--time", "10"])
    out = capsys.readouterr().out
    cancel_at_end += [line.split()[1] for line in out.splitlines() if line.startswith("job ")]
    assert status == 0, out
    # --wait showed every job's id and its states up to the end
    for run in ("cell=sgornn", "cell=fastrnn"):
        states = [line.rsplit(": ", 1)[1] for line in out.splitlines() if line.startswith("job ") and run in line]
        assert states[-1] == "COMPLETED" and len(states) >= 2, out  # PENDING and/or RUNNING before
        assert f"runs/{run}: val loss" in out
    runs = [str(tmp_path / "runs" / r) for r in ("cell=sgornn", "cell=fastrnn")]
    assert all(read_trajectory(r)["step"].tolist() == [5, 10, 15, 20] for r in runs)
    figure = tmp_path / "compare.png"
    assert cli_status(["compare", *runs, "--out", str(figure)]) == 0
    assert figure.stat().st_size > 0
    # the jobs' logs are where the docs say: <folder>/<array job id>_<index>_0_log.out/.err
    assert len(list((tmp_path / "logs").glob("*_0_log.err"))) == 2


def test_a_failing_job_is_reported_by_its_run_name_with_its_log(slurm, tmp_path, capsys, cancel_at_end):
    spec = _spec(tmp_path / "runs", SHORT, cell=["sgornn", "fastrnn"])
    # the second run's directory holds a different run (another hidden size): its job refuses to resume it
    victim = tmp_path / "runs" / "cell=fastrnn"
    train(expand(_spec(tmp_path / "runs", {**SHORT, "hidden_size": 5, "steps": 1}, cell=["fastrnn"]))[0][1], victim,
          progress=False)
    status = cli_status(["sweep", str(_write(tmp_path / "spec.json", spec)), "--executor", "slurm", "--wait",
                         "--folder", str(tmp_path / "logs")])
    captured = capsys.readouterr()
    cancel_at_end += [line.split()[1] for line in captured.out.splitlines() if line.startswith("job ")]
    assert status == 1
    failed = [line for line in captured.err.splitlines() if "FAILED" in line]
    assert len(failed) == 1 and failed[0].startswith(f"{victim}: FAILED (job "), captured.err
    assert "the config differs from the run's" in failed[0] and "hidden_size" in failed[0]
    log = Path(failed[0].rsplit("; log: ", 1)[1])
    assert log.is_file() and "the config differs" in log.read_text()
    # the other run is unaffected
    assert f"{tmp_path / 'runs' / 'cell=sgornn'}: val loss" in captured.out
    assert _checkpoint_step(tmp_path / "runs" / "cell=sgornn") == 20


def test_a_cancelled_job_resubmitted_ends_on_the_uninterrupted_trajectory(slurm, tmp_path, cancel_at_end):
    """The job is cancelled after its first checkpoint file appears, then the same sweep is submitted again.
    A plain ``scancel`` sends SIGTERM, which submitit's job ignores (preemptions start with one), and SIGKILL
    KillWait seconds later, at whatever step the run has reached by then; the SIGKILL to the job's step comes
    first here, so that it lands inside this short run on a machine of any speed."""
    spec = _spec(tmp_path / "runs", BASE, cell=["fastrnn"])
    (run_dir, _), = expand(spec)
    folder = tmp_path / "logs"
    (first,) = submit_sweep(spec, executor="slurm", folder=folder)
    cancel_at_end.append(first["job_id"])
    _wait(lambda: any((run_dir / "checkpoints").glob("step_*.pt")), "the job's first checkpoint file")
    subprocess.run(["scancel", "--signal=KILL", f"{first['job_id']}.0"], check=True, timeout=60)
    subprocess.run(["scancel", first["job_id"]], check=True, timeout=60)
    # the killed step can end the batch script before the job's cancel lands: then the job ends FAILED (exit 137)
    _wait(lambda: _state(first["job_id"]) in ("CANCELLED", "FAILED", ""), "the cancelled job to end")
    assert _checkpoint_step(run_dir) < BASE["steps"], "the job finished before the cancel landed: proved nothing"

    (second,) = submit_sweep(spec, executor="slurm", folder=folder)
    cancel_at_end.append(second["job_id"])
    reference = run_sweep(_spec(tmp_path / "reference", BASE, cell=["fastrnn"]), progress=False)  # meanwhile
    job = submitit.SlurmJob(folder=folder, job_id=second["job_id"])
    (done,) = wait_for_jobs([job], [str(run_dir)], "slurm", poll_s=0.2)
    assert done.get("steps") == BASE["steps"] and done["final_val_loss"] == reference[0]["final_val_loss"], done
    assert _same(read_trajectory(run_dir), read_trajectory(tmp_path / "reference" / "cell=fastrnn"))


def test_a_job_at_its_time_limit_is_requeued_and_resumes_from_its_checkpoint(slurm, tmp_path, cancel_at_end):
    """SIGUSR2 is what Slurm sends before a time limit (submitit's --signal=USR2@delay) and on a preemption.
    With a 2-minute limit submitit counts the job as timed out (it ran past min(0.8 limit, limit - 10 min)): it
    requeues only a job whose function has checkpoint(), which it calls first; the requeued job resumes the run
    from its checkpoint file. The signal is sent at once rather than waited for."""
    spec = {**_spec(tmp_path / "runs", BASE, cell=["fastrnn"]), "slurm": {"time": 2}}
    (run_dir, _), = expand(spec)
    (submitted,) = submit_sweep(spec, executor="slurm", folder=tmp_path / "logs")
    cancel_at_end.append(submitted["job_id"])
    job = submitit.SlurmJob(folder=tmp_path / "logs", job_id=submitted["job_id"])
    _wait(lambda: any((run_dir / "checkpoints").glob("step_*.pt")), "the job's first checkpoint file")
    subprocess.run(["scancel", "--signal=USR2", job.job_id], check=True, timeout=60)
    _wait(lambda: not _state(job.job_id).startswith(("RUNNING", "COMPLETING", "REQUEUED")), "the job to leave RUNNING")
    assert _state(job.job_id).startswith("PENDING"), f"not requeued: {_state(job.job_id)}, see {job.paths.stderr}"
    assert _checkpoint_step(run_dir) < BASE["steps"], "the job finished before the signal landed: proved nothing"
    # Slurm holds a requeued job for 120 s before it is eligible again; an administrator may start it at once,
    # but not within the second of the requeue: slurmd compares a credential's time with the revocation's to the
    # second, and a job started in the same second was killed as "Job credential revoked"
    time.sleep(2)
    subprocess.run(["scontrol", "update", f"JobId={job.job_id}", "StartTime=now"], check=True, timeout=60)
    reference = run_sweep(_spec(tmp_path / "reference", BASE, cell=["fastrnn"]), progress=False)  # meanwhile
    (done,) = wait_for_jobs([job], [str(run_dir)], "slurm", poll_s=0.2)
    assert done.get("steps") == BASE["steps"], done
    assert _job_fields(job.job_id).get("Restarts") == "1"
    assert "this job is timed-out" in job.paths.stderr.read_text()
    assert done["final_val_loss"] == reference[0]["final_val_loss"]
    assert _same(read_trajectory(run_dir), read_trajectory(tmp_path / "reference" / "cell=fastrnn"))


def test_a_grid_goes_out_as_one_array_with_the_slurm_section(slurm, tmp_path, capsys, cancel_at_end):
    partition = subprocess.run(["sinfo", "--noheader", "--format=%P"], check=False, capture_output=True, text=True,
                               timeout=60).stdout.split()[0].rstrip("*")
    spec = _spec(tmp_path / "runs", SHORT, lr=[1e-2, 1e-3, 1e-4])
    spec["slurm"] = {"partition": partition, "time": "0:30:00", "mem": "100M", "cpus_per_task": 1,
                     "array_parallelism": 1}
    # a flag overrides the spec's table
    status = cli_status(["sweep", str(_write(tmp_path / "spec.json", spec)), "--executor", "slurm",
                         "--folder", str(tmp_path / "logs"), "--time", "20"])
    out = capsys.readouterr().out
    ids = [line.rsplit(" ", 1)[1] for line in out.splitlines() if "submitted as job" in line]
    cancel_at_end += ids
    assert status == 0 and len(ids) == 3, out
    array_id = ids[0].split("_")[0]
    assert ids == [f"{array_id}_{i}" for i in range(3)]  # one array, its tasks in grid order
    fields = _job_fields(array_id)
    assert fields["ArrayJobId"] == array_id and fields["ArrayTaskThrottle"] == "1"
    assert (fields["Partition"], fields["TimeLimit"], fields["MinMemoryNode"]) == (partition, "00:20:00", "100M")
    assert fields["CPUs/Task"] == "1"
