"""Trainer, run directory format, resume, and the audit of trained models."""

import json

import numpy as np
import pytest
import torch

import rnnaudit.training as training
from rnnaudit.training import TrainConfig, load_checkpoint, read_trajectory, train
from rnnaudit import cli
from tests.conftest import cli_status

SMALL = dict(T=10, hidden_size=8, batch=8, steps=30, lr=1e-2, record_every=5, checkpoint_every=10, val_batches=2)


def test_resume_reproduces_the_uninterrupted_trajectory(tmp_path, monkeypatch):
    config = TrainConfig(cell="sgornn", **SMALL)
    train(config, tmp_path / "straight", progress=False)
    expected = read_trajectory(tmp_path / "straight")

    spec = training.TASK_SPECS["adding"]
    calls = {"n": 0}

    def dying_generate(b, T, g):
        calls["n"] += 1
        if calls["n"] == 2 + 18:  # 2 validation batches, then die while drawing step 18's batch
            raise KeyboardInterrupt
        return spec.generate(b, T, g)

    monkeypatch.setitem(training.TASK_SPECS, "adding", training.TaskSpec(
        spec.input_size, spec.output_size, dying_generate, spec.loss, spec.baseline))
    with pytest.raises(KeyboardInterrupt):
        train(config, tmp_path / "killed", progress=False)
    assert read_trajectory(tmp_path / "killed")["step"].tolist() == [5, 10, 15]
    monkeypatch.setitem(training.TASK_SPECS, "adding", spec)
    train(config, tmp_path / "killed", resume=True, progress=False)
    resumed = read_trajectory(tmp_path / "killed")
    assert resumed.keys() == expected.keys()
    for key in expected:  # bit-for-bit: same seed, CPU, deterministic algorithms
        np.testing.assert_array_equal(resumed[key], expected[key], err_msg=key)


def test_trajectory_survives_a_cut_last_line(tmp_path):
    train(TrainConfig(cell="fastrnn", **SMALL), tmp_path, progress=False)
    with open(tmp_path / "trajectory.jsonl", "a") as fh:
        fh.write('{"step": 35, "loss": 0.1')  # a kill in the middle of a write
    trajectory = read_trajectory(tmp_path)
    assert trajectory["step"].tolist() == [5, 10, 15, 20, 25, 30]
    for key in ("loss", "val_loss", "grad_h0", "grad/U/max", "alpha", "beta", "spectral_radius"):
        assert np.isfinite(trajectory[key]).all(), key


def test_checkpoint_is_weights_only_and_complete(tmp_path):
    train(TrainConfig(cell="sgornn", **SMALL), tmp_path, progress=False)
    ckpt = load_checkpoint(tmp_path)
    assert ckpt["step"] == 30 and ckpt["config"].cell == "sgornn"
    raw = torch.load(tmp_path / "checkpoints" / "step_00000030.pt", weights_only=True)
    assert {"model", "optimizer", "scheduler", "data_rng", "torch_rng"} <= raw.keys()
    with pytest.raises(ValueError, match="not an rnnaudit checkpoint"):
        torch.save({"x": torch.zeros(1)}, tmp_path / "other.pt")
        load_checkpoint(tmp_path / "other.pt")


def test_nc_gru_run_records_the_neumann_condition(tmp_path):
    train(TrainConfig(cell="nc_gru", neumann_order=2, neumann_reset=5, **SMALL), tmp_path, progress=False)
    values = read_trajectory(tmp_path)["neumann_condition"]
    assert np.isfinite(values).all() and (values < 1).all()


@pytest.mark.parametrize("field,value,needle", [("T", 0, "T must"), ("lr", -1.0, "lr must"),
                                                ("optimizer", "lbfgs", "optimizer"), ("task", "nosuch", "task")])
def test_bad_config_is_a_clear_error(field, value, needle, tmp_path):
    with pytest.raises(ValueError, match=needle):
        train(TrainConfig(**{**SMALL, field: value}), tmp_path, progress=False)


@pytest.mark.slow
def test_heatmap_of_a_run_at_a_chosen_step(tmp_path, capsys):
    train(TrainConfig(cell="sgornn", **SMALL), tmp_path / "run", progress=False)
    out = tmp_path / "h.png"
    assert cli.main(["heatmap", str(tmp_path / "run"), "--step", "20", "--T", "6", "--out", str(out)]) == 0
    assert out.stat().st_size > 1000
    status = cli_status(["heatmap", str(tmp_path / "run"), "--step", "7", "--out", str(out)])
    assert status == 2 and "[10, 20, 30]" in capsys.readouterr().err


# ---- token tasks (copy, denoise, parenthesis): per-step readout, their losses and baselines ----

TOKEN = dict(T=5, hidden_size=8, batch=8, steps=6, lr=1e-2, record_every=3, checkpoint_every=3, val_batches=2)


def test_copy_resume_reproduces_the_uninterrupted_trajectory(tmp_path, monkeypatch):
    """Bit-exact resume on a sequence-to-sequence task, with NC-GRU's Neumann state and two
    parameter groups (nc_gru.md Sec. 4.4's slower A) in the checkpoint."""
    config = TrainConfig(cell="nc_gru", task="copy", optimizer="adam", param_lr={"cell.cayley.*.A": 1e-3},
                         neumann_reset=4, **{**TOKEN, "steps": 12})
    train(config, tmp_path / "straight", progress=False)
    expected = read_trajectory(tmp_path / "straight")

    spec = training.TASK_SPECS["copy"]
    calls = {"n": 0}

    def dying_generate(b, T, g, **kw):
        calls["n"] += 1
        if calls["n"] == 2 + 8:  # 2 validation batches, then die while drawing step 8's batch
            raise KeyboardInterrupt
        return spec.generate(b, T, g, **kw)

    monkeypatch.setitem(training.TASK_SPECS, "copy", training.TaskSpec(
        spec.input_size, spec.output_size, dying_generate, spec.loss, spec.baseline, spec.per_step, spec.kwargs,
        spec.sizes))
    with pytest.raises(KeyboardInterrupt):
        train(config, tmp_path / "killed", progress=False)
    assert read_trajectory(tmp_path / "killed")["step"].tolist() == [3, 6]
    monkeypatch.setitem(training.TASK_SPECS, "copy", spec)
    train(config, tmp_path / "killed", resume=True, progress=False)
    resumed = read_trajectory(tmp_path / "killed")
    assert resumed.keys() == expected.keys() and "neumann_condition" in expected
    for key in expected:  # bit-for-bit: same seed, CPU, deterministic algorithms
        np.testing.assert_array_equal(resumed[key], expected[key], err_msg=key)


@pytest.mark.parametrize("task,length,classes", [("copy", 5 + 20, 9), ("denoise", 5 + 20, 10),
                                                 ("parenthesis", 5, 18)])
def test_token_tasks_train_per_step_against_their_own_baseline(task, length, classes, tmp_path):
    from rnnaudit.tasks.synthetic import task_baseline

    config = TrainConfig(cell="gru", task=task, jacobian_steps=[3], **TOKEN)
    summary = train(config, tmp_path, progress=False)
    baseline = task_baseline(task, 5, **({"loss": "mse"} if task == "parenthesis" else {}))
    assert summary["baseline"] == baseline
    assert np.isfinite(summary["final_loss"]) and np.isfinite(summary["final_val_loss"])
    assert summary["beat_baseline"] == (summary["final_val_loss"] < baseline)
    trajectory = read_trajectory(tmp_path)
    for key in ("loss", "val_loss", "grad_h0", "grad/U_c/max", "spectral_norm"):
        assert np.isfinite(trajectory[key]).all(), key
    model = training.build_model(config)
    x, _ = training.TASK_SPECS[task].generate(3, 5, torch.Generator().manual_seed(0))
    assert model(x).shape == (3, length, classes)  # one prediction per time step
    # ‖∂h_t/∂h_s‖₂ for s, t = 0..L over the whole one-hot sequence
    assert torch.load(tmp_path / "jacobian" / "step_00000003.pt").shape == (length + 1, length + 1)


def test_copy_loss_of_the_memoryless_predictor_is_the_baseline():
    """The trainer's cross-entropy averages over all T + 20 steps, the convention of the baseline
    10 ln 8/(T + 20) (srnn.md Sec. 4; nc_gru.md Sec. 4.4): a predictor certain of "blank" for the
    first T + 10 steps and uniform over the 8 symbols for the last 10 attains it exactly."""
    from rnnaudit.tasks.synthetic import task_baseline

    T = 7
    x, y = training.TASK_SPECS["copy"].generate(16, T, torch.Generator().manual_seed(0))
    logits = torch.full((16, T + 20, 9), -1e9, dtype=torch.float64)  # exp(-1e9) = 0 in float64
    logits[:, : T + 10, 0] = 0
    logits[:, T + 10:, 1:] = 0
    loss = training.TASK_SPECS["copy"].loss(logits, y)
    torch.testing.assert_close(loss.item(), task_baseline("copy", T), rtol=1e-12, atol=0)  # exact up to rounding


def test_parenthesis_loss_of_the_count_law_predictor_is_the_baseline():
    """Outputting π_t (the law of each count, rnnaudit.tasks.synthetic.parenthesis_count_distribution) has
    expected trainer loss equal to the MSE baseline, so the loss reduces over the same axes as
    the baseline formula (1/T) Σ_t (1 − ‖π_t‖²)/(max_count + 1)."""
    from rnnaudit.tasks.synthetic import parenthesis_count_distribution, task_baseline

    T, batch = 12, 4000
    _, y = training.TASK_SPECS["parenthesis"].generate(batch, T, torch.Generator().manual_seed(0))
    pi = parenthesis_count_distribution(T)  # (T, 6)
    pred = pi[None, :, None, :].expand(batch, T, 3, 6).flatten(-2)
    loss = training.TASK_SPECS["parenthesis"].loss(pred, y).item()
    # each of the T·3 count columns averages `batch` i.i.d. draws of a loss in [0, 2/6]; 3 % is
    # well over 5 standard errors here (the baseline is ≈ 0.09)
    assert loss == pytest.approx(task_baseline("parenthesis", T), rel=0.03)


def test_adding_variant_from_task_kwargs(tmp_path):
    """nc_gru.md Sec. 4.3 puts the markers in the first input dimension: the trainer's data must
    follow task_kwargs, and the run records it."""
    config = TrainConfig(cell="gru", task="adding", task_kwargs={"variant": "nc_gru"}, **TOKEN)
    train(config, tmp_path, progress=False)
    assert json.loads((tmp_path / "run.json").read_text())["task_kwargs"] == {"variant": "nc_gru"}
    assert load_checkpoint(tmp_path)["config"].task_kwargs == {"variant": "nc_gru"}


def test_checkpoint_without_the_new_fields_still_resumes(tmp_path):
    """Runs written before task_kwargs/optimizer_kwargs/param_lr existed load with their defaults (and,
    with a constant schedule, a resume may extend the run)."""
    config = TrainConfig(cell="gru", **{**SMALL, "steps": 10, "schedule": "constant"})
    train(config, tmp_path, progress=False)
    path = tmp_path / "checkpoints" / "step_00000010.pt"
    raw = torch.load(path, weights_only=True)
    for key in ("task_kwargs", "optimizer_kwargs", "param_lr"):
        del raw["config"][key]
    torch.save(raw, path)
    assert load_checkpoint(tmp_path)["config"].param_lr == {}
    config.steps = 15
    train(config, tmp_path, resume=True, progress=False)
    assert read_trajectory(tmp_path)["step"].tolist() == [5, 10, 15]


def test_optimizer_kwargs_and_param_groups_reach_torch(tmp_path):
    config = TrainConfig(cell="enrnn", optimizer="rmsprop", optimizer_kwargs={"alpha": 0.9},
                         param_lr={"cell.phi.*": 1e-5}, **{**SMALL, "steps": 5})
    train(config, tmp_path, progress=False)
    groups = load_checkpoint(tmp_path)["optimizer"]["param_groups"]
    # the schedule (linear decay to 0 here) scales each group from its own initial rate
    assert [(g["initial_lr"], g["alpha"], len(g["params"])) for g in groups] == [(1e-2, 0.9, 8), (1e-5, 0.9, 1)]


@pytest.mark.parametrize("changes,needle", [
    (dict(task_kwargs={"n_copy": 3}), r"task_kwargs \['n_copy'\] not accepted by task 'adding'"),
    (dict(task_kwargs={"variant": "nosuch"}), "variant must be one of"),
    (dict(task="copy", task_kwargs={"n_symbols": 0}), "rejected by task 'copy'"),
    (dict(optimizer_kwargs={"alpha": 0.9}, optimizer="adam"), "rejected by torch.optim.Adam"),
    (dict(optimizer_kwargs={"lr": 0.1}), "must not set lr"),
    (dict(param_lr={"cell.*": -1.0}), "param_lr must map"),
    (dict(param_lr={"cell.nosuch": 1e-3}), r"match no parameter; the model's are \['cell.W'"),
    (dict(cell_kwargs=[("k", 2)]), "cell_kwargs must be a dict"),
])
def test_bad_task_optimizer_and_group_arguments_are_clear_errors(changes, needle, tmp_path):
    with pytest.raises(ValueError, match=needle):
        train(TrainConfig(**{**SMALL, **changes}), tmp_path, progress=False)


def test_cli_rejects_unknown_task_and_preset(tmp_path, capsys):
    for argv, needle in ((["--task", "nosuch"], "argument --task: invalid choice"),
                         (["--preset", "nosuch"], "argument --preset: invalid choice")):
        status = cli_status(["train", *argv, "--out", str(tmp_path / "r")])
        assert status == 2 and needle in capsys.readouterr().err


def test_a_diverging_run_stops_records_and_checkpoints_the_parameters_before_it(tmp_path, monkeypatch):
    """Exploding gradients (sgornn.md Sec. 3.1: FastRNN at T = 1000) end the run cleanly: no NaN is
    written into the parameters, the last record says ``diverged`` with float64 probes, and the
    checkpoint holds exactly the parameters and data-stream state of an uninterrupted run after the
    steps taken (so ``rnnaudit audit`` and ``--resume`` see a consistent state)."""
    # constant rate: a linear decay would depend on the total number of steps, which differs here
    config = TrainConfig(cell="fastrnn", **{**SMALL, "steps": 6, "schedule": "constant"})
    straight = TrainConfig(cell="fastrnn", **{**SMALL, "steps": 3, "checkpoint_every": 3, "schedule": "constant"})
    train(straight, tmp_path / "straight", progress=False)

    spec = training.TASK_SPECS["adding"]
    calls = {"n": 0}

    def exploding_loss(pred, y):
        calls["n"] += 1
        loss = spec.loss(pred, y)
        return loss * float("inf") if calls["n"] == 4 else loss  # the 4th training step's loss overflows

    monkeypatch.setitem(training.TASK_SPECS, "adding", training.TaskSpec(
        spec.input_size, spec.output_size, spec.generate, exploding_loss, spec.baseline))
    summary = train(config, tmp_path / "diverged", progress=False)
    assert summary["diverged_at"] == 4 and summary["steps"] == 3 and not summary["beat_baseline"]
    last = read_trajectory(tmp_path / "diverged")
    assert last["step"].tolist() == [4] and bool(last["diverged"][0])
    assert np.isfinite(last["grad_h0"][0])  # float64 probes of the finite parameters
    got, want = load_checkpoint(tmp_path / "diverged"), load_checkpoint(tmp_path / "straight")
    assert got["step"] == want["step"] == 3
    for key, value in want["model"].items():
        assert torch.equal(got["model"][key], value), key
    assert torch.equal(got["data_rng"], want["data_rng"])


def test_train_cli_reports_divergence(tmp_path, monkeypatch, capsys):
    spec = training.TASK_SPECS["adding"]
    monkeypatch.setitem(training.TASK_SPECS, "adding", training.TaskSpec(
        spec.input_size, spec.output_size, spec.generate, lambda p, y: spec.loss(p, y) * float("nan"), spec.baseline))
    code = cli.main(["train", "--cell", "fastrnn", "--task", "adding", "--T", "5", "--steps", "3", "--hidden", "4",
                     "--batch", "4", "--val-batches", "1", "--out", str(tmp_path / "run")])
    assert code == 0
    assert "DIVERGED at step 1" in capsys.readouterr().out


def test_exploding_but_finite_float32_gradients_are_neither_divergence_nor_clipped_to_zero():
    """Entries of 3e38 (finite float32) overflow a float32 sum, and entries of 1e30 overflow torch's float32
    sum of squares in clip_grad_norm_, which then scales every gradient to 0. The trainer's finiteness test
    must pass them and its clipping must leave a total norm of max_norm."""
    from rnnaudit.training.trainer import _clip_gradients, _finite

    model = torch.nn.Linear(3, 2)
    for p in model.parameters():
        p.grad = torch.full_like(p, 3e38)
    assert _finite(torch.tensor(1.0), model)
    model.weight.grad[0, 0] = float("inf")
    assert not _finite(torch.tensor(1.0), model)
    for p in model.parameters():
        p.grad = torch.full_like(p, 1e30)
    _clip_gradients(model, 0.5)
    total = torch.linalg.vector_norm(torch.cat([p.grad.double().reshape(-1) for p in model.parameters()]))
    assert float(total) == pytest.approx(0.5, rel=1e-6)
    for p in model.parameters():  # an ordinary step: torch's own norm, the same clipping
        p.grad = torch.full_like(p, 2.0)
    _clip_gradients(model, 1.0)
    assert float(model.bias.grad[0]) == pytest.approx(2.0 / (2.0 * 8 ** 0.5), rel=1e-6)
