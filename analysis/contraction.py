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

import functools
import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from rnnaudit.analysis import intervals as iv
from rnnaudit.analysis.norms import power_of_two_scale

__all__ = ["Box", "ContractionCertificate", "affine_interval", "layer_image", "reachable_box", "data_box",
           "jacobian_bound", "row_bounds", "perron_weight", "spectral_upper", "weighted_inf_norm", "certify",
           "certified_rate", "lp_weight", "LPWeight", "KINDS", "ACTIVATION_ULPS",
           "RATE_SLACK", "PERRON_SHIFT"]

#: the layer kinds with an entrywise bound (the names of :data:`rnnaudit.bounds.architectures.KINDS`)
KINDS = ("rnn_tanh", "rnn_relu", "indrnn", "gru", "lstm")

#: tanh, sigmoid and exp are evaluated to a few ulps of their value by the math libraries; 4 has margin.
ACTIVATION_ULPS = iv.ACTIVATION_ULPS

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

_U = iv.U


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
        spectral: ‖M‖₂ (rounded up, :func:`spectral_upper`), an upper bound on ‖∂F/∂s‖₂ over the box; computed on
            first read (a search that reads only the rate never pays its power steps).
        states, inputs: the boxes.
    """

    M: Tensor
    weight: Tensor
    rate: float
    perron: float
    states: Box
    inputs: Box

    @functools.cached_property
    def spectral(self) -> float:
        return spectral_upper(self.M)

    @property
    def contracts(self) -> bool:
        return self.rate < 1

    def describe(self) -> str:
        """One line: the rate, the weight's range and ‖M‖₂."""
        return (f"‖M‖_∞,η = {self.rate:.6g} (ρ(M) = {self.perron:.6g}; weight η from {float(self.weight.min()):.3g} "
                f"to 1 over {self.weight.numel()} states), ‖M‖₂ = {self.spectral:.6g}")


# ------------------------------------------------------------------------------------------ intervals
_gamma = iv.gamma


def _array(t: Tensor) -> np.ndarray:
    return t.detach().to(torch.float64).cpu().numpy()


def _tensor(a: np.ndarray, device) -> Tensor:
    """A float64 tensor on ``device`` holding ``a``, in memory torch allocated (see :mod:`rnnaudit.analysis.intervals`
    on MKL's alignment: the weight and the rates read it through products)."""
    return torch.from_numpy(np.ascontiguousarray(a)).clone().to(device)


def affine_interval(W: Tensor, b: Tensor, box: Box) -> Box:
    """{W v + b : v ∈ box} enclosed in a box, outward-rounded.

    Args:
        W: (m, d) float64. b: (m,). box: d-dimensional.

    Returns:
        a Box (m,) containing W v + b for every v in ``box``: centre W c + b, radius |W| r, widened by
        γ_{d+2}(|W||c| + |W| r + |b|) for the rounding of both sums and of c and r.
    """
    lo, hi = iv.Affine(W, b).image(_array(box.lo), _array(box.hi))
    return Box(_tensor(lo, W.device), _tensor(hi, W.device))


def _blocks(a: np.ndarray, count: int) -> list[np.ndarray]:
    """``a`` cut into ``count`` equal blocks along its first axis (views; torch's ``chunk`` of a gate stack)."""
    k = a.shape[0] // count
    return [a[j * k:(j + 1) * k] for j in range(count)]


class _Layer:
    """One layer of ``kind`` and its inputs' box, prepared once for many interval images of state boxes: the gates'
    affine maps with |W| formed, and a GRU's or IndRNN's input part W_ih X + b_ih, which no state changes.
    Intervals are ``(lo, hi)`` numpy pairs (:mod:`rnnaudit.analysis.intervals`)."""

    def __init__(self, kind: str, w: tuple, inputs: Box):
        w_ih, w_hh, b_ih, b_hh = (t.detach() for t in w)
        self.kind, self.device = kind, w_hh.device
        x = (_array(inputs.lo), _array(inputs.hi))
        if kind == "indrnn":
            self.x_part = iv.Affine(w_ih, b_ih).image(*x)
            self.u = _array(w_hh)
            return
        self.H = w_hh.shape[-1]
        blocks = {"gru": 3, "lstm": 4}.get(kind, 1)
        self.abs_hh = _blocks(np.abs(_array(w_hh)), blocks)  # torch's gate order: (r, z, n), (i, f, g, o)
        if kind == "gru":
            gi = iv.Affine(w_ih, b_ih).image(*x)
            self.x_blocks = list(zip(_blocks(gi[0], 3), _blocks(gi[1], 3)))
            self.recurrent = iv.Affine(w_hh, b_hh)
        else:  # W_ih x + b_ih + W_hh h + b_hh summed as one affine map of (x, h)
            self.x = x
            self.joint = iv.Affine(torch.cat([w_ih, w_hh], dim=1), b_ih + b_hh)

    def gates(self, s: tuple, count: int) -> list[tuple]:
        """The pre-activation intervals of each gate block (torch's order) for the states ``s`` (tanh RNN, LSTM)."""
        H = self.H
        pre = self.joint.image(np.concatenate([self.x[0], s[0][:H]]), np.concatenate([self.x[1], s[1][:H]]))
        return list(zip(_blocks(pre[0], count), _blocks(pre[1], count)))

    def gru_blocks(self, h: tuple) -> list[tuple]:
        """A GRU's W_hh h + b_hh intervals, per block (r, z, n)."""
        gh = self.recurrent.image(*h)
        return list(zip(_blocks(gh[0], 3), _blocks(gh[1], 3)))


def _image(L: _Layer, s: tuple) -> tuple:
    """:func:`layer_image` on prepared intervals."""
    if L.kind in ("rnn_tanh", "rnn_relu"):
        (a,) = L.gates(s, 1)
        return iv.mono(torch.tanh if L.kind == "rnn_tanh" else torch.relu, *a)
    if L.kind == "indrnn":
        return iv.mono(torch.relu, *iv.add(L.x_part, iv.mul((L.u, L.u), s)))
    if L.kind == "gru":
        hb = (s[0][:L.H], s[1][:L.H])
        xi, hh = L.x_blocks, L.gru_blocks(hb)
        r = iv.mono(torch.sigmoid, *iv.add(xi[0], hh[0]))
        z = iv.mono(torch.sigmoid, *iv.add(xi[1], hh[1]))
        n = iv.mono(torch.tanh, *iv.add(xi[2], iv.mul(r, hh[2])))
        one_minus_z = (1 - z[1], 1 - z[0])
        return iv.add(iv.mul(one_minus_z, n), iv.mul(z, hb))
    if L.kind == "lstm":
        cb = (s[0][L.H:], s[1][L.H:])
        a_i, a_f, a_g, a_o = L.gates(s, 4)
        i, f, o = (iv.mono(torch.sigmoid, *v) for v in (a_i, a_f, a_o))
        g = iv.mono(torch.tanh, *a_g)
        c_new = iv.add(iv.mul(f, cb), iv.mul(i, g))
        h_new = iv.mul(o, iv.mono(torch.tanh, *c_new))
        return np.concatenate([h_new[0], c_new[0]]), np.concatenate([h_new[1], c_new[1]])
    raise ValueError(f"kind must be one of {KINDS}, got {L.kind!r}")


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")


# ------------------------------------------------------------------------------------ images and boxes
def layer_image(kind: str, w: tuple, states: Box, inputs: Box) -> Box:
    """A box containing F(s, x) for every s ∈ ``states``, x ∈ ``inputs`` (one layer of ``kind``).

    Args:
        kind: one of :data:`KINDS`. w: torch's (weight_ih, weight_hh, bias_ih, bias_hh) of the layer, float64
            (for ``indrnn`` weight_hh is the vector u). states: (H,), or (2H,) for an LSTM (h, then c).

    Raises:
        ValueError: an unknown kind.
    """
    _check_kind(kind)
    lo, hi = _image(_Layer(kind, w, inputs), (_array(states.lo), _array(states.hi)))
    return Box(_tensor(lo, w[1].device), _tensor(hi, w[1].device))


def reachable_box(kind: str, w: tuple, inputs: Box, *, iterations: int = 20) -> Box | None:
    """A forward-invariant box of states for inputs in ``inputs``, contained in the first, B₀, and shrunk by
    ``iterations`` images: B_{k+1} = B_k ∩ hull F(B_k, X).

    B₀: tanh RNN and GRU h ∈ [−1, 1]^H (tanh's range; a GRU's h' is a convex combination of h and tanh(·));
    LSTM h ∈ [−1, 1]^H and |c_i| ≤ ī_i/(1 − f̄_i), ī_i, f̄_i the largest input and forget gates over
    h ∈ [−1, 1]^H, x ∈ X (|c'| ≤ f̄|c| + ī|g| ≤ f̄C + ī = C). Each B_{k+1} is invariant again: F(B_{k+1}) ⊂
    F(B_k) ⊂ hull F(B_k) and F(B_{k+1}) ⊂ B_{k+1}'s other factor B_k, and every trajectory from B₀ lies in B_k
    after k steps. An image that leaves the box as it is (B_{k+1} = B_k bit for bit) ends the shrinking early: every
    later image is the same computation.

    Returns:
        the box (H,) or (2H,); None for relu kinds (no bounded invariant box) and for an LSTM whose forget gate
        can reach 1 in float64 (f̄ = 1: no finite c bound).
    """
    w_ih, w_hh, b_ih, b_hh = w
    H = w_hh.shape[-1] if kind != "indrnn" else w_hh.shape[0]
    if kind in ("rnn_relu", "indrnn"):
        return None
    if kind not in ("rnn_tanh", "gru", "lstm"):
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    L = _Layer(kind, w, inputs)
    one = np.ones(H)
    box = (-one, one)
    if kind == "lstm":
        i, f, _, _ = L.gates(box, 4)
        f_hi = iv.mono(torch.sigmoid, *f)[1]
        if bool((f_hi >= 1).any()):
            return None
        C = iv.mono(torch.sigmoid, *i)[1] / (1 - f_hi) * (1 + 4 * _U)
        box = (np.concatenate([-one, -C]), np.concatenate([one, C]))
    for _ in range(iterations):
        image = _image(L, box)
        shrunk = (np.maximum(box[0], image[0]), np.minimum(box[1], image[1]))
        if np.array_equal(shrunk[0], box[0]) and np.array_equal(shrunk[1], box[1]):
            break
        box = shrunk
    return Box(_tensor(box[0], L.device), _tensor(box[1], L.device))


def data_box(states: Tensor, inputs: Tensor) -> tuple[Box, Box]:
    """The boxes the data reach: per coordinate min and max of ``states`` (..., S) and ``inputs`` (..., n)."""
    s = states.reshape(-1, states.shape[-1]).detach().to(torch.float64)
    x = inputs.reshape(-1, inputs.shape[-1]).detach().to(torch.float64)
    return Box(s.amin(0), s.amax(0)), Box(x.amin(0), x.amax(0))


# ---------------------------------------------------------------------------------- Jacobian bound
def _gru_parts(L: _Layer, s: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A GRU's ∂h'/∂h = D(z) + D(1 − z) K + L over the box, with |K| ≤ N and |L| ≤ Q entrywise and z ∈ [z_lo, z_hi]:
    K = D(n')[D(r) W_hn + D((W_hn h + b_hn) ⊙ r') W_hr], L = D((h − n) ⊙ z') W_hz (see :func:`jacobian_bound`)."""
    hb = (s[0][:L.H], s[1][:L.H])
    xi, hh = L.x_blocks, L.gru_blocks(hb)
    a_r, a_z = iv.add(xi[0], hh[0]), iv.add(xi[1], hh[1])
    r, z = iv.mono(torch.sigmoid, *a_r), iv.mono(torch.sigmoid, *a_z)
    a_n = iv.add(xi[2], iv.mul(r, hh[2]))
    n = iv.mono(torch.tanh, *a_n)
    W_hr, W_hz, W_hn = L.abs_hh
    h_minus_n = iv.absmax(iv.add(hb, (-n[1], -n[0])))
    inner = iv.absmax(r)[:, None] * W_hn + (iv.absmax(hh[2]) * iv.sigmoid_slope(a_r))[:, None] * W_hr
    N = iv.tanh_slope(a_n)[:, None] * inner * (1 + 8 * _U)
    Q = (h_minus_n * iv.sigmoid_slope(a_z))[:, None] * W_hz * (1 + 8 * _U)
    return np.maximum(z[0], 0.0), np.minimum(z[1], 1.0), N, Q


def _gru_bound(z_diag: np.ndarray, z_carry: np.ndarray, N: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """(D(z_diag) + D(1 − z_carry) N + Q), rounded up: the bound at one pair of update-gate values."""
    return (np.diag(z_diag) + ((1 - z_carry) * (1 + 4 * _U))[:, None] * N + Q) * (1 + 8 * _U)


def _bounds(kind: str, w: tuple, states: Box, inputs: Box) -> tuple[Tensor, list[Tensor]]:
    """(:func:`jacobian_bound`, :func:`row_bounds`) from one pass over the gates."""
    _check_kind(kind)
    L = _Layer(kind, w, inputs)
    s = (_array(states.lo), _array(states.hi))
    if kind != "gru":
        M = _tensor(_entrywise(L, s), L.device)
        return M, [M]
    z_lo, z_hi, N, Q = _gru_parts(L, s)
    return (_tensor(_gru_bound(z_hi, z_lo, N, Q), L.device),
            [_tensor(_gru_bound(z, z, N, Q), L.device) for z in (z_lo, z_hi)])


def row_bounds(kind: str, w: tuple, states: Box, inputs: Box) -> list[Tensor]:
    """Matrices M_1, …, M_k ≥ 0 with ‖∂F/∂s‖_{∞,η} ≤ max_k ‖M_k‖_{∞,η} for every positive η, state in ``states``
    and input in ``inputs``: the entrywise :func:`jacobian_bound` alone, except for a GRU.

    A GRU's row i of ∂h'/∂h = D(z) + D(1 − z)K + L (:func:`_gru_parts`) has weighted absolute row sum
    ≤ z_i + (1 − z_i) P_i + Q_i (z_i ∈ [0, 1], triangle inequality on the diagonal), P_i = (Nη)_i/η_i,
    Q_i = (Qη)_i/η_i; it is linear in z_i, so at most its value at z_lo or at z_hi: the two matrices
    D(z) + D(1 − z)N + Q at z = z_lo and z = z_hi. The entrywise bound must take 1 − z_lo beside z_hi, which
    costs the most where the update gate's range is wide.
    """
    return _bounds(kind, w, states, inputs)[1]


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
    return _bounds(kind, w, states, inputs)[0]


def _entrywise(L: _Layer, s: tuple) -> np.ndarray:
    """:func:`jacobian_bound` of a kind other than GRU, on prepared intervals."""
    if L.kind in ("rnn_tanh", "rnn_relu"):
        (a,) = L.gates(s, 1)
        slope = iv.tanh_slope(a) if L.kind == "rnn_tanh" else iv.relu_slope(a)
        return slope[:, None] * L.abs_hh[0]
    if L.kind == "indrnn":
        a = iv.add(L.x_part, iv.mul((L.u, L.u), s))
        return np.diag(iv.relu_slope(a) * np.abs(L.u))
    H = L.H  # an LSTM
    cb = (s[0][H:], s[1][H:])
    a_i, a_f, a_g, a_o = L.gates(s, 4)
    i, f, o = (iv.mono(torch.sigmoid, *v) for v in (a_i, a_f, a_o))
    g = iv.mono(torch.tanh, *a_g)
    c_new = iv.add(iv.mul(f, cb), iv.mul(i, g))
    tc = iv.mono(torch.tanh, *c_new)
    W_hi, W_hf, W_hg, W_ho = L.abs_hh
    dc_dh = ((iv.absmax(cb) * iv.sigmoid_slope(a_f))[:, None] * W_hf + (iv.absmax(g) * iv.sigmoid_slope(a_i))[:, None]
             * W_hi + (iv.absmax(i) * iv.tanh_slope(a_g))[:, None] * W_hg) * (1 + 8 * _U)
    out = iv.absmax(o) * iv.tanh_slope(c_new)
    dh_dh = (iv.absmax(tc) * iv.sigmoid_slope(a_o))[:, None] * W_ho + out[:, None] * dc_dh
    dh_dc = np.diag(out * iv.absmax(f))
    top = np.concatenate([dh_dh, dh_dc], axis=1)
    bottom = np.concatenate([dc_dh, np.diag(iv.absmax(f))], axis=1)
    return np.concatenate([top, bottom]) * (1 + 8 * _U)

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
    M, rows = _bounds(kind, w, states, inputs)
    if not all(bool(torch.isfinite(A).all()) for A in [M] + rows):
        raise ValueError("the Jacobian bound is not finite on this box")
    best, rho = None, 0.0
    for A in ([M] + rows if len(rows) > 1 else rows):
        eta, _, rho_A = perron_weight(A)
        # ρ as reported: M's where M is the only bound (rows == [M]), else the largest of the row bounds'
        rho = max(rho, rho_A) if A is not M or len(rows) == 1 else rho
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
    return ContractionCertificate(M, eta, rate, rho, states, inputs)
