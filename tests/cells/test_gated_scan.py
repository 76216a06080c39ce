"""The fused whole-sequence paths of the gated cells (cells/gated_scan.py) against their step-by-step
references: same states and same first derivatives with respect to inputs, initial state and every
parameter. Tolerances: float64, the same products grouped differently (one GEMM for both gates, the
recurrent weights' gradients summed over all steps at once), so agreement to ~1e-15 relative per step,
accumulated over ≤ 30 steps: 1e-12."""

import pytest
import torch

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
def test_fused_sequence_matches_the_step_loop_in_values_and_gradients(name, device):
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


def test_gated_recurrence_passes_gradcheck():
    g = torch.Generator().manual_seed(2)
    T, B, h = 4, 2, 3
    mk = lambda *s: torch.randn(*s, generator=g, dtype=F64).requires_grad_()  # noqa: E731
    args = (mk(T, B, 2 * h), mk(T, B, h), mk(B, h), mk(2 * h, h), mk(h, h))
    assert torch.autograd.gradcheck(lambda *a: gated_recurrence(*a), args)
    b = torch.tensor([0.3, -0.2, 0.5], dtype=F64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda *a: gated_recurrence(*a), (*args, b))
    assert torch.autograd.gradcheck(lstm, (mk(T, B, 4 * h), mk(B, h), mk(B, h), mk(4 * h, h)))
    assert torch.equal(lstm_order(2), torch.tensor([0, 1, 2, 3, 6, 7, 4, 5]))


def test_second_derivatives_are_refused_not_wrong():
    g = torch.Generator().manual_seed(3)
    cell = GRU(2, 4, generator=g, dtype=F64)
    x = torch.randn(2, 5, 2, generator=g, dtype=F64, requires_grad=True)
    (gx,) = torch.autograd.grad(cell(x).square().sum(), [x], create_graph=True)
    with pytest.raises(RuntimeError):
        torch.autograd.grad(gx.sum(), [x])


def test_torch_func_transforms_use_the_step_loop():
    """jacrev over forward needs the per-step graph: inside torch.func transforms the cells take the step loop."""
    g = torch.Generator().manual_seed(4)
    cell = NCGRU(2, 4, generator=g, dtype=F64)
    x = torch.randn(3, 6, 2, generator=g, dtype=F64)
    J = torch.func.jacrev(lambda xx: cell(xx[None])[0, -1])(x[0])
    J_ref = torch.autograd.functional.jacobian(lambda xx: cell(xx[None], fused=False)[0, -1], x[0])
    torch.testing.assert_close(J, J_ref, rtol=1e-12, atol=1e-14)
