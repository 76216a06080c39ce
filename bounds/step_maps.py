"""One step map per model sequence, formed once and read by every claim (and by the audit's diagnostics): the
step Jacobians of a :class:`~rnnaudit.bounds.architectures.ArchCase`, their norms and the products of the pair
schedule, with the norms factorised only where a maximum or a worst ratio needs them
(:class:`rnnaudit.analysis.norms.PairNorms`). Keyed by the case's content; :func:`shared_maps` keeps them for one
audit. Split from :mod:`rnnaudit.bounds.architectures`, which re-exports these names.
"""

from __future__ import annotations

import contextlib
import math
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

import torch
from torch import Tensor

from rnnaudit.analysis.norms import PairNorms
from rnnaudit.analysis.torch_rnn_jacobians import step_jacobians_at
from rnnaudit.bounds import architectures as _arch
from rnnaudit.bounds import input_products
from rnnaudit.bounds.architectures import MAX_STARTS, ArchCase, pair_schedule, spectral
from rnnaudit.bounds.case_keys import (  # noqa: F401 - re-exported: the maps' keys and per-case memos
    _DIGESTS,
    _LAYER_OF,
    _SHARED,
    _TRAJECTORIES,
    TRAJECTORY_SLOTS,
    _case_key,
    _tensor_digest,
    forget_cases,
    note_layers,
    shared_trajectory,
)
from rnnaudit.bounds.core import safe_ratio, worst_pair
from rnnaudit.bounds.scaled_products import ScaledNorms, log2_parts, log2_parts_of, out_of_range, ranged, rescaled

__all__ = ["StepMap", "step_map", "step_norms", "step_products", "shared_maps", "shared_trajectory", "note_layers",
           "release_maps", "held_jacobians", "held_step_norms", "SHARED_NUMBERS"]

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
            forget_cases()


def _packed_block(key: tuple | None) -> Tensor | None:
    """A layer's step Jacobians (T, S_l, S_l) copied from the held packed map's diagonal block, or None. The packed
    map forms each layer's rows with the same closed form on the same states as the layer's own map (layer l's
    input is the layer below's new h, held fixed in its block), so the numbers are equal to rounding (bit for bit
    on an LSTM(150) × 2 at T = 400; the elementwise gates of differently sized chunks may round in the last bit; a
    test pins 2e−16·S relative); copying the block moves T·S_l² numbers, forming it costs a few GEMMs per step
    (1.25 s against 0.34 s for a layer of an LSTM(150) × 2 at T = 400)."""
    entry = None if key is None else _LAYER_OF.get(key)
    held = None if entry is None else _held_map(entry[0])
    if held is None:
        return None
    ranges = entry[1]
    widths = [b - a for a, b in ranges]
    J = held.J.new_empty(held.J.shape[0], sum(widths), sum(widths))
    for i, (a0, a1) in enumerate(ranges):
        for j, (b0, b1) in enumerate(ranges):
            J[:, sum(widths[:i]):sum(widths[:i + 1]), sum(widths[:j]):sum(widths[:j + 1])] = held.J[:, a0:a1, b0:b1]
    return J


def release_maps(width: int | None = None) -> None:
    """Drop every map held now (the claims are done; a tensor read from a map stays alive while its reader holds
    it): what the audit calls before its diagnostics, which read only the per-layer step Jacobians. With ``width``,
    only the maps of another state width: a stack's per-layer maps, which the audit drops after each claim (Note
    [a layer's map beside the packed one])."""
    if width is None:
        _MEMO.clear()
        return
    for key in [k for k, v in _MEMO.items() if isinstance(v, StepMap) and v.J.shape[-1] != width]:
        del _MEMO[key]


# Note [partial products held once]
# StepMap._composed_products holds, for the start after the current one, ∂h_t/∂h_{k_{j+1}} at every end time an earlier
# start reads. Held as separate tensors beside M (and beside the current start's own), they were up to ~38 matrices
# S × S (110 MB at S = 600) on top of J and M at the audit's peak, and, as heap blocks freed in the middle of the heap,
# they left holes that the norms' bounds could not reuse. Each pair of a start is written into M when formed and held
# as a view of it; only end times that this start does not report are held apart (3 of them for T = 400), and an entry
# of the later start's goes as soon as it is read.

# Note [a layer's map beside the packed one]
# A stack's claims read two kinds of map: the packed state's (most claims) and each layer's own (the claims stated per
# layer, nc_gru.theorem1_lstm among them). A layer's map is read only by the claim that formed it, and a later claim
# forms it again if it needs it (its step Jacobians are the diagonal block of the packed map's); held on, the layers'
# maps sat beside the packed map through every later claim (2 × 0.3 GB beside 1.4 GB for an LSTM(150) × 2 at
# T = 400). So :func:`rnnaudit.auditing.model.audit_model` drops the maps of any other width after each claim.


def _held_map(key: tuple | None) -> StepMap | None:
    """The map held now under a case key (formed by a claim of this audit), else None."""
    held = None if key is None else _MEMO.get(("map",) + key)
    return held if isinstance(held, StepMap) else None


def held_jacobians(case: ArchCase) -> Tensor | None:
    """The step Jacobians J (T, S, S) of the case's map where one is held now (formed by a claim of this audit),
    else None: what the audit's diagnostics read instead of forming them again."""
    held = _held_map(_case_key(case))
    return None if held is None else held.J


def held_step_norms(case: ArchCase):
    """The :class:`rnnaudit.analysis.norms.PairNorms` of the step norms ‖J_t‖₂ of the case's map where one is held
    and was asked for already (its known norms and bounds), else None."""
    held = _held_map(_case_key(case))
    return held._steps if held is not None and isinstance(held._steps, PairNorms) else None


def _budget() -> int:
    return SHARED_NUMBERS if _SHARED.get() else _arch.MEMO_NUMBERS


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
        key = _case_key(case)
        block = _packed_block(key) if _SHARED.get() else None
        self.J, self._B = (block, None) if block is not None else _arch.step_jacobians(case, inputs=False)
        self._case = case
        self.exact = key is None
        self._steps = self._pairs = self._inputs = self._out_of_range = None
        self._pruned = None  # (λ, inputs(rate=λ)'s result)

    def times(self, t: int, P: Tensor, e: int) -> tuple[Tensor, int]:
        """J[t]·P·2^e as (M, f) = :func:`rescaled` (J[t] @ P, e), a step far from 1 in size first brought into range
        by a power of two (exact; :func:`~rnnaudit.bounds.scaled_products.ranged`): below 2^−1022 a product rounds
        on the subnormal grid by up to half its size (5·2⁻¹⁰⁷⁴ · 0.7 to 3·2⁻¹⁰⁷⁴ or 4·2⁻¹⁰⁷⁴), and a ratio could rise
        along a chain where in exact arithmetic it cannot. The usual step is multiplied as it is."""
        J, e = ranged(self.J[t], e) if t in self.out_of_range() else (self.J[t], e)
        return rescaled(J @ P, e)

    def out_of_range(self) -> set[int]:
        """:func:`~rnnaudit.bounds.scaled_products.out_of_range` of the steps J, found once."""
        if self._out_of_range is None:
            self._out_of_range = out_of_range(self.J)
        return self._out_of_range

    def eta_parts(self) -> tuple[Tensor, Tensor]:
        """log₂ η, η = max_t ‖J_t‖₂, as :func:`~rnnaudit.bounds.scaled_products.log2_parts`' (whole, frac), at any
        magnitude: where a step lies out of range (:meth:`out_of_range`) every step's norm is taken from the step
        brought near 1 (:func:`~rnnaudit.bounds.scaled_products.log2_parts_of`), since η as a float64
        number would be rounded on the subnormal grid (‖[u, u]‖₂ = √2·u reads u for u = 2⁻¹⁰⁷⁴) or overflow."""
        if not self.out_of_range():
            return log2_parts(self.eta())
        parts = [log2_parts_of(_arch.spectral, J) for J in self.J]
        return max(parts, key=lambda wf: float(wf[0].detach() + wf[1].detach()))

    @property
    def B(self) -> Tensor:
        """∂h_t/∂x_t (T, S, n), B[t − 1] for t = 1..T (formed again on each use where the closed form applies)."""
        if self._B is not None:
            return self._B
        return _arch.step_jacobians(self._case, state=False)[1]

    def _input_rows(self, rows: list[int]) -> dict[int, Tensor]:
        """{s: B[s]} for the rows s (0-based) alone: in the closed form each row is formed on its own (a handful of
        start times, instead of T·S·n numbers of which the pair schedule reads only those rows); the pre-activation
        GEMM of fewer rows may round differently in the last bit (rnnaudit.analysis.torch_rnn_jacobians)."""
        if self._B is None and rows:
            states = _arch.trajectory(self._case)
            if _arch.closed_form(self._case, states):
                idx = torch.tensor(rows, device=states.device)
                _, B = step_jacobians_at(self._case.kind, self._case.weights, self._case.x[idx], states[:-1][idx],
                                         states[1:][idx], state=False)
                return dict(zip(rows, B.unbind(0)))
        B = self.B
        return {s: B[s] for s in rows}

    def _norms(self, M: Tensor):
        return _ExactNorms(M) if self.exact or M.shape[0] == 0 else PairNorms(M)

    def numbers(self) -> int:
        held = [self.J] + ([self._B] if self._B is not None else [])
        firsts = [(self._pairs or (None,))[0], (self._inputs or (None,))[0],
                  (self._pruned[1] if self._pruned is not None else (None,))[0]]
        held += [n.norms.M for n in firsts if isinstance(n, ScaledNorms) and isinstance(n.norms, PairNorms)]
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
            if not self.exact and len(schedule) > 1:
                self._pairs = self._composed_products(schedule)
                return self._pairs
            M = [] if self.exact else self.J.new_empty(sum(len(ts) for ts in schedule.values()), S, S)
            taus, scales = [], []
            for k, ts in schedule.items():
                P, e = eye, 0
                for t in range(k + 1, max(ts) + 1):
                    P, e = self.times(t - 1, P, e)
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

    def _composed_products(self, schedule: dict) -> tuple:
        """:meth:`products` with each step multiplied once: the starts k_0 < k_1 < … are taken last first; start k_j's
        chain J_t ⋯ J_{k_j+1} runs only up to the next start k_{j+1}, and beyond it ∂h_t/∂h_{k_j} = ∂h_t/∂h_{k_{j+1}} ·
        ∂h_{k_{j+1}}/∂h_{k_j}, the first factor held from the later start (at every end time an earlier start asks
        for). About T + N GEMMs instead of Σ_j (T − k_j) (2T for the schedule's four starts); the factors are
        associated differently, so the entries differ from the one-chain products by rounding (a relative γ_{S·τ},
        Higham eq. 3.11, for either order)."""
        T, S = self.J.shape[0], self.J.shape[1]
        starts = list(schedule)
        index, n = {}, 0
        for k in starts:  # the order of products(): starts rising, end times rising
            for t in sorted(schedule[k]):
                index[(k, t)] = n
                n += 1
        M = self.J.new_empty(n, S, S)
        taus, scales = [0] * n, [0] * n
        later: dict[int, tuple[Tensor, int]] = {}  # t → (∂h_t/∂h_{k_{j+1}}, exponent), for the start after this one

        def keep(k: int, t: int, P: Tensor, e: int) -> tuple[Tensor, int]:
            # a pair of this start is written into M at once and held on as a view of it (the same bits): only the
            # end times that no later pair of this start writes are held apart (Note [partial products held once])
            if t not in schedule[k]:
                return P, e
            i = index[(k, t)]
            M[i], scales[i], taus[i] = P, e, t - k
            return M[i], e

        for j in range(len(starts) - 1, -1, -1):
            k = starts[j]
            nxt = starts[j + 1] if j + 1 < len(starts) else T
            need = {t for i in range(j + 1) for t in schedule[starts[i]] if t > k}
            here: dict[int, tuple[Tensor, int]] = {}
            P, e = None, 0
            for t in range(k + 1, min(nxt, max(need)) + 1):
                P, e = rescaled(self.J[t - 1], e) if P is None else self.times(t - 1, P, e)
                if t in need:
                    here[t] = keep(k, t, P, e)
            for t in sorted(need):
                if t > nxt:
                    Q, f = later.pop(t)  # read once: it goes as soon as it is used
                    here[t] = keep(k, t, *rescaled(Q @ P, f + e))  # P is ∂h_nxt/∂h_k here: the chain ran up to nxt
            later = here
        del here, later, P  # the held partial products go before the norms' bounds allocate
        return (ScaledNorms(self._norms(M), torch.tensor(scales, dtype=torch.float64, device=M.device)),
                torch.tensor(taus, dtype=self.J.dtype, device=self.J.device))

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

    def inputs(self, rate: Tensor | float | None = None) -> tuple:
        """(norms of ∂h_t/∂x_s, log₂‖∂h_s/∂x_s‖₂, τ = t − s) over :func:`pair_schedule` (T − 1, :data:`MAX_STARTS`)'s
        pairs (s indexes B from 0, t indexes J: B[s] = ∂h_(s+1)/∂x_(s+1), J[t] = ∂h_(t+1)/∂h_t):
        :func:`rnnaudit.bounds.input_products.every_pair`, formed once.

        With ``rate`` (a number or 0-d tensor λ ≥ :meth:`eta`: no step norm ‖J_t‖₂ above it), only the pairs that can
        attain the largest ratio ‖∂h_t/∂x_s‖₂ / (λ^(t−s)‖∂h_s/∂x_s‖₂), in the same order
        (:func:`rnnaudit.bounds.input_products.pairs_against`); every pair left out is certified below that ratio, so
        the worst pair and its value are those of all the pairs. The whole set where it is held already, or where
        the map is exact (a case an ascent differentiates).

        Raises:
            ValueError: ``rate`` below η, or not a number (NaN, a tensor of several numbers, another type)."""
        if rate is not None:
            eta = float(self.eta().detach())
            value = float(rate) if isinstance(rate, (int, float)) and not isinstance(rate, bool) else \
                float(rate.detach()) if isinstance(rate, Tensor) and rate.numel() == 1 else math.nan
            if not value >= eta:  # a rate below a step norm would leave out pairs that can be the worst
                raise ValueError(f"rate must be a number at least every step norm (η = {eta:.17g}), got {rate!r}")
            if self._inputs is None and not self.exact:
                if self._pruned is None or self._pruned[0] != value:
                    self._pruned = (value, input_products.pairs_against(self, value))
                return self._pruned[1]
        if self._inputs is None:
            self._inputs = input_products.every_pair(self)
        return self._inputs

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
