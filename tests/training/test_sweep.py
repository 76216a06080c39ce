"""Run-spec sweeps: grid expansion, sequential runs, skipping finished runs."""

import json

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
