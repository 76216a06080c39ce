"""Cross-check against an independent implementation, where it is installed: rnn-coach 0.1 (PyPI `rnn-coach`,
engellab; its package installs under the top-level name `src`), which finds the fixed points of the rate equation
dy/dt = −y + relu(W y + U u + b) by scipy's fsolve from Gaussian starts, with its own deduplication. Its fixed points
are those of the discrete map h ↦ relu(W h + U x + b), and its Jacobian is ∂F/∂h − I. Not a dependency (a top-level
package named `src` is no thing to install by default): ``pip install rnn-coach`` to run it."""

import sys
import types

import numpy as np
import pytest
import torch

from rnnaudit.analysis.fixed_points import find_fixed_points
from tests.analysis.test_fixed_points import _winner_take_all


@pytest.fixture
def rnn_coach(monkeypatch):
    if "numdifftools" not in sys.modules:  # imported for a finite-difference Jacobian, which the test replaces
        try:
            import numdifftools  # noqa: F401
        except ImportError:
            monkeypatch.setitem(sys.modules, "numdifftools", types.ModuleType("numdifftools"))
    analyzer = pytest.importorskip("src.DynamicSystemAnalyzer", reason="rnn-coach is not installed")
    numpy_rnn = pytest.importorskip("src.RNN_numpy")
    if not hasattr(analyzer, "DynamicSystemAnalyzer") or not hasattr(numpy_rnn, "RNN_numpy"):
        pytest.skip("the importable `src` is not rnn-coach")
    return analyzer.DynamicSystemAnalyzer, numpy_rnn.RNN_numpy


@pytest.mark.parametrize("seed", [0, 1])
def test_the_same_fixed_points_and_eigenvalues_as_rnn_coach(rnn_coach, seed):
    Analyzer, RNNNumpy = rnn_coach
    rnn = _winner_take_all(seed)
    W, U = rnn.weight_hh_l0.detach().numpy(), rnn.weight_ih_l0.detach().numpy()
    b = (rnn.bias_ih_l0 + rnn.bias_hh_l0).detach().numpy()
    N = W.shape[0]
    net = RNNNumpy(N, dt=1.0, tau=1.0, W_inp=U, W_rec=W, W_out=np.zeros((1, N)), bias_rec=b)
    net.rhs_jac = lambda y, u: -np.eye(N) + (W @ y + U @ u + b > 0)[:, None] * W
    dsa = Analyzer(net)
    np.random.seed(seed)  # rnn-coach draws its starts from numpy's global generator
    dsa.get_fixed_points(np.zeros(2), patience=200, fun_tol=1e-20, sigma_init_guess=2.0, diff_cutoff=1e-7)
    theirs = np.vstack(list(dsa.fp_data[str([0.0, 0.0])].values()))
    x = torch.randn(16, 60, 2, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    fp = find_fixed_points(rnn, x, n_starts=256, seed=seed, noise=1.0)
    ours = fp.points.numpy()
    assert len(ours) == len(theirs)
    for i, h in enumerate(ours):
        j = int(np.argmin(np.linalg.norm(theirs - h, axis=1)))
        assert np.linalg.norm(theirs[j] - h) <= 1e-12
        lam = np.sort_complex(np.linalg.eigvals(net.rhs_jac(theirs[j], np.zeros(2))) + 1)
        assert np.allclose(np.sort_complex(fp.eigenvalues[i].numpy()), lam, rtol=0, atol=1e-12)
