"""The spectral norm ‖M‖₂ of many matrices, computed once and only where a decision needs it.

Two functions, one quantity:

* :func:`spectral` is the exact value (LAPACK's singular values, ``torch.linalg.matrix_norm(ord=2)``, the same
  bits) of one matrix or of a batch, inside :func:`one_thread`. Note [one LAPACK thread]: on a loaded 2-core
  machine ‖·‖₂ of 8 matrices 256 × 256 took 20.5 s with the 2 OpenMP/BLAS threads the process starts with and
  0.33 s inside ``threadpoolctl.threadpool_limits(1)`` (the threads spin while other processes hold the cores);
  these factorisations are too small to gain from threads anyway. ``torch.set_num_threads(1)`` and back is not
  used: in torch 2.13 it broke the batched LU afterwards (``solve_ex`` raised "Pivots given to lu_solve must
  all be greater or equal to 1" in the audit's fixed-point search); threadpoolctl's limit leaves it working
  (a test pins it).
* :class:`PairNorms` holds a set of matrices (the step Jacobians of a sequence, or the products ∂h_t/∂h_k of a
  pair schedule) with cheap two-sided bounds on each norm (:func:`rnnaudit.analysis.diagnostics.norm_bounds`:
  max(‖M‖_F/√r, largest row and column norm) ≤ ‖M‖₂ ≤ min(‖M‖_F, √(‖M‖₁‖M‖_∞)), Golub & Van Loan, Matrix
  Computations, Sec. 2.3.2), and answers "the largest ‖M_i‖₂" and "the pair of largest ‖M_i‖₂ / b_i" exactly:
  only the matrices whose upper bound reaches the best lower bound can be the answer, and only those are
  factorised (each once, kept for the next question). The answer is therefore the same number, and the same
  pair, as computing every norm exactly.

  Note [certified below by Cholesky]: the cheap bounds are often a factor 4–6 apart on the step Jacobians of an LSTM
  (‖M‖_F against ‖M‖₂ at S = 600), so every matrix would stay a candidate and be factorised (a singular value
  decomposition, 4–5 GEMMs). A cheaper tier comes first: the leader (the largest lower bound, optionally raised by
  :data:`POWER_STEPS` steps of the power iteration on MᵀM, :func:`power_lower_bounds`) is factorised alone, and
  ‖M_i‖₂ < c_i is certified for the others, at the leader's level c_i, by a Cholesky factorisation of c_i²I − MᵀM
  (BLAS syrk and LAPACK potrf: two thirds of a GEMM): it runs to completion in floating point only where that
  matrix is positive definite up to its rounding, which :func:`cholesky_upper_bounds` bounds (Higham, Accuracy and
  Stability of Numerical Algorithms, 2nd ed., Thm 10.3; the test of Rump, "Verification of positive definiteness",
  BIT 46, 2006). A matrix
  that passes gets that certified upper bound; one that fails (its norm within 10⁻⁶ of the leader's, or above it)
  is factorised as before. The answer stays the same number, and the same pair.

Uses torch, threadpoolctl, and scipy's BLAS ``syrk`` and LAPACK ``potrf`` (the Cholesky test on the CPU).
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import torch
from torch import Tensor

__all__ = ["spectral", "one_thread", "PairNorms", "vector_norm", "power_of_two_scale", "largest_magnitude",
           "step_norm_name", "cholesky_upper_bounds", "power_lower_bounds"]


def spectral(M: Tensor) -> Tensor:
    """‖M‖₂ (largest singular value) of a matrix (p, q) → 0-d, or of each in a batch (..., p, q) → (...).

    Exact to LAPACK's accuracy (``torch.linalg.matrix_norm(M, ord=2)``, the same bits), float or complex,
    differentiable when M requires a gradient.
    Source: the definition.
    """
    with one_thread():
        return torch.linalg.matrix_norm(M, ord=2)


_CONTROLLER = []  # one threadpoolctl.ThreadpoolController, made on first use (after torch has loaded its pools)
_INSIDE = threading.local()  # .depth: how many one_thread blocks this thread is inside


@contextmanager
def one_thread() -> Iterator[None]:
    """A context in which the BLAS/LAPACK and OpenMP pools run one thread (``threadpoolctl``'s limit of 1,
    restored on exit; see Note [one LAPACK thread] in the module docstring). CUDA work is unaffected.

    The pools are found once per process (a ``ThreadpoolController``) and reused: ``threadpool_limits`` scans every
    loaded library on each call, 1.2 ms (0.8 ms of it system time) against 0.03 ms for the controller's limit,
    and the check computes some 10⁵ norms, so the scan alone cost about 2 minutes of system time. A block inside
    another of the same thread sets nothing: the pools already run one thread (a claim's check holds one around all
    its norms, and the limit's set and restore cost about as much as the norm of a small matrix)."""
    depth = getattr(_INSIDE, "depth", 0)
    if depth:
        _INSIDE.depth = depth + 1
        try:
            yield
        finally:
            _INSIDE.depth = depth
        return
    if not _CONTROLLER:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER.append(ThreadpoolController())
    with _CONTROLLER[0].limit(limits=1):
        _INSIDE.depth = 1
        try:
            yield
        finally:
            _INSIDE.depth = 0


#: matrices factorised, multiplied or tested at once (a batch of this many S × S copies at most: 8 × 600² float64 is
#: 23 MB), so that a question about hundreds of step Jacobians never copies them all
CHUNK = 8
#: numbers of one chunk of :class:`PairNorms`' cheap bounds (2^20 float64: 8 MB, two 600 × 600 matrices; the copies of
#: a chunk sit beside the whole map), at most 4·CHUNK matrices
BOUNDS_NUMBERS = 2 ** 20
#: a candidate is tested below the leader's level times (1 − this): a norm closer to the leader's than that is
#: factorised
CERTIFY_GAP = 1e-6
#: the Cholesky tier runs only on matrices at least this wide (their smaller side): below it one batched singular value
#: decomposition of the candidates costs less than a test per matrix called from Python
CERTIFY_MIN_SIZE = 32
#: power-iteration steps on MᵀM that raise the candidates' lower bounds before the leader is chosen (0: none; the
#: cheap bounds' leader was within a few ranks of the true one on trained and default LSTMs, and each step costs a
#: matrix-vector product pair per candidate, about a tenth of a Cholesky test)
POWER_STEPS = 0


def _chunks(idx: Tensor):
    for lo in range(0, idx.numel(), CHUNK):
        yield idx[lo:lo + CHUNK]


def power_lower_bounds(M: Tensor, steps: int = POWER_STEPS, seed: int = 0) -> Tensor:
    """Lower bounds ‖M_i v_i‖₂/‖v_i‖₂ ≤ ‖M_i‖₂ (N,) of a batch (N, p, q), v_i from ``steps`` power-iteration steps
    v ← MᵀMv on a random start, taken off by the rounding of the two products and the norms (relative
    (q + p + 4)·eps, Higham, Accuracy and Stability, eq. 3.11), so that each is a lower bound in exact arithmetic too.
    Zero where Mv = 0. Source: the definition of ‖·‖₂ as max_v ‖Mv‖/‖v‖ (Golub & Van Loan, Sec. 2.3)."""
    N, p, q = M.shape
    gen = torch.Generator(device="cpu").manual_seed(seed)
    v = torch.randn(N, q, 1, generator=gen, dtype=M.dtype).to(M.device)
    for _ in range(steps):
        v = ((M @ v).mT @ M).mT  # MᵀMv with M read row-wise twice (a transposed batched product is twice as slow)
        nv = torch.linalg.vector_norm(v, dim=(-2, -1), keepdim=True)
        v = v / torch.where(nv == 0, torch.ones_like(nv), nv)
    nv = torch.linalg.vector_norm(v, dim=(-2, -1))
    value = torch.linalg.vector_norm(M @ v, dim=(-2, -1)) / torch.where(nv == 0, torch.ones_like(nv), nv)
    value = torch.where(torch.isfinite(value), value, torch.zeros_like(value))
    return value * (1 - (p + q + 4) * torch.finfo(M.dtype).eps)


def cholesky_upper_bounds(M: Tensor, c: Tensor) -> Tensor:
    """Certified upper bounds on ‖M_i‖₂ (N,) of a batch (N, p, q), real floating, from the test ‖M_i‖₂ < c_i: where
    the Cholesky factorisation of Â = fl(c_i² I − G_i) (G = MᵀM or MMᵀ, r × r with r = min(p, q), formed in one
    pass, BLAS ``syrk``) runs to completion, ‖M_i‖₂² ≤ c_i² + δ_i (returned as a bound slightly above c_i); +inf where
    it fails (no information).

    The rounding δ (u = eps/2, γ_k = ku/(1 − ku); Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.):
    each entry of Â is c²δ_ij minus an inner product of length k = max(p, q), so Â = c²I − G + F with
    |F| ≤ γ_{k+1}(c²I + |M|ᵀ|M|) and ‖F‖₂ ≤ γ_{k+1}(c² + ‖M‖_F²) (eq. 3.11); a Cholesky factorisation that completes
    gives R̂ᵀR̂ = Â + E with |E| ≤ γ_{r+1}|R̂ᵀ||R̂| (Thm 10.3, any order of the inner products), so ‖E‖₂ ≤
    γ_{r+1}‖R̂‖_F² ≤ γ_{r+1}/(1 − γ_{r+1})·tr Â ≤ γ_{r+1}/(1 − γ_{r+1})·r c²(1 + γ_{k+1}) (each â_jj is c² less a sum
    of squares). Since R̂ᵀR̂ ⪰ 0, λ_max(G) ≤ c² + ‖F‖₂ + ‖E‖₂; δ is twice that sum (its own evaluation), and the
    square root is taken up by 8u. Source: the verification of positive definiteness of Rump (BIT 46, 2006), applied
    to c²I − MᵀM.

    Range: the analysis above assumes no underflow. A matrix whose ‖M‖_F² lies outside [2^−800, 2^800] (entries
    whose squares are subnormal or overflow; a saturated gate's Jacobian) is divided, with its level, by the power of
    two that brings its largest entry to [1, 2) (:func:`power_of_two_scale`, exact) and tested there, its bound
    multiplied back; within the range, the products that still underflow carry an absolute error of at most 2^−1075
    each (Higham eq. 2.8), which δ takes up as (k + r + 2)·r·2^−1073.

    Args:
        M: (N, p, q), finite (a non-finite matrix gets +inf). c: (N,) levels > 0 (a level ≤ 0 gets +inf).

    Returns:
        (N,) in M's dtype: the bound where the test passes, +inf elsewhere.
    """
    c = c.to(M)
    fro2 = _frobenius_squared(M)
    usable = torch.isfinite(c) & (c > 0)
    in_range = (fro2 >= 2.0 ** -800) & (fro2 <= 2.0 ** 800)  # False for NaN and inf
    out = _cholesky_bounds(M, c, fro2, usable & in_range)
    odd = usable & ~in_range
    if bool(odd.any()):
        idx = odd.nonzero().squeeze(-1)
        sub, s = _at_own_scale(M[idx])
        f2 = _frobenius_squared(sub)
        fine = (f2 >= 2.0 ** -800) & (f2 <= 2.0 ** 800)  # not a zero or non-finite matrix
        out[idx] = _cholesky_bounds(sub, c[idx] / s, f2, fine & torch.isfinite(c[idx] / s)) * s
    return out


def _at_own_scale(M: Tensor) -> tuple[Tensor, Tensor]:
    """(M_i / 2^k_i, 2^k_i (N,)) of a batch (N, p, q): each matrix divided, exactly, by the power of two that brings
    its largest entry to [1, 2) (:func:`power_of_two_scale`), for a computation that squares the entries."""
    scale = power_of_two_scale(M, dim=(-2, -1))
    return M / scale.to(M.dtype), scale[:, 0, 0]


def _frobenius_squared(M: Tensor) -> Tensor:
    """An upper bound on ‖M_i‖_F² (N,) from torch's 2-norm reduction (no squared copy of M): the sum of squares
    carries γ_{pq}, the square root and the squaring 3u more, so (1 + (pq + 8)u) keeps it an upper bound (without
    underflow); inf or NaN where an entry is not finite or the sum overflows."""
    p, q = M.shape[-2:]
    u = torch.finfo(M.dtype).eps / 2
    return torch.linalg.vector_norm(M.flatten(1), dim=-1).square() * (1 + (p * q + 8) * u)


def _cholesky_bounds(M: Tensor, c: Tensor, fro2: Tensor, ok: Tensor) -> Tensor:
    """:func:`cholesky_upper_bounds` on the matrices ``ok`` (their ‖M‖_F² bound ``fro2`` in range), +inf elsewhere."""
    N, p, q = M.shape
    r, k = min(p, q), max(p, q)
    u = torch.finfo(M.dtype).eps / 2
    gamma_k, gamma_r = (k + 1) * u / (1 - (k + 1) * u), (r + 1) * u / (1 - (r + 1) * u)
    out = torch.full((N,), math.inf, dtype=M.dtype, device=M.device)
    if not bool(ok.any()):
        return out
    mu = c * c
    tiny = (k + r + 2) * r * 2.0 ** -1073  # the underflowing products' absolute errors, in both phases
    delta = gamma_k * (mu + fro2) + gamma_r / (1 - gamma_r) * r * mu * (1 + gamma_k) + tiny
    bound = ((mu + 2 * delta) * (1 + 8 * u)).sqrt()
    passed = _cholesky_passes(M, mu, ok, q <= p)
    return torch.where(passed & ok, bound, out)


def _cholesky_passes(M: Tensor, mu: Tensor, ok: Tensor, gram_of_columns: bool) -> Tensor:
    """Whether the Cholesky factorisation of μ_i I − G_i completes (N,) bool (G = MᵀM if ``gram_of_columns``, else
    MMᵀ): BLAS syrk and LAPACK potrf through scipy on the CPU (the Gram's lower triangle only: half a GEMM), torch's
    Gram and ``cholesky_ex`` elsewhere."""
    if M.device.type == "cpu" and M.dtype in (torch.float64, torch.float32):
        from scipy.linalg import get_blas_funcs, get_lapack_funcs

        A = M.detach().numpy()
        syrk, potrf = get_blas_funcs("syrk", dtype=A.dtype), get_lapack_funcs("potrf", dtype=A.dtype)
        out = torch.zeros(M.shape[0], dtype=torch.bool)
        r = min(M.shape[1], M.shape[2])
        for i in ok.nonzero().squeeze(-1).tolist():
            # a = Mᵀ as a Fortran-ordered view of the row-major M: syrk's aaᵀ (trans 0) is MᵀM, aᵀa (trans 1) MMᵀ
            C = np.zeros((r, r), dtype=A.dtype, order="F")
            np.fill_diagonal(C, float(mu[i]))
            C = syrk(-1.0, A[i].T, beta=1.0, c=C,
                     trans=0 if gram_of_columns else 1, lower=1, overwrite_c=1)
            _, info = potrf(C, lower=1, overwrite_a=1, clean=0)
            out[i] = info == 0
        return out
    G = M.mT @ M if gram_of_columns else M @ M.mT
    A = -G
    A.diagonal(dim1=-2, dim2=-1).add_(mu.to(A)[:, None])
    _, info = torch.linalg.cholesky_ex(A)
    return info == 0


class PairNorms:
    """‖M_i‖₂ of a fixed set of matrices, factorised lazily (see the module docstring).

    Args:
        M: (N, p, q) matrices, any floating dtype; not copied (the caller keeps them unchanged).

    Attributes:
        lower, upper: (N,) bounds on each norm (exact where ``known``). known: (N,) bool, exact values held.
    """

    def __init__(self, M: Tensor):
        from rnnaudit.analysis.diagnostics import norm_bounds

        if not isinstance(M, Tensor) or M.dim() != 3:
            raise ValueError(f"M must be a batch of matrices (N, p, q), got "
                             f"{tuple(M.shape) if isinstance(M, Tensor) else type(M).__name__}")
        self.M = M.detach()

        def bounds(part: Tensor) -> tuple[Tensor, Tensor]:
            # the bounds square the entries: a step Jacobian of entries below ~1e−154 (a saturated gate) would read
            # as norm 0, one above ~1e154 as inf. Where the unscaled upper bound lies in [2^−400, 2^400] no square of
            # an entry that matters under- or overflowed (the largest entry is ≥ ‖M‖_F/√(pq), and what underflows
            # is below 2^−274 of ‖M‖_F², far inside the slack below); the others are scaled by a power of two
            # (exact) to a largest entry in [1, 2) and bounded again
            lo, hi = norm_bounds(part)
            redo = ~((hi >= 2.0 ** -400) & (hi <= 2.0 ** 400))
            if bool(redo.any()):
                sub, scale = _at_own_scale(part[redo])
                slo, shi = norm_bounds(sub)
                lo[redo], hi[redo] = slo * scale, shi * scale
            return lo, hi

        # in chunks: norm_bounds holds |M| of what it is given, and the scaling a copy (of all of M at once), so at most
        # BOUNDS_NUMBERS numbers a chunk (two matrices of 600 × 600: 2 × 6 MB beside a 1.2 GB map, not 2 × 92 MB)
        step = min(4 * CHUNK, max(1, BOUNDS_NUMBERS // max(1, self.M.shape[-2] * self.M.shape[-1])))
        # written into tensors allocated before the first chunk: a chunk's result kept past its chunk (a list to
        # concatenate) is a small block that glibc carves from the chunk's freed 32 MB copies, so the next chunk's
        # copies no longer fit there and the heap grows instead (+0.64 GB resident over 400 matrices of 600 × 600)
        lower = self.M.new_empty(self.M.shape[0], dtype=self.M.real.dtype)
        upper = torch.empty_like(lower)
        with one_thread():
            for lo in range(0, self.M.shape[0], step):
                lower[lo:lo + step], upper[lo:lo + step] = bounds(self.M[lo:lo + step])
        # the bounds are computed in floating point: widen them by a few ulps of the Frobenius sum (r·n terms)
        # so that the exact value, itself within O(eps)‖M‖₂, is never cut off
        slack = 4 * (M.shape[-1] * M.shape[-2] + 1) * torch.finfo(M.dtype).eps
        self.lower, self.upper = lower * (1 - slack), upper * (1 + slack)
        self.known = torch.zeros(M.shape[0], dtype=torch.bool, device=M.device)
        self.exact = torch.zeros(M.shape[0], dtype=self.lower.dtype, device=M.device)

    def __len__(self) -> int:
        return self.M.shape[0]

    def solve(self, idx: Tensor) -> Tensor:
        """The exact norms of the matrices ``idx`` (long (k,)), factorising those not yet known."""
        todo = idx[~self.known[idx]].unique()
        for part in _chunks(todo):  # a few at a time: M[part] is a copy
            values = spectral(self.M[part])
            self.exact[part], self.known[part] = values, True
            self.lower[part], self.upper[part] = values, values
        return self.exact[idx]

    def _refine(self, weight: Tensor, usable: Tensor) -> None:
        """Narrow the bounds of the open candidates for the largest ‖M_i‖₂·w_i (Note [certified below by Cholesky]):
        power-iteration lower bounds, the leader factorised, then the others tested below its level. ``usable``
        (N,) bool: the pairs whose weight is finite and positive (the others are left as they are)."""
        if min(self.M.shape[-2:]) < CERTIFY_MIN_SIZE:
            return
        lo, hi = self.lower * weight, self.upper * weight
        lo = torch.where(usable, lo, torch.full_like(lo, -math.inf))
        open_ = usable & (hi >= lo.max()) & ~self.known
        if int(open_.sum()) <= 1:
            return
        if POWER_STEPS:
            self.raise_lower(open_.nonzero().squeeze(-1), POWER_STEPS)
        lo = torch.where(usable, self.lower * weight, torch.full_like(lo, -math.inf))
        self.solve(lo.argmax().reshape(1))
        lo, hi = self.lower * weight, self.upper * weight
        lo = torch.where(usable, lo, torch.full_like(lo, -math.inf))
        level = lo.max()
        if not bool(torch.isfinite(level)) or level <= 0:
            return
        open_ = usable & (hi >= level) & ~self.known
        self._test_below(open_.nonzero().squeeze(-1), level / weight)

    def _test_below(self, idx: Tensor, level: Tensor) -> None:
        """The Cholesky tier: ‖M_i‖₂ < level_i·(1 − :data:`CERTIFY_GAP`) tested for the matrices ``idx`` (level:
        (N,), one per matrix), a chunk at a time; where it passes, the certified bound lowers ``upper``."""
        with one_thread():
            for part in _chunks(idx):
                c = level[part] * (1 - CERTIFY_GAP)
                self.upper[part] = torch.minimum(self.upper[part], cholesky_upper_bounds(self.M[part], c))

    def raise_lower(self, idx: Tensor, steps: int) -> None:
        """Raise the lower bounds of the matrices ``idx`` by ``steps`` power-iteration steps
        (:func:`power_lower_bounds`, one batch: its random starts are drawn for the batch as given); never above the
        upper bound (a known norm stays as it is)."""
        with one_thread():
            raised = torch.maximum(self.lower[idx], power_lower_bounds(self.M[idx], steps))
            self.lower[idx] = torch.minimum(raised, self.upper[idx])

    def below(self, level: float | Tensor, where: Tensor | None = None) -> Tensor:
        """Which norms are certified below ``level`` (N,) bool: an upper bound (exact value, cheap bound, or a
        Cholesky test at level·(1 − :data:`CERTIFY_GAP`), each taken only where the cheaper ones leave it open)
        below it. A norm within the gap of the level stays uncertified, and an exact one within 16·max(p, q) ulps
        of it (LAPACK's accuracy) too.

        Args:
            level: > 0, in the units of the norms: one number, or one per matrix (N,) (a level that is not finite
                and positive tests nothing). where: (N,) bool, the matrices to test (default all)."""
        level = torch.as_tensor(level, dtype=self.upper.dtype, device=self.upper.device).expand(len(self))
        open_ = (self.lower < level) & (self.upper >= level) & ~self.known & torch.isfinite(level) & (level > 0)
        if where is not None:
            open_ &= where
        if bool(open_.any()):
            idx = open_.nonzero().squeeze(-1)
            if min(self.M.shape[-2:]) < CERTIFY_MIN_SIZE or self.M.is_complex():
                self.solve(idx)
            else:
                self._test_below(idx, level)
        # an exact value is LAPACK's, accurate to a few ulps of ‖M‖ times the size: within that of the level it
        # does not certify a side
        slack = 1 + 16 * max(self.M.shape[-2:]) * torch.finfo(self.upper.dtype).eps
        return torch.where(self.known, self.upper * slack, self.upper) < level

    def all(self) -> Tensor:
        """Every norm, exact (N,)."""
        return self.solve(torch.arange(len(self), device=self.M.device))

    def candidates(self, weight: Tensor | None = None) -> Tensor:
        """Indices i that can maximise ‖M_i‖₂·w_i (w ≥ 0, default 1): upper_i w_i ≥ max_j lower_j w_j."""
        w = torch.ones_like(self.lower) if weight is None else weight.to(self.lower)
        if not self.M.is_complex() and bool(torch.isfinite(w).all() and (w > 0).all()):
            self._refine(w, torch.ones_like(self.known))
        lo, hi = self.lower * w, self.upper * w
        # settle the leaders first: the exact values of the top upper bounds raise the bar for the rest
        order = torch.argsort(hi, descending=True)
        self.solve(order[:1])
        lo, hi = self.lower * w, self.upper * w
        return (hi >= lo.max()).nonzero().squeeze(-1)

    def max(self) -> tuple[Tensor, int]:
        """(max_i ‖M_i‖₂, its index i), exact: the value and the first index attaining it, as ``norms.max()``
        and ``argmax`` over all exact norms give them."""
        idx = self.candidates()
        values = self.solve(idx)
        best = values.max()
        i = int(idx[values == best].min())
        return best, i

    def worst(self, bound: Tensor, ratio) -> tuple[Tensor, Tensor]:
        """The (‖M_i‖₂, b_i) pair that ``ratio(measured, bound)`` ranks first (its argmax), exact: computed over
        the candidates that can reach the largest ratio (ratio increasing in the measured value and equal to
        measured/bound for bound > 0); every other pair's ratio is certified below it.

        Args:
            bound: (N,) the right-hand sides b_i ≥ 0. ratio: e.g. :func:`rnnaudit.bounds.core.safe_ratio`.
        """
        k = self.worst_index(bound, ratio)
        return self.solve(torch.tensor([k], device=self.M.device))[0], bound.detach()[k]

    def worst_index(self, bound: Tensor, ratio) -> int:
        """The index i of the pair :meth:`worst` returns (its exact norm is then held)."""
        bound = bound.detach()
        positive = bound > 0
        # a zero or negative bound: its ratio is decided by the measured value alone; keep such pairs in
        weight = torch.where(positive, 1 / torch.where(positive, bound, torch.ones_like(bound)),
                             torch.full_like(bound, math.inf))
        if not self.M.is_complex() and bool(positive.any()):
            self._refine(torch.where(positive, weight, torch.ones_like(weight)), positive & torch.isfinite(weight))
        # a bound so small that 1/b overflows (below ~5.6e−309) has no finite weight: such pairs are kept in as
        # candidates (their ratio is computed exactly below) and left out of the level the others must reach
        finite = positive & torch.isfinite(weight)

        def level() -> Tensor:
            lo = torch.where(finite, self.lower * weight, torch.full_like(weight, -math.inf))
            return torch.where(torch.isnan(lo), torch.full_like(lo, -math.inf), lo).max()

        hi = torch.where(finite, self.upper * weight, torch.full_like(weight, -math.inf))
        self.solve(torch.argsort(hi, descending=True)[:1])
        hi = self.upper * weight
        idx = ((finite & (hi >= level())) | ~finite | torch.isnan(hi)).nonzero().squeeze(-1)
        values = self.solve(idx)
        r = ratio(values, bound[idx])
        return int(idx[int(r.argmax())])


def power_of_two_scale(x: Tensor, dim: int | tuple[int, ...] | None = None) -> Tensor:
    """2^k with the largest |entry| of ``x`` (over ``dim``, default all entries) in [2^k, 2^(k+1)); 1 where that
    largest entry is 0 or not finite. Dividing by it is exact in binary floating point and brings the largest
    entry to [1, 2), so that squaring the entries (a Frobenius sum, AᵀA, a Cholesky factor) neither underflows
    (entries below ~1e−154, a saturated gate's Jacobian, a trajectory decayed over thousands of steps) nor
    overflows; 2^k itself is always finite (k ∈ [−1074, 1023]).

    Args:
        x: real or complex tensor, any shape.
        dim: the dimensions reduced (kept as size 1, so that ``x / scale`` broadcasts); None reduces all.

    Returns:
        real tensor of x's real dtype: () for dim None, else x's shape with ``dim`` of size 1.

    Source: the scaling of LAPACK's dnrm2/dlassq (Blue 1978), by powers of two as in Higham (2002) Sec. 27.8."""
    x = x.detach()
    big = largest_magnitude(x, dim) if x.numel() else x.abs().new_zeros(())
    ok = (big > 0) & torch.isfinite(big)
    # frexp: big = f·2^e with f in [1/2, 1), so 2^(e−1) ≤ big < 2^e; e − 1 ≤ 1023 keeps 2^(e−1) finite
    e = torch.frexp(torch.where(ok, big, torch.ones_like(big)))[1] - 1
    return torch.where(ok, torch.ldexp(torch.ones_like(big), e), torch.ones_like(big))


def largest_magnitude(x: Tensor, dim: int | tuple[int, ...] | None = None) -> Tensor:
    """max |entry| of a non-empty x over ``dim`` (kept as size 1; None: all, a 0-d result), exact, NaN where an entry
    is NaN, without the copy |x| would make of a large product. A real x as max(−min, max) from one ``aminmax`` pass,
    ten times faster than the ∞-norm reduction, which a complex x keeps. Source: the definition."""
    if x.is_complex():
        return torch.linalg.vector_norm(x, math.inf, dim=dim, keepdim=dim is not None)
    if dim is None:
        low, high = torch.aminmax(x.reshape(-1))
        return torch.maximum(-low, high)
    dims = sorted({d % x.dim() for d in ((dim,) if isinstance(dim, int) else dim)})
    rest = [d for d in range(x.dim()) if d not in dims]
    flat = x.permute(*rest, *dims).reshape(*[x.shape[d] for d in rest], -1)
    low, high = torch.aminmax(flat, dim=-1)
    return torch.maximum(-low, high).reshape([1 if d in dims else x.shape[d] for d in range(x.dim())])


def vector_norm(v: Tensor, dim: int | None = None) -> Tensor:
    """‖v‖₂ (over ``dim``, default all entries), scaled by a power of two near the largest |entry| first
    (:func:`power_of_two_scale`), as LAPACK's dnrm2 scales: ``torch.linalg.vector_norm`` squares the entries, so a
    vector of entries below ~1e−154 reads as 0 or inexact (two trajectories that decay together into that
    range). Differentiable; float64 in, float64 out.

    Source: the scaled 2-norm of Blue (1978), as in LAPACK's dnrm2."""
    scale = power_of_two_scale(v, dim)
    out = torch.linalg.vector_norm(v / scale, dim=dim)
    return out * (scale.squeeze(dim) if dim is not None else scale)


def step_norm_name(state: str | None = None, over: str | None = None, *, block: str | None = None,
                   part: str | None = None) -> str:
    """The one label of "the largest step-Jacobian norm" max_t ‖∂s_t/∂s_{t−1}‖₂: which state (or block of it) the
    norm is of, of which recurrence (layer and direction), and over which sequences, so that two numbers printed
    under one label are the same quantity.

    Args:
        state: the whole state in words as the audit names it ("h (64)", "h (150), c (150)", "the packed state
            [l0.h (150) | l1.h (150) | l0.c (150) | l1.c (150)]"), for a norm of the whole state; None or an h
            alone gives the h label. Not read when ``block`` is given.
        block: the block of the state the norm is of, as :func:`rnnaudit.analysis.grid_maps.state_block` labels it:
            "h block" or "layer 1 h block" (the h rows and columns of the step Jacobian: the rest of the state,
            an LSTM's c_{t−1}, held fixed), "state h" (h is the whole state), "(h, c) state".
        part: the recurrence, e.g. "layer 0" or "layer 1, reverse" (the audit's parts); None adds nothing.
        over: the aggregation ("all 8 sequences", "sequence 1 of 8"); None adds nothing.

    Returns:
        e.g. "max ‖∂h_t/∂h_{t−1}‖₂ (layer 0; h block, the rest of the state held fixed; over all 8 sequences)" (an
        LSTM), "max ‖∂h_t/∂h_{t−1}‖₂ (layer 0, reverse; over all 8 sequences)" (a GRU), "max ‖∂s_t/∂s_{t−1}‖₂ of
        s = h (150), c (150)" (a whole state) or "max ‖∂h_t/∂h_{t−1}‖₂" (h alone, nothing more said).
    """
    qualifiers = [part] if part else []
    if block is not None:
        first = block.split()[-2] if block.endswith(" block") else None  # "h" or "c" of "… h block"
        if first in ("h", "c"):
            name = f"max ‖∂{first}_t/∂{first}_{{t−1}}‖₂"
            qualifiers.append(f"{block}, the rest of the state held fixed")
        elif block.startswith("(h, c)"):
            name = "max ‖∂s_t/∂s_{t−1}‖₂"
            qualifiers.append(f"s = the whole {block}")
        else:  # h is the whole state
            name = "max ‖∂h_t/∂h_{t−1}‖₂"
    else:
        only_h = state is None or re.search(r"(?<![A-Za-z])c(?![A-Za-z])", state) is None
        name = "max ‖∂h_t/∂h_{t−1}‖₂" if only_h else f"max ‖∂s_t/∂s_{{t−1}}‖₂ of s = {state}"
    if over is not None:
        qualifiers.append(f"over {over}")
    return name + (f" ({'; '.join(qualifiers)})" if qualifiers else "")
