"""spectral_rnn.md, App. A.6, proof of Theorem 5, the step "Plugging into Lemma 3 we have with probability at
least 1/2, max_x ‖ŷ_{w+u} − ŷ_w‖ ≤ TB max{‖W‖^{T−1}, 1}(‖Y‖‖δW‖‖M‖Te + ‖Y‖‖δM‖e + ‖δY‖‖M‖)".

Lemma 3 requires ‖δW‖ ≤ ‖W‖/T, ‖δM‖ ≤ ‖M‖/T, ‖δY‖ ≤ ‖Y‖/T. The proof's perturbation is Gaussian with
σ = γ/(12√(2h ln 12h) TB(Te + e + 1)β̃), whatever the weights; for small ‖M‖ or ‖Y‖ (allowed: "for any w") it
violates those hypotheses with probability ≈ 1, and the displayed inequality itself fails (with M ≈ 0 its right
side is ≈ 0 while δM moves the output). The missing hypothesis is a lower bound on ‖W‖, ‖M‖, ‖Y‖. The proof's
next line, with max{‖Y‖, 1} max{‖M‖, 1}, is what it needs, and it follows from Lemma 3 under the relaxed
hypotheses ‖δX‖ ≤ max{‖X‖, 1}/T (same induction), which the proof's σ meets (σ√(2h ln 12h) ≤ 1/T for
γ ≤ 2BTβ): ``spectral_rnn.theorem5_step.corrected``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim
from rnnaudit.bounds.spectral_rnn.cases import F64, draw, gauss, randint, t64, to_case
from rnnaudit.bounds.spectral_rnn.rnn17 import A_ACT, A_H0, A_NO_BIAS, A_X_BOUND, rnn_states, spec_norm

__all__ = ["theorem5_step", "theorem5_step_corrected", "StepCase", "proof_sigma", "N_U"]

#: Perturbation draws per case: the probabilities the step asserts (≥ 1/2) are estimated from them.
N_U = 32


@dataclass
class StepCase:
    """An RNN of eq. 17 with sample inputs, a margin γ and a seed for the proof's Gaussian perturbations.

    Attributes: W (n, n), M (n, n_i), Y (n_y, n); x (S, T, n_i); B = max ‖x_t‖; gamma; seed; activation.
    b, h0: None (eq. 17; kept for the shared Assumption 1 predicates).
    """

    W: Tensor
    M: Tensor
    Y: Tensor
    x: Tensor
    B: float
    gamma: float
    seed: int
    activation: str = "relu"
    b: Tensor | None = None
    h0: Tensor | None = None

    def size(self) -> tuple[int, int]:
        """(n, T)."""
        return self.W.shape[0], self.x.shape[1]


def _norms(case: StepCase) -> tuple[float, float, float, int]:
    Wn, Mn, Yn = (float(spec_norm(X.detach())) for X in (case.W, case.M, case.Y))
    h = max(case.W.shape[0], case.M.shape[1], case.Y.shape[0])
    return Wn, Mn, Yn, h


def proof_sigma(case: StepCase) -> float:
    """App. A.6's σ = γ/(12√(2h ln 12h) TB(Te + e + 1)β̃) at β̃ = β/e, the largest σ the grid β/e ≤ β̃ ≤ eβ allows
    (β = max{‖W‖^{T−1}, 1} max{‖Y‖, 1} max{‖M‖, 1})."""
    Wn, Mn, Yn, h = _norms(case)
    T, e = case.x.shape[1], math.e
    beta = max(Wn ** (T - 1), 1.0) * max(Yn, 1.0) * max(Mn, 1.0)
    return case.gamma / (12 * math.sqrt(2 * h * math.log(12 * h)) * T * case.B * (T * e + e + 1) * beta / e)


def _draws(case: StepCase):
    gen = torch.Generator().manual_seed(case.seed)
    s = proof_sigma(case)
    for _ in range(N_U):
        yield [s * torch.randn(X.shape, generator=gen, dtype=F64).to(X) for X in (case.W, case.M, case.Y)]


def _outputs(W, M, Y, case) -> Tensor:
    return rnn_states(W, M, case.x, case.activation)[:, -1] @ Y.mT


def _measure(case: StepCase, corrected: bool) -> dict[str, tuple[Tensor, ...]]:
    W, M, Y = case.W.detach(), case.M.detach(), case.Y.detach()
    Wn, Mn, Yn, h = _norms(case)
    T, B, e = case.x.shape[1], case.B, math.e
    g = max(Wn ** (T - 1), 1.0)
    base = _outputs(W, M, Y, case)
    norms, held, held_max, lemma2 = [], 0, 0, 0
    for dW, dM, dY in _draws(case):
        dWn, dMn, dYn = (float(spec_norm(d)) for d in (dW, dM, dY))
        norms.append((dWn, dMn, dYn))
        diff = _outputs(W + dW, M + dM, Y + dY, case) - base
        change = float(torch.linalg.vector_norm(diff, dim=-1).max())
        held += change <= T * B * g * (Yn * dWn * Mn * T * e + Yn * dMn * e + dYn * Mn)
        held_max += change <= T * B * g * max(Yn, 1) * max(Mn, 1) * (dWn * T * e + dMn * e + dYn)
        lemma2 += float(diff.abs().max()) < case.gamma / 4
    med = [sorted(c)[N_U // 2] for c in zip(*norms)]
    if not corrected:
        parts = {f"Lemma 3's ‖δ{X}‖ ≤ ‖{X}‖/T for the proof's u (median ‖δ{X}‖)": (t64(m), t64(xn / T))
                 for X, m, xn in zip("WMY", med, (Wn, Mn, Yn))}
        parts["the displayed inequality (‖Y‖, ‖M‖ as printed) holds with probability ≥ 1/2"] = (
            t64(0.5), t64(held / N_U))
        return parts
    t_star = proof_sigma(case) * math.sqrt(2 * h * math.log(12 * h))
    return {"relaxed hypotheses: σ√(2h ln 12h) ≤ 1/T ≤ max{‖X‖, 1}/T": (t64(t_star), t64(1 / T)),
            "the next line (max{‖Y‖, 1} max{‖M‖, 1}) holds with probability ≥ 1/2": (t64(0.5), t64(held_max / N_U)),
            "Lemma 2's condition P[‖ŷ_(w+u) − ŷ_w‖_∞ < γ/4] ≥ 1/2 (sample inputs)": (t64(0.5), t64(lemma2 / N_U))}


def _sample(gen, h, T, device, dtype) -> StepCase:
    """W Gaussian at spectral scale ∈ [0.3, 1.5]; M, Y Gaussian with spectral norm log-uniform in [1e-3, 3] (small
    norms are where Lemma 3's hypotheses fail); φ ∈ {ReLU, tanh}; 4 Gaussian input sequences, B = max ‖x_t‖;
    γ = 2BTβ·ρ with ρ uniform in (0, 1] (the proof's non-trivial range γ ≤ 2BTβ)."""
    n, n_i, n_y = h, randint(gen, 1, 3), randint(gen, 2, 3)
    unit = lambda X: X / spec_norm(X)  # noqa: E731
    W = unit(gauss(gen, n, n)) * (0.3 + 1.2 * draw(gen))
    M = unit(gauss(gen, n, n_i)) * 10 ** (-3 + 3.5 * draw(gen))
    Y = unit(gauss(gen, n_y, n)) * 10 ** (-3 + 3.5 * draw(gen))
    x = gauss(gen, 4, T, n_i)
    B = float(torch.linalg.vector_norm(x, dim=-1).max())
    case = StepCase(W, M, Y, x, B, 1.0, randint(gen, 0, 2**31 - 1), "relu" if draw(gen) < 0.5 else "tanh")
    beta = max(float(spec_norm(W)) ** (T - 1), 1.0) * max(float(spec_norm(Y)), 1.0) * max(float(spec_norm(M)), 1.0)
    case.gamma = 2 * B * T * beta * max(draw(gen), 1e-3)
    conv = lambda X: to_case(X, device, dtype)  # noqa: E731
    return StepCase(conv(W), conv(M), conv(Y), conv(x), B, case.gamma, case.seed, case.activation)


def _starts(h, T, device, dtype) -> list[StepCase]:
    """M = 1e-3 e_1 1ᵀ/‖1‖ and Y = 1e-3 (rank one), W = 0.9 I, constant inputs along M's row space, γ = 2BTβ (the
    largest σ the proof allows): δM dominates M, and the printed right side is ≈ 0."""
    n_i, n_y = 2, 2
    W = 0.9 * torch.eye(h, dtype=F64)
    M = torch.zeros(h, n_i, dtype=F64)
    M[0] = 1e-3 / math.sqrt(n_i)
    Y = torch.full((n_y, h), 1e-3 / math.sqrt(n_y * h), dtype=F64)
    x = torch.ones(2, T, n_i, dtype=F64) / math.sqrt(n_i)
    conv = lambda X: to_case(X, device, dtype)  # noqa: E731
    return [StepCase(conv(W), conv(M), conv(Y), conv(x), 1.0, 2.0 * T, 7, act) for act in ("relu", "tanh")]


A_WINDOW = Assumption("γ ≤ 2BTβ (the range where the proof uses Lemmas 2 and 3)", lambda c: (
    c.gamma <= 2 * c.B * c.x.shape[1] * max(float(spec_norm(c.W)) ** (c.x.shape[1] - 1), 1.0)
    * max(float(spec_norm(c.Y)), 1.0) * max(float(spec_norm(c.M)), 1.0) * (1 + 1e-12), f"γ = {c.gamma:.4g}"))

_STEP_ASSUMPTIONS = (A_X_BOUND, A_ACT, A_NO_BIAS, A_H0, A_WINDOW)
_STEPS = CaseSpace(case_type=StepCase, sample=_sample, starts=_starts,
                   sizes={"quick": [(2, 1), (3, 4), (6, 8)], "full": [(2, 1), (3, 4), (6, 8), (16, 20)]})

theorem5_step = Claim(
    id="spectral_rnn.theorem5_step",
    source="spectral_rnn.md, App. A.6, proof of Theorem 5: 'Plugging into Lemma 3 …' (Lemma 3's hypotheses)",
    statement="The proof's perturbation u ~ N(0, σ²I), σ = γ/(12√(2h ln 12h)TB(Te + e + 1)β̃), satisfies Lemma 3's "
              "‖δX‖ ≤ ‖X‖/T, so with probability ≥ 1/2 max_x ‖ŷ_{w+u} − ŷ_w‖ ≤ TB max{‖W‖^{T−1}, 1}(‖Y‖‖δW‖‖M‖Te "
              "+ ‖Y‖‖δM‖e + ‖δY‖‖M‖)",
    assumptions=_STEP_ASSUMPTIONS,
    measure=f"{N_U} draws of u at the proof's σ (β̃ = β/e): the median ‖δX‖ against ‖X‖/T, and the fraction of "
            "draws for which the displayed inequality holds on the case's input sequences",
    bound="‖X‖/T; probability 1/2",
    evaluate=lambda c: _measure(c, False),
    cases=_STEPS,
    explanation="Theorem 5 is 'for any w', but the step applies Lemma 3 to a perturbation whose size does not "
                "depend on ‖W‖, ‖M‖, ‖Y‖: for ‖X‖ < Tσ√(2h ln 12h) the hypothesis ‖δX‖ ≤ ‖X‖/T fails, and the "
                "displayed inequality with it (M ≈ 0 makes its right side ≈ 0 while δM x moves ŷ). Missing "
                "hypothesis: ‖X‖ ≥ Tσ√(2h ln 12h) for X = W, M, Y. The proof survives through the relaxed lemma: see "
                "spectral_rnn.theorem5_step.corrected.",
    notes="Reading: β̃ = β/e (the largest σ the grid β/e ≤ β̃ ≤ eβ allows); 'max_x' is taken over the case's "
          "sample sequences, a lower bound of the sup over ‖x_t‖ ≤ B, so a failure on them is a failure. The "
          "probability is estimated from the draws (a failure reported here has every draw failing).",
)

theorem5_step_corrected = Claim(
    id="spectral_rnn.theorem5_step.corrected",
    source="spectral_rnn.md, App. A.6, the same step, corrected by rnnaudit (Lemma 3 with ‖δX‖ ≤ max{‖X‖, 1}/T)",
    statement="The proof's u satisfies ‖δX‖ ≤ max{‖X‖, 1}/T whenever ‖δX‖ ≤ σ√(2h ln 12h), and then (probability "
              "≥ 1/2) max_x ‖ŷ_{w+u} − ŷ_w‖ ≤ TB max{‖W‖^{T−1}, 1} max{‖Y‖, 1} max{‖M‖, 1}(‖δW‖Te + ‖δM‖e + ‖δY‖) "
              "≤ γ/4",
    assumptions=_STEP_ASSUMPTIONS,
    measure="σ√(2h ln 12h) against 1/T; the fraction of draws meeting the max-form inequality and Lemma 2's γ/4",
    bound="1/T; probability 1/2",
    evaluate=lambda c: _measure(c, True),
    cases=_STEPS,
    explanation="Would mean the proof of Theorem 5 cannot be repaired by relaxing Lemma 3's hypotheses.",
    notes="σ√(2h ln 12h) = γ/(12TB(Te + e + 1)β̃) ≤ 2BTβ/(12TB(Te + e + 1)β/e) = e/(6(Te + e + 1)) < 1/T for "
          "γ ≤ 2BTβ. Lemma 3's induction goes through with ‖W + δW‖ ≤ (1 + 1/T) max{‖W‖, 1} and max{‖W‖, 1} "
          "max{‖W‖^{t−2}, 1} = max{‖W‖^{t−1}, 1}; the output bound then carries max{‖Y‖, 1} max{‖M‖, 1}, the "
          "form the proof's next line uses. The relaxed lemma is checked here on the proof's own draws, not by "
          "an adversarial search over perturbations.",
)
