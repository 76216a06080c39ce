"""analysis.intervals: every interval operation encloses the images of the points it covers, and the numpy kernels give
the same bits as the same formulas written in torch (the form the contraction certificates had), whatever the address
of the vector a product reads."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rnnaudit.analysis import intervals as iv

F64 = torch.float64
finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False)


def _interval(values):
    a = np.array(values[0::2] or [0.0])
    b = np.array(values[1::2] or [0.0])[:a.size]
    b = np.resize(b, a.size)
    return np.minimum(a, b), np.maximum(a, b)


def _points(lo, hi, count=40, seed=0):
    u = np.random.default_rng(seed).random((count, lo.size))
    u[::3] = u[::3] < 0.5  # corners
    return np.clip(lo + u * (hi - lo), lo, hi)  # lo + u(hi − lo) can round past hi


def _misaligned(v: np.ndarray) -> np.ndarray:
    """A copy of ``v`` 8 bytes past a 64-byte boundary: an address no torch allocation has."""
    raw = np.empty(v.size + 16)
    start = (-(raw.ctypes.data // 8) % 8 + 1) % 16
    out = raw[start:start + v.size]
    out[...] = v
    assert out.ctypes.data % 64 != 0
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(finite, min_size=2, max_size=12), st.lists(finite, min_size=2, max_size=12))
def test_mul_and_add_enclose_every_product_and_sum_of_points_in_their_intervals(left, right):
    a, b = _interval(left), _interval(right)
    n = min(a[0].size, b[0].size)
    a, b = (a[0][:n], a[1][:n]), (b[0][:n], b[1][:n])
    prod, total = iv.mul(a, b), iv.add(a, b)
    for x, y in zip(_points(*a, seed=1), _points(*b, seed=2)):
        assert np.all((prod[0] <= x * y) & (x * y <= prod[1]))
        assert np.all((total[0] <= x + y) & (x + y <= total[1]))


@pytest.mark.parametrize("f", [torch.tanh, torch.sigmoid, torch.relu])
def test_the_image_of_a_monotone_activation_encloses_its_values_and_the_slopes_bound_its_derivative(f):
    g = torch.Generator().manual_seed(3)
    lo = (torch.randn(9, generator=g, dtype=F64) * 4).numpy()
    hi = lo + torch.rand(9, generator=g, dtype=F64).numpy() * 3
    out = iv.mono(f, lo, hi)
    slope = {torch.tanh: iv.tanh_slope, torch.sigmoid: iv.sigmoid_slope, torch.relu: iv.relu_slope}[f]((lo, hi))
    x = torch.tensor(_points(lo, hi, 200), dtype=F64, requires_grad=True)
    y = f(x)
    (d,) = torch.autograd.grad(y.sum(), [x])
    assert np.all((out[0] <= y.detach().numpy()) & (y.detach().numpy() <= out[1]))
    assert np.all(d.numpy() <= slope)


def test_a_slope_bound_below_the_derivative_is_caught_at_the_interval_containing_zero():
    """Negative control for the slope test: the largest tanh' over [−1, 2] is tanh'(0) = 1, attained; the slope
    at either end (0.42) would be exceeded."""
    box = (np.array([-1.0]), np.array([2.0]))
    assert iv.tanh_slope(box)[0] >= 1.0
    ends = 1 - np.tanh(np.array([-1.0, 2.0])) ** 2
    assert ends.max() < 1.0


@pytest.mark.parametrize("m,d", [(4, 3), (12, 7), (18, 11), (48, 23)])
def test_an_affine_image_encloses_the_points_and_equals_torchs_formula_bit_for_bit_at_any_address(m, d):
    g = torch.Generator().manual_seed(m * d)
    for trial in range(25):
        W = torch.randn(m, d, generator=g, dtype=F64) * (0 if trial == 0 else 1)
        b = torch.randn(m, generator=g, dtype=F64)
        lo = torch.randn(d, generator=g, dtype=F64)
        hi = lo + torch.rand(d, generator=g, dtype=F64)
        # the formula as torch evaluates it on its own (64-byte aligned) vectors
        c = (lo + hi) / 2
        r = torch.maximum(hi - c, c - lo)
        mid = W @ c + b
        rad = W.abs() @ r
        rad = rad + iv.gamma(d + 2) * (W.abs() @ c.abs() + rad + b.abs()) * 2
        got = iv.Affine(W, b).image(_misaligned(lo.numpy()), _misaligned(hi.numpy()))
        assert np.array_equal(got[0], (mid - rad).numpy()) and np.array_equal(got[1], (mid + rad).numpy())
        images = _points(lo.numpy(), hi.numpy()) @ W.numpy().T + b.numpy()
        assert np.all((got[0] <= images) & (images <= got[1]))
