"""Paper presets of the trainer: each is a valid config that trains, through the CLI
with flags overriding it, and holds the numbers its paper states."""

import json

import numpy as np
import pytest

from rnnaudit.training import PRESETS, preset_config, read_trajectory
from rnnaudit.training.runs import read_run_config
from rnnaudit import cli
from tests.conftest import cli_status

#: Small enough for seconds per preset on 2 CPU cores; hidden_size keeps the preset's value,
#: because cell arguments (ENRNN's long_size, the negative ones of D) are sized for it.
TINY = ["--T", "4", "--steps", "2", "--batch", "4", "--val-batches", "1", "--checkpoint-every", "2"]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_trains_through_the_cli(name, tmp_path, capsys):
    out = tmp_path / "run"
    assert cli.main(["train", "--preset", name, *TINY, "--out", str(out)]) == 0
    assert "baseline" in capsys.readouterr().out
    stored = json.loads((out / "run.json").read_text())
    preset = PRESETS[name]
    for key, value in preset.items():  # the preset arrives whole, except what the flags override
        if key not in ("T", "steps", "batch", "val_batches", "checkpoint_every"):
            assert stored[key] == value, key
    assert stored["T"] == 4 and stored["steps"] == 2
    read_run_config(out).validate()  # run.json reloads as a valid config
    assert stored["provenance"]["command"] and stored["steps_history"] == [2]
    trajectory = read_trajectory(out)
    assert trajectory["step"].tolist() == [2]
    assert np.isfinite(trajectory["loss"]).all() and np.isfinite(trajectory["val_loss"]).all()


def test_every_preset_names_a_paper_and_its_task():
    papers = {"sgornn", "spectral_rnn", "srnn", "enrnn", "nc_gru"}
    for name, preset in PRESETS.items():
        paper, task_word = name.split("-")
        assert paper in papers and preset["cell"] == paper, name
        assert {"addition": "adding", "adding": "adding"}.get(task_word, task_word) == preset["task"], name


def test_sgornn_sec_3_1_addition_settings():
    config = preset_config("sgornn-addition")
    assert (config.hidden_size, config.batch, config.steps, config.lr) == (128, 64, 20000, 1e-2)
    assert (config.optimizer, config.schedule, config.record_every, config.val_batches) == \
        ("rmsprop", "linear", 100, 10)


def test_srnn_sec_4_settings():
    """RMSProp, lr 0.001, decay rate 0.9; d_h = 128; minibatch 20 (MemCopy), 50 (Adding); f_r
    with one hidden layer of 8."""
    for name, batch in (("srnn-copy", 20), ("srnn-adding", 50)):
        config = preset_config(name)
        assert (config.optimizer, config.lr, config.optimizer_kwargs) == ("rmsprop", 1e-3, {"alpha": 0.9})
        assert (config.hidden_size, config.batch, config.cell_kwargs) == (128, batch, {"fr_hidden": [8]})


def test_enrnn_sec_5_settings():
    """Sec. 5.1 / Table 1: T = 750, h^(L) = 96 + h^(S) = 64, 29 negative ones, RMSProp 1e-4;
    Sec. 5.2: T = 2000 (Fig. 2), 172 + 20, 52 negative ones, 1e-5 for W^(L) and 1e-3 otherwise,
    4,000 iterations of batch 20."""
    adding = preset_config("enrnn-adding")
    assert (adding.T, adding.hidden_size, adding.lr, adding.task_kwargs) == (750, 160, 1e-4, {"variant": "enrnn"})
    assert adding.cell_kwargs == {"long_size": 96, "num_negative": 29}
    copy = preset_config("enrnn-copy")
    assert (copy.T, copy.hidden_size, copy.steps, copy.batch, copy.lr) == (2000, 192, 4000, 20, 1e-3)
    assert copy.cell_kwargs == {"long_size": 172, "num_negative": 52} and copy.param_lr == {"cell.phi.*": 1e-5}


def test_nc_gru_sec_4_settings():
    """Sec. 4.1–4.4: hidden sizes 56, 118, 80, 96; negative ones 40, 50, 43, 80; batch 16, 128,
    50, 50; Adam 1e-3 (1e-4 for A in the copying problem); Neumann reset 50, 50, 50, 20."""
    expected = {"nc_gru-parenthesis": (56, 40, 16, 50), "nc_gru-denoise": (118, 50, 128, 50),
                "nc_gru-adding": (80, 43, 50, 50), "nc_gru-copy": (96, 80, 50, 20)}
    for name, (h, negative, batch, reset) in expected.items():
        config = preset_config(name)
        assert (config.hidden_size, config.cell_kwargs["num_negative"], config.batch, config.neumann_reset) == \
            (h, negative, batch, reset), name
        assert (config.optimizer, config.lr, config.neumann_order) == ("adam", 1e-3, 2), name
    assert preset_config("nc_gru-copy").param_lr == {"cell.cayley.*.A": 1e-4}
    assert preset_config("nc_gru-adding").task_kwargs == {"variant": "nc_gru"}
    assert preset_config("nc_gru-adding").steps == 10 * 100_000 // 50  # 10 epochs of 100,000 at batch 50


def test_overriding_the_cell_task_or_optimizer_drops_what_belonged_to_it():
    config = preset_config("nc_gru-copy", cell="gru")
    assert config.cell == "gru" and config.cell_kwargs == {} and config.param_lr == {} and config.batch == 50
    config = preset_config("srnn-copy", optimizer="adam")
    assert config.optimizer_kwargs == {} and config.cell_kwargs == {"fr_hidden": [8]}
    config = preset_config("enrnn-adding", task="copy")
    assert config.task_kwargs == {} and config.cell_kwargs["long_size"] == 96
    config = preset_config("nc_gru-copy", cell="nc_gru", hidden_size=8, cell_kwargs={"num_negative": 2})
    assert config.param_lr == {"cell.cayley.*.A": 1e-4}  # same cell: its parameter groups stay
    config.validate()
    preset_config("srnn-copy").cell_kwargs["fr_hidden"].append(99)  # a caller's edit ...
    assert PRESETS["srnn-copy"]["cell_kwargs"] == {"fr_hidden": [8]}  # ... leaves the preset alone


def test_bad_preset_input_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(ValueError, match="preset must be one of"):
        preset_config("nosuch")
    with pytest.raises(ValueError, match=r"unknown TrainConfig field\(s\) \['hidden'\]"):
        preset_config("srnn-copy", hidden=8)
    # a width the preset's cell arguments do not fit: ENRNN's long block of 96 in h = 8
    status = cli_status(["train", "--preset", "enrnn-adding", "--hidden", "8", *TINY, "--out", str(tmp_path / "r")])
    assert status == 2 and "long_size = 96 does not fit in hidden_size = 8" in capsys.readouterr().err


def test_spectral_rnn_sec_7_uses_leaky_relu():
    """Sec. 7: "In most cases leaky_ReLU is used as activation function except for LSTM"; Adam.
    The slope is not stated (cells.base.LEAKY_RELU_SLOPE, PyTorch's 0.01). Both presets build a
    Spectral-RNN with that activation; a different --cell drops it with the other cell arguments."""
    from rnnaudit.training import build_model
    from rnnaudit.cells.base import LEAKY_RELU_SLOPE

    assert LEAKY_RELU_SLOPE == 0.01
    for name in ("spectral_rnn-addition", "spectral_rnn-copy"):
        config = preset_config(name, hidden_size=8)
        assert config.cell_kwargs == {"activation": "leaky_relu"} and config.optimizer == "adam", name
        config.validate()
        assert build_model(config).cell.activation == "leaky_relu", name
        assert preset_config(name, cell="sgornn").cell_kwargs == {}
