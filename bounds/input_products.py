"""The input products ∂h_t/∂x_s = J_t ⋯ J_(s+1) B_s of one step map's pair schedule (B_s = ∂h_s/∂x_s): every pair,
or only the pairs that can attain the largest ratio ‖∂h_t/∂x_s‖₂ / (λ^(t−s)‖B_s‖₂) for a rate λ that bounds every
step (the data-dependent stability claim's question, ``miller_hardt2019.data_dependent``). Split from
:mod:`rnnaudit.bounds.step_maps`, whose :meth:`~rnnaudit.bounds.step_maps.StepMap.inputs` calls these and holds
their results.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from rnnaudit.analysis.norms import PairNorms, largest_magnitude
from rnnaudit.bounds.architectures import MAX_STARTS, pair_schedule
from rnnaudit.bounds.scaled_products import ScaledNorms, log2_spectral, rescaled

__all__ = ["every_pair", "pairs_against", "PRUNE_POWER_STEPS", "UNDERFLOW_FLOOR"]

#: power-iteration steps that raise the lower bound of each kept pair's norm in :func:`pairs_against` (a
#: matrix-vector product pair each, against the matrix product a chain step costs)
PRUNE_POWER_STEPS = 4
#: a step or ∂h_s/∂x_s whose largest |entry| is below this is too close to underflow for the relative rounding
#: :func:`pairs_against` relies on: its chains are not shortened
UNDERFLOW_FLOOR = 2.0 ** -800


def every_pair(m) -> tuple:
    """(norms of ∂h_t/∂x_s, log₂‖∂h_s/∂x_s‖₂, τ = t − s) over :func:`pair_schedule` (T − 1, :data:`MAX_STARTS`)'s
    pairs of the step map ``m`` (a :class:`~rnnaudit.bounds.step_maps.StepMap`; s indexes B from 0, t indexes J:
    B[s] = ∂h_(s+1)/∂x_(s+1), J[t] = ∂h_(t+1)/∂h_t), each product formed along its start's chain from B_s brought
    into range and rescaled by powers of two (:class:`~rnnaudit.bounds.scaled_products.ScaledNorms`), and
    ‖B_s‖₂ as a log₂ (:func:`~rnnaudit.bounds.scaled_products.log2_spectral`: at any magnitude, subnormal B_s
    included); (None, None, None) for no pair."""
    T = m.J.shape[0]
    mats, base, taus, scales = [], [], [], []
    schedule = pair_schedule(T - 1, MAX_STARTS)
    B = m._input_rows(sorted(schedule))
    N = sum(len(ts) for ts in schedule.values())
    # one tensor, filled as formed (see StepMap.products); ∂h_t/∂x_t itself is dropped on return where it was formed
    # for this question alone (StepMap.B)
    out = None if m.exact or N == 0 else next(iter(B.values())).new_empty(N, *next(iter(B.values())).shape)
    for s, ts in schedule.items():
        (P, e), b = rescaled(B[s], 0), log2_spectral(B[s])
        for t in range(s + 1, max(ts) + 1):
            P, e = m.times(t, P, e)
            if t in ts:
                if out is None:
                    mats.append(P)
                else:
                    out[len(base)] = P
                base.append(b)
                taus.append(t - s)
                scales.append(e)
    if not base:
        return None, None, None
    M = torch.stack(mats) if out is None else out
    return (ScaledNorms(m._norms(M), torch.tensor(scales, dtype=torch.float64, device=M.device)),
            torch.stack(base), torch.tensor(taus, dtype=m.J.dtype, device=m.J.device))


def pairs_against(m, rate: float) -> tuple:
    """:func:`every_pair`'s result restricted to the pairs that can attain the largest ratio
    r(s, t) = ‖∂h_t/∂x_s‖₂ / (λ^(t−s)‖B_s‖₂), λ = ``rate`` ≥ every step norm ‖J_t‖₂ of ``m`` (the caller checks it),
    in the same order: each start's chain stops at the first pair whose ratio is certified below a certified lower
    bound ℓ of the largest ratio found (each start's first pair is formed first, so ℓ is set before any chain runs on).
    The worst pair, and its value, are those of every pair.

    Why a chain can stop: ‖J_t′ ⋯ J_(t+1) P‖₂ ≤ Π‖J_j‖₂ ‖P‖₂ ≤ λ^(t′−t) ‖P‖₂, so r(s, t′) ≤ r(s, t) for every
    later t′ of the chain. In floating point each further product adds a relative (1 + S·γ_S) to the norm
    (|fl(JP) − JP| ≤ γ_S|J||P|, Higham eq. 3.11, and ‖|J||P|‖_F ≤ S‖J‖₂‖P‖₂), the step norms are LAPACK's (a
    relative S·u from the true ones), and so is the value the worst pair is later read with: the test carries
    these as a factor (1 + 4(S + 2)²u)^(T + 1) on the chain's bound. The log₂ ratios are sums of terms as large as
    τ·|log₂ λ| (10⁷ over 30,000 steps at λ = 1e−271), each rounded to its own ulp: the test adds 8u times the sum
    of their magnitudes. The upper bound on r(s, t) is the cheap one of :class:`~rnnaudit.analysis.norms.PairNorms`
    or, where that leaves it open, its Cholesky test below ℓ.

    The relative rounding above needs factors far from underflow (a product of subnormal numbers rounds by up to half
    the smallest subnormal, however small the product): where a step's or ∂h_s/∂x_s's largest entry is below
    :data:`UNDERFLOW_FLOOR`, nothing is left out (of any chain, or of that start's); nor where λ or ‖B_s‖₂ is not
    finite and positive. The kept pairs are the same matrices, formed in the same order, as :func:`every_pair`
    forms them (the same bits).

    Source: rnnaudit's own (the submultiplicativity of ‖·‖₂ and the rounding analysis above); the claim it serves
    is miller_hardt2019's data-dependent stability (bounds/miller_hardt2019/data_dependent.py)."""
    T, S = m.J.shape[0], m.J.shape[1]
    schedule = {s: ts for s, ts in pair_schedule(T - 1, MAX_STARTS).items() if ts}
    if not schedule:
        return None, None, None
    B = m._input_rows(sorted(schedule))
    u = torch.finfo(torch.float64).eps / 2
    margin = (T + 1) * math.log2(1 + 4 * (S + 2) ** 2 * u) + 2.0 ** -30  # log₂ of the docstring's factor
    # a step too close to underflow to keep the rounding relative: no chain is shortened
    steps_normal = float(largest_magnitude(m.J, dim=(1, 2)).min()) >= UNDERFLOW_FLOOR
    log2_rate = math.log2(rate) if steps_normal and 0 < rate < math.inf else math.nan
    chains: dict[int, tuple[Tensor, int, int]] = {s: (*rescaled(B[s], 0), s) for s in schedule}  # (∂h_t/∂x_s, e, t)
    bases = {s: log2_spectral(B[s]) for s in schedule}
    log2_base = {s: float(b) if math.isfinite(float(b)) and float(largest_magnitude(B[s])) >= UNDERFLOW_FLOOR
                 else math.nan for s, b in bases.items()}
    kept: dict[tuple[int, int], tuple[Tensor, int]] = {}
    best = -math.inf  # log₂ of a certified lower bound on the largest ratio

    def log2_ratio(norm: float, e: int, s: int, t: int) -> float:
        return math.log2(norm) + e - (t - s) * log2_rate - log2_base[s] if norm > 0 else -math.inf

    def slack(norm: float, e: int, s: int, t: int) -> float:  # the margin and the rounding of both sides' sums
        terms = abs(math.log2(norm)) + abs(e) + (t - s) * abs(log2_rate) + abs(log2_base[s]) + abs(best)
        return margin + 8 * u * terms

    def advance(s: int) -> bool:
        # start s's chain run to its next end time, that pair kept unless certified below ℓ (the chain then ends)
        nonlocal best
        P, e, t = chains[s]
        nxt = min((x for x in schedule[s] if x > t), default=None)
        if nxt is None:
            return False
        for j in range(t + 1, nxt + 1):
            P, e = m.times(j, P, e)
        chains[s] = (P, e, nxt)
        if not (math.isfinite(log2_rate) and math.isfinite(log2_base[s])):
            kept[(s, nxt)] = (P, e)
            return True
        pn = PairNorms(P[None])
        upper = float(pn.upper[0])
        if best > -math.inf and 0 < upper < math.inf:
            if log2_ratio(upper, e, s, nxt) + slack(upper, e, s, nxt) < best:
                return False
            exponent = best - slack(upper, e, s, nxt) - e + (nxt - s) * log2_rate + log2_base[s]
            level = 2.0 ** exponent if -1000 < exponent < 1000 else math.nan  # tested where a float holds it
            if 0 < level < math.inf and bool(pn.below(level)[0]):
                return False
        kept[(s, nxt)] = (P, e)
        pn.raise_lower(torch.zeros(1, dtype=torch.long, device=P.device), PRUNE_POWER_STEPS)
        best = max(best, log2_ratio(float(pn.lower[0]), e, s, nxt))
        return True

    live = [s for s in schedule if advance(s)]  # every start's first pair before any chain runs on: ℓ is set
    while live:
        live = [s for s in live if advance(s)]
    order = [(s, t) for s, ts in schedule.items() for t in sorted(ts) if (s, t) in kept]
    M = torch.stack([kept[p][0] for p in order])
    return (ScaledNorms(PairNorms(M), torch.tensor([kept[p][1] for p in order], dtype=torch.float64,
                                                   device=M.device)),
            torch.stack([bases[s] for s, _ in order]),
            torch.tensor([t - s for s, t in order], dtype=m.J.dtype, device=m.J.device))

