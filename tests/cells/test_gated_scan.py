"""The fused whole-sequence paths of the gated cells (cells/gated_scan.py) against their step-by-step
references: same states and same first derivatives with respect to inputs, initial state and every
parameter. Tolerances: float64, the same products grouped differently (one GEMM for both gates, the
recurrent weights' gradients summed over all steps at once), so agreement to ~1e-15 relative per step,
accumulated over ≤ 30 steps: 1e-12."""

import pytest
import torch

from rnnaudit.cells import gated_scan
from rnnaudit.cells.baselines import LSTM
from rnnaudit.cells.gated_scan import gated_recurrence, lstm, lstm_order
from rnnaudit.cells.nc_gru import GRU, NCGRU
from tests.conftest import DEVICES

F64 = torch.float64

CELLS = {
    "gru": lambda g, d: GRU(3, 7, generator=g, dtype=F64, device=d),
    "ncgru_c": lambda g, d: NCGRU(3, 7, num_negative=2, generator=g, dtype=F64, device=d),
    "ncgru_ruc": lambda g, d: NCGRU(3, 7, orthogonal=("r", "u", "c"), generator=g, dtype=F64, device=d),
    "lstm": lambda g, d: LSTM(3, 5, dtype=F64, device=d),
}


def _grads(cell, x, h0, fused):
    out = cell(x, h0, fused=fused)
    weights = torch.linspace(-1, 1, out.numel(), dtype=F64, device=x.device).reshape(out.shape)
    params = [p for p in cell.parameters() if p.requires_grad]
    grads = torch.autograd.grad((out * weights).sum() + out.square().sum(), [x, h0, *params])
    return out, grads


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(CELLS))
@pytest.mark.parametrize("chunk_rows", [None, 12, 28])
def test_fused_sequence_matches_the_step_loop_in_values_and_gradients(name, device, chunk_rows, monkeypatch):
    """chunk_rows: backward's weight-gradient GEMMs over chunks of 3 steps (10 chunks) and of 7 (4 and a
    partial one of 2) at batch 4, besides the default (one chunk here)."""
    if chunk_rows is not None:
        monkeypatch.setattr(gated_scan, "_CHUNK_ROWS", chunk_rows)
    g = torch.Generator().manual_seed(0)
    torch.manual_seed(0)  # LSTM's torch.nn initialisation
    cell = CELLS[name](g, device)
    x = torch.randn(4, 30, 3, generator=g, dtype=F64).to(device).requires_grad_()
    h0 = (0.5 * torch.randn(4, cell.hidden_size, generator=g, dtype=F64)).to(device).requires_grad_()
    fused, g_fused = _grads(cell, x, h0, True)
    ref, g_ref = _grads(cell, x, h0, False)
    torch.testing.assert_close(fused, ref, rtol=1e-12, atol=1e-13)
    for a, b in zip(g_fused, g_ref):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12)
    # the step loop is the cell's own step: the reference is eq. 1 / eq. 19 / torch's LSTM step
    h = h0
    for t in range(3):
        h = cell.step(x[:, t], h)
        torch.testing.assert_close(fused[:, t], h, rtol=1e-13, atol=1e-13)


def test_modrelu_zero_and_dead_units_get_autograd_s_subgradient():
    """modReLU at z = 0 and where |z| + b ≤ 0: autograd gives 0 there (sgn(0) = 0, ReLU′(0) = 0); so must
    the fused backward. Inputs chosen to hit both (b very negative on some units, x = 0 so z = 0 at t = 1)."""
    g = torch.Generator().manual_seed(1)
    cell = NCGRU(2, 6, generator=g, dtype=F64)
    with torch.no_grad():
        cell.b.copy_(torch.tensor([-5.0, -5.0, 0.0, 0.0, 0.3, 0.3], dtype=F64))
    x = torch.zeros(3, 5, 2, dtype=F64)
    x[:, 2:] = torch.randn(3, 3, 2, generator=g, dtype=F64)
    x.requires_grad_()
    h0 = torch.zeros(3, 6, dtype=F64, requires_grad=True)
    _, g_fused = _grads(cell, x, h0, True)
    _, g_ref = _grads(cell, x, h0, False)
    for a, b in zip(g_fused, g_ref):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("chunk_rows", [None, 2, 6])
def test_gated_recurrence_passes_gradcheck(chunk_rows, monkeypatch):
    """chunk_rows at batch 2: one step per chunk, and chunks of 3 steps and 1."""
    if chunk_rows is not None:
        monkeypatch.setattr(gated_scan, "_CHUNK_ROWS", chunk_rows)
    g = torch.Generator().manual_seed(2)
    B, T, n, h = 2, 4, 2, 3
    mk = lambda *s: torch.randn(*s, generator=g, dtype=F64).requires_grad_()  # noqa: E731
    args = (mk(B, T, n), mk(3 * h, n), mk(3 * h), mk(B, h), mk(2 * h, h), mk(h, h))
    assert torch.autograd.gradcheck(lambda *a: gated_recurrence(*a), args)
    b = torch.tensor([0.3, -0.2, 0.5], dtype=F64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda *a: gated_recurrence(*a), (*args, b))
    assert torch.autograd.gradcheck(lstm, (mk(B, T, n), mk(4 * h, n), mk(4 * h), mk(B, h), mk(B, h), mk(4 * h, h)))
    assert torch.equal(lstm_order(2), torch.tensor([0, 1, 2, 3, 6, 7, 4, 5]))


@pytest.mark.parametrize("name", sorted(CELLS))
@pytest.mark.parametrize("loss", ["square", "sum"])
def test_second_derivatives_are_refused_not_wrong(name, loss):
    """A gradient penalty: with ``out.sum()`` no output gradient requires grad, and once_differentiable let the
    backward build nothing, so the penalty's own gradient was silently dropped; the fused path refuses any
    create_graph=True backward, and the step loop gives the second derivative."""
    g = torch.Generator().manual_seed(3)
    torch.manual_seed(3)
    cell = CELLS[name](g, "cpu")
    x = torch.randn(2, 5, 3, generator=g, dtype=F64, requires_grad=True)
    reduce = (lambda o: o.square().sum()) if loss == "square" else (lambda o: o.sum())
    with pytest.raises(RuntimeError, match="fused=False"):
        torch.autograd.grad(reduce(cell(x)), [x], create_graph=True)
    (gx,) = torch.autograd.grad(reduce(cell(x, fused=False)), [x], create_graph=True)
    assert gx.requires_grad
    W = next(p for p in cell.parameters() if p.requires_grad)
    assert torch.autograd.grad(gx.square().sum(), [W])[0].abs().sum() > 0


def _torch_lstm_runs_under_cpu_bf16_autocast() -> bool:
    """Whether torch's own fused LSTM runs under CPU bfloat16 autocast here: oneDNN builds no LSTM primitive for it
    on processors without bfloat16 instructions (a RuntimeError inside torch, not in the cell it wraps)."""
    try:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            torch.nn.LSTM(3, 5, batch_first=True)(torch.randn(2, 4, 3))
    except RuntimeError:
        return False
    return True


@pytest.mark.parametrize("name", sorted(CELLS))
def test_an_empty_batch_and_autocast(name):
    """Batch 0 gives empty states and gradients (backward's chunking divided by the batch); under CPU autocast
    the cells take the step loop (the fused loop mixed bfloat16 gates with float32 states)."""
    g = torch.Generator().manual_seed(6)
    torch.manual_seed(6)
    cell = CELLS[name](g, "cpu")
    x = torch.zeros(0, 4, 3, dtype=F64, requires_grad=True)
    out = cell(x)
    assert out.shape == (0, 4, cell.hidden_size)
    out.sum().backward()
    assert x.grad.shape == x.shape
    cell = cell.float()
    xf = torch.randn(2, 4, 3, generator=g)
    if name == "lstm" and not _torch_lstm_runs_under_cpu_bf16_autocast():
        pytest.skip("torch.nn.LSTM itself fails under bfloat16 autocast on this CPU (oneDNN has no primitive for it)")
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = cell(xf)
    torch.testing.assert_close(out.float(), cell(xf, fused=False), rtol=0.05, atol=0.05)


def test_torch_func_transforms_use_the_step_loop():
    """jacrev over forward needs the per-step graph: inside torch.func transforms the cells take the step loop."""
    g = torch.Generator().manual_seed(4)
    cell = NCGRU(2, 4, generator=g, dtype=F64)
    x = torch.randn(3, 6, 2, generator=g, dtype=F64)
    J = torch.func.jacrev(lambda xx: cell(xx[None])[0, -1])(x[0])
    J_ref = torch.autograd.functional.jacobian(lambda xx: cell(xx[None], fused=False)[0, -1], x[0])
    torch.testing.assert_close(J, J_ref, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(CELLS))
def test_a_broadcast_output_gradient_and_a_strided_input(name):
    """``out.sum().backward()`` hands backward an expanded gradient (stride 0), and a time-major tensor seen
    batch-first is not contiguous: neither may change the gradients."""
    g = torch.Generator().manual_seed(5)
    torch.manual_seed(5)
    cell = CELLS[name](g, "cpu")
    x = torch.randn(9, 3, 3, generator=g, dtype=F64).transpose(0, 1).requires_grad_()  # (3, 9, 3), strided
    params = [p for p in cell.parameters() if p.requires_grad]
    fused = torch.autograd.grad(cell(x).sum(), [x, *params])
    ref = torch.autograd.grad(cell(x, fused=False).sum(), [x, *params])
    for a, b in zip(fused, ref):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-13)
