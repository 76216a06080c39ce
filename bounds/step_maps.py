"""One step map per model sequence, formed once and read by every claim (and by the audit's diagnostics): the
step Jacobians of a :class:`~rnnaudit.bounds.architectures.ArchCase`, their norms and the products of the pair
schedule, with the norms factorised only where a maximum or a worst ratio needs them
(:class:`rnnaudit.analysis.norms.PairNorms`). Keyed by the case's content; :func:`shared_maps` keeps them for one
audit. Split from :mod:`rnnaudit.bounds.architectures`, which re-exports these names.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
from collections import OrderedDict
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import torch
from torch import Tensor

from rnnaudit.analysis.norms import PairNorms
from rnnaudit.bounds import architectures as _arch
from rnnaudit.bounds.architectures import MAX_STARTS, ArchCase, pair_schedule, spectral
from rnnaudit.bounds.core import safe_ratio, worst_pair

__all__ = ["StepMap", "ScaledNorms", "log2_pair", "schedule_log2_products", "step_map", "step_norms", "step_products", "shared_maps",
           "release_maps", "SHARED_NUMBERS"]

#: what :func:`_memo` keeps: the audit measures the same sequence for several claims (η for three
#: pascanu2013/miller_hardt2019/laurent2017 claims, the growth, the .general products, nc_gru.theorem1_lstm), the
#: assumptions twice (assessment, then the record's re-check), each on its own copy of the case. At most this many
#: results, holding at most MEMO_NUMBERS numbers together (2^25 float64: 256 MB; a model's J is T·S², 1.6e6 at
#: T = 100, S = 128); a larger result is computed and not kept.
#: (MEMO_SIZE and MEMO_NUMBERS live in rnnaudit.bounds.architectures, read at call time)
#: inside :func:`shared_maps` (one model's audit) the memo keeps up to this many numbers (2^28 float64: 2 GiB) so that
#: a long sequence's map is formed once for every claim, and drops them all when the audit ends
SHARED_NUMBERS = 2 ** 28
_MEMO: OrderedDict[tuple, Any] = OrderedDict()
_SHARED: ContextVar[bool] = ContextVar("rnnaudit_shared_maps", default=False)


@contextlib.contextmanager
def shared_maps() -> Iterator[None]:
    """Within the block (one model's audit), every claim reads one :class:`StepMap` per model sequence, formed once
    (the memo's budget is :data:`SHARED_NUMBERS`); on leaving it the maps are dropped. Note [one map per model and
    input]: the claims stay plain functions of their case; the sharing is keyed by the case's content
    (:func:`_case_key`), so two claims that build the same case from the model read the same map."""
    token = _SHARED.set(True)
    try:
        yield
    finally:
        _SHARED.reset(token)
        if not _SHARED.get():
            _MEMO.clear()


def release_maps() -> None:
    """Drop every map held now (the claims are done; a tensor read from a map stays alive while its reader holds
    it): what the audit calls before its diagnostics, which read only the per-layer step Jacobians."""
    _MEMO.clear()


def _budget() -> int:
    return SHARED_NUMBERS if _SHARED.get() else _arch.MEMO_NUMBERS


def _case_key(case: ArchCase) -> tuple | None:
    """A key that changes whenever anything the step Jacobians depend on changes: the kind and every weight, input
    and initial-state tensor (dtype, device, shape, bytes). None for a ``step`` case (its cell's forward is code,
    not data) and for a case whose tensors require a gradient (an ascent differentiates through the result)."""
    if case.cell is not None:
        return None
    tensors = [case.x, case.h0] + [t for w in case.weights for t in w]
    if any(t.requires_grad for t in tensors):
        return None
    digest = hashlib.blake2b(digest_size=16)
    for t in tensors:
        digest.update(f"{t.dtype}|{t.device}|{tuple(t.shape)};".encode())
        digest.update(t.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes())
    return case.kind, digest.hexdigest()


def _memo(name: str, case: ArchCase, compute) -> Any:
    """``compute(case)``, computed once per distinct case content (see :func:`_case_key`); recomputed, never
    stored, for a case with no key."""
    key = _case_key(case)
    if key is None:
        return compute(case)
    key = (name,) + key
    if key in _MEMO:
        _MEMO.move_to_end(key)
        return _MEMO[key]
    value = compute(case)
    budget = _budget()
    if _numbers(value) > budget:
        return value
    _MEMO[key] = value
    while len(_MEMO) > (_arch.MEMO_SIZE if not _SHARED.get() else 4 * _arch.MEMO_SIZE) or \
            sum(_numbers(v) for v in _MEMO.values()) > budget:
        _MEMO.popitem(last=False)
    return value


def _numbers(value) -> int:
    if isinstance(value, StepMap):
        return value.numbers()
    return sum(t.numel() for t in value)


class _ExactNorms:
    """Every norm computed, differentiably (a case an ascent moves): the interface of
    :class:`rnnaudit.analysis.norms.PairNorms` over exact values."""

    def __init__(self, M: Tensor):
        self.values = spectral(M) if M.shape[0] else M.new_zeros(0)

    def __len__(self) -> int:
        return self.values.shape[0]

    def all(self) -> Tensor:
        return self.values

    def max(self) -> tuple[Tensor, int]:
        return self.values.max(), int(self.values.argmax())

    def solve(self, idx: Tensor) -> Tensor:
        return self.values[idx]

    def worst(self, bound: Tensor, ratio=safe_ratio) -> tuple[Tensor, Tensor]:
        return worst_pair(self.values, bound)

    def worst_index(self, bound: Tensor, ratio=safe_ratio) -> int:
        with torch.no_grad():
            return int(ratio(self.values, bound).argmax())

    def solve(self, idx: Tensor) -> Tensor:
        return self.values[idx]


#: A product of step Jacobians is rescaled by a power of two (exact in binary floating point) whenever its largest
#: entry leaves [2^−RESCALE_BITS, 2^RESCALE_BITS]: over thousands of steps a contracting product (0.77^3000 ≈ 1e−341)
#: would underflow to 0, and its bound η^τ with it, and an expanding one overflow.
RESCALE_BITS = 64


def _times_pow2(x: Tensor, e: Tensor) -> Tensor:
    """x·2^e in two exact halves, so that a representable result is not lost to an overflowing or underflowing
    2^e (2^−80 · 2^1100 = 2^1020)."""
    half = torch.floor(e / 2)
    return x * torch.exp2(half) * torch.exp2(e - half)


def _rescaled(P: Tensor, log2: int) -> tuple[Tensor, int]:
    """(P·2^−k, log2 + k) when P's largest entry is 2^k·f (f in [1/2, 1)) with |k| > :data:`RESCALE_BITS`, else as
    given; a zero or non-finite P is left alone."""
    m = P.detach().abs().amax()
    if not bool(torch.isfinite(m)) or float(m) == 0.0:
        return P, log2
    k = int(torch.frexp(m)[1])
    if abs(k) <= RESCALE_BITS:
        return P, log2
    return P * (2.0 ** -k), log2 + k


class ScaledNorms:
    """‖P_i‖₂ of products held as P_i = M_i·2^(e_i) (:data:`RESCALE_BITS`): norms of the M_i (exact or lazily
    factorised, as :class:`rnnaudit.analysis.norms.PairNorms`) and the integer exponents e_i, so that products
    and bounds far outside float64's range (≈ 1e±308) are compared exactly, as log₂ ratios.

    Args:
        norms: the M_i's norms (:class:`~rnnaudit.analysis.norms.PairNorms` or exact values). log2: (N,) e_i.
    """

    def __init__(self, norms, log2: Tensor):
        self.norms, self.log2 = norms, log2

    def __len__(self) -> int:
        return len(self.norms)

    def _nonzero(self) -> Tensor:
        """(N,) bool: M_i ≠ 0. Every M_i has its largest entry in [2^−64, 2^64] or is 0 (:func:`_rescaled`), so its
        norm's upper bracket is positive exactly when it is not 0; a zero product's exponent says nothing."""
        if isinstance(self.norms, PairNorms):
            return self.norms.upper > 0
        return self.norms.values.detach() > 0

    def all(self) -> Tensor:
        """Every ‖P_i‖₂ (N,), in float64: values beyond its range are 0 or inf."""
        return _times_pow2(self.norms.all(), self.log2)

    def solve(self, idx: Tensor) -> Tensor:
        """‖P_i‖₂ for the indices ``idx`` (long (k,)), as :meth:`all` does."""
        return _times_pow2(self.norms.solve(idx), self.log2[idx])

    def max(self) -> tuple[Tensor, int]:
        """(max_i ‖P_i‖₂, the first i attaining it); the value is 0 or inf beyond float64's range, the index exact."""
        nonzero = self._nonzero()
        if not bool(nonzero.any()):
            return self.log2.new_zeros(()), 0
        shift = self.log2[nonzero].max()
        # in (0, 1] for a nonzero product (a pair 2^1074 below the largest scale cannot win), 0 for a zero one
        weight = torch.where(nonzero, torch.exp2(self.log2 - shift), torch.zeros_like(self.log2))
        idx = (self.norms.candidates(weight) if isinstance(self.norms, PairNorms)
               else torch.arange(len(self), device=self.log2.device))
        values = self.norms.solve(idx) * weight[idx]
        best = values.max()
        return _times_pow2(best, shift), int(idx[values == best].min())

    def worst(self, bound: Tensor, ratio=safe_ratio) -> tuple[Tensor, Tensor]:
        """The (measured, bound) pair of the largest ratio(‖P_i‖₂, b_i), bounds given as numbers: where no product
        was rescaled, exactly :meth:`PairNorms.worst <rnnaudit.analysis.norms.PairNorms.worst>`; else
        :meth:`worst_log2` of log₂ b_i (b_i ≥ 0; a bound that itself underflowed reads as 0: pass log₂ bounds)."""
        if not bool((self.log2 != 0).any()):
            return self.norms.worst(bound, ratio)
        return self.worst_log2(torch.log2(bound.clamp_min(0)))

    def worst_log2(self, log2_bound: Tensor) -> tuple[Tensor, Tensor]:
        """The (measured, bound) pair of the largest ratio ‖P_i‖₂ / 2^(β_i), computed as ‖M_i‖₂·2^(e_i − β_i).

        Args:
            log2_bound: (N,) β_i = log₂ of each pair's bound (−∞ for a zero bound: m/0 is ∞ for m > 0, else 0).

        Returns:
            0-d (measured, bound) whose quotient is that ratio: the pair itself where both lie in float64's normal
            range, else the pair divided by the bound (ratio, 1), since only the quotient is read.
        """
        beta = log2_bound.to(self.log2.dtype)  # differentiable, for a case an ascent moves
        d = (self.log2 - beta).detach()
        zero = torch.isinf(d) & (d > 0)  # a zero bound
        if bool(zero.any()):
            idx = zero.nonzero().squeeze(-1)
            values = self.norms.solve(idx)
            if bool((values > 0).any()):  # m/0 = ∞ for any m > 0, however small as a number: M_i itself is read
                k = int(idx[int(values.argmax())])
                return self.norms.solve(torch.tensor([k], device=d.device))[0], beta.new_zeros(())
        # a zero product's ratio is 0: its exponent, frozen when it died, must not set the scale of the others
        live = ~zero & ~torch.isnan(d) & self._nonzero()
        if not bool(live.any()):
            z = beta.new_zeros(())
            return z, z + 1
        d_max = d[live].max()
        # b'_i = 2^(d_max − d_i) ≥ 1 (inf where pair i is 2^1024 below the leader: it cannot be the worst)
        scaled = torch.where(live, torch.exp2(d_max - d), torch.full_like(d, math.inf))
        k = self.norms.worst_index(scaled, safe_ratio)
        m = self.norms.solve(torch.tensor([k], device=d.device))[0]
        log2_m = torch.log2(m.detach()) + self.log2[k]
        if bool(torch.isfinite(log2_m)) and -1020 < float(log2_m) < 1020 and -1020 < float(beta[k]) < 1020:
            return m * torch.exp2(self.log2[k]), torch.exp2(beta[k])
        return m * torch.exp2(self.log2[k] - beta[k]), torch.ones_like(beta[k])


class StepMap:
    """One sequence's step Jacobians and the products the claims read, formed once (:func:`step_map`).

    Attributes:
        J: ∂h_t/∂h_{t−1} (T, S, S), J[t − 1] for t = 1..T. B: ∂h_t/∂x_t (T, S, n) (a property: not held where it
            is formed in closed form). exact: every norm is computed
            (a case whose tensors require a gradient); else norms are bracketed and factorised only where a
            maximum or a worst ratio needs them (:class:`rnnaudit.analysis.norms.PairNorms`), the same values.
    Norms are ‖·‖₂ of the packed state (all layers; h and c of an LSTM).
    """

    def __init__(self, case: ArchCase):
        # ∂h_t/∂x_t only where autograd forms it with J anyway; in the closed form it is formed when inputs() asks for
        # it, and dropped once its products are held (T·S·n numbers that no other question reads)
        self.J, self._B = _arch.step_jacobians(case, inputs=False)
        self._case = case
        self.exact = _case_key(case) is None
        self._steps = self._pairs = self._inputs = None

    @property
    def B(self) -> Tensor:
        """∂h_t/∂x_t (T, S, n), B[t − 1] for t = 1..T (formed again on each use where the closed form applies)."""
        if self._B is not None:
            return self._B
        return _arch.step_jacobians(self._case, state=False)[1]

    def _norms(self, M: Tensor):
        return _ExactNorms(M) if self.exact or M.shape[0] == 0 else PairNorms(M)

    def numbers(self) -> int:
        held = [self.J] + ([self._B] if self._B is not None else [])
        held += [n.norms.M for n in (self._pairs or (None,))[:1] + (self._inputs or (None,))[:1]
                 if isinstance(n, ScaledNorms) and isinstance(n.norms, PairNorms)]
        return sum(t.numel() for t in held)

    @property
    def steps(self):
        """The norms ‖J_t‖₂ (t = 1..T)."""
        if self._steps is None:
            self._steps = self._norms(self.J)
        return self._steps

    def eta(self) -> Tensor:
        """η = max_t ‖∂h_t/∂h_{t−1}‖₂ (0-d)."""
        return self.steps.max()[0]

    def products(self) -> tuple:
        """(norms of ∂h_t/∂h_k, τ = t − k (N,)) over :func:`pair_schedule` (T, :data:`MAX_STARTS`)'s pairs, in
        :func:`product_norms`'s order."""
        if self._pairs is None:
            T, S = self.J.shape[0], self.J.shape[1]
            eye = torch.eye(S, dtype=self.J.dtype, device=self.J.device)
            schedule = pair_schedule(T, MAX_STARTS)
            # written into one tensor as they are formed (a list and its stack would hold them twice); a list where
            # autograd follows the products
            M = [] if self.exact else self.J.new_empty(sum(len(ts) for ts in schedule.values()), S, S)
            taus, scales = [], []
            for k, ts in schedule.items():
                P, e = eye, 0
                for t in range(k + 1, max(ts) + 1):
                    P, e = _rescaled(self.J[t - 1] @ P, e)
                    if t in ts:
                        if self.exact:
                            M.append(P)
                        else:
                            M[len(taus)] = P
                        taus.append(t - k)
                        scales.append(e)
            if self.exact:
                M = torch.stack(M) if M else self.J.new_zeros(0, S, S)
            self._pairs = (ScaledNorms(self._norms(M), torch.tensor(scales, dtype=torch.float64, device=M.device)),
                           torch.tensor(taus, dtype=self.J.dtype, device=self.J.device))
        return self._pairs

    def end_to_end(self) -> Tensor:
        """‖∂h_T/∂h_0‖₂ (0-d), exact: the pair (0, T), which every schedule holds (the first start's last end time),
        read from :meth:`products` (the same chain of products J_T ⋯ J_1, not formed again). As a float64 number:
        0 or inf beyond its range (:meth:`end_to_end_log2` is not)."""
        return torch.exp2(self.end_to_end_log2())

    def end_to_end_log2(self) -> Tensor:
        """log₂ ‖∂h_T/∂h_0‖₂ (0-d), exact and finite where the norm is not 0 (see :meth:`end_to_end`)."""
        norms, taus = self.products()
        T = self.J.shape[0]
        i = len(pair_schedule(T, MAX_STARTS)[0]) - 1
        if int(taus[i]) != T:  # the schedule's order is the products' order (start 0 first, its end times rising)
            raise RuntimeError(f"the pair schedule's first start does not end at T = {T}")
        return torch.log2(norms.norms.solve(torch.tensor([i], device=self.J.device))[0]) + norms.log2[i]

    def inputs(self) -> tuple:
        """(norms of ∂h_t/∂x_s, ‖∂h_s/∂x_s‖₂, τ = t − s) over :func:`pair_schedule` (T − 1, :data:`MAX_STARTS`)'s
        pairs (s indexes B from 0, t indexes J: B[s] = ∂h_(s+1)/∂x_(s+1), J[t] = ∂h_(t+1)/∂h_t)."""
        if self._inputs is None:
            T = self.J.shape[0]
            mats, base, taus, scales = [], [], [], []
            B = self.B
            schedule = pair_schedule(T - 1, MAX_STARTS)
            N = sum(len(ts) for ts in schedule.values())
            # one tensor, filled as formed (see products); ∂h_t/∂x_t itself is dropped on return where it was formed
            # for this question alone (StepMap.B)
            out = None if self.exact or N == 0 else B.new_empty(N, B.shape[1], B.shape[2])
            for s, ts in schedule.items():
                P, b, e = B[s], spectral(B[s]), 0
                for t in range(s + 1, max(ts) + 1):
                    P, e = _rescaled(self.J[t] @ P, e)
                    if t in ts:
                        if out is None:
                            mats.append(P)
                        else:
                            out[len(base)] = P
                        base.append(b)
                        taus.append(t - s)
                        scales.append(e)
            if not base:
                self._inputs = (None, None, None)
            else:
                M = torch.stack(mats) if out is None else out
                self._inputs = (ScaledNorms(self._norms(M), torch.tensor(scales, dtype=torch.float64,
                                                                         device=M.device)),
                                torch.stack(base), torch.tensor(taus, dtype=self.J.dtype, device=self.J.device))
        return self._inputs


def log2_pair(log2_measured: Tensor, log2_bound: Tensor) -> tuple[Tensor, Tensor]:
    """A (measured, bound) pair from their log₂ values (0-d, differentiable): the numbers themselves where both lie in
    float64's normal range, else (ratio, 1), since only the quotient is read; a −∞ bound is a zero bound."""
    lm, lb = log2_measured, log2_bound
    if bool(torch.isinf(lb)) and float(lb) < 0:
        return torch.exp2(lm), torch.zeros_like(lb)
    if all(bool(torch.isfinite(v)) and -1020 < float(v) < 1020 for v in (lm, lb)):
        return torch.exp2(lm), torch.exp2(lb)
    return torch.exp2(lm - lb), torch.ones_like(lb)


def schedule_log2_products(values: Tensor, max_starts: int | None = MAX_STARTS) -> Tensor:
    """log₂ ∏_(j=k+1..t) v_j over :func:`pair_schedule` (T, ``max_starts``)'s pairs, in :meth:`StepMap.products`'s
    order: the log₂ of a bound that is a product of per-step factors (∏ B_j), which as a number underflows over a
    long sequence. values: (T,) v_j ≥ 0, v[j − 1] for step j (log₂ 0 = −∞). Differentiable."""
    c = torch.cat([values.new_zeros(1), torch.cumsum(torch.log2(values), 0)])
    idx_t, idx_k = [], []
    for k, ts in pair_schedule(values.shape[0], max_starts).items():
        for t in sorted(ts):
            idx_t.append(t)
            idx_k.append(k)
    if not idx_t:
        return values.new_zeros(0)
    t = torch.tensor(idx_t, device=values.device)
    k = torch.tensor(idx_k, device=values.device)
    out = c[t] - c[k]
    # −∞ − (−∞) is NaN where a zero factor lies before k: the pair's own factors decide (a zero in (k, t] gives −∞)
    zero_in = torch.cumsum(torch.cat([values.new_zeros(1), (values == 0).to(values.dtype)]), 0)
    return torch.where((zero_in[t] - zero_in[k]) > 0, torch.full_like(out, -math.inf),
                       torch.where(torch.isnan(out), _finite_sum(values, k, t), out))


def _finite_sum(values: Tensor, k: Tensor, t: Tensor) -> Tensor:
    """Σ_(j=k+1..t) log₂ v_j pair by pair (the rare pairs after a zero factor, where the cumulative sum is NaN)."""
    logs = torch.log2(values)
    return torch.stack([logs[int(a):int(b)].sum() for a, b in zip(k, t)]) if len(k) else logs.new_zeros(0)


def step_map(case: ArchCase) -> StepMap:
    """The :class:`StepMap` of ``case``, formed once per case content (and per audit, :func:`shared_maps`)."""
    return _memo("map", case, StepMap)


def step_norms(case: ArchCase) -> tuple[Tensor, Tensor]:
    """(J, ‖J_t‖₂): the step Jacobians (T, S, S) of the case's sequence and every step's spectral norm (T,)."""
    m = step_map(case)
    return m.J, m.steps.all()


def step_products(case: ArchCase) -> tuple[Tensor, Tensor]:
    """(‖∂h_t/∂h_k‖₂, τ = t − k) over :func:`~rnnaudit.bounds.architectures.pair_schedule`'s pairs with
    :data:`~rnnaudit.bounds.architectures.MAX_STARTS` (every pair for T ≤ 12), each (N,), every norm exact."""
    norms, taus = step_map(case).products()
    return norms.all(), taus
