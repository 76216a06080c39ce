"""Sizes a file or a flag claims are checked before anything is allocated (expanded tensors of a few
bytes included), and every misuse of the files, the command line and the Python API gets one clear
error: exit status 2 and one line on the command line, a TypeError/ValueError naming the parameter in
Python."""

import errno
import gzip
import json
import struct
from pathlib import Path

import pytest
import torch
from torch import nn

from rnnaudit import Monitor
from rnnaudit.limits import LIMITS, TooLargeError
from tests.conftest import cli_status

ROOT = Path(__file__).resolve().parents[2]


def _one_line_error(capsys, *needles: str) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err[-800:]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def _expanded(*shape) -> torch.Tensor:
    """A tensor of ``shape`` stored as one element (zero strides): a few bytes on disk."""
    return torch.zeros((1,) * len(shape)).expand(*shape)


def _bomb_gru_weights(path: Path, h: int = 100_000) -> Path:
    """A state dict of a GRU of width h, every tensor expanded: 3h × h = 3·10¹⁰ elements, 240 GB in float64."""
    torch.save({"weight_ih_l0": _expanded(3 * h, 2), "weight_hh_l0": _expanded(3 * h, h),
                "bias_ih_l0": _expanded(3 * h), "bias_hh_l0": _expanded(3 * h)}, path)
    return path


# ----------------------------------------------------------------------------------- sizes from metadata

def test_a_tiny_weights_file_of_expanded_tensors_is_refused_from_its_shapes(tmp_path, capsys):
    from rnnaudit.user_models import load_state_dict_file

    bomb = _bomb_gru_weights(tmp_path / "bomb.pt")
    assert bomb.stat().st_size < 4096
    assert cli_status(["heatmap", "--arch", "gru", "--weights", str(bomb), "--out", str(tmp_path / "h.png")]) == 2
    _one_line_error(capsys, "bomb.pt", "weight_hh_l0", "limit", "--allow-large")
    with pytest.raises(TooLargeError, match=f"above the limit {LIMITS.elements}"):
        load_state_dict_file(bomb)


def test_a_tiny_inputs_file_of_an_expanded_tensor_is_refused(tmp_path, capsys):
    from rnnaudit.user_models import load_inputs

    torch.save(nn.GRU(2, 3, batch_first=True).state_dict(), tmp_path / "w.pt")
    torch.save(_expanded(6500, 10**6, 2), tmp_path / "x.pt")  # 1.3·10¹⁰ elements, 104 GB in float64
    assert cli_status(["heatmap", "--arch", "gru", "--weights", str(tmp_path / "w.pt"), "--inputs",
                       str(tmp_path / "x.pt"), "--out", str(tmp_path / "h.png")]) == 2
    _one_line_error(capsys, "x.pt", "limit")
    with pytest.raises(TooLargeError, match="x.pt"):
        load_inputs(tmp_path / "x.pt", 2)


@pytest.fixture
def monitor_run(tmp_path):
    rnn = nn.GRU(2, 3, batch_first=True)
    x = torch.randn(2, 6, 2)
    with Monitor(rnn, tmp_path / "run", every=1, inputs=x, tensorboard=False) as mon:
        rnn(x)[0].sum().backward()
        mon.record(0)
    return tmp_path / "run"


def test_a_monitor_checkpoint_and_inputs_of_expanded_tensors_are_refused(monitor_run, tmp_path, capsys):
    ckpt = monitor_run / "checkpoints" / "step_00000000.pt"
    payload = torch.load(ckpt, weights_only=True)
    payload["state_dict"]["weight_hh_l0"] = _expanded(30_000, 500_000)  # 120 GB in float64
    torch.save(payload, ckpt)
    assert cli_status(["audit", str(monitor_run), "--out", str(tmp_path / "a")]) == 2
    _one_line_error(capsys, "step_00000000.pt", "limit")

    other = tmp_path / "other"
    rnn = nn.GRU(2, 3, batch_first=True)
    with Monitor(rnn, other, every=1, inputs=torch.randn(2, 6, 2), tensorboard=False) as mon:
        mon.record(0)
    torch.save(_expanded(3250, 10**6, 2), other / "inputs.pt")  # 52 GB in float64
    assert cli_status(["audit", str(other), "--out", str(tmp_path / "b")]) == 2
    _one_line_error(capsys, "inputs.pt", "limit")


def test_hidden_and_T_flags_are_checked_before_anything_is_built(tmp_path, capsys, monkeypatch):
    import rnnaudit.sources as sources

    def never(*args, **kwargs):
        raise AssertionError("built a cell before checking the sizes")

    monkeypatch.setattr(sources, "build_cell", never)
    assert cli_status(["heatmap", "gru", "--hidden", "12000", "--out", str(tmp_path / "h.png")]) == 2
    _one_line_error(capsys, "hidden = 12000", "limit")
    monkeypatch.undo()
    # T = 10⁵ is within the limit on T, but its all-pairs map (--certified) holds T² norms and products: refused
    # from the method's memory estimate (the default grid map of the same T is a 4 MiB job, and runs)
    assert cli_status(["heatmap", "gru", "--hidden", "4", "--T", "100000", "--certified",
                       "--out", str(tmp_path / "h.png")]) == 2
    _one_line_error(capsys, "GiB", "memory limit")


def test_a_state_dict_claiming_a_huge_width_is_refused_before_the_module_is_built(tmp_path, monkeypatch):
    from rnnaudit.user_models import model_from_state_dict

    def never(*args, **kwargs):
        raise AssertionError("built the module before checking the width")

    monkeypatch.setattr(nn, "GRU", never)
    with pytest.raises(TooLargeError, match="hidden = 12000"):
        model_from_state_dict({"weight_ih_l0": _expanded(36_000, 2)}, "gru")


def test_a_model_too_large_is_refused_before_its_float64_copy(tmp_path):
    from rnnaudit.auditing import audit

    model = nn.GRU(2, 12_000, device="meta")  # shapes only: the check reads nothing else
    with pytest.raises(TooLargeError, match="weight_hh_l0"):
        audit(model, torch.zeros(1, 4, 2))


# ------------------------------------------------------------------------------------------- data sets

def _idx(path: Path, data: bytes, magic_type: int, shape: tuple[int, ...], compress: bool = False) -> None:
    header = bytes([0, 0, magic_type, len(shape)]) + b"".join(struct.pack(">I", d) for d in shape)
    raw = header + data
    path.write_bytes(gzip.compress(raw) if compress else raw)


def _mnist(root: Path, n: int, side: int, compress: bool = False) -> Path:
    root.mkdir()
    for images, labels in (("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
                           ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")):
        suffix = ".gz" if compress else ""
        _idx(root / (images + suffix), bytes(n * side * side), 0x08, (n, side, side), compress)
        _idx(root / (labels + suffix), bytes(n), 0x08, (n,), compress)
    return root


def _train_argv(task: str, data: Path, out: Path, T: str | None = None) -> list[str]:
    return ["train", "--task", task, "--data-dir", str(data), "--steps", "1", "--batch", "2", "--hidden", "3",
            "--val-batches", "1", *(["--T", T] if T else []), "--out", str(out)]


def test_mnist_files_with_no_images_or_a_truncated_gz_or_other_sizes_are_refused(tmp_path, capsys):
    from rnnaudit.training import dataset_tasks

    empty = _mnist(tmp_path / "empty", 0, 28)
    assert cli_status(_train_argv("smnist", empty, tmp_path / "r1")) == 2
    _one_line_error(capsys, "no images")
    gz = _mnist(tmp_path / "gz", 4, 28, compress=True)
    blob = (gz / "train-images-idx3-ubyte.gz").read_bytes()
    (gz / "train-images-idx3-ubyte.gz").write_bytes(blob[: len(blob) // 2])
    assert cli_status(_train_argv("smnist", gz, tmp_path / "r2")) == 2
    _one_line_error(capsys, "train-images-idx3-ubyte.gz", "truncated")
    small = _mnist(tmp_path / "small", 4, 10)  # 10 × 10: T = 100, while the run would say T = 784
    dataset_tasks._cached_splits.cache_clear()
    assert cli_status(_train_argv("smnist", small, tmp_path / "r3")) == 2
    _one_line_error(capsys, "100 pixels", "T = 784")
    assert not (tmp_path / "r3" / "run.json").exists() or json.loads((tmp_path / "r3" / "run.json").read_text())


def test_a_one_hot_vocabulary_above_ten_thousand_tokens_needs_allow_large(tmp_path, capsys):
    data = tmp_path / "ptb"
    data.mkdir()
    words = " ".join(f"t{i}" for i in range(100_000))
    (data / "ptb.char.train.txt").write_text(words + "\n")
    for split in ("valid", "test"):
        (data / f"ptb.char.{split}.txt").write_text("t0 t1 t2 t3 t4 t5 t6 t7\n" * 4)
    assert cli_status(_train_argv("ptb-char", data, tmp_path / "run", T="4")) == 2
    _one_line_error(capsys, "vocabulary = 100001", "--allow-large")


# -------------------------------------------------------------------------------------------- the API

def test_api_misuse_names_the_parameter():
    from rnnaudit.analysis.pseudospectra import transient_growth
    from rnnaudit.auditing import audit, audit_checkpoint
    from rnnaudit.bounds import check_claim
    from rnnaudit.training import read_trajectory

    gru = nn.GRU(2, 3, batch_first=True)
    x = torch.randn(2, 5, 2)
    with pytest.raises(TypeError, match="readout"):
        audit(gru, x, readout="head")
    with pytest.raises(ValueError, match=r"readout must be a weight of shape \(k, 3\)"):
        audit(gru, x, readout=torch.randn(1, 7))  # a wrong width used to be measured and reported "holds"
    with pytest.raises(ValueError, match="T must be a positive integer"):
        audit(gru, x, T=-5)
    with pytest.raises(TypeError, match="T must be a positive int"):
        audit(gru, x, T="100")
    with pytest.raises(TypeError, match="claim_by_id"):
        check_claim("sgornn.eq31")
    with pytest.raises(TypeError, match="path"):
        audit_checkpoint(123)
    with pytest.raises(TypeError, match="run_dir"):
        read_trajectory(5)
    with pytest.raises(TooLargeError, match="K"):
        transient_growth(torch.eye(3), 10**12)
    assert audit(gru, x, readout=torch.randn(1, 3))["claims"]  # the right width is audited


@pytest.mark.parametrize("dtype", [torch.complex64, torch.int64])
def test_complex_or_integer_weights_are_refused(tmp_path, capsys, dtype):
    from rnnaudit.user_models import load_weights

    state = {k: v.to(dtype) for k, v in nn.GRU(2, 3, batch_first=True).state_dict().items()}
    torch.save(state, tmp_path / "w.pt")
    argv = ["audit", "--arch", "gru", "--weights", str(tmp_path / "w.pt"), "--out", str(tmp_path / "a")]
    assert cli_status(argv) == 2
    _one_line_error(capsys, "w.pt")
    with pytest.raises(ValueError, match="floating weights expected|complex"):
        load_weights(nn.GRU(2, 3, batch_first=True), state)


def test_a_factory_returning_a_meta_module_is_refused(tmp_path, monkeypatch, capsys):
    (tmp_path / "meta_model.py").write_text("import torch\ndef make():\n    return torch.nn.GRU(2, 3, device='meta')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.path", list(__import__("sys").path))
    assert cli_status(["audit", "--model", "meta_model:make", "--out", str(tmp_path / "a")]) == 2
    _one_line_error(capsys, "meta device")


# --------------------------------------------------------------------------------------------- Monitor

def test_a_model_that_changes_shape_mid_run_is_named(tmp_path):
    rnn = nn.RNN(2, 3, batch_first=True)
    mon = Monitor(rnn, tmp_path / "run", every=1, tensorboard=False)
    mon.record(0)
    rnn.weight_hh_l0 = nn.Parameter(torch.zeros(5, 5))
    with pytest.raises(ValueError, match=r"weight_hh_l0.*\(5, 5\).*\(3, 3\)"):
        mon.record(1)
    mon._release()


def test_close_on_a_full_disk_is_one_clear_oserror_and_releases_the_run(tmp_path, monkeypatch):
    import rnnaudit.monitoring.monitor as monitor_module

    rnn = nn.GRU(2, 3, batch_first=True)
    mon = Monitor(rnn, tmp_path / "run", every=1, tensorboard=False)
    mon.record(0)
    real = torch.save

    def full(obj, f, *args, **kwargs):
        if "checkpoints" in str(f):
            raise RuntimeError("[enforce fail at inline_container.cc:603] . unexpected pos 64 vs 0: "
                               "PytorchStreamWriter failed writing file data/0: file write failed")
        return real(obj, f, *args, **kwargs)

    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(monitor_module.torch, "save", full)
    with torch.no_grad():
        rnn.weight_hh_l0.add_(1.0)  # changed parameters: close writes a final checkpoint
    with pytest.raises(OSError, match=r"cannot write checkpoints/step_00000001.pt .*written before are whole"):
        mon.close()
    assert mon.closed and not list((tmp_path / "run").rglob("*.tmp"))
    Monitor(nn.GRU(2, 3, batch_first=True), tmp_path / "run", overwrite=True, tensorboard=False).close()  # released
    mon2 = Monitor(nn.GRU(2, 3, batch_first=True), tmp_path / "run2", every=1, tensorboard=False)
    monkeypatch.setattr("rnnaudit.training.runs._append_record", no_space)
    with pytest.raises(OSError, match="trajectory.jsonl.*No space left"):
        mon2.record(0)
    mon2._release()


def test_monitor_inputs_of_an_expanded_tensor_are_refused_before_the_float64_copy(tmp_path):
    with pytest.raises(TooLargeError, match="inputs"):
        Monitor(nn.GRU(2, 3, batch_first=True), tmp_path / "run", inputs=_expanded(6500, 10**6, 2), tensorboard=False)
    assert not (tmp_path / "run").exists()


def test_python_train_has_the_limits_of_the_command_line(tmp_path, monkeypatch):
    import rnnaudit.training.trainer as trainer
    from rnnaudit.training import TrainConfig, train

    def never(*args, **kwargs):
        raise AssertionError("built the model before checking the sizes")

    monkeypatch.setattr(trainer, "build_model", never)
    with pytest.raises(TooLargeError, match="hidden = 12000 is above the limit 8192"):
        train(TrainConfig(cell="fastrnn", hidden_size=12_000, T=4, steps=1), tmp_path / "run", progress=False)
    assert not (tmp_path / "run" / "run.json").exists()


def test_python_audit_refuses_complex_weights_and_a_non_bool_allow_large(tmp_path):
    """Complex weights would lose their imaginary part in the float64 copy (torch only warns), and
    allow_large='yes' would lift every limit: both are refused naming the parameter. Control: the same GRU
    with real weights is audited."""
    import rnnaudit
    from rnnaudit.auditing import audit_run

    x = torch.rand(1, 10, 2)
    with pytest.raises(TypeError, match="weight_ih_l0.*complex64"):
        rnnaudit.audit(torch.nn.GRU(2, 4, batch_first=True).to(torch.complex64), x)
    with pytest.raises(TypeError, match="allow_large"):
        rnnaudit.audit(torch.nn.GRU(2, 4, batch_first=True), x, allow_large="yes")
    with pytest.raises(TypeError, match="allow_large"):
        audit_run(tmp_path, allow_large="yes")
    assert rnnaudit.audit(torch.nn.GRU(2, 4, batch_first=True), x, diagnostics=False)["claims"]


def test_spectrum_of_a_tampered_weights_file_is_one_line_and_a_failed_allocation_is_not_internal(tmp_path, capsys,
                                                                                               monkeypatch):
    """``spectrum --weights`` of expanded tensors is refused from the shapes; with --allow-large what is then asked
    for may not fit, and torch's CPU allocator says so by a RuntimeError: one line, exit 2, not the internal error
    (exit 70) it was. Control: another RuntimeError stays an internal error."""
    bomb = _bomb_gru_weights(tmp_path / "bomb.pt")
    assert cli_status(["spectrum", "--weights", str(bomb), "--out", str(tmp_path / "s.png")]) == 2
    _one_line_error(capsys, "bomb.pt", "weight_hh_l0", "limit")

    def fails(message):
        def run(args):
            raise RuntimeError(message)
        return run

    argv = ["spectrum", "--weights", str(bomb), "--out", str(tmp_path / "s.png"), "--allow-large"]
    monkeypatch.setattr("rnnaudit.cli.plots.run", fails("[enforce fail at alloc_cpu.cpp:127] err == 0. "
                                                        "DefaultCPUAllocator: can't allocate memory: you tried to "
                                                        "allocate 2400000000000 bytes."))
    assert cli_status(argv) == 2
    _one_line_error(capsys, "spectrum: not enough memory for this job")
    monkeypatch.setattr("rnnaudit.cli.plots.run", fails("some bug"))
    assert cli_status(argv) == 70


def test_a_counterexample_whose_recorded_ratio_is_nan_is_not_reproduced(tmp_path, capsys):
    """A tampered counterexample with ratio NaN printed 'recorded nan' and reported whether the claim still fails;
    NaN is not a ratio check writes: one line naming the file, exit 2. Control: the untampered file reproduces."""
    from rnnaudit.bounds import Profile, check_claim
    from rnnaudit.bounds.sgornn import eq31

    result = check_claim(eq31, Profile("quick", n_random=3, restarts=0, ascent_steps=0), out_dir=tmp_path / "ce")
    assert cli_status(["reproduce", result.counterexample]) == 0
    payload = torch.load(result.counterexample, weights_only=True)
    payload["ratio"] = float("nan")
    torch.save(payload, tmp_path / "nan.pt")
    capsys.readouterr()
    assert cli_status(["reproduce", str(tmp_path / "nan.pt")]) == 2
    _one_line_error(capsys, "nan.pt", "recorded ratio is NaN, not a number")


def test_step_with_a_cell_name_is_refused_and_audit_takes_a_cell_name(tmp_path, capsys):
    """``--step`` with a cell name was ignored silently (the cell's initialisation has no steps): one line, exit 2.
    ``audit gru`` was refused though --help lists a cell name as a SOURCE: it audits the initialisation, as heatmap
    and spectrum draw it. Control: an unknown name is one line naming the cells."""
    assert cli_status(["spectrum", "gru", "--hidden", "4", "--step", "5", "--out", str(tmp_path / "s.png")]) == 2
    _one_line_error(capsys, "--step 5 is for a run directory", "'gru' is a cell name")
    assert not (tmp_path / "s.png").exists()
    out = tmp_path / "audit"
    assert cli_status(["audit", "gru", "--hidden", "4", "--T", "6", "--out", str(out)]) == 0
    doc = json.loads((out / "audit.json").read_text())
    assert doc["latest"]["config"]["cell"].startswith("gru, h = 4") and doc["latest"]["config"]["T"] == 6
    capsys.readouterr()
    assert cli_status(["audit", "nosuchcell", "--out", str(tmp_path / "a2")]) == 2
    _one_line_error(capsys, "nosuchcell: no such checkpoint or run directory, nor a cell name", "'sgornn'")


@pytest.mark.parametrize("device", ["/dev/zero", "fifo"])
def test_a_device_or_a_pipe_given_as_a_file_is_refused_without_reading_it(tmp_path, capsys, device):
    """``--weights /dev/zero`` read until the process was killed for memory (the OOM killer's SIGKILL), and a FIFO
    blocks forever: a file argument must be a regular file, named. Control: the regular weights file works."""
    import os

    from rnnaudit.untrusted import InputError, require_file

    if device == "fifo":
        device = str(tmp_path / "fifo.pt")
        os.mkfifo(device)
    with pytest.raises(InputError, match="is not a regular file"):
        require_file(device, "weights file")
    assert cli_status(["spectrum", "--arch", "gru", "--weights", device, "--out", str(tmp_path / "s.png")]) == 2
    _one_line_error(capsys, device, "not a regular file")
    torch.save(nn.GRU(2, 3).state_dict(), tmp_path / "w.pt")
    assert cli_status(["spectrum", "--arch", "gru", "--weights", str(tmp_path / "w.pt"), "--out",
                       str(tmp_path / "s.png")]) == 0


def test_a_counterexample_whose_ratio_is_a_bool_is_refused(tmp_path, capsys):
    """``"ratio": True`` passed as the number 1 ('recorded 1'): a bool is not a measured ratio."""
    from rnnaudit.bounds import Profile, check_claim
    from rnnaudit.bounds.sgornn import eq31

    result = check_claim(eq31, Profile("quick", n_random=3, restarts=0, ascent_steps=0), out_dir=tmp_path / "ce")
    payload = torch.load(result.counterexample, weights_only=True)
    payload["ratio"] = True
    torch.save(payload, tmp_path / "bool.pt")
    assert cli_status(["reproduce", str(tmp_path / "bool.pt")]) == 2
    _one_line_error(capsys, "bool.pt", "ratio a number")


def test_a_model_on_the_meta_device_is_one_value_error_everywhere(tmp_path):
    """Shapes without values: the audit hashed them, the Monitor copied them, and wrap() accepted them for the
    maps to fail in torch (NotImplementedError, RuntimeError). Control: the same module on the CPU is accepted."""
    import rnnaudit

    with torch.device("meta"):
        meta = nn.GRU(2, 4, batch_first=True)
    x = torch.rand(1, 6, 2)
    calls = {"audit": lambda m: rnnaudit.audit(m, x, diagnostics=False, measure_bounds=False),
             "Monitor": lambda m: Monitor(m, tmp_path / "run", tensorboard=False).close(),
             "wrap": rnnaudit.wrap,
             "maps": lambda m: rnnaudit.analysis.hidden_jacobian_maps(m.double(), x.double())}
    for name, call in calls.items():
        with pytest.raises(ValueError, match="meta device"):
            call(meta)
        assert not (tmp_path / "run").exists(), name
    cpu = nn.GRU(2, 4, batch_first=True)
    for name, call in calls.items():
        call(cpu)
        if name == "Monitor":
            assert (tmp_path / "run" / "run.json").exists()


def test_close_after_a_full_disk_names_the_file_whatever_torch_writer_says(tmp_path, monkeypatch):
    """The disk fills: record() fails with ENOSPC, and torch's zip writer, asked again at close(), reports
    "unexpected pos 128 vs 0" (a RuntimeError that never says "write"). Both are one OSError naming the file."""
    import rnnaudit.monitoring.monitor as monitor_module

    rnn = nn.GRU(2, 3, batch_first=True)
    mon = Monitor(rnn, tmp_path / "run", every=1, tensorboard=False)
    mon.record(0)
    calls = []

    def full(obj, f, *args, **kwargs):
        calls.append(f)
        if len(calls) == 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        raise RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 128 vs 0")

    monkeypatch.setattr(monitor_module.torch, "save", full)
    with pytest.raises(OSError, match=r"cannot write checkpoints/step_00000010.pt .*No space left"):
        mon.record(10)
    with torch.no_grad():
        rnn.weight_hh_l0.add_(1.0)
    with pytest.raises(OSError, match=r"cannot write checkpoints/step_00000011.pt .*unexpected pos 128") as info:
        mon.close()
    assert type(info.value) is OSError and str(tmp_path / "run") in str(info.value)
    assert mon.closed and not list((tmp_path / "run").rglob("*.tmp"))


@pytest.mark.parametrize("shape", [(7,), (), (7, 2), (1, 7, 3), (0, 7, 2), (1, 0, 2), (1, 1, 7, 2)])
def test_a_counterexample_whose_x_has_the_wrong_shape_is_one_line_naming_the_field(tmp_path, capsys, shape):
    """x of shape (7,) or () ended in exit 70 (IndexError in the case's size); other shapes in a message from
    deep inside torch. Now one line naming the field, the expected and the found shape, exit 2. Control: the
    untampered file reproduces."""
    from rnnaudit.bounds import Profile, check_claim
    from rnnaudit.bounds.sgornn import eq31

    result = check_claim(eq31, Profile("quick", n_random=3, restarts=0, ascent_steps=0), out_dir=tmp_path / "ce")
    assert cli_status(["reproduce", result.counterexample]) == 0
    payload = torch.load(result.counterexample, weights_only=True)
    n = payload["case"]["x"].shape[-1]
    payload["case"]["x"] = torch.zeros(shape, dtype=torch.float64)
    torch.save(payload, tmp_path / "bad.pt")
    capsys.readouterr()
    assert cli_status(["reproduce", str(tmp_path / "bad.pt")]) == 2
    _one_line_error(capsys, "bad.pt", f"field 'x' must have shape (batch, T, {n})", f"got {shape}")


def test_a_json_file_given_as_a_torch_file_is_named_for_what_it_is(tmp_path, capsys):
    """A JSON file given to reproduce was described as holding "Python objects other than tensors"; it is no
    torch file at all. Control: a real pickle of an object is still refused as such."""
    import argparse
    import pickle

    (tmp_path / "results.json").write_text('{"claims": []}')
    assert cli_status(["reproduce", str(tmp_path / "results.json")]) == 2
    _one_line_error(capsys, "results.json", "not a torch file (JSON text")
    (tmp_path / "object.pt").write_bytes(pickle.dumps(argparse.Namespace(a=1)))
    assert cli_status(["reproduce", str(tmp_path / "object.pt")]) == 2
    _one_line_error(capsys, "object.pt", "Python objects other than tensors")

#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    'test_a_device_or_a_pipe_given_as_a_file_is_refused_without_reading_it': {'fifo'},
}
