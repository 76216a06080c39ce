"""Run-spec sweeps: grid expansion, sequential runs, skipping finished runs."""

import json
import os
from pathlib import Path

import pytest

from rnnaudit.training.sweep import expand, load_spec, run_sweep
from rnnaudit.training import build_model, preset_config, read_trajectory
from rnnaudit import cli
from tests.conftest import cli_status


def _spec(tmp_path, **grid):
    return {"out": str(tmp_path / "runs"),
            "base": {"task": "adding", "steps": 6, "T": 5, "hidden_size": 4, "batch": 4, "record_every": 3,
                     "checkpoint_every": 3, "val_batches": 1},
            "grid": grid or {"cell": ["sgornn", "fastrnn"], "lr": [1e-2, 1e-3]}}


def test_expand_is_the_product_in_grid_order(tmp_path):
    runs = expand(_spec(tmp_path))
    assert [p.name for p, _ in runs] == ["cell=sgornn_lr=0.01", "cell=sgornn_lr=0.001", "cell=fastrnn_lr=0.01",
                                         "cell=fastrnn_lr=0.001"]
    assert runs[3][1].cell == "fastrnn" and runs[3][1].lr == 1e-3 and runs[3][1].steps == 6


def test_presets_and_bad_fields(tmp_path):
    spec = {"out": "x", "base": {"preset": "sgornn-addition"}, "grid": {"T": [500]}}
    (_, config), = expand(spec)
    assert config.optimizer == "rmsprop" and config.batch == 64 and config.T == 500
    with pytest.raises(ValueError, match="learning_rate"):
        expand({"out": "x", "grid": {"learning_rate": [1e-3]}})
    with pytest.raises(ValueError, match="preset"):
        expand({"out": "x", "base": {"preset": "nosuch"}, "grid": {"T": [1]}})


def test_sweep_runs_each_point_and_skips_finished_ones(tmp_path):
    spec = _spec(tmp_path, cell=["sgornn", "fastrnn"])
    first = run_sweep(spec, progress=False)
    assert len(first) == 2 and all("final_val_loss" in s for s in first)
    assert read_trajectory(tmp_path / "runs" / "cell=fastrnn")["step"].tolist() == [3, 6]
    assert all(s.get("skipped") for s in run_sweep(spec, progress=False))


def test_spec_files_and_cli(tmp_path, capsys):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(_spec(tmp_path, cell=["sgornn"])))
    assert load_spec(path)["grid"] == {"cell": ["sgornn"]}
    toml = tmp_path / "spec.toml"
    toml.write_text('out = "r"\n[grid]\nT = [10, 20]\n')
    assert load_spec(toml)["grid"]["T"] == [10, 20]
    assert cli.main(["sweep", str(path)]) == 0 and "cell=sgornn" in capsys.readouterr().out
    bad = tmp_path / "bad.yaml"
    bad.write_text("x")
    assert cli_status(["sweep", str(bad)]) == 2


def test_grid_over_cell_follows_the_preset_override_rule_of_the_cli(tmp_path):
    """A grid that changes a preset's cell gets what ``rnnaudit train --preset P --cell C`` gets
    (rnnaudit.training.preset_config): the preset's cell_kwargs and param_lr belonged to its cell
    and are dropped; the rest of the preset (batch, optimizer, Neumann reset) stays. The point that
    keeps the preset's cell keeps them, and a task change drops the preset's task_kwargs."""
    spec = {"out": str(tmp_path), "base": {"preset": "nc_gru-copy", "hidden_size": 8},
            "grid": {"cell": ["nc_gru", "gru"]}}
    (_, same), (_, other) = expand(spec)
    assert same == preset_config("nc_gru-copy", hidden_size=8, cell="nc_gru")
    assert same.cell_kwargs == {"num_negative": 80} and same.param_lr == {"cell.cayley.*.A": 1e-4}
    assert other == preset_config("nc_gru-copy", hidden_size=8, cell="gru")
    assert other.cell_kwargs == {} and other.param_lr == {}
    assert (other.batch, other.optimizer, other.neumann_reset) == (50, "adam", 20)
    other.validate()
    build_model(other)  # the old hand merge kept num_negative, which GRU's constructor rejects (TypeError)
    (_, copy), = expand({"out": "x", "base": {"preset": "nc_gru-adding"}, "grid": {"task": ["copy"]}})
    assert copy.task_kwargs == {} and copy.cell_kwargs == {"num_negative": 43}
    # cell arguments the spec sets itself stay, as a flag given next to --cell would
    (_, kept), = expand({"out": "x", "base": {"preset": "nc_gru-copy", "hidden_size": 8,
                                              "cell_kwargs": {"num_negative": 2}}, "grid": {"cell": ["scornn"]}})
    assert kept.cell_kwargs == {"num_negative": 2} and kept.param_lr == {}
    build_model(kept)


@pytest.mark.parametrize("values, entries", [("[0.01, 1e-2]", "entries 1 and 2"), ("[1, 2, 1.0]", "entries 1 and 3"),
                                             ('[1, "1"]', "entries 1 and 2")])
def test_a_grid_axis_that_repeats_a_run_is_refused_with_one_line(tmp_path, capsys, values, entries):
    """0.01 and 1e-2 are one learning rate (one float once parsed): the two grid points would train into the
    same directory. 1 and "1" differ as values but name the same directory."""
    path = tmp_path / "spec.json"
    path.write_text(f'{{"out": "{tmp_path / "runs"}", "grid": {{"lr": {values}}}}}')  # as written, not dumped
    with pytest.raises(ValueError, match=f"grid axis 'lr' repeats a value: {entries}"):
        load_spec(path)
    assert cli_status(["sweep", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "repeats a value" in err and not (tmp_path / "runs").exists()


def test_distinct_grid_values_are_kept_apart():
    # the negative control of the refusal: neighbouring floats and seeds above 2^53 stay distinct runs
    assert len(expand({"out": "x", "grid": {"lr": [0.01, 0.010000000000000002]}})) == 2
    assert len(expand({"out": "x", "grid": {"seed": [2**60, 2**60 + 1]}})) == 2
    assert len(expand({"out": "x", "grid": {"clip_grad_norm": [1.0, 2.0], "seed": [1, 2]}})) == 4


def test_the_slurm_table_and_flags_are_validated(tmp_path, capsys):
    from rnnaudit.training.sweep import slurm_parameters

    assert slurm_parameters({"partition": "gpu,cpu", "time": "1-2:30", "mem": "4g", "cpus_per_task": 2,
                             "array_parallelism": "8"}) == {"partition": "gpu,cpu", "time": 1590, "mem": "4G",
                                                            "cpus_per_task": 2, "array_parallelism": 8}
    assert slurm_parameters({"time": 90, "mem": 512}) == {"time": 90, "mem": "512M"}
    assert slurm_parameters({"time": "0:59"}) == {"time": 1} and slurm_parameters({"time": "2:00:00"}) == {"time": 120}
    for bad, field in [({"time": "soon"}, "slurm.time"), ({"time": 0}, "slurm.time"), ({"mem": "0"}, "slurm.mem"),
                       ({"mem": "4 GB"}, "slurm.mem"), ({"cpus_per_task": 0}, "slurm.cpus_per_task"),
                       ({"cpus_per_task": True}, "slurm.cpus_per_task"), ({"partition": "a b"}, "slurm.partition"),
                       ({"array_parallelism": 1.5}, "slurm.array_parallelism"), ({"qos": "high"}, "slurm.qos")]:
        with pytest.raises(ValueError, match=field.replace(".", r"\.")):
            slurm_parameters(bad)
    spec = _spec(tmp_path, cell=["sgornn"])
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({**spec, "slurm": {"time": "never"}}))
    with pytest.raises(ValueError, match=r"spec\.json: slurm\.time: expected a time limit"):
        load_spec(path)
    path.write_text(json.dumps({**spec, "slurm": ["time", 5]}))
    with pytest.raises(ValueError, match="'slurm' must be a table"):
        load_spec(path)
    path.write_text(json.dumps(spec))
    capsys.readouterr()
    for argv, message in [(["--executor", "slurm", "--mem", "lots"], "--mem: expected memory"),
                          (["--executor", "slurm", "--cpus-per-task", "-1"], "--cpus-per-task: expected a positive"),
                          (["--executor", "local", "--time", "5"], "--time applies to --executor slurm only")]:
        assert cli_status(["sweep", str(path), *argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "runs").exists()


def test_executor_slurm_without_slurm_is_one_line(tmp_path, capsys, monkeypatch):
    pytest.importorskip("submitit")
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(_spec(tmp_path, cell=["sgornn"])))
    monkeypatch.setenv("PATH", str(tmp_path))  # no sbatch, srun or squeue
    assert cli_status(["sweep", str(path), "--executor", "slurm"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "sbatch is not on PATH" in err and "docs/sweeps.md" in err


@pytest.mark.slow
def test_a_failed_local_job_is_named_by_its_run_and_the_others_finish(tmp_path, capsys):
    """The local executor takes the code path of Slurm's jobs: one run's job raises, the sweep reports that run
    with its log and the error's last line, exit status 1, and the other run finishes."""
    pytest.importorskip("submitit")
    from rnnaudit.training import train

    spec = _spec(tmp_path, cell=["sgornn", "fastrnn"])
    (_, config), = expand({**spec, "base": {**spec["base"], "hidden_size": 5, "steps": 1},
                           "grid": {"cell": ["fastrnn"]}})
    train(config, tmp_path / "runs" / "cell=fastrnn", progress=False)  # another run there: its job refuses it
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    assert cli_status(["sweep", str(path), "--executor", "local", "--wait", "--folder", str(tmp_path / "logs")]) == 1
    out, err = capsys.readouterr()
    assert f"{tmp_path / 'runs' / 'cell=sgornn'}: val loss" in out
    (line,) = [x for x in err.splitlines() if "FAILED" in x]
    assert line.startswith(f"{tmp_path / 'runs' / 'cell=fastrnn'}: FAILED (job ")
    assert "ValueError: --resume: the config differs from the run's in ['hidden_size']" in line
    assert Path(line.rsplit("; log: ", 1)[1]).is_file()
    for run in ("cell=sgornn", "cell=fastrnn"):  # --wait printed each job's states with its run
        assert f"({tmp_path / 'runs' / run}): " in out


def test_waiting_on_slurm_reads_states_from_squeue(tmp_path, monkeypatch):
    """wait_for_jobs against a stand-in squeue (a script printing one listing per call): each change of state
    reported once, with the pending reason; a job that squeue stops listing counts as ended, and one without a
    result file is reported failed with its log (without waiting on sacct, which needs accounting storage)."""
    import time
    from types import SimpleNamespace

    from rnnaudit.training.sweep import GONE, wait_for_jobs

    listings = [["7_0|PENDING|Resources", "7_1|PENDING|Priority"], ["7_0|RUNNING|None", "7_1|RUNNING|None"],
                ["7_0|RUNNING|None", "7_1|RUNNING|None"], ["7_0|COMPLETED|None", "7_1|RUNNING|None"],
                ["7_0|COMPLETED|None"]]
    for i, lines in enumerate(listings):
        (tmp_path / f"listing{i}").write_text("\n".join(lines) + "\n")
    fake = tmp_path / "bin" / "squeue"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\ncd {tmp_path}\nn=$(cat calls 2>/dev/null || echo 0)\necho $((n + 1)) > calls\n"
                    f"cat listing$(( n < {len(listings) - 1} ? n : {len(listings) - 1} ))\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
    polls = iter(range(50))  # a wait that never ends fails here (StopIteration) instead of hanging
    monkeypatch.setattr("rnnaudit.training.sweep.time", SimpleNamespace(sleep=lambda s: next(polls),
                                                                         monotonic=time.monotonic))

    class Job:
        def __init__(self, job_id, result):
            self.job_id, self._result = job_id, result
            self.paths = SimpleNamespace(result_pickle=tmp_path / f"{job_id}.pkl", stderr=tmp_path / f"{job_id}.err")

        def result(self):
            return self._result

    jobs = [Job("7_0", {"run": "a", "steps": 3}), Job("7_1", None)]
    jobs[0].paths.result_pickle.write_text("done")
    seen = []
    out = wait_for_jobs(jobs, ["a", "b"], "slurm", on_state=lambda run, job_id, state: seen.append((run, state)))
    assert seen == [("a", "PENDING (Resources)"), ("b", "PENDING (Priority)"), ("a", "RUNNING"), ("b", "RUNNING"),
                    ("a", "COMPLETED"), ("b", GONE)]
    assert out[0] == {"run": "a", "job_id": "7_0", "steps": 3}
    assert out[1] == {"run": "b", "job_id": "7_1", "failed": f"ended as {GONE} without a result",
                      "log": str(tmp_path / "7_1.err")}


@pytest.mark.parametrize("out,needle", [("/proc/self", "/proc/self is not writable"),
                                        ("{tmp}/nonexistent/runs", "does not exist; rnnaudit creates missing"),
                                        ("{tmp}/spec.json", "exists and is not a directory")])
def test_a_sweep_out_that_cannot_be_written_names_the_field(tmp_path, out, needle):
    """'out': '/proc/self' ended in an OSError about /proc/.self.lock that named neither the spec nor the field;
    an absolute out whose parent is missing created it. Each is one InputError naming the spec and 'out'.
    Control: an out in an existing directory loads."""
    from rnnaudit.untrusted import InputError

    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"out": out.replace("{tmp}", str(tmp_path)), "grid": {"T": [5]}}))
    with pytest.raises(InputError, match=f"spec.json: field 'out'.*{needle}"):
        load_spec(spec)
    assert not (tmp_path / "nonexistent").exists()
    spec.write_text(json.dumps({"out": str(tmp_path / "runs"), "grid": {"T": [5]}}))
    assert load_spec(spec)["out"] == str(tmp_path / "runs")


def test_waiting_gives_up_after_consecutive_squeue_failures_naming_the_jobs(tmp_path, monkeypatch):
    """A squeue that always fails made --wait poll forever; now the wait gives up after MAX_SQUEUE_FAILURES
    consecutive failures, naming the job ids. Control: failures that alternate with answers never add up."""
    import time
    from types import SimpleNamespace

    from rnnaudit.training import sweep

    calls = []

    def failing():
        calls.append(1)
        raise OSError("squeue failed: slurm_load_jobs error: Unable to contact slurm controller")

    monkeypatch.setattr(sweep, "slurm_states", failing)
    polls = iter(range(200))  # a wait that never ends fails here (StopIteration) instead of hanging
    monkeypatch.setattr(sweep, "time", SimpleNamespace(sleep=lambda s: next(polls), monotonic=time.monotonic))
    jobs = [SimpleNamespace(job_id="41_0"), SimpleNamespace(job_id="41_1")]
    with pytest.raises(OSError, match=r"squeue failed 10 times in a row .*Unable to contact.*41_0, 41_1"):
        sweep.wait_for_jobs(jobs, ["a", "b"], "slurm")
    assert len(calls) == sweep.MAX_SQUEUE_FAILURES
    answers = iter([{"41_0": "RUNNING"} if i % 2 else None for i in range(40)] + [{}])

    def flaky():
        answer = next(answers)
        if answer is None:
            raise OSError("squeue failed: timeout")
        return answer

    monkeypatch.setattr(sweep, "slurm_states", flaky)
    monkeypatch.setattr(sweep, "_outcome", lambda job, run, state: {"run": run, "state": state})
    assert [o["state"] for o in sweep.wait_for_jobs(jobs, ["a", "b"], "slurm")] == [sweep.GONE, sweep.GONE]


@pytest.mark.slow
def test_an_sbatch_reply_without_a_job_id_is_one_line_quoting_it(tmp_path, capsys, monkeypatch):
    """submitit cannot find "job <id>" in what sbatch printed: it was an internal error; now one line that quotes
    the reply with its control characters escaped, exit status 2."""
    pytest.importorskip("submitit")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "sbatch").write_text("#!/bin/sh\nprintf 'Submitted \\033[31mbatch\\n maybe later\\n'\n")
    for name in ("srun", "squeue"):
        (bin_dir / name).write_text("#!/bin/sh\nexit 0\n")
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(_spec(tmp_path, cell=["sgornn"])))
    assert cli_status(["sweep", str(path), "--executor", "slurm", "--folder", str(tmp_path / "logs")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error" not in err, err
    assert "names no job id" in err and "Submitted \\x1b[31mbatch\\n maybe later" in err, err
