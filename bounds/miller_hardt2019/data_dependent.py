"""miller_hardt2019 (arXiv 1805.10369): data-dependent stability. Models that are not stable everywhere can be
contractive on the data they see; the paper measures this on trained models. In rnnaudit's form: along a
sequence, λ = max_t ‖∂h_t/∂h_(t−1)‖₂ < 1 (every step contracts at the visited states). Then the influence of an
input decays geometrically: ∂h_t/∂x_s = J_t ⋯ J_(s+1) B_s with B_s = ∂h_s/∂x_s, so

    ‖∂h_t/∂x_s‖₂ ≤ λ^(t−s) ‖∂h_s/∂x_s‖₂,

which is the local (infinitesimal) form of the paper's argument that a stable model forgets its distant inputs
and is approximated by a truncated, feed-forward one. It needs nothing of the architecture: it applies to
every cell, the LSTM's (h, c) state and a user's step included.

Read from: abstract and introduction only (search tool excerpts); the paper's own measure of data-dependent
stability was not read, so this claim states the elementary consequence, not the paper's numbers.
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnaudit.bounds.architectures import (
    MAX_STARTS,
    ArchCase,
    arch_cases_from_model,
    pair_schedule,
    spectral,
    step_map,
)
from rnnaudit.bounds.core import CaseSpace, Claim, Supremum
from rnnaudit.bounds.pascanu2013.cases import A_ETA, linear_regime_case, sample_any
from rnnaudit.bounds.pascanu2013.vanishing import SIZES

__all__ = ["data_dependent", "input_products"]

def input_products(case: ArchCase) -> tuple[Tensor, Tensor]:
    """(‖∂h_t/∂x_s‖₂, λ^(t−s)‖∂h_s/∂x_s‖₂) over the pairs s < t of
    :func:`~rnnaudit.bounds.architectures.pair_schedule` (all of them on short sequences), each (N,)."""
    shared = step_map(case)
    J, B = shared.J, shared.B
    T = J.shape[0]
    lam = shared.eta()
    m, b = [], []
    for s, ts in pair_schedule(T - 1, MAX_STARTS).items():  # B[s] = ∂h_(s+1)/∂x_(s+1), J[t] = ∂h_(t+1)/∂h_t
        P, base = B[s], spectral(B[s])
        for t in range(s + 1, max(ts) + 1):
            P = J[t] @ P
            if t in ts:
                m.append(spectral(P))
                b.append(lam ** (t - s) * base)
    if not m:
        zero = J.new_zeros(())
        return zero[None], (zero + 1)[None]
    return torch.stack(m), torch.stack(b)


def _measure(case: ArchCase) -> dict[str, tuple[Tensor, Tensor]]:
    """The worst pair of :func:`input_products`, from the case's shared map (norms factorised only where the worst
    ratio can be; a chain of products formed only while its ratio can still be the worst, as λ bounds every
    step: :meth:`~rnnaudit.bounds.step_maps.StepMap.inputs` with a rate)."""
    shared = step_map(case)
    norms, log2_base, taus = shared.inputs(rate=shared.eta())
    if norms is None:
        zero = shared.J.new_zeros(())
        return {"‖∂h_t/∂x_s‖₂ ≤ λ^(t−s)‖∂h_s/∂x_s‖₂": (zero, zero + 1)}
    whole, frac = shared.eta_parts()  # τ·log₂ λ as τ·k (exact) + τ·log₂ m: no rounding at τ·|log₂ λ|
    return {"‖∂h_t/∂x_s‖₂ ≤ λ^(t−s)‖∂h_s/∂x_s‖₂": norms.worst_log2(taus * frac + log2_base, whole=taus * whole)}


def _starts(h: int, T: int, device="cpu", dtype=torch.float64) -> list[ArchCase]:
    case = linear_regime_case(h, T, 0.9, device, dtype)
    case.weights[0][0][:, 0] = 1.0  # an input direction, so ∂h_s/∂x_s ≠ 0
    return [case]


data_dependent = Claim(
    id="miller_hardt2019.data_dependent",
    source="miller_hardt2019 (arXiv 1805.10369), data-dependent stability (wording not read; see the module "
           "docstring), in rnnaudit's local form for any cell",
    statement="If every step contracts on the data, λ = max_t ‖∂h_t/∂h_(t−1)‖₂ < 1, an input's influence decays "
              "geometrically: ‖∂h_t/∂x_s‖₂ ≤ λ^(t−s)‖∂h_s/∂x_s‖₂",
    assumptions=(A_ETA,),
    measure="‖∂h_t/∂x_s‖₂ by products of autograd Jacobians (packed state); on a model's long sequences 4 start "
            "times s and about two lags per octave, each chain stopped once its ratio is certified below the worst "
            "found (the ratio cannot rise along a chain)",
    bound="λ^(t−s)‖∂h_s/∂x_s‖₂",
    evaluate=_measure,
    cases=CaseSpace(case_type=ArchCase, sample=lambda g, h, T, device="cpu", dtype=torch.float64: sample_any(
        g, h, T, device, dtype, contractive=True), sizes=SIZES, starts=_starts,
        from_model=lambda view: arch_cases_from_model(view, what="data-dependent stability")),
    explanation="Would mean the spectral norm is not submultiplicative.",
    notes="Holds; attained by J_t = 0.9·I. On a model, the assumption is the content: a trained LSTM, GRU or IndRNN "
          "whose steps expand somewhere on the data (λ ≥ 1) is not data-dependently stable, and the decay is "
          "not guaranteed.",
    supremum=Supremum(1.0, "‖J⋯J B‖ ≤ ∏‖J‖ ‖B‖ ≤ λ^(t−s)‖B‖; equality for J_t = 0.9·I (structured start)", at=(2, 5)),
)
