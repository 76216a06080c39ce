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


def test_an_input_map_of_one_step_is_drawn_as_one_cell(tmp_path, capsys):
    """At T = 1 the input map has one grid step, whose cell edges were taken from a neighbour it does not have
    (IndexError, an internal error). Now the one cell is drawn, holding ‖∂h_1/∂x_1‖₂."""
    import numpy as np

    torch.manual_seed(0)
    rnn = torch.nn.RNN(3, 4, batch_first=True).double()
    torch.save(rnn.state_dict(), tmp_path / "w.pt")
    x = torch.randn(1, 3, dtype=torch.float64)
    torch.save(x, tmp_path / "x.pt")
    out = tmp_path / "k.png"
    argv = ["heatmap", "--weights", str(tmp_path / "w.pt"), "--inputs", str(tmp_path / "x.pt"), "--kind", "input",
            "--out", str(out)]
    assert cli_status(argv) == 0, capsys.readouterr().err
    jac = torch.autograd.functional.jacobian(lambda xx: rnn(xx[None])[0][0, -1], x)  # (h, 1, n)
    exact = float(torch.linalg.matrix_norm(jac[:, 0], ord=2))
    values = [a for a in np.load(out.with_suffix(".npz")).values() if a.dtype.kind == "f" and a.size == 1]
    assert values and any(abs(float(v.ravel()[0]) - exact) <= 1e-3 * exact for v in values), (values, exact)


def test_an_rtol_below_the_float64_floor_is_refused_and_the_npz_records_rtol(tmp_path, capsys):
    """--rtol 1e-300 was accepted silently (no float64 norm is certified below a few roundoffs); it is refused
    naming the floor. The heatmap's data file records the rtol its values are certified to."""
    import numpy as np

    from rnnaudit.cli.argtypes import RTOL_FLOOR

    torch.manual_seed(0)
    torch.save(torch.nn.RNN(3, 4, batch_first=True).state_dict(), tmp_path / "w.pt")
    torch.save(torch.randn(6, 3, dtype=torch.float64), tmp_path / "x.pt")
    base = ["heatmap", "--weights", str(tmp_path / "w.pt"), "--inputs", str(tmp_path / "x.pt")]
    assert cli_status([*base, "--rtol", "1e-300", "--out", str(tmp_path / "a.png")]) == 2
    err = capsys.readouterr().err
    assert "--rtol" in err and f"{RTOL_FLOOR:.3g}" in err and err.count("\n") == 1, err
    assert cli_status([*base, "--rtol", "1e-6", "--out", str(tmp_path / "b.png")]) == 0
    assert float(np.load(tmp_path / "b.npz")["rtol"]) == 1e-6
    assert cli_status([*base, "--out", str(tmp_path / "c.png")]) == 0
    assert float(np.load(tmp_path / "c.npz")["rtol"]) == 1e-3


def test_a_heatmap_over_its_time_budget_is_refused_after_printing_its_estimate(tmp_path, capsys):
    """A heatmap at the largest allowed T ran for minutes with no bound; the estimate it prints (calibrated by rates
    measured now) is now checked against --max-minutes (default 10) before the work starts. A budget below any
    estimate refuses in one line naming the flag, writing nothing; a generous one draws the figure."""
    from rnnaudit.cli.budget import DEFAULT_MAX_MINUTES

    assert DEFAULT_MAX_MINUTES == 10.0
    torch.manual_seed(0)
    torch.save(torch.nn.RNN(3, 4, batch_first=True).state_dict(), tmp_path / "w.pt")
    torch.save(torch.randn(30, 3, dtype=torch.float64), tmp_path / "x.pt")
    base = ["heatmap", "--weights", str(tmp_path / "w.pt"), "--inputs", str(tmp_path / "x.pt")]
    assert cli_status([*base, "--max-minutes", "1e-9", "--out", str(tmp_path / "a.png")]) == 2
    out, err = capsys.readouterr()
    assert out.startswith("estimate: ") and "about" in out
    assert err.count("\n") == 1 and "above the budget of 1e-09 minutes; pass --max-minutes" in err, err
    assert not (tmp_path / "a.png").exists()
    assert cli_status([*base, "--max-minutes", "60", "--out", str(tmp_path / "b.png")]) == 0
    assert (tmp_path / "b.png").exists()


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_the_grid_is_the_heatmap_grade_default": {"flags0-256"},
}
