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

Uses torch and threadpoolctl only.
"""

from __future__ import annotations

import math
import re

import torch
from torch import Tensor

__all__ = ["spectral", "one_thread", "PairNorms", "step_norm_name"]

def spectral(M: Tensor) -> Tensor:
    """‖M‖₂ (largest singular value) of a matrix (p, q) → 0-d, or of each in a batch (..., p, q) → (...).

    Exact to LAPACK's accuracy (``torch.linalg.matrix_norm(M, ord=2)``, the same bits), float or complex,
    differentiable when M requires a gradient.
    Source: the definition.
    """
    with one_thread():
        return torch.linalg.matrix_norm(M, ord=2)


_CONTROLLER = []  # one threadpoolctl.ThreadpoolController, made on first use (after torch has loaded its pools)


def one_thread():
    """A context in which the BLAS/LAPACK and OpenMP pools run one thread (``threadpoolctl``'s limit of 1,
    restored on exit; see Note [one LAPACK thread] in the module docstring). CUDA work is unaffected.

    The pools are found once per process (a ``ThreadpoolController``) and reused: ``threadpool_limits`` scans every
    loaded library on each call, 1.2 ms (0.8 ms of it system time) against 0.03 ms for the controller's limit,
    and the check computes some 10⁵ norms, so the scan alone cost about 2 minutes of system time."""
    if not _CONTROLLER:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1)


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
        with one_thread():
            lower, upper = norm_bounds(self.M)
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
        if todo.numel():
            values = spectral(self.M[todo])
            self.exact[todo], self.known[todo] = values, True
            self.lower[todo], self.upper[todo] = values, values
        return self.exact[idx]

    def all(self) -> Tensor:
        """Every norm, exact (N,)."""
        return self.solve(torch.arange(len(self), device=self.M.device))

    def candidates(self, weight: Tensor | None = None) -> Tensor:
        """Indices i that can maximise ‖M_i‖₂·w_i (w ≥ 0, default 1): upper_i w_i ≥ max_j lower_j w_j."""
        w = torch.ones_like(self.lower) if weight is None else weight.to(self.lower)
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
        lo, hi = self.lower * weight, self.upper * weight
        lo = torch.where(torch.isnan(lo), torch.full_like(lo, -math.inf), lo)
        self.solve(torch.argsort(hi, descending=True)[:1])
        lo, hi = self.lower * weight, self.upper * weight
        lo = torch.where(torch.isnan(lo), torch.full_like(lo, -math.inf), lo)
        idx = ((hi >= lo.max()) | ~positive | torch.isnan(hi)).nonzero().squeeze(-1)
        values = self.solve(idx)
        r = ratio(values, bound[idx])
        return int(idx[int(r.argmax())])


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
