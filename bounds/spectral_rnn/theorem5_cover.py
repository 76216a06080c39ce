"""spectral_rnn.md, App. A.6, end of the proof of Theorem 5: "when β ≥ γ√m/(2BT), then the second term of (27)
≥ 1 and it also holds trivially. Therefore, we only need to consider β̃ ∈ [γ/(2BT), γ√m/(2BT)]".

The step needs more than the theorem assumes: with β ≥ γ√m/(2BT), B(w) = B²T⁴h ln(h) β²‖w‖²/γ² ≥
T²h ln(h)‖w‖² m/4, which is ≥ m only if ‖w‖² ≥ 4/(T²h ln h). For smaller weights (β = 1 whenever every spectral
norm is ≤ 1) and γ ≤ 2BT/√m, the second term is below 1 and no grid point β̃ covers β, so the union bound
leaves these w out. Two readings of "the second term": (27)'s √((B(w) + ln(m/δ))/m) with O-constant 1, and the
proof's explicit Lemma 2 term 4√((KL + ln(6m√m/(eδ)))/(m − 1)) at β̃ = β/e (the largest σ, smallest KL any grid
point could give). ``spectral_rnn.theorem5_cover.corrected``: every β is ≥ 1, and for β > β_max =
max{1, (γ²m/(B²T⁴h ln h))^{(T+1)/(2T+4)}} the term is ≥ 1, so a grid over [1, β_max] (O(log) points) repairs it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict
from rnnaudit.bounds.spectral_rnn.cases import F64, draw, gauss, randint, t64, to_case
from rnnaudit.bounds.spectral_rnn.rnn17 import spec_norm

__all__ = ["theorem5_cover", "theorem5_cover_corrected", "CoverCase", "cover_numbers"]


@dataclass
class CoverCase:
    """Weights of the RNN of eq. 17 and the numbers of Theorem 5's bound.

    Attributes: W (n, n), M (n, n_i), Y (n_y, n); B > 0, T ≥ 1, gamma > 0, m ≥ 2 (training-set size, a number:
    no data is needed), delta ∈ (0, 1).
    """

    W: Tensor
    M: Tensor
    Y: Tensor
    B: float
    T: int
    gamma: float
    m: float
    delta: float = 0.05

    def size(self) -> tuple[int, int]:
        """(n, T)."""
        return self.W.shape[0], self.T


def cover_numbers(c: CoverCase) -> dict[str, float]:
    """β, h, ‖w‖², (27)'s B(w), the two readings of the second term, and β_max of the corrected split."""
    Wn, Mn, Yn = (float(spec_norm(X.detach())) for X in (c.W, c.M, c.Y))
    h = max(c.W.shape[0], c.M.shape[1], c.Y.shape[0])
    w2 = sum(float(torch.linalg.matrix_norm(X.detach())) ** 2 for X in (c.W, c.M, c.Y))
    T, B, g, m, e = c.T, c.B, c.gamma, c.m, math.e
    beta = max(Wn ** (T - 1), 1.0) * max(Yn, 1.0) * max(Mn, 1.0)
    Bw = B ** 2 * T ** 4 * h * math.log(h) * beta ** 2 * w2 / g ** 2
    sigma = g / (12 * math.sqrt(2 * h * math.log(12 * h)) * T * B * (T * e + e + 1) * beta / e)
    kl = w2 / (2 * sigma ** 2)
    return {"beta": beta, "h": h, "w2": w2, "Bw": Bw,
            "term_O1": math.sqrt((Bw + math.log(m / c.delta)) / m),
            "term_proof": 4 * math.sqrt((kl + math.log(6 * m * math.sqrt(m) / (e * c.delta))) / (m - 1)),
            "beta_max": max(1.0, (g ** 2 * m / (B ** 2 * T ** 4 * h * math.log(h))) ** ((T + 1) / (2 * T + 4)))}


def _measure(c: CoverCase) -> dict[str, tuple[Tensor, Tensor]]:
    nums = cover_numbers(c)
    return {"(27) with O-constant 1: √((B(w) + ln(m/δ))/m) ≥ 1": (t64(1.0), t64(nums["term_O1"])),
            "the proof's Lemma 2 term 4√((KL + ln(6m√m/(eδ)))/(m − 1)) ≥ 1 (β̃ = β/e)": (
                t64(1.0), t64(nums["term_proof"]))}


def _measure_corrected(c: CoverCase) -> dict[str, tuple[Tensor, Tensor]]:
    nums = cover_numbers(c)
    return {"β > β_max ⇒ √((B(w) + ln(m/δ))/m) ≥ 1": (t64(1.0), t64(nums["term_O1"]))}


def _weights(gen, n: int, scales: tuple[float, float, float]):
    n_i, n_y = randint(gen, 1, 3), randint(gen, 2, 3)
    unit = lambda X: X / spec_norm(X)  # noqa: E731
    return (unit(gauss(gen, n, n)) * scales[0], unit(gauss(gen, n, n_i)) * scales[1],
            unit(gauss(gen, n_y, n)) * scales[2])


def _sample(gen, h, T, device, dtype) -> CoverCase:
    """Spectral norms log-uniform in [1e-3, 2]; m log-uniform in [10, 1e8]; γ = 2BTβ ρ/√m, ρ ∈ (0, 1] (so
    β ≥ γ√m/(2BT))."""
    W, M, Y = _weights(gen, h, tuple(10 ** (-3 + 3.3 * draw(gen)) for _ in range(3)))
    m = 10 ** (1 + 7 * draw(gen))
    c = CoverCase(W, M, Y, 1.0, T, 1.0, m)
    c.gamma = 2 * c.B * T * cover_numbers(c)["beta"] * max(draw(gen), 1e-3) / math.sqrt(m)
    conv = lambda X: to_case(X, device, dtype)  # noqa: E731
    return CoverCase(conv(W), conv(M), conv(Y), c.B, T, c.gamma, m)


def _starts(h, T, device, dtype) -> list[CoverCase]:
    """Unit-norm rank-one weights (‖w‖² = 3, β = 1) and 1e-3-scaled ones, γ = 2BT/√m (β on the boundary), m = 1e4
    and 1e8."""
    out = []
    for s in (1.0, 1e-3):
        W = torch.zeros(h, h, dtype=F64)
        W[0, 0] = s
        M, Y = torch.zeros(h, 1, dtype=F64), torch.zeros(2, h, dtype=F64)
        M[0, 0], Y[0, 0] = s, s
        for m in (1e4, 1e8):
            conv = lambda X: to_case(X, device, dtype)  # noqa: E731
            out.append(CoverCase(conv(W), conv(M), conv(Y), 1.0, T, 2 * T / math.sqrt(m), m))
    return out


def _sample_corrected(gen, h, T, device, dtype) -> CoverCase:
    """‖Y‖ ∈ [1.1, 3] (so β > 1), the others log-uniform in [1e-3, 2]; m log-uniform in [10, 1e8]; γ chosen so that
    β_max = β ρ^{(T+1)/(T+2)} with ρ ∈ (0, 1): β > β_max."""
    W, M, Y = _weights(gen, h, (10 ** (-3 + 3.3 * draw(gen)), 10 ** (-3 + 3.3 * draw(gen)), 1.1 + 1.9 * draw(gen)))
    m = 10 ** (1 + 7 * draw(gen))
    c = CoverCase(W, M, Y, 1.0, T, 1.0, m)
    nums = cover_numbers(c)
    rho = max(draw(gen), 1e-3) * 0.999
    c.gamma = c.B * T ** 2 * math.sqrt(nums["h"] * math.log(nums["h"]) / m) * nums["beta"] ** ((T + 2) / (T + 1)) * rho
    conv = lambda X: to_case(X, device, dtype)  # noqa: E731
    return CoverCase(conv(W), conv(M), conv(Y), c.B, T, c.gamma, m)


def _starts_corrected(h, T, device, dtype) -> list[CoverCase]:
    """Just beyond β_max, carried by Y alone (W = 0, M = 0: ‖w‖² = ‖Y‖² = β²): β = ‖Y‖ = 1.01 or 2, m = 1e8, γ with
    β_max = 0.999^{(T+1)/(T+2)} β. At T = 1 the term is ≈ √(β)/0.999, so β → 1⁺ brings the ratio towards 1."""
    out = []
    for y in (1.01, 2.0):
        W, M, Y = torch.zeros(h, h, dtype=F64), torch.zeros(h, 1, dtype=F64), torch.zeros(2, h, dtype=F64)
        Y[0, 0] = y
        c = CoverCase(W, M, Y, 1.0, T, 1.0, 1e8)
        nums = cover_numbers(c)
        c.gamma = (T ** 2 * math.sqrt(nums["h"] * math.log(nums["h"]) / c.m) * nums["beta"] ** ((T + 2) / (T + 1))
                   * 0.999)
        conv = lambda X: to_case(X, device, dtype)  # noqa: E731
        out.append(CoverCase(conv(W), conv(M), conv(Y), 1.0, T, c.gamma, c.m))
    return out


def _exact() -> ExactVerdict:
    """(27) with O-constant 1 at T = 1, h = 2, ‖w‖² = 1, β = 1, B = 1, γ = 2/√m (β = γ√m/(2BT)), m = 100, δ = 1/20:
    B(w) = 2 ln 2 · m/4, the term √((m ln 2/2 + ln(2000))/m) < 1 (sympy)."""
    import sympy as sp

    m, delta = sp.Integer(100), sp.Rational(1, 20)
    Bw = 2 * sp.log(2) * 1 * 1 / (2 / sp.sqrt(m)) ** 2
    term = sp.sqrt((Bw + sp.log(m / delta)) / m)
    return ExactVerdict("violated" if term < 1 else "proved",
                        f"T = 1, h = 2, ‖w‖² = 1 (e.g. W = 0, M = e_1, Y = 0), B = 1, m = 100, γ = 2/√m = 1/5: "
                        f"β = 1 = γ√m/(2BT), B(w) = {sp.simplify(Bw)} and the second term of (27) with constant 1 "
                        f"is √((50 ln 2 + ln 2000)/100) ≈ {float(term):.3f} < 1")


A_BRANCH = Assumption("β ≥ γ√m/(2BT) (the branch the step is about)", lambda c: (
    cover_numbers(c)["beta"] * (1 + 1e-12) >= c.gamma * math.sqrt(c.m) / (2 * c.B * c.T),
    f"β = {cover_numbers(c)['beta']:.4g}, γ√m/(2BT) = {c.gamma * math.sqrt(c.m) / (2 * c.B * c.T):.4g}"))
A_NUMBERS = Assumption("B, γ > 0, m ≥ 2, δ ∈ (0, 1), h ≥ 2", lambda c: (
    c.B > 0 and c.gamma > 0 and c.m >= 2 and 0 < c.delta < 1 and cover_numbers(c)["h"] >= 2, f"γ = {c.gamma:.3g}"))
A_BEYOND = Assumption("β > β_max = max{1, (γ²m/(B²T⁴h ln h))^{(T+1)/(2T+4)}}", lambda c: (
    cover_numbers(c)["beta"] > cover_numbers(c)["beta_max"],
    f"β = {cover_numbers(c)['beta']:.4g}, β_max = {cover_numbers(c)['beta_max']:.4g}"))

_SIZES = {"quick": [(2, 1), (3, 2), (4, 5)], "full": [(2, 1), (3, 2), (4, 5), (8, 20)]}

theorem5_cover = Claim(
    id="spectral_rnn.theorem5_cover",
    source="spectral_rnn.md, App. A.6, proof of Theorem 5, last paragraph (the cover of β̃)",
    statement="When β ≥ γ√m/(2BT), the second term of (27) is ≥ 1 (so only β̃ ∈ [γ/(2BT), γ√m/(2BT)] needs a grid)",
    assumptions=(A_BRANCH, A_NUMBERS),
    measure="the second term in both readings: √((B(w) + ln(m/δ))/m) (O-constant 1) and the proof's explicit "
            "4√((KL + ln(6m√m/(eδ)))/(m − 1)) with KL = ‖w‖²/(2σ²) at β̃ = β/e",
    bound="1 (ratio = 1/term)",
    evaluate=_measure,
    cases=CaseSpace(case_type=CoverCase, sample=_sample, starts=_starts, sizes=_SIZES),
    explanation="β ≥ γ√m/(2BT) gives B(w) ≥ T²h ln(h)‖w‖² m/4, which is ≥ m only if ‖w‖² ≥ 4/(T²h ln h) (missing "
                "hypothesis); with the proof's constants the term is < 1 once ‖w‖² ≲ e²/(288 h ln(12h)(Te + e + 1)²). "
                "Such w (β = 1, small weights, γ ≤ 2BT/√m) are covered neither by the trivial cases nor by the grid, "
                "so the union bound does not reach them. See spectral_rnn.theorem5_cover.corrected.",
    notes="A proof-step check: Theorem 5 itself may still hold for these w; the proof does not show it. Since β ≥ 1 "
          "always (a product of max{·, 1}), the first trivial case β ≤ γ/(2BT) needs γ ≥ 2BT.",
    exact=_exact,
)

theorem5_cover_corrected = Claim(
    id="spectral_rnn.theorem5_cover.corrected",
    source="spectral_rnn.md, App. A.6, the same step, corrected by rnnaudit",
    statement="β ≥ 1 always, and for β > β_max = max{1, (γ²m/(B²T⁴h ln h))^{(T+1)/(2T+4)}} the second term of (27) "
              "(O-constant 1) is ≥ 1; a geometric grid over [max{1, γ/(2BT)}, β_max] covers the rest",
    assumptions=(A_BEYOND, A_NUMBERS),
    measure="√((B(w) + ln(m/δ))/m)",
    bound="1 (ratio = 1/term)",
    evaluate=_measure_corrected,
    cases=CaseSpace(case_type=CoverCase, sample=_sample_corrected, starts=_starts_corrected, sizes=_SIZES),
    explanation="Would mean β > β_max does not force B(w) ≥ m.",
    notes="β > 1 puts some factor max{‖X‖, 1} above 1, so ‖w‖² ≥ max factor² ≥ β^{2/(T+1)}, and B(w) ≥ "
          "B²T⁴h ln(h) β^{(2T+4)/(T+1)}/γ² > m. The grid has O(log(β_max)) = O(log m) points, which the union "
          "bound absorbs into ln(m/δ).",
)
