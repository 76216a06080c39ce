"""The modern cells against the pip implementations users bring (float64, weights mapped into our cells).

Each test skips when its package is not installed (``pip install rnnaudit[modern]``). Tolerance: both sides
compute the same float64 formula in a different order, O(T·(n + N)) roundings of values of order 1–10, so
agreement to ≤ 1e-12 absolute is about 10⁴ roundings; a formula that differs (another discretisation, a
dropped γ) misses it by many orders of magnitude (the negative controls below).
"""

from __future__ import annotations

import contextlib

import pytest
import torch

from rnnaudit.cells import LRU, MinGRU, MinLSTM, SelectiveSSM

CONFORMANCE_ATOL = 1e-12


@contextlib.contextmanager
def default_float64():
    """The packages allocate buffers in torch's default dtype (float32): run them with float64 as the default."""
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(old)


def _lru_pair(n=3, N=6, n_out=2, seed=0):
    LRU_pytorch = pytest.importorskip("LRU_pytorch")
    torch.manual_seed(seed)
    with default_float64():
        theirs = LRU_pytorch.LRU(n, n_out, N, rmin=0.4, rmax=0.95, max_phase=3.0)
    ours = LRU(n, N, output_size=n_out, dtype=torch.float64)
    with torch.no_grad():
        for name in ("nu_log", "theta_log", "gamma_log", "D"):
            getattr(ours, name).copy_(getattr(theirs, name))
        ours.B_re.copy_(theirs.B.real), ours.B_im.copy_(theirs.B.imag)
        ours.C_re.copy_(theirs.C.real), ours.C_im.copy_(theirs.C.imag)
    return ours, theirs


def test_lru_outputs_match_lru_pytorch_in_float64():
    ours, theirs = _lru_pair()
    x = torch.randn(2, 40, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    with default_float64(), torch.no_grad():
        y_theirs = theirs(x)
        y_ours = ours.output(ours(x), x)
    assert y_theirs.dtype == torch.float64
    err = (y_ours - y_theirs).abs().max().item()
    assert err <= CONFORMANCE_ATOL, err


def test_lru_conformance_sees_a_dropped_gamma():
    ours, theirs = _lru_pair()
    with torch.no_grad():
        ours.gamma_log.zero_()  # γ = 1: the unnormalised recurrence of Sec. 3.3
    x = torch.randn(2, 40, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    with default_float64(), torch.no_grad():
        err = (ours.output(ours(x), x) - theirs(x)).abs().max().item()
    assert err > 1e-3


def _min_pair(kind, n=4, h=5, seed=0):
    module = pytest.importorskip("minGRU_pytorch.minGRU" if kind == "gru" else "minGRU_pytorch.minLSTM")
    torch.manual_seed(seed)
    with default_float64():
        theirs = module.minGRU(n) if kind == "gru" else module.minLSTM(n)
    ours = (MinGRU if kind == "gru" else MinLSTM)(n, n, candidate="g", bias=False, dtype=torch.float64)
    layer = theirs.to_hidden_and_gate if kind == "gru" else theirs.to_hidden_and_f_i_gate
    with torch.no_grad():
        ours.W.copy_(layer.weight)
    return ours, theirs


@pytest.mark.parametrize("kind", ["gru", "lstm"])
def test_min_rnns_match_mingru_pytorch_sequential_mode_in_float64(kind):
    ours, theirs = _min_pair(kind)
    x = torch.randn(3, 30, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    h0 = torch.rand(3, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(3)) + 0.1
    with torch.no_grad():
        prev, outs = h0[:, None], []
        for t in range(x.shape[1]):
            prev = theirs(x[:, t:t + 1], prev)
            outs.append(prev[:, 0])
        err = (ours(x, h0) - torch.stack(outs, 1)).abs().max().item()
    assert err <= CONFORMANCE_ATOL, err


@pytest.mark.parametrize("kind", ["gru", "lstm"])
def test_min_rnns_match_mingru_pytorch_parallel_log_space_scan_from_zero(kind):
    """The package's parallel mode (Heinsen's log-space scan, h_0 = 0): exp/log round trips lose a few digits,
    still ≤ 1e-12 at T = 30 on states of order 1."""
    ours, theirs = _min_pair(kind)
    x = torch.randn(3, 30, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        err = (ours(x) - theirs(x)).abs().max().item()
    assert err <= CONFORMANCE_ATOL, err


def _mamba_pair(d_model=4, N=5, seed=0, pscan=False):
    mamba = pytest.importorskip("mambapy.mamba")
    torch.manual_seed(seed)
    config = mamba.MambaConfig(d_model=d_model, n_layers=1, d_state=N, pscan=pscan)
    with default_float64():
        block = mamba.MambaBlock(config).double()
    D = config.d_inner
    ours = SelectiveSSM(D, N, dt_rank=config.dt_rank, discretisation="euler", dtype=torch.float64)
    with torch.no_grad():
        # mambapy computes A = −exp(A_log.float()) and D.float() in float32: map the float32 values it uses
        block.D.copy_(torch.randn(D, dtype=torch.float64).float().double())
        ours.A_log.copy_(torch.log(torch.exp(block.A_log.float()).double()))
        ours.D_skip.copy_(block.D)
        ours.x_proj.copy_(block.x_proj.weight)
        ours.dt_proj_weight.copy_(block.dt_proj.weight)
        ours.dt_proj_bias.copy_(block.dt_proj.bias)
    return ours, block


@pytest.mark.parametrize("pscan", [False, True])
def test_selective_ssm_matches_mambapy_selective_scan_in_float64(pscan):
    ours, block = _mamba_pair(pscan=pscan)
    x = torch.randn(2, 16, ours.input_size, dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    with default_float64(), torch.no_grad():
        y_theirs = block.ssm(x, torch.zeros_like(x))
        y_ours = ours.output(ours(x), x)
    err = (y_ours - y_theirs).abs().max().item()
    assert err <= CONFORMANCE_ATOL, err


def test_mambapy_conformance_sees_the_zoh_discretisation_differ():
    """mambapy discretises B̄ = ΔB (Euler), the paper's eq. 4 is ZOH: the same weights give other outputs."""
    ours, block = _mamba_pair()
    ours.discretisation = "zoh"
    x = torch.randn(2, 16, ours.input_size, dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    with default_float64(), torch.no_grad():
        err = (ours.output(ours(x), x) - block.ssm(x, torch.zeros_like(x))).abs().max().item()
    assert err > 1e-6


def test_slstm_step_matches_xlstm_vanilla_pointwise_in_float64():
    """The xlstm package's vanilla sLSTM step (slstm_forward_pointwise, one head) from the same pre-activations:
    states [h, c, n, m] agree after the first step (the package sets m_1 = ĩ_1 when n = 0 everywhere; any m_t
    leaves h unchanged, so h agrees from the first step on)."""
    vanilla = pytest.importorskip("xlstm.blocks.slstm.src.vanilla.slstm")
    from rnnaudit.cells import SLSTM
    H = 4
    cell = SLSTM(3, H, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    with torch.no_grad():
        cell.b.copy_(torch.randn(4 * H, dtype=torch.float64, generator=torch.Generator().manual_seed(1)))
    x = 3 * torch.randn(2, 25, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        ours = cell(x)
        state = torch.zeros(4, 2, H, dtype=torch.float64)
        theirs = []
        for t in range(x.shape[1]):
            state, _ = vanilla.slstm_forward_pointwise(x[:, t] @ cell.W.mT, state[0] @ cell.R.mT, cell.b[None],
                                                       state, {})
            theirs.append(state.permute(1, 0, 2).reshape(2, 4 * H))
        theirs = torch.stack(theirs, 1)
    assert (ours[..., :H] - theirs[..., :H]).abs().max().item() <= CONFORMANCE_ATOL
    # c, n, m differ by the common factor of the first step's other m_1; their ratio c/n does not
    ratio = lambda s: s[..., H:2 * H] / s[..., 2 * H:3 * H]  # noqa: E731
    assert (ratio(ours) - ratio(theirs)).abs().max().item() <= CONFORMANCE_ATOL


def test_mlstm_matches_xlstm_recurrent_step_in_float64():
    """The xlstm package's mLSTM recurrent step (recurrent_step_stabilized_simple, one head, its ε = 1e-6) from the
    same projections: outputs agree."""
    backends = pytest.importorskip("xlstm.blocks.mlstm.backends")
    import math

    from rnnaudit.cells import MLSTM
    d = 3
    cell = MLSTM(2, d, eps=1e-6, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    with torch.no_grad():
        cell.b.copy_(torch.randn(4 * d + 2, dtype=torch.float64, generator=torch.Generator().manual_seed(1)))
    x = 2 * torch.randn(2, 12, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        ours = cell.output(cell(x), x)
        C, n = torch.zeros(2, 1, d, d, dtype=torch.float64), torch.zeros(2, 1, d, 1, dtype=torch.float64)
        m, theirs = torch.zeros(2, 1, 1, 1, dtype=torch.float64), []
        for t in range(x.shape[1]):
            q, k, v, i, f, o = cell.projections(x[:, t])
            h, (C, n, m) = backends.recurrent_step_stabilized_simple(
                C, n, m, q[:, None, None], (k * math.sqrt(d))[:, None, None], v[:, None, None], i[:, None, :, None],
                f[:, None, :, None], eps=1e-6)
            theirs.append(o * h[:, 0, 0])
    assert (ours - torch.stack(theirs, 1)).abs().max().item() <= CONFORMANCE_ATOL
