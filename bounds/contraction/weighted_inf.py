"""Contraction of a vanilla RNN in a diagonally weighted ℓ∞ norm: ρ(|W|) < 1 suffices, where ‖W‖₂ < 1
(echo_state.sufficient, miller_hardt2019.rnn_stable) may fail.

Source: Davydov, Proskurnikov & Bullo, "Non-Euclidean contraction analysis of continuous-time neural
networks" (arXiv 2110.08298; IEEE TAC 70(1):235–250, 2025). Read through the search tool (pages corpus:
arxiv.org/html/2110.08298v5, iris.polito.it/handle/11583/2996521): the abstract only, which gives
"sufficient conditions for the contractivity of ... firing rate ... neural networks with respect to the
non-Euclidean ℓ1/ℓ∞ norms", "based upon linear programming or, in some special cases, establishing the
Hurwitzness of a particular Metzler matrix", and "the optimal contraction rate and corresponding weighted
non-Euclidean norm". Their theorems (continuous time, ẋ = −x + Φ(Ax + u)) were not readable; the
discrete-time statement below and its proof are rnnaudit's own, in the same spirit.

**Statement (rnnaudit).** Let h_t = σ(W h_{t−1} + U x_t + b) with σ elementwise and 1-Lipschitz (tanh, relu;
IndRNN: W = diag(u)). If some η > 0 gives c = ‖|W|‖_{∞,η} = max_i Σ_j |W_ij| η_j/η_i < 1, then for any two
trajectories of the same inputs ‖h_t − h'_t‖_{∞,η} ≤ c^t ‖h_0 − h'_0‖_{∞,η}.

Proof. |σ(a_i) − σ(a'_i)| ≤ |a_i − a'_i| = |Σ_j W_ij (h_j − h'_j)| ≤ Σ_j |W_ij| |h_j − h'_j|, so
|h_t − h'_t| ≤ |W| |h_{t−1} − h'_{t−1}| entrywise, and max_i (|W| v)_i/η_i ≤ c max_j v_j/η_j for v ≥ 0.
The best weight is the Perron vector of |W| (min_η ‖|W|‖_{∞,η} = ρ(|W|), Collatz–Wielandt), which
:func:`rnnaudit.analysis.contraction.perron_weight` finds; so the condition is ρ(|W|) < 1. It is incomparable
with ‖W‖₂ < 1: W = [[0.5, 3], [0, 0.5]] has ‖W‖₂ = 3.08 and ρ(|W|) = 0.5; an orthogonal W has ‖W‖₂ = 1 and
ρ(|W|) up to √h. Sufficient only: a layer whose |W| has ρ ≥ 1 may still contract.

Each layer of torch's nn.RNN contracts in its own weighted norm (the layers above read the same input
sequence in both trajectories, a cascade), which is what is measured.
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.analysis.contraction import perron_weight
from rnnaudit.bounds.architectures import ArchCase, arch_cases_from_model, sample_arch, step_rounding, trajectory
from rnnaudit.bounds.contraction.cases import MARGIN, absolute_certificate, weighted_distance
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, Supremum, worst_pair
from rnnaudit.bounds.miller_hardt2019.rnn_stable import TORCH_VANILLA, second_start
from rnnaudit.bounds.pascanu2013.cases import draw, per_layer, pick, vanilla_free

__all__ = ["weighted_inf", "A_ABS_RATE", "TRIANGULAR"]

#: ‖W‖₂ = 3.08 > 1 but ρ(|W|) = 0.5: contraction in a weighted ℓ∞ norm that no spectral-norm test sees
TRIANGULAR = ((0.5, 3.0), (0.0, 0.5))


def _rate_below(case: ArchCase) -> tuple[bool, str]:
    if case.kind not in TORCH_VANILLA:
        return False, f"not a vanilla RNN of the form σ(Wh + Ux + b) ({case.kind})"
    parts, ok = [], True
    for k, layer in enumerate(per_layer(case)):
        eta, rate, rho = absolute_certificate(layer)
        ok &= rate < 1
        W = layer.recurrent_matrix(0).detach()
        parts.append(f"layer {k}: ‖|W|‖_∞,η = {rate:.6g} (ρ(|W|) = {rho:.6g}, ‖W‖₂ = "
                     f"{float(torch.linalg.matrix_norm(W, ord=2)):.4g}; Perron weight η from {float(eta.min()):.3g} to 1)")
    return ok, "; ".join(parts)


A_ABS_RATE = Assumption("some diagonal weight η > 0 gives ‖|W|‖_∞,η < 1 in every layer (⇔ ρ(|W|) < 1; σ 1-Lipschitz)",
                        _rate_below)


def _measure(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    m, b = [], []
    for layer in per_layer(case):
        eta, rate, _ = absolute_certificate(layer)
        first = trajectory(layer)
        other = trajectory(ArchCase(layer.kind, layer.weights, layer.x, second_start(layer)))
        d = weighted_distance(first, other, eta)
        n = torch.arange(first.shape[0], dtype=d.dtype, device=d.device)
        # each computed trajectory is within E_n of the exact one in ‖·‖_∞,η: E_n = c E_(n−1) + δ_n/min η, δ_n the
        # ℓ2 (≥ ℓ∞) rounding of step n (architectures.step_rounding)
        allowance, E, E_other, small = [], 0.0, 0.0, float(eta.min())
        for x_t, h, g in zip(layer.x, first[:-1], other[:-1]):
            E = rate * E + float(step_rounding(layer, x_t, h)) / small
            E_other = rate * E_other + float(step_rounding(layer, x_t, g)) / small
            allowance.append(E + E_other)
        m.append(d[1:])
        b.append((rate ** n * d[0])[1:] + d.new_tensor(allowance))
    return {"‖h_t − h'_t‖_∞,η ≤ ‖|W|‖_∞,η^t ‖h_0 − h'_0‖_∞,η": worst_pair(torch.cat(m), torch.cat(b))}


def _project(case: ArchCase) -> None:
    for k in range(case.layers):
        _, rate, _ = absolute_certificate(ArchCase(case.kind, (case.weights[k],), case.x, case.h0))
        if rate >= 1 - MARGIN:
            case.weights[k][1].mul_((1 - MARGIN) / rate)


def _sample(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> ArchCase:
    """A vanilla case (torch's tanh or relu, one or two layers; IndRNN) with ‖W‖₂ log-uniform in [0.1, 3],
    rescaled to ‖|W|‖_∞,η in [0.1, 0.999] per layer with its Perron weight."""
    kind = pick(gen, TORCH_VANILLA)
    layers = 2 if kind in ("rnn_tanh", "rnn_relu") and draw(gen) < 0.3 else 1
    case = sample_arch(gen, kind, h, T, layers=layers, device=device, dtype=dtype)
    with torch.no_grad():
        for k, w in enumerate(case.weights):
            M = (torch.diag(w[1]) if kind == "indrnn" else w[1]).abs()
            rate = perron_weight(M)[1]
            w[1].mul_((0.1 + 0.899 * draw(gen)) / max(rate, 1e-12))
    return case


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> dict[str, ArchCase]:
    """Equality: relu, W = 0.9·I, biases 2, zero inputs, h_0 = 1 and h'_0 = −1.5 (relu's linear region: the
    difference scales by exactly 0.9 a step). And the triangular W of :data:`TRIANGULAR` (tanh, zero inputs,
    ‖W‖₂ = 3.08) where the weighted norm certifies what ‖W‖₂ cannot."""
    z = lambda *s: torch.zeros(*s, dtype=dtype, device=device)  # noqa: E731
    one = torch.ones(h, dtype=dtype, device=device)
    out = {"relu linear region, W = 0.9·I": ArchCase("rnn_relu", ((z(h, 2), 0.9 * torch.eye(h, dtype=dtype,
                                                                                               device=device),
                                                                  2 * one, z(h)),), z(T, 2), one)}
    if h >= 2:
        W = 0.5 * torch.eye(h, dtype=dtype, device=device)
        W[0, 1] = 3.0
        out["triangular, ‖W‖₂ > 1 > ρ(|W|)"] = ArchCase("rnn_tanh", ((z(h, 2), W, z(h), z(h)),), z(T, 2), 0.3 * one)
    return out


weighted_inf = Claim(
    id="contraction.weighted_inf",
    source="rnnaudit's own discrete-time form (proof in bounds/contraction/weighted_inf.py) of the weighted ℓ∞ "
           "contraction of Davydov, Proskurnikov & Bullo, arXiv 2110.08298 (abstract read; their continuous-time "
           "theorems were not readable)",
    statement="If some diagonal weight η > 0 gives c = ‖|W|‖_∞,η < 1 (equivalently ρ(|W|) < 1), then any two "
              "trajectories of the same inputs satisfy ‖h_t − h'_t‖_∞,η ≤ c^t ‖h_0 − h'_0‖_∞,η (σ 1-Lipschitz "
              "elementwise: tanh, relu; every layer of torch's nn.RNN; IndRNN)",
    assumptions=(A_ABS_RATE,),
    measure="‖h_t − h'_t‖_∞,η of two trajectories of the same inputs from h_0 and −h_0 − 1/2, η the Perron weight "
            "of |W|, each layer's own state; every t",
    bound="c^t ‖h_0 − h'_0‖_∞,η, c = ‖|W|‖_∞,η (plus the two trajectories' derived rounding)",
    evaluate=_measure,
    cases=CaseSpace(case_type=ArchCase, sample=_sample,
                    sizes={"quick": [(1, 4), (3, 6)], "full": [(1, 4), (3, 6), (8, 12), (32, 30)]},
                    free=vanilla_free, project=_project, starts=_starts,
                    from_model=lambda view: arch_cases_from_model(view, TORCH_VANILLA,
                                                                  what="the weighted ℓ∞ contraction certificate")),
    explanation="Would mean σ is not 1-Lipschitz elementwise or the weighted norm is not the one |W| induces.",
    notes="Holds; attained in relu's linear region with W a multiple of I. A sufficient condition only: a trained "
          "nn.RNN whose |W_hh| has Perron root ≥ 1 may still contract; contraction.data_box bounds one step on the box "
          "its data visit, which proves no contraction of a trajectory that leaves that box. The "
          "audit reports the rate and the weight's range in the assumption's detail.",
    supremum=Supremum(1.0, "equality in relu's linear region with W = 0.9·I (structured start)", at=(3, 6)),
)
