"""srnn.md, Sec. 3, the Gambler's-ruin estimate after eq. 11: P(vanish) = T/(1+T) and "the expectation
value of the number of steps until this happens is T", by Monte Carlo on SRNN units. The literal
reading of the second fails; the corrected form has E[steps | vanish] = (2T+1)/3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict, Reading
from rnnaudit.bounds.readings import select_parts
from rnnaudit.bounds.srnn.cases import f64
from rnnaudit.cells import shift

__all__ = ["WalkCase", "sample_walk_case", "simulate_gamblers_ruin", "walk_parts", "mean_part", "gamblers_ruin",
           "gamblers_ruin_corrected", "ruin_formulas", "RUIN", "DURATION", "CONDITIONAL", "GAMBLER_Z",
           "GAMBLER_UNITS", "A_FAIR", "WALKS"]

#: Half-width of the Monte Carlo confidence intervals in standard errors: a two-sided normal
#: interval of coverage 1 − 6.8e-6 per comparison, so that the ≤ 600 comparisons of the full
#: profile (200 cases × 3 parts) give a false alarm with probability < 0.5 %.
GAMBLER_Z = 4.5
#: Walks simulated per Gambler's-ruin case: standard errors ≈ 0.35 % on P(vanish).
GAMBLER_UNITS = 20_000


@dataclass
class WalkCase:
    """Monte Carlo of the Gambler's-ruin model of srnn.md Sec. 3 on SRNN units.

    Every unit of a (batch, d_h) SRNN state starts at h_0 = 1 and receives b(x_t) = +1 with
    probability ``p_up`` and −1 otherwise (the paper: "the probability of either obtaining a
    negative or a positive contribution ... is ½"); the state follows eq. 3 with ReLU and the
    shift W_p, and each unit is followed through the shift. A unit *vanishes* at the first t with
    z_t ≤ 0 and *survives* when it reaches T + 1 (the upper barrier that makes T/(1+T) the
    gambler's ruin probability from capital 1 out of T + 1).

    Attributes:
        d_h: units per state. batch: states (d_h·batch walks). T: the paper's T. p_up: P(b = +1).
        seed: seeds the contributions.
    """

    d_h: int
    batch: int
    T: int
    p_up: float
    seed: int

    def size(self) -> tuple[int, int]:
        """(d_h, T)."""
        return self.d_h, self.T


def sample_walk_case(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> WalkCase:
    """d_h = h units per state and enough states for :data:`GAMBLER_UNITS` walks, p_up = ½."""
    return WalkCase(h, math.ceil(GAMBLER_UNITS / h), T, 0.5, int(torch.randint(0, 2**31 - 1, (), generator=gen)))


def simulate_gamblers_ruin(case: WalkCase, dtype: torch.dtype = torch.float64) -> tuple[Tensor, Tensor]:
    """Run the walks of ``case`` until every unit has vanished or survived.

    Returns:
        ``(tau, vanished)``: steps until absorption (float64) and whether at 0, each (batch·d_h,).

    Raises:
        RuntimeError: some walk neither vanished nor survived within 40 (T+1)² + 100 steps (the
            chance of that is below e⁻¹⁹⁰ per walk: the survival probability decays like
            cos(π/(T+1))ᵗ).
    """
    gen = torch.Generator().manual_seed(case.seed)
    top = case.T + 1
    h = torch.ones(case.batch, case.d_h, dtype=dtype)
    active = torch.ones_like(h, dtype=torch.bool)  # indexed by unit (its position at t = 0)
    tau, vanished = torch.zeros_like(h), torch.zeros_like(active)
    for t in range(1, 40 * top**2 + 101):
        b = torch.where(torch.rand(h.shape, generator=gen, dtype=torch.float64) < case.p_up, 1.0, -1.0).to(dtype)
        z = shift(h) + b
        h = torch.relu(z)
        # shift moves position i + 1 to i, so the unit that started at r now sits at r − t (mod d_h)
        z_unit = torch.roll(z, shifts=t, dims=-1)
        down, up = active & (z_unit <= 0), active & (z_unit >= top)
        tau[down | up] = t
        vanished |= down
        active &= ~(down | up)
        if not active.any():
            return tau.reshape(-1), vanished.reshape(-1)
    raise RuntimeError(f"{int(active.sum())} walks still running after {t} steps (T = {case.T})")


A_FAIR = Assumption("P(b(x_t) = +1) = P(b(x_t) = −1) = ½ (Sec. 3)",
                    lambda c: (c.p_up == 0.5, f"P(b = +1) = {c.p_up:g}"))


def mean_part(samples: Tensor, target: float) -> tuple[Tensor, Tensor, Tensor]:
    """(|sample mean − target|, GAMBLER_Z standard errors, |target|): an identity part of a Monte Carlo mean."""
    n = samples.numel()
    sd = samples.std() if n > 1 else samples.new_zeros(())
    return (samples.mean() - target).abs(), GAMBLER_Z * sd / math.sqrt(max(n, 1)), samples.new_tensor(abs(target))


def walk_parts(case: WalkCase, probability, duration, conditional) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    """The three Monte Carlo parts of the Gambler's-ruin claims against stated values, each a pair
    ``(label, T → value)``: ``probability`` of vanishing (absorption at 0 before T + 1), ``duration`` the mean
    number of steps until the walk stops at either barrier, ``conditional`` the mean number of steps until
    it vanishes, given that it does. A test passes wrong values to see the check fail."""
    tau, vanished = simulate_gamblers_ruin(case)
    T, M = case.T, tau.numel()
    p = probability[1](T)
    p_hat = vanished.double().mean()
    se = math.sqrt(max(p * (1 - p), 0.0) / M)
    return {
        f"P(unit vanishes) = {probability[0]}": ((p_hat - p).abs(), f64(GAMBLER_Z * se, tau), f64(p, tau)),
        f"E[steps until the walk stops, at 0 or T+1] = {duration[0]}": mean_part(tau, duration[1](T)),
        f"E[steps until the unit vanishes | it vanishes] = {conditional[0]}": mean_part(tau[vanished],
                                                                                      conditional[1](T)),
    }


RUIN = ("T/(1+T)", lambda T: T / (T + 1))
DURATION = ("T", lambda T: float(T))
CONDITIONAL = ("(2T+1)/3", lambda T: (2 * T + 1) / 3)


def _measure_gamblers_ruin(case: WalkCase) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    return walk_parts(case, RUIN, DURATION, DURATION)


def _measure_gamblers_ruin_corrected(case: WalkCase) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    return walk_parts(case, RUIN, DURATION, CONDITIONAL)


@lru_cache(maxsize=1)
def ruin_formulas():
    """The fair walk from x on {0, …, N}, N = T + 1, in sympy: P(ruin) = 1 − x/N, E[duration] = x(N − x),
    E[duration | ruin] = x(2N − x)/3, each checked symbolically (in x and N) against its first-step
    recurrence and boundary values. Returns ``(ok, T, p1, e1, c1)``: whether every check holds identically,
    the symbol T, and the three values at x = 1 as functions of T."""
    import sympy as sp

    x, N, T = sp.symbols("x N T", positive=True)
    p = 1 - x / N
    E = x * (N - x)
    f = x * (2 * N - x) / 3
    q = p.subs(x, x - 1) / (2 * p)  # P(step down | ruin) from x: the Doob transform by P(ruin | x)
    checks = [
        sp.simplify(p - (p.subs(x, x - 1) + p.subs(x, x + 1)) / 2) == 0, p.subs(x, 0) == 1, p.subs(x, N) == 0,
        sp.simplify(E - 1 - (E.subs(x, x - 1) + E.subs(x, x + 1)) / 2) == 0, E.subs(x, 0) == 0, E.subs(x, N) == 0,
        sp.simplify(f - 1 - q * f.subs(x, x - 1) - (1 - q) * f.subs(x, x + 1)) == 0, f.subs(x, 0) == 0,
        sp.simplify(q.subs(x, N - 1) - 1) == 0,  # from N − 1 the conditioned walk must step down
    ]
    at = {x: 1, N: T + 1}
    return all(checks), T, sp.simplify(p.subs(at)), sp.simplify(E.subs(at)), sp.simplify(f.subs(at))


def _exact(corrected: bool) -> ExactVerdict:
    import sympy as sp

    ok, T, p1, e1, c1 = ruin_formulas()
    if not ok:
        return ExactVerdict("violated", "the gambler's-ruin formulas fail their own recurrences (sympy)")
    stated = (2 * T + 1) / 3 if corrected else T
    base = (f"Fair ±1 walk from h_0 = 1, absorbed at 0 (vanish) or T + 1, solved in sympy for every T: "
            f"P(ruin) = {p1}, E[duration] = {e1}, E[duration | ruin] = {c1}. ")
    if sp.simplify(c1 - stated) == 0:
        return ExactVerdict("proved", base + "The three stated values hold identically in T.")
    return ExactVerdict("violated", base + f"P(ruin) = T/(1+T) and E[duration] = T hold identically; the steps until "
                                           f"vanishing, given that it happens, have mean {c1} ≠ {stated} for every "
                                           f"T ≥ 2, e.g. T = 2: {c1.subs(T, 2)} against {stated.subs(T, 2)}.")


WALKS = CaseSpace(case_type=WalkCase, sample=sample_walk_case,
                   sizes={"quick": [(16, 1), (32, 2), (64, 3), (128, 5), (256, 8)],
                          "full": [(16, 1), (32, 2), (64, 3), (128, 5), (256, 8), (256, 20), (512, 50)]})
_WALK_MEASURE = (f"Monte Carlo over {GAMBLER_UNITS} SRNN units (eq. 3, ReLU, shift W_p, h_0 = 1, b(x_t) = ±1): "
                 "|estimate − stated value|")
_WALK_BOUND = (f"{GAMBLER_Z} standard errors (a two-sided normal confidence interval of coverage 1 − 6.8e-6 "
               "per comparison)")

gamblers_ruin = Claim(
    id="srnn.gamblers_ruin",
    source="srnn.md, Sec. 3, Gambler's-ruin estimate after eq. 11",
    statement="With ±1 contributions of probability ½, the probability that the hidden state vanishes is "
              "p(z_t ≤ 0) = T/(1+T), and 'the expectation value of the number of steps until this happens is T'",
    assumptions=(A_FAIR,),
    measure=_WALK_MEASURE,
    bound=_WALK_BOUND,
    evaluate=_measure_gamblers_ruin,
    cases=WALKS,
    exact=lambda: _exact(corrected=False),
    explanation="T/(1+T) is the gambler's ruin probability from capital 1 with the game stopped at T + 1, and T is "
                "that game's expected *duration* 1·((T+1) − 1), which ends at either barrier. The number of steps "
                "until the unit vanishes, given that it does, has mean (2T+1)/3, not T (equal only for T = 1); "
                "and the SRNN unit has no upper barrier, so without it the unit vanishes with probability 1 after "
                "an infinite expected number of steps. See srnn.gamblers_ruin.corrected.",
    notes="Reading: the only one under which p = T/(1+T) holds, a walk from 1 absorbed at 0 (vanish) or T + 1. "
          "Parts 1 and 2 (probability, expected duration) are what the paper computed and hold; part 3 is the "
          "sentence's literal reading. Sec. 3 also says b(x_t) ≈ N(0, 1); the ±1 walk is the paper's own "
          "simplification, checked here as stated. This claim and srnn.gamblers_ruin_horizon check the same "
          "sentence in its two readings of T, and each reading fails: here the expected steps (T is the game's "
          "duration, not the time to vanish), there the probability and the time with T the sequence length. "
          "That is one defect of one sentence, not two.",
    readings=(Reading(
        "T as the game's expected duration (barrier at T + 1)",
        "With the walk absorbed at 0 or at T + 1, P(vanish) = T/(1+T) and the expected number of steps until the "
        "game ends is T",
        "the paper's own number p = T/(1+T) is the gambler's-ruin probability from capital 1 with the game stopped "
        "at T + 1 (its only reading), and that game's textbook expected length from capital 1 is 1·((T + 1) − 1) = T",
        select_parts(_measure_gamblers_ruin, lambda part: "given" not in part and "| it vanishes" not in part)),),
)

gamblers_ruin_corrected = Claim(
    id="srnn.gamblers_ruin.corrected",
    source="srnn.md, Sec. 3, Gambler's-ruin estimate, corrected by rnnaudit",
    statement="P(vanish before reaching T+1) = T/(1+T); E[steps until the walk stops] = T; "
              "E[steps until vanishing | it vanishes] = (2T+1)/3",
    assumptions=(A_FAIR,),
    measure=_WALK_MEASURE,
    bound=_WALK_BOUND,
    evaluate=_measure_gamblers_ruin_corrected,
    cases=WALKS,
    exact=lambda: _exact(corrected=True),
    explanation="Would contradict the gambler's-ruin formulas for a fair walk from 1 on {0, …, T+1}: "
                "P(ruin) = 1 − 1/(T+1), E[duration] = 1·T, E[duration | ruin] = (2(T+1) − 1)/3.",
    notes="The conditional mean follows from the Doob transform of the walk by P(ruin | x) = (T+1−x)/(T+1).",
)
