"""Spectral-RNN, oRNN and SpectralLinear (cells/spectral.py) against spectral_rnn.md.

Tolerances: everything runs in float64 (unit roundoff 1.1e-16) with n ≤ 8, so each compared entry is an O(1)
quantity built from a few hundred flops: 1e-12 (≈ 10⁴ ε) bounds rounding with a wide margin for the
matrix identities, and gradients use the brief's rtol 1e-10 with atol 1e-12 for entries that are ≈ 0.
"""

from __future__ import annotations

import pytest
import torch

from rnnaudit.cells.base import parameter_count
from rnnaudit.cells.orthogonal import orthogonality_defect
from torch.utils.flop_counter import FlopCounterMode

from rnnaudit.cells.spectral import (ORNN, SpectralLinear, SpectralRNN, WYFactors, compact_wy, householder_backward,
                                     householder_forward, householder_matrix, ornn_parameter_count, pack_reflectors,
                                     reflect, reflect_grad, reflector_product, spectral_rnn_parameter_count,
                                     unpack_reflectors, wy_apply, wy_factors, wy_recurrence)
from tests.conftest import DEVICES

F64 = torch.float64
TOL = 1e-12
GRAD = {"rtol": 1e-10, "atol": 1e-12}
device_param = pytest.mark.parametrize("device", DEVICES)


def _gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _randn(*shape, g, device="cpu"):
    return torch.randn(*shape, generator=g, dtype=F64).to(device)


def _padded(n: int, m: int, g, device="cpu") -> torch.Tensor:
    """Random (û_n | … | û_{n−m+1}) with structural zeros above the diagonal."""
    return unpack_reflectors(_randn(m * n - m * (m - 1) // 2, g=g), n, m).to(device)


def _spectral(n=6, n_i=3, m1=4, m2=5, *, n_y=0, r=0.3, activation="tanh", device="cpu", seed=0, cls=SpectralRNN):
    """A float64 cell with non-trivial σ̂ and b (built on the CPU from a seeded generator, then moved)."""
    g = _gen(seed)
    kw = dict(activation=activation, output_size=n_y, generator=g, dtype=F64)
    cell = cls(n_i, n, m1, **kw) if cls is ORNN else cls(n_i, n, m1, m2, r=r, **kw)
    with torch.no_grad():
        if cell.sigma_hat is not None:
            cell.sigma_hat.copy_(_randn(n, g=g))
        cell.b.copy_(0.1 * _randn(n, g=g))
    return cell.to(device)


# ------------------------------------------------------------------------------------------- reflectors
@device_param
def test_householder_eq1_is_symmetric_involution_with_one_negative_eigenvalue(device):
    """Eq. 1: H_k^n(u) = diag(I_{n−k}, I_k − 2uuᵀ/‖u‖²) is symmetric, H² = I, eigenvalues 1 (n−1 times) and −1.

    Paper inconsistency: eq. 1 as transcribed reads "I_{k−2} uuᵀ/‖u‖²"; only the factor-2 reading of eq. 8 /
    Algorithm 2 (I − 2ûûᵀ/ûᵀû) has the properties the text states (H² = I, one eigenvalue −1), so that is the
    definition implemented. u = 0 gives I_n (eq. 1's second case), and Hprod (Algorithm 2) equals H h.
    """
    g, n = _gen(1), 7
    eye = torch.eye(n, dtype=F64, device=device)
    for k in range(1, n + 1):
        u = _randn(k, g=g, device=device)
        H = householder_matrix(u, n)
        assert torch.allclose(H, H.mT, rtol=0, atol=TOL)
        assert torch.allclose(H @ H, eye, rtol=0, atol=TOL)
        expected = torch.ones(n, dtype=F64, device=device)
        expected[0] = -1
        assert torch.allclose(torch.linalg.eigvalsh(H), expected, rtol=0, atol=TOL)
        assert torch.equal(H[: n - k, :], eye[: n - k, :])  # the first n − k coordinates are untouched
        h = _randn(4, n, g=g, device=device)
        u_hat = torch.cat([u.new_zeros(n - k), u])
        assert torch.allclose(reflect(h, u_hat), h @ H.mT, rtol=0, atol=TOL)
    assert torch.equal(householder_matrix(torch.zeros(3, dtype=F64, device=device), n), eye)


@device_param
def test_reflector_product_is_eq2_product_and_matches_householder_product(device):
    """reflector_product (torch.linalg.householder_product) = H_n(u_n) … H_{n−m+1}(u_{n−m+1}) (eq. 2, U of
    eq. 6) for m = 0..n, including a zero reflector (H = I) and a reflector with zero leading entry (the
    fallback path that applies eq. 8 one reflector at a time); pack/unpack are inverse."""
    g, n = _gen(2), 6
    for m, special in [(m, s) for m in range(n + 1) for s in (False, True)]:
        u_hat = _padded(n, m, g, device)
        if special and m >= 2:
            u_hat[:, 1] = 0  # u_{n−1} = 0
        if special and m >= 4:
            u_hat[3, 3] = 0  # u_{n−3} ≠ 0 with zero first entry
        dense = torch.eye(n, dtype=F64, device=device)
        for j in range(m):  # left to right: H_n first in the written product
            dense = dense @ householder_matrix(u_hat[j:, j], n)
        assert torch.allclose(reflector_product(u_hat), dense, rtol=0, atol=TOL)
        assert torch.equal(unpack_reflectors(pack_reflectors(u_hat), n, m), u_hat)


@device_param
def test_ornn_recurrent_matrix_is_orthogonal(device):
    """oRNN (σ = 1, Sec. 4): W = H_n(u_n) … H_{n−m+1}(u_{n−m+1}) is orthogonal to 1e-12 for m = 1..n, and so
    is Spectral-RNN's W with r = 0, σ* = 1 (σ = 1 exactly, eq. 7)."""
    for m in (1, 4, 8):
        W = _spectral(n=8, m1=m, cls=ORNN, device=device).recurrent_matrix()
        assert orthogonality_defect(W).item() < TOL
    W = _spectral(n=8, m1=3, m2=6, r=0.0, device=device).recurrent_matrix()
    assert orthogonality_defect(W).item() < TOL


@device_param
def test_singular_values_are_sigma_within_eq7_range(device):
    """W = U diag(σ) Vᵀ has singular values exactly σ (eq. 6), and eq. 7 keeps σ in [σ* − r, σ* + r] even for
    saturated σ̂ = ±40; the same holds for the rectangular W of eq. 15 (both out < in and out > in)."""
    cell = _spectral(n=7, m1=3, m2=7, r=0.3, device=device)
    sv = torch.linalg.svdvals(cell.recurrent_matrix())
    assert torch.allclose(sv, cell.sigma.sort(descending=True).values, rtol=0, atol=TOL)
    with torch.no_grad():
        cell.sigma_hat.copy_(torch.linspace(-40, 40, 7, dtype=F64))
    s = cell.sigma
    assert bool((s >= 1 - 0.3 - TOL).all() and (s <= 1 + 0.3 + TOL).all())
    assert abs(s.min().item() - 0.7) < TOL and abs(s.max().item() - 1.3) < TOL
    for n_in, n_out in ((7, 4), (4, 7)):
        layer = SpectralLinear(n_in, n_out, r=0.5, sigma_star=2.0, generator=_gen(3), dtype=F64).to(device)
        with torch.no_grad():
            layer.sigma_hat.copy_(_randn(4, g=_gen(4), device=device))
        W = layer.weight()
        assert W.shape == (n_out, n_in)
        assert torch.allclose(torch.linalg.svdvals(W), layer.sigma.sort(descending=True).values, rtol=0, atol=TOL)


# ------------------------------------------------------------------------------------------- forward
@device_param
@pytest.mark.parametrize("cls", [SpectralRNN, ORNN])
def test_reflector_forward_equals_dense_forward_and_step(device, cls):
    """Eq. 4 with W h by the reflector recurrence (eq. 8) equals the dense-W recurrence and the default
    (compact WY) forward, and looping :meth:`step` (every method) reproduces :meth:`forward` (with a given h0
    too)."""
    cell = _spectral(n=6, m1=4, m2=5, cls=cls, device=device)
    g = _gen(5)
    x, h0 = _randn(3, 9, 3, g=g, device=device), _randn(3, 6, g=g, device=device)
    for init in (None, h0):
        hs = cell(x, init, method="reflectors")
        assert torch.allclose(hs, cell.forward_dense(x, init), rtol=0, atol=TOL)
        assert torch.allclose(hs, cell(x, init), rtol=0, atol=TOL)
        for method in SpectralRNN.METHODS:
            h = torch.zeros_like(h0) if init is None else init
            for t in range(x.shape[1]):
                h = cell.step(x[:, t], h, method=method)
                assert torch.allclose(h, hs[:, t], rtol=0, atol=TOL)


@device_param
def test_spectral_linear_forward_equals_dense_weight(device):
    """Eq. 15 layer: reflector forward = x Wᵀ + b with the dense W = U Σ̂ Vᵀ, for square, wide and tall W and
    for fewer reflectors than the default."""
    g = _gen(6)
    for n_in, n_out, m1, m2 in ((5, 5, None, None), (8, 3, None, None), (3, 8, None, None), (8, 3, 2, 5)):
        layer = SpectralLinear(n_in, n_out, m1, m2, r=0.4, generator=g, dtype=F64).to(device)
        with torch.no_grad():
            layer.sigma_hat.copy_(_randn(min(n_in, n_out), g=g, device=device))
            layer.b.copy_(_randn(n_out, g=g, device=device))
        x = _randn(2, 4, n_in, g=g, device=device)
        assert torch.allclose(layer(x), x @ layer.weight().mT + layer.b, rtol=0, atol=TOL)


# ------------------------------------------------------------------------------------------- gradients
def _reflector_autograd(h, u_hat, g):
    h, u_hat = h.clone().requires_grad_(), u_hat.clone().requires_grad_()
    return torch.autograd.grad((reflect(h, u_hat) * g).sum(), (h, u_hat))


@device_param
def test_hgrad_algorithm3_matches_eq12_13_and_autograd(device):
    """Hgrad (Algorithm 3) = eq. 12 (∂L/∂h) and eq. 13 (∂L/∂û_k) = autograd, for a batch of h (û_k shared,
    so its gradient is the batch sum).

    Paper inconsistency: Algorithm 3's first line computes α = 2u_kᵀh̄/‖u_k‖² from h̄ = ∂L/∂h, which is only
    defined two lines later. The reading α = 2u_kᵀh/‖u_k‖² with h the reflector's input is right: it is
    eq. 13's coefficient of g, and it reproduces autograd to rtol 1e-10.
    """
    g_, n, k = _gen(7), 6, 4
    u_hat = torch.cat([torch.zeros(n - k, dtype=F64), _randn(k, g=g_)]).to(device)
    h, g = _randn(5, n, g=g_, device=device), _randn(5, n, g=g_, device=device)
    h_bar, u_bar = reflect_grad(h, u_hat, g)
    auto_h, auto_u = _reflector_autograd(h, u_hat, g)
    assert torch.allclose(h_bar, auto_h, **GRAD)
    assert torch.allclose(u_bar, auto_u, **GRAD)
    q = u_hat @ u_hat  # eq. 13 written out, one row at a time
    eq13 = sum(-2 * (u_hat @ hi) / q * gi - 2 * (u_hat @ gi) / q * hi + 4 * (u_hat @ hi) * (u_hat @ gi) / q**2 * u_hat
               for hi, gi in zip(h, g))
    assert torch.allclose(u_bar, eq13, **GRAD)


@device_param
def test_algorithm1_hgrad_on_u_needs_the_reflector_input(device):
    """Paper inconsistency: Algorithm 1's backward loop calls Hgrad(h_k^(u), u_k, g), but h_k^(u) is the
    *output* of H_k(u_k) (h_k^(u) = Hprod(h_{k−1}^(u), u_k)); its v loop passes the input h_{k+1}^(v).
    Passing the input h_{k−1}^(u) is right: it matches autograd, while the literal reading gives
    ∂L/∂û = αg − βh instead of −αg − βh + αβû (α flips sign on the output) and differs by O(1).
    ∂L/∂h does not depend on h, so only the u gradient is affected."""
    g_, n = _gen(8), 5
    u_hat, h, g = (_randn(n, g=g_, device=device), _randn(3, n, g=g_, device=device),
                   _randn(3, n, g=g_, device=device))
    _, auto_u = _reflector_autograd(h, u_hat, g)
    assert torch.allclose(reflect_grad(h, u_hat, g)[1], auto_u, **GRAD)
    literal = reflect_grad(reflect(h, u_hat), u_hat, g)[1]
    assert (literal - auto_u).norm() > 1e-2 * auto_u.norm()


@device_param
@pytest.mark.parametrize("n_out,n_in,m1,m2,with_sigma", [(6, 6, 4, 5, True), (6, 6, 6, 0, False),
                                                          (4, 7, 4, 4, True), (7, 4, 3, 4, True)])
def test_algorithm1_local_backward_matches_autograd(device, n_out, n_in, m1, m2, with_sigma):
    """Algorithm 1 (local FP/BP of h̃ = W h, eq. 9–13) returns ∂L/∂h, ∂L/∂U, ∂L/∂V, ∂L/∂σ̂ equal to autograd
    through the packed reflector parameters, for Spectral-RNN, oRNN (σ = 1, m2 = 0) and the rectangular
    W of eq. 15 (Sec. 5: "We can use the same forward/backward propagation algorithm")."""
    g_, r = _gen(9), 0.3
    U = _randn(m1 * n_out - m1 * (m1 - 1) // 2, g=g_, device=device).requires_grad_()
    V = _randn(m2 * n_in - m2 * (m2 - 1) // 2, g=g_, device=device).requires_grad_()
    sigma_hat = _randn(min(n_in, n_out), g=g_, device=device).requires_grad_()
    h = _randn(3, n_in, g=g_, device=device).requires_grad_()
    g = _randn(3, n_out, g=g_, device=device)
    U_hat, V_hat = unpack_reflectors(U, n_out, m1), (unpack_reflectors(V, n_in, m2) if m2 else None)
    sigma = 2 * r * (torch.sigmoid(sigma_hat) - 0.5) + 1 if with_sigma else None
    out, trace = householder_forward(h, U_hat, sigma, V_hat)
    leaves = [h, U] + ([V] if m2 else []) + ([sigma_hat] if with_sigma else [])
    auto = torch.autograd.grad((out * g).sum(), leaves)
    alg = householder_backward(g, U_hat.detach(), None if sigma is None else sigma.detach(),
                                None if V_hat is None else V_hat.detach(), trace, r=r,
                                sigma_hat=sigma_hat.detach() if with_sigma else None)
    mine = [alg["h"], pack_reflectors(alg["U"])] + ([pack_reflectors(alg["V"])] if m2 else []) \
        + ([alg["sigma_hat"]] if with_sigma else [])
    for a, b in zip(mine, auto):
        assert torch.allclose(a, b, **GRAD)


@device_param
def test_bptt_with_algorithm1_matches_module_autograd(device):
    """Back-propagation through time built from Algorithm 1 per step (plus eq. 4's φ' and M, b terms) gives
    the same ∂L/∂{U, V, σ̂, M, b, h0} as autograd through SpectralRNN.forward, for L = Σ_t ⟨c_t, h_t⟩."""
    cell = _spectral(n=6, n_i=3, m1=4, m2=5, activation="tanh", device=device)
    g_ = _gen(10)
    x, h0, c = (_randn(2, 7, 3, g=g_, device=device), _randn(2, 6, g=g_, device=device).requires_grad_(),
                _randn(2, 7, 6, g=g_, device=device))
    roles = cell.parameters_by_role()
    names = ["U", "V", "sigma_hat", "M", "b"]
    auto = dict(zip(names + ["h0"], torch.autograd.grad((cell(x, h0) * c).sum(), [roles[k] for k in names] + [h0])))

    with torch.no_grad():
        U_hat, sigma, V_hat, hs = cell.U_hat, cell.sigma, cell.V_hat, cell(x, h0)
        acc = {k: torch.zeros_like(v) for k, v in roles.items()}
        prev = [h0.detach()] + [hs[:, t] for t in range(x.shape[1] - 1)]
        dh = torch.zeros_like(h0)
        for t in reversed(range(x.shape[1])):
            da = (dh + c[:, t]) * (1 - hs[:, t] ** 2)  # tanh' at the pre-activation
            acc["M"] += da.mT @ x[:, t]
            acc["b"] += da.sum(0)
            _, trace = householder_forward(prev[t], U_hat, sigma, V_hat)
            local = householder_backward(da, U_hat, sigma, V_hat, trace, r=cell.r, sigma_hat=cell.sigma_hat)
            acc["U"] += pack_reflectors(local["U"])
            acc["V"] += pack_reflectors(local["V"])
            acc["sigma_hat"] += local["sigma_hat"]
            dh = local["h"]
    acc["h0"] = dh
    for k in names + ["h0"]:
        assert torch.allclose(acc[k], auto[k], **GRAD), k


# ------------------------------------------------------------------------------- compact WY fast path
def _max_err(a: torch.Tensor, b: torch.Tensor) -> float:
    """Normwise relative error max|a − b| / max(1, max|b|)."""
    return ((a - b).abs().max() / b.abs().max().clamp(min=1)).item() if b.numel() else 0.0


@device_param
def test_compact_wy_reproduces_eq2_reflector_product(device):
    """Sec. 4.2's blocked (level 3) form: H_n(u_n) … H_{n−m+1}(u_{n−m+1}) = I − Û T Ûᵀ with T upper triangular
    (m, m), for m = 0..n, including a zero reflector (H = I, T⁻¹ gets diagonal 1 there) and one whose leading
    entry is zero (no unit-lower LAPACK form; compact WY does not need one)."""
    g, n = _gen(12), 6
    eye = torch.eye(n, dtype=F64, device=device)
    for m, special in [(m, s) for m in range(n + 1) for s in (False, True)]:
        u_hat = _padded(n, m, g, device)
        if special and m >= 2:
            u_hat[:, 1] = 0
        if special and m >= 4:
            u_hat[3, 3] = 0
        T = compact_wy(u_hat)
        assert T.shape == (m, m) and torch.equal(T, torch.triu(T))
        assert torch.allclose(eye - u_hat @ T @ u_hat.mT, reflector_product(u_hat), rtol=0, atol=TOL)


@device_param
@pytest.mark.parametrize("n_out,n_in,m1,m2,with_sigma", [(6, 6, 4, 5, True), (6, 6, 6, 6, True), (6, 6, 0, 3, True),
                                                          (6, 6, 3, 0, True), (6, 6, 0, 0, True), (6, 6, 4, 0, False),
                                                          (4, 7, 4, 4, True), (7, 4, 3, 4, True)])
def test_wy_factors_give_eq6_and_eq15_W(device, n_out, n_in, m1, m2, with_sigma):
    """W = U Σ̂ Vᵀ (eq. 6, eq. 15 when rectangular, σ = 1 for oRNN) equals Σ̂ − Q Pᵀ from the compact WY forms
    of U and V, and W h by two width-(m1 + m2) matmuls equals Algorithm 1's reflector-by-reflector W h."""
    g = _gen(13)
    U_hat, V_hat = _padded(n_out, m1, g, device), (_padded(n_in, m2, g, device) if m2 else None)
    sigma = _randn(min(n_in, n_out), g=g, device=device) if with_sigma else None
    f = wy_factors(U_hat, sigma, V_hat)
    assert f.P.shape == (n_in, m1 + m2) and f.Q.shape == (n_out, m1 + m2)
    sig_hat = torch.zeros(n_out, n_in, dtype=F64, device=device)
    p = min(n_in, n_out)
    sig_hat[range(p), range(p)] = 1 if sigma is None else sigma
    V = torch.eye(n_in, dtype=F64, device=device) if V_hat is None else reflector_product(V_hat)
    W = reflector_product(U_hat) @ sig_hat @ V.mT
    assert torch.allclose(sig_hat - f.Q @ f.P.mT, W, rtol=0, atol=TOL)
    h = _randn(3, 2, n_in, g=g, device=device)
    assert torch.allclose(wy_apply(h, f), householder_forward(h, U_hat, sigma, V_hat)[0], rtol=0, atol=TOL)


def _forward_and_grads(cell, x, h0, c, method):
    params = [p for p in cell.parameters() if p.numel()]
    hs = cell(x, h0, method=method)
    return hs, torch.autograd.grad((hs * c).sum(), params + [h0])


@device_param
@pytest.mark.parametrize("cls,m1,m2,activation", [(SpectralRNN, 3, 3, "relu"), (SpectralRNN, 2, 5, "tanh"),
                                                  (SpectralRNN, 6, 6, "relu"), (SpectralRNN, 6, 6, "identity"),
                                                  (SpectralRNN, 0, 0, "relu"), (SpectralRNN, 0, 4, "tanh"),
                                                  (SpectralRNN, 4, 0, "relu"), (ORNN, 4, 0, "relu"),
                                                  (ORNN, 6, 0, "tanh"), (ORNN, 0, 0, "relu"),
                                                  (SpectralRNN, 3, 4, "leaky_relu"), (ORNN, 4, 0, "leaky_relu")])
def test_wy_fast_path_equals_reflector_and_dense_paths_with_gradients(device, cls, m1, m2, activation):
    """Eq. 4 run four ways: compact WY with hand-written BPTT (default), compact WY recorded by autograd,
    eq. 8 reflector by reflector (the paper's Algorithm 1 forward, differentiated by autograd) and dense W.
    Hidden states agree to 1e-12 and ∂L/∂{U, V, σ̂, M, b, h0} to 1e-12 normwise relative (gradients are sums of
    O(T n (m1 + m2)) terms of size up to max|∂L/∂·|, so 1e-12 ≈ 10⁴ ε relative to that scale), for m1 = m2,
    m1 ≠ m2, m1 = m2 = n, m = 0, one chain empty, and oRNN (σ = 1, m2 = 0)."""
    cell = _spectral(n=6, n_i=3, m1=m1, m2=m2, activation=activation, cls=cls, device=device, seed=14)
    g = _gen(15)
    x, c = _randn(2, 7, 3, g=g, device=device), _randn(2, 7, 6, g=g, device=device)
    h0 = _randn(2, 6, g=g, device=device).requires_grad_()
    ref_h, ref_g = _forward_and_grads(cell, x, h0, c, "reflectors")
    for method in ("wy", "wy_autograd", "dense"):
        hs, grads = _forward_and_grads(cell, x, h0, c, method)
        assert torch.allclose(hs, ref_h, rtol=0, atol=TOL), method
        for a, b in zip(grads, ref_g):
            assert _max_err(a, b) < TOL, method


@pytest.mark.parametrize("activation", ["relu", "tanh", "identity", "leaky_relu"])
@pytest.mark.parametrize("with_sigma", [True, False])
def test_wy_recurrence_bptt_passes_gradcheck_and_gradgradcheck(activation, with_sigma):
    """The hand-written BPTT of the fast path (one autograd node for the whole time loop) has the Jacobian of
    the recurrence (torch.autograd.gradcheck, finite differences in float64) and its backward is itself
    differentiable (gradgradcheck), so create_graph=True (the bounds' ascent) works through it. ReLU's kink
    stays out of gradcheck's finite differences (step 1e-6): every pre-activation is checked to be ≥ 1e-3
    away from 0."""
    g, n, m = _gen(16), 5, 3
    pre = _randn(2, 4, n, g=g).requires_grad_()
    h0 = _randn(2, n, g=g).requires_grad_()
    P, Q = _randn(n, m, g=g).requires_grad_(), (0.3 * _randn(n, m, g=g)).requires_grad_()
    inputs = (pre, h0, P, Q) + ((_randn(n, g=g).requires_grad_(),) if with_sigma else ())

    def run(pre, h0, P, Q, sigma=None):
        return wy_recurrence(pre, h0, WYFactors(P, Q, sigma, n), activation)

    with torch.no_grad():  # pre-activations z_t = W h_{t−1} + pre_t, replayed from the states
        hs = run(*inputs)
        h_prev = torch.cat([h0[:, None], hs[:, :-1]], 1)
        z = wy_apply(h_prev, WYFactors(P, Q, inputs[4] if with_sigma else None, n)) + pre
        assert z.abs().min() > 1e-3
    assert torch.autograd.gradcheck(run, inputs)
    assert torch.autograd.gradgradcheck(run, inputs)


@device_param
def test_wy_fast_path_second_derivatives_match_autograd_recording(device):
    """Gradients taken with create_graph=True (the bounds' adversarial ascent differentiates ∂L/∂θ) through
    the default forward can be differentiated again: the Hessian-vector product ∂/∂θ ⟨∂L/∂θ, v⟩ equals the one
    through ``method="wy_autograd"`` (same computation recorded op by op) to 1e-12 normwise relative."""
    cell = _spectral(n=6, n_i=3, m1=3, m2=4, activation="tanh", device=device, seed=17)
    g = _gen(18)
    x = _randn(2, 5, 3, g=g, device=device)
    params = list(cell.parameters())
    v = [_randn(*p.shape, g=g, device=device) for p in params]
    hvp = {}
    for method in ("wy", "wy_autograd"):
        grads = torch.autograd.grad((cell(x, method=method) ** 2).sum(), params, create_graph=True)
        hvp[method] = torch.autograd.grad(sum((gr * vi).sum() for gr, vi in zip(grads, v)), params)
    for a, b in zip(hvp["wy"], hvp["wy_autograd"]):
        assert _max_err(a, b) < TOL


def test_wy_forward_cost_per_step_is_table1_leading_term():
    """Table 1: Spectral-RNN local FP costs 4n(m1 + m2) − 2m1² − 2m2² + O(n) flops per hidden vector, oRNN
    4nm − m² + O(n). The fast path's matmul flops (FlopCounterMode) grow by exactly 4n(m1 + m2) per sequence
    element besides M x_t (the −2m² from the zero padding is not exploited by dense matmuls), and its one-off
    setup costs at most 2n(m1 + m2)² (O(n m²), independent of T): far below the dense W's 2n² per element."""
    n, n_i, b = 64, 3, 2
    for cell, m in ((SpectralRNN(n_i, n, 5, 3, dtype=F64), 8), (ORNN(n_i, n, 6, dtype=F64), 6)):
        flops = {}
        for method in ("wy", "dense"):
            for T in (4, 9):
                with FlopCounterMode(display=False) as counter:
                    cell(torch.zeros(b, T, n_i, dtype=F64), method=method)
                flops[method, T] = counter.get_total_flops()
        per_element = {k: (flops[k, 9] - flops[k, 4]) / (5 * b) for k in ("wy", "dense")}
        assert per_element["wy"] == 4 * n * m + 2 * n * n_i
        assert per_element["dense"] == 2 * n * n + 2 * n * n_i
        setup = flops["wy", 4] - 4 * b * per_element["wy"]
        assert 0 <= setup <= 2 * n * m * m


def test_unknown_method_raises():
    """``method`` must name one of SpectralRNN.METHODS (ValueError naming the argument)."""
    cell = _spectral()
    x = torch.zeros(1, 2, 3, dtype=F64)
    with pytest.raises(ValueError, match="method must be one of"):
        cell(x, method="blocked")
    with pytest.raises(ValueError, match="method must be one of"):
        cell.step(x[:, 0], torch.zeros(1, 6, dtype=F64), method="qr")


# ------------------------------------------------------------------------------------------- leaky ReLU
@device_param
@pytest.mark.parametrize("cls", [SpectralRNN, ORNN])
def test_sec7_leaky_relu_states_match_a_hand_computed_recurrence(device, cls):
    """Sec. 7: "In most cases leaky_ReLU is used as activation function". The paper states no slope, so
    the cell uses PyTorch's default 0.01 (cells.base.LEAKY_RELU_SLOPE); written out here as a literal, with
    eq. 4 h_t = φ(W h_{t−1} + M x_t + b) stepped by hand from the dense W of eq. 6. b is shifted to −0.5 so
    that both signs of the pre-activation occur (else the slope would go untested). Every method and
    :meth:`step` agree with it to 1e-12 (a few dozen float64 flops per entry)."""
    cell = _spectral(n=4, n_i=2, m1=2, m2=3, activation="leaky_relu", cls=cls, device=device, seed=21)
    with torch.no_grad():
        cell.b.sub_(0.5)
    g = _gen(22)
    x, h0 = _randn(3, 2, 2, g=g, device=device), _randn(3, 4, g=g, device=device)
    W, M, b = cell.recurrent_matrix().detach(), cell.M.detach(), cell.b.detach()
    h, expected, signs = h0, [], []
    for t in range(x.shape[1]):
        z = h @ W.mT + x[:, t] @ M.mT + b
        signs.append(z > 0)
        h = torch.where(z > 0, z, 0.01 * z)
        expected.append(h)
    expected = torch.stack(expected, 1)
    signs = torch.stack(signs)
    assert signs.any() and not signs.all()
    with torch.no_grad():
        for method in cell.METHODS:
            assert torch.allclose(cell(x, h0, method=method), expected, rtol=0, atol=TOL), method
        assert torch.allclose(cell.step(x[:, 0], h0), expected[:, 0], rtol=0, atol=TOL)


def test_activation_names_are_checked_at_construction():
    """Every cell with a pointwise activation argument accepts the new "leaky_relu" and still rejects an
    unknown name with a ValueError that lists the choices (cells.base.get_activation)."""
    from rnnaudit.cells.registry import build_cell

    for name in ("sgornn", "fastrnn", "vprnn", "spectral_rnn", "ornn", "srnn", "enrnn"):
        build_cell(name, 2, 4, activation="leaky_relu", dtype=F64)
        with pytest.raises(ValueError, match=r"activation must be one of \['identity', 'leaky_relu', 'relu'"):
            build_cell(name, 2, 4, activation="leaky", dtype=F64)


# ------------------------------------------------------------------------------------------- Theorem 3
def _theorem3_split(a: list, k_first: int, k_second: int, n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Eq. 18: first chain u_k = a_k (k ≥ k_first); second chain v_{k_first+k_second−k−1} = a_k, k < k_first,
    each a_k zero-padded to its slot; every other v is 0."""
    first = torch.zeros(n, n - k_first + 1, dtype=F64)
    for j in range(first.shape[1]):
        first[j:, j] = a[n - j]
    second = torch.zeros(n, n - k_second + 1, dtype=F64)
    for k in range(k_first - 1, 0, -1):
        second[n - k:, n - (k_first + k_second - k - 1)] = a[k]
    return first, second


def test_theorem3_sigma_one_covers_orthogonal_group_when_k1_plus_k2_le_n_plus_2():
    """Theorem 3 (and Sec. 4's oRNN remark): with σ = 1 and k1 + k2 ≤ n + 2 (m1 + m2 ≥ n), the assignments
    of eq. 18 (k2 ≥ k1 − 1) and eq. 20 (otherwise, from A = (H_n(b_n)…H_1(b_1))ᵀ) give W = A exactly.

    Paper inconsistencies in eq. 18/20: "v_{k2+k1−k−1} = a_k" equates vectors of lengths k2+k1−k−1 and k,
    so a_k must be zero-padded on top (H of the padded vector equals H_k(a_k)); and "v_t = 0, t = k2+k1−2, …"
    would overwrite v_{k2+k1−2} = a_1, so the zeros start at t = k2 + k1 − 1 (same for u in eq. 20).
    """
    n, g = 6, _gen(11)
    for k1, k2 in ((1, 1), (3, 4), (4, 4), (2, 6), (5, 3), (6, 2), (7, 1), (1, 7)):
        a = {k: _randn(k, g=g) for k in range(1, n + 1)}
        full, _ = _theorem3_split(a, 1, n + 1, n)  # all n reflectors: M_1(a_1, …, a_n) (eq. 2)
        A = reflector_product(full)
        if k2 >= k1 - 1:
            U_hat, V_hat = _theorem3_split(a, k1, k2, n)  # eq. 18 with a = A's reflectors
        else:
            V_hat, U_hat = _theorem3_split(a, k2, k1, n)  # eq. 20 with b = a, so A := M_1(b)ᵀ
            A = A.mT
        W = reflector_product(U_hat) @ reflector_product(V_hat).mT
        assert torch.allclose(W, A, rtol=0, atol=TOL), (k1, k2)


# ------------------------------------------------------------------------------------------- parameter counts
@pytest.mark.parametrize("n,m1,m2,n_i,n_y", [(8, 8, 8, 3, 2), (8, 2, 5, 1, 0), (16, 4, 4, 10, 5), (5, 0, 5, 2, 1),
                                              (32, 8, 8, 1, 3)])
def test_sec4_parameter_count(n, m1, m2, n_i, n_y):
    """Sec. 4: Spectral-RNN has (n_y + n_i + m1 + m2 + 2) n − (m1² + m2² − m1 − m2)/2 parameters, which is
    (n_y + n_i + n + 3) n for m1 = m2 = n; the module stores exactly that many (packed reflectors). oRNN:
    the same count with m2 = 0 and no σ̂."""
    formula = spectral_rnn_parameter_count(n, m1, m2, n_i, n_y)
    assert parameter_count(SpectralRNN(n_i, n, m1, m2, output_size=n_y)) == formula
    assert parameter_count(SpectralRNN(n_i, n, m1, m2, output_size=n_y, bias=False)) == formula - n
    assert formula == (n_y + n_i + m1 + m2 + 2) * n - (m1**2 + m2**2 - m1 - m2) // 2
    if m1 == m2 == n:
        assert formula == (n_y + n_i + n + 3) * n
    assert parameter_count(ORNN(n_i, n, m1, output_size=n_y)) == ornn_parameter_count(n, m1, n_i, n_y)


# Table 4 (App. C.1), n = 32: (#param RNN, oRNN, Spectral-RNN) per data set, in the table's order.
TABLE4 = [(3058, 2426, 2850), (2694, 2062, 2486), (1219, 587, 1011), (1606, 974, 1398), (1699, 1067, 1491),
          (1476, 844, 1268), (1570, 938, 1362), (1997, 1365, 1789), (1410, 778, 1202), (1641, 1009, 1433),
          (1410, 778, 1202), (1606, 974, 1398), (1443, 811, 1235), (1615, 983, 1407), (1701, 1069, 1493),
          (1615, 983, 1407), (1507, 875, 1299), (1996, 1364, 1788), (1315, 683, 1107), (1570, 938, 1362),
          (1410, 778, 1202)]


def test_table4_counts_follow_sec4_with_16_reflectors_each():
    """Table 4's parameter differences between models (which cancel n_i, n_y and whatever input/readout extras
    the experiments used) follow Sec. 4's formula with m = 16 for oRNN and m1 = m2 = 16 for Spectral-RNN.

    Paper inconsistency: App. C.1 states m1 = m2 = 8 ("total number of reflectors ... m = 16"); with 8 the
    formula gives RNN − Spectral = 536, not the 208 of every Table 4 row. (Absolute counts would need the n_i
    of each data set, which the table does not state unambiguously, and any readout bias; differences cancel
    both.)
    """
    n = 32
    rnn = (1 + 1 + n + 1) * n  # Sec. 4's vanilla count (n_y + n_i + n + 1) n at n_i = n_y = 1
    spectral16, spectral8 = (spectral_rnn_parameter_count(n, m, m, 1, 1) for m in (16, 8))
    ornn16 = ornn_parameter_count(n, 16, 1, 1)
    assert rnn - spectral8 == 536
    for p_rnn, p_ornn, p_spectral in TABLE4:
        assert p_rnn - p_spectral == rnn - spectral16 == 208
        assert p_spectral - p_ornn == spectral16 - ornn16 == 424


# ------------------------------------------------------------------------------------------- bad input
@device_param
def test_bad_inputs_raise_value_errors_naming_the_argument(device):
    """m1 > n, m2 > n, wrong input width, T = 0, NaN, dtype mix, bad h0/x_t/sizes → ValueError naming the
    argument (cells/_validate.py conventions)."""
    with pytest.raises(ValueError, match="m1"):
        SpectralRNN(3, 4, 5, 2)
    with pytest.raises(ValueError, match="m2"):
        SpectralRNN(3, 4, 2, 5)
    with pytest.raises(ValueError, match="m1"):
        SpectralRNN(3, 4, -1, 2)
    with pytest.raises(ValueError, match="m1"):
        ORNN(3, 4, 5)
    with pytest.raises(ValueError, match="r "):
        SpectralRNN(3, 4, r=-0.1)
    with pytest.raises(ValueError, match="input_size"):
        SpectralRNN(0, 4)
    with pytest.raises(ValueError, match="m1"):
        SpectralLinear(5, 3, m1=4)
    with pytest.raises(ValueError, match="m2"):
        SpectralLinear(5, 3, m2=6)
    with pytest.raises(ValueError, match="m2"):
        spectral_rnn_parameter_count(4, 2, 5, 1, 1)
    cell = _spectral(n=6, n_i=3, device=device)
    x = torch.zeros(2, 4, 3, dtype=F64, device=device)
    with pytest.raises(ValueError, match="x must have input width 3"):
        cell(torch.zeros(2, 4, 5, dtype=F64, device=device))
    with pytest.raises(ValueError, match="T >= 1"):
        cell(torch.zeros(2, 0, 3, dtype=F64, device=device))
    nan_x = x.clone()
    nan_x[0, 1, 2] = float("nan")
    with pytest.raises(ValueError, match="x must be finite"):
        cell(nan_x)
    with pytest.raises(ValueError, match="x has dtype torch.float32"):
        cell(x.float())
    with pytest.raises(ValueError, match="x has dtype torch.float32"):
        cell.forward_dense(x.float())
    with pytest.raises(ValueError, match="h0"):
        cell(x, torch.zeros(2, 5, dtype=F64, device=device))
    with pytest.raises(ValueError, match="x_t"):
        cell.step(x[:, 0].float(), torch.zeros(2, 6, dtype=F64, device=device))
    with pytest.raises(ValueError, match="h "):
        cell.step(x[:, 0], torch.zeros(2, 6, device=device))
    with pytest.raises(ValueError, match="u must be"):
        householder_matrix(torch.ones(7, dtype=F64), 6)
    with pytest.raises(ValueError, match="h has dtype"):
        householder_forward(torch.zeros(2, 6, device=device), cell.U_hat, cell.sigma, cell.V_hat)
    with pytest.raises(ValueError, match="U_hat must be zero above the diagonal"):
        householder_forward(torch.zeros(2, 6, dtype=F64, device=device), cell.U_hat + 1, cell.sigma, cell.V_hat)
    with pytest.raises(ValueError, match="sigma must have shape"):
        householder_forward(torch.zeros(2, 6, dtype=F64, device=device), cell.U_hat, cell.sigma[:4], cell.V_hat)
    layer = SpectralLinear(5, 3, dtype=F64).to(device)
    with pytest.raises(ValueError, match="in_features=5"):
        layer(torch.zeros(2, 4, dtype=F64, device=device))
    with pytest.raises(ValueError, match="x has dtype"):
        layer(torch.zeros(2, 5, device=device))


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_wy_recurrence_bptt_passes_gradcheck_and_gradgradcheck": {"False-relu", "True-leaky_relu"},
}
