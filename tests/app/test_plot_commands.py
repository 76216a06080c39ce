"""The one-figure commands on real runs: ``compare`` draws each run's task baseline from its run.json."""

import pytest

from rnnaudit.cli.plots import _baselines
from rnnaudit.tasks.synthetic import task_baseline
from rnnaudit.training import TrainConfig, train
from tests.conftest import cli_status

SMALL = dict(T=6, hidden_size=4, batch=4, steps=4, lr=1e-2, record_every=2, checkpoint_every=4, val_batches=1)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    for cell in ("fastrnn", "sgornn"):
        train(TrainConfig(cell=cell, **SMALL), root / cell, progress=False)
    return [root / "fastrnn", root / "sgornn"]


def test_compare_gets_the_task_baseline_of_every_run(runs):
    assert _baselines(runs) == {str(p): pytest.approx(task_baseline("adding", 6)) for p in runs}


def test_compare_writes_a_figure(runs, tmp_path):
    out = tmp_path / "cmp.png"
    assert cli_status(["compare", *map(str, runs), "--key", "val_loss", "--out", str(out)]) == 0
    assert out.stat().st_size > 0


def test_a_run_without_its_run_json_is_drawn_without_a_baseline(runs, tmp_path):
    import shutil

    bare = tmp_path / "bare"
    shutil.copytree(runs[0], bare)
    (bare / "run.json").unlink()
    assert _baselines([bare, runs[1]]) == {str(runs[1]): pytest.approx(task_baseline("adding", 6))}
