"""The closed-form step Jacobians of torch's stacked RNN/GRU/LSTM against autograd through torch's own modules."""

import pytest
import torch
from torch import nn
from torch.func import functional_call, jacrev, vmap

from rnnaudit.analysis.torch_rnn_jacobians import CLOSED_FORM_KINDS, stacked_step_jacobians

MODULES = {"rnn_tanh": lambda n, h, L: nn.RNN(n, h, L), "rnn_relu": lambda n, h, L: nn.RNN(n, h, L, nonlinearity="relu"),
           "gru": lambda n, h, L: nn.GRU(n, h, L), "lstm": lambda n, h, L: nn.LSTM(n, h, L)}


def _autograd(module, x, L, H, lstm):
    """∂s_t/∂s_{t−1} and ∂s_t/∂x_t of the packed state through the module's own forward (one step), by jacrev."""
    params = dict(module.named_parameters())

    def step(x_t, s):
        hs = s[:L * H].reshape(L, 1, H)
        init = (hs, s[L * H:].reshape(L, 1, H)) if lstm else hs
        _, new = functional_call(module, params, (x_t[None, None], init))
        return torch.cat([t.reshape(-1) for t in new]) if lstm else new.reshape(-1)

    states = [torch.zeros(L * H * (2 if lstm else 1), dtype=torch.float64)]
    with torch.no_grad():
        for x_t in x:
            states.append(step(x_t, states[-1]))
    states = torch.stack(states)
    J, B = vmap(jacrev(step, argnums=(1, 0)))(x, states[:-1])
    return states, J, B


@pytest.mark.parametrize("kind", CLOSED_FORM_KINDS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_closed_form_step_jacobians_equal_autograd_through_torchs_own_module(kind, seed):
    torch.manual_seed(seed)
    n, H, L, T = 3 + seed, 4 + seed, 1 + seed % 3, 9
    module = MODULES[kind](n, H, L).double()
    with torch.no_grad():
        for p in module.parameters():  # large enough to saturate some gates and switch relus off
            p.mul_(1 + 2 * seed)
    x = torch.randn(T, n, dtype=torch.float64)
    states, J, B = _autograd(module, x, L, H, kind == "lstm")
    weights = tuple(tuple(getattr(module, f"{w}_l{k}").detach() for w in ("weight_ih", "weight_hh", "bias_ih",
                                                                         "bias_hh")) for k in range(L))
    J1, B1 = stacked_step_jacobians(kind, weights, x, states)
    assert J1.shape == J.shape and B1.shape == B.shape
    assert float((J1 - J).abs().max()) <= 1e-13 and float((B1 - B).abs().max()) <= 1e-13


def test_closed_form_step_jacobians_differ_from_a_perturbed_model():
    """The comparison above can fail: one weight moved by 1e-6 changes the Jacobians far beyond 1e-13."""
    torch.manual_seed(0)
    module = nn.LSTM(3, 4, 2).double()
    x = torch.randn(6, 3, dtype=torch.float64)
    states, J, _ = _autograd(module, x, 2, 4, True)
    weights = [list(getattr(module, f"{w}_l{k}").detach().clone() for w in ("weight_ih", "weight_hh", "bias_ih",
                                                                           "bias_hh")) for k in range(2)]
    weights[1][1][5, 2] += 1e-6
    J1, _ = stacked_step_jacobians("lstm", tuple(tuple(w) for w in weights), x, states)
    assert float((J1 - J).abs().max()) > 1e-9


def test_closed_form_step_jacobians_refuse_other_kinds_and_wrong_state_shapes():
    w = (torch.zeros(4, 2, dtype=torch.float64), torch.zeros(4, 4, dtype=torch.float64),
         torch.zeros(4, dtype=torch.float64), torch.zeros(4, dtype=torch.float64))
    with pytest.raises(ValueError, match="kind must be"):
        stacked_step_jacobians("indrnn", (w,), torch.zeros(3, 2), torch.zeros(4, 4))
    with pytest.raises(ValueError, match="states must be"):
        stacked_step_jacobians("rnn_tanh", (w,), torch.zeros(3, 2), torch.zeros(3, 4))


@pytest.mark.parametrize("module", [nn.GRU(3, 5, 2), nn.LSTM(3, 4, 2), nn.RNN(3, 4, nonlinearity="relu"),
                                    nn.LSTMCell(3, 4), nn.GRU(3, 4, 2, bidirectional=True, bias=False)])
def test_the_probes_step_jacobians_of_a_torch_module_equal_forward_mode_at_any_states(module):
    """The probes' Jacobians of a wrapped torch module (closed form) equal forward-mode autograd through the wrapped
    step at random states and inputs, rows independent (a reverse direction and absent biases included)."""
    from torch.func import jvp, vmap

    from rnnaudit.analysis.jacobian import _closed_form, _jacobians_at
    from rnnaudit.cells import wrap

    torch.manual_seed(0)
    kwargs = {"direction": "reverse", "layer": 1} if getattr(module, "bidirectional", False) else {}
    cell = wrap(module.double(), **kwargs)
    xr = torch.randn(7, cell.input_size, dtype=torch.float64)
    hr = torch.randn(7, cell.hidden_size, dtype=torch.float64)
    assert _closed_form(cell, xr) is not None
    J, K = _jacobians_at(cell, xr, hr, inputs=True)
    eye = torch.eye(cell.hidden_size, dtype=torch.float64)
    J0 = vmap(lambda v: jvp(lambda hh: cell.step(xr, hh), (hr,), (v.expand_as(hr),))[1])(eye).permute(1, 2, 0)
    eye_n = torch.eye(cell.input_size, dtype=torch.float64)
    K0 = vmap(lambda v: jvp(lambda xx: cell.step(xx, hr), (xr,), (v.expand_as(xr),))[1])(eye_n).permute(1, 2, 0)
    assert float((J - J0).abs().max()) <= 1e-13 and float((K - K0).abs().max()) <= 1e-13


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn_tanh"])
def test_forming_only_one_of_the_two_jacobians_gives_it_bit_for_bit(kind):
    from rnnaudit.analysis.torch_rnn_jacobians import stacked_step_jacobians
    from rnnaudit.bounds.architectures import sample_arch, trajectory

    case = sample_arch(torch.Generator().manual_seed(3), kind, 5, 7, layers=3, n=4)
    states = trajectory(case)
    J, B = stacked_step_jacobians(kind, case.weights, case.x, states)
    J_only, none_b = stacked_step_jacobians(kind, case.weights, case.x, states, inputs=False)
    none_j, B_only = stacked_step_jacobians(kind, case.weights, case.x, states, state=False)
    assert none_b is None and none_j is None and torch.equal(J, J_only) and torch.equal(B, B_only)


def test_the_closed_form_written_in_place_is_differentiable_in_the_weights_as_autograd_is():
    """The in-place rows keep autograd's graph: ∂(Σ J + ‖B‖²)/∂W of the top layer's weights from the closed form
    equals that of jacrev's Jacobians to 1e-10 (the lower layer's weights also move the top layer's input in jacrev,
    where the closed form reads it from the given states, so only the top layer's gradients are the same quantity)."""
    from torch.func import jacrev, vmap

    from rnnaudit.analysis.torch_rnn_jacobians import stacked_step_jacobians
    from rnnaudit.bounds.architectures import ArchCase, arch_step, sample_arch, trajectory

    case = sample_arch(torch.Generator().manual_seed(4), "lstm", 4, 5, layers=2, n=3)
    states = trajectory(case).detach()
    grads = []
    for closed in (True, False):
        weights = tuple(tuple(t.clone().requires_grad_() for t in w) for w in case.weights)
        if closed:
            J, B = stacked_step_jacobians("lstm", weights, case.x, states)
        else:
            c = ArchCase("lstm", weights, case.x, case.h0)
            J, B = vmap(jacrev(lambda x, h: arch_step(c, x, h), argnums=(1, 0)))(case.x, states[:-1])
        (J.sum() + B.square().sum()).backward()
        grads.append(torch.cat([t.grad.reshape(-1) for t in weights[-1]]))
    assert torch.allclose(grads[0], grads[1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn_tanh"])
def test_forming_the_jacobians_a_chunk_of_steps_at_a_time_gives_the_same_numbers(kind, monkeypatch):
    """The chunked formation bounds the transient memory of a long sequence; its numbers are those of one pass to
    rounding: ≤ 1e-15 + 1e-14·|J| (the pre-activation GEMMs run on all steps at once, as before; an elementwise
    tanh or sigmoid rounds its vectorised body and scalar tail differently in the last bit, and where the tail falls
    depends on the chunk's length)."""
    import rnnaudit.analysis.torch_rnn_jacobians as closed
    from rnnaudit.bounds.architectures import sample_arch, trajectory

    case = sample_arch(torch.Generator().manual_seed(5), kind, 9, 23, layers=2, n=4)
    states = trajectory(case)
    monkeypatch.setattr(closed, "ROWS_CHUNK", 2 ** 40)
    whole = closed.stacked_step_jacobians(kind, case.weights, case.x, states)
    monkeypatch.setattr(closed, "ROWS_CHUNK", 5 * 18 * 22)  # 5 steps a pass
    chunked = closed.stacked_step_jacobians(kind, case.weights, case.x, states)
    for a, b in zip(whole, chunked, strict=True):
        assert torch.allclose(a, b, rtol=1e-14, atol=1e-15)
