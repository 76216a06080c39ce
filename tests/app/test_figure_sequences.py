"""``rnnaudit heatmap`` and ``rnnaudit lyapunov`` aggregate every sequence of --inputs the way Python does (the mean
of the per-sequence norms; the mean of the per-sequence exponents), say so, and take --sequence for one."""

import json

import numpy as np
import pytest
import torch
from torch import nn

from rnnaudit import hidden_jacobian_maps, wrap
from rnnaudit.analysis.lyapunov import lyapunov_estimate
from tests.conftest import cli_status

F64 = torch.float64


@pytest.fixture
def rnn_and_inputs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    torch.manual_seed(3)
    rnn = nn.RNN(2, 4).double().eval()
    torch.save(rnn.state_dict(), "rnn.pt")
    # three sequences of different scales, so that the first alone differs clearly from their mean
    x = torch.randn(3, 12, 2, dtype=F64) * torch.tensor([3.0, 0.3, 1.0], dtype=F64)[:, None, None]
    torch.save(x, "x.pt")
    return rnn, x


def _map(path):
    data = np.load(path)
    (key,) = [k for k in data.files if k.startswith("jacobian_norm")]
    return data[key], int(data["sequences"]), json.loads(str(data["labels"]))[key]


def test_cli_heatmap_is_the_python_mean_over_every_sequence_and_says_so(rnn_and_inputs, capsys):
    rnn, x = rnn_and_inputs
    assert cli_status(["heatmap", "--weights", "rnn.pt", "--inputs", "x.pt", "--certified", "--out", "h.png"]) == 0
    assert "the mean of the per-sequence norms over all 3 sequences" in capsys.readouterr().out
    cli_map, n, label = _map("h.npz")
    python_map = hidden_jacobian_maps(wrap(rnn), x).spectral.numpy()
    first = hidden_jacobian_maps(wrap(rnn), x[0]).spectral.numpy()
    lower = np.tril_indices(13, -1)
    np.testing.assert_allclose(cli_map[lower], python_map[lower], rtol=1e-8)
    assert not np.allclose(cli_map[lower], first[lower], rtol=1e-2)  # the old CLI's first sequence alone
    assert n == 3 and "mean of the norms over 3 sequences" in label


def test_cli_heatmap_sequence_picks_one_and_a_bad_index_is_one_line(rnn_and_inputs, capsys):
    rnn, x = rnn_and_inputs
    assert cli_status(["heatmap", "--weights", "rnn.pt", "--inputs", "x.pt", "--certified", "--sequence", "1",
                       "--out", "h.png"]) == 0
    cli_map, n, label = _map("h.npz")
    lower = np.tril_indices(13, -1)
    np.testing.assert_allclose(cli_map[lower], hidden_jacobian_maps(wrap(rnn), x[1]).spectral.numpy()[lower],
                               rtol=1e-8)
    assert n == 1 and "one sequence" in label
    capsys.readouterr()
    assert cli_status(["heatmap", "--weights", "rnn.pt", "--inputs", "x.pt", "--sequence", "3", "--out", "h.png"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--sequence 3" in err[0] and "3 sequence(s)" in err[0]


def test_cli_lyapunov_is_the_python_estimate_over_every_sequence(rnn_and_inputs, capsys):
    rnn, x = rnn_and_inputs
    assert cli_status(["lyapunov", "--weights", "rnn.pt", "--inputs", "x.pt", "--out", "l.png"]) == 0
    out = capsys.readouterr().out
    est = lyapunov_estimate(wrap(rnn), x)
    assert "the mean over all 3 sequences" in out and "mean over 3 sequences" in out
    assert f"largest: {float(est.exponents[0]):.6g} ± {float(est.halfwidth[0]):.2g}" in out
    table = np.genfromtxt("l.csv", delimiter=",", names=True)
    k = est.exponents.numel()  # the finite-time columns are longer: the csv pads the short ones
    np.testing.assert_allclose(table["exponent"][:k], est.exponents.numpy(), rtol=1e-12)
    np.testing.assert_allclose(table["halfwidth"][:k], est.halfwidth.numpy(), rtol=1e-12)
    assert cli_status(["lyapunov", "--weights", "rnn.pt", "--inputs", "x.pt", "--sequence", "2", "--out", "l.png"]) == 0
    one = lyapunov_estimate(wrap(rnn), x, sequence=2)
    assert f"sequence 2 of 3: {float(one.exponents[0]):.4g}" in capsys.readouterr().out
