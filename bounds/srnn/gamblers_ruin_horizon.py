"""srnn.md, Sec. 3, the Gambler's-ruin estimate read with T the sequence length: "the probability of having the
hidden state vanish, p(z_t ≤ 0) = T/(1+T), …, the expectation value of the number of steps until this happens is
T", for an SRNN unit (no upper barrier) during the T steps of a sequence.

srnn.gamblers_ruin reads T as the ruin game's upper barrier T + 1, the only reading under which T/(1+T) is a
ruin probability; here T is what it is everywhere else in the paper, the sequence length. A fair ±1 walk from
h_0 = 1 then vanishes within T steps with probability 1 − C(T, ⌊T/2⌋)/2^T (the ballot theorem), not T/(1+T)
(equal at T = 1 only), and the unconditional expected time to vanish is infinite.
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from functools import lru_cache
from itertools import product

import torch
from torch import Tensor

from rnnaudit.bounds.core import Claim, ExactVerdict
from rnnaudit.bounds.srnn.cases import f64
from rnnaudit.bounds.srnn.gamblers_ruin import A_FAIR, GAMBLER_Z, WALKS, WalkCase, mean_part
from rnnaudit.cells import shift

__all__ = ["simulate_horizon", "vanish_within", "mean_time_given_within", "horizon_parts", "gamblers_ruin_horizon",
           "gamblers_ruin_horizon_corrected"]


def simulate_horizon(case: WalkCase) -> tuple[Tensor, Tensor]:
    """Run ``case``'s SRNN units (eq. 3, ReLU, shift W_p, h_0 = 1, b(x_t) = ±1) for exactly T steps.

    Returns:
        ``(tau, vanished)``, each (batch·d_h,): the first step with z_t ≤ 0 (float64; T + 1 when none) and
        whether it came within the T steps.
    """
    gen = torch.Generator().manual_seed(case.seed)
    h = torch.ones(case.batch, case.d_h, dtype=torch.float64)
    tau = torch.full_like(h, float(case.T + 1))
    for t in range(1, case.T + 1):
        b = torch.where(torch.rand(h.shape, generator=gen, dtype=torch.float64) < case.p_up, 1.0, -1.0)
        z = shift(h) + b
        h = torch.relu(z)
        z_unit = torch.roll(z, shifts=t, dims=-1)  # the unit that started at r sits at r − t (mod d_h)
        first = (z_unit <= 0) & (tau > case.T)
        tau[first] = t
    tau = tau.reshape(-1)
    return tau, tau <= case.T


@lru_cache(maxsize=64)
def _first_passage(T: int) -> tuple[Fraction, Fraction]:
    """(P(τ ≤ T), E[τ; τ ≤ T]) for a fair ±1 walk from 1 hitting 0 at τ, from P(τ = 2k+1) = C_k / 2^{2k+1}."""
    p = e = Fraction(0)
    for k in range((T - 1) // 2 + 1):
        mass = Fraction(math.comb(2 * k, k), (k + 1) * 2 ** (2 * k + 1))
        p += mass
        e += (2 * k + 1) * mass
    return p, e


def vanish_within(T: int) -> float:
    """P(a fair walk from 1 reaches 0 within T steps) = 1 − C(T, ⌊T/2⌋)/2^T."""
    return float(_first_passage(T)[0])


def mean_time_given_within(T: int) -> float:
    """E[τ | τ ≤ T] for the same walk."""
    p, e = _first_passage(T)
    return float(e / p)


def horizon_parts(case: WalkCase, probability, conditional) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    """Monte Carlo of P(τ ≤ T) and E[τ | τ ≤ T] against stated values, each a pair ``(label, T → value)``."""
    tau, vanished = simulate_horizon(case)
    p = probability[1](case.T)
    # at T ≤ 2 every vanishing happens at step 1, the sample has no spread and its standard error is 0: the floor
    # (rounding of a mean of small integers) keeps the ratio finite there
    floor = 1e-12 * max(1.0, abs(conditional[1](case.T)))
    p_hat = vanished.double().mean()
    se = math.sqrt(max(p * (1 - p), 0.0) / tau.numel())
    err, bound, ref = mean_part(tau[vanished], conditional[1](case.T))
    return {
        f"P(unit vanishes within the T steps) = {probability[0]}": ((p_hat - p).abs(), f64(GAMBLER_Z * se, tau),
                                                                    f64(p, tau)),
        f"E[steps until the unit vanishes | within the T steps] = {conditional[0]}": (
            err, torch.clamp(bound, min=floor), ref),
    }


PRINTED = (("T/(1+T)", lambda T: T / (T + 1)), ("T", lambda T: float(T)))
CORRECTED = (("1 − C(T, ⌊T/2⌋)/2^T", vanish_within), ("Σ_{2k+1≤T} (2k+1)C_k/2^{2k+1} / P(τ ≤ T)",
                                                       mean_time_given_within))


def _exact(corrected: bool) -> ExactVerdict:
    """All 2^T sign sequences for T ≤ 10 (exact fractions), against T/(1+T) and T, and against the ballot-theorem
    formula; E[τ] = ∞ from P(τ > 2n) = C(2n, n)/4^n ≥ 1/(2√n) (an induction whose step sympy checks)."""
    import sympy as sp

    for T in range(1, 11):
        hits = []
        for signs in product((1, -1), repeat=T):
            x = 1
            for t, s in enumerate(signs, 1):
                x += s
                if x <= 0:
                    hits.append(t)
                    break
        p = Fraction(len(hits), 2 ** T)
        mean = Fraction(sum(hits), len(hits))
        ballot = 1 - Fraction(math.comb(T, T // 2), 2 ** T)
        catalan_p, catalan_e = _first_passage(T)
        if not p == ballot == catalan_p or mean != catalan_e / catalan_p:
            return ExactVerdict("violated", f"T = {T}: enumeration gives P = {p}, E = {mean}; the formulas "
                                            f"{ballot}, {catalan_p}, {catalan_e / catalan_p}")
        if not corrected and (p != Fraction(T, T + 1) or mean != T):
            # r_n = P(τ > 2n) = C(2n, n)/4^n ≥ 1/(2√n): r_1 = 1/2, and r_{n+1}/r_n = (2n+1)/(2n+2) keeps it, since
            # (2n+1)²(n+1) − (2n+2)² n = n + 1 > 0; so E[τ] ≥ Σ_n r_n = ∞.
            n = sp.Symbol("n", positive=True)
            step = sp.expand((2 * n + 1) ** 2 * (n + 1) - (2 * n + 2) ** 2 * n)
            return ExactVerdict("violated", f"T = {T} (enumeration of all {2 ** T} sign sequences): P(vanish within T) "
                                            f"= {p} against T/(1+T) = {Fraction(T, T + 1)}; E[steps | vanish within T] "
                                            f"= {mean} against T. Without a horizon P(τ > 2n) = C(2n, n)/4^n ≥ 1/(2√n) "
                                            f"(induction; the step's margin is {step} > 0, sympy), so E[τ] = "
                                            f"Σ_t P(τ > t) = ∞.")
    return ExactVerdict("proved", "For T = 1..10, enumeration of all 2^T sign sequences gives exactly "
                                  "P(τ ≤ T) = 1 − C(T, ⌊T/2⌋)/2^T and E[τ | τ ≤ T] = Σ (2k+1)C_k/2^{2k+1} / P(τ ≤ T).")


_HORIZON = replace(WALKS, sizes={"quick": [(16, 1), (32, 2), (64, 3), (128, 6), (256, 10)],
                                  "full": [(16, 1), (32, 2), (64, 3), (128, 6), (256, 10), (256, 30), (512, 100)]})
_MEASURE = ("Monte Carlo over 20000 SRNN units (eq. 3, ReLU, shift W_p, h_0 = 1, b(x_t) = ±1) run for the T steps of "
            "the sequence: |estimate − stated value|")
_BOUND = f"{GAMBLER_Z} standard errors"

gamblers_ruin_horizon = Claim(
    id="srnn.gamblers_ruin_horizon",
    source="srnn.md, Sec. 3, Gambler's-ruin estimate after eq. 11, with T the sequence length",
    statement="An SRNN unit from h_0 = 1 with ±1 contributions of probability ½ vanishes within the T steps of the "
              "sequence with probability T/(1+T), after T steps on average",
    assumptions=(A_FAIR,),
    measure=_MEASURE,
    bound=_BOUND,
    evaluate=lambda c: horizon_parts(c, *PRINTED),
    cases=_HORIZON,
    explanation="With T the sequence length and no upper barrier (an SRNN unit has none), the walk vanishes within T "
                "steps with probability 1 − C(T, ⌊T/2⌋)/2^T (1/2, 1/2, 5/8, 5/8, 11/16 for T = 1..5), not T/(1+T); "
                "the two agree at T = 1 only, and approach 1 at different rates (1 − √(2/(πT)) against 1 − 1/T). "
                "The steps until it vanishes, given that it does within T, average well below T, and without a "
                "horizon their expectation is infinite. See srnn.gamblers_ruin_horizon.corrected.",
    notes="Reading: T is the sequence length, as everywhere else in the paper. srnn.gamblers_ruin checks the other "
          "reading (T + 1 an upper barrier), under which the probability and the expected duration hold but 'the "
          "number of steps until this happens is T' does not. Both claims check the same sentence and each reading "
          "of T fails: one defect of one sentence, not two. An independent enumeration of all 2^T paths agrees "
          "(T = 10: P(vanish within T) = 193/256 ≈ 0.754 against 10/11 ≈ 0.909; E[τ | τ ≤ T] = 2.26 and "
          "E[min(τ, T)] = 4.17 against T = 10; T = 12: 793/1024 against 12/13).",
    exact=lambda: _exact(corrected=False),
)

gamblers_ruin_horizon_corrected = Claim(
    id="srnn.gamblers_ruin_horizon.corrected",
    source="srnn.md, Sec. 3, Gambler's-ruin estimate with T the sequence length, corrected by rnnaudit",
    statement="P(vanish within T steps) = 1 − C(T, ⌊T/2⌋)/2^T and E[steps | vanish within T] = "
              "Σ_{2k+1≤T} (2k+1) C_k/2^{2k+1} / P(vanish within T) (C_k the Catalan numbers)",
    assumptions=(A_FAIR,),
    measure=_MEASURE,
    bound=_BOUND,
    evaluate=lambda c: horizon_parts(c, *CORRECTED),
    cases=_HORIZON,
    explanation="Would contradict the first-passage law of the fair walk, P(τ = 2k+1) = C_k/2^{2k+1} (ballot theorem).",
    notes="Both values are exact fractions (enumeration in the exact verdict).",
    exact=lambda: _exact(corrected=True),
)
