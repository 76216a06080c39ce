"""The one-figure commands on real runs: ``compare`` draws each run's task baseline from its run.json."""

from pathlib import Path

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


@pytest.mark.parametrize("flags, expected", [([], None), (["--certified"], 1e-10), (["--rtol", "1e-6"], 1e-6)])
def test_heatmap_passes_its_tolerance_to_the_figure(tmp_path, monkeypatch, flags, expected):
    """No flag leaves the figure's heatmap-grade default (rtol=None there); --certified is the claims'
    CERTIFIED_RTOL; --rtol is passed as given."""
    import rnnaudit.figures.heatmap as heatmap
    from rnnaudit.analysis import CERTIFIED_RTOL

    seen = []
    real = heatmap.plot_jacobian_heatmaps

    def spy(*args, rtol=None, **kwargs):
        seen.append(rtol)
        return real(*args, rtol=rtol, **kwargs)

    monkeypatch.setattr(heatmap, "plot_jacobian_heatmaps", spy)
    out = tmp_path / "h.png"
    assert cli_status(["heatmap", "fastrnn", "--T", "5", "--hidden", "4", "--out", str(out), *flags]) == 0
    assert seen == [expected] and out.stat().st_size > 0
    assert expected != 1e-10 or seen[0] == CERTIFIED_RTOL


def test_out_outside_the_current_directory_needs_an_existing_directory(tmp_path, monkeypatch, capsys):
    """``--out /nonexistent/dir/h.png`` created /nonexistent/dir: rnnaudit creates missing directories only under
    the current directory (as train's runs/<name> and the documented sweep out runs/lr-search need); elsewhere the
    parent must exist, and a file where a directory belongs is named. Same rule for check/audit report directories.
    Control: sub/dir/h.png under the current directory is written."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    flags = ["--hidden", "4", "--T", "5"]
    missing = tmp_path / "nonexistent" / "dir"
    for argv in (["heatmap", "gru", *flags, "--out", str(missing / "h.png")],
                 ["audit", "gru", *flags, "--out", str(missing / "audit")]):
        assert cli_status(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and f"its directory {missing} does not exist" in err, err
    assert not (tmp_path / "nonexistent").exists()
    (work / "a-file").write_text("x")
    assert cli_status(["spectrum", "gru", "--hidden", "4", "--out", "a-file/s.png"]) == 2
    assert "a-file is not a directory" in capsys.readouterr().err
    if Path("/proc/self").is_dir():  # a directory nobody can create files in, root included: refused before the work
        assert cli_status(["heatmap", "gru", *flags, "--out", "/proc/h.png"]) == 2
        assert "--out /proc/h.png: cannot write in /proc" in capsys.readouterr().err
    (work / "adir.png").mkdir()
    assert cli_status(["heatmap", "gru", *flags, "--out", "adir.png"]) == 2  # found only after the work was done
    assert "--out adir.png: is a directory, expected a figure file" in capsys.readouterr().err
    assert cli_status(["heatmap", "gru", *flags, "--out", "sub/dir/h.png"]) == 0
    assert (work / "sub" / "dir" / "h.png").is_file()


def test_an_out_with_a_control_character_is_refused(tmp_path, monkeypatch, capsys):
    """A newline in --out made a file whose 'wrote …' line split in two; control: the same name without it."""
    monkeypatch.chdir(tmp_path)
    assert cli_status(["heatmap", "gru", "--hidden", "4", "--T", "5", "--out", "a\nb.png"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "control character" in err, err
    assert not list(tmp_path.iterdir())
    assert cli_status(["heatmap", "gru", "--hidden", "4", "--T", "5", "--out", "ab.png"]) == 0


def test_a_figures_data_path_beside_out_is_checked_before_the_work_as_out_is(tmp_path, monkeypatch, capsys):
    """A directory h.npz beside --out h.png was found only after the figure was written, which stayed alone; now
    refused in one line before the work. Control: the same command with the path free writes both files."""
    monkeypatch.chdir(tmp_path)
    import rnnaudit.cli.plots as plots

    def no_work(*args, **kwargs):
        raise AssertionError("the work started")

    (tmp_path / "h.npz").mkdir()
    with monkeypatch.context() as m:
        m.setattr(plots, "source_of", no_work)
        assert cli_status(["heatmap", "gru", "--hidden", "4", "--T", "5", "--out", "h.png"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "the data file h.npz written beside --out: is a directory" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.npz"]
    (tmp_path / "h.npz").rmdir()
    assert cli_status(["heatmap", "gru", "--hidden", "4", "--T", "5", "--out", "h.png"]) == 0
    assert {p.name for p in tmp_path.iterdir()} == {"h.png", "h.npz"}
