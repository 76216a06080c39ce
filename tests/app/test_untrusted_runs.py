"""Run directories are data: nothing named inside one is imported or called, overwrite deletes only what
rnnaudit wrote, outputs are whole or absent, and lock files leave nothing behind and still admit one
writer at a time."""

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch
from torch import nn

from rnnaudit import Monitor
from rnnaudit.outputs import LOCK_NAME, DirectoryLock, LockedError
from rnnaudit.training import TrainConfig, train
from tests.conftest import cli_status

ROOT = Path(__file__).resolve().parents[2]
FACTORY = "tests.app.monitor_models:exp_rnn"
MARKER = "PAYLOAD_RAN"
WRAP = {"recurrent": {"W": "rec.weight"}}


def _exp_run(run_dir: Path, **kwargs) -> Path:
    """A Monitor run of a module rnnaudit can rebuild only through a factory (an expRNN of plain torch)."""
    from tests.app.monitor_models import exp_rnn

    torch.manual_seed(0)
    model = exp_rnn()
    x = torch.randn(2, 8, 2)
    with Monitor(model, run_dir, every=1, inputs=x, wrap_kwargs=WRAP, tensorboard=False, **kwargs) as mon:
        model(x).sum().backward()
        mon.record(0)
    return run_dir


def _name_factory(run_dir: Path, factory: str) -> None:
    """Tamper with a run: every checkpoint and run.json name ``factory``."""
    for ckpt in (run_dir / "checkpoints").glob("step_*.pt"):
        payload = torch.load(ckpt, weights_only=True)
        payload["factory"] = factory
        torch.save(payload, ckpt)
    info = json.loads((run_dir / "run.json").read_text())
    info["factory"] = factory
    (run_dir / "run.json").write_text(json.dumps(info))


def _rnnaudit(argv: list[str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    """``rnnaudit ARGV`` in a fresh process (a payload that aborts or hangs must not take the tests with it)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "rnnaudit", *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)


@pytest.fixture(scope="module")
def tampered(tmp_path_factory):
    root = tmp_path_factory.mktemp("tampered")
    runs = {}
    for name, factory in (("local-module", "evil:make"), ("abort", "os:abort"), ("pause", "signal:pause")):
        run = _exp_run(root / name)
        _name_factory(run, factory)
        runs[name] = run
    (runs["local-module"] / "evil.py").write_text(
        f"open({MARKER!r}, 'w').close()\nimport torch\ndef make():\n    return torch.nn.GRU(2, 6)\n")
    return runs


@pytest.mark.parametrize("name", ["local-module", "abort", "pause"])
@pytest.mark.parametrize("command", ["heatmap", "audit"])
def test_a_factory_named_in_a_run_directory_is_never_imported(tampered, name, command, tmp_path):
    run = tampered[name]
    out = ["--out", str(tmp_path / "out")] if command == "audit" else ["--out", str(tmp_path / "h.png")]
    done = _rnnaudit([command, ".", *out], cwd=run)  # cd RUN && rnnaudit heatmap .
    assert done.returncode == 2, done.stderr[-800:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "never imports" in lines[0] and "--model" in lines[0], done.stderr
    assert not (run / MARKER).exists() and not (tmp_path / MARKER).exists()


@pytest.mark.slow
def test_a_factory_the_user_passes_rebuilds_a_monitored_run(tmp_path, monkeypatch, capsys):
    from rnnaudit.auditing import audit_checkpoint, audit_run

    run = _exp_run(tmp_path / "run", factory=FACTORY)
    monkeypatch.chdir(ROOT)
    with pytest.raises(ValueError, match="never imports"):
        audit_run(run)
    doc = audit_run(run, factory=FACTORY)
    assert doc["latest"]["claims"] and doc["model"]["hidden_size"] == 6
    assert audit_checkpoint(run, factory=FACTORY)["step"] == 0
    for command, out in (("audit", "a"), ("heatmap", "h.png"), ("spectrum", "s.png"), ("lyapunov", "l.png")):
        assert cli_status([command, str(run), "--model", FACTORY, "--out", str(tmp_path / out)]) == 0, command
    capsys.readouterr()
    # --model with SOURCE names the run's factory; --weights/--inputs/--arch stay with --model alone
    assert cli_status(["heatmap", str(run), "--model", FACTORY, "--arch", "gru", "--out", str(tmp_path / "x.png")]) == 2
    assert "--model alone" in capsys.readouterr().err


def test_factory_for_a_trainer_run_and_bad_arguments_are_refused(tmp_path):
    from rnnaudit.auditing import audit_checkpoint, audit_run

    run = tmp_path / "run"
    train(TrainConfig(cell="fastrnn", T=4, hidden_size=3, batch=2, steps=2, record_every=1, checkpoint_every=1,
                      val_batches=1), run, progress=False)
    with pytest.raises(ValueError, match="factory"):
        audit_run(run, factory=FACTORY)
    with pytest.raises(TypeError, match="factory"):
        audit_run(run, factory=3)
    with pytest.raises(TypeError, match="path"):
        audit_checkpoint(123)
    with pytest.raises(TypeError, match="run_dir"):
        audit_run(None)


# ------------------------------------------------------------------------------------------ overwrite

def _tiny_monitor(run_dir, **kwargs) -> Monitor:
    return Monitor(nn.GRU(2, 3, batch_first=True), run_dir, tensorboard=False, **kwargs)


def test_overwrite_keeps_a_file_beside_an_unrelated_run_json(tmp_path):
    d = tmp_path / "thesis"
    d.mkdir()
    (d / "run.json").write_text(json.dumps({"kind": "monitor", "mine": True}))
    (d / "thesis.tex").write_text("\\chapter{Four years}")
    with pytest.raises(ValueError, match="marker"):
        _tiny_monitor(d, overwrite=True)
    assert (d / "thesis.tex").read_text() == "\\chapter{Four years}" and (d / "run.json").exists()


def test_overwrite_refuses_a_foreign_file_in_a_run_of_ours_and_deletes_nothing(tmp_path):
    run = tmp_path / "run"
    _tiny_monitor(run, every=1).close()
    (run / "thesis.tex").write_text("mine")
    with pytest.raises(ValueError, match="thesis.tex"):
        _tiny_monitor(run, overwrite=True)
    assert (run / "thesis.tex").exists() and (run / "run.json").exists()
    (run / "thesis.tex").unlink()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "step_00000000.pt").write_text("precious")
    (run / "checkpoints").mkdir(exist_ok=True)
    (run / "checkpoints" / "step_00000001.pt").symlink_to(outside / "step_00000000.pt")
    with pytest.raises(ValueError, match="symlink"):
        _tiny_monitor(run, overwrite=True)
    assert (outside / "step_00000000.pt").read_text() == "precious"
    (run / "checkpoints" / "step_00000001.pt").unlink()
    _tiny_monitor(run, overwrite=True).close()  # only rnnaudit's files left: overwritten
    assert json.loads((run / "run.json").read_text())["written_by"] == "rnnaudit"


def test_train_overwrite_keeps_foreign_files(tmp_path):
    config = TrainConfig(cell="fastrnn", T=4, hidden_size=3, batch=2, steps=2, record_every=1, checkpoint_every=1,
                         val_batches=1)
    run = tmp_path / "run"
    train(config, run, progress=False)
    (run / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="notes.txt"):
        train(config, run, overwrite=True, progress=False)
    (run / "notes.txt").unlink()
    train(config, run, overwrite=True, progress=False)
    assert not (run / LOCK_NAME).exists()


# ------------------------------------------------------------------------------------- whole or absent

def test_a_failing_monitor_constructor_leaves_nothing_and_a_retry_works(tmp_path, monkeypatch):
    import rnnaudit.monitoring.monitor as monitor_module

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    run = tmp_path / "run"
    monkeypatch.setattr(monitor_module, "event_writer", broken)
    with pytest.raises(OSError):
        _tiny_monitor(run, every=1, inputs=torch.randn(1, 4, 2))
    assert not run.exists()
    monkeypatch.undo()
    _tiny_monitor(run, every=1, inputs=torch.randn(1, 4, 2)).close()
    assert (run / "run.json").is_file() and not (run / LOCK_NAME).exists()


KILL_MID_CHECKPOINT = textwrap.dedent("""
    import os, signal, sys, torch
    from torch import nn
    from rnnaudit import Monitor
    real = torch.save
    def dying(obj, f, *a, **k):
        if "checkpoints" in str(f):
            with open(f, "wb") as fh:
                fh.write(b"half a checkpoint")
            os.kill(os.getpid(), signal.SIGKILL)
        return real(obj, f, *a, **k)
    torch.save = dying
    mon = Monitor(nn.GRU(2, 3, batch_first=True), sys.argv[1], every=1, tensorboard=False)
    mon.record(0)
""")


@pytest.mark.slow  # a training process killed mid-checkpoint, then resumed: 4 s
def test_a_sigkill_during_a_checkpoint_leaves_no_temporary_for_good(tmp_path):
    run = tmp_path / "run"
    done = subprocess.run([sys.executable, "-c", KILL_MID_CHECKPOINT, str(run)], cwd=ROOT, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == -signal.SIGKILL
    temps = [p for p in run.rglob("*.tmp")]
    assert temps, "the kill came before the temporary was written: the test proves nothing"
    _tiny_monitor(run, overwrite=True).close()  # the next open of the run directory collects them
    assert not list(run.rglob("*.tmp"))
    # the trainer's next open (resume) collects them too
    config = TrainConfig(cell="fastrnn", T=4, hidden_size=3, batch=2, steps=2, record_every=1, checkpoint_every=1,
                         val_batches=1)
    trun = tmp_path / "trun"
    train(config, trun, progress=False)
    stale = trun / "checkpoints" / ".step_00000002.pt.abc123.tmp"
    stale.write_bytes(b"half")
    train(config, trun, resume=True, progress=False)
    assert not stale.exists()


@pytest.mark.slow  # three commands end to end: 7 s
def test_no_lock_file_is_left_after_clean_runs(tmp_path, capsys):
    run = tmp_path / "run"
    train(TrainConfig(cell="fastrnn", T=4, hidden_size=3, batch=2, steps=2, record_every=1, checkpoint_every=1,
                      val_batches=1), run, progress=False)
    assert cli_status(["audit", str(run), "--out", str(tmp_path / "audit")]) == 0
    capsys.readouterr()
    leftovers = [p.name for p in tmp_path.rglob("*lock*")]
    assert leftovers == []


def _monitor_as_nobody(run: str) -> None:
    """In a forked child without root's rights: a Monitor in ``run``, whose parent it cannot write."""
    if os.geteuid() == 0:
        os.setgid(65534)
        os.setuid(65534)
    try:
        DirectoryLock(run).__enter__()  # a lock beside the run, in the read-only parent: refused
    except PermissionError:
        pass
    else:
        os._exit(3)
    try:
        _tiny_monitor(run, every=1).close()
    except BaseException as err:  # noqa: BLE001 - the exit status carries the failure to the test
        print(f"Monitor failed: {type(err).__name__}: {err}", file=sys.stderr, flush=True)
        os._exit(4)
    os._exit(0)


def test_a_monitor_in_a_read_only_parent_works(tmp_path):
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(dir="/tmp"))  # pytest's tmp_path is private to its owner
    try:
        base.chmod(0o755)
        parent = base / "parent"
        (parent / "run").mkdir(parents=True)
        if os.geteuid() == 0:
            os.chown(parent / "run", 65534, 65534)
        parent.chmod(0o555)
        _tiny_monitor(tmp_path / "warm", every=1).close()  # imports done here: the child may not read the venv
        child = multiprocessing.get_context("fork").Process(target=_monitor_as_nobody, args=(str(parent / "run"),))
        child.start()
        child.join(120)
        assert child.exitcode == 0, {3: "the parent is writable: the test proves nothing",
                                     4: "the Monitor failed"}.get(child.exitcode, child.exitcode)
        assert (parent / "run" / "run.json").is_file() and not (parent / "run" / LOCK_NAME).exists()
    finally:
        (base / "parent").chmod(0o755)
        shutil.rmtree(base)


def test_the_lock_is_inside_a_run_directory_not_beside_it(tmp_path):
    run = tmp_path / "run"
    mon = _tiny_monitor(run, every=1)
    try:
        assert (run / LOCK_NAME).exists() and not list(tmp_path.glob(".*.lock"))
        with pytest.raises(LockedError):
            _tiny_monitor(run, overwrite=True)
    finally:
        mon.close()
    assert not (run / LOCK_NAME).exists()


def _writer(path: str, log: str, rounds: int, inside: bool) -> None:
    for _ in range(rounds):
        while True:
            try:
                lock = DirectoryLock(path, inside=inside).__enter__()
                break
            except LockedError:
                time.sleep(0.0005)
        with open(log, "a") as fh:
            fh.write(f"in {os.getpid()}\n")
            fh.flush()
        time.sleep(0.001)
        with open(log, "a") as fh:
            fh.write(f"out {os.getpid()}\n")
            fh.flush()
        lock.__exit__(None, None, None)


@pytest.mark.parametrize("inside", [False, True], ids=["beside", "inside"])
def test_locks_unlinked_on_release_still_admit_one_writer_at_a_time(tmp_path, inside):
    """Four processes take and release the lock of one directory 40 times each; every 'in' is followed
    by the same process's 'out' (no two writers at once), and no lock file is left. Without the inode
    re-check after acquiring, a process that opened the file before its holder unlinked it locks a
    dead file and overlaps the next holder (the log shows two 'in' in a row)."""
    out, log = tmp_path / "out", tmp_path / "log"
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(out), str(log), 40, inside)) for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert all(p.exitcode == 0 for p in procs)
    lines = log.read_text().splitlines()
    assert len(lines) == 4 * 40 * 2
    for enter, leave in zip(lines[::2], lines[1::2]):
        assert enter.startswith("in ") and leave == "out " + enter.split()[1], (enter, leave)
    assert not (out / LOCK_NAME).exists() and not (tmp_path / ".out.lock").exists()


# ------------------------------------------------------------------------------- runs without inputs

@pytest.mark.parametrize("T", [None, 500])
def test_a_monitor_run_without_inputs_is_audited_for_its_assumptions(tmp_path, T, capsys):
    """An orthogonal FastRNN-like torch RNN recorded without inputs: every assumption that reads only the
    parameters is judged; the bounds are not measured, and the report says why. FastRNN's eq. 4 depends
    on T: judged at the monitor's T= when given, reported as not evaluated otherwise."""
    from rnnaudit.auditing import audit_run
    from rnnaudit.cells import FastRNN

    torch.manual_seed(0)
    cell = FastRNN(2, 4, dtype=torch.float64)
    readout = nn.Linear(4, 1, dtype=torch.float64)  # the single-neuron output of SGORNN's theorems
    with Monitor(cell, tmp_path / "run", every=1, tensorboard=False, T=T, readout=readout) as mon:
        mon.record(0)
    doc = audit_run(tmp_path / "run")
    latest = doc["latest"]
    assert "not measured" in latest["bounds_not_measured"] and "no inputs" in latest["bounds_not_measured"]
    assert all(c["verdict"] is None for c in latest["claims"])
    judged = [a for c in latest["claims"] if c["applies"] for a in c["assumptions"] if a["holds"] is not None]
    assert judged, "no assumption was evaluated"
    eq4 = next(c for c in latest["claims"] if c["id"] == "sgornn.eq4")
    theorem2 = {a["name"]: a for a in next(c for c in latest["claims"] if c["id"] == "sgornn.theorem2")["assumptions"]}
    bounded_inputs = theorem2["‖x_t‖₂ ≤ R_x for all t"]
    assert bounded_inputs["holds"] is None and "inputs" in bounded_inputs["detail"]
    assert theorem2["U = φ(Θ) orthogonal"]["holds"] is False  # a FastRNN's U is not orthogonal: judged, and fails
    if T is None:
        assert eq4["assumptions"][0]["holds"] is None and "T=" in eq4["assumptions"][0]["detail"]
        assert eq4["assumptions"][0]["name"] == "FastRNN eq. 4 at the run's T"
    else:
        assert eq4["assumptions"][0]["holds"] in (True, False) and latest["config"]["T"] == 500
    assert cli_status(["audit", str(tmp_path / "run"), "--out", str(tmp_path / "audit")]) == 0
    out = capsys.readouterr().out
    assert "bounds were not measured" in out
    assert "not measured" in (tmp_path / "audit" / "report.md").read_text()


@pytest.mark.parametrize("link", ["checkpoint", "inputs", "run.json", "checkpoints-dir"])
def test_a_symlink_inside_a_run_directory_pointing_outside_is_refused(tmp_path, link, capsys):
    rnn = nn.GRU(2, 3, batch_first=True)
    run = tmp_path / "run"
    with Monitor(rnn, run, every=1, inputs=torch.randn(2, 5, 2), tensorboard=False) as mon:
        mon.record(0)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    target = {"checkpoint": run / "checkpoints" / "step_00000000.pt", "inputs": run / "inputs.pt",
              "run.json": run / "run.json", "checkpoints-dir": run / "checkpoints"}[link]
    moved = outside / target.name
    target.rename(moved)
    target.symlink_to(moved)
    assert cli_status(["audit", str(run), "--out", str(tmp_path / "audit")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "outside the run directory" in err[0] and "symlink" in err[0], err


def test_a_symlinked_trainer_checkpoint_is_refused(tmp_path, capsys):
    run = tmp_path / "run"
    train(TrainConfig(cell="fastrnn", T=4, hidden_size=3, batch=2, steps=2, record_every=1, checkpoint_every=1,
                      val_batches=1), run, progress=False)
    outside = tmp_path / "elsewhere.pt"
    (run / "checkpoints" / "step_00000002.pt").rename(outside)
    (run / "checkpoints" / "step_00000002.pt").symlink_to(outside)
    assert cli_status(["audit", str(run), "--out", str(tmp_path / "audit")]) == 2
    assert "outside the run directory" in capsys.readouterr().err


def test_a_run_killed_before_its_first_checkpoint_is_resumed_from_step_0(tmp_path):
    from rnnaudit.training import read_trajectory

    config = TrainConfig(cell="fastrnn", T=4, hidden_size=3, batch=2, steps=4, record_every=1, checkpoint_every=2,
                         val_batches=1)
    run = tmp_path / "run"
    train(config, run, progress=False)
    # as a kill before the first checkpoint leaves it: run.json, a record, no checkpoint, a temporary, a lock file
    for p in (run / "checkpoints").iterdir():
        p.unlink()
    (run / "checkpoints" / ".step_00000002.pt.x1y2.tmp").write_bytes(b"half")
    (run / LOCK_NAME).write_text('{"pid": 999999}\n')
    lines = (run / "trajectory.jsonl").read_text().splitlines()
    (run / "trajectory.jsonl").write_text(lines[0] + "\n")
    summary = train(config, run, resume=True, progress=False)
    assert summary["steps"] == 4 and read_trajectory(run)["step"][-1] == 4
    assert not list(run.rglob("*.tmp")) and not (run / LOCK_NAME).exists()


def test_a_refused_resume_leaves_no_directory(tmp_path):
    config = TrainConfig(cell="fastrnn", T=4, hidden_size=3, batch=2, steps=2, record_every=1, checkpoint_every=1,
                         val_batches=1)
    with pytest.raises(ValueError, match="holds no run"):
        train(config, tmp_path / "nosuch", resume=True, progress=False)
    assert not (tmp_path / "nosuch").exists()


def test_a_lock_file_planted_as_a_symlink_is_refused_and_its_target_kept(tmp_path):
    """A run directory may arrive with its lock file as a symbolic link to one of the user's files; rnnaudit
    never writes through it (the lock is opened with O_NOFOLLOW). Negative control: without a link the lock is
    taken and released, leaving nothing."""
    from rnnaudit.outputs import DirectoryLock
    from rnnaudit.untrusted import InputError

    precious = tmp_path / "precious.txt"
    precious.write_text("keep me\n")
    run = tmp_path / "run"
    run.mkdir()
    (run / ".rnnaudit.lock").symlink_to(precious)
    with pytest.raises(InputError, match="symbolic link"):
        with DirectoryLock(run, inside=True):
            pass
    assert precious.read_text() == "keep me\n"
    (tmp_path / ".out.lock").symlink_to(precious)
    with pytest.raises(InputError, match="symbolic link"):
        with DirectoryLock(tmp_path / "out"):
            pass
    assert precious.read_text() == "keep me\n"
    clean = tmp_path / "clean"
    with DirectoryLock(clean, inside=True):
        assert (clean / ".rnnaudit.lock").is_file()
    assert not (clean / ".rnnaudit.lock").exists()


@pytest.mark.parametrize("text", ["[" * 200_000, '{"a":' * 200_000])
def test_json_nested_past_the_stack_is_one_clear_error(tmp_path, text):
    """json.loads raises RecursionError (not a JSONDecodeError) on deep nesting; the readers of untrusted files
    turn it into one InputError naming the file, for run.json and trajectory.jsonl alike."""
    from rnnaudit.untrusted import InputError, read_json_file, read_jsonl_records

    path = tmp_path / "run.json"
    path.write_text(text)
    with pytest.raises(InputError, match="too deeply"):
        read_json_file(path, "run.json")
    lines = tmp_path / "trajectory.jsonl"
    lines.write_text('{"step": 0}\n' + text + "\n")
    with pytest.raises(InputError, match="line 2"):
        read_jsonl_records(lines, "trajectory")


def test_a_run_json_claiming_a_huge_model_is_refused_before_it_is_built():
    """Sizes in a Monitor run's model description are checked before the module is built: hidden_size 30000
    (a 7 GB RNNCell) and num_layers 10⁶ (hours of building) are refused; a 2-layer GRU of 8 units is built."""
    from rnnaudit.limits import TooLargeError
    from rnnaudit.monitoring.runs import build_torch_module

    with pytest.raises(TooLargeError, match="hidden = 30000"):
        build_torch_module(dict(type="RNNCell", input_size=2, hidden_size=30000, bias=True, nonlinearity="tanh"))
    with pytest.raises(TooLargeError, match="elements"):
        build_torch_module(dict(type="GRU", input_size=2, hidden_size=8, bias=True, num_layers=10**6,
                                batch_first=True))
    assert build_torch_module(dict(type="GRU", input_size=2, hidden_size=8, bias=True, num_layers=2,
                                   batch_first=True)).num_layers == 2


@pytest.mark.parametrize("damage", ["plain_list", "nan_weights"])
def test_a_monitor_checkpoint_with_a_list_or_nan_weights_is_one_clear_error(damage):
    """A checkpoint's state dicts are checked before any model is built: a list where a dict belongs, or NaN
    weights, is one InputError naming the entry (it was an AttributeError, and an SVD of NaN). Control: the
    undamaged checkpoint rebuilds."""
    from rnnaudit.cells.adapters import wrap
    from rnnaudit.monitoring.runs import describe_model, plain_weights, rebuild_model
    from rnnaudit.untrusted import InputError

    gru = nn.GRU(2, 4, batch_first=True)
    ckpt = {"path": "ckpt.pt", "model": describe_model(gru, wrap(gru)), "state_dict": gru.state_dict(),
            "plain_state_dict": plain_weights(gru)}
    module, _ = rebuild_model(ckpt)
    assert isinstance(module, nn.GRU)
    if damage == "plain_list":
        ckpt["plain_state_dict"] = [1, 2]
    else:
        ckpt["plain_state_dict"] = {k: torch.full_like(v, float("nan")) for k, v in ckpt["plain_state_dict"].items()}
    with pytest.raises(InputError, match="plain_state_dict"):
        rebuild_model(ckpt)


@pytest.mark.slow
def test_an_rnnaudit_config_claiming_a_huge_width_is_refused_before_the_cell_is_built(tmp_path, capsys):
    """The widths of a recorded rnnaudit cell config (``*_size``) are checked before the cell is built, naming the
    file and the field (hidden_size 30000 built the cell first: 7 GB for an ENRNN or ScoRNN); with allow_large
    the memory limit still holds. Control: the untampered checkpoint rebuilds, and so does the CLI's spectrum."""
    from rnnaudit.cells.registry import build_cell
    from rnnaudit.limits import TooLargeError
    from rnnaudit.monitoring.runs import rebuild_model

    cell = build_cell("sgornn", 2, 4, dtype=torch.float32)
    run_dir = tmp_path / "run"
    with Monitor(cell, run_dir, every=1, inputs=torch.randn(2, 5, 2), tensorboard=False) as mon:
        mon.record(0)
    ckpt_path = run_dir / "checkpoints" / "step_00000000.pt"
    payload = torch.load(ckpt_path, weights_only=True)
    assert rebuild_model({**payload, "path": "c.pt"})[0].hidden_size == 4
    payload["model"]["rnnaudit_config"]["hidden_size"] = 30000
    with pytest.raises(TooLargeError, match=r"^c.pt: model field 'rnnaudit_config.hidden_size': hidden = 30000"):
        rebuild_model({**payload, "path": "c.pt"})
    payload["model"]["rnnaudit_config"]["hidden_size"] = 10**6
    with pytest.raises(TooLargeError, match=r"rnnaudit_config' describes a cell of up to .* above the memory limit"):
        rebuild_model({**payload, "path": "c.pt"}, allow_large=True)
    payload["model"]["rnnaudit_config"]["hidden_size"] = -4
    with pytest.raises(ValueError, match="'rnnaudit_config.hidden_size' must be a non-negative integer"):
        rebuild_model({**payload, "path": "c.pt"})
    assert cli_status(["spectrum", str(run_dir), "--out", str(tmp_path / "ok.png")]) == 0
    payload["model"]["rnnaudit_config"]["hidden_size"] = 30000
    torch.save(payload, ckpt_path)
    capsys.readouterr()
    assert cli_status(["spectrum", str(run_dir), "--out", str(tmp_path / "s.png")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "step_00000000.pt: model field 'rnnaudit_config.hidden_size'" in err, err


def test_a_run_json_claiming_a_huge_T_is_refused_naming_the_field(tmp_path, capsys):
    """run.json's T = 10¹² was accepted (a run with inputs ignored it; one without would draw sequences that
    long): it is checked against the limit T, naming run.json and the field. Control: T = 8 is read."""
    from rnnaudit.limits import TooLargeError
    from rnnaudit.monitoring.runs import read_monitored_run

    gru = nn.GRU(2, 4, batch_first=True)
    run_dir = tmp_path / "run"
    with Monitor(gru, run_dir, every=1, inputs=torch.randn(2, 8, 2), tensorboard=False, T=8) as mon:
        mon.record(0)
    assert read_monitored_run(run_dir)["T"] == 8
    info = json.loads((run_dir / "run.json").read_text())
    info["T"] = 10**12
    (run_dir / "run.json").write_text(json.dumps(info))
    with pytest.raises(TooLargeError, match=r"run.json: field 'T': T = 1000000000000 is above the limit"):
        read_monitored_run(run_dir)
    assert read_monitored_run(run_dir, allow_large=True)["T"] == 10**12
    capsys.readouterr()
    assert cli_status(["audit", str(run_dir), "--out", str(tmp_path / "audit")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "run.json: field 'T'" in err, err


@pytest.mark.slow
def test_an_unreadable_run_json_is_named_not_taken_for_a_trainer_run(tmp_path, monkeypatch, capsys):
    """A run.json without read permission made the run look like a trainer's, and the error was about a checkpoint
    of the wrong format; it says the run.json cannot be read. (The tests may run as root, whom chmod 000 does not
    stop, so the permission is taken away through os.access, as the reader asks it.) Control: readable, it audits."""
    gru = nn.GRU(2, 4, batch_first=True)
    run_dir = tmp_path / "run"
    with Monitor(gru, run_dir, every=1, inputs=torch.randn(2, 5, 2), tensorboard=False) as mon:
        mon.record(0)
    assert cli_status(["spectrum", str(run_dir), "--out", str(tmp_path / "ok.png")]) == 0
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, *a, **k: False if Path(p) == run_dir / "run.json"
                        else real(p, mode, *a, **k))
    capsys.readouterr()
    assert cli_status(["audit", str(run_dir), "--out", str(tmp_path / "audit")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "run.json: the run.json is not readable (permission denied)" in err, err


@pytest.mark.parametrize("damage,needle", [("list", "must be a JSON object, got list"), ("empty", "not valid JSON"),
                                           ("directory", "is a directory"), ("outside", "outside the run directory"),
                                           ("torch_wrap_kwargs", "field 'wrap_kwargs' must be empty")])
def test_a_damaged_run_json_is_named_not_taken_for_a_trainer_run(tmp_path, capsys, damage, needle):
    """A Monitor run whose run.json is not JSON, a list, a directory or a symlink out of the run was taken for a
    trainer's run, and the error said its checkpoint was 'not an rnnaudit checkpoint'; wrap_kwargs for a torch GRU
    was wrap()'s message without the file. Each names run.json and what is wrong. Control: undamaged, it audits."""
    gru = nn.GRU(2, 4, batch_first=True)
    run_dir = tmp_path / "run"
    with Monitor(gru, run_dir, every=1, inputs=torch.randn(2, 5, 2), tensorboard=False) as mon:
        mon.record(0)
    assert cli_status(["spectrum", str(run_dir), "--out", str(tmp_path / "ok.png")]) == 0
    run_json = run_dir / "run.json"
    info = json.loads(run_json.read_text())
    run_json.unlink()
    if damage == "list":
        run_json.write_text("[]")
    elif damage == "empty":
        run_json.write_text("")
    elif damage == "directory":
        run_json.mkdir()
    elif damage == "outside":
        (tmp_path / "elsewhere.json").write_text(json.dumps(info))
        run_json.symlink_to(tmp_path / "elsewhere.json")
    else:
        run_json.write_text(json.dumps({**info, "wrap_kwargs": {"state_size": 10**12}}))
    capsys.readouterr()
    assert cli_status(["audit", str(run_dir), "--out", str(tmp_path / "audit")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "run.json" in err and needle in err, err


def test_a_monitor_run_stopped_before_its_first_checkpoint_starts_again_saying_so(tmp_path):
    """A Monitor killed after writing run.json and before its first checkpoint left a directory that only
    overwrite=True could reuse; it now starts again from scratch with a RuntimeWarning. Control: a run with a
    record is still refused without overwrite."""
    run = tmp_path / "run"
    x = torch.randn(1, 5, 2)
    Monitor(nn.GRU(2, 3, batch_first=True), run, every=1, inputs=x, tensorboard=False)._release()  # killed here
    assert (run / "run.json").is_file() and not list(run.rglob("step_*.pt"))
    rnn = nn.GRU(2, 3, batch_first=True)
    with pytest.warns(RuntimeWarning, match="stopped before its first record; starting it again from scratch"):
        mon = Monitor(rnn, run, every=1, inputs=x, tensorboard=False)
    with mon:
        mon.record(0)
    assert list((run / "checkpoints").glob("step_*.pt"))
    with pytest.raises(ValueError, match="already holds a run"):
        Monitor(rnn, run, every=1, tensorboard=False)


def test_train_resume_without_a_checkpoint_says_it_starts_from_step_0(tmp_path):
    config = TrainConfig(cell="fastrnn", T=4, hidden_size=3, batch=2, steps=2, record_every=1, checkpoint_every=2,
                         val_batches=1)
    run = tmp_path / "run"
    train(config, run, progress=False)
    for p in (run / "checkpoints").iterdir():
        p.unlink()
    with pytest.warns(RuntimeWarning, match="no checkpoint yet .* starting the run from step 0"):
        assert train(config, run, resume=True, progress=False)["steps"] == 2


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_a_monitor_run_without_inputs_is_audited_for_its_assumptions": {"500"},
    "test_a_factory_named_in_a_run_directory_is_never_imported": {
        "audit-pause", "audit-abort", "audit-local-module", "heatmap-local-module", "heatmap-pause"},
    "test_a_damaged_run_json_is_named_not_taken_for_a_trainer_run": {
        "outside-outside the run directory", "directory-is a directory", "list-must be a JSON object, got list",
        "empty-not valid JSON"},
}
