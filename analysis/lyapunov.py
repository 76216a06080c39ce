"""Lyapunov spectrum of a recurrent cell along one input-driven trajectory (the QR method).

The Lyapunov exponents λ_1 ≥ … ≥ λ_S of the map h_t = f(x_t, h_{t−1}) are the asymptotic growth rates
of k-dimensional volumes under the products J_t ⋯ J_1 of the per-step Jacobians J_t = ∂h_t/∂h_{t−1}:
the standard dynamical-systems view of exploding and vanishing gradients (λ_1 > 0: ‖∂h_t/∂h_s‖ grows
like e^{λ_1 (t − s)}; λ_1 < 0: it decays), see R. Engelken, F. Wolf & L. F. Abbott, "Lyapunov spectra of
chaotic recurrent neural networks", Phys. Rev. Research (2023), arXiv:2006.02427, and R. Vogt,
M. Puelma Touzel, E. Shlizerman & G. Lajoie, "On Lyapunov exponents for RNNs: understanding
information propagation using dynamical systems tools", Front. Appl. Math. Stat. (2022),
arXiv:2006.14123.

Method (Benettin, Galgani, Giorgilli & Strelcyn 1980, as both papers use it): start from an
orthonormal Q_0 (S × k, seeded Haar-random, so that no direction is excluded by construction), and at
every step factor
J_t Q_{t−1} = Q_t R_t (Householder QR). Then Σ_t log|diag R_t| is the log-growth of the nested volumes
spanned by the first 1, 2, …, k columns, and

    λ_i ≈ (1/N) Σ_{t = w+1}^{w+N} log|R_t[i, i]|        (nats per step, N = T − w counted steps)

after ``warmup`` = w steps whose factors are discarded (they align Q with the Oseledets directions).
Exactly: Σ_{w < t ≤ τ} log|R_t[1, 1]| = log‖J_τ ⋯ J_{w+1} q‖ for the first column q of Q_w, so λ_1 is
the growth rate of one tracked vector, never faster than ‖J_τ ⋯ J_{w+1}‖₂.

The Jacobians are those of :mod:`analysis.jacobian` (forward mode on the cell's step), computed for
``chunk`` steps at a time; the QR recursion runs in float64 (``dtype``) whatever the cell's dtype.
For a few exponents of a wide state (S ≥ :data:`MATRIX_FREE_MIN_WIDTH` and k + :data:`FROBENIUS_PROBES` ≤ S/4)
no J_t is formed: the k columns of Q_{t−1} are pushed through the step by forward mode (J_t Q_{t−1} by
``torch.func.jvp``, vmapped over the columns): k + 4 directions per step instead of S, and memory S·(k + 4)
instead of chunk·S².

A complex state z ∈ ℂᴺ is probed as the real state (Re z, Im z) ∈ ℝ²ᴺ (:mod:`cells.real_view`): 2N exponents;
for a holomorphic step each exponent of the complex system appears twice. A cell that declares a diagonal
Jacobian diag(a_t) (:mod:`analysis.diagonal`) gets the exact exponents of the diagonal product instead of the
QR recursion: the sorted per-coordinate means (1/N) Σ_t log|a_{t,i}| (each twice for a complex state), with no
alignment transient of Q.

Error bars (:attr:`LyapunovSpectrum.halfwidth`). A finite-T estimate errs in two ways, and the stated
half-width covers both:

    u_i = 2·SE_i + D_i + 2·A_i

- noise, 2·SE_i: the batch-means standard error (std of the n window means / √n), twice for about 95 %
  coverage of a mean of nearly independent windows;
- finite-T bias from a transient, D_i = |mean of the late half of the windows − mean of the early half|. Write
  the counted log-factors as λ_i + b_t + noise with a transient b_t, whose sums over the early and late half of
  the N counted steps are B₁ and B₂. The estimate's bias is (B₁ + B₂)/N and D_i = 2|B₁ − B₂|/N, so
  D_i ≥ bias whenever the transient (one sign, |b_t| decreasing) puts at most a third of its weight in the late
  half (3|B₂| ≤ |B₁|): an exponential transient of time constant ≤ N/(2 ln 3), or a 1/t one once N ≥ 16. D_i/2
  is the Richardson estimate of a 1/N bias (the estimate at N against that over the early N/2); D_i doubles it
  for the transients that have not finished by N/2;
- the alignment of the start frame, A_i = |λ_i(Q_0) − λ_i(Q_0')|: the same trajectory run from a second,
  independent Haar-random frame Q_0'. Σ_t log|R_t[i, i]| differs from N·λ_i by the log of the angles between the
  start frame and the Oseledets subspaces, a sum that does not decay when exponents lie closer than about 1/N
  (a near-degenerate spectrum, e.g. rotation-scaling blocks of nearly equal modulus, whose estimates trade places
  with their neighbours for a long time): the drift D_i does not see it, and the spread between two starts does.
  It is counted twice because a frame's offset has a mean as well as a spread: for the log of the projection
  |z| of a Gaussian direction, mean −0.64 and sd 1.11 nats, and the difference of two frames has mean
  |c − c'| ≈ 1.25 sd, so 2·A_i ≈ 2.5 sd covers |mean| + sd.

:meth:`LyapunovSpectrum.converged` says whether every u_i is within a tolerance; an estimate that is not is not
an exponent of the system, only a finite-time rate. For several sequences, :func:`lyapunov_estimate` combines the
per-sequence spectra (mean, with the spread over sequences; its docstring).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor
from torch.func import jvp, vmap

from rnnaudit.analysis.cost import WorkEstimate, best_seconds, single_threaded
from rnnaudit.analysis.diagonal import declared_moduli, declares_diagonal
from rnnaudit.analysis.jacobian import _initial_states, _jacobians_at, _sequences
from rnnaudit.cells.adapters import wrap
from rnnaudit.cells.base import RecurrentCell

__all__ = ["LyapunovSpectrum", "lyapunov_spectrum", "LyapunovEstimate", "lyapunov_estimate", "lyapunov_cost",
           "kaplan_yorke_dimension", "RANK_LOSS_FACTOR", "FROBENIUS_PROBES", "MATRIX_FREE_MIN_WIDTH",
           "SINGLE_THREAD_WIDTH", "CONVERGENCE_TOL"]

#: |R_t[i, i]| ≤ RANK_LOSS_FACTOR·S·u·‖J_t‖_F counts as an exact 0 (u: the unit roundoff of ``dtype``). When J_t Q
#: has lost rank in exact arithmetic (a ReLU unit off zeroes a row of J_t, and a non-diagonal W mixes that loss
#: into every column), Householder QR returns that R_ii as rounding noise of order S·u·‖J_t Q‖ ≤ S·u·‖J_t‖_F
#: (backward error of QR, Higham 2002, Thm. 19.4), whose log gave −12 … −95 where the exponent is −∞. The
#: factor 4 covers the constant of that bound; a genuine per-step contraction by less than 4·S·u (≈ 1e-15·S
#: in float64) is indistinguishable from rank loss in this precision and is reported as −∞ too.
RANK_LOSS_FACTOR = 4.0
#: Gaussian probes g_j of the matrix-free path's ‖J_t‖_F ≈ (Σ_j ‖J_t g_j‖²/4)^½ (E‖J g‖² = ‖J‖_F²), the scale of the
#: rank-loss threshold above. The estimate² is ‖J‖_F² times a weighted mean of χ²_4/4 variables (weights σ_i²/‖J‖_F²),
#: whose lower tail is heaviest for rank one, where it is χ²_4/4 itself: the estimate falls below ‖J‖_F/3 with
#: probability ≤ 0.021 and below ‖J‖_F/10 with probability ≤ 2e-4. It only moves a threshold whose gap to genuine
#: values is many orders of magnitude (rank-loss noise gave log|R_ii| of −12 … −95 below the exponents).
FROBENIUS_PROBES = 4
#: The narrowest state the matrix-free path is chosen for: below it one batched forward-mode pass forming every
#: J_t is cheaper than T small passes (k = 1, T = 64, GRU: 0.22 s formed against 0.68 s matrix-free at S = 64,
#: 1.16 against 1.35 at S = 256, but 3.46 against 1.21 at S = 512).
MATRIX_FREE_MIN_WIDTH = 384
#: Half-width (nats per step) within which the CLI, the diagnostics and the audit call an exponent converged: an
#: error of 0.01 per step moves e^{λ T}, the growth of ‖∂h_T/∂h_0‖ it predicts, by at most a factor e over 100 steps.
CONVERGENCE_TOL = 1e-2
#: Below this state width the per-step QR recursion runs torch single-threaded (:func:`analysis.cost.single_threaded`):
#: one step J_t Q → QR took 1.4 ms on one thread against 18.6 ms on torch's two at S = 64, 4.9 against 116 ms at
#: S = 128, 15 against 128 ms at 256 and 116 against 1150 ms at 512 (2 cores, load 10–16: two threads only spin
#: while the other core is taken). 512 is the widest measured; wider steps keep the pool.
SINGLE_THREAD_WIDTH = 512


@dataclass(frozen=True)
class LyapunovSpectrum:
    """Result of :func:`lyapunov_spectrum`; exponents in nats per step.

    Attributes:
        exponents: (k,) the estimates, sorted descending (ties keep the QR order).
        finite_time: (n_windows, k) the finite-time exponents of each window of ``window`` counted
            steps (the same average over that window only), columns in the order of ``exponents``;
            steps after the last full window count in ``exponents`` only.
        window, warmup, steps: window length, discarded steps, counted steps N.
        stderr: (k,) standard error of ``exponents`` from the windows (batch means: std over windows
            / √n_windows, assuming windows long enough to be nearly independent); NaN with < 2 windows.
        drift: (k,) |mean of the second half of the windows − mean of the first half|: a trend that the
            standard error does not see; NaN with < 2 windows.
        alignment: (k,) |exponents − the exponents from a second, independent start frame| on the same
            trajectory (module docstring, A_i); 0 where both are −inf.
    """

    exponents: Tensor
    finite_time: Tensor
    window: int
    warmup: int
    steps: int
    stderr: Tensor
    drift: Tensor
    alignment: Tensor

    @property
    def halfwidth(self) -> Tensor:
        """(k,) the stated error u_i = 2·stderr + drift + 2·alignment (nats per step; module docstring, "Error
        bars"): the interval exponents ± halfwidth covers the noise and the finite-T bias; NaN with < 2 windows,
        0 for an exponent that is −inf (a singular product is exact)."""
        u = 2 * self.stderr + self.drift + 2 * self.alignment
        return torch.where(torch.isfinite(self.exponents), u, torch.zeros_like(u))

    def converged(self, tol: float) -> bool:
        """True when every finite exponent has :attr:`halfwidth` ≤ tol (nats per step), with at least 4
        windows. Exponents that are −inf (a singular product) count as converged.

        Raises:
            ValueError: tol not a positive number.
        """
        return _converged(self.halfwidth, self.finite_time.shape[0] >= 4, tol)


def _converged(halfwidth: Tensor, enough: bool, tol: float) -> bool:
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not tol > 0:
        raise ValueError(f"tol must be a number > 0 (nats per step), got {tol!r}")
    return enough and bool((halfwidth <= tol).all())


def _int_option(name: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    return value


def lyapunov_spectrum(cell: RecurrentCell, x: Tensor, k: int | None = None, h0: Tensor | None = None, *,
                      warmup: int = 0, window: int | None = None, seed: int = 0, chunk: int = 256,
                      dtype: torch.dtype = torch.float64, progress=None, matrix_free: bool | None = None,
                      diagonal: bool | None = None, step_jacobians: Tensor | None = None) -> LyapunovSpectrum:
    """The k largest Lyapunov exponents along the trajectory of x, by the QR (Benettin) method (module
    docstring); Engelken, Wolf & Abbott (2023), Vogt et al. (2022).

    Args:
        cell: a :class:`cells.base.RecurrentCell` or anything :func:`rnnaudit.cells.wrap` accepts
            (the exponents are those of its packed state: for an LSTM the (h, c) system).
        x: one input sequence (T, n) or (1, T, n), the cell's dtype.
        k: how many exponents (1 ≤ k ≤ S, the state width); None for the full spectrum.
        h0: initial state (S,); zeros by default.
        warmup: steps at the start whose QR factors are not counted (0 ≤ warmup < T).
        window: counted steps per finite-time window (≥ 1); default max(1, N // 10).
        seed: of the Haar-random Q_0.
        chunk: steps whose Jacobians are held at once (memory chunk · S² numbers).
        dtype: of the QR recursion (float64 by default).
        progress: called with the number of steps finished after each chunk (they sum to T), e.g. a
            tqdm bar's ``update``; None for none.
        matrix_free: push Q's columns by forward mode instead of forming each J_t (module docstring); None:
            when S ≥ :data:`MATRIX_FREE_MIN_WIDTH` and k + :data:`FROBENIUS_PROBES` ≤ S/4. Both give the same
            exponents to rounding; the rank-loss threshold of the matrix-free path uses an estimated ‖J_t‖_F
            (:data:`FROBENIUS_PROBES`).
        diagonal: use the exact diagonal exponents (module docstring; the cell must declare
            ``diagonal_jacobian``, which is checked along a random direction); None: when it declares one.
        step_jacobians: J_t = ∂h_t/∂h_{t−1} (T, S, S) along this trajectory when the caller holds them already
            (the audit's step map); the formed path then reads them instead of forming them again (not the matrix-free
            path; the exact diagonal path, where it applies, needs none). They must be of this cell, x and h0: only their shape is checked.

    Returns:
        :class:`LyapunovSpectrum`, tensors in ``dtype`` on x's device. An exponent is −inf where the
        product is singular (e.g. a ReLU unit off at some step makes J_t singular): a QR factor
        |R_t[i, i]| ≤ :data:`RANK_LOSS_FACTOR`·S·u·‖J_t‖_F is taken as the exact 0 it is up to rounding.

    Raises:
        ValueError: bad x or h0 (as the Jacobian maps), k not in [1, S], warmup not in [0, T),
            window < 1, chunk < 1; the trajectory or a Jacobian is not finite at some step (the state
            overflowed: the message names the first such step t, 1-based as h_t).
    """
    cell = wrap(cell)
    x = _sequences(cell, x, single=True)
    T, S = x.shape[1], cell.hidden_size
    k = S if k is None else _int_option("k", k, 1)
    if k > S:
        raise ValueError(f"k must be at most the state width S = {S}, got {k}")
    warmup = _int_option("warmup", warmup, 0)
    if warmup >= T:
        raise ValueError(f"warmup must be < T = {T} (at least one counted step), got {warmup}")
    steps = T - warmup
    window = max(1, steps // 10) if window is None else _int_option("window", window, 1)
    chunk = _int_option("chunk", chunk, 1)
    if matrix_free is not None and not isinstance(matrix_free, bool):
        raise ValueError(f"matrix_free must be True, False or None (automatic), got {matrix_free!r}")
    if matrix_free is None:
        matrix_free = S >= MATRIX_FREE_MIN_WIDTH and 4 * (k + FROBENIUS_PROBES) <= S
    start = _initial_states(cell, x, h0)
    with torch.no_grad():
        hs = torch.cat([start, cell(x, start)[0]])
    bad = (~torch.isfinite(hs[1:])).flatten(1).any(1).nonzero()
    if bad.numel():
        t = int(bad[0]) + 1
        raise ValueError(f"the trajectory is not finite from step t = {t} of T = {T} on (h_t overflowed: "
                         f"max |h_{t - 1}| = {float(hs[t - 1].abs().max()):.3g}); the Lyapunov exponents need a finite "
                         f"trajectory, so shorten x or rescale the cell")
    if diagonal is not None and not isinstance(diagonal, bool):
        raise ValueError(f"diagonal must be True, False or None (automatic), got {diagonal!r}")
    if step_jacobians is not None:
        if not isinstance(step_jacobians, Tensor) or tuple(step_jacobians.shape) != (T, S, S):
            raise ValueError(f"step_jacobians must be (T, S, S) = ({T}, {S}, {S}), got "
                             f"{tuple(step_jacobians.shape) if isinstance(step_jacobians, Tensor) else step_jacobians!r}")
        matrix_free = False
    if diagonal or (diagonal is None and declares_diagonal(cell)):
        mod, mult = declared_moduli(cell, x[0], hs, seed=seed)
        with torch.no_grad():
            logs = torch.log(mod[warmup:].to(dtype)).repeat_interleave(mult, dim=1)  # log 0 = −inf: singular
        if progress is not None:
            progress(T)
        return _summary(logs, None, k, window, warmup, steps, x.device, dtype)
    unit = torch.finfo(dtype).eps / 2
    gen = torch.Generator().manual_seed(seed)
    Q = torch.linalg.qr(torch.randn(S, k, generator=gen, dtype=dtype))[0].to(x.device)
    logs = torch.empty(steps, k, dtype=dtype, device=x.device)
    logs_b = torch.empty_like(logs)  # from the second start frame (the alignment term of the error bars)

    def record(t, R, Rb, scale):
        if t >= warmup:
            for out, r in ((logs, R), (logs_b, Rb)):
                d = r.diagonal().abs()
                out[t - warmup] = torch.where(d <= RANK_LOSS_FACTOR * S * unit * scale, -math.inf, torch.log(d))

    if matrix_free:
        probes = torch.randn(FROBENIUS_PROBES, S, generator=gen, dtype=dtype).to(x.device)
        Qb = torch.linalg.qr(torch.randn(S, k, generator=gen, dtype=dtype))[0].to(x.device)
        for t in range(T):
            # copies, not views of the trajectory: forward mode gives a view's tangent its base's size
            xr, hr = x[0, t][None].clone(), hs[t][None].clone()
            V = torch.cat([Q.mT, Qb.mT, probes]).to(x.dtype)
            with torch.no_grad():
                Y = vmap(lambda v: jvp(lambda hh: cell.step(xr, hh), (hr,), (v[None],))[1][0])(V).to(dtype)
            if not bool(torch.isfinite(Y).all()):
                raise ValueError(f"the Jacobian J_t is not finite at step t = {t + 1} of T = {T} (the state or the "
                                 f"cell's derivative overflowed); the Lyapunov exponents need finite Jacobians")
            Q, R = torch.linalg.qr(Y[:k].mT)
            Qb, Rb = torch.linalg.qr(Y[k:2 * k].mT)
            record(t, R, Rb, float(Y[2 * k:].square().sum() / FROBENIUS_PROBES) ** 0.5)
            if progress is not None and ((t + 1) % chunk == 0 or t + 1 == T):
                progress((t + 1) - (t // chunk) * chunk)
    else:
        Qb = torch.linalg.qr(torch.randn(S, k, generator=gen, dtype=dtype))[0].to(x.device)
    for lo in range(0, T if not matrix_free else 0, chunk):
        hi = min(T, lo + chunk)
        if step_jacobians is not None:
            J = step_jacobians[lo:hi].to(dtype)
        else:
            J, _ = _jacobians_at(cell, x[0, lo:hi], hs[lo:hi], inputs=False)
            J = J.to(dtype)
        # a non-finite entry makes the step's Frobenius norm non-finite (one reduction, no boolean copy of J); the
        # few such steps are then checked entry by entry, since a finite J_t can overflow that norm
        suspect = (~torch.isfinite(torch.linalg.vector_norm(J.flatten(1), dim=-1))).nonzero().squeeze(-1)
        bad = suspect[(~torch.isfinite(J[suspect])).flatten(1).any(1)] if suspect.numel() else suspect
        if bad.numel():
            raise ValueError(f"the Jacobian J_t is not finite at step t = {lo + int(bad[0]) + 1} of T = {T} (the state "
                             f"or the cell's derivative overflowed); the Lyapunov exponents need finite Jacobians")
        with single_threaded(S < SINGLE_THREAD_WIDTH and J.device.type == "cpu"):
            for t, J_t in zip(range(lo, hi), J):
                Q, R = torch.linalg.qr(J_t @ Q)
                Qb, Rb = torch.linalg.qr(J_t @ Qb)
                record(t, R, Rb, torch.linalg.matrix_norm(J_t))
        if progress is not None:
            progress(hi - lo)
    return _summary(logs, logs_b, k, window, warmup, steps, x.device, dtype)


def _summary(logs: Tensor, logs_b: Tensor | None, k: int, window: int, warmup: int, steps: int, device,
             dtype) -> LyapunovSpectrum:
    """The :class:`LyapunovSpectrum` of per-step log growth factors ``logs`` (steps, ≥ k): the k largest means.
    ``logs_b``: the same from the second start frame (steps, k), or None where no frame is involved (the exact
    diagonal exponents: their alignment term is 0)."""
    exponents = logs.mean(0)
    order = torch.sort(exponents, descending=True, stable=True).indices[:k]
    exponents, logs = exponents[order], logs[:, order]
    if logs_b is None:
        alignment = torch.zeros_like(exponents)
    else:
        other = torch.sort(logs_b.mean(0), descending=True).values
        both_inf = torch.isinf(exponents) & torch.isinf(other)
        alignment = torch.where(both_inf, torch.zeros_like(other), (exponents - other).abs())
    n_windows = steps // window
    finite_time = logs[:n_windows * window].reshape(n_windows, window, k).mean(1)
    nan = torch.full((k,), math.nan, dtype=dtype, device=device)
    if n_windows >= 2:
        stderr = finite_time.std(0) / math.sqrt(n_windows)
        half = n_windows // 2
        drift = (finite_time[n_windows - half:].mean(0) - finite_time[:half].mean(0)).abs()
    else:
        stderr, drift = nan, nan.clone()
    return LyapunovSpectrum(exponents=exponents, finite_time=finite_time, window=window, warmup=warmup, steps=steps,
                            stderr=stderr, drift=drift, alignment=alignment)


@dataclass(frozen=True)
class LyapunovEstimate:
    """Result of :func:`lyapunov_estimate`: the exponents of one recurrence over m input sequences, in nats per step.

    Attributes:
        exponents: (k,) the mean over sequences of each sequence's estimate (sorted per sequence).
        halfwidth: (k,) the stated error (:func:`lyapunov_estimate`): exponents ± halfwidth covers the noise, the
            finite-T bias and the spread over sequences.
        per_sequence: (m, k) each sequence's estimate. spectra: the m :class:`LyapunovSpectrum`.
        warmup, steps: discarded and counted steps per sequence.
        method: one line naming how the estimate and its error were formed (for labels and reports).
    """

    exponents: Tensor
    halfwidth: Tensor
    per_sequence: Tensor
    spectra: tuple
    warmup: int
    steps: int
    method: str

    def converged(self, tol: float) -> bool:
        """True when every finite exponent has :attr:`halfwidth` ≤ tol (nats per step) and every sequence had at
        least 4 windows; −inf exponents count as converged.

        Raises:
            ValueError: tol not a positive number.
        """
        return _converged(self.halfwidth, all(s.finite_time.shape[0] >= 4 for s in self.spectra), tol)


def lyapunov_estimate(cell: RecurrentCell, x: Tensor, k: int | None = None, h0: Tensor | None = None, *,
                      warmup: int | None = None, sequence: int | None = None, seed: int = 0, progress=None,
                      step_jacobians: Tensor | None = None, **options) -> LyapunovEstimate:
    """The k largest Lyapunov exponents of ``cell`` driven by every sequence of x, with error bars that cover the
    finite-T bias as well as the noise: the one estimate of λ_i that the diagnostics, the audit and ``rnnaudit
    lyapunov`` print.

    Method: :func:`lyapunov_spectrum` on each of the m sequences (the same ``seed``), each giving λ̂_i^(s) with
    u_i^(s) = 2·SE + drift + 2·alignment (module docstring, "Error bars"). The estimate is the mean
    λ̄_i = (1/m) Σ_s λ̂_i^(s) and its half-width

        U_i = max(t_{m−1}·sd_s(λ̂_i^(s))/√m, 2·√(Σ_s SE_s²)/m) + (1/m) Σ_s (drift + 2·alignment)^(s)

    The first term is the noise of a mean of m independent estimates: the spread over sequences with Student's
    t quantile t_{m−1} at 0.975 (m ≥ 2; it also covers genuine differences between sequences, so that an exponent
    whose sign flips between sequences is reported with an interval containing both signs), and never below what
    the windows give. The bias terms do not average out over sequences (every start frame is biased the same
    way), so their mean is added in full. With one sequence, U_i = u_i.

    Args:
        cell, k, h0, seed, progress, options (window, chunk, dtype, matrix_free): as :func:`lyapunov_spectrum`;
            h0 (S,) shared or (m, S). progress is called with steps done, summing to m·T.
        x: (T, n) or (m, T, n), the cell's dtype.
        warmup: discarded steps per sequence, 0 ≤ warmup < T; None: T // 10.
        sequence: use only this sequence (0-based) instead of all.
        step_jacobians: (m, T, S, S), each sequence's step Jacobians when the caller holds them (the audit's step
            maps), read instead of formed again (:func:`lyapunov_spectrum`); with ``sequence``, still all m.

    Returns:
        :class:`LyapunovEstimate` (tensors in float64 unless ``dtype`` says otherwise).

    Raises:
        ValueError: as :func:`lyapunov_spectrum`; ``sequence`` not an index of x's sequences; h0 (m', S) with
            m' ≠ m.

    Source: the QR method of Engelken, Wolf & Abbott (2023) and Vogt et al. (2022), per sequence; the error bars
    are rnnaudit's (module docstring, "Error bars": batch means, a Richardson-type drift check, a second start
    frame, and Student's t over sequences).
    """
    from scipy.stats import t as student_t

    from rnnaudit.analysis.jacobian import _sequences as as_batch

    cell = wrap(cell)
    x = as_batch(cell, x, single=False)
    if sequence is not None:
        if isinstance(sequence, bool) or not isinstance(sequence, int) or not 0 <= sequence < x.shape[0]:
            raise ValueError(f"sequence must be an index 0..{x.shape[0] - 1} of the {x.shape[0]} sequence(s), "
                             f"got {sequence!r}")
        x = x[sequence:sequence + 1]
        if step_jacobians is not None:
            step_jacobians = step_jacobians[sequence:sequence + 1]
        if h0 is not None and h0.dim() == 2:
            h0 = h0[sequence:sequence + 1]
    m, T = x.shape[0], x.shape[1]
    warmup = T // 10 if warmup is None else warmup
    if h0 is not None and h0.dim() == 2 and h0.shape[0] != m:
        raise ValueError(f"h0 must be (S,) or (m, S) with m = {m} sequences, got {tuple(h0.shape)}")
    spectra = tuple(lyapunov_spectrum(cell, x[s], k, None if h0 is None else (h0[s] if h0.dim() == 2 else h0),
                                      warmup=warmup, seed=seed, progress=progress,
                                      step_jacobians=None if step_jacobians is None else step_jacobians[s], **options)
                    for s in range(m))
    per = torch.stack([s.exponents for s in spectra])
    mean = per.mean(0)
    bias = torch.stack([s.drift + 2 * s.alignment for s in spectra]).mean(0)
    windows = 2 * torch.stack([s.stderr for s in spectra]).square().sum(0).sqrt() / m
    if m >= 2:
        finite = torch.isfinite(per).all(0)
        spread = torch.where(finite, per, torch.zeros_like(per)).std(0) * float(student_t.ppf(0.975, m - 1)) / m ** 0.5
        noise = torch.maximum(spread, windows)
        how = (f"mean over {m} sequences ± (Student-t spread over sequences, or 2 batch-means standard errors, "
               f"+ drift + start-frame alignment)")
    else:
        noise = windows
        how = "one sequence ± (2 batch-means standard errors + drift + start-frame alignment)"
    halfwidth = torch.where(torch.isfinite(mean), noise + bias, torch.zeros_like(mean))
    return LyapunovEstimate(exponents=mean, halfwidth=halfwidth, per_sequence=per, spectra=spectra, warmup=warmup,
                            steps=spectra[0].steps, method=f"{how}, {warmup} warm-up steps discarded")


def _qr_step(J_t: Tensor, Q: Tensor, S: int, unit: float) -> tuple[Tensor, Tensor]:
    """One step of the formed path: J_t Q = Q' R, and log|R_ii| with rank loss as −inf (module docstring)."""
    Q, R = torch.linalg.qr(J_t @ Q)
    d = R.diagonal().abs()
    lost = d <= RANK_LOSS_FACTOR * S * unit * torch.linalg.matrix_norm(J_t)
    return Q, torch.where(lost, -math.inf, torch.log(d))


#: Steps whose Jacobians :func:`lyapunov_cost` forms (or pushes) to time one; fewer where T is shorter.
_TIMED_STEPS = 8


def lyapunov_cost(cell: RecurrentCell, T: int, k: int | None = None, *, matrix_free: bool | None = None,
                  dtype: torch.dtype = torch.float64, chunk: int = 256) -> WorkEstimate:
    """Predicted time of :func:`lyapunov_spectrum` (same ``cell``, T steps, ``k``, ``matrix_free``, ``dtype``) before
    it runs, from its work units timed now on a zero state and input of the cell's dtype and device:

    * formed path: T Jacobians (formed by forward mode ``chunk`` steps per pass as the run forms them: a cost per
      pass and one per step, timed on passes of 2 and min(T, 8) steps) and 2T QR steps (J_t Q_{t−1} = Q_t R_t of
      an (S × k) block, its log-diagonal and ‖J_t‖_F, timed on a random J, single-threaded below
      :data:`SINGLE_THREAD_WIDTH` as the run is; twice per step, for the two start frames of the error bars);
    * matrix-free path: T forward-mode pushes of 2k + :data:`FROBENIUS_PROBES` directions and 2T QRs of S × k;
    * both: T steps of the trajectory (timed over min(T, 8) steps).

    Every step has the same shapes, so the count of each unit is exact (⌈T/chunk⌉ passes); the estimate is off only by how the
    time of one unit varies (the machine's load, caches at large S). The timing itself costs about 30 steps.

    Args:
        cell: as :func:`lyapunov_spectrum`. T: steps (≥ 1). k: exponents (None: all S). matrix_free, dtype,
            chunk: as :func:`lyapunov_spectrum`.

    Returns:
        :class:`analysis.cost.WorkEstimate`.

    Raises:
        ValueError: T not a positive int, k not in [1, S], matrix_free not a bool or None.
    """
    cell = wrap(cell)
    if isinstance(T, bool) or not isinstance(T, int) or T < 1:
        raise ValueError(f"T must be a positive int, got {T!r}")
    S, n = cell.hidden_size, cell.input_size
    k = S if k is None else _int_option("k", k, 1)
    if k > S:
        raise ValueError(f"k must be at most the state width S = {S}, got {k}")
    if matrix_free is not None and not isinstance(matrix_free, bool):
        raise ValueError(f"matrix_free must be True, False or None (automatic), got {matrix_free!r}")
    if matrix_free is None:
        matrix_free = S >= MATRIX_FREE_MIN_WIDTH and 4 * (k + FROBENIUS_PROBES) <= S
    probe = next(iter(cell.parameters()), None) if hasattr(cell, "parameters") else None
    device = probe.device if probe is not None else torch.device("cpu")
    cdtype = probe.dtype if probe is not None and probe.dtype.is_floating_point else dtype
    c = min(T, _TIMED_STEPS)
    xr = torch.zeros(c, n, dtype=cdtype, device=device)
    hr = torch.zeros(c, S, dtype=cdtype, device=device)
    gen = torch.Generator().manual_seed(0)
    Q = torch.linalg.qr(torch.randn(S, k, generator=gen, dtype=dtype))[0].to(device)
    unit = torch.finfo(dtype).eps / 2
    with torch.no_grad():
        forward = best_seconds(lambda: cell(xr[None], hr[:1]), repeats=2) / c
    if matrix_free:
        V = torch.randn(2 * k + FROBENIUS_PROBES, S, generator=gen, dtype=dtype).to(device=device, dtype=cdtype)

        def push():
            with torch.no_grad():
                vmap(lambda v: jvp(lambda hh: cell.step(xr[:1], hh), (hr[:1],), (v[None],))[1][0])(V)

        step = best_seconds(push, repeats=2)
        qr = best_seconds(lambda: torch.linalg.qr(torch.randn(S, k, generator=gen, dtype=dtype).to(device)), repeats=2)
        parts = (("forward-mode steps", float(T), step), ("QR steps", 2.0 * T, qr),
                 ("trajectory steps", float(T), forward))
    else:
        # one pass forms the Jacobians of up to ``chunk`` steps at once: a fixed cost per pass plus one per step,
        # separated by timing passes of 2 and 8 steps (a noisy difference falls back to the cost per step of 8)
        small, large = (best_seconds(lambda: _jacobians_at(cell, xr[:r], hr[:r], inputs=False), repeats=2)
                        for r in (min(2, c), c))
        per_step = (large - small) / (c - min(2, c)) if c > 2 and large > small else large / c
        per_pass = max(0.0, small - min(2, c) * per_step)
        J = (torch.randn(S, S, generator=gen, dtype=dtype) / math.sqrt(S)).to(device)
        with single_threaded(S < SINGLE_THREAD_WIDTH and J.device.type == "cpu"):
            qr = best_seconds(lambda: _qr_step(J, Q, S, unit), repeats=3)
        parts = (("Jacobian steps", float(T), per_step), ("Jacobian passes", float(math.ceil(T / chunk)), per_pass),
                 ("QR steps", 2.0 * T, qr), ("trajectory steps", float(T), forward))
    path = "matrix-free" if matrix_free else "formed Jacobians"
    return WorkEstimate(f"lyapunov spectrum, k = {k} of S = {S}, T = {T} ({path})", parts)


def kaplan_yorke_dimension(exponents) -> float:
    """Kaplan–Yorke (Lyapunov) dimension of a spectrum: D = j + (λ_1 + … + λ_j)/|λ_{j+1}|, where j is the
    largest index with λ_1 + … + λ_j ≥ 0 (exponents sorted descending); D = 0 when λ_1 < 0 and D = S (the
    number of exponents) when every partial sum is ≥ 0. An exponent −inf (a singular product) contributes a
    fraction 0.

    Args:
        exponents: (S,) Lyapunov exponents (any order; nats or bits per step, the ratio is unit-free), e.g.
            :attr:`LyapunovSpectrum.exponents`; a tensor, array or sequence of numbers.

    Returns:
        D as a float in [0, S].

    Raises:
        ValueError: ``exponents`` empty, not 1-D, or holding NaN or +inf.

    Source: J. L. Kaplan & J. A. Yorke, "Chaotic behavior of multidimensional difference equations",
    Lecture Notes in Math. 730 (1979); Engelken, Wolf & Abbott (2023), Sec. II (attractor dimension).
    """
    lam = torch.as_tensor(exponents, dtype=torch.float64).detach().cpu()
    if lam.dim() != 1 or lam.numel() == 0:
        raise ValueError(f"exponents must be a non-empty 1-D sequence, got shape {tuple(lam.shape)}")
    if torch.isnan(lam).any() or (lam == math.inf).any():
        raise ValueError(f"exponents must not hold NaN or +inf, got {lam.tolist()}")
    lam = torch.sort(lam, descending=True).values.tolist()
    total, j = 0.0, 0
    while j < len(lam) and total + lam[j] >= 0:
        total += lam[j]
        j += 1
    if j == len(lam):
        return float(j)
    return j + (total / abs(lam[j]) if math.isfinite(lam[j]) else 0.0)
