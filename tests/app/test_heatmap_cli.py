"""``rnnaudit heatmap`` at users' sizes: the grid by default at heatmap grade, --resolution, --block,
--layer, --method, --memory-limit; bad values exit 2 with one line; every figure names its block."""

import pytest
import torch

from tests.conftest import cli_status

F64 = torch.float64


@pytest.fixture(scope="module")
def lstm_weights(tmp_path_factory):
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("w") / "lstm2.pt"
    torch.save(torch.nn.LSTM(2, 6, num_layers=2, batch_first=True).state_dict(), path)
    return str(path)


@pytest.mark.parametrize("flags, grid", [([], 256), (["--certified"], None), (["--rtol", "1e-6"], None),
                                         (["--rtol", "1e-2"], 256), (["--resolution", "5"], 5),
                                         (["--certified", "--resolution", "5"], 5)])
def test_the_grid_is_the_heatmap_grade_default(tmp_path, monkeypatch, capsys, lstm_weights, flags, grid):
    from rnnaudit.figures import heatmap

    seen = []
    real = heatmap.plot_jacobian_heatmaps

    def spy(*args, **kwargs):
        seen.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(heatmap, "plot_jacobian_heatmaps", spy)
    out = tmp_path / "h.png"
    assert cli_status(["heatmap", "--arch", "lstm", "--weights", lstm_weights, "--T", "12", "--out", str(out),
                       *flags]) == 0
    assert seen[0]["grid"] == grid and seen[0]["block"] == "h" and seen[0]["layer"] is None
    assert out.stat().st_size > 0
    assert "estimate: " + ("grid" if grid else "all-pairs") + " map" in capsys.readouterr().out


@pytest.mark.parametrize("flags, words", [
    (["--resolution", "1"], "--resolution"), (["--resolution", "ten"], "--resolution"),
    (["--resolution", "1000001"], "--resolution"), (["--layer", "-1"], "--layer"),
    (["--layer", "2"], "layer must be"), (["--block", "x"], "--block"), (["--method", "fast"], "--method"),
    (["--memory-limit", "0"], "--memory-limit"), (["--memory-limit", "1e-9"], "memory limit"),
    (["--method", "sketch", "--certified"], "--method sketch"),
])
def test_bad_heatmap_options_exit_2_with_one_line(tmp_path, capsys, lstm_weights, flags, words):
    status = cli_status(["heatmap", "--arch", "lstm", "--weights", lstm_weights, "--T", "8",
                         "--out", str(tmp_path / "h.png"), *flags])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and words in err[-1]
    assert len([line for line in err if not line.startswith("usage:") and line.startswith(" ") is False]) == 1
    assert not (tmp_path / "h.png").exists()


def test_block_c_of_a_cell_without_one_is_one_line(tmp_path, capsys):
    assert cli_status(["heatmap", "sgornn", "--T", "5", "--hidden", "4", "--block", "c",
                       "--out", str(tmp_path / "h.png")]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "needs an LSTM" in line


@pytest.mark.parametrize("block, layer, label", [("h", None, "layer 1 h block"), ("h", 0, "layer 0 h block"),
                                                 ("c", None, "layer 1 c block"),
                                                 ("state", None, "(h, c) state of all 2 layers")])
def test_every_figure_names_its_block(block, layer, label):
    from rnnaudit.figures.heatmap import plot_jacobian_heatmaps

    torch.manual_seed(0)
    model = torch.nn.LSTM(2, 5, num_layers=2, batch_first=True, dtype=F64)
    x = torch.randn(10, 2, dtype=F64)
    for kind in ("hidden", "input"):
        fig = plot_jacobian_heatmaps(model, x, kind=kind, grid=4, block=block, layer=layer)
        bar = fig.axes[1].get_ylabel()
        assert bar.endswith(", " + label), bar
        assert ("partial x_t" in bar) == (kind == "input")
        assert "4-point grid" in fig.axes[0].get_title() and "rtol 0.001" in fig.axes[0].get_title()
    sketch = plot_jacobian_heatmaps(model, x, grid=4, block=block, layer=layer, method="sketch")
    assert "confidence" in sketch.axes[0].get_title() or "exact" in sketch.axes[0].get_title()


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_the_grid_is_the_heatmap_grade_default": {"flags0-256"},
}
