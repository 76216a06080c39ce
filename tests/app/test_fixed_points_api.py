"""``rnnaudit.fixed_points`` and the audit's "Fixed points" section: the public API probes a float64 copy, the
audit searches the whole stack (one map) or each direction of a bidirectional module, and the report shows it."""

import math

import pytest
import torch

import rnnaudit
from rnnaudit.figures.report import render_audit_html, render_audit_markdown
from tests.conftest import cli_status


def _x(n=3, batch=3, T=20, seed=0):
    return torch.randn(batch, T, n, generator=torch.Generator().manual_seed(seed))


def test_fixed_points_is_public_and_leaves_a_float32_model_as_it_was():
    torch.manual_seed(0)
    gru = torch.nn.GRU(3, 8, batch_first=True)
    before = {k: v.clone() for k, v in gru.state_dict().items()}
    fp = rnnaudit.fixed_points(gru, _x(), input="mean", n_starts=8, seed=1)
    assert "fixed_points" in rnnaudit.__all__
    assert fp.points.dtype == torch.float64 and fp.points.shape[1] == 8 and fp.eigenvalues.shape[1] == 8
    assert all(v.dtype == torch.float32 for v in gru.state_dict().values())
    assert all(torch.equal(before[k], v) for k, v in gru.state_dict().items())
    assert sum(fp.hits.tolist()) + fp.discarded == 8


def test_a_tensor_input_is_the_constant_input():
    rnn = torch.nn.RNN(3, 4, batch_first=True)
    fp = rnnaudit.fixed_points(rnn, _x(), input=torch.tensor([0.5, -1.0, 2.0]), n_starts=4)
    assert fp.input.tolist() == [0.5, -1.0, 2.0]


@pytest.mark.parametrize("model, x, error, message", [
    (torch.nn.GRU(3, 4, bidirectional=True), _x(), ValueError, "bidirectional"),
    (torch.nn.GRU(3, 4), [[0.0]], TypeError, "x must be a tensor"),
    (torch.nn.GRU(3, 4), torch.zeros(2, 5, 3, dtype=torch.int64), ValueError, "real floating"),
    (torch.nn.GRU(3, 4), _x(n=2), ValueError, "input width 3"),
])
def test_bad_arguments_are_one_clear_error(model, x, error, message):
    with pytest.raises(error, match=message):
        rnnaudit.fixed_points(model, x, n_starts=2)


@pytest.fixture(scope="module")
def lstm_audit():
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(3, 6, num_layers=2, batch_first=True)
    return rnnaudit.audit(lstm, _x(), measure_bounds=False)


def test_the_audit_searches_the_whole_stack_as_one_map(lstm_audit):
    (f,) = lstm_audit["fixed_points"]
    assert f["part"] == "all layers" and f["state_size"] == 2 * (6 + 6) and f["input"] == "mean"
    assert f["n_starts"] == 16 and f["fixed"] + f["slow"] == len(f["points"]) >= 1
    assert f["stable"] + f["unstable"] + f["marginal"] == f["fixed"]
    if f["slowest_stable_mode"] is not None:
        m = f["slowest_stable_mode"]
        assert m["modulus"] < 1 and m["tau"] == pytest.approx(-1 / math.log(m["modulus"]))


def test_the_report_has_a_fixed_points_section(lstm_audit):
    doc = {"source": "lstm", "latest": {"step": None, "config": {}, **lstm_audit}, "model": lstm_audit["model"]}
    md = render_audit_markdown(doc)
    assert "## Fixed points" in md
    row = next(line for line in md.splitlines() if line.startswith("| all layers |"))
    assert row.count("|") == 8  # seven cells: no stray pipe from |λ| splits the row
    html = render_audit_html(doc, ".")
    assert "id='fixed-points'" in html and "href='#fixed-points'" in html


def test_without_diagnostics_there_is_no_search():
    report = rnnaudit.audit(torch.nn.RNN(3, 4, batch_first=True), _x(), measure_bounds=False, diagnostics=False)
    assert "fixed_points" not in report
    md = render_audit_markdown({"source": "s", "latest": {"step": None, "config": {}, **report}})
    assert "## Fixed points" not in md


def test_a_bidirectional_module_is_searched_one_direction_at_a_time():
    torch.manual_seed(0)
    report = rnnaudit.audit(torch.nn.GRU(3, 4, bidirectional=True, batch_first=True), _x(), measure_bounds=False)
    assert [f["part"] for f in report["fixed_points"]] == ["layer 0, forward", "layer 0, reverse"]
    assert all(f["state_size"] == 4 for f in report["fixed_points"])


def test_the_fixed_points_command_refuses_a_bad_input_choice(tmp_path):
    assert cli_status(["fixed-points", "gru", "--input", "median", "--out", str(tmp_path / "f.png")]) == 2
    assert not (tmp_path / "f.png").exists()


def test_the_search_beside_the_claims_gives_the_numbers_it_gives_after_them(monkeypatch):
    """The audit runs the fixed-point search on a second thread while the claims run; the whole audit is the same,
    number for number, as with the search run after the claims on the one thread."""
    import json
    from concurrent.futures import Future

    import rnnaudit.auditing.model as audit_module

    class AfterwardsExecutor:  # runs each task when it is submitted, on the calling thread
        def __init__(self, max_workers=1):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def submit(self, task, *args):
            done = Future()
            done.set_result(task(*args))
            return done

    torch.manual_seed(0)
    gru = torch.nn.GRU(3, 16, num_layers=2, batch_first=True)
    x = torch.randn(2, 20, 3, generator=torch.Generator().manual_seed(1))
    beside = json.dumps(rnnaudit.audit(gru, x), sort_keys=True, default=str)
    monkeypatch.setattr(audit_module, "ThreadPoolExecutor", AfterwardsExecutor)
    after = json.dumps(rnnaudit.audit(gru, x), sort_keys=True, default=str)
    assert beside == after


def test_a_users_step_function_is_never_called_from_two_threads_at_once():
    """A user's step may keep state between calls: its fixed-point search waits for the claims."""
    import threading

    from rnnaudit.auditing.model import _reentrant
    from rnnaudit.cells.adapters import StepCell

    W = torch.randn(4, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(2)) * 0.4
    inside, overlaps, lock = [], [], threading.Lock()

    def step(x_t, h):
        with lock:
            if inside:
                overlaps.append((inside[0], threading.get_ident()))
            inside.append(threading.get_ident())
        try:
            return torch.tanh(h @ W.T + x_t.sum(-1, keepdim=True))
        finally:
            with lock:
                inside.remove(threading.get_ident())

    cell = rnnaudit.wrap(step, input_size=2, state_size=4)
    assert isinstance(cell, StepCell) and not _reentrant(cell, None)
    result = rnnaudit.audit(cell, torch.randn(1, 12, 2, dtype=torch.float64))
    assert result["fixed_points"] and overlaps == []
    assert _reentrant(rnnaudit.wrap(torch.nn.GRU(2, 3)), None)
