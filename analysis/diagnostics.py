"""Diagnostics every recurrent model gets, whether or not a theorem applies to it: measured on the user's
own inputs, in float64, on the state of one recurrence (one layer, one direction).

- data-dependent contractivity: max over every input sequence and step of ‖J_t‖₂, J_t = ∂h_t/∂h_{t−1} the step
  Jacobian along the trajectory, of the h block by default (for an LSTM the h rows and columns of the (h, c) step
  Jacobian, c_{t−1} held fixed, as the CLI's heatmaps show; :func:`max_step_norm`, labelled by
  :func:`rnnaudit.analysis.norms.step_norm_name`); of the whole state, < 1 means the map is a contraction where the
  data take it (the data-dependent stability Miller & Hardt 2019, "Stable recurrent models", ICLR, measure on
  trained models);
- the memory horizon: the smallest lag τ ≥ 1 at which the median over t (and sequences) of
  ‖∂h_t/∂h_{t−τ}‖₂ = ‖J_t ⋯ J_{t−τ+1}‖₂ falls below a threshold (10⁻³), or None ("beyond T") when no
  lag up to T gets there: how far back a perturbation of the state still shows;
- the top Lyapunov exponents with error bars that cover the finite-T bias and the spread over sequences
  (:func:`rnnaudit.analysis.lyapunov_estimate`, Engelken, Wolf & Abbott 2023), the asymptotic log-growth rates of
  perturbations, and whether they converged;
- ‖∂L/∂h_0‖ for a loss L of the outputs (:func:`initial_state_gradient`): how much the loss still
  depends on where the sequence started.

For a stacked model, the diagonal block of J_t belonging to one layer is that layer's own step
Jacobian with its input (the layer below's new h) held fixed, and the products of block-triangular
matrices have as diagonal blocks the products of the diagonal blocks; so measuring each layer as a
one-layer cell driven by the outputs of the layer below gives the per-layer quantities exactly.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from typing import Callable

import torch
from torch import Tensor

from rnnaudit.analysis.jacobian import _initial_states, _sequences, _trajectory_jacobians
from rnnaudit.analysis.lyapunov import CONVERGENCE_TOL, lyapunov_estimate
from rnnaudit.analysis.norms import PairNorms
from rnnaudit.cells.adapters import wrap

__all__ = ["HORIZON_THRESHOLD", "MAX_HORIZON_TIMES", "StateDiagnostics", "StepNormMax",
           "norm_bounds", "max_step_norm", "contractivity_name", "state_diagnostics", "memory_horizon",
           "initial_state_gradient"]

#: ‖∂h_t/∂h_{t−τ}‖₂ below which a lag counts as forgotten: a unit perturbation of the state at t − τ
#: moves h_t by less than 10⁻³, below what a float32-trained readout resolves in a typical loss.
HORIZON_THRESHOLD = 1e-3


@dataclass(frozen=True)
class StateDiagnostics:
    """Result of :func:`state_diagnostics` (float64 measurements; exponents in nats per step).

    Attributes:
        state_size: width of the state measured. T: steps per sequence. sequences: how many the memory horizon
            and the Lyapunov exponents were measured on (the first ones).
        contractivity: max over every sequence and t of the step Jacobian's norm on ``contractivity_block``
            (:func:`max_step_norm`; the h block by default). contractivity_at: (sequence, t) of it, 0-based sequence.
        contractivity_block: the block, as :func:`rnnaudit.analysis.grid_maps.state_block` labels it ("h block",
            "state h", "(h, c) state", …). contractivity_sequences: how many sequences the maximum is over (all).
        contractive_fraction: share of the steps certified to have that norm < 1 (:func:`max_step_norm`: a lower
            bound on the share that misses only norms within 10⁻⁶ of 1).
        horizon: smallest τ with median_t ‖∂h_t/∂h_{t−τ}‖₂ < ``threshold`` (:func:`memory_horizon`); None = beyond T.
        horizon_medians: the median at τ = 1, 2, … up to the horizon (or T), as :func:`memory_horizon` returns
            them: the last exact (or an upper bound below the threshold), earlier ones possibly bounds that
            decided their side of the threshold.
        threshold: of the horizon.
        lyapunov: the top k exponents, largest first, the mean over the sequences used
            (:func:`rnnaudit.analysis.lyapunov_estimate`). lyapunov_halfwidth: their stated errors (noise, finite-T
            bias and spread over sequences; NaN when fewer than 2 windows). lyapunov_converged: every half-width
            ≤ :data:`rnnaudit.analysis.lyapunov.CONVERGENCE_TOL`. lyapunov_windows: windows per sequence.
            lyapunov_method: how the estimate and its error were formed, one line.
    """

    state_size: int
    T: int
    sequences: int
    contractivity: float
    contractivity_at: tuple[int, int]
    contractive_fraction: float
    horizon: int | None
    horizon_medians: list[float]
    threshold: float
    lyapunov: list[float] = field(default_factory=list)
    lyapunov_halfwidth: list[float] = field(default_factory=list)
    lyapunov_windows: int = 0
    lyapunov_converged: bool = False
    lyapunov_method: str = ""
    contractivity_block: str = "state h"
    contractivity_sequences: int = 0

    def to_json(self) -> dict:
        def num(v):
            # JSON has no infinity: an overflowing norm is written "inf" (as the claims write it), never null,
            # which means "not measured"
            if v is None or math.isnan(v):
                return None
            return float(v) if math.isfinite(v) else ("inf" if v > 0 else "-inf")

        return {"state_size": self.state_size, "T": self.T, "sequences": self.sequences,
                "contractivity": num(self.contractivity), "contractivity_at": list(self.contractivity_at),
                "contractivity_block": self.contractivity_block,
                "contractivity_sequences": self.contractivity_sequences or self.sequences,
                "contractive_fraction": self.contractive_fraction, "horizon": self.horizon,
                "horizon_threshold": self.threshold,
                "median_norm_at_horizon": num(self.horizon_medians[-1]) if self.horizon_medians else None,
                "lyapunov": [v if math.isfinite(v) else ("-inf" if v < 0 else "inf") for v in self.lyapunov],
                "lyapunov_halfwidth": [num(v) for v in self.lyapunov_halfwidth],
                "lyapunov_windows": self.lyapunov_windows, "lyapunov_converged": self.lyapunov_converged,
                "lyapunov_method": self.lyapunov_method}


def norm_bounds(P: Tensor) -> tuple[Tensor, Tensor]:
    """Cheap two-sided bounds on ‖P_i‖₂ of a batch (..., p, q): lower max(‖P‖_F/√r, largest column and
    row 2-norms), upper min(‖P‖_F, √(‖P‖₁‖P‖_∞)) (r = min(p, q); Golub & Van Loan, Matrix Computations,
    Sec. 2.3.2)."""
    col = torch.linalg.vector_norm(P, dim=-2)
    row = torch.linalg.vector_norm(P, dim=-1)
    fro = torch.linalg.vector_norm(col, dim=-1)
    lower = torch.maximum(torch.maximum(col.amax(-1), row.amax(-1)), fro / math.sqrt(min(P.shape[-2:])))
    # ℓ1 norms of columns and rows as reductions (no |P| copy of the batch)
    one = torch.linalg.vector_norm(P, 1, dim=-2).amax(-1)
    inf = torch.linalg.vector_norm(P, 1, dim=-1).amax(-1)
    return lower, torch.minimum(fro, (one * inf).sqrt())


def _median_below(norms, log_scale: Tensor, threshold: float) -> tuple[float, bool]:
    """Whether the (lower) median over i of ‖P_i‖₂·e^{log_scale_i} is below ``threshold``, counted exactly, for the
    matrices P of ``norms`` (a :class:`rnnaudit.analysis.norms.PairNorms`): their cheap bounds decide most sides; the
    rest are tested below the threshold by Cholesky (:meth:`~rnnaudit.analysis.norms.PairNorms.below`), and those
    it leaves open (norms within 10⁻⁶ of the threshold, or above it) are solved. Also returns the median of the upper
    bounds (an upper bound on the median; exact where the bounds meet, and just below the threshold where the median
    matrix was certified by the Cholesky test)."""
    scale = log_scale.reshape(-1).exp()
    need = (scale.numel() - 1) // 2 + 1  # torch.median is the ((n − 1) // 2)-th smallest: below iff this many are below

    def counts():
        lower, upper = norms.lower * scale, norms.upper * scale
        below, open_ = upper < threshold, (lower < threshold) & (upper >= threshold)
        decided = int(below.sum()) >= need or int(below.sum() + open_.sum()) < need
        return upper, below, open_, decided

    upper, below, open_, decided = counts()
    if not decided:
        level = torch.where(open_, threshold / scale, torch.zeros_like(scale))
        norms.below(level, open_)
        upper, below, open_, decided = counts()
    if not decided:  # the few within the Cholesky test's gap of the threshold: solved
        norms.solve(open_.nonzero().squeeze(-1))
        upper, below, _, _ = counts()
    return upper.median().item(), int(below.sum()) >= need


#: end times t the horizon's median is taken over, at most: every t up to this T, evenly spaced ones
#: beyond (the cost is then times·T·S³ instead of T²·S³)
MAX_HORIZON_TIMES = 128


@dataclass(frozen=True)
class StepNormMax:
    """Result of :func:`max_step_norm`.

    Attributes:
        value: max over the sequences b and steps t of ‖J^{(b)}_t[I, I]‖₂, float64, exact (LAPACK's singular values,
            :func:`rnnaudit.analysis.norms.spectral`: the same number the claims' step maps give).
        at: (b, t) where it is reached: b the 0-based sequence, t the 1-based step (J_t = ∂s_t/∂s_{t−1}).
        fraction_below_one: share of all the steps certified to have norm < 1 (:meth:`PairNorms.below
            <rnnaudit.analysis.norms.PairNorms.below>`: exact norms, cheap bounds, or a Cholesky test at
            1 − :data:`~rnnaudit.analysis.norms.CERTIFY_GAP`): a lower bound on the share of steps with norm < 1
            that misses only norms within 10⁻⁶ of 1.
        sequences: how many sequences the maximum is over.
    """

    value: float
    at: tuple[int, int]
    fraction_below_one: float
    sequences: int


def max_step_norm(jacobians, index=None, *, norms=None) -> StepNormMax:
    """The largest step-Jacobian norm of a block of the state, over every sequence and step: the one engine of the
    number every claim note, diagnostic, report and gallery page prints as "max ‖∂h_t/∂h_{t−1}‖₂" (labelled by
    :func:`rnnaudit.analysis.norms.step_norm_name`).

    Args:
        jacobians: each sequence's step Jacobians, J[t − 1] = ∂s_t/∂s_{t−1}: a tensor (m, T, S, S), or a sequence or
            iterable of (T, S, S) tensors, read one at a time (a lazy sequence is never held whole); real floating.
        index: the coordinates of the block (its rows and columns of J_t: the rest of the state held fixed), a
            list of ints in [0, S), or None for the whole state. An LSTM's h block is ∂h_t/∂h_{t−1} at fixed
            c_{t−1}, as :func:`rnnaudit.analysis.grid_maps.state_block` selects it.
        norms: {b: :class:`rnnaudit.analysis.norms.PairNorms`} of sequence b's whole-state step Jacobians (the same
            tensor as ``jacobians[b]``), where a caller holds them already (the audit's step maps): their known norms
            and bounds are reused. Read only where ``index`` is None.

    Returns:
        :class:`StepNormMax`. Cost: per step the cheap bounds of :class:`~rnnaudit.analysis.norms.PairNorms`, one
        singular value decomposition for the largest and a Cholesky test (two thirds of a GEMM) for each step its
        bounds leave open, below the largest and below 1.

    Source: the data-dependent stability max_t ‖∂s_t/∂s_{t−1}‖ of Miller & Hardt 2019 ("Stable recurrent models",
    ICLR; not among the seed papers), taken over every sequence; the block convention is rnnaudit's own, that of
    the CLI's heatmaps.

    Raises:
        ValueError: no sequence, a Jacobian not (T, S, S) with S × S square, or an index outside [0, S) or repeated.
        TypeError: ``norms`` not a dict of :class:`~rnnaudit.analysis.norms.PairNorms`.
    """
    if norms is not None and (not isinstance(norms, dict) or
                              not all(isinstance(v, PairNorms) for v in norms.values())):
        raise TypeError(f"norms must be a dict {{sequence: PairNorms}} or None, got {type(norms).__name__}")
    seqs = jacobians.unbind(0) if isinstance(jacobians, Tensor) else jacobians
    best, at, below, steps, m = -math.inf, (0, 0), 0, 0, 0
    for b, J in enumerate(seqs):
        if not isinstance(J, Tensor) or J.dim() != 3 or J.shape[-1] != J.shape[-2] or not J.is_floating_point():
            raise ValueError(f"jacobians: sequence {b} must be a real floating tensor (T, S, S), got "
                             f"{tuple(J.shape) if isinstance(J, Tensor) else type(J).__name__}")
        if index is not None:
            S = J.shape[-1]
            idx = [int(i) for i in index]
            if not idx or len(set(idx)) != len(idx) or min(idx) < 0 or max(idx) >= S:
                raise ValueError(f"index must hold distinct coordinates in [0, {S}), got {list(index)[:8]}…")
            if idx == list(range(idx[0], idx[0] + len(idx))):  # a contiguous block: a view, nothing copied
                J = J[:, idx[0]:idx[0] + len(idx), idx[0]:idx[0] + len(idx)]
            else:
                rows = torch.tensor(idx, device=J.device)
                J = J.index_select(1, rows).index_select(2, rows)
        held = (norms or {}).get(b) if index is None else None
        same = held is not None and held.M.dtype == J.dtype == torch.float64 and held.M.shape == J.shape and \
            held.M.stride() == J.stride() and held.M.data_ptr() == J.data_ptr()  # the very tensor, not a copy
        pn = held if same else PairNorms(J.to(torch.float64))
        value, k = pn.max()
        if float(value) > best:
            best, at = float(value), (b, k + 1)
        below += int(pn.below(1.0).sum())
        steps += J.shape[0]
        m += 1
    if m == 0:
        raise ValueError("jacobians: no sequence given")
    return StepNormMax(value=best, at=at, fraction_below_one=below / max(steps, 1), sequences=m)


def _forward_directions(J: Tensor, gen: torch.Generator) -> Tensor:
    """q_t = J_t q_{t−1} / ‖·‖ (B, T, S) from a random q_0 (drawn from ``gen``): aligned with the top left singular
    vector of long products ending at t (zero where a product is)."""
    B, T, S = J.shape[0], J.shape[1], J.shape[2]
    q = torch.randn(B, S, generator=gen, dtype=J.dtype).to(J.device)
    qs = []
    for t in range(T):
        q = (J[:, t] @ q[..., None])[..., 0]
        nq = torch.linalg.vector_norm(q, dim=-1, keepdim=True)
        q = q / torch.where(nq == 0, torch.ones_like(nq), nq)
        qs.append(q)
    return torch.stack(qs, 1)


def _row_lower_bounds(J: Tensor, times: Tensor, forward: Tensor | None = None) -> Tensor:
    """log of certified lower bounds on ‖J_t ⋯ J_{t−τ+1}‖₂ for each sequence b, end time t ∈ ``times`` and lag
    τ = 1..t: (B, len(times), T + 1), −inf where τ > t (and at τ = 0).

    A lower bound is ‖wᵀ P‖₂ / ‖w‖₂ ≤ ‖P‖₂ for any w ≠ 0. Each end time t gets two rows w: the forward direction
    q_t = J_t q_{t−1} / ‖·‖ of a random q_0 (aligned with the top left singular vector of long products ending at t,
    so the bound is close for long lags) and a random one; the rows are carried backward, wᵀ J_t, wᵀ J_t J_{t−1},
    …, every step one batched (rows × S)·(S × S) product with all end times that reach it, rescaled against over-
    and underflow. Cost: T·S² for q and 2·len(times)·T·S² for the rows, against len(times)·T·S³ for the products.
    The computed value carries a relative rounding error below γ_{S·τ} (Higham, Accuracy and Stability, eq. 3.11
    per product, summed over τ factors); it is taken off so the bound stays a lower bound. ``forward``: the q_t
    (B, T, S) of :func:`_forward_directions` from seed 0, where the caller holds them (formed here otherwise)."""
    B, T, S = J.shape[0], J.shape[1], J.shape[2]
    gen = torch.Generator(device="cpu").manual_seed(0)
    if forward is None:
        forward = _forward_directions(J, gen)
    else:  # the caller's, from the same seed: q_0's draw replayed, so that the random rows are the same ones
        torch.randn(B, S, generator=gen, dtype=J.dtype)
    Q = forward[:, times - 1]  # (B, nt, S)
    rand = torch.randn(B, times.shape[0], S, generator=gen, dtype=J.dtype).to(J.device)
    rand = rand / torch.linalg.vector_norm(rand, dim=-1, keepdim=True)
    R = torch.stack([Q, rand], 2)  # (B, nt, 2, S): unit rows (or zero, a zero q)
    log_scale = torch.zeros(R.shape[:3], dtype=J.dtype, device=J.device)
    out = torch.full((B, times.shape[0], T + 1), -math.inf, dtype=J.dtype, device=J.device)
    ends = times.tolist()
    u = torch.finfo(J.dtype).eps / 2
    first = len(ends)  # rows [first:] have end time ≥ k: active
    for k in range(T, 0, -1):
        while first > 0 and ends[first - 1] >= k:
            first -= 1
        if first == len(ends):
            continue
        # one (a·2 × S)·(S × S) product per sequence: the broadcast (B, a, 2, S) @ (B, 1, S, S) ran as a batch of 2-row
        # products, three times slower
        rows = (R[:, first:].reshape(B, -1, S) @ J[:, k - 1]).reshape(B, -1, 2, S)
        norm = torch.linalg.vector_norm(rows, dim=-1)
        tiny = norm == 0
        R[:, first:] = rows / torch.where(tiny, torch.ones_like(norm), norm)[..., None]
        log_scale[:, first:] = log_scale[:, first:] + torch.where(tiny, torch.full_like(norm, -math.inf), norm.log())
        tau = times[first:] - k + 1  # (a,)
        gamma = (S * tau).to(J.dtype) * u
        value = log_scale[:, first:].amax(-1) + torch.log1p(-gamma.clamp(max=0.5))
        out[:, torch.arange(first, len(ends), device=J.device), tau.to(J.device)] = value
    return out


def memory_horizon(J: Tensor, threshold: float = HORIZON_THRESHOLD, *, max_times: int = MAX_HORIZON_TIMES
                   ) -> tuple[int | None, list[float]]:
    """The memory horizon from step Jacobians.

    Args:
        J: (batch, T, S, S), J[b, t − 1] = ∂h_t/∂h_{t−1} of sequence b, float64.
        threshold: > 0.
        max_times: the median at lag τ is over every end time t ∈ [τ, T] when T ≤ max_times, else over
            max_times evenly spaced ones (and over the sequences).

    Returns:
        (τ, medians): τ the smallest lag in 1..T with median over (b, t) of ‖J_t ⋯ J_{t−τ+1}‖₂ below
        ``threshold`` (None when none is), decided exactly; and per lag up to it a bound on that median: where the
        lag's products were formed (the horizon's lag, the last lag T, and every lag from the first one that
        certified lower bounds leave open), the median of upper bounds on the norms (:func:`norm_bounds`, a
        Cholesky test just below the threshold where those leave the side open, exact norms where that does too:
        :func:`_median_below`), an upper bound on the median itself; at a lag that lower bounds
        ‖wᵀP‖₂/‖w‖₂ (:func:`_row_lower_bounds`, then where those leave it open the windows' power iteration without
        products, :func:`_median_above_free`) certify not below the threshold, or once the products are formed
        power-iteration lower bounds (:func:`_median_above`), the median of those lower bounds (≥ the threshold,
        ≤ the median). The horizon's own lag and the last lag T always get the first kind. The products are formed
        only from the first lag the lower bounds do not decide: a horizon beyond T costs 2·len(times)·T·S² instead of
        len(times)·T·S³, and a lag the power iteration decides about 8·len(times)·τ·S² (GRU(256) at T = 46: the
        horizon 0.29 s instead of 0.37 s, its lag 16 decided so).

        The norms are those of the products as float64 forms them: the rounding terms above are relative to each
        computed value (γ_{S·τ}), which holds where the steps do not cancel one another; in general a product carries
        an absolute error of up to γ_{S·τ}·Π‖|J_k|‖₂ (componentwise, Higham, Accuracy and Stability, Sec. 3.5),
        negligible against the threshold unless Π‖|J_k|‖₂ over the lag approaches 10⁹ (GRU(256) at T = 46:
        at most 4.2·10⁶ over 17 steps, an error below 2·10⁻⁶ against the threshold 10⁻³).

    Raises:
        ValueError: J not 4-D square, threshold not > 0, max_times < 1.
    """
    if not isinstance(J, Tensor) or J.dim() != 4 or J.shape[-1] != J.shape[-2]:
        raise ValueError(f"J must be (batch, T, S, S), got {tuple(J.shape) if isinstance(J, Tensor) else J!r}")
    if not (isinstance(threshold, (int, float)) and threshold > 0):
        raise ValueError(f"threshold must be a number > 0, got {threshold!r}")
    if isinstance(max_times, bool) or not isinstance(max_times, int) or max_times < 1:
        raise ValueError(f"max_times must be an int >= 1, got {max_times!r}")
    T = J.shape[1]
    all_times = (torch.arange(1, T + 1) if T <= max_times else
                 torch.linspace(1, T, max_times, dtype=torch.float64).round().long().unique())
    # the rows' start vectors, also the warm start of the windows' power iteration (the same seed)
    forward = _forward_directions(J, torch.Generator(device="cpu").manual_seed(0))
    log_lower = _row_lower_bounds(J, all_times.to(J.device), forward)  # (B, nt, T + 1)
    log_threshold = math.log(threshold)
    medians = []
    start, free_median = T, math.inf
    for tau in range(1, T):  # the lags the lower bounds decide; the last lag is always formed (see below)
        keep = (all_times >= tau).to(J.device)
        lows = log_lower[:, keep, tau].reshape(-1)
        need = (lows.numel() - 1) // 2 + 1
        if int((lows < log_threshold).sum()) >= need:  # the rows leave it open: power iteration on the windows
            ends = all_times[all_times >= tau]
            above, free_median = _median_above_free(J, ends, tau, forward[:, ends.to(J.device) - 1],
                                                    log_lower[:, keep, tau], threshold)
            if not above:  # below is possible: form the products from here on
                start = tau
                break
            medians.append(free_median)
            continue
        medians.append(float(lows.median().exp()))
    times = all_times[all_times >= start]
    P, log_scale = _window_products(J, times, start)  # the products ∂h_t/∂h_{t−start} of the end times t ≥ start
    for tau in range(start, T + 1):
        if tau > start:  # ∂h_t/∂h_{t−τ} = ∂h_t/∂h_{t−τ+1} · J_{t−τ+1}, for the end times t ≥ τ (a suffix of times)
            keep = times >= tau
            times, P, log_scale = times[keep], P[:, keep], log_scale[:, keep]
            P, log_scale = _times_step(P, log_scale, J[:, times - tau])
        norms = PairNorms(P.reshape(-1, *P.shape[-2:]))  # cheap bounds of this lag's products, shared by both tests
        # where the windows' power iteration left this lag's median well below the threshold, the lag is most
        # likely the horizon: the test below first (a lag that is not pays exact norms there instead)
        likely_below = tau == start and free_median < HORIZON_BELOW_FIRST * threshold
        low = _median_above(norms, log_scale, threshold) if tau < T and not likely_below else None
        if low is not None:  # certified not below by cheap lower bounds: no Gram products at this lag
            medians.append(low)
            continue
        value, below = _median_below(norms, log_scale, threshold)
        medians.append(value)
        if below:
            return tau, medians
    return None, medians


#: sweeps of the windows' matrix-free power iteration (alternately wᵀP and Pv) that may decide a lag of the memory
#: horizon not below its threshold before its products are formed (:func:`_median_above_free`)
HORIZON_FREE_SWEEPS = 4
#: the lag where products are first formed is tested below the threshold first where the windows' power iteration
#: left the median of its lower bounds under this fraction of the threshold (an order of the two tests, not a result)
HORIZON_BELOW_FIRST = 0.8


def _window_sweep(J: Tensor, ends: Tensor, tau: int, X: Tensor, rows: bool) -> tuple[Tensor, Tensor]:
    """One pass of every window's product P = J_t ⋯ J_{t−τ+1} (end times t ∈ ``ends``, ascending) over unit vectors
    X (B, len(ends), S): the rows xᵀP (``rows``) or the columns P x, each rescaled to norm 1 after every factor.
    Returns (the unit results, the log of their norms (B, len(ends)): log ‖xᵀP‖₂ or log ‖P x‖₂, −inf for a zero).

    At step k the windows that hold J_k are those with k ≤ t ≤ k + τ − 1: a contiguous run of ``ends``, multiplied
    as one (a × S)·(S × S) product per sequence; a pass costs len(ends)·τ·S² per sequence, against S³ per window
    for forming the products."""
    T = J.shape[1]
    ends_list = ends.tolist()
    X = X.clone()
    log_norm = X.new_zeros(X.shape[:2])
    for k in (range(T, 0, -1) if rows else range(1, T + 1)):  # rows: J_t first; columns: J_{t−τ+1} first
        lo, hi = bisect.bisect_left(ends_list, k), bisect.bisect_right(ends_list, k + tau - 1)
        if lo >= hi:
            continue
        for b in range(X.shape[0]):  # plain 2-D products: BLAS reads Jᵀ in place (a batched transposed one copies)
            part = X[b, lo:hi] @ (J[b, k - 1] if rows else J[b, k - 1].T)
            norm = torch.linalg.vector_norm(part, dim=-1, keepdim=True)
            X[b, lo:hi] = part.div_(norm.clamp_min(torch.finfo(norm.dtype).tiny))
            log_norm[b, lo:hi] += norm[:, 0].log()  # log 0 = −inf: a zero product stays zero and reads −inf
    return X, log_norm


def _median_above_free(J: Tensor, ends: Tensor, tau: int, start: Tensor, log_low: Tensor, threshold: float
                       ) -> tuple[bool, float]:
    """Whether certified lower bounds prove the median over (b, t) of ‖J_t ⋯ J_{t−τ+1}‖₂ not below ``threshold``
    without forming the products: power iteration on each window, matrix-free (:func:`_window_sweep`), from the
    rows' own start vectors ``start`` (B, len(ends), S) (unit, the forward directions q_t, already close to the top
    left singular vector), :data:`HORIZON_FREE_SWEEPS` alternating passes xᵀP, then P·(that row), …. Each pass's
    norm is a lower bound ‖Px‖/‖x‖ ≤ ‖P‖₂, taken off by the rounding of τ products (γ_{S·τ}, as
    :func:`_row_lower_bounds`); ``log_low`` (B, len(ends)) are the rows' bounds at this lag. Returns (decided, the
    median of the lower bounds): decided where fewer than half of them are below the threshold; the passes stop
    early where that median is under :data:`HORIZON_BELOW_FIRST` of the threshold (the lag is most likely below it,
    and the products decide)."""
    S = J.shape[-1]
    log_threshold = math.log(threshold)
    lower = log_low.clone()
    need = (lower.numel() - 1) // 2 + 1  # as _median_below: below iff this many are below
    u = torch.finfo(J.dtype).eps / 2
    margin = math.log1p(-min(S * tau * u, 0.5))
    X, rows = start, True
    for sweep in range(HORIZON_FREE_SWEEPS):
        X, log_norm = _window_sweep(J, ends.to(J.device), tau, X, rows)
        lower = torch.maximum(lower, log_norm + margin)
        rows = not rows
        if not sweep:  # the first pass only repeats the rows' bounds
            continue
        median = float(lower.reshape(-1).median().exp())
        if int((lower < log_threshold).sum()) < need:
            return True, median
        if median < HORIZON_BELOW_FIRST * threshold:  # a pass raises the bounds by a few per cent at this point
            break
    return False, float(lower.reshape(-1).median().exp())


#: power-iteration steps of the lower bounds that may decide a lag of the memory horizon not below its threshold
#: (each a matrix-vector product pair per matrix: S² against the S³ of the Gram products they may spare)
HORIZON_POWER_STEPS = 8


def _median_above(norms, log_scale: Tensor, threshold: float) -> float | None:
    """The median of certified lower bounds on ‖P_i‖₂·e^{log_scale_i} for the matrices P of ``norms`` (a
    :class:`rnnaudit.analysis.norms.PairNorms`: its cheap bounds, raised by
    :func:`rnnaudit.analysis.norms.power_lower_bounds` on the matrices whose cheap bound is below ``threshold``),
    where they prove the median of the norms not below ``threshold`` (fewer than half of them below it); else None,
    and :func:`_median_below` decides."""
    scale = log_scale.reshape(-1).exp()
    lower = norms.lower * scale
    need = (lower.numel() - 1) // 2 + 1  # as _median_below: below iff this many are below
    low = lower < threshold
    if int(low.sum()) >= need:  # the cheap bounds leave it open: power iteration on those below the threshold
        norms.raise_lower(low.nonzero().squeeze(-1), HORIZON_POWER_STEPS)
        lower = norms.lower * scale
    if int((lower < threshold).sum()) >= need:
        return None
    return float(lower.median())


def _window_products(J: Tensor, times: Tensor, lag: int) -> tuple[Tensor, Tensor]:
    """The products J_t ⋯ J_{t−lag+1} (B, len(times), S, S) of the end times t ∈ ``times`` (all ≥ lag), each as a
    matrix of Frobenius norm 1 (or 0) and the log of its scale (B, len(times)), as :func:`_times_step` keeps them.

    Why not one product at a time per end time (len(times)·(lag − 1) matrix products): neighbouring windows share
    all but one factor. The steps are cut into blocks of ``lag``; a window ending at t in [c, c + lag) (c a multiple
    of lag) is the prefix J_t ⋯ J_{c+1} of one block times the suffix J_c ⋯ J_{t−lag+1} of the block before, and
    both run along their block once for every window that needs them: at most 3·T matrix products in all, never
    more than the direct way. The factors are associated differently, so entries differ from the direct products
    by rounding (a relative γ_{S·lag}, Higham, Accuracy and Stability, eq. 3.11, as for either order)."""
    B, S = J.shape[0], J.shape[-1]
    P = J.new_empty(B, times.shape[0], S, S)
    log_scale = J.new_zeros(B, times.shape[0])
    if lag == 1:
        P.copy_(J[:, times - 1])
        return P, log_scale
    ends = times.tolist()
    groups: dict[int, list[int]] = {}
    for i, t in enumerate(ends):
        groups.setdefault(t - t % lag, []).append(i)
    for c, members in groups.items():
        starts = {ends[i] - lag + 1: i for i in members}  # the window of end time t starts at t − lag + 1
        suffixes = {}
        R, ls = J[:, c - 1], J.new_zeros(B)
        for a in range(c, min(starts) - 1, -1):  # R = J_c ⋯ J_a
            if a < c:
                R, ls = _times_step(R, ls, J[:, a - 1])
            if a in starts:
                suffixes[a] = (R, ls)
        R, ls = None, J.new_zeros(B)
        for t in range(c, max(ends[i] for i in members) + 1):  # R = J_t ⋯ J_{c+1} (None: the empty product)
            if t > c:
                R, ls = (J[:, t - 1], ls) if R is None else _times_step(J[:, t - 1], ls, R)
            i = starts.get(t - lag + 1)
            if i is None:
                continue
            right, right_ls = suffixes[t - lag + 1]
            if R is None:  # the window is the block before c itself
                P[:, i], log_scale[:, i] = right, right_ls
            else:
                P[:, i], log_scale[:, i] = _times_step(R, ls + right_ls, right)
    return P, log_scale


def _times_step(P: Tensor, log_scale: Tensor, J: Tensor) -> tuple[Tensor, Tensor]:
    """P·J, rescaled to ‖·‖_F = 1 with the log of the scale added to ``log_scale`` (so that long products neither
    over- nor underflow)."""
    P = P @ J
    fro = torch.linalg.matrix_norm(P, "fro")
    tiny = fro == 0
    P = P / torch.where(tiny, torch.ones_like(fro), fro)[..., None, None]
    return P, log_scale + torch.where(tiny, torch.full_like(fro, -math.inf), fro.log())


def contractivity_name(d: dict) -> str:
    """The label of the ``contractivity`` in one recurrence's diagnostics as the audit reports them
    (:meth:`StateDiagnostics.to_json` with the audit's "part" and "state"): block, layer and direction, and the
    sequences it is the maximum over (:func:`rnnaudit.analysis.norms.step_norm_name`). A document written before the
    block was recorded measured the whole state on the sequences it names, and is labelled so."""
    from rnnaudit.analysis.norms import step_norm_name

    m = d.get("contractivity_sequences") or d.get("sequences")
    over = None if not m else "the one sequence" if m == 1 else f"all {m} sequences"
    part = None if d.get("part") == "state" else d.get("part")  # "state": a model that is one recurrence
    if d.get("contractivity_block") is None:
        return step_norm_name(d.get("state"), over, part=part)
    return step_norm_name(block=d["contractivity_block"], part=part, over=over)


def state_diagnostics(cell, x: Tensor, *, k: int = 3, threshold: float = HORIZON_THRESHOLD,
                      max_sequences: int = 2, h0: Tensor | None = None, step_jacobians=None,
                      block: str = "h", step_norms: dict | None = None) -> StateDiagnostics:
    """Contractivity, memory horizon and top-k Lyapunov exponents of ``cell`` on the inputs ``x``.

    Args:
        cell: a :class:`rnnaudit.cells.base.RecurrentCell` or anything :func:`rnnaudit.cells.wrap` accepts,
            float64. The horizon and the exponents are of its whole packed state ((h, c) for an LSTM).
        x: (T, n) or (m, T, n), the cell's dtype. The contractivity is the maximum over all m sequences
            (:func:`max_step_norm`); the other quantities use the first ``max_sequences`` (the Lyapunov exponents:
            the mean over them, warm-up T // 10 steps, 10 windows each).
        k: how many exponents (capped at the state width). threshold: of the memory horizon.
        max_sequences: ≥ 1. h0: initial state (S,) or (m, S), zeros by default.
        step_jacobians: the step Jacobians of the first m' sequences from h0, when the caller holds them already
            (the audit's one map per sequence, :class:`rnnaudit.bounds.architectures.StepMap`): a tensor
            (m', T, S, S) or a sequence of m' tensors (T, S, S) (read one at a time); they are then used as given,
            and only the sequences beyond m' are formed.
        block: the block of the state the contractivity is of (:func:`rnnaudit.analysis.grid_maps.state_block`):
            "h" (default: an LSTM's h rows and columns, c_{t−1} held fixed, as the CLI's heatmaps), "c", or
            "state" (the whole packed state).
        step_norms: {b: :class:`rnnaudit.analysis.norms.PairNorms`} of given sequences' step Jacobians (the same
            tensors as ``step_jacobians[b]``), whose known norms the contractivity reuses (:func:`max_step_norm`).

    Returns:
        :class:`StateDiagnostics`. Cost: the step Jacobians (m·T·S jvps), m·T symmetric eigensolves of S × S at
        most, and at most m·T·min(T, :data:`MAX_HORIZON_TIMES`) products of S × S matrices for a horizon beyond T.

    Raises:
        ValueError: bad x/h0 (as :func:`rnnaudit.analysis.hidden_jacobian_maps`), k or max_sequences < 1, an
            unknown block or one the cell lacks (:func:`rnnaudit.analysis.grid_maps.state_block`).
    """
    from rnnaudit.analysis.grid_maps import state_block

    for name, value in (("k", k), ("max_sequences", max_sequences)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an int >= 1, got {value!r}")
    cell = wrap(cell)
    index, block_label = state_block(cell, block)
    x_all = _sequences(cell, x, single=False)
    # the step Jacobians of the sequences held at once: at most 2^25 numbers (256 MB) beyond the first
    per_sequence = x_all.shape[1] * cell.hidden_size ** 2
    x = x_all[:max(1, min(max_sequences, 2 ** 25 // per_sequence))]
    given = 0 if step_jacobians is None else len(step_jacobians)
    with torch.enable_grad():  # forward-mode Jacobians need autograd on, whatever the caller's mode
        h_all = _initial_states(cell, x_all, None if h0 is None else (h0[:x_all.shape[0]] if h0.dim() == 2 else h0))
        h_start = h_all[:x.shape[0]]
        if given:
            x = x[:min(x.shape[0], given)]
            held = [step_jacobians[b] for b in range(x.shape[0])]
            # one sequence is read as it is (a view): its stacked copy was T·S² numbers more at the audit's peak
            J = (held[0][None] if len(held) == 1 else torch.stack(held)).to(torch.float64)
            del held
        else:
            J, _, _ = _trajectory_jacobians(cell, x, h_start, inputs=False)
            J = J.to(torch.float64)

        def every_sequence():  # the held ones, then the given ones, then the rest formed a chunk at a time
            yield from J.unbind(0)
            for b in range(J.shape[0], min(given, x_all.shape[0])):
                yield step_jacobians[b]
            chunk = max(1, 2 ** 25 // per_sequence)
            for lo in range(max(J.shape[0], given), x_all.shape[0], chunk):
                hi = min(lo + chunk, x_all.shape[0])
                yield from _trajectory_jacobians(cell, x_all[lo:hi], h_all[lo:hi], inputs=False)[0].unbind(0)

        steps = max_step_norm(every_sequence(), index, norms=step_norms)
        B, T, S = J.shape[0], J.shape[1], J.shape[2]
        horizon, medians = memory_horizon(J, threshold)
        # the exponents read the same step Jacobians (the QR recursion of the formed path), not formed again
        spectrum = lyapunov_estimate(cell, x, k=min(k, S), h0=None if h0 is None else h_start, warmup=T // 10,
                                     step_jacobians=J)
    return StateDiagnostics(
        state_size=S, T=T, sequences=B, contractivity=steps.value, contractivity_at=steps.at,
        contractive_fraction=steps.fraction_below_one, horizon=horizon, horizon_medians=medians,
        threshold=float(threshold), lyapunov=[float(v) for v in spectrum.exponents],
        lyapunov_halfwidth=[float(v) for v in spectrum.halfwidth],
        lyapunov_windows=int(spectrum.spectra[0].finite_time.shape[0]),
        lyapunov_converged=spectrum.converged(CONVERGENCE_TOL), lyapunov_method=spectrum.method,
        contractivity_block=block_label, contractivity_sequences=steps.sequences)


def initial_state_gradient(cell, x: Tensor, loss_fn: Callable, targets, *,
                           output: Callable[[Tensor], Tensor] | None = None) -> Tensor:
    """∂L/∂h_0 for the loss L = loss_fn(output(states), targets) of the states the cell computes from x,
    with one initial state h_0 shared by every sequence (zeros): what the loss still owes to where the
    sequences started.

    Args:
        cell: a cell or anything :func:`rnnaudit.cells.wrap` accepts, float64.
        x: (T, n) or (m, T, n). loss_fn: (outputs, targets) → a scalar tensor. targets: handed to it as is.
        output: packed states (m, T, S) → what ``loss_fn`` takes (default: the states themselves).

    Returns:
        (S,) the gradient, float64.

    Raises:
        TypeError: loss_fn not callable. ValueError: bad x; a loss that is not a real scalar, does not
            depend on h_0 through the graph, or is not finite.
    """
    if not callable(loss_fn):
        raise TypeError(f"loss_fn must be callable (outputs, targets) -> scalar, got {type(loss_fn).__name__}")
    cell = wrap(cell)
    x = _sequences(cell, x, single=False)
    with torch.enable_grad():
        h0 = torch.zeros(cell.hidden_size, dtype=x.dtype, device=x.device, requires_grad=True)
        states = cell(x, h0.expand(x.shape[0], -1))
        loss = loss_fn(states if output is None else output(states), targets)
        if not isinstance(loss, Tensor) or loss.numel() != 1 or not loss.is_floating_point():
            raise ValueError(f"loss_fn must return a real scalar tensor, got "
                             f"{tuple(loss.shape) if isinstance(loss, Tensor) else type(loss).__name__}")
        if not torch.isfinite(loss).all():
            raise ValueError(f"loss_fn returned {loss.item()} on these inputs and targets")
        (grad,) = torch.autograd.grad(loss.reshape(()), h0, allow_unused=True)
    if grad is None:
        raise ValueError("loss_fn's value does not depend on the states (no gradient reaches h_0)")
    return grad.detach().to(torch.float64)
