"""Products of step Jacobians and their bounds outside float64's range: over thousands of steps a contracting
product (0.77^3000 ≈ 1e−341) underflows and an expanding one overflows, and with them bounds such as η^(t−k). Products
are held rescaled by powers of two (exact in binary floating point) with their exponents, and compared with their
bounds as log₂ ratios (:class:`ScaledNorms`). Split from :mod:`rnnaudit.bounds.step_maps`, which forms the products.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from rnnaudit.analysis.norms import PairNorms, largest_magnitude, power_of_two_scale
from rnnaudit.bounds.architectures import MAX_STARTS, pair_schedule, spectral
from rnnaudit.bounds.core import safe_ratio

__all__ = ["ScaledNorms", "RESCALE_BITS", "STEP_RANGE_BITS", "ranged", "rescaled", "log2_pair", "log2_parts",
           "log2_parts_of", "log2_spectral", "out_of_range",
           "schedule_log2_products"]


#: A product of step Jacobians is rescaled by a power of two (exact in binary floating point) whenever its largest
#: entry leaves [2^−RESCALE_BITS, 2^RESCALE_BITS]: over thousands of steps a contracting product (0.77^3000 ≈ 1e−341)
#: would underflow to 0, and its bound η^τ with it, and an expanding one overflow.
RESCALE_BITS = 64
#: A factor of a product (a step Jacobian, ∂h_s/∂x_s) whose largest entry lies outside [2^−STEP_RANGE_BITS,
#: 2^STEP_RANGE_BITS] is brought into range before it multiplies (:func:`ranged`): against a factor rescaled to
#: [2^−64, 2^65] a product then stays above 2^−832, so underflow costs at most 2^−1074 of an entry, 2^−242 of the
#: product's scale, and nothing overflows. Inside the range a factor is used as it is (the usual case, same bits).
STEP_RANGE_BITS = 768


def _times_pow2(x: Tensor, e: Tensor) -> Tensor:
    """x·2^e in two exact halves, so that a representable result is not lost to an overflowing or underflowing
    2^e (2^−80 · 2^1100 = 2^1020)."""
    half = torch.floor(e / 2)
    return x * torch.exp2(half) * torch.exp2(e - half)


def rescaled(P: Tensor, log2: int) -> tuple[Tensor, int]:
    """(P·2^−k, log2 + k) when P's largest entry is in [2^k, 2^(k+1)) (:func:`power_of_two_scale`) with
    |k| > :data:`RESCALE_BITS`, else as given; a zero or non-finite P is left alone (its scale is 1, k = 0)."""
    big = float(largest_magnitude(P.detach())) if P.numel() else 0.0  # the usual case decided as a Python float
    if not (0 < big < math.inf) or abs(math.frexp(big)[1] - 1) <= RESCALE_BITS:
        return P, log2
    scale = power_of_two_scale(P)
    k = int(torch.frexp(scale)[1]) - 1
    if abs(k) <= RESCALE_BITS:
        return P, log2
    return P / scale, log2 + k


def _near_one(M: Tensor) -> tuple[Tensor, int]:
    """(M·2^−k, k) with M's largest |entry| brought to [1, 2) where it lies outside [2^−500, 2^500] (exact, in two
    halves: 2^−k itself is not a float64 for k < −1023); (M, 0) otherwise, for M = 0 and for a non-finite M."""
    big = float(largest_magnitude(M.detach())) if M.numel() else 0.0
    if not (0 < big < math.inf) or 2.0 ** -500 <= big <= 2.0 ** 500:
        return M, 0
    k = math.frexp(big)[1] - 1
    return _times_pow2(M, torch.tensor(float(-k), dtype=torch.float64)), k


def log2_parts_of(f, M: Tensor) -> tuple[Tensor, Tensor]:
    """log₂ f(M) as :func:`log2_parts`' (whole, frac) at any magnitude, for f homogeneous of degree 1 (f(cM) =
    |c|·f(M): ‖M‖₂, ρ(M)): f of M brought near 1 by a power of two 2^−k, and k added to the whole part. Of a
    subnormal M itself, ‖[u, u]‖₂ = √2·u (u = 2⁻¹⁰⁷⁴) would read u; near 2^1024 it would overflow."""
    scaled, k = _near_one(M)
    whole, frac = log2_parts(f(scaled))
    return whole + k, frac


def log2_spectral(M: Tensor) -> Tensor:
    """log₂ ‖M‖₂ (0-d, differentiable) of a matrix at any magnitude (:func:`log2_parts_of`), as one number; the
    usual matrix (largest |entry| in [2^−500, 2^500]) as torch.log2 of its norm, the same bits. −inf for M = 0.

    Raises:
        RuntimeError: a non-finite M (LAPACK's error, as :func:`rnnaudit.analysis.norms.spectral`'s).
    """
    scaled, k = _near_one(M)
    return torch.log2(spectral(scaled)) + k if k else torch.log2(spectral(M))


def out_of_range(J: Tensor) -> set[int]:
    """The indices t of the matrices J[t] (J: (T, S, S)) whose largest |entry| lies outside [2^−:data:`STEP_RANGE_BITS`,
    2^:data:`STEP_RANGE_BITS`], a zero matrix excepted: empty for the usual step map (one reduction over J)."""
    big = largest_magnitude(J.detach(), dim=(1, 2))
    outside = (big > 0) & ((big < 2.0 ** -STEP_RANGE_BITS) | (big > 2.0 ** STEP_RANGE_BITS))
    return set(outside.nonzero().flatten().tolist())


def ranged(P: Tensor, log2: int) -> tuple[Tensor, int]:
    """(P, log2) as given where P's largest |entry| lies in [2^−:data:`STEP_RANGE_BITS`, 2^:data:`STEP_RANGE_BITS`]
    (or P is 0 or not finite), else :func:`rescaled` (P, log2): a factor about to multiply another."""
    big = float(largest_magnitude(P.detach())) if P.numel() else 0.0
    if not (0 < big < math.inf) or 2.0 ** -STEP_RANGE_BITS <= big <= 2.0 ** STEP_RANGE_BITS:
        return P, log2
    return rescaled(P, log2)


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
        """(N,) bool: M_i ≠ 0. Every M_i has its largest entry in [2^−64, 2^65) or is 0 (:func:`rescaled`), so its
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

    def worst_log2(self, log2_bound: Tensor, whole: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """The (measured, bound) pair of the largest ratio ‖P_i‖₂ / 2^(β_i), computed as ‖M_i‖₂·2^(e_i − β_i).

        Args:
            log2_bound: (N,) β_i = log₂ of each pair's bound (−∞ for a zero bound: m/0 is ∞ for m > 0, else 0).
            whole: (N,) integers w_i (exact in float64, |w_i| < 2^53) with β_i = w_i + log2_bound_i: e_i − w_i is
                taken first, exactly, so a bound such as λ^τ with τ·|log₂ λ| near 10⁷ is never rounded as one sum
                (an ulp there is ~2e−9, above a claim's tolerance); None: w_i = 0.

        Returns:
            0-d (measured, bound) whose quotient is that ratio: the pair itself where both lie in float64's normal
            range, else the pair divided by the bound (ratio, 1), since only the quotient is read.
        """
        beta = log2_bound.to(self.log2.dtype)  # differentiable, for a case an ascent moves
        e = self.log2 if whole is None else self.log2 - whole.to(self.log2.dtype)
        d = (e - beta).detach()
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
        log2_m = float(torch.log2(m.detach()) + self.log2[k].detach())
        full = beta[k] if whole is None else beta[k] + whole[k].to(beta.dtype)
        if math.isfinite(log2_m) and -1020 < log2_m < 1020 and -1020 < float(full.detach()) < 1020:
            return m * torch.exp2(self.log2[k]), torch.exp2(full)
        return m * torch.exp2(e[k] - beta[k]), torch.ones_like(beta[k])


def log2_parts(x: Tensor) -> tuple[Tensor, Tensor]:
    """log₂ x as (whole, frac), 0-d float64 each: whole = k, the exponent of x = m·2^k (m ∈ [1/2, 1)), an integer,
    and frac = log₂ m ∈ [−1, 0), computed from m itself. τ·whole is then exact and τ·frac is rounded at the size
    of τ, where τ·log₂ x is rounded at the size of τ·|log₂ x| (2e−9 at 10⁷). frac is differentiable in x as
    log₂ x is. For x = 0 or a non-finite x: (0, log₂ x).

    Raises:
        RuntimeError: x not a 0-d floating tensor (torch's message).
    """
    log2x = torch.log2(x)
    if not (0 < float(x.detach()) < math.inf):
        return torch.zeros_like(log2x), log2x
    m, k = torch.frexp(x.detach())
    return k.to(log2x.dtype), torch.log2(m) + (log2x - log2x.detach())  # the value of log₂ m, the gradient of log₂ x


def log2_pair(log2_measured: Tensor, log2_bound: Tensor) -> tuple[Tensor, Tensor]:
    """A (measured, bound) pair from their log₂ values (0-d, differentiable): the numbers themselves where both lie in
    float64's normal range, else (ratio, 1), since only the quotient is read; a −∞ bound is a zero bound."""
    lm, lb = log2_measured, log2_bound
    if bool(torch.isinf(lb)) and float(lb.detach()) < 0:
        return torch.exp2(lm), torch.zeros_like(lb)
    if all(bool(torch.isfinite(v)) and -1020 < float(v.detach()) < 1020 for v in (lm, lb)):
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
    after_zero = torch.isnan(out)
    if bool(after_zero.any()):  # the rare pairs after a zero factor: their own sum, pair by pair
        logs = torch.log2(values)
        sums = [logs[int(a):int(b)].sum() for a, b in zip(k[after_zero], t[after_zero])]
        out = out.masked_scatter(after_zero, torch.stack(sums))
    return torch.where((zero_in[t] - zero_in[k]) > 0, torch.full_like(out, -math.inf), out)
