"""Outward-rounded interval arithmetic on float64 vectors, the kernel of :mod:`rnnaudit.analysis.contraction`.

An interval vector is a pair ``(lo, hi)`` of float64 numpy arrays of one shape, lo ≤ hi. The contraction certificates
evaluate a few hundred tiny interval operations per box (20 images of a layer for the invariant box alone), where a
torch call's dispatch costs more than its arithmetic; numpy's costs a fraction of it. The bounds are bit for bit those
of the same formulas written in torch: +, −, ×, /, abs, min and max are correctly rounded in both, the activations are
evaluated by torch's own kernels (``torch.tanh``, ``torch.sigmoid``, ``torch.relu`` on the same vectors) and every
matrix–vector product by torch (MKL), its vector first copied into memory that torch allocated: MKL's ``gemv`` sums in
an order that depends on the vector's alignment, and torch aligns its own allocations to 64 bytes.

Rounding (Higham, Accuracy and Stability, eq. 3.11 for the sums; :data:`ACTIVATION_ULPS` for the activations) is as
:mod:`rnnaudit.analysis.contraction` states it.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor

__all__ = ["Affine", "outward", "mono", "mul", "add", "absmax", "nearest_zero", "tanh_slope", "sigmoid_slope",
           "relu_slope", "gamma", "ACTIVATION_ULPS", "U"]

#: tanh, sigmoid and exp are evaluated to a few ulps of their value by the math libraries; 4 has margin.
ACTIVATION_ULPS = 4
#: the unit roundoff of float64
U = 2.0 ** -53
_TINY = float(np.finfo(np.float64).tiny)
_ULPS = ACTIVATION_ULPS * U


def gamma(k: int) -> float:
    """γ_k = ku/(1 − ku): the relative error bound of a k-term float64 sum (Higham eq. 3.11)."""
    return k * U / (1 - k * U)


def _mv(W: Tensor, v: np.ndarray) -> np.ndarray:
    """W @ v by torch (W (m, d) float64 on the CPU, v (d,)), v first copied into a vector torch allocated (see the
    module note on MKL's alignment)."""
    buf = torch.empty(v.shape[0], dtype=torch.float64)
    buf.numpy()[...] = v
    return (W @ buf).numpy()


def _torch(f, x: np.ndarray) -> np.ndarray:
    return f(torch.from_numpy(x)).numpy()


class Affine:
    """The affine map v ↦ W v + b, ready for interval images (|W| and |b| formed once).

    Args:
        W: (m, d) float64 tensor. b: (m,) float64 tensor. Both are moved to the CPU (a no-op there).
    """

    __slots__ = ("W", "abs_W", "b", "abs_b", "gamma")

    def __init__(self, W: Tensor, b: Tensor):
        self.W = W.detach().cpu()
        self.abs_W = self.W.abs()
        self.b = b.detach().cpu().numpy()
        self.abs_b = np.abs(self.b)
        self.gamma = gamma(self.W.shape[-1] + 2)

    def image(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """{W v + b : lo ≤ v ≤ hi} enclosed in an interval vector (m,), outward-rounded: centre W c + b, radius |W| r,
        widened by γ_{d+2}(|W||c| + |W| r + |b|) for the rounding of both sums and of c and r."""
        c = (lo + hi) / 2
        r = np.maximum(hi - c, c - lo)  # c is rounded: r covers both ends
        mid = _mv(self.W, c) + self.b
        rad = _mv(self.abs_W, r)
        rad = rad + self.gamma * (_mv(self.abs_W, np.abs(c)) + rad + self.abs_b) * 2
        return mid - rad, mid + rad


def outward(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """[lo, hi] widened by :data:`ACTIVATION_ULPS` ulps of each end and the smallest normal float."""
    return lo - _ULPS * np.abs(lo) - _TINY, hi + _ULPS * np.abs(hi) + _TINY


def mono(f, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """f([lo, hi]) for a nondecreasing torch function f (``torch.tanh``, ``torch.sigmoid``, ``torch.relu``),
    outward-rounded."""
    return outward(_torch(f, lo), _torch(f, hi))


def mul(a: tuple, b: tuple) -> tuple[np.ndarray, np.ndarray]:
    """{xy : x ∈ a, y ∈ b}, outward-rounded."""
    p1, p2, p3, p4 = a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]
    lo = np.minimum(np.minimum(p1, p2), np.minimum(p3, p4))
    hi = np.maximum(np.maximum(p1, p2), np.maximum(p3, p4))
    return outward(lo, hi)


def add(a: tuple, b: tuple) -> tuple[np.ndarray, np.ndarray]:
    """{x + y : x ∈ a, y ∈ b}, outward-rounded."""
    return outward(a[0] + b[0], a[1] + b[1])


def absmax(a: tuple) -> np.ndarray:
    """max |v| over the interval."""
    return np.maximum(np.abs(a[0]), np.abs(a[1]))


def nearest_zero(a: tuple) -> np.ndarray:
    """min |v| over the interval (0 where it contains 0)."""
    lo, hi = a
    return np.where((lo <= 0) & (hi >= 0), np.zeros_like(lo), np.minimum(np.abs(lo), np.abs(hi)))


def tanh_slope(a: tuple) -> np.ndarray:
    """max of tanh'(v) = 1 − tanh²(v) over the interval, rounded up (≤ 1)."""
    t = _torch(torch.tanh, nearest_zero(a))
    return np.minimum((1 - t * t) * (1 + 8 * U) + 4 * U, 1.0)


def sigmoid_slope(a: tuple) -> np.ndarray:
    """max of σ'(v) = σ(v)(1 − σ(v)) over the interval, rounded up (≤ 1/4)."""
    s = _torch(torch.sigmoid, nearest_zero(a))
    return np.minimum(s * (1 - s) * (1 + 8 * U) + 4 * U, 0.25)


def relu_slope(a: tuple) -> np.ndarray:
    """The largest one-sided slope of relu over the interval: 1 where it reaches above 0, else 0."""
    return (a[1] > 0).astype(np.float64)
