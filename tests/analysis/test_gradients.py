"""Parameter gradients by role (analysis/gradients.py), including roles that are gate blocks (views) of
torch's stacked parameters and the trainable originals of parametrized weights."""

import math

import pytest
import torch
from torch import nn
from torch.nn.utils import parametrizations

from rnnaudit.analysis.gradients import euclidean_norm, gradient_norms, parameter_gradients
from rnnaudit.cells import SGORNN, wrap

F64 = torch.float64


def _loss(h):
    return h.square().sum()


def test_gate_block_gradients_are_the_blocks_of_the_module_gradient():
    """∂L/∂W_hz is rows H..2H of ∂L/∂weight_hh_l1, the gradient through the module's own forward."""
    torch.manual_seed(0)
    gru = nn.GRU(3, 4, num_layers=2, batch_first=True, dtype=F64)
    x = torch.randn(2, 6, 3, dtype=F64)
    grads = parameter_gradients(gru, x, _loss)
    cell = wrap(gru)
    top = cell.state_slices()["l1.h"]
    bottom = cell.state_slices()["l0.h"]
    # reference: the module's own forward for the top layer plus the bottom layer's states, same loss
    out, _ = gru(x)
    loss = out.square().sum() + cell(x)[..., bottom].square().sum()
    reference = dict(zip(("w1", "b0"), torch.autograd.grad(loss, [gru.weight_hh_l1, gru.bias_ih_l0])))
    assert cell(x)[..., top].sub(out).abs().max() <= 1e-12
    H = 4
    for k, role in enumerate(("l1.W_hr", "l1.W_hz", "l1.W_hn")):
        assert grads[role].shape == (H, H)
        assert torch.allclose(grads[role], reference["w1"][k * H:(k + 1) * H], rtol=1e-12, atol=1e-12)
    assert torch.allclose(grads["l0.b_iz"], reference["b0"][H:2 * H], rtol=1e-12, atol=1e-12)
    # negative control: a block is not its neighbour
    assert not torch.allclose(grads["l1.W_hz"], reference["w1"][:H], rtol=1e-3, atol=1e-6)
    assert set(gradient_norms(grads)) == set(grads)


def test_parametrized_weights_get_the_gradient_of_their_trainable_original():
    torch.manual_seed(1)
    rnn = nn.RNN(2, 5, batch_first=True, dtype=F64)
    parametrizations.orthogonal(rnn, "weight_hh_l0", orthogonal_map="matrix_exp")
    x = torch.randn(1, 7, 2, dtype=F64)
    grads = parameter_gradients(rnn, x, _loss, roles=("W_hh.original",))
    ref, = torch.autograd.grad(rnn(x)[0].square().sum(), [rnn.parametrizations.weight_hh_l0.original])
    assert torch.allclose(grads["W_hh.original"], ref, rtol=1e-12, atol=1e-13)


def test_view_gradients_keep_the_graph_when_asked():
    gru = nn.GRU(2, 3, dtype=F64)
    g = parameter_gradients(gru, torch.randn(1, 4, 2, dtype=F64), _loss, roles=("W_hn",), create_graph=True)
    second, = torch.autograd.grad(g["W_hn"].sum(), [gru.weight_hh_l0])
    assert second.shape == gru.weight_hh_l0.shape and second.abs().sum() > 0


def test_our_cells_roles_are_unchanged():
    cell = SGORNN(2, 6, dtype=F64)
    grads = parameter_gradients(cell, torch.randn(2, 5, 2, dtype=F64), _loss)
    assert set(grads) == set(cell.parameters_by_role())
    with pytest.raises(ValueError, match="not among the cell's roles"):
        parameter_gradients(cell, torch.randn(2, 5, 2, dtype=F64), _loss, roles=("W_hz",))


@pytest.mark.parametrize("scale, dtype", [(1e-200, F64), (1e200, F64), (1e-30, torch.float32), (1e30, torch.float32)])
def test_euclidean_norm_at_magnitudes_where_vector_norm_under_or_overflows(scale, dtype):
    """Entries (3, 0, −4)·scale: the norm is 5·scale (up to the dtype's rounding of the entries, which
    math.hypot sees too). torch.linalg.vector_norm sums unscaled squares
    and gives 0 or inf at these magnitudes (asserted, so the test keeps meaning what it says)."""
    x = (torch.tensor([3.0, 0.0, -4.0], dtype=F64) * scale).to(dtype)
    plain = float(torch.linalg.vector_norm(x))
    assert plain == 0 or math.isinf(plain)
    assert euclidean_norm(x) == pytest.approx(math.hypot(*x.tolist()), rel=1e-15, abs=0)  # hypot: scaled, exact to ~1 ulp
    assert euclidean_norm(x.reshape(3, 1)) == euclidean_norm(x)  # every entry, whatever the shape


def test_euclidean_norm_of_empty_zero_and_non_finite_entries():
    assert euclidean_norm(torch.zeros(0)) == 0.0 and euclidean_norm(torch.zeros(4, 2)) == 0.0
    assert euclidean_norm(torch.tensor([1.0, float("inf")])) == math.inf
    assert math.isnan(euclidean_norm(torch.tensor([float("inf"), float("nan")])))


def test_gradient_norms_of_a_vanishing_gradient_are_not_zero():
    """A 1-D gradient of norm 5e-200: its "fro" and "spectral" entries (the vector's 2-norm) keep it."""
    g = torch.tensor([3e-200, 4e-200], dtype=F64)
    norms = gradient_norms({"b": g, "W": torch.diag(g)})
    assert norms["b"]["fro"] == pytest.approx(5e-200, rel=1e-15, abs=0) and norms["b"]["spectral"] == norms["b"]["fro"]
    assert norms["W"]["fro"] == pytest.approx(5e-200, rel=1e-15, abs=0)
    assert norms["W"]["spectral"] == pytest.approx(4e-200, rel=1e-14, abs=0)
