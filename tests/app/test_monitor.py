"""rnnaudit.Monitor: the trainer's records from a plain PyTorch loop, in a run directory that the audit,
compare and the trajectory figures read; probes in float64 on a copy (the user's loop is unchanged,
bit for bit); known answers for the Jacobian summary and the Lyapunov exponent; bad arguments, a
second writer and Ctrl-C."""

import json
import math
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import pytest
import torch
from torch import nn

from rnnaudit import Monitor
from rnnaudit.lightning import MonitorCallback
from rnnaudit.monitoring.probes import SUMMARY_RTOL
from rnnaudit.monitoring.runs import load_monitored_checkpoint, rebuild_model
from rnnaudit.outputs import LockedError
from rnnaudit.training import read_trajectory
from rnnaudit.training.runs import checkpoint_steps
from tests.conftest import cli_status

ROOT = Path(__file__).resolve().parents[2]


def _data(seed=0, n=16, T=12, width=2, classes=3):
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(n, T, width, generator=gen), torch.randint(classes, (n,), generator=gen)


def _loop(rnn, head, run_dir=None, steps=20, every=5, record_after_step=False, **kwargs):
    """The plain loop of the README, optionally monitored; returns the monitor (or None)."""
    x, y = _data()
    opt = torch.optim.Adam([*rnn.parameters(), *head.parameters()], lr=1e-2)
    mon = None if run_dir is None else Monitor(rnn, run_dir, every=every, inputs=x[:4], targets=y[:4],
                                               loss_fn=nn.functional.cross_entropy, readout=head, **kwargs)
    for step in range(steps):
        i = torch.randint(len(x), (8,))
        loss = nn.functional.cross_entropy(head(rnn(x[i])[0][:, -1]), y[i])
        opt.zero_grad()
        loss.backward()
        if mon is not None and not record_after_step:
            mon.record(step, loss)
        opt.step()
        if mon is not None and record_after_step:
            mon.record(step, loss)
    if mon is not None:
        mon.close()
    return mon


def _gru(seed=0, h=6):
    torch.manual_seed(seed)
    return nn.GRU(2, h, batch_first=True), nn.Linear(h, 3)


@pytest.mark.slow  # a training loop, an audit and a compare end to end: 7 s
def test_a_20_step_loop_writes_a_run_that_audit_and_compare_read(tmp_path, capsys):
    rnn, head = _gru()
    _loop(rnn, head, tmp_path / "run")
    run = tmp_path / "run"
    t = read_trajectory(run)
    # records at 0, 5, 10, 15; close() adds the parameters after the last update as step 20
    assert t["step"].tolist() == [0, 5, 10, 15, 20]
    for key in ("loss", "grad/W_hz/max", "grad/b_in/fro", "grad_h0", "spectral_radius/W_hn", "spectral_norm/W_hr",
                "sigma_min/W_hn", "sigma_max/W_hn", "jacobian/max", "jacobian/slope",
                "lyapunov_max"):
        assert key in t, key
    assert math.isnan(t["loss"][-1]) and all(math.isfinite(v) for v in t["loss"][:-1])
    assert checkpoint_steps(run) == [0, 20] and sorted(p.name for p in (run / "jacobian").iterdir()) == [
        "step_00000000.pt", "step_00000020.pt"]
    info = json.loads((run / "run.json").read_text())
    assert info["kind"] == "monitor" and info["model"]["arch"] == "gru" and info["provenance"]["torch"]
    assert cli_status(["audit", str(run), "--out", str(tmp_path / "audit")]) == 0
    doc = json.loads((tmp_path / "audit" / "audit.json").read_text())
    assert [c["step"] for c in doc["checkpoints"]] == [0, 20]
    assert doc["latest"]["config"]["cell"] == "torch.nn.GRU" and doc["model"]["hidden_size"] == 6
    assert all("applies" in c and (c["applies"] or c["reason"]) for c in doc["latest"]["claims"])
    assert cli_status(["compare", str(run), str(run), "--key", "grad/W_hz/max", "--out",
                       str(tmp_path / "cmp.png")]) == 0
    assert (tmp_path / "cmp.png").stat().st_size > 0
    assert (tmp_path / "audit" / "trajectory.png").stat().st_size > 0


@pytest.mark.slow
def test_figure_commands_read_a_monitored_run(tmp_path, capsys):
    rnn, head = _gru()
    _loop(rnn, head, tmp_path / "run", steps=6)
    for command in ("heatmap", "spectrum", "lyapunov"):
        assert cli_status([command, str(tmp_path / "run"), "--out", str(tmp_path / f"{command}.png")]) == 0, command
    assert (tmp_path / "spectrum.png").is_file() and (tmp_path / "heatmap.png").is_file()
    assert not list(tmp_path.glob("spectrum-*"))  # one file, one row per recurrent matrix
    assert "step 6" in capsys.readouterr().out  # the latest checkpoint: the parameters at close


def test_monitoring_leaves_the_loop_bit_for_bit_unchanged(tmp_path):
    """Same seed with and without the monitor: identical parameters after 20 steps (the probes use a
    copy and draw from no generator the loop draws from)."""
    plain = _gru()
    torch.manual_seed(1)
    _loop(*plain)
    monitored = _gru()
    torch.manual_seed(1)
    _loop(*monitored, tmp_path / "run")
    for a, b in zip([*plain[0].parameters(), *plain[1].parameters()],
                    [*monitored[0].parameters(), *monitored[1].parameters()]):
        assert torch.equal(a, b)


def test_gradient_norms_are_those_of_the_users_backward(tmp_path):
    rnn, head = _gru()
    x, y = _data()
    with Monitor(rnn, tmp_path, every=1) as mon:
        loss = nn.functional.cross_entropy(head(rnn(x)[0][:, -1]), y)
        loss.backward()
        record = mon.record(0, loss)
    grad = rnn.weight_hh_l0.grad.chunk(3, 0)  # torch stacks W_hr, W_hz, W_hn
    assert record["grad/W_hz/max"] == float(grad[1].abs().max())
    # the norm of the user's float32 gradient, summed in float64 (as rnnaudit.analysis.euclidean_norm does)
    assert record["grad/W_hn/fro"] == pytest.approx(float(torch.linalg.vector_norm(grad[2].double())), rel=1e-14, abs=0)
    assert record["loss"] == loss.item()


def test_probes_run_in_float64_on_the_parameters(tmp_path):
    rnn, head = _gru()
    x, y = _data()
    with Monitor(rnn, tmp_path, every=1, inputs=x[:3], targets=y[:3], loss_fn=nn.functional.cross_entropy,
                 readout=head) as mon:
        record = mon.record(0)
    W = rnn.weight_hh_l0.detach().double().chunk(3, 0)[1]
    assert record["spectral_radius/W_hz"] == pytest.approx(float(torch.linalg.eigvals(W).abs().max()), rel=1e-12)
    assert record["sigma_min/W_hz"] == pytest.approx(float(torch.linalg.svdvals(W)[-1]), rel=1e-12)
    # ‖∂L/∂h_0‖ of the float64 copy: the same loss written out by hand
    rnn64, head64 = nn.GRU(2, 6, batch_first=True).double(), nn.Linear(6, 3).double()
    rnn64.load_state_dict(rnn.state_dict())
    head64.load_state_dict(head.state_dict())
    h0 = torch.zeros(1, 3, 6, dtype=torch.float64, requires_grad=True)
    loss = nn.functional.cross_entropy(head64(rnn64(x[:3].double(), h0)[0][:, -1]), y[:3])
    (g,) = torch.autograd.grad(loss, h0)
    assert record["grad_h0"] == pytest.approx(float(g.norm()), rel=1e-10)
    assert "loss" not in record and "grad/W_hz/max" not in record  # no backward yet: nothing to read


def _relu_contraction(c=0.5, h=4):
    """h_t = relu(c·h_{t−1} + x_t + 0.1) with x ≥ 0: every unit stays on, so ∂h_t/∂h_s = c^(t−s) I."""
    rnn = nn.RNN(1, h, nonlinearity="relu", batch_first=True)
    with torch.no_grad():
        rnn.weight_hh_l0.copy_(c * torch.eye(h))
        rnn.weight_ih_l0.fill_(1.0)
        rnn.bias_ih_l0.fill_(0.1)
        rnn.bias_hh_l0.zero_()
    return rnn


def test_jacobian_summary_and_lyapunov_exponent_known_answer(tmp_path):
    """‖∂h_t/∂h_s‖₂ = c^(t−s): max c, end c^T, slope ln c nats per step; top Lyapunov exponent ln c."""
    rnn = _relu_contraction()
    x = torch.rand(2, 30, 1)
    with Monitor(rnn, tmp_path, every=1, inputs=x) as mon:
        record = mon.record(0)
    assert record["jacobian/max"] == pytest.approx(0.5, rel=SUMMARY_RTOL)
    assert record["jacobian/end"] == pytest.approx(0.5 ** 30, rel=SUMMARY_RTOL)
    # each log is within log(1 + rtol) of the truth; the slope of a least-squares fit to them too
    assert record["jacobian/slope"] == pytest.approx(math.log(0.5), abs=SUMMARY_RTOL)
    assert record["lyapunov_max"] == pytest.approx(math.log(0.5), abs=1e-12)
    assert record["spectral_radius"] == pytest.approx(0.5) and record["orthogonality_defect"] == pytest.approx(0.75)


def test_sketch_summary_states_its_factor_and_brackets_the_known_answer(tmp_path):
    """summary_method="sketch": ‖∂h_t/∂h_s‖₂ = c^(t−s) of the ReLU contraction, each value within the recorded
    factor (at confidence 0.9999 per cell), run.json saying which method; the exact summary records no factor.
    A wrong answer (the map of c = 0.6) falls outside the factor at the longest gap."""
    rnn = _relu_contraction(h=40)  # wider than the 16 probes: a genuinely randomized estimate
    x = torch.rand(2, 30, 1)
    with Monitor(rnn, tmp_path / "s", every=1, inputs=x, summary_method="sketch") as mon:
        record = mon.record(0)
    f = record["jacobian/factor"] * (1 + 1e-12)  # and the rounding of 30 products
    assert 1.01 < f < 10
    assert 0.5 / f <= record["jacobian/max"] <= 0.5 * f
    assert 0.5 ** 30 / f <= record["jacobian/end"] <= 0.5 ** 30 * f
    assert not 0.6 ** 30 / f <= record["jacobian/end"] <= 0.6 ** 30 * f
    assert json.loads((tmp_path / "s" / "run.json").read_text())["summary_method"] == "sketch"
    with Monitor(rnn, tmp_path / "e", every=1, inputs=x) as mon:
        assert "jacobian/factor" not in mon.record(0)
    with pytest.raises(ValueError, match="summary_method"):
        Monitor(rnn, tmp_path / "bad", every=1, inputs=x, summary_method="fast")


def test_wide_matrices_get_their_spectral_radius_at_summary_records_only(tmp_path):
    """Above RADIUS_EVERY_RECORD_MAX the eigensolve waits for the summary records; the singular values do not;
    at or below it every record has the radius."""
    from rnnaudit.monitoring.probes import RADIUS_EVERY_RECORD_MAX

    wide = nn.RNN(1, RADIUS_EVERY_RECORD_MAX + 1, batch_first=True)
    with Monitor(wide, tmp_path / "w", every=1, summary_every=2) as mon:
        records = [mon.record(step) for step in range(3)]
    assert ["spectral_radius" in r for r in records] == [True, False, True]
    assert all("spectral_norm" in r and "sigma_min" in r for r in records)
    narrow = nn.RNN(1, RADIUS_EVERY_RECORD_MAX, batch_first=True)
    with Monitor(narrow, tmp_path / "n", every=1, summary_every=2) as mon:
        assert all("spectral_radius" in mon.record(step) for step in range(3))


def test_orthogonality_defect_small_for_orthogonal_rnn_and_not_otherwise(tmp_path):
    torch.manual_seed(0)
    plain = nn.RNN(1, 8, batch_first=True)
    ortho = nn.RNN(1, 8, batch_first=True)
    nn.utils.parametrizations.orthogonal(ortho, "weight_hh_l0")
    with Monitor(ortho, tmp_path / "o", every=1) as mon:
        defect = mon.record(0)["orthogonality_defect"]
    assert defect < 1e-5  # float32 orthogonal map: a few ulp of 1
    with Monitor(plain, tmp_path / "p", every=1) as mon:
        assert mon.record(0)["orthogonality_defect"] > 0.1


@pytest.mark.parametrize("module", [nn.LSTM(2, 4, batch_first=True), nn.GRU(2, 4, num_layers=2, batch_first=True),
                                    nn.LSTMCell(2, 4)], ids=["lstm", "gru2", "lstmcell"])
def test_no_orthogonality_defect_for_the_gate_blocks_of_a_torch_lstm_or_gru(tmp_path, module):
    """No claim's assumption asks a gate block of torch's LSTM or GRU to be orthogonal: its ‖WᵀW − I‖₂ is not
    recorded (and so not plotted); the gate blocks' spectral quantities are."""
    with Monitor(module, tmp_path, every=1) as mon:
        record = mon.record(0)
    assert not [k for k in record if k.startswith("orthogonality_defect")]
    assert [k for k in record if k.startswith("spectral_norm/")] and [k for k in record if k.startswith("sigma_min/")]


def test_the_orthogonality_defect_is_recorded_where_a_claim_assumes_orthogonality():
    """Negative control of the rule: a torch RNN's W_hh (the matrix parametrizations.orthogonal constrains and
    the vanilla claims read) and a toolkit gated cell (NC-GRU, whose U_c a claim assumes orthogonal) keep it."""
    from rnnaudit import wrap
    from rnnaudit.cells import NCGRU
    from rnnaudit.monitoring.probes import matrix_record, orthogonality_concerned

    rnn = wrap(nn.RNN(2, 4))
    assert orthogonality_concerned(rnn) and "orthogonality_defect" in matrix_record(rnn.recurrent_matrices())
    assert not orthogonality_concerned(wrap(nn.GRU(2, 4)))
    nc = NCGRU(2, 4)
    assert orthogonality_concerned(nc)
    assert [k for k in matrix_record(nc.recurrent_matrices()) if k.startswith("orthogonality_defect")]


def test_lstm_readout_sees_the_top_layers_h(tmp_path):
    torch.manual_seed(0)
    lstm, head = nn.LSTM(2, 5, num_layers=2, batch_first=True), nn.Linear(5, 3)
    x, y = _data()
    with Monitor(lstm, tmp_path, every=1, inputs=x[:2], targets=y[:2], loss_fn=nn.functional.cross_entropy,
                 readout=head) as mon:
        record = mon.record(0)
    assert record["grad_h0"] > 0 and "spectral_radius/l1.W_hf" in record


def test_close_labels_the_final_parameters(tmp_path):
    """record() before optimizer.step(): the parameters at close are those the next step would see
    (last + 1); record() after it: those of the last step."""
    _loop(*_gru(), tmp_path / "before", steps=12)
    assert read_trajectory(tmp_path / "before")["step"].tolist() == [0, 5, 10, 12]
    _loop(*_gru(), tmp_path / "after", steps=11, record_after_step=True)
    assert read_trajectory(tmp_path / "after")["step"].tolist() == [0, 5, 10]
    assert checkpoint_steps(tmp_path / "after") == [0, 10]


def test_checkpoints_rebuild_the_users_model(tmp_path):
    rnn, head = _gru()
    _loop(rnn, head, tmp_path, steps=6, checkpoint_every=5)
    ckpt = load_monitored_checkpoint(tmp_path)
    module, readout = rebuild_model(ckpt)
    assert isinstance(module, nn.GRU) and module.weight_hh_l0.dtype == torch.float32
    assert torch.equal(module.weight_hh_l0, rnn.weight_hh_l0) and torch.equal(readout, head.weight)
    assert torch.load(tmp_path / "inputs.pt", weights_only=True).shape == (4, 12, 2)


@pytest.mark.slow
def test_parametrized_rnn_is_rebuilt_from_its_weights_as_used(tmp_path):
    torch.manual_seed(0)
    rnn = nn.RNN(1, 6, batch_first=True)
    nn.utils.parametrizations.orthogonal(rnn, "weight_hh_l0")
    with Monitor(rnn, tmp_path, every=1, inputs=torch.rand(2, 8, 1)) as mon:
        mon.record(0)
    module, _ = rebuild_model(load_monitored_checkpoint(tmp_path))
    assert type(module) is nn.RNN and torch.equal(module.weight_hh_l0, rnn.weight_hh_l0.detach())
    assert cli_status(["audit", str(tmp_path), "--out", str(tmp_path.parent / "audit-p")]) == 0


@pytest.mark.slow
def test_a_custom_module_with_factory_and_wrap_kwargs(tmp_path, monkeypatch, capsys):
    from tests.app.monitor_models import exp_rnn

    monkeypatch.chdir(ROOT)
    model = exp_rnn()
    x = torch.randn(3, 10, 2)
    kwargs = dict(every=1, inputs=x, wrap_kwargs={"recurrent": {"W": "rec.weight"}})
    with Monitor(model, tmp_path / "f", factory="tests.app.monitor_models:exp_rnn", **kwargs) as mon:
        model(x).sum().backward()
        record = mon.record(0)
    assert record["orthogonality_defect"] < 1e-5 and "spectral_radius/W" in record
    assert {"grad/inp.weight/max", "grad/rec.parametrizations.weight.original/max"} <= set(record)
    # the factory the run records is only named: the user passes it to have it imported
    assert cli_status(["audit", str(tmp_path / "f"), "--out", str(tmp_path / "audit")]) == 2
    assert "tests.app.monitor_models:exp_rnn" in capsys.readouterr().err
    assert cli_status(["audit", str(tmp_path / "f"), "--model", "tests.app.monitor_models:exp_rnn",
                       "--out", str(tmp_path / "audit")]) == 0
    with Monitor(model, tmp_path / "nofactory", **kwargs) as mon:
        mon.record(0)
    assert cli_status(["audit", str(tmp_path / "nofactory"), "--out", str(tmp_path / "audit2")]) == 2
    assert "factory" in capsys.readouterr().err


def test_one_of_our_cells_in_a_plain_loop_is_audited_per_record(tmp_path):
    """A FastRNN trained by the user's own loop: sgornn.theorem2's "U orthogonal" is judged on the
    recorded orthogonality defect at every record, like a trainer run (tests/app/test_auditing.py)."""
    from rnnaudit.auditing import audit_run
    from rnnaudit.cells import FastRNN

    torch.manual_seed(0)
    cell, head = FastRNN(2, 8), nn.Linear(8, 1)
    gen = torch.Generator().manual_seed(0)
    x = torch.rand(8, 10, 2, generator=gen)
    opt = torch.optim.Adam([*cell.parameters(), *head.parameters()], lr=1e-2)
    with Monitor(cell, tmp_path, every=2, inputs=x[:2], checkpoint_every=8, readout=head) as mon:
        for step in range(1, 9):
            loss = head(cell(x)[:, -1]).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            mon.record(step, loss)
            opt.step()
    t = read_trajectory(tmp_path)
    assert "alpha" in t and "beta" in t and "orthogonality_defect" in t
    run = audit_run(tmp_path)
    assert run["first_failure"]["sgornn.theorem2: U = φ(Θ) orthogonal"] == 2
    assert [c["step"] for c in run["checkpoints"]] == [2, 8, 9]


def test_bad_arguments_are_named(tmp_path):
    rnn, head = _gru()
    x, _ = _data()
    cases = [
        (dict(model="rnn"), TypeError, "model"),
        (dict(every=0), ValueError, "every"),
        (dict(every=2.5), TypeError, "every"),
        (dict(summary_every=15, every=10), ValueError, "summary_every"),
        (dict(checkpoint_every=-10), ValueError, "checkpoint_every"),
        (dict(inputs=x[..., :1]), ValueError, "inputs"),
        (dict(inputs=[1, 2]), TypeError, "inputs"),
        (dict(inputs=torch.full((2, 3, 2), math.nan)), ValueError, "NaN"),
        (dict(loss_fn=nn.functional.cross_entropy), ValueError, "loss_fn needs inputs"),
        (dict(inputs=x[:2], targets=torch.zeros(5), loss_fn=nn.functional.mse_loss), ValueError, "targets"),
        (dict(inputs=x[:2], loss_fn=lambda out: out), ValueError, "loss_fn"),
        (dict(readout="head"), TypeError, "readout"),
        (dict(factory="nomodule"), ValueError, "MODULE:FACTORY"),
        (dict(factory="tests.app.monitor_models:exp_rnn"), ValueError, "does not fit"),
        (dict(tensorboard="yes"), TypeError, "tensorboard"),
        (dict(run_dir=3), TypeError, "run_dir"),
    ]
    for kwargs, error, match in cases:
        model = kwargs.pop("model", rnn)
        run_dir = kwargs.pop("run_dir", tmp_path / "bad")
        with pytest.raises(error, match=match):
            Monitor(model, run_dir, **kwargs)
    assert not (tmp_path / "bad" / "run.json").exists()  # nothing written for a refused monitor
    with Monitor(rnn, tmp_path / "ok", every=2) as mon:
        with pytest.raises(TypeError, match="step"):
            mon.record(1.0)
        mon.record(2, 1.0)
        with pytest.raises(ValueError, match="greater than the last step 2"):
            mon.record(2, 1.0)
        with pytest.raises(TypeError, match="loss"):
            mon.record(3, "high")
        with pytest.raises(ValueError, match="'diverged'"):
            mon.record(4, 1.0, diverged=2.0)
        with pytest.raises(ValueError, match="spectral_norm/W_hz"):
            mon.record(6, 1.0, **{"spectral_norm/W_hz": 2.0})
        with pytest.raises(TypeError, match="acc"):
            mon.record(8, 1.0, acc="good")
        assert mon.record(9, 1.0, acc="good") is None  # not a recorded step: returns at once
        assert mon.record(10, 1.0, val_accuracy=torch.tensor(0.5))["val_accuracy"] == 0.5
    with pytest.raises(RuntimeError, match="closed"):
        mon.record(12, 1.0)


def test_a_second_monitor_into_the_same_directory_is_refused(tmp_path):
    rnn, _ = _gru()
    with Monitor(rnn, tmp_path / "run", every=1) as mon:
        with pytest.raises(LockedError, match="another rnnaudit process"):
            Monitor(rnn, tmp_path / "run")
        rnn(torch.randn(2, 3, 2))[0].sum().backward()
        mon.record(0, 1.0)  # a run that holds a record is never started again silently
    with pytest.raises(ValueError, match="already holds a run"):
        Monitor(rnn, tmp_path / "run")
    Monitor(rnn, tmp_path / "run", overwrite=True).close()
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "trajectory.jsonl").write_text("")
    with pytest.raises(ValueError, match="no run.json"):
        Monitor(rnn, tmp_path / "mine", overwrite=True)


def test_diverging_loss_is_recorded_as_diverged(tmp_path):
    rnn, _ = _gru()
    with Monitor(rnn, tmp_path, every=1) as mon:
        rnn(torch.randn(2, 3, 2))[0].sum().backward()
        with pytest.warns(RuntimeWarning, match=r"^step 0: loss not finite \(NaN/Inf\); recorded as diverged"):
            record = mon.record(0, float("nan"))
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # one warning per monitor, not one per record
            mon.record(1, float("inf"))
    assert record["diverged"] is True and math.isnan(record["loss"]) and "spectral_radius/W_hz" in record
    assert read_trajectory(tmp_path)["diverged"].tolist() == [1.0, 1.0]


def test_nan_parameters_are_named_in_the_warning(tmp_path):
    rnn, _ = _gru()
    with Monitor(rnn, tmp_path, every=1) as mon:
        with torch.no_grad():
            rnn.weight_hh_l0[0, 0] = math.nan
        with pytest.warns(RuntimeWarning, match="the parameters not finite"):
            record = mon.record(0, 1.0)
    assert record["diverged"] is True and "spectral_radius/W_hz" not in record


def test_a_run_dir_that_is_a_file_or_cannot_be_made_is_named(tmp_path):
    rnn, _ = _gru()
    (tmp_path / "file").write_text("mine")
    with pytest.raises(ValueError, match="^run_dir must be a directory .* is a file$"):
        Monitor(rnn, tmp_path / "file")
    with pytest.raises(ValueError, match="^run_dir .*file is not a directory"):
        Monitor(rnn, tmp_path / "file" / "run")
    assert (tmp_path / "file").read_text() == "mine"


def test_a_module_without_recurrent_weights_is_refused_naming_model(tmp_path):
    with pytest.raises(ValueError, match="^model: wrap\\(\\) supports .* got Linear$"):
        Monitor(nn.Linear(2, 3), tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_an_exception_in_the_loop_keeps_the_records_and_releases_the_directory(tmp_path):
    rnn, _ = _gru()
    with pytest.raises(KeyboardInterrupt):
        with Monitor(rnn, tmp_path, every=1) as mon:
            for step in range(3):
                mon.record(step, 1.0)
            raise KeyboardInterrupt
    assert read_trajectory(tmp_path)["step"].tolist() == [0, 1, 2]
    assert checkpoint_steps(tmp_path) == [0]  # nothing written for the interrupted step
    Monitor(rnn, tmp_path, overwrite=True).close()  # the lock is free


@pytest.mark.slow
def test_ctrl_c_in_a_real_process_keeps_the_records(tmp_path):
    script = textwrap.dedent(f"""
        import torch, rnnaudit
        from torch import nn
        rnn = nn.GRU(2, 4, batch_first=True)
        with rnnaudit.Monitor(rnn, {str(tmp_path / 'run')!r}, every=1) as mon:
            step = 0
            while True:
                rnn.zero_grad()
                loss = rnn(torch.randn(2, 5, 2))[0].pow(2).mean()
                loss.backward()
                mon.record(step, loss)
                step += 1
    """)
    # SIGINT restored to its default in the child: a suite started in the background (``&``) has it ignored, and
    # an ignored signal stays ignored across exec
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    trajectory = tmp_path / "run" / "trajectory.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline and (not trajectory.exists() or trajectory.read_text().count("\n") < 3):
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
    steps = read_trajectory(tmp_path / "run")["step"].tolist()
    assert len(steps) >= 3 and steps == list(range(len(steps)))
    Monitor(nn.GRU(2, 4), tmp_path / "run", overwrite=True).close()  # the killed writer left no lock


class _FakeTrainer:
    """The attributes of a Lightning Trainer the callback reads."""

    def __init__(self):
        self.global_step, self.is_global_zero = 0, True


class _FakeModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn, self.head = _gru()


def test_lightning_callback_records_through_the_documented_hooks(tmp_path):
    """The hooks called in Lightning's order for three optimizer steps (two optimizers on the second):
    the callback records each global step once, with the loss given to on_before_backward."""
    trainer, module = _FakeTrainer(), _FakeModule()
    x, y = _data()
    callback = MonitorCallback(tmp_path, module="rnn", readout="head", every=1, inputs=x[:2], targets=y[:2],
                               loss_fn=nn.functional.cross_entropy)
    callback.on_fit_start(trainer, module)
    opt = torch.optim.SGD(module.parameters(), lr=0.1)
    for step in range(3):
        loss = nn.functional.cross_entropy(module.head(module.rnn(x)[0][:, -1]), y)
        callback.on_before_backward(trainer, module, loss)
        opt.zero_grad()
        loss.backward()
        callback.on_before_optimizer_step(trainer, module, opt)
        if step == 1:
            callback.on_before_optimizer_step(trainer, module, opt)  # a second optimizer, same step
        opt.step()
        trainer.global_step += 1
    callback.on_fit_end(trainer, module)
    t = read_trajectory(tmp_path)
    assert t["step"].tolist() == [0, 1, 2, 3] and "grad_h0" in t
    assert t["loss"][2] == pytest.approx(loss.item())
    with pytest.raises(TypeError, match="module"):
        MonitorCallback(tmp_path, module=module.rnn)
    broken = MonitorCallback(tmp_path / "b", module="gru")
    with pytest.raises(ValueError, match="no attribute 'gru'"):
        broken.on_fit_start(trainer, module)


def test_lightning_callback_not_on_rank_zero_does_nothing(tmp_path):
    trainer, module = _FakeTrainer(), _FakeModule()
    trainer.is_global_zero = False
    callback = MonitorCallback(tmp_path / "run")
    callback.on_fit_start(trainer, module)
    callback.on_before_optimizer_step(trainer, module, None)
    callback.on_fit_end(trainer, module)
    assert not (tmp_path / "run").exists()


def test_lightning_import_is_optional():
    import rnnaudit.lightning as lightning_module

    try:
        import lightning  # noqa: F401
        installed = True
    except ImportError:
        try:
            import pytorch_lightning  # noqa: F401
            installed = True
        except ImportError:
            installed = False
    assert lightning_module.LIGHTNING_AVAILABLE == installed


def test_orthogonality_defect_from_singular_values_matches_the_definition():
    """‖WᵀW − I‖₂ = max_i |σ_i² − 1| (WᵀW = VΣ²Vᵀ): the record's value agrees with
    rnnaudit.cells.orthogonality_defect to float64 rounding, for contractive, expansive and mixed W."""
    from rnnaudit.cells import orthogonality_defect
    from rnnaudit.monitoring.probes import matrix_record

    gen = torch.Generator().manual_seed(0)
    for scale in (0.3, 1.0, 3.0):
        W = scale * torch.randn(12, 12, generator=gen, dtype=torch.float64) / 12 ** 0.5
        record = matrix_record({"W": W})
        assert record["orthogonality_defect"] == pytest.approx(float(orthogonality_defect(W)), rel=1e-12, abs=1e-14)
        assert record["spectral_norm"] == pytest.approx(float(torch.linalg.matrix_norm(W, 2)), rel=1e-12)


@pytest.mark.parametrize("build, per_step, readout", [
    (lambda: nn.RNN(3, 5, batch_first=True), False, nn.Linear(5, 4)),
    (lambda: nn.GRU(3, 5, num_layers=2), True, nn.Linear(5, 4)),
    (lambda: nn.LSTM(3, 6, num_layers=2, proj_size=4, batch_first=True), False, nn.Linear(4, 4)),
    (lambda: nn.LSTM(3, 5), False, None),
])
def test_fused_initial_state_gradient_is_the_wrapped_cells(build, per_step, readout):
    """‖∂L/∂h_0‖ through torch's fused kernel equals the wrapped cell's (packed state: every layer's h and
    an LSTM's c) to float64 rounding of T = 12 steps (rel 1e-12), for batch_first either way, projections,
    several layers, a per-step loss and none with no readout."""
    from rnnaudit import wrap
    from rnnaudit.monitoring.probes import initial_state_gradient, initial_state_gradient_fused

    torch.manual_seed(0)
    module = build().double()
    head = None if readout is None else readout.double()
    x = torch.randn(2, 12, 3, dtype=torch.float64)
    if readout is None:
        def loss_fn(out):
            return out.square().sum()
        targets = None
    else:
        targets = torch.randint(4, (2, 12) if per_step else (2,))

        def loss_fn(out, t):
            return nn.functional.cross_entropy(out.reshape(-1, 4), t.reshape(-1))
    kwargs = dict(targets=targets, readout=head, per_step=per_step)
    slow = initial_state_gradient(wrap(module), x, loss_fn, **kwargs)
    fast = initial_state_gradient_fused(module, x, loss_fn, **kwargs)
    assert slow > 0 and fast == pytest.approx(slow, rel=1e-12)
    with pytest.raises(ValueError, match="^module: a bidirectional"):
        initial_state_gradient_fused(nn.GRU(3, 5, bidirectional=True).double(), x, loss_fn, **kwargs)


def test_a_vanishing_initial_state_gradient_is_measured_not_zero():
    """tanh RNN with W_hh = 0.1·Q (Q orthogonal), no biases, x = 0: every state is 0, so ∂h_T/∂h_0 = (0.1·Q)^T
    and L = c·h_T has ‖∂L/∂h_0‖ = 0.1^T‖c‖ = 5e-200 at T = 200, whose square underflows (a plain vector_norm
    gives 0). Both the fused and the wrapped-cell route must return it."""
    from rnnaudit import wrap
    from rnnaudit.monitoring.probes import initial_state_gradient, initial_state_gradient_fused

    module = nn.RNN(2, 8, bias=False, batch_first=True).double()
    with torch.no_grad():
        Q = torch.linalg.qr(torch.randn(8, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(1)))[0]
        module.weight_hh_l0.copy_(0.1 * Q)
    c = torch.zeros(1, 8, dtype=torch.float64)
    c[0, :2] = torch.tensor([3.0, 4.0])

    def loss_fn(out):
        return (out * c).sum()

    x = torch.zeros(1, 200, 2, dtype=torch.float64)
    for value in (initial_state_gradient_fused(module, x, loss_fn), initial_state_gradient(wrap(module), x, loss_fn)):
        assert value == pytest.approx(5e-200, rel=1e-12, abs=0)


def test_a_bidirectional_model_or_one_direction_of_it_is_refused_pointing_to_the_audit(tmp_path):
    with pytest.raises(ValueError, match="bidirectional GRU is two recurrences, which Monitor does not follow yet; "
                                         r"audit it with rnnaudit.audit\(model, x\)"):
        Monitor(nn.GRU(2, 3, bidirectional=True), tmp_path / "a")
    with pytest.raises(ValueError, match=r"wrap_kwargs: \['direction'\] pick one recurrence"):
        Monitor(nn.GRU(2, 3), tmp_path / "b", wrap_kwargs={"direction": "forward"})
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_a_run_dir_with_missing_parents_is_made_only_under_the_current_directory(tmp_path, monkeypatch):
    """Monitor(model, "/elsewhere/a/b") created every missing parent; the command line's --out rule applies now:
    missing directories only under the current directory, elsewhere the parent must exist."""
    rnn, _ = _gru()
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    work.mkdir()
    elsewhere.mkdir()
    monkeypatch.chdir(work)
    with pytest.raises(ValueError, match=r"^run_dir .*elsewhere/a/b.*"):
        Monitor(rnn, elsewhere / "a" / "b", tensorboard=False)
    assert not (elsewhere / "a").exists()
    Monitor(rnn, "runs/a/b", tensorboard=False).close()  # under the current directory: made
    Monitor(rnn, elsewhere / "c", tensorboard=False).close()  # an existing parent elsewhere: made
    assert (work / "runs" / "a" / "b" / "run.json").is_file() and (elsewhere / "c" / "run.json").is_file()
