"""spectral_rnn.md, Lemma 3 (App. A.6, eq. 22, eq. 25 and the output bound): how far a perturbation
u = (δW, δY, δM) moves the hidden states and outputs of the RNN of eq. 17.

Eq. 22 is checked in both readings (as printed, BTe^{(…)}, and as proved, BTe(…)).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, Supremum, within, worst_pair
from rnnaudit.bounds.spectral_rnn.rnn17 import (RNN_ASSUMPTIONS, RNN_SIZES, RNNCase, free_rnn, growth, project_rnn,
                                                rnn_cases_from_model, rnn_starts, rnn_states, sample_rnn_case, times,
                                                spec_norm)

__all__ = ["lemma3", "PERTURBATION_ASSUMPTIONS"]


def _sample(gen, h, T, device, dtype) -> RNNCase:
    return sample_rnn_case(gen, h, T, device, dtype, perturb=True)


def _measure(case: RNNCase) -> dict[str, tuple[Tensor, Tensor]]:
    h_w = rnn_states(case.W, case.M, case.x, case.activation, case.b, case.h0)
    h_wu = rnn_states(case.W + case.dW, case.M + case.dM, case.x, case.activation, case.b, case.h0)
    T = h_w.shape[1]
    delta = torch.linalg.vector_norm(h_wu - h_w, dim=-1).amax(0)  # Δ_t, worst sequence
    # Δ_t is a difference of two float recurrences, and eq. 25's right side can sit at rounding level (δW = 0,
    # ‖δM‖ ~ 1e-16). Each recurrence's computed h_t is off by at most t·max{‖W‖, 1}^{t−1}·γ·(‖W‖H + ‖M‖B), with
    # γ = (h + n + 2)u the pre-activation's relative rounding per step, carried by a 1-Lipschitz φ and ‖W‖ per
    # step (W, M the larger of each pair, H = max‖h_t‖): the exact Δ_t is at least the computed one minus twice it.
    with torch.no_grad():
        u = torch.finfo(h_w.dtype).eps / 2
        steps = torch.arange(1, h_w.shape[1] + 1, dtype=h_w.dtype, device=h_w.device)
        Wbig = torch.maximum(spec_norm(case.W), spec_norm(case.W + case.dW))
        Mbig = torch.maximum(spec_norm(case.M), spec_norm(case.M + case.dM))
        H = torch.maximum(torch.linalg.vector_norm(h_w, dim=-1).amax(), torch.linalg.vector_norm(h_wu, dim=-1).amax())
        gamma = (case.W.shape[-1] + case.M.shape[-1] + 2) * u
        rounding = times(2 * steps * gamma, growth(Wbig, h_w.shape[1]), Wbig * H + Mbig * case.B)
    delta = torch.clamp(delta - rounding, min=0.0)
    Wn, Mn, Yn = spec_norm(case.W), spec_norm(case.M), spec_norm(case.Y)
    dWn, dMn, dYn = spec_norm(case.dW), spec_norm(case.dM), spec_norm(case.dY)
    t = torch.arange(1, T + 1, dtype=h_w.dtype, device=h_w.device)
    grow = growth(Wn, T)
    K = dWn * Mn * T + dMn
    e = math.e
    eq25 = times(case.B * t * (1 + 1 / T) ** (t - 1), K, grow)
    y_w, y_wu = h_w[:, -1] @ case.Y.mT, h_wu[:, -1] @ (case.Y + case.dY).mT
    out_diff = torch.linalg.vector_norm(y_wu - y_w, dim=-1).amax()
    out_bound = times(T * case.B, grow[-1], Yn * dWn * Mn * T * e + Yn * dMn * e + dYn * Mn)
    return {
        "eq. 25: Δ_t ≤ Bt(1 + 1/T)^{t−1}(‖δW‖‖M‖T + ‖δM‖) max{‖W‖^{t−1}, 1} (worst t)": worst_pair(delta, eq25),
        "eq. 22 as proved: Δ_T ≤ BTe(T‖M‖‖δW‖ + ‖δM‖) max{‖W‖^{T−1}, 1}": (delta[-1], times(case.B * T * e, K, grow[-1])),
        "eq. 22 as printed: Δ_T ≤ BT e^(T‖M‖‖δW‖ + ‖δM‖) max{‖W‖^{T−1}, 1}": (
            delta[-1], times(case.B * T, torch.exp(K), grow[-1])),
        "output: ‖ŷ_(w+u) − ŷ_w‖ ≤ TB max{‖W‖^{T−1}, 1}(‖Y‖‖δW‖‖M‖Te + ‖Y‖‖δM‖e + ‖δY‖‖M‖)": (
            out_diff, out_bound),
    }


def _perturb_assumption(name: str) -> Assumption:
    base, d = name, "d" + name

    def check(c):
        T = c.x.shape[1]
        dn, bn = float(spec_norm(getattr(c, d).detach())), float(spec_norm(getattr(c, base).detach()))
        return within(dn, bn / T), f"‖δ{base}‖ = {dn:.6g}, ‖{base}‖/T = {bn / T:.6g}"
    return Assumption(f"‖δ{base}‖ ≤ ‖{base}‖/T (Lemma 3)", check)


PERTURBATION_ASSUMPTIONS = tuple(_perturb_assumption(k) for k in ("W", "M", "Y"))

def _starts(h, T, device="cpu", dtype=torch.float64) -> dict[str, RNNCase]:
    return rnn_starts(h, T, device, dtype, perturb=True)


_PERTURBED = CaseSpace(case_type=RNNCase, sample=_sample, free=lambda c: free_rnn(c, True),
                       project=lambda c: project_rnn(c, True), sizes=RNN_SIZES, starts=_starts,
                       from_model=lambda view: rnn_cases_from_model(view, perturb=True))

lemma3 = Claim(
    id="spectral_rnn.lemma3",
    source="spectral_rnn.md, Lemma 3 (App. A.6, eq. 22, eq. 25 and the output bound)",
    statement="If ‖δW‖ ≤ ‖W‖/T, ‖δY‖ ≤ ‖Y‖/T, ‖δM‖ ≤ ‖M‖/T: Δ_t ≤ Bt(1 + 1/T)^{t−1}(‖δW‖‖M‖T + ‖δM‖) "
              "max{‖W‖^{t−1}, 1} (eq. 25), so Δ_T ≤ BTe(T‖M‖‖δW‖ + ‖δM‖) max{‖W‖^{T−1}, 1} (eq. 22), and "
              "‖ŷ_{w+u} − ŷ_w‖ ≤ TB max{‖W‖^{T−1}, 1}(‖Y‖‖δW‖‖M‖Te + ‖Y‖‖δM‖e + ‖δY‖‖M‖)",
    assumptions=RNN_ASSUMPTIONS + PERTURBATION_ASSUMPTIONS,
    measure="Δ_t = ‖h_{w+u}^(t) − h_w^(t)‖ and the output difference from eq. 17 (rnn_states), worst sequence",
    bound="the right sides, spectral norms, B = max_t ‖x_t‖",
    evaluate=_measure,
    cases=_PERTURBED,
    supremum=Supremum(1.0, "at t = 1, Δ_1 = ‖φ((M + δM)x_1) − φ(M x_1)‖ = ‖δM x_1‖ = B‖δM‖ when δW = 0, φ is the "
                           "identity (or ReLU on non-negative pre-activations) and x_1 is along δM's top right "
                           "singular "
                           "vector: eq. 25's right side at t = 1 is B‖δM‖ (the sampler's aligned quarter)",
                      at=(2, 7), part="eq. 25: Δ_t ≤ Bt(1 + 1/T)^{t−1}(‖δW‖‖M‖T + ‖δM‖) max{‖W‖^{t−1}, 1} (worst t)"),
    explanation="The induction uses ‖W + δW‖ ≤ (1 + 1/T)‖W‖; with ‖δW‖ ≫ ‖W‖ the perturbed recurrence can grow "
                "like ‖δW‖^t while the bound is linear in ‖δW‖.",
    notes="Eq. 25 is attained at t = 1 (δW = 0, δM x_1 "
          "aligned). Eq. 25 never uses ‖δM‖ ≤ ‖M‖/T, and holds with ‖δW‖ ≤ max{‖W‖, 1}/T (same induction). "
          "Theorem 5's proof applies the lemma to a Gaussian perturbation without checking its hypotheses, which "
          "fail for ‖W‖ or ‖Y‖ < T·σ√(2h ln 12h) (spectral_rnn.theorem5_step, false); the relaxed form, met by the "
          "proof's σ, repairs this. Decision: eq. 22 printed as BTe^{(T‖M‖‖δW‖ + ‖δM‖)} where the proof ends with "
          "BTe(…) is not counted as an error: both readings are checked and hold (e^x ≥ e·x, so the printed one is "
          "implied by the proof's and weaker).",
)
