"""Contraction certificates of one recurrent layer: an entrywise bound M ≥ |∂F/∂s| on the state Jacobian of
the step F(s, x) over a box of states and inputs (interval arithmetic on the gates' pre-activations), and the
diagonal weight η that makes ‖M‖_{∞,η} smallest (the Perron vector of M).

Why a weighted ℓ∞ norm. For a nonnegative matrix M, min over positive η of
‖M‖_{∞,η} = max_i (Mη)_i / η_i equals the Perron root ρ(M) (Collatz–Wielandt; the minimum is attained at
the Perron vector when M is irreducible, approached otherwise), and ρ(M) ≤ ‖M‖₂. A layer whose |W| has
ρ(|W|) < 1 therefore contracts in some diagonally weighted ℓ∞ norm although ‖W‖₂ may exceed 1. This is the
discrete-time counterpart of the ℓ∞/ℓ1 contraction theory of Davydov, Proskurnikov & Bullo (arXiv
2110.08298, "Non-Euclidean contraction analysis of continuous-time neural networks", IEEE TAC 70(1), 2025;
read: the abstract, which names "linear programming or ... the Hurwitzness of a particular Metzler
matrix" and "the optimal contraction rate and corresponding weighted non-Euclidean norm"; their theorems'
text was not readable). The discrete-time form and its proof are rnnaudit's own:

**Lemma (rnnaudit).** Let B be a box (a product of intervals) of states, X a box of inputs, F(·, x) C¹ on B
(or piecewise C¹ with one-sided slopes bounded the same way, as relu), and M ≥ 0 with |∂F/∂s (s, x)| ≤ M
entrywise for all s ∈ B, x ∈ X. Then for s, s' ∈ B and x ∈ X:
|F(s, x) − F(s', x)| ≤ M |s − s'| entrywise (mean value theorem on the segment, which lies in the convex B:
F(s) − F(s') = ∫₀¹ ∂F/∂s(s' + τ(s − s')) dτ (s − s')), so, with ‖v‖_{∞,η} = max_i |v_i|/η_i,
‖F(s, x) − F(s', x)‖_{∞,η} ≤ ‖M‖_{∞,η} ‖s − s'‖_{∞,η} and ‖∂F/∂s‖₂ ≤ ‖ |∂F/∂s| ‖₂ ≤ ‖M‖₂ (the spectral
norm is monotone on nonnegative matrices). If B is forward invariant (F(B, X) ⊂ B), any two trajectories
in B of the same inputs in X approach each other at least as fast as ‖M‖_{∞,η}^t.

The entrywise bounds M of each kind (torch's equations, as :mod:`rnnaudit.cells.adapters` states them) are
written out in :func:`jacobian_bound`; each factor of ∂F/∂s is bounded by its largest absolute value over
the box, which interval arithmetic gives from the pre-activations' intervals. These are sufficient
conditions only: a certificate that fails (rate ≥ 1) says nothing about whether the layer contracts.

Rounding: every interval is widened by the rounding of the float64 sums that produce it (Higham, Accuracy
and Stability, eq. 3.11: |fl(Σ) − Σ| ≤ γ_k Σ|terms|, γ_k = ku/(1 − ku)) and every evaluated activation by
:data:`ACTIVATION_ULPS` ulps, so the computed M bounds the exact one; the rate is rounded up by
:data:`RATE_SLACK`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from rnnaudit.analysis.norms import power_of_two_scale

__all__ = ["Box", "ContractionCertificate", "affine_interval", "layer_image", "reachable_box", "data_box",
           "jacobian_bound", "row_bounds", "perron_weight", "spectral_upper", "weighted_inf_norm", "certify",
           "certified_rate", "lp_weight", "LPWeight", "KINDS", "ACTIVATION_ULPS",
           "RATE_SLACK", "PERRON_SHIFT"]

#: the layer kinds with an entrywise bound (the names of :data:`rnnaudit.bounds.architectures.KINDS`)
KINDS = ("rnn_tanh", "rnn_relu", "indrnn", "gru", "lstm")

#: tanh, sigmoid and exp are evaluated to a few ulps of their value by the math libraries; 4 has margin.
ACTIVATION_ULPS = 4

#: relative slack on a computed rate max_i (Mη)_i/η_i: the S-term sums have relative error ≤ γ_S
#: (S ≤ 10⁴ here: ≤ 1.2e-12), the division one more u; 1e-10 leaves a 100× margin.
RATE_SLACK = 1e-10

#: the Perron vector is taken of M + PERRON_SHIFT·max(M)·E (E all ones) / S: strictly positive, irreducible,
#: and within PERRON_SHIFT of M; the rate is then measured on M itself, so the shift can only cost tightness.
PERRON_SHIFT = 1e-12

#: above this size the Perron vector comes from power iteration (eig is O(S³) and slow on a loaded machine)
EIG_LIMIT = 64
#: power steps on M + εE above EIG_LIMIT: the error in the direction of the second root falls as |λ₂/λ₁|^k
POWER_STEPS = 300

_U = 2.0 ** -53


@dataclass(frozen=True)
class Box:
    """A product of intervals [lo_i, hi_i]: ``lo``, ``hi`` (d,) float64, lo ≤ hi."""

    lo: Tensor
    hi: Tensor

    @property
    def radius(self) -> Tensor:
        return (self.hi - self.lo) / 2

    def contains(self, v: Tensor, slack: float = 0.0) -> bool:
        """Every entry of ``v`` (..., d) within the box, up to ``slack`` absolutely."""
        return bool(((v >= self.lo - slack) & (v <= self.hi + slack)).all())

    def absmax(self) -> Tensor:
        """max |v_i| over the box (d,)."""
        return torch.maximum(self.lo.abs(), self.hi.abs())


@dataclass(frozen=True)
class ContractionCertificate:
    """A certified bound on one layer's state Jacobian over a box.

    Attributes:
        M: (S, S) float64, M ≥ |∂F/∂s| entrywise over the box (state order: h, then c for an LSTM).
        weight: η (S,) > 0, max η = 1: the diagonal weight of the norm ‖v‖_{∞,η} = max_i |v_i|/η_i.
        rate: ‖M‖_{∞,η} (rounded up): F contracts in ‖·‖_{∞,η} at this rate on the box where < 1.
        perron: ρ(M) as computed (the least rate any diagonal weight can give; for information).
        spectral: ‖M‖₂ (rounded up), an upper bound on ‖∂F/∂s‖₂ over the box.
        states, inputs: the boxes.
    """

    M: Tensor
    weight: Tensor
    rate: float
    perron: float
    spectral: float
    states: Box
    inputs: Box

    @property
    def contracts(self) -> bool:
        return self.rate < 1

    def describe(self) -> str:
        """One line: the rate, the weight's range and ‖M‖₂."""
        return (f"‖M‖_∞,η = {self.rate:.6g} (ρ(M) = {self.perron:.6g}; weight η from {float(self.weight.min()):.3g} "
                f"to 1 over {self.weight.numel()} states), ‖M‖₂ = {self.spectral:.6g}")


# ------------------------------------------------------------------------------------------ intervals
def _gamma(k: int) -> float:
    return k * _U / (1 - k * _U)


def affine_interval(W: Tensor, b: Tensor, box: Box) -> Box:
    """{W v + b : v ∈ box} enclosed in a box, outward-rounded.

    Args:
        W: (m, d) float64. b: (m,). box: d-dimensional.

    Returns:
        a Box (m,) containing W v + b for every v in ``box``: centre W c + b, radius |W| r, widened by
        γ_{d+2}(|W||c| + |W| r + |b|) for the rounding of both sums and of c and r.
    """
    c = (box.lo + box.hi) / 2
    r = torch.maximum(box.hi - c, c - box.lo)  # c is rounded: r covers both ends
    mid = W @ c + b
    rad = W.abs() @ r
    rad = rad + _gamma(W.shape[-1] + 2) * (W.abs() @ c.abs() + rad + b.abs()) * 2
    return Box(mid - rad, mid + rad)


def _outward(lo: Tensor, hi: Tensor) -> Box:
    tiny = torch.finfo(torch.float64).tiny
    return Box(lo - ACTIVATION_ULPS * _U * lo.abs() - tiny, hi + ACTIVATION_ULPS * _U * hi.abs() + tiny)


def _mono(f, box: Box) -> Box:
    """f(box) for a nondecreasing f, outward-rounded."""
    return _outward(f(box.lo), f(box.hi))


def _mul(a: Box, b: Box) -> Box:
    """{xy : x ∈ a, y ∈ b}, outward-rounded."""
    p1, p2, p3, p4 = a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi
    lo = torch.minimum(torch.minimum(p1, p2), torch.minimum(p3, p4))
    hi = torch.maximum(torch.maximum(p1, p2), torch.maximum(p3, p4))
    return _outward(lo, hi)


def _add(a: Box, b: Box) -> Box:
    return _outward(a.lo + b.lo, a.hi + b.hi)


def _nearest_zero(box: Box) -> Tensor:
    """min |v| over the interval (0 where it contains 0)."""
    return torch.where((box.lo <= 0) & (box.hi >= 0), torch.zeros_like(box.lo), torch.minimum(box.lo.abs(),
                                                                                              box.hi.abs()))


def _tanh_slope(box: Box) -> Tensor:
    """max of tanh'(a) = 1 − tanh²(a) over the interval, rounded up (≤ 1)."""
    t = torch.tanh(_nearest_zero(box))
    return torch.clamp((1 - t * t) * (1 + 8 * _U) + 4 * _U, max=1.0)


def _sigmoid_slope(box: Box) -> Tensor:
    """max of σ'(a) = σ(a)(1 − σ(a)) over the interval, rounded up (≤ 1/4)."""
    s = torch.sigmoid(_nearest_zero(box))
    return torch.clamp(s * (1 - s) * (1 + 8 * _U) + 4 * _U, max=0.25)


def _relu_slope(box: Box) -> Tensor:
    return (box.hi > 0).to(box.hi.dtype)


def _gates(w: tuple, states: Box, inputs: Box, gates: int) -> list[Box]:
    """The pre-activation boxes of each gate block (torch's order), W_ih x + b_ih + W_hh h + b_hh summed as one
    affine map of (x, h)."""
    w_ih, w_hh, b_ih, b_hh = w
    H = w_hh.shape[-1]
    joint = Box(torch.cat([inputs.lo, states.lo[:H]]), torch.cat([inputs.hi, states.hi[:H]]))
    W = torch.cat([w_ih, w_hh], dim=1)
    pre = affine_interval(W, b_ih + b_hh, joint)
    return [Box(lo, hi) for lo, hi in zip(pre.lo.chunk(gates), pre.hi.chunk(gates))]


# ------------------------------------------------------------------------------------ images and boxes
def layer_image(kind: str, w: tuple, states: Box, inputs: Box) -> Box:
    """A box containing F(s, x) for every s ∈ ``states``, x ∈ ``inputs`` (one layer of ``kind``).

    Args:
        kind: one of :data:`KINDS`. w: torch's (weight_ih, weight_hh, bias_ih, bias_hh) of the layer, float64
            (for ``indrnn`` weight_hh is the vector u). states: (H,), or (2H,) for an LSTM (h, then c).

    Raises:
        ValueError: an unknown kind.
    """
    w_ih, w_hh, b_ih, b_hh = w
    if kind in ("rnn_tanh", "rnn_relu"):
        (a,) = _gates(w, states, inputs, 1)
        return _mono(torch.tanh, a) if kind == "rnn_tanh" else _mono(torch.relu, a)
    if kind == "indrnn":
        a = _add(affine_interval(w_ih, b_ih, inputs), _mul(Box(w_hh, w_hh), states))
        return _mono(torch.relu, a)
    if kind == "gru":
        H = w_hh.shape[-1]
        hb = Box(states.lo[:H], states.hi[:H])
        gi = affine_interval(w_ih, b_ih, inputs)
        gh = affine_interval(w_hh, b_hh, hb)
        blocks = [(Box(a, b)) for a, b in zip(gi.lo.chunk(3), gi.hi.chunk(3))]
        hblocks = [(Box(a, b)) for a, b in zip(gh.lo.chunk(3), gh.hi.chunk(3))]
        r = _mono(torch.sigmoid, _add(blocks[0], hblocks[0]))
        z = _mono(torch.sigmoid, _add(blocks[1], hblocks[1]))
        n = _mono(torch.tanh, _add(blocks[2], _mul(r, hblocks[2])))
        one_minus_z = Box(1 - z.hi, 1 - z.lo)
        return _add(_mul(one_minus_z, n), _mul(z, hb))
    if kind == "lstm":
        H = w_hh.shape[-1]
        cb = Box(states.lo[H:], states.hi[H:])
        i, f, g, o = _gates(w, states, inputs, 4)
        i, f, o = (_mono(torch.sigmoid, v) for v in (i, f, o))
        g = _mono(torch.tanh, g)
        c_new = _add(_mul(f, cb), _mul(i, g))
        h_new = _mul(o, _mono(torch.tanh, c_new))
        return Box(torch.cat([h_new.lo, c_new.lo]), torch.cat([h_new.hi, c_new.hi]))
    raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")


def _intersect(a: Box, b: Box) -> Box:
    return Box(torch.maximum(a.lo, b.lo), torch.minimum(a.hi, b.hi))


def reachable_box(kind: str, w: tuple, inputs: Box, *, iterations: int = 20) -> Box | None:
    """A forward-invariant box of states for inputs in ``inputs``, contained in the first, B₀, and shrunk by
    ``iterations`` images: B_{k+1} = B_k ∩ hull F(B_k, X).

    B₀: tanh RNN and GRU h ∈ [−1, 1]^H (tanh's range; a GRU's h' is a convex combination of h and tanh(·));
    LSTM h ∈ [−1, 1]^H and |c_i| ≤ ī_i/(1 − f̄_i), ī_i, f̄_i the largest input and forget gates over
    h ∈ [−1, 1]^H, x ∈ X (|c'| ≤ f̄|c| + ī|g| ≤ f̄C + ī = C). Each B_{k+1} is invariant again: F(B_{k+1}) ⊂
    F(B_k) ⊂ hull F(B_k) and F(B_{k+1}) ⊂ B_{k+1}'s other factor B_k, and every trajectory from B₀ lies in B_k
    after k steps.

    Returns:
        the box (H,) or (2H,); None for relu kinds (no bounded invariant box) and for an LSTM whose forget gate
        can reach 1 in float64 (f̄ = 1: no finite c bound).
    """
    w_ih, w_hh, b_ih, b_hh = w
    H = w_hh.shape[-1] if kind != "indrnn" else w_hh.shape[0]
    one = torch.ones(H, dtype=torch.float64, device=w_hh.device)
    if kind in ("rnn_relu", "indrnn"):
        return None
    box = Box(-one, one)
    if kind == "lstm":
        i, f, _, _ = _gates(w, Box(torch.cat([-one, -one]), torch.cat([one, one])), inputs, 4)
        f_hi = _mono(torch.sigmoid, f).hi
        if bool((f_hi >= 1).any()):
            return None
        C = _mono(torch.sigmoid, i).hi / (1 - f_hi) * (1 + 4 * _U)
        box = Box(torch.cat([-one, -C]), torch.cat([one, C]))
    elif kind not in ("rnn_tanh", "gru"):
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    for _ in range(iterations):
        box = _intersect(box, layer_image(kind, w, box, inputs))
    return box


def data_box(states: Tensor, inputs: Tensor) -> tuple[Box, Box]:
    """The boxes the data reach: per coordinate min and max of ``states`` (..., S) and ``inputs`` (..., n)."""
    s = states.reshape(-1, states.shape[-1]).detach().to(torch.float64)
    x = inputs.reshape(-1, inputs.shape[-1]).detach().to(torch.float64)
    return Box(s.amin(0), s.amax(0)), Box(x.amin(0), x.amax(0))


# ---------------------------------------------------------------------------------- Jacobian bound
def _gru_parts(w: tuple, states: Box, inputs: Box) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """A GRU's ∂h'/∂h = D(z) + D(1 − z) K + L over the box, with |K| ≤ N and |L| ≤ Q entrywise and z ∈ [z_lo, z_hi]:
    K = D(n')[D(r) W_hn + D((W_hn h + b_hn) ⊙ r') W_hr], L = D((h − n) ⊙ z') W_hz (see :func:`jacobian_bound`)."""
    w_ih, w_hh, b_ih, b_hh = w
    H = w_hh.shape[-1]
    hb = Box(states.lo[:H], states.hi[:H])
    gi = affine_interval(w_ih, b_ih, inputs)
    gh = affine_interval(w_hh, b_hh, hb)
    xi = [Box(a, b) for a, b in zip(gi.lo.chunk(3), gi.hi.chunk(3))]
    hh = [Box(a, b) for a, b in zip(gh.lo.chunk(3), gh.hi.chunk(3))]
    a_r, a_z = _add(xi[0], hh[0]), _add(xi[1], hh[1])
    r, z = _mono(torch.sigmoid, a_r), _mono(torch.sigmoid, a_z)
    a_n = _add(xi[2], _mul(r, hh[2]))
    n = _mono(torch.tanh, a_n)
    W_hr, W_hz, W_hn = (m.abs() for m in w_hh.chunk(3))
    h_minus_n = _add(hb, Box(-n.hi, -n.lo)).absmax()
    inner = r.absmax()[:, None] * W_hn + (hh[2].absmax() * _sigmoid_slope(a_r))[:, None] * W_hr
    N = _tanh_slope(a_n)[:, None] * inner * (1 + 8 * _U)
    Q = (h_minus_n * _sigmoid_slope(a_z))[:, None] * W_hz * (1 + 8 * _U)
    return torch.clamp(z.lo, min=0.0), torch.clamp(z.hi, max=1.0), N, Q


def row_bounds(kind: str, w: tuple, states: Box, inputs: Box) -> list[Tensor]:
    """Matrices M_1, …, M_k ≥ 0 with ‖∂F/∂s‖_{∞,η} ≤ max_k ‖M_k‖_{∞,η} for every positive η, state in ``states``
    and input in ``inputs``: the entrywise :func:`jacobian_bound` alone, except for a GRU.

    A GRU's row i of ∂h'/∂h = D(z) + D(1 − z)K + L (:func:`_gru_parts`) has weighted absolute row sum
    ≤ z_i + (1 − z_i) P_i + Q_i (z_i ∈ [0, 1], triangle inequality on the diagonal), P_i = (Nη)_i/η_i,
    Q_i = (Qη)_i/η_i; it is linear in z_i, so at most its value at z_lo or at z_hi: the two matrices
    D(z) + D(1 − z)N + Q at z = z_lo and z = z_hi. The entrywise bound must take 1 − z_lo beside z_hi, which
    costs the most where the update gate's range is wide.
    """
    if kind != "gru":
        return [jacobian_bound(kind, w, states, inputs)]
    z_lo, z_hi, N, Q = _gru_parts(w, states, inputs)
    return [(torch.diag(z) + ((1 - z) * (1 + 4 * _U))[:, None] * N + Q) * (1 + 8 * _U) for z in (z_lo, z_hi)]


def jacobian_bound(kind: str, w: tuple, states: Box, inputs: Box) -> Tensor:
    """M (S, S) ≥ |∂F/∂s| entrywise for every s ∈ ``states``, x ∈ ``inputs``.

    Per kind (D(v) = diag(v); a bar is the largest absolute value over the box; torch's equations):

    - tanh/relu RNN, F = σ(W_ih x + b + W_hh h): ∂F/∂h = D(σ'(a)) W_hh, M = D(σ̄') |W_hh|.
    - IndRNN, F = relu(W_ih x + b + u ⊙ h): M = D(σ̄' |u|).
    - GRU, h' = (1 − z) ⊙ n + z ⊙ h, n = tanh(a_n + r ⊙ (W_hn h + b_hn)):
      ∂h'/∂h = D(z) + D((1 − z) ⊙ n') [D(r) W_hn + D((W_hn h + b_hn) ⊙ r') W_hr] + D((h − n) ⊙ z') W_hz,
      with n' = 1 − n², r' = r(1 − r), z' = z(1 − z); each factor replaced by its bar.
    - LSTM, c' = f ⊙ c + i ⊙ g, h' = o ⊙ tanh(c'), state (h, c):
      ∂c'/∂h = D(c ⊙ f') W_hf + D(g ⊙ i') W_hi + D(i ⊙ g') W_hg, ∂c'/∂c = D(f),
      ∂h'/∂h = D(tanh(c') ⊙ o') W_ho + D(o ⊙ tanh'(c')) ∂c'/∂h, ∂h'/∂c = D(o ⊙ tanh'(c') ⊙ f).

    Args:
        kind: one of :data:`KINDS`. w: the layer's torch weights, float64. states: (H,) or (2H,) (LSTM).
        inputs: (n,).

    Raises:
        ValueError: an unknown kind.
    """
    w_ih, w_hh, b_ih, b_hh = w
    if kind in ("rnn_tanh", "rnn_relu"):
        (a,) = _gates(w, states, inputs, 1)
        slope = _tanh_slope(a) if kind == "rnn_tanh" else _relu_slope(a)
        return slope[:, None] * w_hh.abs()
    if kind == "indrnn":
        a = _add(affine_interval(w_ih, b_ih, inputs), _mul(Box(w_hh, w_hh), states))
        return torch.diag(_relu_slope(a) * w_hh.abs())
    if kind == "gru":
        z_lo, z_hi, N, Q = _gru_parts(w, states, inputs)
        return (torch.diag(z_hi) + ((1 - z_lo) * (1 + 4 * _U))[:, None] * N + Q) * (1 + 8 * _U)
    if kind == "lstm":
        H = w_hh.shape[-1]
        cb = Box(states.lo[H:], states.hi[H:])
        a_i, a_f, a_g, a_o = _gates(w, states, inputs, 4)
        i, f, o = (_mono(torch.sigmoid, v) for v in (a_i, a_f, a_o))
        g = _mono(torch.tanh, a_g)
        c_new = _add(_mul(f, cb), _mul(i, g))
        tc = _mono(torch.tanh, c_new)
        W_hi, W_hf, W_hg, W_ho = (m.abs() for m in w_hh.chunk(4))
        dc_dh = ((cb.absmax() * _sigmoid_slope(a_f))[:, None] * W_hf + (g.absmax() * _sigmoid_slope(a_i))[:, None]
                 * W_hi + (i.absmax() * _tanh_slope(a_g))[:, None] * W_hg) * (1 + 8 * _U)
        out = o.absmax() * _tanh_slope(c_new)
        dh_dh = (tc.absmax() * _sigmoid_slope(a_o))[:, None] * W_ho + out[:, None] * dc_dh
        dh_dc = torch.diag(out * f.absmax())
        top = torch.cat([dh_dh, dh_dc], dim=1)
        bottom = torch.cat([dc_dh, torch.diag(f.absmax())], dim=1)
        return torch.cat([top, bottom]) * (1 + 8 * _U)
    raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")


# ------------------------------------------------------------------------------------ the weight
def weighted_inf_norm(A: Tensor, weight: Tensor) -> Tensor:
    """‖A‖_{∞,η} = max_i Σ_j |A_ij| η_j / η_i, the norm induced by ‖v‖_{∞,η} = max_i |v_i|/η_i; ``A`` (..., S, S)
    (a batch gives one value each), ``weight`` η (S,) > 0. Differentiable in A."""
    return ((A.abs() @ weight) / weight).amax(-1)


def perron_weight(M: Tensor) -> tuple[Tensor, float, float]:
    """The diagonal weight η > 0 (max η = 1) that makes ‖M‖_{∞,η} least, for M ≥ 0 (S, S).

    η is the Perron vector of M + ε max(M) E / S (E all ones, ε = :data:`PERRON_SHIFT`), strictly positive; by
    Collatz–Wielandt ‖M‖_{∞,η} ≤ ρ(M + εE) → ρ(M), the least value any positive weight gives. The rate returned
    is ‖M‖_{∞,η} evaluated on M itself and rounded up, so it is a proved bound whatever the eigensolver's
    accuracy.

    Returns:
        (η (S,), rate ‖M‖_{∞,η} rounded up by :data:`RATE_SLACK`, ρ(M + εE) as computed, within ε max(M) above
        ρ(M)).

    Raises:
        ValueError: M not square, negative or not finite.
    """
    if M.dim() != 2 or M.shape[0] != M.shape[1]:
        raise ValueError(f"M must be a square matrix, got shape {tuple(M.shape)}")
    A = M.detach().to(torch.float64).cpu().numpy()
    if not np.isfinite(A).all() or (A < 0).any():
        raise ValueError("M must be finite and entrywise nonnegative")
    S = A.shape[0]
    top = float(A.max()) if A.size else 0.0
    if top == 0.0:
        eta = torch.ones(S, dtype=torch.float64, device=M.device)
        return eta, 0.0, 0.0
    shifted = A + PERRON_SHIFT * top / S
    floor = np.finfo(np.float64).tiny * 1e6
    if S <= EIG_LIMIT:
        vals, vecs = np.linalg.eig(shifted)
        v = np.abs(vecs[:, int(np.argmax(vals.real))].real)
        v = np.maximum(v / v.max(), floor)
        steps = 3  # a few power steps polish eig's vector where the roots cluster
    else:  # power iteration alone: O(S²) a step where eig is O(S³); the rate below is proved either way
        v, steps = np.ones(S), POWER_STEPS
    for _ in range(steps):
        v_new = shifted @ v
        v = np.maximum(v_new / v_new.max(), floor)
    vals = np.array([np.max(shifted @ v / v)]) if S > EIG_LIMIT else vals
    eta = torch.as_tensor(v, dtype=torch.float64, device=M.device)
    rate = float(weighted_inf_norm(M.detach().to(torch.float64), eta)) * (1 + RATE_SLACK)
    # ρ(M + εE) ≥ ρ(M) and exceeds it by at most ε max(M) (monotone, and ‖εE‖_∞ = ε max(M)): for information only
    rho = float(np.max(np.abs(vals)))
    return eta, rate, rho


@dataclass(frozen=True)
class LPWeight:
    """The diagonal weight a linear program finds (:func:`lp_weight`).

    Attributes:
        norm: ``"inf"`` (‖v‖_{∞,η} = max_i |v_i|/η_i, induced ‖A‖_{∞,η} = max_i Σ_j |A_ij| η_j/η_i) or ``"1"``
            (‖v‖_{1,η} = Σ_i |v_i|/η_i, induced ‖A‖_{1,η} = max_j η_j Σ_i |A_ij|/η_i).
        weight: η (S,) > 0, max η = 1, float64. rate: the induced norm of M in that weight, evaluated on M
            and rounded up by :data:`RATE_SLACK` (a proved bound whatever the solver's accuracy).
        lower: the largest rate the bisection found infeasible (0 if none): min over η lies in (lower, rate].
        programs: the linear programs solved.
    """

    norm: str
    weight: Tensor
    rate: float
    lower: float
    programs: int

    @property
    def contracts(self) -> bool:
        return self.rate < 1


#: relative width of the bisection bracket at which :func:`lp_weight` stops
LP_TOL = 1e-9
#: η_i ≤ LP_SPREAD (with η ≥ 1): keeps the program bounded and the weight's spread finite
LP_SPREAD = 1e12


def _feasible(A, c: float):
    """η ≥ 1 (η ≤ LP_SPREAD) with A η ≤ c η, or None: one LP (scipy.optimize.linprog, HiGHS), least Σ η."""
    from scipy.optimize import linprog

    S = A.shape[0]
    res = linprog(np.ones(S), A_ub=A - c * np.eye(S), b_ub=np.zeros(S), bounds=[(1.0, LP_SPREAD)] * S,
                  method="highs")
    return res.x if res.status == 0 else None


def lp_weight(M: Tensor, *, norm: str = "inf", tol: float = LP_TOL) -> LPWeight:
    """The diagonal weight η > 0 that makes the weighted ℓ∞ (or ℓ1) norm of M ≥ 0 (S, S) least, by linear
    programming: the rate c is feasible iff some η ≥ 1 has |M| η ≤ c η (ℓ∞; |M|ᵀ ξ ≤ c ξ with η = 1/ξ for ℓ1),
    one LP each, and c is bisected between 0 and the unweighted norm until the bracket is ``tol`` of it.

    Davydov, Proskurnikov & Bullo (arXiv 2110.08298, abstract) find their weights "based upon linear
    programming"; this discrete-time form is rnnaudit's own. Its optimum is the Perron root: for M ≥ 0,
    min over η of ‖M‖_{∞,η} = ρ(M) = min over η of ‖M‖_{1,η} (Collatz–Wielandt, for M and Mᵀ), attained at the
    right (ℓ∞) or left (ℓ1) Perron vector when M is irreducible; when it is reducible the LP still returns a
    strictly positive weight within the bracket of the infimum, where the Perron vector may have zeros.

    Returns:
        :class:`LPWeight` (its rate evaluated on M and rounded up).

    Raises:
        ValueError: M not square, negative or not finite; norm not "inf" or "1"; tol not in (0, 1).
    """
    if M.dim() != 2 or M.shape[0] != M.shape[1]:
        raise ValueError(f"M must be a square matrix, got shape {tuple(M.shape)}")
    if norm not in ("inf", "1"):
        raise ValueError(f"norm must be 'inf' or '1', got {norm!r}")
    if not 0 < tol < 1:
        raise ValueError(f"tol must be in (0, 1), got {tol!r}")
    A = M.detach().to(torch.float64).cpu().numpy()
    if not np.isfinite(A).all() or (A < 0).any():
        raise ValueError("M must be finite and entrywise nonnegative")
    A = A if norm == "inf" else A.T
    S = A.shape[0]
    lo, hi = 0.0, float(A.sum(1).max()) if S else 0.0
    best, programs = np.ones(S), 0
    while hi > 0 and hi - lo > tol * hi:
        mid = (lo + hi) / 2
        x = _feasible(A, mid)
        programs += 1
        if x is None:
            lo = mid
        else:
            hi, best = mid, x
    if norm == "1":
        best = 1 / best
    eta = torch.as_tensor(best / best.max(), dtype=torch.float64, device=M.device)
    Md = M.detach().to(torch.float64).abs()
    rate = weighted_inf_norm(Md, eta) if norm == "inf" else weighted_inf_norm(Md.T, 1 / eta)
    return LPWeight(norm, eta, float(rate) * (1 + RATE_SLACK), lo, programs)


def spectral_upper(M: Tensor, steps: int = 100) -> float:
    """An upper bound on ‖M‖₂ for M ≥ 0 (S, S), without an SVD: for any v > 0, ρ(MᵀM) ≤ max_i (MᵀMv)_i/v_i
    (Collatz–Wielandt: MᵀM ≥ 0), so ‖M‖₂ ≤ √ that; v from ``steps`` power steps on MᵀM + ε (tight when they
    converge). Rounded up by the sums' rounding γ_{2S} and :data:`RATE_SLACK`."""
    A = M.detach().to(torch.float64)
    if not A.numel() or float(A.abs().max()) == 0.0:
        return 0.0
    # scaled by a power of two (exact) first: AᵀA of entries below ~1e−154 underflows to 0, above ~1e154 overflows
    scale = float(power_of_two_scale(A))
    return _spectral_upper(A / scale, steps) * scale


def _spectral_upper(A: Tensor, steps: int) -> float:
    G = A.T @ A
    S = G.shape[0]
    if float(G.max()) == 0.0:
        return 0.0
    G = G + PERRON_SHIFT * float(G.max()) / S
    v = torch.ones(S, dtype=torch.float64, device=A.device)
    for _ in range(steps):
        v = torch.clamp(G @ v, min=1e-300)
        v = v / v.max()
    return float(((G @ v) / v).max().sqrt()) * (1 + 4 * _gamma(2 * S + 2) + RATE_SLACK)


def _least_rate(kind: str, w: tuple, states: Box, inputs: Box) -> tuple[Tensor, list[Tensor], Tensor, float, float]:
    """(M, row bounds, η, rate, ρ(M)) of one layer over the boxes: the weight that makes the rate least among the
    Perron vectors of M and of each row bound (see :func:`certify`)."""
    w = tuple(t.detach().to(torch.float64) for t in w)
    M = jacobian_bound(kind, w, states, inputs)
    rows = row_bounds(kind, w, states, inputs)
    if not all(bool(torch.isfinite(A).all()) for A in [M] + rows):
        raise ValueError("the Jacobian bound is not finite on this box")
    best, rho = None, 0.0
    for A in ([M] + rows if len(rows) > 1 else rows):
        eta, _, rho_A = perron_weight(A)
        rho = max(rho, rho_A) if A is not M else rho
        rate = max(float(weighted_inf_norm(R, eta)) for R in rows) * (1 + RATE_SLACK)
        if best is None or rate < best[1]:
            best = (eta, rate)
    return M, rows, best[0], best[1], rho


def certified_rate(kind: str, w: tuple, states: Box, inputs: Box) -> float:
    """The rate of :func:`certify` alone (no ‖M‖₂): for a loop that evaluates it often, as a training projection.

    Raises:
        ValueError: as :func:`certify`.
    """
    return _least_rate(kind, w, states, inputs)[3]


def certify(kind: str, w: tuple, states: Box, inputs: Box) -> ContractionCertificate:
    """The certificate of one layer over the boxes: the entrywise :func:`jacobian_bound` M (for ‖M‖₂), the
    :func:`row_bounds` (for the rate) and the diagonal weight that makes the rate least among the Perron vectors
    of M and of each row bound.

    Raises:
        ValueError: an unknown kind; a bound that is not finite (a box too large for float64).
    """
    M, _, eta, rate, rho = _least_rate(kind, w, states, inputs)
    return ContractionCertificate(M, eta, rate, rho, spectral_upper(M), states, inputs)
