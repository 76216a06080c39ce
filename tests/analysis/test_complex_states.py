"""Complex states z ∈ ℂᴺ are probed as the real state (Re z, Im z) ∈ ℝ²ᴺ: every probe agrees with torch autograd on
that real 2N-dimensional view, built here independently of rnnaudit's own view (cells/real_view.py)."""

import math

import numpy as np
import pytest
import torch
from torch import nn

from rnnaudit import wrap
from rnnaudit.analysis import (hidden_jacobian_maps, input_jacobian_maps, lyapunov_spectrum, pseudospectrum,
                               recurrent_matrix_probes, spectral_summary, step_jacobians)
from rnnaudit.analysis.grid_maps import SKETCH_PROBES
from rnnaudit.cells.real_view import RealView

F64, C128 = torch.float64, torch.complex128
AGREE = 1e-13  # the bar: relative agreement with autograd on the real view


class ComplexTanh(nn.Module):
    """z' = tanh(Re w) + i tanh(Im w), w = W z + B x + conj(z)·c: dense and not holomorphic (conj z)."""

    def __init__(self, N=3, n=2, seed=0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.input_size, self.hidden_size = n, N
        self.W = nn.Parameter(torch.randn(N, N, generator=g, dtype=C128) * 0.6)
        self.B = nn.Parameter(torch.randn(N, n, generator=g, dtype=C128))
        self.c = nn.Parameter(torch.randn(N, generator=g, dtype=C128) * 0.2)

    def step(self, x_t, z):
        w = z @ self.W.T + x_t.to(C128) @ self.B.T + z.conj() * self.c
        return torch.complex(torch.tanh(w.real), torch.tanh(w.imag))


def real_step(module, x_t, h):
    """The same step on the real view, written out independently: h = (u, v), z = u + iv."""
    N = h.shape[-1] // 2
    z = h[..., :N] + 1j * h[..., N:]
    out = module.step(x_t, z)
    return torch.cat([out.real, out.imag], -1)


def reference(module, x, h0=None):
    """Per-step real Jacobians J (T, 2N, 2N) and K (T, 2N, n) by torch.autograd.functional.jacobian, and the states."""
    T, N = x.shape[0], module.hidden_size
    h = torch.zeros(2 * N, dtype=F64) if h0 is None else h0
    Js, Ks, hs = [], [], [h]
    for t in range(T):
        Js.append(torch.autograd.functional.jacobian(lambda hh: real_step(module, x[t], hh), h))
        Ks.append(torch.autograd.functional.jacobian(lambda xx: real_step(module, xx, h), x[t]))
        h = real_step(module, x[t], h).detach()
        hs.append(h)
    return torch.stack(Js), torch.stack(Ks), torch.stack(hs)


def reference_maps(J):
    """All products ∂h_t/∂h_s and their spectral, Frobenius norms (exact SVDs) and σ_min = 1/‖P⁻¹‖₂ (from the
    inverse factors: the SVD of a formed P loses σ_min below u·‖P‖₂), indexed [t, s]."""
    T, S = J.shape[0], J.shape[1]
    out = {k: torch.zeros(T + 1, T + 1, dtype=F64) for k in ("spectral", "frobenius", "smallest")}
    Jinv = torch.linalg.inv(J)
    for s in range(T + 1):
        P, Pinv = torch.eye(S, dtype=F64), torch.eye(S, dtype=F64)
        for t in range(s, T + 1):
            if t > s:
                P, Pinv = J[t - 1] @ P, Pinv @ Jinv[t - 1]
            out["spectral"][t, s] = torch.linalg.matrix_norm(P, ord=2)
            out["smallest"][t, s] = 1 / torch.linalg.matrix_norm(Pinv, ord=2)
            out["frobenius"][t, s] = torch.linalg.matrix_norm(P)
    return out


def rel(a, b):
    mask = b != 0
    assert torch.equal(a == 0, ~mask | (a == 0)) and not bool((a[~mask] != 0).any())
    return float(((a[mask] - b[mask]).abs() / b[mask].abs()).max())


@pytest.fixture(scope="module")
def case():
    torch.manual_seed(0)
    module = ComplexTanh()
    x = torch.randn(12, 2, dtype=F64)
    J, K, hs = reference(module, x)
    return module, x, J, K, hs, reference_maps(J)


def test_a_complex_module_is_wrapped_as_its_real_view_of_twice_the_width(case):
    module, x, *_ = case
    cell = wrap(module)
    assert isinstance(cell, RealView) and cell.hidden_size == 6 and cell.complex_width == 3
    with torch.no_grad():
        states = cell(x[None])[0]
    torch.testing.assert_close(states, case[4][1:], rtol=0, atol=1e-15)


def test_complex_state_step_jacobians_match_autograd_on_the_real_view(case):
    module, x, J, K, hs, _ = case
    J_probe, hs_probe = step_jacobians(module, x)
    assert float((J_probe - J).abs().max()) <= AGREE * float(J.abs().max())
    torch.testing.assert_close(hs_probe, hs, rtol=0, atol=1e-15)


@pytest.mark.parametrize("method", ["dense", "products"])
def test_complex_state_jacobian_maps_match_autograd_on_the_real_view(case, method):
    module, x, J, _, _, ref = case
    maps = hidden_jacobian_maps(module, x, norms=("spectral", "frobenius", "smallest"), method=method, rtol=1e-14)
    assert rel(maps.spectral, ref["spectral"]) <= AGREE
    assert rel(maps.frobenius, ref["frobenius"]) <= AGREE
    assert rel(maps.smallest, ref["smallest"]) <= AGREE
    assert maps.stats.get("diagonal", 0) == 0  # a dense complex step: the general path


def test_the_certificate_holds_for_a_complex_state(case):
    """The products engine's certificate, σ̂ ≤ ‖P‖₂ ≤ σ̂(1 + rtol), on the real view, with rtol = 1e-6 so that the
    Krylov bounds (not exact eigenvalues) settle pairs."""
    module, x, _, _, _, ref = case
    rtol = 1e-6
    maps = hidden_jacobian_maps(module, x, norms=("spectral",), method="products", rtol=rtol, block=2)
    low = torch.tril(torch.ones_like(ref["spectral"], dtype=torch.bool))
    sigma, true = maps.spectral[low], ref["spectral"][low]
    assert bool((sigma <= true * (1 + AGREE)).all()) and bool((true <= sigma * (1 + rtol) * (1 + AGREE)).all())


def test_complex_state_grid_maps_match_autograd_on_the_real_view(case):
    module, x, _, _, _, ref = case
    steps = torch.tensor([0, 3, 7, 12])
    maps = hidden_jacobian_maps(module, x, grid=steps, norms=("spectral", "frobenius", "smallest"), rtol=1e-14)
    sub = {k: v[steps][:, steps] for k, v in ref.items()}
    for name in ("spectral", "frobenius", "smallest"):
        assert rel(getattr(maps, name), sub[name]) <= AGREE, name


def test_complex_state_sketch_maps_are_exact_when_the_probes_span_the_real_view(case):
    module, x, _, _, _, ref = case
    assert 2 * module.hidden_size <= SKETCH_PROBES  # then every value is a Ritz value on the whole space: exact
    steps = torch.tensor([0, 4, 12])
    maps = hidden_jacobian_maps(module, x, grid=steps, method="sketch", norms=("spectral",))
    assert maps.confidence == 1.0
    assert rel(maps.spectral, ref["spectral"][steps][:, steps]) <= 1e-12


def test_complex_state_input_maps_match_autograd_on_the_real_view(case):
    module, x, J, K, _, _ = case
    maps = input_jacobian_maps(module, x, rtol=1e-14)
    T = x.shape[0]
    want = torch.zeros(T + 1, T + 1, dtype=F64)
    for t in range(1, T + 1):
        P = K[t - 1]
        for tau in range(t, T + 1):
            if tau > t:
                P = J[tau - 1] @ P
            want[tau, t] = torch.linalg.matrix_norm(P, ord=2)
    assert rel(maps.spectral, want) <= AGREE


def test_complex_state_lyapunov_spectrum_matches_qr_on_autograd_jacobians(case):
    """The QR recursion on the probe's Jacobians against the same recursion on autograd's, from the same Q_0."""
    module, x, J, _, _, _ = case
    spec = lyapunov_spectrum(module, x, seed=3)
    Q = torch.linalg.qr(torch.randn(6, 6, generator=torch.Generator().manual_seed(3), dtype=F64))[0]
    logs = []
    for J_t in J:
        Q, R = torch.linalg.qr(J_t @ Q)
        logs.append(torch.log(R.diagonal().abs()))
    want = torch.stack(logs).mean(0).sort(descending=True).values
    assert float((spec.exponents - want).abs().max()) <= AGREE * float(want.abs().max())


def test_the_spectrum_of_a_complex_recurrent_matrix_is_that_of_the_real_view_without_the_conjugates():
    """A linear complex cell z' = W z + B x: its real view's Jacobian (autograd) is the realification of W, with
    eigenvalues λ(W) ∪ conj λ(W) and singular values those of W, each twice; the spectral probes take W itself."""
    g = torch.Generator().manual_seed(1)
    W = torch.randn(4, 4, generator=g, dtype=C128) * 0.5

    class Linear(nn.Module):
        input_size, hidden_size = 1, 4

        def __init__(self):
            super().__init__()
            self.W = nn.Parameter(W.clone())

        def step(self, x_t, z):
            return z @ self.W.T + x_t.to(C128)

        def recurrent_matrix(self):
            return self.W

    module = Linear()
    R = torch.autograd.functional.jacobian(lambda h: real_step(module, torch.zeros(1, dtype=F64), h),
                                           torch.zeros(8, dtype=F64))
    lam = torch.linalg.eigvals(W)
    both = torch.cat([lam, lam.conj()])
    got = torch.linalg.eigvals(R)
    key = lambda z: sorted(zip(z.real.tolist(), z.imag.tolist()))  # noqa: E731
    assert np.allclose(key(got), key(both), rtol=0, atol=AGREE)
    sv = torch.linalg.svdvals(W)
    assert float((torch.linalg.svdvals(R) - sv.repeat_interleave(2)).abs().max()) <= AGREE
    probes = recurrent_matrix_probes(module, K=5, kreiss=False)["W"]  # W itself, complex, through the real view
    assert abs(probes.sigma_max - float(sv[0])) <= AGREE and abs(probes.sigma_min - float(sv[-1])) <= AGREE
    summary = spectral_summary(wrap(module).recurrent_matrix())
    assert abs(summary.spectral_radius - float(lam.abs().max())) <= AGREE
    assert abs(summary.spectral_radius - float(got.abs().max())) <= AGREE
    # pseudospectra: σ_min(zI − W) on a grid, and min over W and conj W is that of the real view
    axis = np.linspace(-1.5, 1.5, 7)
    grid = pseudospectrum(W, axis, axis)
    Z = axis[None, :] + 1j * axis[:, None]
    for i, j in [(0, 0), (3, 3), (2, 5), (6, 1)]:
        z = complex(Z[i, j])
        direct = float(torch.linalg.svdvals(z * torch.eye(4, dtype=C128) - W)[-1])
        assert abs(float(grid.sigma[i, j]) - direct) <= 1e-12 * max(1.0, direct)
        real_view = float(torch.linalg.svdvals(z * torch.eye(8, dtype=C128) - R.to(C128))[-1])
        conj = float(torch.linalg.svdvals(z * torch.eye(4, dtype=C128) - W.conj())[-1])
        assert abs(real_view - min(direct, conj)) <= 1e-12


def test_a_holomorphic_diagonal_step_has_the_complex_jacobians_norm():
    """z' = λ ⊙ z + x: ‖∂h_t/∂h_s‖₂ on the real view is max_i |λ_i|^(t−s), the complex Jacobian's norm."""
    lam = torch.tensor([0.99 + 0.05j, 0.9 - 0.1j], dtype=C128)

    class Diagonal(nn.Module):
        input_size = hidden_size = 2

        def __init__(self):
            super().__init__()
            self.lam = nn.Parameter(lam.clone())

        def step(self, x_t, z):
            return self.lam * z + x_t

    maps = hidden_jacobian_maps(Diagonal(), torch.randn(20, 2, dtype=F64), method="dense")
    t, s = torch.tril_indices(21, 21)
    want = lam.abs().max() ** (t - s).to(F64)
    assert float(((maps.spectral[t, s] - want) / want).abs().max()) <= AGREE


def test_complex_inputs_are_still_refused_by_the_probes_in_one_line():
    with pytest.raises(ValueError, match=r"x is complex \(complex128\); complex tensors are not supported yet as "
                                         r"inputs"):
        hidden_jacobian_maps(ComplexTanh(), torch.randn(5, 2, dtype=C128))


def test_a_probe_of_a_complex_state_is_not_the_probe_of_its_real_part():
    """Negative control: dropping Im z (what a cast to float64 did) gives a different map."""
    module = ComplexTanh()
    x = torch.randn(8, 2, dtype=F64)
    full = hidden_jacobian_maps(module, x, method="dense").spectral

    class RealPart(nn.Module):
        input_size, hidden_size = 2, 3

        def __init__(self):
            super().__init__()
            self.W, self.B = nn.Parameter(module.W.real.clone()), nn.Parameter(module.B.real.clone())

        def step(self, x_t, h):
            return torch.tanh(h @ self.W.T + x_t @ self.B.T)

    cut = hidden_jacobian_maps(RealPart(), x, method="dense").spectral
    assert not math.isclose(float(full[-1, 0]), float(cut[-1, 0]), rel_tol=1e-3)
