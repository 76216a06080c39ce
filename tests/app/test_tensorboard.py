"""TensorBoard event files beside the trajectory: the trainer's and the monitor's records read back with
TensorBoard's own EventAccumulator hold the same scalars as trajectory.jsonl (the source of truth)."""

import sys

import pytest
import torch
from torch import nn

from rnnaudit.tensorboard_log import event_writer
from rnnaudit.training import TrainConfig, read_trajectory, train

SMALL = dict(cell="sgornn", T=10, hidden_size=8, batch=8, steps=12, lr=1e-2, record_every=4, checkpoint_every=12,
             val_batches=2)


def _events(run_dir):
    accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    acc = accumulator.EventAccumulator(str(run_dir / "tensorboard"), size_guidance={accumulator.SCALARS: 0})
    acc.Reload()
    return {tag: [(e.step, e.value) for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


def _assert_events_match_trajectory(run_dir):
    events, trajectory = _events(run_dir), read_trajectory(run_dir)
    keys = [k for k in trajectory if k != "step"]
    assert keys and set(keys) <= set(events)
    for key in keys:
        recorded = [(int(s), float(v)) for s, v in zip(trajectory["step"], trajectory[key]) if v == v]
        assert [s for s, _ in events[key]] == [s for s, _ in recorded], key
        # TensorBoard stores scalars as float32: agreement to float32 rounding (2⁻²⁴ relative)
        for (_, got), (_, want) in zip(events[key], recorded):
            assert got == pytest.approx(want, rel=2**-23, abs=1e-30), key


def test_trainer_event_files_hold_the_recorded_scalars(tmp_path):
    pytest.importorskip("tensorboard")
    train(TrainConfig(**SMALL), tmp_path, progress=False)
    _assert_events_match_trajectory(tmp_path)
    assert "loss" in _events(tmp_path) and "grad/W/max" in _events(tmp_path)


def test_monitor_event_files_hold_the_recorded_scalars(tmp_path):
    pytest.importorskip("tensorboard")
    from rnnaudit import Monitor

    torch.manual_seed(0)
    rnn, x = nn.GRU(2, 6, batch_first=True), torch.randn(3, 12, 2)
    with Monitor(rnn, tmp_path, every=2, inputs=x[:2], summary_every=4) as mon:
        for step in range(1, 7):
            loss = rnn(x)[0].pow(2).mean()
            rnn.zero_grad()
            loss.backward()
            mon.record(step, loss)
    _assert_events_match_trajectory(tmp_path)
    assert "spectral_radius/W_hz" in _events(tmp_path) and "lyapunov_max" in _events(tmp_path)


def test_no_event_files_when_switched_off(tmp_path):
    train(TrainConfig(**SMALL), tmp_path, progress=False, tensorboard=False)
    assert not (tmp_path / "tensorboard").exists()


def test_tensorboard_required_but_absent_is_an_import_error(tmp_path, monkeypatch):
    """Where tensorboard is not installed, None skips it quietly and True says how to install it."""
    monkeypatch.setitem(sys.modules, "torch.utils.tensorboard", None)  # imports of it raise ImportError
    assert event_writer(tmp_path, None) is None
    with pytest.raises(ImportError, match=r"rnnaudit\[tensorboard\]"):
        event_writer(tmp_path, True)
    with pytest.raises(TypeError, match="tensorboard"):
        event_writer(tmp_path, "yes")
    train(TrainConfig(**SMALL), tmp_path / "run", progress=False)
    assert read_trajectory(tmp_path / "run")["step"].tolist() == [4, 8, 12]
    assert not (tmp_path / "run" / "tensorboard").exists()
