"""Contraction of a tanh RNN, GRU or LSTM layer on its forward-invariant box, in a diagonally weighted ℓ∞
norm: rnnaudit's own certificate for gated cells, with the gates bounded by the range they can reach.

**Statement (rnnaudit).** Let X be the box of the layer's inputs (per coordinate min and max over the
sequence) and B a forward-invariant box of states (F(B, X) ⊂ B;
:func:`rnnaudit.analysis.contraction.reachable_box`: [−1, 1]^H for h, |c_i| ≤ ī_i/(1 − f̄_i) for an LSTM's
c, each shrunk by 20 interval images, every trajectory from [−1, 1]^H (and the LSTM's c-box) being inside
after 20 steps). If the certificate's rate c = max_k ‖M_k‖_{∞,η} < 1
(:func:`rnnaudit.analysis.contraction.certify`: M_k bound the state Jacobian's weighted row sums over B × X,
the gates' factors bounded by interval arithmetic on their pre-activations), then any two trajectories in B
of the same inputs from X satisfy ‖s_t − s'_t‖_{∞,η} ≤ c^t ‖s_0 − s'_0‖_{∞,η}.

Proof: the Lemma of :mod:`rnnaudit.analysis.contraction` (mean value theorem on the segment, inside the convex
B) gives ‖F(s, x) − F(s', x)‖_{∞,η} ≤ c ‖s − s'‖_{∞,η} for s, s' ∈ B, x ∈ X; invariance keeps both
trajectories in B; induct on t. For a GRU the update gate z multiplies the identity: the rate is at least
z̄ = the largest z over the box, so the certificate needs the update gate bounded away from 1 on the data's
range, which is why the gates are bounded by their reachable range and not by (0, 1).

Relation to the papers: Bonassi, Farina & Scattolini 2021 (GRU, arXiv 2011.06806) and Terzi et al. 2021
(LSTM) give δISS conditions of this kind (weight inequalities with the gates bounded by σ of an ∞-norm of
their weights and input bound); their wording was not readable here (only the abstracts), so this is not
their condition and no constant of theirs is used. Sufficient only: a rate ≥ 1 says nothing about whether
the layer contracts.
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.architectures import ArchCase, arch_cases_from_model, trajectory
from rnnaudit.bounds.contraction.cases import (GATED_KINDS, box_certificate, gated_rounding, project_certified,
                                               rounding_allowance, sample_certified, weighted_distance)
from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, Supremum, worst_pair
from rnnaudit.bounds.pascanu2013.cases import per_layer, vanilla_free

__all__ = ["gated_box", "A_BOX_RATE"]


def _rate(layer: ArchCase) -> float | None:
    cert = box_certificate(layer)
    return None if cert is None else cert.rate


def _rate_below(case: ArchCase) -> tuple[bool, str]:
    if case.kind not in GATED_KINDS:
        return False, f"not a layer with a bounded invariant box ({case.kind}; covered: {', '.join(GATED_KINDS)})"
    parts, ok = [], True
    for k, layer in enumerate(per_layer(case)):
        cert = box_certificate(layer)
        if cert is None:
            ok = False
            parts.append(f"layer {k}: no bounded invariant box (the forget gate reaches 1 in float64)")
            continue
        ok &= cert.contracts
        parts.append(f"layer {k}: {cert.describe()} on the invariant box")
    return ok, "; ".join(parts)


A_BOX_RATE = Assumption("the certified rate on the layer's invariant state box and its inputs' box is < 1, every "
                        "layer (gates bounded by their reachable range)", _rate_below)


def _measure(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    m, b = [], []
    for layer in per_layer(case):
        cert = box_certificate(layer)
        if cert is None:
            continue
        B, eta, rate = cert.states, cert.weight, cert.rate
        # two starts at opposite corners of the invariant box: both trajectories stay in it
        first = trajectory(ArchCase(layer.kind, layer.weights, layer.x, B.lo.to(layer.x.dtype)))
        other = trajectory(ArchCase(layer.kind, layer.weights, layer.x, B.hi.to(layer.x.dtype)))
        d = weighted_distance(first, other, eta)
        n = torch.arange(first.shape[0], dtype=d.dtype, device=d.device)
        small = float(eta.min())
        allowance = rounding_allowance(rate, d, gated_rounding(layer, layer.x, first[:-1]) / small,
                                       gated_rounding(layer, layer.x, other[:-1]) / small)
        m.append(d[1:])
        b.append((rate ** n * d[0])[1:] + allowance)
    if not m:
        zero = case.x.new_zeros(())
        return {"‖s_t − s'_t‖_∞,η ≤ c^t ‖s_0 − s'_0‖_∞,η on the invariant box": (zero, zero + 1)}
    return {"‖s_t − s'_t‖_∞,η ≤ c^t ‖s_0 − s'_0‖_∞,η on the invariant box": worst_pair(torch.cat(m), torch.cat(b))}


def _sample(gen: torch.Generator, h: int, T: int, device="cpu", dtype=torch.float64) -> ArchCase:
    return sample_certified(gen, h, T, GATED_KINDS, _rate, lambda *a: _starts(*a)["GRU, constant update gate"],
                            device, dtype)


def _project(case: ArchCase) -> None:
    project_certified(case, _rate)


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> dict[str, ArchCase]:
    """A tanh RNN with W = 0.9·I, zero inputs and biases: the invariant box shrinks to a neighbourhood of 0 where
    tanh' ≈ 1, so the rate approaches 0.9 and the measured decay matches it; a GRU with zero recurrent weights
    and update-gate bias 2 (z = σ(2) = 0.881 everywhere): h_t − h'_t = z^t (h_0 − h'_0) exactly, rate z."""
    z = lambda *s: torch.zeros(*s, dtype=dtype, device=device)  # noqa: E731
    W = 0.9 * torch.eye(h, dtype=dtype, device=device)
    out = {"tanh RNN, W = 0.9·I": ArchCase("rnn_tanh", ((z(h, 2), W, z(h), z(h)),), z(T, 2), z(h))}
    b = z(3 * h)
    b[h:2 * h] = 2.0
    out["GRU, constant update gate"] = ArchCase("gru", ((z(3 * h, 2), z(3 * h, h), b, z(3 * h)),), z(T, 2), z(h))
    return out


gated_box = Claim(
    id="contraction.gated_box",
    source="rnnaudit's own certificate (proof in bounds/contraction/gated_box.py and analysis/contraction.py); the "
           "δISS conditions of Bonassi, Farina & Scattolini 2021 (GRU) and Terzi et al. 2021 (LSTM) are of this kind "
           "but their wording was not readable, so none of their constants is used",
    statement="If the certified rate c (weighted ℓ∞, gates bounded over the layer's forward-invariant state box B "
              "and its inputs' box X by interval arithmetic) is < 1, then any two trajectories in B of the same "
              "inputs satisfy ‖s_t − s'_t‖_∞,η ≤ c^t ‖s_0 − s'_0‖_∞,η (tanh RNN, GRU, LSTM; every layer)",
    assumptions=(A_BOX_RATE,),
    measure="‖s_t − s'_t‖_∞,η of the trajectories of the same inputs from the two opposite corners of B (each layer's "
            "own packed state; an LSTM's (h, c)); every t",
    bound="c^t ‖s_0 − s'_0‖_∞,η (plus the two trajectories' derived rounding, contraction.cases.gated_rounding)",
    evaluate=_measure,
    cases=CaseSpace(case_type=ArchCase, sample=_sample,
                    sizes={"quick": [(1, 4), (3, 6)], "full": [(1, 4), (3, 6), (8, 12), (24, 20)]},
                    free=vanilla_free, project=_project, starts=_starts,
                    from_model=lambda view: arch_cases_from_model(view, GATED_KINDS,
                                                                  what="the gated contraction certificate")),
    explanation="Would mean the interval bounds on the gates or the Jacobian bound M are not bounds, or the box is "
                "not forward invariant.",
    notes="Holds; equality with a GRU whose gates are constant (zero recurrent weights): h_t − h'_t = z^t(h_0 − "
          "h'_0). A sufficient condition only, and a conservative one for trained models: the box covers every "
          "state the layer can reach from [−1, 1]^H, not only those the data visit (contraction.data_box).",
    supremum=Supremum(1.0, "a GRU with zero recurrent weights and constant update gate z: the difference scales by "
                           "exactly z a step (structured start)", at=(3, 6)),
)
