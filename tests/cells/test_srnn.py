"""SRNN cell against srnn.md eq. 3–9 and the pMNIST model size of Sec. 4."""

import pytest
import torch
from torch import nn
from torch.func import functional_call, jacrev

from rnnaudit.cells.base import parameter_count
from rnnaudit.cells.orthogonal import orthogonality_defect
from rnnaudit.cells.srnn import SRNN, activation_derivative, eq9_closed_form, shift, shift_matrix
from tests.conftest import DEVICES

F64 = torch.float64
# float64 with sizes ≤ 8 and T ≤ 7: a handful of roundings of O(1) numbers, each ≈ 1e-16
TOL = 1e-13


def _cell(device="cpu", seed=0, **kw):
    kw.setdefault("fr_hidden", (4, 3))
    return SRNN(3, 5, generator=torch.Generator().manual_seed(seed), dtype=F64, device=device, **kw)


def _x(device="cpu", batch=2, T=6, seed=1):
    return torch.randn(batch, T, 3, dtype=F64, generator=torch.Generator().manual_seed(seed)).to(device)


def test_srnn_eq4_shift_matrix_is_the_printed_permutation_and_orthogonal():
    """Eq. 4: ones on the superdiagonal and at (d_h, 1); "a permutation matrix, it is also orthogonal"."""
    d = 6
    W_p = shift_matrix(d, dtype=F64)
    expected = torch.zeros(d, d, dtype=F64)
    expected[torch.arange(d - 1), torch.arange(1, d)] = 1
    expected[d - 1, 0] = 1
    assert torch.equal(W_p, expected)
    assert orthogonality_defect(W_p) == 0  # 0/1 entries: WᵀW = I exactly
    assert torch.equal(torch.linalg.matrix_power(W_p, d), torch.eye(d, dtype=F64))
    y = torch.randn(4, d, dtype=F64)
    assert torch.equal(shift(y), y @ W_p.mT)  # roll is exactly the matrix product (one 1 per row)
    assert torch.equal(_cell().recurrent_matrix(), shift_matrix(5, dtype=F64))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("activation", ["relu", "tanh"])
def test_srnn_eq3_forward_equals_explicit_permutation_matrix_multiply(device, activation):
    """Eq. 3 with a dense W_p and b evaluated step by step equals the roll-based batched forward."""
    cell, x = _cell(device, activation=activation), _x(device)
    h0 = torch.randn(2, 5, dtype=F64, device=device)
    W_p, sigma = cell.recurrent_matrix(), {"relu": torch.relu, "tanh": torch.tanh}[activation]
    h, ref = h0, []
    for t in range(x.shape[1]):
        h = sigma(h @ W_p.mT + cell.b(x[:, t]))
        ref.append(h)
    torch.testing.assert_close(cell(x, h0), torch.stack(ref, 1), rtol=0, atol=TOL)


def test_srnn_b_runs_once_on_all_time_steps():
    """Sec. 3 "Time complexity": b needs no hidden state, so forward calls it once on (batch, T, d_i)."""
    cell, x = _cell(), _x()
    calls = []
    handle = cell.b.register_forward_hook(lambda m, inp, out: calls.append(tuple(inp[0].shape)))
    cell(x)
    handle.remove()
    assert calls == [tuple(x.shape)]
    per_step = torch.stack([cell.b(x[:, t]) for t in range(x.shape[1])], 1)
    torch.testing.assert_close(cell.b(x), per_step, rtol=0, atol=TOL)


@pytest.mark.parametrize("gating", [True, False])
def test_srnn_eq5_b_is_mlp_times_sigmoid_gate(gating):
    """Eq. 5 and Fig. 1(b): b(x) = f_r(x) ⊙ sigmoid(W_s x + b_s), f_r an MLP with ReLU inside and an affine
    output; no gate in the Fig. 4 ablation."""
    cell, x = _cell(gating=gating), _x()
    roles = cell.parameters_by_role()
    a = x
    for k in (1, 2):
        a = torch.relu(a @ roles[f"f_r.W{k}"].mT + roles[f"f_r.b{k}"])
    f_r = a @ roles["f_r.W3"].mT + roles["f_r.b3"]
    expected = f_r * torch.sigmoid(x @ roles["W_s"].mT + roles["b_s"]) if gating else f_r
    torch.testing.assert_close(cell.b(x), expected, rtol=0, atol=TOL)
    assert ("W_s" in roles) == gating and roles["f_r.W1"].shape == (4, 3) and roles["f_r.W3"].shape == (5, 3)


def test_srnn_eq6_readout_is_affine():
    cell = _cell(output_size=2)
    h = torch.randn(3, 5, dtype=F64)
    torch.testing.assert_close(cell.readout(h), h @ cell.s.weight.mT + cell.s.bias, rtol=0, atol=TOL)
    role_ids = set(map(id, cell.parameters_by_role().values()))
    assert role_ids.isdisjoint(map(id, cell.s.parameters()))  # s is a readout, not a recurrence role


def test_srnn_pmnist_model_has_about_50k_parameters():
    """Sec. 4 pMNIST: d_h = 1024, f_r with three hidden layers of 32, scalar pixels in, 10 classes out;
    "SRNN ... had 50k parameters". The paper rounds, so 5 % slack (the count is 48,266)."""
    count = parameter_count(SRNN(1, 1024, fr_hidden=(32, 32, 32), output_size=10))
    assert abs(count - 50_000) / 50_000 < 0.05


@pytest.mark.parametrize("activation", ["relu", "tanh"])
def test_srnn_step_equals_forward(activation):
    cell, x = _cell(activation=activation), _x()
    h, states = torch.zeros(2, 5, dtype=F64), []
    for t in range(x.shape[1]):
        h = cell.step(x[:, t], h)
        states.append(h)
    torch.testing.assert_close(cell(x), torch.stack(states, 1), rtol=0, atol=TOL)


def _autograd_jacobian(cell, x, h0=None):
    names = {id(p): n for n, p in cell.named_parameters()}
    params = {n: p.detach() for n, p in cell.named_parameters()}
    J = jacrev(lambda prm: functional_call(cell, prm, (x, h0)))(params)
    return {role: J[names[id(p)]] for role, p in cell.parameters_by_role().items()}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("activation,gating", [("relu", True), ("tanh", True), ("tanh", False)])
def test_srnn_eq9_closed_form_equals_autograd(device, activation, gating):
    """The closed form (corrected eq. 9) of ∂h_t/∂θ for every parameter θ of b equals autograd through
    the whole cell, with and without an h_0."""
    cell, x = _cell(device, activation=activation, gating=gating), _x(device, T=7)
    h0 = torch.rand(2, 5, dtype=F64, device=device)
    for h in (None, h0):
        closed, auto = cell.eq9_jacobian(x, h), _autograd_jacobian(cell, x, h)
        assert closed.keys() == auto.keys()
        for role in closed:
            torch.testing.assert_close(closed[role], auto[role], rtol=0, atol=TOL, msg=role)


def _eq9_as_printed(sigma_prime, db):
    """Eq. 9 read literally: Σ_i σ'(z_i) (∏_{j=1}^{i−1} W_p σ'(z_j)) ∂b(x_i)/∂θ, product left to right."""
    out = []
    for t in range(db.shape[1]):
        total = 0
        for i in range(t + 1):
            term = db[:, i]
            for j in reversed(range(i)):  # rightmost factor W_p D_{i−1} acts first
                term = shift(term * sigma_prime[:, j, :, None], dim=-2)
            total = total + sigma_prime[:, i, :, None] * term
        out.append(total)
    return torch.stack(out, 1)


def test_srnn_eq8_eq9_as_printed_disagree_with_autograd():
    """Inconsistency: eq. 8 writes W_p σ'(z_t) ∂h_{t−1}/∂b_k, but differentiating eq. 3 gives
    σ'(z_t) W_p ∂h_{t−1}/∂b_k (D_t W_p ≠ W_p D_t unless D_t is constant); eq. 9 then runs the product over
    j = 1..i−1, the steps before input i, instead of j = t..i+1, the steps after it. The literal eq. 9 agrees
    with autograd only at t = 1; the corrected form (:func:`eq9_closed_form`) agrees everywhere."""
    cell, x = _cell(activation="tanh"), _x(T=5)
    z, _ = cell.preactivations(x)
    sp = activation_derivative("tanh", z.detach())
    db = jacrev(lambda w: functional_call(cell.b, {"gate.weight": w}, (x,)))(cell.b.gate.weight.detach())
    db = db.reshape(*db.shape[:3], -1)
    auto = _autograd_jacobian(cell, x)["W_s"].reshape(db.shape)
    printed, corrected = _eq9_as_printed(sp, db), eq9_closed_form(sp, db)
    torch.testing.assert_close(corrected, auto, rtol=0, atol=TOL)
    torch.testing.assert_close(printed[:, 0], auto[:, 0], rtol=0, atol=TOL)
    # the discrepancy is O(1), far above rounding
    assert (printed[:, 1:] - auto[:, 1:]).abs().max() > 1e-2
    D, W_p = torch.diag(sp[0, 0]), shift_matrix(5, dtype=F64)
    assert (D @ W_p - W_p @ D).abs().max() > 1e-2


def test_srnn_bad_input_raises_value_error():
    cell = _cell()
    good = _x()
    for bad, match in [(good[..., :2], "input width"), (good[:, :0], "T >= 1"), (good.float(), "dtype"),
                       (good[0], "shape"), (good.clone().fill_(float("nan")), "finite")]:
        with pytest.raises(ValueError, match=match):
            cell(bad)
    with pytest.raises(ValueError, match="h0"):
        cell(good, torch.zeros(2, 4, dtype=F64))
    with pytest.raises(ValueError, match="x_t"):
        cell.step(good[:, 0, :2], torch.zeros(2, 5, dtype=F64))
    with pytest.raises(ValueError, match="output map"):
        cell.readout(torch.zeros(1, 5, dtype=F64))
    with pytest.raises(ValueError, match="sigma_prime"):
        eq9_closed_form(torch.zeros(2, 3, 5), torch.zeros(2, 3, 4, 1))
    for kwargs, match in [(dict(input_size=0, hidden_size=5), "input_size"),
                          (dict(input_size=3, hidden_size=5, fr_hidden=(0,)), "fr_hidden"),
                          (dict(input_size=3, hidden_size=5, activation="elu"), "activation"),
                          (dict(input_size=3, hidden_size=5, output_size=0), "output_size")]:
        with pytest.raises(ValueError, match=match):
            SRNN(**kwargs)
    with pytest.raises(ValueError, match="d_h"):
        shift_matrix(0)


@pytest.mark.gpu
def test_srnn_cuda_matches_cpu():
    cpu = _cell()
    gpu = _cell("cuda")
    gpu.load_state_dict(cpu.state_dict())
    x = _x()
    torch.testing.assert_close(gpu(x.cuda()).cpu(), cpu(x), rtol=0, atol=TOL)


def test_srnn_parameters_by_role_are_the_b_network():
    cell = _cell()
    assert set(map(id, cell.parameters_by_role().values())) == set(map(id, cell.b.parameters()))
    assert isinstance(cell.b.f_r[-1], nn.Linear)  # affine last layer: b can be negative (Sec. 3)


@pytest.mark.parametrize("name", ["relu", "leaky_relu", "tanh", "identity"])
def test_activation_derivative_equals_autograd(name):
    """The closed-form σ' used by eq. 9 (srnn.md Sec. 3) equals autograd's derivative, z = 0
    included (both take the left slope there), for every activation the cells accept."""
    from rnnaudit.cells.base import get_activation
    z = torch.tensor([-2.0, -1e-3, 0.0, 1e-3, 3.0], dtype=torch.float64, requires_grad=True)
    (auto,) = torch.autograd.grad(get_activation(name)(z).sum(), z)
    # elementwise derivatives of smooth pieces: exact up to tanh's rounding (a few ulps)
    torch.testing.assert_close(activation_derivative(name, z.detach()), auto, rtol=1e-15, atol=1e-15)


def test_activation_derivative_rejects_an_activation_without_closed_form():
    with pytest.raises(ValueError, match="activation"):
        activation_derivative("softplus", torch.zeros(3, dtype=torch.float64))
