"""Jacobian maps of a recurrent cell along a trajectory: ‖∂h_t/∂h_s‖ for all 0 ≤ s ≤ t ≤ T
(the heatmaps behind sgornn.md Sec. 2.2 and Theorem 2) and ‖∂h_τ/∂x_t‖ for all 1 ≤ t ≤ τ ≤ T
(enrnn.md Sec. 6, Fig. 4–5, optionally restricted to a block of h such as h^(S) or h^(L)).

How it is computed
------------------
1. Per-step Jacobians J_t = ∂h_t/∂h_{t−1} and K_t = ∂h_t/∂x_t for all t at once by forward-mode
   ``torch.func`` (``vmap`` over the basis directions of a ``jvp`` of the cell's batched
   :meth:`~cells.base.RecurrentCell.step` on the whole trajectory): h + n directional derivatives,
   no per-t and no per-(s, t) autograd call.
2. Products. With X(t, s) = ∂h_t/∂h_sᵀ = J_{s+1}ᵀ ⋯ J_tᵀ, all s < t are stacked into one
   (t·h, h) matrix, and X(t, ·) = X(t − 1, ·) J_tᵀ is **one GEMM per t** (BLAS-3 speed). Input
   maps are the same with start blocks K_tᵀ (n × h) instead of I.
3. Norms of every block (:mod:`analysis.products`, :mod:`analysis.certificate`).
   * Frobenius: exact (a sum of squares of the formed product, scaled as below).
   * Spectral: each value is a Ritz value of B = PᵀP with a **certificate** that ‖P‖₂ is within
     ``rtol`` above it: block Krylov iteration warm-started from the same s at t − 1 (for fixed s the
     top right singular vectors of ∂h_t/∂h_s settle as t grows, the forward Oseledets directions) with
     an arrowhead bound from the residuals and the trace of B; where the spectrum is too flat for any
     trace bound (short gaps of near-orthogonal cells) the Gram matrix, a Cholesky factorisation of
     μI − B that proves ‖P‖₂² < μ, and shift-invert refinement of the Ritz value. See
     :mod:`analysis.certificate` for the bounds and ``stats`` for how many pairs each path settled.
   * Smallest singular value: σ_min(P) = 1/‖P⁻¹‖₂ with P⁻¹ = J_{s+1}⁻¹ ⋯ J_t⁻¹, the same machinery
     on the inverse factors (their product is again one GEMM per t). This keeps relative accuracy
     where σ_min ≪ u·σ_max, which the formed product P cannot resolve.
4. Method (``method="auto"``): for narrow blocks every norm is cheaper exactly, by one batched
   eigensolve per t, than certified; :mod:`analysis.map_methods` picks by a cost model. Both methods
   return the same maps to within ``rtol``.
5. Heatmap grade (``grid=``, opt-in): the maps at a grid of steps only, from aggregated factors streamed one
   interval at a time (certified as above), or by randomized forward sweeps that never form a Jacobian
   (``method="sketch"``, a stated factor at a stated confidence): :mod:`analysis.grid_maps`. Before any
   map is computed its estimated memory (:func:`analysis.grid_maps.estimate_cost`) is checked against
   ``memory_limit``.

Every function takes a :class:`~rnnaudit.cells.base.RecurrentCell` or anything
:func:`rnnaudit.cells.wrap` accepts (``torch.nn.RNN``/``GRU``/``LSTM`` and their ``*Cell``, wrapped on
the fly: the state is then the packed state of :class:`rnnaudit.cells.adapters.TorchRecurrent`).

Accuracy guaranteed (``spectral``): for each pair the returned σ̂ is a Ritz value, so
σ̂ ≤ ‖P̂‖₂ ≤ σ̂ (1 + rtol) where P̂ is the product as formed in floating point, up to rounding of
order h·u (u = unit roundoff) in the Gram/bound arithmetic. Forming the product itself is
backward stable factor by factor: ‖P̂ − P‖₂ ≲ (t − s)·γ_h·∏‖J_k‖₂, the same for any method that
multiplies the per-step Jacobians (autograd included). ``smallest`` is 1/(certified lower bound of
‖P̂⁻¹‖₂), so σ_min ≤ σ̂_min ≤ σ_min (1 + rtol) for the product of the computed inverse factors (each
J_k⁻¹ carries relative error ~κ(J_k)·u); it is 0 where a factor is numerically singular
(σ_min(J_k) ≤ h·u·‖J_k‖), since then the product is singular too. These hold at any magnitude: the
engine keeps every product scaled by an exact power of two, so norms of 1e-200 (long gaps of a contracting
cell) or 1e200 are certified like norms near 1; only the value written to the float64 map is rounded
outside float64's normal range (to 0 below about 4.9e-324, inf above 1.8e308); ``smallest_log10`` holds
log₁₀ σ_min at any magnitude.

Complex states: a state z ∈ ℂᴺ is probed as the real state (Re z, Im z) ∈ ℝ²ᴺ (:mod:`cells.real_view`, which
:func:`rnnaudit.cells.wrap` returns for a complex cell), so the factors this module multiplies are the real 2N × 2N
Jacobians; where the step is holomorphic (the linear part of an LRU) their 2-norm is the complex Jacobian's.
A cell declaring a diagonal Jacobian (``diagonal_jacobian(x_t, h)``), or whose formed one-step Jacobians are
exactly diagonal, takes the exact fast path of :mod:`analysis.diagonal` instead of the products.
"""

from __future__ import annotations

import math

from dataclasses import dataclass

import torch
from torch import Tensor
from torch.func import jvp, vmap

from rnnaudit.analysis.diagonal import declared_moduli, declares_diagonal, diagonal_maps, diagonal_of
from rnnaudit.analysis.grid_maps import (_NORM_GEMMS, SKETCH_DELTA, SKETCH_PROBES, aggregated_factors,
                                         default_memory_limit, estimate_cost, grid_steps, sketch_maps)
from rnnaudit.analysis.map_methods import choose_method
from rnnaudit.analysis.products import new_stats, product_norm_maps
from rnnaudit.analysis.torch_rnn_jacobians import step_jacobians_at
from rnnaudit.cells.adapters import wrap
from rnnaudit.cells.base import RecurrentCell

__all__ = ["step_jacobians", "input_jacobians", "hidden_jacobian_norms", "hidden_jacobian_maps",
           "input_jacobian_maps", "JacobianMaps", "pair_jacobian", "naive_hidden_jacobian_maps", "CERTIFIED_RTOL",
           "HEATMAP_RTOL"]

#: Default relative tolerance of the spectral values: certified maps for the claims and the tests.
CERTIFIED_RTOL = 1e-10
#: Heatmap-grade tolerance. A heatmap shows log10 of the norms on a colormap of at most 256 levels over
#: at least one decade, so one level spans a factor of at least 10^(1/256) ≈ 1.009 (0.9%); a relative
#: error of 1e-3 is below a ninth of one level and cannot change a pixel by more than one level.
#: Figures default to it; the values are still certified, to this tolerance.
HEATMAP_RTOL = 1e-3

_NORMS = ("spectral", "frobenius", "smallest")
_JVP_ROWS = 128  # trajectory rows per forward-mode pass (memory ~ rows · h² · 8 bytes per intermediate)


# ----------------------------------------------------------------------------------------------
# per-step Jacobians
# ----------------------------------------------------------------------------------------------

def _sequences(cell: RecurrentCell, x: Tensor, *, single: bool) -> Tensor:
    """x as (batch, T, n); with ``single`` only one sequence is accepted."""
    if not isinstance(x, Tensor):
        raise ValueError(f"x must be a Tensor, got {type(x).__name__}")
    if x.dim() == 2:
        x = x[None]
    if x.dim() != 3:
        raise ValueError(f"x must have shape (T, n) or (batch, T, n), got {tuple(x.shape)}")
    if single and x.shape[0] != 1:
        raise ValueError(f"x must be one sequence, shape (T, n) or (1, T, n), got {tuple(x.shape)}")
    cell.initial_state(x, None)  # width, dtype, T = 0, NaN/Inf → ValueError naming x
    return x


def _initial_states(cell: RecurrentCell, x: Tensor, h0: Tensor | None) -> Tensor:
    """h0 as (batch, h): None → zeros, (h,) → shared by all sequences, (batch, h) as is."""
    if h0 is not None and isinstance(h0, Tensor) and h0.dim() == 1:
        h0 = h0[None].expand(x.shape[0], -1)
    return cell.initial_state(x, h0)


def _closed_form(cell, xr: Tensor) -> tuple[str, tuple] | None:
    """(kind, per-layer weights) of a wrapped torch ``nn.RNN``/``GRU``/``LSTM`` (or ``*Cell``) whose step Jacobians
    :mod:`rnnaudit.analysis.torch_rnn_jacobians` forms in closed form: float64 weights and inputs on one device, no
    ``proj_size``; None for any other cell (formed by forward mode)."""
    from rnnaudit.cells.adapters import TorchRecurrent

    if not isinstance(cell, TorchRecurrent) or cell.proj_size or xr.dtype != torch.float64:
        return None
    weights = []
    for w in cell._layer_weights():
        w_ih, w_hh = w["weight_ih"], w["weight_hh"]
        if w_ih.dtype != torch.float64 or w_ih.device != xr.device or w.get("weight_hr") is not None:
            return None
        zeros = torch.zeros(w_hh.shape[0], dtype=torch.float64, device=xr.device)
        weights.append(tuple(t.detach() for t in (w_ih, w_hh, zeros if w["bias_ih"] is None else w["bias_ih"],
                                                  zeros if w["bias_hh"] is None else w["bias_hh"])))
    kind = cell.kind if cell.kind != "rnn" else ("rnn_tanh" if cell.module.nonlinearity == "tanh" else "rnn_relu")
    return kind, tuple(weights)


def _jacobians_at(cell: RecurrentCell, xr: Tensor, hr: Tensor, *, inputs: bool) -> tuple[Tensor, Tensor | None]:
    """∂step/∂h (rows, h, h) and ∂step/∂x (rows, h, n) or None at the rows xr (rows, n), hr (rows, h).

    The step is evaluated on all rows at once (rows of a step are independent by the
    RecurrentCell contract) and differentiated along every basis direction with forward mode,
    vmapped over the directions.
    """
    h, n = hr.shape[1], xr.shape[1]
    closed = _closed_form(cell, xr)
    if closed is not None:  # torch's RNN/GRU/LSTM: the product rule on its equations, every row at once
        with torch.no_grad():
            J, K = step_jacobians_at(*closed, xr, hr, cell.step(xr, hr))
        return J, (K if inputs else None)
    with torch.no_grad():
        eye_h = torch.eye(h, dtype=xr.dtype, device=xr.device)
        eye_n = torch.eye(n, dtype=xr.dtype, device=xr.device)
        Js, Ks = [], []
        # rows in pieces: the h tangent copies of a piece stay in cache through the cell's ops
        for lo in range(0, xr.shape[0], _JVP_ROWS):
            # copies, not views: forward mode gives a view's tangent the size of the view's base (here the
            # whole trajectory), which made every pass cost O(T) and the map O(T²) in make_dual alone
            xc, hc = xr[lo:lo + _JVP_ROWS].clone(), hr[lo:lo + _JVP_ROWS].clone()
            Js.append(vmap(lambda v: jvp(lambda hh: cell.step(xc, hh), (hc,), (v.expand_as(hc),))[1])(eye_h))
            if inputs:
                Ks.append(vmap(lambda v: jvp(lambda xx: cell.step(xx, hc), (xc,), (v.expand_as(xc),))[1])(eye_n))
        # (direction j, row, output i) → row, i, j: column j of every J_t
        J = torch.cat(Js, dim=1).permute(1, 2, 0)
        K = torch.cat(Ks, dim=1).permute(1, 2, 0) if inputs else None
    return J, K


def _require_finite(cell: RecurrentCell, x: Tensor, hs: Tensor, what: str = "state h_t") -> None:
    """Refuse a trajectory (batch, T + 1, ...) that stops being finite: finite inputs whose scale overflows the
    cell (an mLSTM's exponential gates at |x| = 1e300) would otherwise reach an eigensolver as NaN and fail there
    with no word of why.

    Raises:
        ValueError: names the cell, the first step and sequence where ``hs`` is NaN or infinite, and the largest |x|.
    """
    bad = ~torch.isfinite(hs.reshape(hs.shape[0], hs.shape[1], -1)).all(-1)
    if bool(bad.any()):
        b, t = (int(i) for i in bad.nonzero()[0])
        raise ValueError(f"the {type(cell).__name__}'s {what} is not finite (NaN or inf) from step t = {t} of "
                         f"sequence {b} on: the inputs x (largest |x| = {float(x.abs().max()):.3g}) drive it out of "
                         "floating-point range; expected inputs of the scale the cell works at")


def _trajectory_jacobians(cell: RecurrentCell, x: Tensor, h0: Tensor, *, inputs: bool
                          ) -> tuple[Tensor, Tensor | None, Tensor]:
    """J (batch, T, h, h), K (batch, T, h, n) or None, hs (batch, T + 1, h) for x (batch, T, n).

    Raises:
        ValueError: a state or one-step Jacobian that is not finite (:func:`_require_finite`).
    """
    B, T, n = x.shape
    with torch.no_grad():
        hs = torch.cat([h0[:, None], cell(x, h0)], dim=1)
    _require_finite(cell, x, hs)
    h = hs.shape[2]
    J, K = _jacobians_at(cell, x.reshape(B * T, n), hs[:, :-1].reshape(B * T, h), inputs=inputs)
    J = J.reshape(B, T, h, h)
    # J[:, t − 1] = ∂h_t/∂h_{t−1}: shifted by one so that the step named is t
    _require_finite(cell, x, torch.cat([torch.zeros_like(J[:, :1]), J], dim=1), "one-step Jacobian ∂h_t/∂h_{t−1}")
    return J, (K.reshape(B, T, h, n) if inputs else None), hs


def step_jacobians(cell: RecurrentCell, x: Tensor, h0: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """Per-step Jacobians along one trajectory.

    Args:
        cell: any :class:`cells.base.RecurrentCell`.
        x: one input sequence, shape (T, n) or (1, T, n), the cell's dtype.
        h0: initial state (h,), zeros by default.

    Returns:
        ``(J, hs)``: J of shape (T, h, h) with ``J[t-1] = ∂h_t/∂h_{t−1}``, and the hidden
        states hs of shape (T + 1, h) with ``hs[0] = h_0``. Same dtype/device as x.

    Raises:
        ValueError: x not a single sequence; the cell's own input errors.
    """
    cell = wrap(cell)
    x = _sequences(cell, x, single=True)
    J, _, hs = _trajectory_jacobians(cell, x, _initial_states(cell, x, h0), inputs=False)
    return J[0], hs[0]


def input_jacobians(cell: RecurrentCell, x: Tensor, h0: Tensor | None = None) -> Tensor:
    """K of shape (T, h, n) with ``K[t-1] = ∂h_t/∂x_t`` along one trajectory (enrnn.md Sec. 8.3:
    ∂h_t/∂x_t = G_t U for the ENRNN, G_t the diagonal of σ′).

    Raises:
        ValueError: as :func:`step_jacobians`.
    """
    cell = wrap(cell)
    x = _sequences(cell, x, single=True)
    _, K, _ = _trajectory_jacobians(cell, x, _initial_states(cell, x, h0), inputs=True)
    return K[0]


def pair_jacobian(cell: RecurrentCell, x: Tensor, s: int, t: int, h0: Tensor | None = None) -> Tensor:
    """∂h_t/∂h_s (h, h) for one pair 0 ≤ s ≤ t ≤ T by one ``torch.autograd.functional.jacobian`` call
    through t − s steps: the reference ("naive") method the fast maps are checked and timed against.

    Raises:
        ValueError: x not a single sequence, or not 0 ≤ s ≤ t ≤ T.
    """
    cell = wrap(cell)
    x = _sequences(cell, x, single=True)[0]
    T = x.shape[0]
    if not (isinstance(s, int) and isinstance(t, int) and 0 <= s <= t <= T):
        raise ValueError(f"need integers 0 <= s <= t <= T = {T}, got s={s!r}, t={t!r}")
    with torch.no_grad():
        h0b = None if h0 is None else h0[None]
        states = torch.cat([cell.initial_state(x[None], h0b), cell(x[None], h0b)[0]])

    def h_t_from_h_s(hs: Tensor) -> Tensor:
        h = hs[None]
        for k in range(s, t):
            h = cell.step(x[k][None], h)
        return h[0]

    return torch.autograd.functional.jacobian(h_t_from_h_s, states[s].clone())


def naive_hidden_jacobian_maps(cell: RecurrentCell, x: Tensor, h0: Tensor | None = None) -> dict[str, Tensor]:
    """The reference ("naive") method for ‖∂h_t/∂h_s‖₂ and ‖·‖_F for all 0 ≤ s ≤ t ≤ T: one
    ``torch.func.jacrev`` of the cell's step per time step, the products P(t, s) = J_t P(t − 1, s) for
    all s at once (one batched matmul per t), and ``torch.linalg.matrix_norm`` (ord=2: the largest
    singular value by SVD; and ``"fro"``) of all blocks of each t in one batched call. Exact to
    rounding; the fast maps are checked and timed against it (``benchmarks/bench_jacobian.py``).

    Args:
        cell, x, h0: as :func:`step_jacobians` (one sequence).

    Returns:
        {"spectral", "frobenius"}: (T + 1, T + 1) tensors indexed [t, s], 0 above the diagonal.

    Raises:
        ValueError: as :func:`step_jacobians`.
    """
    from torch.func import jacrev

    cell = wrap(cell)
    x = _sequences(cell, x, single=True)
    h0 = _initial_states(cell, x, h0)
    with torch.no_grad():
        hs = torch.cat([h0, cell(x, h0)[0]])
    x = x[0]
    T, h = x.shape[0], cell.hidden_size
    kw = {"dtype": x.dtype, "device": x.device}
    out = {"spectral": torch.zeros(T + 1, T + 1, **kw), "frobenius": torch.zeros(T + 1, T + 1, **kw)}
    P = torch.eye(h, **kw)[None]
    for t in range(T + 1):
        if t:
            J_t = jacrev(lambda hh: cell.step(x[t - 1][None], hh[None])[0])(hs[t - 1]).detach()
            P = torch.cat([J_t @ P, torch.eye(h, **kw)[None]])
        out["spectral"][t, :t + 1] = torch.linalg.matrix_norm(P, ord=2)
        # scaled by the largest entry: the plain sum of squares underflows for products below about 1e-154
        big = P.abs().amax((1, 2), keepdim=True)
        big = torch.where(big > 0, big, torch.ones_like(big))
        out["frobenius"][t, :t + 1] = torch.linalg.matrix_norm(P / big) * big[:, 0, 0]
    return out


# ----------------------------------------------------------------------------------------------
# public maps
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class JacobianMaps:
    """Norm maps returned by :func:`hidden_jacobian_maps` and :func:`input_jacobian_maps`.

    Attributes:
        spectral, frobenius, smallest: (T + 1, T + 1) tensors (or (batch, T + 1, T + 1) with
            ``reduce="none"``), ``None`` when not requested; entry [t, s] for s ≤ t, 0 above the
            diagonal. ``smallest`` is σ_min (the vanishing side), as a float64 value: a subnormal below
            2.2e-308 and 0 below 4.9e-324, as any float64.
        smallest_log10: with ``"smallest"``, log₁₀ σ_min at any magnitude (1e-400 is −400), from the engine's
            mantissa and power of two, never under- or overflowing; −inf where the product is singular, NaN
            above the diagonal; with ``reduce="mean"`` the log₁₀ of the batch mean of σ_min.
        stats: how many (pair, sequence) spectral norms each path settled (:mod:`analysis.certificate`):
            ``iterative`` (Krylov bound), ``gram`` (the Gram matrix's Frobenius bound), ``cholesky``
            (Cholesky certificate, with or without refinement), ``dense`` (exact eigenvalue where no
            certificate closed), ``exact`` (exact at once: the pair's Gram path needed refinement or the
            eigenvalue at the step before), ``dense_small`` (exact by the ``"dense"`` method or for blocks no
            larger than ``block``); ``shift_invert`` counts pairs refined by inverse iteration and
            ``iterations`` Krylov blocks summed over pairs; ``diagonal`` (present only then) the (pair, sequence)
            values of the diagonal fast path (:mod:`analysis.diagonal`).
        steps: the grid's steps (R,) when the maps were computed on a grid (``grid=``): then the maps are
            (R, R) and entry [i, j] is the norm at the steps (steps[i], steps[j]); None for all-pairs maps.
        rtol: the stated error of every spectral value (and of 1/‖P⁻¹‖ for ``smallest``): relative,
            one-sided, certified (confidence 1): σ̂ ≤ ‖P̂‖₂ ≤ σ̂ (1 + rtol). Frobenius values are exact to
            rounding. None for ``method="sketch"``. For the diagonal fast path: the two-sided bound
            |value − norm| ≤ rtol·norm of every value (:func:`analysis.diagonal.diagonal_rtol`, its largest over the
            map).
        factor: for ``method="sketch"`` only: each cell's stated error as a factor f (same shape as the map):
            ‖B‖₂ ∈ [value/f, value·f] with probability ≥ ``confidence`` per cell
            (:func:`analysis.grid_maps.sketch_maps`; batch-averaged maps: the largest factor over the batch,
            confidence 1 − batch·δ). None otherwise.
        confidence: per-cell probability that the stated error holds: 1.0 for the certified methods.
    """

    spectral: Tensor | None
    frobenius: Tensor | None
    smallest: Tensor | None
    stats: dict
    smallest_log10: Tensor | None = None
    steps: Tensor | None = None
    rtol: float | None = None
    factor: Tensor | None = None
    confidence: float = 1.0


def _runner(method: str, rtol: float, block: int, max_iter: int, stats: dict, progress=None):
    """(M, starts, birth, rows=, want=, factor_exp=) → maps, by the chosen method; ``progress`` gets GEMM units
    of :func:`analysis.grid_maps.estimate_cost` (a product of q of h columns and its norm: q/h·(1 + norms))."""
    def run(M, starts, birth, *, rows, want, factor_exp=None):
        unit = starts.shape[1] / M.shape[1] * (1 + _NORM_GEMMS)
        return product_norm_maps(M, starts, birth, rows=rows, want=want, rtol=rtol, block=block, max_iter=max_iter,
                                 stats=stats, exact=method == "dense", factor_exp=factor_exp,
                                 progress=None if progress is None else lambda n: progress(n * unit))
    return run


def _check_options(norms, rtol, block, max_iter, reduce) -> tuple[str, ...]:
    if isinstance(norms, str):
        norms = (norms,)
    norms = tuple(norms)
    if not norms or any(nm not in _NORMS for nm in norms) or len(set(norms)) != len(norms):
        raise ValueError(f"norms must be distinct names from {_NORMS}, got {norms!r}")
    if isinstance(rtol, bool) or not isinstance(rtol, (int, float)) or not 0 < rtol < 1:
        raise ValueError(f"rtol (relative tolerance of the spectral norms) must be in (0, 1), got {rtol!r}")
    for name, value in (("block", block), ("max_iter", max_iter)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an int >= 1, got {value!r}")
    if reduce not in ("mean", "none"):
        raise ValueError(f"reduce must be 'mean' (average over the batch) or 'none', got {reduce!r}")
    return norms


def _index(name: str, idx, h: int, device) -> Tensor | None:
    """A 1-D set of distinct hidden coordinates in [0, h) as a long tensor (None = all)."""
    if idx is None:
        return None
    if isinstance(idx, slice):
        idx = range(h)[idx]
    t = torch.as_tensor(list(idx) if not isinstance(idx, Tensor) else idx, device=device)
    if t.dim() != 1 or t.numel() == 0 or t.is_floating_point() or t.dtype == torch.bool:
        raise ValueError(f"{name} must be a non-empty 1-D set of integer hidden indices, got {idx!r}")
    t = t.long()
    if int(t.min()) < 0 or int(t.max()) >= h or t.unique().numel() != t.numel():
        raise ValueError(f"{name} must hold distinct indices in [0, {h}), got {t.tolist()}")
    return t


def _reduce(per_seq: list[Tensor], reduce: str) -> Tensor:
    stacked = torch.stack(per_seq)
    return stacked.mean(0) if reduce == "mean" else stacked


def _inverse_factors(J: Tensor) -> Tensor:
    """J_k⁻¹ for J (T, h, h); 0 where J_k is numerically singular (σ_min ≤ h·u·σ_max).

    σ_min(P) = 1/‖P⁻¹‖ needs the inverse factors themselves, so this is one of the places where
    the algorithm is about the inverse; a zero factor makes every product through it 0, and
    σ_min := 0 there, which is exact for a singular factor.
    """
    sv = torch.linalg.svdvals(J)
    singular = sv[:, -1] <= J.shape[-1] * torch.finfo(J.dtype).eps * sv[:, 0]
    eye = torch.eye(J.shape[-1], dtype=J.dtype, device=J.device).expand_as(J)
    inv, _ = torch.linalg.solve_ex(J, eye)
    return torch.where(singular[:, None, None], torch.zeros_like(inv), inv)


def _refuse_above_limit(cell, x: Tensor, *, kind: str, grid, rows, cols, norms, memory_limit,
                        method: str = "products") -> None:
    """ValueError when the chosen method's estimated peak memory exceeds the limit (before anything is
    allocated)."""
    if memory_limit is not None and (isinstance(memory_limit, bool) or not isinstance(memory_limit, (int, float))
                                     or not memory_limit > 0):
        raise ValueError(f"memory_limit must be a positive number of bytes or None, got {memory_limit!r}")
    limit = default_memory_limit(x.device) if memory_limit is None else int(memory_limit)
    est = estimate_cost(cell, x.shape[1], kind=kind, grid=grid, rows=rows, cols=cols, batch=x.shape[0], norms=norms,
                        dtype=x.dtype, device=x.device, memory_limit=limit, method=method)
    if not est.fits:
        raise ValueError(f"x: the {est.method} map of T = {x.shape[1]} steps of a width-{cell.hidden_size} state needs "
                         f"about {est.peak_bytes / 2 ** 30:.3g} GiB, above memory_limit = {limit / 2 ** 30:.3g} GiB "
                         f"(pass grid= for a heatmap-grade map, a shorter x, or a larger memory_limit)")


def _aggregated_inverses(cell, x: Tensor, hs: Tensor, steps: Tensor) -> tuple[Tensor, Tensor]:
    """(F, e) with F[i − 1]·2^e[i − 1] = A_i⁻¹ = J_{g_{i−1}+1}⁻¹ ⋯ J_{g_i}⁻¹, each J_k⁻¹ formed and inverted
    one step at a time (:func:`_inverse_factors`: 0 for a numerically singular J_k) and multiplied in."""
    h = hs.shape[1]
    g = steps.tolist()
    F = torch.empty(len(g) - 1, h, h, dtype=x.dtype, device=x.device)
    exps = torch.zeros(len(g) - 1, dtype=torch.int64, device=x.device)
    for i in range(1, len(g)):
        P, e = torch.eye(h, dtype=x.dtype, device=x.device), 0
        for lo in range(g[i - 1], g[i], _JVP_ROWS):
            hi = min(g[i], lo + _JVP_ROWS)
            J, _ = _jacobians_at(cell, x[lo:hi], hs[lo:hi], inputs=False)
            for Jinv in _inverse_factors(J):
                P = P @ Jinv
                big = float(P.abs().amax())
                if big > 0 and not 2.0 ** -64 <= big <= 2.0 ** 64:
                    k = math.frexp(big)[1]
                    P, e = torch.ldexp(P, torch.tensor(-k, device=P.device)), e + k
        F[i - 1], exps[i - 1] = P, e
    return F, exps


def _sketch(cell, x: Tensor, h0, steps, *, kind, rows, cols, norms, reduce, memory_limit, progress) -> JacobianMaps:
    """``method="sketch"``: randomized forward sweeps on a grid (:func:`analysis.grid_maps.sketch_maps`)."""
    if steps is None:
        raise ValueError("method='sketch' needs grid= (it samples the map at a grid of steps)")
    if tuple(norms) != ("spectral",):
        raise ValueError(f"method='sketch' gives the spectral norm only, got norms={tuple(norms)!r}")
    _refuse_above_limit(cell, x, kind=kind, grid=steps, rows=rows, cols=cols, norms=norms, memory_limit=memory_limit,
                        method="sketch")
    h0 = _initial_states(cell, x, h0)
    with torch.no_grad():
        hs_all = torch.cat([h0[:, None], cell(x, h0)], dim=1)
    _require_finite(cell, x, hs_all)
    units = None if progress is None else (lambda d: progress(d / cell.hidden_size))
    vals, facs = [], []
    for i in range(x.shape[0]):
        v, f = sketch_maps(cell, x[i], hs_all[i], steps, kind=kind, rows=rows, cols=cols, seed=i, progress=units)
        vals.append(v)
        facs.append(f)
    value = _reduce(vals, reduce)
    factor = torch.stack(facs).amax(0) if reduce == "mean" else torch.stack(facs)
    q = cell.input_size if kind == "input" else (cell.hidden_size if cols is None else cols.numel())
    # with at least q probes they span every direction: each value is a Ritz value on the whole space, exact
    confidence = 1.0 if q <= SKETCH_PROBES else 1 - x.shape[0] * SKETCH_DELTA
    return JacobianMaps(value, None, None, {}, steps=steps, factor=factor, confidence=confidence)


def _grid_hidden(cell, x: Tensor, h0: Tensor | None, steps: Tensor, *, r_idx, c_idx, norms, run, progress):
    """Per-sequence (R, R) maps on the grid ``steps`` (:mod:`analysis.grid_maps`)."""
    h = cell.hidden_size
    h0 = _initial_states(cell, x, h0)
    with torch.no_grad():
        hs_all = torch.cat([h0[:, None], cell(x, h0)], dim=1)
    _require_finite(cell, x, hs_all)
    R = steps.numel()
    eye = torch.eye(h, dtype=x.dtype, device=x.device)
    start = eye if c_idx is None else eye[c_idx]
    starts = start.expand(R, *start.shape)
    birth = torch.arange(R, device=x.device)
    direct = [nm for nm in norms if nm != "smallest"]
    per = {nm: [] for nm in norms}
    for i in range(x.shape[0]):
        F, e = aggregated_factors(cell, x[i], hs_all[i], steps, progress=progress)
        if direct:
            maps = run(F, starts, birth, rows=r_idx, want=tuple(direct), factor_exp=e)
            for nm in direct:
                per[nm].append(maps[nm])
        if "smallest" in norms:
            # P⁻¹ = A_{j+1}⁻¹ ⋯ A_i⁻¹ from the per-step inverses: inverting a formed A_i would lose σ_min below
            # u·‖A_i‖, which the factors J_k resolve one by one
            Finv, einv = _aggregated_inverses(cell, x[i], hs_all[i], steps)
            inv = run(Finv, starts, birth, rows=None, want=("spectral",), factor_exp=einv)
            sv = inv["spectral"]
            lower = torch.ones(R, R, dtype=torch.bool, device=x.device).tril()
            per["smallest"].append(torch.where(lower & (sv > 0), 1 / sv, torch.zeros_like(sv)))
    return per


def _diagonal_result(moduli: list[Tensor], mult: int, norms, steps, reduce: str) -> JacobianMaps:
    """:class:`JacobianMaps` of the diagonal fast path (:mod:`analysis.diagonal`) from per-sequence moduli."""
    want = tuple(norms) + (("smallest_log10",) if "smallest" in norms else ())
    per = {nm: [] for nm in want}
    worst = 0.0
    for mod in moduli:
        maps = diagonal_maps(mod, mult, want, steps)
        for nm in want:
            per[nm].append(maps[nm])
        worst = max(worst, maps["rtol"])
    out = {nm: _reduce(per[nm], reduce) for nm in norms}
    log10 = None
    if "smallest" in norms:
        stacked = torch.stack(per["smallest_log10"])
        log10 = stacked if reduce == "none" else \
            (torch.logsumexp(stacked * math.log(10), 0) - math.log(len(moduli))) / math.log(10)
    R = moduli[0].shape[0] + 1 if steps is None else steps.numel()
    stats = {**new_stats(), "diagonal": len(moduli) * R * (R + 1) // 2}
    return JacobianMaps(out.get("spectral"), out.get("frobenius"), out.get("smallest"), stats, log10, steps=steps,
                        rtol=worst)


def _declared_diagonal_maps(cell, x: Tensor, h0, steps, norms, reduce: str) -> JacobianMaps:
    """The fast path for a cell that declares its Jacobian diagonal: |a_t| from its ``diagonal_jacobian`` along
    each trajectory (checked along a random direction), then :func:`_diagonal_result`."""
    h0 = _initial_states(cell, x, h0)
    with torch.no_grad():
        hs_all = torch.cat([h0[:, None], cell(x, h0)], dim=1)
    _require_finite(cell, x, hs_all)
    moduli, mult = [], 1
    for i in range(x.shape[0]):
        mod, mult = declared_moduli(cell, x[i], hs_all[i], seed=i)
        moduli.append(mod)
    return _diagonal_result(moduli, mult, norms, steps, reduce)


def hidden_jacobian_maps(cell: RecurrentCell, x: Tensor, h0: Tensor | None = None, *,
                         norms=("spectral", "frobenius"), rows=None, cols=None, reduce: str = "mean",
                         rtol: float = CERTIFIED_RTOL, block: int = 8, max_iter: int = 4,
                         method: str = "auto", grid=None, memory_limit: float | None = None,
                         progress=None) -> JacobianMaps:
    """Maps of ‖∂h_t/∂h_s‖ for all 0 ≤ s ≤ t ≤ T (sgornn.md Sec. 2.2, enrnn.md Sec. 8.3 eq. for
    ∂h^(S)_{t+τ}/∂h^(S)_t): spectral norm, Frobenius norm and smallest singular value, for one
    sequence or averaged over a batch (the mean of the per-sequence norms).

    See the module docstring for the method and the accuracy guaranteed: every spectral value is
    a certified lower bound within relative ``rtol`` of the 2-norm of the formed product.

    Args:
        cell: any :class:`cells.base.RecurrentCell`, or a torch.nn RNN/GRU/LSTM (or ``*Cell``), wrapped by
            :func:`rnnaudit.cells.wrap` (its packed state: the layers' h, and c for an LSTM).
        x: (T, n) or (batch, T, n), the cell's dtype.
        h0: (h,) shared or (batch, h); zeros by default.
        norms: any of ``"spectral"``, ``"frobenius"``, ``"smallest"``.
        rows, cols: restrict to the block ∂h_t[rows]/∂h_s[cols] (e.g. ENRNN's h^(S) coordinates
            ``range(q, n)``); ``"smallest"`` needs the full square Jacobian.
        reduce: ``"mean"`` over the batch, or ``"none"`` to keep (batch, T + 1, T + 1).
        rtol: relative tolerance of the spectral values (and of 1/‖P⁻¹‖ for ``smallest``); default
            :data:`CERTIFIED_RTOL`, :data:`HEATMAP_RTOL` for figures.
        block: Krylov block size k (blocks with min(p, q) ≤ k are done exactly).
        max_iter: Krylov blocks per pair and t before the Gram path.
        method: ``"auto"`` (cost model, :mod:`analysis.map_methods`), ``"products"`` (certified engine)
            or ``"dense"`` (exact norms by batched eigensolves); with ``grid``, also ``"sketch"``: randomized
            forward sweeps of a few probe vectors per grid start, never forming a Jacobian, each value within a
            stated factor (``factor``) at a stated confidence (:func:`analysis.grid_maps.sketch_maps`), spectral
            only: for states too wide for the products (h ≳ 1000 at T = 1000). ``"diagonal"``: the exact fast
            path of a diagonal recurrence (:mod:`analysis.diagonal`: max_i Π|a_{k,i}| from prefix products, no
            matrix product), which ``"auto"`` takes for a cell declaring ``diagonal_jacobian(x_t, h)`` and, for
            all-pairs maps, when the formed one-step Jacobians are exactly diagonal; ``rtol`` of the result is
            then its two-sided bound (:func:`analysis.diagonal.diagonal_rtol`).
        grid: None (default: every pair, the exact all-pairs map the claims use), or an int R ≥ 2 or a
            sequence of steps (:func:`analysis.grid_maps.grid_steps`): the map at the grid's steps only, by
            aggregated factors streamed one interval at a time (:mod:`analysis.grid_maps`; heatmap grade,
            same certificate). The result's ``steps`` names the steps.
        memory_limit: bytes the map may hold (None: 3/4 of the device's memory,
            :func:`analysis.grid_maps.default_memory_limit`); checked on the estimate
            (:func:`analysis.grid_maps.estimate_cost`) before anything is allocated.
        progress: called with GEMM units of work done (their sum approaches ``estimate_cost(...).gemms``).

    Returns:
        :class:`JacobianMaps` with (T + 1, T + 1) maps indexed [t, s] (h_0 is index 0), or (R, R) on a grid.
        Cost: T² h³ flops in T GEMMs for the products, O(T² h² k) for the Krylov steps, O(h³) for the
        pairs with a flat spectrum (``stats``).

    Raises:
        ValueError: bad x/h0 (shape, width, dtype, T = 0, NaN/Inf), bad options, ``smallest``
            with rows/cols, a bad ``grid``; the estimated memory above ``memory_limit`` (naming both).
    """
    cell = wrap(cell)
    norms = _check_options(norms, rtol, block, max_iter, reduce)
    x = _sequences(cell, x, single=False)
    h = cell.hidden_size
    r_idx, c_idx = _index("rows", rows, h, x.device), _index("cols", cols, h, x.device)
    steps = None if grid is None else grid_steps(grid, 0, x.shape[1], device=x.device)
    if method in ("auto", "diagonal") and r_idx is None and c_idx is None and declares_diagonal(cell):
        _refuse_above_limit(cell, x, kind="hidden", grid=grid, rows=None, cols=None, norms=norms,
                            memory_limit=memory_limit, method="auto")  # the fast path's own estimate: its maps
        return _declared_diagonal_maps(cell, x, h0, steps, norms, reduce)
    if method == "diagonal":
        if r_idx is not None or c_idx is not None or steps is not None:
            raise ValueError("method='diagonal' needs the full square map (rows=None, cols=None) and, for a cell "
                             "that declares no diagonal_jacobian(x_t, h), all pairs (grid=None)")
        J, _, _ = _trajectory_jacobians(cell, x, _initial_states(cell, x, h0), inputs=False)
        found = diagonal_of(J, getattr(cell, "complex_width", None))
        if found is None:
            raise ValueError(f"method='diagonal': the {type(cell).__name__}'s one-step Jacobians are not diagonal "
                             "(nonzero entries off the diagonal); use method='auto'")
        return _diagonal_result(list(found[0]), found[1], norms, None, reduce)
    if method == "sketch":
        return _sketch(cell, x, h0, steps, kind="hidden", rows=r_idx, cols=c_idx, norms=norms, reduce=reduce,
                       memory_limit=memory_limit, progress=progress)
    chosen = choose_method(method, x.shape[1] if steps is None else steps.numel() - 1,
                           h if c_idx is None else c_idx.numel(), h if r_idx is None else r_idx.numel(), h)
    if "smallest" in norms and (r_idx is not None or c_idx is not None):
        raise ValueError("norms='smallest' needs the full square Jacobian (rows=None, cols=None)")
    _refuse_above_limit(cell, x, kind="hidden", grid=grid, rows=r_idx, cols=c_idx, norms=norms,
                        memory_limit=memory_limit)
    stats = new_stats()
    run = _runner(chosen, rtol, block, max_iter, stats, progress)
    if steps is not None:
        per = _grid_hidden(cell, x, h0, steps, r_idx=r_idx, c_idx=c_idx, norms=norms, run=run, progress=progress)
        out = {nm: _reduce(per[nm], reduce) for nm in norms}
        return JacobianMaps(out.get("spectral"), out.get("frobenius"), out.get("smallest"), stats, steps=steps,
                            rtol=rtol)
    J, _, _ = _trajectory_jacobians(cell, x, _initial_states(cell, x, h0), inputs=False)
    B, T = J.shape[0], J.shape[1]
    if progress is not None:
        progress(B * T)
    if method == "auto" and r_idx is None and c_idx is None:
        found = diagonal_of(J, getattr(cell, "complex_width", None))  # exact zeros: never a guess
        if found is not None:
            return _diagonal_result(list(found[0]), found[1], norms, None, reduce)
    eye = torch.eye(h, dtype=x.dtype, device=x.device)
    start = eye if c_idx is None else eye[c_idx]
    starts = start.expand(T + 1, *start.shape)
    birth = torch.arange(T + 1, device=x.device)
    direct = [nm for nm in norms if nm != "smallest"]
    per = {nm: [] for nm in norms}
    per_log10: list[Tensor] = []
    for i in range(B):
        if direct:
            maps = run(J[i].mT.contiguous(), starts, birth, rows=r_idx, want=tuple(direct))
            for nm in direct:
                per[nm].append(maps[nm])
        if "smallest" in norms:
            # log₂‖P⁻¹‖ from the engine's mantissa and exponent: 1/‖P⁻¹‖ taken as a float would be 0 once
            # ‖P⁻¹‖ overflows (σ_min below 1/1.8e308 = 5.6e-309); a zero product (a singular factor) is −inf
            inv = run(_inverse_factors(J[i]), starts, birth, rows=None, want=("spectral_log2",))["spectral_log2"]
            lower = torch.ones(T + 1, T + 1, dtype=torch.bool, device=x.device).tril()
            log2 = torch.where(lower & (inv > -math.inf), -inv, torch.full_like(inv, -math.inf))
            per["smallest"].append(torch.where(lower, torch.exp2(log2), torch.zeros_like(log2)))
            per_log10.append(torch.where(lower, log2 * math.log10(2), torch.full_like(log2, math.nan)))
    out = {nm: _reduce(per[nm], reduce) for nm in norms}
    log10 = None
    if per_log10:
        stacked = torch.stack(per_log10)
        log10 = stacked if reduce == "none" else \
            (torch.logsumexp(stacked * math.log(10), 0) - math.log(len(per_log10))) / math.log(10)
    return JacobianMaps(out.get("spectral"), out.get("frobenius"), out.get("smallest"), stats, log10, rtol=rtol)


def input_jacobian_maps(cell: RecurrentCell, x: Tensor, h0: Tensor | None = None, *,
                        norms=("spectral",), rows=None, reduce: str = "mean", rtol: float = CERTIFIED_RTOL,
                        block: int = 8, max_iter: int = 4, method: str = "auto", grid=None,
                        memory_limit: float | None = None, progress=None) -> JacobianMaps:
    """Maps of ‖∂h_τ[rows]/∂x_t‖ for all 1 ≤ t ≤ τ ≤ T (enrnn.md Sec. 6, Fig. 4–5: x-axis t,
    y-axis τ; ``rows`` = the h^(S) or h^(L) coordinates), one sequence or batch-averaged.

    ∂h_τ/∂x_t = J_τ ⋯ J_{t+1} K_t with K_t = ∂h_t/∂x_t (h × n); the (n × h) blocks K_tᵀJ_{t+1}ᵀ⋯J_τᵀ are
    advanced by one GEMM per τ like the hidden map. For n ≤ ``block`` (the usual case) every
    norm is exact (n × n Gram eigenvalue); otherwise as :func:`hidden_jacobian_maps`.

    Args:
        norms: ``"spectral"`` and/or ``"frobenius"``.
        others (rtol, block, max_iter, method, reduce, memory_limit, progress): as :func:`hidden_jacobian_maps`.
        grid: None (all pairs) or as :func:`analysis.grid_maps.grid_steps` on the steps 1..T: the map at
            the grid's (τ, t) only; K_t is formed at the grid's t only.

    Returns:
        :class:`JacobianMaps` with (T + 1, T + 1) maps indexed [τ, t] in the paper's time steps:
        row 0 and column 0 are 0 (h_0 depends on no input, and there is no x_0). On a grid: (R, R) maps,
        entry [i, j] at (τ, t) = (steps[i], steps[j]).

    Raises:
        ValueError: as :func:`hidden_jacobian_maps`; ``"smallest"`` is not offered (K_t is h × n).
    """
    cell = wrap(cell)
    norms = _check_options(norms, rtol, block, max_iter, reduce)
    if "smallest" in norms:
        raise ValueError("norms='smallest' is not offered for input maps (∂h_τ/∂x_t is h × n, not square)")
    x = _sequences(cell, x, single=False)
    r_idx = _index("rows", rows, cell.hidden_size, x.device)
    steps = None if grid is None else grid_steps(grid, 1, x.shape[1], device=x.device)
    if method == "sketch":
        return _sketch(cell, x, h0, steps, kind="input", rows=r_idx, cols=None, norms=norms, reduce=reduce,
                       memory_limit=memory_limit, progress=progress)
    _refuse_above_limit(cell, x, kind="input", grid=grid, rows=r_idx, cols=None, norms=norms,
                        memory_limit=memory_limit)
    stats = new_stats()
    run = _runner("products", rtol, block, max_iter, stats, progress)
    per = {nm: [] for nm in norms}
    if steps is not None:
        h0 = _initial_states(cell, x, h0)
        with torch.no_grad():
            hs_all = torch.cat([h0[:, None], cell(x, h0)], dim=1)
        _require_finite(cell, x, hs_all)
        birth = torch.arange(steps.numel(), device=x.device)
        for i in range(x.shape[0]):
            F, e = aggregated_factors(cell, x[i], hs_all[i], steps, progress=progress)
            _, K = _jacobians_at(cell, x[i, steps - 1], hs_all[i, steps - 1], inputs=True)  # K at the grid's t
            maps = run(F, K.mT.contiguous(), birth, rows=r_idx, want=norms, factor_exp=e)
            for nm in norms:
                per[nm].append(maps[nm])
        out = {nm: _reduce(per[nm], reduce) for nm in norms}
        return JacobianMaps(out.get("spectral"), out.get("frobenius"), None, stats, steps=steps, rtol=rtol)
    J, K, _ = _trajectory_jacobians(cell, x, _initial_states(cell, x, h0), inputs=True)
    B, T = J.shape[0], J.shape[1]
    if progress is not None:
        progress(B * T)
    birth = torch.arange(1, T + 1, device=x.device)
    for i in range(B):
        maps = run(J[i].mT.contiguous(), K[i].mT.contiguous(), birth, rows=r_idx, want=norms)
        for nm in norms:
            per[nm].append(maps[nm])
    out = {nm: _reduce(per[nm], reduce) for nm in norms}
    return JacobianMaps(out.get("spectral"), out.get("frobenius"), None, stats, rtol=rtol)


def hidden_jacobian_norms(cell: RecurrentCell, x: Tensor, h0: Tensor | None = None, *, ord=2,
                          rtol: float = CERTIFIED_RTOL) -> Tensor:
    """Matrix of norms ‖∂h_t/∂h_s‖ for all 0 ≤ s ≤ t ≤ T along one sequence.

    Args:
        cell: any :class:`cells.base.RecurrentCell`.
        x: one sequence, shape (T, n) or (1, T, n).
        h0: initial state (h,), zeros by default.
        ord: ``2`` (spectral norm, default; certified within relative ``rtol``, see the module
            docstring) or ``"fro"`` (exact).
        rtol: tolerance of the spectral norms.

    Returns:
        Tensor M of shape (T + 1, T + 1), dtype of x: ``M[t, s] = ‖∂h_t/∂h_s‖`` for s ≤ t
        (so ``M[t, t] = ‖I‖``), and 0 above the diagonal, where h_t does not depend on h_s.
        Index 0 is h_0. Cost: see :func:`hidden_jacobian_maps`.

    Raises:
        ValueError: bad ``ord``, x not a single sequence, or see :func:`hidden_jacobian_maps`.
    """
    cell = wrap(cell)
    if ord not in (2, "fro"):
        raise ValueError(f"ord must be 2 or 'fro', got {ord!r}")
    _sequences(cell, x, single=True)
    name = "spectral" if ord == 2 else "frobenius"
    maps = hidden_jacobian_maps(cell, x, h0, norms=(name,), rtol=rtol)
    return getattr(maps, name)
