"""The diagonal fast path: ∂h_t/∂h_s = Π diag(a_k), so ‖·‖₂ = max_i Π|a_{k,i}| with no matrix product. It agrees
with the general path, detects diagonality exactly (a declaration, checked, or exact zeros), and handles zeros and
products far outside float64's range exactly."""

import math

import pytest
import torch
from torch import nn

from rnnaudit import wrap
from rnnaudit.analysis import hidden_jacobian_maps, lyapunov_spectrum
from rnnaudit.analysis.diagonal import DECLARATION_RTOL, diagonal_maps, diagonal_of, diagonal_rtol

F64, C128 = torch.float64, torch.complex128
AGREE = 1e-13
NORMS = ("spectral", "frobenius", "smallest")


class Selective(nn.Module):
    """An input-dependent diagonal recurrence h' = a(x) ⊙ h + B x, a(x) = exp(−softplus(G x) ⊙ r) (Mamba's
    Ā_t = exp(Δ_t A) for one channel), complex with a phase when ``complex_state``."""

    def __init__(self, N=4, n=2, complex_state=False, seed=0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.input_size, self.hidden_size = n, N
        self.G = nn.Parameter(torch.randn(N, n, generator=g, dtype=F64))
        self.r = nn.Parameter(torch.rand(N, generator=g, dtype=F64) + 0.1)
        theta = torch.rand(N, generator=g, dtype=F64) * 3 if complex_state else torch.zeros(N, dtype=F64)
        self.theta = nn.Parameter(theta)
        dtype = C128 if complex_state else F64
        self.B = nn.Parameter(torch.randn(N, n, generator=g, dtype=dtype))
        self.cplx = complex_state

    def a(self, x_t):
        mod = torch.exp(-nn.functional.softplus(x_t @ self.G.T) * self.r)
        return torch.polar(mod, self.theta.expand_as(mod)) if self.cplx else mod

    def step(self, x_t, h):
        return self.a(x_t) * h + x_t.to(self.B.dtype) @ self.B.T

    def diagonal_jacobian(self, x_t, h):
        return self.a(x_t)


class Undeclared(Selective):
    """The same layer without the declaration: its diagonality can only be found from its Jacobians."""

    diagonal_jacobian = None


def rel(a, b):
    assert torch.equal(a == 0, b == 0)
    m = b != 0
    return float(((a[m] - b[m]).abs() / b[m].abs()).max())


@pytest.mark.parametrize("complex_state", [False, True])
def test_the_diagonal_fast_path_agrees_with_the_general_path(complex_state):
    torch.manual_seed(0)
    module = Selective(complex_state=complex_state)
    x = torch.randn(2, 25, 2, dtype=F64)
    fast = hidden_jacobian_maps(module, x, norms=NORMS, reduce="none")
    slow = hidden_jacobian_maps(module, x, norms=NORMS, reduce="none", method="dense")
    assert fast.stats["diagonal"] == 2 * 26 * 27 // 2 and slow.stats.get("diagonal", 0) == 0
    for name in NORMS:
        assert rel(getattr(fast, name), getattr(slow, name)) <= AGREE, name
    assert fast.rtol <= 1e-13  # the derived bound at this size


def test_the_fast_path_on_a_grid_is_the_all_pairs_map_at_the_grid():
    module = Selective(complex_state=True)
    x = torch.randn(40, 2, dtype=F64)
    full = hidden_jacobian_maps(module, x, norms=NORMS)
    steps = torch.tensor([0, 5, 17, 40])
    grid = hidden_jacobian_maps(module, x, norms=NORMS, grid=steps)
    for name in NORMS:
        assert rel(getattr(grid, name), getattr(full, name)[steps][:, steps]) <= AGREE


def test_undeclared_diagonal_jacobians_are_detected_by_their_exact_zeros():
    module = Undeclared(complex_state=True)
    x = torch.randn(15, 2, dtype=F64)
    auto = hidden_jacobian_maps(module, x, norms=NORMS)
    dense = hidden_jacobian_maps(module, x, norms=NORMS, method="dense")
    assert auto.stats["diagonal"] == 16 * 17 // 2
    for name in NORMS:
        assert rel(getattr(auto, name), getattr(dense, name)) <= AGREE


def test_a_dense_jacobian_is_not_taken_for_diagonal():
    J = torch.diag_embed(torch.rand(3, 4, dtype=F64))
    assert diagonal_of(J) is not None
    J[1, 0, 2] = 1e-300  # one tiny coupling: not diagonal
    assert diagonal_of(J) is None
    # the real view of a complex diagonal must be a realified diag(p + iq): [[p, −q], [q, p]] per coordinate
    p, q = torch.rand(4, dtype=F64), torch.rand(4, dtype=F64)
    R = torch.cat([torch.cat([torch.diag(p), -torch.diag(q)], 1), torch.cat([torch.diag(q), torch.diag(p)], 1)])
    found = diagonal_of(R[None], complex_width=4)
    assert found is not None and found[1] == 2 and torch.equal(found[0][0], torch.hypot(p, q))
    R[0, 4] = -R[0, 4] + 0.5  # no longer conformal (not holomorphic)
    assert diagonal_of(R[None], complex_width=4) is None
    coupled = wrap(lambda x_t, h: torch.tanh(h.flip(-1) + x_t), input_size=2, state_size=2)
    with pytest.raises(ValueError, match="not diagonal"):
        hidden_jacobian_maps(coupled, torch.randn(5, 2, dtype=F64), method="diagonal")


def test_a_false_diagonal_declaration_is_refused_naming_the_step():
    class Liar(Selective):
        def step(self, x_t, h):  # couples coordinates, yet declares diag(a)
            return self.a(x_t) * h + 1e-3 * h.roll(1, -1) + x_t @ self.B.T

    with pytest.raises(ValueError, match=r"declares a diagonal Jacobian, but at step \d+ .* couples coordinates"):
        hidden_jacobian_maps(Liar(), torch.randn(6, 2, dtype=F64))
    with pytest.raises(ValueError, match="couples coordinates"):
        lyapunov_spectrum(Liar(), torch.randn(6, 2, dtype=F64))
    assert DECLARATION_RTOL < 1e-3


def test_zero_factors_make_exact_zeros_and_underflow_is_exact():
    """|a| = ½ exactly: every product is 2^−(t−s), exact in the mantissa–exponent arithmetic, down to 2^−1100 (below
    float64's range: 0 in the map, exact in log10 σ_min); a zero factor at step 3 zeroes every window holding it."""
    T = 1100
    mod = torch.full((T, 3), 0.5, dtype=F64)
    maps = diagonal_maps(mod, 1, ("spectral", "smallest_log10"))
    t, s = torch.tril_indices(T + 1, T + 1)
    assert torch.equal(maps["spectral"][t, s], torch.ldexp(torch.ones(t.numel(), dtype=F64), -(t - s)))
    assert float((maps["smallest_log10"][t, s] + (t - s).to(F64) * math.log10(2)).abs().max()) <= 1e-12
    mod[2, 1] = 0.0
    maps = diagonal_maps(mod, 1, ("spectral", "smallest", "frobenius"))
    assert float(maps["smallest"][5, 1]) == 0.0 and float(maps["smallest"][2, 0]) == 0.25
    assert float(maps["frobenius"][5, 1]) == math.sqrt(2) * 2.0 ** -4 and float(maps["spectral"][5, 1]) == 2.0 ** -4


@pytest.mark.parametrize("scale", [1.0, 2.0 ** -4], ids=["from log2 of the prefix", "split exponent form"])
def test_the_stated_bound_covers_long_products_against_exact_rationals(scale):
    """Random |a| over 3000 steps (three blocks of cumulative products): sampled pairs within the map's stated bound
    of the exact product in Python's rationals (Fraction); with |a| ~ 2⁻⁴ the prefix logs pass _COMBINED_MAX and the
    split form is taken. Computed as 2^d, the exact value must also lie within the bound read at its own size."""
    from fractions import Fraction

    from rnnaudit.analysis.diagonal import _COMBINED_MAX

    g = torch.Generator().manual_seed(5)
    mod = (torch.rand(3000, 2, generator=g, dtype=F64) * 0.2 + 0.85) * scale
    maps = diagonal_maps(mod, 1, ("spectral", "smallest_log10"))
    assert (scale < 1) == (3000 * -math.log2(0.85 * scale) > _COMBINED_MAX)
    assert maps["rtol"] <= 1e-11
    for t, s in [(3000, 0), (2999, 1000), (1001, 999), (2500, 1), (40, 3)]:
        exact = max(math.prod((Fraction(float(v)) for v in mod[s:t, i]), start=Fraction(1)) for i in range(2))
        if float(exact) > 0:
            got = Fraction(float(maps["spectral"][t, s]))
            assert abs(got - exact) / exact <= maps["rtol"]
        log10_exact = min(sum(math.log10(float(v)) for v in mod[s:t, i]) for i in range(2))
        assert abs(float(maps["smallest_log10"][t, s]) - log10_exact) <= 1e-9 * max(1.0, abs(log10_exact))


def test_diagonal_lyapunov_exponents_are_the_exact_means_of_log_moduli():
    module = Selective(complex_state=True)
    x = torch.randn(200, 2, dtype=F64)
    spec = lyapunov_spectrum(module, x)
    with torch.no_grad():
        want = torch.log(module.a(x).abs()).mean(0).repeat_interleave(2).sort(descending=True).values
    assert float((spec.exponents - want).abs().max()) <= AGREE
    qr = lyapunov_spectrum(module, x, diagonal=False)  # the QR recursion converges to them
    assert float((qr.exponents - want).abs().max()) <= 0.05


def test_the_cost_estimate_of_a_declared_diagonal_layer_is_the_fast_paths():
    from rnnaudit.analysis import estimate_cost

    layer = Selective(N=64, complex_state=True)
    fast = estimate_cost(layer, 2000, method="auto")
    general = estimate_cost(layer, 2000, method="products")
    assert fast.method == "diagonal" and general.method == "all-pairs"
    assert fast.gemms * 50 < general.gemms and fast.peak_bytes < general.peak_bytes
    undeclared = estimate_cost(Undeclared(N=64), 2000, method="auto")
    assert undeclared.method == "all-pairs"  # detection needs the formed Jacobians: estimated as the general path


def test_a_probe_copy_keeps_complex_parameters_complex():
    """A float64 copy for the probes casts complex tensors to complex128, never to float64 (which dropped Im)."""
    from rnnaudit.cells.copying import probe_copy

    layer = Selective(complex_state=True)._apply(lambda t: t.to(torch.complex64) if t.is_complex() else t.float())
    twin = probe_copy(layer)
    assert twin.B.dtype == C128 and twin.G.dtype == F64
    assert torch.equal(twin.B.imag, layer.B.imag.to(F64)) and bool(twin.B.imag.abs().sum() > 0)


def test_a_cell_that_is_its_own_real_view_declares_its_complex_width_and_diagonal():
    """The LRU written on (Re x, Im x) in real arithmetic (x' = λ ⊙ x + B u): ``complex_width = N`` and a complex
    ``diagonal_jacobian`` on the real state take the fast path, equal to the general path; undeclared, the exact
    realified pattern is detected."""
    from rnnaudit.cells.base import RecurrentCell

    lam = torch.polar(torch.tensor([0.95, 0.7, 0.99], dtype=F64), torch.tensor([0.3, -2.0, 1.1], dtype=F64))

    class RealLRU(RecurrentCell):
        input_size, hidden_size, complex_width = 2, 6, 3

        def __init__(self):
            super().__init__()
            self.lam_re, self.lam_im = nn.Parameter(lam.real.clone()), nn.Parameter(lam.imag.clone())
            self.B = nn.Parameter(torch.ones(6, 2, dtype=F64))

        def step(self, x_t, h):
            u, v = h[..., :3], h[..., 3:]
            out = torch.cat([self.lam_re * u - self.lam_im * v, self.lam_im * u + self.lam_re * v], -1)
            return out + x_t @ self.B.T

        def diagonal_jacobian(self, x_t, h):
            return torch.complex(self.lam_re, self.lam_im).expand(h.shape[0], -1)

    class Undeclared(RealLRU):
        diagonal_jacobian = None

    x = torch.randn(20, 2, dtype=F64)
    dense = hidden_jacobian_maps(RealLRU(), x, norms=NORMS, method="dense")
    for cell in (RealLRU(), Undeclared()):
        fast = hidden_jacobian_maps(cell, x, norms=NORMS)
        assert fast.stats["diagonal"] == 21 * 22 // 2
        for name in NORMS:
            assert rel(getattr(fast, name), getattr(dense, name)) <= AGREE, name


def test_the_fast_path_refuses_maps_above_the_memory_limit_before_computing():
    with pytest.raises(ValueError, match=r"the diagonal map of T = 300 steps .* above memory_limit"):
        hidden_jacobian_maps(Selective(), torch.randn(300, 2, dtype=F64), memory_limit=2 ** 20)
    assert hidden_jacobian_maps(Selective(), torch.randn(300, 2, dtype=F64), memory_limit=2 ** 20,
                                grid=16).spectral.shape == (16, 16)
