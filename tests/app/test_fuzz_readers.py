"""Property-based fuzzing of every reader of untrusted files: whatever the bytes, a reader returns a valid
result or raises a ValueError subclass whose message names the file, never another exception, and no
payload runs. ``--full`` runs ten times as many examples."""

import json
import os
import pickle

import pytest
import torch
from hypothesis import HealthCheck, given, settings, strategies as st

from rnnaudit.bounds import load_counterexample
from rnnaudit.training import TrainConfig, load_checkpoint, read_trajectory, train
from rnnaudit.training.runs import load_trained_model
from rnnaudit.training.sweep import expand, load_spec

MARKER = "FUZZ_PAYLOAD_RAN"


def _examples(request) -> int:
    return 400 if request.config.getoption("--full") else 40


@pytest.fixture(scope="module")
def valid(tmp_path_factory, report_dir):
    root = tmp_path_factory.mktemp("valid")
    train(TrainConfig(cell="sgornn", T=4, hidden_size=4, batch=2, steps=2, record_every=1, checkpoint_every=2,
                      val_batches=1), root / "run", progress=False)
    # the counterexample of the run's shared sgornn check (tests/conftest.py), not a second check of its own
    return {"checkpoint": (root / "run" / "checkpoints" / "step_00000002.pt").read_bytes(),
            "counterexample": (report_dir / "counterexamples" / "sgornn.eq31.pt").read_bytes(),
            "trajectory": (root / "run" / "trajectory.jsonl").read_bytes(),
            "spec": json.dumps({"out": str(root / "sweep"), "grid": {"T": [2, 3]}}).encode()}


def mutations(data: bytes):
    """Byte-level mutations of a valid file: truncation, flipped bytes, inserted bytes, garbage."""
    n = len(data)
    return st.one_of(
        st.integers(0, n).map(lambda k: data[:k]),
        st.lists(st.tuples(st.integers(0, max(n - 1, 0)), st.integers(0, 255)), min_size=1, max_size=8).map(
            lambda flips: bytes(b if i not in dict(flips) else dict(flips)[i] for i, b in enumerate(data))),
        st.tuples(st.integers(0, n), st.binary(min_size=1, max_size=64)).map(
            lambda t: data[:t[0]] + t[1] + data[t[0]:]),
        st.binary(max_size=512),
    )


def _must_be_clean(fn, path):
    try:
        fn(path)
    except ValueError as err:
        assert str(path) in str(err) or path.name in str(err), str(err)


@pytest.mark.parametrize("kind", ["checkpoint", "counterexample", "trajectory", "spec"])
def test_no_mutation_of_a_valid_file_escapes_as_another_exception(kind, valid, tmp_path, request, monkeypatch):
    monkeypatch.chdir(tmp_path)
    readers = {"checkpoint": lambda p: load_trained_model(p),
               "counterexample": lambda p: load_counterexample(p),
               "trajectory": lambda p: read_trajectory(p.parent),
               "spec": lambda p: expand(load_spec(p))}
    name = {"checkpoint": "c.pt", "counterexample": "x.pt", "trajectory": "trajectory.jsonl", "spec": "s.json"}[kind]

    @settings(max_examples=_examples(request), deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(mutations(valid[kind]))
    def fuzz(data):
        path = tmp_path / name
        path.write_bytes(data)
        _must_be_clean(readers[kind], path)
        assert not (tmp_path / MARKER).exists()

    fuzz()


class _Payload:
    def __reduce__(self):
        return (os.system, (f"touch {MARKER}",))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["raw", "zip", "nested"]))
def test_a_malicious_pickle_never_runs_and_the_refusal_gives_no_bad_advice(tmp_path_factory, how):
    tmp = tmp_path_factory.mktemp("pickle")
    path = tmp / "evil.pt"
    if how == "raw":
        path.write_bytes(pickle.dumps(_Payload()))
    else:
        torch.save({"format": "rnnaudit-checkpoint-1", "config": {"x": _Payload()} if how == "nested" else _Payload()},
                   path)
    cwd = os.getcwd()
    os.chdir(tmp)
    try:
        for reader in (load_checkpoint, load_counterexample):
            with pytest.raises(ValueError) as err:
                reader(path)
            assert "refused" in str(err.value) and "weights_only=False" not in str(err.value)
    finally:
        os.chdir(cwd)
    assert not (tmp / MARKER).exists()
