"""wrap(): torch.nn RNNs, parametrized and geotorch weights, and the step protocol (cells/adapters.py).

Tolerances. The adapter performs torch's own operations in torch's order (same linear maps, the GRU's
(h − n) z + n), so outputs differ from the module's only by how BLAS blocks the products: a few units
of roundoff u ≈ 1.1e-16 per step on states of size ≤ 1, amplified at most by the (contracting to mildly
expanding) Jacobians over T ≤ 12 steps: ≲ 1e-14. We allow 1e-12. Jacobians: the map's products are
formed from the forward-mode step Jacobians, the reference by reverse-mode autograd through the
module's own forward; both are backward stable products of ≤ 10 factors of norm ≤ ~3, agreeing to
~1e-14 relative to the product's norm; the spectral values are certified to rtol = 1e-10. Hence
1e-8 relative (the issue's target) has a wide margin.
"""

import doctest

import geotorch
import pytest
import torch
from torch import nn
from torch.nn.utils import parametrizations

from rnnaudit.analysis.jacobian import hidden_jacobian_maps, input_jacobian_maps, step_jacobians
from rnnaudit.cells import GRU, SGORNN, RecurrentCell, adapters
from rnnaudit.cells.adapters import StepCell, TorchRecurrent, wrap

F64 = torch.float64
FORWARD_TOL = 1e-12
JACOBIAN_RTOL = 1e-8


def _x(batch, T, n, seed=1, scale=1.0):
    return torch.randn(batch, T, n, generator=torch.Generator().manual_seed(seed), dtype=F64) * scale


MODULES = {
    "rnn_tanh": lambda: nn.RNN(3, 5),
    "rnn_relu_2layers_bf": lambda: nn.RNN(3, 5, num_layers=2, nonlinearity="relu", batch_first=True),
    "rnn_nobias": lambda: nn.RNN(3, 5, bias=False),
    "gru": lambda: nn.GRU(3, 5, batch_first=True),
    "gru_3layers_nobias": lambda: nn.GRU(3, 4, num_layers=3, bias=False),
    "lstm": lambda: nn.LSTM(3, 5),
    "lstm_2layers_bf": lambda: nn.LSTM(3, 4, num_layers=2, batch_first=True),
    "lstm_proj": lambda: nn.LSTM(3, 6, proj_size=2, batch_first=True),
    "lstm_proj_2layers_nobias": lambda: nn.LSTM(3, 6, num_layers=2, proj_size=3, bias=False),
}
CELL_MODULES = {"rnncell": lambda: nn.RNNCell(3, 5, nonlinearity="relu"), "grucell": lambda: nn.GRUCell(3, 5),
                "lstmcell": lambda: nn.LSTMCell(3, 5)}


def _module(factory, seed=0):
    torch.manual_seed(seed)
    return factory().double().eval()


def _run_module(module, x, state):
    """The module's own forward on batch-first x (batch, T, n) from torch-format state; returns the
    top layer's outputs (batch, T, ·) and the final torch-format state."""
    if isinstance(module, (nn.RNNCell, nn.GRUCell, nn.LSTMCell)):
        outs = []
        for x_t in x.unbind(1):
            state = module(x_t, state)
            outs.append(state[0] if isinstance(state, tuple) else state)
        return torch.stack(outs, 1), state
    xin = x if module.batch_first else x.transpose(0, 1)
    out, state = module(xin, state)
    return (out if module.batch_first else out.transpose(0, 1)), state


# ----------------------------------------------------------------------------- forward

@pytest.mark.parametrize("name", list(MODULES) + list(CELL_MODULES))
def test_wrapped_forward_reproduces_the_module_to_1e12(name):
    module = _module({**MODULES, **CELL_MODULES}[name])
    cell = wrap(module)
    assert isinstance(cell, TorchRecurrent) and cell.module is module
    x = _x(2, 12, 3)
    h0 = torch.randn(2, cell.hidden_size, dtype=F64, generator=torch.Generator().manual_seed(3)) * 0.5
    states = cell(x, h0)
    out, final = _run_module(module, x, cell.unpack_state(h0))
    top = list(cell.state_slices().values())[cell.num_layers - 1]  # the last layer's h
    assert (states[..., top] - out).abs().max() <= FORWARD_TOL
    assert (states[:, -1] - cell.pack_state(final)).abs().max() <= FORWARD_TOL
    # the step loop of the base class computes the same as the faster forward
    assert (RecurrentCell.forward(cell, x, h0) - states).abs().max() <= FORWARD_TOL


def test_state_packing_order_is_layers_then_h_before_c():
    cell = wrap(_module(MODULES["lstm_proj_2layers_nobias"]))  # L = 2, H = 6, P = 3
    assert cell.hidden_size == 2 * (3 + 6)
    assert cell.state_slices() == {"l0.h": slice(0, 3), "l1.h": slice(3, 6), "l0.c": slice(6, 12),
                                   "l1.c": slice(12, 18)}
    h_n = torch.arange(2 * 4 * 3, dtype=F64).reshape(2, 4, 3)
    c_n = -torch.arange(2 * 4 * 6, dtype=F64).reshape(2, 4, 6)
    packed = cell.pack_state((h_n, c_n))
    assert torch.equal(packed[1, 3:6], h_n[1, 1]) and torch.equal(packed[2, 12:18], c_n[1, 2])
    back = cell.unpack_state(packed)
    assert torch.equal(back[0], h_n) and torch.equal(back[1], c_n)
    gru = wrap(_module(MODULES["gru_3layers_nobias"]))
    assert gru.state_slices() == {"l0.h": slice(0, 4), "l1.h": slice(4, 8), "l2.h": slice(8, 12)}
    assert wrap(_module(CELL_MODULES["lstmcell"])).state_slices() == {"h": slice(0, 5), "c": slice(5, 10)}


def test_pack_state_rejects_wrong_parts():
    cell = wrap(_module(MODULES["lstm"]))
    with pytest.raises(ValueError, match=r"a pair \(h, c\)"):
        cell.pack_state(torch.zeros(1, 2, 5))
    with pytest.raises(ValueError, match=r"shape \(1, batch, 5\)"):
        cell.pack_state((torch.zeros(1, 2, 4), torch.zeros(1, 2, 5)))
    with pytest.raises(ValueError, match=r"\(batch, 10\)"):
        cell.unpack_state(torch.zeros(2, 9))


def test_torch_gru_resets_after_the_recurrent_product_unlike_nc_gru_eq1():
    """With the same weights (u = 1 − z via negated z weights, b_hn = 0), nc_gru.md eq. 1's
    U_c(r ⊙ h) and torch's r ⊙ (W_hn h) agree only where r = 1: the adapter models torch's form."""
    torch.manual_seed(4)
    module = nn.GRU(3, 5, batch_first=True).double()
    ours = GRU(3, 5, dtype=F64)
    Wr, Wz, Wn = module.weight_ih_l0.chunk(3)
    Ur, Uz, Un = module.weight_hh_l0.chunk(3)
    bir, biz, bin_ = module.bias_ih_l0.chunk(3)
    bhr, bhz, _ = module.bias_hh_l0.chunk(3)
    with torch.no_grad():
        module.bias_hh_l0[10:].zero_()  # b_hn = 0: eq. 1 has no bias inside the reset
        for p, v in ((ours.W_r, Wr), (ours.W_u, -Wz), (ours.W_c, Wn), (ours.U_r, Ur), (ours.U_u, -Uz),
                     (ours.U_c, Un), (ours.b_r, bir + bhr), (ours.b_u, -(biz + bhz)), (ours.b_c, bin_)):
            p.copy_(v)
    x = _x(2, 8, 3)
    wrapped = wrap(module)
    assert (wrapped(x) - module(x)[0]).abs().max() <= FORWARD_TOL
    assert (ours(x) - module(x)[0]).abs().max() > 1e-3  # the reset placement differs
    with torch.no_grad():  # r ≡ 1: both forms coincide
        module.bias_ih_l0[:5].fill_(1e3)
        ours.b_r.fill_(1e3)
    assert (ours(x) - wrapped(x)).abs().max() <= FORWARD_TOL


# ----------------------------------------------------------------------------- Jacobians against the module

def _reference_jacobian(module, cell, x, states, s, t):
    """∂h_t/∂h_s by autograd through the module itself, run from the packed state h_s."""
    def h_t_of(h_s):
        if t == s:
            return h_s
        _, final = _run_module(module, x[:, s:t], cell.unpack_state(h_s[None]))
        return cell.pack_state(final)[0]
    return torch.autograd.functional.jacobian(h_t_of, states[s].clone())


def _check_against_module(module, cell, x, pairs=None):
    T = x.shape[1]
    maps = hidden_jacobian_maps(cell, x, norms=("spectral", "frobenius"))
    states = torch.cat([cell.initial_state(x, None), cell(x)[0]]).detach()
    pairs = pairs or [(s, t) for s in range(T + 1) for t in range(s, T + 1)]
    for s, t in pairs:
        ref = _reference_jacobian(module, cell, x, states, s, t)
        sv = torch.linalg.svdvals(ref)
        assert float(maps.spectral[t, s]) == pytest.approx(float(sv[0]), rel=JACOBIAN_RTOL), (s, t)
        assert float(maps.frobenius[t, s]) == pytest.approx(float(sv.square().sum().sqrt()), rel=JACOBIAN_RTOL)
    # the matrices themselves, not only their norms: the product of the step Jacobians over (0, T]
    J, _ = step_jacobians(cell, x)
    P = torch.eye(cell.hidden_size, dtype=F64)
    for J_t in J:
        P = J_t @ P
    ref = _reference_jacobian(module, cell, x, states, 0, T)
    assert (P - ref).abs().max() <= JACOBIAN_RTOL * torch.linalg.matrix_norm(ref, 2)


@pytest.mark.parametrize("name", ["gru", "lstm_2layers_bf", "lstm_proj", "rnn_relu_2layers_bf", "gru_3layers_nobias"])
def test_jacobian_map_of_wrapped_module_matches_autograd_through_the_module(name):
    module = _module(MODULES[name])
    _check_against_module(module, wrap(module), _x(1, 8, 3))


@pytest.mark.parametrize("name", list(CELL_MODULES))
def test_jacobian_map_of_wrapped_torch_cells_matches_autograd(name):
    module = _module(CELL_MODULES[name])
    _check_against_module(module, wrap(module), _x(1, 6, 3))


@pytest.mark.parametrize("name", ["lstm_2layers_bf", "gru"])
def test_input_jacobian_map_of_wrapped_module_matches_autograd_through_the_module(name):
    """‖∂h_τ/∂x_t‖ (h_τ the packed state, for an LSTM the (h, c) of both layers) against autograd
    through the module's own forward over x_t..x_τ from the state h_{t−1}."""
    module = _module(MODULES[name])
    cell = wrap(module)
    x = _x(1, 7, 3)
    maps = input_jacobian_maps(cell, x, norms=("spectral", "frobenius"))
    states = torch.cat([cell.initial_state(x, None), cell(x)[0]]).detach()
    for t in range(1, 8):
        for tau in range(t, 8):
            def h_tau_of(x_t):
                xs = torch.cat([x_t[None, None], x[:, t:tau]], dim=1)  # x_t, x_{t+1}, ..., x_τ
                _, final = _run_module(module, xs, cell.unpack_state(states[t - 1][None]))
                return cell.pack_state(final)[0]
            sv = torch.linalg.svdvals(torch.autograd.functional.jacobian(h_tau_of, x[0, t - 1].clone()))
            assert float(maps.spectral[tau, t]) == pytest.approx(float(sv[0]), rel=JACOBIAN_RTOL), (tau, t)
            assert float(maps.frobenius[tau, t]) == pytest.approx(float(sv.square().sum().sqrt()), rel=JACOBIAN_RTOL)


def test_probes_accept_a_bare_torch_module():
    """The probes wrap a torch.nn RNN themselves (the first thing a new user tries)."""
    module = _module(MODULES["gru"])
    x = _x(1, 10, 3)
    assert torch.equal(hidden_jacobian_maps(module, x).spectral, hidden_jacobian_maps(wrap(module), x).spectral)
    assert input_jacobian_maps(module, x).spectral.shape == (11, 11)


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
def test_rnn_with_parametrizations_orthogonal_matches_autograd_and_reads_the_weight_at_call_time(orthogonal_map):
    module = _module(lambda: nn.RNN(3, 6, batch_first=True))
    parametrizations.orthogonal(module, "weight_hh_l0", orthogonal_map=orthogonal_map)
    cell = wrap(module)
    W = cell.recurrent_matrix()
    assert torch.allclose(W.mT @ W, torch.eye(6, dtype=F64), atol=1e-12)
    assert torch.equal(W, module.weight_hh_l0)
    x = _x(1, 8, 3)
    _check_against_module(module, cell, x)
    # change the trainable original: the wrapped cell sees the new weight, no stale copy
    before = cell(x)
    with torch.no_grad():
        module.parametrizations.weight_hh_l0.original.add_(0.3 * torch.randn(6, 6, dtype=F64))
    assert not torch.equal(cell.recurrent_matrix(), W)
    assert torch.equal(cell.recurrent_matrix(), module.weight_hh_l0)
    assert (cell(x) - module(x)[0]).abs().max() <= FORWARD_TOL
    assert (cell(x) - before).abs().max() > 1e-6
    assert "W_hh.original" in cell.parameters_by_role() and "W_hh" not in cell.parameters_by_role()


def test_gru_with_an_orthogonal_recurrent_weight_matches_autograd():
    module = _module(MODULES["gru"])
    parametrizations.orthogonal(module, "weight_hh_l0")  # (15, 5): orthonormal columns
    cell = wrap(module)
    _check_against_module(module, cell, _x(1, 6, 3))
    blocks = cell.recurrent_matrices()
    assert list(blocks) == ["W_hr", "W_hz", "W_hn"]
    assert torch.equal(torch.cat(list(blocks.values())), module.weight_hh_l0)


def test_geotorch_constrained_rnn_matches_autograd():
    module = _module(lambda: nn.RNN(3, 6, batch_first=True))
    geotorch.orthogonal(module, "weight_hh_l0")
    cell = wrap(module)
    W = cell.recurrent_matrix()
    assert torch.allclose(W.mT @ W, torch.eye(6, dtype=F64), atol=1e-12)
    _check_against_module(module, cell, _x(1, 8, 3))
    geotorch_weight = module.weight_hh_l0
    with torch.no_grad():
        module.weight_hh_l0 = torch.linalg.qr(torch.randn(6, 6, dtype=F64))[0]  # geotorch's right inverse
    assert not torch.allclose(cell.recurrent_matrix(), geotorch_weight)
    assert torch.allclose(cell.recurrent_matrix(), module.weight_hh_l0, atol=0)


# ----------------------------------------------------------------------------- roles

def test_recurrent_matrices_and_roles_are_named_per_gate_and_layer():
    gru = wrap(_module(MODULES["gru_3layers_nobias"]))
    assert list(gru.recurrent_matrices()) == [f"l{k}.{r}" for k in range(3) for r in ("W_hr", "W_hz", "W_hn")]
    assert torch.equal(gru.recurrent_matrices()["l1.W_hz"], gru.module.weight_hh_l1[4:8])
    assert set(gru.parameters_by_role()) == {f"l{k}.{w}{g}" for k in range(3) for w in ("W_i", "W_h")
                                             for g in "rzn"}
    lstm = wrap(_module(MODULES["lstm_proj"]))
    assert list(lstm.recurrent_matrices()) == ["W_hi", "W_hf", "W_hg", "W_ho"]
    assert lstm.recurrent_matrices()["W_hg"].shape == (6, 2)
    roles = lstm.parameters_by_role()
    assert {"W_ii", "b_ho", "W_hr"} <= set(roles) and roles["W_hr"] is lstm.module.weight_hr_l0
    rnn = wrap(_module(MODULES["rnn_tanh"]))
    assert list(rnn.recurrent_matrices()) == ["W_hh"] and rnn.recurrent_matrix() is rnn.module.weight_hh_l0
    assert set(rnn.parameters_by_role()) == {"W_ih", "W_hh", "b_ih", "b_hh"}
    with pytest.raises(ValueError, match=r"3 recurrent matrices \['W_hn', 'W_hr', 'W_hz'\]"):
        wrap(_module(MODULES["gru"])).recurrent_matrix()
    with pytest.raises(NotImplementedError, match="state_dict"):
        rnn.config()


def test_frozen_tensors_are_not_roles():
    module = _module(MODULES["lstm"])
    module.bias_hh_l0.requires_grad_(False)
    assert not any(r.startswith("b_h") for r in wrap(module).parameters_by_role())


# ----------------------------------------------------------------------------- refusals

def test_unsupported_modules_and_settings_are_refused_by_name():
    with pytest.raises(ValueError, match="wrap\\(\\) supports torch.nn.RNN, GRU, LSTM, RNNCell.*got Linear"):
        wrap(nn.Linear(3, 4))
    with pytest.raises(ValueError, match="got int"):
        wrap(3)
    with pytest.raises(ValueError, match="bidirectional"):
        wrap(nn.GRU(3, 4, bidirectional=True))
    with pytest.raises(ValueError, match=r"leave out \['state_size'\]"):
        wrap(nn.GRU(3, 4), state_size=4)
    module = nn.GRU(3, 4, num_layers=2, dropout=0.5).double()  # training mode by default
    with pytest.raises(ValueError, match="training mode with dropout=0.5.*module.eval\\(\\)"):
        wrap(module)(_x(1, 3, 3))
    assert wrap(module.eval())(_x(1, 3, 3)).shape == (1, 3, 8)


def test_wrap_refuses_sizes_whose_jacobians_cannot_be_allocated():
    """wrap(step, state_size=10¹²) was accepted and failed only at the first forward, in the allocator (8 TB): the
    (S, S) and (S, n) Jacobians every probe forms must fit the memory limit, checked from the sizes. Control: a
    small state is wrapped, and a size exactly at the limit is accepted."""
    from rnnaudit.cells import _validate

    def step(x, h):
        return h

    for kwargs, name in ((dict(input_size=2, state_size=10**12), "state_size = 1000000000000"),
                         (dict(input_size=10**12, state_size=4), "input_size = 1000000000000"),
                         (dict(input_size=2, state_sizes=(10**6, 10**6)), "state_size = 2000000")):
        with pytest.raises(ValueError, match=f"{name}.*Jacobians of one step need .* above the memory limit"):
            wrap(step, **kwargs)
    assert wrap(step, input_size=2, state_size=4).hidden_size == 4
    _validate.check_state_memory(2, 6)  # 8·6·8 = 384 bytes
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_validate, "memory_limit", lambda: 384)
        _validate.check_state_memory(2, 6)
        with pytest.raises(ValueError, match="state_size = 7"):
            _validate.check_state_memory(2, 7)


def test_a_recurrent_cell_passes_through_unchanged():
    cell = SGORNN(2, 8, dtype=F64)
    assert wrap(cell) is cell


# ----------------------------------------------------------------------------- the step protocol

def test_module_docstring_example_runs_as_written():
    """The 10-line example of cells/adapters.py, executed exactly as printed."""
    results = doctest.testmod(adapters, raise_on_error=False, verbose=False)
    assert results.attempted == 7 and results.failed == 0  # the example's 7 statements (the class is one)


class _TupleLSTM(nn.Module):
    """Someone else's LSTM-like cell with a tuple state and no rnnaudit base class."""

    def __init__(self, n, h):
        super().__init__()
        self.gates = nn.Linear(n + h, 4 * h, dtype=F64)

    def forward(self, x_t, state):
        h, c = state
        i, f, g, o = self.gates(torch.cat([x_t, h], -1)).chunk(4, -1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(c), c


def _check_step_module(cell, step, x):
    """Jacobian map of the wrapped step against autograd through the user's own step from h_s."""
    T = x.shape[1]
    maps = hidden_jacobian_maps(cell, x, norms=("spectral",))
    states = torch.cat([cell.initial_state(x, None), cell(x)[0]]).detach()
    for s, t in [(0, T), (2, 7), (5, 5), (1, T - 1)]:
        def h_t_of(h_s):
            state = h_s[None]
            for k in range(s, t):
                state = step(x[:, k], state)
            return state[0]
        ref = torch.linalg.svdvals(torch.autograd.functional.jacobian(h_t_of, states[s].clone()))[0]
        assert float(maps.spectral[t, s]) == pytest.approx(float(ref), rel=JACOBIAN_RTOL)


def test_custom_step_module_with_a_tuple_state_matches_autograd():
    torch.manual_seed(5)
    module = _TupleLSTM(3, 4)
    cell = wrap(module, input_size=3, state_sizes=(4, 4))
    assert isinstance(cell, StepCell) and cell.hidden_size == 8
    assert [n for n, _ in cell.named_parameters()] == ["module.gates.weight", "module.gates.bias"]

    def packed_step(x_t, packed):
        return torch.cat(module(x_t, tuple(packed.split(4, -1))), -1)
    _check_step_module(cell, packed_step, _x(1, 9, 3))
    # the same with pack/unpack functions
    by_functions = wrap(module, input_size=3, state_size=8, pack=lambda s: torch.cat(s, -1),
                        unpack=lambda p: (p[..., :4], p[..., 4:]))
    x = _x(2, 5, 3)
    assert torch.equal(by_functions(x), cell(x))


def test_step_method_and_plain_functions_and_bound_methods_are_wrapped():
    torch.manual_seed(6)
    W = torch.randn(4, 4, dtype=F64) * 0.5
    fn = wrap(lambda x_t, h: torch.tanh(h @ W.mT + x_t.sum(-1, keepdim=True)), input_size=2, state_size=4)
    assert fn._dtype() == F64 and fn(_x(1, 3, 2)).shape == (1, 3, 4)
    assert fn.parameters_by_role() == {}

    class Holder(nn.Module):
        def __init__(self):
            super().__init__()
            self.input_size, self.hidden_size = 2, 4
            self.U = nn.Parameter(W.clone())

        def advance(self, x_t, h):
            return torch.tanh(h @ self.U.mT + x_t.sum(-1, keepdim=True))

    holder = Holder()
    bound = wrap(holder.advance, input_size=2, state_size=4, recurrent={"U": "U", "twice": lambda: 2 * holder.U})
    assert bound.module is holder and set(bound.parameters_by_role()) == {"U"}
    assert torch.equal(bound(_x(1, 3, 2)), fn(_x(1, 3, 2)))
    assert torch.equal(bound.recurrent_matrices()["twice"], 2 * holder.U)
    _check_step_module(bound, holder.advance, _x(1, 9, 2))


def test_step_protocol_errors_say_what_to_pass():
    def step(x_t, h):
        return h

    with pytest.raises(ValueError, match=r"input_size is not known for a function: pass wrap\(..., input_size=...\)"):
        wrap(step, state_size=3)
    with pytest.raises(ValueError, match="state_size is not known"):
        wrap(step, input_size=3)
    with pytest.raises(ValueError, match="state_size must be an int >= 1, got 0"):
        wrap(step, input_size=3, state_size=0)
    with pytest.raises(ValueError, match="pack and unpack go together"):
        wrap(step, input_size=3, state_size=3, pack=lambda s: s)
    with pytest.raises(ValueError, match=r"state_size = 5 but state_sizes \(2, 2\) sum to 4"):
        wrap(step, input_size=3, state_size=5, state_sizes=(2, 2))
    with pytest.raises(ValueError, match="supports"):
        wrap(lambda x_t: x_t, input_size=3, state_size=3)  # one argument: not a step
    bad = wrap(lambda x_t, h: h[..., :2], input_size=3, state_size=3)
    with pytest.raises(ValueError, match=r"packed to shape \(1, 3\) \(batch, state_size=3\), got \(1, 2\)"):
        bad(_x(1, 2, 3))
    parts = wrap(lambda x_t, s: (s[0], s[1][..., :1]), input_size=3, state_sizes=(2, 2))
    with pytest.raises(ValueError, match=r"widths \(2, 2\) \(state_sizes\), got \(2, 1\)"):
        parts(_x(1, 2, 3))
    nothing = wrap(step, input_size=3, state_size=3)
    with pytest.raises(ValueError, match="none is declared: pass recurrent="):
        nothing.recurrent_matrix()
    with pytest.raises(ValueError, match="has no attribute 'rec.weight'"):
        wrap(step, input_size=3, state_size=3, recurrent={"W": "rec.weight"}).recurrent_matrices()
    with pytest.raises(NotImplementedError):
        nothing.config()


def test_a_custom_steps_recurrent_matrix_can_be_named_by_path_callable_or_tensor():
    """wrap(step, recurrent=...) takes an attribute path (read at every call), a function, or the tensor itself;
    anything else is refused at wrap() with one line naming the role. Control: without it, no matrix is declared."""

    class Step(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.rec = torch.nn.Linear(5, 5, bias=False, dtype=torch.float64)

        def step(self, x_t, h):
            return torch.tanh(x_t + self.rec(h))

    model = Step()
    W = model.rec.weight
    for source in ("rec.weight", lambda: model.rec.weight, W):
        cell = wrap(model, input_size=5, state_size=5, recurrent={"W": source})
        assert cell.recurrent_matrices()["W"] is W
    assert wrap(model, input_size=5, state_size=5).recurrent_matrices() == {}
    for bad, match in (({"W": 3}, "attribute path"), ({"W": torch.ones(5)}, "2-D"), (["rec.weight"], "dict"),
                       ({"": "rec.weight"}, "non-empty")):
        with pytest.raises(ValueError, match=match):
            wrap(model, input_size=5, state_size=5, recurrent=bad)


# ----------------------------------------------------------------------------- one direction of a bidirectional module

def test_one_direction_of_a_bidirectional_module_is_torchs_own_recurrence():
    """wrap(direction=) runs the direction's weights: forward on x, reverse on x reversed, as torch's output halves."""
    torch.manual_seed(4)
    bi = nn.GRU(2, 4, bidirectional=True, batch_first=True).double().eval()
    x = _x(2, 9, 2)
    out, _ = bi(x)
    forward, reverse = wrap(bi, direction="forward"), wrap(bi, direction="reverse")
    torch.testing.assert_close(forward(x), out[..., :4], rtol=1e-12, atol=1e-13)
    torch.testing.assert_close(reverse(x.flip(1)).flip(1), out[..., 4:], rtol=1e-12, atol=1e-13)
    assert torch.equal(reverse.recurrent_matrices()["W_hn"], bi.weight_hh_l0_reverse.chunk(3)[2])


def test_a_layer_of_a_stacked_bidirectional_lstm_reads_both_directions_of_the_layer_below():
    torch.manual_seed(5)
    bi = nn.LSTM(2, 3, num_layers=2, bidirectional=True, batch_first=True).double().eval()
    below = nn.LSTM(2, 3, bidirectional=True, batch_first=True).double().eval()
    below.load_state_dict({k: v for k, v in bi.state_dict().items() if "_l0" in k})
    x = _x(1, 8, 2)
    y0, _ = below(x)  # layer 0's outputs, both directions: layer 1's inputs (width 2·3)
    out, _ = bi(x)
    layer1_reverse = wrap(bi, direction="reverse", layer=1)
    assert layer1_reverse.input_size == 6 and layer1_reverse.state_slices() == {"h": slice(0, 3), "c": slice(3, 6)}
    torch.testing.assert_close(layer1_reverse(y0.flip(1)).flip(1)[..., :3], out[..., 3:], rtol=1e-12, atol=1e-13)
    torch.testing.assert_close(wrap(bi, direction="forward", layer=1)(y0)[..., :3], out[..., :3], rtol=1e-12,
                               atol=1e-13)


def test_direction_and_layer_are_refused_where_they_pick_nothing():
    bi2 = nn.GRU(3, 4, num_layers=2, bidirectional=True)
    with pytest.raises(ValueError, match="a bidirectional GRU is two recurrences.*direction='forward' or "
                                         "direction='reverse'"):
        wrap(nn.GRU(3, 4, bidirectional=True))
    with pytest.raises(ValueError, match="of 2 layers: layer k > 0 reads both directions.*pass layer=k too"):
        wrap(bi2, direction="forward")
    with pytest.raises(ValueError, match=r"layer must be an int in \[0, 1\]"):
        wrap(bi2, direction="forward", layer=2)
    with pytest.raises(ValueError, match="direction='reverse': the GRU is unidirectional"):
        wrap(nn.GRU(3, 4), direction="reverse")
    with pytest.raises(ValueError, match="direction must be 'forward' or 'reverse', got 'backward'"):
        wrap(bi2, direction="backward", layer=0)
    with pytest.raises(ValueError, match="direction= and layer= pick one recurrence of a torch.nn.RNN"):
        wrap(lambda x_t, h: h, input_size=2, state_size=2, direction="forward")
    with pytest.raises(ValueError, match="a GRUCell has one layer"):
        wrap(nn.GRUCell(3, 4), layer=0)
